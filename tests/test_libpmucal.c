/** @file Unit tests for host/libpmucal.c: the latency-table loader rejects malformed,
 * truncated, wrong-version, wrong-type and incomplete tables with a message naming the file and
 * the position or JSON path, and accepts unknown additions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/include/pmucal/table.h"
#include "host/include/pmucal/tlb.h"
#include "report/json.h"
#include "report/tlbdetect_out.h"
#include "tests/table_cases.h"

/* A valid table: three levels, ns present. */
static const char base[] =
        "{\n"
        "  \"schema\": \"pmucal.latency-table/1\",\n"
        "  \"machine\": {\"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": 143, \"stepping\": 8,\n"
        "    \"brand\": \"Xeon\", \"microcode\": \"0x2b000181\", \"core_hz\": 2000000000,\n"
        "    \"tsc_hz\": 2000000000, \"smbios_manufacturer\": null, \"smbios_product\": \"X13\",\n"
        "    \"nodes\": 2, \"hypervisor\": false},\n"
        "  \"method\": {\"kernel\": \"pointer-chase\", \"layout\": \"random\", \"page_bytes\": 4096,\n"
        "    \"windows\": 11, \"clock\": \"tsc\", \"prefetchers\": \"off\", \"pmucal_version\": \"v1\"},\n"
        "  \"levels\": [\n"
        "    {\"name\": \"L1\", \"capacity_bytes\": 49152, \"cpuid_capacity_bytes\": 49152,\n"
        "     \"cpuid_level\": 1, \"agreement\": \"agrees\",\n"
        "     \"cycles\": {\"min\": 4.9, \"p10\": 5.0, \"p50\": 5.1, \"p90\": 5.2},\n"
        "     \"ns\": {\"min\": 2.45, \"p10\": 2.5, \"p50\": 2.55, \"p90\": 2.6}},\n"
        "    {\"name\": \"L2\", \"capacity_bytes\": 2097152, \"cpuid_capacity_bytes\": 2097152,\n"
        "     \"cpuid_level\": 2, \"agreement\": \"agrees\",\n"
        "     \"cycles\": {\"min\": 15, \"p10\": 15.5, \"p50\": 16, \"p90\": 17},\n"
        "     \"ns\": {\"min\": 7.5, \"p10\": 7.75, \"p50\": 8, \"p90\": 8.5}},\n"
        "    {\"name\": \"DRAM\", \"capacity_bytes\": null, \"cpuid_capacity_bytes\": null,\n"
        "     \"cpuid_level\": null, \"agreement\": \"no-cpuid\",\n"
        "     \"cycles\": {\"min\": 200, \"p10\": 210, \"p50\": 220, \"p90\": 240},\n"
        "     \"ns\": {\"min\": 100, \"p10\": 105, \"p50\": 110, \"p90\": 120}}\n"
        "  ],\n"
        "  \"bucket_upper_bounds\": {\"cycles\": [9.2, 58.0], \"ns\": [4.6, 29.0]},\n"
        "  \"flags\": [\"noisy\"]\n"
        "}\n";

/* Each case replaces the first occurrence of `from` in base with `to` (from NULL: the whole
 * document is `to`; to NULL with cut > 0: base truncated to cut bytes). */
static const struct {
        const char     *name;
        const char     *from, *to;
        size_t          cut;
        enum pmucal_err want;
        const char     *msg;   /* must appear in the error message */
} cases[] = {
        /* name                 from                           to                     cut want msg */
        { "valid", "", "", 0, PMUCAL_OK, NULL },
        { "unknown fields", "\"flags\"", "\"c2c_next\": {\"levels\": [1, 2]}, \"future\": 1, \"flags\"", 0,
          PMUCAL_OK, NULL },
        { "minor version", "table/1\"", "table/1.7\"", 0, PMUCAL_OK, NULL },
        { "empty", NULL, "", 0, PMUCAL_E_SYNTAX, "t.json:" },
        { "whitespace", NULL, "  \n \n", 0, PMUCAL_E_SYNTAX, "t.json:3:" },
        { "truncated", NULL, NULL, 700, PMUCAL_E_SYNTAX, "t.json:13:27: premature end of input" },
        { "truncated early", NULL, NULL, 30, PMUCAL_E_SYNTAX, "t.json:2:" },
        { "garbage", NULL, "{\"schema\": pmucal}", 0, PMUCAL_E_SYNTAX, "t.json:1:" },
        { "trailing comma", "\"noisy\"]", "\"noisy\",]", 0, PMUCAL_E_SYNTAX, "t.json:24:21: unexpected token" },
        { "duplicate key", "\"nodes\": 2", "\"nodes\": 2, \"nodes\": 3", 0, PMUCAL_E_SYNTAX,
          "duplicate" },
        { "top-level array", NULL, "[1, 2]", 0, PMUCAL_E_KIND, "top level is an array" },
        { "no schema", "\"schema\"", "\"schemo\"", 0, PMUCAL_E_KIND, "no \"schema\"" },
        { "other schema", "latency-table/1", "inventory/1", 0, PMUCAL_E_KIND,
          "not a pmucal latency table" },
        { "major version 2", "table/1\"", "table/2\"", 0, PMUCAL_E_VERSION,
          "major version 2 is not supported (this library reads 1)" },
        { "major version 10", "table/1\"", "table/10\"", 0, PMUCAL_E_VERSION, "major version 10" },
        { "no version", "table/1\"", "table/\"", 0, PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        /* the one version rule: MAJOR or MAJOR.MINOR, decimal without leading zeros */
        { "minor 0", "table/1\"", "table/1.0\"", 0, PMUCAL_OK, NULL },
        { "minor 12", "table/1\"", "table/1.12\"", 0, PMUCAL_OK, NULL },
        { "version 1.", "table/1\"", "table/1.\"", 0, PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version 01", "table/1\"", "table/01\"", 0, PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version 1.-1", "table/1\"", "table/1.-1\"", 0, PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version 1x", "table/1\"", "table/1x\"", 0, PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version 1.01", "table/1\"", "table/1.01\"", 0, PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version 1.1.1", "table/1\"", "table/1.1.1\"", 0, PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version +1", "table/1\"", "table/+1\"", 0, PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "schema not string", "\"pmucal.latency-table/1\"", "1", 0, PMUCAL_E_KIND, "schema" },
        { "family string", "\"family\": 6", "\"family\": \"6\"", 0, PMUCAL_E_SCHEMA,
          "t.json: machine.family: expected an integer, got a string" },
        { "model missing", "\"model\": 143, ", "", 0, PMUCAL_E_SCHEMA, "machine.model: missing" },
        { "machine missing", "\"machine\"", "\"machina\"", 0, PMUCAL_E_SCHEMA, "machine: missing" },
        { "machine array", "\"machine\": {", "\"machine\": [], \"x\": {", 0, PMUCAL_E_SCHEMA,
          "machine: expected an object" },
        { "stepping too big", "\"stepping\": 8", "\"stepping\": 300", 0, PMUCAL_E_SCHEMA,
          "machine.stepping: 300 out of range" },
        { "microcode not hex", "\"0x2b000181\"", "\"2b000181\"", 0, PMUCAL_E_SCHEMA,
          "machine.microcode" },
        { "windows real", "\"windows\": 11", "\"windows\": 11.5", 0, PMUCAL_E_SCHEMA,
          "method.windows: expected an integer, got a number" },
        { "clock null", "\"clock\": \"tsc\"", "\"clock\": null", 0, PMUCAL_E_SCHEMA,
          "method.clock: expected a string, got null" },
        { "levels object", "\"levels\": [", "\"levels\": {}, \"x\": [", 0, PMUCAL_E_SCHEMA,
          "levels: expected an array, got an object" },
        { "levels empty", "\"levels\": [", "\"levels\": [], \"x\": [", 0, PMUCAL_E_SCHEMA,
          "levels: 0 levels" },
        { "p50 missing", "\"p50\": 16, ", "", 0, PMUCAL_E_SCHEMA, "levels[1].cycles.p50: missing" },
        { "p90 string", "\"p90\": 240}", "\"p90\": \"240\"}", 0, PMUCAL_E_SCHEMA,
          "levels[2].cycles.p90: expected a number, got a string" },
        { "p90 below p50", "\"p90\": 17}", "\"p90\": 15.9}", 0, PMUCAL_E_SCHEMA,
          "levels[1].cycles.p90: 15.9 is below p50" },
        { "negative capacity", "\"capacity_bytes\": 49152", "\"capacity_bytes\": -1", 0,
          PMUCAL_E_SCHEMA, "levels[0].capacity_bytes: -1 out of range" },
        { "level not object", "{\"name\": \"L1\"", "7, {\"name\": \"L1\"", 0, PMUCAL_E_SCHEMA,
          "levels[0]: expected an object, got an integer" },
        { "name empty", "\"name\": \"L2\"", "\"name\": \"\"", 0, PMUCAL_E_SCHEMA, "levels[1].name: empty" },
        { "long name kept whole", "\"name\": \"L2\"", "\"name\": \"L2-with-a-much-longer-name-than-16-bytes\"", 0,
          PMUCAL_OK, NULL },
        { "name with a NUL", "\"name\": \"L2\"", "\"name\": \"L2\\u0000x\"", 0,
          PMUCAL_E_SYNTAX, "u0000 is not allowed" },
        { "levels not increasing", "\"p50\": 220", "\"p50\": 16", 0, PMUCAL_E_SCHEMA,
          "levels[2].cycles" },
        { "bounds count", "[9.2, 58.0]", "[9.2]", 0, PMUCAL_E_SCHEMA,
          "bucket_upper_bounds.cycles: 1 bounds for 3 levels (want 2)" },
        { "bound out of order", "[9.2, 58.0]", "[9.2, 5.0]", 0, PMUCAL_E_SCHEMA,
          "bucket_upper_bounds.cycles[1]: 5 is not between the medians of L2 (16) and DRAM (220)" },
        { "bound not number", "[9.2, 58.0]", "[9.2, true]", 0, PMUCAL_E_SCHEMA,
          "bucket_upper_bounds.cycles[1]: expected a number, got a boolean" },
        { "ns bounds wrong", "[4.6, 29.0]", "[4.6, 290.0]", 0, PMUCAL_E_SCHEMA,
          "bucket_upper_bounds.ns[1]" },
        { "bounds missing", "\"bucket_upper_bounds\"", "\"bucket_upper\"", 0, PMUCAL_E_SCHEMA,
          "bucket_upper_bounds: missing" },
        { "flags not strings", "[\"noisy\"]", "[1]", 0, PMUCAL_E_SCHEMA,
          "flags[0]: expected a string, got an integer" },
        { "huge number", "\"p90\": 240}", "\"p90\": 1e300}", 0, PMUCAL_E_SCHEMA, "out of range" },
};

/* The level of @p v in @p unit, or the error as a negative number below -10. */
static int lvl(const struct pmucal_table *t, double v, enum pmucal_unit unit)
{
        int             k = -99;
        enum pmucal_err e = pmucal_table_classify(t, v, unit, &k);
        return e == PMUCAL_OK ? k : -10 - (int)e;
}

static char *make_doc(size_t i, size_t *len)
{
        char *d;

        if (!cases[i].from && !cases[i].to) {
                d = strndup(base, cases[i].cut);
        } else if (!cases[i].from) {
                d = strdup(cases[i].to);
        } else {
                d = table_case_doc(base, cases[i].from, cases[i].to, len);
                assert_non_null(d);
        }
        *len = strlen(d);
        return d;
}

static void test_cases(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmucal_table *t = (void *)1;
                char                 err[512];
                size_t               len;
                char                *doc = make_doc(i, &len);
                enum pmucal_err      e   = pmucal_table_load_buf(doc, len, "t.json", &t, err, sizeof(err));

                if (e != cases[i].want || (cases[i].msg && !strstr(err, cases[i].msg)))
                        fail_msg("case \"%s\": got %d (%s) \"%s\", want %d \"%s\"", cases[i].name, e,
                                 pmucal_strerror(e), err, cases[i].want,
                                 cases[i].msg ? cases[i].msg : "");
                if (e == PMUCAL_OK) {
                        assert_non_null(t);
                        assert_int_equal(t->n_levels, 3);
                        assert_string_equal(t->levels[2].name, "DRAM");
                        if (!strcmp(cases[i].name, "long name kept whole"))
                                assert_string_equal(t->levels[1].name,
                                                    "L2-with-a-much-longer-name-than-16-bytes");
                        assert_int_equal(t->nodes, 2);
                        assert_int_equal(t->microcode, 0x2b000181);
                        assert_true(pmucal_table_has_flag(t, "noisy"));
                        assert_false(pmucal_table_has_flag(t, "no_hierarchy"));
                        /* classify: bounds are inclusive upper bounds */
                        assert_int_equal(lvl(t, 5.1, PMUCAL_UNIT_TABLE), 0);
                        assert_int_equal(lvl(t, 9.2, PMUCAL_UNIT_TABLE), 0);
                        assert_int_equal(lvl(t, 9.21, PMUCAL_UNIT_TABLE), 1);
                        assert_int_equal(lvl(t, 1e9, PMUCAL_UNIT_TABLE), 2);
                        assert_int_equal(lvl(t, 4.7, PMUCAL_UNIT_NS), 1);
                        assert_int_equal(lvl(t, 0.0 / 0.0, PMUCAL_UNIT_TABLE), -10 - PMUCAL_E_RANGE);
                        pmucal_table_free(t);
                } else {
                        assert_null(t);
                        assert_non_null(strstr(err, "t.json"));
                }
                free(doc);
        }
}

static void test_file(void **state)
{
        (void)state;
        char                 path[] = "/tmp/test_libpmucal_XXXXXX", err[512];
        struct pmucal_table *t;
        int                  fd = mkstemp(path);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, base, strlen(base) - 40), (ssize_t)strlen(base) - 40);
        close(fd);
        assert_int_equal(pmucal_table_load(path, &t, err, sizeof(err)), PMUCAL_E_SYNTAX);
        assert_ptr_equal(strstr(err, path), err); /* "path:line:col: ..." */
        if (!strstr(err, ":23:52: premature end of input"))
                fail_msg("%s", err);
        fd = open(path, O_WRONLY | O_TRUNC);
        assert_int_equal(write(fd, base, strlen(base)), (ssize_t)strlen(base));
        close(fd);
        assert_int_equal(pmucal_table_load(path, &t, err, sizeof(err)), PMUCAL_OK);
        assert_int_equal(t->n_levels, 3);
        pmucal_table_free(t);
        unlink(path);

        assert_int_equal(pmucal_table_load("/nonexistent/x.json", &t, err, sizeof(err)), PMUCAL_E_IO);
        assert_non_null(strstr(err, "/nonexistent/x.json: cannot open"));
        assert_null(t);
        /* directories open but cannot be read */
        assert_int_not_equal(pmucal_table_load("/tmp", &t, err, sizeof(err)), PMUCAL_OK);
}

static void test_args(void **state)
{
        (void)state;
        struct pmucal_table *t;
        char                 small[8];

        assert_int_equal(pmucal_table_load(NULL, &t, NULL, 0), PMUCAL_E_ARG);
        assert_int_equal(pmucal_table_load_buf(base, strlen(base), NULL, NULL, NULL, 0), PMUCAL_E_ARG);
        assert_int_equal(pmucal_table_load_buf(NULL, 5, "x", &t, NULL, 0), PMUCAL_E_ARG);
        /* no error buffer, and a tiny one: no overflow, still NUL-terminated */
        assert_int_equal(pmucal_table_load_buf("{", 1, "x", &t, NULL, 0), PMUCAL_E_SYNTAX);
        assert_int_equal(pmucal_table_load_buf("{\"schema\": 1}", 13, "a-long-name.json", &t, small,
                                               sizeof(small)), PMUCAL_E_KIND);
        assert_int_equal(strlen(small), sizeof(small) - 1);
        /* not NUL-terminated input of the given length */
        assert_int_equal(pmucal_table_load_buf(base, strlen(base), "x", &t, NULL, 0), PMUCAL_OK);
        pmucal_table_free(t);
        pmucal_table_free(NULL);
        assert_int_equal(lvl(NULL, 1, PMUCAL_UNIT_TABLE), -10 - PMUCAL_E_ARG);
        assert_false(pmucal_table_has_flag(NULL, "noisy"));
        assert_string_equal(pmucal_strerror(PMUCAL_E_VERSION), "unsupported schema version");
        assert_string_equal(pmucal_strerror((enum pmucal_err)99), "unknown error");
}

/* ---- TLB section (pmucal.tlb/1) ---- */

#define TLB_CLASSES                                                                              \
        "[{\"class\":\"l1_hit\",\"lat_mcyc\":3000,\"added_mcyc\":0,\"upper_added_mcyc\":3000,"  \
        "\"first_pages\":4,\"last_pages\":64},"                                                 \
        "{\"class\":\"l2_hit\",\"lat_mcyc\":9000,\"added_mcyc\":6000,\"upper_added_mcyc\":16000," \
        "\"first_pages\":76,\"last_pages\":2048},"                                              \
        "{\"class\":\"walk\",\"lat_mcyc\":29000,\"added_mcyc\":26000,\"upper_added_mcyc\":null," \
        "\"first_pages\":3444,\"last_pages\":8192}]"
#define TLB_CURVE(side, page, pte, classes)                                                      \
        "{\"side\":\"" side "\",\"page_bytes\":" page ",\"pte\":\"" pte "\",\"levels\":"          \
        "[{\"level\":1,\"entries\":64}],\"classes\":" classes "}"
#define TLB_DOC(schema, curves) "{\"schema\":\"" schema "\",\"units\":\"mcyc\",\"curves\":[" curves "]}"

static const struct tlb_case {
        const char     *name, *json;
        enum pmucal_err want;
        const char     *err; /* substring of the message */
} tlb_cases[] = {
        { "good", TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "near", TLB_CLASSES)),
          PMUCAL_OK, "" },
        { "latency table with a tlb section",
          "{\"schema\":\"pmucal.latency-table/1\",\"tlb\":"
          TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "near", TLB_CLASSES)) "}",
          PMUCAL_OK, "" },
        { "major 2", TLB_DOC("pmucal.tlb/2", ""), PMUCAL_E_VERSION,
          "major version 2 is not supported (this library reads 1)" },
        { "minor 1", TLB_DOC("pmucal.tlb/1.1", TLB_CURVE("dtlb", "4096", "near", TLB_CLASSES)),
          PMUCAL_OK, "" },
        { "version 01", TLB_DOC("pmucal.tlb/01", ""), PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version 1.", TLB_DOC("pmucal.tlb/1.", ""), PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version 1.-1", TLB_DOC("pmucal.tlb/1.-1", ""), PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version 1x", TLB_DOC("pmucal.tlb/1x", ""), PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "version  1", TLB_DOC("pmucal.tlb/ 1", ""), PMUCAL_E_VERSION, "not MAJOR or MAJOR.MINOR" },
        { "other schema", TLB_DOC("pmucal.latency-table/1", ""), PMUCAL_E_KIND,
          "not a pmucal TLB table" },
        { "no schema", "{\"curves\":[]}", PMUCAL_E_KIND, "schema missing" },
        { "tlb not an object", "{\"schema\":\"pmucal.latency-table/1\",\"tlb\":3}",
          PMUCAL_E_SCHEMA, "tlb: expected an object" },
        { "syntax", "{\"schema\":", PMUCAL_E_SYNTAX, "x:1:" },
        { "top level array", "[]", PMUCAL_E_KIND, "top level" },
        { "curves not array", "{\"schema\":\"pmucal.tlb/1\",\"units\":\"mcyc\",\"curves\":{}}", PMUCAL_E_SCHEMA,
          "curves: missing or not an array" },
        { "bad side", TLB_DOC("pmucal.tlb/1", TLB_CURVE("ptlb", "4096", "near", "[]")),
          PMUCAL_E_SCHEMA, "curves[0].side: \"ptlb\" is not dtlb or itlb" },
        { "bad page size", TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "8192", "near", "[]")),
          PMUCAL_E_SCHEMA, "page_bytes: 8192" },
        { "page size a string",
          TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "\"4k\"", "near", "[]")),
          PMUCAL_E_SCHEMA, "curves[0].page_bytes: expected an integer, got a string" },
        { "bad pte", TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "far", "[]")),
          PMUCAL_E_SCHEMA, "pte: \"far\"" },
        { "unknown class",
          TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "near",
                  "[{\"class\":\"l3_hit\",\"lat_mcyc\":1,\"added_mcyc\":0,"
                  "\"upper_added_mcyc\":null,\"first_pages\":1,\"last_pages\":2}]")),
          PMUCAL_E_SCHEMA, "curves[0].classes[0].class: \"l3_hit\" is not l1_hit, l2_hit, walk or miss" },
        { "negative latency",
          TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "near",
                  "[{\"class\":\"walk\",\"lat_mcyc\":-1,\"added_mcyc\":0,"
                  "\"upper_added_mcyc\":null,\"first_pages\":1,\"last_pages\":2}]")),
          PMUCAL_E_SCHEMA, "classes[0].lat_mcyc: -1 is negative" },
        { "missing field",
          TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "near",
                  "[{\"class\":\"walk\",\"lat_mcyc\":1,\"added_mcyc\":0,"
                  "\"upper_added_mcyc\":null,\"first_pages\":1}]")),
          PMUCAL_E_SCHEMA, "last_pages: missing" },
        { "null upper not last",
          TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "near",
                  "[{\"class\":\"l1_hit\",\"lat_mcyc\":1,\"added_mcyc\":0,"
                  "\"upper_added_mcyc\":null,\"first_pages\":1,\"last_pages\":2},"
                  "{\"class\":\"walk\",\"lat_mcyc\":9,\"added_mcyc\":8,"
                  "\"upper_added_mcyc\":null,\"first_pages\":3,\"last_pages\":4}]")),
          PMUCAL_E_SCHEMA, "null exactly for the last class" },
        { "classes not ascending",
          TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "near",
                  "[{\"class\":\"l1_hit\",\"lat_mcyc\":1,\"added_mcyc\":5,"
                  "\"upper_added_mcyc\":6,\"first_pages\":1,\"last_pages\":2},"
                  "{\"class\":\"walk\",\"lat_mcyc\":9,\"added_mcyc\":4,"
                  "\"upper_added_mcyc\":null,\"first_pages\":3,\"last_pages\":4}]")),
          PMUCAL_E_SCHEMA, "below the class before it" },
};

static void test_tlb_cases(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(tlb_cases) / sizeof(tlb_cases[0]); i++) {
                struct pmucal_tlb *t = NULL;
                char               err[512];
                enum pmucal_err    e = pmucal_tlb_load_buf(tlb_cases[i].json, strlen(tlb_cases[i].json),
                                                           "x", &t, err, sizeof(err));
                if (e != tlb_cases[i].want || !strstr(err, tlb_cases[i].err))
                        fail_msg("%s: got %d \"%s\", want %d with \"%s\"", tlb_cases[i].name, e, err,
                                 tlb_cases[i].want, tlb_cases[i].err);
                assert_true((t != NULL) == (e == PMUCAL_OK));
                pmucal_tlb_free(t);
        }
}

static void test_tlb_classify(void **state)
{
        static const struct {
                const char *side;
                uint64_t    page;
                double      added;
                const char *want; /* NULL: no class */
        } tcases[] = {
                { "dtlb", 4096, 0, "l1_hit" },        { "dtlb", 4096, 3.0, "l1_hit" },
                { "dtlb", 4096, 3.001, "l2_hit" },    { "dtlb", 4096, 16, "l2_hit" },
                { "dtlb", 4096, 16.5, "walk" },       { "dtlb", 4096, 1e9, "walk" },
                { "dtlb", 4096, -1, NULL },           { "dtlb", 2097152, 5, NULL },
                { "itlb", 4096, 5, NULL },            { "dtlb", 4096, 0.0 / 0.0, NULL },
        };
        const char *doc = TLB_DOC("pmucal.tlb/1", TLB_CURVE("dtlb", "4096", "line", "[]") ","
                                  TLB_CURVE("dtlb", "4096", "near", TLB_CLASSES));
        struct pmucal_tlb *t;
        (void)state;
        assert_int_equal(pmucal_tlb_load_buf(doc, strlen(doc), "x", &t, NULL, 0), PMUCAL_OK);
        assert_int_equal(t->n_curves, 2);
        const struct pmucal_tlb_curve *cv = NULL;
        assert_int_equal(pmucal_tlb_find_curve(t, PMUCAL_TLB_DTLB, 4096, &cv), PMUCAL_OK);
        assert_string_equal(cv->pte_name, "near"); /* not "line" */
        for (size_t i = 0; i < sizeof(tcases) / sizeof(tcases[0]); i++) {
                const struct pmucal_tlb_class *k = NULL;
                enum pmucal_tlb_side           side;
                assert_int_equal(pmucal_tlb_side_parse(tcases[i].side, &side), PMUCAL_OK);
                enum pmucal_err e = pmucal_tlb_classify(t, side, tcases[i].page, tcases[i].added,
                                                        PMUCAL_UNIT_TSC, &k);
                if (!tcases[i].want)
                        assert_int_not_equal(e, PMUCAL_OK);
                else if (e != PMUCAL_OK || strcmp(k->name, tcases[i].want))
                        fail_msg("%s %llu %.3f: got %d %s, want %s", tcases[i].side,
                                 (unsigned long long)tcases[i].page, tcases[i].added, e,
                                 k ? k->name : "NULL", tcases[i].want);
        }
        const struct pmucal_tlb_class *k;
        assert_int_equal(pmucal_tlb_classify(NULL, PMUCAL_TLB_DTLB, 4096, 1, PMUCAL_UNIT_TSC, &k),
                         PMUCAL_E_ARG);
        assert_int_equal(pmucal_tlb_find_curve(t, PMUCAL_TLB_ITLB, 4096, &cv), PMUCAL_E_NO_CURVE);
        pmucal_tlb_free(t);
        pmucal_tlb_free(NULL);
        assert_int_equal(pmucal_tlb_load_buf(NULL, 1, "x", &t, NULL, 0), PMUCAL_E_ARG);
        assert_int_equal(pmucal_tlb_load("/nonexistent/tlb.json", &t, NULL, 0), PMUCAL_E_IO);
}

/* Oracle: what the firmware's writer (tlb_json_write) emits, the library reads back. */
static void test_tlb_roundtrip(void **state)
{
        struct tlb_result r = {
                .side = TLB_SIDE_DATA, .pte = TLB_PTE_NEAR, .page_bytes = 2 << 20, .n_points = 9,
                .max_n = 256, .n_plat = 3, .n_lvl = 2,
                .plat = { { .first_n = 4, .last_n = 64, .lat_mcyc = 3100, .cls = TLB_CLASS_L1_HIT },
                          { .first_n = 76, .last_n = 91, .lat_mcyc = 9000, .added_mcyc = 5900,
                            .cls = TLB_CLASS_L2_HIT },
                          { .first_n = 99, .last_n = 256, .lat_mcyc = 40000, .added_mcyc = 36900,
                            .cls = TLB_CLASS_WALK } },
                .lvl = { { .entries = 64, .next_n = 76 }, { .entries = 91, .next_n = 99 } },
        };
        struct rep_buf     b = { 0 };
        struct json_w      w;
        struct pmucal_tlb *t;
        char               err[256];
        (void)state;
        json_init(&w, &b);
        tlb_json_write(&w, NULL, &r, 1, NULL);
        assert_int_equal(json_finish(&w), ST_OK);
        assert_int_equal(pmucal_tlb_load_buf(b.p, b.len, "rt", &t, err, sizeof(err)), PMUCAL_OK);
        const struct pmucal_tlb_curve *c = NULL;
        const struct pmucal_tlb_class *k = NULL;
        assert_int_equal(pmucal_tlb_find_curve(t, PMUCAL_TLB_DTLB, 2 << 20, &c), PMUCAL_OK);
        assert_int_equal(c->n_classes, 3);
        assert_int_equal(c->n_levels, 2);
        assert_int_equal(c->level_entries[1], 91);
        assert_true(c->classes[1].added_cycles == 5.9);
        assert_true(c->classes[0].upper_added_cycles == 2.95); /* midway to the next class */
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 2 << 20, 30, PMUCAL_UNIT_TSC, &k),
                         PMUCAL_OK);
        assert_string_equal(k->name, "walk");
        assert_int_equal(pmucal_tlb_classify(t, PMUCAL_TLB_DTLB, 2 << 20, 3, PMUCAL_UNIT_TSC, &k),
                         PMUCAL_OK);
        assert_string_equal(k->name, "l2_hit");
        pmucal_tlb_free(t);
        rep_buf_free(&b);
}

/* --dump-cases DIR: write every document above to DIR (lat-NN.json, tlb-NN.json) and an index
 * DIR/cases.tsv (file, loader, 1 if it must load else 0, case name), so that other readers
 * (python/tests) are checked against the very same documents. */
static char *lat_case(size_t i, size_t *len, bool *ok, const char **name)
{
        *ok   = cases[i].want == PMUCAL_OK;
        *name = cases[i].name;
        return make_doc(i, len);
}

static char *tlb_case(size_t i, size_t *len, bool *ok, const char **name)
{
        *ok   = tlb_cases[i].want == PMUCAL_OK;
        *name = tlb_cases[i].name;
        *len  = strlen(tlb_cases[i].json);
        return strdup(tlb_cases[i].json);
}

static int dump_cases(const char *dir)
{
        const struct table_case_set sets[] = {
                { "lat", "latency", sizeof(cases) / sizeof(cases[0]), lat_case },
                { "tlb", "tlb", sizeof(tlb_cases) / sizeof(tlb_cases[0]), tlb_case },
        };
        return table_cases_dump(dir, "cases.tsv", sets, 2);
}

int main(int argc, char **argv)
{
        if (argc == 3 && !strcmp(argv[1], "--dump-cases"))
                return dump_cases(argv[2]);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cases),
                cmocka_unit_test(test_file),
                cmocka_unit_test(test_args),
                cmocka_unit_test(test_tlb_cases),
                cmocka_unit_test(test_tlb_classify),
                cmocka_unit_test(test_tlb_roundtrip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
