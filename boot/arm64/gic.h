/** @file
 * The GIC as far as the PMU overflow interrupt needs it: where the interrupt controller is
 * (ACPI MADT: GICC, GICD and GICR entries, parsed by gic_madt_parse, a pure function the host
 * tests run on recorded tables), and, on the CPU, routing one PPI of the calling CPU's
 * redistributor at the highest priority so that a priority-mask window lets it alone through
 * (gic_ppi_route / gic_ppi_restore, GICv3 system-register CPU interface only).
 *
 * The PMU overflow interrupt is a PPI: its INTID and trigger come from the GICC entry's
 * "Performance Interrupt GSIV" and the flag "Performance Interrupt Mode" ([ACPI-6.5]
 * §5.2.12.14, Tables 5.37 and 5.38). A GSIV of 0 means the firmware gives no PMU interrupt:
 * nothing is guessed (the BSA's recommended INTID 23 is a recommendation, not a promise).
 *
 * The GIC arithmetic is pure and host-tested (boot/arm64/gic_rules.c, tests/test_gic.c): the
 * priorities of the PMI and of the window's mask for either security view (GICD_CTLR.DS, as
 * Linux's gic_prio_init() reasons), the redistributor of a CPU over every GICR discovery
 * range, and the wait for GICR_CTLR.RWP, through a struct gic_mmio that is the hardware in
 * the firmware build and a register model in the tests.
 * [GICv3] = Arm GIC Architecture Specification v3/v4, IHI 0069.
 */
#ifndef PMUCAL_ARM64_GIC_H
#define PMUCAL_ARM64_GIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

#define GIC_MADT_MAX_CPUS     64
#define GIC_MADT_MAX_GICR     8   /* GICR discovery ranges kept (one per socket or die) */

/** One MADT GICC entry (type 0x0B). */
struct gic_madt_cpu {
        uint32_t cpu_if;      /* CPU interface number */
        uint32_t uid;         /* ACPI processor UID */
        bool     enabled;     /* flags bit 0 */
        uint32_t pmu_gsiv;    /* performance interrupt; 0 = none given */
        bool     pmu_edge;    /* flags bit 1: the performance interrupt is edge-triggered */
        uint64_t gicr_base;   /* this CPU's redistributor, 0 = see the GICR ranges */
        uint64_t mpidr;       /* affinity fields of MPIDR_EL1 */
        uint16_t spe_gsiv;    /* SPE overflow interrupt (ACPI 6.3+), 0 = none */
};

/** What the MADT says about the interrupt controller. */
struct gic_madt {
        uint8_t             version;   /* GICD entry: 1..4, 0 = not stated */
        uint64_t            gicd_base;
        struct {
                uint64_t base;
                uint32_t bytes;
        }                   gicr[GIC_MADT_MAX_GICR]; /* GICR discovery ranges (type 0x0E) */
        size_t              n_gicr;    /* kept (at most GIC_MADT_MAX_GICR) */
        size_t              n_gicr_total;
        struct gic_madt_cpu cpus[GIC_MADT_MAX_CPUS];
        size_t              n_cpus;    /* GICC entries kept (at most GIC_MADT_MAX_CPUS) */
        size_t              n_cpus_total;
};

/** Parse the MADT @p madt (header included, @p len bytes as the caller knows them; the
 *  header's length must fit). ST_BAD_DATA for a table that is not an MADT or whose entries
 *  overrun it; ST_OK with n_cpus = 0 when there is no GICC entry (an x86 MADT). */
status_t gic_madt_parse(const void *madt, size_t len, struct gic_madt *out);

/** The PMU interrupt of one CPU as its GICC entry gives it. */
struct gic_pmu_irq {
        uint32_t intid;
        bool     edge;
};

/** The PMU interrupt of the CPU with MPIDR @p mpidr (affinity fields compared): ST_OK with
 *  the GICC's GSIV and trigger; ST_NOT_FOUND when the GSIV is 0 (no PMU interrupt);
 *  ST_UNSUPPORTED when it is not a PPI (16..31, the only kind routed here); ST_BAD_DATA
 *  when no GICC entry has that MPIDR. *@p why is static text (NULL on ST_OK). */
status_t gic_pmu_irq(const struct gic_madt *m, uint64_t mpidr, struct gic_pmu_irq *out,
                     const char **why);

/** Memory-mapped GIC registers: the hardware in the firmware build (gic.c), a model in the
 *  host tests. Addresses are physical (the firmware's identity map). */
struct gic_mmio {
        uint32_t (*rd32)(void *ctx, uint64_t addr);
        uint64_t (*rd64)(void *ctx, uint64_t addr);
        void (*wr32)(void *ctx, uint64_t addr, uint32_t val);
        void *ctx;
};

/** RD_base of the redistributor of the CPU with MPIDR @p mpidr: the GICC entry's GICR base
 *  when it gives one, else found by GICR_TYPER.Affinity_Value in every GICR discovery range
 *  (frames of 128 KiB, 256 KiB with GICR_TYPER.VLPIS, up to GICR_TYPER.Last or the range's
 *  end); 0 when none matches. */
uint64_t gic_redist_find(const struct gic_madt *m, uint64_t mpidr, const struct gic_mmio *io);

/** Wait for GICR_CTLR.RWP of the redistributor at @p rd_base to clear (a write to
 *  GICR_ICENABLER0 or GICR_CTLR has taken effect), reading it at most @p max_polls times.
 *  ST_TIMEOUT when it never clears. [GICv3] GICR_CTLR register description. */
status_t gic_rwp_wait(const struct gic_mmio *io, uint64_t rd_base, uint32_t max_polls);

/** Priorities for the PMI and for the mask of a sampling window, as written by the
 *  non-secure harness. */
struct gic_prio_plan {
        uint8_t prio; /* to GICR_IPRIORITYR for the PMU PPI */
        uint8_t pmr;  /* to ICC_PMR_EL1 inside a window: only the PMI is signalled */
};

/** Plan the priorities for GICD_CTLR.DS = @p ds and @p group0 (ICC_PMR_EL1 written with
 *  1 << (8 - PRIbits) reads back non-zero: Linux's gic_has_group0(), PMR in the secure view,
 *  SCR_EL3.FIQ clear). With DS = 0 a non-secure priority write lands as 0x80 | (v >> 1);
 *  the PMR is written in the same view unless group0, so there it must be given as that
 *  shifted value itself. [GICv3] "Interrupt prioritization"; Linux
 *  drivers/irqchip/irq-gic-v3.c gic_prio_init(). */
void gic_prio_plan(bool ds, bool group0, struct gic_prio_plan *out);

/** State gic_ppi_route changed, for gic_ppi_restore. */
struct gic_route {
        uint32_t intid;
        uintptr_t rd_base;      /* this CPU's redistributor (RD_base) */
        uintptr_t sgi_base;     /* and its SGI/PPI frame */
        uint32_t enable_was, group_was, cfg_was;
        uint8_t  prio_was;
        uint64_t pmr_was;
        struct gic_prio_plan plan;
        bool     ds, group0;    /* what the plan was made from */
        bool     eoi_drop_only; /* ICC_CTLR_EL1.EOImode = 1: EOIR drops priority, DIR deactivates */
};

/** Detect a GICv3 CPU interface in system-register mode (ID_AA64PFR0_EL1.GIC, ICC_SRE_EL1.SRE)
 *  and find the calling CPU's redistributor from @p m: ST_UNSUPPORTED with *@p why when the
 *  GIC is v2 or the redistributor cannot be found. */
status_t gic_probe(const struct gic_madt *m, const char **why);

/** Enable PPI @p irq on the calling CPU's redistributor: group 1, edge or level as the MADT
 *  says, the plan's priority (GICD_CTLR.DS read, group 0 access probed); waits for
 *  GICR_CTLR.RWP after disabling (ST_TIMEOUT, nothing configured, when it never clears).
 *  ICC_PMR_EL1 is left alone (see gic_pmr_pmi_only). */
status_t gic_ppi_route(const struct gic_madt *m, const struct gic_pmu_irq *irq,
                       struct gic_route *r);
/** Put back everything gic_ppi_route changed. */
void gic_ppi_restore(const struct gic_route *r);

/** Raise the priority mask so that only the routed PPI is signalled; returns the old mask.
 *  [GICv3] §12.11.20 ICC_PMR_EL1: an interrupt is signalled when its priority is lower
 *  (numerically) than the mask. */
uint64_t gic_pmr_pmi_only(const struct gic_route *r);
void     gic_pmr_restore(uint64_t pmr);

#endif
