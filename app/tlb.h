/** @file
 * The TLB calibration shared by the TLB phases (app/x86/tlb.c: own page tables on x86-64
 * where CR3 can be loaded, else the platform's mapping, as pmucal-host runs it;
 * app/arm64/tlb.c: the firmware's identity map on AArch64): the sweep sizes per profile and
 * page size, the sweeps on the platform's own mapping (app/tlb_platmap.c: mmap + madvise
 * hosted), and the analysis that turns the measured curves into the Caliper-style dtlb/itlb
 * console report, tlb-table.json (schema pmucal.tlb/1, docs/tlb-table.md) and tlb-curve.csv.
 * Portable.
 */
#ifndef PMUCAL_APP_TLB_H
#define PMUCAL_APP_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/config.h"
#include "bench/kernel_tlb.h"
#include "bench/tlb.h"
#include "lib/status.h"
#include "boot/cpu_info.h"
#include "report/rep.h"
#include "report/tlbdetect_out.h"

#define TLBCAL_MAX_CURVES 8
/* A point whose every window was disturbed is measured this many times in all before it is
 * left out: a stall of the host (a hypervisor's or the emulator's, tens of ms) covers all the
 * windows of one try, rarely those of the next. */
#define TLBCAL_POINT_TRIES 3u
/* Where a window cannot mask interrupts (hosted), every N is measured in this many interleaved
 * passes and the point is the median one (app/tlb_platmap.c). */
#define TLBCAL_UNMASKED_PASSES 3u
#define TLBCAL_SEED 0x5eedull /* random visiting order: defeats next-page prefetch */
#define TLBCAL_TABLE_FILE "tlb-table.json"
#define TLBCAL_CURVE_FILE "tlb-curve.csv"

/** One sweep to run: side, page size, PTE layout and the largest N. */
struct tlbcal_sweep {
        enum tlb_side       side;
        uint64_t            page_bytes;
        enum tlb_pte_layout pte;
        uint32_t            max_pages;
        unsigned            steps_per_octave;
};

/** The curves measured so far (points owned here; tlbcal_free releases them). */
struct tlbcal {
        struct tlb_curve      c[TLBCAL_MAX_CURVES];
        size_t                n;
        struct lat_clock_desc clock; /* the TSC rate and core:TSC ratio of the calibration */
};

/** The sweeps of a profile (@p full false: the short quick sweep) into @p out (room for
 *  TLBCAL_MAX_CURVES); count to @p *n. 1 GiB sweeps are listed; the caller skips what the
 *  CPU or platform lacks. */
void tlbcal_sweeps(bool full, struct tlbcal_sweep *out, size_t *n);

/** Keep of the @p *n sweeps in @p sw only those of @p pages' page size (4 KiB or 2 MiB; both
 *  sides); CONFIG_PAGES_AUTO keeps every one. */
void tlbcal_sweeps_keep(enum config_pages pages, struct tlbcal_sweep *sw, size_t *n);

/** The N values of @p s into @p ns (room for TLBDET_MAX_POINTS); count to @p *n. */
status_t tlbcal_ns(const struct tlbcal_sweep *s, uint32_t *ns, size_t *n);

/** Run the sweeps @p sw (@p n_sw of them) on the platform's own mapping, without page tables
 *  of the harness's: each dTLB sweep on one buffer asked with its page size, where the
 *  platform backs it so (N cut down to fit; otherwise a SKIP with the reason); 1 GiB pages,
 *  the one-PTE-per-table-page layout and iTLB sweeps (for the reason @p itlb_why) SKIP. The
 *  curves go to @p t (points owned there), each timed with @p run. ST_OK, or the error that
 *  stopped a sweep (logged). */
status_t tlbcal_run_platform_map(const struct tlbcal_sweep *sw, size_t n_sw,
                                 const struct bench_tlb_run *run, const char *itlb_why,
                                 struct tlbcal *t);

/** Detect levels in every curve of @p t, cross-check with @p cpu (may be NULL), print the
 *  dtlb/itlb report and verdict lines, and build tlb-table.json into @p json and
 *  tlb-curve.csv into @p csv (caller frees both). @p emulated: the CPU is emulated, so a
 *  flat curve is an INFO ("no TLB hierarchy visible"), never a failure. */
status_t tlbcal_finish(const struct tlbcal *t, const struct cpu_info *cpu, bool emulated,
                       struct rep_buf *json, struct rep_buf *csv);

/** Free the points of every curve of @p t. */
void tlbcal_free(struct tlbcal *t);

struct run;
/** The latency table of run @p r (when the latency phase made one) gets the TLB table @p tlb
 *  as its `tlb` member (docs/tlb-table.md), so that one file carries both; tlb-table.json
 *  stays the document of its own. */
void tlbcal_add_to_latency_table(struct run *r, const struct rep_buf *tlb);

/** "4 KiB", "2 MiB", "1 GiB"; never NULL. */
const char *tlbcal_page_name(uint64_t page_bytes);

#endif
