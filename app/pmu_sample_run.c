/** @file Overflow sampling on the real CPU: PMI route self-test, skid run, report of the
 *  harness's kernels by function (see sample.h). The PMI itself reaches pmu_sample_on_pmi
 *  through cpu_pmi_enable (NMI delivery in the firmware build, boot/uefi/x86/uefi_pmi.c). */
#include "app/pmu_validate.h"
#include "pmu/sample.h"

#include "bench/kernel_branch.h"
#include "bench/kernel_skid.h"
#include "boot/cpu.h"
#include "boot/plat.h"
#include "report/rep.h"
#include "pmu/clock.h"

#define SKID_BUCKET_BYTES 64
#define TOP_N             10
#define TOP_LOOP_ITERS    20000000ull
#define TOP_PATTERN_BYTES (1u << 20)
#define TOP_SKID_ITERS    5000ull

/* A SKIP for want of what the PMU would offer: a hardware PMU where there is none at all,
 * else the feature it lacks. */
static enum rep_skip_kind absent_kind(void)
{
        return pmu_get_caps()->available ? REP_SKIP_FEATURE : REP_SKIP_PMU;
}

/* Intel v1 (or v2+ whose GLOBAL_CTRL did not probe): pmu_ovf_status has nothing to read, so
 * pmu_sample_on_pmi would take every PMI for a foreign NMI, count it spurious and never
 * re-arm the counter; the run would report one PMI and a FAIL that says nothing about the
 * CPU. */
static void on_pmi(const struct cpu_pmi_frame *frame, void *ctx)
{
        struct pmu_frame f = { .rip = frame->rip, .rsp = frame->rsp, .rflags = frame->rflags };

        pmu_sample_on_pmi(ctx, &f);
}

static void count_nmi(const struct cpu_pmi_frame *frame, void *ctx)
{
        (void)frame;
        (*(volatile uint64_t *)ctx)++;
}

static void route_selftest(struct val_sample_figures *fig)
{
        volatile uint64_t n = 0;
        uint64_t          rt;
        status_t          st = cpu_pmi_enable(count_nmi, (void *)&n, -1);

        if (st != ST_OK) {
                rep_skip(REP_SKIP_ENV, "pmi-route: %s", status_str(st));
                return;
        }
        st = cpu_pmi_selftest(&rt);
        cpu_pmi_disable();
        if (st == ST_UNSUPPORTED) {
                rep_skip(REP_SKIP_FEATURE, "pmi-route: this APIC cannot address its own ID with "
                         "an NMI");
                return;
        }
        if (rep_check(st == ST_OK && n == 1, "pmi-route: self-NMI through the PMI route (x86-64: "
                      "LVT and IDT; AArch64: the PMU PPI pended by software) reached the "
                      "handler %llu time(s) (%s)", (unsigned long long)n,
                      status_str(st)))
                fig->selftest_tsc = rt;
}

/* Skid run: branches, period PMU_SKID_PERIOD, over bench_skid_loop. */
static void skid_run(struct pmu_sample *buf, struct val_sample_figures *fig)
{
        const struct pmu_event_desc *ev;
        const char                  *why = NULL;
        struct pmu_sampler s = { .slot = { .fixed = false, .idx = 0 }, .flags = PMU_OS | PMU_USR,
                                 .period = PMU_SKID_PERIOD, .buf = buf, .cap = PMU_SAMPLE_CAP };
        uint64_t saved, t_plain, t_sampled;
        status_t st;

        if (pmu_alias_event("branches", &ev, &why) != ST_OK) {
                rep_skip(absent_kind(), "skid: "
                         "%s", why);
                return;
        }
        s.ev = ev;
        if ((st = cpu_pmi_enable(on_pmi, &s, -1)) != ST_OK) {
                rep_skip(REP_SKIP_ENV, "skid: no PMI route: %s", status_str(st));
                return;
        }
        cpu_irq_disable(&saved);
        uint64_t t0 = pmu_clock_tsc_read();
        bench_skid_loop(PMU_SKID_ITERS);
        uint64_t t1 = pmu_clock_tsc_read();
        pmu_reset();
        st = pmu_sample_arm(&s);
        uint64_t t2 = pmu_clock_tsc_read();
        if (st == ST_OK)
                bench_skid_loop(PMU_SKID_ITERS);
        uint64_t t3 = pmu_clock_tsc_read();
        pmu_sample_disarm(&s);
        pmu_reset();
        cpu_irq_restore(saved);
        cpu_pmi_disable();
        if (st != ST_OK) {
                rep_skip(absent_kind(), "skid: "
                         "arming the counter failed: %s", status_str(st));
                return;
        }
        t_plain   = t1 - t0;
        t_sampled = t3 - t2;
        fig->n_pmi = s.n_pmi;
        if (s.n_pmi && t_sampled > t_plain)
                fig->pmi_cost_cycles = (t_sampled - t_plain) / s.n_pmi;
        rep_info("skid: %llu PMIs, %llu samples, %llu spurious, %llu dropped, %llu errors; "
                 "run %llu TSC ticks sampled vs %llu plain", (unsigned long long)s.n_pmi,
                 (unsigned long long)s.n, (unsigned long long)s.n_spurious,
                 (unsigned long long)s.n_dropped, (unsigned long long)s.n_errors,
                 (unsigned long long)t_sampled, (unsigned long long)t_plain);

        uint64_t total = (uint64_t)PMU_SKID_ITERS * BENCH_SKID_BRANCHES_PER_ITER;
        rep_check(pmu_sample_pmi_count_ok(s.n_pmi, total, s.period),
                  "pmi-count measured=%llu expected=%llu tolerance=1",
                  (unsigned long long)s.n_pmi, (unsigned long long)(total / s.period));

        struct pmu_skid_hist h;
        if (pmu_skid_hist(buf, s.n, (uint64_t)(uintptr_t)bench_skid_body, SKID_BUCKET_BYTES,
                          &h) == ST_OK) {
                for (unsigned i = 0; i < PMU_SKID_BUCKETS; i++)
                        if (h.bucket[i])
                                rep_info("skid: %4u..%4u instructions: %u samples",
                                         i * h.bucket_bytes, (i + 1) * h.bucket_bytes - 1,
                                         h.bucket[i]);
                rep_info("skid: max %llu instructions; %u before the kernel, %u beyond %u",
                         (unsigned long long)h.max_bytes, h.n_before, h.n_beyond,
                         PMU_SKID_BUCKETS * h.bucket_bytes);
                /* Absolute: the samples must be there (one per PMI expected) and all but
                 * one inside the kernel; no samples is not "no skid". */
                uint64_t want = total / s.period;
                rep_check(h.n + 1 >= want && h.n_before + h.n_beyond <= 1,
                          "skid-in-kernel measured=%u expected=0 tolerance=1 (outside the "
                          "kernel, of %u samples; %llu expected)", h.n_before + h.n_beyond, h.n,
                          (unsigned long long)want);
        }

        uint64_t est;
        int64_t  ppm;
        if (pmu_caliper_estimate(s.n, s.period, total, &est, &ppm) == ST_OK)
                rep_check(est + s.period >= total && est <= total + s.period,
                          "caliper-scale measured=%llu expected=%llu tolerance=%llu "
                          "(error %lld ppm)", (unsigned long long)est,
                          (unsigned long long)total, (unsigned long long)s.period,
                          (long long)ppm);
}

struct top_arg {
        uint8_t *pat;
};

static void top_kernels(struct top_arg *a)
{
        bench_loop(TOP_LOOP_ITERS);
        if (a->pat)
                bench_branch_pattern(a->pat, TOP_PATTERN_BYTES);
        bench_skid_loop(TOP_SKID_ITERS);
}

/* Report run: core cycles over three kernels, top functions by samples. */
static void top_run(const struct pmu_sym *syms, size_t n_syms, uint64_t image_base,
                    struct pmu_sample *buf)
{
        const struct pmu_event_desc *ev;
        const char                  *why = NULL;
        struct pmu_sampler s = { .slot = { .fixed = false, .idx = 0 }, .flags = PMU_OS | PMU_USR,
                                 .period = PMU_TOP_PERIOD, .buf = buf, .cap = PMU_SAMPLE_CAP };
        struct pmu_func_count top[TOP_N];
        struct top_arg        a = { 0 };
        uint64_t              saved, unknown = 0;
        size_t                n_top = 0;
        status_t              st;

        if (n_syms == 0) {
                rep_skip(REP_SKIP_ENV, "top-functions: no symbol table in this build");
                return;
        }
        if (pmu_alias_event("cycles", &ev, &why) != ST_OK) {
                rep_skip(absent_kind(), "top-functions: %s", why);
                return;
        }
        s.ev = ev;
        if ((st = cpu_pmi_enable(on_pmi, &s, -1)) != ST_OK) {
                rep_skip(REP_SKIP_ENV, "top-functions: no PMI route: %s", status_str(st));
                return;
        }
        a.pat = plat_alloc(TOP_PATTERN_BYTES);
        if (a.pat)
                bench_pattern_fill(a.pat, TOP_PATTERN_BYTES, true, 0x5eedull);
        cpu_irq_disable(&saved);
        pmu_reset();
        if ((st = pmu_sample_arm(&s)) == ST_OK)
                top_kernels(&a);
        pmu_sample_disarm(&s);
        pmu_reset();
        cpu_irq_restore(saved);
        cpu_pmi_disable();
        plat_free(a.pat);
        if (st != ST_OK) {
                rep_skip(absent_kind(), "top-functions: arming the counter failed: %s",
                         status_str(st));
                return;
        }
        for (size_t i = 0; i < s.n; i++)
                buf[i].rip -= image_base;
        if (pmu_sample_top(buf, s.n, syms, n_syms, top, TOP_N, &n_top, &unknown) != ST_OK)
                return;
        rep_info("top-functions: %llu samples every %llu core cycles, image base 0x%llx:",
                 (unsigned long long)s.n, (unsigned long long)s.period,
                 (unsigned long long)image_base);
        pmu_sample_print_top(top, n_top, s.n);
        rep_check(s.n > 0 && unknown * 10 <= s.n,
                  "top-functions: samples named by function measured=%llu expected=%llu "
                  "tolerance=%llu", (unsigned long long)(s.n - unknown),
                  (unsigned long long)s.n, (unsigned long long)(s.n / 10));
}

status_t val_sample_run(const struct pmu_sym *syms, size_t n_syms, uint64_t image_base,
                        struct val_sample_figures *fig)
{
        return val_sample_run_arch(syms, n_syms, image_base, NULL, fig);
}

status_t val_sample_run_arch(const struct pmu_sym *syms, size_t n_syms, uint64_t image_base,
                             const struct val_suite_arch *arch, struct val_sample_figures *fig)
{
        const char *why = NULL;

        if (!fig)
                return ST_BAD_ARG;
        *fig = (struct val_sample_figures){ 0 };
        rep_push("sampling");
        route_selftest(fig);
        if (arch && arch->sampling && pmu_get_caps()->available)
                arch->sampling(arch->ctx);
        if (pmu_sample_supported(pmu_get_caps(), &why) != ST_OK) {
                rep_skip(absent_kind(), "overflow "
                         "sampling: %s", why);
                rep_pop();
                return ST_UNSUPPORTED;
        }
        struct pmu_sample *buf = plat_alloc(PMU_SAMPLE_CAP * sizeof(*buf));
        if (!buf) {
                rep_pop();
                return rep_err(ST_NO_MEM, "sample buffer (%zu bytes)",
                               (size_t)PMU_SAMPLE_CAP * sizeof(*buf));
        }
        skid_run(buf, fig);
        top_run(syms, n_syms, image_base, buf);
        plat_free(buf);
        rep_pop();
        return ST_OK;
}
