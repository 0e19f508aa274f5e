/** @file Unit tests for report/lattable.c: JSON round trip through libpmucal, CSV, console
 * table and ASCII plot. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "host/include/pmucal/table.h"
#include "report/lattable.h"

static struct lat_point pts[LAT_MAX_POINTS];

/* A 4-level curve: L1 4 cyc to 32K, L2 14 to 1M, L3 50 to 32M, DRAM 300 (with small wobble). */
static size_t make_curve(struct lat_curve *c, uint64_t core_hz, bool flat)
{
        size_t n = 0;
        for (unsigned k = 0; k < 61; k++) {
                double ws = exp2(12 + k / 4.0), lat;
                if (flat)
                        lat = 90;
                else
                        lat = ws <= 32768 ? 4 : ws <= 1048576 ? 14 : ws <= 33554432 ? 50 : 300;
                lat *= 1 + 0.01 * ((k * 7) % 5) / 4.0;
                pts[n++] = (struct lat_point){ .ws_bytes = (uint64_t)ws, .n_windows = 11,
                                               .n_disturbed = k % 3, .min_mcyc = (uint64_t)(lat * 970),
                                               .p10_mcyc = (uint64_t)(lat * 980),
                                               .p50_mcyc = (uint64_t)(lat * 1000),
                                               .p90_mcyc = (uint64_t)(lat * 1030) };
        }
        *c = (struct lat_curve){ .pts = pts, .n = n, .clock = LAT_CLOCK_PMU_CYCLES,
                                 .core_hz = core_hz, .tsc_hz = 2600000000ull };
        return n;
}

static void cpu_caches(struct cpu_info *cpu)
{
        memset(cpu, 0, sizeof(*cpu));
        memcpy(cpu->vendor_str, "AuthenticAMD", 13);
        strcpy(cpu->brand, "AMD EPYC \"test\" \\ 9654");
        cpu->family = 0x19, cpu->model = 0x11, cpu->stepping = 1, cpu->hypervisor = true;
        cpu->caches[0] = (struct cpu_cache){ .level = 1, .type = CACHE_DATA, .size_bytes = 32 * KiB };
        cpu->caches[1] = (struct cpu_cache){ .level = 2, .type = CACHE_UNIFIED, .size_bytes = 1 * MiB };
        cpu->caches[2] = (struct cpu_cache){ .level = 3, .type = CACHE_UNIFIED, .size_bytes = 32 * MiB };
        cpu->n_caches  = 3;
}

static void write_tlb(struct json_w *w, void *ctx)
{
        json_obj_begin(w, "tlb");
        json_u64(w, "entries", *(uint64_t *)ctx);
        json_obj_end(w);
}

static const struct {
        const char *name;
        uint64_t    core_hz;
        bool        flat, with_cpu, microcode, extra;
} rt_cases[] = {
        { "4 levels, 3.7 GHz, CPUID", 3700000000ull, false, true, true, false },
        { "4 levels, no core clock", 0, false, true, false, false },
        { "4 levels, no CPUID, extra tlb section", 2000000000ull, false, false, false, true },
        { "flat (TCG)", 1000000000ull, true, true, false, false },
};

static void close_to(double got, uint64_t milli)
{
        assert_true(fabs(got - milli / 1000.0) < 0.0006);
}

/* The library's view of each level is what rep_lat_json() was given (ns only with a clock). */
static void assert_levels_match(const struct pmucal_table *t, const struct lat_levels *l,
                                uint64_t core_hz)
{
        for (size_t k = 0; k < l->n; k++) {
                const struct pmucal_level *tl = &t->levels[k];
                assert_string_equal(tl->name, l->lv[k].name);
                assert_int_equal(tl->capacity_bytes, l->lv[k].capacity_bytes);
                assert_int_equal(tl->cpuid_capacity_bytes, l->lv[k].cpuid_capacity_bytes);
                assert_int_equal(tl->cpuid_level, l->lv[k].cpuid_level);
                assert_string_equal(tl->agreement, lv_agree_name(l->lv[k].agreement));
                close_to(tl->cycles.min, l->lv[k].lat_mcyc.min);
                close_to(tl->cycles.p10, l->lv[k].lat_mcyc.p10);
                close_to(tl->cycles.p50, l->lv[k].lat_mcyc.p50);
                close_to(tl->cycles.p90, l->lv[k].lat_mcyc.p90);
                assert_int_equal(tl->has_ns, core_hz != 0);
                if (tl->has_ns)
                        close_to(tl->ns.p50, l->lv[k].lat_ps.p50);
                assert_int_equal(tl->has_upper, k + 1 < l->n);
                if (k + 1 < l->n)
                        close_to(tl->upper_cycles, l->bound_mcyc[k]);
        }
}

/* The flags read back, and the library classifies latencies as the firmware does. */
static void assert_classify_match(const struct pmucal_table *t, const struct lat_levels *l,
                                  uint64_t core_hz)
{
        for (unsigned bit = 0; bit < 64; bit++)
                if (lv_flag_name(BIT_ULL(bit)))
                        assert_int_equal(pmucal_table_has_flag(t, lv_flag_name(BIT_ULL(bit))),
                                         !!(l->flags & BIT_ULL(bit)));
        /* Oracle: the library classifies like lv_classify, except that above the
         * ceiling of a last level that is not DRAM it says "beyond". */
        for (uint64_t v = 1000; v < 2000000; v = v * 21 / 20 + 1) {
                int                        want = (int)lv_classify(l, v), got = -99;
                const struct pmucal_level *last = &t->levels[l->n - 1];
                assert_int_equal(pmucal_table_classify(t, v / 1000.0, PMUCAL_UNIT_TABLE, &got),
                                 PMUCAL_OK);
                if (got == PMUCAL_LEVEL_BEYOND)
                        assert_true(want == (int)l->n - 1 && last->has_ceiling &&
                                    v / 1000.0 > last->ceiling_cycles);
                else
                        assert_int_equal(got, want);
        }
        int k = -99;
        if (core_hz) {
                assert_int_equal(pmucal_table_classify(t, 1e6, PMUCAL_UNIT_NS, &k), PMUCAL_OK);
                assert_true(k == (int)l->n - 1 || k == PMUCAL_LEVEL_BEYOND);
        } else {
                assert_int_equal(pmucal_table_classify(t, 1.0, PMUCAL_UNIT_NS, &k), PMUCAL_E_NO_RATIO);
        }
}

static void test_round_trip(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(rt_cases) / sizeof(rt_cases[0]); i++) {
                struct lat_curve      c;
                struct lat_levels     l;
                struct cpu_info       cpu;
                struct rep_buf        b = { 0 };
                struct pmucal_table  *t;
                char                  err[256];
                uint64_t              tlb = 1536;
                struct lat_json_section sec = { write_tlb, &tlb };
                struct lat_table_meta m = { .kernel = "pointer-chase", .layout = "random",
                                            .page_bytes = 4096, .n_windows = 11,
                                            .loads_per_window = 16384, .clock = LAT_CLOCK_PMU_CYCLES,
                                            .prefetchers = "off", .pmucal_version = "test",
                                            .smbios_product = "KVM", .n_nodes = 1,
                                            .microcode_valid = rt_cases[i].microcode,
                                            .microcode = 0xa101148 };

                cpu_caches(&cpu);
                make_curve(&c, rt_cases[i].core_hz, rt_cases[i].flat);
                m.tsc_hz  = c.tsc_hz;
                rep_lat_meta_from_cpu(&m, &cpu);
                assert_int_equal(lv_detect(&c, rt_cases[i].with_cpu ? &cpu : NULL, &l), ST_OK);
                assert_int_equal(l.n, rt_cases[i].flat ? 1 : 4);
                assert_int_equal(rep_lat_json(&b, &m, &c, &l, rt_cases[i].extra ? &sec : NULL,
                                              rt_cases[i].extra), ST_OK);
                if (pmucal_table_load_buf(b.p, b.len, rt_cases[i].name, &t, err, sizeof(err)) != PMUCAL_OK)
                        fail_msg("%s: %s\n%s", rt_cases[i].name, err, b.p);
                assert_string_equal(t->schema, LAT_TABLE_SCHEMA);
                assert_string_equal(t->vendor, "AuthenticAMD");
                assert_string_equal(t->brand, cpu.brand);
                assert_int_equal(t->family, 0x19);
                assert_int_equal(t->model, 0x11);
                assert_int_equal(t->stepping, 1);
                assert_int_equal(t->has_microcode, rt_cases[i].microcode);
                if (rt_cases[i].microcode)
                        assert_int_equal(t->microcode, 0xa101148);
                assert_int_equal(t->core_hz, rt_cases[i].core_hz);
                assert_int_equal(t->tsc_hz, 2600000000ull);
                assert_string_equal(t->smbios_product, "KVM");
                assert_null(t->smbios_manufacturer); /* null in the file */
                assert_int_equal(t->nodes, 1);
                assert_string_equal(t->clock, "pmu-core-cycles");
                assert_string_equal(t->prefetchers, "off");
                assert_int_equal(t->page_bytes, 4096);
                assert_int_equal(t->windows, 11);
                assert_int_equal(t->n_levels, l.n);
                assert_levels_match(t, &l, rt_cases[i].core_hz);
                assert_classify_match(t, &l, rt_cases[i].core_hz);
                if (rt_cases[i].extra)
                        assert_non_null(strstr(b.p, "\"entries\": 1536"));
                pmucal_table_free(t);
                rep_buf_free(&b);
        }
}

/* latency-curve.csv of a TSC curve: ticks and ns from the TSC; core cycles and the ratio only
 * where the point measured one, empty otherwise (never the tick figure again). */
static void test_csv(void **state)
{
        (void)state;
        struct lat_curve c;
        struct rep_buf   b = { 0 };
        size_t           n = make_curve(&c, 0, false), lines = 0;
        char            *s, *save = NULL;

        c.clock  = LAT_CLOCK_TSC;
        c.tsc_hz = 2500000000ull;
        for (int with_core = 0; with_core <= 1; with_core++) {
                for (size_t i = 0; i < n; i++)
                        pts[i].core_ppm = with_core ? 2000000 : 0;
                lines = 0;
                assert_int_equal(rep_lat_csv(&b, &c), ST_OK);
                for (s = strtok_r(b.p, "\n", &save); s; s = strtok_r(NULL, "\n", &save), lines++) {
                        unsigned long long v[7];
                        double             tick, ns, core, ratio;
                        int                used = 0;
                        if (lines == 0) {
                                assert_string_equal(s, LAT_CSV_HEADER);
                                continue;
                        }
                        assert_int_equal(sscanf(s, "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%lf,%lf,%n",
                                                &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                                                &tick, &ns, &used), 9);
                        const struct lat_point *p = &pts[lines - 1];
                        assert_int_equal(v[0], p->ws_bytes);
                        assert_int_equal(v[2], p->n_disturbed);
                        assert_int_equal(v[5], p->p50_mcyc);
                        close_to(tick, p->p50_mcyc);
                        assert_true(fabs(ns - p->p50_mcyc / 2500.0) < 0.0006); /* 2.5 GHz TSC */
                        if (with_core) {
                                assert_int_equal(sscanf(s + used, "%lf,%lf", &core, &ratio), 2);
                                close_to(core, 2 * p->p50_mcyc);
                                assert_true(fabs(ratio - 2.0) < 1e-9);
                        } else {
                                assert_true(!strncmp(s + used, ",,", 2)); /* core, ratio empty */
                        }
                }
                assert_int_equal(lines, n + 1);
                rep_buf_free(&b);
        }

        c.tsc_hz = 0; /* ns column empty too */
        for (size_t i = 0; i < n; i++)
                pts[i].core_ppm = 0;
        assert_int_equal(rep_lat_csv(&b, &c), ST_OK);
        assert_non_null(strstr(b.p, ",4.000,,,,"));
        rep_buf_free(&b);
        c.clock = LAT_CLOCK_PMU_CYCLES; /* a core-cycle curve says so in its header */
        assert_int_equal(rep_lat_csv(&b, &c), ST_OK);
        assert_true(!strncmp(b.p, LAT_CSV_HEADER_CORE, strlen(LAT_CSV_HEADER_CORE)));
        rep_buf_free(&b);
        assert_int_equal(rep_lat_csv(NULL, &c), ST_BAD_ARG);
        assert_int_equal(rep_lat_csv(&b, NULL), ST_BAD_ARG);
}

static void test_text_and_plot(void **state)
{
        (void)state;
        for (int flat = 0; flat <= 1; flat++) {
                struct lat_curve  c;
                struct lat_levels l;
                struct rep_buf    b = { 0 };
                unsigned          rows = 0, stars = 0;

                make_curve(&c, 3000000000ull, flat);
                assert_int_equal(lv_detect(&c, NULL, &l), ST_OK);
                assert_int_equal(rep_lat_levels_text(&b, &c, &l), ST_OK);
                for (size_t k = 0; k < l.n; k++)
                        assert_non_null(strstr(b.p, l.lv[k].name));
                if (flat)
                        assert_non_null(strstr(b.p, "no_hierarchy"));
                rep_buf_free(&b);

                assert_int_equal(rep_lat_plot(&b, &c, &l), ST_OK);
                for (char *s = b.p, *e; *s; s = e + 1) {
                        e = strchr(s, '\n');
                        assert_non_null(e);
                        assert_true(e - s <= 96); /* fits a serial console */
                        if (e - s > 9 && s[8] == '|')
                                rows++;
                        for (char *q = s; q < e; q++)
                                stars += *q == '*';
                }
                assert_int_equal(rows, LAT_PLOT_H);
                assert_true(stars >= 20); /* p50 marks: one per distinct cell, many points */
                assert_non_null(strstr(b.p, "1M"));
                for (size_t k = 0; k < l.n; k++)
                        assert_non_null(strstr(b.p, l.lv[k].name));
                rep_buf_free(&b);
                assert_int_equal(rep_lat_plot(&b, &c, NULL), ST_OK); /* curve only */
                rep_buf_free(&b);
        }
}

/* method.date is UTC with "Z"; date_zone says how that was known. */
static void test_date_utc(void **state)
{
        static const struct {
                struct plat_time t;
                const char      *want, *zone;
        } cases[] = {
                { { 2026, 11, 23, 8, 15, 0, true, PLAT_ZONE_UTC, 0 }, "2026-11-23T08:15:00Z", "utc" },
                { { 2026, 11, 23, 8, 15, 7, true, PLAT_ZONE_UNKNOWN, 0 }, "2026-11-23T08:15:07Z",
                  "assumed-utc" },
                /* local = UTC + offset: 00:30 at UTC+1 is 23:30 UTC the day (and year) before */
                { { 2027, 1, 1, 0, 30, 0, true, PLAT_ZONE_OFFSET, 60 }, "2026-12-31T23:30:00Z",
                  "firmware-offset" },
                { { 2024, 2, 28, 22, 0, 0, true, PLAT_ZONE_OFFSET, -480 }, "2024-02-29T06:00:00Z",
                  "firmware-offset" },
                { { 2026, 11, 23, 8, 15, 0, false, PLAT_ZONE_UTC, 0 }, "", NULL },
                { { 2026, 13, 23, 8, 15, 0, true, PLAT_ZONE_UTC, 0 }, "", NULL },
                { { 2026, 11, 23, 8, 15, 0, true, PLAT_ZONE_OFFSET, 2047 }, "", NULL },
        };
        char buf[32];
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *zone = rep_lat_date_utc(&cases[i].t, buf, sizeof(buf));
                assert_string_equal(buf, cases[i].want);
                if (cases[i].zone)
                        assert_string_equal(zone, cases[i].zone);
                else
                        assert_null(zone);
        }
        assert_null(rep_lat_date_utc(&cases[0].t, buf, 20)); /* too small for the 21 bytes */
        assert_null(rep_lat_date_utc(NULL, buf, sizeof(buf)));
}

static void test_bad_args(void **state)
{
        (void)state;
        struct lat_curve      c;
        struct lat_levels     l = { 0 };
        struct lat_table_meta m = { 0 };
        struct rep_buf        b = { 0 };

        make_curve(&c, 1, false);
        assert_int_equal(rep_lat_json(&b, &m, &c, &l, NULL, 0), ST_BAD_ARG); /* no levels */
        assert_int_equal(rep_lat_json(NULL, &m, &c, &l, NULL, 0), ST_BAD_ARG);
        assert_int_equal(rep_lat_json(&b, NULL, &c, &l, NULL, 0), ST_BAD_ARG);
        assert_int_equal(lv_detect(&c, NULL, &l), ST_OK);
        assert_int_equal(rep_lat_json(&b, &m, &c, &l, NULL, 1), ST_BAD_ARG);
        assert_int_equal(rep_lat_plot(&b, NULL, &l), ST_BAD_ARG);
        c.n = 0;
        assert_int_equal(rep_lat_plot(&b, &c, &l), ST_BAD_ARG);
        assert_int_equal(rep_lat_levels_text(&b, NULL, &l), ST_BAD_ARG);
        assert_null(b.p);
        assert_string_equal(rep_lat_clock_name(LAT_CLOCK_TSC), "tsc");
        assert_string_equal(rep_lat_clock_name((enum lat_clock)42), "unknown");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_csv),
                cmocka_unit_test(test_text_and_plot),
                cmocka_unit_test(test_date_utc),
                cmocka_unit_test(test_bad_args),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
