/** @file
 * Access to CPUID, MSRs and performance counters.
 *
 * The *_safe accessors are the only way portable code touches an MSR that no CPUID bit
 * guarantees. They return ST_FAULT (and *out = 0) when the instruction raised #GP or #UD, so a
 * register the CPU lacks is reported as unsupported instead of resetting the machine. They are
 * link-time polymorphic: boot/x86/msr_cpu.c implements them on the real CPU through the harness's
 * own #GP/#UD handlers (boot/x86/trap.h), boot/linux/x86/linux_msr.c through /dev/cpu/N/msr in the hosted
 * build, and tests/fake_msr.c on a register-level model for the unit tests.
 *
 * Do NOT use the safe accessors inside a timed region: they cost a store and a branch more
 * than a plain RDMSR. Timed code uses rdmsr()/rdpmc() below, and only on registers that
 * pmu_init() has already proven.
 */
#ifndef PMUCAL_MSR_H
#define PMUCAL_MSR_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/status.h"

struct cpuid_regs {
        uint32_t eax, ebx, ecx, edx;
};

enum cpuid_reg { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

/** One CPUID feature bit, as data: leaf, sub-leaf, register, bit. */
struct cpuid_bit {
        uint32_t       leaf;
        uint32_t       subleaf;
        enum cpuid_reg reg;
        uint8_t        bit;
};

/** Execute CPUID on this processor (unprivileged; works hosted too). */
static inline void cpuid_raw(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
        __asm__ volatile("cpuid"
                         : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx)
                         : "a"(leaf), "c"(subleaf));
}

/** Read MSR @p msr; ST_FAULT and *out = 0 when it raised #GP. */
status_t rdmsr_safe(uint32_t msr, uint64_t *out);
/** Write MSR @p msr; ST_FAULT when it raised #GP (nothing was written). */
status_t wrmsr_safe(uint32_t msr, uint64_t val);
/** RDPMC with ECX = @p ecx; ST_FAULT when it raised #GP or #UD (CR4.PCE, missing counter). */
status_t rdpmc_safe(uint32_t ecx, uint64_t *out);
/** Exception vector of the last fault a *_safe accessor recovered from on this CPU (6, 13). */
unsigned msr_last_fault_vector(void);

/* Plain accessors for proven registers in timed regions. Ring 0 only. */
static inline uint64_t rdmsr(uint32_t msr)
{
        uint32_t lo, hi;
        __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
        return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t val)
{
        __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
                         : "memory");
}

static inline uint64_t rdpmc(uint32_t ecx)
{
        uint32_t lo, hi;
        __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
        return ((uint64_t)hi << 32) | lo;
}

/** RDTSC with LFENCE before and after, so the read is ordered against the loads it brackets
 *  (Intel and AMD with LFENCE made dispatch-serialising). [SDM-2B] RDTSC. */
static inline uint64_t rdtsc_ordered(void)
{
        uint32_t lo, hi;
        __asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
        return ((uint64_t)hi << 32) | lo;
}

#endif
