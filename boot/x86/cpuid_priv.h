/** @file
 * Internal to boot/x86/cpuid*.c: the leaf constants and register-field helpers they share,
 * and the cache/TLB decoder that cpuid_cache.c implements for cpu_decode(). Calls go one way:
 * cpuid.c -> cpuid_cache.c -> cpuid_dump.c (look-up), never back; cpuid_collect.c fills a
 * dump from the live CPU.
 */
#ifndef PMUCAL_CPUID_PRIV_H
#define PMUCAL_CPUID_PRIV_H

#include "boot/x86/cpuid.h"

#define SUBLEAF_MAX 64 /* bound on every sub-leaf walk, however the data claims more */

#define LEAF_HV_BASE 0x40000000u
#define LEAF_HV_LAST 0x40000010u
#define LEAF_EXT     0x80000000u
#define LEAF_EXT_MAX 0x800000ffu

#define CPUID_HYPERVISOR   ((struct cpuid_bit){ 0x1, 0, CPUID_ECX, 31 })
#define CPUID_AMD_TOPOEXT  ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 22 })

/** Bits @p hi..@p lo of @p v, shifted down. */
static inline uint32_t bits(uint32_t v, unsigned hi, unsigned lo)
{
        return (v >> lo) & (uint32_t)((1ull << (hi - lo + 1)) - 1);
}

/** Leaf 4 / 0x8000001D sub-leaf with cache type 0: the end of the cache list. */
static inline bool cache_type_null(const struct cpuid_regs *r)
{
        return bits(r->eax, 4, 0) == 0;
}

/** Leaf 0xB / 0x1F / 0x80000026 sub-leaf with level type 0: the end of the level list. */
static inline bool level_type_null(const struct cpuid_regs *r)
{
        return bits(r->ecx, 15, 8) == 0;
}

/** The register @p reg of @p r. */
static inline uint32_t reg_of(const struct cpuid_regs *r, enum cpuid_reg reg)
{
        switch (reg) {
        case CPUID_EAX: return r->eax;
        case CPUID_EBX: return r->ebx;
        case CPUID_ECX: return r->ecx;
        default:        return r->edx;
        }
}

/** The dump cpuid_dump_replay() set (cpuid_dump.c), NULL when the live CPU is read; kept
 *  apart from cpuid_collect.c, which tests replace by a double. */
const struct cpuid_dump *cpuid_dump_replayed(void);

/** Decode caches and TLBs from @p d into @p out: AMD-like CPUs from 0x8000001D (or the
 *  legacy 0x80000005/6 descriptors) and 0x80000005/6/19; others from leaf 4, leaf 2 and
 *  leaf 0x18. */
void cpuid_decode_caches_tlbs(const struct cpuid_dump *d, struct cpu_info *out, bool amd_like);

#endif
