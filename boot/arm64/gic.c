/** @file
 * Routing the PMU overflow PPI through a GICv3 redistributor, and the priority-mask window
 * that lets it alone through. Register offsets: [GICv3] §12.8 (GICR_TYPER), §12.10 (SGI and
 * PPI registers in the SGI_base frame), §12.11 (ICC_* system registers).
 */
#include "lib/base.h"

#include "boot/arm64/gic.h"
#include "boot/arm64/sysreg.h"
#include "boot/arm64/trap.h"

#define ID_AA64PFR0_GIC_SHIFT 24 /* [ARM-ARM] D23.2.67: 1 = GICv3 system registers */
#define ICC_SRE_SRE           BIT_ULL(0)

#define GICR_FRAME_BYTES  0x10000u /* one 64 KiB frame */
#define GICR_TYPER        0x0008
#define GICR_TYPER_VLPIS  BIT_ULL(1) /* GICv4: two more frames per redistributor */
#define GICR_TYPER_LAST   BIT_ULL(4)
#define GICR_TYPER_AFF_SHIFT 32

#define GICR_IGROUPR0     0x0080
#define GICR_ISENABLER0   0x0100
#define GICR_ICENABLER0   0x0180
#define GICR_ICPENDR0     0x0280
#define GICR_IPRIORITYR   0x0400
#define GICR_ICFGR1       0x0c04

/* Priority the PMI gets, and the mask of a sampling window: only priority 0 (the PMI) is
 * below 0x10. With 5 implemented priority bits the steps are 8 apart. */
#define GIC_PRIO_PMI     0x00
#define GIC_PMR_PMI_ONLY 0x10

static inline uint32_t mmio_rd32(uintptr_t a)
{
        return *(volatile uint32_t *)a;
}

static inline uint64_t mmio_rd64(uintptr_t a)
{
        return *(volatile uint64_t *)a;
}

static inline void mmio_wr32(uintptr_t a, uint32_t v)
{
        *(volatile uint32_t *)a = v;
}

/* GICR_TYPER.Affinity_Value is Aff3.Aff2.Aff1.Aff0 packed into 32 bits. */
static uint32_t mpidr_packed(uint64_t mpidr)
{
        return (uint32_t)((mpidr >> 32 & 0xff) << 24 | (mpidr & 0xffffff));
}

/* The RD_base of the calling CPU's redistributor, or 0. */
static uintptr_t find_redistributor(const struct gic_madt *m)
{
        uint64_t mpidr = SYSREG_READ(mpidr_el1);
        uint32_t want  = mpidr_packed(mpidr);

        for (size_t i = 0; i < m->n_cpus; i++)
                if (m->cpus[i].gicr_base && m->cpus[i].mpidr == (mpidr & 0xff00ffffffull))
                        return (uintptr_t)m->cpus[i].gicr_base;
        if (!m->gicr_range_base)
                return 0;
        uintptr_t end = (uintptr_t)(m->gicr_range_base + m->gicr_range_bytes);
        for (uintptr_t rd = (uintptr_t)m->gicr_range_base; rd < end;) {
                uint64_t typer = mmio_rd64(rd + GICR_TYPER);
                if ((uint32_t)(typer >> GICR_TYPER_AFF_SHIFT) == want)
                        return rd;
                if (typer & GICR_TYPER_LAST)
                        break;
                rd += (typer & GICR_TYPER_VLPIS ? 4 : 2) * GICR_FRAME_BYTES;
        }
        return 0;
}

status_t gic_probe(const struct gic_madt *m, const char **why)
{
        uint64_t pfr0 = SYSREG_READ(SYS_ID_AA64PFR0_EL1), sre = 0;

        if ((pfr0 >> ID_AA64PFR0_GIC_SHIFT & 0xf) == 0) {
                *why = "no GICv3 system-register CPU interface (ID_AA64PFR0_EL1.GIC = 0): "
                       "GICv2 PMU interrupt routing is not implemented";
                return ST_UNSUPPORTED;
        }
        if (SYSREG_READ_SAFE(SYS_ICC_SRE_EL1, &sre) != ST_OK || !(sre & ICC_SRE_SRE)) {
                *why = "GICv3 CPU interface in memory-mapped (legacy) mode: ICC_SRE_EL1.SRE clear";
                return ST_UNSUPPORTED;
        }
        if (!m || !find_redistributor(m)) {
                *why = "this CPU's GICv3 redistributor is not in the MADT (no GICR entry or "
                       "GICC GICR base)";
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}

status_t gic_ppi_route(const struct gic_madt *m, uint32_t intid, struct gic_route *r)
{
        const char *why;
        status_t    st;

        if (intid < 16 || intid > 31)
                return ST_BAD_ARG;
        if ((st = gic_probe(m, &why)) != ST_OK)
                return st;
        uintptr_t sgi = find_redistributor(m) + GICR_FRAME_BYTES;
        uint32_t  bit = 1u << intid;
        unsigned  cfg_shift = 2 * (intid - 16);

        *r = (struct gic_route){
                .intid      = intid,
                .sgi_base   = sgi,
                .enable_was = mmio_rd32(sgi + GICR_ISENABLER0) & bit,
                .group_was  = mmio_rd32(sgi + GICR_IGROUPR0) & bit,
                .cfg_was    = mmio_rd32(sgi + GICR_ICFGR1) >> cfg_shift & 3,
                .prio_was   = *(volatile uint8_t *)(sgi + GICR_IPRIORITYR + intid),
                .pmr_was    = SYSREG_READ(SYS_ICC_PMR_EL1),
        };
        mmio_wr32(sgi + GICR_ICENABLER0, bit);
        mmio_wr32(sgi + GICR_IGROUPR0, mmio_rd32(sgi + GICR_IGROUPR0) | bit);
        mmio_wr32(sgi + GICR_ICFGR1, mmio_rd32(sgi + GICR_ICFGR1) & ~(3u << cfg_shift));
        *(volatile uint8_t *)(sgi + GICR_IPRIORITYR + intid) = GIC_PRIO_PMI;
        mmio_wr32(sgi + GICR_ICPENDR0, bit);
        mmio_wr32(sgi + GICR_ISENABLER0, bit);
        __asm__ volatile("dsb sy" ::: "memory");
        return ST_OK;
}

void gic_ppi_restore(const struct gic_route *r)
{
        uintptr_t sgi = r->sgi_base;
        uint32_t  bit = 1u << r->intid;
        unsigned  cfg_shift = 2 * (r->intid - 16);

        if (!sgi)
                return;
        mmio_wr32(sgi + GICR_ICENABLER0, bit);
        *(volatile uint8_t *)(sgi + GICR_IPRIORITYR + r->intid) = r->prio_was;
        uint32_t cfg = mmio_rd32(sgi + GICR_ICFGR1) & ~(3u << cfg_shift);
        mmio_wr32(sgi + GICR_ICFGR1, cfg | r->cfg_was << cfg_shift);
        uint32_t grp = mmio_rd32(sgi + GICR_IGROUPR0) & ~bit;
        mmio_wr32(sgi + GICR_IGROUPR0, grp | r->group_was);
        mmio_wr32(sgi + GICR_ICPENDR0, bit);
        if (r->enable_was)
                mmio_wr32(sgi + GICR_ISENABLER0, bit);
        SYSREG_WRITE(SYS_ICC_PMR_EL1, r->pmr_was);
        __asm__ volatile("dsb sy" ::: "memory");
        isb();
}

uint64_t gic_pmr_pmi_only(void)
{
        uint64_t old = SYSREG_READ(SYS_ICC_PMR_EL1);
        SYSREG_WRITE(SYS_ICC_PMR_EL1, GIC_PMR_PMI_ONLY);
        isb();
        return old;
}

void gic_pmr_restore(uint64_t pmr)
{
        SYSREG_WRITE(SYS_ICC_PMR_EL1, pmr);
        isb();
}
