/** @file
 * Host tests of the LBR session (pmu/x86/lbr_session.c) against the register model
 * tests/fake_msr.c: the legacy depth table, freeze / read / unfreeze in the PMI, probe
 * reasons.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/kernel_block.h"
#include "pmu/x86/lbr_session.h"
#include "report/samples.h"
#include "tests/fake_intel.h"

/* The legacy LBR depth table: Arch LBR parts and unknown models are not in it. */
static void test_lbr_model_depth(void **unused)
{
        static const struct {
                uint32_t model;
                unsigned lbr_depth;
        } cases[] = {
                { 0x1a, 16 }, { 0x3c, 16 }, { 0x55, 32 },
                { 0x8f, 0 },   /* Arch LBR part */
                { 0xaf, 0 }, { 0x97, 0 },
                { 0x5c, 32 },  /* Goldmont: format 6 */
        };
        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                assert_int_equal(pmu_lbr_model_depth(cases[i].model), cases[i].lbr_depth);
}

static void test_lbr_freeze_read_unfreeze(void **unused)
{
        struct cpu_info ci = fake_intel_skx();
        struct pmu_lbr_session s;
        struct lbr_entry stacks[2 * 32];
        unsigned stack_n[2];
        const uint64_t top = (uint64_t)(uintptr_t)bench_block_top;
        const uint64_t jcc = (uint64_t)(uintptr_t)bench_block_jcc;

        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_OK);
        assert_int_equal(s.fmt.depth, 32);
        assert_true(s.fmt.has_cycles);
        s.stacks = stacks;
        s.stack_n = stack_n;
        s.stack_cap = 2;
        assert_int_equal(pmu_lbr_session_arm(&s, 100003), ST_OK);
        assert_true(fake_msr_peek(MSR_IA32_DEBUGCTLMSR) & DEBUGCTLMSR_LBR);
        assert_true(fake_msr_peek(MSR_IA32_DEBUGCTLMSR) & DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);
        assert_int_equal(fake_msr_peek(MSR_LBR_SELECT),
                         pmu_lbr_select_value(PMU_LBR_F_KERNEL | PMU_LBR_F_ALL_BRANCHES));

        /* Frozen stack: 4 back branches of the block kernel, TOS at 3, 48 cycles each. */
        for (unsigned i = 0; i < 4; i++) {
                fake_msr_add(MSR_LBR_NHM_FROM + i, jcc);
                fake_msr_add(MSR_LBR_NHM_TO + i, top);
                fake_msr_add(MSR_LBR_INFO_0 + i, 48);
        }
        fake_msr_add(MSR_LBR_TOS, 3);
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 1 | GLOBAL_STATUS_LBRS_FROZEN);
        pmu_lbr_session_on_pmi(&s);
        assert_int_equal(s.n_stacks, 1);
        assert_int_equal(stack_n[0], 4);
        assert_int_equal(stacks[0].from, jcc);
        assert_int_equal(stacks[0].to, top);
        assert_int_equal(stacks[0].cycles, 48);
        assert_int_equal(fake_msr_peek(MSR_CORE_PERF_GLOBAL_STATUS), 0);  /* unfrozen, acked */
        assert_int_equal(fake_msr_peek(MSR_ARCH_PERFMON_PERFCTR0), (-100003ull) & ((1ull << 48) - 1));

        /* Blocks from that stack: three top..jcc blocks of 48 cycles. */
        struct lbr_block blk[8];
        struct lbr_block_stat st[4];
        unsigned nb;
        size_t n_st = 0;
        struct rep_verdict v;
        assert_int_equal(pmu_lbr_blocks(stacks, stack_n[0], blk, 8, &nb, NULL), ST_OK);
        assert_int_equal(pmu_lbr_block_accumulate(st, &n_st, 4, blk, nb), ST_OK);
        assert_int_equal(rep_check_lbr_block_cost(st, n_st, top, jcc, 48000, 100, &v), ST_OK);
        assert_int_equal(v.v, REP_V_PASS);

        pmu_lbr_session_on_pmi(&s);          /* counter bit clear: spurious, still unfrozen */
        assert_int_equal(s.n_spurious, 1);
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 1);
        pmu_lbr_session_on_pmi(&s);
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 1);
        pmu_lbr_session_on_pmi(&s);
        assert_int_equal(s.n_dropped, 1);
        assert_int_equal(pmu_lbr_session_disarm(&s), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_IA32_DEBUGCTLMSR), 0);
        assert_int_equal(fake_msr_peek(MSR_LBR_SELECT), 0);
}

static void test_lbr_probe_reasons(void **unused)
{
        struct pmu_lbr_session s;
        struct cpu_info ci = { .vendor = VEN_AMD };

        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "not an Intel"));
        ci = fake_intel_skx();
        ci.model = 0x97;
        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "model table"));
        ci = fake_intel_skx();
        ci.intel.arch_lbr = true;
        ci.intel.arch_lbr_depth_mask = 0x80;   /* depth 64, no timed LBR */
        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "timed LBR"));
        fake_msr_setup(NULL);                  /* no PMU at all (TCG) */
        ci = (struct cpu_info){ .vendor = VEN_INTEL, .family = 6, .model = 0x55 };
        pmu_init(&ci);
        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "no core PMU"));
}

/* ---- plan, report, JSON ----------------------------------------------------------------- */

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lbr_model_depth),
                cmocka_unit_test(test_lbr_freeze_read_unfreeze),
                cmocka_unit_test(test_lbr_probe_reasons),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
