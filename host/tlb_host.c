/** @file
 * pmucal-host --tlb: the dTLB calibration under Linux, with 4 KiB pages (MADV_NOHUGEPAGE) and
 * transparent 2 MiB pages (MADV_HUGEPAGE, checked in /proc/self/smaps by the platform), the
 * same kernels and analysis as the firmware phase (app/x86/tlb.c), so the tests measure this
 * machine's real TLBs. Interrupts cannot be masked; the window guard of the kernel drops
 * disturbed windows.
 *
 *     pmucal-host --tlb [--out DIR] [--cpu N] [--quick|--full] [--page 4k|2m|both]
 *
 * (options: host/host_args.c). Writes DIR/tlb-table.json and DIR/tlb-curve.csv and prints the
 * dtlb report. Exit status 0, or 1 on a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/tlb.h"
#include "host/arch.h"
#include "host/host.h"
#include "host/host_args.h"
#include "report/json.h"

#include "bench/kernel_tlb.h"
#include "boot/linux/linux_plat.h"

#define MIN_ACCESSES 20000u
#define N_WINDOWS    11u
#define SEED         0x5eedull
#define HOST_TLB_PASSES 3u /* interleaved passes over the N values */

/* The hosted sweeps: 4 KiB to 8192 pages (past Zen 4's 3072-entry L2 dTLB), 2 MiB to 1024
 * (the platform touches every 4 KiB of the window, so memory = N x 2 MiB: 2 GiB full, 512 MiB
 * quick). Going on to 32768 4 KiB pages was tried to let the walk plateau settle: on this
 * repository's VM the points past about 9000 pages cost hundreds to thousands of ticks per
 * access at random (nested paging, a shared L3) and broke the level detection. */
static const struct tlbcal_sweep host_sweeps[2][2] = {
        /* quick */
        { { TLB_SIDE_DATA, 4 * KiB, TLB_PTE_NEAR, 1024, 4 },
          { TLB_SIDE_DATA, 2 * MiB, TLB_PTE_NEAR, 256, 4 } },
        /* full */
        { { TLB_SIDE_DATA, 4 * KiB, TLB_PTE_NEAR, 8192, 8 },
          { TLB_SIDE_DATA, 2 * MiB, TLB_PTE_NEAR, 1024, 8 } },
};

static status_t console_sink(void *ctx, const char *s, size_t n)
{
        (void)ctx;
        fwrite(s, 1, n, stdout);
        return ST_OK;
}

/* The try whose p50 is the median of the @p n (1..3) tries of one N. */
static const struct tlb_point *median_try(const struct tlb_point *t, size_t n)
{
        if (n < 3)
                return &t[n - 1]; /* two: the later; one: it */
        uint64_t a = t[0].p50_mcyc, b = t[1].p50_mcyc, d = t[2].p50_mcyc;
        return (a <= b) == (b <= d) ? &t[1] : (b <= a) == (a <= d) ? &t[0] : &t[2];
}

/* Every N of the sweep in HOST_TLB_PASSES interleaved passes (odd ones backwards), each a
 * full measurement of its own; a point is the pass whose p50 is the median of the passes',
 * so that a busy stretch of the shared machine falls on one pass of many points, not on
 * every window of a run of neighbouring points (which reads as a TLB level). */
static status_t measure_passes(uint8_t *win, uint64_t span, void *ctl, struct bench_tlb_cfg *cfg,
                               const struct bench_tlb_run *run, const uint32_t *ns, size_t n,
                               const struct tlbcal_sweep *s, struct tlb_curve *c)
{
        struct tlb_point (*tries)[HOST_TLB_PASSES] = calloc(n ? n : 1, sizeof(*tries));
        uint8_t          *got   = calloc(n ? n : 1, 1);
        status_t          st    = tries && got ? ST_OK : ST_NO_MEM;

        for (unsigned pass = 0; pass < HOST_TLB_PASSES && st == ST_OK; pass++)
                for (size_t k = 0; k < n && st == ST_OK; k++) {
                        size_t i = pass & 1 ? n - 1 - k : k;
                        cfg->n_pages = ns[i];
                        st = bench_dtlb_measure(win, span, ctl, 2 * MiB, cfg, run,
                                                &tries[i][got[i]]);
                        if (st == ST_OK)
                                got[i]++;
                        else if (st == ST_DISTURBED)
                                st = ST_OK; /* every window of this try disturbed: the others */
                        else
                                rep_err(st, "dtlb %s N=%u", tlbcal_page_name(s->page_bytes), ns[i]);
                }
        for (size_t i = 0; i < n && st == ST_OK; i++)
                if (got[i])
                        c->pts[c->n++] = *median_try(tries[i], got[i]);
                else
                        c->n_left_out++;
        free(tries);
        free(got);
        return st;
}

static status_t host_sweep(const struct tlbcal_sweep *s, struct tlb_curve *c)
{
        struct bench_tlb_cfg cfg = { .page_bytes = s->page_bytes, .n_pages = s->max_pages,
                                     .pte = s->pte, .seed = SEED };
        struct bench_tlb_run run = { .n_windows = N_WINDOWS, .min_accesses = MIN_ACCESSES };
        enum plat_page_kind  got;
        uint32_t             ns[TLBDET_MAX_POINTS];
        size_t               n;
        uint64_t             span;
        void                *win = NULL, *ctl = NULL;
        status_t             st;

        if ((st = tlbcal_ns(s, ns, &n)) != ST_OK || (st = bench_tlb_span(&cfg, &span)) != ST_OK)
                return st;
        if ((st = plat_alloc_pages(span, s->page_bytes == 4 * KiB ? PLAT_PAGE_4K : PLAT_PAGE_2M,
                                   &win, &got)) != ST_OK)
                return rep_err(st, "allocating %llu MiB for the %s window",
                               (unsigned long long)(span >> 20), tlbcal_page_name(s->page_bytes));
        if (s->page_bytes == 2 * MiB && got != PLAT_PAGE_2M) {
                rep_skip(REP_SKIP_ENV, "dtlb 2 MiB: transparent huge pages backed only %u per "
                         "mille of the "
                         "window (/sys/kernel/mm/transparent_hugepage/enabled?)",
                         linux_plat_last_huge_permille());
                plat_free_pages(win, span);
                return ST_UNSUPPORTED;
        }
        if ((st = plat_alloc_pages(2 * MiB, PLAT_PAGE_2M, &ctl, NULL)) != ST_OK) {
                plat_free_pages(win, span);
                return rep_err(st, "allocating the control buffer");
        }
        *c = (struct tlb_curve){ .side = s->side, .pte = s->pte, .page_bytes = s->page_bytes,
                                 .clock = LAT_CLOCK_TSC, .pts = calloc(n, sizeof(*c->pts)),
                                 .passes = HOST_TLB_PASSES };
        st = c->pts ? measure_passes(win, span, ctl, &cfg, &run, ns, n, s, c) : ST_NO_MEM;
        rep_check(st == ST_OK && c->n > 0,
                  "dtlb %s: %zu of %zu points measured (%u left out because every window of "
                  "every pass was disturbed), each the median of %u interleaved passes, every "
                  "chase returned to its start", tlbcal_page_name(s->page_bytes), c->n, n,
                  c->n_left_out, HOST_TLB_PASSES);
        plat_free_pages(win, span);
        plat_free_pages(ctl, 2 * MiB);
        return st;
}

/* A latency table in the same folder (pmucal-host --out DIR, then --tlb --out DIR) gets this
 * TLB table as its `tlb` member, as the firmware's does. */
static void add_to_latency_table(const char *out, const struct rep_buf *tlb)
{
        char          *text = NULL;
        size_t         len  = 0;
        struct rep_buf doc  = { 0 };
        status_t       st;

        if (plat_file_read("latency-table.json", &text, &len) != ST_OK)
                return;
        rep_buf_append(&doc, text, len);
        plat_free(text);
        st = json_doc_set_member(&doc, "tlb", tlb->p, tlb->len);
        if (st == ST_OK && !doc.oom)
                st = plat_file_write("latency-table.json", doc.p, doc.len);
        if (st != ST_OK)
                rep_err(st, "adding the tlb member to %s/latency-table.json", out);
        else
                rep_info("added the TLB table to %s/latency-table.json as its tlb member", out);
        rep_buf_free(&doc);
}

int host_tlb_main(const struct host_opts *o)
{
        static struct cpu_info   cpu;
        static struct tlbcal     t;
        const char              *out = o->out;
        unsigned                 cpu_no = o->cpu, pages = o->tlb_pages;
        bool                     full = o->full;
        struct rep_buf           json = { 0 }, csv = { 0 };
        status_t                 st;

        rep_add_sink((struct rep_sink){ .write = console_sink });
        if ((st = linux_plat_pin_cpu(cpu_no)) != ST_OK) {
                rep_err(st, "pinning to CPU %u", cpu_no);
                return 1;
        }
        if ((st = host_cpu_identify(&cpu)) != ST_OK) {
                rep_err(st, "decoding CPUID");
                return 1;
        }
        rep_info("pmucal-host --tlb on %s: %s, CPU %u, %s sweep", plat_info()->name, cpu.brand,
                 cpu_no, full ? "full" : "quick");
        struct bench_clock     clk;
        struct bench_core_span sp;
        bench_clock_init(&clk, &cpu, 5000, &(struct bench_guard){ .steal_count =
                                                                  linux_plat_ctx_switches });
        if (!clk.core.name && plat_info()->core_cycles)
                clk.core = (struct bench_core_src){ .name = plat_info()->core_cycles_name,
                                                    .read = plat_info()->core_cycles };
        bench_core_span_begin(&clk.core, &sp);
        rep_push("tlb");
        for (unsigned k = 0; k < 2; k++) {
                if (!(pages & (1u << k)))
                        continue;
                st = host_sweep(&host_sweeps[full][k], &t.c[t.n]);
                if (st == ST_OK)
                        t.n++;
                else if (st != ST_UNSUPPORTED)
                        break;
                else
                        st = ST_OK;
        }
        t.clock = (struct lat_clock_desc){ .tsc_hz = clk.tsc_hz,
                                           .core_ppm = bench_core_span_end(&clk.core, &sp),
                                           .core_source = clk.core.name,
                                           .core_why = clk.core.why_none };
        if (!t.clock.core_ppm && clk.core.name)
                t.clock.core_why = "the core clock source gave no usable ratio";
        if (t.n && tlbcal_finish(&t, &cpu, false, &json, &csv) == ST_OK) {
                add_to_latency_table(out, &json);
                status_t a = plat_file_write(TLBCAL_TABLE_FILE, json.p, json.len);
                status_t b = plat_file_write(TLBCAL_CURVE_FILE, csv.p, csv.len);
                if (a != ST_OK || b != ST_OK)
                        st = rep_err(a != ST_OK ? a : b, "writing the TLB files under %s", out);
                else
                        rep_info("wrote %s/%s and %s/%s", out, TLBCAL_TABLE_FILE, out,
                                 TLBCAL_CURVE_FILE);
        }
        rep_pop();
        rep_buf_free(&json);
        rep_buf_free(&csv);
        for (size_t i = 0; i < t.n; i++)
                free(t.c[i].pts);
        int code = rep_summary();
        if (st == ST_OK && t.n)
                rep_printf("RESULTS: saved to %s\n", out);
        else
                rep_printf("RESULTS NOT SAVED: %s\n", st != ST_OK ? status_str(st)
                                                                : "no TLB curve was measured");
        return st != ST_OK ? 1 : code == 1 ? 1 : 0;
}
