/** @file
 * Host tests of boot/arm64/psci.c: the PSCI conduit from the FADT's ARM_BOOT_ARCH flags, the
 * return codes, and the processors to start from the MADT's GICC entries (QEMU's own virt
 * MADT, recorded, and hand-made lists with multi-level affinities, repeats and overflow).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "test_util.h"
#include "boot/arm64/gic.h"
#include "boot/arm64/psci.h"

/* An FADT of @p len bytes (header length the same) with ARM_BOOT_ARCH = @p flags. */
static void build_fadt(uint8_t *t, uint32_t len, uint16_t flags)
{
        memset(t, 0, 276);
        memcpy(t, "FACP", 4);
        t[4] = (uint8_t)len;
        t[5] = (uint8_t)(len >> 8);
        t[8] = 6; /* revision */
        if (len >= 131) {
                t[129] = (uint8_t)flags;
                t[130] = (uint8_t)(flags >> 8);
        }
}

static void test_conduit(void **state)
{
        uint8_t           t[276];
        enum psci_conduit c;
        const char       *why;

        (void)state;
        /* QEMU virt without EL2/EL3: PSCI_COMPLIANT | PSCI_USE_HVC (hw/arm/virt-acpi-build.c) */
        build_fadt(t, 276, FADT_ARM_PSCI_COMPLIANT | FADT_ARM_PSCI_USE_HVC);
        assert_int_equal(psci_conduit_from_fadt(t, sizeof(t), &c, &why), ST_OK);
        assert_int_equal(c, PSCI_CONDUIT_HVC);
        assert_string_equal(psci_conduit_name(c), "hvc");
        assert_non_null(strstr(why, "PSCI_USE_HVC"));
        /* firmware at EL3 (TF-A): SMC */
        build_fadt(t, 276, FADT_ARM_PSCI_COMPLIANT);
        assert_int_equal(psci_conduit_from_fadt(t, sizeof(t), &c, NULL), ST_OK);
        assert_int_equal(c, PSCI_CONDUIT_SMC);
        assert_string_equal(psci_conduit_name(c), "smc");
        /* USE_HVC without COMPLIANT means nothing: not PSCI */
        build_fadt(t, 276, FADT_ARM_PSCI_USE_HVC);
        assert_int_equal(psci_conduit_from_fadt(t, sizeof(t), &c, &why), ST_UNSUPPORTED);
        assert_int_equal(c, PSCI_CONDUIT_NONE);
        assert_non_null(strstr(why, "PSCI_COMPLIANT clear"));
        assert_string_equal(psci_conduit_name(c), "none");
        /* an FADT that ends before ARM_BOOT_ARCH (ACPI 5.0 and older have no such field) */
        build_fadt(t, 130, FADT_ARM_PSCI_COMPLIANT);
        assert_int_equal(psci_conduit_from_fadt(t, sizeof(t), &c, &why), ST_BAD_DATA);
        assert_non_null(strstr(why, "too short"));
        build_fadt(t, 276, FADT_ARM_PSCI_COMPLIANT);
        assert_int_equal(psci_conduit_from_fadt(t, 130, &c, NULL), ST_BAD_DATA);
        t[0] = 'X';
        assert_int_equal(psci_conduit_from_fadt(t, sizeof(t), &c, &why), ST_BAD_DATA);
        assert_string_equal(why, "not an FADT");
        assert_int_equal(psci_conduit_from_fadt(t, 4, &c, NULL), ST_BAD_DATA);
        assert_int_equal(psci_conduit_from_fadt(NULL, 276, &c, NULL), ST_BAD_ARG);
        assert_int_equal(psci_conduit_from_fadt(t, 276, NULL, NULL), ST_BAD_ARG);
}

static void test_return_codes(void **state)
{
        static const struct {
                int64_t     ret;
                const char *name;
                status_t    st;
        } want[] = {
                { 0, "SUCCESS", ST_OK },
                { -1, "NOT_SUPPORTED", ST_UNSUPPORTED },
                { -2, "INVALID_PARAMETERS", ST_BAD_ARG },
                { -3, "DENIED", ST_IO },
                { -4, "ALREADY_ON", ST_BAD_ARG },
                { -5, "ON_PENDING", ST_BAD_ARG },
                { -6, "INTERNAL_FAILURE", ST_IO },
                { -7, "NOT_PRESENT", ST_NOT_FOUND },
                { -8, "DISABLED", ST_UNSUPPORTED },
                { -9, "INVALID_ADDRESS", ST_BAD_ARG },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                assert_string_equal(psci_ret_name(want[i].ret), want[i].name);
                assert_int_equal(psci_status(want[i].ret), want[i].st);
        }
        /* AFFINITY_INFO's states are results, not errors */
        assert_int_equal(psci_status(PSCI_AFF_OFF), ST_OK);
        assert_int_equal(psci_status(PSCI_AFF_ON_PENDING), ST_OK);
        assert_int_equal(psci_status(-10), ST_IO);
        assert_string_equal(psci_ret_name(-10), "unknown");
        assert_string_equal(psci_ret_name(1), "unknown");
        /* PSCI_VERSION: QEMU 7.2 answers 1.1 */
        assert_int_equal(psci_version_major(0x10001), 1);
        assert_int_equal(psci_version_minor(0x10001), 1);
        assert_int_equal(psci_version_major(0x2), 0);
        assert_int_equal(psci_version_minor(0x2), 2);
}

/* QEMU's virt MADT (2 vCPUs): GICC MPIDRs 0 and 1; MPIDR_EL1 as read has bit 31 (RES1) set. */
static void test_qemu_madt(void **state)
{
        size_t           n_madt, n = 99;
        uint8_t         *madt = test_load("acpi/qemu72-virt-aarch64-2node-apic.dat", &n_madt);
        struct gic_madt *g    = calloc(1, sizeof(*g));
        struct psci_cpu  c[4];

        (void)state;
        assert_int_equal(gic_madt_parse(madt, n_madt, g), ST_OK);
        assert_int_equal(psci_cpus_from_madt(g, 0x80000000ull, c, 4, &n), ST_OK);
        assert_int_equal(n, 2);
        assert_true(c[0].is_boot);
        assert_false(c[1].is_boot);
        assert_int_equal(c[1].mpidr, 1);
        assert_int_equal(c[1].id, 1);
        assert_true(c[0].enabled && c[1].enabled);
        assert_int_equal(c[1].uid, 1);
        /* started on the other vCPU: the boot processor is the second entry */
        assert_int_equal(psci_cpus_from_madt(g, 0x80000001ull, c, 4, &n), ST_OK);
        assert_false(c[0].is_boot);
        assert_true(c[1].is_boot);
        /* a MADT that does not name the running processor: keep to the boot CPU */
        assert_int_equal(psci_cpus_from_madt(g, 0x80000100ull, c, 4, &n), ST_NOT_FOUND);
        assert_int_equal(n, 0);
        /* room for one */
        assert_int_equal(psci_cpus_from_madt(g, 0x80000000ull, c, 1, &n), ST_NO_MEM);
        free(madt);
        free(g);
}

static void test_affinity_levels(void **state)
{
        struct gic_madt *g = calloc(1, sizeof(*g));
        struct psci_cpu  c[4];
        size_t           n;

        (void)state;
        /* two clusters on two chips: Aff3 = 1, Aff2 = 0, Aff1 = 2 or 3, Aff0 = thread */
        g->n_cpus  = 3;
        g->cpus[0] = (struct gic_madt_cpu){ .uid = 0, .enabled = true, .mpidr = 0x0100000200ull };
        g->cpus[1] = (struct gic_madt_cpu){ .uid = 1, .enabled = true, .mpidr = 0x0100000301ull };
        g->cpus[2] = (struct gic_madt_cpu){ .uid = 2, .enabled = false, .mpidr = 0x0100000302ull };
        assert_int_equal(psci_cpus_from_madt(g, 0x0181000200ull /* U, MT bits set */, c, 4, &n),
                         ST_OK);
        assert_int_equal(n, 3);
        assert_true(c[0].is_boot);
        assert_int_equal(c[1].id, 0x01000301u);
        assert_int_equal(c[1].mpidr, 0x0100000301ull);
        assert_false(c[2].enabled);
        assert_int_equal(psci_mpidr_pack(0xff80ffffffull), 0xffffffffu);
        /* a repeated MPIDR: the table is wrong */
        g->cpus[2].mpidr = 0x0100000301ull;
        assert_int_equal(psci_cpus_from_madt(g, 0x0100000200ull, c, 4, &n), ST_BAD_DATA);
        /* no GICC entry at all (an x86 MADT) */
        g->n_cpus = 0;
        assert_int_equal(psci_cpus_from_madt(g, 0, c, 4, &n), ST_NOT_FOUND);
        assert_int_equal(psci_cpus_from_madt(NULL, 0, c, 4, &n), ST_BAD_ARG);
        free(g);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_conduit),
                cmocka_unit_test(test_return_codes),
                cmocka_unit_test(test_qemu_madt),
                cmocka_unit_test(test_affinity_levels),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
