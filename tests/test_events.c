/** @file Tests for the generated event tables (build/events_gen.c) and pmu/events.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "pmu/events.h"

static void test_tables_well_formed(void **unused)
{
        assert_true(pmu_n_event_tables >= 10);
        for (size_t t = 0; t < pmu_n_event_tables; t++) {
                const struct pmu_event_table *tb = &pmu_event_tables[t];

                assert_non_null(tb->name);
                assert_true(strlen(tb->source) > 10);
                assert_true(strlen(tb->version) > 1);
                assert_true(tb->n_events > 0);
                for (size_t i = 0; i < tb->n_events; i++) {
                        const struct pmu_event_desc *e = &tb->events[i];

                        assert_true(e->umask <= 0xff);
                        if (tb->vendor == VEN_INTEL)
                                assert_true(e->code <= 0xff);
                        else if (tb->vendor == VEN_ARM) /* PMUv3 common event numbers */
                                assert_true(e->code < 0x40 ||
                                            (e->code >= 0x4000 && e->code < 0x4040));
                        else
                                assert_true(e->code <= 0xfff);
                        if (e->fixed >= 0) {
                                assert_int_equal(tb->vendor, VEN_INTEL);
                                assert_int_equal(e->code, 0);
                                assert_int_equal(e->umask, e->fixed + 1); /* pseudo-encoding */
                        }
                        for (size_t j = i + 1; j < tb->n_events; j++)
                                if (!strcasecmp(e->name, tb->events[j].name))
                                        fail_msg("%s: duplicate %s", tb->name, e->name);
                }
                for (size_t u = t + 1; u < pmu_n_event_tables; u++)
                        assert_string_not_equal(tb->name, pmu_event_tables[u].name);
        }
}

static void test_map_rows_point_to_tables(void **unused)
{
        assert_true(pmu_n_event_map > 0);
        for (size_t i = 0; i < pmu_n_event_map; i++) {
                const struct pmu_map_row *r = &pmu_event_map[i];

                assert_true(r->table < pmu_n_event_tables);
                assert_int_equal(r->vendor, pmu_event_tables[r->table].vendor);
                assert_true(r->model_lo <= r->model_hi);
        }
}

static void test_every_alias_resolves_or_says_why(void **unused)
{
        assert_int_equal(pmu_n_aliases, 9);
        for (size_t t = 0; t < pmu_n_event_tables; t++) {
                for (size_t a = 0; a < pmu_n_aliases; a++) {
                        const struct pmu_event_desc *ev = (void *)1;
                        const char                  *why = NULL;
                        status_t st = pmu_alias_resolve(&pmu_event_tables[t], pmu_alias_names[a],
                                                        &ev, &why);
                        if (st == ST_OK) {
                                assert_non_null(ev);
                                assert_true(ev >= pmu_event_tables[t].events &&
                                            ev < pmu_event_tables[t].events + pmu_event_tables[t].n_events);
                        } else {
                                assert_int_equal(st, ST_UNSUPPORTED);
                                assert_null(ev);
                                assert_non_null(why);
                                assert_true(strlen(why) > 0);
                        }
                }
        }
}

/* Oracle: the mapping a reader of mapfile.csv and the vendors' family/model lists expects. */
static void test_lookup_by_cpu(void **unused)
{
        static const struct {
                enum cpu_vendor v;
                uint32_t        fam, model;
                const char     *want; /* NULL: no table */
        } cases[] = {
                { VEN_INTEL, 6, 0x7e, "intel-icelake" }, { VEN_INTEL, 6, 0x7d, "intel-icelake" },
                /* perf mapfile.csv: GenuineIntel-6-(4E|5E|8E|9E|A5|A6) -> skylake */
                { VEN_INTEL, 6, 0x4e, "intel-skylake" }, { VEN_INTEL, 6, 0x5e, "intel-skylake" },
                { VEN_INTEL, 6, 0x8e, "intel-skylake" }, { VEN_INTEL, 6, 0x9e, "intel-skylake" },
                { VEN_INTEL, 6, 0xa5, "intel-skylake" }, { VEN_INTEL, 6, 0xa6, "intel-skylake" },
                { VEN_INTEL, 6, 0xa7, "intel-arch" },    /* Rocket Lake: perf's rocketlake */
                { VEN_INTEL, 6, 0x55, "intel-skylakex" },
                { VEN_INTEL, 6, 0x6a, "intel-icelakex" }, { VEN_INTEL, 6, 0x6c, "intel-icelakex" },
                { VEN_INTEL, 6, 0x6b, "intel-arch" },
                { VEN_INTEL, 6, 0x8f, "intel-sapphirerapids" },
                { VEN_INTEL, 6, 0xcf, "intel-arch" },    /* Emerald Rapids: perf's emeraldrapids */
                /* perf: GenuineIntel-6-(97|9A|B7|BA|BF) -> alderlake; 0xBE is alderlaken */
                { VEN_INTEL, 6, 0x97, "intel-alderlake" }, { VEN_INTEL, 6, 0x9a, "intel-alderlake" },
                { VEN_INTEL, 6, 0xb7, "intel-alderlake" }, { VEN_INTEL, 6, 0xba, "intel-alderlake" },
                { VEN_INTEL, 6, 0xbf, "intel-alderlake" }, { VEN_INTEL, 6, 0xbe, "intel-arch" },
                { VEN_INTEL, 6, 0x3c, "intel-arch" },    { VEN_INTEL, 0x13, 0x01, "intel-arch" },
                { VEN_INTEL, 0xf, 0x55, "intel-arch" },  /* the family is part of the row */
                { VEN_AMD, 0x19, 0x01, "amd-zen3" },     { VEN_AMD, 0x19, 0x21, "amd-zen3" },
                { VEN_AMD, 0x19, 0x5f, "amd-zen3" },     { VEN_AMD, 0x19, 0x11, "amd-zen4" },
                { VEN_AMD, 0x19, 0x61, "amd-zen4" },     { VEN_AMD, 0x19, 0xa0, "amd-zen4" },
                /* perf: AuthenticAMD-23-([12][0-9A-F]|[0-9A-F]) is amdzen1, the rest amdzen2 */
                { VEN_AMD, 0x17, 0x31, "amd-zen2" },     { VEN_AMD, 0x17, 0x30, "amd-zen2" },
                { VEN_AMD, 0x17, 0x71, "amd-zen2" },     { VEN_AMD, 0x17, 0xff, "amd-zen2" },
                { VEN_AMD, 0x17, 0x2f, NULL },           { VEN_AMD, 0x17, 0x01, NULL },
                { VEN_HYGON, 0x18, 0x01, NULL },         { VEN_UNKNOWN, 6, 0x7e, NULL },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct pmu_event_table *t = pmu_events_for(cases[i].v, cases[i].fam, cases[i].model);
                if (!cases[i].want) {
                        assert_null(t);
                        continue;
                }
                assert_non_null(t);
                assert_string_equal(t->name, cases[i].want);
        }
}

/* Codes that must match the vendor documents (Linux perf JSON; SDM architectural table). */
static void test_known_codes(void **unused)
{
        static const struct {
                const char *table, *alias;
                uint16_t    code;
                uint8_t     umask;
        } cases[] = {
                { "intel-arch", "cycles", 0x3c, 0x00 },      { "intel-arch", "insts", 0xc0, 0x00 },
                { "intel-arch", "branches", 0xc4, 0x00 },    { "intel-arch", "br-misses", 0xc5, 0x00 },
                { "intel-arch", "llc-misses", 0x2e, 0x41 },  { "intel-icelake", "dtlb-misses", 0x08, 0x0e },
                { "intel-icelake", "l2-misses", 0xd1, 0x10 }, { "amd-zen3", "l2-misses", 0x64, 0x08 },
                { "amd-zen4", "insts", 0xc0, 0x00 },         { "amd-zen4", "itlb-misses", 0x85, 0x0f },
                /* skylake/{cache,virtual-memory}.json */
                { "intel-skylake", "l1d-misses", 0xd1, 0x08 }, { "intel-skylake", "dtlb-misses", 0x08, 0x0e },
                { "intel-skylake", "itlb-misses", 0x85, 0x0e }, { "intel-skylake", "cycles", 0x3c, 0x00 },
                /* skylakex/cache.json, icelakex/cache.json */
                { "intel-skylakex", "llc-misses", 0xd1, 0x20 }, { "intel-skylakex", "br-misses", 0xc5, 0x00 },
                { "intel-icelakex", "l2-misses", 0xd1, 0x10 }, { "intel-icelakex", "dtlb-misses", 0x08, 0x0e },
                /* Golden Cove moved the TLB walk events: sapphirerapids and alderlake
                 * virtual-memory.json (cpu_core) give 0x12 and 0x11, not 0x08 and 0x85 */
                { "intel-sapphirerapids", "dtlb-misses", 0x12, 0x0e },
                { "intel-sapphirerapids", "itlb-misses", 0x11, 0x0e },
                { "intel-alderlake", "dtlb-misses", 0x12, 0x0e },
                { "intel-alderlake", "itlb-misses", 0x11, 0x0e },
                { "intel-alderlake", "insts", 0xc0, 0x00 },
                /* Arm PMUv3 common events (common-and-microarch.json) */
                { "arm-common", "cycles", 0x11, 0x00 },      { "arm-common", "insts", 0x08, 0x00 },
                { "arm-common", "branches", 0x21, 0x00 },    { "arm-common", "br-misses", 0x22, 0x00 },
                { "arm-common", "l1d-misses", 0x03, 0x00 },  { "arm-common", "dtlb-misses", 0x34, 0x00 },
                /* amdzen2/{recommended,memory}.json: Zen 2's umask differs from Zen 3's 0xe8 */
                { "amd-zen2", "l1d-misses", 0x60, 0xc8 },     { "amd-zen2", "llc-misses", 0x43, 0x08 },
                { "amd-zen2", "itlb-misses", 0x85, 0x07 },    { "amd-zen2", "cycles", 0x76, 0x00 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct pmu_event_desc *ev;
                const char                  *why;

                if (pmu_alias_resolve(pmu_events_table(cases[i].table), cases[i].alias, &ev,
                                      &why) != ST_OK)
                        fail_msg("%s %s does not resolve", cases[i].table, cases[i].alias);
                if (ev->code != cases[i].code || ev->umask != cases[i].umask)
                        fail_msg("%s %s: %s is 0x%x/0x%x, want 0x%x/0x%x", cases[i].table,
                                 cases[i].alias, ev->name, ev->code, ev->umask, cases[i].code,
                                 cases[i].umask);
        }
        const struct pmu_event_desc *p0 =
                pmu_event_find(pmu_events_table("amd-zen4"), "ls_not_halted_p0_cyc.p0_freq_cyc");
        assert_non_null(p0);
        assert_int_equal(p0->code, 0x120);
        const struct pmu_event_desc *fx = pmu_event_find(pmu_events_table("intel-arch"), "CPU_CLK_UNHALTED.REF_TSC");
        assert_non_null(fx);
        assert_int_equal(fx->fixed, 2);
}

/* The PEBS load-latency event: Linux tools/perf/pmu-events/arch/x86/icelake/memory.json at
 * 36ec807b627b (EventCode 0xcd, UMask 0x1; the threshold is MSR 0x3F6, not part of the code).
 * The architectural table must not carry it: the code differs on Nehalem and Atom cores. */
static void test_load_latency_event(void **unused)
{
        /* Same code in every Sandy Bridge-lineage perf directory read for these tables
         * (skylake, skylakex, icelakex, sapphirerapids memory.json; alderlake cpu_core). */
        static const char *const tables[] = {
                "intel-icelake", "intel-skylake", "intel-skylakex", "intel-icelakex",
                "intel-sapphirerapids", "intel-alderlake",
        };

        for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
                const struct pmu_event_desc *ev =
                        pmu_event_find(pmu_events_table(tables[i]), "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4");

                if (!ev)
                        fail_msg("%s has no MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", tables[i]);
                assert_int_equal(ev->code, 0xcd);
                assert_int_equal(ev->umask, 0x01);
                assert_int_equal(ev->cmask, 0);
                assert_false(ev->inv);
                assert_false(ev->edge);
                assert_int_equal(ev->fixed, -1);
        }
        assert_ptr_equal(pmu_events_for(VEN_INTEL, 6, 0x7e), pmu_events_table("intel-icelake"));
        assert_null(pmu_event_find(pmu_events_table("intel-arch"), "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4"));
}

/* A model-specific table exists to make every portable alias countable: only the generic
 * intel-arch table may answer "unsupported". Every Intel table also carries the two fixed
 * events the validation suite compares against a general counter (app/pmu_validate.c
 * fixed0-vs-gp and fixed1-vs-gp), with their fixed-counter pseudo-encodings. */
static void test_model_tables_complete(void **unused)
{
        size_t n_model = 0;

        for (size_t t = 0; t < pmu_n_event_tables; t++) {
                const struct pmu_event_table *tb = &pmu_event_tables[t];
                bool                          generic = !strcmp(tb->name, "intel-arch");

                for (size_t a = 0; a < pmu_n_aliases && !generic; a++) {
                        const struct pmu_event_desc *ev;
                        const char                  *why;

                        if (pmu_alias_resolve(tb, pmu_alias_names[a], &ev, &why) != ST_OK)
                                fail_msg("%s: alias %s unsupported (%s)", tb->name,
                                         pmu_alias_names[a], why);
                        assert_int_equal(ev->fixed, -1); /* aliases go on general counters */
                }
                n_model += !generic;
                if (tb->vendor != VEN_INTEL)
                        continue;
                const struct pmu_event_desc *f0 = pmu_event_find(tb, "INST_RETIRED.ANY");
                const struct pmu_event_desc *f1 = pmu_event_find(tb, "CPU_CLK_UNHALTED.THREAD");
                if (!f0 || !f1)
                        fail_msg("%s lacks a fixed event the validation suite uses", tb->name);
                assert_int_equal(f0->fixed, 0);
                assert_int_equal(f1->fixed, 1);
        }
        assert_true(n_model >= 9);
}

static void test_bad_arguments(void **unused)
{
        const struct pmu_event_desc *ev;
        const char                  *why;

        assert_null(pmu_events_table(NULL));
        assert_null(pmu_events_table("no-such"));
        assert_null(pmu_event_find(NULL, "x"));
        assert_null(pmu_event_find(pmu_events_table("amd-zen4"), NULL));
        assert_null(pmu_event_find(pmu_events_table("amd-zen4"), "EX_RET_INSTR")); /* exact */
        assert_int_equal(pmu_alias_index("no-such"), -1);
        assert_int_equal(pmu_alias_index(NULL), -1);
        assert_int_equal(pmu_alias_resolve(NULL, "cycles", &ev, &why), ST_UNSUPPORTED);
        assert_string_equal(why, "no event table for this CPU");
        assert_int_equal(pmu_alias_resolve(pmu_events_table("amd-zen4"), "bogus", &ev, &why), ST_NOT_FOUND);
        assert_int_equal(pmu_alias_resolve(pmu_events_table("amd-zen4"), NULL, &ev, &why), ST_BAD_ARG);
        assert_int_equal(pmu_alias_resolve(pmu_events_table("amd-zen4"), "cycles", NULL, &why), ST_BAD_ARG);
        assert_int_equal(pmu_alias_resolve(pmu_events_table("intel-arch"), "l1d-misses", &ev, &why),
                         ST_UNSUPPORTED);
        assert_non_null(strstr(why, "no architectural"));
}

/* The generator must fail the build on malformed data, naming the file and the reason. */
static int run_gen(const char *dir)
{
        char cmd[512];

        snprintf(cmd, sizeof(cmd), "python3 pmu/gen_events.py %s %s/out.c 2>%s/err.txt", dir, dir, dir);
        return system(cmd);
}

static void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void test_generator_rejects_bad_input(void **unused)
{
        static const char *aliases =
                "\"Aliases\": {\"cycles\": \"a\", \"insts\": \"a\", \"branches\": \"a\", "
                "\"br-misses\": \"a\", \"l1d-misses\": \"a\", \"l2-misses\": \"a\", "
                "\"llc-misses\": \"a\", \"dtlb-misses\": \"a\", \"itlb-misses\": {\"Unsupported\": \"x\"}}";
        static const struct {
                const char *events, *extra, *err;
                int         ok;
        } cases[] = {
                { "{\"EventName\": \"a\", \"EventCode\": \"0x10\"}", "", "", 1 },
                { "{\"EventName\": \"a\", \"EventCode\": \"0x10\"}, {\"EventName\": \"A\", \"EventCode\": \"0x11\"}",
                  "", "duplicate EventName", 0 },
                { "{\"EventName\": \"a\", \"EventCode\": \"0x10\", \"UMask\": \"0x100\"}", "", "UMask", 0 },
                { "{\"EventName\": \"a\", \"EventCode\": \"0x1000\"}", "", "EventCode", 0 },
                { "{\"EventName\": \"a\", \"EventCode\": \"zz\"}", "", "not a number", 0 },
                { "{\"EventName\": \"a\", \"EventCode\": \"0x10\", \"Bogus\": 1}", "", "unknown field", 0 },
                { "{\"EventName\": \"a\", \"EventCode\": \"0x10\"", "", "cannot parse JSON", 0 },
        };
        char dir[] = "/tmp/pmucal-genXXXXXX";

        assert_non_null(mkdtemp(dir));
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char path[256], doc[2048], err[512] = "";

                snprintf(doc, sizeof(doc),
                         "{\"Vendor\": \"AuthenticAMD\", \"Uarch\": \"t\", \"Source\": \"s\", "
                         "\"Version\": \"v\", \"Events\": [%s], %s}", cases[i].events, aliases);
                snprintf(path, sizeof(path), "%s/amd-t.json", dir);
                write_file(path, doc);
                snprintf(path, sizeof(path), "%s/mapfile.csv", dir);
                write_file(path, "Family-model,Version,Filename,EventType\nAuthenticAMD-25-*,v1,amd-t,core\n");
                int rc = run_gen(dir);
                snprintf(path, sizeof(path), "%s/err.txt", dir);
                FILE *f = fopen(path, "r");
                if (f) {
                        size_t n = fread(err, 1, sizeof(err) - 1, f);
                        err[n] = 0;
                        fclose(f);
                }
                if (cases[i].ok) {
                        assert_int_equal(rc, 0);
                } else {
                        assert_int_not_equal(rc, 0);
                        if (!strstr(err, cases[i].err) || !strstr(err, "amd-t.json"))
                                fail_msg("case %zu: stderr %s lacks '%s'", i, err, cases[i].err);
                }
        }
        /* A mapfile row naming a table that does not exist. */
        char path[256];
        snprintf(path, sizeof(path), "%s/mapfile.csv", dir);
        write_file(path, "Family-model,Version,Filename,EventType\nAuthenticAMD-25-*,v1,amd-nope,core\n");
        assert_int_not_equal(run_gen(dir), 0);
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_tables_well_formed),
                cmocka_unit_test(test_map_rows_point_to_tables),
                cmocka_unit_test(test_every_alias_resolves_or_says_why),
                cmocka_unit_test(test_lookup_by_cpu),
                cmocka_unit_test(test_known_codes),
                cmocka_unit_test(test_load_latency_event),
                cmocka_unit_test(test_model_tables_complete),
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_generator_rejects_bad_input),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
