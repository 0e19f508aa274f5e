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

/* SKIP lines waiting to be printed: consecutive ones under one prefix path with one reason
 * become one line with their count (each still counted in the summary). */
static struct {
        char     line[LINE_MAX]; /* the first one, as it would print */
        size_t   len;
        size_t   head;           /* "SKIP: prefix: prefix: " */
        size_t   reason;         /* where its reason starts */
        unsigned n;              /* 0: none waiting */
} pend;

static void emit_raw(const char *s, size_t n)
{
        for (unsigned i = 0; i < n_sinks; i++)
                sinks[i].write(sinks[i].ctx, s, n);
}

void rep_flush(void)
{
        char     cnt[24];
        unsigned n = pend.n;

        if (!n)
                return;
        pend.n = 0;
        if (n == 1) {
                emit_raw(pend.line, pend.len);
                return;
        }
        emit_raw(pend.line, pend.head);
        emit_raw(cnt, (size_t)fmt_snprintf(cnt, sizeof(cnt), "%u checks: ", n));
        emit_raw(pend.line + pend.reason, pend.len - pend.reason);
}

static void emit(const char *s, size_t n)
{
        rep_flush();
        emit_raw(s, n);
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
        pend.n     = 0;
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

const char *rep_skip_kind_name(enum rep_skip_kind kind)
{
        static const char *const names[REP_SKIP__COUNT] = {
                [REP_SKIP_ENV] = "environment",
                [REP_SKIP_PMU] = "needs a hardware PMU",
                [REP_SKIP_FEATURE] = "needs a feature",
        };

        return kind < REP_SKIP__COUNT ? names[kind] : "environment";
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

/* Length of "SKIP: prefix: prefix: " as compose() writes it. */
static size_t head_len(const char *tag)
{
        unsigned depth = n_prefixes < MAX_PREFIXES ? n_prefixes : MAX_PREFIXES;
        size_t   len   = strlen(tag) + 2;

        for (unsigned i = 0; i < depth; i++)
                len += strlen(prefixes[i]) + 2;
        return len;
}

/* Put " [kind]" before the newline that ends @p line (@p len bytes, room for @p cap). */
static size_t add_kind(char *line, size_t len, size_t cap, enum rep_skip_kind kind)
{
        size_t n = (size_t)fmt_snprintf(line + len - 1, cap - (len - 1), " [%s]\n",
                                        rep_skip_kind_name(kind));

        return len - 1 + n;
}

void rep_skip(enum rep_skip_kind kind, const char *fmt, ...)
{
        char    line[LINE_MAX];
        va_list ap;
        size_t  len, head = head_len("SKIP"), reason, tag = strlen(rep_skip_kind_name(kind)) + 3;

        if (kind >= REP_SKIP__COUNT)
                kind = REP_SKIP_ENV;
        counts.n_skip++;
        counts.n_skip_by[kind]++;
        va_start(ap, fmt);
        len = compose(line, sizeof(line), "SKIP", NULL, fmt, ap);
        va_end(ap);
        if (len + tag >= sizeof(line) || head >= len) {
                /* too long to hold: printed as it is, from the heap */
                char *big = plat_alloc(len + tag + 1);

                rep_flush();
                va_start(ap, fmt);
                if (big) {
                        compose(big, len + 1, "SKIP", NULL, fmt, ap);
                        emit_raw(big, add_kind(big, len, len + tag + 1, kind));
                        plat_free(big);
                } else {
                        verdict("SKIP", NULL, fmt, ap);
                }
                va_end(ap);
                return;
        }
        len = add_kind(line, len, sizeof(line), kind);
        /* the reason: what follows the check's name ("name: reason"), else the message */
        reason = head;
        for (size_t i = head; i + 1 < len; i++)
                if (line[i] == ':' && line[i + 1] == ' ') {
                        reason = i + 2;
                        break;
                }
        if (pend.n && pend.head == head && !memcmp(pend.line, line, head) &&
            pend.len - pend.reason == len - reason &&
            !memcmp(pend.line + pend.reason, line + reason, len - reason)) {
                pend.n++;
                return;
        }
        rep_flush();
        memcpy(pend.line, line, len);
        pend.len    = len;
        pend.head   = head;
        pend.reason = reason;
        pend.n      = 1;
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
        rep_flush();
        rep_printf("SUMMARY: %u passed, %u failed, %u skipped\n", counts.n_pass, counts.n_fail,
                   counts.n_skip);
        rep_printf("CHECKS: %u decided here (PASS/FAIL), %u need a hardware PMU (SKIP), %u need "
                   "a feature this machine lacks (SKIP), %u skipped for the environment (SKIP)\n",
                   counts.n_pass + counts.n_fail, counts.n_skip_by[REP_SKIP_PMU],
                   counts.n_skip_by[REP_SKIP_FEATURE], counts.n_skip_by[REP_SKIP_ENV]);
        if (counts.n_fail)
                return 1;
        if (!counts.n_pass) /* everything skipped, or nothing ran at all */
                return 2;
        return 0;
}
