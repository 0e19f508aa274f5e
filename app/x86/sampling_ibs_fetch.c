/** @file
 * The IBS fetch pipeline of the sampling phase: plan (the fetch control value) -> run (arm
 * fetch sampling over the fixed-cost block kernel, disarm) -> decode -> check
 * (fetch addresses inside the kernel, fetch count) -> report (instruction-cache and ITLB
 * misses, mean fetch latency). Control value, arming and decoding are pmu/x86/ibs_fetch.c; the
 * session is opened by the phase (app/x86/sampling.c).
 */
#include "app/x86/sampling.h"

#include "bench/kernel_block.h"
#include "lib/fmt.h"

#define IBS_FETCH_PERIOD    1024u    /* fetches per sample, randomised in [3:0] */
#define BLOCK_ITERS         (1u << 20)

void samp_ibs_fetch_run(struct samp_ctx *c, struct pmu_ibs_session *s)
{
        /* The kernel's exact extent, from labels no link redirects (kernel_block.h). */
        const uint64_t lo = (uint64_t)(uintptr_t)bench_block_start;
        const uint64_t hi = (uint64_t)(uintptr_t)bench_block_end;
        /* 32-byte fetch windows one iteration spans (top .. end of the jnz). */
        const uint64_t top = (uint64_t)(uintptr_t)bench_block_top;
        const uint64_t windows = ((uint64_t)(uintptr_t)bench_block_jcc + 1) / 32 - top / 32 + 1;
        uint64_t ctl, n_in = 0, n_ok = 0, n_icmiss = 0, n_l2tlb = 0, sum_lat = 0;
        struct pmu_ibs_fetch f;
        struct rep_verdict v;

        if (!(s->info.caps & IBS_CAPS_FETCHSAM) ||
            pmu_ibs_fetch_ctl_encode(&s->info, IBS_FETCH_PERIOD, true, false, &ctl) != ST_OK ||
            !(s->fetches = plat_alloc(SAMP_SAMPLES_MAX * sizeof(*s->fetches)))) {
                samp_skip_mech(&c->log, REP_SKIP_FEATURE, SAMP_MECH_IBS_FETCH, &c->plan,
                               "fetch sampling not offered (CPUID 0x8000001B FetchSam) or no memory");
                return;
        }
        s->fetch_cap = SAMP_SAMPLES_MAX;
        if (pmu_ibs_fetch_arm(s, ctl) == ST_OK) {
                bench_block_run(BLOCK_ITERS);
                pmu_ibs_fetch_disarm(s);
        }
        for (size_t i = 0; i < s->n_fetch; i++) {
                if (pmu_ibs_fetch_decode(&s->info, &s->fetches[i], &f) != ST_OK || !f.valid ||
                    f.drop)
                        continue;
                n_ok++;
                n_in += f.linad >= lo && f.linad < hi;
                n_icmiss += f.ic_miss;
                n_l2tlb += f.l2tlb_miss;
                sum_lat += f.lat_cycles;
        }
        samp_permille_verdict(&v, n_in, n_ok, 950);
        fmt_snprintf(v.why, sizeof(v.why), "%llu of %llu fetch addresses inside bench_block_run "
                     "[0x%llx, 0x%llx)", (unsigned long long)n_in, (unsigned long long)n_ok,
                     (unsigned long long)lo, (unsigned long long)hi);
        samp_log_check(&c->log, SAMP_MECH_IBS_FETCH, "fetch-addresses", &v);
        /* Assumption, stated: one fetch per 32-byte window of the loop per iteration, a
         * sample every period less the random IbsFetchCnt[3:0] it starts with (7.5 on
         * average; both sides twice, to stay integer). The tolerance is wide because fetches
         * that do not complete are sampled too (IbsFetchComp clear, [APM-2] IBS fetch
         * control), such as a block past the jnz fetched before the redirect, and how many
         * a part fetches so per pass is not published. */
        if (rep_check_sample_count(s->n_fetch + s->n_dropped, 2ull * BLOCK_ITERS * windows,
                                   pmu_ibs_fetch_mean_period_x2(ctl), 500, &v) == ST_OK)
                samp_log_check(&c->log, SAMP_MECH_IBS_FETCH, "fetch-count", &v);
        rep_buf_printf(&c->report, "ibs-fetch: block kernel, %u iterations, period %u\n"
                       "  fetch samples %llu  in kernel %llu  IC misses %llu  L2 ITLB misses %llu"
                       "  mean fetch latency %llu cycles\n\n", BLOCK_ITERS, IBS_FETCH_PERIOD,
                       (unsigned long long)n_ok, (unsigned long long)n_in,
                       (unsigned long long)n_icmiss, (unsigned long long)n_l2tlb,
                       (unsigned long long)(n_ok ? sum_lat / n_ok : 0));
}

