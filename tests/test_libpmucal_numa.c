/** @file Unit tests for libpmucal's bucket classifier (host/libpmucal_numa_classify.c) on the
 *  corpus tables: a quick-profile table (last level L3, flag no_dram) with DRAM levels keeps
 *  its cache levels and puts DRAM after them, agreeing with pmucal_table_classify on every
 *  level below DRAM; the one fallback rule for a source whose section a table lacks; distinct
 *  errors for an unknown source and a missing bucket; the unit-explicit entry points.
 *  Run from the repository root (the corpus is tests/corpus/table/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/include/pmucal/numa.h"
#include "host/include/pmucal/source.h"

#include <stdlib.h>

#define CORPUS "tests/corpus/table/"

static struct pmucal_table *t;
static struct pmucal_numa  *nm;

static void load(const char *name)
{
        char path[256], err[512];

        snprintf(path, sizeof(path), CORPUS "%s", name);
        if (pmucal_table_load(path, &t, err, sizeof(err)) != PMUCAL_OK ||
            pmucal_numa_load(path, &nm, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
}

static void unload(void)
{
        pmucal_table_free(t);
        pmucal_numa_free(nm);
        t  = NULL;
        nm = NULL;
}

/* { source (NULL: by latency), ns, result, bucket, fit } */
struct bcase {
        const char     *source;
        double          ns;
        enum pmucal_err want;
        const char     *bucket;
        enum pmucal_fit fit;
};

static void run_cases(const struct bcase *c, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                struct pmucal_match m = { 0 };
                enum pmucal_err     e = c[i].source
                                                ? pmucal_numa_classify_source_ns(t, nm, c[i].source, c[i].ns, &m)
                                                : pmucal_numa_classify_ns(t, nm, c[i].ns, &m);
                if (e != c[i].want)
                        fail_msg("case %zu (%s %g): %s, want %s", i, c[i].source ? c[i].source : "-",
                                 c[i].ns, pmucal_strerror(e), pmucal_strerror(c[i].want));
                if (e == PMUCAL_OK && (strcmp(m.bucket, c[i].bucket) || m.fit != c[i].fit))
                        fail_msg("case %zu (%s %g): %s fit %d, want %s fit %d", i,
                                 c[i].source ? c[i].source : "-", c[i].ns, m.bucket, m.fit,
                                 c[i].bucket, c[i].fit);
        }
}

/* quick-numa.json: numa-c2c.json's levels up to L3 (ns p50 1.34, 4.69, 16.75; bounds 2.518,
 * 8.904; L3 p90 17.338, so its ceiling is 1.3 x 17.338 = 22.54) with flag no_dram, and its
 * DRAM levels (local p50 100, upper 126.445; 1hop p50 153, upper 191.897; 2hop p50 224.4). */
static void test_quick_profile_keeps_caches(void **state)
{
        static const struct bcase c[] = {
                { NULL, 1.0, PMUCAL_OK, "L1", PMUCAL_FITS },
                { NULL, 2.518, PMUCAL_OK, "L1", PMUCAL_FITS },      /* bounds are inclusive */
                { NULL, 5.0, PMUCAL_OK, "L2", PMUCAL_FITS },
                { NULL, 16.75, PMUCAL_OK, "L3", PMUCAL_FITS },      /* the last cache stays */
                { NULL, 22.5, PMUCAL_OK, "L3", PMUCAL_FITS },
                { NULL, 22.6, PMUCAL_OK, "DRAM-local", PMUCAL_FASTER },
                { NULL, 100.0, PMUCAL_OK, "DRAM-local", PMUCAL_FITS },
                { NULL, 153.0, PMUCAL_OK, "DRAM-remote-1hop", PMUCAL_FITS },
                { NULL, 224.4, PMUCAL_OK, "DRAM-remote-2hop", PMUCAL_FITS },
                { "L3", 16.0, PMUCAL_OK, "L3", PMUCAL_FITS },
                { "dram-local", 100.0, PMUCAL_OK, "DRAM-local", PMUCAL_FITS },
                { "DRAM", 100.0, PMUCAL_E_NO_BUCKET, NULL, 0 },     /* no DRAM level */
                { "L4", 100.0, PMUCAL_E_NO_BUCKET, NULL, 0 },
                { "lfb", 50.0, PMUCAL_OK, "LFB", PMUCAL_FITS },
                { "l3", 16.0, PMUCAL_E_UNKNOWN_SOURCE, NULL, 0 },   /* names are case-sensitive */
                { "dram-remote-0hop", 1.0, PMUCAL_E_UNKNOWN_SOURCE, NULL, 0 },
                { "c2c-same-l3-hitmm", 1.0, PMUCAL_E_UNKNOWN_SOURCE, NULL, 0 },
                { "c2c-near-hitm", 1.0, PMUCAL_E_UNKNOWN_SOURCE, NULL, 0 },
                { "c2c-same-module-hit", 1.0, PMUCAL_E_NO_BUCKET, NULL, 0 }, /* none measured */
        };
        (void)state;
        load("quick-numa.json");
        assert_true(nm->has_numa);
        run_cases(c, sizeof(c) / sizeof(c[0]));
        unload();
}

/* Every latency pmucal_table_classify puts below DRAM gets the same level by latency. */
static void test_agrees_with_table_classify(void **state)
{
        static const char *const files[] = { "quick-numa.json", "numa-c2c.json", "zen4-kvm.json",
                                             "flat-tcg.json", "core-sets.json" };
        (void)state;
        for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
                load(files[f]);
                for (double ns = 0; ns < 400; ns = ns * 1.01 + 0.01) {
                        struct pmucal_match m;
                        int                 lvl;
                        if (pmucal_table_classify(t, ns, PMUCAL_UNIT_NS, &lvl) != PMUCAL_OK)
                                fail_msg("%s %g", files[f], ns);
                        assert_int_equal(pmucal_numa_classify_ns(t, nm, ns, &m), PMUCAL_OK);
                        if (lvl >= 0 && (size_t)lvl + 1 < t->n_levels)
                                assert_string_equal(m.bucket, t->levels[lvl].name);
                        else if (lvl >= 0 && t->levels[lvl].has_ceiling)
                                assert_string_equal(m.bucket, t->levels[lvl].name);
                        else if (lvl == PMUCAL_LEVEL_BEYOND && !nm->has_numa)
                                assert_string_equal(m.bucket, PMUCAL_BUCKET_BEYOND);
                        else if (nm->has_numa)
                                assert_memory_equal(m.bucket, "DRAM-", 5);
                        else
                                assert_string_equal(m.bucket, t->levels[t->n_levels - 1].name);
                }
                unload();
        }
}

/* zen4-kvm.json has no "numa" and no "c2c": DRAM and C2C sources by latency alone. */
static void test_fallback_without_sections(void **state)
{
        static const struct bcase c[] = {
                { "dram-local", 80.0, PMUCAL_OK, "DRAM", PMUCAL_FITS },
                { "dram", 80.0, PMUCAL_OK, "DRAM", PMUCAL_FITS },
                { "dram-remote", 200.0, PMUCAL_OK, "DRAM", PMUCAL_FITS },
                { "DRAM-remote-2hop", 200.0, PMUCAL_OK, "DRAM", PMUCAL_FITS },
                { "c2c-remote-hitm", 200.0, PMUCAL_OK, "DRAM", PMUCAL_FITS },
                { "c2c-any-any", 1.0, PMUCAL_OK, "L1", PMUCAL_FITS },
                { "DRAM", 80.0, PMUCAL_OK, "DRAM", PMUCAL_FITS },
                { "L4", 80.0, PMUCAL_E_NO_BUCKET, NULL, 0 },
                { "dram-far", 80.0, PMUCAL_E_UNKNOWN_SOURCE, NULL, 0 },
                { "dram-local", -1, PMUCAL_E_RANGE, NULL, 0 },
                { "dram-typo", -1, PMUCAL_E_UNKNOWN_SOURCE, NULL, 0 }, /* the name comes first */
        };
        (void)state;
        load("zen4-kvm.json");
        assert_false(nm->has_numa || nm->has_c2c);
        run_cases(c, sizeof(c) / sizeof(c[0]));
        unload();
        /* flat-tcg.json: one level with a ceiling; above it "beyond" */
        load("flat-tcg.json");
        {
                struct pmucal_match m;
                assert_int_equal(pmucal_numa_classify_ns(t, nm, 1e6, &m), PMUCAL_OK);
                assert_string_equal(m.bucket, "beyond");
                assert_int_equal(m.fit, PMUCAL_SLOWER);
                assert_int_equal(pmucal_numa_classify_source_ns(t, nm, "dram", 1e6, &m), PMUCAL_OK);
                assert_string_equal(m.bucket, "beyond");
        }
        unload();
}

/* numa-c2c.json (clock pmu-core-cycles, core 3 GHz, TSC 2 GHz): units are explicit. */
static void test_units(void **state)
{
        struct pmucal_match m;
        (void)state;
        load("numa-c2c.json");
        assert_int_equal(pmucal_numa_classify(t, nm, 450.0, PMUCAL_UNIT_CORE, &m), PMUCAL_OK);
        assert_string_equal(m.bucket, "DRAM-remote-1hop");           /* 150 ns */
        assert_int_equal(pmucal_numa_classify(t, nm, 300.0, PMUCAL_UNIT_TSC, &m), PMUCAL_OK);
        assert_string_equal(m.bucket, "DRAM-remote-1hop");           /* 150 ns */
        assert_int_equal(pmucal_numa_classify(t, nm, 150.0, PMUCAL_UNIT_NS, &m), PMUCAL_OK);
        assert_string_equal(m.bucket, "DRAM-remote-1hop");
        assert_int_equal(pmucal_numa_classify(t, nm, 1, (enum pmucal_unit)9, &m), PMUCAL_E_ARG);
        assert_int_equal(pmucal_numa_classify(t, nm, NAN, PMUCAL_UNIT_NS, &m), PMUCAL_E_RANGE);
        assert_int_equal(pmucal_numa_classify(t, nm, INFINITY, PMUCAL_UNIT_CORE, &m), PMUCAL_E_RANGE);
        assert_int_equal(pmucal_numa_classify_source(t, nm, "c2c-remote-hitm", 540.0,
                                                     PMUCAL_UNIT_CORE, &m), PMUCAL_OK);
        assert_string_equal(m.bucket, "c2c-other-package-hitm");
        assert_int_equal(pmucal_numa_classify_source(t, nm, "nope", 1, PMUCAL_UNIT_CORE, &m),
                         PMUCAL_E_UNKNOWN_SOURCE);
        assert_int_equal(pmucal_numa_classify_source(t, nm, "c2c-smt-hitm", 1, PMUCAL_UNIT_CORE, &m),
                         PMUCAL_E_NO_BUCKET);
        unload();
        /* a TSC table without a core clock cannot take core cycles */
        load("zen4-kvm.json");
        assert_int_equal(pmucal_numa_classify(t, nm, 100, PMUCAL_UNIT_CORE, &m), PMUCAL_E_NO_RATIO);
        assert_int_equal(pmucal_numa_classify(t, nm, 100, PMUCAL_UNIT_TSC, &m), PMUCAL_OK);
        unload();
}

/* The core clock: a counter's ratio, an add-chain estimate (schema 1.5), a caller's override. */
static void test_core_ratio(void **state)
{
        static const char est[] =
                "\"method\": {\"core_clock\": {\"source\": null, \"core_per_tsc\": null, "
                "\"reason\": \"no counter\", \"estimate\": {\"method\": \"dependent-add chain\", "
                "\"core_per_tsc\": 1.5, \"core_per_tsc_min\": 1.25, \"core_per_tsc_max\": 2}},";
        char                 buf[1 << 16], doc[(1 << 16) + 512], err[256];
        FILE                *f = fopen(CORPUS "zen4-kvm.json", "rb");
        size_t               len;
        const char          *m;
        struct pmucal_table *e;
        double               v;
        int                  lvl;
        (void)state;

        assert_non_null(f);
        len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = '\0';
        assert_non_null(m = strstr(buf, "\"method\": {"));
        snprintf(doc, sizeof(doc), "%.*s%s%s", (int)(m - buf), buf, est, m + strlen("\"method\": {"));
        if (pmucal_table_load_buf(doc, strlen(doc), "est.json", &e, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
        assert_true(e->has_core_ratio && e->core_ratio_estimated && !e->core_ratio_override);
        assert_string_equal(e->core_ratio_source, "dependent-add chain");
        assert_true(e->core_per_tsc == 1.5 && e->core_per_tsc_min == 1.25 && e->core_per_tsc_max == 2);
        assert_int_equal(pmucal_table_convert(e, 150, PMUCAL_UNIT_CORE, PMUCAL_UNIT_TSC, &v), PMUCAL_OK);
        assert_true(fabs(v - 100) < 1e-9);
        /* TSC bounds 5.306, 20.167, 120.551 times 1.5: 7.959, 30.25, 180.83 */
        assert_int_equal(pmucal_table_classify(e, 7.95, PMUCAL_UNIT_CORE, &lvl), PMUCAL_OK);
        assert_int_equal(lvl, 0);
        assert_int_equal(pmucal_table_classify(e, 7.97, PMUCAL_UNIT_CORE, &lvl), PMUCAL_OK);
        assert_int_equal(lvl, 1);
        pmucal_table_free(e);

        /* no ratio: core cycles are refused until the caller gives one */
        load("zen4-kvm.json");
        assert_false(t->has_core_ratio);
        assert_null(t->core_ratio_source);
        assert_int_equal(pmucal_table_classify(t, 10, PMUCAL_UNIT_CORE, &lvl), PMUCAL_E_NO_RATIO);
        assert_int_equal(pmucal_table_set_core_ratio(t, 0), PMUCAL_E_RANGE);
        assert_int_equal(pmucal_table_set_core_ratio(t, NAN), PMUCAL_E_RANGE);
        assert_int_equal(pmucal_table_set_core_ratio(t, -2), PMUCAL_E_RANGE);
        assert_int_equal(pmucal_table_set_core_ratio(NULL, 2), PMUCAL_E_ARG);
        assert_int_equal(pmucal_table_set_core_ratio(t, 2.0), PMUCAL_OK);
        assert_string_equal(t->core_ratio_source, PMUCAL_CORE_RATIO_OVERRIDE);
        assert_int_equal(pmucal_table_classify(t, 10.6, PMUCAL_UNIT_CORE, &lvl), PMUCAL_OK);
        assert_int_equal(lvl, 0);                                   /* 5.306 x 2 = 10.612 */
        assert_int_equal(pmucal_table_classify(t, 10.7, PMUCAL_UNIT_CORE, &lvl), PMUCAL_OK);
        assert_int_equal(lvl, 1);
        unload();

        /* a counter's ratio (numa-c2c.json: clock pmu-core-cycles, core_clock 1.5) */
        load("numa-c2c.json");
        assert_true(t->has_core_ratio && !t->core_ratio_estimated);
        assert_string_equal(t->core_ratio_source, "pmu-core-cycles");
        assert_true(t->core_per_tsc == 1.5);
        /* an override replaces the table's own core bounds: TSC bound 5.037 x 2 */
        assert_int_equal(pmucal_table_set_core_ratio(t, 2.0), PMUCAL_OK);
        assert_int_equal(pmucal_table_classify(t, 10.0, PMUCAL_UNIT_CORE, &lvl), PMUCAL_OK);
        assert_int_equal(lvl, 0);
        unload();
}

/* The C2C pair matrix in TSC ticks: a 1.6 table names it matrix_p50_tsc_ticks beside the 1.x
 * matrix_p50_tsc, same values; the reader takes the unit-named one where the file has it and
 * the 1.x name in older tables (numa-c2c.json, 1.3: hitm row 0 column 1 is 100.000). The 1.6
 * variant's unit-named matrix carries other figures than its 1.x one, so that reading the wrong
 * member shows. */
static void test_c2c_matrix_tsc_ticks(void **state)
{
        static const char ticks[] =
                "\"matrix_p50_tsc_ticks\": {\"hit\": [[null, 1, 2], [3, null, 4], [5, 6, null]], "
                "\"hitm\": [[null, 123.500, 7], [8, null, 9], [10, 11, null]], "
                "\"write\": [[null, 1, 2], [3, null, 4], [5, 6, null]]},\n";
        char        path[256], err[512], *doc, *out, *at;
        FILE       *f;
        long        n;

        (void)state;
        load("numa-c2c.json");
        assert_int_equal(nm->n_c2c_cpus, 3);
        assert_true(fabs(nm->c2c_hitm_tsc[0 * 3 + 1] - 100.0) < 0.0006);
        assert_true(fabs(nm->c2c_hitm_tsc[2 * 3 + 1] - 355.0) < 0.0006);
        unload();

        snprintf(path, sizeof(path), CORPUS "%s", "numa-c2c.json");
        assert_non_null(f = fopen(path, "rb"));
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        assert_true((n = ftell(f)) > 0);
        rewind(f);
        assert_non_null(doc = calloc(1, (size_t)n + 1));
        assert_int_equal(fread(doc, 1, (size_t)n, f), (size_t)n);
        fclose(f);
        assert_non_null(out = calloc(1, (size_t)n + sizeof(ticks)));
        assert_non_null(at = strstr(doc, "\"matrix_p50_tsc\""));
        memcpy(out, doc, (size_t)(at - doc));
        strcat(out, ticks);
        strcat(out, at);
        assert_non_null(at = strstr(out, "pmucal.latency-table/1.3"));
        at[sizeof("pmucal.latency-table/1.") - 1] = '6';
        assert_int_equal(pmucal_numa_load_buf(out, strlen(out), "t16.json", &nm, err, sizeof(err)),
                         PMUCAL_OK);
        assert_int_equal(nm->n_c2c_cpus, 3);
        assert_true(fabs(nm->c2c_hitm_tsc[0 * 3 + 1] - 123.5) < 0.0006);
        assert_true(fabs(nm->c2c_hitm_tsc[2 * 3 + 1] - 11.0) < 0.0006);
        assert_true(isnan(nm->c2c_hitm_tsc[1 * 3 + 1]));
        unload();
        free(out);
        free(doc);
}

/* ---- --diff: the C side of the Python reader's differential test ----------------------- */

static const char *const kind_name[] = {
        [PMUCAL_OK] = "ok", [PMUCAL_E_IO] = "io", [PMUCAL_E_SYNTAX] = "syntax",
        [PMUCAL_E_VERSION] = "version", [PMUCAL_E_SCHEMA] = "schema", [PMUCAL_E_NOMEM] = "nomem",
        [PMUCAL_E_ARG] = "arg", [PMUCAL_E_KIND] = "kind", [PMUCAL_E_RANGE] = "range",
        [PMUCAL_E_NO_RATIO] = "no_ratio", [PMUCAL_E_NO_CURVE] = "no_curve",
        [PMUCAL_E_UNKNOWN_SOURCE] = "unknown_source", [PMUCAL_E_NO_BUCKET] = "no_bucket",
};

static enum pmucal_unit unit_of(const char *s)
{
        for (int u = PMUCAL_UNIT_TABLE; u <= PMUCAL_UNIT_NS; u++)
                if (!strcmp(s, pmucal_unit_name((enum pmucal_unit)u)))
                        return (enum pmucal_unit)u;
        return (enum pmucal_unit)9;
}

static void put_match(enum pmucal_err e, const struct pmucal_match *m)
{
        static const char *const fit[] = { "fits", "faster", "slower" };

        if (e != PMUCAL_OK)
                printf("E %s\n", kind_name[e]);
        else
                printf("%s %s %.17g %.17g %.17g\n", m->bucket, fit[m->fit], m->lo_ns, m->hi_ns,
                       m->p50_ns);
}

/* One command per line on stdin, one answer per line on stdout:
 *   T PATH                  load a table (and its remote sections): "ok" or "E kind"
 *   C UNIT LATENCY          "LEVEL|E kind" and the bucket by latency
 *   S SOURCE UNIT LATENCY   the bucket of that source
 *   R RATIO                 pmucal_table_set_core_ratio
 *   P HEX                   pmucal_source_perf_data_src
 *   I HEX HEX FAMILY MODEL  pmucal_source_ibs_op (layout auto): source and DcMissLat */
static int diff_main(void)
{
        char line[4096], a[512], b[64], c[64], d[64];

        while (fgets(line, sizeof(line), stdin)) {
                struct pmucal_match m;
                enum pmucal_err     e;
                const char         *src;
                double              lat;
                int                 lvl;

                if (line[0] == 'T' && sscanf(line, "T %511s", a) == 1) {
                        char err[512];
                        unload();
                        e = pmucal_table_load(a, &t, err, sizeof(err));
                        if (e == PMUCAL_OK)
                                e = pmucal_numa_load(a, &nm, err, sizeof(err));
                        printf("%s\n", e == PMUCAL_OK ? "ok" : kind_name[e]);
                } else if (line[0] == 'C' && sscanf(line, "C %63s %63s", b, c) == 2) {
                        enum pmucal_unit u = unit_of(b);
                        double           v = strtod(c, NULL);
                        e = pmucal_table_classify(t, v, u, &lvl);
                        if (e == PMUCAL_OK)
                                printf("%d | ", lvl);
                        else
                                printf("E %s | ", kind_name[e]);
                        e = pmucal_numa_classify(t, nm, v, u, &m);
                        put_match(e, &m);
                } else if (line[0] == 'S' && sscanf(line, "S %511s %63s %63s", a, b, c) == 3) {
                        e = pmucal_numa_classify_source(t, nm, a, strtod(c, NULL), unit_of(b), &m);
                        put_match(e, &m);
                } else if (line[0] == 'R' && sscanf(line, "R %63s", b) == 1) {
                        e = pmucal_table_set_core_ratio(t, strtod(b, NULL));
                        printf("%s\n", kind_name[e]);
                } else if (line[0] == 'P' && sscanf(line, "P %63s", b) == 1) {
                        e = pmucal_source_perf_data_src(strtoull(b, NULL, 16), &src);
                        printf(e == PMUCAL_OK ? "%s\n" : "E unknown_source %s\n", src);
                } else if (line[0] == 'I' && sscanf(line, "I %63s %63s %63s %63s", a, b, c, d) == 4) {
                        e = pmucal_source_ibs_op(strtoull(a, NULL, 16), strtoull(b, NULL, 16),
                                                 (unsigned)strtoul(c, NULL, 0),
                                                 (unsigned)strtoul(d, NULL, 0),
                                                 PMUCAL_IBS_LAYOUT_AUTO, &src, &lat);
                        if (e == PMUCAL_OK)
                                printf("%s %.17g\n", src, lat);
                        else
                                printf("E unknown_source %s\n", src);
                } else {
                        printf("? %s", line);
                }
        }
        unload();
        return 0;
}

/* next-minor.json: numa-c2c.json as a later minor (1.9) could write it: new members at every
 * depth (a new top-level section, method, numa, dram_levels[], c2c.method, every class), a C2C
 * class of a new topology ("other-socket-via-cxl"), one of a new kind ("atomic"), and a
 * loaded-latency curve loaded in a new way ("remote nodes", its p90s ten times the idle p50).
 * A reader of today reads it: the known figures as numa-c2c.json has them, the new values as
 * "unknown" and counted, no bucket of them, the unknown curve in no load factor (1.8 as in
 * numa-c2c.json, not 10x). */
static void test_later_minor(void **state)
{
        static const struct bcase c[] = {
                { NULL, 152.0, PMUCAL_OK, "DRAM-remote-1hop", PMUCAL_FITS },
                { "c2c-remote-hitm", 176.5, PMUCAL_OK, "c2c-other-package-hitm", PMUCAL_FITS },
                /* 475 ns is the unknown class's median: no bucket of its own */
                { "c2c-any-hitm", 475.0, PMUCAL_OK, "c2c-other-package-hitm", PMUCAL_SLOWER },
                { "c2c-same-l3-any", 50.0, PMUCAL_OK, "c2c-same-l3-hitm", PMUCAL_FITS },
        };
        const struct pmucal_c2c_class *x;

        (void)state;
        load("next-minor.json");
        assert_int_equal(t->n_levels, 4);
        assert_int_equal(nm->n_dram, 3);
        assert_int_equal(pmucal_numa_c2c_count(nm), 8);
        x = pmucal_numa_c2c_class(nm, 6);
        assert_string_equal(x->topology, PMUCAL_UNKNOWN);
        assert_string_equal(x->kind, "hitm");
        x = pmucal_numa_c2c_class(nm, 7);
        assert_string_equal(x->topology, "same-l3");
        assert_string_equal(x->kind, PMUCAL_UNKNOWN);
        assert_null(pmucal_numa_c2c_class(nm, 8));
        assert_int_equal(nm->n_unknown, 3);
        assert_string_equal(nm->unknown_first, "loaded_latency[1].loaded: \"remote nodes\"");
        assert_int_equal(nm->n_curves, 1);
        assert_true(fabs(nm->load_factor - 1.8) < 1e-9);
        run_cases(c, sizeof(c) / sizeof(c[0]));
        unload();
}

/* A file's text with the first @p from replaced by @p to (caller frees). */
static char *edited(const char *name, const char *from, const char *to)
{
        char   path[256], *buf, *p, *out;
        FILE  *f;
        long   n;

        snprintf(path, sizeof(path), CORPUS "%s", name);
        assert_non_null(f = fopen(path, "rb"));
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        rewind(f);
        assert_non_null(buf = calloc(1, (size_t)n + 1));
        assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
        fclose(f);
        assert_non_null(p = strstr(buf, from));
        assert_non_null(out = malloc((size_t)n + strlen(to) + 1));
        sprintf(out, "%.*s%s%s", (int)(p - buf), buf, to, p + strlen(from));
        free(buf);
        return out;
}

/* The latency table's own open enums: a level's agreement and a level set's core_type of a
 * later minor read as unknown, counted and the first named, the rest of the table as before. */
static void test_table_unknown_values(void **state)
{
        struct pmucal_table *x;
        char                 err[256], *doc;

        (void)state;
        doc = edited("zen4-kvm.json", "\"agreement\": \"agrees\"", "\"agreement\": \"within-a-way\"");
        if (pmucal_table_load_buf(doc, strlen(doc), "a.json", &x, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
        assert_string_equal(x->levels[0].agreement, PMUCAL_UNKNOWN);
        assert_string_equal(x->levels[1].agreement, "agrees");
        assert_int_equal(x->n_unknown, 1);
        assert_string_equal(x->unknown_first, "levels[0].agreement: \"within-a-way\"");
        pmucal_table_free(x);
        free(doc);

        doc = edited("core-sets.json", "\"core_type\": \"atom\"", "\"core_type\": \"lp-e\"");
        if (pmucal_table_load_buf(doc, strlen(doc), "c.json", &x, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
        assert_int_equal(x->n_unknown, 1);
        assert_string_equal(x->core_sets[0].core_type, "core");
        assert_string_equal(x->core_sets[1].core_type, PMUCAL_UNKNOWN);
        assert_non_null(strstr(x->unknown_first, "].core_type: \"lp-e\""));
        pmucal_table_free(x);
        free(doc);

        /* not a string is still an error, with its path */
        doc = edited("zen4-kvm.json", "\"agreement\": \"agrees\"", "\"agreement\": 3");
        assert_int_equal(pmucal_table_load_buf(doc, strlen(doc), "a.json", &x, err, sizeof(err)),
                         PMUCAL_E_SCHEMA);
        assert_non_null(strstr(err, "levels[0].agreement: expected a string"));
        free(doc);
}

/* Sections beyond the fixed arrays of struct pmucal_numa (16 nodes, 8 DRAM levels, 17 curves
 * of 16 points): 20 nodes, 10 DRAM levels, 20 curves of 20 points load; the accessors see all
 * of it, the fixed arrays the first ones, and the load factor is the largest of every curve. */
static void test_numa_beyond_fixed_arrays(void **state)
{
        enum { NODES = 20, DRAM = 10, CURVES = 20, POINTS = 20 };
        struct pmucal_numa         *x;
        const struct pmucal_curve  *cv;
        char                        err[256], *doc = malloc(1 << 20), *p = doc;

        (void)state;
        assert_non_null(doc);
        p += sprintf(p, "{\"schema\": \"pmucal.latency-table/1.9\", \"numa\": {\"method\": "
                        "{\"emulated\": false}, \"n_nodes\": %d, \"matrix\": [", NODES);
        for (int i = 0; i < NODES; i++) {
                p += sprintf(p, "%s[", i ? "," : "");
                for (int j = 0; j < NODES; j++)
                        p += sprintf(p, "%s{\"cpu_node\": %d, \"measured\": %s, \"p50_ns\": %d}",
                                     j ? "," : "", 100 + i, i == j + 1 ? "false" : "true",
                                     1000 + 100 * i + j);
                p += sprintf(p, "]");
        }
        p += sprintf(p, "], \"dram_levels\": [");
        for (int k = 0; k < DRAM; k++)
                p += sprintf(p, "%s{\"name\": \"DRAM-remote-%dhop\", \"class\": %d, \"slit_distance\": "
                                "%d, \"n_cells\": 1, \"ns\": {\"min\": %d, \"p10\": %d, \"p50\": %d, "
                                "\"p90\": %d}, \"upper_ns\": %d, \"pairs\": []}",
                             k ? "," : "", k + 1, k, 10 + k, 100 + 50 * k, 101 + 50 * k,
                             102 + 50 * k, 103 + 50 * k, 120 + 50 * k);
        p += sprintf(p, "]}, \"loaded_latency\": [");
        for (int c = 0; c < CURVES; c++) {
                p += sprintf(p, "%s{\"loaded\": \"node\", \"node\": %d, \"points\": [", c ? "," : "", c);
                for (int q = 0; q < POINTS; q++)
                        p += sprintf(p, "%s{\"delay\": %s, \"measured\": true, \"bandwidth_gb_s\": %d, "
                                        "\"p10_ns\": 100, \"p50_ns\": %d, \"p90_ns\": %d}",
                                     q ? "," : "", q ? "1" : "null", q, q ? 150 : 100,
                                     q ? 150 + 10 * c + q : 110);
                p += sprintf(p, "]}");
        }
        sprintf(p, "]}");
        if (pmucal_numa_load_buf(doc, strlen(doc), "big.json", &x, err, sizeof(err)) != PMUCAL_OK)
                fail_msg("%s", err);
        assert_int_equal(pmucal_numa_node_count(x), NODES);
        assert_int_equal(pmucal_numa_node_pd(x, 19), 119);
        assert_int_equal(pmucal_numa_node_pd(x, NODES), UINT32_MAX);
        assert_true(pmucal_numa_matrix_ns(x, 19, 17) == 1000 + 1900 + 17);
        assert_true(isnan(pmucal_numa_matrix_ns(x, 19, 18)));  /* not measured */
        assert_true(isnan(pmucal_numa_matrix_ns(x, 0, NODES)));
        assert_int_equal(x->n_nodes, PMUCAL_NUMA_MAX_NODES);
        assert_true(x->p50_ns[15][3] == 1000 + 1500 + 3);
        assert_int_equal(x->node_pd[15], 115);
        assert_int_equal(pmucal_numa_dram_count(x), DRAM);
        assert_string_equal(pmucal_numa_dram_level(x, 9)->name, "DRAM-remote-10hop");
        assert_null(pmucal_numa_dram_level(x, DRAM));
        assert_int_equal(x->n_dram, PMUCAL_NUMA_MAX_LEVELS);
        assert_string_equal(x->dram[7].name, "DRAM-remote-8hop");
        assert_int_equal(pmucal_numa_curve_count(x), CURVES);
        assert_non_null(cv = pmucal_numa_curve(x, 19));
        assert_int_equal(cv->node, 19);
        assert_int_equal(cv->n_points, POINTS);
        assert_true(cv->pt[19].p90_ns == 150 + 190 + 19);
        assert_null(pmucal_numa_curve(x, CURVES));
        assert_int_equal(x->n_curves, PMUCAL_LOADED_MAX_CURVES);
        assert_int_equal(x->curve[16].n_points, PMUCAL_LOADED_MAX_POINTS);
        assert_true(x->curve[16].pt[15].p90_ns == 150 + 160 + 15);
        /* the load factor: curve 19's last point, 359 ns over its idle 100 */
        assert_true(fabs(x->load_factor - 3.59) < 1e-9);
        pmucal_numa_free(x);
        free(doc);
}

int main(int argc, char **argv)
{
        if (argc == 2 && !strcmp(argv[1], "--diff"))
                return diff_main();

        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_quick_profile_keeps_caches),
                cmocka_unit_test(test_agrees_with_table_classify),
                cmocka_unit_test(test_fallback_without_sections),
                cmocka_unit_test(test_units),
                cmocka_unit_test(test_core_ratio),
                cmocka_unit_test(test_later_minor),
                cmocka_unit_test(test_c2c_matrix_tsc_ticks),
                cmocka_unit_test(test_table_unknown_values),
                cmocka_unit_test(test_numa_beyond_fixed_arrays),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
