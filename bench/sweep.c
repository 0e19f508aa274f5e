/** @file Sweep planning, refinement and per-point statistics (see sweep.h). */
#include "bench/sweep.h"
#include "lib/stats.h"

#include <stdbool.h>

#include "boot/plat.h"

#define FIX_ONE   65536u /* 1.0 in 16.16 */
#define FIX_SHIFT 16
#define DEFAULT_LINE_BYTES 64u
#define NO_CACHE_GUESS_BYTES (16 * MiB)
#define MAX_REFINE_CANDIDATES 64

static const struct bench_profile_desc profiles[BENCH_PROFILE__COUNT] = {
        /* QEMU TCG has no caches and emulates each load in software: a short range with few
         * loads per window, so that the whole sweep stays well under a minute there. */
        [BENCH_PROFILE_QUICK] = { .name                  = "quick",
                                  .min_bytes             = 4 * KiB,
                                  .max_bytes_cap         = 4 * MiB,
                                  .steps_per_octave      = 4,
                                  .fine_steps_per_octave = 8,
                                  .iters_per_run         = 16,
                                  .max_refine_points     = 8,
                                  .warm_max_loads        = 64 * KiB },
        [BENCH_PROFILE_FULL]  = { .name                  = "full",
                                  .min_bytes             = 4 * KiB,
                                  .max_bytes_cap         = 0,
                                  .steps_per_octave      = 4,
                                  .fine_steps_per_octave = 16,
                                  .iters_per_run         = 512,
                                  .max_refine_points     = 40,
                                  .warm_max_loads        = 1 * MiB },
};

/* x^e in 32.32 for 1.0 <= x <= 2.0, e small enough that x^e < 2^31. */
static unsigned __int128 pow_q32(uint64_t x, uint32_t e)
{
        unsigned __int128 r = (unsigned __int128)1 << 32;

        while (e--)
                r = (r * x) >> 32;
        return r;
}

/* 2^(j/s) in 16.16 (rounded), 0 <= j <= s: bisection for the largest 32.32 x with
 * x^s <= 2^j, which keeps the error below one unit of 16.16. */
static uint32_t pow2_frac_fixed(uint32_t j, uint32_t s)
{
        uint64_t          lo = 1ull << 32, hi = 2ull << 32;
        unsigned __int128 want = (unsigned __int128)1 << (32 + j);

        if (j >= s)
                return (uint32_t)FIX_ONE << (j / s); /* j == s: exactly 2^(j/s) */
        while (lo < hi) {
                uint64_t mid = lo + (hi - lo + 1) / 2;
                if (pow_q32(mid, s) <= want)
                        lo = mid;
                else
                        hi = mid - 1;
        }
        return (uint32_t)((lo + (1u << 15)) >> 16);
}

static uint64_t round_line(uint64_t v, uint32_t line)
{
        return (v + line / 2) / line * line;
}

/* floor(sqrt(a * b)) without overflow. */
static uint64_t geo_mid(uint64_t a, uint64_t b)
{
        unsigned __int128 p = (unsigned __int128)a * b;
        uint64_t          lo = a < b ? a : b, hi = a < b ? b : a;

        while (lo < hi) {
                uint64_t m = lo + (hi - lo + 1) / 2;
                if ((unsigned __int128)m * m <= p)
                        lo = m;
                else
                        hi = m - 1;
        }
        return lo;
}

const struct bench_profile_desc *bench_profile_desc(enum bench_profile p)
{
        return (unsigned)p < BENCH_PROFILE__COUNT ? &profiles[p] : NULL;
}

const char *bench_profile_name(enum bench_profile p)
{
        return (unsigned)p < BENCH_PROFILE__COUNT ? profiles[p].name : "unknown";
}

uint64_t bench_plan_max_bytes(const struct cpu_info *cpu, uint64_t asked_bytes,
                              uint64_t avail_bytes, uint64_t cap_bytes)
{
        uint64_t largest = 0, max = asked_bytes;

        for (size_t i = 0; cpu && i < cpu->n_caches && i < ARRAY_SIZE(cpu->caches); i++)
                if (cpu->caches[i].type != CACHE_INST && cpu->caches[i].size_bytes > largest)
                        largest = cpu->caches[i].size_bytes;
        if (!max)
                max = 4 * (largest ? largest : NO_CACHE_GUESS_BYTES);
        if (avail_bytes && avail_bytes < max)
                max = avail_bytes;
        if (cap_bytes && cap_bytes < max)
                max = cap_bytes;
        max &= ~(4 * KiB - 1);
        return max < 4 * KiB ? 4 * KiB : max;
}

uint32_t bench_root2_fixed(uint32_t steps)
{
        return pow2_frac_fixed(1, steps ? steps : 1);
}

status_t bench_plan_sweep(uint64_t min_bytes, uint64_t max_bytes, uint32_t steps_per_octave,
                          uint32_t line_bytes, uint64_t *ws, size_t cap, size_t *n)
{
        uint32_t mult[64];

        if (!n || (!ws && cap))
                return ST_BAD_ARG;
        *n = 0;
        line_bytes = line_bytes ? line_bytes : DEFAULT_LINE_BYTES;
        min_bytes  = round_line(min_bytes, line_bytes);
        max_bytes  = max_bytes / line_bytes * line_bytes;
        if (!steps_per_octave || steps_per_octave > ARRAY_SIZE(mult) || !min_bytes ||
            max_bytes < min_bytes || max_bytes >> 56)
                return ST_BAD_ARG;
        for (uint32_t j = 0; j < steps_per_octave; j++)
                mult[j] = pow2_frac_fixed(j, steps_per_octave);

        uint64_t last = 0;
        for (uint32_t o = 0; (min_bytes << o) <= max_bytes; o++) {
                for (uint32_t j = 0; j < steps_per_octave; j++) {
                        uint64_t v = round_line(((min_bytes << o) * mult[j]) >> FIX_SHIFT,
                                                line_bytes);
                        if (v > max_bytes)
                                break;
                        if (v <= last)
                                continue;
                        if (*n == cap)
                                return ST_NO_SPACE;
                        ws[(*n)++] = last = v;
                }
        }
        if (last < max_bytes) {
                if (*n == cap)
                        return ST_NO_SPACE;
                ws[(*n)++] = max_bytes;
        }
        return ST_OK;
}

size_t bench_plan_refine(const struct lat_point *pts, size_t n, const struct bench_refine_cfg *cfg,
                         uint64_t *out, size_t cap)
{
        struct cand {
                uint64_t mid, score;
        } c[MAX_REFINE_CANDIDATES];
        size_t   n_c = 0, n_out = 0;
        uint32_t line, r;

        if (!pts || !cfg || !out || n < 2)
                return 0;
        line = cfg->line_bytes ? cfg->line_bytes : DEFAULT_LINE_BYTES;
        r    = bench_root2_fixed(cfg->fine_steps_per_octave);

        for (size_t i = 0; i + 1 < n; i++) {
                uint64_t lo = pts[i].ws_bytes, hi = pts[i + 1].ws_bytes;
                uint64_t a = pts[i].p50_mcyc, b = pts[i + 1].p50_mcyc;

                if (b <= a || (b - a) <= cfg->jump_min_mcyc ||
                    (unsigned __int128)(b - a) * 1000 <= (unsigned __int128)a * cfg->jump_permille)
                        continue;
                /* Noise is not a capacity: the windows of the two points must not overlap,
                 * and the rise must last (the next point keeps at least half of it). */
                if (pts[i + 1].p10_mcyc <= pts[i].p90_mcyc)
                        continue;
                if (i + 2 < n && pts[i + 2].p50_mcyc < b - (b - a) / 2)
                        continue;
                if ((unsigned __int128)hi * FIX_ONE <= (unsigned __int128)lo * r)
                        continue; /* already within one step */

                uint64_t mid = round_line(geo_mid(lo, hi), line);
                if (mid <= lo || mid >= hi)
                        continue; /* a line apart: cannot refine further */

                struct cand k = { mid, a ? (b - a) * 1000 / a : UINT64_MAX };
                if (n_c < ARRAY_SIZE(c)) {
                        c[n_c++] = k;
                } else {
                        size_t w = 0;
                        for (size_t j = 1; j < n_c; j++)
                                if (c[j].score < c[w].score)
                                        w = j;
                        if (k.score > c[w].score)
                                c[w] = k;
                }
        }
        /* Largest jumps first, then ascending working set. */
        while (n_out < cap && n_c) {
                size_t best = 0;
                for (size_t j = 1; j < n_c; j++)
                        if (c[j].score > c[best].score)
                                best = j;
                out[n_out++] = c[best].mid;
                c[best]      = c[--n_c];
        }
        lib_sort_u64(out, n_out);
        return n_out;
}

bool bench_point_settled(const struct lat_point *pt, uint32_t permille)
{
        return pt && pt->p50_mcyc && pt->p50_hi_mcyc >= pt->p50_lo_mcyc &&
               (pt->p50_hi_mcyc - pt->p50_lo_mcyc) * 1000 <= 2ull * permille * pt->p50_mcyc;
}

bool bench_point_outlier(const struct lat_point *pts, size_t n, size_t i, uint32_t permille)
{
        uint64_t b, lo, hi, near, d;

        if (!pts || i == 0 || i + 1 >= n)
                return false;
        lo = pts[i - 1].p50_mcyc, hi = pts[i + 1].p50_mcyc, b = pts[i].p50_mcyc;
        if (lo > hi) {
                uint64_t t = lo;
                lo = hi, hi = t;
        }
        if (b >= lo && b <= hi)
                return false; /* between its neighbours: a rise or a plateau */
        near = b > hi ? hi : lo;
        d    = b > near ? b - near : near - b;
        /* beyond the margin, and beyond the point's own confidence interval */
        return d * 1000 > (uint64_t)permille * near &&
               (near < pts[i].p50_lo_mcyc || near > pts[i].p50_hi_mcyc);
}

status_t bench_point_stats(uint64_t *lat, size_t n, struct lat_point *pt)
{
        static const unsigned pct[] = { 10, 50, 90 };
        uint64_t             *dst[] = { &pt->p10_mcyc, &pt->p50_mcyc, &pt->p90_mcyc };

        if (!lat || !pt || !n)
                return ST_BAD_ARG;
        lib_sort_u64(lat, n);
        pt->min_mcyc  = lat[0];
        pt->n_windows = (uint32_t)n;
        for (size_t k = 0; k < ARRAY_SIZE(pct); k++)
                *dst[k] = lib_pct_nearest_rank(lat, n, pct[k]);
        size_t lo, hi;
        lib_median_ci_ranks(n, &lo, &hi);
        pt->p50_lo_mcyc = lat[lo];
        pt->p50_hi_mcyc = lat[hi];
        return ST_OK;
}

status_t bench_curve_insert(struct lat_point *pts, size_t *n, size_t cap,
                            const struct lat_point *pt)
{
        size_t i = 0;

        if (!pts || !n || !pt)
                return ST_BAD_ARG;
        while (i < *n && pts[i].ws_bytes < pt->ws_bytes)
                i++;
        if (i < *n && pts[i].ws_bytes == pt->ws_bytes) {
                pts[i] = *pt;
                return ST_OK;
        }
        if (*n == cap)
                return ST_NO_SPACE;
        memmove(&pts[i + 1], &pts[i], (*n - i) * sizeof(*pts));
        pts[i] = *pt;
        (*n)++;
        return ST_OK;
}
