/** @file
 * Hardware prefetcher control on AArch64 (the interface of boot/prefetch.h): none. The
 * architecture defines no prefetcher control; cores that have one put it in IMPLEMENTATION
 * DEFINED registers (CPUACTLR*_EL1 and the like), writable only at EL3 or EL2 on most parts
 * and documented per core revision. The sweep therefore runs with the prefetchers as found,
 * and the table says "unchanged".
 */
#include "boot/prefetch.h"

#include "lib/base.h"

bool bench_prefetch_lookup(const struct cpu_info *cpu, uint32_t *msr, uint64_t *mask,
                           const char **source)
{
        (void)cpu;
        (void)msr;
        (void)mask;
        (void)source;
        return false;
}

status_t bench_prefetch_disable(const struct cpu_info *cpu, bool want_off,
                                struct bench_prefetch *pf)
{
        (void)cpu;
        (void)want_off;
        if (!pf)
                return ST_BAD_ARG;
        *pf = (struct bench_prefetch){ .state = BENCH_PF_UNSUPPORTED };
        return ST_OK;
}

status_t bench_prefetch_restore(struct bench_prefetch *pf)
{
        (void)pf;
        return ST_OK;
}

const char *bench_prefetch_state_name(enum bench_pf_state s)
{
        return s == BENCH_PF_UNSUPPORTED ? "unsupported" : "unknown";
}
