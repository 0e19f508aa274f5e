/** @file
 * CPU identification from CPUID: vendor, family/model/stepping, brand, TSC facts, caches,
 * TLBs and PMU capabilities, decoded into one struct cpu_info (boot/cpu_info.h, shared by
 * every architecture); the CPUID records themselves (struct cpuid_dump) are x86's and here.
 *
 * Decoding works on a struct cpuid_dump, a table of (leaf, sub-leaf) -> registers, never on
 * the live CPU, so that recorded dumps of real processors (tests/data/cpuid/) exercise the
 * same code on the host. cpuid_dump_collect() fills a dump from the processor it runs on.
 * Portable: no UEFI types.
 */
#ifndef PMUCAL_CPUID_H
#define PMUCAL_CPUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"
#include "lib/status.h"
#include "boot/cpu_info.h"
#include "boot/x86/msr.h"

#define CPUID_DUMP_MAX 512

struct cpuid_leaf {
        uint32_t          leaf, subleaf;
        struct cpuid_regs r;
};

/** Every (leaf, sub-leaf) the decoder may ask for, as recorded from one logical CPU. */
struct cpuid_dump {
        struct cpuid_leaf leaves[CPUID_DUMP_MAX];
        size_t            n;
};

/** Fill @p d from the processor this runs on: basic leaves 0..max, extended 0x80000000..max,
 *  hypervisor 0x40000000.., and every sub-leaf the decoder needs (4, 7, 0xB, 0x18, 0x1C,
 *  0x1F, 0x23, 0x8000001D, 0x80000026). */
void cpuid_dump_collect(struct cpuid_dump *d);

/** From now on cpuid_dump_collect() copies @p d (a recorded processor: pmucal-host --inventory
 *  --cpuid-dump) instead of reading this CPU; NULL reads this CPU again. @p d must outlive it. */
void cpuid_dump_replay(const struct cpuid_dump *d);
/** True while cpuid_dump_collect() replays a recorded dump: what this CPU's MSRs and clock
 *  say is not about that processor. */
bool cpuid_dump_replaying(void);

/** Read the registers of the @p cpu-th logical processor (0 = the first block) of recorded
 *  CPUID text into @p d: the `cpuid -r` layout and the AIDA64/EVEREST layouts of the
 *  InstLatx64 dumps (boot/x86/cpuid_text.c lists them). @p n_cpus (may be NULL) gets the
 *  number of processor blocks. ST_BAD_DATA for a malformed `cpuid -r` line or `[SL ]` tag, a
 *  repeated (leaf, sub-leaf), more than CPUID_DUMP_MAX entries or no registers at all;
 *  ST_NOT_FOUND when the text has fewer than @p cpu + 1 blocks. */
status_t cpuid_text_parse(const char *text, size_t len, unsigned cpu, struct cpuid_dump *d,
                          unsigned *n_cpus);

/** True when @p d describes a processor of a hybrid part (Intel CPUID.07H:EDX[15]; AMD
 *  heterogeneous cores, CPUID 80000026H.0:EAX[30]); @p core_type gets this core's CPU_CORE_*
 *  (0 when not said). */
bool cpuid_dump_hybrid(const struct cpuid_dump *d, uint8_t *core_type);

/** Look up (leaf, subleaf) in @p d; zeros and false when the dump does not have it. */
bool cpuid_dump_get(const struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
                    struct cpuid_regs *out);

/** True when @p bit is set in @p d (false when the leaf is missing). */
bool cpuid_dump_has(const struct cpuid_dump *d, struct cpuid_bit bit);

/** Decode @p d into @p out. ST_BAD_DATA when leaf 0 is missing; everything else that is
 *  absent is left zero / false. */
status_t cpu_decode(const struct cpuid_dump *d, struct cpu_info *out);

#endif
