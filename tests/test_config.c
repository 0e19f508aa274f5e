/** @file Tests of the pmucal.cfg parser (app/config.c). */
#include <setjmp.h>
#include <stdarg.h>
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

#include "app/config.h"
#include "report/json.h"
#include "report/rep.h"
#include "tests/config_fixture.h"
#include "tests/fake_plat.h"

/* ---- defaults and edge arguments -------------------------------------------------------- */

static void test_defaults(void **state)
{
        struct pmucal_config cfg;

        memset(&cfg, 0x5a, sizeof(cfg));
        config_defaults(&cfg);
        cfg_assert_settings(&cfg, NULL, 0);
        assert_int_equal(cfg.from_file, 0);
        assert_false(config_from_file(&cfg, "nonsense"));
        assert_false(config_from_file(&cfg, NULL));
}

static void test_empty_and_null(void **state)
{
        struct pmucal_config cfg;
        struct config_diag   d[2];
        size_t               n = 99;

        memset(&cfg, 0x5a, sizeof(cfg));
        assert_int_equal(config_parse("", 0, &cfg, d, 2, &n), ST_OK);
        assert_int_equal(n, 0);
        cfg_assert_settings(&cfg, NULL, 0);

        memset(&cfg, 0x5a, sizeof(cfg));
        n = 99;
        assert_int_equal(config_parse(NULL, 0, &cfg, d, 2, &n), ST_OK);
        assert_int_equal(n, 0);
        cfg_assert_settings(&cfg, NULL, 0);

        assert_int_equal(config_parse(NULL, 5, &cfg, d, 2, &n), ST_BAD_ARG);
        assert_int_equal(config_parse("a", 1, NULL, d, 2, &n), ST_BAD_ARG);
        /* No n_diags and no diags array: still parsed, still reports the error status. */
        assert_int_equal(config_parse("profile = x", 11, &cfg, NULL, 0, NULL), ST_BAD_DATA);
        assert_int_equal(config_parse("profile = pmu", 13, &cfg, NULL, 5, NULL), ST_OK);
        assert_int_equal(cfg.profile, CONFIG_PROFILE_PMU);
}

/* ---- valid files ------------------------------------------------------------------------ */

static const struct {
        const char *name;
        const char *text;
        size_t      n_set;
        struct cfg_kv   set[CFG_N_KEYS];
} valid[] = {
        { "blank lines and comments only", "\n# comment\n; other comment\n   \n\t\n", 0, { { 0 } } },
        { "one key", "profile = full\n", 1, { { "profile", CONFIG_PROFILE_FULL } } },
        { "no final newline", "cpus = bsp", 1, { { "cpus", CONFIG_CPUS_BSP } } },
        { "no spaces", "repetitions=21\n", 1, { { "repetitions", 21 } } },
        { "surrounding whitespace", "  \t on_exit \t=\t reboot  \t \n", 1,
          { { "on_exit", CONFIG_EXIT_REBOOT } } },
        { "CRLF", "profile = tlb\r\nserial = off\r\n\r\n# c\r\n", 2,
          { { "profile", CONFIG_PROFILE_TLB }, { "serial", 0 } } },
        { "CR at end without LF", "results = off\r", 1, { { "results", 0 } } },
        { "trailing # comment", "profile = pmu # the PMU checks\n", 1,
          { { "profile", CONFIG_PROFILE_PMU } } },
        { "trailing ; comment after tab", "profile = pmu\t; x\n", 1,
          { { "profile", CONFIG_PROFILE_PMU } } },
        { "quoted value", "profile = \"sampling\"\n", 1, { { "profile", CONFIG_PROFILE_SAMPLING } } },
        { "quoted value, comment", "profile = \"sampling\" # c\non_exit=\"shutdown\";c\n", 2,
          { { "profile", CONFIG_PROFILE_SAMPLING }, { "on_exit", CONFIG_EXIT_SHUTDOWN } } },
        { "case-insensitive", "PROFILE = Full\nSerial = OFF\n", 2,
          { { "profile", CONFIG_PROFILE_FULL }, { "serial", 0 } } },
        { "UTF-8 BOM", "\xef\xbb\xbfprofile = tlb\n", 1, { { "profile", CONFIG_PROFILE_TLB } } },
        { "UTF-8 in a comment", "# Größe ≤ 1 GiB\nsweep_max_mib = 1024\n", 1,
          { { "sweep_max_mib", 1024 } } },
        { "all keys",
          "profile = full\non_exit = shutdown\nserial = off\ndebug_exit = on\n"
          "prefetchers = keep\nrepetitions = 101\nsweep_max_mib = 2048\ncpus = bsp\n"
          "results = off\nlatency_pages = 2m\n",
          10,
          { { "profile", CONFIG_PROFILE_FULL }, { "on_exit", CONFIG_EXIT_SHUTDOWN },
            { "serial", 0 }, { "debug_exit", CONFIG_ON }, { "prefetchers", CONFIG_PREFETCH_KEEP },
            { "repetitions", 101 }, { "sweep_max_mib", 2048 }, { "cpus", CONFIG_CPUS_BSP },
            { "results", 0 }, { "latency_pages", CONFIG_PAGES_2M } } },
        { "default values written out", "profile = quick\nrepetitions = 11\n", 2,
          { { "profile", CONFIG_PROFILE_QUICK }, { "repetitions", 11 } } },
};

static void test_valid_files(void **state)
{
        for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
                struct pmucal_config cfg;
                struct config_diag   d[4];
                size_t               n = 99;
                status_t st = config_parse(valid[i].text, strlen(valid[i].text), &cfg, d, 4, &n);

                if (st != ST_OK || n != 0)
                        fail_msg("%s: status %d, %zu diagnostics, first: %s", valid[i].name, st, n,
                                 n ? d[0].msg : "");
                cfg_assert_settings(&cfg, valid[i].set, valid[i].n_set);
        }
}

/* ---- every key and value ---------------------------------------------------------------- */

static const struct {
        const char *key, *value;
        uint32_t    want;
} good_values[] = {
        { "profile", "quick", CONFIG_PROFILE_QUICK },      { "profile", "full", CONFIG_PROFILE_FULL },
        { "profile", "pmu", CONFIG_PROFILE_PMU },          { "profile", "sampling", CONFIG_PROFILE_SAMPLING },
        { "profile", "tlb", CONFIG_PROFILE_TLB },          { "on_exit", "return", CONFIG_EXIT_RETURN },
        { "on_exit", "shutdown", CONFIG_EXIT_SHUTDOWN },   { "on_exit", "reboot", CONFIG_EXIT_REBOOT },
        { "serial", "on", 1 },                             { "serial", "off", 0 },
        { "serial", "true", 1 },                           { "serial", "no", 0 },
        { "debug_exit", "auto", CONFIG_AUTO },             { "debug_exit", "on", CONFIG_ON },
        { "debug_exit", "off", CONFIG_OFF },               { "prefetchers", "keep", CONFIG_PREFETCH_KEEP },
        { "prefetchers", "off", CONFIG_PREFETCH_OFF },     { "repetitions", "11", 11 },
        { "repetitions", "1001", 1001 },                   { "repetitions", "0021", 21 },
        { "upload_tries", "1", 1 },                        { "upload_tries", "10", 10 },
        { "upload_pause_ms", "0", 0 },                     { "upload_pause_ms", "60000", 60000 },
        { "sweep_max_mib", "0", 0 },                       { "sweep_max_mib", "auto", 0 },
        { "sweep_max_mib", "1048576", 1048576 },           { "sweep_max_mib", "1", 1 },
        { "cpus", "all", CONFIG_CPUS_ALL },                { "cpus", "bsp", CONFIG_CPUS_BSP },
        { "results", "on", 1 },                            { "results", "off", 0 },
        { "results", "1", 1 },                             { "results", "0", 0 },
        { "crash_test", "on", 1 },                         { "crash_test", "off", 0 },
        { "latency_pages", "auto", CONFIG_PAGES_AUTO },    { "latency_pages", "4k", CONFIG_PAGES_4K },
        { "latency_pages", "2m", CONFIG_PAGES_2M },        { "latency_pages", "4K", CONFIG_PAGES_4K },
        { "latency_pages", "\"2M\"", CONFIG_PAGES_2M },
};

static const struct {
        const char *key, *value;
} bad_values[] = {
        { "profile", "quic" },          { "profile", "quickx" },       { "profile", "" },
        { "profile", "\"\"" },          { "profile", "\" quick\"" },   { "profile", "full pmu" },
        { "profile", "full;x" },        { "on_exit", "halt" },         { "serial", "2" },
        { "serial", "o" },              { "debug_exit", "maybe" },     { "prefetchers", "on" },
        { "repetitions", "10" },        { "repetitions", "1002" },     { "repetitions", "-11" },
        { "repetitions", "+11" },       { "repetitions", "0x10" },     { "repetitions", "11.0" },
        { "upload_tries", "0" },        { "upload_tries", "11" },      { "upload_pause_ms", "60001" },
        { "upload_pause_ms", "1s" },
        { "repetitions", "4294967307" }, /* 2^32 + 11: must not wrap to 11 */
        { "repetitions", "99999999999999999999999" },                { "repetitions", "auto" },
        { "sweep_max_mib", "1048577" }, { "sweep_max_mib", "-1" },     { "sweep_max_mib", "1 G" },
        { "cpus", "bsp,1" },            { "cpus", "0-" },              { "cpus", "3-1" },
        { "cpus", "1,,2" },             { "cpus", "1," },              { "cpus", "4294967296" },
        { "cpus", "-1" },               { "cpus", "0x2" },             { "cpus", "1 2" },
        { "cpus", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16" },        { "results", "yes please" },
        { "latency_pages", "1g" },      { "latency_pages", "4096" },   { "latency_pages", "4 k" },
        { "latency_pages", "4kb" },     { "latency_pages", "" },
};

static void test_every_value(void **state)
{
        char line[128];

        for (size_t i = 0; i < sizeof(good_values) / sizeof(good_values[0]); i++) {
                struct pmucal_config cfg;
                size_t               n;
                struct cfg_kv            set = { good_values[i].key, good_values[i].want };

                snprintf(line, sizeof(line), "%s = %s\n", good_values[i].key, good_values[i].value);
                if (config_parse(line, strlen(line), &cfg, NULL, 0, &n) != ST_OK)
                        fail_msg("rejected: %s", line);
                cfg_assert_settings(&cfg, &set, 1);
        }
        for (size_t i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++) {
                struct pmucal_config cfg;
                struct config_diag   d[2];
                size_t               n;

                snprintf(line, sizeof(line), "# c\n%s = %s\n", bad_values[i].key, bad_values[i].value);
                if (config_parse(line, strlen(line), &cfg, d, 2, &n) != ST_BAD_DATA || n != 1)
                        fail_msg("accepted: %s", line);
                assert_int_equal(d[0].kind, CONFIG_DIAG_BAD_VALUE);
                assert_int_equal(d[0].line, 2);
                assert_non_null(strstr(d[0].msg, bad_values[i].key));
                cfg_assert_settings(&cfg, NULL, 0); /* the default stays, not marked as from the file */
        }
}

/* cpus = a list: the ranges as given, printed back, looked up; "0" alone is APIC ID 0. */
static void test_cpu_list(void **state)
{
        static const struct {
                const char *value, *text;
                uint32_t    in[3], out[3];
        } cases[] = {
                { "0", "0", { 0, 0, 0 }, { 1, 2, 3 } },
                { "0,2,4-7", "0,2,4-7", { 2, 4, 7 }, { 1, 3, 8 } },
                { " 3 - 5 , 9", "3-5,9", { 3, 5, 9 }, { 2, 6, 8 } },
                { "\"1,4294967295\"", "1,4294967295", { 1, 4294967295u, 1 }, { 0, 2, 4294967294u } },
                { "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
                  { 0, 9, 15 }, { 16, 17, 100 } },
        };
        (void)state;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmucal_config cfg;
                struct rep_buf       b = { 0 };
                struct json_w        w;
                char                 line[160], text[160], want[200];
                size_t               n;

                snprintf(line, sizeof(line), "cpus = %s\n", cases[i].value);
                if (config_parse(line, strlen(line), &cfg, NULL, 0, &n) != ST_OK || n)
                        fail_msg("rejected: %s", line);
                assert_int_equal(cfg.cpus, CONFIG_CPUS_LIST);
                assert_true(config_from_file(&cfg, "cpus"));
                assert_string_equal(config_cpus_text(&cfg.cpu_list, text, sizeof(text)),
                                    cases[i].text);
                for (unsigned k = 0; k < 3; k++) {
                        assert_true(config_cpus_has(&cfg.cpu_list, cases[i].in[k]));
                        assert_false(config_cpus_has(&cfg.cpu_list, cases[i].out[k]));
                }
                json_init(&w, &b);
                json_obj_begin(&w, NULL);
                config_to_json(&w, "config", &cfg);
                json_obj_end(&w);
                assert_int_equal(json_finish(&w), ST_OK);
                snprintf(want, sizeof(want), "\"cpus\": \"%s\"", cases[i].text);
                assert_non_null(strstr(b.p, want));
                rep_buf_free(&b);
        }
        /* a bad list leaves the default and no list behind */
        struct pmucal_config cfg;
        size_t               n;
        assert_int_equal(config_parse("cpus = 1,2-\n", 12, &cfg, NULL, 0, &n), ST_BAD_DATA);
        assert_int_equal(cfg.cpus, CONFIG_CPUS_ALL);
        assert_int_equal(cfg.cpu_list.n, 0);
}

/* ---- output ------------------------------------------------------------------------------- */

static void test_print(void **state)
{
        const char          *text = "profile = sampling\nrepetitions = 51\nserial = off\n";
        struct pmucal_config cfg;
        struct rep_buf       out = { 0 };
        size_t               n;

        assert_int_equal(config_parse(text, strlen(text), &cfg, NULL, 0, &n), ST_OK);
        rep_reset();
        assert_int_equal(rep_add_sink(rep_buf_sink(&out)), ST_OK);
        config_print(&cfg);
        rep_reset();
        assert_non_null(out.p);

        size_t lines = 0;
        for (const char *p = out.p; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, CFG_N_KEYS);
        for (size_t i = 0; i < CFG_N_KEYS; i++) {
                const char *l = strstr(out.p, cfg_all_keys[i]);
                assert_non_null(l);
                const char *eol  = strchr(l, '\n');
                const char *from = strstr(l, CONFIG_PATH);
                bool        set  = config_from_file(&cfg, cfg_all_keys[i]);
                assert_int_equal(from && from < eol, set);
                const char *def = strstr(l, "default");
                assert_int_equal(def && def < eol, !set);
        }
        assert_non_null(strstr(out.p, "sampling"));
        assert_non_null(strstr(out.p, "51"));
        assert_non_null(strstr(out.p, "sweep_max_mib = auto"));
        rep_buf_free(&out);
}

static void test_json(void **state)
{
        const char *text = "profile = tlb\nserial = off\nrepetitions = 31\nsweep_max_mib = 512\n"
                           "debug_exit = off\n";
        struct pmucal_config cfg;
        struct rep_buf       b = { 0 };
        struct json_w        w;
        size_t               n;
        json_error_t         err;

        assert_int_equal(config_parse(text, strlen(text), &cfg, NULL, 0, &n), ST_OK);
        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        config_to_json(&w, "config", &cfg);
        json_obj_end(&w);
        assert_int_equal(json_finish(&w), ST_OK);

        json_t *root = json_loads(b.p, 0, &err);
        if (!root)
                fail_msg("jansson: %s in %s", err.text, b.p);
        json_t *c = json_object_get(root, "config");
        assert_true(json_is_object(c));
        assert_string_equal(json_string_value(json_object_get(c, "profile")), "tlb");
        assert_string_equal(json_string_value(json_object_get(c, "on_exit")), "return");
        assert_string_equal(json_string_value(json_object_get(c, "debug_exit")), "off");
        assert_string_equal(json_string_value(json_object_get(c, "prefetchers")), "off");
        assert_string_equal(json_string_value(json_object_get(c, "cpus")), "all");
        assert_true(json_is_false(json_object_get(c, "serial")));
        assert_true(json_is_true(json_object_get(c, "results")));
        assert_true(json_is_false(json_object_get(c, "crash_test")));
        assert_string_equal(json_string_value(json_object_get(c, "latency_pages")), "auto");
        assert_int_equal(json_integer_value(json_object_get(c, "repetitions")), 31);
        assert_int_equal(json_integer_value(json_object_get(c, "sweep_max_mib")), 512);

        json_t *ff = json_object_get(c, "from_file");
        assert_true(json_is_array(ff));
        assert_int_equal(json_array_size(ff), 5);
        for (size_t i = 0; i < json_array_size(ff); i++)
                assert_true(config_from_file(&cfg, json_string_value(json_array_get(ff, i))));
        assert_int_equal(json_object_size(c), CFG_N_KEYS + 1);
        json_decref(root);
        rep_buf_free(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults),        cmocka_unit_test(test_empty_and_null),
                cmocka_unit_test(test_valid_files),     cmocka_unit_test(test_every_value),
                cmocka_unit_test(test_print),           cmocka_unit_test(test_json),
                cmocka_unit_test(test_cpu_list),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
