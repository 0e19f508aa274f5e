/** @file libpmucal, remote-memory and cache-to-cache part: the buckets of a table (levels,
 * DRAM levels, C2C classes) with their fit ranges, classification by latency and by data
 * source (see include/pmucal/numa.h). Host only: libc. */
#include "host/include/pmucal/numa.h"
#include "host/libpmucal_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BUCKETS (64 + PMUCAL_NUMA_MAX_LEVELS + 7 * 3 + 1) /* C2C: topologies x kinds */

enum bkind { B_LEVEL, B_LAST, B_DRAM, B_C2C, B_LFB };

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
        bool          has_ceiling;      /* the last level is a cache (or flat): its ceiling */
        double        ceiling;
        bool          dram_levels;      /* measured DRAM levels ("numa") */
        bool          c2c;              /* measured C2C classes ("c2c") */
};

/* What a source name asks for (see include/pmucal/numa.h). */
enum skind { S_LEVEL, S_LFB, S_DRAM, S_C2C };

struct source {
        enum skind kind;
        char       topo[16], ckind[8];  /* S_C2C */
};

static bool has_dram_levels(const struct pmucal_numa *n)
{
        if (!n || !n->has_numa)
                return false;
        for (size_t k = 0; k < pmucal_numa_dram_count(n); k++)
                if (pmucal_numa_dram_level(n, k)->measured)
                        return true;
        return false;
}

/* The levels with the bounds pmucal_table_classify compares ns with, so that both agree on
 * every level below the DRAM levels. */
static enum pmucal_err add_levels(const struct pmucal_table *t, struct buckets *s)
{
        double          upper[64], below = 0;
        enum pmucal_err e;

        if (t->n_levels > sizeof(upper) / sizeof(upper[0]))
                return PMUCAL_E_ARG;
        if ((e = pmucal__unit_bounds(t, PMUCAL_UNIT_NS, upper, &s->has_ceiling, &s->ceiling)) !=
            PMUCAL_OK)
                return e;
        for (size_t k = 0; k < t->n_levels; k++) {
                const struct pmucal_level *l    = &t->levels[k];
                struct bucket             *b    = &s->b[s->n++];
                bool                       last = k + 1 == t->n_levels;
                double                     p50  = l->ns.p50;

                /* a table without ns figures: its cycles at the table's rate */
                if (!l->has_ns && (e = pmucal_table_convert(t, l->cycles.p50, PMUCAL_UNIT_TABLE,
                                                            PMUCAL_UNIT_NS, &p50)) != PMUCAL_OK)
                        return e;
                *b = (struct bucket){ .kind = last ? B_LAST : B_LEVEL, .p50 = p50,
                                      .lo = below, .hi = last ? INFINITY : upper[k],
                                      .upper = last ? 0 : upper[k], .has_upper = !last };
                if (last && s->has_ceiling)
                        b->hi = s->ceiling;
                snprintf(b->name, sizeof(b->name), "%s", l->name);
                below = last ? 0 : upper[k];
        }
        s->n_levels = s->n;
        return PMUCAL_OK;
}

static void add_dram(const struct pmucal_numa *n, struct buckets *s)
{
        for (size_t k = 0; k < pmucal_numa_dram_count(n) && s->n < MAX_BUCKETS; k++) {
                const struct pmucal_dram_level *d = pmucal_numa_dram_level(n, k);
                struct bucket                  *b;

                if (!d->measured)
                        continue;
                b  = &s->b[s->n++];
                *b = (struct bucket){ .kind = B_DRAM, .cls = d->cls, .p50 = d->ns.p50,
                                      .lo = d->ns.p10 / PMUCAL_FIT_SLACK,
                                      .hi = d->ns.p90 * PMUCAL_FIT_SLACK * n->load_factor,
                                      .upper = d->upper_ns, .has_upper = d->has_upper };
                snprintf(b->name, sizeof(b->name), "%s", d->name);
                s->dram_levels = true;
        }
}

static void add_c2c(const struct pmucal_numa *n, struct buckets *s)
{
        for (size_t k = 0; n->has_c2c && k < pmucal_numa_c2c_count(n) && s->n < MAX_BUCKETS; k++) {
                const struct pmucal_c2c_class *x = pmucal_numa_c2c_class(n, k);
                struct bucket                 *b;

                if (!x->has_ns || !strcmp(x->topology, PMUCAL_UNKNOWN) ||
                    !strcmp(x->kind, PMUCAL_UNKNOWN))
                        continue; /* a later minor's class: no bucket this reader can name */
                b  = &s->b[s->n++];
                *b = (struct bucket){ .kind = B_C2C, .topology = x->topology, .ckind = x->kind,
                                      .p50 = x->ns.p50, .lo = x->ns.p10 / PMUCAL_FIT_SLACK,
                                      .hi = x->ns.p90 * PMUCAL_FIT_SLACK };
                snprintf(b->name, sizeof(b->name), "c2c-%s-%s", x->topology, x->kind);
                s->c2c = true;
        }
}

/* A hit in a fill / miss buffer waits for the rest of a miss in flight to the same line: no
 * median of its own, any latency up to the slowest memory bucket's range. */
static void add_lfb(struct buckets *s)
{
        struct bucket *b  = &s->b[s->n++];
        double         hi = s->b[s->n_levels - 1].hi;

        for (size_t k = s->n_levels; k + 1 < s->n; k++)
                if (s->b[k].kind == B_DRAM && s->b[k].hi > hi)
                        hi = s->b[k].hi;
        *b = (struct bucket){ .kind = B_LFB, .p50 = NAN, .lo = 0, .hi = hi };
        snprintf(b->name, sizeof(b->name), "LFB");
}

static enum pmucal_err build(const struct pmucal_table *t, const struct pmucal_numa *n,
                             struct buckets *s)
{
        enum pmucal_err e;

        s->n = s->n_levels = 0;
        s->has_ceiling = s->dram_levels = s->c2c = false;
        if (!t || !t->n_levels || !t->levels)
                return PMUCAL_E_ARG;
        if ((e = add_levels(t, s)) != PMUCAL_OK)
                return e;
        if (has_dram_levels(n))
                add_dram(n, s);
        if (n)
                add_c2c(n, s);
        add_lfb(s);
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

/* The bucket of @p ns by latency alone: the cache levels by the table's bounds (the last one
 * too when it is a cache, up to its ceiling), then the DRAM levels by their bounds (ordered by
 * p50); without DRAM levels the table's last level, or "beyond" above a cache's ceiling. */
static void by_latency(const struct buckets *s, double ns, struct pmucal_match *out)
{
        const struct bucket *order[PMUCAL_NUMA_MAX_LEVELS];
        const struct bucket *last = &s->b[s->n_levels - 1];
        size_t               m    = 0;

        for (size_t k = 0; k + 1 < s->n_levels; k++)
                if (ns <= s->b[k].upper) {
                        match(&s->b[k], ns, out);
                        return;
                }
        if (s->has_ceiling && ns <= s->ceiling) {
                match(last, ns, out);
                return;
        }
        for (size_t k = s->n_levels; k < s->n && m < PMUCAL_NUMA_MAX_LEVELS; k++) {
                size_t at = m;
                if (s->b[k].kind != B_DRAM)
                        continue;
                while (at && order[at - 1]->p50 > s->b[k].p50) {
                        order[at] = order[at - 1];
                        at--;
                }
                order[at] = &s->b[k];
                m++;
        }
        for (size_t q = 0; q < m; q++)
                if (q + 1 == m || (order[q]->has_upper && ns <= order[q]->upper)) {
                        match(order[q], ns, out);
                        return;
                }
        match(last, ns, out);
        if (s->has_ceiling) { /* above the last cache, and no DRAM level to take it */
                snprintf(out->bucket, sizeof(out->bucket), "%s", PMUCAL_BUCKET_BEYOND);
                out->fit = PMUCAL_SLOWER;
        }
}

enum pmucal_err pmucal_numa_classify_ns(const struct pmucal_table *t, const struct pmucal_numa *n,
                                        double ns, struct pmucal_match *out)
{
        struct buckets  s;
        enum pmucal_err e;

        if (!out || !t)
                return PMUCAL_E_ARG;
        if (bad_latency(ns))
                return PMUCAL_E_RANGE;
        if ((e = build(t, n, &s)) != PMUCAL_OK)
                return e;
        by_latency(&s, ns, out);
        return PMUCAL_OK;
}

static bool one_of(const char *s, const char *const *words)
{
        for (; *words; words++)
                if (!strcmp(s, *words))
                        return true;
        return false;
}

/* "DRAM-remote-<k>hop" / "dram-remote-<k>hop" with k 1..99 (after the "DRAM-"/"dram-"). */
static bool remote_hop_name(const char *s)
{
        size_t k = 0;

        if (strncmp(s, "remote-", 7))
                return false;
        s += 7;
        while (s[k] >= '0' && s[k] <= '9')
                k++;
        return k >= 1 && k <= 2 && s[0] != '0' && !strcmp(s + k, "hop");
}

/* The kind of source @p src names, by the vocabulary alone (and the table's level names):
 * PMUCAL_E_UNKNOWN_SOURCE for anything else. */
static enum pmucal_err parse_source(const struct pmucal_table *t, const char *src,
                                    struct source *out)
{
        static const char *const topos[] = { "smt", "same-module", "same-cluster", "same-l3",
                                             "other-l3", "same-package", "other-package",
                                             "local", "remote", "any", NULL };
        static const char *const kinds[] = { "hit", "hitm", "write", "any", NULL };
        const char              *dash;

        memset(out, 0, sizeof(*out));
        for (size_t k = 0; k < t->n_levels; k++)
                if (t->levels[k].name && !strcmp(src, t->levels[k].name))
                        return PMUCAL_OK; /* S_LEVEL */
        if ((src[0] == 'L' && src[1] >= '1' && src[1] <= '9' && !src[2]) || !strcmp(src, "DRAM") ||
            !strcmp(src, "flat"))
                return PMUCAL_OK;
        if (!strcmp(src, "lfb")) {
                out->kind = S_LFB;
                return PMUCAL_OK;
        }
        out->kind = S_DRAM;
        if (!strcmp(src, "dram") || !strcmp(src, "dram-local") || !strcmp(src, "DRAM-local") ||
            !strcmp(src, "dram-remote"))
                return PMUCAL_OK;
        if ((!strncmp(src, "dram-", 5) || !strncmp(src, "DRAM-", 5)) && remote_hop_name(src + 5))
                return PMUCAL_OK;
        out->kind = S_C2C;
        dash      = strrchr(src, '-');
        if (strncmp(src, "c2c-", 4) || !dash || dash - (src + 4) <= 0 ||
            (size_t)(dash - (src + 4)) >= sizeof(out->topo) || strlen(dash + 1) >= sizeof(out->ckind))
                return PMUCAL_E_UNKNOWN_SOURCE;
        memcpy(out->topo, src + 4, (size_t)(dash - (src + 4)));
        out->topo[dash - (src + 4)] = '\0';
        strcpy(out->ckind, dash + 1);
        return one_of(out->topo, topos) && one_of(out->ckind, kinds) ? PMUCAL_OK
                                                                     : PMUCAL_E_UNKNOWN_SOURCE;
}

/* Does bucket @p b stand for source @p src (of kind @p k)? */
static bool source_wants(const struct bucket *b, const char *src, const struct source *k,
                         bool dram_levels)
{
        switch (k->kind) {
        case S_LEVEL:
                return (b->kind == B_LEVEL || b->kind == B_LAST) && !strcmp(src, b->name);
        case S_LFB:
                return b->kind == B_LFB;
        case S_DRAM:
                if (!dram_levels)
                        return false;
                if (b->kind != B_DRAM)
                        return false;
                if (!strcmp(src, b->name) || ((!strcmp(src, "dram") || !strcmp(src, "dram-local") ||
                                               !strcmp(src, "DRAM-local")) && b->cls == 0))
                        return true;
                if (!strncmp(src, "dram-", 5) && !strcmp(src + 5, b->name + 5))
                        return true;
                return !strcmp(src, "dram-remote") && b->cls > 0;
        case S_C2C:
                if (b->kind != B_C2C)
                        return false;
                if (strcmp(k->ckind, "any") && strcmp(k->ckind, b->ckind))
                        return false;
                if (!strcmp(k->topo, "any") || !strcmp(k->topo, b->topology))
                        return true;
                if (!strcmp(k->topo, "remote"))
                        return !strcmp(b->topology, "other-package");
                return !strcmp(k->topo, "local") && strcmp(b->topology, "other-package");
        }
        return false;
}

/* How far @p ns is from bucket @p b: 0 inside its range, else the log distance to it. */
static double distance(const struct bucket *b, double ns)
{
        if (ns >= b->lo && ns <= b->hi)
                return isnan(b->p50) ? 0 : fabs(log(ns > 0 ? ns / b->p50 : 1e-9)) * 1e-6;
        return ns < b->lo ? log(b->lo / (ns > 0 ? ns : 1e-9)) : log(ns / b->hi);
}

enum pmucal_err pmucal_numa_classify_source_ns(const struct pmucal_table *t,
                                               const struct pmucal_numa *n, const char *source,
                                               double ns, struct pmucal_match *out)
{
        struct buckets        s;
        struct source         k;
        enum pmucal_err       e;
        const struct bucket  *best = NULL;
        double                best_d = INFINITY;

        if (!out || !source || !t)
                return PMUCAL_E_ARG;
        if ((e = parse_source(t, source, &k)) != PMUCAL_OK)
                return e;
        if (bad_latency(ns))
                return PMUCAL_E_RANGE;
        if ((e = build(t, n, &s)) != PMUCAL_OK)
                return e;
        /* the one fallback rule: a source whose section the table lacks (DRAM sources without
         * measured DRAM levels, C2C sources without measured C2C classes) is sorted by its
         * latency alone */
        if ((k.kind == S_DRAM && !s.dram_levels) || (k.kind == S_C2C && !s.c2c)) {
                by_latency(&s, ns, out);
                return PMUCAL_OK;
        }
        for (size_t i = 0; i < s.n; i++) {
                double d;
                if (!source_wants(&s.b[i], source, &k, s.dram_levels))
                        continue;
                if ((d = distance(&s.b[i], ns)) < best_d || !best) {
                        best_d = d;
                        best   = &s.b[i];
                }
        }
        if (!best)
                return PMUCAL_E_NO_BUCKET;
        match(best, ns, out);
        return PMUCAL_OK;
}

/* A latency in @p unit to ns, by the library's one conversion rule. */
static enum pmucal_err to_ns(const struct pmucal_table *t, double v, enum pmucal_unit unit,
                             double *ns)
{
        if (!t)
                return PMUCAL_E_ARG;
        if ((unsigned)unit > PMUCAL_UNIT_NS)
                return PMUCAL_E_ARG;
        if (bad_latency(v))
                return PMUCAL_E_RANGE;
        return pmucal_table_convert(t, v, unit, PMUCAL_UNIT_NS, ns);
}

enum pmucal_err pmucal_numa_classify(const struct pmucal_table *t, const struct pmucal_numa *n,
                                     double latency, enum pmucal_unit unit,
                                     struct pmucal_match *out)
{
        double          ns;
        enum pmucal_err e;

        if (!out)
                return PMUCAL_E_ARG;
        if ((e = to_ns(t, latency, unit, &ns)) != PMUCAL_OK)
                return e;
        return pmucal_numa_classify_ns(t, n, ns, out);
}

enum pmucal_err pmucal_numa_classify_source(const struct pmucal_table *t,
                                            const struct pmucal_numa *n, const char *source,
                                            double latency, enum pmucal_unit unit,
                                            struct pmucal_match *out)
{
        struct source   k;
        double          ns;
        enum pmucal_err e;

        if (!out || !source || !t)
                return PMUCAL_E_ARG;
        if ((e = parse_source(t, source, &k)) != PMUCAL_OK)
                return e;
        if ((e = to_ns(t, latency, unit, &ns)) != PMUCAL_OK)
                return e;
        return pmucal_numa_classify_source_ns(t, n, source, ns, out);
}

/* Library 1.0 and 1.1 entry points, kept for programs linked against them and no longer
 * declared: "cycles" meant the table's own clock (PMUCAL_UNIT_TABLE). */
PMUCAL_API enum pmucal_err pmucal_numa_classify_cycles(const struct pmucal_table *t,
                                                       const struct pmucal_numa *n, double cycles,
                                                       struct pmucal_match *out);
PMUCAL_API enum pmucal_err pmucal_numa_classify_source_cycles(const struct pmucal_table *t,
                                                              const struct pmucal_numa *n,
                                                              const char *source, double cycles,
                                                              struct pmucal_match *out);

enum pmucal_err pmucal_numa_classify_cycles(const struct pmucal_table *t,
                                            const struct pmucal_numa *n, double cycles,
                                            struct pmucal_match *out)
{
        return pmucal_numa_classify(t, n, cycles, PMUCAL_UNIT_TABLE, out);
}

enum pmucal_err pmucal_numa_classify_source_cycles(const struct pmucal_table *t,
                                                   const struct pmucal_numa *n,
                                                   const char *source, double cycles,
                                                   struct pmucal_match *out)
{
        return pmucal_numa_classify_source(t, n, source, cycles, PMUCAL_UNIT_TABLE, out);
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
                if ((s.b[i].kind == B_LAST && s.dram_levels && !s.has_ceiling) ||
                    s.b[i].kind == B_LFB)
                        continue;
                match(&s.b[i], ns, &m[k]);
                if (m[k].fit == PMUCAL_FITS)
                        k++;
        }
        qsort(m, k, sizeof(m[0]), by_p50);
        memcpy(out, m, (k < max ? k : max) * sizeof(*out));
        return k;
}
