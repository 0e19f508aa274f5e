/** @file Tests for pmu/x86/encode.c: event-select values against hand-assembled layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pmu/x86/encode.h"

#define EV(c, u) { .name = "t", .code = (c), .umask = (u), .fixed = -1, .arch_bit = -1 }

static void test_intel_table(void **unused)
{
        static const struct {
                struct pmu_event_desc ev;
                unsigned              fl;
                uint64_t              want;
                const char           *what;
        } cases[] = {
                { EV(0x08, 0x0e), PMU_USR | PMU_OS | PMU_EN, 0x430e08, "DTLB_LOAD_MISSES.WALK_COMPLETED" },
                { EV(0x3c, 0x00), PMU_OS | PMU_EN, 0x42003c, "cycles, OS only" },
                { EV(0xc0, 0x00), PMU_USR, 0x0100c0, "insts, USR, not enabled" },
                { EV(0xc4, 0x00), PMU_OS | PMU_EN | PMU_INT, 0x5200c4, "branches with PMI" },
                { EV(0xc5, 0x00), PMU_OS | PMU_EN | PMU_ANY, 0x6200c5, "AnyThread bit 21" },
                { { .code = 0x08, .umask = 0x10, .cmask = 1, .fixed = -1 }, PMU_OS | PMU_EN,
                  0x01421008, "WALK_ACTIVE cmask 1" },
                { { .code = 0xa3, .umask = 0x14, .cmask = 0xff, .inv = true, .edge = true, .fixed = -1 },
                  PMU_USR | PMU_OS | PMU_EN, 0xffc714a3ull, "cmask ff, inv, edge" },
                { EV(0x2e, 0x41), 0, 0x412e, "no flags" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint64_t got = pmu_evtsel_encode(&cases[i].ev, cases[i].fl);
                if (got != cases[i].want)
                        fail_msg("%s: got %#llx want %#llx", cases[i].what,
                                 (unsigned long long)got, (unsigned long long)cases[i].want);
        }
}

static void test_amd_table(void **unused)
{
        static const struct {
                struct pmu_event_desc ev;
                unsigned              fl;
                uint64_t              want;
                const char           *what;
        } cases[] = {
                { EV(0x76, 0x00), PMU_OS | PMU_EN, 0x420076, "ls_not_halted_cyc" },
                { EV(0x120, 0x01), PMU_OS | PMU_EN, 0x100420120ull, "event[11:8] at 35:32" },
                { EV(0xfff, 0xff), PMU_USR | PMU_OS | PMU_EN, 0xf0043ffffull, "max 12-bit event" },
                { EV(0x43, 0xff), PMU_OS | PMU_EN | PMU_HOST_ONLY, 0x2000042ff43ull, "HostOnly bit 41" },
                { EV(0x43, 0xff), PMU_OS | PMU_GUEST_ONLY, 0x1000002ff43ull, "GuestOnly bit 40" },
                { EV(0xc3, 0x00), PMU_OS | PMU_EN | PMU_INT, 0x5200c3, "INT bit 20" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint64_t got = pmu_evtsel_encode(&cases[i].ev, cases[i].fl | PMU_LAYOUT_AMD);
                if (got != cases[i].want)
                        fail_msg("%s: got %#llx want %#llx", cases[i].what,
                                 (unsigned long long)got, (unsigned long long)cases[i].want);
        }
}

static void test_unencodable(void **unused)
{
        struct pmu_event_desc big = EV(0x120, 0x01), ok = EV(0xc0, 0);
        struct pmu_event_desc fixed = { .name = "INST_RETIRED.ANY", .umask = 1, .fixed = 0 };
        struct pmu_event_desc amd13 = EV(0x1000, 0);

        assert_int_equal(pmu_evtsel_encode(NULL, PMU_EN), 0);
        assert_int_equal(pmu_evtsel_encode(&big, PMU_EN), 0);           /* Intel: 8-bit event */
        assert_int_equal(pmu_evtsel_encode(&fixed, PMU_EN), 0);         /* fixed pseudo-event */
        assert_int_equal(pmu_evtsel_encode(&amd13, PMU_EN | PMU_LAYOUT_AMD), 0);
        assert_int_equal(pmu_evtsel_encode(&ok, PMU_EN | PMU_HOST_ONLY), 0); /* Intel */
        assert_int_equal(pmu_evtsel_encode(&ok, PMU_EN | PMU_ANY | PMU_LAYOUT_AMD), 0);
}

static void test_fixed_ctrl(void **unused)
{
        assert_int_equal(pmu_fixed_ctrl_encode(0), 0);
        assert_int_equal(pmu_fixed_ctrl_encode(PMU_OS), 0x1);
        assert_int_equal(pmu_fixed_ctrl_encode(PMU_USR), 0x2);
        assert_int_equal(pmu_fixed_ctrl_encode(PMU_ANY), 0x4);
        assert_int_equal(pmu_fixed_ctrl_encode(PMU_INT | PMU_OS | PMU_USR), 0xb);
        assert_int_equal(pmu_fixed_ctrl_encode(PMU_EN), 0); /* no enable field in the nibble */
}

static void test_width_and_delta(void **unused)
{
        assert_int_equal(pmu_width_mask(0), 0);
        assert_int_equal(pmu_width_mask(1), 1);
        assert_int_equal(pmu_width_mask(48), 0xffffffffffffull);
        assert_true(pmu_width_mask(64) == ~0ull);
        assert_true(pmu_width_mask(99) == ~0ull);
        assert_int_equal(pmu_counter_delta(10, 25, 48), 15);
        /* wrap once: from 2^48 - 5 to 10 is 15 events */
        assert_int_equal(pmu_counter_delta(0xfffffffffffbull, 10, 48), 15);
        assert_int_equal(pmu_counter_delta(0xffffffffull, 0, 32), 1);
        assert_int_equal(pmu_counter_delta(5, 5, 40), 0);
        /* bits above the width are ignored */
        assert_int_equal(pmu_counter_delta(0xff00000000000001ull, 3, 48), 2);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_intel_table),  cmocka_unit_test(test_amd_table),
                cmocka_unit_test(test_unencodable),  cmocka_unit_test(test_fixed_ctrl),
                cmocka_unit_test(test_width_and_delta),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
