/** @file Level detection on a latency curve (see levels.h; rules in docs/latency-table.md). */
#include "report/levels.h"
#include "lib/stats.h"

#include "lib/fmt.h"

/* All logarithms are base 2 in Q8 (256 = one octave = a factor of two). */
#define Q8 256

/* A point is "rising" when log latency grows by more than 0.35 per octave of working set,
 * measured over +-half an octave. Cache transitions rise by 1 or more per octave; shared-cache
 * and TLB slopes by 0.1 to 0.3. */
#define SLOPE_HALF_WINDOW_Q8 128
#define SLOPE_RISING_Q8      90
/* Two adjacent plateaus are separate levels only when the latency rises between their edges
 * by at least a factor of 1.3 (log2 1.3 = 0.38) and by 4 times the point-to-point noise. */
#define JUMP_MIN_Q8          97
#define JUMP_NOISE_FACTOR    4
/* Edge of a plateau: median of this many points at its end. */
#define EDGE_POINTS          3
/* Noisy: median window spread p90/p10 above 1.25, or point noise above 9 %. */
#define NOISY_SPREAD_Q8      82
#define NOISY_NOISE_Q8       32
/* Agreement with CPUID: within one sweep step plus this much rounding slack (1/64 octave). */
#define AGREE_SLACK_Q8       4
#define MIN_POINTS           5

struct plateau {
        size_t first, last;
};

struct work {
        uint32_t       lx[LAT_MAX_POINTS];   /* log2 working set */
        uint32_t       ly[LAT_MAX_POINTS];   /* log2 p50 */
        uint32_t       sy[LAT_MAX_POINTS];   /* ly, median of 3 */
        bool           rising[LAT_MAX_POINTS];
        uint64_t       tmp[LAT_MAX_POINTS];
        uint32_t       fit[LAT_MAX_POINTS];  /* ly, monotone fit (capacity search) */
        uint32_t       blk_n[LAT_MAX_POINTS];/* points per block of that fit */
        struct plateau pl[LAT_MAX_POINTS];
        size_t         n_pl;
};

/* 2^(b/256) in Q30 for b = 128, 64, ... 1. */
static const uint32_t exp2_frac_q30[8] = {
        1518500250, 1276901417, 1170923762, 1121280436,
        1097253708, 1085434106, 1079572136, 1076653033,
};

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

uint64_t rep_exp2_q8(uint32_t x)
{
        uint64_t r = 1ull << 30;
        unsigned e = x >> 8;

        for (unsigned i = 0; i < 8; i++)
                if (x & (128u >> i))
                        r = (r * exp2_frac_q30[i]) >> 30;
        if (e >= 30)
                return e - 30 >= 33 ? UINT64_MAX : r << (e - 30);
        return (r + (1ull << (29 - e))) >> (30 - e);
}

static uint64_t isqrt64(uint64_t v)
{
        uint64_t r = 0, bit = 1ull << 62;

        while (bit > v)
                bit >>= 2;
        while (bit) {
                if (v >= r + bit) {
                        v -= r + bit;
                        r = (r >> 1) + bit;
                } else {
                        r >>= 1;
                }
                bit >>= 2;
        }
        return r;
}


static uint32_t median3(uint32_t a, uint32_t b, uint32_t c)
{
        if (a > b) {
                uint32_t t = a;
                a = b;
                b = t;
        }
        return c < a ? a : c > b ? b : c;
}

/* Median of the Q8 values v[i] for i in [first, last]. */
static uint32_t median_range(struct work *w, const uint32_t *v, size_t first, size_t last)
{
        size_t k = 0;
        for (size_t i = first; i <= last; i++)
                w->tmp[k++] = v[i];
        lib_sort_u64(w->tmp, k);
        return (uint32_t)lib_pct_nearest_rank(w->tmp, k, 50);
}

static uint32_t upper_edge(struct work *w, const struct plateau *p)
{
        size_t first = p->last - p->first + 1 > EDGE_POINTS ? p->last + 1 - EDGE_POINTS : p->first;
        return median_range(w, w->sy, first, p->last);
}

static uint32_t lower_edge(struct work *w, const struct plateau *p)
{
        size_t last = p->last - p->first + 1 > EDGE_POINTS ? p->first + EDGE_POINTS - 1 : p->last;
        return median_range(w, w->sy, p->first, last);
}

static int32_t jump_q8(struct work *w, size_t a)
{
        return (int32_t)lower_edge(w, &w->pl[a + 1]) - (int32_t)upper_edge(w, &w->pl[a]);
}

static void merge_pair(struct work *w, size_t a)
{
        w->pl[a].last = w->pl[a + 1].last;
        for (size_t i = a + 1; i + 1 < w->n_pl; i++)
                w->pl[i] = w->pl[i + 1];
        w->n_pl--;
}

static void fill_logs(struct work *w, const struct lat_point *p, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                w->lx[i] = rep_log2_q8(p[i].ws_bytes);
                w->ly[i] = rep_log2_q8(p[i].p50_mcyc);
        }
        /* Median of 3 removes single outlier points; the end points take the median of the
         * three nearest, so that one outlier at either end cannot make a level either. */
        for (size_t i = 0; i < n; i++) {
                size_t c = i == 0 ? 1 : i + 1 == n ? n - 2 : i;
                w->sy[i] = n < 3 ? w->ly[i] : median3(w->ly[c - 1], w->ly[c], w->ly[c + 1]);
        }
}

/* Window spread (median log2 p90/p10) and point noise (robust sigma of the second difference
 * of log p50, 1.2 x its median absolute value). */
static void estimate_noise(struct work *w, const struct lat_point *p, size_t n,
                           struct lat_levels *out)
{
        for (size_t i = 0; i < n; i++) {
                uint32_t hi = rep_log2_q8(p[i].p90_mcyc), lo = rep_log2_q8(p[i].p10_mcyc);
                w->tmp[i] = hi > lo ? hi - lo : 0;
        }
        lib_sort_u64(w->tmp, n);
        out->spread_q8 = (uint32_t)lib_pct_nearest_rank(w->tmp, n, 50);

        size_t k = 0;
        for (size_t i = 1; i + 1 < n; i++) {
                int32_t d = 2 * (int32_t)w->ly[i] - (int32_t)w->ly[i - 1] - (int32_t)w->ly[i + 1];
                w->tmp[k++] = (uint64_t)(d < 0 ? -d : d);
        }
        if (k) {
                lib_sort_u64(w->tmp, k);
                /* tmp holds 2|d|: sigma ~ 1.2 * median|d| = 0.6 * median(2|d|). */
                out->noise_q8 = (uint32_t)(lib_pct_nearest_rank(w->tmp, k, 50) * 3 / 5);
        }
        if (out->spread_q8 > NOISY_SPREAD_Q8 || out->noise_q8 > NOISY_NOISE_Q8)
                out->flags |= LAT_F_NOISY;
}

static int32_t jump_threshold(const struct lat_levels *out)
{
        int32_t t = (int32_t)(JUMP_NOISE_FACTOR * out->noise_q8);
        return t > JUMP_MIN_Q8 ? t : JUMP_MIN_Q8;
}

static void mark_rising(struct work *w, size_t n, const struct lat_levels *out)
{
        for (size_t i = 0; i < n; i++) {
                size_t j = i, k = i;
                while (j > 0 && w->lx[i] - w->lx[j - 1] <= SLOPE_HALF_WINDOW_Q8)
                        j--;
                while (k + 1 < n && w->lx[k + 1] - w->lx[i] <= SLOPE_HALF_WINDOW_Q8)
                        k++;
                if (j == i && k == i) {
                        w->rising[i] = false;
                        continue;
                }
                if (j == i)
                        j = i > 0 ? i - 1 : i;
                if (k == i)
                        k = i + 1 < n ? i + 1 : i;
                int32_t rise  = (int32_t)w->sy[k] - (int32_t)w->sy[j];
                int32_t run   = (int32_t)(w->lx[k] - w->lx[j]);
                w->rising[i]  = run > 0 && rise * Q8 > SLOPE_RISING_Q8 * run &&
                               rise > (int32_t)(3 * out->noise_q8);
        }
}

static void find_plateaus(struct work *w, size_t n, struct lat_levels *out)
{
        w->n_pl = 0;
        for (size_t i = 0; i < n;) {
                if (w->rising[i]) {
                        i++;
                        continue;
                }
                size_t j = i;
                while (j + 1 < n && !w->rising[j + 1])
                        j++;
                w->pl[w->n_pl++] = (struct plateau){ i, j };
                i = j + 1;
        }
        if (w->n_pl == 0) {
                /* Rising everywhere: no plateau to speak of; keep the whole curve as one. */
                w->pl[w->n_pl++] = (struct plateau){ 0, n - 1 };
                out->flags |= LAT_F_TAIL_RISING;
                return;
        }
        /* A curve that ends rising significantly: its last point is the last level seen. */
        struct plateau *last = &w->pl[w->n_pl - 1];
        if (last->last + 1 < n) {
                int32_t rise = (int32_t)w->sy[n - 1] - (int32_t)upper_edge(w, last);
                if (rise >= jump_threshold(out)) {
                        w->pl[w->n_pl++] = (struct plateau){ n - 1, n - 1 };
                        out->flags |= LAT_F_TAIL_RISING;
                }
        }
}

/* Data/unified CPUID caches sorted by level, one per level. Returns their count. */
static size_t cpuid_caches(const struct cpu_info *cpu, const struct cpu_cache **cc, size_t max)
{
        size_t k = 0;

        if (!cpu)
                return 0;
        for (uint8_t lvl = 1; lvl <= 8 && k < max; lvl++)
                for (size_t i = 0; i < cpu->n_caches && i < ARRAY_SIZE(cpu->caches); i++) {
                        const struct cpu_cache *c = &cpu->caches[i];
                        if (c->level == lvl && c->size_bytes &&
                            (c->type == CACHE_DATA || c->type == CACHE_UNIFIED)) {
                                cc[k++] = c;
                                break;
                        }
                }
        return k;
}

/* Merge adjacent plateaus, the smallest rise first, while a rise is not significant, while
 * both sit beyond the largest cache, or while there are more plateaus than allowed. */
static void merge_plateaus(struct work *w, const struct lat_point *p, const struct lat_levels *out,
                           size_t max_levels, uint64_t dram_from_bytes)
{
        while (w->n_pl > 1) {
                size_t  best   = 0;
                int32_t best_j = 0;
                bool    forced = false;

                for (size_t a = 0; a + 1 < w->n_pl; a++) {
                        int32_t j = jump_q8(w, a);
                        if (dram_from_bytes && p[w->pl[a].first].ws_bytes > dram_from_bytes) {
                                best   = a;
                                forced = true;
                                break;
                        }
                        if (a == 0 || j < best_j) {
                                best   = a;
                                best_j = j;
                        }
                }
                if (!forced && best_j >= jump_threshold(out) && w->n_pl <= max_levels)
                        break;
                merge_pair(w, best);
        }
}

static void level_stats(struct work *w, const struct lat_point *p, const struct plateau *pl,
                        struct lat_stat *s)
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
}

static uint64_t mcyc_to_ps(uint64_t mcyc, uint64_t core_hz)
{
        /* ps = mcyc / 1000 / hz * 1e12 = mcyc * 1e9 / hz; mcyc < 1.8e10 keeps it in range. */
        if (!core_hz)
                return 0;
        if (mcyc > UINT64_MAX / 1000000000ull)
                return UINT64_MAX;
        return (mcyc * 1000000000ull + core_hz / 2) / core_hz;
}

/* Non-decreasing least-squares fit of ly[first..last] into fit[] (pool adjacent violators):
 * blocks of points whose mean falls below the block before them are pooled. A transition
 * measured on a shared machine wobbles (a point 50 % up, the next back down); the monotone
 * fit averages such wobbles instead of letting the first one decide where the rise is. */
static void monotone_fit(struct work *w, size_t first, size_t last)
{
        size_t nb = 0, i = first;

        for (size_t k = first; k <= last; k++) {
                w->tmp[nb]   = w->ly[k]; /* block sums */
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
 * in cycles, between the two plateaus' median latencies, i.e. where half the loads miss the
 * faster level (latency is linear in the miss fraction). A physically indexed cache fed
 * 4 KiB pages at random spills some sets early and others late; half the loads miss at about
 * its capacity. The half-way point in log (the geometric mean) lies at a third of the misses
 * and came out 10-30 % low on this machine's L2. Found on the monotone fit of log latency over
 * both plateaus, interpolated in log-log between the two points bracketing it. */
static uint64_t half_rise_bytes(struct work *w, size_t a)
{
        const struct plateau *A = &w->pl[a], *B = &w->pl[a + 1];
        uint64_t lo = rep_exp2_q8(median_range(w, w->ly, A->first, A->last));
        uint64_t hi = rep_exp2_q8(median_range(w, w->ly, B->first, B->last));
        uint32_t t  = rep_log2_q8(lo / 2 + hi / 2);
        size_t   i  = A->first;

        monotone_fit(w, A->first, B->last);
        while (i < B->last && w->fit[i] < t)
                i++;
        if (i == A->first || w->fit[i] <= w->fit[i - 1] || w->fit[i] < t)
                return rep_exp2_q8(w->lx[i]);
        /* fit[i-1] < t <= fit[i] */
        uint32_t dx = w->lx[i] - w->lx[i - 1];
        uint32_t x  = w->lx[i - 1] +
                     (uint32_t)((uint64_t)(t - w->fit[i - 1]) * dx / (w->fit[i] - w->fit[i - 1]));
        return rep_exp2_q8(x);
}

/* The sweep's base step: its coarsest step between adjacent points (refinement only adds
 * points, so this is the geometric step the sweep was planned with). */
static uint32_t sweep_step_q8(const struct work *w, size_t n)
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
        uint32_t lx   = rep_log2_q8(lv->capacity_bytes);
        size_t   best = n_cc;
        int32_t  bd   = 0;

        for (size_t i = *next_cc; i < n_cc; i++) {
                int32_t d = (int32_t)lx - (int32_t)rep_log2_q8(cc[i]->size_bytes);
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

static void build_levels(struct work *w, const struct lat_curve *c, const struct cpu_info *cpu,
                         struct lat_levels *out)
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
                lv->lat_ps = (struct lat_stat){
                        mcyc_to_ps(lv->lat_mcyc.min, c->core_hz), mcyc_to_ps(lv->lat_mcyc.p10, c->core_hz),
                        mcyc_to_ps(lv->lat_mcyc.p50, c->core_hz), mcyc_to_ps(lv->lat_mcyc.p90, c->core_hz),
                };
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
                        lv->capacity_bytes = (half_rise_bytes(w, k) + 32) & ~63ull;
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
static void set_bounds(struct lat_levels *out, uint64_t core_hz)
{
        for (size_t k = 0; k + 1 < out->n; k++) {
                const struct lat_stat *a = &out->lv[k].lat_mcyc, *b = &out->lv[k + 1].lat_mcyc;
                uint64_t               bound;

                if (a->p90 < b->p10) {
                        bound = isqrt64(a->p90 * b->p10);
                } else {
                        out->flags |= LAT_F_OVERLAP;
                        bound = isqrt64(a->p50 * b->p50);
                }
                if (bound < a->p50)
                        bound = a->p50;
                out->bound_mcyc[k] = bound;
                out->bound_ps[k]   = mcyc_to_ps(bound, core_hz);
        }
}

uint32_t rep_log2_q8(uint64_t v)
{
        uint32_t e, frac = 0;
        uint64_t m;

        if (v <= 1)
                return 0;
        e = 63 - (uint32_t)__builtin_clzll(v);
        m = e >= 31 ? v >> (e - 31) : v << (31 - e); /* [2^31, 2^32): mantissa in Q31 */
        for (unsigned b = 0; b < 8; b++) {
                m = (m * m) >> 31;
                frac <<= 1;
                if (m >= (1ull << 32)) {
                        m >>= 1;
                        frac |= 1;
                }
        }
        return e * Q8 + frac;
}

status_t rep_levels_detect(const struct lat_curve *c, const struct cpu_info *cpu,
                           struct lat_levels *out)
{
        struct work w;

        if (!out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (!curve_ok(c))
                return ST_BAD_ARG;
        if (!c->core_hz)
                out->flags |= LAT_F_NO_CORE_HZ;
        out->clock    = c->clock;
        out->clock_hz = c->core_hz;

        fill_logs(&w, c->pts, c->n);
        estimate_noise(&w, c->pts, c->n, out);

        if (c->n < MIN_POINTS) {
                out->flags |= LAT_F_FEW_POINTS;
                w.pl[0] = (struct plateau){ 0, c->n - 1 };
                w.n_pl  = 1;
        } else {
                const struct cpu_cache *cc[8];
                size_t   n_cc       = cpuid_caches(cpu, cc, ARRAY_SIZE(cc));
                uint64_t largest    = n_cc ? cc[n_cc - 1]->size_bytes : 0;
                size_t   max_levels = LAT_MAX_LEVELS;

                if (n_cc)
                        max_levels = c->pts[c->n - 1].ws_bytes > largest ? n_cc + 1 : n_cc;
                mark_rising(&w, c->n, out);
                find_plateaus(&w, c->n, out);
                /* Beyond twice the largest cache nothing but DRAM remains (TLB reach steps). */
                merge_plateaus(&w, c->pts, out, max_levels, largest ? 2 * largest : 0);
        }
        if (w.n_pl == 1)
                out->flags |= LAT_F_NO_HIERARCHY;
        build_levels(&w, c, cpu, out);
        set_bounds(out, c->core_hz);
        return ST_OK;
}

size_t rep_levels_classify(const struct lat_levels *l, uint64_t mcyc)
{
        if (!l || l->n == 0)
                return 0;
        for (size_t k = 0; k + 1 < l->n; k++)
                if (mcyc <= l->bound_mcyc[k])
                        return k;
        return l->n - 1;
}

const char *lat_agree_name(enum lat_agree a)
{
        return (unsigned)a < ARRAY_SIZE(agree_names) ? agree_names[a] : "unknown";
}

const char *lat_flag_name(uint64_t bit)
{
        for (unsigned i = 0; i < ARRAY_SIZE(flag_names); i++)
                if (bit == BIT_ULL(i))
                        return flag_names[i];
        return NULL;
}
