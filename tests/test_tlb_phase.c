/** @file The firmware's TLB phase (app/x86/tlb.c) end to end on the test platform: its own page
 *  tables built over the fake memory map, every window (4 KiB near and line, 2 MiB, 1 GiB
 *  aliased onto one frame, the iTLB) walked by the software walker, the fake CR3 loaded around
 *  each point and the firmware's put back, the curves analysed against CPUID and handed to the
 *  run as tlb-table.json and tlb-curve.csv. The windows' addresses exist only in those tables,
 *  so the timed kernels are wrapped at link time (-Wl,--wrap: tests/unittests.cfg) by a model of a
 *  TLB hierarchy that answers per N; it can disturb every window of chosen points, to check
 *  that a point is tried three times and then left out, never an error. Where CR3 cannot be
 *  loaded (as in pmucal-host), the same phase runs its dTLB sweeps on buffers the platform
 *  maps itself (app/tlb_platmap.c, bench_dtlb_measure wrapped too): windows that cannot mask
 *  interrupts measure each N in three interleaved passes and keep the median one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "app/run.h"
#include "app/tlb.h"
#include "bench/kernel_tlb.h"
#include "bench/x86/pagetable.h"
#include "report/inventory.h"
#include "tests/fake_plat.h"
#include "tests/test_util.h"

#define L1_4K 64u   /* the model's first-level dTLB, 4 KiB pages */
#define L2_4K 1536u /* its second level */
#define L1_2M 32u
#define L1_IT 128u  /* first-level iTLB */

uint64_t __wrap_bench_cr3_read(void);
uint64_t __wrap_bench_cr4_read(void);
void     __wrap_bench_tlb_flush_all(void);
status_t __wrap_bench_dtlb_measure_off(uint8_t *win, uint64_t win_bytes, uint8_t *ctl,
                                       uint64_t ctl_bytes, const struct bench_tlb_cfg *cfg,
                                       const struct bench_tlb_run *run, uint64_t *off,
                                       size_t n_off, struct tlb_point *out);
status_t __wrap_bench_dtlb_measure(uint8_t *win, uint64_t win_bytes, uint8_t *ctl,
                                   uint64_t ctl_bytes, const struct bench_tlb_cfg *cfg,
                                   const struct bench_tlb_run *run, struct tlb_point *out);
status_t __wrap_bench_itlb_gen_off(const struct bench_tlb_cfg *cfg, uint64_t *off, size_t n_off,
                                   uint8_t *buf, uint64_t buf_bytes, uint64_t *entry_off);
status_t __wrap_bench_itlb_measure(void (*entry)(void), uint32_t n_pages,
                                   const struct bench_tlb_run *run, struct tlb_point *out);
status_t __real_bench_pt_walk(const struct bench_pt *pt, uint64_t va, uint64_t *pa,
                              uint64_t *page_bytes, uint64_t *flags);
status_t __wrap_bench_pt_walk(const struct bench_pt *pt, uint64_t va, uint64_t *pa,
                              uint64_t *page_bytes, uint64_t *flags);

static struct {
        uint64_t page_bytes; /* the disturbed points: this page size ... */
        uint32_t n_pages;    /* ... and N (0: none), on the PTE-near curve */
        unsigned disturbed;  /* tries of it that come back disturbed */
        unsigned calls;      /* tries of it made */
        unsigned n_loaded;   /* windows that ran with the harness's CR3 loaded */
        unsigned n_other;    /* ... and without */
        uint32_t open_n;     /* the dTLB chase of this N does not return to its start */
        bool     walk_2m_as_4k; /* the walker says 4 KiB where a 2 MiB page maps */
        uint32_t spike_n;    /* the platform-map path: this N's try number spike_try ... */
        unsigned spike_try;  /* ... (1-based) costs ten times the model's */
        unsigned spike_calls;
        unsigned n_plat;     /* windows run on the platform's mapping (bench_dtlb_measure) */
        uint64_t plat_win_bytes; /* the largest window it was given */
} model;

uint64_t __wrap_bench_cr3_read(void)
{
        return fake_plat_cr3();
}

uint64_t __wrap_bench_cr4_read(void)
{
        return BENCH_CR4_PGE;
}

void __wrap_bench_tlb_flush_all(void)
{
}

/* The software walker, with a mapping made at the wrong size when asked. */
status_t __wrap_bench_pt_walk(const struct bench_pt *pt, uint64_t va, uint64_t *pa,
                              uint64_t *page_bytes, uint64_t *flags)
{
        status_t st = __real_bench_pt_walk(pt, va, pa, page_bytes, flags);

        if (st == ST_OK && model.walk_2m_as_4k && page_bytes && *page_bytes == 2 * MiB)
                *page_bytes = 4 * KiB;
        return st;
}

/* mcyc per access of the model: an L1 hit 3 cycles, an L2 hit 10 more, a walk 40 more. */
static uint64_t cost(uint64_t page_bytes, uint32_t n, bool inst)
{
        uint32_t l1 = inst ? L1_IT : page_bytes == 4 * KiB ? L1_4K : L1_2M;
        uint64_t c  = 3000;

        if (n > l1)
                c += 10000;
        if (n > L2_4K && page_bytes != GiB)
                c += 40000;
        return c;
}

static status_t point(uint64_t page_bytes, uint32_t n, bool near, bool inst,
                      struct tlb_point *out)
{
        if (fake_plat_cr3() == FAKE_PLAT_FIRMWARE_CR3)
                model.n_other++;
        else
                model.n_loaded++;
        if (model.n_pages && page_bytes == model.page_bytes && n == model.n_pages && near &&
            !inst && model.calls++ < model.disturbed)
                return ST_DISTURBED;
        uint64_t c = cost(page_bytes, n, inst);
        *out = (struct tlb_point){ .n_pages = n, .n_windows = 11, .min_mcyc = c - 20,
                                   .p10_mcyc = c - 10, .p50_mcyc = c, .p90_mcyc = c + 30,
                                   .ctl_p50_mcyc = inst ? 0 : 3000 };
        return ST_OK;
}

status_t __wrap_bench_dtlb_measure_off(uint8_t *win, uint64_t win_bytes, uint8_t *ctl,
                                       uint64_t ctl_bytes, const struct bench_tlb_cfg *cfg,
                                       const struct bench_tlb_run *run, uint64_t *off,
                                       size_t n_off, struct tlb_point *out)
{
        (void)win, (void)win_bytes, (void)ctl, (void)ctl_bytes, (void)run, (void)off,
                (void)n_off;
        if (model.open_n && cfg->n_pages == model.open_n)
                return ST_BAD_DATA; /* the chase's end is not its start */
        return point(cfg->page_bytes, cfg->n_pages, cfg->pte == TLB_PTE_NEAR, false, out);
}

status_t __wrap_bench_dtlb_measure(uint8_t *win, uint64_t win_bytes, uint8_t *ctl,
                                   uint64_t ctl_bytes, const struct bench_tlb_cfg *cfg,
                                   const struct bench_tlb_run *run, struct tlb_point *out);
/* The platform-map path: the window is the platform's buffer, which must span the plan. */
status_t __wrap_bench_dtlb_measure(uint8_t *win, uint64_t win_bytes, uint8_t *ctl,
                                   uint64_t ctl_bytes, const struct bench_tlb_cfg *cfg,
                                   const struct bench_tlb_run *run, struct tlb_point *out)
{
        uint64_t span;
        status_t st;

        (void)run;
        if (!win || !ctl || bench_tlb_span(cfg, &span) != ST_OK || win_bytes < span ||
            ctl_bytes < (uint64_t)cfg->n_pages * BENCH_TLB_LINE_BYTES)
                return ST_BAD_ARG;
        model.n_plat++;
        if (win_bytes > model.plat_win_bytes)
                model.plat_win_bytes = win_bytes;
        st = point(cfg->page_bytes, cfg->n_pages, cfg->pte == TLB_PTE_NEAR, false, out);
        if (st == ST_OK && cfg->n_pages == model.spike_n &&
            cfg->pte == TLB_PTE_NEAR && ++model.spike_calls == model.spike_try)
                out->p50_mcyc *= 10;
        return st;
}

status_t __wrap_bench_itlb_gen_off(const struct bench_tlb_cfg *cfg, uint64_t *off, size_t n_off,
                                   uint8_t *buf, uint64_t buf_bytes, uint64_t *entry_off)
{
        (void)cfg, (void)off, (void)n_off, (void)buf, (void)buf_bytes;
        *entry_off = 0;
        return ST_OK;
}

status_t __wrap_bench_itlb_measure(void (*entry)(void), uint32_t n_pages,
                                   const struct bench_tlb_run *run, struct tlb_point *out)
{
        (void)entry, (void)run;
        return point(4 * KiB, n_pages, true, true, out);
}

static struct inventory inv;
static struct run       r;
static struct rep_buf   con;

/* A CPU with the model's TLBs in CPUID, 1 GiB pages and this host's MAXPHYADDR range. */
static int setup(void **unused)
{
        (void)unused;
        fake_plat_reset();
        fake_plat_set_mmu(PLAT_PAGE_2M, true, true, true);
        memset(&model, 0, sizeof(model));
        memset(&inv, 0, sizeof(inv));
        memset(&r, 0, sizeof(r));
        inv.cpu = (struct cpu_info){ .vendor = VEN_AMD, .pdpe1gb = true,
                                     .max_ext_leaf = 0x80000008, .phys_addr_bits = 48,
                                     .n_tlbs = 3 };
        inv.cpu.tlbs[0] = (struct cpu_tlb){ .level = 1, .type = TLB_DATA, .entries = L1_4K,
                                            .page_sizes = TLB_PG_4K, .source = "model" };
        inv.cpu.tlbs[1] = (struct cpu_tlb){ .level = 2, .type = TLB_DATA, .entries = L2_4K,
                                            .page_sizes = TLB_PG_4K, .source = "model" };
        inv.cpu.tlbs[2] = (struct cpu_tlb){ .level = 1, .type = TLB_INST, .entries = L1_IT,
                                            .page_sizes = TLB_PG_4K, .source = "model" };
        inv.cpu_st = ST_OK;
        inv.tsc_hz = 2000000000ull;
        r.inv      = &inv;
        config_defaults(&r.cfg);
        r.cfg.profile = CONFIG_PROFILE_TLB;
        rep_reset();
        rep_buf_free(&con);
        rep_add_sink(rep_buf_sink(&con));
        rep_push("tlb");
        return 0;
}

static int teardown(void **unused)
{
        (void)unused;
        rep_reset();
        for (size_t i = 0; i < r.n_files; i++)
                rep_buf_free(&r.files[i].data);
        rep_buf_free(&con);
        fake_plat_set_mmu(PLAT_PAGE_4K, false, false, false);
        return 0;
}

static const char *text(void)
{
        return con.p ? con.p : "";
}

static const struct rep_buf *file(const char *name)
{
        for (size_t i = 0; i < r.n_files; i++)
                if (!strcmp(r.files[i].name, name))
                        return &r.files[i].data;
        return NULL;
}

/* Every sweep measured under the harness's tables, the firmware's CR3 back after each, the
 * model's levels found and agreeing with CPUID, both files handed to the run. */
static void test_full_sweep(void **unused)
{
        (void)unused;
        status_t st = phase_tlb(&r);
        const char *c = text();
        if (st != ST_OK)
                fail_msg("phase_tlb: %s; console:\n%s", status_str(st), c);
        want(c, "PASS: tlb: page tables: ");
        want(c, "walk to the intended frames, sizes and rights");
        want(c, "PASS: tlb: firmware CR3 restored after every window (0 differed)");
        want(c, "PASS: tlb: every chase returned to its start (0 did not)");
        want(c, "INFO: tlb: 1 GiB pages: ");
        want(c, "INFO: tlb: dtlb: 1 GiB pages used (");
        want(c, "INFO: tlb: dtlb: 4 KiB: near: L1: 64 entries (agree)");
        /* 1536 lies in [1448, 1579): the last N before the half-way crossing, the next N */
        want(c, "INFO: tlb: dtlb: 4 KiB: near: L2: 1448 entries (agree)");
        want(c, "INFO: tlb: itlb: 4 KiB: near: L1: 128 entries (agree)");
        want(c, "INFO: tlb: dtlb: 1 GiB: near: L1: 32 entries (no_cpuid)");
        /* the line curve ends inside its walk step: no walk to compare with the near one */
        want(c, "  walk with PTE line: not compared with PTE near (a sweep ends inside a step)");
        want_not(c, "ERROR");
        want_not(c, "FAIL");
        want_not(c, "left out");
        assert_int_equal(fake_plat_cr3(), FAKE_PLAT_FIRMWARE_CR3);
        assert_int_equal(model.n_other, 0); /* every window under the harness's tables */
        assert_true(model.n_loaded > 200);
        const struct rep_buf *t = file(TLBCAL_TABLE_FILE), *v = file(TLBCAL_CURVE_FILE);
        assert_non_null(t);
        assert_non_null(v);
        want(t->p, "\"schema\": \"pmucal.tlb/1");
        want(v->p, "dtlb,1073741824,near,");
        want(v->p, "itlb,4096,near,");
}

/* A point disturbed in two tries is measured in the third; one disturbed in all three is left
 * out and counted, and the rest of its curve analysed as before. */
static void test_disturbed_points(void **unused)
{
        (void)unused;
        model = (typeof(model)){ .page_bytes = 4 * KiB, .n_pages = 128, .disturbed = 2 };
        assert_int_equal(phase_tlb(&r), ST_OK);
        assert_int_equal(model.calls, 3);
        want_not(text(), "left out");
        want_not(text(), "ERROR");

        teardown(NULL);
        setup(NULL);
        model = (typeof(model)){ .page_bytes = 4 * KiB, .n_pages = 128, .disturbed = 99 };
        assert_int_equal(phase_tlb(&r), ST_OK);
        assert_int_equal(model.calls, 3);
        const char *c = text();
        want(c, "INFO: tlb: dtlb 4 KiB: 1 of ");
        want(c, "points left out: the timer disagreed with itself in every window of 3 tries "
                "(interrupts, SMIs or a hypervisor took time)");
        want(c, "INFO: tlb: dtlb: 4 KiB: near: L2: 1448 entries (agree)");
        want_not(c, "ERROR");
        want_not(c, "FAIL");
        want(file(TLBCAL_CURVE_FILE)->p, "dtlb,4096,near,117,");
        want(file(TLBCAL_CURVE_FILE)->p, "dtlb,4096,near,140,");
        want_not(file(TLBCAL_CURVE_FILE)->p, "dtlb,4096,near,128,");
}

/* Faults the phase's own checks must catch: the firmware's CR3 not put back by the restore
 * (the proving load reads back the harness's root: 1 differed), a dTLB chase that does not
 * return to its start (its curve stops there: 1 did not), and a 2 MiB window whose pages the
 * walker finds mapped at 4 KiB (the window is refused before anything is measured). */
static void test_faults(void **unused)
{
        (void)unused;
        fake_plat_set_mmu(PLAT_PAGE_2M, true, false, true);
        phase_tlb(&r);
        want(text(), "FAIL: tlb: firmware CR3 restored after every window (1 differed)");
        want(text(), "PASS: tlb: every chase returned to its start (0 did not)");

        teardown(NULL);
        setup(NULL);
        model.open_n = 128;
        assert_int_equal(phase_tlb(&r), ST_BAD_DATA);
        want(text(), "PASS: tlb: firmware CR3 restored after every window (0 differed)");
        want(text(), "FAIL: tlb: every chase returned to its start (1 did not)");

        teardown(NULL);
        setup(NULL);
        model.walk_2m_as_4k = true;
        assert_int_equal(phase_tlb(&r), ST_BAD_DATA);
        want(text(), "FAIL: tlb: page tables: dtlb 2 MiB window: ");
        assert_int_equal(model.n_loaded, 0);
}

/* Points of the profile's 4 KiB dTLB sweeps. */
static size_t points_4k(bool full)
{
        struct tlbcal_sweep sw[TLBCAL_MAX_CURVES];
        uint32_t            ns[TLBDET_MAX_POINTS];
        size_t              n_sw, n, all = 0;

        tlbcal_sweeps(full, sw, &n_sw);
        for (size_t i = 0; i < n_sw; i++)
                if (sw[i].side == TLB_SIDE_DATA && sw[i].page_bytes == 4 * KiB &&
                    tlbcal_ns(&sw[i], ns, &n) == ST_OK)
                        all += n;
        return all;
}

/* No CR3 load on this platform: the same phase runs on the platform's mapping. The 4 KiB
 * sweeps run (each point in three interleaved passes: these windows cannot mask interrupts)
 * and find the model's levels; a spike in one pass of a point does not reach the curve; the
 * 2 MiB sweep, whose buffers the platform maps with 4 KiB pages, SKIPs with the reason (its
 * buffers no larger than an eighth of the platform's free gibibyte: 64 pages), as do 1 GiB
 * pages and the iTLB; no window ran under the harness's tables. */
static void test_platform_map(void **unused)
{
        (void)unused;
        fake_plat_set_mmu(PLAT_PAGE_4K, false, false, false);
        model.spike_n = 32;
        model.spike_try = 2;
        assert_int_equal(phase_tlb(&r), ST_OK);
        const char *c = text();
        want(c, "INFO: tlb: page tables: the harness's own are not used (the platform cannot "
                "load CR3)");
        want(c, "every point is the median of interleaved passes");
        want(c, "SKIP: tlb: dtlb 2 MiB near: every buffer of 16 to 64 pages came mapped with "
                "4 KiB pages, not 2 MiB");
        want(c, "SKIP: tlb: dtlb 1 GiB near: 1 GiB pages: without the harness's own page tables");
        want(c, "SKIP: tlb: itlb 4 KiB near: the iTLB jump chain needs executable pages");
        want(c, "PASS: tlb: every chase returned to its start (0 did not)");
        want(c, "INFO: tlb: dtlb: 4 KiB: near: L1: 64 entries (agree)");
        want(c, "INFO: tlb: dtlb: 4 KiB: near: L2: 1448 entries (agree)");
        want_not(c, "ERROR");
        want_not(c, "FAIL");
        assert_int_equal(model.n_loaded, 0);
        assert_int_equal(model.n_plat, 3 * points_4k(true));
        assert_int_equal(model.spike_calls, 3);
        assert_true(model.plat_win_bytes >= 8192 * 4 * KiB);
        const struct rep_buf *t = file(TLBCAL_TABLE_FILE), *v = file(TLBCAL_CURVE_FILE);
        assert_non_null(t);
        assert_non_null(v);
        want(t->p, "\"passes\": 3");
        want(v->p, "dtlb,4096,near,32,11,2980,2990,3000,");
        want_not(v->p, "dtlb,2097152,");
        want_not(v->p, "itlb,");
}

/* On the platform's mapping a point disturbed in two of its three passes is the third's; one
 * disturbed in all three is left out, and the message counts passes, not tries. */
static void test_platform_map_disturbed(void **unused)
{
        (void)unused;
        fake_plat_set_mmu(PLAT_PAGE_4K, false, false, false);
        r.cfg.profile = CONFIG_PROFILE_QUICK;
        model = (typeof(model)){ .page_bytes = 4 * KiB, .n_pages = 64, .disturbed = 2 };
        assert_int_equal(phase_tlb(&r), ST_OK);
        assert_int_equal(model.calls, 3);
        want_not(text(), "left out");
        want(file(TLBCAL_CURVE_FILE)->p, "dtlb,4096,near,64,");

        teardown(NULL);
        setup(NULL);
        fake_plat_set_mmu(PLAT_PAGE_4K, false, false, false);
        r.cfg.profile = CONFIG_PROFILE_QUICK;
        model = (typeof(model)){ .page_bytes = 4 * KiB, .n_pages = 64, .disturbed = 99 };
        assert_int_equal(phase_tlb(&r), ST_OK);
        assert_int_equal(model.calls, 3);
        want(text(), "INFO: tlb: dtlb 4 KiB: 1 of ");
        want(text(), " points left out: the timer disagreed with itself in every window of 3 "
                     "interleaved passes");
        want_not(file(TLBCAL_CURVE_FILE)->p, "dtlb,4096,near,64,");
}

/* --page 4k (config tlb_pages): the 4 KiB sweeps alone, dTLB and iTLB, under the own tables. */
static void test_pages_kept(void **unused)
{
        (void)unused;
        r.cfg.profile   = CONFIG_PROFILE_QUICK;
        r.cfg.tlb_pages = CONFIG_PAGES_4K;
        assert_int_equal(phase_tlb(&r), ST_OK);
        want(file(TLBCAL_CURVE_FILE)->p, "dtlb,4096,near,");
        want(file(TLBCAL_CURVE_FILE)->p, "itlb,4096,near,");
        want_not(file(TLBCAL_CURVE_FILE)->p, "dtlb,2097152,");
        want_not(file(TLBCAL_CURVE_FILE)->p, "dtlb,1073741824,");
        want(file(TLBCAL_TABLE_FILE)->p, "\"passes\": 1");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_full_sweep, setup, teardown),
                cmocka_unit_test_setup_teardown(test_disturbed_points, setup, teardown),
                cmocka_unit_test_setup_teardown(test_faults, setup, teardown),
                cmocka_unit_test_setup_teardown(test_platform_map, setup, teardown),
                cmocka_unit_test_setup_teardown(test_platform_map_disturbed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pages_kept, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
