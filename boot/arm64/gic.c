/** @file
 * Routing the PMU overflow PPI through a GICv3 redistributor, and the priority-mask window
 * that lets it alone through, on the hardware (the arithmetic is gic_rules.c's). Register
 * offsets: [GICv3] §12.9 (GICD_CTLR), §12.10 (SGI and PPI registers in the SGI_base frame),
 * §12.11 (ICC_* system registers).
 */
#include "lib/base.h"

#include "boot/arm64/gic.h"
#include "boot/arm64/sysreg.h"
#include "boot/arm64/trap.h"

#define ID_AA64PFR0_GIC_SHIFT 24 /* [ARM-ARM] D23.2.67: 1 = GICv3 system registers */
#define ICC_SRE_SRE           BIT_ULL(0)

#define GICR_FRAME_BYTES  0x10000u /* one 64 KiB frame */

#define GICD_CTLR         0x0000
#define GICD_CTLR_DS      (1u << 6) /* one security state; reads 0 in the NS view of DS = 0 */

#define GICR_IGROUPR0     0x0080
#define GICR_ISENABLER0   0x0100
#define GICR_ICENABLER0   0x0180
#define GICR_ICPENDR0     0x0280
#define GICR_IPRIORITYR   0x0400
#define GICR_ICFGR1       0x0c04
#define GICR_ICFGR_EDGE   2u        /* Int_config[1] of a PPI's two bits: 1 = edge */

/* ICC_CTLR_EL1 ([GICv3] register description): EOImode [1], PRIbits [10:8] = implemented bits - 1. */
#define ICC_CTLR_EOIMODE     BIT_ULL(1)
#define ICC_CTLR_PRIBITS_SHIFT 8
#define RWP_MAX_POLLS        (1u << 20) /* Linux waits 1 s; each poll is an MMIO read */

static uint32_t hw_rd32(void *ctx, uint64_t a)
{
        (void)ctx;
        return *(volatile uint32_t *)(uintptr_t)a;
}

static uint64_t hw_rd64(void *ctx, uint64_t a)
{
        (void)ctx;
        return *(volatile uint64_t *)(uintptr_t)a;
}

static void hw_wr32(void *ctx, uint64_t a, uint32_t v)
{
        (void)ctx;
        *(volatile uint32_t *)(uintptr_t)a = v;
}

static const struct gic_mmio hw = { .rd32 = hw_rd32, .rd64 = hw_rd64, .wr32 = hw_wr32 };

static inline uint32_t mmio_rd32(uintptr_t a)
{
        return hw_rd32(NULL, a);
}

static inline void mmio_wr32(uintptr_t a, uint32_t v)
{
        hw_wr32(NULL, a, v);
}

static uintptr_t find_redistributor(const struct gic_madt *m)
{
        return (uintptr_t)gic_redist_find(m, SYSREG_READ(mpidr_el1), &hw);
}

/* Linux's gic_has_group0(): write the highest non-zero priority PRIbits allow to the PMR;
 * with SCR_EL3.FIQ set the write is shifted into the non-secure half and loses that bit,
 * reading back 0. */
static bool pmr_group0(void)
{
        uint64_t ctlr    = SYSREG_READ(SYS_ICC_CTLR_EL1);
        unsigned pribits = (unsigned)(ctlr >> ICC_CTLR_PRIBITS_SHIFT & 7) + 1;
        uint64_t old     = SYSREG_READ(SYS_ICC_PMR_EL1);

        SYSREG_WRITE(SYS_ICC_PMR_EL1, 1u << (8 - pribits));
        isb();
        uint64_t got = SYSREG_READ(SYS_ICC_PMR_EL1);
        SYSREG_WRITE(SYS_ICC_PMR_EL1, old);
        isb();
        return got != 0;
}

/* Putting a route back: a redistributor that never finishes the disable is left as it is
 * (there is nothing better to do on the way out); routing refuses instead. */
static void rwp_wait_best_effort(uintptr_t rd)
{
        (void)gic_rwp_wait(&hw, rd, RWP_MAX_POLLS);
}

status_t gic_probe(const struct gic_madt *m, const char **why)
{
        uint64_t pfr0 = SYSREG_READ(SYS_ID_AA64PFR0_EL1), sre = 0;

        if ((pfr0 >> ID_AA64PFR0_GIC_SHIFT & 0xf) == 0) {
                *why = "no GICv3 system-register CPU interface (ID_AA64PFR0_EL1.GIC = 0): "
                       "GICv2 PMU interrupt routing is not implemented";
                return ST_UNSUPPORTED;
        }
        /* The enable of the level the harness runs at: at EL2 ICC_SRE_EL2 (ICC_SRE_EL1 is
         * then EL1's own, which the firmware need not have set). */
        status_t sst = arm64_current_el() == 2 ? SYSREG_READ_SAFE(SYS_ICC_SRE_EL2, &sre)
                                               : SYSREG_READ_SAFE(SYS_ICC_SRE_EL1, &sre);
        if (sst != ST_OK || !(sre & ICC_SRE_SRE)) {
                *why = arm64_current_el() == 2
                               ? "GICv3 CPU interface in memory-mapped (legacy) mode: "
                                 "ICC_SRE_EL2.SRE clear"
                               : "GICv3 CPU interface in memory-mapped (legacy) mode: "
                                 "ICC_SRE_EL1.SRE clear";
                return ST_UNSUPPORTED;
        }
        if (!m || !find_redistributor(m)) {
                *why = "this CPU's GICv3 redistributor is not in the MADT (no GICR range holds "
                       "its affinity, no GICC GICR base)";
                return ST_UNSUPPORTED;
        }
        if (!m->gicd_base) {
                *why = "no GICD entry in the MADT: GICD_CTLR.DS, which decides how priorities "
                       "are written, cannot be read";
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}

status_t gic_ppi_route(const struct gic_madt *m, const struct gic_pmu_irq *irq,
                       struct gic_route *r)
{
        const char *why;
        status_t    st;

        if (!irq || irq->intid < 16 || irq->intid > 31)
                return ST_BAD_ARG;
        if ((st = gic_probe(m, &why)) != ST_OK)
                return st;
        uint32_t  intid = irq->intid;
        uintptr_t rd  = find_redistributor(m);
        uintptr_t sgi = rd + GICR_FRAME_BYTES;
        uint32_t  bit = 1u << intid;
        unsigned  cfg_shift = 2 * (intid - 16);

        *r = (struct gic_route){
                .intid      = intid,
                .rd_base    = rd,
                .sgi_base   = sgi,
                .enable_was = mmio_rd32(sgi + GICR_ISENABLER0) & bit,
                .group_was  = mmio_rd32(sgi + GICR_IGROUPR0) & bit,
                .cfg_was    = mmio_rd32(sgi + GICR_ICFGR1) >> cfg_shift & 3,
                .prio_was   = *(volatile uint8_t *)(sgi + GICR_IPRIORITYR + intid),
                .pmr_was    = SYSREG_READ(SYS_ICC_PMR_EL1),
                .ds         = mmio_rd32((uintptr_t)m->gicd_base + GICD_CTLR) & GICD_CTLR_DS,
                .group0     = pmr_group0(),
                .eoi_drop_only = SYSREG_READ(SYS_ICC_CTLR_EL1) & ICC_CTLR_EOIMODE,
        };
        gic_prio_plan(r->ds, r->group0, &r->plan);
        mmio_wr32(sgi + GICR_ICENABLER0, bit);
        if ((st = gic_rwp_wait(&hw, rd, RWP_MAX_POLLS)) != ST_OK)
                return st; /* the disable never took effect: configuring now is unsafe */
        mmio_wr32(sgi + GICR_IGROUPR0, mmio_rd32(sgi + GICR_IGROUPR0) | bit);
        uint32_t cfg = mmio_rd32(sgi + GICR_ICFGR1) & ~(3u << cfg_shift);
        mmio_wr32(sgi + GICR_ICFGR1, cfg | (irq->edge ? GICR_ICFGR_EDGE << cfg_shift : 0));
        *(volatile uint8_t *)(sgi + GICR_IPRIORITYR + intid) = r->plan.prio;
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
        rwp_wait_best_effort(r->rd_base);
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

uint64_t gic_pmr_pmi_only(const struct gic_route *r)
{
        uint64_t old = SYSREG_READ(SYS_ICC_PMR_EL1);
        SYSREG_WRITE(SYS_ICC_PMR_EL1, r->plan.pmr);
        isb();
        return old;
}

void gic_pmr_restore(uint64_t pmr)
{
        SYSREG_WRITE(SYS_ICC_PMR_EL1, pmr);
        isb();
}
