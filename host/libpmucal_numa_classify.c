/** @file libpmucal, remote-memory and cache-to-cache part: the buckets of a table (levels,
 * DRAM levels, C2C classes) with their fit ranges, classification by latency and by data
 * source (see include/pmucal/numa.h). Host only: libc. */
#include "host/include/pmucal/numa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BUCKETS (64 + PMUCAL_NUMA_MAX_LEVELS + PMUCAL_C2C_MAX_CLASSES)

enum bkind { B_LEVEL, B_LAST, B_DRAM, B_C2C };

struct bucket {
        char       name[40];
        enum bkind kind;
        unsigned   cls;                 /* B_DRAM: distance class */
        const char *topology, *ckind;   /* B_C2C */
        double     p50, lo, hi, upper;  /* upper: latency-only bound (B_LEVEL, B_DRAM) */
        bool       has_upper;
};

struct buckets {
        size_t        n;
        struct bucket b[MAX_BUCKETS];
        size_t        n_levels;         /* B_LEVEL and B_LAST entries come first */
};

static bool has_dram_levels(const struct pmucal_numa *n)
{
        if (!n || !n->has_numa)
                return false;
        for (size_t k = 0; k < n->n_dram; k++)
                if (n->dram[k].measured)
                        return true;
        return false;
}

static void add_levels(const struct pmucal_table *t, struct buckets *s)
{
        double below = 0;

        for (size_t k = 0; k < t->n_levels && s->n < MAX_BUCKETS; k++) {
                const struct pmucal_level *l = &t->levels[k];
                struct bucket             *b = &s->b[s->n++];

                *b = (struct bucket){ .kind = k + 1 < t->n_levels ? B_LEVEL : B_LAST,
                                      .p50 = l->ns.p50, .lo = below,
                                      .hi = l->has_upper ? l->upper_ns : INFINITY,
                                      .upper = l->upper_ns, .has_upper = l->has_upper };
                snprintf(b->name, sizeof(b->name), "%s", l->name);
                below = l->upper_ns;
        }
        s->n_levels = s->n;
}

static void add_dram(const struct pmucal_numa *n, struct buckets *s)
{
        for (size_t k = 0; k < n->n_dram && s->n < MAX_BUCKETS; k++) {
                const struct pmucal_dram_level *d = &n->dram[k];
                struct bucket                  *b;

                if (!d->measured)
                        continue;
                b  = &s->b[s->n++];
                *b = (struct bucket){ .kind = B_DRAM, .cls = d->cls, .p50 = d->ns.p50,
                                      .lo = d->ns.p10 / PMUCAL_FIT_SLACK,
                                      .hi = d->ns.p90 * PMUCAL_FIT_SLACK * n->load_factor,
                                      .upper = d->upper_ns, .has_upper = d->has_upper };
                snprintf(b->name, sizeof(b->name), "%s", d->name);
        }
}

static void add_c2c(const struct pmucal_numa *n, struct buckets *s)
{
        for (size_t k = 0; n->has_c2c && k < n->n_c2c && s->n < MAX_BUCKETS; k++) {
                const struct pmucal_c2c_class *x = &n->c2c[k];
                struct bucket                 *b;

                if (!x->has_ns)
                        continue;
                b  = &s->b[s->n++];
                *b = (struct bucket){ .kind = B_C2C, .topology = x->topology, .ckind = x->kind,
                                      .p50 = x->ns.p50, .lo = x->ns.p10 / PMUCAL_FIT_SLACK,
                                      .hi = x->ns.p90 * PMUCAL_FIT_SLACK };
                snprintf(b->name, sizeof(b->name), "c2c-%s-%s", x->topology, x->kind);
        }
}

static enum pmucal_err build(const struct pmucal_table *t, const struct pmucal_numa *n,
                             struct buckets *s)
{
        s->n = 0;
        if (!t || !t->n_levels || !t->levels)
                return PMUCAL_E_ARG;
        if (!t->levels[0].has_ns)
                return PMUCAL_E_NO_RATIO;
        add_levels(t, s);
        if (has_dram_levels(n))
                add_dram(n, s);
        if (n)
                add_c2c(n, s);
        return PMUCAL_OK;
}

static void match(const struct bucket *b, double ns, struct pmucal_match *out)
{
        memset(out, 0, sizeof(*out));
        snprintf(out->bucket, sizeof(out->bucket), "%s", b->name);
        out->p50_ns = b->p50;
        out->lo_ns  = b->lo;
        out->hi_ns  = b->hi;
        /* a level's bucket is (previous bound, upper bound]; the others are closed ranges */
        if (b->kind == B_LEVEL || b->kind == B_LAST)
                out->fit = ns <= b->lo && b->lo > 0 ? PMUCAL_FASTER
                         : ns > b->hi ? PMUCAL_SLOWER : PMUCAL_FITS;
        else
                out->fit = ns < b->lo ? PMUCAL_FASTER : ns > b->hi ? PMUCAL_SLOWER : PMUCAL_FITS;
}

static bool bad_latency(double v)
{
        return !isfinite(v) || v < 0;
}

enum pmucal_err pmucal_numa_classify_ns(const struct pmucal_table *t, const struct pmucal_numa *n,
                                        double ns, struct pmucal_match *out)
{
        struct buckets        s;
        enum pmucal_err       e;
        const struct bucket  *best = NULL;

        if (!out)
                return PMUCAL_E_ARG;
        if (bad_latency(ns))
                return PMUCAL_E_RANGE;
        if ((e = build(t, n, &s)) != PMUCAL_OK)
                return e;
        /* the cache levels by the table's bounds */
        for (size_t k = 0; k + 1 < s.n_levels && !best; k++)
                if (ns <= s.b[k].upper)
                        best = &s.b[k];
        /* beyond the last cache: the DRAM levels by their bounds (ordered by p50) */
        if (!best) {
                const struct bucket *order[PMUCAL_NUMA_MAX_LEVELS];
                size_t               m = 0;
                for (size_t k = s.n_levels; k < s.n && m < PMUCAL_NUMA_MAX_LEVELS; k++) {
                        size_t at = m;
                        if (s.b[k].kind != B_DRAM)
                                continue;
                        while (at && order[at - 1]->p50 > s.b[k].p50) {
                                order[at] = order[at - 1];
                                at--;
                        }
                        order[at] = &s.b[k];
                        m++;
                }
                for (size_t q = 0; q < m && !best; q++)
                        if (q + 1 == m || (order[q]->has_upper && ns <= order[q]->upper))
                                best = order[q];
        }
        if (!best)
                best = &s.b[s.n_levels - 1];
        match(best, ns, out);
        return PMUCAL_OK;
}

/* Does bucket @p b stand for source @p src? */
static bool source_wants(const struct bucket *b, const char *src, bool dram_levels)
{
        char topo[24], kind[8];

        if (b->kind == B_LEVEL || b->kind == B_LAST) {
                if (!strcmp(src, b->name))
                        return true;
                return b->kind == B_LAST && !dram_levels && !strcmp(src, "dram");
        }
        if (b->kind == B_DRAM) {
                if (!strcmp(src, b->name) || ((!strcmp(src, "dram") || !strcmp(src, "dram-local"))
                                              && b->cls == 0))
                        return true;
                if (!strncmp(src, "dram-", 5) && !strcmp(src + 5, b->name + 5))
                        return true;
                return !strcmp(src, "dram-remote") && b->cls > 0;
        }
        /* c2c-<topology>-<kind>: the kind is after the last '-' */
        const char *dash = strrchr(src, '-');
        if (strncmp(src, "c2c-", 4) || !dash || dash - (src + 4) <= 0 ||
            (size_t)(dash - (src + 4)) >= sizeof(topo) || strlen(dash + 1) >= sizeof(kind))
                return false;
        memcpy(topo, src + 4, (size_t)(dash - (src + 4)));
        topo[dash - (src + 4)] = '\0';
        strcpy(kind, dash + 1);
        if (strcmp(kind, "any") && strcmp(kind, b->ckind))
                return false;
        if (!strcmp(topo, "any") || !strcmp(topo, b->topology))
                return true;
        if (!strcmp(topo, "remote"))
                return !strcmp(b->topology, "other-package");
        return !strcmp(topo, "local") && strcmp(b->topology, "other-package");
}

/* How far @p ns is from bucket @p b: 0 inside its range, else the log distance to it. */
static double distance(const struct bucket *b, double ns)
{
        if (ns >= b->lo && ns <= b->hi)
                return fabs(log(ns > 0 ? ns / b->p50 : 1e-9)) * 1e-6;
        return ns < b->lo ? log(b->lo / (ns > 0 ? ns : 1e-9)) : log(ns / b->hi);
}

enum pmucal_err pmucal_numa_classify_source_ns(const struct pmucal_table *t,
                                               const struct pmucal_numa *n, const char *source,
                                               double ns, struct pmucal_match *out)
{
        struct buckets        s;
        enum pmucal_err       e;
        const struct bucket  *best = NULL;
        double                best_d = INFINITY;

        if (!out || !source)
                return PMUCAL_E_ARG;
        if (bad_latency(ns))
                return PMUCAL_E_RANGE;
        if ((e = build(t, n, &s)) != PMUCAL_OK)
                return e;
        for (size_t k = 0; k < s.n; k++) {
                double d;
                if (!source_wants(&s.b[k], source, has_dram_levels(n)))
                        continue;
                if ((d = distance(&s.b[k], ns)) < best_d) {
                        best_d = d;
                        best   = &s.b[k];
                }
        }
        if (!best)
                return PMUCAL_E_ARG;
        match(best, ns, out);
        return PMUCAL_OK;
}

/* A latency in the table's own clock to ns, by the library's one conversion rule. */
static enum pmucal_err to_ns(const struct pmucal_table *t, double cycles, double *ns)
{
        if (!t)
                return PMUCAL_E_ARG;
        if (bad_latency(cycles))
                return PMUCAL_E_RANGE;
        return pmucal_table_convert(t, cycles, PMUCAL_UNIT_TABLE, PMUCAL_UNIT_NS, ns);
}

enum pmucal_err pmucal_numa_classify_cycles(const struct pmucal_table *t,
                                            const struct pmucal_numa *n, double cycles,
                                            struct pmucal_match *out)
{
        double          ns;
        enum pmucal_err e = to_ns(t, cycles, &ns);

        return e != PMUCAL_OK ? e : pmucal_numa_classify_ns(t, n, ns, out);
}

enum pmucal_err pmucal_numa_classify_source_cycles(const struct pmucal_table *t,
                                                   const struct pmucal_numa *n,
                                                   const char *source, double cycles,
                                                   struct pmucal_match *out)
{
        double          ns;
        enum pmucal_err e = to_ns(t, cycles, &ns);

        return e != PMUCAL_OK ? e : pmucal_numa_classify_source_ns(t, n, source, ns, out);
}

static int by_p50(const void *a, const void *b)
{
        const struct pmucal_match *x = a, *y = b;
        return x->p50_ns < y->p50_ns ? -1 : x->p50_ns > y->p50_ns;
}

size_t pmucal_numa_candidates_ns(const struct pmucal_table *t, const struct pmucal_numa *n,
                                 double ns, struct pmucal_match *out, size_t max)
{
        struct buckets        s;
        struct pmucal_match   m[MAX_BUCKETS];
        size_t                k = 0;

        if (!out || bad_latency(ns) || build(t, n, &s) != PMUCAL_OK)
                return 0;
        for (size_t i = 0; i < s.n; i++) {
                /* with DRAM levels, the table's last level is split into them */
                if (s.b[i].kind == B_LAST && has_dram_levels(n))
                        continue;
                match(&s.b[i], ns, &m[k]);
                if (m[k].fit == PMUCAL_FITS)
                        k++;
        }
        qsort(m, k, sizeof(m[0]), by_p50);
        memcpy(out, m, (k < max ? k : max) * sizeof(*out));
        return k;
}
