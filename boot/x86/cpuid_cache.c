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
        }
}
