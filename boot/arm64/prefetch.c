/** @file
 * Hardware prefetcher control on AArch64 (the interface of boot/prefetch.h): none. The
 * architecture defines no prefetcher control; cores that have one put it in IMPLEMENTATION
 * DEFINED registers (CPUACTLR*_EL1 and the like), writable only at EL3 or EL2 on most parts
 * and documented per core revision. The sweep therefore runs with the prefetchers as found,
 * and the table says "unchanged".
 */
#include "boot/prefetch.h"

#include "lib/base.h"

bool prefetch_lookup(const struct cpu_info *cpu, uint32_t *msr, uint64_t *mask,
                           const char **source)
{
        (void)cpu;
        (void)msr;
        (void)mask;
        (void)source;
        return false;
}

status_t prefetch_disable(const struct cpu_info *cpu, bool want_off,
                                struct prefetch_info *pf)
{
        (void)cpu;
        (void)want_off;
        if (!pf)
                return ST_BAD_ARG;
        *pf = (struct prefetch_info){ .state = PREFETCH_UNSUPPORTED };
        return ST_OK;
}

status_t prefetch_restore(struct prefetch_info *pf)
{
        (void)pf;
        return ST_OK;
}

const char *prefetch_state_name(enum prefetch_state s)
{
        return s == PREFETCH_UNSUPPORTED ? "unsupported" : "unknown";
}
