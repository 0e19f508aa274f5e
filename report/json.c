/** @file Streaming JSON writer (see json.h). */
#include "report/json.h"

#include "boot/plat.h"

static void raw(struct json_w *w, const char *s, size_t n)
{
        if (w->st == ST_OK)
                w->st = rep_buf_append(w->out, s, n);
}

static void raws(struct json_w *w, const char *s)
{
        raw(w, s, strlen(s));
}

static void indent(struct json_w *w)
{
        static const char spaces[] = "                                ";
        unsigned          n        = w->depth * 2;

        raw(w, "\n", 1);
        while (n) {
                unsigned k = n < sizeof(spaces) - 1 ? n : (unsigned)sizeof(spaces) - 1;
                raw(w, spaces, k);
                n -= k;
        }
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 if it is not valid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
        size_t   len;
        uint32_t cp;

        if (s[0] < 0x80)
                return 1;
        if ((s[0] & 0xe0) == 0xc0) {
                len = 2;
                cp  = s[0] & 0x1f;
        } else if ((s[0] & 0xf0) == 0xe0) {
                len = 3;
                cp  = s[0] & 0x0f;
        } else if ((s[0] & 0xf8) == 0xf0) {
                len = 4;
                cp  = s[0] & 0x07;
        } else {
                return 0;
        }
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        /* Reject overlong forms, surrogates and code points past U+10FFFF. */
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
                return 0;
        return len;
}

static void string(struct json_w *w, const char *val, size_t n)
{
        const unsigned char *s = (const unsigned char *)val;
        char                 esc[8];

        raw(w, "\"", 1);
        for (size_t i = 0; i < n;) {
                unsigned char c = s[i];
                size_t        k;

                if (c == '"' || c == '\\') {
                        esc[0] = '\\';
                        esc[1] = (char)c;
                        raw(w, esc, 2);
                        i++;
                } else if (c == '\n') {
                        raws(w, "\\n");
                        i++;
                } else if (c == '\t') {
                        raws(w, "\\t");
                        i++;
                } else if (c == '\r') {
                        raws(w, "\\r");
                        i++;
                } else if (c < 0x20 || c == 0x7f) {
                        fmt_snprintf(esc, sizeof(esc), "\\u%04x", c);
                        raws(w, esc);
                        i++;
                } else if ((k = utf8_len(s + i, n - i)) != 0) {
                        raw(w, (const char *)s + i, k);
                        i += k;
                } else { /* not UTF-8: take the byte as Latin-1 */
                        fmt_snprintf(esc, sizeof(esc), "\\u%04x", c);
                        raws(w, esc);
                        i++;
                }
        }
        raw(w, "\"", 1);
}

/* Separator, indentation and key before a value. */
static void begin_value(struct json_w *w, const char *key)
{
        if (w->depth == 0) {
                if (w->has_items[0] && w->st == ST_OK)
                        w->st = ST_BAD_ARG; /* a second top-level value */
                w->has_items[0] = true;
                return;
        }
        if (w->has_items[w->depth])
                raw(w, ",", 1);
        w->has_items[w->depth] = true;
        indent(w);
        if (!w->is_array[w->depth]) {
                if (!key) {
                        if (w->st == ST_OK)
                                w->st = ST_BAD_ARG;
                        key = "";
                }
                string(w, key, strlen(key));
                raw(w, ": ", 2);
        }
}

static void open_container(struct json_w *w, const char *key, bool array)
{
        begin_value(w, key);
        raw(w, array ? "[" : "{", 1);
        if (w->depth + 1 >= JSON_MAX_DEPTH) {
                if (w->st == ST_OK)
                        w->st = ST_BAD_ARG;
                return;
        }
        w->depth++;
        w->has_items[w->depth] = false;
        w->is_array[w->depth]  = array;
}

static void close_container(struct json_w *w, bool array)
{
        if (w->depth == 0 || w->is_array[w->depth] != array) {
                if (w->st == ST_OK)
                        w->st = ST_BAD_ARG;
                return;
        }
        bool had = w->has_items[w->depth];
        w->depth--;
        if (had)
                indent(w);
        raw(w, array ? "]" : "}", 1);
}

void json_init(struct json_w *w, struct rep_buf *out)
{
        *w     = (struct json_w){ 0 };
        w->out = out;
}

void json_obj_begin(struct json_w *w, const char *key) { open_container(w, key, false); }
void json_obj_end(struct json_w *w) { close_container(w, false); }
void json_arr_begin(struct json_w *w, const char *key) { open_container(w, key, true); }
void json_arr_end(struct json_w *w) { close_container(w, true); }

void json_strn(struct json_w *w, const char *key, const char *val, size_t n)
{
        begin_value(w, key);
        if (val)
                string(w, val, n);
        else
                raws(w, "null");
}

void json_str(struct json_w *w, const char *key, const char *val)
{
        json_strn(w, key, val, val ? strlen(val) : 0);
}

void json_u64(struct json_w *w, const char *key, uint64_t val)
{
        char s[24];

        begin_value(w, key);
        fmt_snprintf(s, sizeof(s), "%llu", (unsigned long long)val);
        raws(w, s);
}

void json_i64(struct json_w *w, const char *key, int64_t val)
{
        char s[24];

        begin_value(w, key);
        fmt_snprintf(s, sizeof(s), "%lld", (long long)val);
        raws(w, s);
}

void json_hex(struct json_w *w, const char *key, uint64_t val)
{
        char s[24];

        begin_value(w, key);
        fmt_snprintf(s, sizeof(s), "\"0x%llx\"", (unsigned long long)val);
        raws(w, s);
}

void json_fixed(struct json_w *w, const char *key, int64_t val, unsigned decimals)
{
        char s[32];

        begin_value(w, key);
        raws(w, fmt_fixed(s, sizeof(s), val, decimals));
}

void json_bool(struct json_w *w, const char *key, bool val)
{
        begin_value(w, key);
        raws(w, val ? "true" : "false");
}

void json_null(struct json_w *w, const char *key)
{
        begin_value(w, key);
        raws(w, "null");
}

void json_str_or_null(struct json_w *w, const char *key, const char *val)
{
        if (val && val[0])
                json_str(w, key, val);
        else
                json_null(w, key);
}

void json_u64_or_null(struct json_w *w, const char *key, uint64_t val)
{
        if (val)
                json_u64(w, key, val);
        else
                json_null(w, key);
}

status_t json_finish(struct json_w *w)
{
        if (w->st == ST_OK && (w->depth != 0 || !w->has_items[0]))
                w->st = ST_BAD_ARG;
        raw(w, "\n", 1);
        return w->st;
}

status_t json_doc_set_member(struct rep_buf *doc, const char *key, const char *val, size_t len)
{
        char   head[96];
        size_t end, at;

        if (!doc || !doc->p || !key || !val)
                return ST_BAD_ARG;
        end = doc->len;
        while (end && (doc->p[end - 1] == '\n' || doc->p[end - 1] == ' '))
                end--;
        if (end < 2 || doc->p[end - 1] != '}' || doc->p[end - 2] != '\n')
                return ST_BAD_ARG;
        end -= 2; /* before "\n}" */
        /* a member of that name added last: its line starts with two spaces at depth 1 */
        fmt_snprintf(head, sizeof(head), ",\n  \"%s\": ", key);
        bool last = true;
        for (at = end; at-- > 1;)
                if (doc->p[at] == '\n' && at + 3 < doc->len && doc->p[at + 1] == ' ' &&
                    doc->p[at + 2] == ' ' && doc->p[at + 3] == '"') {
                        /* a top-level member: the last one is replaced when it is @p key;
                         * an earlier one of that name cannot be, so nothing is added */
                        if (!strncmp(doc->p + at - 1, head, strlen(head))) {
                                if (!last)
                                        return ST_BAD_ARG;
                                end = at - 1;
                        }
                        last = false;
                }
        doc->len = end;
        rep_buf_printf(doc, ",\n  \"%s\": ", key);
        for (size_t i = 0; i < len; i++) {
                if (val[i] == '\n' && i + 1 == len)
                        break;
                rep_buf_append(doc, &val[i], 1);
                if (val[i] == '\n')
                        rep_buf_append(doc, "  ", 2);
        }
        rep_buf_printf(doc, "\n}\n");
        return doc->oom ? ST_NO_MEM : ST_OK;
}
