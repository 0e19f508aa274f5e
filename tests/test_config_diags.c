/** @file Tests of the pmucal.cfg parser (app/config.c): diagnostics and limits. */
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

/* ---- diagnostics -------------------------------------------------------------------------- */

static const struct {
        const char           *name;
        const char           *text;
        size_t                len; /* 0: strlen(text) */
        enum config_diag_kind kind;
        unsigned              line;
        const char           *in_msg[2]; /* substrings the message must contain */
        size_t                n_set;     /* what still applies */
        struct cfg_kv             set[2];
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
                cfg_assert_settings(&cfg, bad[i].set, bad[i].n_set);
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
        struct cfg_kv want[] = { { "profile", CONFIG_PROFILE_PMU }, { "cpus", CONFIG_CPUS_BSP } };
        cfg_assert_settings(&cfg, want, 2); /* serial = off lies past the limit */

        /* Exactly CONFIG_MAX_BYTES: fine. */
        assert_int_equal(config_parse(text, CONFIG_MAX_BYTES, &cfg, d, 2, &n), ST_OK);
        free(text);
}

/* A cpus list of more items than it takes: quoted whole (not cut at the message's old
 * 160 bytes), with the count and the limit. */
static void test_cpus_too_many(void **state)
{
        char                 text[256], val[200];
        struct config_diag   d[2];
        struct pmucal_config cfg;
        size_t               n, k = 0;
        (void)state;

        for (unsigned i = 0; i < 40; i++)
                k += (size_t)snprintf(val + k, sizeof(val) - k, "%s%u", i ? "," : "", i * 2);
        snprintf(text, sizeof(text), "profile = pmu\ncpus = %s\n", val);
        assert_int_equal(config_parse(text, strlen(text), &cfg, d, 2, &n), ST_BAD_DATA);
        assert_int_equal(n, 1);
        assert_int_equal(d[0].kind, CONFIG_DIAG_BAD_VALUE);
        assert_int_equal(d[0].line, 2);
        assert_non_null(strstr(d[0].msg, "lists 40 APIC IDs and ranges, more than the 16"));
        assert_non_null(strstr(d[0].msg, val));
        assert_int_not_equal(cfg.cpus, CONFIG_CPUS_LIST); /* the default stays */
        assert_int_equal(config_cpus_count(val, strlen(val)), 40);
        assert_int_equal(config_cpus_count("1,,2", 4), 0);
        /* 16 items are taken */
        snprintf(text, sizeof(text), "cpus = 0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30\n");
        assert_int_equal(config_parse(text, strlen(text), &cfg, d, 2, &n), ST_OK);
        assert_int_equal(cfg.cpu_list.n, 16);
}

/* UTF-16 (Notepad's "Unicode"): one diagnostic for the file, not one "binary byte" a line;
 * with and without a byte order mark, both byte orders. */
static void test_utf16(void **state)
{
        static const char ascii[] = "profile = full\ncpus = bsp\nserial = off\n";
        char                 text[256];
        struct config_diag   d[8];
        struct pmucal_config cfg;
        size_t               n, len;
        (void)state;

        for (int variant = 0; variant < 4; variant++) {
                bool be = variant & 1, bom = variant & 2;
                len     = 0;
                if (bom) {
                        text[len++] = (char)(be ? 0xfe : 0xff);
                        text[len++] = (char)(be ? 0xff : 0xfe);
                }
                for (size_t i = 0; ascii[i]; i++) {
                        text[len++] = be ? 0 : ascii[i];
                        text[len++] = be ? ascii[i] : 0;
                }
                assert_int_equal(config_parse(text, len, &cfg, d, 8, &n), ST_BAD_DATA);
                assert_int_equal(n, 1);
                assert_int_equal(d[0].kind, CONFIG_DIAG_ENCODING);
                assert_non_null(strstr(d[0].msg, be ? "UTF-16 (big-endian" : "UTF-16 (little-endian"));
                assert_non_null(strstr(d[0].msg, "save it as UTF-8"));
                assert_int_equal(cfg.profile, CONFIG_PROFILE_QUICK); /* nothing read */
        }
        /* A plain ASCII file with a NUL somewhere is not UTF-16 */
        assert_int_equal(config_parse("profile = pmu\n\0\n", 16, &cfg, d, 8, &n), ST_BAD_DATA);
        assert_int_equal(d[0].kind, CONFIG_DIAG_BINARY);
        assert_int_equal(cfg.profile, CONFIG_PROFILE_PMU);
        assert_string_equal(config_diag_kind_str(CONFIG_DIAG_ENCODING), "UTF-16 file");
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_diagnostics),     cmocka_unit_test(test_line_length),
                cmocka_unit_test(test_file_too_large),  cmocka_unit_test(test_max_diags),
                cmocka_unit_test(test_cpus_too_many),   cmocka_unit_test(test_utf16),
                cmocka_unit_test(test_long_key_in_message), cmocka_unit_test(test_diag_kind_str),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
