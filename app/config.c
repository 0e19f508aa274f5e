/** @file The pmucal.cfg parser (see config.h); the key table is in config_keys.c. */
#include "app/config.h"
#include "app/config_priv.h"

#include <stdarg.h>

#include "lib/fmt.h"
#include "report/json.h"
#include "report/rep.h"
#include "boot/plat.h"

/* ---- constants ------------------------------------------------------------------------- */

#define SHOW_MAX 40 /* bytes of a key or value quoted in a message */

/* ---- types ----------------------------------------------------------------------------- */

struct parser {
        struct config_diag *diags;
        size_t              max;
        size_t              n;
};

/* ---- private data ---------------------------------------------------------------------- */

static const char *const bool_true[]  = { "on", "true", "yes", "1" };
static const char *const bool_false[] = { "off", "false", "no", "0" };

static const char *const diag_kind_text[] = {
        [CONFIG_DIAG_MALFORMED]   = "malformed line",
        [CONFIG_DIAG_UNKNOWN_KEY] = "unknown key",
        [CONFIG_DIAG_BAD_VALUE]   = "bad value",
        [CONFIG_DIAG_DUPLICATE]   = "duplicate key",
        [CONFIG_DIAG_TOO_LONG]    = "line too long",
        [CONFIG_DIAG_BINARY]      = "binary byte",
        [CONFIG_DIAG_TOO_LARGE]   = "file too large",
        [CONFIG_DIAG_ENCODING]    = "UTF-16 file",
};

/* ---- private functions ----------------------------------------------------------------- */

static bool is_ws(char c)
{
        return c == ' ' || c == '\t' || c == '\r';
}

static char lower(char c)
{
        return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* s[0..n) equals the NUL-terminated @p word, ignoring ASCII case. */
static bool word_eq(const char *s, size_t n, const char *word)
{
        size_t i;

        for (i = 0; i < n; i++)
                if (!word[i] || lower(s[i]) != word[i])
                        return false;
        return word[i] == '\0';
}

static int show_len(size_t n)
{
        return n < SHOW_MAX ? (int)n : SHOW_MAX;
}

static void diag(struct parser *p, unsigned line, enum config_diag_kind kind, const char *fmt,
                 ...) PRINTF_FMT(4, 5);
static void diag(struct parser *p, unsigned line, enum config_diag_kind kind, const char *fmt, ...)
{
        if (p->n < p->max) {
                struct config_diag *d = &p->diags[p->n];
                va_list             ap;

                d->line = line;
                d->kind = kind;
                va_start(ap, fmt);
                fmt_vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
                va_end(ap);
        }
        p->n++;
}

static const struct key_desc *find_key(const char *s, size_t n)
{
        for (size_t i = 0; i < config_n_rows; i++)
                if (word_eq(s, n, config_keys[i].name))
                        return &config_keys[i];
        return NULL;
}

/* What @p k accepts, for messages ("quick|full|pmu"). */
static void expected(const struct key_desc *k, char *buf, size_t cap)
{
        size_t len = 0;

        buf[0] = '\0';
        switch (k->type) {
        case KT_ENUM:
                for (size_t i = 0; i < k->n_names && len < cap; i++)
                        if (k->names[i])
                                len += (size_t)fmt_snprintf(buf + len, cap - len, "%s%s",
                                                            len ? "|" : "", k->names[i]);
                break;
        case KT_BOOL:
                fmt_snprintf(buf, cap, "on|off");
                break;
        case KT_UINT:
                fmt_snprintf(buf, cap, "an integer %u..%u%s%s", k->min, k->max,
                             k->zero_name ? " or " : "", k->zero_name ? k->zero_name : "");
                break;
        case KT_CPUS:
                fmt_snprintf(buf, cap, "all|bsp or APIC IDs and ranges, as 0,2,4-7");
                break;
        case KT_URL:
                fmt_snprintf(buf, cap, "off or http://HOST[:PORT][/PATH], shorter than %u",
                             (unsigned)CONFIG_URL_MAX);
                break;
        }
}

/* http://HOST[:PORT][/PATH]: HOST not empty, PORT 1..65535, no blanks, quotes or controls,
 * shorter than CONFIG_URL_MAX. Only http: the firmware has no certificate store to check a
 * TLS server against. */
bool config_url_ok(const char *s, size_t n)
{
        static const char scheme[] = "http://";
        size_t            i = sizeof(scheme) - 1, host;
        uint32_t          port = 0;

        if (n >= CONFIG_URL_MAX || n <= i || memcmp(s, scheme, i))
                return false;
        for (size_t j = 0; j < n; j++)
                if ((unsigned char)s[j] <= ' ' || (unsigned char)s[j] >= 0x7f || s[j] == '"' ||
                    s[j] == '\\')
                        return false;
        for (host = i; i < n && s[i] != ':' && s[i] != '/'; i++)
                ;
        if (i == host)
                return false;
        if (i < n && s[i] == ':') {
                size_t d = ++i;
                for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
                        if ((port = port * 10 + (uint32_t)(s[i] - '0')) > 65535)
                                return false;
                if (i == d || port == 0)
                        return false;
        }
        return i == n || s[i] == '/';
}

/* Parse the value text @p s[0..n) for @p k; false if it is not acceptable. */
static bool parse_value(const struct key_desc *k, const char *s, size_t n, uint32_t *out)
{
        switch (k->type) {
        case KT_CPUS: /* the names here; a list in apply_setting */
        case KT_ENUM:
                for (size_t i = 0; i < k->n_names; i++)
                        if (k->names[i] && word_eq(s, n, k->names[i])) {
                                *out = (uint32_t)i;
                                return true;
                        }
                return false;
        case KT_BOOL:
                for (size_t i = 0; i < ARRAY_SIZE(bool_true); i++) {
                        if (word_eq(s, n, bool_true[i])) {
                                *out = 1;
                                return true;
                        }
                        if (word_eq(s, n, bool_false[i])) {
                                *out = 0;
                                return true;
                        }
                }
                return false;
        case KT_URL:
                if (word_eq(s, n, "off")) {
                        *out = 0;
                        return true;
                }
                *out = 1;
                return config_url_ok(s, n);
        case KT_UINT: {
                uint64_t v = 0;

                if (k->zero_name && word_eq(s, n, k->zero_name)) {
                        *out = 0;
                        return true;
                }
                if (n == 0)
                        return false;
                for (size_t i = 0; i < n; i++) {
                        if (s[i] < '0' || s[i] > '9')
                                return false;
                        v = v * 10 + (uint64_t)(s[i] - '0');
                        if (v > k->max)
                                return false;
                }
                if (v < k->min)
                        return false;
                *out = (uint32_t)v;
                return true;
        }
        }
        return false;
}

/* A piece of a line: @p n bytes at @p s, not NUL-terminated. */
struct span {
        const char *s;
        size_t      n;
};

/* The key of line @p s[0..n), whose first non-blank is at @p i, and the position of its '=';
 * false, after a diagnostic, when there is no '=' or no key before it. */
static bool split_key(struct parser *p, const char *s, size_t n, size_t i, unsigned line,
                      struct span *key, size_t *eq_at)
{
        size_t eq, kend;

        for (eq = i; eq < n && s[eq] != '='; eq++)
                ;
        if (eq == n) {
                while (n > i && is_ws(s[n - 1]))
                        n--;
                diag(p, line, CONFIG_DIAG_MALFORMED, "expected 'key = value', got '%.*s'",
                     show_len(n - i), s + i);
                return false;
        }
        for (kend = eq; kend > i && is_ws(s[kend - 1]); kend--)
                ;
        if (kend == i) {
                while (n > eq + 1 && is_ws(s[n - 1]))
                        n--;
                diag(p, line, CONFIG_DIAG_MALFORMED, "no key before '=' (line '%.*s')",
                     show_len(n - i), s + i);
                return false;
        }
        *key   = (struct span){ s + i, kend - i };
        *eq_at = eq;
        return true;
}

/* The value after the '=' at @p eq of line @p s[0..n): quoted, or up to a comment, blanks
 * trimmed; false, after a diagnostic naming @p key, when a quote is not closed properly. */
static bool split_value(struct parser *p, const char *s, size_t n, size_t eq, unsigned line,
                        struct span key, struct span *val)
{
        size_t v, vend;

        for (v = eq + 1; v < n && is_ws(s[v]); v++)
                ;
        if (v < n && s[v] == '"') {
                size_t close, j;

                for (close = v + 1; close < n && s[close] != '"'; close++)
                        ;
                if (close == n) {
                        diag(p, line, CONFIG_DIAG_MALFORMED, "unterminated quote in the value of '%.*s'",
                             show_len(key.n), key.s);
                        return false;
                }
                for (j = close + 1; j < n && is_ws(s[j]); j++)
                        ;
                if (j < n && s[j] != '#' && s[j] != ';') {
                        diag(p, line, CONFIG_DIAG_MALFORMED,
                             "text after the closing quote in the value of '%.*s'",
                             show_len(key.n), key.s);
                        return false;
                }
                v++;
                vend = close;
        } else {
                /* A comment starts at '#' or ';' at the start of the value or after blanks. */
                for (vend = v; vend < n; vend++)
                        if ((s[vend] == '#' || s[vend] == ';') &&
                            (vend == v || is_ws(s[vend - 1])))
                                break;
                while (vend > v && is_ws(s[vend - 1]))
                        vend--;
        }
        *val = (struct span){ s + v, vend - v };
        return true;
}

/* Set @p key to @p val in @p cfg, unless the key is unknown, already set by the file (on the
 * line @p first_line records) or the value is not acceptable: then a diagnostic. */
static void apply_setting(struct parser *p, struct pmucal_config *cfg, unsigned *first_line,
                          struct span key, struct span val, unsigned line)
{
        const struct key_desc *k = find_key(key.s, key.n);
        if (!k) {
                diag(p, line, CONFIG_DIAG_UNKNOWN_KEY, "unknown key '%.*s' (value '%.*s')",
                     show_len(key.n), key.s, show_len(val.n), val.s);
                return;
        }
        size_t   idx = (size_t)(k - config_keys);
        uint32_t x;

        if (cfg->from_file & (1u << idx)) {
                diag(p, line, CONFIG_DIAG_DUPLICATE,
                     "duplicate key '%s' (value '%.*s'); line %u already set it", k->name,
                     show_len(val.n), val.s, first_line[idx]);
                return;
        }
        struct config_cpu_list list;
        unsigned               items;

        if (k->type == KT_CPUS && !parse_value(k, val.s, val.n, &x) &&
            config_cpus_parse(val.s, val.n, &list)) {
                x             = CONFIG_CPUS_LIST;
                cfg->cpu_list = list;
        } else if (k->type == KT_CPUS && (items = config_cpus_count(val.s, val.n)) >
                                                 CONFIG_CPUS_MAX_RANGES) {
                diag(p, line, CONFIG_DIAG_BAD_VALUE,
                     "'%s' lists %u APIC IDs and ranges, more than the %u it takes (write runs "
                     "of IDs as ranges, e.g. 0-19): '%.*s'", k->name, items,
                     (unsigned)CONFIG_CPUS_MAX_RANGES, (int)val.n, val.s);
                return;
        } else if (!parse_value(k, val.s, val.n, &x)) {
                char want[80];

                expected(k, want, sizeof(want));
                diag(p, line, CONFIG_DIAG_BAD_VALUE, "bad value '%.*s' for '%s' (expected %s)",
                     show_len(val.n), val.s, k->name, want);
                return;
        }
        if (k->type == KT_URL) {
                memset(cfg->collector, 0, sizeof(cfg->collector));
                if (x)
                        memcpy(cfg->collector, val.s, val.n);
        }
        config_key_store(cfg, k, x);
        cfg->from_file |= 1u << idx;
        first_line[idx] = line;
}

/* One line without its line end; already checked for length and control bytes. */
static void parse_line(struct parser *p, struct pmucal_config *cfg, unsigned *first_line,
                       const char *s, size_t n, unsigned line)
{
        struct span key, val;
        size_t      i = 0, eq;

        while (i < n && is_ws(s[i]))
                i++;
        if (i == n || s[i] == '#' || s[i] == ';')
                return;
        if (split_key(p, s, n, i, line, &key, &eq) && split_value(p, s, n, eq, line, key, &val))
                apply_setting(p, cfg, first_line, key, val, line);
}

/* ---- public functions ------------------------------------------------------------------ */

status_t config_parse(const char *text, size_t len, struct pmucal_config *cfg,
                      struct config_diag *diags, size_t max_diags, size_t *n_diags)
{
        struct parser p = { .diags = diags, .max = diags ? max_diags : 0 };
        unsigned      first_line[CONFIG_MAX_KEYS] = { 0 };
        size_t        pos = 0;
        unsigned      line = 0;

        if (n_diags)
                *n_diags = 0;
        if (!cfg || (!text && len))
                return ST_BAD_ARG;
        config_defaults(cfg);

        size_t lim = len < CONFIG_MAX_BYTES ? len : CONFIG_MAX_BYTES;

        /* UTF-16, as Windows Notepad's "Unicode" writes: said once for the file (read as bytes,
         * every line would be "binary"). A byte order mark, or no mark and a NUL in every
         * other byte of the first line. */
        bool le = lim >= 2 && (unsigned char)text[0] == 0xff && (unsigned char)text[1] == 0xfe;
        bool be = lim >= 2 && (unsigned char)text[0] == 0xfe && (unsigned char)text[1] == 0xff;
        if (!le && !be && lim >= 4) {
                size_t k = 0, zero_odd = 0, zero_even = 0;
                for (; k + 1 < lim && k < 256 && !(text[k] == '\n' || text[k + 1] == '\n');
                     k += 2) {
                        zero_even += text[k] == 0 && text[k + 1] != 0;
                        zero_odd += text[k + 1] == 0 && text[k] != 0;
                }
                le = k >= 4 && zero_odd == k / 2;
                be = k >= 4 && zero_even == k / 2;
        }
        if (le || be) {
                diag(&p, 1, CONFIG_DIAG_ENCODING,
                     "the file is UTF-16 (%s%s), not ASCII or UTF-8: none of it is read, the "
                     "defaults apply; save it as UTF-8 or ASCII", le ? "little-endian" : "big-endian",
                     (unsigned char)text[0] >= 0xfe ? ", with a byte order mark" : "");
                if (n_diags)
                        *n_diags = p.n;
                return ST_BAD_DATA;
        }
        /* A UTF-8 byte order mark, as some Windows editors write. */
        if (lim >= 3 && (unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb &&
            (unsigned char)text[2] == 0xbf)
                pos = 3;
        while (pos < len) {
                size_t end = pos, n, j;

                line++;
                while (end < lim && text[end] != '\n')
                        end++;
                if (end == lim && lim < len) {
                        diag(&p, line, CONFIG_DIAG_TOO_LARGE,
                             "file is larger than %u bytes; line %u and after ignored",
                             (unsigned)CONFIG_MAX_BYTES, line);
                        break;
                }
                n = end - pos;
                if (n && text[end - 1] == '\r')
                        n--;
                if (n > CONFIG_MAX_LINE) {
                        diag(&p, line, CONFIG_DIAG_TOO_LONG,
                             "line is %zu bytes, longer than %u", n,
                             (unsigned)CONFIG_MAX_LINE);
                } else {
                        for (j = 0; j < n; j++) {
                                unsigned char c = (unsigned char)text[pos + j];
                                if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
                                        break;
                        }
                        if (j < n)
                                diag(&p, line, CONFIG_DIAG_BINARY,
                                     "control byte 0x%02x at column %zu",
                                     (unsigned char)text[pos + j], j + 1);
                        else
                                parse_line(&p, cfg, first_line, text + pos, n, line);
                }
                pos = end + 1;
        }
        if (n_diags)
                *n_diags = p.n;
        return p.n ? ST_BAD_DATA : ST_OK;
}

bool config_from_file(const struct pmucal_config *cfg, const char *key)
{
        const struct key_desc *k = key ? find_key(key, strlen(key)) : NULL;

        return k && (cfg->from_file & (1u << (k - config_keys)));
}

const char *config_diag_kind_str(enum config_diag_kind kind)
{
        if ((unsigned)kind >= ARRAY_SIZE(diag_kind_text) || !diag_kind_text[kind])
                return "unknown diagnostic";
        return diag_kind_text[kind];
}
