/** @file
 * MADT entries of an Arm interrupt controller: GICC (0x0B), GICD (0x0C), GICR (0x0E).
 * Pure: host-tested on recorded tables. Layouts: [ACPI-6.5] §5.2.12.14 Table 5.37 (GICC),
 * §5.2.12.15 Table 5.39 (GICD), §5.2.12.17 Table 5.43 (GICR).
 */
#include "lib/base.h"

#include "boot/arm64/gic.h"

#define MADT_ENTRIES_OFFSET 44 /* 36-byte SDT header, interrupt controller address, flags */

#define MADT_TYPE_GICC 0x0b
#define MADT_TYPE_GICD 0x0c
#define MADT_TYPE_GICR 0x0e

/* GICC field offsets; the structure grew: 76 bytes (ACPI 5.1), 80 (6.0), 82 (6.3). */
#define GICC_CPU_IF     4
#define GICC_UID        8
#define GICC_FLAGS      12
#define GICC_PERF_GSIV  20
#define GICC_GICR_BASE  60
#define GICC_MPIDR      68
#define GICC_SPE_GSIV   78
#define GICC_MIN_LEN    76
#define GICC_FLAG_ENABLED   1u
#define GICC_FLAG_PERF_EDGE 2u     /* Performance Interrupt Mode: 1 = edge, 0 = level */

#define GICD_BASE       8
#define GICD_VERSION    20
#define GICD_MIN_LEN    24

#define GICR_RANGE_BASE 4
#define GICR_RANGE_LEN  12
#define GICR_MIN_LEN    16

/* MPIDR_EL1 affinity fields: Aff3 [39:32], Aff2 [23:16], Aff1 [15:8], Aff0 [7:0]. */
#define MPIDR_AFF_MASK 0xff00ffffffull

static uint32_t rd32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
               (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
        return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void parse_gicc(const uint8_t *e, uint8_t elen, struct gic_madt *out)
{
        out->n_cpus_total++;
        if (out->n_cpus >= GIC_MADT_MAX_CPUS)
                return;
        struct gic_madt_cpu *c = &out->cpus[out->n_cpus++];
        c->cpu_if    = rd32(e + GICC_CPU_IF);
        c->uid       = rd32(e + GICC_UID);
        c->enabled   = rd32(e + GICC_FLAGS) & GICC_FLAG_ENABLED;
        c->pmu_edge  = rd32(e + GICC_FLAGS) & GICC_FLAG_PERF_EDGE;
        c->pmu_gsiv  = rd32(e + GICC_PERF_GSIV);
        c->gicr_base = rd64(e + GICC_GICR_BASE);
        c->mpidr     = rd64(e + GICC_MPIDR) & MPIDR_AFF_MASK;
        c->spe_gsiv  = elen >= GICC_SPE_GSIV + 2 ? (uint16_t)(e[GICC_SPE_GSIV] |
                                                              e[GICC_SPE_GSIV + 1] << 8)
                                                 : 0;
}

status_t gic_madt_parse(const void *madt, size_t len, struct gic_madt *out)
{
        if (!madt || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        const uint8_t *t = madt;
        if (len < MADT_ENTRIES_OFFSET || memcmp(t, "APIC", 4) != 0)
                return ST_BAD_DATA;
        uint32_t tlen = rd32(t + 4);
        if (tlen < MADT_ENTRIES_OFFSET || tlen > len)
                return ST_BAD_DATA;

        for (uint32_t off = MADT_ENTRIES_OFFSET; off < tlen;) {
                if (tlen - off < 2)
                        return ST_BAD_DATA;
                const uint8_t *e    = t + off;
                uint8_t        type = e[0], elen = e[1];
                if (elen < 2 || elen > tlen - off)
                        return ST_BAD_DATA;
                if (type == MADT_TYPE_GICC && elen >= GICC_MIN_LEN) {
                        parse_gicc(e, elen, out);
                } else if (type == MADT_TYPE_GICD && elen >= GICD_MIN_LEN) {
                        out->gicd_base = rd64(e + GICD_BASE);
                        out->version   = e[GICD_VERSION];
                } else if (type == MADT_TYPE_GICR && elen >= GICR_MIN_LEN) {
                        /* One range per socket or die on large servers: every one counts. */
                        if (out->n_gicr < GIC_MADT_MAX_GICR) {
                                out->gicr[out->n_gicr].base  = rd64(e + GICR_RANGE_BASE);
                                out->gicr[out->n_gicr].bytes = rd32(e + GICR_RANGE_LEN);
                                out->n_gicr++;
                        }
                        out->n_gicr_total++;
                }
                off += elen;
        }
        return ST_OK;
}

status_t gic_pmu_irq(const struct gic_madt *m, uint64_t mpidr, struct gic_pmu_irq *out,
                     const char **why)
{
        const char *w = "no MADT GICC entry has this processor's MPIDR";
        status_t    st = ST_BAD_DATA;

        mpidr &= MPIDR_AFF_MASK;
        for (size_t i = 0; m && out && i < m->n_cpus; i++) {
                const struct gic_madt_cpu *c = &m->cpus[i];
                if (c->mpidr != mpidr)
                        continue;
                if (c->pmu_gsiv == 0) {
                        w  = "the MADT's GICC entry gives no PMU interrupt (Performance "
                             "Interrupt GSIV 0)";
                        st = ST_NOT_FOUND;
                } else if (c->pmu_gsiv < 16 || c->pmu_gsiv > 31) {
                        w  = "the MADT's PMU interrupt is not a PPI (GSIV outside 16..31); "
                             "only PPI routing is implemented";
                        st = ST_UNSUPPORTED;
                } else {
                        *out = (struct gic_pmu_irq){ .intid = c->pmu_gsiv, .edge = c->pmu_edge };
                        w    = NULL;
                        st   = ST_OK;
                }
                break;
        }
        if (!m || !out) {
                w  = "no MADT";
                st = ST_BAD_ARG;
        }
        if (why)
                *why = w;
        return st;
}
