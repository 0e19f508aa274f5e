/** @file Tests for pmu/x86/pmu.c + pmu/x86/drv_intel.c against the register-level model
 *  (tests/fake_msr.c): exact MSR writes, start/stop/read, wrap and overflow, no PMU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/msr_arch.h"
#include "pmu/pmu.h"
#include "tests/fake_msr.h"

#define GP(n)    ((struct pmu_slot){ .fixed = false, .idx = (n) })
#define FIXED(n) ((struct pmu_slot){ .fixed = true, .idx = (n) })

struct wr {
        uint32_t msr;
        uint64_t val;
};

static void expect_writes(const struct wr *w, size_t n)
{
        if (fake_msr_n_writes() != n) {
                for (size_t i = 0; i < fake_msr_n_writes(); i++)
                        print_message("  write %zu: %#x = %#llx\n", i, fake_msr_write_at(i)->msr,
                                      (unsigned long long)fake_msr_write_at(i)->val);
                fail_msg("expected %zu writes, got %zu", n, fake_msr_n_writes());
        }
        for (size_t i = 0; i < n; i++) {
                const struct fake_msr_write *g = fake_msr_write_at(i);
                if (g->msr != w[i].msr || g->val != w[i].val)
                        fail_msg("write %zu: got %#x = %#llx, want %#x = %#llx", i, g->msr,
                                 (unsigned long long)g->val, w[i].msr, (unsigned long long)w[i].val);
        }
        fake_msr_clear_log();
}

/* pmu_init saves the counter MSRs and resets them (stopped first, so that nothing counts
 * before pmu_start); the tests below look at the writes after that. */
static void init_ok(const struct cpu_info *ci)
{
        assert_int_equal(pmu_init(ci), ST_OK);
        if (pmu_get_caps()->has_global) {
                assert_true(fake_msr_n_writes() > 0);
                assert_int_equal(fake_msr_write_at(0)->val, 0); /* global enable off first */
        }
        fake_msr_clear_log();
}

/* An Ice Lake client core as CPUID describes it: v5, 8 GP x 48 bits, 4 fixed x 48 bits. */
static struct cpu_info icl(unsigned version, bool fw_writes)
{
        struct cpu_info ci = { .vendor = VEN_INTEL, .family = 6, .model = 0x7e };
        ci.intel = (struct cpu_pmu_intel){ .version = (uint8_t)version, .n_gp = 8, .gp_width = 48,
                                           .ebx_len = 8, .n_fixed = 4, .fixed_width = 48,
                                           .pdcm = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .version = version, .n_gp = 8,
                                    .gp_width = 48, .n_fixed = 4, .fixed_width = 48, .pdcm = true,
                                    .perf_caps = fw_writes ? PERF_CAP_FW_WRITES | 0x4 : 0x4 };
        fake_msr_setup(&cfg);
        return ci;
}

static const struct pmu_event_desc *alias(const char *a)
{
        const struct pmu_event_desc *ev = NULL;
        const char                  *why;
        assert_int_equal(pmu_alias_event(a, &ev, &why), ST_OK);
        return ev;
}

static void test_no_pmu_tcg(void **unused)
{
        struct cpu_info     ci  = { .vendor = VEN_INTEL, .family = 6, .model = 0x6a, .hypervisor = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .tcg_like = true };
        const struct pmu_event_desc *ev;
        const char *why;
        uint64_t v;

        fake_msr_setup(&cfg);
        assert_int_equal(pmu_init(&ci), ST_UNSUPPORTED);
        assert_false(pmu_available());
        assert_non_null(strstr(pmu_get_caps()->reason, "CPUID.0AH"));
        assert_int_equal(pmu_program(GP(0), pmu_events_table("intel-arch")->events, PMU_OS, 0),
                         ST_UNSUPPORTED);
        assert_int_equal(pmu_start(1), ST_UNSUPPORTED);
        assert_int_equal(pmu_read(GP(0), &v), ST_UNSUPPORTED);
        assert_int_equal(pmu_reset(), ST_UNSUPPORTED);
        assert_int_equal(pmu_alias_event("cycles", &ev, &why), ST_UNSUPPORTED);
        assert_non_null(strstr(why, "CPUID.0AH"));
        assert_false(pmu_has_fixed(0));
        assert_int_equal(pmu_n_gp(), 0);
        assert_int_equal(fake_msr_n_writes(), 0);
        assert_int_equal(pmu_init(NULL), ST_BAD_ARG);
}

static void test_pmc0_faults_means_no_pmu(void **unused)
{
        struct cpu_info ci = icl(4, false);

        fake_msr_remove(MSR_ARCH_PERFMON_PERFCTR0);
        assert_int_equal(pmu_init(&ci), ST_UNSUPPORTED);
        assert_non_null(strstr(pmu_get_caps()->reason, "#GP"));
        assert_int_equal(msr_last_fault_vector(), 13);
}

static void test_caps(void **unused)
{
        struct cpu_info ci = icl(5, true);

        ci.intel.n_fixed    = 1;
        ci.intel.fixed_mask = 0x5; /* v5: fixed 0 and 2 by ECX */
        init_ok(&ci);
        const struct pmu_caps *c = pmu_get_caps();
        assert_int_equal(c->n_gp, 8);
        assert_int_equal(c->gp_width, 48);
        assert_true(pmu_has_full_width_writes());
        assert_true(pmu_has_global_ctrl());
        assert_true(pmu_has_fixed(0));
        assert_false(pmu_has_fixed(1));
        assert_true(pmu_has_fixed(2));
        assert_false(pmu_has_fixed(3));
        assert_string_equal(c->events->name, "intel-icelake");
        assert_int_equal(c->perf_caps & PERF_CAP_FW_WRITES, PERF_CAP_FW_WRITES);
        assert_int_equal(fake_msr_n_writes(), 0); /* probing only reads */

        /* Same CPU without PDCM: IA32_PERF_CAPABILITIES is never touched. */
        ci = icl(2, true);
        ci.intel.pdcm = false;
        init_ok(&ci);
        assert_false(pmu_get_caps()->has_perf_caps);
        assert_false(pmu_has_full_width_writes());
}

static void test_count_gp_and_fixed(void **unused)
{
        struct cpu_info ci = icl(4, true);
        uint64_t        v;

        init_ok(&ci);
        const struct pmu_event_desc *cyc = alias("cycles");
        const struct pmu_event_desc *fx0 = pmu_event_find(pmu_get_caps()->events, "INST_RETIRED.ANY");
        assert_non_null(fx0);

        assert_int_equal(pmu_program(GP(0), cyc, PMU_OS | PMU_USR, 0), ST_OK);
        const struct wr w1[] = { { 0x186, 0 }, { 0x4c1, 0 }, { 0x186, 0x43003c } };
        expect_writes(w1, 3);
        assert_int_equal(pmu_program(FIXED(0), fx0, PMU_OS, 0), ST_OK);
        const struct wr w2[] = { { 0x38d, 0 }, { 0x309, 0 }, { 0x38d, 0x1 } };
        expect_writes(w2, 3);

        fake_msr_inject(0x3c, 0, 500); /* not started: nothing counts */
        assert_int_equal(pmu_start(BIT_ULL(0) | BIT_ULL(32)), ST_OK);
        const struct wr w3[] = { { 0x38f, 0x100000001ull } };
        expect_writes(w3, 1);
        fake_msr_inject(0x3c, 0, 1000);
        fake_msr_inject(0xc0, 0, 777);
        fake_msr_inject(0x3c, 1, 5); /* ref cycles: not selected */
        assert_int_equal(pmu_stop(BIT_ULL(0)), ST_OK);
        fake_msr_inject(0x3c, 0, 1000);
        fake_msr_inject(0xc0, 0, 3);
        assert_int_equal(pmu_read(GP(0), &v), ST_OK);
        assert_int_equal(v, 1000);
        assert_int_equal(pmu_read(FIXED(0), &v), ST_OK);
        assert_int_equal(v, 780);
        assert_int_equal(rdpmc_safe(pmu_rdpmc_index(FIXED(0)), &v), ST_OK);
        assert_int_equal(v, 780);
        assert_int_equal(pmu_rdpmc_index(FIXED(1)), (1u << 30) | 1);
        assert_int_equal(rdpmc_safe((1u << 30) | 5, &v), ST_FAULT);
        assert_int_equal(rdpmc_safe(8, &v), ST_FAULT);
        assert_int_equal(msr_last_fault_vector(), 13);
}

static void test_overflow_and_wrap(void **unused)
{
        struct cpu_info ci = icl(4, true);
        uint64_t        v, st;

        init_ok(&ci);
        const struct pmu_event_desc *ins = alias("insts");
        assert_int_equal(pmu_program(GP(1), ins, PMU_OS | PMU_INT, -100ull), ST_OK);
        const struct wr w[] = { { 0x187, 0 }, { 0x4c2, 0xffffffffff9cull }, { 0x187, 0x5200c0 } };
        expect_writes(w, 3);
        assert_int_equal(pmu_start(BIT_ULL(1)), ST_OK);
        fake_msr_inject(0xc0, 0, 99);
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st, 0);
        fake_msr_inject(0xc0, 0, 51);
        assert_int_equal(pmu_read(GP(1), &v), ST_OK);
        assert_int_equal(v, 50);
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st, BIT_ULL(1));
        assert_int_equal(fake_msr_n_pmi(), 1);
        fake_msr_clear_log();
        assert_int_equal(pmu_ovf_clear(BIT_ULL(1) | BIT_ULL(40)), ST_OK); /* bit 40 not clearable */
        const struct wr wc[] = { { 0x390, 0x2 } };
        expect_writes(wc, 1);
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st, 0);
        /* A full-width value wider than the counter is masked, never written raw. */
        assert_int_equal(pmu_write(GP(1), 0xffff000000000005ull), ST_OK);
        assert_int_equal(pmu_read(GP(1), &v), ST_OK);
        assert_int_equal(v, 5);
}

static void test_legacy_writes_without_fw(void **unused)
{
        struct cpu_info ci = icl(3, false);
        uint64_t        v;

        init_ok(&ci);
        assert_false(pmu_has_full_width_writes());
        const struct pmu_event_desc *br = alias("branches");
        assert_int_equal(pmu_program(GP(2), br, PMU_OS, -100ull), ST_OK);
        const struct wr w[] = { { 0x188, 0 }, { 0xc3, 0xffffff9cull }, { 0x188, 0x4200c4 } };
        expect_writes(w, 3);
        assert_int_equal(pmu_read(GP(2), &v), ST_OK);
        assert_int_equal(v, 0xffffffffff9cull); /* sign-extended to 48 bits by the CPU */
        /* 2^40 cannot be written through the 32-bit legacy path. */
        assert_int_equal(pmu_program(GP(2), br, PMU_OS, 1ull << 40), ST_UNSUPPORTED);
        assert_int_equal(pmu_program(GP(2), br, PMU_OS, 0x7fffffff), ST_OK);
}

static void test_v1_enable_in_evtsel(void **unused)
{
        struct cpu_info ci = icl(1, false);
        uint64_t        v;

        init_ok(&ci);
        assert_false(pmu_has_global_ctrl());
        assert_false(pmu_has_fixed(0));
        const struct pmu_event_desc *ins = alias("insts");
        assert_int_equal(pmu_program(GP(0), ins, PMU_OS, 0), ST_OK);
        const struct wr w[] = { { 0x186, 0 }, { 0xc1, 0 }, { 0x186, 0x0200c0 } };
        expect_writes(w, 3);
        assert_int_equal(pmu_start(BIT_ULL(0)), ST_OK);
        const struct wr ws[] = { { 0x186, 0x4200c0 } };
        expect_writes(ws, 1);
        fake_msr_inject(0xc0, 0, 42);
        assert_int_equal(pmu_stop(BIT_ULL(0)), ST_OK);
        const struct wr wt[] = { { 0x186, 0x0200c0 } };
        expect_writes(wt, 1);
        fake_msr_inject(0xc0, 0, 42);
        assert_int_equal(pmu_read(GP(0), &v), ST_OK);
        assert_int_equal(v, 42);
        assert_int_equal(pmu_ovf_status(&v), ST_UNSUPPORTED);
        assert_int_equal(pmu_start(BIT_ULL(32)), ST_BAD_ARG); /* no fixed counters on v1 */
}

static void test_reset_writes(void **unused)
{
        struct cpu_info ci = icl(4, true);

        ci.intel.n_gp = 2;
        ci.intel.n_fixed = 3;
        init_ok(&ci);
        assert_int_equal(pmu_reset(), ST_OK);
        const struct wr w[] = {
                { 0x38f, 0 }, { 0x186, 0 }, { 0x4c1, 0 }, { 0x187, 0 }, { 0x4c2, 0 },
                { 0x38d, 0 }, { 0x309, 0 }, { 0x30a, 0 }, { 0x30b, 0 },
                { 0x390, 0xfc80000700000003ull }, /* counters + v4 flag bits 55, 58-63 */
        };
        expect_writes(w, sizeof(w) / sizeof(w[0]));
}

static void test_event_availability(void **unused)
{
        struct cpu_info              ci = icl(4, true);
        const struct pmu_event_desc *ev;
        const char                  *why;

        ci.model = 0x3c; /* Haswell: no model table, architectural events only */
        ci.intel.events_unavailable = 1u << 6;
        ci.intel.ebx_len = 7;
        init_ok(&ci);
        assert_string_equal(pmu_get_caps()->events->name, "intel-arch");
        assert_int_equal(pmu_alias_event("insts", &ev, &why), ST_OK);
        assert_int_equal(pmu_alias_event("br-misses", &ev, &why), ST_UNSUPPORTED);
        assert_non_null(strstr(why, "CPUID.0AH:EBX"));
        assert_null(ev);
        assert_int_equal(pmu_alias_event("l2-misses", &ev, &why), ST_UNSUPPORTED);
        assert_non_null(strstr(why, "no architectural"));

        /* EBX length 5: events 5 and 6 are not enumerated, hence unavailable. */
        ci.intel.events_unavailable = 0;
        ci.intel.ebx_len = 5;
        init_ok(&ci);
        assert_int_equal(pmu_alias_event("branches", &ev, &why), ST_UNSUPPORTED);
        assert_int_equal(pmu_alias_event("llc-misses", &ev, &why), ST_OK);

        /* Nehalem: erratum AAJ80 rules out Branch Misses Retired. */
        ci.model = 0x1e;
        ci.intel.ebx_len = 7;
        init_ok(&ci);
        assert_true(pmu_has_quirk(PMU_Q_BR_MISS_RETIRED_BROKEN));
        assert_int_equal(pmu_alias_event("br-misses", &ev, &why), ST_UNSUPPORTED);
        assert_non_null(strstr(why, "AAJ80"));
}

static void test_bad_arguments(void **unused)
{
        struct cpu_info ci = icl(4, true);
        uint64_t        v;

        init_ok(&ci);
        const struct pmu_event_desc *cyc = alias("cycles");
        const struct pmu_event_desc *fx1 = pmu_event_find(pmu_get_caps()->events, "CPU_CLK_UNHALTED.THREAD");
        fake_msr_clear_log();
        assert_int_equal(pmu_program(GP(8), cyc, PMU_OS, 0), ST_BAD_ARG);
        assert_int_equal(pmu_program(FIXED(1), cyc, PMU_OS, 0), ST_BAD_ARG);  /* GP event on fixed */
        assert_int_equal(pmu_program(FIXED(0), fx1, PMU_OS, 0), ST_BAD_ARG);  /* wrong fixed */
        assert_int_equal(pmu_program(GP(0), fx1, PMU_OS, 0), ST_BAD_ARG);     /* fixed on GP */
        assert_int_equal(pmu_program(GP(0), NULL, PMU_OS, 0), ST_BAD_ARG);
        assert_int_equal(pmu_start(BIT_ULL(8)), ST_BAD_ARG);
        assert_int_equal(pmu_start(BIT_ULL(36)), ST_BAD_ARG);
        assert_int_equal(pmu_read(GP(0), NULL), ST_BAD_ARG);
        assert_int_equal(pmu_read(FIXED(4), &v), ST_BAD_ARG);
        assert_int_equal(fake_msr_n_writes(), 0);
        assert_int_equal(pmu_program(FIXED(1), fx1, PMU_OS | PMU_INT, 0), ST_OK);
        assert_int_equal(fake_msr_peek(0x38d), 0x90); /* OS | PMI in the second nibble */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_pmu_tcg),         cmocka_unit_test(test_pmc0_faults_means_no_pmu),
                cmocka_unit_test(test_caps),               cmocka_unit_test(test_count_gp_and_fixed),
                cmocka_unit_test(test_overflow_and_wrap),  cmocka_unit_test(test_legacy_writes_without_fw),
                cmocka_unit_test(test_v1_enable_in_evtsel), cmocka_unit_test(test_reset_writes),
                cmocka_unit_test(test_event_availability), cmocka_unit_test(test_bad_arguments),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
