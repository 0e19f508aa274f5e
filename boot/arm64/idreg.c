/** @file
 * Pure decoding of the AArch64 identification registers (see idreg.h).
 */
#include "lib/base.h"

#include "boot/arm64/idreg.h"

static uint64_t field(uint64_t v, unsigned lo, unsigned width)
{
        return v >> lo & ((1ull << width) - 1);
}

/* Implementer codes: [ARM-ARM] D23.2.122 MIDR_EL1; part numbers as Linux names them in
 * arch/arm64/include/asm/cputype.h (ARM_CPU_PART_*, APM_CPU_PART_*, ...). */
static const struct { uint8_t code; const char *name; } implementers[] = {
        { 0x00, "software (emulator)" },
        { 0x41, "Arm" },        { 0x42, "Broadcom" },  { 0x43, "Cavium" },
        { 0x46, "Fujitsu" },    { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },
        { 0x50, "APM" },        { 0x51, "Qualcomm" },  { 0x61, "Apple" },
        { 0x6d, "Microsoft" },  { 0xc0, "Ampere" },
};

static const struct { uint8_t impl; uint16_t part; const char *name; } parts[] = {
        { 0x41, 0xd03, "Cortex-A53" },   { 0x41, 0xd04, "Cortex-A35" },
        { 0x41, 0xd05, "Cortex-A55" },   { 0x41, 0xd07, "Cortex-A57" },
        { 0x41, 0xd08, "Cortex-A72" },   { 0x41, 0xd09, "Cortex-A73" },
        { 0x41, 0xd0a, "Cortex-A75" },   { 0x41, 0xd0b, "Cortex-A76" },
        { 0x41, 0xd0c, "Neoverse N1" },  { 0x41, 0xd0d, "Cortex-A77" },
        { 0x41, 0xd40, "Neoverse V1" },  { 0x41, 0xd41, "Cortex-A78" },
        { 0x41, 0xd42, "Cortex-A78AE" }, { 0x41, 0xd44, "Cortex-X1" },
        { 0x41, 0xd46, "Cortex-A510" },  { 0x41, 0xd47, "Cortex-A710" },
        { 0x41, 0xd48, "Cortex-X2" },    { 0x41, 0xd49, "Neoverse N2" },
        { 0x41, 0xd4a, "Neoverse E1" },  { 0x41, 0xd4f, "Neoverse V2" },
        { 0x41, 0xd84, "Neoverse V3" },  { 0x41, 0xd8e, "Neoverse N3" },
        { 0x46, 0x001, "A64FX" },        { 0x50, 0x000, "X-Gene" },
        { 0x51, 0xc00, "Falkor" },       { 0xc0, 0xac3, "AmpereOne" },
        { 0x48, 0xd01, "TSV110" },       { 0x4e, 0x004, "Carmel" },
};

static const char *const pmuver_names[16] = {
        [PMUVER_NONE] = "none",      [PMUVER_V3] = "PMUv3",      [PMUVER_V3P1] = "PMUv3p1",
        [PMUVER_V3P4] = "PMUv3p4",   [PMUVER_V3P5] = "PMUv3p5",  [PMUVER_V3P7] = "PMUv3p7",
        [PMUVER_V3P8] = "PMUv3p8",   [PMUVER_V3P9] = "PMUv3p9",
        [PMUVER_IMPDEF] = "IMPLEMENTATION DEFINED",
};

const char *arm64_pmuver_name(uint8_t v)
{
        const char *n = v < 16 ? pmuver_names[v] : NULL;
        return n ? n : "reserved";
}

bool arm64_pmceid_has(uint64_t pmceid0, uint64_t pmceid1, uint16_t ev)
{
        if (ev < 0x20)
                return pmceid0 >> ev & 1;
        if (ev < 0x40)
                return pmceid1 >> (ev - 0x20) & 1;
        if (ev >= 0x4000 && ev < 0x4020)
                return pmceid0 >> (32 + ev - 0x4000) & 1;
        if (ev >= 0x4020 && ev < 0x4040)
                return pmceid1 >> (32 + ev - 0x4020) & 1;
        return false;
}

unsigned arm64_pmceid_count(uint64_t pmceid0, uint64_t pmceid1)
{
        return (unsigned)(__builtin_popcountll(pmceid0) + __builtin_popcountll(pmceid1));
}

static void decode_midr(uint64_t midr, struct arm64_cpu_info *o)
{
        o->implementer = (uint8_t)field(midr, 24, 8);
        o->variant     = (uint8_t)field(midr, 20, 4);
        o->part        = (uint16_t)field(midr, 4, 12);
        o->revision    = (uint8_t)field(midr, 0, 4);
        o->vendor      = "unknown implementer";
        o->part_name   = "unknown part";
        for (size_t i = 0; i < ARRAY_SIZE(implementers); i++)
                if (implementers[i].code == o->implementer)
                        o->vendor = implementers[i].name;
        for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
                if (parts[i].impl == o->implementer && parts[i].part == o->part)
                        o->part_name = parts[i].name;
}

/* CCSIDR_EL1: LineSize [2:0] = log2(bytes) - 4 in both formats; associativity - 1 and
 * sets - 1 at [12:3] / [27:13] (32-bit format) or [23:3] / [55:32] (FEAT_CCIDX). */
static void decode_ccsidr(uint64_t c, bool ccidx, struct arm64_cache *out)
{
        out->line_bytes = 16u << field(c, 0, 3);
        out->ways       = (uint32_t)(ccidx ? field(c, 3, 21) : field(c, 3, 10)) + 1;
        out->sets       = (uint32_t)(ccidx ? field(c, 32, 24) : field(c, 13, 15)) + 1;
        out->size_bytes = (uint64_t)out->line_bytes * out->ways * out->sets;
}

/* CLIDR_EL1.Ctype<n> (3 bits per level): 1 I only, 2 D only, 3 separate I and D, 4 unified. */
static void decode_caches(const struct arm64_id_regs *r, struct arm64_cpu_info *o)
{
        o->ccidx = field(r->mmfr2, 20, 4) == 1;
        o->loc   = (uint8_t)field(r->clidr, 24, 3);
        for (unsigned lv = 1; lv <= ARM64_CACHE_LEVELS; lv++) {
                unsigned ctype = (unsigned)field(r->clidr, 3 * (lv - 1), 3);
                if (ctype == 0 || ctype > 4)
                        break;
                if (ctype == 2 || ctype == 3 || ctype == 4) {
                        struct arm64_cache *c = &o->caches[o->n_caches++];
                        c->level = (uint8_t)lv;
                        c->type  = ctype == 4 ? A64_CACHE_UNIFIED : A64_CACHE_DATA;
                        decode_ccsidr(r->ccsidr[lv - 1][0], o->ccidx, c);
                }
                if (ctype == 1 || ctype == 3) {
                        struct arm64_cache *c = &o->caches[o->n_caches++];
                        c->level = (uint8_t)lv;
                        c->type  = A64_CACHE_INST;
                        decode_ccsidr(r->ccsidr[lv - 1][1], o->ccidx, c);
                }
        }
        /* CTR_EL0 IminLine [3:0], DminLine [19:16]: log2 of the line in 4-byte words. */
        o->iminline_bytes = 4u << field(r->ctr, 0, 4);
        o->dminline_bytes = 4u << field(r->ctr, 16, 4);
}

static void decode_pmu(const struct arm64_id_regs *r, struct arm64_cpu_info *o)
{
        o->pmuver   = (uint8_t)field(r->dfr0, 8, 4);
        o->pmu_name = arm64_pmuver_name(o->pmuver);
        o->pmu      = o->pmuver != PMUVER_NONE && o->pmuver != PMUVER_IMPDEF && r->has_pmu_regs;
        o->spe      = (uint8_t)field(r->dfr0, 32, 4);
        o->trbe     = (uint8_t)field(r->dfr0, 44, 4);
        o->brbe     = (uint8_t)field(r->dfr0, 52, 4);
        if (!o->pmu)
                return;
        o->n_counters     = (uint8_t)field(r->pmcr, 11, 5);
        o->pmcr_imp       = (uint8_t)field(r->pmcr, 24, 8);
        o->counters_64bit = o->pmuver >= PMUVER_V3P5;
}

status_t arm64_decode(const struct arm64_id_regs *r, struct arm64_cpu_info *out)
{
        if (!r || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        out->pmu_name = arm64_pmuver_name(0);
        out->vendor = out->part_name = "unknown";
        if (r->midr == 0)
                return ST_BAD_DATA;
        decode_midr(r->midr, out);
        out->aff[0] = (uint8_t)field(r->mpidr, 0, 8);
        out->aff[1] = (uint8_t)field(r->mpidr, 8, 8);
        out->aff[2] = (uint8_t)field(r->mpidr, 16, 8);
        out->aff[3] = (uint8_t)field(r->mpidr, 32, 8);
        out->mt     = field(r->mpidr, 24, 1);
        decode_caches(r, out);
        decode_pmu(r, out);
        out->gic_sysreg = (uint8_t)field(r->pfr0, 24, 4);
        out->cntfrq_hz  = field(r->cntfrq, 0, 32);
        return ST_OK;
}
