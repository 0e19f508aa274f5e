/** @file
 * The page size of the latency calibration's buffer (config `latency_pages`). `auto` keeps the
 * profile's request and whatever the firmware's identity map gives (under OVMF a buffer asked
 * with 4 KiB pages is 2 MiB-mapped), and the table says so. `4k` or `2m` asks for that size;
 * where the platform backed the buffer with another, the buffer is mapped again, with the
 * size asked, in the harness's own page tables (bench/ownpt.h: the firmware's memory map
 * identity-mapped, the buffer carved out), every page is checked with the software walker,
 * and CR3 holds those tables only inside each measurement window (bench_window_hooks:
 * interrupts masked, the firmware's CR3 loaded again and read back before the window ends,
 * nothing allocated or printed in between). Where CR3 cannot be loaded (hosted, unit tests)
 * or there is no memory map, the firmware's mapping is kept and the method line says why.
 * Portable.
 */
#ifndef PMUCAL_APP_LATENCY_PAGES_H
#define PMUCAL_APP_LATENCY_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/measure.h"
#include "bench/ownpt.h"
#include "app/config.h"

/** The own mapping of one sweep's buffer; zero it before use, lat_pages_free it after. Must
 *  not move once lat_pages_remap has built it. */
struct lat_pages {
        struct bench_ownpt     own;
        const struct cpu_info *cpu;        /* set by the caller: CPUID for the tables */
        bool                   tried;      /* lat_pages_remap ran */
        bool                   built;      /* tables built (own holds table pages) */
        bool                   checked;    /* the self-check ran (result in check_ok) */
        bool                   check_ok;   /* every page walked right, harness addresses
                                              identity-mapped */
        bool                   flush;      /* CR4.PGE/PCIDE: flush all after each switch */
        uint64_t               page_bytes; /* the size mapped (BENCH_OWNPT_4K or _2M) */
        uint64_t               n_pages, n_walked, n_probes;
        uint64_t               saved_cr3;
        uint32_t               n_windows;  /* windows that ran under the own tables */
        uint32_t               n_cr3_bad;  /* ... after which CR3 did not read back */
        const char            *why;        /* when not used: the reason, for the method line */
};

/** Pure: the page size the sweep asks for, from the config value @p want and the profile's
 *  own choice @p profile_page (used for CONFIG_PAGES_AUTO and unknown values). */
enum plat_page_kind lat_pages_choose(enum config_pages want, enum plat_page_kind profile_page);

/** The bench_remap_fn of the latency sweep; @p ctx is a struct lat_pages. Builds the own
 *  tables with @p want pages over [@p buf, @p buf + @p bytes), runs the self-check and proves
 *  a CR3 load once; on ST_OK fills @p hooks (switch inside each window). Otherwise the reason
 *  is kept in lp->why and the sweep keeps the firmware's mapping. */
status_t lat_pages_remap(void *ctx, void *buf, uint64_t bytes, enum plat_page_kind want,
                         enum plat_page_kind got, struct bench_window_hooks *hooks);

/** Print the method's "pages:" line for a sweep run with @p cfg that ended with @p in: the
 *  size asked, what the firmware gave, the size really used and whose page tables. */
void lat_pages_method(const struct lat_pages *lp, const struct bench_sweep_cfg *cfg,
                      const struct bench_sweep_info *in);

/** The verdicts when own tables were built: the self-check (every page of the buffer walked:
 *  right address and size) and the firmware's CR3 restored after every window. */
void lat_pages_checks(const struct lat_pages *lp);

/** What the table's method.page_tables says: "harness page tables" when the windows ran under
 *  them, else "firmware identity map". Never NULL. */
const char *lat_pages_tables_name(const struct bench_sweep_info *in);

/** Free the own tables (safe on a zeroed struct, and twice). */
void lat_pages_free(struct lat_pages *lp);

#endif
