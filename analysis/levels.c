/** @file Level detection on a latency curve (see levels.h; rules in docs/latency-table.md). */
#include "analysis/levels.h"
#include "analysis/levels_priv.h"
#include "lib/fixq8.h"
#include "lib/stats.h"

#include "lib/fmt.h"


static const char *const agree_names[] = {
        [LAT_AGREE_NO_CPUID] = "no-cpuid",
        [LAT_AGREE_OK]       = "agrees",
        [LAT_AGREE_SMALLER]  = "smaller",
        [LAT_AGREE_LARGER]   = "larger",
};

static const char *const flag_names[] = {
        "no_hierarchy", "noisy", "cpuid_differs", "no_dram",
        "tail_rising",  "overlap", "no_core_hz", "few_points",
};

/* Data/unified caches sorted by level, and by size within a level: one per level from CPUID,
 * and the caches CPUID does not list that a cited quirk row adds (the Lion Cove 192 KB L1D
 * between the 48 KB L0 leaf 4 calls L1 and the L2), so that their plateau is matched to them
 * and not called a disagreement. Returns their count. */
static size_t cpuid_caches(const struct cpu_info *cpu, const struct cpu_cache **cc, size_t max)
{
        size_t k = 0;

        if (!cpu)
                return 0;
        for (uint8_t lvl = 1; lvl <= 8 && k < max; lvl++) {
                size_t first = k;
                bool   listed = false;

                for (size_t i = 0; i < cpu->n_caches && i < ARRAY_SIZE(cpu->caches) && k < max;
                     i++) {
                        const struct cpu_cache *c = &cpu->caches[i];
                        if (c->level != lvl || !c->size_bytes ||
                            (c->type != CACHE_DATA && c->type != CACHE_UNIFIED))
                                continue;
                        if (!c->source && listed)
                                continue; /* one per level from CPUID */
                        listed |= !c->source;
                        size_t j = k++;
                        while (j > first && cc[j - 1]->size_bytes > c->size_bytes) {
                                cc[j] = cc[j - 1];
                                j--;
                        }
                        cc[j] = c;
                }
        }
        return k;
}

static void level_stats(struct lv_work *w, const struct lat_point *p,
                        const struct lv_plateau *pl, struct lat_stat *s)
{
        size_t k = 0;

        s->min = 0;
        for (size_t i = pl->first; i <= pl->last; i++)
                if (p[i].min_mcyc && (!s->min || p[i].min_mcyc < s->min))
                        s->min = p[i].min_mcyc;
        for (unsigned f = 0; f < 3; f++) {
                k = 0;
                for (size_t i = pl->first; i <= pl->last; i++)
                        w->tmp[k++] = f == 0 ? p[i].p10_mcyc : f == 1 ? p[i].p50_mcyc : p[i].p90_mcyc;
                lib_sort_u64(w->tmp, k);
                if (f == 0)
                        s->p10 = lib_pct_nearest_rank(w->tmp, k, 10);
                else if (f == 1)
                        s->p50 = lib_pct_nearest_rank(w->tmp, k, 50);
                else
                        s->p90 = lib_pct_nearest_rank(w->tmp, k, 90);
        }
        if (!s->min)
                s->min = s->p10;
        /* the median of the points' medians, known within the order statistics of their
         * confidence intervals (a point without one counts as its p50) */
        size_t lo, hi;
        lib_median_ci_ranks(k, &lo, &hi);
        for (unsigned f = 0; f < 2; f++) {
                size_t m = 0;
                for (size_t i = pl->first; i <= pl->last; i++)
                        w->tmp[m++] = !p[i].p50_hi_mcyc ? p[i].p50_mcyc
                                      : f == 0       ? p[i].p50_lo_mcyc
                                                     : p[i].p50_hi_mcyc;
                lib_sort_u64(w->tmp, m);
                if (f == 0)
                        s->p50_lo = w->tmp[lo] < s->p50 ? w->tmp[lo] : s->p50;
                else
                        s->p50_hi = w->tmp[hi] > s->p50 ? w->tmp[hi] : s->p50;
        }
}

/* The interval of working sets the half-way crossing between plateaus a and a+1 (at @p half
 * milli-units) may lie in, given each point's confidence interval: from the point before the
 * first one that could be at or above half, to the point after the last one that could be
 * below it; at least the two points bracketing @p cap. */
static void capacity_interval(const struct lat_point *p, size_t first, size_t last,
                              uint64_t half, uint64_t cap, uint64_t *lo, uint64_t *hi)
{
        size_t i_lo = last, i_hi = first;

        for (size_t i = first; i <= last; i++) {
                uint64_t l = p[i].p50_hi_mcyc ? p[i].p50_lo_mcyc : p[i].p50_mcyc;
                uint64_t h = p[i].p50_hi_mcyc ? p[i].p50_hi_mcyc : p[i].p50_mcyc;
                if (h >= half && i < i_lo)
                        i_lo = i;
                if (l <= half)
                        i_hi = i;
        }
        *lo = p[i_lo > first ? i_lo - 1 : first].ws_bytes;
        *hi = p[i_hi < last ? i_hi + 1 : last].ws_bytes;
        for (size_t i = first; i < last; i++)
                if (p[i].ws_bytes <= cap && p[i + 1].ws_bytes >= cap) {
                        if (p[i].ws_bytes < *lo)
                                *lo = p[i].ws_bytes;
                        if (p[i + 1].ws_bytes > *hi)
                                *hi = p[i + 1].ws_bytes;
                        break;
                }
        if (*lo > cap)
                *lo = cap;
        if (*hi < cap)
                *hi = cap;
}

/* Non-decreasing least-squares fit of y[first..last] into fit[] (pool adjacent violators):
 * blocks of points whose mean falls below the block before them are pooled. A transition
 * measured on a shared machine wobbles (a point 50 % up, the next back down); the monotone
 * fit averages such wobbles instead of letting the first one decide where the rise is. */
static void monotone_fit(struct lv_work *w, const uint32_t *y, size_t first, size_t last)
{
        size_t nb = 0, i = first;

        for (size_t k = first; k <= last; k++) {
                w->tmp[nb]   = y[k]; /* block sums */
                w->blk_n[nb] = 1;
                nb++;
                while (nb > 1 && w->tmp[nb - 2] * w->blk_n[nb - 1] > w->tmp[nb - 1] * w->blk_n[nb - 2]) {
                        w->tmp[nb - 2] += w->tmp[nb - 1];
                        w->blk_n[nb - 2] += w->blk_n[nb - 1];
                        nb--;
                }
        }
        for (size_t b = 0; b < nb; b++)
                for (uint32_t k = 0; k < w->blk_n[b]; k++)
                        w->fit[i++] = (uint32_t)(w->tmp[b] / w->blk_n[b]);
}

/* Capacity between plateaus a and a+1: the working set at which the latency is half-way,
 * in cycles, between the two plateaus' latencies, i.e. where half the loads miss the faster
 * level (latency is linear in the miss fraction). A physically indexed cache fed 4 KiB pages
 * at random spills some sets early and others late; half the loads miss at about its
 * capacity. The half-way point in log (the geometric mean) lies at a third of the misses and
 * came out 10-30 % low on this machine's L2. Found on the points' p10 (the windows of the
 * least disturbed tenth): on a shared machine another tenant evicting the working set only
 * ever slows a window, and in a shared last-level cache's transition the windows split
 * between hits and misses as the neighbours come and go, so the median flips between the two
 * from run to run (one VM's L3 came out 7.6 to 15.4 MiB over five runs on p50) while the p10
 * follows the cache as it is when the neighbours are quiet. On the monotone fit of log p10
 * over both plateaus, interpolated in log-log between the two points bracketing it. @p half
 * gets the p50 half-way figure (the capacity interval's). */
static uint64_t half_rise_bytes(struct lv_work *w, size_t a, uint64_t *half)
{
        const struct lv_plateau *A = &w->pl[a], *B = &w->pl[a + 1];
        uint64_t lo = lib_exp2_q8(lv_median_range(w, w->lq, A->first, A->last));
        uint64_t hi = lib_exp2_q8(lv_median_range(w, w->lq, B->first, B->last));
        uint32_t t  = lib_log2_q8(lo / 2 + hi / 2);
        size_t   i  = A->first;

        *half = lib_exp2_q8(lv_median_range(w, w->ly, A->first, A->last)) / 2 +
                lib_exp2_q8(lv_median_range(w, w->ly, B->first, B->last)) / 2;
        monotone_fit(w, w->lq, A->first, B->last);
        while (i < B->last && w->fit[i] < t)
                i++;
        if (i == A->first || w->fit[i] <= w->fit[i - 1] || w->fit[i] < t)
                return lib_exp2_q8(w->lx[i]);
        /* fit[i-1] < t <= fit[i] */
        uint32_t dx = w->lx[i] - w->lx[i - 1];
        uint32_t x  = w->lx[i - 1] +
                     (uint32_t)((uint64_t)(t - w->fit[i - 1]) * dx / (w->fit[i] - w->fit[i - 1]));
        return lib_exp2_q8(x);
}

/* The sweep's base step: its coarsest step between adjacent points (refinement only adds
 * points, so this is the geometric step the sweep was planned with). */
static uint32_t sweep_step_q8(const struct lv_work *w, size_t n)
{
        uint32_t step = 0;
        for (size_t i = 1; i < n; i++)
                if (w->lx[i] - w->lx[i - 1] > step)
                        step = w->lx[i] - w->lx[i - 1];
        return step;
}

static void cross_check(struct lat_level *lv, const struct cpu_cache *const *cc, size_t n_cc,
                        size_t *next_cc, uint32_t step_q8)
{
        uint32_t lx   = lib_log2_q8(lv->capacity_bytes);
        size_t   best = n_cc;
        int32_t  bd   = 0;

        for (size_t i = *next_cc; i < n_cc; i++) {
                int32_t d = (int32_t)lx - (int32_t)lib_log2_q8(cc[i]->size_bytes);
                if (d < 0)
                        d = -d;
                if (best == n_cc || d < bd) {
                        best = i;
                        bd   = d;
                }
        }
        if (best == n_cc) {
                lv->agreement = LAT_AGREE_NO_CPUID;
                return;
        }
        *next_cc                 = best + 1;
        lv->cpuid_capacity_bytes = cc[best]->size_bytes;
        lv->cpuid_level          = cc[best]->level;
        if ((uint32_t)bd <= step_q8 + AGREE_SLACK_Q8)
                lv->agreement = LAT_AGREE_OK;
        else
                lv->agreement = lv->capacity_bytes < cc[best]->size_bytes ? LAT_AGREE_SMALLER
                                                                          : LAT_AGREE_LARGER;
}

static void set_name(struct lat_level *lv, const char *s)
{
        size_t i = 0;
        for (; s[i] && i + 1 < sizeof(lv->name); i++)
                lv->name[i] = s[i];
        lv->name[i] = '\0';
}

static bool curve_ok(const struct lat_curve *c)
{
        if (!c || !c->pts || c->n == 0 || c->n > LAT_MAX_POINTS)
                return false;
        for (size_t i = 0; i < c->n; i++)
                if (!c->pts[i].ws_bytes || (i && c->pts[i].ws_bytes <= c->pts[i - 1].ws_bytes))
                        return false;
        return true;
}

static void build_levels(struct lv_work *w, const struct lat_curve *c,
                         const struct cpu_info *cpu, struct lat_levels *out)
{
        const struct cpu_cache *cc[8];
        size_t                  n_cc = cpuid_caches(cpu, cc, ARRAY_SIZE(cc)), next_cc = 0;
        uint64_t                largest = n_cc ? cc[n_cc - 1]->size_bytes : 0;
        bool     no_dram = largest && c->pts[c->n - 1].ws_bytes <= largest;
        uint32_t step    = sweep_step_q8(w, c->n);

        out->n = w->n_pl;
        for (size_t k = 0; k < w->n_pl; k++) {
                struct lat_level *lv = &out->lv[k];
                char              nm[8];

                lv->first       = w->pl[k].first;
                lv->last        = w->pl[k].last;
                lv->ws_lo_bytes = c->pts[lv->first].ws_bytes;
                lv->ws_hi_bytes = c->pts[lv->last].ws_bytes;
                level_stats(w, c->pts, &w->pl[k], &lv->lat_mcyc);
                if (w->n_pl == 1) {
                        set_name(lv, "flat");
                        continue;
                }
                if (k + 1 == w->n_pl && !no_dram) {
                        set_name(lv, "DRAM");
                        continue;
                }
                fmt_snprintf(nm, sizeof(nm), "L%zu", k + 1);
                set_name(lv, nm);
                if (k + 1 < w->n_pl) {
                        uint64_t half;
                        lv->capacity_bytes = (half_rise_bytes(w, k, &half) + 32) & ~63ull;
                        capacity_interval(c->pts, w->pl[k].first, w->pl[k + 1].last, half,
                                          lv->capacity_bytes, &lv->capacity_lo_bytes,
                                          &lv->capacity_hi_bytes);
                        cross_check(lv, cc, n_cc, &next_cc, step);
                        if (lv->agreement == LAT_AGREE_SMALLER || lv->agreement == LAT_AGREE_LARGER)
                                out->flags |= LAT_F_CPUID_DIFFERS;
                }
        }
        if (no_dram && w->n_pl > 1)
                out->flags |= LAT_F_NO_DRAM;
}

/* Upper bound of level k: geometric mean of its p90 and the next level's p10 (the middle of
 * the gap between the two spreads on a log scale); when the spreads overlap, the geometric
 * mean of the two medians. */
static void set_bounds(struct lat_levels *out)
{
        for (size_t k = 0; k + 1 < out->n; k++) {
                const struct lat_stat *a = &out->lv[k].lat_mcyc, *b = &out->lv[k + 1].lat_mcyc;
                uint64_t               bound;

                if (a->p90 < b->p10) {
                        bound = lib_isqrt_u64(a->p90 * b->p10);
                } else {
                        out->flags |= LAT_F_OVERLAP;
                        bound = lib_isqrt_u64(a->p50 * b->p50);
                }
                if (bound < a->p50)
                        bound = a->p50;
                out->bound_mcyc[k] = bound;
        }
}

/* One figure of the curve's clock in TSC milli-ticks, core milli-cycles and ps. */
static void convert(const struct lat_curve *c, uint32_t ppm, uint64_t v, uint64_t *tick,
                    uint64_t *core, uint64_t *ps)
{
        if (c->clock == LAT_CLOCK_TSC) {
                *tick = v;
                *core = ppm ? lat_ticks_to_core(v, ppm) : 0;
                *ps   = lat_milli_to_ps(v, c->tsc_hz);
        } else {
                *core = v;
                *tick = lat_core_to_ticks(v, ppm);
                *ps   = lat_milli_to_ps(v, c->core_hz);
        }
}

static void convert_stat(const struct lat_curve *c, uint32_t ppm, const struct lat_stat *v,
                         struct lat_stat *tick, struct lat_stat *core, struct lat_stat *ps)
{
        convert(c, ppm, v->min, &tick->min, &core->min, &ps->min);
        convert(c, ppm, v->p10, &tick->p10, &core->p10, &ps->p10);
        convert(c, ppm, v->p50, &tick->p50, &core->p50, &ps->p50);
        convert(c, ppm, v->p90, &tick->p90, &core->p90, &ps->p90);
        convert(c, ppm, v->p50_lo, &tick->p50_lo, &core->p50_lo, &ps->p50_lo);
        convert(c, ppm, v->p50_hi, &tick->p50_hi, &core->p50_hi, &ps->p50_hi);
}

/* Every level and bound in TSC ticks, core cycles and ns: each level with the median core:TSC
 * ratio of its own points (the clock may differ between a cache-bound and a DRAM-bound
 * plateau), a bound with the ratio of the level below it; the curve's ratio where a level's
 * points have none. */
static void set_units(struct lv_work *w, const struct lat_curve *c, struct lat_levels *out)
{
        bool core_clock = c->clock != LAT_CLOCK_TSC;

        out->has_core  = core_clock || c->core_ppm;
        out->has_ticks = !core_clock || c->core_ppm;
        out->has_ps    = core_clock ? c->core_hz != 0 : c->tsc_hz != 0;
        for (size_t k = 0; k < out->n; k++) {
                struct lat_level *lv = &out->lv[k];
                size_t            m  = 0;

                for (size_t i = lv->first; i <= lv->last; i++)
                        if (c->pts[i].core_ppm)
                                w->tmp[m++] = c->pts[i].core_ppm;
                lib_sort_u64(w->tmp, m);
                lv->core_ppm = m ? (uint32_t)w->tmp[(m - 1) / 2] : c->core_ppm;
                convert_stat(c, lv->core_ppm, &lv->lat_mcyc, &lv->lat_tick, &lv->lat_core,
                             &lv->lat_ps);
                if (k + 1 < out->n)
                        convert(c, lv->core_ppm, out->bound_mcyc[k], &out->bound_tick[k],
                                &out->bound_core[k], &out->bound_ps[k]);
        }
}

status_t lv_detect(const struct lat_curve *c, const struct cpu_info *cpu,
                           struct lat_levels *out)
{
        struct lv_work w;

        if (!out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (!curve_ok(c))
                return ST_BAD_ARG;
        out->clock    = c->clock;
        out->clock_hz = c->clock == LAT_CLOCK_TSC ? c->tsc_hz : c->core_hz;

        lv_logs_fill(&w, c->pts, c->n);
        lv_noise_estimate(&w, c->pts, c->n, out);

        if (c->n < MIN_POINTS) {
                out->flags |= LAT_F_FEW_POINTS;
                w.pl[0] = (struct lv_plateau){ 0, c->n - 1 };
                w.n_pl  = 1;
        } else {
                const struct cpu_cache *cc[8];
                size_t   n_cc       = cpuid_caches(cpu, cc, ARRAY_SIZE(cc));
                uint64_t largest    = n_cc ? cc[n_cc - 1]->size_bytes : 0;
                size_t   max_levels = LAT_MAX_LEVELS;

                if (n_cc)
                        max_levels = c->pts[c->n - 1].ws_bytes > largest ? n_cc + 1 : n_cc;
                lv_rising_mark(&w, c->n, out);
                lv_plateaus_find(&w, c->n, out);
                /* Beyond twice the largest cache nothing but DRAM remains (TLB reach steps). */
                lv_plateaus_merge(&w, c->pts, out, max_levels, largest ? 2 * largest : 0);
        }
        if (w.n_pl == 1)
                out->flags |= LAT_F_NO_HIERARCHY;
        build_levels(&w, c, cpu, out);
        set_bounds(out);
        set_units(&w, c, out);
        if (!out->has_core)
                out->flags |= LAT_F_NO_CORE_HZ;
        return ST_OK;
}

size_t lv_classify(const struct lat_levels *l, uint64_t mcyc)
{
        if (!l || l->n == 0)
                return 0;
        for (size_t k = 0; k + 1 < l->n; k++)
                if (mcyc <= l->bound_mcyc[k])
                        return k;
        return l->n - 1;
}

const char *lv_agree_name(enum lat_agree a)
{
        return (unsigned)a < ARRAY_SIZE(agree_names) ? agree_names[a] : "unknown";
}

const char *lv_flag_name(uint64_t bit)
{
        for (unsigned i = 0; i < ARRAY_SIZE(flag_names); i++)
                if (bit == BIT_ULL(i))
                        return flag_names[i];
        return NULL;
}
