/** @file
 * The upload of a run's results to a collector (`collector = http://HOST:PORT` in pmucal.cfg),
 * in the framed application/x-pmucal-run body of docs/collector.md, with a bounded number of
 * tries and a doubling pause between them; one console line per outcome.
 */
#include "app/upload.h"

#include "boot/plat.h"
#include "lib/fmt.h"
#include "report/rep.h"

#define UPLOAD_PATH "/api/v1/runs"

static status_t frame(struct rep_buf *b, const char *name, const char *data, size_t len)
{
        char     head[96];
        int      n = fmt_snprintf(head, sizeof(head), "name %s %zu\n", name, len);
        status_t st = rep_buf_append(b, head, (size_t)n);

        if (st == ST_OK)
                st = rep_buf_append(b, data, len);
        return st == ST_OK ? rep_buf_append(b, "\n", 1) : st;
}

status_t upload_encode(const struct run *r, struct rep_buf *out)
{
        char     head[64];
        int      n = fmt_snprintf(head, sizeof(head), "pmucal-run 1\nrun %s\n", r->name);
        status_t st = rep_buf_append(out, head, (size_t)n);

        for (unsigned i = 0; st == ST_OK && i < r->n_files; i++)
                st = frame(out, r->files[i].name, r->files[i].data.p ? r->files[i].data.p : "",
                           r->files[i].data.len);
        if (st == ST_OK)
                st = frame(out, REPORT_NAME, r->console.p ? r->console.p : "", r->console.len);
        if (st == ST_OK)
                st = rep_buf_append(out, "end\n", 4);
        return st;
}

/* The collector's URL with the upload path: the configured URL names the server (a path in
 * it, if any, is where the collector's API lives). */
static void upload_url(const char *base, char *out, size_t cap)
{
        size_t n = strlen(base);

        while (n > 7 && base[n - 1] == '/')
                n--;
        fmt_snprintf(out, cap, "%.*s%s", (int)n, base, UPLOAD_PATH);
}

/* One line of the reply: its first bytes, control characters as blanks. */
static void one_line(char *s)
{
        for (; *s; s++)
                if ((unsigned char)*s < ' ')
                        *s = ' ';
}

struct upload_policy upload_policy_of(const struct pmucal_config *cfg)
{
        return (struct upload_policy){ .tries          = cfg->upload_tries ? cfg->upload_tries : 1,
                                       .first_pause_us = (uint64_t)cfg->upload_pause_ms * 1000 };
}

enum upload_result upload_run(const struct run *r, const struct upload_policy *pol)
{
        struct rep_buf body = { 0 };
        char           url[CONFIG_URL_MAX + sizeof(UPLOAD_PATH)];
        char           reply[256];
        unsigned       code = 0;
        uint64_t       pause = pol->first_pause_us;
        status_t       st = ST_IO;

        upload_url(r->cfg.collector, url, sizeof(url));
        if (upload_encode(r, &body) != ST_OK || body.oom) {
                rep_warn("upload: out of memory building the upload for %s", url);
                rep_buf_free(&body);
                return UPLOAD_NOT_SENT;
        }
        for (unsigned t = 1; t <= pol->tries; t++) {
                st = plat_net_post(url, UPLOAD_TYPE, body.p, body.len, &code, reply,
                                   sizeof(reply));
                one_line(reply);
                if (st == ST_UNSUPPORTED) {
                        rep_warn("upload: no HTTP client on this platform: the run was not sent "
                                 "to %s", url);
                        rep_buf_free(&body);
                        return UPLOAD_NOT_SENT;
                }
                if (st == ST_OK && (code == 200 || code == 201)) {
                        rep_info("upload: stored by the collector at %s (HTTP %u, try %u of %u, "
                                 "%zu bytes): %s", url, code, t, pol->tries, body.len, reply);
                        rep_buf_free(&body);
                        return UPLOAD_STORED;
                }
                if (st == ST_OK && code >= 400 && code < 500) {
                        rep_warn("upload: the collector at %s refused the run (HTTP %u): %s",
                                 url, code, reply);
                        rep_buf_free(&body);
                        return UPLOAD_REFUSED;
                }
                if (st == ST_OK)
                        rep_info("upload: try %u of %u: the collector at %s answered HTTP %u: %s",
                                 t, pol->tries, url, code, reply);
                else
                        rep_info("upload: try %u of %u: the collector at %s could not be "
                                 "reached (%s)", t, pol->tries, url, status_str(st));
                if (t < pol->tries) {
                        rep_info("upload: trying again in %llu ms",
                                 (unsigned long long)(pause / 1000));
                        plat_stall_us((uint32_t)pause);
                        pause = pause * 2 > UPLOAD_PAUSE_MAX_US ? UPLOAD_PAUSE_MAX_US : pause * 2;
                }
        }
        rep_warn("upload: the collector at %s %s after %u tries: the run was not uploaded", url,
                 st == ST_OK ? "did not store the run" : "was unreachable", pol->tries);
        rep_buf_free(&body);
        return UPLOAD_FAILED;
}
