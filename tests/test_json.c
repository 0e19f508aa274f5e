/** @file Tests of the JSON writer (report/json.c), with jansson as the reading oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
/* jansson also declares json_null(); keep it out of the way of report/json.h. */
#define json_null jansson_json_null
#include <jansson.h>
#undef json_null

#include "report/json.h"
#include "tests/fake_plat.h"

/* Parse @p text with jansson (NUL escapes allowed); fails the test if it is not JSON. */
static json_t *parse(const char *text)
{
        json_error_t err;
        json_t      *j = json_loads(text, JSON_ALLOW_NUL | JSON_DECODE_ANY, &err);

        if (!j)
                fail_msg("jansson: %s (line %d col %d) in:\n%s", err.text, err.line, err.column, text);
        return j;
}

/* ---- strings ---------------------------------------------------------------------------- */

static const struct {
        const char *name;
        const char *in;
        size_t      len;     /* 0: strlen(in) */
        const char *decoded; /* what a reader gets back (UTF-8) */
        size_t      dlen;    /* 0: strlen(decoded) */
        const char *raw;     /* the exact text written, when it matters */
} strings[] = {
        { "plain", "hello", 0, "hello", 0, "\"hello\"" },
        { "empty", "", 0, "", 0, "\"\"" },
        { "quote", "a\"b", 0, "a\"b", 0, "\"a\\\"b\"" },
        { "backslash", "a\\b", 0, "a\\b", 0, "\"a\\\\b\"" },
        { "slash", "a/b", 0, "a/b", 0, "\"a/b\"" },
        { "newline tab cr", "\n\t\r", 0, "\n\t\r", 0, "\"\\n\\t\\r\"" },
        { "control bytes", "\x01\x1f\b\f", 0, "\x01\x1f\b\f", 0, "\"\\u0001\\u001f\\u0008\\u000c\"" },
        { "DEL", "\x7f", 0, "\x7f", 0, "\"\\u007f\"" },
        { "embedded NUL", "a\0b", 3, "a\0b", 3, "\"a\\u0000b\"" },
        { "only NUL", "\0", 1, "\0", 1, "\"\\u0000\"" },
        { "2-byte UTF-8", "caf\xc3\xa9", 0, "caf\xc3\xa9", 0, "\"caf\xc3\xa9\"" },
        { "3-byte UTF-8", "\xe2\x89\xa4", 0, "\xe2\x89\xa4", 0, NULL },
        { "4-byte UTF-8", "\xf0\x9f\x98\x80", 0, "\xf0\x9f\x98\x80", 0, NULL },
        { "U+10FFFF", "\xf4\x8f\xbf\xbf", 0, "\xf4\x8f\xbf\xbf", 0, NULL },
        { "lone 0xff", "\xff", 0, "\xc3\xbf", 0, "\"\\u00ff\"" },
        { "Latin-1 e-acute", "caf\xe9", 0, "caf\xc3\xa9", 0, NULL },
        { "lone continuation", "\x80", 0, "\xc2\x80", 0, NULL },
        { "overlong '/'", "\xc0\xaf", 0, "\xc3\x80\xc2\xaf", 0, NULL },
        { "surrogate", "\xed\xa0\x80", 0, "\xc3\xad\xc2\xa0\xc2\x80", 0, NULL },
        { "past U+10FFFF", "\xf4\x90\x80\x80", 0, "\xc3\xb4\xc2\x90\xc2\x80\xc2\x80", 0, NULL },
        { "truncated at end", "x\xe2\x82", 0, "x\xc3\xa2\xc2\x82", 0, NULL },
        { "bad then good", "\xe2(\xc3\xa9", 0, "\xc3\xa2(\xc3\xa9", 0, NULL },
};

static void test_strings(void **state)
{
        for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
                struct rep_buf b = { 0 };
                struct json_w  w;
                size_t len  = strings[i].len ? strings[i].len : strlen(strings[i].in);
                size_t dlen = strings[i].dlen ? strings[i].dlen : strlen(strings[i].decoded);

                /* As a value, and as a key. */
                json_init(&w, &b);
                json_obj_begin(&w, NULL);
                json_strn(&w, "v", strings[i].in, len);
                if (!memchr(strings[i].in, 0, len))
                        json_u64(&w, strings[i].in, 1);
                json_obj_end(&w);
                assert_int_equal(json_finish(&w), ST_OK);

                json_t *root = parse(b.p);
                json_t *v    = json_object_get(root, "v");
                assert_true(json_is_string(v));
                if (json_string_length(v) != dlen || memcmp(json_string_value(v), strings[i].decoded, dlen))
                        fail_msg("%s: read back wrong from %s", strings[i].name, b.p);
                if (!memchr(strings[i].in, 0, len)) {
                        char key[64];
                        memcpy(key, strings[i].decoded, dlen + 1);
                        assert_true(json_is_integer(json_object_get(root, key)));
                }
                if (strings[i].raw && !strstr(b.p, strings[i].raw))
                        fail_msg("%s: %s not in %s", strings[i].name, strings[i].raw, b.p);
                json_decref(root);
                rep_buf_free(&b);
        }
}

/* Random byte strings: the document always parses, and valid UTF-8 (by jansson's judgment)
 * comes back unchanged. */
static void test_random_strings(void **state)
{
        uint64_t seed = 0x9e3779b97f4a7c15ull;
        unsigned n_valid = 0;

        for (int round = 0; round < 2000; round++) {
                unsigned char  in[24];
                size_t         len;
                struct rep_buf b = { 0 };
                struct json_w  w;

                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                len  = (size_t)(seed >> 59) % sizeof(in);
                for (size_t k = 0; k < len; k++) {
                        seed  = seed * 6364136223846793005ull + 1442695040888963407ull;
                        in[k] = (unsigned char)(seed >> 56);
                        if ((seed >> 40) % 4 == 0) /* more ASCII, so some strings are valid */
                                in[k] &= 0x7f;
                        else if ((seed >> 40) % 4 == 1)
                                in[k] = (unsigned char)(0x80 | (in[k] & 0x3f));
                }
                json_init(&w, &b);
                json_arr_begin(&w, NULL);
                json_strn(&w, NULL, (const char *)in, len);
                json_arr_end(&w);
                assert_int_equal(json_finish(&w), ST_OK);

                json_t *root = parse(b.p);
                json_t *v    = json_array_get(root, 0);
                json_t *ref  = json_stringn((const char *)in, len); /* NULL unless valid UTF-8 */
                assert_true(json_is_string(v));
                assert_true(json_string_length(v) >= len);
                if (ref) {
                        n_valid++;
                        assert_true(json_equal(v, ref));
                        json_decref(ref);
                }
                json_decref(root);
                rep_buf_free(&b);
        }
        assert_true(n_valid > 50);
}

/* ---- values and layout ------------------------------------------------------------------ */

static void test_values(void **state)
{
        struct rep_buf b = { 0 };
        struct json_w  w;

        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.inventory/1");
        json_str(&w, "nothing", NULL);
        json_strn(&w, "nothing_n", NULL, 5);
        json_u64(&w, "u0", 0);
        json_u64(&w, "u_i64max", INT64_MAX);
        json_u64(&w, "u_max", UINT64_MAX);
        json_i64(&w, "i_min", INT64_MIN);
        json_i64(&w, "i_neg", -42);
        json_hex(&w, "hex", 0x1a2bull);
        json_hex(&w, "hex0", 0);
        json_hex(&w, "hexmax", UINT64_MAX);
        json_fixed(&w, "ns", 1234, 3);
        json_fixed(&w, "neg", -5, 3);
        json_fixed(&w, "int", 42, 0);
        json_bool(&w, "t", true);
        json_bool(&w, "f", false);
        json_null(&w, "n");
        json_arr_begin(&w, "arr");
        json_u64(&w, NULL, 1);
        json_obj_begin(&w, NULL);
        json_obj_end(&w);
        json_arr_begin(&w, NULL);
        json_arr_end(&w);
        json_arr_end(&w);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);

        /* jansson's integers are signed 64-bit: check UINT64_MAX as text. */
        assert_non_null(strstr(b.p, "\"u_max\": 18446744073709551615"));
        char *p = strstr(b.p, "18446744073709551615");
        memcpy(p, "1                   ", 20); /* whitespace is fine in JSON */

        json_t *r = parse(b.p);
        assert_string_equal(json_string_value(json_object_get(r, "schema")), "pmucal.inventory/1");
        assert_true(json_is_null(json_object_get(r, "nothing")));
        assert_true(json_is_null(json_object_get(r, "nothing_n")));
        assert_int_equal(json_integer_value(json_object_get(r, "u0")), 0);
        assert_true(json_integer_value(json_object_get(r, "u_i64max")) == INT64_MAX);
        assert_true(json_integer_value(json_object_get(r, "i_min")) == INT64_MIN);
        assert_int_equal(json_integer_value(json_object_get(r, "i_neg")), -42);
        assert_string_equal(json_string_value(json_object_get(r, "hex")), "0x1a2b");
        assert_string_equal(json_string_value(json_object_get(r, "hex0")), "0x0");
        assert_string_equal(json_string_value(json_object_get(r, "hexmax")), "0xffffffffffffffff");
        assert_true(json_is_real(json_object_get(r, "ns")));
        assert_true(json_real_value(json_object_get(r, "ns")) == strtod("1.234", NULL));
        assert_true(json_real_value(json_object_get(r, "neg")) == strtod("-0.005", NULL));
        assert_true(json_is_integer(json_object_get(r, "int")));
        assert_int_equal(json_integer_value(json_object_get(r, "int")), 42);
        assert_true(json_is_true(json_object_get(r, "t")));
        assert_true(json_is_false(json_object_get(r, "f")));
        assert_true(json_is_null(json_object_get(r, "n")));
        json_t *arr = json_object_get(r, "arr");
        assert_int_equal(json_array_size(arr), 3);
        assert_int_equal(json_integer_value(json_array_get(arr, 0)), 1);
        assert_int_equal(json_object_size(json_array_get(arr, 1)), 0);
        assert_int_equal(json_array_size(json_array_get(arr, 2)), 0);
        assert_int_equal(json_object_size(r), 18);
        json_decref(r);
        rep_buf_free(&b);
}

static void test_layout(void **state)
{
        struct rep_buf b = { 0 };
        struct json_w  w;

        rep_buf_append(&b, "prefix:", 7); /* the document is appended */
        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_u64(&w, "a", 1);
        json_arr_begin(&w, "b");
        json_bool(&w, NULL, true);
        json_null(&w, NULL);
        json_arr_end(&w);
        json_obj_begin(&w, "c");
        json_obj_end(&w);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);
        assert_string_equal(b.p, "prefix:{\n"
                                 "  \"a\": 1,\n"
                                 "  \"b\": [\n"
                                 "    true,\n"
                                 "    null\n"
                                 "  ],\n"
                                 "  \"c\": {}\n"
                                 "}\n");
        rep_buf_free(&b);

        /* A scalar is a complete document too. */
        json_init(&w, &b);
        json_str(&w, NULL, "x");
        assert_int_equal(json_finish(&w), ST_OK);
        assert_string_equal(b.p, "\"x\"\n");
        rep_buf_free(&b);
}

/* ---- errors ----------------------------------------------------------------------------- */

enum op { END, OB, OE, AB, AE, VAL, VALK };

static const struct {
        const char *name;
        enum op     ops[8];
} misuse[] = {
        { "empty document", { END } },
        { "close with nothing open", { OE, END } },
        { "close array with nothing open", { AE, END } },
        { "object closed as array", { OB, AE, END } },
        { "array closed as object", { AB, OE, END } },
        { "unclosed object", { OB, VALK, END } },
        { "unclosed array", { AB, END } },
        { "value without key in object", { OB, VAL, OE, END } },
        { "second top-level value", { OB, OE, OB, OE, END } },
        { "second top-level scalar", { VAL, VAL, END } },
        { "error is sticky", { OE, OB, OE, END } },
};

static void test_misuse(void **state)
{
        for (size_t i = 0; i < sizeof(misuse) / sizeof(misuse[0]); i++) {
                struct rep_buf b = { 0 };
                struct json_w  w;

                json_init(&w, &b);
                for (const enum op *op = misuse[i].ops; *op != END; op++) {
                        switch (*op) {
                        case OB: json_obj_begin(&w, NULL); break;
                        case OE: json_obj_end(&w); break;
                        case AB: json_arr_begin(&w, NULL); break;
                        case AE: json_arr_end(&w); break;
                        case VAL: json_u64(&w, NULL, 1); break;
                        case VALK: json_u64(&w, "k", 1); break;
                        case END: break;
                        }
                }
                if (json_finish(&w) != ST_BAD_ARG)
                        fail_msg("%s: accepted", misuse[i].name);
                rep_buf_free(&b);
        }
}

static void test_depth(void **state)
{
        for (unsigned depth = JSON_MAX_DEPTH - 2; depth <= JSON_MAX_DEPTH + 1; depth++) {
                struct rep_buf b = { 0 };
                struct json_w  w;
                bool           fits = depth < JSON_MAX_DEPTH;

                json_init(&w, &b);
                for (unsigned d = 0; d < depth; d++)
                        json_arr_begin(&w, NULL);
                json_u64(&w, NULL, 7);
                for (unsigned d = 0; d < depth; d++)
                        json_arr_end(&w);
                assert_int_equal(json_finish(&w), fits ? ST_OK : ST_BAD_ARG);
                if (fits) {
                        json_t *r = parse(b.p), *v = r;
                        for (unsigned d = 0; d < depth; d++)
                                v = json_array_get(v, 0);
                        assert_int_equal(json_integer_value(v), 7);
                        json_decref(r);
                }
                rep_buf_free(&b);
        }
}

static void test_oom_is_sticky(void **state)
{
        struct rep_buf b = { 0 };
        struct json_w  w;

        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        b.oom = true; /* as after a failed allocation */
        json_u64(&w, "a", 1);
        b.oom = false;
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_NO_MEM);
        rep_buf_free(&b);
}

/* A section added to a finished document (the TLB table into the latency table): valid JSON,
 * the member last, replaced (not doubled) when set again, other members kept. */
static void test_set_member(void **state)
{
        struct rep_buf doc = { 0 }, val = { 0 };
        struct json_w  w;
        json_error_t   e;
        json_t        *j;
        (void)state;

        json_init(&w, &doc);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "x/1");
        json_obj_begin(&w, "machine");
        json_u64(&w, "n", 1);
        json_obj_end(&w);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);
        for (unsigned round = 1; round <= 3; round++) {
                json_init(&w, &val);
                json_obj_begin(&w, NULL);
                json_u64(&w, "round", round);
                json_arr_begin(&w, "a");
                json_u64(&w, NULL, 7);
                json_arr_end(&w);
                json_obj_end(&w);
                assert_int_equal(json_finish(&w), ST_OK);
                assert_int_equal(json_doc_set_member(&doc, "tlb", val.p, val.len), ST_OK);
                rep_buf_free(&val);
                j = json_loadb(doc.p, doc.len, 0, &e);
                if (!j)
                        fail_msg("%s: %s", e.text, doc.p);
                assert_int_equal(json_object_size(j), 3);
                assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "tlb"),
                                                                    "round")), round);
                assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "machine"),
                                                                    "n")), 1);
                json_decref(j);
        }
        assert_non_null(strstr(doc.p, "\n  \"tlb\": {\n    \"round\": 3,")); /* indented */
        /* a member of that name that is not the last one is not doubled: refused */
        assert_int_equal(json_doc_set_member(&doc, "other", "1", 1), ST_OK);
        size_t len = doc.len;
        assert_int_equal(json_doc_set_member(&doc, "tlb", "2", 1), ST_BAD_ARG);
        assert_int_equal(doc.len, len);
        j = json_loadb(doc.p, doc.len, 0, &e);
        assert_non_null(j);
        assert_int_equal(json_object_size(j), 4);
        json_decref(j);
        struct rep_buf bad = { 0 };
        rep_buf_printf(&bad, "[1]\n");
        assert_int_equal(json_doc_set_member(&bad, "tlb", "1", 1), ST_BAD_ARG);
        assert_int_equal(json_doc_set_member(NULL, "tlb", "1", 1), ST_BAD_ARG);
        rep_buf_free(&bad);
        rep_buf_free(&doc);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_strings),   cmocka_unit_test(test_random_strings),
                cmocka_unit_test(test_values),    cmocka_unit_test(test_layout),
                cmocka_unit_test(test_misuse),    cmocka_unit_test(test_depth),
                cmocka_unit_test(test_oom_is_sticky),
                cmocka_unit_test(test_set_member),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
