/** @file Unit tests for boot/x86/prefetch.c on the register model (tests/fake_msr.c), and for
 *  the clock/guard probing of bench/window.c on the same model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/prefetch.h"
#include "bench/window.h"
#include "boot/x86/msr_misc.h"
#include "tests/fake_msr.h"

static struct cpu_info cpu_of(enum cpu_vendor v, uint32_t family, uint32_t model)
{
        return (struct cpu_info){ .vendor = v, .family = family, .model = model };
}

static const struct {
        const char     *name;
        enum cpu_vendor vendor;
        uint32_t        family, model;
        bool            documented;
        uint32_t        msr;
        uint64_t        mask;
} rows[] = {
        /* name              vendor     fam   model documented msr         mask */
        { "Genoa",           VEN_AMD,   0x19, 0x11, true,  0xc0000108, 0x2f },
        { "Zen 5",           VEN_AMD,   0x1a, 0x02, true,  0xc0000108, 0x2f },
        { "Milan (no row)",  VEN_AMD,   0x19, 0x01, false, 0,          0 },
        { "Zen 2 (no row)",  VEN_AMD,   0x17, 0x31, false, 0,          0 },
        { "Haswell",         VEN_INTEL, 6,    0x3c, true,  0x1a4,      0xf },
        { "Skylake-SP",      VEN_INTEL, 6,    0x55, true,  0x1a4,      0xf },
        { "Goldmont",        VEN_INTEL, 6,    0x5c, true,  0x1a4,      0x5 },
        { "Knights Landing", VEN_INTEL, 6,    0x57, false, 0,          0 },
        { "Hygon",           VEN_HYGON, 0x18, 0x01, false, 0,          0 },
};

static void test_lookup_table(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct cpu_info c   = cpu_of(rows[i].vendor, rows[i].family, rows[i].model);
                uint32_t        msr = 0;
                uint64_t        mask = 0;
                const char     *src = NULL;
                bool            got = prefetch_lookup(&c, &msr, &mask, &src);

                print_message("%s\n", rows[i].name);
                assert_int_equal(got, rows[i].documented);
                if (got) {
                        assert_int_equal(msr, rows[i].msr);
                        assert_int_equal(mask, rows[i].mask);
                        assert_non_null(src); /* every row cites its source */
                }
        }
        assert_false(prefetch_lookup(NULL, &(uint32_t){ 0 }, &(uint64_t){ 0 },
                                           &(const char *){ NULL }));
}

static void test_disable_restore(void **state)
{
        struct cpu_info       c = cpu_of(VEN_AMD, 0x19, 0x11);
        struct prefetch_info pf;
        (void)state;

        fake_msr_setup(NULL);
        fake_msr_add(MSR_AMD64_PREFETCH_CONTROL, 0x40); /* some other bit already set */
        assert_int_equal(prefetch_disable(&c, true, &pf), ST_OK);
        assert_int_equal(pf.state, PREFETCH_DISABLED);
        assert_int_equal(pf.saved, 0x40);
        assert_int_equal(fake_msr_peek(MSR_AMD64_PREFETCH_CONTROL), 0x6f);
        assert_int_equal(prefetch_restore(&pf), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_AMD64_PREFETCH_CONTROL), 0x40);
        assert_int_equal(fake_msr_n_writes(), 2);
        assert_string_equal(prefetch_state_name(pf.state), "off");

        /* Config says keep: read, never written. */
        fake_msr_clear_log();
        assert_int_equal(prefetch_disable(&c, false, &pf), ST_OK);
        assert_int_equal(pf.state, PREFETCH_LEFT_ON);
        assert_int_equal(prefetch_restore(&pf), ST_OK);
        assert_int_equal(fake_msr_n_writes(), 0);

        /* Documented but absent (a hypervisor hides it): recorded, not fatal, no writes. */
        fake_msr_remove(MSR_AMD64_PREFETCH_CONTROL);
        assert_int_equal(prefetch_disable(&c, true, &pf), ST_OK);
        assert_int_equal(pf.state, PREFETCH_FAILED);
        assert_int_equal(pf.why, ST_FAULT);
        assert_int_equal(prefetch_restore(&pf), ST_OK);
        assert_int_equal(fake_msr_n_writes(), 0);

        /* Undocumented CPU: not touched at all. */
        c = cpu_of(VEN_AMD, 0x17, 0x31);
        unsigned faults = fake_msr_n_faults();
        assert_int_equal(prefetch_disable(&c, true, &pf), ST_OK);
        assert_int_equal(pf.state, PREFETCH_UNSUPPORTED);
        assert_int_equal(fake_msr_n_faults(), faults);
        assert_int_equal(prefetch_disable(&c, true, NULL), ST_BAD_ARG);
        assert_string_equal(prefetch_state_name((enum prefetch_state)42), "unknown");
}

static uint64_t always_stolen(void *ctx)
{
        return ++*(uint64_t *)ctx;
}

static void test_clock_and_guard(void **state)
{
        struct cpu_info    c = cpu_of(VEN_INTEL, 6, 0x55);
        struct bench_clock clk;
        struct bench_guard g;
        (void)state;

        /* No APERF/MPERF in CPUID: TSC stamps, no core source whatever the MSRs say, and the
         * reason; the core rate is unknown, not the TSC's. */
        fake_msr_setup(NULL);
        fake_msr_add(MSR_IA32_APERF, 100);
        fake_msr_add(MSR_IA32_MPERF, 100);
        bench_clock_init(&clk, &c, 1000, NULL);
        assert_int_equal(clk.kind, LAT_CLOCK_TSC);
        assert_true(clk.tsc_hz > 0);
        assert_int_equal(clk.core_hz, 0);
        assert_null(clk.core.name);
        assert_non_null(strstr(clk.core.why_none, "CPUID.06H:ECX[0]"));

        /* CPUID says yes and the registers read, but do not count (frozen): the source is
         * installed, its windows will give no ratio, and no core rate is made up. */
        c.aperfmperf = true;
        bench_clock_init(&clk, &c, 1000, NULL);
        assert_int_equal(clk.kind, LAT_CLOCK_TSC);
        assert_string_equal(clk.core.name, "APERF/MPERF");
        assert_int_equal(clk.core_hz, 0);

        /* CPUID says yes but the registers are absent: no source, and why. */
        fake_msr_remove(MSR_IA32_APERF);
        bench_clock_init(&clk, &c, 1000, NULL);
        assert_int_equal(clk.kind, LAT_CLOCK_TSC);
        assert_null(clk.core.name);
        assert_null(clk.core.read);
        assert_string_equal(clk.core.why_none, "APERF/MPERF do not read back");

        /* A steal count that always moves: calibration still ends (20 rounds, 2 reads each)
         * and gives a TSC rate. */
        uint64_t           steals = 0;
        struct bench_guard busy = { .steal_count = always_stolen, .steal_ctx = &steals };
        bench_clock_init(&clk, &c, 1000, &busy);
        assert_true(clk.tsc_hz > 0);
        assert_int_equal(steals, 40);
        assert_int_equal(bench_guard_steal(NULL), 0);

        /* SMI count: probed on Intel only, and only when readable. */
        fake_msr_setup(NULL);
        bench_guard_init(&g, &c);
        assert_false(g.smi_count_ok);
        assert_int_equal(bench_guard_smi(&g), 0);
        fake_msr_add(MSR_SMI_COUNT, 7);
        bench_guard_init(&g, &c);
        assert_true(g.smi_count_ok);
        assert_int_equal(bench_guard_smi(&g), 7);
        c = cpu_of(VEN_AMD, 0x19, 0x11);
        unsigned faults = fake_msr_n_faults();
        bench_guard_init(&g, &c);
        assert_false(g.smi_count_ok);
        assert_int_equal(fake_msr_n_faults(), faults);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lookup_table),
                cmocka_unit_test(test_disable_restore),
                cmocka_unit_test(test_clock_and_guard),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
