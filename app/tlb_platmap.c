/** @file
 * The TLB sweeps on the platform's own mapping (see app/tlb.h, tlbcal_run_platform_map): the
 * path of a TLB phase whose harness cannot put page tables of its own under the buffers
 * (AArch64, app/arm64/tlb.c; x86-64 where CR3 cannot be loaded or there is no memory map to
 * build them from, app/x86/tlb.c: the hosted build). Each sweep gets one buffer spanning its
 * largest N, asked of the platform with the sweep's page size, and runs only where the
 * platform really backs the buffer with that size (plat_alloc_pages' *got: the firmware's
 * identity map as its translation tables say, Linux's transparent huge pages as
 * /proc/self/smaps counts them), N cut down, halving, to the largest buffer so mapped and no
 * larger than an eighth of the free memory the platform reports. Without the own tables'
 * aliasing, N pages of 1 GiB need N GiB and the one-PTE-per-table-page layout 2 MiB per page:
 * those sweeps SKIP with the reason, and so does the iTLB sweep, for the caller's reason.
 *
 * Where a window cannot mask interrupts (hosted), each N is measured in
 * TLBCAL_UNMASKED_PASSES interleaved passes over the curve (odd ones backwards) and the point
 * is the pass whose p50 is the median of its passes': a busy stretch of a shared machine then
 * falls on one pass of many points, not on every window of a run of neighbouring points, which
 * would read as a TLB level. Where windows mask interrupts, one pass, a point disturbed in
 * every window tried again up to TLBCAL_POINT_TRIES times.
 */
#include "app/tlb.h"

#include "app/latency_pages.h"
#include "bench/kernel_tlb.h"
#include "boot/cpu.h"
#include "boot/plat.h"

#define MIN_PAGES 16u        /* a sweep shorter than this shows no TLB level */
#define MEM_SHARE 8u         /* a buffer takes at most this fraction of the free memory */
#define CTL_BYTES (2 * MiB)  /* the control: n_pages lines, N <= 32768 */

struct platmap {
        const struct bench_tlb_run *run;
        uint8_t                    *ctl;
        unsigned                    passes;       /* 1, or TLBCAL_UNMASKED_PASSES */
        uint64_t                    cap_bytes;    /* largest buffer; 0 = no limit known */
        unsigned                    n_not_closed; /* chases that did not return to their start */
};

static enum plat_page_kind page_kind(uint64_t page_bytes)
{
        return page_bytes == GiB ? PLAT_PAGE_1G : page_bytes == 2 * MiB ? PLAT_PAGE_2M
                                                                        : PLAT_PAGE_4K;
}

static uint64_t kind_bytes(enum plat_page_kind k)
{
        return k == PLAT_PAGE_1G ? GiB : k == PLAT_PAGE_2M ? 2 * MiB : 4 * KiB;
}

/* Why sweep @p s cannot run on the platform's mapping; NULL when it can be tried. */
static const char *cannot_run(const struct tlbcal_sweep *s, const char *itlb_why)
{
        if (s->side == TLB_SIDE_INST)
                return itlb_why;
        if (s->page_bytes == GiB)
                return "1 GiB pages: without the harness's own page tables to alias them onto one "
                       "frame, N pages of 1 GiB need N GiB of memory mapped with 1 GiB pages";
        if (s->pte == TLB_PTE_PAGE)
                return "PTE layout one per table page needs 2 MiB of memory per 4 KiB page "
                       "without the harness's own tables to alias them";
        return NULL;
}

/* The largest buffer a sweep may take: an eighth of the free memory the platform reports and
 * a quarter of its address-space limit (hosted: MemAvailable, ulimit -v); 0 where it says
 * neither. */
static uint64_t mem_cap(void)
{
        struct plat_mem_summary sum;
        uint64_t                cap;

        if (plat_mem_map(&sum, NULL, 0, NULL) != ST_OK)
                return 0;
        cap = sum.conventional_bytes / MEM_SHARE;
        if (sum.limit_bytes && (!cap || sum.limit_bytes / 4 < cap))
                cap = sum.limit_bytes / 4;
        return cap;
}

/* A buffer for sweep @p s that the platform maps with its page size: the largest N from
 * s->max_pages down to MIN_PAGES, halving, whose buffer fits the cap, can be had and is so
 * mapped. On ST_OK *@p n_max, *@p buf and *@p span describe it; otherwise the SKIP line is
 * printed and ST_UNSUPPORTED returned. */
static status_t find_buffer(const struct platmap *m, const struct tlbcal_sweep *s,
                            uint32_t *n_max, void **buf, uint64_t *span)
{
        enum plat_page_kind got = PLAT_PAGE_4K;
        status_t            st = ST_OK;
        uint32_t            n_hi = 0; /* the largest N tried */
        const char         *name = bench_tlb_side_name(s->side);
        const char         *page = tlbcal_page_name(s->page_bytes);
        const char         *pte  = bench_tlb_pte_layout_name(s->pte);

        for (uint32_t n = s->max_pages; n >= MIN_PAGES; n /= 2) {
                struct bench_tlb_cfg big = { .page_bytes = s->page_bytes, .n_pages = n,
                                             .pte = s->pte };
                if ((st = bench_tlb_span(&big, span)) != ST_OK)
                        return st;
                if (m->cap_bytes && *span > m->cap_bytes)
                        continue;
                n_hi = n_hi ? n_hi : n;
                if ((st = plat_alloc_pages(*span, page_kind(s->page_bytes), buf, &got)) != ST_OK)
                        continue;
                if (got == page_kind(s->page_bytes)) {
                        *n_max = n;
                        return ST_OK;
                }
                plat_free_pages(*buf, *span);
        }
        if (!n_hi)
                rep_skip(REP_SKIP_ENV, "%s %s %s: a buffer of %u pages or more takes more than "
                         "an eighth of the free memory (%llu MiB)", name, page, pte, MIN_PAGES,
                         (unsigned long long)(m->cap_bytes / MiB));
        else if (st != ST_OK)
                rep_skip(REP_SKIP_ENV, "%s %s %s: no buffer of %u pages or more (%s)", name, page,
                         pte, MIN_PAGES, status_str(st));
        else
                rep_skip(REP_SKIP_ENV, "%s %s %s: every buffer of %u to %u pages came mapped with "
                         "%s pages, not %s (%s%s%s)", name, page, pte, MIN_PAGES, n_hi,
                         tlbcal_page_name(kind_bytes(got)), page, lat_pages_tables_name(NULL),
                         plat_info()->huge_pages ? ": " : "",
                         plat_info()->huge_pages ? plat_info()->huge_pages : "");
        return ST_UNSUPPORTED;
}

/* The try whose p50 is the median of the @p n (1..3) tries of one N. */
static const struct tlb_point *median_try(const struct tlb_point *t, unsigned n)
{
        if (n < 3)
                return &t[n - 1]; /* two: the later; one: it */
        uint64_t a = t[0].p50_mcyc, b = t[1].p50_mcyc, d = t[2].p50_mcyc;
        return (a <= b) == (b <= d) ? &t[1] : (b <= a) == (a <= d) ? &t[0] : &t[2];
}

/* One measurement of point @p cfg: with one pass, tried again while every window is
 * disturbed (TLBCAL_POINT_TRIES in all); with interleaved passes the other passes stand in. */
static status_t measure(struct platmap *m, uint8_t *buf, uint64_t span,
                        const struct bench_tlb_cfg *cfg, struct tlb_point *out)
{
        unsigned tries = m->passes > 1 ? 1 : TLBCAL_POINT_TRIES;
        status_t st    = ST_DISTURBED;

        for (unsigned t = 0; t < tries && st == ST_DISTURBED; t++)
                st = bench_dtlb_measure(buf, span, m->ctl, CTL_BYTES, cfg, m->run, out);
        if (st == ST_BAD_DATA)
                m->n_not_closed++;
        return st;
}

/* Every N of @p ns in m->passes interleaved passes into @p c: each point the median try;
 * an N with no undisturbed try is left out and counted. */
static status_t measure_passes(struct platmap *m, const struct tlbcal_sweep *s, uint8_t *buf,
                               uint64_t span, const uint32_t *ns, size_t n, struct tlb_curve *c)
{
        struct tlb_point *tries = plat_alloc(n * m->passes * sizeof(*tries));
        uint8_t          *got   = plat_alloc(n);
        status_t          st    = tries && got ? ST_OK : ST_NO_MEM;

        for (unsigned pass = 0; pass < m->passes && st == ST_OK; pass++)
                for (size_t k = 0; k < n && st == ST_OK; k++) {
                        size_t               i   = pass & 1 ? n - 1 - k : k;
                        struct bench_tlb_cfg cfg = { .page_bytes = s->page_bytes,
                                                     .n_pages = ns[i], .pte = s->pte,
                                                     .seed = TLBCAL_SEED };
                        st = measure(m, buf, span, &cfg, &tries[i * m->passes + got[i]]);
                        if (st == ST_OK)
                                got[i]++;
                        else if (st == ST_DISTURBED)
                                st = ST_OK; /* this try of the point disturbed: the others */
                        else
                                rep_err(st, "%s %s N=%u", bench_tlb_side_name(s->side),
                                        tlbcal_page_name(s->page_bytes), ns[i]);
                }
        for (size_t i = 0; i < n && st == ST_OK; i++)
                if (got[i])
                        c->pts[c->n++] = *median_try(&tries[i * m->passes], got[i]);
                else
                        c->n_left_out++; /* every window of every try disturbed: not made up */
        plat_free(tries);
        plat_free(got);
        return st;
}

/* Run sweep @p s into @p c on a buffer the platform maps with s->page_bytes. */
static status_t sweep(struct platmap *m, const struct tlbcal_sweep *s, struct tlb_curve *c)
{
        struct tlbcal_sweep got_sw = *s;
        uint32_t            ns[TLBDET_MAX_POINTS];
        size_t              n;
        uint64_t            span;
        void               *buf = NULL;
        status_t            st;

        if ((st = find_buffer(m, s, &got_sw.max_pages, &buf, &span)) != ST_OK)
                return st;
        if (got_sw.max_pages < s->max_pages)
                rep_info("%s %s %s: N up to %u, not %u: the largest buffer mapped with %s pages "
                         "(%s) within an eighth of the free memory", bench_tlb_side_name(s->side),
                         tlbcal_page_name(s->page_bytes), bench_tlb_pte_layout_name(s->pte),
                         got_sw.max_pages, s->max_pages, tlbcal_page_name(s->page_bytes),
                         lat_pages_tables_name(NULL));
        if ((st = tlbcal_ns(&got_sw, ns, &n)) != ST_OK) {
                plat_free_pages(buf, span);
                return st;
        }
        if (!(c->pts = plat_alloc(n * sizeof(*c->pts)))) {
                plat_free_pages(buf, span);
                return ST_NO_MEM;
        }
        *c = (struct tlb_curve){ .pts = c->pts, .side = s->side, .pte = s->pte,
                                 .page_bytes = s->page_bytes, .clock = LAT_CLOCK_TSC,
                                 .passes = m->passes };
        st = measure_passes(m, s, buf, span, ns, n, c);
        plat_free_pages(buf, span);
        return st;
}

/* ---- public ---- */

status_t tlbcal_run_platform_map(const struct tlbcal_sweep *sw, size_t n_sw,
                                 const struct bench_tlb_run *run, const char *itlb_why,
                                 struct tlbcal *t)
{
        struct platmap m = { .run = run, .cap_bytes = mem_cap() };
        uint64_t       irq;
        status_t       st = ST_OK;

        /* Windows that cannot mask interrupts (hosted) measure in interleaved passes. */
        m.passes = cpu_irq_disable(&irq) ? 1 : TLBCAL_UNMASKED_PASSES;
        cpu_irq_restore(irq);
        if ((st = plat_alloc_pages(CTL_BYTES, PLAT_PAGE_2M, (void **)&m.ctl, NULL)) != ST_OK)
                return rep_err(st, "allocating the TLB control buffer");
        rep_info("page tables: the %s, as the platform maps each buffer%s",
                 lat_pages_tables_name(NULL),
                 m.passes > 1 ? "; windows cannot mask interrupts here, so every point is the "
                                "median of interleaved passes"
                              : "");
        for (size_t i = 0; i < n_sw && st == ST_OK; i++) {
                const char *why = cannot_run(&sw[i], itlb_why);
                if (why) {
                        rep_skip(REP_SKIP_ENV, "%s %s %s: %s", bench_tlb_side_name(sw[i].side),
                                 tlbcal_page_name(sw[i].page_bytes),
                                 bench_tlb_pte_layout_name(sw[i].pte), why);
                        continue;
                }
                struct tlb_curve *c = &t->c[t->n];
                *c = (struct tlb_curve){ 0 };
                st = sweep(&m, &sw[i], c);
                if (c->pts)
                        t->n++;
                if (st == ST_UNSUPPORTED)
                        st = ST_OK; /* said why; the other sweeps still run */
        }
        plat_free_pages(m.ctl, CTL_BYTES);
        if (t->n)
                rep_check(m.n_not_closed == 0, "every chase returned to its start (%u did not)",
                          m.n_not_closed);
        return st;
}
