/** @file
 * The plateau stage of level detection (see levels_priv.h): log-scale the curve, estimate its
 * noise, mark the rising points, cut it into plateaus and merge those that are not separate
 * levels. Rules in docs/latency-table.md.
 */
#include "analysis/levels_priv.h"

#include "lib/fixq8.h"
#include "lib/stats.h"

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
uint32_t lv_median_range(struct lv_work *w, const uint32_t *v, size_t first, size_t last)
{
        size_t k = 0;
        for (size_t i = first; i <= last; i++)
                w->tmp[k++] = v[i];
        lib_sort_u64(w->tmp, k);
        return (uint32_t)lib_pct_nearest_rank(w->tmp, k, 50);
}

static uint32_t upper_edge(struct lv_work *w, const struct lv_plateau *p)
{
        size_t first = p->last - p->first + 1 > EDGE_POINTS ? p->last + 1 - EDGE_POINTS : p->first;
        return lv_median_range(w, w->sy, first, p->last);
}

static uint32_t lower_edge(struct lv_work *w, const struct lv_plateau *p)
{
        size_t last = p->last - p->first + 1 > EDGE_POINTS ? p->first + EDGE_POINTS - 1 : p->last;
        return lv_median_range(w, w->sy, p->first, last);
}

static int32_t jump_q8(struct lv_work *w, size_t a)
{
        return (int32_t)lower_edge(w, &w->pl[a + 1]) - (int32_t)upper_edge(w, &w->pl[a]);
}

static void merge_pair(struct lv_work *w, size_t a)
{
        w->pl[a].last = w->pl[a + 1].last;
        for (size_t i = a + 1; i + 1 < w->n_pl; i++)
                w->pl[i] = w->pl[i + 1];
        w->n_pl--;
}

void lv_logs_fill(struct lv_work *w, const struct lat_point *p, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                w->lx[i] = lib_log2_q8(p[i].ws_bytes);
                w->ly[i] = lib_log2_q8(p[i].p50_mcyc);
                w->lq[i] = lib_log2_q8(p[i].p10_mcyc ? p[i].p10_mcyc : p[i].p50_mcyc);
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
void lv_noise_estimate(struct lv_work *w, const struct lat_point *p, size_t n,
                       struct lat_levels *out)
{
        for (size_t i = 0; i < n; i++) {
                uint32_t hi = lib_log2_q8(p[i].p90_mcyc), lo = lib_log2_q8(p[i].p10_mcyc);
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

void lv_rising_mark(struct lv_work *w, size_t n, const struct lat_levels *out)
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

void lv_plateaus_find(struct lv_work *w, size_t n, struct lat_levels *out)
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
                w->pl[w->n_pl++] = (struct lv_plateau){ i, j };
                i = j + 1;
        }
        if (w->n_pl == 0) {
                /* Rising everywhere: no plateau to speak of; keep the whole curve as one. */
                w->pl[w->n_pl++] = (struct lv_plateau){ 0, n - 1 };
                out->flags |= LAT_F_TAIL_RISING;
                return;
        }
        /* A curve that ends rising significantly: its last point is the last level seen. */
        struct lv_plateau *last = &w->pl[w->n_pl - 1];
        if (last->last + 1 < n) {
                int32_t rise = (int32_t)w->sy[n - 1] - (int32_t)upper_edge(w, last);
                if (rise >= jump_threshold(out)) {
                        w->pl[w->n_pl++] = (struct lv_plateau){ n - 1, n - 1 };
                        out->flags |= LAT_F_TAIL_RISING;
                }
        }
}

/* Merge adjacent plateaus, the smallest rise first, while a rise is not significant, while
 * both sit beyond the largest cache, or while there are more plateaus than allowed. */
void lv_plateaus_merge(struct lv_work *w, const struct lat_point *p,
                       const struct lat_levels *out, size_t max_levels, uint64_t dram_from_bytes)
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
