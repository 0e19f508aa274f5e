/** @file
 * The TLB phase in the firmware: build the harness's own 4-level page tables
 * (bench/x86/ownpt.c: identity map of everything the firmware's memory map describes, and of
 * the address-space holes below 4 GiB as uncached, so MMIO the map leaves out stays
 * reachable), add test
 * windows mapped with 4 KiB, 2 MiB and 1 GiB pages, check every test page with the software
 * walker, then run the dTLB and iTLB sweeps. CR3 holds the harness's tables only inside a
 * measurement window:
 *
 *     cpu_irq_disable -> cpu_page_tables_load -> flush -> chase -> cpu_page_tables_restore
 *     -> flush -> CR3 read back -> cpu_irq_restore
 *
 * Nothing is allocated or printed while the harness's tables are loaded (the firmware's pool
 * allocator must not run at TPL_HIGH_LEVEL). Results are handed to the run and written at the
 * end of the program, long after the firmware's CR3 is back.
 *
 * Physical memory: 4 KiB windows alias a pool of P pages (P odd, P >= N/64: line slot p mod 64
 * and frame p mod P never collide, see bench/tlb.h); 2 MiB windows alias one 2 MiB buffer (line
 * slot p mod 32768); 1 GiB windows alias the 1 GiB frame that holds that buffer and touch
 * only lines inside it, so no 1 GiB of free memory is needed.
 */
#include "app/run.h"
#include "boot/cpu.h"
#include "app/tlb.h"
#include "app/latency_clock.h"
#include "app/latency_pages.h"
#include "report/json.h"

#include "bench/kernel_tlb.h"
#include "bench/ownpt.h"
#include "boot/x86/msr.h"
#include "report/inventory.h"

#define BUF_BYTES     (2 * MiB)       /* the 2 MiB / 1 GiB alias buffer, and the control */
#define MIN_ACC_HW    20000u          /* accesses per L-lap run on hardware */
#define MIN_ACC_EMU   2000u           /* under emulation (no TLB costs to see, only time) */
#define N_WINDOWS     11u
#define CLOCK_CALIB_US 1000u          /* the core clock's probe: the TSC rate is the inventory's */

/* One test window per sweep. */
struct twin {
        uint64_t va, pool_pa, pool_pages, n_virt, page_bytes, delta, span;
};

struct tlb_ctx {
        struct run        *r;
        struct bench_ownpt own; /* identity map + windows (bench/x86/ownpt.c) */
        uint8_t           *pool4k_data, *pool4k_code, *buf, *ctl;
        uint64_t           pool4k_pages, ctl_va;
        uint64_t          *off;
        uint64_t           cr4;
        unsigned           n_cr3_bad, n_not_closed;
        bool               flush;
        const char        *no_own; /* why the harness's own tables cannot be had; NULL: they can */
};

/* ---- building ---- */

/* Map the window of sweep @s and check every page of it with the software walker. */
static status_t make_window(struct tlb_ctx *x, const struct tlbcal_sweep *s, struct twin *w)
{
        struct bench_tlb_cfg cfg = { .page_bytes = s->page_bytes, .n_pages = s->max_pages,
                                     .pte = s->pte };
        status_t             st;

        if ((st = bench_tlb_span(&cfg, &w->span)) != ST_OK)
                return st;
        w->page_bytes = s->page_bytes;
        w->n_virt     = w->span / s->page_bytes;
        w->delta      = 0;
        if (s->page_bytes == PT_4K) {
                w->pool_pa    = plat_virt_to_phys(s->side == TLB_SIDE_INST ? x->pool4k_code
                                                                            : x->pool4k_data);
                w->pool_pages = x->pool4k_pages;
        } else if (s->page_bytes == PT_2M) {
                w->pool_pa    = plat_virt_to_phys(x->buf);
                w->pool_pages = 1;
        } else {
                uint64_t b    = plat_virt_to_phys(x->buf);
                w->pool_pa    = b & ~(PT_1G - 1);
                w->delta      = b - w->pool_pa;
                w->pool_pages = 1;
        }
        if (w->pool_pages > w->n_virt)
                w->pool_pages = w->n_virt;
        if ((st = bench_pt_window(&x->own.pt, w->pool_pa, w->pool_pages, w->n_virt, w->page_bytes,
                                  BENCH_PT_WRITE, &w->va)) != ST_OK)
                return st;
        for (uint64_t i = 0; i < w->n_virt; i++) {
                uint64_t pa, sz, fl;
                uint64_t va   = w->va + i * w->page_bytes;
                uint64_t want = w->pool_pa + (i % w->pool_pages) * w->page_bytes;
                if ((st = bench_pt_walk(&x->own.pt, va + 64, &pa, &sz, &fl)) != ST_OK ||
                    pa != want + 64 || sz != w->page_bytes || !(fl & BENCH_PT_WRITE) ||
                    (fl & (BENCH_PT_NX | BENCH_PT_USER)))
                        return rep_err(ST_BAD_DATA,
                                       "walking test page %#llx: %s, pa %#llx (want %#llx), "
                                       "size %llu, flags %#llx",
                                       (unsigned long long)va, status_str(st),
                                       (unsigned long long)pa, (unsigned long long)want + 64,
                                       (unsigned long long)sz, (unsigned long long)fl);
        }
        return ST_OK;
}

/* Addresses the harness touches inside a window must translate to themselves. */
static bool identity_ok(struct tlb_ctx *x, unsigned *n_probe)
{
        int             local = 0;
        const uintptr_t probes[] = {
                (uintptr_t)bench_ownpt_identity_ok, (uintptr_t)bench_dtlb_measure_off,
                (uintptr_t)cpu_irq_restore, (uintptr_t)&local, (uintptr_t)x,
                (uintptr_t)x->off, (uintptr_t)x->own.chunk[0], (uintptr_t)x->ctl,
        };

        *n_probe = ARRAY_SIZE(probes);
        return bench_ownpt_identity_ok(&x->own, probes, ARRAY_SIZE(probes));
}

/* ---- measuring ---- */

/* One measurement window with the harness's tables loaded. */
static status_t window(struct tlb_ctx *x, const struct tlbcal_sweep *s, const struct twin *w,
                       const struct bench_tlb_cfg *cfg, const struct bench_tlb_run *run,
                       struct tlb_point *pt)
{
        uint64_t irq, saved, now;
        status_t st;

        cpu_irq_disable(&irq);
        if ((st = cpu_page_tables_load(x->own.pt.root_pa, &saved)) != ST_OK) {
                cpu_irq_restore(irq);
                return st;
        }
        if (x->flush)
                bench_tlb_flush_all();
        if (s->side == TLB_SIDE_DATA) {
                st = bench_dtlb_measure_off((uint8_t *)(uintptr_t)(w->va + w->delta), w->span,
                                            (uint8_t *)(uintptr_t)x->ctl_va, BUF_BYTES, cfg, run,
                                            x->off, cfg->n_pages, pt);
        } else {
                uint64_t entry;
                st = bench_itlb_gen_off(cfg, x->off, cfg->n_pages, (uint8_t *)(uintptr_t)w->va,
                                        w->span, &entry);
                if (st == ST_OK)
                        st = bench_itlb_measure((void (*)(void))(uintptr_t)(w->va + entry),
                                                cfg->n_pages, run, pt);
        }
        cpu_page_tables_restore(saved);
        if (x->flush)
                bench_tlb_flush_all();
        now = bench_cr3_read();
        cpu_irq_restore(irq);
        if (now != saved)
                x->n_cr3_bad++;
        if (st == ST_BAD_DATA)
                x->n_not_closed++;
        return st;
}

static status_t sweep(struct tlb_ctx *x, const struct tlbcal_sweep *s, const struct twin *w,
                      const struct bench_tlb_run *run, struct tlb_curve *c)
{
        uint32_t ns[TLBDET_MAX_POINTS];
        size_t   n;
        status_t st;

        if ((st = tlbcal_ns(s, ns, &n)) != ST_OK)
                return st;
        if (!(c->pts = plat_alloc(n * sizeof(*c->pts))))
                return ST_NO_MEM;
        c->side = s->side;
        c->pte = s->pte;
        c->page_bytes = s->page_bytes;
        c->clock = LAT_CLOCK_TSC;
        c->passes = 1;
        for (size_t i = 0; i < n; i++) {
                struct bench_tlb_cfg cfg = { .page_bytes = s->page_bytes, .n_pages = ns[i],
                                             .pte = s->pte, .seed = TLBCAL_SEED };
                st = ST_DISTURBED;
                for (unsigned t = 0; t < TLBCAL_POINT_TRIES && st == ST_DISTURBED; t++)
                        st = window(x, s, w, &cfg, run, &c->pts[c->n]);
                if (st == ST_DISTURBED) { /* every window disturbed: left out, not made up */
                        c->n_left_out++;
                        continue;
                }
                if (st != ST_OK) {
                        if (st != ST_UNSUPPORTED)
                                rep_err(st, "%s %s N=%u", bench_tlb_side_name(s->side),
                                        tlbcal_page_name(s->page_bytes), ns[i]);
                        return st;
                }
                c->n++;
        }
        return ST_OK;
}

static status_t setup(struct tlb_ctx *x, const struct cpu_info *cpu, const struct tlbcal_sweep *sw,
                      size_t n_sw)
{
        uint32_t max4k = 64, max_n = 1;
        status_t st;

        for (size_t i = 0; i < n_sw; i++) {
                if (sw[i].page_bytes == PT_4K && sw[i].max_pages > max4k)
                        max4k = sw[i].max_pages;
                if (sw[i].max_pages > max_n)
                        max_n = sw[i].max_pages;
        }
        x->pool4k_pages = (max4k / 64 + 1) | 1;
        if ((st = plat_alloc_pages(x->pool4k_pages * PT_4K, PLAT_PAGE_4K,
                                   (void **)&x->pool4k_data, NULL)) != ST_OK ||
            (st = plat_alloc_pages(x->pool4k_pages * PT_4K, PLAT_PAGE_4K,
                                   (void **)&x->pool4k_code, NULL)) != ST_OK ||
            (st = plat_alloc_pages(BUF_BYTES, PLAT_PAGE_2M, (void **)&x->buf, NULL)) != ST_OK ||
            (st = plat_alloc_pages(BUF_BYTES, PLAT_PAGE_2M, (void **)&x->ctl, NULL)) != ST_OK)
                return rep_err(st, "allocating the TLB test buffers");
        if (!(x->off = plat_alloc(max_n * sizeof(*x->off))))
                return rep_err(ST_NO_MEM, "allocating the plan (%u entries)", max_n);
        if (!plat_virt_to_phys(x->buf)) {
                x->no_own = "the platform does not know its buffers' physical addresses";
                return ST_UNSUPPORTED;
        }
        if ((st = bench_ownpt_build(&x->own, cpu, NULL, 0)) != ST_OK) {
                if (st == ST_UNSUPPORTED) /* unlogged there */
                        x->no_own = "the platform gives no physical memory map to build them "
                                    "from";
                return st;
        }
        rep_info("page tables: %zu memory-map ranges identity-mapped (holes below 4 GiB "
                 "uncached), MAXPHYADDR %u, 1 GiB pages %s",
                 x->own.n_map, x->own.pt.cfg.phys_bits,
                 cpu->pdpe1gb ? "supported" : "not supported");
        return ST_OK;
}

static void teardown(struct tlb_ctx *x)
{
        bench_ownpt_free(&x->own);
        plat_free_pages(x->pool4k_data, x->pool4k_pages * PT_4K);
        plat_free_pages(x->pool4k_code, x->pool4k_pages * PT_4K);
        plat_free_pages(x->buf, BUF_BYTES);
        plat_free_pages(x->ctl, BUF_BYTES);
        plat_free(x->off);
}

static bool is_emulated(const struct cpu_info *c)
{
        return c->hypervisor && !strcmp(c->hv_vendor, "TCGTCGTCGTCG");
}

/* ---- the phase ---- */

static status_t run_sweeps(struct tlb_ctx *x, const struct cpu_info *cpu,
                           const struct tlbcal_sweep *sw, size_t n_sw,
                           const struct bench_tlb_run *run, struct tlbcal *t)
{
        static struct twin w[TLBCAL_MAX_CURVES];
        unsigned n_pages = 0, n_probe = 0;
        bool     use[TLBCAL_MAX_CURVES];
        status_t st;

        if ((st = bench_pt_window(&x->own.pt, plat_virt_to_phys(x->ctl), 1, 1, PT_2M,
                                  BENCH_PT_WRITE, &x->ctl_va)) != ST_OK)
                return rep_err(st, "mapping the control buffer");
        for (size_t i = 0; i < n_sw; i++) {
                use[i] = true;
                if (sw[i].page_bytes == PT_1G && !cpu->pdpe1gb) {
                        rep_skip(REP_SKIP_FEATURE, "%s 1 GiB pages: CPUID.80000001H:EDX[26] "
                                 "(Page1GB) is clear",
                                 bench_tlb_side_name(sw[i].side));
                        use[i] = false;
                        continue;
                }
                if ((st = make_window(x, &sw[i], &w[i])) != ST_OK) {
                        rep_check(false, "page tables: %s %s window: %s",
                                  bench_tlb_side_name(sw[i].side), tlbcal_page_name(sw[i].page_bytes),
                                  status_str(st));
                        return st;
                }
                n_pages += (unsigned)w[i].n_virt;
                if (sw[i].page_bytes == PT_1G)
                        rep_info("1 GiB pages: %llu pages aliased onto the 1 GiB frame at %#llx "
                                 "that holds a 2 MiB buffer at %#llx; only lines inside the "
                                 "buffer are touched",
                                 (unsigned long long)w[i].n_virt,
                                 (unsigned long long)w[i].pool_pa,
                                 (unsigned long long)(w[i].pool_pa + w[i].delta));
        }
        bool ident = identity_ok(x, &n_probe);
        if (!rep_check(ident,
                       "page tables: %u test pages walk to the intended frames, sizes and "
                       "rights; %u harness addresses identity-mapped (%u table pages)",
                       n_pages, n_probe, x->own.pt.n_table_pages))
                return ST_BAD_DATA;

        for (size_t i = 0; i < n_sw; i++) {
                if (!use[i])
                        continue;
                struct tlb_curve *c = &t->c[t->n++];
                *c = (struct tlb_curve){ 0 };
                st = sweep(x, &sw[i], &w[i], run, c);
                if (st == ST_UNSUPPORTED) {
                        rep_skip(REP_SKIP_ENV, "own page tables: the platform cannot load CR3");
                        return st;
                }
                if (st != ST_OK)
                        break;
                if (sw[i].page_bytes == PT_1G)
                        rep_info("%s: 1 GiB pages used (%zu points, N up to %u)",
                                 bench_tlb_side_name(sw[i].side), c->n, sw[i].max_pages);
        }
        rep_check(x->n_cr3_bad == 0, "firmware CR3 restored after every window (%u differed)",
                  x->n_cr3_bad);
        rep_check(x->n_not_closed == 0, "every chase returned to its start (%u did not)",
                  x->n_not_closed);
        return st;
}

/* The core clock of the calibration: APERF/MPERF (bench_clock_init), else what the platform
 * counts for this thread (hosted: perf's cycles), else the PMU's core cycles. */
static void clock_begin(struct bench_clock *clk, struct lat_clock_pmu *pc,
                        const struct cpu_info *cpu)
{
        const struct plat_info *pi = plat_info();

        bench_clock_init(clk, cpu, CLOCK_CALIB_US, NULL);
        if (!clk->core.name && pi->core_cycles)
                clk->core = (struct bench_core_src){ .name = pi->core_cycles_name,
                                                     .read = pi->core_cycles };
        lat_clock_pmu_begin(pc, clk, cpu);
}

/* Prove one CR3 load of the harness's tables and read CR4 inside it (privileged): whether
 * each switch must flush global entries too. ST_UNSUPPORTED where CR3 cannot be loaded. */
static status_t prove_cr3(struct tlb_ctx *x)
{
        uint64_t irq, saved;
        status_t st;

        cpu_irq_disable(&irq);
        st = cpu_page_tables_load(x->own.pt.root_pa, &saved);
        if (st == ST_OK) {
                x->cr4   = bench_cr4_read();
                x->flush = x->cr4 & (BENCH_CR4_PGE | BENCH_CR4_PCIDE);
                if (x->flush)
                        bench_tlb_flush_all();
                cpu_page_tables_restore(saved);
                if (x->flush)
                        bench_tlb_flush_all();
                if (bench_cr3_read() != saved)
                        x->n_cr3_bad++;
        }
        cpu_irq_restore(irq);
        if (st == ST_OK)
                rep_info("CR4 %#llx: PGE %s, PCIDE %s: %s", (unsigned long long)x->cr4,
                         x->cr4 & BENCH_CR4_PGE ? "on" : "off",
                         x->cr4 & BENCH_CR4_PCIDE ? "on" : "off",
                         x->flush ? "every TLB entry flushed (CR4.PGE toggled) after each CR3 "
                                    "switch"
                                  : "each CR3 load flushes every entry");
        return st;
}

status_t phase_tlb(struct run *r)
{
        static struct tlb_ctx     x;
        static struct tlbcal      t;
        static struct lat_clock_pmu pc;
        struct bench_clock        clk;
        struct tlbcal_sweep       sw[TLBCAL_MAX_CURVES];
        size_t                    n_sw;
        struct rep_buf            json = { 0 }, csv = { 0 };
        const char               *no_own = NULL;
        status_t                  st;

        if (!r->inv || r->inv->cpu_st != ST_OK) {
                rep_skip(REP_SKIP_ENV, "no CPU inventory");
                return ST_UNSUPPORTED;
        }
        const struct cpu_info *cpu = &r->inv->cpu;
        uint64_t               t0  = rdtsc_ordered();
        struct bench_tlb_run   run = { .n_windows = N_WINDOWS,
                                       .min_accesses = is_emulated(cpu) ? MIN_ACC_EMU
                                                                        : MIN_ACC_HW };
        x = (struct tlb_ctx){ .r = r };
        t = (struct tlbcal){ 0 };
        tlbcal_sweeps(r->cfg.profile != CONFIG_PROFILE_QUICK, sw, &n_sw);
        tlbcal_sweeps_keep(r->cfg.tlb_pages, sw, &n_sw);
        if (run.min_accesses == MIN_ACC_EMU)
                rep_info("emulated CPU: %u accesses per timed run instead of %u",
                         MIN_ACC_EMU, MIN_ACC_HW);

        /* Where the harness's own tables cannot be had, the platform's mapping serves: the
         * same sweeps, each on a buffer the platform maps with its page size. */
        st = setup(&x, cpu, sw, n_sw);
        if (st == ST_UNSUPPORTED)
                no_own = x.no_own;
        else if (st == ST_OK && (st = prove_cr3(&x)) == ST_UNSUPPORTED)
                no_own = "the platform cannot load CR3";
        if (no_own) {
                rep_info("page tables: the harness's own are not used (%s)", no_own);
                st = ST_OK;
        }
        if (st == ST_OK) {
                struct bench_core_span sp;
                clock_begin(&clk, &pc, cpu);
                bench_core_span_begin(&clk.core, &sp);
                st = no_own ? tlbcal_run_platform_map(sw, n_sw, &run, "the iTLB jump chain "
                                                      "needs executable pages, which only the "
                                                      "harness's own page tables give it", &t)
                            : run_sweeps(&x, cpu, sw, n_sw, &run, &t);
                t.clock = (struct lat_clock_desc){ .tsc_hz = r->inv->tsc_hz,
                                                   .core_ppm = bench_core_span_end(&clk.core, &sp),
                                                   .core_source = clk.core.name,
                                                   .core_why = clk.core.why_none };
                if (!t.clock.core_ppm && clk.core.name)
                        t.clock.core_why = "the core clock source gave no usable ratio";
                lat_clock_pmu_end(&pc);
        }
        if (no_own && !t.n && st == ST_OK) {
                rep_skip(REP_SKIP_ENV, "no dTLB sweep could run on the %s",
                         lat_pages_tables_name(NULL));
                st = ST_UNSUPPORTED;
        }
        if (t.n && tlbcal_finish(&t, cpu, is_emulated(cpu), &json, &csv) == ST_OK) {
                tlbcal_add_to_latency_table(r, &json);
                run_add_file(r, TLBCAL_TABLE_FILE, &json);
                run_add_file(r, TLBCAL_CURVE_FILE, &csv);
        }
        rep_buf_free(&json);
        rep_buf_free(&csv);
        tlbcal_free(&t);
        teardown(&x);
        if (r->inv->tsc_hz)
                rep_info("TLB calibration took %llu ms (%s sweep)",
                         (unsigned long long)((rdtsc_ordered() - t0) * 1000 / r->inv->tsc_hz),
                         r->cfg.profile == CONFIG_PROFILE_QUICK ? "quick" : "full");
        return st;
}
