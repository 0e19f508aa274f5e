/** @file
 * LFENCE as the TSC reads assume it (rdtsc_ordered: "lfence; rdtsc; lfence"): dispatch-
 * serializing. Intel's LFENCE always is [SDM-2A] LFENCE; AMD's is when CPUID 8000_0021H
 * EAX[2] says so, or when DE_CFG[1] (MSR 0xC0011029) is set, which Linux init_amd() does on
 * every AMD CPU and firmware may not. x86_lfence_serialize() checks, sets the bit where needed
 * and remembers what it found; x86_lfence_restore() puts the MSR back. Portable (MSR access
 * through boot/x86/msr.h's safe accessors).
 */
#ifndef PMUCAL_BOOT_X86_LFENCE_H
#define PMUCAL_BOOT_X86_LFENCE_H

#include "boot/x86/cpuid.h"

enum x86_lfence_how {
        LFENCE_ARCH = 0,       /* not AMD/Hygon: LFENCE is dispatch-serializing by definition */
        LFENCE_CPUID,          /* CPUID 8000_0021H EAX[2]: always serializing */
        LFENCE_DE_CFG_FOUND,   /* DE_CFG[1] was set already (firmware or the OS) */
        LFENCE_DE_CFG_SET,     /* pmucal set DE_CFG[1]; x86_lfence_restore() clears it */
        LFENCE_NOT_SERIALIZING /* DE_CFG could not be read or set: TSC reads may be early */
};

struct x86_lfence {
        enum x86_lfence_how how;
        uint64_t            saved; /* DE_CFG as found (LFENCE_DE_CFG_*) */
        status_t            st;    /* of the failed access (LFENCE_NOT_SERIALIZING) */
        bool                restored;
};

/** On the calling CPU: make LFENCE dispatch-serializing where @p ci says it may not be, as
 *  Linux init_amd() does; @p s records how. ST_OK when LFENCE serializes afterwards. */
status_t x86_lfence_serialize(const struct cpu_info *ci, struct x86_lfence *s);

/** On the same CPU: put DE_CFG back when x86_lfence_serialize() changed it. Idempotent. */
void x86_lfence_restore(struct x86_lfence *s);

/** One line for the report: how LFENCE orders the TSC reads on this CPU. */
const char *x86_lfence_how_text(const struct x86_lfence *s);

#endif
