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
#include "report/x86/samples.h"
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
        fake_msr_add(MSR_ARCH_PERFMON_PERFCTR0, 1234); /* 1234 cycles since the overflow */
        pmu_lbr_session_on_pmi(&s);
        assert_int_equal(s.n_stacks, 1);
        assert_int_equal(stack_n[0], 4);
        assert_int_equal(stacks[0].from, jcc);
        assert_int_equal(stacks[0].to, top);
        assert_int_equal(stacks[0].cycles, 48);
        assert_int_equal(fake_msr_peek(MSR_CORE_PERF_GLOBAL_STATUS), 0);  /* unfrozen, acked */
        /* reloaded a period before the next PMI, the cycles since the overflow kept */
        assert_int_equal(fake_msr_peek(MSR_ARCH_PERFMON_PERFCTR0),
                         (1234 - 100003ull) & ((1ull << 48) - 1));

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

/* A probed session on @p ci with room for @p cap stacks in @p stacks / @p stack_n. */
static void probe_with_stacks(const struct cpu_info *ci, struct pmu_lbr_session *s,
                              struct lbr_entry *stacks, unsigned *stack_n, size_t cap)
{
        assert_int_equal(pmu_lbr_session_probe(ci, s), ST_OK);
        s->stacks = stacks;
        s->stack_n = stack_n;
        s->stack_cap = cap;
}

/* Legacy LBR that cannot serve: each says why, in words a reader can act on. */
static void test_lbr_probe_legacy_reasons(void **unused)
{
        struct pmu_lbr_session s;
        struct cpu_info ci;
        (void)unused;

        ci = fake_intel_skx_caps(false, 0, 4);
        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "no IA32_PERF_CAPABILITIES"));
        ci = fake_intel_skx_caps(true, 0x300 | 0x3f, 4);       /* LBR format 63 */
        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "LBR format 63 not known"));
        /* format 3: no cycle counts */
        ci = fake_intel_skx_caps(true, 0x300 | LBR_FORMAT_EIP_FLAGS, 4);
        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "no cycle counts"));
        ci = fake_intel_skx_caps(true, 0x305, 4);
        fake_msr_remove(MSR_LBR_NHM_TO);                   /* the stack faults on read */
        assert_int_equal(pmu_lbr_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "faults on read"));
}

/* An MSR write that faults while arming undoes what was set: DEBUGCTL and LBR_SELECT as
 * found, counter 0 stopped, and the caller gets the fault. */
static void test_lbr_arm_fault_undoes(void **unused)
{
        struct cpu_info ci = fake_intel_skx_caps(true, 0x305, 4);
        struct pmu_lbr_session s;
        struct lbr_entry stacks[32];
        unsigned stack_n[1];
        (void)unused;

        probe_with_stacks(&ci, &s, stacks, stack_n, 1);
        fake_msr_add(MSR_IA32_DEBUGCTLMSR, 0x2);           /* BTF, the caller's */
        fake_msr_add(MSR_LBR_SELECT, 0x1);                 /* the caller's filter */
        fake_msr_remove(MSR_ARCH_PERFMON_EVENTSEL0);       /* the trigger cannot be programmed */
        assert_int_equal(pmu_lbr_session_arm(&s, 100003), ST_FAULT);
        assert_int_equal(fake_msr_peek(MSR_IA32_DEBUGCTLMSR), 0x2);
        assert_int_equal(fake_msr_peek(MSR_LBR_SELECT), 0x1);
        assert_int_equal(fake_msr_peek(MSR_CORE_PERF_GLOBAL_CTRL) & 1, 0);
        fake_msr_add(MSR_ARCH_PERFMON_EVENTSEL0, 0);
        fake_msr_remove(MSR_LBR_SELECT);                   /* the first write faults */
        assert_int_equal(pmu_lbr_session_arm(&s, 100003), ST_FAULT);
        assert_int_equal(fake_msr_peek(MSR_IA32_DEBUGCTLMSR), 0x2);
        assert_int_equal(pmu_lbr_session_arm(NULL, 1), ST_BAD_ARG);
        s.stacks = NULL;
        assert_int_equal(pmu_lbr_session_arm(&s, 1), ST_BAD_ARG);
}

/* Perfmon v3: the freeze clears DEBUGCTL.LBR and the PMI sets it again; an entry that faults
 * on read is counted as an error and the stack is still taken. */
static void test_lbr_pmi_v3_and_read_errors(void **unused)
{
        struct cpu_info ci = fake_intel_skx_caps(true, 0x305, 3);
        struct pmu_lbr_session s;
        struct lbr_entry stacks[2 * 32];
        unsigned stack_n[2];
        (void)unused;

        probe_with_stacks(&ci, &s, stacks, stack_n, 2);
        assert_int_equal(pmu_lbr_session_arm(&s, 100003), ST_OK);
        fake_msr_add(MSR_IA32_DEBUGCTLMSR, 0);             /* frozen: LBR cleared */
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 1);
        pmu_lbr_session_on_pmi(&s);
        assert_int_equal(s.n_stacks, 1);
        assert_int_equal(s.n_errors, 0);
        assert_true(fake_msr_peek(MSR_IA32_DEBUGCTLMSR) & DEBUGCTLMSR_LBR);
        fake_msr_remove(MSR_LBR_INFO_0 + 5);
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 1);
        pmu_lbr_session_on_pmi(&s);
        assert_int_equal(s.n_stacks, 2);
        assert_int_equal(s.n_errors, 1);
        assert_int_equal(pmu_lbr_session_disarm(&s), ST_OK);
        assert_int_equal(pmu_lbr_session_disarm(NULL), ST_BAD_ARG);
}

/* Architectural LBR: arming sets the depth (which clears the entries) and the control;
 * disarming gives back both as the caller had them. */
static void test_lbr_arch_restores_depth(void **unused)
{
        struct cpu_info ci = fake_intel_skx();
        struct pmu_lbr_session s;
        struct lbr_entry stacks[32];
        unsigned stack_n[1];
        (void)unused;

        ci.intel.arch_lbr = true;
        ci.intel.arch_lbr_depth_mask = 0x08;        /* depth 32 */
        ci.intel.arch_lbr_ecx = 0x7;                /* mispredict, timed, branch type */
        ci.intel.arch_lbr_ebx = 0x7;
        fake_msr_add(MSR_ARCH_LBR_CTL, 0);
        fake_msr_add(MSR_ARCH_LBR_DEPTH, 8);        /* the caller's depth */
        for (unsigned i = 0; i < 32; i++) {
                fake_msr_add(MSR_ARCH_LBR_FROM_0 + i, 0);
                fake_msr_add(MSR_ARCH_LBR_TO_0 + i, 0);
                fake_msr_add(MSR_ARCH_LBR_INFO_0 + i, 0);
        }
        probe_with_stacks(&ci, &s, stacks, stack_n, 1);
        assert_true(s.fmt.arch);
        assert_int_equal(s.fmt.depth, 32);
        assert_int_equal(pmu_lbr_session_arm(&s, 100003), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_ARCH_LBR_DEPTH), 32);
        assert_true(fake_msr_peek(MSR_ARCH_LBR_CTL) & 1); /* LBREn */
        assert_int_equal(pmu_lbr_session_disarm(&s), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_ARCH_LBR_DEPTH), 8);
        assert_int_equal(fake_msr_peek(MSR_ARCH_LBR_CTL), 0);
}

/* ---- plan, report, JSON ----------------------------------------------------------------- */

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lbr_model_depth),
                cmocka_unit_test(test_lbr_freeze_read_unfreeze),
                cmocka_unit_test(test_lbr_probe_reasons),
                cmocka_unit_test(test_lbr_probe_legacy_reasons),
                cmocka_unit_test(test_lbr_arm_fault_undoes),
                cmocka_unit_test(test_lbr_pmi_v3_and_read_errors),
                cmocka_unit_test(test_lbr_arch_restores_depth),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
