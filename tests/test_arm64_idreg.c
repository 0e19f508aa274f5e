/* Unit tests for boot/arm64/idreg.c (ID-register and PMCEID decoding) and
 * boot/arm64/gic_madt.c (MADT GIC entries).
 *
 * Register values of real cores are the Technical Reference Manuals' reset values as QEMU
 * transcribes them for its CPU models (target/arm/tcg/cpu64.c, aarch64_neoverse_n1_initfn,
 * aarch64_neoverse_v1_initfn, aarch64_neoverse_n2_initfn, aarch64_a76_initfn; each cites its
 * TRM section, e.g. Neoverse N1 TRM B2.4 and D5.1), with CCSIDR_EL1 encoded from the TRMs'
 * cache geometry the way QEMU's make_ccsidr() does. The Cortex-A76 PMCEID0_EL0 bits come
 * from its TRM (100798_0301) Table D5-2, which this file reproduces for bits [31:16] only.
 * "qemu-max" is a dump pmucal recorded from QEMU 7.2 -cpu max (Debian 12) under AAVMF
 * (tests/data/qemu72-virt-aarch64-max-idregs.txt, the run's idregs.txt), and
 * tests/data/acpi/qemu72-virt-aarch64-2node-{apic,srat}.dat the same run's MADT and SRAT
 * (run-qemu.sh --arch aarch64 --cpus 2 --nodes 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "boot/acpi.h"
#include "boot/arm64/gic.h"
#include "boot/arm64/idreg.h"

struct core_case {
        const char          *name;
        struct arm64_id_regs r;
        /* expected */
        const char *part_name;
        uint8_t     variant, revision, pmuver, n_counters, spe, brbe, trbe;
        bool        counters_64bit;
        size_t      n_caches;
        uint64_t    l1d_bytes, last_bytes;
        uint32_t    l1d_ways, last_ways, last_sets;
        uint8_t     loc;
};

static const struct core_case cores[] = {
        { .name = "neoverse-n1",
          .r = { .midr = 0x414fd0c1, .clidr = 0x82000023, .ctr = 0x8444c004,
                 .dfr0 = 0x0000000110305408ull, .mmfr2 = 0x0000000000001011ull,
                 .ccsidr = { { 0x701fe01a, 0x201fe01a }, { 0x70ffe03a, 0 } },
                 .has_pmu_regs = true, .pmcr = 0x410c3000 },
          .part_name = "Neoverse N1", .variant = 4, .revision = 1, .pmuver = PMUVER_V3P1,
          .n_counters = 6, .spe = 1, .brbe = 0, .trbe = 0, .counters_64bit = false,
          .n_caches = 3, .l1d_bytes = 64 * 1024, .l1d_ways = 4, .last_bytes = 1024 * 1024,
          .last_ways = 8, .last_sets = 2048, .loc = 2 },
        { .name = "neoverse-v1 (64-bit CCSIDR, FEAT_CCIDX)",
          .r = { .midr = 0x411fd402, .clidr = 0x82000023, .ctr = 0xb444c004,
                 .dfr0 = 0x000001f210305519ull, .mmfr2 = 0x0220011102101011ull,
                 .ccsidr = { { 0x000000ff0000001aull, 0x000000ff0000001aull },
                             { 0x000007ff0000003aull, 0 } },
                 .has_pmu_regs = true, .pmcr = 0x41213000 },
          .part_name = "Neoverse V1", .variant = 1, .revision = 2, .pmuver = PMUVER_V3P4,
          .n_counters = 6, .spe = 2, .brbe = 0, .trbe = 0, .counters_64bit = false,
          .n_caches = 3, .l1d_bytes = 64 * 1024, .l1d_ways = 4, .last_bytes = 1024 * 1024,
          .last_ways = 8, .last_sets = 2048, .loc = 2 },
        { .name = "neoverse-n2 (PMUv3p5: 64-bit event counters)",
          .r = { .midr = 0x410fd493, .clidr = 0x0000001482000023ull, .ctr = 0x4b444c004ull,
                 .dfr0 = 0x000011f210305619ull, .mmfr2 = 0x1221011112101011ull,
                 .ccsidr = { { 0x000000ff0000001aull, 0x000000ff0000001aull },
                             { 0x000003ff0000003aull, 0 } },
                 .has_pmu_regs = true, .pmcr = 0x3000 },
          .part_name = "Neoverse N2", .variant = 0, .revision = 3, .pmuver = PMUVER_V3P5,
          .n_counters = 6, .spe = 2, .brbe = 0, .trbe = 1, .counters_64bit = true,
          .n_caches = 3, .l1d_bytes = 64 * 1024, .l1d_ways = 4, .last_bytes = 512 * 1024,
          .last_ways = 8, .last_sets = 1024, .loc = 2 },
        { .name = "cortex-a76",
          .r = { .midr = 0x414fd0b1, .clidr = 0x82000023, .ctr = 0x8444c004,
                 .dfr0 = 0x0000000010305408ull, .mmfr2 = 0x0000000000001011ull,
                 .ccsidr = { { 0x701fe01a, 0x201fe01a }, { 0x707fe03a, 0 } },
                 .has_pmu_regs = true, .pmcr = 0x410b3000 },
          .part_name = "Cortex-A76", .variant = 4, .revision = 1, .pmuver = PMUVER_V3P1,
          .n_counters = 6, .spe = 0, .brbe = 0, .trbe = 0, .counters_64bit = false,
          .n_caches = 3, .l1d_bytes = 64 * 1024, .l1d_ways = 4, .last_bytes = 512 * 1024,
          .last_ways = 8, .last_sets = 1024, .loc = 2 },
        { .name = "qemu-max (QEMU 7.2, recorded)",
          .r = { .midr = 0x000f0510, .mpidr = 0x80000000, .clidr = 0x2000023,
                 .ctr = 0x8444c004, .dfr0 = 0x0000000010305609ull, .cntfrq = 62500000,
                 .pfr0 = 0x1201001121110022ull, .mmfr2 = 0x1021011010011011ull,
                 .ccsidr = { { 0x701fe00a, 0x201fe012 }, { 0x70ffe07a, 0 } },
                 .has_pmu_regs = true, .pmcr = 0x41013000, .pmceid0 = 0x20101,
                 .pmceid1 = 0x10000018 },
          .part_name = "unknown part", .variant = 0, .revision = 0, .pmuver = PMUVER_V3P5,
          .n_counters = 6, .spe = 0, .brbe = 0, .trbe = 0, .counters_64bit = true,
          .n_caches = 3, .l1d_bytes = 32 * 1024, .l1d_ways = 2, .last_bytes = 2048 * 1024,
          .last_ways = 16, .last_sets = 2048, .loc = 2 },
};

static void test_cores(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(cores) / sizeof(cores[0]); i++) {
                const struct core_case *c = &cores[i];
                struct arm64_cpu_info   ci;

                print_message("  %s\n", c->name);
                assert_int_equal(arm64_decode(&c->r, &ci), ST_OK);
                assert_string_equal(ci.part_name, c->part_name);
                assert_int_equal(ci.variant, c->variant);
                assert_int_equal(ci.revision, c->revision);
                assert_int_equal(ci.pmuver, c->pmuver);
                assert_true(ci.pmu);
                assert_int_equal(ci.n_counters, c->n_counters);
                assert_int_equal(ci.counters_64bit, c->counters_64bit);
                assert_int_equal(ci.spe, c->spe);
                assert_int_equal(ci.brbe, c->brbe);
                assert_int_equal(ci.trbe, c->trbe);
                assert_int_equal(ci.loc, c->loc);
                assert_int_equal(ci.n_caches, c->n_caches);
                assert_int_equal(ci.caches[0].level, 1);
                assert_int_equal(ci.caches[0].type, A64_CACHE_DATA);
                assert_int_equal(ci.caches[0].size_bytes, c->l1d_bytes);
                assert_int_equal(ci.caches[0].ways, c->l1d_ways);
                assert_int_equal(ci.caches[0].line_bytes, 64);
                assert_int_equal(ci.caches[1].type, A64_CACHE_INST);
                const struct arm64_cache *last = &ci.caches[ci.n_caches - 1];
                assert_int_equal(last->type, A64_CACHE_UNIFIED);
                assert_int_equal(last->level, 2);
                assert_int_equal(last->size_bytes, c->last_bytes);
                assert_int_equal(last->ways, c->last_ways);
                assert_int_equal(last->sets, c->last_sets);
                assert_int_equal(ci.dminline_bytes, 64);
        }
}

static void test_no_pmu_and_bad_input(void **state)
{
        struct arm64_id_regs  r = { .midr = 0x410fd034, .dfr0 = 0x10305006 }; /* PMUVer 0 */
        struct arm64_cpu_info ci;

        (void)state;
        assert_int_equal(arm64_decode(&r, &ci), ST_OK);
        assert_false(ci.pmu);
        assert_string_equal(ci.pmu_name, "none");
        assert_int_equal(ci.n_counters, 0);
        assert_int_equal(ci.n_caches, 0); /* CLIDR 0: no caches described */
        r.dfr0 = 0xf00; /* IMPLEMENTATION DEFINED PMU: not PMUv3 */
        r.has_pmu_regs = true;
        assert_int_equal(arm64_decode(&r, &ci), ST_OK);
        assert_false(ci.pmu);
        assert_string_equal(ci.pmu_name, "IMPLEMENTATION DEFINED");
        r.midr = 0;
        assert_int_equal(arm64_decode(&r, &ci), ST_BAD_DATA);
        assert_int_equal(arm64_decode(NULL, &ci), ST_BAD_ARG);
        assert_int_equal(arm64_decode(&r, NULL), ST_BAD_ARG);
        assert_string_equal(arm64_pmuver_name(3), "reserved");
        assert_string_equal(arm64_pmuver_name(200), "reserved");
}

static void test_pmceid(void **state)
{
        static const struct {
                const char *core;
                uint64_t    p0, p1;
                uint16_t    ev;
                bool        want;
        } cases[] = {
                /* QEMU 7.2 -cpu max: SW_INCR, INST_RETIRED, CPU_CYCLES; STALL_FRONTEND,
                 * STALL_BACKEND, STALL */
                { "qemu-max", 0x20101, 0x10000018, 0x00, true },
                { "qemu-max", 0x20101, 0x10000018, 0x08, true },
                { "qemu-max", 0x20101, 0x10000018, 0x11, true },
                { "qemu-max", 0x20101, 0x10000018, 0x21, false }, /* BR_RETIRED */
                { "qemu-max", 0x20101, 0x10000018, 0x23, true },
                { "qemu-max", 0x20101, 0x10000018, 0x24, true },
                { "qemu-max", 0x20101, 0x10000018, 0x3c, true },
                { "qemu-max", 0x20101, 0x10000018, 0x3d, false },
                { "qemu-max", 0x20101, 0x10000018, 0x4004, false }, /* CNT_CYCLES */
                /* Cortex-A76 TRM Table D5-2, PMCEID0_EL0[31:16] */
                { "cortex-a76", 0x7fff0000, 0, 0x1e, true },  /* CHAIN */
                { "cortex-a76", 0x7fff0000, 0, 0x1f, false }, /* L1D_CACHE_ALLOCATE */
                { "cortex-a76", 0x7fff0000, 0, 0x10, true },  /* BR_MIS_PRED */
                { "cortex-a76", 0x7fff0000, 0, 0x1b, true },  /* INST_SPEC */
                /* the high halves: 0x4000 + n in PMCEID0[63:32], 0x4020 + n in PMCEID1 */
                { "synthetic", 1ull << (32 + 4), 0, 0x4004, true },
                { "synthetic", 0, 1ull << (32 + 1), 0x4021, true },
                { "synthetic", ~0ull, ~0ull, 0x40, false },   /* IMPDEF: not described */
                { "synthetic", ~0ull, ~0ull, 0x4040, false },
                { "synthetic", ~0ull, ~0ull, 0x3fff, false },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                if (arm64_pmceid_has(cases[i].p0, cases[i].p1, cases[i].ev) != cases[i].want)
                        fail_msg("%s: event 0x%x: expected %s", cases[i].core, cases[i].ev,
                                 cases[i].want ? "implemented" : "not implemented");
        }
        assert_int_equal(arm64_pmceid_count(0x20101, 0x10000018), 6);
        assert_int_equal(arm64_pmceid_count(0, 0), 0);
}

/* ---- MADT ---- */

static size_t put_gicc(uint8_t *e, uint32_t uid, uint64_t mpidr, uint32_t gsiv, uint64_t gicr,
                       uint8_t len)
{
        memset(e, 0, len);
        e[0] = 0x0b;
        e[1] = len;
        memcpy(e + 8, &uid, 4);
        uint32_t flags = 1;
        memcpy(e + 12, &flags, 4);
        memcpy(e + 20, &gsiv, 4);
        memcpy(e + 60, &gicr, 8);
        memcpy(e + 68, &mpidr, 8);
        if (len >= 80) {
                uint16_t spe = 21;
                memcpy(e + 78, &spe, 2);
        }
        return len;
}

static size_t build_madt(uint8_t *t, uint32_t gsiv0)
{
        size_t n = 44;

        memset(t, 0, 512);
        memcpy(t, "APIC", 4);
        memcpy(t + 10, "BOCHS ", 6);
        n += put_gicc(t + n, 0, 0x000, gsiv0, 0, 80);
        n += put_gicc(t + n, 1, 0x001, 23, 0, 76); /* an ACPI 5.1 sized entry */
        t[n] = 0x0c; t[n + 1] = 24;                 /* GICD: base 0x08000000, version 3 */
        uint64_t gicd = 0x08000000;
        memcpy(t + n + 8, &gicd, 8);
        t[n + 20] = 3;
        n += 24;
        t[n] = 0x0e; t[n + 1] = 16;                 /* GICR range 0x080a0000, 0xf60000 bytes */
        uint64_t gicr = 0x080a0000;
        uint32_t glen = 0xf60000;
        memcpy(t + n + 4, &gicr, 8);
        memcpy(t + n + 12, &glen, 4);
        n += 16;
        uint32_t len = (uint32_t)n;
        memcpy(t + 4, &len, 4);
        return n;
}

static void test_madt(void **state)
{
        uint8_t         t[512];
        struct gic_madt    m;
        struct gic_pmu_irq irq;
        const char        *why;

        (void)state;
        size_t n = build_madt(t, 23);
        assert_int_equal(gic_madt_parse(t, n, &m), ST_OK);
        assert_int_equal(m.n_cpus, 2);
        assert_int_equal(m.version, 3);
        assert_int_equal(m.gicd_base, 0x08000000);
        assert_int_equal(m.n_gicr, 1);
        assert_int_equal(m.gicr[0].base, 0x080a0000);
        assert_int_equal(m.gicr[0].bytes, 0xf60000);
        assert_int_equal(m.cpus[1].uid, 1);
        assert_int_equal(m.cpus[1].mpidr, 1);
        assert_true(m.cpus[0].enabled);
        assert_int_equal(m.cpus[0].spe_gsiv, 21);
        assert_int_equal(m.cpus[1].spe_gsiv, 0); /* too short to have the field */
        /* MPIDR bit 31 (RES1) as MPIDR_EL1 reads it */
        assert_int_equal(gic_pmu_irq(&m, 0x80000000ull, &irq, &why), ST_OK);
        assert_int_equal(irq.intid, 23);
        assert_false(irq.edge);
        assert_null(why);

        build_madt(t, 0); /* CPU 0 without a performance interrupt: none, nothing guessed */
        assert_int_equal(gic_madt_parse(t, n, &m), ST_OK);
        assert_int_equal(gic_pmu_irq(&m, 0, &irq, &why), ST_NOT_FOUND);
        assert_non_null(strstr(why, "GSIV 0"));
        assert_int_equal(gic_pmu_irq(&m, 1, &irq, &why), ST_OK); /* CPU 1 still has one */
        build_madt(t, 40); /* an SPI is no PMU PPI */
        assert_int_equal(gic_madt_parse(t, n, &m), ST_OK);
        assert_int_equal(gic_pmu_irq(&m, 0, &irq, &why), ST_UNSUPPORTED);
        assert_int_equal(gic_pmu_irq(&m, 7, &irq, &why), ST_BAD_DATA); /* no such GICC */

        /* malformed: overrun entry, length beyond the buffer, wrong signature, NULL */
        build_madt(t, 23);
        t[44 + 1] = 200;
        assert_int_equal(gic_madt_parse(t, n, &m), ST_BAD_DATA);
        build_madt(t, 23);
        assert_int_equal(gic_madt_parse(t, n - 1, &m), ST_BAD_DATA);
        t[44 + 1] = 0;
        assert_int_equal(gic_madt_parse(t, n, &m), ST_BAD_DATA);
        build_madt(t, 23);
        t[0] = 'X';
        assert_int_equal(gic_madt_parse(t, n, &m), ST_BAD_DATA);
        assert_int_equal(gic_madt_parse(NULL, n, &m), ST_BAD_ARG);
}

/* QEMU's own tables: GICC entries with MPIDR 0 and 1 and the PMU PPI, SRAT GICC affinity
 * by ACPI UID, resolved to the MADT's processor IDs. */
static void test_qemu_virt_tables(void **state)
{
        size_t           n_madt, n_srat;
        uint8_t         *madt = test_load("acpi/qemu72-virt-aarch64-2node-apic.dat", &n_madt);
        uint8_t         *srat = test_load("acpi/qemu72-virt-aarch64-2node-srat.dat", &n_srat);
        struct acpi_madt *m   = calloc(1, sizeof(*m));
        struct acpi_srat *s   = calloc(1, sizeof(*s));
        struct gic_madt   g;
        struct acpi_diag  d;
        struct gic_pmu_irq irq;

        (void)state;
        assert_int_equal(acpi_parse_madt(madt, n_madt, m, &d), ST_OK);
        assert_int_equal(m->n_cpus, 2);
        assert_int_equal(m->n_enabled, 2);
        assert_int_equal(m->cpu[0].apic_id, 0);
        assert_int_equal(m->cpu[1].apic_id, 1);
        assert_false(m->cpu[1].x2apic);
        assert_int_equal(acpi_parse_srat(srat, n_srat, s, &d), ST_OK);
        assert_int_equal(s->n_cpus, 2);
        assert_true(s->cpu[1].by_uid);
        acpi_srat_resolve_uids(s, m);
        assert_false(s->cpu[0].by_uid);
        assert_false(s->cpu[1].by_uid);
        assert_int_equal(s->cpu[1].apic_id, m->cpu[1].apic_id);
        assert_int_equal(s->cpu[1].node, 1);
        assert_int_equal(s->n_nodes, 2);

        assert_int_equal(gic_madt_parse(madt, n_madt, &g), ST_OK);
        assert_int_equal(g.n_cpus, 2);
        assert_int_equal(g.version, 3);
        assert_int_equal(g.n_gicr, 1);
        assert_true(g.gicr[0].base != 0);
        assert_int_equal(gic_pmu_irq(&g, 0x80000001ull, &irq, NULL), ST_OK);
        assert_int_equal(irq.intid, 23);
        assert_false(irq.edge); /* QEMU: level (hw/arm/virt-acpi-build.c sets no flag) */
        free(madt);
        free(srat);
        free(m);
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cores),
                cmocka_unit_test(test_no_pmu_and_bad_input),
                cmocka_unit_test(test_pmceid),
                cmocka_unit_test(test_madt),
                cmocka_unit_test(test_qemu_virt_tables),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
