/** @file
 * The harness's own page tables for a measurement, the interface every architecture
 * implements (bench/x86/ownpt.c, bench/arm64/ownpt.c), and the one header through which
 * shared code reaches bench/'s architecture folders. Built the same way by the TLB phase
 * (app/x86/tlb.c), the PMU suite's dTLB check (app/pmu_validate_mem.c) and the latency
 * sweep's `latency_pages` (app/latency_pages.c): an identity map of everything the platform's
 * memory map describes, plus the address-space holes below 4 GiB as uncached (MMIO the map
 * leaves out stays reachable), with the largest pages that fit (up to 1 GiB) except over one
 * optional "fine" buffer, which is identity-mapped with 4 KiB pages so that a page-stride
 * chase over it misses the dTLB whatever pages the firmware used (or with 2 MiB pages,
 * bench_ownpt_build_pages: the latency sweep's `latency_pages = 2m`).
 *
 * x86-64 builds 4-level tables (bench/x86/pagetable.h). AArch64 has no own-table path: it
 * builds nothing, says why (bench_ownpt_absent_why), and the firmware's translation tables
 * stay loaded.
 *
 * Table pages come from plat_alloc_pages in 1 MiB chunks (identity-mapped under UEFI, so
 * pa = va). Nothing here switches CR3: the caller loads bench_ownpt_root_pa with
 * cpu_page_tables_load inside a window with interrupts masked and restores it before the
 * window ends; nothing may allocate or print while the tables are loaded.
 */
#ifndef PMUCAL_BENCH_OWNPT_H
#define PMUCAL_BENCH_OWNPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/cpu_info.h"
#include "lib/base.h"
#include "lib/status.h"

#if defined(__x86_64__)
#include "bench/x86/ownpt_types.h"
#elif defined(__aarch64__)
#include "bench/arm64/ownpt_types.h"
#else
#error "pmucal is built for x86-64 and AArch64 only"
#endif

/* The page sizes a fine buffer is mapped with, and the largest the map uses. */
#define BENCH_OWNPT_4K (4ull * KiB)
#define BENCH_OWNPT_2M (2ull * MiB)
#define BENCH_OWNPT_1G (1ull * GiB)

/** NULL where this architecture builds its own tables; else why it does not, for a SKIP or
 *  method line. */
const char *bench_ownpt_absent_why(void);

/** Build @p o for @p cpu (x86-64: 1 GiB pages and MAXPHYADDR from CPUID): the identity map
 *  described above, with [@p fine, @p fine + @p fine_bytes) mapped by 4 KiB pages (NULL / 0:
 *  none; else 4 KiB-aligned, and identity: plat_virt_to_phys(fine) == fine). Logs its own
 *  errors (log_err); ST_UNSUPPORTED, unlogged, when the platform has no memory map or the
 *  architecture no own tables (bench_ownpt_absent_why). Call bench_ownpt_free afterwards
 *  whatever it returned. */
status_t bench_ownpt_build(struct bench_ownpt *o, const struct cpu_info *cpu, const void *fine,
                           uint64_t fine_bytes);

/** As bench_ownpt_build, with the buffer mapped by pages of @p page_bytes (BENCH_OWNPT_4K or
 *  BENCH_OWNPT_2M; @p fine and @p fine_bytes aligned to it): 2 MiB pages for a buffer the
 *  firmware maps with 4 KiB pages, 4 KiB pages for one it maps with larger ones. */
status_t bench_ownpt_build_pages(struct bench_ownpt *o, const struct cpu_info *cpu,
                                 const void *fine, uint64_t fine_bytes, uint64_t page_bytes);

/** Free the table pages of @p o (safe on a zeroed or half-built struct). */
void bench_ownpt_free(struct bench_ownpt *o);

/** Walk every 4 KiB page of [@p buf, @p buf + @p bytes) with the software walker: each must
 *  map to itself with a 4 KiB writable, executable, supervisor page. The pages checked go to
 *  @p *n_walked; ST_BAD_DATA at the first that does not. */
status_t bench_ownpt_check_4k(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                              uint64_t *n_walked);

/** Walk every page of [@p buf, @p buf + @p bytes) as mapped by bench_ownpt_build_pages with
 *  @p page_bytes pages: each must map to itself with a page of that size, writable, executable,
 *  supervisor. The pages checked go to @p *n_walked; ST_BAD_DATA at the first that does not,
 *  ST_BAD_ARG for a page size other than BENCH_OWNPT_4K or BENCH_OWNPT_2M. */
status_t bench_ownpt_check(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                           uint64_t page_bytes, uint64_t *n_walked);

/** True when each of the @p n addresses in @p va (code, stack, data the window touches)
 *  translates to itself in @p o. */
bool bench_ownpt_identity_ok(const struct bench_ownpt *o, const uintptr_t *va, size_t n);

/** The physical address of the root table of @p o, for cpu_page_tables_load (0: none). */
uint64_t bench_ownpt_root_pa(const struct bench_ownpt *o);

/** Table pages @p o holds (0: nothing built). */
uint32_t bench_ownpt_n_table_pages(const struct bench_ownpt *o);

#endif
