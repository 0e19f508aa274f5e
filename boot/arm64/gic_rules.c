/** @file
 * The GIC arithmetic of gic.h, pure (register access through struct gic_mmio): priorities
 * for either security view, a CPU's redistributor over every GICR discovery range, and the
 * wait for GICR_CTLR.RWP. Host-tested on a register model (tests/test_gic.c).
 * Register layouts: [GICv3] GICR_CTLR and GICR_TYPER register descriptions.
 */
#include "lib/base.h"

#include "boot/arm64/gic.h"

#define GICR_CTLR            0x0000
#define GICR_CTLR_RWP        (1u << 3)
#define GICR_TYPER           0x0008
#define GICR_TYPER_VLPIS     BIT_ULL(1) /* GICv4: two more 64 KiB frames per redistributor */
#define GICR_TYPER_LAST      BIT_ULL(4)
#define GICR_TYPER_AFF_SHIFT 32
#define GICR_FRAME_BYTES     0x10000u

/* The PMI's priority and the mask of a sampling window, as the non-secure harness writes
 * them where the GIC has one security state (DS = 1): only priority 0 (the PMI) is below
 * 0x10. With 5 implemented priority bits the steps are 8 apart. */
#define GIC_PRIO_PMI     0x00
#define GIC_PMR_PMI_ONLY 0x10

/* A non-secure write of priority v under DS = 0, as it lands: [GICv3] "Interrupt
 * prioritization", "Software accesses of interrupt priority"; Linux __gicv3_ns_to_prio(). */
static uint8_t ns_to_prio(uint8_t v)
{
        return (uint8_t)(0x80 | v >> 1);
}

void gic_prio_plan(bool ds, bool group0, struct gic_prio_plan *out)
{
        /* DS = 1: one view, nothing shifts. DS = 0: the priority registers take the
         * non-secure view, and so does ICC_PMR_EL1 unless group 0 is ours (SCR_EL3.FIQ
         * clear, Linux's cpus_have_group0), in which case the PMR holds the real value and
         * the window's mask must be shifted by hand to sit where the PMI lands. */
        out->prio = GIC_PRIO_PMI;
        out->pmr  = !ds && group0 ? ns_to_prio(GIC_PMR_PMI_ONLY) : GIC_PMR_PMI_ONLY;
}

/* GICR_TYPER.Affinity_Value is Aff3.Aff2.Aff1.Aff0 packed into 32 bits. */
static uint32_t mpidr_packed(uint64_t mpidr)
{
        return (uint32_t)((mpidr >> 32 & 0xff) << 24 | (mpidr & 0xffffff));
}

uint64_t gic_redist_find(const struct gic_madt *m, uint64_t mpidr, const struct gic_mmio *io)
{
        uint32_t want = mpidr_packed(mpidr);

        for (size_t i = 0; i < m->n_cpus; i++)
                if (m->cpus[i].gicr_base && m->cpus[i].mpidr == (mpidr & 0xff00ffffffull))
                        return m->cpus[i].gicr_base;
        /* Linux walks each range until GICR_TYPER.Last (irq-gic-v3.c gic_iterate_rdists);
         * the range's length bounds a table that forgot to set Last. */
        for (size_t r = 0; r < m->n_gicr; r++) {
                uint64_t end = m->gicr[r].base + m->gicr[r].bytes;
                for (uint64_t rd = m->gicr[r].base; rd && rd < end;) {
                        uint64_t typer = io->rd64(io->ctx, rd + GICR_TYPER);
                        if ((uint32_t)(typer >> GICR_TYPER_AFF_SHIFT) == want)
                                return rd;
                        if (typer & GICR_TYPER_LAST)
                                break;
                        rd += (typer & GICR_TYPER_VLPIS ? 4u : 2u) * GICR_FRAME_BYTES;
                }
        }
        return 0;
}

status_t gic_rwp_wait(const struct gic_mmio *io, uint64_t rd_base, uint32_t max_polls)
{
        for (uint32_t i = 0; i < max_polls; i++)
                if (!(io->rd32(io->ctx, rd_base + GICR_CTLR) & GICR_CTLR_RWP))
                        return ST_OK;
        return ST_TIMEOUT;
}
