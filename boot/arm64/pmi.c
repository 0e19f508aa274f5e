/** @file
 * The PMI route and measurement windows on AArch64 (boot/cpu.h: cpu_pmi_enable,
 * cpu_pmi_disable, cpu_pmi_selftest, cpu_irq_disable, cpu_irq_restore).
 *
 * AArch64 has no NMI the harness can count on (FEAT_NMI is recent), so where x86 delivers
 * the PMI as an NMI into windows run with IF = 0, here a window keeps IRQs unmasked at the
 * CPU and raises the GIC priority mask instead: the PMU PPI, routed at the highest priority,
 * is the only interrupt the CPU interface still signals, and the harness's vectors are in
 * VBAR_ELx for the window's length. Without a route a window simply masks IRQ and FIQ
 * (DAIF). Either way the firmware's timer tick waits until the window ends, as on x86.
 * The windows themselves are per CPU (boot/arm64/pmi_window.h); this file gives them the
 * hardware.
 *
 * The PMU interrupt is the one the MADT's GICC entry names, with its trigger; a GSIV of 0
 * (no PMU interrupt) makes cpu_pmi_enable return ST_NOT_FOUND, which the sampling suites
 * report as that, and nothing is guessed.
 */
#include "lib/base.h"

#include "boot/arm64/gic.h"
#include "boot/arm64/pmi_window.h"
#include "boot/arm64/sysreg.h"
#include "boot/arm64/trap.h"
#include "boot/cpu.h"
#include "boot/plat.h"

#define SELFTEST_TIMEOUT_TICKS (1ull << 26) /* generic-timer ticks: ~1 s at 62.5 MHz */
#define GICR_ISPENDR0 0x0200

static struct {
        bool             enabled;
        cpu_pmi_fn      fn;
        void            *ctx;
        struct gic_madt  madt;
        struct gic_route route;
        struct pmi_window_cpu *cpu;  /* the CPU the route was made on */
        volatile uint64_t n_selftest;
} pmi;

static struct pmi_windows windows;

static uint64_t op_daif_mask(void *ctx)
{
        (void)ctx;
        return daif_mask();
}

static void op_daif_restore(void *ctx, uint64_t d)
{
        (void)ctx;
        daif_restore(d);
}

static void op_irq_unmask(void *ctx)
{
        (void)ctx;
        __asm__ volatile("msr daifclr, #2" ::: "memory"); /* IRQ on, PMR filters */
}

static uint64_t op_vbar_enter(void *ctx)
{
        (void)ctx;
        return trap_window_enter();
}

static void op_vbar_leave(void *ctx, uint64_t v)
{
        (void)ctx;
        trap_window_leave(v);
}

static uint64_t op_pmr_enter(void *ctx)
{
        (void)ctx;
        return gic_pmr_pmi_only(&pmi.route);
}

static void op_pmr_leave(void *ctx, uint64_t pmr)
{
        (void)ctx;
        gic_pmr_restore(pmr);
}

/* Withdraw the PMU's interrupt request: PMINTENCLR_EL1 for every enabled counter interrupt,
 * then PMOVSCLR_EL0 for their overflows, so that the level the PMU drives falls before the
 * firmware's vectors and priority mask are back. [ARM-ARM] D23.5 PMINTENCLR_EL1,
 * PMOVSCLR_EL0; Linux armv8pmu_disable_event_irq + armv8pmu_getreset_flags. */
static void op_pmu_quiesce(void *ctx)
{
        (void)ctx;
        uint64_t en = SYSREG_READ(pmintenset_el1);
        SYSREG_WRITE(pmintenclr_el1, en);
        isb();
        SYSREG_WRITE(pmovsclr_el0, en);
        isb();
}

static const struct pmi_window_ops hw_ops = {
        .daif_mask = op_daif_mask, .daif_restore = op_daif_restore,
        .irq_unmask = op_irq_unmask, .vbar_enter = op_vbar_enter,
        .vbar_leave = op_vbar_leave, .pmr_enter = op_pmr_enter, .pmr_leave = op_pmr_leave,
        .pmu_quiesce = op_pmu_quiesce,
};

static struct pmi_window_cpu *this_cpu(void)
{
        return pmi_window_cpu(&windows, SYSREG_READ(mpidr_el1));
}

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
        struct gic_pmu_irq irq;
        if (ext_lvt_offset >= 0 || !trap_active() || !(pmi.cpu = this_cpu()))
                return ST_UNSUPPORTED;
        if ((st = load_madt(&pmi.madt)) != ST_OK)
                return st == ST_BAD_DATA ? st : ST_UNSUPPORTED;
        st = gic_pmu_irq(&pmi.madt, SYSREG_READ(mpidr_el1), &irq, NULL);
        if (st != ST_OK) /* GSIV 0: ST_NOT_FOUND, "no PMU interrupt" (see the file comment) */
                return st == ST_NOT_FOUND ? ST_NOT_FOUND : ST_UNSUPPORTED;
        if ((st = gic_ppi_route(&pmi.madt, &irq, &pmi.route)) != ST_OK)
                return st;
        pmi.fn      = fn;
        pmi.ctx     = ctx;
        pmi.enabled = true;
        pmi.cpu->routed = true;
        trap_set_irq(irq.intid, pmi.route.eoi_drop_only, on_irq, NULL);
        return ST_OK;
}

void cpu_pmi_disable(void)
{
        if (!pmi.enabled)
                return;
        uint64_t d = daif_mask();
        gic_ppi_restore(&pmi.route);
        trap_set_irq(0, false, NULL, NULL);
        pmi.cpu->routed = false;
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

bool cpu_irq_disable(uint64_t *saved)
{
        struct pmi_window_cpu *c = this_cpu();

        if (!c) { /* more processors than window slots: mask, nothing else */
                *saved = daif_mask();
                return true;
        }
        *saved = pmi_window_open(c, &hw_ops);
        return true;
}

void cpu_irq_restore(uint64_t saved)
{
        struct pmi_window_cpu *c = this_cpu();

        if (!c)
                daif_restore(saved);
        else
                pmi_window_close(c, saved, &hw_ops);
}
