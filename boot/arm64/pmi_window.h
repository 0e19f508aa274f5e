/** @file
 * Measurement windows on AArch64, per CPU and pure (the hardware is behind struct
 * pmi_window_ops: boot/arm64/pmi.c in the firmware build, a model in tests/test_pmi_window.c).
 *
 * A window masks IRQ and FIQ; where the PMU interrupt is routed on this CPU it also puts the
 * harness's vectors in and raises the GIC priority mask so that only the PMI is signalled,
 * then unmasks IRQ. Each CPU keeps its own stack of windows, found by MPIDR: on a path where
 * the firmware's MP services run the harness's code on other processors, their windows
 * never touch the boot processor's saved DAIF, VBAR or PMR.
 *
 * Leaving a window that let the PMI in, the PMU's interrupt requests are withdrawn before
 * anything is unmasked (PMINTENCLR for every enabled counter interrupt, PMOVSCLR for their
 * overflows): an overflow in flight at the close would otherwise be taken by the firmware's
 * vector, whose GICv3 handler EOIs a level interrupt it cannot clear and takes it again
 * forever (edk2 ArmPkg/Drivers/ArmGic/GicV3).
 */
#ifndef PMUCAL_ARM64_PMI_WINDOW_H
#define PMUCAL_ARM64_PMI_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#define PMI_WINDOW_DEPTH 4
#define PMI_WINDOW_CPUS  64

/** What a window does to the CPU it runs on; ctx is the ops' own. */
struct pmi_window_ops {
        uint64_t (*daif_mask)(void *ctx);           /* mask IRQ/FIQ; the previous DAIF */
        void (*daif_restore)(void *ctx, uint64_t daif);
        void (*irq_unmask)(void *ctx);              /* PSTATE.I clear: the PMR filters */
        uint64_t (*vbar_enter)(void *ctx);          /* the harness's vectors; the old VBAR */
        void (*vbar_leave)(void *ctx, uint64_t vbar);
        uint64_t (*pmr_enter)(void *ctx);           /* the PMI-only mask; the old PMR */
        void (*pmr_leave)(void *ctx, uint64_t pmr);
        void (*pmu_quiesce)(void *ctx);             /* PMINTENCLR + PMOVSCLR what is enabled */
        void *ctx;
};

struct pmi_window_frame {
        uint64_t daif, vbar, pmr;
        bool     routed;
};

enum { PMI_SLOT_FREE = 0, PMI_SLOT_CLAIMING, PMI_SLOT_READY };

/** One CPU's windows. */
struct pmi_window_cpu {
        uint32_t                state;   /* PMI_SLOT_*: the slot is this MPIDR's once READY */
        uint64_t                mpidr;
        bool                    routed;  /* the PMU interrupt is routed to this CPU */
        unsigned                depth;
        struct pmi_window_frame w[PMI_WINDOW_DEPTH];
};

struct pmi_windows {
        struct pmi_window_cpu cpu[PMI_WINDOW_CPUS];
};

/** The window state of the CPU with MPIDR @p mpidr (affinity fields), claimed on first use
 *  (atomically: CPUs may call this at once); NULL when every slot is taken. */
struct pmi_window_cpu *pmi_window_cpu(struct pmi_windows *t, uint64_t mpidr);

/** Open a window on @p c; returns what pmi_window_close wants back. */
uint64_t pmi_window_open(struct pmi_window_cpu *c, const struct pmi_window_ops *o);
/** Close the window @p saved names (the innermost one; anything else is ignored). */
void pmi_window_close(struct pmi_window_cpu *c, uint64_t saved, const struct pmi_window_ops *o);

#endif
