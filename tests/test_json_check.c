/** @file Unit tests for report/json_check.c: the firmware-side JSON read-back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/base.h"

#include "report/json.h"
#include "report/json_check.h"

static status_t check(const char *text, struct json_check *c)
{
        return json_check(text, text ? strlen(text) : 0, c);
}

static void test_lookups(void **state)
{
        struct json_check c = { .str_key = "schema", .arr_key = "levels" };

        (void)state;
        assert_int_equal(check(" {\"schema\": \"pmucal.x/1\", \"n\": -1.5e3,\n"
                               " \"levels\": [{\"levels\": [1, 2, 3]}, true, null],"
                               " \"in\": {\"schema\": \"inner\"}} \n", &c), ST_OK);
        assert_true(c.ok);
        assert_string_equal(c.str, "pmucal.x/1"); /* the top-level member, not the inner one */
        assert_int_equal(c.n_elems, 3);            /* the top-level array only */

        struct json_check none = { 0 };
        assert_int_equal(check("[1, \"a\\\"b\", false]", &none), ST_OK);
        assert_string_equal(none.str, "");
        assert_int_equal(none.n_elems, 0);
}

static void test_errors(void **state)
{
        static const struct { const char *text, *why; } cases[] = {
                { NULL, "empty" },
                { "", "value expected" },
                { "{\"a\": 1} x", "text after the document" },
                { "{\"a\" 1}", "':' expected" },
                { "{\"a\": 1,}", "string expected" },
                { "[1 2]", "',' or ']' expected" },
                { "\"abc", "unterminated string" },
                { "\"a\nb\"", "control character in a string" },
                { "[-]", "bad number" },
                { "[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]", "nested too deep" },
        };

        (void)state;
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct json_check c = { .str_key = "schema" };
                assert_int_equal(check(cases[i].text, &c), ST_BAD_DATA);
                assert_false(c.ok);
                assert_string_equal(c.why, cases[i].why);
        }
}

/* Whatever the writer produces reads back, with its schema and array length. */
static void test_writer_round_trip(void **state)
{
        struct rep_buf    b = { 0 };
        struct json_w     w;
        struct json_check c = { .str_key = "schema", .arr_key = "levels" };

        (void)state;
        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.latency-table/1");
        json_arr_begin(&w, "levels");
        for (int i = 0; i < 4; i++) {
                json_obj_begin(&w, NULL);
                json_str(&w, "name", "L\x01\"\\");
                json_i64(&w, "v", -i);
                json_obj_end(&w);
        }
        json_arr_end(&w);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);
        assert_int_equal(json_check(b.p, b.len, &c), ST_OK);
        assert_string_equal(c.str, "pmucal.latency-table/1");
        assert_int_equal(c.n_elems, 4);
        rep_buf_free(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lookups),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_writer_round_trip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
