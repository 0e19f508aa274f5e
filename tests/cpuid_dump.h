/** @file
 * Host test helper: load a recorded CPUID dump in the text format of `cpuid -r -1` (Debian
 * package cpuid) into a struct cpuid_dump, so that unit tests decode real processors' CPUID.
 * The recorded dumps live in tests/data/cpuid/ (see the README there). Uses libc.
 */
#ifndef PMUCAL_TESTS_CPUID_DUMP_H
#define PMUCAL_TESTS_CPUID_DUMP_H

/* cpuid.h uses BIT_ULL from plat.h without including it */
#include "boot/plat.h"
#include "boot/x86/cpuid.h"

/** Parse the first CPU block of the `cpuid -r` file at @p path (relative to the repo root,
 *  where tests run) into @p d (caller-owned, overwritten). Lines look like
 *  `   0x00000004 0x01: eax=0x... ebx=0x... ecx=0x... edx=0x...`; blank lines, `#` comments
 *  and the `CPU:` / `CPU 0:` header are skipped, and a second `CPU n:` header ends the block.
 *  ST_NOT_FOUND when the file cannot be opened; ST_BAD_DATA for a malformed register line,
 *  a repeated (leaf, sub-leaf), more than CPUID_DUMP_MAX entries, or no entries at all. */
status_t cpuid_dump_load(const char *path, struct cpuid_dump *d);

/** As cpuid_dump_load() for any layout cpuid_text_parse() reads, and the @p cpu-th processor
 *  block (0 = the first); @p n_cpus (may be NULL) gets the number of blocks. */
status_t cpuid_dump_load_cpu(const char *path, unsigned cpu, struct cpuid_dump *d,
                             unsigned *n_cpus);

/** Remove (leaf, subleaf) from @p d; true when it was there. For tests that corrupt dumps. */
bool cpuid_dump_remove(struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf);

/** Insert or replace (leaf, subleaf) in @p d; ST_NO_SPACE when the dump is full. */
status_t cpuid_dump_put(struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
                        struct cpuid_regs r);

/** A new dump (calloc'd; the caller frees it) holding only leaf 0 with @p vendor (12
 *  characters) and @p max_leaf, and leaf 0x80000000 with @p max_ext when not 0. NULL when
 *  out of memory. For synthetic dumps. */
struct cpuid_dump *cpuid_dump_new(const char *vendor, uint32_t max_leaf, uint32_t max_ext);

/** A recorded dump, tests/data/cpuid/@p file, in a new (malloc'd) dump; NULL when it cannot
 *  be read or parsed. */
struct cpuid_dump *cpuid_dump_load_recorded(const char *file);

/** The first cache of @p ci at @p level of @p type; NULL when there is none. */
const struct cpu_cache *cpu_info_cache(const struct cpu_info *ci, uint8_t level,
                                       enum cpu_cache_type type);

#endif
