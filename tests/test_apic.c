/** @file Tests for boot/x86/apic.c: access mode from IA32_APIC_BASE, MMIO base, x2APIC MSR
 *  numbers, LVT and self-NMI ICR values ([SDM-3A] local APIC, [APM-2] extended LVT). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include <cmocka.h>

#include "boot/x86/apic.h"

static void test_mode_and_base(void **unused)
{
        static const struct {
                uint64_t       base;
                unsigned       phys_bits;
                enum apic_mode mode;
                uint64_t       mmio;
        } cases[] = {
                { 0xfee00900ull, 39, APIC_MODE_XAPIC, 0xfee00000ull },    /* EN | BSP */
                { 0xfee00d00ull, 39, APIC_MODE_X2APIC, 0xfee00000ull },   /* EN | EXTD | BSP */
                { 0xfee00100ull, 39, APIC_MODE_DISABLED, 0xfee00000ull }, /* EN clear */
                { 0xfee00500ull, 39, APIC_MODE_DISABLED, 0xfee00000ull }, /* EXTD without EN */
                { 0x12345fee00800ull, 36, APIC_MODE_XAPIC, 0x345fee00000ull & 0xfffffffffull },
                { 0x12345fee00800ull, 0, APIC_MODE_XAPIC, 0xfee00000ull | (0x345ull << 32 & 0xfffffffffull) },
                { 0x12345fee00800ull, 52, APIC_MODE_XAPIC, 0x12345fee00000ull },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                assert_int_equal(apic_mode_from_base(cases[i].base), cases[i].mode);
                assert_int_equal(apic_mmio_base(cases[i].base, cases[i].phys_bits), cases[i].mmio);
        }
        assert_string_equal(apic_mode_name(APIC_MODE_X2APIC), "x2APIC");
        assert_string_equal(apic_mode_name((enum apic_mode)7), "disabled");
}

static void test_x2apic_msr(void **unused)
{
        static const struct { uint32_t off, msr; } cases[] = {
                { APIC_ID, 0x802 }, { APIC_EOI, 0x80b }, { APIC_ICR, 0x830 },
                { APIC_LVTPC, 0x834 }, { APIC_EILVT(0), 0x850 }, { APIC_EILVT(3), 0x853 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
                assert_int_equal(apic_x2apic_msr(cases[i].off), cases[i].msr);
}

static void test_lvt(void **unused)
{
        static const struct {
                enum apic_delivery how;
                uint8_t            vec;
                bool               masked, ok;
                uint32_t           want;
        } cases[] = {
                { APIC_DELIVER_NMI, 0, false, true, 0x400 },       /* Linux APIC_DM_NMI */
                { APIC_DELIVER_NMI, 0xfe, true, true, 0x10400 },   /* vector ignored */
                { APIC_DELIVER_FIXED, 0xfe, false, true, 0xfe },
                { APIC_DELIVER_FIXED, 0x20, true, true, 0x10020 },
                { APIC_DELIVER_FIXED, 15, false, false, 0 },       /* reserved vector */
                { APIC_DELIVER_FIXED, 16, false, true, 0x10 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                bool ok = !cases[i].ok;
                assert_int_equal(apic_lvt_value(cases[i].how, cases[i].vec, cases[i].masked, &ok),
                                 cases[i].want);
                assert_int_equal(ok, cases[i].ok);
        }
        assert_int_equal(apic_lvt_unmask(0x10400), 0x400); /* after the CPU masked it on a PMI */
        assert_int_equal(apic_lvt_unmask(0x400), 0x400);
}

static struct {
        unsigned n;
        uint32_t off[4], v[4];
} writes;

static void record(uint32_t off, uint32_t v)
{
        if (writes.n < 4) {
                writes.off[writes.n] = off;
                writes.v[writes.n] = v;
        }
        writes.n++;
}

/* The dispatcher's re-arm: LVT PMC (masked by the CPU on delivery) and the extended entry the
 * route uses, each written once, unmasked; no extended entry, one write. */
static void test_pmi_rearm(void **unused)
{
        (void)unused;
        memset(&writes, 0, sizeof(writes));
        apic_pmi_rearm(record, 0x10400, 1);
        assert_int_equal(writes.n, 2);
        assert_int_equal(writes.off[0], 0x340);
        assert_int_equal(writes.v[0], 0x400);
        assert_int_equal(writes.off[1], 0x510);
        assert_int_equal(writes.v[1], 0x400);
        memset(&writes, 0, sizeof(writes));
        apic_pmi_rearm(record, 0x400, -1);
        assert_int_equal(writes.n, 1);
        assert_int_equal(writes.off[0], 0x340);
        assert_int_equal(writes.v[0], 0x400);
}

static void test_icr(void **unused)
{
        static const struct {
                enum apic_mode mode;
                uint32_t       dest;
                bool           ok;
                uint64_t       want;
        } cases[] = {
                { APIC_MODE_XAPIC, 0, true, 0x4400 },
                { APIC_MODE_XAPIC, 3, true, 0x0300000000004400ull },  /* ICR2 bits 31:24 */
                { APIC_MODE_XAPIC, 255, true, 0xff00000000004400ull },
                { APIC_MODE_XAPIC, 256, false, 0 },                   /* 8-bit field */
                { APIC_MODE_X2APIC, 256, true, 0x0000010000004400ull },/* bits 63:32 */
                { APIC_MODE_DISABLED, 0, false, 0 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                bool ok = !cases[i].ok;
                assert_int_equal(apic_icr_self_nmi(cases[i].mode, cases[i].dest, &ok), cases[i].want);
                assert_int_equal(ok, cases[i].ok);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mode_and_base),
                cmocka_unit_test(test_x2apic_msr),
                cmocka_unit_test(test_lvt),
                cmocka_unit_test(test_pmi_rearm),
                cmocka_unit_test(test_icr),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
