/** @file The page chase of the validation suite under the harness's own page tables
 *  (app/pmu_validate_mem.c) on the test platform's MMU model: the firmware maps the buffer
 *  with 2 MiB pages (fake_plat_set_mmu), so the chase builds 4 KiB tables, checks them, loads
 *  them into the fake CR3 around the counted window and puts the firmware's back; and each
 *  way that can go wrong. The privileged reads the window makes (CR3, CR4, the TLB flush) are
 *  wrapped at link time (-Wl,--wrap: tests/unittests.cfg) to read the fake MMU; the software
 *  walker and the chase are wrapped too, passing through unless a test makes them go wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/pmu_validate.h"
#include "bench/kernel_chase.h"
#include "bench/kernel_tlb.h"
#include "bench/ownpt.h"
#include "tests/fake_plat.h"

static unsigned       n_flush;
static uint64_t       cr4 = BENCH_CR4_PGE;
static struct rep_buf out;

/* A walker that checks only the first half of the buffer and says all is well. */
static bool walk_half;
/* Under the harness's tables, the lap's first load reads its node's successor's page (a PTE
 * one frame off): the lap ends one node past its start. */
static bool one_page_off;

uint64_t __wrap_bench_cr3_read(void);
uint64_t __wrap_bench_cr4_read(void);
void     __wrap_bench_tlb_flush_all(void);
status_t __real_bench_ownpt_check_4k(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                                     uint64_t *n_walked);
status_t __wrap_bench_ownpt_check_4k(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                                     uint64_t *n_walked);
void    *__real_bench_chase(void *p, uint64_t iters);
void    *__wrap_bench_chase(void *p, uint64_t iters);

status_t __wrap_bench_ownpt_check_4k(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                                     uint64_t *n_walked)
{
        return __real_bench_ownpt_check_4k(o, buf, walk_half ? bytes / 2 : bytes, n_walked);
}

void *__wrap_bench_chase(void *p, uint64_t iters)
{
        void **q;

        if (!one_page_off || !iters || fake_plat_cr3() == FAKE_PLAT_FIRMWARE_CR3)
                return __real_bench_chase(p, iters);
        q = *(void **)*(void **)p;
        for (uint64_t i = 1; i < iters * BENCH_CHASE_UNROLL; i++)
                q = *q;
        return q;
}

uint64_t __wrap_bench_cr3_read(void)
{
        return fake_plat_cr3();
}

uint64_t __wrap_bench_cr4_read(void)
{
        return cr4;
}

void __wrap_bench_tlb_flush_all(void)
{
        n_flush++;
}

static int setup(void **unused)
{
        (void)unused;
        rep_reset();
        rep_buf_free(&out);
        rep_add_sink(rep_buf_sink(&out));
        fake_plat_set_mmu(PLAT_PAGE_2M, true, true, true);
        n_flush = 0;
        cr4 = BENCH_CR4_PGE;
        walk_half = one_page_off = false;
        return 0;
}

static int teardown(void **unused)
{
        (void)unused;
        rep_reset();
        rep_buf_free(&out);
        fake_plat_set_mmu(PLAT_PAGE_4K, false, false, false);
        return 0;
}

/* A CPU with a 16-entry dTLB (the page chase: 16 x 16 pages, 1 MiB) and this host's
 * MAXPHYADDR range for the table pages. */
static struct cpu_info cpu(void)
{
        struct cpu_info ci = { .pdpe1gb = true, .max_ext_leaf = 0x80000008, .phys_addr_bits = 48,
                               .n_tlbs = 1 };

        ci.tlbs[0] = (struct cpu_tlb){ .level = 2, .type = TLB_UNIFIED, .page_sizes = TLB_PG_4K,
                                       .entries = 16 };
        return ci;
}

/* Set-up builds and checks the 4 KiB tables; the window loads them and restores the
 * firmware's CR3, flushing around it because CR4.PGE is set. */
static void test_window(void **unused)
{
        struct cpu_info  ci = cpu();
        struct val_chase ch;
        const char      *why = NULL;

        (void)unused;
        assert_int_equal(val_chase_setup(&ch, &ci, 256 * KiB, true, &why), ST_OK);
        assert_non_null(ch.own);
        assert_int_equal(ch.n_walked, 64);
        assert_int_equal(val_chase_enter(&ch), ST_OK);
        assert_int_equal(fake_plat_cr3(), ch.own->pt.root_pa);
        assert_int_equal(n_flush, 1);
        val_chase_leave(&ch);
        assert_int_equal(fake_plat_cr3(), FAKE_PLAT_FIRMWARE_CR3);
        assert_int_equal(n_flush, 2);
        assert_int_equal(ch.n_cr3_bad, 0);
        val_chase_free(&ch);
        assert_null(ch.own);

        cr4 = 0; /* no global pages, no PCIDs: the CR3 load alone flushes */
        assert_int_equal(val_chase_setup(&ch, &ci, 64 * KiB, true, &why), ST_OK);
        assert_int_equal(val_chase_enter(&ch), ST_OK);
        val_chase_leave(&ch);
        assert_int_equal(n_flush, 2);
        val_chase_free(&ch);

        /* a CR3 that does not come back is counted */
        fake_plat_set_mmu(PLAT_PAGE_2M, true, false, true);
        assert_int_equal(val_chase_setup(&ch, &ci, 64 * KiB, true, &why), ST_OK);
        assert_int_equal(val_chase_enter(&ch), ST_OK);
        val_chase_leave(&ch);
        assert_int_equal(ch.n_cr3_bad, 1);
        val_chase_free(&ch);
}

/* What refuses the own tables, each with its reason. */
static void test_refusals(void **unused)
{
        struct cpu_info  ci = cpu();
        struct val_chase ch;
        const char      *why = NULL;

        (void)unused;
        assert_int_equal(val_chase_setup(&ch, NULL, 64 * KiB, true, &why), ST_UNSUPPORTED);
        assert_non_null(strstr(why, "no CPU description"));
        assert_null(ch.cb.buf);
        /* a map without the harness's code and stack: the tables would not run it */
        fake_plat_set_mmu(PLAT_PAGE_2M, true, true, false);
        assert_int_equal(val_chase_setup(&ch, &ci, 64 * KiB, true, &why), ST_BAD_DATA);
        assert_non_null(strstr(why, "do not identity-map its code"));
        /* a walker that stopped half-way: 32 of 64 pages checked is not a checked mapping */
        walk_half = true;
        assert_int_equal(val_chase_setup(&ch, &ci, 256 * KiB, true, &why), ST_BAD_DATA);
        assert_non_null(strstr(why, "not every page of the 4 KiB test mapping"));
        walk_half = false;
        /* a map that covers the harness's code and stack but not the page holding its
         * bookkeeping (the caller's struct val_chase): every probe is checked, not the first */
        struct val_chase *heap = aligned_alloc(4096, 4096);
        assert_non_null(heap);
        fake_plat_set_mmu(PLAT_PAGE_2M, true, true, true);
        fake_plat_map_leave_out((uint64_t)(uintptr_t)heap, 4096);
        assert_int_equal(val_chase_setup(heap, &ci, 64 * KiB, true, &why), ST_BAD_DATA);
        assert_non_null(strstr(why, "do not identity-map its code, stack or data"));
        fake_plat_map_leave_out(0, 0);
        assert_int_equal(val_chase_setup(heap, &ci, 64 * KiB, true, &why), ST_OK);
        val_chase_free(heap);
        free(heap);
        /* no CR3 load: the window says so instead of running */
        fake_plat_set_mmu(PLAT_PAGE_2M, false, false, true);
        assert_int_equal(val_chase_setup(&ch, &ci, 64 * KiB, true, &why), ST_OK);
        assert_int_equal(val_chase_enter(&ch), ST_UNSUPPORTED);
        val_chase_free(&ch);
        /* a per-line chase never needs them */
        assert_int_equal(val_chase_setup(&ch, &ci, 64 * KiB, false, &why), ST_OK);
        assert_null(ch.own);
        val_chase_free(&ch);
}

/* The QEMU self-test of the own tables: one lap under them, PASS when it closes and CR3 is
 * back; FAIL when CR3 is not restored or the tables do not map the harness; silent when CR3
 * cannot be loaded. */
static void test_selftest(void **unused)
{
        struct cpu_info ci = cpu();

        (void)unused;
        val_page_chase_selftest(&ci);
        assert_non_null(strstr(out.p, "INFO: dtlb-misses-pagechase: 4 KiB test mapping ready, "
                                      "256 pages walked"));
        assert_non_null(strstr(out.p, "PASS: dtlb-misses-pagechase: one lap of 256 loads under the "
                                      "harness's page tables closed, firmware CR3 restored"));
        assert_int_equal(rep_get_counts().n_pass, 1);

        fake_plat_set_mmu(PLAT_PAGE_2M, true, false, true);
        val_page_chase_selftest(&ci);
        assert_non_null(strstr(out.p, "FAIL: dtlb-misses-pagechase: one lap of 256 loads under the "
                                      "harness's page tables closed, firmware CR3 NOT restored"));

        fake_plat_set_mmu(PLAT_PAGE_2M, true, true, false);
        val_page_chase_selftest(&ci);
        assert_non_null(strstr(out.p, "FAIL: dtlb-misses-pagechase: 4 KiB test mapping: the "
                                      "harness's own page tables do not identity-map"));
        assert_int_equal(rep_get_counts().n_fail, 2);

        /* a lap that does not come back to its start FAILs, CR3 restored or not */
        fake_plat_set_mmu(PLAT_PAGE_2M, true, true, true);
        one_page_off = true;
        val_page_chase_selftest(&ci);
        one_page_off = false;
        assert_non_null(strstr(out.p, "FAIL: dtlb-misses-pagechase: one lap of 256 loads under the "
                                      "harness's page tables did not close, firmware CR3 restored"));
        assert_int_equal(rep_get_counts().n_fail, 3);

        fake_plat_set_mmu(PLAT_PAGE_2M, false, false, true);
        size_t before = out.len;
        val_page_chase_selftest(&ci);
        assert_non_null(strstr(out.p + before, "4 KiB test mapping ready"));
        assert_int_equal(rep_get_counts().n_pass + rep_get_counts().n_fail, 4);
}

int main(void)
{
        fake_plat_reset();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_window, setup, teardown),
                cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
                cmocka_unit_test_setup_teardown(test_selftest, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
