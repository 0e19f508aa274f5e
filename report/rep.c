/** @file Console reporting (see rep.h). */
#include "report/rep.h"

#include "boot/plat.h"
#include "lib/log.h"

#define MAX_SINKS    4
#define MAX_PREFIXES 8
#define LINE_MAX     1024

static struct rep_sink   sinks[MAX_SINKS];
static unsigned          n_sinks;
static const char       *prefixes[MAX_PREFIXES];
static unsigned          n_prefixes;
static struct rep_counts counts;

static void emit(const char *s, size_t n)
{
        for (unsigned i = 0; i < n_sinks; i++)
                sinks[i].write(sinks[i].ctx, s, n);
}

status_t rep_buf_append(struct rep_buf *b, const char *s, size_t n)
{
        if (b->oom)
                return ST_NO_MEM;
        if (b->len + n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 256;
                while (cap < b->len + n + 1)
                        cap *= 2;
                char *p = plat_alloc(cap);
                if (!p) {
                        b->oom = true;
                        return ST_NO_MEM;
                }
                if (b->len)
                        memcpy(p, b->p, b->len);
                plat_free(b->p);
                b->p   = p;
                b->cap = cap;
        }
        memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len] = '\0';
        return ST_OK;
}

static status_t buf_vprintf(struct rep_buf *b, const char *fmt, va_list ap)
{
        char    small[256];
        va_list ap2;
        int     n;

        va_copy(ap2, ap);
        n = fmt_vsnprintf(small, sizeof(small), fmt, ap2);
        va_end(ap2);
        if (n < (int)sizeof(small))
                return rep_buf_append(b, small, (size_t)n);

        char *big = plat_alloc((size_t)n + 1);
        if (!big) {
                b->oom = true;
                return ST_NO_MEM;
        }
        fmt_vsnprintf(big, (size_t)n + 1, fmt, ap);
        status_t st = rep_buf_append(b, big, (size_t)n);
        plat_free(big);
        return st;
}

status_t rep_buf_printf(struct rep_buf *b, const char *fmt, ...)
{
        va_list  ap;
        status_t st;

        va_start(ap, fmt);
        st = buf_vprintf(b, fmt, ap);
        va_end(ap);
        return st;
}

void rep_buf_free(struct rep_buf *b)
{
        plat_free(b->p);
        *b = (struct rep_buf){ 0 };
}

static status_t buf_sink_write(void *ctx, const char *s, size_t n)
{
        return rep_buf_append(ctx, s, n);
}

struct rep_sink rep_buf_sink(struct rep_buf *b)
{
        return (struct rep_sink){ .write = buf_sink_write, .ctx = b };
}

static void log_writer_to_report(enum log_level level, status_t st, const char *fmt, va_list ap);

status_t rep_add_sink(struct rep_sink sink)
{
        if (n_sinks == MAX_SINKS || !sink.write)
                return ST_BAD_ARG;
        sinks[n_sinks++] = sink;
        log_set_writer(log_writer_to_report);
        return ST_OK;
}

void rep_reset(void)
{
        n_sinks    = 0;
        n_prefixes = 0;
        counts     = (struct rep_counts){ 0 };
}

void rep_vprintf(const char *fmt, va_list ap)
{
        char    line[LINE_MAX];
        va_list ap2;
        int     n;

        va_copy(ap2, ap);
        n = fmt_vsnprintf(line, sizeof(line), fmt, ap2);
        va_end(ap2);
        if (n < (int)sizeof(line)) {
                emit(line, (size_t)n);
                return;
        }
        /* Long text (a JSON dump, a table): format it on the heap rather than cut it. */
        struct rep_buf b = { 0 };
        if (buf_vprintf(&b, fmt, ap) == ST_OK)
                emit(b.p, b.len);
        else
                emit(line, sizeof(line) - 1);
        rep_buf_free(&b);
}

void rep_printf(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        rep_vprintf(fmt, ap);
        va_end(ap);
}

void rep_push(const char *prefix)
{
        if (n_prefixes < MAX_PREFIXES)
                prefixes[n_prefixes] = prefix;
        n_prefixes++;
}

void rep_pop(void)
{
        if (n_prefixes)
                n_prefixes--;
}

/* "TAG: prefix: prefix: message[: status]\n" into line[0..cap); returns the full length, as
 * snprintf does, so the caller can see that it did not fit. */
static size_t compose(char *line, size_t cap, const char *tag, const char *status,
                      const char *fmt, va_list ap)
{
        unsigned depth = n_prefixes < MAX_PREFIXES ? n_prefixes : MAX_PREFIXES;
        size_t   len, at;

        len = (size_t)fmt_snprintf(line, cap, "%s: ", tag);
        for (unsigned i = 0; i < depth; i++) {
                at = len < cap ? len : cap;
                len += (size_t)fmt_snprintf(line + at, cap - at, "%s: ", prefixes[i]);
        }
        at = len < cap ? len : cap;
        len += (size_t)fmt_vsnprintf(line + at, cap - at, fmt, ap);
        at = len < cap ? len : cap;
        len += (size_t)fmt_snprintf(line + at, cap - at, "%s%s\n", status ? ": " : "",
                                    status ? status : "");
        return len;
}

static void verdict(const char *tag, const char *status, const char *fmt, va_list ap)
{
        char    line[LINE_MAX];
        va_list ap2;
        size_t  len;

        va_copy(ap2, ap);
        len = compose(line, sizeof(line), tag, status, fmt, ap2);
        va_end(ap2);
        if (len < sizeof(line)) {
                emit(line, len);
                return;
        }
        /* A long message (a path, a dump): format it on the heap rather than cut it. */
        char *big = plat_alloc(len + 1);
        if (big) {
                compose(big, len + 1, tag, status, fmt, ap);
                emit(big, len);
                plat_free(big);
        } else {
                line[sizeof(line) - 2] = '\n';
                emit(line, sizeof(line) - 1);
        }
}

bool rep_check(bool pass, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        verdict(pass ? "PASS" : "FAIL", NULL, fmt, ap);
        va_end(ap);
        if (pass)
                counts.n_pass++;
        else
                counts.n_fail++;
        return pass;
}

void rep_skip(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        verdict("SKIP", NULL, fmt, ap);
        va_end(ap);
        counts.n_skip++;
}

/* The layers below the report say what happened through lib/log.h; their messages become
 * INFO/WARN/ERROR lines here, under the current prefix. */
static void log_writer_to_report(enum log_level level, status_t st, const char *fmt, va_list ap)
{
        static const char *const tag[] = { [LOG_INFO] = "INFO", [LOG_WARN] = "WARN",
                                           [LOG_ERR] = "ERROR" };

        verdict(tag[level], level == LOG_ERR ? status_str(st) : NULL, fmt, ap);
}

void rep_info(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        verdict("INFO", NULL, fmt, ap);
        va_end(ap);
}

void rep_warn(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        verdict("WARN", NULL, fmt, ap);
        va_end(ap);
}

status_t rep_err(status_t st, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        verdict("ERROR", status_str(st), fmt, ap);
        va_end(ap);
        return st;
}

struct rep_counts rep_get_counts(void)
{
        return counts;
}

int rep_summary(void)
{
        rep_printf("SUMMARY: %u passed, %u failed, %u skipped\n", counts.n_pass, counts.n_fail,
                   counts.n_skip);
        if (counts.n_fail)
                return 1;
        if (!counts.n_pass) /* everything skipped, or nothing ran at all */
                return 2;
        return 0;
}
