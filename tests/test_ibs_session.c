/** @file
 * Host tests of the IBS session (pmu/x86/ibs_session.c and the sides' arm, take and disarm in
 * ibs_op.c and ibs_fetch.c) against the register model
 * tests/fake_msr.c: probe reasons, the op PMI state machine, fetch re-arm and the Fam10h
 * disable sequence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/ibs_session.h"
#include "tests/fake_intel.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static struct cpu_info amd(uint32_t family, uint32_t model, uint32_t caps)
{
        struct cpu_info ci = { .vendor = VEN_AMD, .family = family, .model = model,
                               .max_ext_leaf = 0x80000021 };
        ci.amd.ibs = true;
        ci.amd.ibs_caps = caps;
        return ci;
}

static void add_ibs_msrs(uint64_t ibs_ctl)
{
        static const uint32_t msrs[] = {
                MSR_AMD64_IBSFETCHCTL, MSR_AMD64_IBSFETCHLINAD, MSR_AMD64_IBSFETCHPHYSAD,
                MSR_AMD64_IBSOPCTL, MSR_AMD64_IBSOPRIP, MSR_AMD64_IBSOPDATA, MSR_AMD64_IBSOPDATA2,
                MSR_AMD64_IBSOPDATA3, MSR_AMD64_IBSDCLINAD, MSR_AMD64_IBSDCPHYSAD,
                MSR_AMD64_IBSBRTARGET, MSR_AMD64_ICIBSEXTDCTL, MSR_AMD64_IBSOPDATA4,
        };
        fake_msr_setup(NULL);
        for (size_t i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++)
                fake_msr_add(msrs[i], 0);
        fake_msr_add(MSR_AMD64_IBSCTL, ibs_ctl);
}

/* ---- IBS -------------------------------------------------------------------------------- */

static void test_ibs_probe_reasons(void **unused)
{
        static const struct {
                uint32_t    family;
                bool        ibs, ctl_exists;
                uint64_t    ibs_ctl;
                status_t    want;
                const char *why;   /* substring of s.why */
        } cases[] = {
                { 0x19, false, true,  0x101, ST_UNSUPPORTED, "IBS is clear" },
                { 0x19, true,  false, 0,     ST_UNSUPPORTED, "faults" },
                { 0x10, true,  true,  0x000, ST_UNSUPPORTED, "F3x1cc" },
                { 0x19, true,  true,  0x002, ST_UNSUPPORTED, "LvtOffsetVal clear" },
                { 0x19, true,  true,  0x10c, ST_UNSUPPORTED, "at most" },
                { 0x19, true,  true,  0x101, ST_OK,          "" },
                { 0x17, true,  true,  0x100, ST_OK,          "" },
        };
        struct pmu_ibs_session s;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cpu_info ci = amd(cases[i].family, 1, 0x7ff);

                ci.amd.ibs = cases[i].ibs;
                add_ibs_msrs(cases[i].ibs_ctl);
                if (!cases[i].ctl_exists)
                        fake_msr_remove(MSR_AMD64_IBSCTL);
                assert_int_equal(pmu_ibs_session_probe(&ci, &s), cases[i].want);
                if (cases[i].want != ST_OK)
                        assert_non_null(strstr(s.why, cases[i].why));
                else
                        assert_int_equal(s.lvt.offset, cases[i].ibs_ctl & 0xf);
        }
        struct cpu_info intel = { .vendor = VEN_INTEL };
        assert_int_equal(pmu_ibs_session_probe(&intel, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "not an AMD"));
}

static void test_ibs_op_pmi_state_machine(void **unused)
{
        struct cpu_info ci = amd(0x19, 0x11, 0x7ff);  /* RdWrOpCnt, OpCnt, BrnTrgt, OpData4 */
        struct pmu_ibs_op_regs ops[2];
        struct pmu_ibs_op_opts opts = { .count = PMU_IBS_COUNT_DISPATCHED_OPS };
        struct pmu_ibs_session s;
        uint64_t ctl;

        add_ibs_msrs(0x101);
        assert_int_equal(pmu_ibs_session_probe(&ci, &s), ST_OK);
        assert_int_equal(pmu_ibs_op_ctl_encode(&s.info, 4096, &opts, &ctl), ST_OK);
        s.ops = ops;
        s.op_cap = 2;
        assert_int_equal(pmu_ibs_session_arm(&s, ctl, 0), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_AMD64_IBSOPCTL), ctl);

        /* No Val bit: spurious, nothing written. */
        fake_msr_clear_log();
        pmu_ibs_session_on_pmi(&s);
        assert_int_equal(s.n_spurious, 1);
        assert_int_equal(fake_msr_n_writes(), 0);

        /* A sample: the snapshot is stored and the control re-armed with Val clear, the
         * random CurCnt bits [38:32] kept (dispatched-op mode with RdWrOpCnt). */
        const uint64_t read = ctl | IBSOPCTL_OP_VAL | (0x55ull << IBSOPCTL_CURCNT_SHIFT) |
                              (0x1000ull << IBSOPCTL_CURCNT_SHIFT);
        fake_msr_add(MSR_AMD64_IBSOPRIP, 0xffff800000401000ull);
        fake_msr_add(MSR_AMD64_IBSOPDATA3, IBSOPDATA3_LD_OP | IBSOPDATA3_DC_LIN_ADDR_VALID);
        fake_msr_add(MSR_AMD64_IBSDCLINAD, 0x12340);
        fake_msr_add(MSR_AMD64_IBSOPDATA4, 1);
        for (int k = 0; k < 3; k++) {
                fake_msr_add(MSR_AMD64_IBSOPCTL, read);   /* the hardware set Val again */
                pmu_ibs_session_on_pmi(&s);
        }
        assert_int_equal(s.n_spurious, 1);
        assert_int_equal(s.n_op, 2);
        assert_int_equal(s.n_dropped, 1);          /* buffer of 2 */
        assert_int_equal(ops[0].op_rip, 0xffff800000401000ull);
        assert_int_equal(ops[1].dc_linad, 0x12340);
        assert_int_equal(ops[0].op_data4, 1);
        assert_int_equal(fake_msr_last_write()->msr, MSR_AMD64_IBSOPCTL);
        assert_int_equal(fake_msr_last_write()->val, pmu_ibs_op_ctl_rearm(&s.info, ctl, read));
        assert_false(fake_msr_last_write()->val & IBSOPCTL_OP_VAL);
        assert_int_equal((fake_msr_last_write()->val >> IBSOPCTL_CURCNT_SHIFT) & 0x7f, 0x55);
        /* Each of the three re-arms (the dropped sample's too) carried 0x55 ops into the
         * next period, which the op count takes off. */
        assert_int_equal(s.op_carried, 3 * 0x55);

        /* Disarm: counted-so-far from CurCnt[26:7] (its low 7 bits are random), then En
         * cleared in one write (not Fam10h). */
        fake_msr_add(MSR_AMD64_IBSOPCTL, ctl | (300ull << IBSOPCTL_CURCNT_SHIFT));
        fake_msr_clear_log();
        assert_int_equal(pmu_ibs_session_disarm(&s), ST_OK);
        assert_int_equal(s.op_tail, 256);
        assert_int_equal(fake_msr_n_writes(), 1);
        assert_false(fake_msr_peek(MSR_AMD64_IBSOPCTL) & IBSOPCTL_OP_EN);
}

static void test_ibs_fetch_and_fam10h_disable(void **unused)
{
        static const struct {
                uint32_t family;
                size_t   rearm_writes, disable_writes;
        } cases[] = {
                { 0x17, 2, 1 },   /* fetch_count_reset_broken: En off, then on */
                { 0x19, 1, 1 },
                { 0x10, 1, 2 },   /* erratum 420: MaxCnt cleared before En */
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cpu_info ci = amd(cases[i].family, 1, 0);
                struct pmu_ibs_fetch_regs f[4];
                struct pmu_ibs_session s;
                uint64_t ctl;

                add_ibs_msrs(0x100);
                assert_int_equal(pmu_ibs_session_probe(&ci, &s), ST_OK);
                assert_int_equal(pmu_ibs_fetch_ctl_encode(&s.info, 1024, true, false, &ctl), ST_OK);
                s.fetches = f;
                s.fetch_cap = 4;
                assert_int_equal(pmu_ibs_session_arm(&s, 0, ctl), ST_OK);
                fake_msr_add(MSR_AMD64_IBSFETCHCTL, ctl | IBSFETCHCTL_VAL | IBSFETCHCTL_COMP);
                fake_msr_add(MSR_AMD64_IBSFETCHLINAD, 0x401000);
                fake_msr_clear_log();
                pmu_ibs_session_on_pmi(&s);
                assert_int_equal(s.n_fetch, 1);
                assert_int_equal(f[0].fetch_linad, 0x401000);
                assert_int_equal(fake_msr_n_writes(), cases[i].rearm_writes);
                assert_int_equal(fake_msr_last_write()->val, ctl);
                if (cases[i].rearm_writes == 2)
                        assert_int_equal(fake_msr_write_at(0)->val, ctl & ~IBSFETCHCTL_EN);
                fake_msr_clear_log();
                assert_int_equal(pmu_ibs_session_disarm(&s), ST_OK);
                assert_int_equal(fake_msr_n_writes(), cases[i].disable_writes);
                assert_int_equal(fake_msr_peek(MSR_AMD64_IBSFETCHCTL) &
                                 (IBSFETCHCTL_EN | IBSFETCHCTL_MAXCNT), 0);
        }
}

/* ---- Intel: PEBS and LBR on the model ---------------------------------------------------- */

/* A Skylake-X core: v4, 4 GP x 48 bits, 3 fixed; PEBS format 3, LBR format 5 (INFO). */

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ibs_probe_reasons),
                cmocka_unit_test(test_ibs_op_pmi_state_machine),
                cmocka_unit_test(test_ibs_fetch_and_fam10h_disable),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
