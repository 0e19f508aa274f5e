/** @file
 * The C side of the harness's AArch64 vectors: fixup of probing accesses, the PMU interrupt
 * dispatch, and switching VBAR_ELx (x = the level the harness runs at, 1 or 2) between the
 * firmware's table and the harness's.
 */
#include <stddef.h>

#include "lib/base.h"

#include "boot/arm64/sysreg.h"
#include "boot/arm64/trap.h"

_Static_assert(offsetof(struct trap_frame, elr) == TRAP_FRAME_ELR, "frame layout");
_Static_assert(offsetof(struct trap_frame, esr) == TRAP_FRAME_ESR, "frame layout");
_Static_assert(offsetof(struct trap_frame, sp) == TRAP_FRAME_SP, "frame layout");
_Static_assert(sizeof(struct trap_frame) == TRAP_FRAME_BYTES, "frame layout");

/* GICv3 INTIDs 1020..1023 are special: 1023 = nothing pending. [GICv3] §2.2.1 */
#define GIC_INTID_SPURIOUS 1023

volatile uint64_t trap_fixup_pc TRAP_HIDDEN;
volatile uint64_t trap_fault_esr TRAP_HIDDEN;
volatile uint64_t trap_n_recovered TRAP_HIDDEN;
/* Read by trap_arm64.S when it hands an exception to the firmware. */
uint64_t trap_fw_vbar TRAP_HIDDEN;

static bool          installed;
static unsigned      el;       /* the level trap_vectors_install found: 1 or 2 */
static trap_fatal_fn fatal_fn; /* the platform's report of an unexpected exception */
static trap_irq_fn   irq_fn;
static void       *irq_ctx;
static uint32_t    irq_intid = GIC_INTID_SPURIOUS;
static bool        irq_eoi_split;

bool trap_vectors_install(trap_fatal_fn fatal)
{
        fatal_fn  = fatal;
        el        = arm64_current_el();
        installed = el == 1 || el == 2;
        if (installed)
                trap_fw_vbar = EL_REG_READ(vbar);
        return installed;
}

unsigned trap_el(void)
{
        return installed ? el : 0;
}

uint64_t trap_vector_base(void)
{
        return (uint64_t)(uintptr_t)(arm64_current_el() == 2 ? trap_vectors_el2 : trap_vectors);
}

void trap_restore(void)
{
        /* VBAR_ELx holds the harness's table only inside probes and windows, which put the
         * firmware's back themselves: nothing is left to restore. */
        installed = false;
}

bool trap_active(void)
{
        return installed;
}

void trap_probe_begin(struct trap_probe *p)
{
        p->daif = daif_mask();
        p->vbar = 0;
        trap_fault_esr = 0;
        if (!installed)
                return;
        p->vbar = EL_REG_READ(vbar);
        EL_REG_WRITE(vbar, trap_vector_base());
        isb();
}

status_t trap_probe_end(const struct trap_probe *p, uint64_t *out)
{
        bool faulted = trap_fault_esr != 0;

        if (installed) {
                EL_REG_WRITE(vbar, p->vbar);
                isb();
        }
        daif_restore(p->daif);
        if (!installed && out)
                *out = 0;
        if (!installed)
                return ST_UNSUPPORTED;
        if (faulted && out)
                *out = 0;
        return faulted ? ST_FAULT : ST_OK;
}

uint64_t trap_window_enter(void)
{
        if (!installed)
                return 0;
        uint64_t v = EL_REG_READ(vbar);
        EL_REG_WRITE(vbar, trap_vector_base());
        isb();
        return v;
}

void trap_window_leave(uint64_t vbar)
{
        if (!installed)
                return;
        EL_REG_WRITE(vbar, vbar);
        isb();
}

void trap_set_irq(uint32_t intid, bool eoi_split, trap_irq_fn fn, void *ctx)
{
        irq_fn    = NULL;
        irq_ctx   = ctx;
        irq_eoi_split = eoi_split;
        irq_intid = fn ? intid : GIC_INTID_SPURIOUS;
        irq_fn    = fn;
}

static uint64_t dispatch_irq(struct trap_frame *f)
{
        if (!irq_fn)
                return 1;
        /* Look before acknowledging: an interrupt that is not ours stays pending and the
         * firmware takes it after the hand-over. [GICv3] §12.11.11 ICC_HPPIR1_EL1. */
        uint32_t pending = (uint32_t)SYSREG_READ(SYS_ICC_HPPIR1_EL1) & 0xffffff;
        if (pending == GIC_INTID_SPURIOUS)
                return 0; /* withdrawn (a level interrupt whose source was cleared): resume */
        if (pending != irq_intid)
                return 1;
        uint64_t iar = SYSREG_READ(SYS_ICC_IAR1_EL1);
        if ((iar & 0xffffff) == irq_intid)
                irq_fn(f, irq_ctx);
        if ((iar & 0xffffff) < 1020) {
                /* EOImode 1 (as Linux sets it at EL2): EOIR only drops the priority, DIR
                 * deactivates. [GICv3] ICC_DIR_EL1; Linux irq-gic-v3.c gic_eoi_irq, gic_write_dir. */
                SYSREG_WRITE(SYS_ICC_EOIR1_EL1, iar);
                isb();
                if (irq_eoi_split) {
                        SYSREG_WRITE(SYS_ICC_DIR_EL1, iar);
                        isb();
                }
        }
        return 0;
}

uint64_t trap_dispatch(uint64_t kind, struct trap_frame *f)
{
        if (kind == TRAP_KIND_SYNC && trap_fixup_pc) {
                f->elr         = trap_fixup_pc;
                trap_fixup_pc  = 0;
                trap_fault_esr = f->esr | BIT_ULL(63); /* never 0, even for ESR 0 */
                trap_n_recovered++;
                return 0;
        }
        if (kind == TRAP_KIND_IRQ)
                return dispatch_irq(f);
        if (fatal_fn)
                fatal_fn(kind, f);
        return 1;
}
