/** @file
 * Hardware prefetcher control for the calibration: where the CPU has a documented
 * prefetcher-control MSR (Intel MSR_MISC_FEATURE_CONTROL 0x1A4, AMD Zen PrefetchControl
 * 0xC0000108; numbers and bits in boot/x86/msr_misc.h) the sweep can run with the prefetchers off and restore them afterwards. Which
 * models document which bits is a const table in prefetch.c, one source per row; everything
 * else is "unsupported" and the table says so. Implemented per architecture: boot/x86/prefetch.c,
 * boot/arm64/prefetch.c (no control: always "unsupported").
 */
#ifndef PMUCAL_BENCH_PREFETCH_H
#define PMUCAL_BENCH_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/cpu_info.h"

enum prefetch_state {
        PREFETCH_UNSUPPORTED = 0, /* no documented control for this CPU (prefetchers as found) */
        PREFETCH_LEFT_ON,         /* documented, but the config asked to leave them on */
        PREFETCH_DISABLED,        /* switched off for the sweep (restore pending/done) */
        PREFETCH_FAILED,          /* documented, but the MSR faulted or is not reachable */
};

/** What was done to the prefetchers, for the method section of the table. */
struct prefetch_info {
        enum prefetch_state state;
        uint32_t            msr;       /* 0 when unsupported */
        uint64_t            saved;     /* value before the sweep */
        uint64_t            disable_mask;
        const char         *source;    /* citation of the table row used; NULL if none */
        status_t            why;       /* status of the MSR access when FAILED */
};

/** The disable mask documented for @p cpu and its source; false when there is none. */
bool prefetch_lookup(const struct cpu_info *cpu, uint32_t *msr, uint64_t *mask,
                           const char **source);

/** When @p want_off and the CPU is documented: save the MSR, set the disable bits (only when
 *  not already set) and record what was done in @p pf. Never fails the sweep: a fault is
 *  recorded as PREFETCH_FAILED and ST_OK returned. */
status_t prefetch_disable(const struct cpu_info *cpu, bool want_off,
                                struct prefetch_info *pf);

/** Put the saved value back if prefetch_disable changed it. */
status_t prefetch_restore(struct prefetch_info *pf);

/** "unsupported", "on", "off", "failed"; never NULL. */
const char *prefetch_state_name(enum prefetch_state s);

#endif
