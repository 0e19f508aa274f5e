/** @file
 * Cache and TLB decoding for cpu_decode() (see cpuid.h): deterministic cache parameters
 * (Intel leaf 4, AMD 0x8000001D), AMD's legacy L1/L2/L3 descriptors (0x80000005/6), Intel's
 * leaf 2 descriptor bytes and leaf 0x18 address-translation parameters, AMD's TLB leaves
 * (0x80000005/6/19). [SDM-2A] CPUID; [APM-3] CPUID Fn8000_0005..001D.
 */
#include "boot/x86/cpuid_priv.h"

#include "boot/plat.h"

#define PG_4K     TLB_PG_4K
#define PG_2M4M   (TLB_PG_2M | TLB_PG_4M)
#define PG_4K4M   (TLB_PG_4K | TLB_PG_4M)
#define PG_4K2M4M (TLB_PG_4K | TLB_PG_2M | TLB_PG_4M)
#define D(x)      "leaf 2 descriptor " #x
#define WU        CPU_WAYS_UNKNOWN

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

/* The TLB descriptors of [SDM-2A] Table 3-12 (cache descriptors are not needed: caches come
 * from leaf 4). ways is 0 only where the SDM says fully associative; where it gives no
 * associativity ("4 KByte pages, 32 entries") it is WU, CPU_WAYS_UNKNOWN. The level is the
 * first; decode_leaf2() moves the data TLBs listed beside a micro-TLB to the second. */
static const struct leaf2_tlb leaf2_tlbs[] = {
        /* desc  lvl type        pages             entries ways source */
        { 0x01, 1, TLB_INST,    PG_4K,             32,   4, D(0x01) },
        { 0x02, 1, TLB_INST,    TLB_PG_4M,         2,    0, D(0x02) },
        { 0x03, 1, TLB_DATA,    PG_4K,             64,   4, D(0x03) },
        { 0x04, 1, TLB_DATA,    TLB_PG_4M,         8,    4, D(0x04) },
        { 0x05, 1, TLB_DATA,    TLB_PG_4M,         32,   4, D(0x05) },
        { 0x0b, 1, TLB_INST,    TLB_PG_4M,         4,    4, D(0x0b) },
        { 0x4f, 1, TLB_INST,    PG_4K,             32, WU, D(0x4f) }, /* ways not given */
        { 0x50, 1, TLB_INST,    PG_4K2M4M,         64, WU, D(0x50) }, /* ways not given */
        { 0x51, 1, TLB_INST,    PG_4K2M4M,         128, WU, D(0x51) }, /* ways not given */
        { 0x52, 1, TLB_INST,    PG_4K2M4M,         256, WU, D(0x52) }, /* ways not given */
        { 0x55, 1, TLB_INST,    PG_2M4M,           7,    0, D(0x55) },
        { 0x56, 1, TLB_DATA,    TLB_PG_4M,         16,   4, D(0x56) },
        { 0x57, 1, TLB_DATA,    PG_4K,             16,   4, D(0x57) },
        { 0x59, 1, TLB_DATA,    PG_4K,             16,   0, D(0x59) },
        { 0x5a, 1, TLB_DATA,    PG_2M4M,           32,   4, D(0x5a) },
        { 0x5b, 1, TLB_DATA,    PG_4K4M,           64, WU, D(0x5b) }, /* ways not given */
        { 0x5c, 1, TLB_DATA,    PG_4K4M,           128, WU, D(0x5c) }, /* ways not given */
        { 0x5d, 1, TLB_DATA,    PG_4K4M,           256, WU, D(0x5d) }, /* ways not given */
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
 * both, and reserved codes, are flagged by l2_assoc_valid(). 3 is 3-way: the PPRs of family
 * 17h (EPYC 7001, Threadripper 2000) and Hygon's family 18h give it for the 1536-entry 2M L2
 * DTLB (CPUID Fn8000_0006_EAX L2DTlb2and4MAssoc = 3h). [APM-3] Table E-4 "L2/L3 Cache and
 * TLB Associativity Field Encoding"; [PPR-17h] CPUID_Fn80000006. */
static const struct { uint8_t code; uint32_t ways; } amd_l2_assoc[] = {
        { 0x1, 1 },  { 0x2, 2 },  { 0x3, 3 },  { 0x4, 4 },  { 0x5, 6 },   { 0x6, 8 },   { 0x8, 16 },
        { 0xa, 32 }, { 0xb, 48 }, { 0xc, 64 }, { 0xd, 96 },  { 0xe, 128 }, { 0xf, 0 },
};

static const char *const leaf18_src[] = {
        "leaf 0x18.0",  "leaf 0x18.1",  "leaf 0x18.2",  "leaf 0x18.3",  "leaf 0x18.4",
        "leaf 0x18.5",  "leaf 0x18.6",  "leaf 0x18.7",  "leaf 0x18.8",  "leaf 0x18.9",
        "leaf 0x18.10", "leaf 0x18.11", "leaf 0x18.12", "leaf 0x18.13", "leaf 0x18.14",
        "leaf 0x18.15",
};

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

/* Atom cores (Bonnell, Silvermont, Airmont, Goldmont, Knights Landing) have a first-level
 * micro-TLB, given by descriptor 0xA0 ("DTLB: 4k pages, fully associative, 32 entries") or 0x6A
 * ("uTLB: 4 KByte pages, 8-way set associative, 64 entries"); beside it the data TLB descriptors
 * 0xB3, 0xB4, 0x64 and 0x6B describe the DTLB behind it, the second level: Silvermont
 * (Z3740: 0xA0 + 0xB3) has a 32-entry micro-TLB and a 128-entry DTLB, Knights Landing (0x6A +
 * 0x6B) a 64-entry uTLB and a 256-entry DTLB. Core 2 and Bonnell say the same with 57H / 59H
 * "Data TLB0" beside B4H / BAH "Data TLB1" (Atom 330: 16-entry DTLB0, 64-entry DTLB).
 * [SDM-2A] Table 3-12; Intel 64 and IA-32
 * Architectures Optimization Reference Manual, Silvermont and Knights Landing chapters. */
static bool is_micro_dtlb(uint8_t desc)
{
        return desc == 0xa0 || desc == 0x6a || desc == 0x57 || desc == 0x59; /* "Data TLB0" */
}

static bool is_second_dtlb(const char *source)
{
        static const char *const second[] = { D(0xb3), D(0xb4), D(0x64), D(0x6b), D(0xba) };

        for (size_t i = 0; i < ARRAY_SIZE(second); i++)
                if (!strcmp(source, second[i]))
                        return true;
        return false;
}

/* Leaf 2: one-byte descriptors in EAX..EDX; a register with bit 31 set holds none, and AL is
 * an iteration count, not a descriptor. [SDM-2A] "INPUT EAX = 02H" */
static bool decode_leaf2(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r;
        bool              use_leaf18 = false;

        if (out->max_leaf < 2 || !cpuid_dump_get(d, 2, 0, &r))
                return true;
        size_t first = out->n_tlbs;
        bool   micro = false;

        for (unsigned reg = CPUID_EAX; reg <= CPUID_EDX; reg++) {
                uint32_t v = reg_of(&r, (enum cpuid_reg)reg);

                if (v & 0x80000000u)
                        continue;
                for (unsigned b = (reg == CPUID_EAX) ? 1 : 0; b < 4; b++) {
                        uint8_t desc = (uint8_t)(v >> (8 * b));

                        decode_leaf2_byte(desc, out, &use_leaf18);
                        micro |= is_micro_dtlb(desc);
                }
        }
        /* Beside a micro-TLB the data TLB descriptors name the second level. */
        for (size_t i = first; micro && i < out->n_tlbs; i++)
                if (out->tlbs[i].type == TLB_DATA && is_second_dtlb(out->tlbs[i].source))
                        out->tlbs[i].level = 2;
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

/** AMD 4-bit-associativity TLB pair: DTLB assoc [31:28] entries [27:16], ITLB [15:12] [11:0];
 *  each entry count times @p scale. */
static void amd_l2_tlbs(struct cpu_info *out, uint8_t level, uint32_t v, uint32_t pages,
                        uint32_t scale, const char *src)
{
        struct cpu_tlb t = { .level = level, .page_sizes = pages, .source = src };

        t.entries = bits(v, 27, 16) * scale;
        if (t.entries && l2_assoc_valid(bits(v, 31, 28), &t.ways)) {
                t.type = TLB_DATA;
                add_tlb(out, &t);
        }
        t.entries = bits(v, 11, 0) * scale;
        if (t.entries && l2_assoc_valid(bits(v, 15, 12), &t.ways)) {
                t.type = TLB_INST;
                add_tlb(out, &t);
        }
}

/* Family 1Ah (Zen 5, Zen 5c) counts the L2 TLB entries of Fn8000_0006 EAX/EBX in units of
 * 32: every family 1Ah part reports L2 DTLB 80h and L2 ITLB 40h (EBX = 60804040h, EAX =
 * 40802040h: Turin, Turin dense, Granite Ridge, Strix Point, Strix Halo), and AMD publishes
 * 4096 L2 DTLB and 2048 L2 ITLB entries (Software Optimization Guide for the AMD Zen5
 * Microarchitecture, pub. 58455, "L2 Translation Lookaside Buffers"); 80h x 32 = 4096 and
 * 40h x 32 = 2048. Earlier families count entries. */
#define AMD_FAM1AH_L2TLB_UNIT 32

/* [APM-3] Fn8000_0005 EAX (2M/4M) / EBX (4K) L1 TLBs; Fn8000_0006 EAX/EBX L2 TLBs;
 * Fn8000_0019 EAX/EBX L1/L2 1 GiB TLBs. */
static void decode_amd_tlbs(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r;
        uint32_t          l2_unit = out->family >= 0x1a ? AMD_FAM1AH_L2TLB_UNIT : 1;

        if (out->max_ext_leaf >= 0x80000005 && cpuid_dump_get(d, 0x80000005, 0, &r)) {
                amd_l1_tlbs(out, r.ebx, TLB_PG_4K, "0x80000005");
                amd_l1_tlbs(out, r.eax, TLB_PG_2M | TLB_PG_4M, "0x80000005");
        }
        if (out->max_ext_leaf >= 0x80000006 && cpuid_dump_get(d, 0x80000006, 0, &r)) {
                amd_l2_tlbs(out, 2, r.ebx, TLB_PG_4K, l2_unit, "0x80000006");
                amd_l2_tlbs(out, 2, r.eax, TLB_PG_2M | TLB_PG_4M, l2_unit, "0x80000006");
        }
        if (out->max_ext_leaf >= 0x80000019 && cpuid_dump_get(d, 0x80000019, 0, &r)) {
                amd_l2_tlbs(out, 1, r.eax, TLB_PG_1G, 1, "0x80000019");
                amd_l2_tlbs(out, 2, r.ebx, TLB_PG_1G, 1, "0x80000019");
        }
}

/** A cache the processor has and CPUID does not list. */
struct cache_quirk {
        uint32_t         family, model;
        uint8_t          core_type;  /* CPU_CORE_*: only on cores of this type */
        struct cpu_cache cache;      /* .source is the citation */
};

#define LION_COVE_L1D                                                                              \
        { .level = 1, .type = CACHE_DATA, .size_bytes = 192 * KiB, .ways = CPU_WAYS_UNKNOWN,    \
          .line_bytes = 64,                                                                     \
          .source = "192 KB L1 data cache between the 48 KB L0 (leaf 4's L1D) and L2, not in "  \
                    "CPUID leaf 4 (Intel Lunar Lake / Arrow Lake architecture disclosures, "    \
                    "Lion Cove: L0 48 KB, L1 192 KB; AIDA64 on these CPUs: \"L0+L1 Data "       \
                    "Cache: 48+192 KB\")" }

/* Intel Lion Cove (Lunar Lake 06_BDH, Arrow Lake 06_C5H/06_C6H) and Cougar Cove (Panther Lake
 * 06_CCH) performance cores. [SDM-4] Table 2-1 for the signatures. */
static const struct cache_quirk cache_quirks[] = {
        { 6, 0xbd, CPU_CORE_CORE, LION_COVE_L1D },
        { 6, 0xc5, CPU_CORE_CORE, LION_COVE_L1D },
        { 6, 0xc6, CPU_CORE_CORE, LION_COVE_L1D },
        { 6, 0xcc, CPU_CORE_CORE, LION_COVE_L1D },
};

static void apply_cache_quirks(struct cpu_info *out)
{
        for (size_t i = 0; i < ARRAY_SIZE(cache_quirks); i++) {
                const struct cache_quirk *q = &cache_quirks[i];

                if (out->vendor == VEN_INTEL && out->family == q->family &&
                    out->model == q->model && out->core_type == q->core_type)
                        add_cache(out, &q->cache);
        }
}

void cpuid_decode_caches_tlbs(const struct cpuid_dump *d, struct cpu_info *out, bool amd_like)
{
        if (amd_like) {
                if (cpuid_dump_has(d, CPUID_AMD_TOPOEXT) && out->max_ext_leaf >= 0x8000001d)
                        decode_det_caches(d, 0x8000001d, out);
                if (out->n_caches == 0)
                        decode_amd_legacy_caches(d, out);
                decode_amd_tlbs(d, out);
        } else {
                if (out->max_leaf >= 4)
                        decode_det_caches(d, 4, out);
                size_t n_leaf2 = out->n_tlbs;
                bool   use18   = decode_leaf2(d, out);

                if (use18 || out->n_tlbs == n_leaf2)
                        decode_leaf18(d, out);
                apply_cache_quirks(out);
        }
}
