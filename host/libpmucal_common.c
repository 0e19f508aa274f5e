/** @file libpmucal, shared part: the version, error texts, the file reader with its size
 *  limit, the schema version rule (docs/versioning.md), escaping of text from files, the
 *  table pool and the unit conversions (see host/libpmucal_priv.h and
 *  host/include/pmucal/pmucal.h). Host only: libc. */
#include "host/libpmucal_priv.h"

#include <errno.h>
#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const err_text[] = {
        [PMUCAL_OK]        = "ok",
        [PMUCAL_E_IO]      = "cannot read file",
        [PMUCAL_E_SYNTAX]  = "syntax error",
        [PMUCAL_E_VERSION] = "unsupported schema version",
        [PMUCAL_E_SCHEMA]  = "invalid field",
        [PMUCAL_E_NOMEM]   = "out of memory",
        [PMUCAL_E_ARG]     = "bad argument",
        [PMUCAL_E_KIND]    = "not this kind of pmucal table",
        [PMUCAL_E_RANGE]   = "latency is not a finite non-negative number",
        [PMUCAL_E_NO_RATIO] = "this table has no clock ratio to convert that unit",
        [PMUCAL_E_NO_CURVE] = "no curve for that side and page size",
        [PMUCAL_E_UNKNOWN_SOURCE] = "unknown data source",
        [PMUCAL_E_NO_BUCKET] = "this table has no bucket for that data source",
};

#define STR_(x) #x
#define STR(x)  STR_(x)

unsigned pmucal_version(void)
{
        return PMUCAL_VERSION_NUMBER;
}

const char *pmucal_version_string(void)
{
        return STR(PMUCAL_VERSION_MAJOR) "." STR(PMUCAL_VERSION_MINOR) "." STR(PMUCAL_VERSION_PATCH);
}

const char *pmucal_unit_name(enum pmucal_unit u)
{
        static const char *const names[] = { "table", "tsc", "core", "ns" };
        return (unsigned)u < sizeof(names) / sizeof(names[0]) ? names[u] : "?";
}

const char *pmucal_strerror(enum pmucal_err e)
{
        return (unsigned)e < sizeof(err_text) / sizeof(err_text[0]) && err_text[e] ? err_text[e]
                                                                                  : "unknown error";
}

enum pmucal_err pmucal__read_file(const char *path, char **buf, size_t *len, char *err,
                                  size_t errlen)
{
        struct stat st;
        FILE       *f;
        char       *p;
        size_t      n = 0, cap = 1 << 16;

        *buf = NULL;
        if (!(f = fopen(path, "rb"))) {
                snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
                return PMUCAL_E_IO;
        }
        if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
                fclose(f);
                snprintf(err, errlen, "%s: is a directory", path);
                return PMUCAL_E_IO;
        }
        if (!(p = malloc(cap))) {
                fclose(f);
                snprintf(err, errlen, "%s: out of memory", path);
                return PMUCAL_E_NOMEM;
        }
        for (;;) {
                n += fread(p + n, 1, cap - n, f);
                if (n < cap || ferror(f))
                        break;
                if (cap > PMUCAL_MAX_FILE) {
                        fclose(f);
                        free(p);
                        snprintf(err, errlen, "%s: file too large (over %u bytes, the limit)", path,
                                 PMUCAL_MAX_FILE);
                        return PMUCAL_E_IO;
                }
                char *q = realloc(p, cap * 2);
                if (!q) {
                        fclose(f);
                        free(p);
                        snprintf(err, errlen, "%s: out of memory", path);
                        return PMUCAL_E_NOMEM;
                }
                p = q;
                cap *= 2;
        }
        if (ferror(f)) {
                int e = errno;
                fclose(f);
                free(p);
                snprintf(err, errlen, "%s: read error: %s", path, strerror(e));
                return PMUCAL_E_IO;
        }
        fclose(f);
        if (n > PMUCAL_MAX_FILE) {
                free(p);
                snprintf(err, errlen, "%s: file too large (%zu bytes, limit %u)", path, n,
                         PMUCAL_MAX_FILE);
                return PMUCAL_E_IO;
        }
        *buf = p;
        *len = n;
        return PMUCAL_OK;
}

enum pmucal_err pmucal__load_doc_path(const struct pmucal__doc *d, const char *path, void *out,
                                      char *err, size_t errlen)
{
        char            tmp[1], *buf;
        size_t          n;
        enum pmucal_err e;
        void           *none = NULL;

        if (out)
                memcpy(out, &none, sizeof(none));
        if (err && errlen)
                err[0] = '\0';
        if (!path || !out)
                return PMUCAL_E_ARG;
        if ((e = pmucal__read_file(path, &buf, &n, err && errlen ? err : tmp,
                                   err && errlen ? errlen : sizeof(tmp))) != PMUCAL_OK) {
                pmucal__escape_msg(err, errlen);
                return e;
        }
        e = pmucal__load_doc(d, buf, n, path, out, err, errlen);
        free(buf);
        return e;
}

void pmucal__format_err(char *err, size_t errlen, const char *name, const char *path,
                        const char *fmt, va_list ap)
{
        bool with_path = path && path[0];
        int  k;

        if (!err || !errlen)
                return;
        k = snprintf(err, errlen, "%s: %s%s", name, with_path ? path : "", with_path ? ": " : "");
        if (k >= 0 && (size_t)k < errlen)
                vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
}

/* A version number: "0" or a digit 1-9 followed by digits, at most 9 in all (no sign, no
 * leading zero). Returns the end, or NULL. */
static const char *number(const char *p, long *v)
{
        const char *s = p;

        *v = 0;
        if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
                return NULL;
        for (; *p >= '0' && *p <= '9'; p++)
                if (p - s < 9)
                        *v = *v * 10 + (*p - '0');
        return p - s > 9 ? NULL : p;
}

enum pmucal_err pmucal_schema_version(const char *s, const char *prefix, unsigned *major,
                                      unsigned *minor)
{
        long        mj, mn = 0;
        const char *p;

        if (!s || !prefix)
                return PMUCAL_E_ARG;
        if (strncmp(s, prefix, strlen(prefix)))
                return PMUCAL_E_KIND;
        p = number(s + strlen(prefix), &mj);
        if (p && *p == '.')
                p = number(p + 1, &mn);
        if (!p || *p)
                return PMUCAL_E_VERSION;
        if (major)
                *major = (unsigned)mj;
        if (minor)
                *minor = (unsigned)mn;
        return PMUCAL_OK;
}

enum pmucal_err pmucal__schema_version(const char *s, const char *prefix, unsigned major,
                                       unsigned *minor, char *msg, size_t msglen)
{
        unsigned        maj, min;
        enum pmucal_err e = pmucal_schema_version(s, prefix, &maj, &min);

        if (e == PMUCAL_E_KIND) {
                snprintf(msg, msglen, "schema \"%s\" is not %sMAJOR[.MINOR]", s, prefix);
                return PMUCAL_E_KIND;
        }
        if (e != PMUCAL_OK) {
                snprintf(msg, msglen, "schema \"%s\": the version is not MAJOR or MAJOR.MINOR "
                                      "(decimal, no leading zeros, at most 9 digits)", s);
                return PMUCAL_E_VERSION;
        }
        if (maj != major) {
                snprintf(msg, msglen, "schema \"%s\": major version %u is not supported (this "
                                      "library reads %u)", s, maj, major);
                return PMUCAL_E_VERSION;
        }
        *minor = min;
        return PMUCAL_OK;
}

/* Length of the valid UTF-8 sequence at @p s (of at most @p n bytes) encoding a printable
 * character (not a C1 control), or 0. */
static size_t utf8_printable(const unsigned char *s, size_t n)
{
        size_t   len;
        unsigned cp, min;

        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                len = 2, cp = s[0] & 0x1f, min = 0x80;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                len = 3, cp = s[0] & 0x0f, min = 0x800;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                len = 4, cp = s[0] & 0x07, min = 0x10000;
        else
                return 0;
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0)
                return 0;
        return len;
}

size_t pmucal_escape(char *dst, size_t cap, const char *src)
{
        static const char hex[] = "0123456789abcdef";
        const unsigned char *s   = (const unsigned char *)(src ? src : "");
        size_t               out = 0, n = strlen((const char *)s);

#define PUT(c)                              \
        do {                                \
                if (out + 1 < cap)          \
                        dst[out] = (char)(c); \
                out++;                      \
        } while (0)
        for (size_t i = 0; i < n; i++) {
                unsigned char c = s[i];
                size_t        k;
                if (c >= 0x20 && c < 0x7f && c != '\\') {
                        PUT(c);
                } else if (c == '\\') {
                        PUT('\\');
                        PUT('\\');
                } else if (c == '\n' || c == '\t' || c == '\r') {
                        PUT('\\');
                        PUT(c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
                } else if (c >= 0x80 && (k = utf8_printable(s + i, n - i))) {
                        for (size_t j = 0; j < k; j++)
                                PUT(s[i + j]);
                        i += k - 1;
                } else {
                        PUT('\\');
                        PUT('x');
                        PUT(hex[c >> 4]);
                        PUT(hex[c & 15]);
                }
        }
#undef PUT
        if (cap)
                dst[out < cap ? out : cap - 1] = '\0';
        return out;
}

void pmucal__escape_msg(char *err, size_t errlen)
{
        char   tmp[1024];
        size_t need;

        if (!err || !errlen)
                return;
        need = pmucal_escape(tmp, sizeof(tmp), err);
        snprintf(err, errlen, "%s", tmp);
        if ((need >= sizeof(tmp) || need >= errlen) && errlen > 4)
                memcpy(err + errlen - 4, "...", 4);
}

/* ---- the pool -------------------------------------------------------------------------- */

struct pmucal__pool {
        struct pmucal__pool *next;
        alignas(max_align_t) unsigned char data[];
};

void *pmucal__pool_alloc(struct pmucal__pool **pool, size_t n)
{
        struct pmucal__pool *b;

        if (n > SIZE_MAX - sizeof(*b) || !(b = calloc(1, sizeof(*b) + n)))
                return NULL;
        b->next = *pool;
        *pool   = b;
        return b->data;
}

char *pmucal__pool_strdup(struct pmucal__pool **pool, const char *s)
{
        size_t n = strlen(s) + 1;
        char  *d = pmucal__pool_alloc(pool, n);

        return d ? memcpy(d, s, n) : NULL;
}

void pmucal__pool_free(struct pmucal__pool *pool)
{
        while (pool) {
                struct pmucal__pool *next = pool->next;
                free(pool);
                pool = next;
        }
}

/* ---- clocks and units ------------------------------------------------------------------- */

enum pmucal_unit pmucal__clock_unit(const char *clock)
{
        for (size_t i = 0; clock && i < PMUCAL_RULE_N_CLOCK_UNITS; i++)
                if (!strcmp(clock, pmucal_rule_clock_units[i].clock))
                        return pmucal_rule_clock_units[i].unit;
        return PMUCAL_UNIT_TABLE;
}

bool pmucal__latency_ok(double v)
{
        return isfinite(v) && v >= 0;
}

/* Ticks per second of @p u; 0 when the table does not know it. */
static double rate(const struct pmucal__clocks *c, enum pmucal_unit u)
{
        if (u == PMUCAL_UNIT_TABLE)
                u = c->cycles_unit;
        switch (u) {
        case PMUCAL_UNIT_NS: return 1e9;
        case PMUCAL_UNIT_TSC: return (double)c->tsc_hz;
        case PMUCAL_UNIT_CORE:
                if (c->core_per_tsc > 0 && c->tsc_hz)
                        return (double)c->tsc_hz * c->core_per_tsc;
                return c->core_measured ? (double)c->core_hz : 0;
        default: return 0;
        }
}

enum pmucal_err pmucal__convert(const struct pmucal__clocks *c, double v, enum pmucal_unit from,
                                enum pmucal_unit to, double *out)
{
        double a, b;

        if ((unsigned)from > PMUCAL_UNIT_NS || (unsigned)to > PMUCAL_UNIT_NS)
                return PMUCAL_E_ARG;
        if (from == PMUCAL_UNIT_TABLE && c->cycles_unit != PMUCAL_UNIT_TABLE)
                from = c->cycles_unit;
        if (to == PMUCAL_UNIT_TABLE && c->cycles_unit != PMUCAL_UNIT_TABLE)
                to = c->cycles_unit;
        if (from == to) {
                *out = v;
                return PMUCAL_OK;
        }
        a = rate(c, from);
        b = rate(c, to);
        if (!(a > 0) || !(b > 0))
                return PMUCAL_E_NO_RATIO;
        *out = v / a * b;
        return PMUCAL_OK;
}
