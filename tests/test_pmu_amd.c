/** @file Tests for pmu/x86/pmu.c + pmu/x86/drv_amd.c against the register-level model: legacy,
 *  extended core counters and PerfMonV2; exact MSR writes, wrap, overflow, no PMU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/msr_amd.h"
#include "pmu/pmu.h"
#include "tests/fake_msr.h"

#define GP(n) ((struct pmu_slot){ .fixed = false, .idx = (n) })

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

/* Zen 4 (Genoa, family 19h model 11h): PerfCtrExtCore, PerfMonV2 with 6 counters. */
static struct cpu_info zen4(bool v2)
{
        struct cpu_info ci = { .vendor = VEN_AMD, .family = 0x19, .model = 0x11 };
        ci.amd = (struct cpu_pmu_amd){ .perfctr_core = true, .perfmon_v2 = v2, .n_core = v2 ? 6 : 0 };
        struct fake_msr_cfg cfg = { .layout = FAKE_AMD_EXT, .version = v2 ? 2 : 1, .n_gp = 6 };
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
        struct cpu_info     ci  = { .vendor = VEN_AMD, .family = 0x19, .model = 0x11, .hypervisor = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_AMD_LEGACY, .tcg_like = true };
        uint64_t            v;

        fake_msr_setup(&cfg);
        assert_int_equal(pmu_init(&ci), ST_UNSUPPORTED);
        assert_non_null(strstr(pmu_get_caps()->reason, "PerfCtrExtCore"));
        assert_int_equal(pmu_read(GP(0), &v), ST_UNSUPPORTED);
        assert_int_equal(rdpmc_safe(0, &v), ST_FAULT);
        assert_int_equal(fake_msr_n_writes(), 0);
        /* Hygon and a bare-metal pre-Zen AMD without PerfCtrExtCore use the legacy four. */
        ci = (struct cpu_info){ .vendor = VEN_AMD, .family = 0x10, .model = 0x04 };
        cfg = (struct fake_msr_cfg){ .layout = FAKE_AMD_LEGACY };
        fake_msr_setup(&cfg);
        init_ok(&ci);
        assert_int_equal(pmu_get_caps()->kind, PMU_AMD_LEGACY);
        assert_int_equal(pmu_n_gp(), 4);
        assert_null(pmu_get_caps()->events); /* no table for family 10h: aliases unsupported */
        const struct pmu_event_desc *ev;
        const char *why;
        assert_int_equal(pmu_alias_event("cycles", &ev, &why), ST_UNSUPPORTED);
        assert_string_equal(why, "no event table for this CPU");
}

static void test_caps(void **unused)
{
        struct cpu_info ci = zen4(true);

        init_ok(&ci);
        const struct pmu_caps *c = pmu_get_caps();
        assert_int_equal(c->kind, PMU_AMD_CORE_EXT);
        assert_int_equal(c->n_gp, 6);
        assert_int_equal(c->gp_width, 48);
        assert_int_equal(c->version, 2);
        assert_true(pmu_has_global_ctrl());
        assert_true(pmu_has_full_width_writes());
        assert_false(pmu_has_fixed(0));
        assert_string_equal(c->events->name, "amd-zen4");
        assert_int_equal(fake_msr_n_writes(), 0);

        ci = zen4(false);
        init_ok(&ci);
        assert_false(pmu_has_global_ctrl());
        assert_int_equal(pmu_get_caps()->version, 1);

        /* Zen 3 family 19h model 21h picks the Zen 3 table. */
        ci = zen4(true);
        ci.model = 0x21;
        init_ok(&ci);
        assert_string_equal(pmu_get_caps()->events->name, "amd-zen3");
}

static void test_v2_program_count_overflow(void **unused)
{
        struct cpu_info ci = zen4(true);
        uint64_t        v, st;

        init_ok(&ci);
        const struct pmu_event_desc *ins = alias("insts");
        const struct pmu_event_desc *p0 =
                pmu_event_find(pmu_get_caps()->events, "ls_not_halted_p0_cyc.p0_freq_cyc");
        assert_int_equal(pmu_program(GP(0), ins, PMU_OS | PMU_USR, 0), ST_OK);
        assert_int_equal(pmu_program(GP(5), p0, PMU_OS | PMU_INT, -10ull), ST_OK);
        const struct wr w[] = {
                { 0xc0010200, 0 }, { 0xc0010201, 0 }, { 0xc0010200, 0x4300c0 },
                { 0xc001020a, 0 }, { 0xc001020b, 0xfffffffffff6ull }, { 0xc001020a, 0x100520120ull },
        };
        expect_writes(w, 6);
        fake_msr_inject(0xc0, 0, 10); /* GlobalCtl clear: nothing counts */
        assert_int_equal(pmu_start(BIT_ULL(0) | BIT_ULL(5)), ST_OK);
        const struct wr ws[] = { { 0xc0000301, 0x21 } };
        expect_writes(ws, 1);
        fake_msr_inject(0xc0, 0, 1234);
        fake_msr_inject(0x20, 1, 1000); /* low byte alone must not match event 0x120 */
        assert_int_equal(pmu_read(GP(5), &v), ST_OK);
        assert_int_equal(v, 0xfffffffffff6ull);
        fake_msr_inject(0x120, 1, 15);
        assert_int_equal(pmu_read(GP(0), &v), ST_OK);
        assert_int_equal(v, 1234);
        assert_int_equal(pmu_read(GP(5), &v), ST_OK);
        assert_int_equal(v, 5);
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st, BIT_ULL(5));
        assert_int_equal(fake_msr_n_pmi(), 1);
        assert_int_equal(pmu_ovf_clear(BIT_ULL(5)), ST_OK);
        const struct wr wc[] = { { 0xc0000302, 0x20 } };
        expect_writes(wc, 1);
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st, 0);
        assert_int_equal(pmu_stop(BIT_ULL(0)), ST_OK);
        const struct wr wt[] = { { 0xc0000301, 0x20 } };
        expect_writes(wt, 1);
        assert_int_equal(rdpmc_safe(pmu_rdpmc_index(GP(0)), &v), ST_OK);
        assert_int_equal(v, 1234);
        assert_int_equal(rdpmc_safe(6, &v), ST_FAULT);
}

static void test_no_v2_enable_in_ctl_and_emulated_overflow(void **unused)
{
        struct cpu_info ci = zen4(false);
        uint64_t        v, st;

        init_ok(&ci);
        const struct pmu_event_desc *br = alias("branches");
        assert_int_equal(pmu_program(GP(1), br, PMU_OS, -3ull), ST_OK);
        const struct wr w[] = { { 0xc0010202, 0 }, { 0xc0010203, 0xfffffffffffdull }, { 0xc0010202, 0x0200c2 } };
        expect_writes(w, 3);
        assert_int_equal(pmu_start(BIT_ULL(1)), ST_OK);
        const struct wr ws[] = { { 0xc0010202, 0x4200c2 } };
        expect_writes(ws, 1);
        fake_msr_inject(0xc2, 0, 2);
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st, 0);
        fake_msr_inject(0xc2, 0, 2);
        assert_int_equal(pmu_read(GP(1), &v), ST_OK);
        assert_int_equal(v, 1); /* wrapped at 48 bits */
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st, BIT_ULL(1)); /* bit 47 cleared: overflowed */
        assert_int_equal(pmu_ovf_clear(BIT_ULL(1)), ST_OK);
        assert_int_equal(fake_msr_n_writes(), 0); /* nothing to clear without PerfMonV2 */
        assert_int_equal(pmu_start(BIT_ULL(6)), ST_BAD_ARG);
}

static void test_legacy_addresses(void **unused)
{
        struct cpu_info     ci  = { .vendor = VEN_AMD, .family = 0x10, .model = 0x02 };
        struct fake_msr_cfg cfg = { .layout = FAKE_AMD_LEGACY };
        struct pmu_event_desc cyc = { .name = "cycles", .code = 0x76, .fixed = -1, .arch_bit = -1 };

        fake_msr_setup(&cfg);
        init_ok(&ci);
        assert_int_equal(pmu_program(GP(3), &cyc, PMU_OS, 7), ST_OK);
        const struct wr w[] = { { 0xc0010003, 0 }, { 0xc0010007, 7 }, { 0xc0010003, 0x020076 } };
        expect_writes(w, 3);
        assert_int_equal(pmu_program(GP(4), &cyc, PMU_OS, 0), ST_BAD_ARG);
}

static void test_reset_writes(void **unused)
{
        struct cpu_info ci = zen4(true);

        ci.amd.n_core = 2; /* PerfMonV2 may report fewer counters */
        init_ok(&ci);
        assert_int_equal(pmu_n_gp(), 2);
        assert_int_equal(pmu_reset(), ST_OK);
        const struct wr w[] = {
                { 0xc0000301, 0 }, { 0xc0010200, 0 }, { 0xc0010201, 0 }, { 0xc0010202, 0 },
                { 0xc0010203, 0 }, { 0xc0000302, 0x3 },
        };
        expect_writes(w, sizeof(w) / sizeof(w[0]));
}

static void test_ctl0_fault(void **unused)
{
        struct cpu_info ci = zen4(true);

        fake_msr_remove(0xc0010200);
        assert_int_equal(pmu_init(&ci), ST_UNSUPPORTED);
        assert_non_null(strstr(pmu_get_caps()->reason, "#GP"));
        assert_false(pmu_available());
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_pmu_tcg),
                cmocka_unit_test(test_caps),
                cmocka_unit_test(test_v2_program_count_overflow),
                cmocka_unit_test(test_no_v2_enable_in_ctl_and_emulated_overflow),
                cmocka_unit_test(test_legacy_addresses),
                cmocka_unit_test(test_reset_writes),
                cmocka_unit_test(test_ctl0_fault),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
