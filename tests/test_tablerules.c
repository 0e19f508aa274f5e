/** @file Unit tests for the rules every libpmucal loader shares (host/libpmucal_common.c and
 *  the checks of meaning in host/libpmucal.c, host/libpmucal_tlb.c): one schema version
 *  rule (docs/versioning.md) for latency and TLB tables alike, tables whose fields parse but
 *  mean nothing (duplicate names, out-of-order capacities, 0 for unknown, unknown units,
 *  duplicate classes or curves) rejected, one size limit for every file, and text from a
 *  file escaped before it reaches a message or a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/include/pmucal/table.h"
#include "host/include/pmucal/tlb.h"

/* A valid latency table, "%s" for the schema version. */
static const char lat_doc[] =
        "{\"schema\": \"pmucal.latency-table/%s\",\n"
        " \"machine\": {\"vendor\": \"AuthenticAMD\", \"family\": 25, \"model\": 17, \"stepping\": 1,\n"
        "   \"brand\": null, \"microcode\": null, \"core_hz\": 2000000000, \"tsc_hz\": 2000000000,\n"
        "   \"smbios_manufacturer\": null, \"smbios_product\": null, \"nodes\": 1},\n"
        " \"method\": {\"kernel\": null, \"layout\": null, \"page_bytes\": 4096, \"windows\": 11,\n"
        "   \"clock\": \"tsc\", \"prefetchers\": null, \"pmucal_version\": null},\n"
        " \"levels\": [\n"
        "  {\"name\": \"L1\", \"capacity_bytes\": 32768, \"cpuid_capacity_bytes\": 32768,\n"
        "   \"cpuid_level\": 1, \"agreement\": \"agrees\",\n"
        "   \"cycles\": {\"min\": 3, \"p10\": 3, \"p50\": 3, \"p90\": 3.2}, \"ns\": null},\n"
        "  {\"name\": \"L2\", \"capacity_bytes\": 1048576, \"cpuid_capacity_bytes\": 1048576,\n"
        "   \"cpuid_level\": 2, \"agreement\": \"agrees\",\n"
        "   \"cycles\": {\"min\": 12, \"p10\": 13, \"p50\": 14, \"p90\": 15}, \"ns\": null},\n"
        "  {\"name\": \"DRAM\", \"capacity_bytes\": null, \"cpuid_capacity_bytes\": null,\n"
        "   \"cpuid_level\": null, \"agreement\": \"no-cpuid\",\n"
        "   \"cycles\": {\"min\": 200, \"p10\": 210, \"p50\": 220, \"p90\": 240}, \"ns\": null}],\n"
        " \"bucket_upper_bounds\": {\"cycles\": [6, 55], \"ns\": null},\n"
        " \"flags\": []}\n";

#define CLASS(name, lat, added, upper, first, last)                                              \
        "{\"class\":\"" name "\",\"lat_mcyc\":" #lat ",\"added_mcyc\":" #added                      \
        ",\"upper_added_mcyc\":" #upper ",\"first_pages\":" #first ",\"last_pages\":" #last "}"
#define CURVE(side, page, pte, levels, classes)                                                  \
        "{\"side\":\"" side "\",\"page_bytes\":" page ",\"pte\":\"" pte "\",\"levels\":[" levels  \
        "],\"classes\":[" classes "]}"
#define GOOD_CLASSES                                                                             \
        CLASS("l1_hit", 3000, 0, 3000, 4, 64) "," CLASS("l2_hit", 9000, 6000, 16000, 76, 2048) "," \
        CLASS("walk", 29000, 26000, null, 3444, 8192)
#define GOOD_CURVE CURVE("dtlb", "4096", "near", "{\"level\":1,\"entries\":64}", GOOD_CLASSES)

static enum pmucal_err lat_load(const char *version, char *err, size_t errlen)
{
        char                 doc[4096];
        struct pmucal_table *t;
        enum pmucal_err      e;

        snprintf(doc, sizeof(doc), lat_doc, version);
        e = pmucal_table_load_buf(doc, strlen(doc), "t.json", &t, err, errlen);
        pmucal_table_free(t);
        return e;
}

static enum pmucal_err tlb_load(const char *doc, char *err, size_t errlen)
{
        struct pmucal_tlb *t;
        enum pmucal_err    e = pmucal_tlb_load_buf(doc, strlen(doc), "x.json", &t, err, errlen);
        pmucal_tlb_free(t);
        return e;
}

/* One version rule for both kinds of table: same major accepted whatever the minor; anything
 * that is not <major>[.<minor>] with plain whole numbers rejected; the version quoted as given. */
static void test_version_rule(void **state)
{
        static const struct {
                const char     *v;
                enum pmucal_err want;
                const char     *msg;
        } cases[] = {
                { "1", PMUCAL_OK, "" },
                { "1.0", PMUCAL_OK, "" },
                { "1.3", PMUCAL_OK, "" },
                { "1.999999999", PMUCAL_OK, "" },
                { "1.4294967297", PMUCAL_E_VERSION, "the version is not MAJOR or MAJOR.MINOR" },
                { "1.", PMUCAL_E_VERSION, "the version is not MAJOR or MAJOR.MINOR" },
                { "01", PMUCAL_E_VERSION, "the version is not" },
                { "1.01", PMUCAL_E_VERSION, "the version is not" },
                { "1.-1", PMUCAL_E_VERSION, "the version is not" },
                { "1x", PMUCAL_E_VERSION, "the version is not" },
                { "-1", PMUCAL_E_VERSION, "the version is not" },
                { "+1", PMUCAL_E_VERSION, "the version is not" },
                { " 1", PMUCAL_E_VERSION, "the version is not" },
                { "1.2.3", PMUCAL_E_VERSION, "the version is not" },
                { "", PMUCAL_E_VERSION, "the version is not" },
                { "0", PMUCAL_E_VERSION, "major version 0 is not supported" },
                { "2.0", PMUCAL_E_VERSION, "major version 2 is not supported" },
                { "999999999", PMUCAL_E_VERSION, "major version 999999999 is not supported" },
                { "4294967297", PMUCAL_E_VERSION,
                  "/4294967297\": the version is not MAJOR" },
                { "99999999999999999999.1", PMUCAL_E_VERSION,
                  "/99999999999999999999.1\": the version is not MAJOR" },
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char            tdoc[2048], err[512];
                enum pmucal_err a = lat_load(cases[i].v, err, sizeof(err));

                if (a != cases[i].want || !strstr(err, cases[i].msg))
                        fail_msg("latency table version \"%s\": got %d \"%s\", want %d \"%s\"",
                                 cases[i].v, a, err, cases[i].want, cases[i].msg);
                snprintf(tdoc, sizeof(tdoc),
                         "{\"schema\":\"pmucal.tlb/%s\",\"units\":\"mcyc\",\"future\":[1],\"curves\":["
                         GOOD_CURVE "]}", cases[i].v);
                a = tlb_load(tdoc, err, sizeof(err));
                if (a != cases[i].want || !strstr(err, cases[i].msg))
                        fail_msg("TLB table version \"%s\": got %d \"%s\", want %d \"%s\"",
                                 cases[i].v, a, err, cases[i].want, cases[i].msg);
        }
}

/* A latency table whose every field parses but whose meaning is wrong is rejected. */
static void test_latency_meaning(void **state)
{
        static const struct {
                const char *name, *from, *to, *msg;
        } cases[] = {
                { "duplicate level name", "\"name\": \"L2\"", "\"name\": \"L1\"",
                  "levels[1].name: \"L1\" is also the name of levels[0]" },
                { "capacity below the level before", "\"capacity_bytes\": 1048576",
                  "\"capacity_bytes\": 16384",
                  "levels[1].capacity_bytes: 16384 is not above levels[0]'s 32768" },
                { "capacity equal", "\"capacity_bytes\": 1048576", "\"capacity_bytes\": 32768",
                  "levels[1].capacity_bytes: 32768 is not above" },
                { "core_hz 0", "\"core_hz\": 2000000000", "\"core_hz\": 0",
                  "machine.core_hz: 0: an unknown value is written null, not 0" },
                { "tsc_hz 0", "\"tsc_hz\": 2000000000", "\"tsc_hz\": 0", "machine.tsc_hz: 0:" },
                { "nodes 0", "\"nodes\": 1", "\"nodes\": 0", "machine.nodes: 0:" },
                { "page_bytes 0", "\"page_bytes\": 4096", "\"page_bytes\": 0", "method.page_bytes: 0:" },
                { "capacity 0", "\"capacity_bytes\": 32768", "\"capacity_bytes\": 0",
                  "levels[0].capacity_bytes: 0:" },
                { "latency out of order", "\"p50\": 14", "\"p50\": 3", "levels[1].cycles" },
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char                 doc[4096], tmp[4096], err[512];
                struct pmucal_table *t;
                const char          *at;
                enum pmucal_err      e;

                snprintf(doc, sizeof(doc), lat_doc, "1");
                at = strstr(doc, cases[i].from);
                assert_non_null(at);
                snprintf(tmp, sizeof(tmp), "%.*s%s%s", (int)(at - doc), doc, cases[i].to,
                         at + strlen(cases[i].from));
                e = pmucal_table_load_buf(tmp, strlen(tmp), "t.json", &t, err, sizeof(err));
                if (e != PMUCAL_E_SCHEMA || !strstr(err, cases[i].msg))
                        fail_msg("%s: got %d \"%s\", want \"%s\"", cases[i].name, e, err, cases[i].msg);
                assert_null(t);
        }
}

/* TLB tables: unknown units, duplicate classes or curves, levels out of order. */
static void test_tlb_meaning(void **state)
{
        static const struct {
                const char     *name, *doc;
                enum pmucal_err want;
                const char     *msg;
        } cases[] = {
                { "units cyc", "{\"schema\":\"pmucal.tlb/1\",\"units\":\"cyc\",\"curves\":[" GOOD_CURVE "]}",
                  PMUCAL_E_SCHEMA, "units: \"cyc\" is not a known unit" },
                { "units missing", "{\"schema\":\"pmucal.tlb/1\",\"curves\":[" GOOD_CURVE "]}",
                  PMUCAL_E_SCHEMA, "units: missing" },
                { "units in a tlb member",
                  "{\"schema\":\"pmucal.latency-table/1\",\"tlb\":{\"schema\":\"pmucal.tlb/1\","
                  "\"units\":\"ns\",\"curves\":[]}}", PMUCAL_E_SCHEMA, "tlb.units: \"ns\"" },
                { "two l2_hit classes",
                  "{\"schema\":\"pmucal.tlb/1\",\"units\":\"mcyc\",\"curves\":[" CURVE("dtlb", "4096",
                  "near", "", CLASS("l1_hit", 3000, 0, 3000, 4, 64) "," CLASS("l2_hit", 9000, 6000,
                  9500, 76, 99) "," CLASS("l2_hit", 10000, 7000, null, 100, 200)) "]}",
                  PMUCAL_E_SCHEMA, "classes[2].class: a second \"l2_hit\" (classes[1])" },
                { "several walk classes are fine",
                  "{\"schema\":\"pmucal.tlb/1\",\"units\":\"mcyc\",\"curves\":[" CURVE("dtlb", "4096",
                  "near", "", CLASS("l1_hit", 3000, 0, 3000, 4, 64) "," CLASS("walk", 9000, 6000,
                  9500, 76, 99) "," CLASS("walk", 10000, 7000, null, 100, 200)) "]}",
                  PMUCAL_OK, "" },
                { "duplicate curve",
                  "{\"schema\":\"pmucal.tlb/1\",\"units\":\"mcyc\",\"curves\":[" GOOD_CURVE ","
                  GOOD_CURVE "]}", PMUCAL_E_SCHEMA, "curves[1]: a second dtlb curve for 4096-byte" },
                { "same size, other PTE layout is fine",
                  "{\"schema\":\"pmucal.tlb/1\",\"units\":\"mcyc\",\"curves\":[" GOOD_CURVE ","
                  CURVE("dtlb", "4096", "line", "", GOOD_CLASSES) "]}", PMUCAL_OK, "" },
                { "levels out of order",
                  "{\"schema\":\"pmucal.tlb/1\",\"units\":\"mcyc\",\"curves\":[" CURVE("dtlb", "4096",
                  "near", "{\"entries\":64},{\"entries\":64}", GOOD_CLASSES) "]}",
                  PMUCAL_E_SCHEMA, "levels[1].entries: 64 is not above the level before it" },
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char            err[512];
                enum pmucal_err e = tlb_load(cases[i].doc, err, sizeof(err));
                if (e != cases[i].want || !strstr(err, cases[i].msg))
                        fail_msg("%s: got %d \"%s\", want %d \"%s\"", cases[i].name, e, err,
                                 cases[i].want, cases[i].msg);
        }
}

/* One size limit for both loaders (16 MiB): a bigger file is refused before it is parsed. */
static void test_size_limit(void **state)
{
        char                 path[] = "/tmp/test_tablerules_XXXXXX", err[512];
        struct pmucal_table *t;
        struct pmucal_tlb   *k;
        FILE                *f;
        int                  fd = mkstemp(path);
        (void)state;

        assert_true(fd >= 0);
        assert_non_null(f = fdopen(fd, "w"));
        fputs("{\"schema\":\"pmucal.tlb/1\",\"units\":\"mcyc\",\"pad\":\"", f);
        for (int i = 0; i < 17 * 1024; i++)
                fprintf(f, "%01024d", 0);
        fputs("\",\"curves\":[]}", f);
        fclose(f);
        assert_int_equal(pmucal_tlb_load(path, &k, err, sizeof(err)), PMUCAL_E_IO);
        assert_non_null(strstr(err, "file too large"));
        assert_int_equal(pmucal_table_load(path, &t, err, sizeof(err)), PMUCAL_E_IO);
        assert_non_null(strstr(err, "file too large"));
        unlink(path);
        assert_int_equal(pmucal_tlb_load("/tmp", &k, err, sizeof(err)), PMUCAL_E_IO);
        assert_non_null(strstr(err, "is a directory"));
}

static void test_escape(void **state)
{
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "L1", "L1" },
                { "L1\n\x1b[2J", "L1\\n\\x1b[2J" },
                { "a\\b\t\r", "a\\\\b\\t\\r" },
                { "\x7f", "\\x7f" },
                { "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" }, /* UTF-8 kept */
                { "\xc2\x9b" "31m", "\\xc2\\x9b31m" },                       /* C1 CSI escaped */
                { "\xff\xc3", "\\xff\\xc3" },                                /* not UTF-8 */
                { "\xc0\x80", "\\xc0\\x80" },                                /* overlong NUL */
                { "\xed\xa0\x80", "\\xed\\xa0\\x80" },                       /* surrogate */
        };
        char   buf[64], small[6];
        size_t n;
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                n = pmucal_escape(buf, sizeof(buf), cases[i].in);
                assert_string_equal(buf, cases[i].out);
                assert_int_equal(n, strlen(cases[i].out));
        }
        n = pmucal_escape(small, sizeof(small), "\x1b\x1b\x1b");
        assert_int_equal(n, 12);
        assert_int_equal(strlen(small), 5);
        assert_int_equal(pmucal_escape(NULL, 0, "abc"), 3);
        assert_int_equal(pmucal_escape(buf, sizeof(buf), NULL), 0);

        /* Messages quoting a file's text are escaped too. */
        char err[512];
        assert_int_equal(lat_load("1\\u001b[2J", err, sizeof(err)), PMUCAL_E_VERSION);
        assert_null(strchr(err, '\x1b'));
        assert_non_null(strstr(err, "1\\x1b[2J"));
        assert_int_equal(tlb_load("{\"schema\":\"pmucal.tlb/1\",\"units\":\"\\u001b[31m\"}", err,
                                  sizeof(err)), PMUCAL_E_SCHEMA);
        assert_non_null(strstr(err, "\"\\x1b[31m\" is not a known unit"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_version_rule),
                cmocka_unit_test(test_latency_meaning),
                cmocka_unit_test(test_tlb_meaning),
                cmocka_unit_test(test_size_limit),
                cmocka_unit_test(test_escape),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
