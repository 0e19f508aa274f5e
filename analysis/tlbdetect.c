/** @file TLB curve analysis and CPUID cross-check (see tlbdetect.h; the reports are in
 * tlbdetect_out.c). */
#include "analysis/tlbdetect.h"
#include "lib/stats.h"

#include "boot/plat.h"

#define Y_MAX (1ull << 24) /* clamp: keeps the least-squares sums inside 64 bits */

/* A piece of the curve: points [a, b). */
struct seg {
        size_t   a, b;
        uint64_t y;   /* median of y over the piece */
        uint64_t abs; /* median of the uncorrected p50 */
        bool     open; /* the last piece, still rising where the sweep ends */
};

/* ---- statistics ---- */


/* Median of v[a..b) (lower median); v untouched. */
static uint64_t median(const uint64_t *v, size_t a, size_t b)
{
        uint64_t t[TLBDET_MAX_POINTS];
        size_t   n = b - a;

        memcpy(t, v + a, n * sizeof(*t));
        lib_sort_u64(t, n);
        return t[(n - 1) / 2];
}

static uint64_t absdiff(uint64_t x, uint64_t y)
{
        return x > y ? x - y : y - x;
}

/* Sum of squared deviations from the mean of points [a, b), from prefix sums. */
static uint64_t sse(const uint64_t *s1, const uint64_t *s2, size_t a, size_t b)
{
        uint64_t m = b - a, x = s1[b] - s1[a], xx = s2[b] - s2[a];
        uint64_t c = x * (x / m); /* <= x * Y_MAX: no overflow */

        return xx > c ? xx - c : 0;
}

/* ---- segmentation ---- */

/* What tidy() needs to judge pieces. */
struct judge {
        const uint64_t *y, *abs_y;
        const uint32_t *x; /* pages per point */
        uint64_t        step;
        uint32_t        pct, min_points;
};

static void seg_set(const struct judge *j, struct seg *s, size_t a, size_t b)
{
        s->a    = a;
        s->b    = b;
        s->y    = median(j->y, a, b);
        s->abs  = median(j->abs_y, a, b);
        s->open = false;
}


/* Least squares with a penalty @lambda per piece (optimal partitioning, O(n^2)). */
static size_t partition(const struct judge *jd, size_t n, uint64_t lambda, struct seg *out)
{
        const uint64_t *y = jd->y;
        uint64_t s1[TLBDET_MAX_POINTS + 1], s2[TLBDET_MAX_POINTS + 1];
        uint64_t f[TLBDET_MAX_POINTS + 1];
        size_t   from[TLBDET_MAX_POINTS + 1], cut[TLBDET_MAX_POINTS + 1], k = 0;

        s1[0] = s2[0] = 0;
        for (size_t i = 0; i < n; i++) {
                s1[i + 1] = s1[i] + y[i];
                s2[i + 1] = s2[i] + y[i] * y[i];
        }
        f[0] = 0;
        for (size_t j = 1; j <= n; j++) {
                f[j] = UINT64_MAX;
                for (size_t i = 0; i < j; i++) {
                        uint64_t c = f[i] + sse(s1, s2, i, j) + lambda;
                        if (c < f[j]) {
                                f[j]    = c;
                                from[j] = i;
                        }
                }
        }
        for (size_t j = n; j > 0; j = from[j])
                cut[k++] = j;
        /* cut[] holds the piece ends from the last backwards. */
        size_t a = 0, m = 0;
        while (k--) {
                seg_set(jd, &out[m], a, cut[k]);
                a = cut[k];
                m++;
        }
        return m;
}

static void seg_remove(struct seg *s, size_t *n, size_t i)
{
        memmove(&s[i], &s[i + 1], (*n - i - 1) * sizeof(*s));
        (*n)--;
}

/* Smallest difference that counts next to piece @s: the absolute step, or pct of its latency
 * (a page walk that grows slowly as its PTEs leave the cache is one class, not many). */
static uint64_t thr(const struct judge *j, const struct seg *s)
{
        uint64_t r = s->abs * j->pct / 100;

        return r > j->step ? r : j->step;
}

/* A plateau is long enough and does not climb: its first and last thirds agree. Long enough
 * is min_points points spanning at least half an octave of N: a real TLB level holds several
 * times the entries of the one below it (72 and 3072 on Zen 4, 64 and 1536-2048 on Intel
 * cores), while a virtual machine's nested walks show short shelves (a few points, 76 to 91
 * 2 MiB pages on one EPYC guest) that come and go from run to run. */
static bool is_plateau(const struct judge *j, const struct seg *s)
{
        size_t   q  = (s->b - s->a) / 3;
        uint64_t lo = j->x[s->a], hi = j->x[s->b - 1];

        if (s->b - s->a < j->min_points || hi * hi < 2 * lo * lo)
                return false;
        q = q ? q : 1;
        return absdiff(median(j->y, s->a, s->a + q), median(j->y, s->b - q, s->b)) < thr(j, s);
}

/* Whether piece @p i and every piece after it are neither plateaus nor open. */
static bool trailing(const struct judge *j, const struct seg *s, size_t n, size_t i)
{
        for (size_t k = i; k < n; k++)
                if (s[k].open || is_plateau(j, &s[k]))
                        return false;
        return true;
}

/* Merge neighbours closer than the threshold and drop pieces that are not plateaus: those
 * between two plateaus are transitions. A last one above the plateau before it means the
 * sweep ended inside a step: the pieces of that rise become one open piece (flag
 * TLBDET_F_STILL_RISING), kept as the last plateau, so that a run whose last points happen to
 * level off and one whose last points still climb find the same levels. */
static uint32_t tidy(const struct judge *j, struct seg *s, size_t *n)
{
        uint32_t flags = 0;
        bool     changed;

        do {
                changed = false;
                for (size_t i = 0; i + 1 < *n; i++) {
                        const struct seg *lo = s[i].abs < s[i + 1].abs ? &s[i] : &s[i + 1];
                        if (absdiff(s[i].y, s[i + 1].y) < thr(j, lo)) {
                                seg_set(j, &s[i], s[i].a, s[i + 1].b);
                                seg_remove(s, n, i + 1);
                                changed = true;
                                break;
                        }
                }
                if (changed)
                        continue;
                for (size_t i = 0; i < *n && *n > 1; i++) {
                        if (s[i].open || is_plateau(j, &s[i]))
                                continue;
                        if (i == 0 && s[0].b - s[0].a < j->min_points) {
                                seg_set(j, &s[1], s[0].a, s[1].b); /* the first few N */
                        } else if (i + 1 < *n && trailing(j, s, *n, i)) {
                                /* the rise at the end of the sweep, in one piece */
                                seg_set(j, &s[i], s[i].a, s[i + 1].b);
                                seg_remove(s, n, i + 1);
                                changed = true;
                                break;
                        } else if (i + 1 == *n && s[i].y > s[i - 1].y) {
                                flags |= TLBDET_F_STILL_RISING;
                                if (s[i].b - s[i].a >= j->min_points) {
                                        s[i].open = true;
                                        continue;
                                }
                        }
                        seg_remove(s, n, i);
                        changed = true;
                        break;
                }
        } while (changed);
        return flags;
}

/* Index of the last sweep point <= v, or -1. */
static long sweep_index(const struct tlb_curve *c, uint64_t v)
{
        long i = -1;

        for (size_t k = 0; k < c->n && c->pts[k].n_pages <= v; k++)
                i = (long)k;
        return i;
}

/* The TLB types a side's accesses go through (bits for cpu_tlb_entries()). */
static unsigned side_types(enum tlb_side side)
{
        if (side == TLB_SIDE_DATA)
                return 1u << TLB_DATA | 1u << TLB_UNIFIED | 1u << TLB_LOAD;
        return 1u << TLB_INST | 1u << TLB_UNIFIED;
}

static uint32_t page_bit(uint64_t page_bytes)
{
        switch (page_bytes) {
        case 4 * KiB: return TLB_PG_4K;
        case 2 * MiB: return TLB_PG_2M | TLB_PG_4M;
        case 1 * GiB: return TLB_PG_1G;
        default: return 0;
        }
}

/* ---- public ---- */

struct tlbdet_params tlbdet_default_params(void)
{
        return (struct tlbdet_params){
                .min_points = 3, .min_step_mcyc = 1500, .min_step_pct = 25, .noise_mult = 4,
                .max_levels = 2,
        };
}

/* Points must ascend in n_pages and each have windows; *ctl: every point has a control. */
static status_t check_points(const struct tlb_curve *c, bool *ctl)
{
        *ctl = true;
        for (size_t i = 0; i < c->n; i++) {
                if (i && c->pts[i].n_pages <= c->pts[i - 1].n_pages)
                        return ST_BAD_ARG;
                if (!c->pts[i].n_windows)
                        return ST_BAD_DATA;
                if (!c->pts[i].ctl_p50_mcyc)
                        *ctl = false;
        }
        return ST_OK;
}

/* Per point, the latency the partition works on (@p y: less the control's when @p ctl, at
 * most Y_MAX) and the plain median (@p abs_y). */
static void point_lat(const struct tlb_curve *c, bool ctl, uint64_t *y, uint64_t *abs_y)
{
        for (size_t i = 0; i < c->n; i++) {
                const struct tlb_point *pt = &c->pts[i];
                uint64_t v = ctl ? (pt->p50_mcyc > pt->ctl_p50_mcyc ? pt->p50_mcyc - pt->ctl_p50_mcyc
                                                                    : 0)
                                 : pt->p50_mcyc;
                y[i]     = v < Y_MAX ? v : Y_MAX;
                abs_y[i] = pt->p50_mcyc;
        }
}

/* The noise of @p y[0..n) and the smallest step that counts, into out->noise_mcyc and
 * out->step_mcyc; returns the step. */
static uint64_t set_step(struct tlb_result *out, const uint64_t *y, size_t n,
                         const struct tlbdet_params *par)
{
        uint64_t d[TLBDET_MAX_POINTS], step;

        /* Noise: median point-to-point change; steps are few, so the median ignores them.
         * For Gaussian noise it is 0.954 sigma, hence the 21/20. */
        for (size_t i = 0; i + 1 < n; i++)
                d[i] = absdiff(y[i + 1], y[i]);
        out->noise_mcyc = median(d, 0, n - 1) * 21 / 20;
        step            = par->min_step_mcyc;
        if (out->noise_mcyc * par->noise_mult > step)
                step = out->noise_mcyc * par->noise_mult;
        if (step > Y_MAX)
                step = Y_MAX;
        out->step_mcyc = step;
        return step;
}

/* The @p ns pieces @p s as plateaus of @p out, classified by their rank. */
static void set_plateaus(struct tlb_result *out, const struct tlb_curve *c, const struct seg *s,
                         size_t ns)
{
        for (size_t k = 0; k < ns; k++) {
                struct tlb_plateau *pl = &out->plat[k];

                pl->first_n    = c->pts[s[k].a].n_pages;
                pl->last_n     = c->pts[s[k].b - 1].n_pages;
                pl->n_points   = (uint32_t)(s[k].b - s[k].a);
                pl->lat_mcyc   = s[k].abs;
                pl->added_mcyc = s[k].y > s[0].y ? s[k].y - s[0].y : 0;
                pl->cls        = k == 0 ? TLB_CLASS_L1_HIT
                                 : ns == 2 ? TLB_CLASS_MISS
                                 : k == 1 ? TLB_CLASS_L2_HIT : TLB_CLASS_WALK;
                if (k && s[k].y < s[k - 1].y)
                        out->flags |= TLBDET_F_NON_MONOTONIC;
        }
        out->n_plat = ns;
}

/* Up to @p max_levels levels, each sized where @p y first crosses the middle of the step up
 * to the next plateau (an open piece's median stands for the plateau the sweep did not reach:
 * on a rise that levels off in a shoulder it lies there, and where the rise begins moves with
 * a set-associative TLB's conflict misses from run to run, its middle does not). */
static void set_levels(struct tlb_result *out, const struct tlb_curve *c, const struct seg *s,
                       const uint64_t *y, uint32_t max_levels)
{
        size_t ns = out->n_plat;

        out->n_lvl = ns ? ns - 1 : 0;
        if (out->n_lvl > max_levels)
                out->n_lvl = max_levels; /* the plateaus above are the walk growing */
        for (size_t k = 0; k < out->n_lvl; k++) {
                uint64_t mid = (s[k].y + s[k + 1].y) / 2;
                size_t   i   = s[k + 1].a;

                if (s[k + 1].open) /* the rise is inside the open piece: its first point above */
                        while (i + 1 < s[k + 1].b && y[i] <= mid)
                                i++;
                else
                        while (i - 1 > s[k].a && y[i - 1] > mid)
                                i--;
                out->lvl[k].entries = c->pts[i - 1].n_pages;
                out->lvl[k].next_n  = c->pts[i].n_pages;
        }
}

status_t tlbdet_detect(const struct tlb_curve *c, const struct tlbdet_params *p,
                    struct tlb_result *out)
{
        struct tlbdet_params par = p ? *p : tlbdet_default_params();
        uint64_t             y[TLBDET_MAX_POINTS], abs_y[TLBDET_MAX_POINTS];
        struct seg           s[TLBDET_MAX_POINTS];
        size_t               n, ns;
        bool                 ctl;
        uint64_t             step;
        status_t             st;

        if (!c || !out || !c->pts || c->n < 2 || c->n > TLBDET_MAX_POINTS || !par.min_points ||
            !par.max_levels)
                return ST_BAD_ARG;
        if ((st = check_points(c, &ctl)) != ST_OK)
                return st;
        n = c->n;
        memset(out, 0, sizeof(*out));
        out->side         = c->side;
        out->pte          = c->pte;
        out->page_bytes   = c->page_bytes;
        out->n_points     = (uint32_t)n;
        out->max_n        = c->pts[n - 1].n_pages;
        out->passes       = c->passes;
        out->uses_control = ctl;
        point_lat(c, ctl, y, abs_y);
        step = set_step(out, y, n, &par);

        uint32_t x[TLBDET_MAX_POINTS];
        for (size_t i = 0; i < n; i++)
                x[i] = c->pts[i].n_pages;
        struct judge jd = { y, abs_y, x, step, par.min_step_pct, par.min_points };
        ns = partition(&jd, n, step * step, s);
        out->flags |= tidy(&jd, s, &ns);
        if (ns > TLBDET_MAX_PLATEAUS)
                ns = TLBDET_MAX_PLATEAUS; /* more is not a TLB hierarchy; keep the first */
        set_plateaus(out, c, s, ns);
        set_levels(out, c, s, y, par.max_levels);
        return ST_OK;
}

status_t tlbdet_crosscheck(struct tlb_result *r, const struct tlb_curve *c,
                        const struct cpu_info *cpu)
{
        struct {
                uint32_t    entries;
                const char *source;
        } cl[4];
        size_t   m   = 0;
        uint32_t bit;

        if (!r || !c || !c->pts || !c->n)
                return ST_BAD_ARG;
        if (!cpu) {
                r->flags |= TLBDET_F_NOT_CHECKED;
                return ST_OK;
        }
        bit = page_bit(r->page_bytes);
        for (uint8_t level = 1; level <= 4; level++) {
                const char *src  = NULL;
                uint32_t    best = cpu_tlb_entries(cpu, level, side_types(r->side), bit, &src);

                if (best) {
                        cl[m].entries  = best;
                        cl[m++].source = src;
                }
        }
        for (size_t j = 0; j < r->n_lvl; j++) {
                struct tlb_level *l = &r->lvl[j];

                if (j >= m) {
                        l->verdict = TLB_NO_CPUID;
                        if (m)
                                r->flags |= TLBDET_F_EXTRA_LEVEL;
                        continue;
                }
                l->cpuid_entries = cl[j].entries;
                l->cpuid_source  = cl[j].source;
                long di          = sweep_index(c, l->entries) - sweep_index(c, cl[j].entries);
                l->verdict       = di >= -1 && di <= 1 ? TLB_AGREE : TLB_DISAGREE;
                if (l->verdict == TLB_DISAGREE)
                        r->flags |= TLBDET_F_DISAGREE;
        }
        for (size_t j = r->n_lvl; j < m; j++)
                if (cl[j].entries < r->max_n)
                        r->flags |= TLBDET_F_MISSING_LEVEL;
        if (r->n_plat == 2 && m) /* one step: which miss class is above it? */
                r->plat[1].cls = m >= 2 && cl[1].entries >= r->max_n ? TLB_CLASS_L2_HIT
                                                                      : TLB_CLASS_WALK;
        return ST_OK;
}

status_t tlbdet_class_cost(const struct tlb_result *r, enum tlb_class cls, uint64_t *mcyc)
{
        if (!r || !mcyc || (unsigned)cls >= TLB_CLASS__COUNT)
                return ST_BAD_ARG;
        for (size_t k = 0; k < r->n_plat; k++) {
                if (r->plat[k].cls == cls) {
                        *mcyc = r->plat[k].added_mcyc;
                        return ST_OK;
                }
        }
        return ST_NOT_FOUND;
}
