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
#include "tests/fake_plat.h"

#define N_KEYS 11

static const char *const all_keys[N_KEYS] = {
        "profile", "on_exit", "serial", "debug_exit", "prefetchers",
        "repetitions", "sweep_max_mib", "cpus", "results", "crash_test",
        "latency_pages",
};

/* The test's own map from key names to fields (an oracle independent of the key table). */
static uint32_t field(const struct pmucal_config *c, const char *key)
{
        if (!strcmp(key, "profile"))       return c->profile;
        if (!strcmp(key, "on_exit"))       return c->on_exit;
        if (!strcmp(key, "serial"))        return c->serial;
        if (!strcmp(key, "debug_exit"))    return c->debug_exit;
        if (!strcmp(key, "prefetchers"))   return c->prefetchers;
        if (!strcmp(key, "repetitions"))   return c->repetitions;
        if (!strcmp(key, "sweep_max_mib")) return c->sweep_max_mib;
        if (!strcmp(key, "cpus"))          return c->cpus;
        if (!strcmp(key, "results"))       return c->results;
        if (!strcmp(key, "crash_test"))    return c->crash_test;
        if (!strcmp(key, "latency_pages")) return c->latency_pages;
        fail_msg("no such key %s", key);
        return 0;
}

/* The documented defaults. */
static uint32_t default_of(const char *key)
{
        static const struct { const char *key; uint32_t v; } defs[] = {
                { "profile", CONFIG_PROFILE_QUICK }, { "on_exit", CONFIG_EXIT_RETURN },
                { "serial", 1 },                     { "debug_exit", CONFIG_AUTO },
                { "prefetchers", CONFIG_PREFETCH_OFF }, { "repetitions", 11 },
                { "sweep_max_mib", 0 },              { "cpus", CONFIG_CPUS_ALL },
                { "results", 1 },                    { "crash_test", 0 },
                { "latency_pages", CONFIG_PAGES_AUTO },
        };
        for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
                if (!strcmp(defs[i].key, key))
                        return defs[i].v;
        fail_msg("no default for %s", key);
        return 0;
}

struct kv {
        const char *key;
        uint32_t    v;
};

/* cfg holds the defaults except @p set, and from_file names exactly the keys in @p set. */
static void assert_settings(const struct pmucal_config *cfg, const struct kv *set, size_t n_set)
{
        for (size_t i = 0; i < N_KEYS; i++) {
                uint32_t want = default_of(all_keys[i]);
                bool     from = false;

                for (size_t j = 0; j < n_set; j++)
                        if (!strcmp(set[j].key, all_keys[i])) {
                                want = set[j].v;
                                from = true;
                        }
                if (field(cfg, all_keys[i]) != want)
                        fail_msg("%s = %u, want %u", all_keys[i], field(cfg, all_keys[i]), want);
                assert_int_equal(config_from_file(cfg, all_keys[i]), from);
        }
}

/* ---- defaults and edge arguments -------------------------------------------------------- */

static void test_defaults(void **state)
{
        struct pmucal_config cfg;

        memset(&cfg, 0x5a, sizeof(cfg));
        config_defaults(&cfg);
        assert_settings(&cfg, NULL, 0);
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
        assert_settings(&cfg, NULL, 0);

        memset(&cfg, 0x5a, sizeof(cfg));
        n = 99;
        assert_int_equal(config_parse(NULL, 0, &cfg, d, 2, &n), ST_OK);
        assert_int_equal(n, 0);
        assert_settings(&cfg, NULL, 0);

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
        struct kv   set[N_KEYS];
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
                assert_settings(&cfg, valid[i].set, valid[i].n_set);
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
                struct kv            set = { good_values[i].key, good_values[i].want };

                snprintf(line, sizeof(line), "%s = %s\n", good_values[i].key, good_values[i].value);
                if (config_parse(line, strlen(line), &cfg, NULL, 0, &n) != ST_OK)
                        fail_msg("rejected: %s", line);
                assert_settings(&cfg, &set, 1);
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
                assert_settings(&cfg, NULL, 0); /* the default stays, not marked as from the file */
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

/* ---- diagnostics -------------------------------------------------------------------------- */

static const struct {
        const char           *name;
        const char           *text;
        size_t                len; /* 0: strlen(text) */
        enum config_diag_kind kind;
        unsigned              line;
        const char           *in_msg[2]; /* substrings the message must contain */
        size_t                n_set;     /* what still applies */
        struct kv             set[2];
} bad[] = {
        { "no '='", "serial = off\nprofile full\n", 0, CONFIG_DIAG_MALFORMED, 2,
          { "profile full" }, 1, { { "serial", 0 } } },
        { "no key", "\n\n  = quick\ncpus = bsp\n", 0, CONFIG_DIAG_MALFORMED, 3, { "key", "= quick" }, 1,
          { { "cpus", CONFIG_CPUS_BSP } } },
        { "unterminated quote", "profile = \"full\n", 0, CONFIG_DIAG_MALFORMED, 1, { "profile" }, 0, { { 0 } } },
        { "text after quote", "profile = \"full\" pmu\n", 0, CONFIG_DIAG_MALFORMED, 1,
          { "profile" }, 0, { { 0 } } },
        { "unknown key", "profile = tlb\nspeed = fast\n", 0, CONFIG_DIAG_UNKNOWN_KEY, 2,
          { "speed", "fast" }, 1, { { "profile", CONFIG_PROFILE_TLB } } },
        { "key with a space", "pro file = tlb\n", 0, CONFIG_DIAG_UNKNOWN_KEY, 1, { "pro file" }, 0, { { 0 } } },
        { "bad value", "on_exit = halt\n", 0, CONFIG_DIAG_BAD_VALUE, 1,
          { "halt", "return|shutdown|reboot" }, 0, { { 0 } } },
        { "bad integer", "repetitions = 7\n", 0, CONFIG_DIAG_BAD_VALUE, 1, { "'7'", "11..1001" }, 0, { { 0 } } },
        { "duplicate: first wins", "profile = full\n# x\nprofile = pmu\n", 0, CONFIG_DIAG_DUPLICATE,
          3, { "profile", "line 1" }, 1, { { "profile", CONFIG_PROFILE_FULL } } },
        { "bad then good is no duplicate", "profile = bogus\nprofile = pmu\n", 0,
          CONFIG_DIAG_BAD_VALUE, 1, { "bogus" }, 1, { { "profile", CONFIG_PROFILE_PMU } } },
        { "NUL byte", "profile = full\nserial = o\0n\ncpus = bsp\n", 38, CONFIG_DIAG_BINARY, 2,
          { "0x00" }, 2, { { "profile", CONFIG_PROFILE_FULL }, { "cpus", CONFIG_CPUS_BSP } } },
        { "NUL in a comment", "# a\0b\nprofile = pmu\n", 20, CONFIG_DIAG_BINARY, 1, { "0x00" },
          1, { { "profile", CONFIG_PROFILE_PMU } } },
        { "control byte", "profile = full\x1b[0m\n", 0, CONFIG_DIAG_BINARY, 1, { "0x1b" }, 0, { { 0 } } },
        { "DEL byte", "\n\x7f\n", 0, CONFIG_DIAG_BINARY, 2, { "0x7f" }, 0, { { 0 } } },
        { "lone CR inside a value", "profile = fu\rll\n", 0, CONFIG_DIAG_BAD_VALUE, 1, { "profile" }, 0, { { 0 } } },
        { "empty value (comment right after '=')", "profile = full\nserial =# nothing\n", 0,
          CONFIG_DIAG_BAD_VALUE, 2, { "serial", "on|off" }, 1, { { "profile", CONFIG_PROFILE_FULL } } },
        { "text cut by len", "profile = full", 11, CONFIG_DIAG_BAD_VALUE, 1, { "'f'" }, 0, { { 0 } } },
};

static void test_diagnostics(void **state)
{
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pmucal_config cfg;
                struct config_diag   d[3];
                size_t               n   = 99;
                size_t               len = bad[i].len ? bad[i].len : strlen(bad[i].text);
                status_t             st  = config_parse(bad[i].text, len, &cfg, d, 3, &n);

                if (st != ST_BAD_DATA || n != 1)
                        fail_msg("%s: status %d, %zu diagnostics", bad[i].name, st, n);
                if (d[0].kind != bad[i].kind || d[0].line != bad[i].line)
                        fail_msg("%s: kind %d line %u, want kind %d line %u (%s)", bad[i].name,
                                 d[0].kind, d[0].line, bad[i].kind, bad[i].line, d[0].msg);
                for (size_t j = 0; j < 2; j++)
                        if (bad[i].in_msg[j] && !strstr(d[0].msg, bad[i].in_msg[j]))
                                fail_msg("%s: message \"%s\" lacks \"%s\"", bad[i].name, d[0].msg,
                                         bad[i].in_msg[j]);
                assert_settings(&cfg, bad[i].set, bad[i].n_set);
        }
}

static void test_line_length(void **state)
{
        static char          text[CONFIG_MAX_LINE + 64];
        struct pmucal_config cfg;
        struct config_diag   d[2];
        size_t               n;
        const char          *head = "profile = full";
        size_t               hl   = strlen(head);

        /* Exactly CONFIG_MAX_LINE bytes (value padded with blanks) plus CR LF: accepted. */
        memset(text, ' ', sizeof(text));
        memcpy(text, head, hl);
        memcpy(text + CONFIG_MAX_LINE, "\r\ncpus = bsp\n", 13);
        assert_int_equal(config_parse(text, CONFIG_MAX_LINE + 13, &cfg, d, 2, &n), ST_OK);
        assert_int_equal(cfg.profile, CONFIG_PROFILE_FULL);
        assert_int_equal(cfg.cpus, CONFIG_CPUS_BSP);

        /* One byte more: the line is ignored, the next one still applies. */
        memset(text, ' ', sizeof(text));
        memcpy(text, head, hl);
        memcpy(text + CONFIG_MAX_LINE + 1, "\ncpus = bsp\n", 12);
        assert_int_equal(config_parse(text, CONFIG_MAX_LINE + 13, &cfg, d, 2, &n), ST_BAD_DATA);
        assert_int_equal(n, 1);
        assert_int_equal(d[0].kind, CONFIG_DIAG_TOO_LONG);
        assert_int_equal(d[0].line, 1);
        assert_non_null(strstr(d[0].msg, "513"));
        assert_int_equal(cfg.profile, CONFIG_PROFILE_QUICK);
        assert_int_equal(cfg.cpus, CONFIG_CPUS_BSP);

        /* A very long line without a newline at all. */
        size_t big  = 200000;
        char  *huge = malloc(big);
        memset(huge, 'x', big);
        assert_int_equal(config_parse(huge, CONFIG_MAX_BYTES, &cfg, d, 2, &n), ST_BAD_DATA);
        assert_int_equal(n, 1);
        assert_int_equal(d[0].kind, CONFIG_DIAG_TOO_LONG);
        free(huge);
}

static void test_file_too_large(void **state)
{
        const size_t line_len = 64; /* CONFIG_MAX_BYTES / 64 lines fit exactly */
        size_t       n_lines  = CONFIG_MAX_BYTES / line_len + 10;
        char        *text     = malloc(n_lines * line_len);
        struct pmucal_config cfg;
        struct config_diag   d[2];
        size_t               n;

        for (size_t i = 0; i < n_lines; i++) {
                memset(text + i * line_len, ' ', line_len - 1);
                text[i * line_len]                = '#';
                text[i * line_len + line_len - 1] = '\n';
        }
        memcpy(text, "profile = pmu", 13);                                  /* line 1 */
        memcpy(text + (CONFIG_MAX_BYTES / line_len - 1) * line_len, "cpus = bsp", 10);
        memcpy(text + (CONFIG_MAX_BYTES / line_len + 1) * line_len, "serial = off", 12);

        assert_int_equal(config_parse(text, n_lines * line_len, &cfg, d, 2, &n), ST_BAD_DATA);
        assert_int_equal(n, 1);
        assert_int_equal(d[0].kind, CONFIG_DIAG_TOO_LARGE);
        assert_int_equal(d[0].line, CONFIG_MAX_BYTES / line_len + 1);
        struct kv want[] = { { "profile", CONFIG_PROFILE_PMU }, { "cpus", CONFIG_CPUS_BSP } };
        assert_settings(&cfg, want, 2); /* serial = off lies past the limit */

        /* Exactly CONFIG_MAX_BYTES: fine. */
        assert_int_equal(config_parse(text, CONFIG_MAX_BYTES, &cfg, d, 2, &n), ST_OK);
        free(text);
}

static void test_max_diags(void **state)
{
        const char *text = "a\nb = 1\nprofile = x\n\x01\nprofile = full\nprofile = pmu\n";
        struct config_diag d[4];
        struct pmucal_config cfg;
        size_t n;

        memset(d, 0x77, sizeof(d));
        assert_int_equal(config_parse(text, strlen(text), &cfg, d, 2, &n), ST_BAD_DATA);
        assert_int_equal(n, 5);
        assert_int_equal(d[0].line, 1);
        assert_int_equal(d[0].kind, CONFIG_DIAG_MALFORMED);
        assert_int_equal(d[1].line, 2);
        assert_int_equal(d[1].kind, CONFIG_DIAG_UNKNOWN_KEY);
        for (size_t i = 0; i < sizeof(d[2]); i++) /* beyond max_diags: untouched */
                assert_int_equal(((unsigned char *)&d[2])[i], 0x77);
        assert_int_equal(cfg.profile, CONFIG_PROFILE_FULL);

        /* Same input with room for all: the kinds and lines in order. */
        static const struct { unsigned line; enum config_diag_kind kind; } want[] = {
                { 1, CONFIG_DIAG_MALFORMED }, { 2, CONFIG_DIAG_UNKNOWN_KEY },
                { 3, CONFIG_DIAG_BAD_VALUE }, { 4, CONFIG_DIAG_BINARY },
        };
        struct config_diag all[8];
        assert_int_equal(config_parse(text, strlen(text), &cfg, all, 8, &n), ST_BAD_DATA);
        assert_int_equal(n, 5);
        for (size_t i = 0; i < 4; i++) {
                assert_int_equal(all[i].line, want[i].line);
                assert_int_equal(all[i].kind, want[i].kind);
        }
        assert_int_equal(all[4].line, 6);
        assert_int_equal(all[4].kind, CONFIG_DIAG_DUPLICATE);
}

static void test_long_key_in_message(void **state)
{
        char                 text[600];
        struct pmucal_config cfg;
        struct config_diag   d[1];
        size_t               n;

        memset(text, 'k', 400);
        memcpy(text + 400, " = ", 3);
        memset(text + 403, 'v', 100);
        assert_int_equal(config_parse(text, 503, &cfg, d, 1, &n), ST_BAD_DATA);
        assert_int_equal(d[0].kind, CONFIG_DIAG_UNKNOWN_KEY);
        assert_true(strlen(d[0].msg) < sizeof(d[0].msg));
        assert_non_null(strstr(d[0].msg, "kkkk"));
}

static void test_diag_kind_str(void **state)
{
        for (int i = 0; i < CONFIG_DIAG__COUNT; i++) {
                const char *s = config_diag_kind_str((enum config_diag_kind)i);
                assert_non_null(s);
                assert_string_not_equal(s, "unknown diagnostic");
                for (int j = 0; j < i; j++)
                        assert_string_not_equal(s, config_diag_kind_str((enum config_diag_kind)j));
        }
        assert_string_equal(config_diag_kind_str(CONFIG_DIAG__COUNT), "unknown diagnostic");
        assert_string_equal(config_diag_kind_str((enum config_diag_kind)-1), "unknown diagnostic");
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
        assert_int_equal(lines, N_KEYS);
        for (size_t i = 0; i < N_KEYS; i++) {
                const char *l = strstr(out.p, all_keys[i]);
                assert_non_null(l);
                const char *eol  = strchr(l, '\n');
                const char *from = strstr(l, CONFIG_PATH);
                bool        set  = config_from_file(&cfg, all_keys[i]);
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
        assert_int_equal(json_object_size(c), N_KEYS + 1);
        json_decref(root);
        rep_buf_free(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults),        cmocka_unit_test(test_empty_and_null),
                cmocka_unit_test(test_valid_files),     cmocka_unit_test(test_every_value),
                cmocka_unit_test(test_diagnostics),     cmocka_unit_test(test_line_length),
                cmocka_unit_test(test_file_too_large),  cmocka_unit_test(test_max_diags),
                cmocka_unit_test(test_long_key_in_message), cmocka_unit_test(test_diag_kind_str),
                cmocka_unit_test(test_print),           cmocka_unit_test(test_json),
                cmocka_unit_test(test_cpu_list),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
