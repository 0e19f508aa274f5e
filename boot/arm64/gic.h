/** @file
 * The GIC as far as the PMU overflow interrupt needs it: where the interrupt controller is
 * (ACPI MADT: GICC, GICD and GICR entries, parsed by gic_madt_parse, a pure function the host
 * tests run on recorded tables), and, on the CPU, routing one PPI of the calling CPU's
 * redistributor at the highest priority so that a priority-mask window lets it alone through
 * (gic_ppi_route / gic_ppi_restore, GICv3 system-register CPU interface only).
 *
 * The PMU overflow interrupt is a PPI: its INTID comes from the GICC entry's "Performance
 * Interrupt GSIV" ([ACPI-6.5] §5.2.12.14), else the one the Arm Base System Architecture
 * recommends (INTID 23, PPI 7). [GICv3] = Arm GIC Architecture Specification v3/v4, IHI 0069.
 */
#ifndef PMUCAL_ARM64_GIC_H
#define PMUCAL_ARM64_GIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

/** [BSA] "PPI assignments": PMU overflow interrupt, INTID 23. */
#define GIC_PMU_INTID_DEFAULT 23
#define GIC_MADT_MAX_CPUS     64

/** One MADT GICC entry (type 0x0B). */
struct gic_madt_cpu {
        uint32_t cpu_if;      /* CPU interface number */
        uint32_t uid;         /* ACPI processor UID */
        bool     enabled;     /* flags bit 0 */
        uint32_t pmu_gsiv;    /* performance interrupt; 0 = none given */
        uint64_t gicr_base;   /* this CPU's redistributor, 0 = see the GICR ranges */
        uint64_t mpidr;       /* affinity fields of MPIDR_EL1 */
        uint16_t spe_gsiv;    /* SPE overflow interrupt (ACPI 6.3+), 0 = none */
};

/** What the MADT says about the interrupt controller. */
struct gic_madt {
        uint8_t             version;   /* GICD entry: 1..4, 0 = not stated */
        uint64_t            gicd_base;
        uint64_t            gicr_range_base; /* first GICR discovery range (type 0x0E) */
        uint32_t            gicr_range_bytes;
        struct gic_madt_cpu cpus[GIC_MADT_MAX_CPUS];
        size_t              n_cpus;    /* GICC entries kept (at most GIC_MADT_MAX_CPUS) */
        size_t              n_cpus_total;
};

/** Parse the MADT @p madt (header included, @p len bytes as the caller knows them; the
 *  header's length must fit). ST_BAD_DATA for a table that is not an MADT or whose entries
 *  overrun it; ST_OK with n_cpus = 0 when there is no GICC entry (an x86 MADT). */
status_t gic_madt_parse(const void *madt, size_t len, struct gic_madt *out);

/** The PMU PPI for the CPU with MPIDR @p mpidr: the GICC's GSIV when one is given (and is a
 *  PPI, 16..31), else GIC_PMU_INTID_DEFAULT; *@p from says which ("MADT GICC" or "BSA
 *  default"). */
uint32_t gic_pmu_intid(const struct gic_madt *m, uint64_t mpidr, const char **from);

/** State gic_ppi_route changed, for gic_ppi_restore. */
struct gic_route {
        uint32_t intid;
        uintptr_t sgi_base;     /* this CPU's redistributor SGI/PPI frame */
        uint32_t enable_was, group_was, cfg_was;
        uint8_t  prio_was;
        uint64_t pmr_was;
};

/** Detect a GICv3 CPU interface in system-register mode (ID_AA64PFR0_EL1.GIC, ICC_SRE_EL1.SRE)
 *  and find the calling CPU's redistributor from @p m: ST_UNSUPPORTED with *@p why when the
 *  GIC is v2 or the redistributor cannot be found. */
status_t gic_probe(const struct gic_madt *m, const char **why);

/** Enable PPI @p intid on the calling CPU's redistributor: group 1, level-sensitive, the
 *  highest priority. ICC_PMR_EL1 is left alone (see gic_pmr_pmi_only). */
status_t gic_ppi_route(const struct gic_madt *m, uint32_t intid, struct gic_route *r);
/** Put back everything gic_ppi_route changed. */
void gic_ppi_restore(const struct gic_route *r);

/** Raise the priority mask so that only the routed PPI is signalled; returns the old mask.
 *  [GICv3] §12.11.20 ICC_PMR_EL1: an interrupt is signalled when its priority is lower
 *  (numerically) than the mask. */
uint64_t gic_pmr_pmi_only(void);
void     gic_pmr_restore(uint64_t pmr);

#endif
