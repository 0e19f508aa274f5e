/** @file
 * CPUID dump collection and decoding (see cpuid.h). Register layouts follow the Intel SDM
 * Vol. 2A CPUID reference, Table 3-8 "Information Returned by CPUID Instruction" and Table 3-12
 * "Encoding of CPUID Leaf 2 Descriptors" [SDM-2A], and the AMD APM Vol. 3 Appendix E
 * "Obtaining Processor Information Via the CPUID Instruction" [APM-3].
 */
#include "cpuid.h"

#include "../boot/plat.h"

/* ---- constants ---------------------------------------------------------------------- */

#define SUBLEAF_MAX 64 /* bound on every sub-leaf walk, however the data claims more */

#define LEAF_HV_BASE 0x40000000u
#define LEAF_HV_LAST 0x40000010u
#define LEAF_EXT     0x80000000u
#define LEAF_EXT_MAX 0x800000ffu

/* Feature bits as data. [SDM-2A] Table 3-8; [APM-3] E.3/E.4. */
#define CPUID_DTES64       ((struct cpuid_bit){ 0x1, 0, CPUID_ECX, 2 })
#define CPUID_PDCM         ((struct cpuid_bit){ 0x1, 0, CPUID_ECX, 15 })
#define CPUID_X2APIC       ((struct cpuid_bit){ 0x1, 0, CPUID_ECX, 21 })
#define CPUID_HYPERVISOR   ((struct cpuid_bit){ 0x1, 0, CPUID_ECX, 31 })
#define CPUID_PSE          ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 3 })
#define CPUID_PAE          ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 6 })
#define CPUID_APIC         ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 9 })
#define CPUID_DS           ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 21 })
#define CPUID_HTT          ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 28 })
#define CPUID_APERFMPERF   ((struct cpuid_bit){ 0x6, 0, CPUID_ECX, 0 })
#define CPUID_ARCH_LBR     ((struct cpuid_bit){ 0x7, 0, CPUID_EDX, 19 })
#define CPUID_LBR_TIMED    ((struct cpuid_bit){ 0x1c, 0, CPUID_ECX, 1 })
#define CPUID_NX           ((struct cpuid_bit){ 0x80000001, 0, CPUID_EDX, 20 })
#define CPUID_PDPE1GB      ((struct cpuid_bit){ 0x80000001, 0, CPUID_EDX, 26 })
#define CPUID_RDTSCP       ((struct cpuid_bit){ 0x80000001, 0, CPUID_EDX, 27 })
#define CPUID_INVTSC       ((struct cpuid_bit){ 0x80000007, 0, CPUID_EDX, 8 })
/* AMD only: on Intel these 80000001H:ECX bits are reserved. [APM-3] E.4.2 */
#define CPUID_AMD_IBS      ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 10 })
#define CPUID_AMD_TOPOEXT  ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 22 })
#define CPUID_AMD_PERFCTR_CORE ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 23 })
#define CPUID_AMD_PERFCTR_NB   ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 24 })
#define CPUID_AMD_PERFCTR_LLC  ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 28 })
#define CPUID_AMD_PERFMON_V2   ((struct cpuid_bit){ 0x80000022, 0, CPUID_EAX, 0 })

/* IBS capabilities when CPUID 8000001BH is absent or IbsFFV is clear: fetch and op sampling
 * (Linux amd/ibs.c IBS_CAPS_DEFAULT). [APM-3] CPUID Fn8000_001B */
#define IBS_CAPS_AVAIL    BIT_ULL(0)
#define IBS_CAPS_FETCHSAM BIT_ULL(1)
#define IBS_CAPS_OPSAM    BIT_ULL(2)

/* ---- types -------------------------------------------------------------------------- */

/** A bool field of struct cpu_info and the CPUID bit it mirrors. */
struct feature_map {
        size_t           offset;
        struct cpuid_bit bit;
};

/** One TLB described by a CPUID leaf 2 descriptor byte. A descriptor that names two arrays
 *  (0x63, 0xC3) has two rows. */
struct leaf2_tlb {
        uint8_t           desc;
        uint8_t           level;
        enum cpu_tlb_type type;
        uint32_t          page_sizes;
        uint32_t          entries;
        uint32_t          ways; /* 0 = fully associative */
        const char       *source;
};

/* ---- private data ------------------------------------------------------------------- */

static const struct feature_map common_features[] = {
        { offsetof(struct cpu_info, hypervisor), CPUID_HYPERVISOR },
        { offsetof(struct cpu_info, pse), CPUID_PSE },
        { offsetof(struct cpu_info, pae), CPUID_PAE },
        { offsetof(struct cpu_info, apic), CPUID_APIC },
        { offsetof(struct cpu_info, x2apic), CPUID_X2APIC },
        { offsetof(struct cpu_info, nx), CPUID_NX },
        { offsetof(struct cpu_info, pdpe1gb), CPUID_PDPE1GB },
        { offsetof(struct cpu_info, rdtscp), CPUID_RDTSCP },
        { offsetof(struct cpu_info, tsc_invariant), CPUID_INVTSC },
        { offsetof(struct cpu_info, aperfmperf), CPUID_APERFMPERF },
        { offsetof(struct cpu_info, intel.pdcm), CPUID_PDCM },
        { offsetof(struct cpu_info, intel.ds), CPUID_DS },
        { offsetof(struct cpu_info, intel.dtes64), CPUID_DTES64 },
        { offsetof(struct cpu_info, intel.arch_lbr), CPUID_ARCH_LBR },
};

static const struct feature_map amd_features[] = {
        { offsetof(struct cpu_info, amd.ibs), CPUID_AMD_IBS },
        { offsetof(struct cpu_info, amd.perfctr_core), CPUID_AMD_PERFCTR_CORE },
        { offsetof(struct cpu_info, amd.perfctr_nb), CPUID_AMD_PERFCTR_NB },
        { offsetof(struct cpu_info, amd.perfctr_llc), CPUID_AMD_PERFCTR_LLC },
        { offsetof(struct cpu_info, amd.perfmon_v2), CPUID_AMD_PERFMON_V2 },
};

#define PG_4K     TLB_PG_4K
#define PG_2M4M   (TLB_PG_2M | TLB_PG_4M)
#define PG_4K4M   (TLB_PG_4K | TLB_PG_4M)
#define PG_4K2M4M (TLB_PG_4K | TLB_PG_2M | TLB_PG_4M)
#define D(x)      "leaf 2 descriptor " #x

/* The TLB descriptors of [SDM-2A] Table 3-12 (cache descriptors are not needed: caches come
 * from leaf 4). Where the SDM gives no associativity ("4 KByte pages, 32 entries") ways is 0
 * only if it says fully associative; otherwise it is the value written, or 0 with a comment. */
static const struct leaf2_tlb leaf2_tlbs[] = {
        /* desc  lvl type        pages             entries ways source */
        { 0x01, 1, TLB_INST,    PG_4K,             32,   4, D(0x01) },
        { 0x02, 1, TLB_INST,    TLB_PG_4M,         2,    0, D(0x02) },
        { 0x03, 1, TLB_DATA,    PG_4K,             64,   4, D(0x03) },
        { 0x04, 1, TLB_DATA,    TLB_PG_4M,         8,    4, D(0x04) },
        { 0x05, 1, TLB_DATA,    TLB_PG_4M,         32,   4, D(0x05) },
        { 0x0b, 1, TLB_INST,    TLB_PG_4M,         4,    4, D(0x0b) },
        { 0x4f, 1, TLB_INST,    PG_4K,             32,   0, D(0x4f) }, /* ways not given */
        { 0x50, 1, TLB_INST,    PG_4K2M4M,         64,   0, D(0x50) }, /* ways not given */
        { 0x51, 1, TLB_INST,    PG_4K2M4M,         128,  0, D(0x51) }, /* ways not given */
        { 0x52, 1, TLB_INST,    PG_4K2M4M,         256,  0, D(0x52) }, /* ways not given */
        { 0x55, 1, TLB_INST,    PG_2M4M,           7,    0, D(0x55) },
        { 0x56, 1, TLB_DATA,    TLB_PG_4M,         16,   4, D(0x56) },
        { 0x57, 1, TLB_DATA,    PG_4K,             16,   4, D(0x57) },
        { 0x59, 1, TLB_DATA,    PG_4K,             16,   0, D(0x59) },
        { 0x5a, 1, TLB_DATA,    PG_2M4M,           32,   4, D(0x5a) },
        { 0x5b, 1, TLB_DATA,    PG_4K4M,           64,   0, D(0x5b) }, /* ways not given */
        { 0x5c, 1, TLB_DATA,    PG_4K4M,           128,  0, D(0x5c) }, /* ways not given */
        { 0x5d, 1, TLB_DATA,    PG_4K4M,           256,  0, D(0x5d) }, /* ways not given */
        { 0x61, 1, TLB_INST,    PG_4K,             48,   0, D(0x61) },
        { 0x63, 1, TLB_DATA,    PG_2M4M,           32,   4, D(0x63) },
        { 0x63, 1, TLB_DATA,    TLB_PG_1G,         4,    4, D(0x63) },
        { 0x64, 1, TLB_DATA,    PG_4K,             512,  4, D(0x64) },
        { 0x6a, 1, TLB_DATA,    PG_4K,             64,   8, D(0x6a) }, /* "uTLB" */
        { 0x6b, 1, TLB_DATA,    PG_4K,             256,  8, D(0x6b) },
        { 0x6c, 1, TLB_DATA,    PG_2M4M,           128,  8, D(0x6c) },
        { 0x6d, 1, TLB_DATA,    TLB_PG_1G,         16,   0, D(0x6d) },
        { 0x76, 1, TLB_INST,    PG_2M4M,           8,    0, D(0x76) },
        { 0xa0, 1, TLB_DATA,    PG_4K,             32,   0, D(0xa0) },
        { 0xb0, 1, TLB_INST,    PG_4K,             128,  4, D(0xb0) },
        { 0xb1, 1, TLB_INST,    TLB_PG_2M,         8,    4, D(0xb1) }, /* or 4M: 4 entries */
        { 0xb2, 1, TLB_INST,    PG_4K,             64,   4, D(0xb2) },
        { 0xb3, 1, TLB_DATA,    PG_4K,             128,  4, D(0xb3) },
        { 0xb4, 1, TLB_DATA,    PG_4K,             256,  4, D(0xb4) },
        { 0xb5, 1, TLB_INST,    PG_4K,             64,   8, D(0xb5) },
        { 0xb6, 1, TLB_INST,    PG_4K,             128,  8, D(0xb6) },
        { 0xba, 1, TLB_DATA,    PG_4K,             64,   4, D(0xba) },
        { 0xc0, 1, TLB_DATA,    PG_4K4M,           8,    4, D(0xc0) },
        { 0xc1, 2, TLB_UNIFIED, TLB_PG_4K | TLB_PG_2M, 1024, 8, D(0xc1) },
        { 0xc2, 1, TLB_DATA,    TLB_PG_4K | TLB_PG_2M, 16,   4, D(0xc2) },
        { 0xc3, 2, TLB_UNIFIED, TLB_PG_4K | TLB_PG_2M, 1536, 6, D(0xc3) },
        { 0xc3, 2, TLB_UNIFIED, TLB_PG_1G,         16,   4, D(0xc3) },
        { 0xc4, 1, TLB_DATA,    PG_2M4M,           32,   4, D(0xc4) },
        { 0xca, 2, TLB_UNIFIED, PG_4K,             512,  4, D(0xca) },
};

/* 0xFE: "CPUID leaf 2 does not report TLB descriptor information; use CPUID leaf 18H".
 * 0xFF: no cache descriptors, use leaf 4 (caches come from leaf 4 anyway). [SDM-2A] */
#define LEAF2_USE_LEAF18 0xfe

/* Associativity field of 80000006H/80000019H (4 bits). 0 = disabled, 9 = "see 8000001DH";
 * both, and reserved codes, map to 0 here and are flagged by l2_assoc_valid().
 * [APM-3] Table E-4 "L2/L3 Cache and TLB Associativity Field Encoding". */
static const struct { uint8_t code; uint32_t ways; } amd_l2_assoc[] = {
        { 0x1, 1 },  { 0x2, 2 },  { 0x4, 4 },  { 0x5, 6 },   { 0x6, 8 },   { 0x8, 16 },
        { 0xa, 32 }, { 0xb, 48 }, { 0xc, 64 }, { 0xd, 96 },  { 0xe, 128 }, { 0xf, 0 },
};

static const char *const leaf18_src[] = {
        "leaf 0x18.0",  "leaf 0x18.1",  "leaf 0x18.2",  "leaf 0x18.3",  "leaf 0x18.4",
        "leaf 0x18.5",  "leaf 0x18.6",  "leaf 0x18.7",  "leaf 0x18.8",  "leaf 0x18.9",
        "leaf 0x18.10", "leaf 0x18.11", "leaf 0x18.12", "leaf 0x18.13", "leaf 0x18.14",
        "leaf 0x18.15",
};

static const char *const vendor_names[] = {
        [VEN_UNKNOWN] = "unknown", [VEN_INTEL] = "Intel", [VEN_AMD] = "AMD",
        [VEN_HYGON] = "Hygon",     [VEN_OTHER] = "other",
};

static const char *const cache_type_names[] = {
        [CACHE_NULL] = "null", [CACHE_DATA] = "data", [CACHE_INST] = "instruction",
        [CACHE_UNIFIED] = "unified",
};

static const char *const tlb_type_names[] = {
        [TLB_DATA] = "data", [TLB_INST] = "instruction", [TLB_UNIFIED] = "unified",
        [TLB_LOAD] = "load", [TLB_STORE] = "store",
};

/* ---- private functions -------------------------------------------------------------- */

static uint32_t bits(uint32_t v, unsigned hi, unsigned lo)
{
        return (v >> lo) & (uint32_t)((1ull << (hi - lo + 1)) - 1);
}

static uint32_t reg_of(const struct cpuid_regs *r, enum cpuid_reg reg)
{
        switch (reg) {
        case CPUID_EAX: return r->eax;
        case CPUID_EBX: return r->ebx;
        case CPUID_ECX: return r->ecx;
        default:        return r->edx;
        }
}

/** Append (leaf, subleaf) as the live CPU reports it; the registers go to @p out too. */
static void collect_one(struct cpuid_dump *d, uint32_t leaf, uint32_t sub, struct cpuid_regs *out)
{
        struct cpuid_regs r;

        cpuid_raw(leaf, sub, &r);
        if (out)
                *out = r;
        if (d->n < CPUID_DUMP_MAX)
                d->leaves[d->n++] = (struct cpuid_leaf){ .leaf = leaf, .subleaf = sub, .r = r };
}

/** Sub-leaves 1.. of @p leaf, until @p stop says the sub-leaf just read ends the list. */
static void collect_walk(struct cpuid_dump *d, uint32_t leaf, uint32_t last,
                         bool (*stop)(const struct cpuid_regs *r))
{
        struct cpuid_regs r;

        for (uint32_t s = 1; s <= last && s < SUBLEAF_MAX; s++) {
                collect_one(d, leaf, s, &r);
                if (stop && stop(&r))
                        break;
        }
}

static bool cache_type_null(const struct cpuid_regs *r)
{
        return bits(r->eax, 4, 0) == 0;
}

static bool level_type_null(const struct cpuid_regs *r)
{
        return bits(r->ecx, 15, 8) == 0;
}

static void collect_leaf(struct cpuid_dump *d, uint32_t leaf)
{
        struct cpuid_regs r0;

        collect_one(d, leaf, 0, &r0);
        switch (leaf) {
        case 0x4:
        case 0x8000001d:
                if (!cache_type_null(&r0))
                        collect_walk(d, leaf, SUBLEAF_MAX, cache_type_null);
                break;
        case 0xb:
        case 0x1f:
        case 0x80000026:
                if (!level_type_null(&r0))
                        collect_walk(d, leaf, SUBLEAF_MAX, level_type_null);
                break;
        case 0x7:
        case 0x18:
                collect_walk(d, leaf, r0.eax, NULL); /* EAX of sub-leaf 0 = last sub-leaf */
                break;
        case 0x23: /* EAX of sub-leaf 0: bit n set = sub-leaf n is valid */
                for (uint32_t s = 1; s < 32; s++)
                        if (r0.eax & (1u << s))
                                collect_one(d, leaf, s, NULL);
                break;
        default:
                break;
        }
}

static void set_features(const struct cpuid_dump *d, struct cpu_info *out,
                         const struct feature_map *map, size_t n)
{
        for (size_t i = 0; i < n; i++)
                *(bool *)((char *)out + map[i].offset) = cpuid_dump_has(d, map[i].bit);
}

/** 12 ASCII bytes from three registers, NUL-terminated into @p s[13]. */
static void regs_to_str12(char s[13], uint32_t a, uint32_t b, uint32_t c)
{
        uint32_t w[3] = { a, b, c };

        for (unsigned i = 0; i < 12; i++)
                s[i] = (char)(w[i / 4] >> (8 * (i % 4)));
        s[12] = '\0';
}

static void decode_vendor(const struct cpuid_regs *r0, struct cpu_info *out)
{
        regs_to_str12(out->vendor_str, r0->ebx, r0->edx, r0->ecx);
        if (!strcmp(out->vendor_str, "GenuineIntel"))
                out->vendor = VEN_INTEL;
        else if (!strcmp(out->vendor_str, "AuthenticAMD"))
                out->vendor = VEN_AMD;
        else if (!strcmp(out->vendor_str, "HygonGenuine"))
                out->vendor = VEN_HYGON;
        else
                out->vendor = VEN_OTHER;
}

/* Display family/model. [SDM-2A] CPUID, Figure 3-6 and the text under it; [APM-3] E.3.2 */
static void decode_signature(uint32_t eax, struct cpu_info *out)
{
        uint32_t base_fam = bits(eax, 11, 8), base_model = bits(eax, 7, 4);

        out->signature = eax;
        out->stepping  = bits(eax, 3, 0);
        out->family    = base_fam == 0xf ? base_fam + bits(eax, 27, 20) : base_fam;
        out->model     = (base_fam == 0x6 || base_fam == 0xf)
                                 ? (bits(eax, 19, 16) << 4) | base_model : base_model;
}

static void decode_brand(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r;
        size_t            n = 0, start = 0;

        if (out->max_ext_leaf < 0x80000004)
                return;
        for (uint32_t l = 0x80000002; l <= 0x80000004; l++) {
                cpuid_dump_get(d, l, 0, &r);
                for (unsigned reg = CPUID_EAX; reg <= CPUID_EDX; reg++)
                        for (unsigned b = 0; b < 4; b++)
                                out->brand[n++] = (char)(reg_of(&r, (enum cpuid_reg)reg) >> (8 * b));
        }
        out->brand[48] = '\0';
        n              = strlen(out->brand);
        while (n > 0 && out->brand[n - 1] == ' ')
                out->brand[--n] = '\0';
        while (out->brand[start] == ' ')
                start++;
        memmove(out->brand, out->brand + start, n - start + 1);
}

/* TSC from leaf 15H: TSC Hz = ECX * EBX / EAX [SDM-2A] Table 3-8. When ECX (crystal Hz) is 0,
 * derive the crystal from leaf 16H base MHz as Linux native_calibrate_tsc() does, in kHz with
 * the same truncation: crystal_khz = base_mhz * 1000 * EAX / EBX. */
static void decode_tsc(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r15, r16;

        if (out->max_leaf >= 0x16 && cpuid_dump_get(d, 0x16, 0, &r16)) {
                out->base_mhz = bits(r16.eax, 15, 0);
                out->max_mhz  = bits(r16.ebx, 15, 0);
                out->bus_mhz  = bits(r16.ecx, 15, 0);
        }
        if (out->max_leaf < 0x15 || !cpuid_dump_get(d, 0x15, 0, &r15) || !r15.eax || !r15.ebx)
                return;
        if (r15.ecx) {
                out->tsc_hz_cpuid  = (uint64_t)r15.ecx * r15.ebx / r15.eax;
                out->tsc_hz_source = "CPUID 0x15";
        } else if (out->base_mhz) {
                uint64_t crystal_khz = (uint64_t)out->base_mhz * 1000 * r15.eax / r15.ebx;

                out->tsc_hz_cpuid  = crystal_khz * r15.ebx / r15.eax * 1000;
                out->tsc_hz_source = "CPUID 0x15, crystal from 0x16 base MHz";
        }
}

static void add_cache(struct cpu_info *out, const struct cpu_cache *c)
{
        if (out->n_caches < ARRAY_SIZE(out->caches))
                out->caches[out->n_caches++] = *c;
}

static void add_tlb(struct cpu_info *out, const struct cpu_tlb *t)
{
        if (out->n_tlbs < ARRAY_SIZE(out->tlbs))
                out->tlbs[out->n_tlbs++] = *t;
}

/* Leaf 4 and AMD 8000001DH share one layout: EAX[4:0] type, [7:5] level, [9] fully
 * associative, [25:14] sharing IDs - 1; EBX line - 1 [11:0], partitions - 1 [21:12], ways - 1
 * [31:22]; ECX sets - 1; EDX[1] inclusive. [SDM-2A] Table 3-8 leaf 04H; [APM-3] Fn8000_001D */
static void decode_det_caches(const struct cpuid_dump *d, uint32_t leaf, struct cpu_info *out)
{
        struct cpuid_regs r;

        for (uint32_t s = 0; s < SUBLEAF_MAX && cpuid_dump_get(d, leaf, s, &r); s++) {
                uint32_t type = bits(r.eax, 4, 0);

                if (type == CACHE_NULL)
                        break;
                if (type > CACHE_UNIFIED)
                        continue; /* reserved encoding */
                struct cpu_cache c = {
                        .level      = (uint8_t)bits(r.eax, 7, 5),
                        .type       = (enum cpu_cache_type)type,
                        .line_bytes = bits(r.ebx, 11, 0) + 1,
                        .ways       = bits(r.ebx, 31, 22) + 1,
                        .sets       = r.ecx + 1,
                        .n_sharing  = bits(r.eax, 25, 14) + 1,
                        .inclusive  = r.edx & 2,
                };
                c.size_bytes = (uint64_t)c.ways * (bits(r.ebx, 21, 12) + 1) * c.line_bytes * c.sets;
                if (r.eax & (1u << 9))
                        c.ways = 0;
                add_cache(out, &c);
        }
}

/** Ways for an [APM-3] L2/L3 associativity code; false for disabled, "see 8000001DH" and
 *  reserved codes. 0 in @p ways means fully associative. */
static bool l2_assoc_valid(uint32_t code, uint32_t *ways)
{
        for (size_t i = 0; i < ARRAY_SIZE(amd_l2_assoc); i++) {
                if (amd_l2_assoc[i].code == code) {
                        *ways = amd_l2_assoc[i].ways;
                        return true;
                }
        }
        *ways = 0;
        return false;
}

/** L1 associativity byte of 80000005H: 1 direct mapped, n = n-way, FFh fully; 0 reserved. */
static uint32_t l1_assoc_ways(uint32_t code)
{
        return code == 0xff ? 0 : code;
}

static void legacy_cache(struct cpu_info *out, uint8_t level, enum cpu_cache_type type,
                         uint64_t size_bytes, uint32_t ways, uint32_t line_bytes)
{
        struct cpu_cache c = { .level = level, .type = type, .size_bytes = size_bytes,
                               .ways = ways, .line_bytes = line_bytes };

        if (!size_bytes)
                return;
        if (ways && line_bytes)
                c.sets = (uint32_t)(size_bytes / ((uint64_t)ways * line_bytes));
        add_cache(out, &c);
}

/* AMD without TOPOEXT: 80000005H ECX/EDX (L1D/L1I: size KiB [31:24], assoc [23:16], line
 * [7:0]) and 80000006H ECX (L2: KiB [31:16], assoc [15:12], line [7:0]) and EDX (L3: 512 KiB
 * units [31:18], assoc [15:12], line [7:0]). [APM-3] Fn8000_0005, Fn8000_0006 */
static void decode_amd_legacy_caches(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r;
        uint32_t          ways;

        if (out->max_ext_leaf >= 0x80000005 && cpuid_dump_get(d, 0x80000005, 0, &r)) {
                legacy_cache(out, 1, CACHE_DATA, bits(r.ecx, 31, 24) * KiB,
                             l1_assoc_ways(bits(r.ecx, 23, 16)), bits(r.ecx, 7, 0));
                legacy_cache(out, 1, CACHE_INST, bits(r.edx, 31, 24) * KiB,
                             l1_assoc_ways(bits(r.edx, 23, 16)), bits(r.edx, 7, 0));
        }
        if (out->max_ext_leaf >= 0x80000006 && cpuid_dump_get(d, 0x80000006, 0, &r)) {
                if (l2_assoc_valid(bits(r.ecx, 15, 12), &ways) || bits(r.ecx, 15, 12) == 9)
                        legacy_cache(out, 2, CACHE_UNIFIED, bits(r.ecx, 31, 16) * KiB, ways,
                                     bits(r.ecx, 7, 0));
                if (l2_assoc_valid(bits(r.edx, 15, 12), &ways) || bits(r.edx, 15, 12) == 9)
                        legacy_cache(out, 3, CACHE_UNIFIED, bits(r.edx, 31, 18) * 512 * KiB,
                                     ways, bits(r.edx, 7, 0));
        }
}

static void decode_leaf2_byte(uint8_t desc, struct cpu_info *out, bool *use_leaf18)
{
        if (desc == LEAF2_USE_LEAF18)
                *use_leaf18 = true;
        for (size_t i = 0; i < ARRAY_SIZE(leaf2_tlbs); i++) {
                const struct leaf2_tlb *e = &leaf2_tlbs[i];

                if (e->desc != desc)
                        continue;
                add_tlb(out, &(struct cpu_tlb){ .level = e->level, .type = e->type,
                                                .page_sizes = e->page_sizes,
                                                .entries = e->entries, .ways = e->ways,
                                                .source = e->source });
        }
}

/* Leaf 2: one-byte descriptors in EAX..EDX; a register with bit 31 set holds none, and AL is
 * an iteration count, not a descriptor. [SDM-2A] "INPUT EAX = 02H" */
static bool decode_leaf2(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r;
        bool              use_leaf18 = false;

        if (out->max_leaf < 2 || !cpuid_dump_get(d, 2, 0, &r))
                return true;
        for (unsigned reg = CPUID_EAX; reg <= CPUID_EDX; reg++) {
                uint32_t v = reg_of(&r, (enum cpuid_reg)reg);

                if (v & 0x80000000u)
                        continue;
                for (unsigned b = (reg == CPUID_EAX) ? 1 : 0; b < 4; b++)
                        decode_leaf2_byte((uint8_t)(v >> (8 * b)), out, &use_leaf18);
        }
        return use_leaf18;
}

/* Leaf 18H sub-leaf n: EBX page sizes [3:0], ways [31:16]; ECX sets; EDX type [4:0], level
 * [7:5], fully associative [8]. Sub-leaves need not be contiguous; type 0 = invalid.
 * [SDM-2A] Table 3-8 leaf 18H */
static void decode_leaf18(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r0, r;

        if (out->max_leaf < 0x18 || !cpuid_dump_get(d, 0x18, 0, &r0))
                return;
        for (uint32_t s = 0; s <= r0.eax && s < SUBLEAF_MAX; s++) {
                if (!cpuid_dump_get(d, 0x18, s, &r))
                        continue;
                uint32_t type = bits(r.edx, 4, 0);

                if (type < TLB_DATA || type > TLB_STORE)
                        continue;
                uint32_t ways = bits(r.ebx, 31, 16);

                add_tlb(out, &(struct cpu_tlb){
                                     .level      = (uint8_t)bits(r.edx, 7, 5),
                                     .type       = (enum cpu_tlb_type)type,
                                     .page_sizes = bits(r.ebx, 3, 0),
                                     .entries    = ways * r.ecx,
                                     .ways       = (r.edx & (1u << 8)) ? 0 : ways,
                                     .source = s < ARRAY_SIZE(leaf18_src) ? leaf18_src[s]
                                                                          : "leaf 0x18" });
        }
}

/** AMD L1 TLB pair in one register: DTLB assoc [31:24] entries [23:16], ITLB [15:8] [7:0]. */
static void amd_l1_tlbs(struct cpu_info *out, uint32_t v, uint32_t pages, const char *src)
{
        struct cpu_tlb t = { .level = 1, .page_sizes = pages, .source = src };

        if ((t.entries = bits(v, 23, 16)) != 0) {
                t.type = TLB_DATA;
                t.ways = l1_assoc_ways(bits(v, 31, 24));
                add_tlb(out, &t);
        }
        if ((t.entries = bits(v, 7, 0)) != 0) {
                t.type = TLB_INST;
                t.ways = l1_assoc_ways(bits(v, 15, 8));
                add_tlb(out, &t);
        }
}

/** AMD 4-bit-associativity TLB pair: DTLB assoc [31:28] entries [27:16], ITLB [15:12] [11:0]. */
static void amd_l2_tlbs(struct cpu_info *out, uint8_t level, uint32_t v, uint32_t pages,
                        const char *src)
{
        struct cpu_tlb t = { .level = level, .page_sizes = pages, .source = src };

        t.entries = bits(v, 27, 16);
        if (t.entries && l2_assoc_valid(bits(v, 31, 28), &t.ways)) {
                t.type = TLB_DATA;
                add_tlb(out, &t);
        }
        t.entries = bits(v, 11, 0);
        if (t.entries && l2_assoc_valid(bits(v, 15, 12), &t.ways)) {
                t.type = TLB_INST;
                add_tlb(out, &t);
        }
}

/* [APM-3] Fn8000_0005 EAX (2M/4M) / EBX (4K) L1 TLBs; Fn8000_0006 EAX/EBX L2 TLBs;
 * Fn8000_0019 EAX/EBX L1/L2 1 GiB TLBs. */
static void decode_amd_tlbs(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r;

        if (out->max_ext_leaf >= 0x80000005 && cpuid_dump_get(d, 0x80000005, 0, &r)) {
                amd_l1_tlbs(out, r.ebx, TLB_PG_4K, "0x80000005");
                amd_l1_tlbs(out, r.eax, TLB_PG_2M | TLB_PG_4M, "0x80000005");
        }
        if (out->max_ext_leaf >= 0x80000006 && cpuid_dump_get(d, 0x80000006, 0, &r)) {
                amd_l2_tlbs(out, 2, r.ebx, TLB_PG_4K, "0x80000006");
                amd_l2_tlbs(out, 2, r.eax, TLB_PG_2M | TLB_PG_4M, "0x80000006");
        }
        if (out->max_ext_leaf >= 0x80000019 && cpuid_dump_get(d, 0x80000019, 0, &r)) {
                amd_l2_tlbs(out, 1, r.eax, TLB_PG_1G, "0x80000019");
                amd_l2_tlbs(out, 2, r.ebx, TLB_PG_1G, "0x80000019");
        }
}

/* Intel architectural perfmon, leaf 0AH: EAX version [7:0], GP counters [15:8], width
 * [23:16], EBX length [31:24]; EBX bit set = event unavailable; ECX fixed-counter mask (v5);
 * EDX fixed counters [4:0], width [12:5], AnyThread deprecated [15]. Fixed counter i exists
 * when ECX[i] || EDX[4:0] > i. [SDM-3B] "Architectural Performance Monitoring" */
static void decode_pmu_intel(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpu_pmu_intel *p = &out->intel;
        struct cpuid_regs     r;

        if (out->max_leaf >= 0xa && cpuid_dump_get(d, 0xa, 0, &r)) {
                p->version            = (uint8_t)bits(r.eax, 7, 0);
                p->n_gp               = (uint8_t)bits(r.eax, 15, 8);
                p->gp_width           = (uint8_t)bits(r.eax, 23, 16);
                p->ebx_len            = (uint8_t)bits(r.eax, 31, 24);
                p->events_unavailable = p->ebx_len >= 32 ? r.ebx
                                                         : r.ebx & (uint32_t)((1ull << p->ebx_len) - 1);
                if (p->version >= 2) {
                        p->n_fixed     = (uint8_t)bits(r.edx, 4, 0);
                        p->fixed_width = (uint8_t)bits(r.edx, 12, 5);
                        p->fixed_mask  = r.ecx | (uint32_t)((1ull << p->n_fixed) - 1);
                }
                p->anythread_deprecated = r.edx & (1u << 15);
        }
        if (p->arch_lbr && out->max_leaf >= 0x1c && cpuid_dump_get(d, 0x1c, 0, &r)) {
                p->arch_lbr_depth_mask = (uint8_t)bits(r.eax, 7, 0);
                p->arch_lbr_cycles     = cpuid_dump_has(d, CPUID_LBR_TIMED);
        }
}

/* [APM-3] Fn8000_0001 ECX, Fn8000_0022 EBX (NumPerfCtrCore [3:0], LbrV2StackSize [9:4]),
 * Fn8000_001B EAX (IBS capabilities, valid when IbsFFV bit 0 is set). */
static void decode_pmu_amd(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpu_pmu_amd *p = &out->amd;
        struct cpuid_regs   r;

        set_features(d, out, amd_features, ARRAY_SIZE(amd_features));
        if (out->max_ext_leaf < 0x80000022)
                p->perfmon_v2 = false;
        if (p->perfmon_v2 && cpuid_dump_get(d, 0x80000022, 0, &r)) {
                p->n_core       = (uint8_t)bits(r.ebx, 3, 0);
                p->lbr_v2_depth = (uint8_t)bits(r.ebx, 9, 4);
        } else {
                p->n_core = p->perfctr_core ? 6 : 4;
        }
        if (p->ibs) {
                p->ibs_caps = IBS_CAPS_FETCHSAM | IBS_CAPS_OPSAM;
                if (out->max_ext_leaf >= 0x8000001b && cpuid_dump_get(d, 0x8000001b, 0, &r) &&
                    (r.eax & IBS_CAPS_AVAIL))
                        p->ibs_caps = r.eax;
        }
}

/* Logical processors per package: the largest EBX[15:0] of the valid levels of leaf 1FH (or
 * 0BH), else CPUID.01H:EBX[23:16] when HTT is set. [SDM-2A] leaves 0BH/1FH */
static void decode_topology(const struct cpuid_dump *d, struct cpu_info *out, uint32_t leaf1_ebx)
{
        static const uint32_t topo_leaves[] = { 0x1f, 0xb };
        struct cpuid_regs     r;

        out->initial_apic_id = bits(leaf1_ebx, 31, 24);
        for (size_t i = 0; i < ARRAY_SIZE(topo_leaves); i++) {
                uint32_t leaf = topo_leaves[i], n = 0;

                if (out->max_leaf < leaf || !cpuid_dump_get(d, leaf, 0, &r) || !bits(r.ebx, 15, 0))
                        continue;
                out->initial_apic_id = r.edx;
                for (uint32_t s = 0; s < SUBLEAF_MAX && cpuid_dump_get(d, leaf, s, &r); s++) {
                        if (!level_type_null(&r) && bits(r.ebx, 15, 0) > n)
                                n = bits(r.ebx, 15, 0);
                        if (level_type_null(&r))
                                break;
                }
                out->n_logical_per_pkg = n;
                return;
        }
        out->n_logical_per_pkg = cpuid_dump_has(d, CPUID_HTT) ? bits(leaf1_ebx, 23, 16) : 1;
}

/* ---- public functions --------------------------------------------------------------- */

bool cpuid_dump_get(const struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
                    struct cpuid_regs *out)
{
        if (out)
                *out = (struct cpuid_regs){ 0 };
        if (!d)
                return false;
        for (size_t i = 0; i < d->n && i < CPUID_DUMP_MAX; i++) {
                if (d->leaves[i].leaf == leaf && d->leaves[i].subleaf == subleaf) {
                        if (out)
                                *out = d->leaves[i].r;
                        return true;
                }
        }
        return false;
}

bool cpuid_dump_has(const struct cpuid_dump *d, struct cpuid_bit bit)
{
        struct cpuid_regs r;

        if (bit.bit > 31 || !cpuid_dump_get(d, bit.leaf, bit.subleaf, &r))
                return false;
        return (reg_of(&r, bit.reg) >> bit.bit) & 1;
}

void cpuid_dump_collect(struct cpuid_dump *d)
{
        struct cpuid_regs r;
        uint32_t          max;

        d->n = 0;
        cpuid_raw(0, 0, &r);
        max = r.eax;
        for (uint32_t l = 0; l <= max && d->n < CPUID_DUMP_MAX; l++)
                collect_leaf(d, l);

        cpuid_raw(1, 0, &r);
        if (max >= 1 && (r.ecx & (1u << CPUID_HYPERVISOR.bit))) {
                cpuid_raw(LEAF_HV_BASE, 0, &r);
                uint32_t hv_max = r.eax < LEAF_HV_BASE ? LEAF_HV_BASE : r.eax;

                for (uint32_t l = LEAF_HV_BASE; l <= hv_max && l <= LEAF_HV_LAST; l++)
                        collect_one(d, l, 0, NULL);
        }

        cpuid_raw(LEAF_EXT, 0, &r);
        if ((r.eax & 0xffff0000u) != LEAF_EXT)
                return;
        max = r.eax < LEAF_EXT_MAX ? r.eax : LEAF_EXT_MAX;
        for (uint32_t l = LEAF_EXT; l <= max && d->n < CPUID_DUMP_MAX; l++)
                collect_leaf(d, l);
}

status_t cpu_decode(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r0, r1, r;

        if (!d || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (!cpuid_dump_get(d, 0, 0, &r0))
                return ST_BAD_DATA;

        out->max_leaf = r0.eax;
        decode_vendor(&r0, out);
        if (cpuid_dump_get(d, LEAF_EXT, 0, &r) && (r.eax & 0xffff0000u) == LEAF_EXT)
                out->max_ext_leaf = r.eax;
        if (out->max_leaf >= 1 && cpuid_dump_get(d, 1, 0, &r1)) {
                decode_signature(r1.eax, out);
                decode_topology(d, out, r1.ebx);
        }
        set_features(d, out, common_features, ARRAY_SIZE(common_features));
        if (out->hypervisor && cpuid_dump_get(d, LEAF_HV_BASE, 0, &r))
                regs_to_str12(out->hv_vendor, r.ebx, r.ecx, r.edx);
        decode_brand(d, out);
        decode_tsc(d, out);

        bool amd_like = out->vendor == VEN_AMD || out->vendor == VEN_HYGON;

        if (amd_like) {
                if (cpuid_dump_has(d, CPUID_AMD_TOPOEXT) && out->max_ext_leaf >= 0x8000001d)
                        decode_det_caches(d, 0x8000001d, out);
                if (out->n_caches == 0)
                        decode_amd_legacy_caches(d, out);
                decode_amd_tlbs(d, out);
                decode_pmu_amd(d, out);
        } else {
                if (out->max_leaf >= 4)
                        decode_det_caches(d, 4, out);
                size_t n_leaf2 = out->n_tlbs;
                bool   use18   = decode_leaf2(d, out);

                if (use18 || out->n_tlbs == n_leaf2)
                        decode_leaf18(d, out);
        }
        decode_pmu_intel(d, out);
        return ST_OK;
}

const char *cpu_vendor_name(enum cpu_vendor v)
{
        return (unsigned)v < ARRAY_SIZE(vendor_names) && vendor_names[v] ? vendor_names[v]
                                                                           : "unknown";
}

const char *cpu_cache_type_name(enum cpu_cache_type t)
{
        return (unsigned)t < ARRAY_SIZE(cache_type_names) && cache_type_names[t]
                       ? cache_type_names[t] : "unknown";
}

const char *cpu_tlb_type_name(enum cpu_tlb_type t)
{
        return (unsigned)t < ARRAY_SIZE(tlb_type_names) && tlb_type_names[t] ? tlb_type_names[t]
                                                                              : "unknown";
}
