/* Level sets per core type and cache domain: the grouping of a synthetic hybrid part (P-cores
 * and E-cores in one L3) and of two alike sockets (one set, calibrated once; "domains": one
 * each), a sweep whose windows run on a test-platform AP through the MP mailboxes (every point
 * measured there, none on the BSP), and a 1.4 table with core_types read back by libpmucal
 * (sets, APIC IDs, levels, the set of an APIC ID) and by pmucal-table's loader errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/cpus.h"
#include "app/latency_sets.h"
#include "bench/measure.h"
#include "report/inventory.h"
#include "boot/mp.h"
#include "host/include/pmucal/table.h"
#include "report/lattable.h"
#include "report/lattable_sets.h"
#include "tests/fake_plat.h"

#define LONG_US 5000000u
#define KB      1024ull
#define MB      (1024ull * 1024)

static struct lat_set_cpu cpu(unsigned idx, uint32_t apic, uint8_t type, uint64_t l2,
                              uint32_t domain)
{
        struct lat_set_cpu c = { .idx = idx, .is_bsp = idx == 0 };

        c.topo = (struct cpu_topology){ .apic_id = apic, .llc_domain = domain, .llc_level = 3,
                                        .hybrid = type != 0, .core_type = type,
                                        .cache_bytes = { type == 0x20 ? 32 * KB : 48 * KB, l2,
                                                         36 * MB } };
        return c;
}

/* Raptor-Lake-like: P-cores 0, 2 (2 MiB L2), E-cores 16..19 (4 MiB L2 per cluster), one L3.
 * The E-cores are listed first: the BSP's set still comes first. */
static void test_group_hybrid(void **state)
{
        struct lat_set_cpu cpus[6] = {
                cpu(2, 16, 0x20, 4 * MB, 0), cpu(3, 17, 0x20, 4 * MB, 0),
                cpu(0, 0, 0x40, 2 * MB, 0),  cpu(1, 2, 0x40, 2 * MB, 0),
                cpu(4, 19, 0x20, 4 * MB, 0), cpu(5, 18, 0x20, 4 * MB, 0),
        };
        static struct lat_sets s;
        (void)state;

        assert_int_equal(rep_lat_sets_group(cpus, 6, LAT_SETS_AUTO, &s), ST_OK);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.n_cpus, 6);
        assert_true(s.set[0].is_bsp_set);
        assert_string_equal(rep_lat_core_type_name(&s.set[0]), "core");
        assert_int_equal(s.set[0].n_cpus, 2);
        assert_int_equal(s.set[0].apic_ids[1], 2);
        assert_string_equal(rep_lat_core_type_name(&s.set[1]), "atom");
        assert_int_equal(s.set[1].n_cpus, 4);
        for (unsigned i = 0; i < 4; i++)
                assert_int_equal(s.set[1].apic_ids[i], 16 + i); /* ascending */
        assert_int_equal(s.set[1].measure_apic, 16);
        assert_int_equal(s.set[1].measure_idx, 2);
        assert_int_equal(s.set[1].cache_bytes[1], 4 * MB);
        assert_int_equal(s.set[1].n_domains, 1);
}

/* Two sockets alike (QEMU with several sockets): one set covering both L3 domains in auto
 * mode; one set per domain when asked; a third socket with a smaller L3 is its own set. */
static void test_group_domains(void **state)
{
        struct lat_set_cpu cpus[6];
        static struct lat_sets s;
        (void)state;

        for (unsigned i = 0; i < 4; i++)
                cpus[i] = cpu(i, i, 0, 1 * MB, i / 2);
        assert_int_equal(rep_lat_sets_group(cpus, 4, LAT_SETS_AUTO, &s), ST_OK);
        assert_int_equal(s.n, 1);
        assert_int_equal(s.set[0].n_cpus, 4);
        assert_int_equal(s.set[0].n_domains, 2);
        assert_int_equal(rep_lat_sets_group(cpus, 4, LAT_SETS_DOMAINS, &s), ST_OK);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.set[1].apic_ids[0], 2);
        assert_int_equal(s.set[1].measure_apic, 2);
        assert_null(rep_lat_core_type_name(&s.set[1]));
        cpus[4] = cpu(4, 4, 0, 1 * MB, 2);
        cpus[5] = cpu(5, 5, 0, 1 * MB, 2);
        cpus[4].topo.cache_bytes[2] = cpus[5].topo.cache_bytes[2] = 16 * MB;
        assert_int_equal(rep_lat_sets_group(cpus, 6, LAT_SETS_AUTO, &s), ST_OK);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.set[1].n_cpus, 2);
        assert_int_equal(s.set[1].cache_bytes[2], 16 * MB);
        assert_int_equal(rep_lat_sets_group(NULL, 1, LAT_SETS_AUTO, &s), ST_BAD_ARG);
}

/* Where each piece of a sweep ran. */
struct where {
        unsigned idx, n_on_ap, n_elsewhere;
};

struct wrapped {
        struct where *w;
        void (*fn)(void *);
        void *arg;
};

static void record(void *p)
{
        struct wrapped *x = p;

        if ((unsigned)fake_plat_this_cpu() == x->w->idx)
                x->w->n_on_ap++;
        else
                x->w->n_elsewhere++;
        x->fn(x->arg);
}

static status_t run_on(void *ctx, void (*fn)(void *), void *arg)
{
        struct where  *w = ctx;
        struct wrapped x = { w, fn, arg };

        return mp_run(w->idx, record, &x, LONG_US);
}

static void test_sweep_on_ap(void **state)
{
        static const struct plat_cpu cpus[2] = { { .apic_id = 0, .enabled = true, .is_bsp = true },
                                                 { .apic_id = 4, .enabled = true } };
        struct where            w   = { .idx = 1 };
        struct bench_sweep_cfg  cfg = { .profile = BENCH_PROFILE_QUICK,
                                        .layout = BENCH_LAYOUT_RANDOM, .page = PLAT_PAGE_4K,
                                        .repetitions = 11, .max_bytes = 64 * KB, .seed = 1,
                                        .run_on = run_on, .run_on_ctx = &w };
        struct cpu_info         ci  = { .vendor = VEN_AMD };
        struct lat_curve        c;
        struct bench_sweep_info info;
        (void)state;

        fake_plat_reset();
        fake_plat_set_cpus(cpus, 2);
        fake_plat_real_stall(true);
        assert_int_equal(mp_start(NULL, LONG_US, NULL), ST_OK);
        assert_int_equal(bench_sweep_run(&cfg, &ci, &c, &info), ST_OK);
        mp_stop(LONG_US);
        fake_plat_cpus_reset();
        assert_true(c.n >= 3);
        /* every point, the overhead figures and the prefetcher switch ran on the AP */
        assert_true(w.n_on_ap >= c.n + 2);
        assert_int_equal(w.n_elsewhere, 0);
        for (size_t i = 0; i < c.n; i++)
                assert_true(c.pts[i].p50_mcyc > 0);
        bench_sweep_free(&c);
}

/* The whole path on the test platform: three P-cores (BSP 0, 2, 4) and two E-cores (16, 17)
 * describe themselves in the cpus phase; the latency phase's level sets are then two, the
 * E-cores' measured on APIC ID 16 (a thread of the test platform) with levels of their own, and
 * the console says so. level_sets = off: none. */
static void test_measure_hybrid(void **state)
{
        static const struct plat_cpu cpus[5] = {
                { .apic_id = 0, .enabled = true, .is_bsp = true }, { .apic_id = 2, .enabled = true },
                { .apic_id = 16, .enabled = true }, { .apic_id = 4, .enabled = true },
                { .apic_id = 17, .enabled = true },
        };
        static struct inventory inv;
        static struct run       r;
        static struct lat_levels bsp;
        struct rep_buf          out = { 0 };
        struct bench_sweep_cfg  cfg = { .profile = BENCH_PROFILE_QUICK,
                                        .layout = BENCH_LAYOUT_RANDOM, .page = PLAT_PAGE_4K,
                                        .repetitions = 11, .max_bytes = 64 * KB, .seed = 1 };
        struct lat_sets        *s;
        (void)state;

        fake_plat_reset();
        fake_plat_set_cpus(cpus, 5);
        fake_plat_real_stall(true);
        for (unsigned i = 0; i < 5; i++)
                fake_topology_set_kind(i, i == 2 || i == 4 ? 0x20 : 0x40, i == 2 || i == 4 ? 4 * MB
                                                                                          : 2 * MB);
        memset(&inv, 0, sizeof(inv));
        memset(&r, 0, sizeof(r));
        inv.cpu    = (struct cpu_info){ .vendor = VEN_INTEL };
        inv.cpu_st = ST_OK;
        inv.tsc_hz = 2000000000ull;
        r.inv      = &inv;
        config_defaults(&r.cfg);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(phase_cpus(&r), ST_OK);
        bsp = (struct lat_levels){ .n = 1 };
        strcpy(bsp.lv[0].name, "flat");
        assert_non_null(s = lat_sets_measure(&r, &cfg, &bsp));
        lat_sets_report(s);
        assert_int_equal(s->n, 2);
        assert_true(s->set[0].is_bsp_set && s->set[0].n_cpus == 3 && s->set[0].lv.n == 1);
        assert_int_equal(s->set[1].n_cpus, 2);
        assert_int_equal(s->set[1].measure_apic, 16);
        assert_true(s->set[1].measured);
        assert_true(s->set[1].lv.n >= 1);
        if (!strstr(out.p, "PASS: level sets: 2 sets cover 5 of 5 processors") ||
            !strstr(out.p, "set 1: core type atom") || !strstr(out.p, "measured on APIC ID 16") ||
            !strstr(out.p, "INFO: level sets: cost: 1 sweep on other processors"))
                fail_msg("console:\n%s", out.p);
        plat_free(s);
        r.cfg.level_sets = CONFIG_SETS_OFF;
        assert_null(lat_sets_measure(&r, &cfg, &bsp));
        for (unsigned i = 0; i < 5; i++)
                fake_topology_set_kind(i, 0, 0);
        for (size_t i = 0; i < r.n_files; i++)
                rep_buf_free(&r.files[i].data);
        rep_reset();
        rep_buf_free(&out);
        fake_plat_cpus_reset();
}

/* L1 4, L2 14, L3 50, DRAM 300 TSC ticks (E-cores: L2 18, from 4 MiB). */
static void make_curve(struct lat_curve *c, struct lat_point *pts, bool ecore)
{
        size_t n = 0;

        for (unsigned k = 0; k < 57; k++) {
                double ws  = exp2(12 + k / 4.0);
                double l2  = ecore ? 4194304 : 1048576;
                double lat = ws <= 32768 ? 4 : ws <= l2 ? (ecore ? 18 : 14) : ws <= 33554432 ? 50 : 300;
                pts[n++]   = (struct lat_point){ .ws_bytes = (uint64_t)ws, .n_windows = 11,
                                                 .min_mcyc = (uint64_t)(lat * 970),
                                                 .p10_mcyc = (uint64_t)(lat * 980),
                                                 .p50_mcyc = (uint64_t)(lat * 1000),
                                                 .p90_mcyc = (uint64_t)(lat * 1030) };
        }
        *c = (struct lat_curve){ .pts = pts, .n = n, .clock = LAT_CLOCK_TSC,
                                 .tsc_hz = 2000000000ull };
}

/* @p bad: 0 IDs out of order, 1 an ID of set 0, 2 not measured without a reason; else none. */
static void write_table(struct rep_buf *b, struct lat_sets *s, unsigned bad)
{
        static struct lat_point pts[2][LAT_MAX_POINTS];
        struct lat_curve        c[2];
        struct lat_table_meta   m = { .kernel = "pointer-chase", .layout = "random",
                                      .n_windows = 11, .clock = LAT_CLOCK_TSC,
                                      .tsc_hz = 2000000000ull, .vendor = "GenuineIntel",
                                      .family = 6, .model = 183 };
        struct lat_json_section sec = { rep_lat_sets_json, s };
        struct lat_set_cpu      cpus[4] = { cpu(0, 0, 0x40, 1 * MB, 0), cpu(1, 2, 0x40, 1 * MB, 0),
                                            cpu(2, 16, 0x20, 4 * MB, 0),
                                            cpu(3, 17, 0x20, 4 * MB, 0) };

        make_curve(&c[0], pts[0], false);
        make_curve(&c[1], pts[1], true);
        assert_int_equal(rep_lat_sets_group(cpus, 4, LAT_SETS_AUTO, s), ST_OK);
        assert_int_equal(lv_detect(&c[0], NULL, &s->set[0].lv), ST_OK);
        assert_int_equal(lv_detect(&c[1], NULL, &s->set[1].lv), ST_OK);
        s->set[0].measured = s->set[1].measured = true;
        if (bad == 0)
                s->set[1].apic_ids[0] = 18; /* 18, 17 */
        else if (bad == 1)
                s->set[1].apic_ids[0] = 2;
        else if (bad == 2)
                s->set[1].measured = false;
        assert_int_equal(rep_lat_json(b, &m, &c[0], &s->set[0].lv, &sec, 1), ST_OK);
}

static void test_table_round_trip(void **state)
{
        static struct lat_sets s;
        struct rep_buf         b = { 0 };
        struct pmucal_table   *t;
        char                   err[256];
        (void)state;

        write_table(&b, &s, ~0u);
        if (getenv("PMUCAL_WRITE_TABLE")) {
                FILE *f = fopen(getenv("PMUCAL_WRITE_TABLE"), "w");
                fwrite(b.p, 1, b.len, f);
                fclose(f);
        }
        assert_int_equal(pmucal_table_load_buf(b.p, b.len, "t.json", &t, err, sizeof(err)),
                         PMUCAL_OK);
        assert_string_equal(t->schema, "pmucal.latency-table/1.6");
        assert_int_equal(t->n_core_sets, 2);
        assert_true(t->core_sets[0].bsp_set);
        assert_string_equal(t->core_sets[1].core_type, "atom");
        assert_int_equal(t->core_sets[1].n_apic_ids, 2);
        assert_int_equal(t->core_sets[1].apic_ids[1], 17);
        assert_int_equal(t->core_sets[1].measured_on_apic_id, 16);
        assert_int_equal(t->core_sets[1].cache_bytes[1], 4 * MB);
        assert_int_equal(t->core_sets[0].n_levels, t->n_levels);
        assert_int_equal(t->core_sets[1].n_levels, 4);
        assert_true(fabs(t->core_sets[1].levels[1].cycles.p50 - 18) < 0.5);
        assert_true(fabs(t->core_sets[0].levels[1].cycles.p50 - 14) < 0.5);
        /* a set's figures by unit come from the same loader as the table's */
        assert_non_null(t->core_sets[1].level_units);
        assert_true(t->core_sets[1].level_units[1].unit[PMUCAL_UNIT_TSC].has);
        assert_true(t->core_sets[1].level_units[1].unit[PMUCAL_UNIT_TSC].has_upper);
        assert_true(t->core_sets[1].level_units[1].unit[PMUCAL_UNIT_TSC].upper ==
                    t->core_sets[1].levels[1].upper_cycles);
        assert_false(t->core_sets[1].level_units[1].unit[PMUCAL_UNIT_CORE].has);
        assert_ptr_equal(pmucal_table_core_set(t, 17), &t->core_sets[1]);
        assert_ptr_equal(pmucal_table_core_set(t, 2), &t->core_sets[0]);
        assert_null(pmucal_table_core_set(t, 99));
        pmucal_table_free(t);
        rep_buf_free(&b);
}

/* A set whose APIC ID another set has, unordered IDs, a set not measured without a reason:
 * each edit of set 1 is an error naming core_types.sets[1]. */
static void test_table_errors(void **state)
{
        static const char *const msgs[] = { "not ascending", "2 is also in set 0", "not measured" };
        static struct lat_sets   s;
        (void)state;

        for (unsigned i = 0; i < 3; i++) {
                struct rep_buf       b = { 0 };
                struct pmucal_table *t = NULL;
                char                 err[256];

                write_table(&b, &s, i);
                assert_int_equal(pmucal_table_load_buf(b.p, b.len, "t.json", &t, err, sizeof(err)),
                                 PMUCAL_E_SCHEMA);
                if (!strstr(err, msgs[i]) || !strstr(err, "core_types.sets[1]"))
                        fail_msg("case %u: %s", i, err);
                rep_buf_free(&b);
        }
}

/* The report's verdicts: every processor in one set (a 17th kind of processor beyond the 16
 * sets is left out and FAILs though the 16 sets cover what they hold), and the levels of a
 * set measured on its own processor ordered by median latency: two levels with the same
 * median FAIL, one milli-tick apart PASS. */
static void test_report_verdicts(void **state)
{
        static struct lat_sets  s;
        static struct lat_point pts[LAT_MAX_POINTS];
        struct lat_set_cpu      cpus[LAT_SETS_MAX + 1];
        struct lat_curve        c;
        struct rep_buf          out = { 0 };
        (void)state;

        for (unsigned i = 0; i <= LAT_SETS_MAX; i++)
                cpus[i] = cpu(i, 2 * i, 0, (i + 1) * MB, 0); /* every L2 size its own kind */
        assert_int_equal(rep_lat_sets_group(cpus, LAT_SETS_MAX + 1, LAT_SETS_AUTO, &s), ST_OK);
        assert_int_equal(s.n, LAT_SETS_MAX);
        assert_int_equal(s.n_left_out, 1);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        lat_sets_report(&s);
        if (!strstr(out.p, "FAIL: level sets: 16 sets cover 16 of 16 processors, each in one "
                           "set (1 of another kind left out)"))
                fail_msg("console:\n%s", out.p);

        struct lat_set_cpu two[4] = { cpu(0, 0, 0x40, 1 * MB, 0), cpu(1, 2, 0x40, 1 * MB, 0),
                                      cpu(2, 16, 0x20, 4 * MB, 0), cpu(3, 17, 0x20, 4 * MB, 0) };
        assert_int_equal(rep_lat_sets_group(two, 4, LAT_SETS_AUTO, &s), ST_OK);
        make_curve(&c, pts, true);
        assert_int_equal(lv_detect(&c, NULL, &s.set[1].lv), ST_OK);
        assert_true(s.set[1].lv.n >= 3);
        s.set[0].measured = s.set[1].measured = true;
        struct lat_level *l1 = &s.set[1].lv.lv[1], *l2 = &s.set[1].lv.lv[2];
        static const struct { int64_t gap; const char *want; } cases[] = {
                { 0, "FAIL: level sets: 0 of 1 sets measured on their own processor have levels "
                     "ordered by latency" },
                { 1, "PASS: level sets: 1 of 1 sets measured on their own processor have levels "
                     "ordered by latency" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                l1->lat_mcyc.p50 = l2->lat_mcyc.p50 - (uint64_t)cases[i].gap;
                rep_buf_free(&out);
                rep_reset();
                rep_add_sink(rep_buf_sink(&out));
                lat_sets_report(&s);
                if (!strstr(out.p, cases[i].want) ||
                    !strstr(out.p, "PASS: level sets: 2 sets cover 4 of 4 processors"))
                        fail_msg("gap %lld: console:\n%s", (long long)cases[i].gap, out.p);
        }
        rep_reset();
        rep_buf_free(&out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_group_hybrid),
                cmocka_unit_test(test_group_domains),
                cmocka_unit_test(test_sweep_on_ap),
                cmocka_unit_test(test_measure_hybrid),
                cmocka_unit_test(test_table_round_trip),
                cmocka_unit_test(test_table_errors),
                cmocka_unit_test(test_report_verdicts),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
