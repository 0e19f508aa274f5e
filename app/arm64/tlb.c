/** @file
 * The TLB phase on AArch64: the dTLB sweeps of app/tlb.h run on the firmware's identity map,
 * not on page tables of the harness's own (those are x86-64 4-level tables loaded into CR3,
 * app/x86/tlb.c). Each sweep gets one buffer spanning its largest N, asked of the platform with
 * the sweep's page size; the sweep runs only where the firmware's translation tables really
 * map the buffer with that size (TTBR0_ELx of the level the harness runs at, walked by the
 * platform: 4 KiB granule, 2 MiB
 * blocks at level 2), with N cut down, halving, to the largest buffer so mapped, and says why
 * not otherwise (AAVMF maps every buffer a quick sweep asks for with 4 KiB pages, so its
 * 2 MiB sweep SKIPs). What the identity map cannot give is SKIPped with its reason: 1 GiB pages (a 1 GiB-aligned block per page), PTE layouts spaced
 * 512 pages apart (2 MiB of memory per page), and the iTLB sweep (its jump chain is x86-64
 * machine code, bench_itlb_gen). Windows mask interrupts (DAIF) and are timed with the
 * generic timer; the core clock is the PMU's cycle counter where it exists.
 */
#include "app/run.h"

#include "app/latency_clock.h"
#include "app/tlb.h"
#include "bench/kernel_tlb.h"
#include "boot/cpu.h"
#include "report/inventory.h"

#define CLOCK_CALIB_US 1000u
#define SEED           0x5eedull /* the x86-64 phase's visiting order */
#define N_WINDOWS      11u
/* Accesses per L-lap run: the generic timer may tick only every 16 ns or more (QEMU: 62.5
 * MHz), so a run lasts a thousand ticks or more even at one access per ns. */
#define MIN_ACCESSES   20000u
#define MIN_PAGES      16u       /* a sweep shorter than this shows no TLB level */

/* The MIDR implementer 0x00 is "reserved for software use": QEMU's -cpu max under TCG. */
static bool is_emulated(const struct cpu_info *cpu)
{
        return cpu->vendor == VEN_ARM && cpu->family == 0;
}

static enum plat_page_kind page_kind(uint64_t page_bytes)
{
        return page_bytes == (2ull * MiB) ? PLAT_PAGE_2M : PLAT_PAGE_4K;
}

static uint64_t kind_bytes(enum plat_page_kind k)
{
        return k == PLAT_PAGE_1G ? (1ull * GiB) : k == PLAT_PAGE_2M ? (2ull * MiB) : (4ull * KiB);
}

/* Why sweep @p s cannot run on the identity map; NULL when it can be tried. */
static const char *cannot_run(const struct tlbcal_sweep *s)
{
        if (s->side == TLB_SIDE_INST)
                return "the iTLB jump chain is x86-64 machine code (bench_itlb_gen); an A64 "
                       "chain of B instructions is not written yet";
        if (s->page_bytes == (1ull * GiB))
                return "1 GiB pages: the firmware's identity map has no 1 GiB blocks to spare "
                       "for N pages, and the harness's own translation tables are x86-64 only";
        if (s->pte == TLB_PTE_PAGE)
                return "PTE layout one per table page needs 2 MiB of memory per 4 KiB page "
                       "without the harness's own tables to alias them";
        return NULL;
}

/* A buffer for sweep @p s the firmware maps with its page size: the largest N from
 * s->max_pages down to MIN_PAGES, halving, whose buffer can be had and is so mapped (N pages
 * of 2 MiB need N x 2 MiB of memory without the harness's own tables to alias them). On ST_OK
 * *@p n_max, *@p buf and *@p span describe it; otherwise the SKIP line is printed. */
static status_t find_buffer(const struct tlbcal_sweep *s, uint32_t *n_max, void **buf,
                            uint64_t *span)
{
        enum plat_page_kind got = PLAT_PAGE_4K;
        status_t            st  = ST_OK;

        for (uint32_t n = s->max_pages; n >= MIN_PAGES; n /= 2) {
                struct bench_tlb_cfg big = { .page_bytes = s->page_bytes, .n_pages = n,
                                             .pte = s->pte };
                if ((st = bench_tlb_span(&big, span)) != ST_OK)
                        return st;
                if ((st = plat_alloc_pages(*span, page_kind(s->page_bytes), buf, &got)) != ST_OK)
                        continue;
                if (got == page_kind(s->page_bytes)) {
                        *n_max = n;
                        return ST_OK;
                }
                plat_free_pages(*buf, *span);
        }
        if (st != ST_OK)
                rep_skip(REP_SKIP_ENV, "%s %s %s: no buffer of %u pages or more "
                         "(%s)", bench_tlb_side_name(s->side),
                         tlbcal_page_name(s->page_bytes), bench_tlb_pte_layout_name(s->pte),
                         MIN_PAGES, status_str(st));
        else
                rep_skip(REP_SKIP_ENV, "%s %s %s: the firmware maps every buffer of %u to %u "
                         "pages with %s "
                         "pages, not %s", bench_tlb_side_name(s->side),
                         tlbcal_page_name(s->page_bytes), bench_tlb_pte_layout_name(s->pte),
                         MIN_PAGES, s->max_pages, tlbcal_page_name(kind_bytes(got)),
                         tlbcal_page_name(s->page_bytes));
        return ST_UNSUPPORTED;
}

/* Run sweep @p s into @p c on a buffer the firmware maps with s->page_bytes. */
static status_t sweep(const struct tlbcal_sweep *s, uint8_t *ctl, uint64_t ctl_bytes,
                      const struct bench_tlb_run *run, struct tlb_curve *c)
{
        struct tlbcal_sweep  got_sw = *s;
        uint32_t             ns[TLBDET_MAX_POINTS];
        size_t               n;
        uint64_t             span;
        void                *buf = NULL;
        status_t             st;

        if ((st = find_buffer(s, &got_sw.max_pages, &buf, &span)) != ST_OK)
                return st;
        if (got_sw.max_pages < s->max_pages)
                rep_info("%s %s %s: N up to %u, not %u: the largest buffer the firmware maps "
                         "with %s pages", bench_tlb_side_name(s->side), tlbcal_page_name(s->page_bytes),
                         bench_tlb_pte_layout_name(s->pte), got_sw.max_pages, s->max_pages,
                         tlbcal_page_name(s->page_bytes));
        if ((st = tlbcal_ns(&got_sw, ns, &n)) != ST_OK) {
                plat_free_pages(buf, span);
                return st;
        }
        if (!(c->pts = plat_alloc(n * sizeof(*c->pts)))) {
                plat_free_pages(buf, span);
                return ST_NO_MEM;
        }
        *c = (struct tlb_curve){ .pts = c->pts, .side = s->side, .pte = s->pte,
                                 .page_bytes = s->page_bytes, .clock = LAT_CLOCK_TSC };
        for (size_t i = 0; i < n && st == ST_OK; i++) {
                struct bench_tlb_cfg cfg = { .page_bytes = s->page_bytes, .n_pages = ns[i],
                                             .pte = s->pte, .seed = SEED };
                st = ST_DISTURBED;
                for (unsigned t = 0; t < TLBCAL_POINT_TRIES && st == ST_DISTURBED; t++)
                        st = bench_dtlb_measure(buf, span, ctl, ctl_bytes, &cfg, run,
                                                &c->pts[c->n]);
                if (st == ST_OK) {
                        c->n++;
                } else if (st == ST_DISTURBED) { /* every window disturbed: left out */
                        c->n_left_out++;
                        st = ST_OK;
                } else {
                        rep_err(st, "%s %s N=%u", bench_tlb_side_name(s->side),
                                tlbcal_page_name(s->page_bytes), ns[i]);
                }
        }
        plat_free_pages(buf, span);
        return st;
}

/* Every sweep of the profile that the identity map allows, into @p t. */
static status_t run_sweeps(const struct run *r, uint8_t *ctl, uint64_t ctl_bytes,
                           struct tlbcal *t)
{
        struct tlbcal_sweep  sw[TLBCAL_MAX_CURVES];
        size_t               n_sw;
        struct bench_tlb_run run = { .n_windows = N_WINDOWS, .min_accesses = MIN_ACCESSES };
        status_t             st = ST_OK;

        tlbcal_sweeps(r->cfg.profile != CONFIG_PROFILE_QUICK, sw, &n_sw);
        for (size_t i = 0; i < n_sw && st == ST_OK; i++) {
                const char *why = cannot_run(&sw[i]);
                if (why) {
                        rep_skip(REP_SKIP_ENV, "%s %s %s: %s", bench_tlb_side_name(sw[i].side),
                                 tlbcal_page_name(sw[i].page_bytes),
                                 bench_tlb_pte_layout_name(sw[i].pte), why);
                        continue;
                }
                struct tlb_curve *c = &t->c[t->n];
                *c = (struct tlb_curve){ 0 };
                st = sweep(&sw[i], ctl, ctl_bytes, &run, c);
                if (c->pts)
                        t->n++;
                if (st == ST_UNSUPPORTED)
                        st = ST_OK; /* said why; the other sweeps still run */
        }
        return st;
}

status_t phase_tlb(struct run *r)
{
        static struct tlbcal        t;
        static struct lat_clock_pmu pc;
        struct bench_clock          clk;
        struct bench_core_span      sp;
        struct rep_buf              json = { 0 }, csv = { 0 };
        uint8_t                    *ctl = NULL;
        const uint64_t              ctl_bytes = 2 * MiB; /* control: n_pages lines, N <= 32768 */
        status_t                    st;

        if (!r->inv || r->inv->cpu_st != ST_OK) {
                rep_skip(REP_SKIP_ENV, "no CPU inventory");
                return ST_UNSUPPORTED;
        }
        const struct cpu_info *cpu = &r->inv->cpu;
        uint64_t               t0  = bench_timer_now();

        if ((st = plat_alloc_pages(ctl_bytes, PLAT_PAGE_4K, (void **)&ctl, NULL)) != ST_OK)
                return rep_err(st, "allocating the TLB control buffer");
        rep_info("page tables: the firmware's identity map (TTBR0_EL%u), as it maps each "
                 "buffer; the harness's own translation tables are x86-64 only",
                 r->inv->arm64.current_el ? r->inv->arm64.current_el : 1u);
        t = (struct tlbcal){ 0 };
        bench_clock_init(&clk, cpu, CLOCK_CALIB_US, NULL);
        lat_clock_pmu_begin(&pc, &clk, cpu);
        bench_core_span_begin(&clk.core, &sp);
        st = run_sweeps(r, ctl, ctl_bytes, &t);
        t.clock = (struct lat_clock_desc){ .tsc_hz = r->inv->tsc_hz ? r->inv->tsc_hz : clk.tsc_hz,
                                           .core_ppm = bench_core_span_end(&clk.core, &sp),
                                           .core_source = clk.core.name,
                                           .core_why = clk.core.why_none };
        if (!t.clock.core_ppm && clk.core.name)
                t.clock.core_why = "the core clock source gave no usable ratio";
        lat_clock_pmu_end(&pc);
        plat_free_pages(ctl, ctl_bytes);

        if (!t.n) {
                rep_skip(REP_SKIP_ENV, "no dTLB sweep could run on the firmware's identity map");
        } else if (tlbcal_finish(&t, cpu, is_emulated(cpu), &json, &csv) == ST_OK) {
                tlbcal_add_to_latency_table(r, &json);
                run_add_file(r, TLBCAL_TABLE_FILE, &json);
                run_add_file(r, TLBCAL_CURVE_FILE, &csv);
        }
        rep_buf_free(&json);
        rep_buf_free(&csv);
        tlbcal_free(&t);
        if (t.clock.tsc_hz)
                rep_info("TLB calibration took %llu ms (%s sweep, generic timer)",
                         (unsigned long long)((bench_timer_now() - t0) * 1000 / t.clock.tsc_hz),
                         r->cfg.profile == CONFIG_PROFILE_QUICK ? "quick" : "full");
        return st != ST_OK ? st : t.n ? ST_OK : ST_UNSUPPORTED;
}
