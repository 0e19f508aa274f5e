/** @file
 * Host tests of the GIC arithmetic (boot/arm64/gic_rules.c, gic_madt.c): the priorities of
 * the PMI and of a sampling window's mask in both security views (GICD_CTLR.DS 0 and 1,
 * with and without group 0), the PMU interrupt and its trigger from the MADT (GSIV 0 = none),
 * every GICR discovery range walked for a CPU's redistributor, and the GICR_CTLR.RWP wait,
 * on a register model of redistributor frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "test_util.h"
#include "boot/arm64/gic.h"

/* ---- priorities: an oracle written from the GICv3 rules, not from gic_rules.c ---- */

/* What a non-secure write of priority v becomes: DS = 1 keeps it, DS = 0 puts it in the
 * non-secure half, 0x80 | v >> 1. [GICv3] "Interrupt prioritization" */
static unsigned landed_prio(bool ds, uint8_t v)
{
        return ds ? v : 0x80u | v >> 1;
}

/* ICC_PMR_EL1 is shifted the same way only when group 0 is not ours (SCR_EL3.FIQ set). */
static unsigned landed_pmr(bool ds, bool group0, uint8_t v)
{
        return ds || group0 ? v : 0x80u | v >> 1;
}

/* An interrupt is signalled when its priority is below (numerically) the mask. */
static bool signalled(unsigned prio, unsigned pmr)
{
        return prio < pmr;
}

static void test_prio_plan(void **state)
{
        static const struct {
                bool ds, group0;
        } views[] = {
                { true, true },   /* one security state (QEMU virt without EL3) */
                { true, false },
                { false, true },  /* two states, SCR_EL3.FIQ clear: the PMR is not shifted */
                { false, false }, /* two states, SCR_EL3.FIQ set: both shifted */
        };
        /* Linux's default priority for everything else (GICD_INT_DEF_PRI 0xa0) and a firmware
         * timer at 0x20: both must wait while a window is open. */
        static const uint8_t others[] = { 0xa0, 0x20 };

        (void)state;
        for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
                struct gic_prio_plan p;
                gic_prio_plan(views[i].ds, views[i].group0, &p);
                unsigned pmi = landed_prio(views[i].ds, p.prio);
                unsigned pmr = landed_pmr(views[i].ds, views[i].group0, p.pmr);
                assert_true(signalled(pmi, pmr));
                for (size_t k = 0; k < sizeof(others); k++)
                        assert_false(signalled(landed_prio(views[i].ds, others[k]), pmr));
        }
        /* The arithmetic that ignores DS: priority 0 lands at 0x80 behind a PMR of 0x10, the
         * PMI never arrives. The plan must not be that. */
        struct gic_prio_plan p;
        gic_prio_plan(false, true, &p);
        assert_false(signalled(landed_prio(false, 0x00), landed_pmr(false, true, 0x10)));
        assert_int_not_equal(p.pmr, 0x10);
}

/* ---- the MADT: GICC flags, several GICR ranges ---- */

static size_t put_gicc(uint8_t *e, uint64_t mpidr, uint32_t gsiv, uint32_t flags, uint64_t gicr)
{
        memset(e, 0, 80);
        e[0] = 0x0b;
        e[1] = 80;
        memcpy(e + 12, &flags, 4);
        memcpy(e + 20, &gsiv, 4);
        memcpy(e + 60, &gicr, 8);
        memcpy(e + 68, &mpidr, 8);
        return 80;
}

static size_t put_gicr(uint8_t *e, uint64_t base, uint32_t len)
{
        memset(e, 0, 16);
        e[0] = 0x0e;
        e[1] = 16;
        memcpy(e + 4, &base, 8);
        memcpy(e + 12, &len, 4);
        return 16;
}

static size_t finish(uint8_t *t, size_t n)
{
        uint32_t len = (uint32_t)n;
        memcpy(t, "APIC", 4);
        memcpy(t + 4, &len, 4);
        return n;
}

static void test_madt_pmu_irq(void **state)
{
        uint8_t            t[1024] = { 0 };
        size_t             n = 44;
        struct gic_madt   *m = calloc(1, sizeof(*m));
        struct gic_pmu_irq irq;
        const char        *why;

        (void)state;
        n += put_gicc(t + n, 0x000, 23, 1 | 2, 0);  /* enabled, edge-triggered PMI */
        n += put_gicc(t + n, 0x100, 23, 1, 0);      /* level */
        n += put_gicc(t + n, 0x200, 0, 1, 0);       /* no PMU interrupt */
        for (unsigned r = 0; r < GIC_MADT_MAX_GICR + 2; r++)
                n += put_gicr(t + n, 0x10000000ull * (r + 1), 0x100000);
        finish(t, n);
        assert_int_equal(gic_madt_parse(t, n, m), ST_OK);
        assert_int_equal(m->n_gicr, GIC_MADT_MAX_GICR);
        assert_int_equal(m->n_gicr_total, GIC_MADT_MAX_GICR + 2);
        assert_int_equal(m->gicr[1].base, 0x20000000);
        assert_int_equal(gic_pmu_irq(m, 0x000, &irq, &why), ST_OK);
        assert_true(irq.edge);
        assert_int_equal(gic_pmu_irq(m, 0x100, &irq, &why), ST_OK);
        assert_false(irq.edge);
        irq = (struct gic_pmu_irq){ .intid = 99 };
        assert_int_equal(gic_pmu_irq(m, 0x200, &irq, &why), ST_NOT_FOUND);
        assert_int_equal(irq.intid, 99); /* untouched: no INTID is made up */
        assert_non_null(strstr(why, "GSIV 0"));
        free(m);
}

/* ---- a register model of redistributors: frames at addresses, GICR_TYPER and GICR_CTLR ---- */

#define MAX_RD 16

struct rd_model {
        struct {
                uint64_t base, typer;
        } rd[MAX_RD];
        unsigned n, n_reads;
        unsigned rwp_reads_left; /* GICR_CTLR.RWP reads as set this many more times */
};

static uint64_t model_rd64(void *ctx, uint64_t a)
{
        struct rd_model *m = ctx;
        m->n_reads++;
        for (unsigned i = 0; i < m->n; i++)
                if (a == m->rd[i].base + 8)
                        return m->rd[i].typer;
        fail_msg("read of 0x%llx: no redistributor frame there", (unsigned long long)a);
        return 0;
}

static uint32_t model_rd32(void *ctx, uint64_t a)
{
        struct rd_model *m = ctx;
        (void)a;
        m->n_reads++;
        if (m->rwp_reads_left) {
                m->rwp_reads_left--;
                return 1u << 3;
        }
        return 0;
}

static void model_wr32(void *ctx, uint64_t a, uint32_t v)
{
        (void)ctx;
        (void)a;
        (void)v;
}

/* TYPER for affinity aff (packed Aff3.Aff2.Aff1.Aff0), VLPIS and Last as asked. */
static uint64_t typer(uint32_t aff, bool vlpis, bool last)
{
        return (uint64_t)aff << 32 | (vlpis ? 2u : 0u) | (last ? 16u : 0u);
}

static void test_redist_ranges(void **state)
{
        struct gic_madt *g = calloc(1, sizeof(*g));
        struct rd_model  m = { 0 };
        struct gic_mmio  io = { .rd32 = model_rd32, .rd64 = model_rd64, .wr32 = model_wr32,
                                .ctx = &m };

        (void)state;
        /* Socket 0: two GICv3 redistributors (128 KiB apart), the last one flagged Last.
         * Socket 1: two GICv4 redistributors (256 KiB apart, VLPIS), Aff2 = 1. */
        g->n_gicr = 2;
        g->gicr[0].base = 0x80a0000;
        g->gicr[0].bytes = 0x40000;
        g->gicr[1].base = 0x100080a0000ull;
        g->gicr[1].bytes = 0x80000;
        m.rd[0].base = 0x80a0000;      m.rd[0].typer = typer(0x000000, false, false);
        m.rd[1].base = 0x80c0000;      m.rd[1].typer = typer(0x000001, false, true);
        m.rd[2].base = 0x100080a0000;  m.rd[2].typer = typer(0x010000, true, false);
        m.rd[3].base = 0x100080e0000;  m.rd[3].typer = typer(0x010001, true, true);
        m.n = 4;
        assert_int_equal(gic_redist_find(g, 0x80000001ull, &io), 0x80c0000);
        assert_int_equal(gic_redist_find(g, 0x010000, &io), 0x100080a0000ull);
        assert_int_equal(gic_redist_find(g, 0x010001, &io), 0x100080e0000ull);
        assert_int_equal(gic_redist_find(g, 0x020000, &io), 0); /* in no range */
        /* A GICC entry with its own GICR base wins without a read. */
        g->n_cpus = 1;
        g->cpus[0] = (struct gic_madt_cpu){ .mpidr = 0x010001, .gicr_base = 0x5550000 };
        m.n_reads = 0;
        assert_int_equal(gic_redist_find(g, 0x010001, &io), 0x5550000);
        assert_int_equal(m.n_reads, 0);
        /* A range whose Last bit is missing ends at its length. */
        g->n_cpus = 0;
        m.rd[1].typer = typer(0x000001, false, false);
        g->gicr[0].bytes = 0x40000; /* two frames of 128 KiB: rd[0], rd[1] */
        assert_int_equal(gic_redist_find(g, 0x010001, &io), 0x100080e0000ull);
        free(g);
}

static void test_rwp_wait(void **state)
{
        struct rd_model m = { .rwp_reads_left = 5 };
        struct gic_mmio io = { .rd32 = model_rd32, .rd64 = model_rd64, .wr32 = model_wr32,
                               .ctx = &m };

        (void)state;
        assert_int_equal(gic_rwp_wait(&io, 0x80a0000, 100), ST_OK);
        assert_int_equal(m.n_reads, 6); /* five with RWP set, the sixth clear */
        m = (struct rd_model){ .rwp_reads_left = 1000 };
        assert_int_equal(gic_rwp_wait(&io, 0x80a0000, 100), ST_TIMEOUT);
        assert_int_equal(m.n_reads, 100);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_prio_plan),
                cmocka_unit_test(test_madt_pmu_irq),
                cmocka_unit_test(test_redist_ranges),
                cmocka_unit_test(test_rwp_wait),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
