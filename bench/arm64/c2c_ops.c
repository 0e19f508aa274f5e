/** @file
 * The AArch64 operations of the cache-to-cache kernels (see bench/c2c.h): DC CIVAC evicts a
 * line to the point of coherency from every cache of the shareability domain, the laps are
 * timed with the generic timer's virtual count (CNTVCT_EL0, CNTFRQ_EL0 ticks per second: the
 * inventory's tsc_hz on AArch64). The write is a plain store completed by DSB ISH before the
 * next pointer is loaded from the line (the line moves into this core's cache); the atomic
 * kind is LDADD (FEAT_LSE, ID_AA64ISAR0_EL1.Atomic >= 2), which Neoverse cores may perform
 * far, in the interconnect, when the line is not in their L1 (Cortex-A76 TRM), or an
 * LDXR/STXR loop where the CPU has no LSE.
 * A stamp waits for the loads and atomics before it with DSB and is itself ordered by ISB,
 * as Linux's arch_timer_read_cntvct_el0 is. [ARM-ARM] C5.3 DC CIVAC, D12 "The Generic
 * Timer", C6.2 LDADD, LDXR, STXR, STR, DSB, ISB.
 */
#include "bench/c2c.h"

#include "boot/arm64/sysreg.h"

static bool has_lse(void)
{
        static int lse = -1;

        if (lse < 0)
                lse = (SYSREG_READ(SYS_ID_AA64ISAR0_EL1) >> 20 & 0xf) >= 2;
        return lse;
}

static inline uint64_t stamp(void)
{
        uint64_t t;

        __asm__ volatile("dsb ish\n\t"
                         "isb\n\t"
                         "mrs %0, cntvct_el0\n\t"
                         "isb" : "=r"(t) : : "memory");
        return t;
}

uint64_t bench_c2c_clock(void)
{
        return stamp();
}

const char *bench_c2c_clock_name(void)
{
        return "cntvct";
}

void bench_c2c_flush_line(const void *p)
{
        __asm__ volatile("dc civac, %0\n\t"
                         "dsb ish" : : "r"(p) : "memory");
}

uint64_t bench_c2c_chase_timed(void *p, size_t n)
{
        uint64_t t0 = stamp();

        __asm__ volatile("1:\n\t"
                         "ldr %0, [%0]\n\t"
                         "subs %1, %1, #1\n\t"
                         "b.ne 1b"
                         : "+r"(p), "+r"(n)
                         :
                         : "memory", "cc");
        return stamp() - t0;
}

/* Atomic add of 1 to word 1 of each line, then the load of the next pointer from the line
 * just owned: one transfer per step, as the x86 locked add. */
uint64_t bench_c2c_rmw_timed(void *p, size_t n)
{
        uint64_t one = 1, old, t0;
        uint32_t fail;

        if (has_lse()) {
                t0 = stamp();
                __asm__ volatile(".arch_extension lse\n"
                                 "1:\n\t"
                                 "add x16, %0, #8\n\t"
                                 "ldadd %3, %2, [x16]\n\t"
                                 "ldr %0, [%0]\n\t"
                                 "subs %1, %1, #1\n\t"
                                 "b.ne 1b"
                                 : "+r"(p), "+r"(n), "=&r"(old)
                                 : "r"(one)
                                 : "x16", "memory", "cc");
                return stamp() - t0;
        }
        t0 = stamp();
        __asm__ volatile("1:\n\t"
                         "add x16, %0, #8\n"
                         "2:\n\t"
                         "ldxr %2, [x16]\n\t"
                         "add %2, %2, #1\n\t"
                         "stxr %w3, %2, [x16]\n\t"
                         "cbnz %w3, 2b\n\t"
                         "ldr %0, [%0]\n\t"
                         "subs %1, %1, #1\n\t"
                         "b.ne 1b"
                         : "+r"(p), "+r"(n), "=&r"(old), "=&r"(fail)
                         :
                         : "x16", "memory", "cc");
        return stamp() - t0;
}

/* Store to word 1 of each line, DSB ISH: the store is complete (observed by every observer of
 * the inner shareable domain, so the line is this core's, Modified) before the load of the
 * next pointer from it. */
uint64_t bench_c2c_store_timed(void *p, size_t n)
{
        uint64_t one = 1, t0 = stamp();

        __asm__ volatile("1:\n\t"
                         "str %2, [%0, #8]\n\t"
                         "dsb ish\n\t"
                         "ldr %0, [%0]\n\t"
                         "subs %1, %1, #1\n\t"
                         "b.ne 1b"
                         : "+r"(p), "+r"(n)
                         : "r"(one)
                         : "memory", "cc");
        return stamp() - t0;
}
