/** @file Tests for bench/tlb.c: chase and control plans, the iTLB jump chain (decoded back),
 *  and the N sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/tlb.h"
#include "boot/plat.h"

static const struct {
        uint64_t            page;
        uint32_t            n;
        enum tlb_pte_layout pte;
        uint64_t            seed;
} plans[] = {
        { 4 * KiB, 1, TLB_PTE_NEAR, 1 },     { 4 * KiB, 2, TLB_PTE_NEAR, 7 },
        { 4 * KiB, 100, TLB_PTE_NEAR, 0 },   { 4 * KiB, 1000, TLB_PTE_NEAR, 42 },
        { 4 * KiB, 777, TLB_PTE_LINE, 3 },   { 4 * KiB, 300, TLB_PTE_PAGE, 9 },
        { 2 * MiB, 500, TLB_PTE_NEAR, 5 },   { 2 * MiB, 64, TLB_PTE_LINE, 11 },
        { 1 * GiB, 40, TLB_PTE_NEAR, 13 },
};

static void test_plan_properties(void **state)
{
        for (size_t c = 0; c < ARRAY_SIZE(plans); c++) {
                struct bench_tlb_cfg cfg = { plans[c].page, plans[c].n, plans[c].pte, plans[c].seed };
                uint64_t *off = calloc(cfg.n_pages, 8), *ctl = calloc(cfg.n_pages, 8), span;
                bool     *seen = calloc(cfg.n_pages, 1);
                uint32_t  stride = bench_tlb_stride_pages(cfg.pte);
                uint32_t  slots  = bench_tlb_slots(cfg.page_bytes);
                unsigned  per_set[64] = { 0 };

                assert_int_equal(bench_tlb_span(&cfg, &span), ST_OK);
                assert_int_equal(span, (uint64_t)cfg.n_pages * stride * cfg.page_bytes);
                assert_int_equal(bench_tlb_plan(&cfg, off, cfg.n_pages), ST_OK);
                assert_int_equal(bench_tlb_control_plan(&cfg, ctl, cfg.n_pages), ST_OK);
                for (uint32_t i = 0; i < cfg.n_pages; i++) {
                        uint64_t unit = stride * cfg.page_bytes;
                        uint64_t p    = off[i] / unit, in = off[i] % unit;

                        /* One line per page, inside the page, each page once. */
                        assert_true(p < cfg.n_pages);
                        assert_false(seen[p]);
                        seen[p] = true;
                        assert_true(in < cfg.page_bytes && in % BENCH_TLB_LINE_BYTES == 0);
                        assert_int_equal(in / BENCH_TLB_LINE_BYTES, p % slots);
                        /* The control visits the same pages' slots in the same order, densely. */
                        assert_int_equal(ctl[i], p * BENCH_TLB_LINE_BYTES);
                        assert_int_equal(ctl[i] & 0xfc0, off[i] & 0xfc0);
                        per_set[(off[i] >> 6) & 63]++;
                        if (!cfg.seed)
                                assert_int_equal(p, i);
                }
                /* Staggering: the 64 L1D set indices (bits 11:6) are loaded evenly. */
                unsigned lo = ~0u, hi = 0;
                for (unsigned s = 0; s < 64; s++) {
                        lo = per_set[s] < lo ? per_set[s] : lo;
                        hi = per_set[s] > hi ? per_set[s] : hi;
                }
                assert_true(hi - lo <= 1);
                free(off);
                free(ctl);
                free(seen);
        }
        (void)state;
}

static void test_plan_order(void **state)
{
        struct bench_tlb_cfg a = { 4 * KiB, 512, TLB_PTE_NEAR, 1 }, b = a;
        uint64_t             x[512], y[512], z[512];

        b.seed = 2;
        assert_int_equal(bench_tlb_plan(&a, x, 512), ST_OK);
        assert_int_equal(bench_tlb_plan(&a, y, 512), ST_OK);
        assert_int_equal(bench_tlb_plan(&b, z, 512), ST_OK);
        assert_memory_equal(x, y, sizeof(x)); /* deterministic */
        assert_memory_not_equal(x, z, sizeof(x));
        /* Not ascending: the random cycle defeats next-page prefetch. */
        unsigned ascending = 0;
        for (unsigned i = 1; i < 512; i++)
                ascending += x[i] > x[i - 1] && x[i] - x[i - 1] < 2 * 4096;
        assert_true(ascending < 16);
        (void)state;
}

static void test_plan_bad(void **state)
{
        static const struct bench_tlb_cfg bad[] = {
                { 0, 10, TLB_PTE_NEAR, 0 },          { 8 * KiB, 10, TLB_PTE_NEAR, 0 },
                { 4 * KiB, 0, TLB_PTE_NEAR, 0 },     { 4 * KiB, 10, TLB_PTE__COUNT, 0 },
                { 1 * GiB, 1u << 18, TLB_PTE_NEAR, 0 }, /* 2^48 bytes of span */
        };
        uint64_t off[16], span;

        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                assert_int_equal(bench_tlb_span(&bad[i], &span), ST_BAD_ARG);
                assert_int_equal(bench_tlb_plan(&bad[i], off, bad[i].n_pages), ST_BAD_ARG);
        }
        struct bench_tlb_cfg ok = { 4 * KiB, 16, TLB_PTE_NEAR, 0 };
        assert_int_equal(bench_tlb_plan(&ok, NULL, 16), ST_BAD_ARG);
        assert_int_equal(bench_tlb_plan(&ok, off, 15), ST_BAD_ARG);
        assert_int_equal(bench_tlb_control_plan(&ok, off, 17), ST_BAD_ARG);
        assert_int_equal(bench_tlb_plan(NULL, off, 16), ST_BAD_ARG);
        assert_int_equal(bench_tlb_stride_pages(TLB_PTE__COUNT), 0);
        assert_int_equal(bench_tlb_slots(4 * KiB), 64);
        assert_int_equal(bench_tlb_slots(1 * GiB), BENCH_TLB_MAX_SLOTS);
        assert_string_equal(bench_tlb_pte_layout_name(TLB_PTE__COUNT), "?");
        assert_string_equal(bench_tlb_side_name(TLB_SIDE_INST), "itlb");
        (void)state;
}

static void test_itlb_chain(void **state)
{
        static const struct bench_tlb_cfg cfgs[] = {
                { 4 * KiB, 1, TLB_PTE_NEAR, 0 },   { 4 * KiB, 2, TLB_PTE_NEAR, 5 },
                { 4 * KiB, 300, TLB_PTE_NEAR, 9 }, { 4 * KiB, 100, TLB_PTE_PAGE, 4 },
                { 2 * MiB, 20, TLB_PTE_NEAR, 1 },
        };

        for (size_t c = 0; c < ARRAY_SIZE(cfgs); c++) {
                uint64_t span, entry, *off = calloc(cfgs[c].n_pages, 8);
                assert_int_equal(bench_tlb_span(&cfgs[c], &span), ST_OK);
                uint8_t *buf = calloc(1, span);
                assert_int_equal(bench_tlb_plan(&cfgs[c], off, cfgs[c].n_pages), ST_OK);
                assert_int_equal(bench_itlb_gen(&cfgs[c], buf, span, &entry), ST_OK);
                assert_int_equal(entry, off[0]);

                /* Decode: every stub jumps to the next page's entry; the last returns. */
                uint64_t pc = entry;
                for (uint32_t k = 0; k + 1 < cfgs[c].n_pages; k++) {
                        assert_int_equal(pc, off[k]);
                        assert_int_equal(buf[pc], X86_JMP_REL32);
                        int32_t rel;
                        memcpy(&rel, &buf[pc + 1], 4); /* little-endian host, as x86 */
                        for (unsigned b = BENCH_ITLB_STUB_BYTES; b < BENCH_TLB_LINE_BYTES; b++)
                                assert_int_equal(buf[pc + b], X86_INT3);
                        pc = (uint64_t)((int64_t)pc + BENCH_ITLB_STUB_BYTES + rel);
                        assert_true(pc < span);
                        /* Lands in a different page from the one it left. */
                        assert_int_not_equal(pc / cfgs[c].page_bytes, off[k] / cfgs[c].page_bytes);
                }
                assert_int_equal(pc, off[cfgs[c].n_pages - 1]);
                assert_int_equal(buf[pc], X86_RET);
                assert_int_equal(bench_itlb_gen(&cfgs[c], buf, span - 1, &entry), ST_BAD_ARG);

                /* The no-allocation variant (used inside a CR3 window) writes the same code
                 * and leaves the plan in the caller's scratch. */
                uint8_t  *buf2 = calloc(1, span);
                uint64_t *off2 = calloc(cfgs[c].n_pages, 8), entry2;
                assert_int_equal(bench_itlb_gen_off(&cfgs[c], off2, cfgs[c].n_pages, buf2, span,
                                                    &entry2), ST_OK);
                assert_int_equal(entry2, entry);
                assert_memory_equal(buf2, buf, span);
                assert_memory_equal(off2, off, cfgs[c].n_pages * 8);
                assert_int_equal(bench_itlb_gen_off(&cfgs[c], off2, cfgs[c].n_pages - 1 + 2, buf2,
                                                    span, &entry2), ST_BAD_ARG);
                free(buf2);
                free(off2);
                free(buf);
                free(off);
        }
        /* A chain spanning more than rel32 reaches is refused before touching the buffer. */
        struct bench_tlb_cfg far = { 2 * MiB, 1025, TLB_PTE_NEAR, 0 };
        uint8_t              one;
        uint64_t             entry;
        assert_int_equal(bench_itlb_gen(&far, &one, ~0ull, &entry), ST_BAD_ARG);
        assert_int_equal(bench_itlb_gen(&far, NULL, ~0ull, &entry), ST_BAD_ARG);
        (void)state;
}

static void test_sweep(void **state)
{
        static const struct {
                uint32_t min, max;
                unsigned steps;
        } cases[] = {
                { 4, 8192, 16 }, { 4, 8192, 1 }, { 1, 100, 8 }, { 5, 5, 4 }, { 3, 1000, 2 },
                { 4000000000u, 4294967295u, 16 },
        };
        uint32_t out[512];
        size_t   n;

        for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
                assert_int_equal(bench_tlb_sweep(cases[c].min, cases[c].max, cases[c].steps, out,
                                                 ARRAY_SIZE(out), &n), ST_OK);
                assert_int_equal(out[0], cases[c].min);
                assert_int_equal(out[n - 1], cases[c].max);
                for (size_t i = 1; i < n; i++) {
                        assert_true(out[i] > out[i - 1]);
                        /* Never a gap wider than one step (2^(1/steps)), bar rounding. */
                        uint64_t lim = (uint64_t)out[i - 1] * 2;
                        if (cases[c].steps == 16)
                                lim = (uint64_t)out[i - 1] * 1045 / 1000 + 1;
                        assert_true(out[i] <= lim);
                }
        }
        assert_int_equal(bench_tlb_sweep(4, 8192, 16, out, ARRAY_SIZE(out), &n), ST_OK);
        assert_true(n > 150 && n <= 177);
        assert_int_equal(bench_tlb_sweep(4, 8192, 16, out, 10, &n), ST_NO_SPACE);
        assert_int_equal(bench_tlb_sweep(0, 8192, 16, out, 10, &n), ST_BAD_ARG);
        assert_int_equal(bench_tlb_sweep(9, 8, 16, out, 10, &n), ST_BAD_ARG);
        assert_int_equal(bench_tlb_sweep(4, 8, 3, out, 10, &n), ST_BAD_ARG);
        assert_int_equal(bench_tlb_sweep(4, 8, 32, out, 10, &n), ST_BAD_ARG);
        assert_int_equal(bench_tlb_sweep(4, 8, 16, NULL, 10, &n), ST_BAD_ARG);
        (void)state;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan_properties), cmocka_unit_test(test_plan_order),
                cmocka_unit_test(test_plan_bad),        cmocka_unit_test(test_itlb_chain),
                cmocka_unit_test(test_sweep),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
