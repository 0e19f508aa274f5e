/** @file A JSON syntax check with two look-ups, no allocation (see json_check.h). */
#include "report/json_check.h"

#include "lib/base.h"

#define JSON_CHECK_MAX_DEPTH 16

static void scan_ws(struct json_check *s)
{
        while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
                s->p++;
}

static bool scan_fail(struct json_check *s, const char *why)
{
        if (s->ok)
                s->why = why;
        s->ok = false;
        return false;
}

/* String at s->p; its contents (without escapes decoded) go to @p out when not NULL. */
static bool scan_string(struct json_check *s, char *out, size_t cap)
{
        size_t k = 0;

        if (s->p >= s->end || *s->p != '"')
                return scan_fail(s, "string expected");
        for (s->p++; s->p < s->end && *s->p != '"'; s->p++) {
                if ((unsigned char)*s->p < 0x20)
                        return scan_fail(s, "control character in a string");
                if (*s->p == '\\' && ++s->p >= s->end)
                        break;
                if (out && k + 1 < cap)
                        out[k++] = *s->p;
        }
        if (out)
                out[k] = '\0';
        if (s->p >= s->end)
                return scan_fail(s, "unterminated string");
        s->p++;
        return true;
}

static bool scan_value(struct json_check *s, const char *key);

static bool scan_number(struct json_check *s)
{
        const char *start = s->p;

        if (s->p < s->end && *s->p == '-')
                s->p++;
        while (s->p < s->end && ((*s->p >= '0' && *s->p <= '9') || *s->p == '.' || *s->p == 'e' ||
                                 *s->p == 'E' || *s->p == '+' || *s->p == '-'))
                s->p++;
        return s->p > start && (s->p[-1] >= '0' && s->p[-1] <= '9') ? true
                                                                    : scan_fail(s, "bad number");
}

static bool scan_container(struct json_check *s, bool object, const char *key)
{
        char close = object ? '}' : ']', name[24];
        bool top_levels = !object && s->depth == 1 && key && s->arr_key && !strcmp(key, s->arr_key);

        if (++s->depth > JSON_CHECK_MAX_DEPTH)
                return scan_fail(s, "nested too deep");
        s->p++;
        scan_ws(s);
        if (s->p < s->end && *s->p == close) {
                s->p++;
                s->depth--;
                return true;
        }
        for (;;) {
                scan_ws(s);
                name[0] = '\0';
                if (object) {
                        if (!scan_string(s, name, sizeof(name)))
                                return false;
                        scan_ws(s);
                        if (s->p >= s->end || *s->p++ != ':')
                                return scan_fail(s, "':' expected");
                        scan_ws(s);
                }
                if (object && s->depth == 1 && s->has_key && !strcmp(name, s->has_key))
                        s->has = true;
                if (!scan_value(s, object ? name : NULL))
                        return false;
                if (top_levels)
                        s->n_elems++;
                scan_ws(s);
                if (s->p < s->end && *s->p == ',') {
                        s->p++;
                        continue;
                }
                if (s->p < s->end && *s->p == close) {
                        s->p++;
                        s->depth--;
                        return true;
                }
                return scan_fail(s, object ? "',' or '}' expected" : "',' or ']' expected");
        }
}

static bool scan_value(struct json_check *s, const char *key)
{
        static const char *const lits[] = { "true", "false", "null" };

        if (s->p >= s->end)
                return scan_fail(s, "value expected");
        if (*s->p == '{' || *s->p == '[')
                return scan_container(s, *s->p == '{', key);
        if (*s->p == '"') {
                bool want = s->depth == 1 && key && s->str_key && !strcmp(key, s->str_key);
                return scan_string(s, want ? s->str : NULL, sizeof(s->str));
        }
        for (size_t i = 0; i < ARRAY_SIZE(lits); i++) {
                size_t n = strlen(lits[i]);
                if ((size_t)(s->end - s->p) >= n && !strncmp(s->p, lits[i], n)) {
                        s->p += n;
                        return true;
                }
        }
        return scan_number(s);
}

status_t json_check(const char *text, size_t len, struct json_check *s)
{
        s->p        = text;
        s->end      = text ? text + len : text;
        s->depth    = 0;
        s->ok       = true;
        s->why      = NULL;
        s->str[0]   = '\0';
        s->n_elems  = 0;
        s->has      = false;
        if (!text) {
                scan_fail(s, "empty");
                return ST_BAD_DATA;
        }
        scan_ws(s);
        if (scan_value(s, NULL)) {
                scan_ws(s);
                if (s->p != s->end)
                        scan_fail(s, "text after the document");
        }
        return s->ok ? ST_OK : ST_BAD_DATA;
}
