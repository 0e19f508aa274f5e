/** @file
 * Host tests of the per-CPU measurement windows (boot/arm64/pmi_window.c) on a model of what
 * a window touches on each CPU: PSTATE.I, VBAR, the GIC priority mask and the PMU's
 * interrupt request (PMINTENSET & PMOVSSET, a level the PMU drives). Whenever IRQs are
 * unmasked and the request is up and passes the mask, the interrupt is taken: by the
 * harness's vectors if they are in VBAR, else by the firmware's (which, for this level
 * interrupt, would EOI it and take it again forever). Two CPUs interleave their windows as
 * on a firmware MP-services path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "test_util.h"
#include "boot/arm64/pmi_window.h"

#define VBAR_FW      0xf000u
#define VBAR_HARNESS 0x1000u
#define PMR_FW       0xf0u   /* the firmware's mask: everything it routed passes */
#define PMR_PMI_ONLY 0x10u
#define PMI_PRIO     0x00u
#define DAIF_I       0x80u   /* PSTATE.I as MRS DAIF reads it */

struct cpu_model {
        uint64_t daif, vbar, pmr;
        uint32_t inten, ovs;
        unsigned fw_taken, harness_taken;
        bool     overflow_at_close; /* an overflow arrives as the window starts to close */
        unsigned n_mask;
};

/* Take the PMU interrupt if it can be taken now. */
static void deliver(struct cpu_model *c)
{
        if ((c->daif & DAIF_I) || !(c->inten & c->ovs) || !(PMI_PRIO < c->pmr))
                return;
        if (c->vbar == VBAR_HARNESS) {
                c->harness_taken++;
                c->ovs = 0; /* the harness's handler clears the overflow */
        } else {
                c->fw_taken++;
                c->ovs = 0; /* (the firmware would not: it re-enters; counted once here) */
        }
}

static uint64_t m_daif_mask(void *ctx)
{
        struct cpu_model *c = ctx;
        uint64_t          d = c->daif;
        c->daif |= DAIF_I;
        if (c->overflow_at_close && c->n_mask++ == 1)
                c->ovs |= c->inten; /* the second mask is the close's */
        return d;
}

static void m_daif_restore(void *ctx, uint64_t d)
{
        struct cpu_model *c = ctx;
        c->daif = d;
        deliver(c);
}

static void m_irq_unmask(void *ctx)
{
        struct cpu_model *c = ctx;
        c->daif &= ~(uint64_t)DAIF_I;
        deliver(c);
}

static uint64_t m_vbar_enter(void *ctx)
{
        struct cpu_model *c = ctx;
        uint64_t          v = c->vbar;
        c->vbar = VBAR_HARNESS;
        return v;
}

static void m_vbar_leave(void *ctx, uint64_t v)
{
        struct cpu_model *c = ctx;
        c->vbar = v;
        deliver(c);
}

static uint64_t m_pmr_enter(void *ctx)
{
        struct cpu_model *c = ctx;
        uint64_t          p = c->pmr;
        c->pmr = PMR_PMI_ONLY;
        return p;
}

static void m_pmr_leave(void *ctx, uint64_t p)
{
        struct cpu_model *c = ctx;
        c->pmr = p;
        deliver(c);
}

static void m_pmu_quiesce(void *ctx)
{
        struct cpu_model *c = ctx;
        uint32_t          en = c->inten;
        c->inten &= ~en;
        c->ovs &= ~en;
}

static struct pmi_window_ops ops_for(struct cpu_model *c)
{
        return (struct pmi_window_ops){
                .daif_mask = m_daif_mask, .daif_restore = m_daif_restore,
                .irq_unmask = m_irq_unmask, .vbar_enter = m_vbar_enter,
                .vbar_leave = m_vbar_leave, .pmr_enter = m_pmr_enter, .pmr_leave = m_pmr_leave,
                .pmu_quiesce = m_pmu_quiesce, .ctx = c,
        };
}

static struct cpu_model fw_state(void)
{
        return (struct cpu_model){ .daif = 0, .vbar = VBAR_FW, .pmr = PMR_FW };
}

static void test_slots(void **state)
{
        struct pmi_windows *t = calloc(1, sizeof(*t));

        (void)state;
        struct pmi_window_cpu *a = pmi_window_cpu(t, 0x80000000ull); /* MPIDR bit 31 RES1 */
        struct pmi_window_cpu *b = pmi_window_cpu(t, 0x100);
        assert_non_null(a);
        assert_non_null(b);
        assert_ptr_not_equal(a, b);
        assert_ptr_equal(pmi_window_cpu(t, 0), a);
        assert_ptr_equal(pmi_window_cpu(t, 0x100), b);
        for (unsigned i = 2; i < PMI_WINDOW_CPUS; i++)
                assert_non_null(pmi_window_cpu(t, 0x10000ull * i));
        assert_null(pmi_window_cpu(t, 0xff0000)); /* full */
        assert_ptr_equal(pmi_window_cpu(t, 0x100), b);
        free(t);
}

/* An overflow that arrives as a sampling window closes is withdrawn before anything is
 * unmasked: the firmware's vectors never see it. */
static void test_overflow_at_close(void **state)
{
        struct pmi_windows *t = calloc(1, sizeof(*t));
        struct cpu_model    c = fw_state();
        struct pmi_window_ops o = ops_for(&c);

        (void)state;
        struct pmi_window_cpu *w = pmi_window_cpu(t, 0);
        w->routed = true;
        c.inten = 1u << 31; /* the cycle counter's interrupt, as the sampler programs it */
        uint64_t s = pmi_window_open(w, &o);
        assert_int_equal(c.pmr, PMR_PMI_ONLY);
        assert_int_equal(c.vbar, VBAR_HARNESS);
        assert_false(c.daif & DAIF_I);
        c.ovs = 1u << 31; /* an overflow inside the window: the harness takes it */
        m_daif_restore(&c, c.daif);
        assert_int_equal(c.harness_taken, 1);
        c.overflow_at_close = true;
        c.n_mask = 1;
        pmi_window_close(w, s, &o);
        assert_int_equal(c.fw_taken, 0);
        assert_int_equal(c.inten, 0);
        assert_int_equal(c.ovs, 0);
        assert_int_equal(c.vbar, VBAR_FW);
        assert_int_equal(c.pmr, PMR_FW);
        assert_int_equal(c.daif, 0);
        free(t);
}

/* Two CPUs open and close windows interleaved (the boot processor sampling, another one
 * measuring with interrupts masked): each ends as it began. */
static void test_two_cpus_interleaved(void **state)
{
        struct pmi_windows *t  = calloc(1, sizeof(*t));
        struct cpu_model    c0 = fw_state(), c1 = fw_state();
        struct pmi_window_ops o0 = ops_for(&c0), o1 = ops_for(&c1);

        (void)state;
        c1.daif = DAIF_I | 0x40; /* an AP that runs with IRQ and FIQ masked */
        struct pmi_window_cpu *w0 = pmi_window_cpu(t, 0x000);
        struct pmi_window_cpu *w1 = pmi_window_cpu(t, 0x100);
        w0->routed = true;
        uint64_t s0 = pmi_window_open(w0, &o0);
        uint64_t s1 = pmi_window_open(w1, &o1);
        uint64_t s1b = pmi_window_open(w1, &o1); /* nested on CPU 1 */
        assert_false(c0.daif & DAIF_I);           /* CPU 0: the PMR filters */
        assert_true(c1.daif & DAIF_I);            /* CPU 1: no route, masked */
        assert_int_equal(c1.pmr, PMR_FW);         /* and its PMR untouched */
        pmi_window_close(w0, s0, &o0);            /* CPU 0 closes first */
        assert_int_equal(c0.daif, 0);
        assert_int_equal(c0.vbar, VBAR_FW);
        assert_int_equal(c0.pmr, PMR_FW);
        uint64_t s0b = pmi_window_open(w0, &o0);  /* and opens again meanwhile */
        pmi_window_close(w1, s1b, &o1);
        pmi_window_close(w1, s1, &o1);
        assert_int_equal(c1.daif, DAIF_I | 0x40);
        assert_int_equal(c1.vbar, VBAR_FW);
        pmi_window_close(w0, s0b, &o0);
        assert_int_equal(c0.daif, 0);             /* the boot CPU is not left masked */
        assert_int_equal(w0->depth, 0);
        assert_int_equal(w1->depth, 0);
        free(t);
}

/* Nested deeper than the stack: the extra windows only mask and restore DAIF. */
static void test_too_deep(void **state)
{
        struct pmi_windows *t = calloc(1, sizeof(*t));
        struct cpu_model    c = fw_state();
        struct pmi_window_ops o = ops_for(&c);
        uint64_t            s[PMI_WINDOW_DEPTH + 2];

        (void)state;
        struct pmi_window_cpu *w = pmi_window_cpu(t, 0);
        for (unsigned i = 0; i < PMI_WINDOW_DEPTH + 2; i++)
                s[i] = pmi_window_open(w, &o);
        for (unsigned i = PMI_WINDOW_DEPTH + 2; i-- > 0;)
                pmi_window_close(w, s[i], &o);
        assert_int_equal(c.daif, 0);
        assert_int_equal(c.vbar, VBAR_FW);
        assert_int_equal(w->depth, 0);
        free(t);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_slots),
                cmocka_unit_test(test_overflow_at_close),
                cmocka_unit_test(test_two_cpus_interleaved),
                cmocka_unit_test(test_too_deep),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
