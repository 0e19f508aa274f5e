/** @file pmucal-table match --collector URL: ask a collector (tools/pmucal-collect,
 *  docs/collector.md) for the reference latency table of a machine type, `GET
 *  /api/v1/reference?cpu=SIG`, over plain HTTP/1.1 on a TCP socket, with one deadline for the
 *  connection and the whole answer. The table is written to a file, loaded (libpmucal's
 *  checks) and its path printed, as match prints the path of a table it picked in a folder.
 *  A collector that cannot be reached, does not answer in time or has no such type is said
 *  on standard error with the URL, and match exits 1. */
#define _GNU_SOURCE /* strcasestr */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "host/pmucal_table.h"

#define MAX_ANSWER_BYTES (64u << 20) /* the collector's own body limit (docs/collector.md) */

struct http_url {
        char host[256], port[8], path[1024];
};

static double now_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "http://HOST[:PORT][/PATH]" (the firmware's `collector =` form); false when not that. */
static bool parse_url(const char *url, struct http_url *u)
{
        const char *h = url + 7, *end, *colon;
        size_t      n;

        if (strncmp(url, "http://", 7))
                return false;
        end   = h + strcspn(h, "/");
        colon = memchr(h, ':', (size_t)(end - h));
        n     = (size_t)((colon ? colon : end) - h);
        if (!n || n >= sizeof(u->host))
                return false;
        memcpy(u->host, h, n);
        u->host[n] = '\0';
        snprintf(u->port, sizeof(u->port), "80");
        if (colon) {
                n = (size_t)(end - colon - 1);
                if (!n || n >= sizeof(u->port) || strspn(colon + 1, "0123456789") < n)
                        return false;
                memcpy(u->port, colon + 1, n);
                u->port[n] = '\0';
        }
        snprintf(u->path, sizeof(u->path), "%s", end);
        n = strlen(u->path);
        while (n && u->path[n - 1] == '/')
                u->path[--n] = '\0';
        return true;
}

/* Wait until @p fd is ready for @p events or the deadline passes; false on the deadline. */
static bool wait_fd(int fd, short events, double deadline)
{
        for (;;) {
                struct pollfd p  = { .fd = fd, .events = events };
                double        ms = (deadline - now_s()) * 1000;
                int           r;

                if (ms <= 0)
                        return false;
                r = poll(&p, 1, (int)ms + 1);
                if (r > 0)
                        return true;
                if (r < 0 && errno != EINTR)
                        return false;
        }
}

/* A connected non-blocking socket, or -1 with @p err set. */
static int dial(const struct http_url *u, double deadline, char *err, size_t n)
{
        struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai, *a;
        int             fd = -1, rc;

        if ((rc = getaddrinfo(u->host, u->port, &hints, &ai))) {
                snprintf(err, n, "cannot resolve %s: %s", u->host, gai_strerror(rc));
                return -1;
        }
        snprintf(err, n, "cannot connect to %s port %s", u->host, u->port);
        for (a = ai; a; a = a->ai_next) {
                int       e = 0;
                socklen_t l = sizeof(e);

                fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
                if (fd < 0)
                        continue;
                if (connect(fd, a->ai_addr, a->ai_addrlen) && errno != EINPROGRESS)
                        e = errno;
                else if (!wait_fd(fd, POLLOUT, deadline))
                        e = ETIMEDOUT;
                else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l))
                        e = errno;
                if (!e)
                        break;
                snprintf(err, n, "cannot connect to %s port %s: %s", u->host, u->port,
                         e == ETIMEDOUT ? "no connection within the timeout" : strerror(e));
                close(fd);
                fd = -1;
        }
        freeaddrinfo(ai);
        return fd;
}

/* The body of a "Transfer-Encoding: chunked" answer decoded in place; false when malformed. */
static bool unchunk(char *b, size_t *len)
{
        size_t in = 0, out = 0;

        for (;;) {
                char         *end;
                unsigned long n = strtoul(b + in, &end, 16);
                char         *nl = memchr(b + in, '\n', *len - in);

                if (end == b + in || !nl || n > *len - (size_t)(nl + 1 - b))
                        return false;
                in = (size_t)(nl + 1 - b);
                if (!n)
                        break;
                memmove(b + out, b + in, n);
                out += n;
                in += n;
                if (in + 2 > *len || b[in] != '\r' || b[in + 1] != '\n')
                        return false;
                in += 2;
        }
        *len   = out;
        b[out] = '\0';
        return true;
}

/* GET @p target on @p u; the HTTP status and the body (malloc'd, NUL-terminated) or -1 with
 * @p err set. */
static int http_get(const struct http_url *u, const char *target, double timeout_s,
                    char **body, size_t *body_len, char *err, size_t n)
{
        double deadline = now_s() + timeout_s;
        char   req[2048], *buf = NULL, *hdr_end;
        size_t len = 0, cap = 0, off = 0, rlen;
        int    fd, status;
        bool   chunked;

        if ((fd = dial(u, deadline, err, n)) < 0)
                return -1;
        rlen = (size_t)snprintf(req, sizeof(req),
                                "GET %s%s HTTP/1.1\r\nHost: %s:%s\r\nAccept: application/json\r\n"
                                "Connection: close\r\n\r\n", u->path, target, u->host, u->port);
        while (off < rlen) {
                ssize_t w = wait_fd(fd, POLLOUT, deadline) ? send(fd, req + off, rlen - off, MSG_NOSIGNAL) : -2;

                if (w < 0 && w != -2 && (errno == EAGAIN || errno == EINTR))
                        continue;
                if (w < 0) {
                        snprintf(err, n, "sending the request: %s",
                                 w == -2 ? "no progress within the timeout" : strerror(errno));
                        close(fd);
                        return -1;
                }
                off += (size_t)w;
        }
        for (;;) {
                ssize_t r;

                if (cap - len < 65536) {
                        char *nb = cap >= MAX_ANSWER_BYTES ? NULL : realloc(buf, cap + 262144);

                        if (!nb) {
                                snprintf(err, n, "the answer is larger than %u bytes", MAX_ANSWER_BYTES);
                                goto fail;
                        }
                        buf = nb;
                        cap += 262144;
                }
                if (!wait_fd(fd, POLLIN, deadline)) {
                        snprintf(err, n, "no answer within %g s (%zu bytes received)", timeout_s, len);
                        goto fail;
                }
                r = recv(fd, buf + len, cap - len - 1, 0);
                if (r < 0 && (errno == EAGAIN || errno == EINTR))
                        continue;
                if (r < 0) {
                        snprintf(err, n, "reading the answer: %s", strerror(errno));
                        goto fail;
                }
                if (!r)
                        break;
                len += (size_t)r;
        }
        close(fd);
        fd = -1;
        if (!buf || !(buf[len] = '\0', hdr_end = strstr(buf, "\r\n\r\n")) ||
            sscanf(buf, "HTTP/1.%*d %d", &status) != 1) {
                snprintf(err, n, "not an HTTP answer (%zu bytes)", len);
                goto fail;
        }
        *hdr_end  = '\0';
        chunked   = strcasestr(buf, "\r\nTransfer-Encoding: chunked") != NULL;
        *body_len = len - (size_t)(hdr_end + 4 - buf);
        memmove(buf, hdr_end + 4, *body_len + 1);
        if (chunked && !unchunk(buf, body_len)) {
                snprintf(err, n, "a malformed chunked answer (HTTP %d)", status);
                goto fail;
        }
        *body = buf;
        return status;
fail:
        if (fd >= 0)
                close(fd);
        free(buf);
        return -1;
}

int cli_match_collector(const char *url, const char *cpu, double timeout_s, const char *out)
{
        struct http_url      u;
        char                 target[256], err[512], path[512];
        char                *body = NULL;
        size_t               len  = 0;
        int                  status;
        struct pmucal_table *t;
        FILE                *f;

        if (!parse_url(url, &u)) {
                fprintf(stderr, "pmucal-table: match: --collector wants http://HOST[:PORT][/PATH], got %s\n",
                        cli_esc(url));
                return EXIT_USAGE;
        }
        snprintf(target, sizeof(target), "/api/v1/reference?cpu=%s", cpu);
        status = http_get(&u, target, timeout_s, &body, &len, err, sizeof(err));
        if (status < 0) {
                fprintf(stderr, "pmucal-table: match: cannot reach the collector at %s: %s\n",
                        cli_esc(url), err);
                return EXIT_BAD;
        }
        if (status != 200) {
                json_t     *j   = json_loadb(body, len, 0, NULL);
                const char *msg = json_string_value(json_object_get(j, "error"));

                fprintf(stderr, "pmucal-table: match: the collector at %s answered HTTP %d for CPU "
                                "signature %s: %s\n", cli_esc(url), status, cpu,
                        msg ? cli_esc(msg) : "(no error message)");
                json_decref(j);
                free(body);
                return EXIT_BAD;
        }
        if (!out) {
                snprintf(path, sizeof(path), "pmucal-reference-%s.json", cpu);
                out = path;
        }
        if (!(f = fopen(out, "w")) || fwrite(body, 1, len, f) != len || fclose(f)) {
                fprintf(stderr, "pmucal-table: match: %s: %s\n", cli_esc(out), strerror(errno));
                free(body);
                return EXIT_BAD;
        }
        free(body);
        if (!(t = cli_load_table(out))) {
                fprintf(stderr, "pmucal-table: match: the collector's reference for %s is not a "
                                "table this library reads (kept in %s)\n", cpu, cli_esc(out));
                return EXIT_BAD;
        }
        fprintf(stderr, "  reference of the collector at %s for CPU signature %s: %s family/model "
                        "%xh/%xh, %zu levels, written to %s\n", cli_esc(url), cpu,
                cli_str(t->vendor), t->family, t->model, t->n_levels, cli_esc(out));
        pmucal_table_free(t);
        printf("%s\n", cli_esc(out));
        return 0;
}
