/** @file Per-CPU measurement windows (see pmi_window.h). Pure: host-tested. */
#include "lib/base.h"

#include "boot/arm64/pmi_window.h"

#define MPIDR_AFF_MASK 0xff00ffffffull
#define TOO_DEEP       BIT_ULL(62) /* nested beyond PMI_WINDOW_DEPTH: only DAIF was saved */

struct pmi_window_cpu *pmi_window_cpu(struct pmi_windows *t, uint64_t mpidr)
{
        mpidr &= MPIDR_AFF_MASK;
        for (unsigned i = 0; i < PMI_WINDOW_CPUS; i++) {
                struct pmi_window_cpu *c = &t->cpu[i];
                uint32_t st = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
                if (st == PMI_SLOT_FREE &&
                    __atomic_compare_exchange_n(&c->state, &st, PMI_SLOT_CLAIMING, false,
                                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                        c->mpidr = mpidr;
                        __atomic_store_n(&c->state, PMI_SLOT_READY, __ATOMIC_RELEASE);
                        return c;
                }
                /* Another CPU is writing its MPIDR here: wait for it (a few instructions). */
                while (st == PMI_SLOT_CLAIMING)
                        st = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
                if (c->mpidr == mpidr)
                        return c;
        }
        return NULL;
}

uint64_t pmi_window_open(struct pmi_window_cpu *c, const struct pmi_window_ops *o)
{
        uint64_t daif = o->daif_mask(o->ctx);

        if (c->depth >= PMI_WINDOW_DEPTH)
                return TOO_DEEP | daif; /* IRQs stay masked, nothing else changes */
        struct pmi_window_frame *w = &c->w[c->depth];
        *w = (struct pmi_window_frame){ .daif = daif, .routed = c->routed };
        w->vbar = o->vbar_enter(o->ctx);
        if (w->routed) {
                w->pmr = o->pmr_enter(o->ctx);
                o->irq_unmask(o->ctx);
        }
        return c->depth++;
}

void pmi_window_close(struct pmi_window_cpu *c, uint64_t saved, const struct pmi_window_ops *o)
{
        if (saved & TOO_DEEP) {
                o->daif_restore(o->ctx, saved & ~TOO_DEEP);
                return;
        }
        if (saved + 1 != c->depth)
                return;
        struct pmi_window_frame *w = &c->w[--c->depth];
        o->daif_mask(o->ctx);
        if (w->routed) {
                o->pmu_quiesce(o->ctx); /* before anything lets an interrupt through */
                o->pmr_leave(o->ctx, w->pmr);
        }
        o->vbar_leave(o->ctx, w->vbar);
        o->daif_restore(o->ctx, w->daif);
}
