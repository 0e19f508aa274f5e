/** @file PSCI conduit, return codes and the processors to start (see psci.h). Pure. */
#include "boot/arm64/psci.h"

/* SDT header: signature @0, length @4; FADT ARM_BOOT_ARCH @129 (2 bytes, ACPI 5.1 on). */
#define FADT_MIN_LEN (FADT_ARM_BOOT_ARCH_OFFSET + 2)

status_t psci_conduit_from_fadt(const void *fadt, size_t len, enum psci_conduit *out,
                                const char **why)
{
        const uint8_t *t = fadt;
        const char    *w;
        status_t       st;

        if (!t || !out)
                return ST_BAD_ARG;
        *out = PSCI_CONDUIT_NONE;
        uint32_t tlen = len >= 8 ? (uint32_t)t[4] | (uint32_t)t[5] << 8 |
                                           (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24
                                 : 0;
        if (len < 8 || memcmp(t, "FACP", 4) != 0) {
                w  = "not an FADT";
                st = ST_BAD_DATA;
        } else if (tlen < FADT_MIN_LEN || len < FADT_MIN_LEN) {
                w  = "FADT too short for ARM_BOOT_ARCH (ACPI 5.0 or older)";
                st = ST_BAD_DATA;
        } else {
                uint16_t f = (uint16_t)(t[FADT_ARM_BOOT_ARCH_OFFSET] |
                                        t[FADT_ARM_BOOT_ARCH_OFFSET + 1] << 8);
                if (!(f & FADT_ARM_PSCI_COMPLIANT)) {
                        w  = "FADT ARM_BOOT_ARCH: PSCI_COMPLIANT clear";
                        st = ST_UNSUPPORTED;
                } else if (f & FADT_ARM_PSCI_USE_HVC) {
                        w     = "FADT ARM_BOOT_ARCH: PSCI_COMPLIANT, PSCI_USE_HVC";
                        *out  = PSCI_CONDUIT_HVC;
                        st    = ST_OK;
                } else {
                        w     = "FADT ARM_BOOT_ARCH: PSCI_COMPLIANT, SMC";
                        *out  = PSCI_CONDUIT_SMC;
                        st    = ST_OK;
                }
        }
        if (why)
                *why = w;
        return st;
}

const char *psci_conduit_name(enum psci_conduit c)
{
        return c == PSCI_CONDUIT_HVC ? "hvc" : c == PSCI_CONDUIT_SMC ? "smc" : "none";
}

static const struct {
        int64_t     ret;
        const char *name;
        status_t    st;
} codes[] = {
        { PSCI_RET_SUCCESS, "SUCCESS", ST_OK },
        { PSCI_RET_NOT_SUPPORTED, "NOT_SUPPORTED", ST_UNSUPPORTED },
        { PSCI_RET_INVALID_PARAMETERS, "INVALID_PARAMETERS", ST_BAD_ARG },
        { PSCI_RET_DENIED, "DENIED", ST_IO },
        { PSCI_RET_ALREADY_ON, "ALREADY_ON", ST_BAD_ARG },
        { PSCI_RET_ON_PENDING, "ON_PENDING", ST_BAD_ARG },
        { PSCI_RET_INTERNAL_FAILURE, "INTERNAL_FAILURE", ST_IO },
        { PSCI_RET_NOT_PRESENT, "NOT_PRESENT", ST_NOT_FOUND },
        { PSCI_RET_DISABLED, "DISABLED", ST_UNSUPPORTED },
        { PSCI_RET_INVALID_ADDRESS, "INVALID_ADDRESS", ST_BAD_ARG },
};

status_t psci_status(int64_t ret)
{
        if (ret > 0)
                return ST_OK;
        for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
                if (codes[i].ret == ret)
                        return codes[i].st;
        return ST_IO;
}

const char *psci_ret_name(int64_t ret)
{
        for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
                if (codes[i].ret == ret)
                        return codes[i].name;
        return "unknown";
}

/* MPIDR_EL1 affinity fields: Aff3 [39:32], Aff2 [23:16], Aff1 [15:8], Aff0 [7:0]. */
#define MPIDR_AFF_MASK 0xff00ffffffull

status_t psci_cpus_from_madt(const struct gic_madt *m, uint64_t own_mpidr,
                             struct psci_cpu *out, size_t max, size_t *n)
{
        size_t k = 0;
        bool   boot_seen = false;

        if (!m || !out || !n)
                return ST_BAD_ARG;
        *n        = 0;
        own_mpidr &= MPIDR_AFF_MASK;
        for (size_t i = 0; i < m->n_cpus; i++) {
                const struct gic_madt_cpu *g = &m->cpus[i];
                uint64_t                   a = g->mpidr & MPIDR_AFF_MASK;

                for (size_t j = 0; j < k; j++)
                        if (out[j].mpidr == a)
                                return ST_BAD_DATA;
                if (k == max)
                        return ST_NO_MEM;
                out[k] = (struct psci_cpu){ .mpidr = a, .id = psci_mpidr_pack(a),
                                            .uid = g->uid, .enabled = g->enabled,
                                            .is_boot = a == own_mpidr };
                boot_seen |= out[k].is_boot;
                k++;
        }
        if (!k || !boot_seen)
                return ST_NOT_FOUND;
        *n = k;
        return ST_OK;
}
