/** @file
 * Internal to pmu/cpuid*.c: register-field helpers and the cache/TLB decoder that
 * boot/x86/cpuid_cache.c implements for cpu_decode().
 */
#ifndef PMUCAL_CPUID_PRIV_H
#define PMUCAL_CPUID_PRIV_H

#include "boot/x86/cpuid.h"

#define SUBLEAF_MAX 64 /* bound on every sub-leaf walk, however the data claims more */

#define CPUID_AMD_TOPOEXT  ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 22 })

/** Bits @p hi..@p lo of @p v, shifted down. */
static inline uint32_t bits(uint32_t v, unsigned hi, unsigned lo)
{
        return (v >> lo) & (uint32_t)((1ull << (hi - lo + 1)) - 1);
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

/** Decode caches and TLBs from @p d into @p out: AMD-like CPUs from 0x8000001D (or the
 *  legacy 0x80000005/6 descriptors) and 0x80000005/6/19; others from leaf 4, leaf 2 and
 *  leaf 0x18. */
void cpuid_decode_caches_tlbs(const struct cpuid_dump *d, struct cpu_info *out, bool amd_like);

#endif
