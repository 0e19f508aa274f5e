/** @file
 * The PMI route and measurement windows on AArch64 (boot/cpu.h: cpu_pmi_enable,
 * cpu_pmi_disable, cpu_pmi_selftest, cpu_irq_disable, cpu_irq_restore).
 *
 * AArch64 has no NMI the harness can count on (FEAT_NMI is recent), so where x86 delivers
 * the PMI as an NMI into windows run with IF = 0, here a window keeps IRQs unmasked at the
 * CPU and raises the GIC priority mask instead: the PMU PPI, routed at priority 0, is the
 * only interrupt the CPU interface still signals, and the harness's vectors are in VBAR_EL1
 * for the window's length. Without a route a window simply masks IRQ and FIQ (DAIF). Either
 * way the firmware's timer tick waits until the window ends, as on x86.
 */
#include "lib/base.h"

#include "boot/arm64/gic.h"
#include "boot/arm64/smp.h"
#include "boot/arm64/sysreg.h"
#include "boot/arm64/trap.h"
#include "boot/cpu.h"
#include "boot/plat.h"

#define SELFTEST_TIMEOUT_TICKS (1ull << 26) /* generic-timer ticks: ~1 s at 62.5 MHz */
#define GICR_ISPENDR0 0x0200
#define WINDOW_DEPTH  4

struct window {
        uint64_t daif, vbar, pmr;
        bool     pmr_set;
};

static struct {
        bool             enabled;
        cpu_pmi_fn      fn;
        void            *ctx;
        struct gic_madt  madt;
        struct gic_route route;
        volatile uint64_t n_selftest;
} pmi;

static struct window windows[WINDOW_DEPTH];
static unsigned      depth;

static void on_irq(const struct trap_frame *f, void *ctx)
{
        (void)ctx;
        struct cpu_pmi_frame pf = { .rip = f->elr, .cs = 0, .rflags = f->spsr, .rsp = f->sp };
        pmi.n_selftest++;
        if (pmi.fn)
                pmi.fn(&pf, pmi.ctx);
}

static status_t load_madt(struct gic_madt *m)
{
        struct plat_fw_table t;
        if (plat_fw_table(PLAT_FW_ACPI, "APIC", 0, &t) != ST_OK || !t.data)
                return ST_UNSUPPORTED;
        return gic_madt_parse(t.data, t.len, m);
}

status_t cpu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        status_t st;

        if (pmi.enabled)
                return ST_BAD_ARG;
        if (ext_lvt_offset >= 0 || !trap_active())
                return ST_UNSUPPORTED;
        if ((st = load_madt(&pmi.madt)) != ST_OK)
                return st == ST_BAD_DATA ? st : ST_UNSUPPORTED;
        uint32_t intid = gic_pmu_intid(&pmi.madt, SYSREG_READ(mpidr_el1), NULL);
        if ((st = gic_ppi_route(&pmi.madt, intid, &pmi.route)) != ST_OK)
                return st;
        pmi.fn      = fn;
        pmi.ctx     = ctx;
        pmi.enabled = true;
        trap_set_irq(intid, on_irq, NULL);
        return ST_OK;
}

void cpu_pmi_disable(void)
{
        if (!pmi.enabled)
                return;
        uint64_t d = daif_mask();
        gic_ppi_restore(&pmi.route);
        trap_set_irq(0, NULL, NULL);
        pmi.enabled = false;
        pmi.fn      = NULL;
        daif_restore(d);
}

/* Make the PMU PPI pending by software (GICR_ISPENDR0) inside a window and wait for the
 * handler: the whole route except the PMU itself. */
status_t cpu_pmi_selftest(uint64_t *round_trip)
{
        uint64_t saved;

        if (!pmi.enabled)
                return ST_UNSUPPORTED;
        uint64_t before = pmi.n_selftest;
        cpu_irq_disable(&saved);
        uint64_t t0 = SYSREG_READ(cntvct_el0);
        *(volatile uint32_t *)(pmi.route.sgi_base + GICR_ISPENDR0) = 1u << pmi.route.intid;
        uint64_t t1 = t0;
        while (pmi.n_selftest == before && t1 - t0 < SELFTEST_TIMEOUT_TICKS)
                t1 = SYSREG_READ(cntvct_el0);
        cpu_irq_restore(saved);
        if (pmi.n_selftest == before)
                return ST_TIMEOUT;
        *round_trip = t1 - t0;
        return ST_OK;
}

/* A window on a secondary processor (boot/arm64/smp.h): it never unmasks interrupts and
 * keeps the harness's vectors, so its window saves DAIF alone; the window stack below is
 * the boot processor's. */
#define SECONDARY_SAVED BIT_ULL(63)

bool cpu_irq_disable(uint64_t *saved)
{
        uint64_t daif = daif_mask();
        if (smp_on_secondary()) {
                *saved = SECONDARY_SAVED | daif;
                return true;
        }
        *saved = depth;
        if (depth >= WINDOW_DEPTH)
                return true; /* nested too deep: IRQs stay masked, nothing else changes */
        struct window *w = &windows[depth++];
        w->daif    = daif;
        w->vbar    = trap_window_enter();
        w->pmr_set = pmi.enabled;
        if (w->pmr_set) {
                w->pmr = gic_pmr_pmi_only();
                __asm__ volatile("msr daifclr, #2" ::: "memory"); /* IRQ on, PMR filters */
        }
        return true;
}

void cpu_irq_restore(uint64_t saved)
{
        if (saved & SECONDARY_SAVED) {
                daif_restore(saved & ~SECONDARY_SAVED);
                return;
        }
        if (saved >= WINDOW_DEPTH || saved + 1 != depth)
                return;
        struct window *w = &windows[--depth];
        daif_mask();
        if (w->pmr_set)
                gic_pmr_restore(w->pmr);
        trap_window_leave(w->vbar);
        daif_restore(w->daif);
}
