/** @file pmucal-table report: a dcache report, as HP Caliper's gave, from `perf script`
 *  output: samples per latency bucket with their share (and the estimated misses when the
 *  run's total and sampling rate are given), the top symbols and data addresses of each
 *  bucket, and the samples whose recorded data source disagrees with their latency's bucket
 *  (a bucket sized wrong for this run, or a source the hardware labelled wrong). Text or JSON.
 *
 *  Input: one sample per line of `perf script -F ip,sym,addr,weight,data_src` (other field
 *  sets by --fields) or of `perf mem report -D`, read by host/pmucal_table_perf.c; a line
 *  without a weight counts as a sample without a latency.
 *
 *  Speed: weights are integers, so each distinct weight is classified once (by latency, and
 *  once per data source), and a data_src value's source once. A symbol or data address is
 *  one slot of a hash table (its key and a number) however many buckets it falls in; its
 *  counts per latency bucket sit side by side in one array, so that a run's addresses and
 *  their counts stay in the caches (bench-report: 10 M samples). */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/include/pmucal/numa.h"
#include "host/include/pmucal/source.h"
#include "host/pmucal_table.h"
#include "host/pmucal_table_perf.h"

#define MAX_BUCKETS  48
#define MAX_SOURCES  24
#define CACHE_W      65536          /* weights classified once each below this */
#define TOP_DEFAULT  5
#define IN_BYTES     (1u << 20)

/* An entry of a top list: a symbol or an address and its count in one bucket. */
struct kv {
        uint64_t key;      /* address, or a 64-bit hash of the text (compared alone) */
        uint32_t id;       /* its number in the table (first seen first) */
        uint32_t count;
        char    *text;     /* the symbol (NULL for an address) */
};

/* Symbols or data addresses: a hash table of (key, number + 1) slots, and for number i the
 * counts of latency buckets 0..n_lat-1 at counts[i * n_lat]. */
struct slot {
        uint64_t key;
        uint32_t id1;      /* 0: empty */
};

struct keyed {
        struct slot *slot;
        size_t       cap, n;
        uint32_t    *counts;
        uint64_t    *keys;         /* by number */
        size_t       counts_cap;   /* entries (of n_lat counts each) allocated */
        char       **text;         /* by number; NULL for the address table */
        bool         texts;
        unsigned     n_lat;
};

struct disagree {
        int      src, bucket, fit;
        uint64_t count;
        char     example[160];
};

#define SRC_SLOTS 1024

struct src_slot {
        bool     used;
        uint64_t ds;
        int      id;    /* source id, -1: no source */
};

struct report {
        struct src_slot            src_slots[SRC_SLOTS];
        const struct pmucal_table *t;
        const struct pmucal_numa  *nm;
        enum pmucal_unit           unit;
        char                       bucket[MAX_BUCKETS][40];
        int                        n_buckets;
        uint64_t                   count[MAX_BUCKETS];
        const char                *src_name[MAX_SOURCES];
        int                        n_src;
        int16_t                   *lat_cache;             /* weight -> bucket + 2 (0 unknown) */
        int8_t                     lat_idx[MAX_BUCKETS];  /* bucket -> latency bucket, -1 none */
        unsigned                   n_lat;                 /* latency buckets numbered */
        uint16_t                  *src_cache[MAX_SOURCES];/* weight -> (bucket << 2 | fit) + 1,
                                                             0xffff: no bucket, 0: not yet */
        struct keyed               syms, addrs;
        struct perf_input          in;
        struct disagree            dis[256];
        int                        n_dis;
        uint64_t                   n_lines, n_samples, n_nolat, n_badlat, n_nosrc, n_disagree;
};

static uint64_t hash_text(const char *p, size_t n)
{
        uint64_t h = 1469598103934665603ull;

        for (size_t i = 0; i < n; i++)
                h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
        return h;
}

static size_t slot_of(uint64_t key, size_t cap)
{
        return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static int keyed_grow(struct keyed *t)
{
        size_t       cap = t->cap ? t->cap * 2 : 1024;
        struct slot *v   = calloc(cap, sizeof(*v));

        if (!v)
                return -1;
        for (size_t i = 0; i < t->cap; i++) {
                if (!t->slot[i].id1)
                        continue;
                size_t j = slot_of(t->slot[i].key, cap);
                while (v[j].id1)
                        j = (j + 1) & (cap - 1);
                v[j] = t->slot[i];
        }
        free(t->slot);
        t->slot = v;
        t->cap  = cap;
        return 0;
}

/* Room for number t->n: its counts (zeroed) and its text. */
static int keyed_room(struct keyed *t)
{
        size_t    cap = t->counts_cap ? t->counts_cap * 2 : 1024;
        uint32_t *c;
        uint64_t *k;
        char    **tx;

        if (t->n < t->counts_cap)
                return 0;
        if (!(k = realloc(t->keys, cap * sizeof(*k))))
                return -1;
        t->keys = k;
        if (!(c = realloc(t->counts, cap * t->n_lat * sizeof(*c))))
                return -1;
        memset(c + t->counts_cap * t->n_lat, 0, (cap - t->counts_cap) * t->n_lat * sizeof(*c));
        t->counts = c;
        if (t->texts) {
                if (!(tx = realloc(t->text, cap * sizeof(*tx))))
                        return -1;
                t->text = tx;
        }
        t->counts_cap = cap;
        return 0;
}

/* Count one of @p key in latency bucket @p lat; @p text (@p len bytes) is kept with a new key. */
static void keyed_add(struct keyed *t, unsigned lat, uint64_t key, const char *text, size_t len)
{
        size_t j;

        if ((t->n + 1) * 4 > t->cap * 3 && keyed_grow(t))
                return;
        j = slot_of(key, t->cap);
        while (t->slot[j].id1) {
                if (t->slot[j].key == key) {
                        t->counts[(size_t)(t->slot[j].id1 - 1) * t->n_lat + lat]++;
                        return;
                }
                j = (j + 1) & (t->cap - 1);
        }
        if (keyed_room(t) || (t->texts && !(t->text[t->n] = strndup(text, len))))
                return;
        t->keys[t->n] = key;
        t->slot[j]    = (struct slot){ .key = key, .id1 = (uint32_t)++t->n };
        t->counts[(t->n - 1) * t->n_lat + lat] = 1;
}

static void keyed_free(struct keyed *t)
{
        for (size_t i = 0; t->text && i < t->n; i++)
                free(t->text[i]);
        free(t->text);
        free(t->slot);
        free(t->counts);
        free(t->keys);
}

static int bucket_id(struct report *r, const char *name)
{
        for (int i = 0; i < r->n_buckets; i++)
                if (!strcmp(r->bucket[i], name))
                        return i;
        if (r->n_buckets == MAX_BUCKETS)
                return MAX_BUCKETS - 1;
        snprintf(r->bucket[r->n_buckets], sizeof(r->bucket[0]), "%s", name);
        return r->n_buckets++;
}

static int source_id(struct report *r, const char *name)
{
        for (int i = 0; i < r->n_src; i++)
                if (!strcmp(r->src_name[i], name))
                        return i;
        if (r->n_src == MAX_SOURCES ||
            !(r->src_cache[r->n_src] = calloc(CACHE_W, sizeof(*r->src_cache[0]))))
                return -1;
        r->src_name[r->n_src] = name; /* static strings of libpmucal */
        return r->n_src++;
}

/* The latency bucket of weight @p w: its id, or -1 when it is not a latency. */
static int lat_bucket(struct report *r, double w)
{
        struct pmucal_match m;
        int                 b;

        if (w >= 0 && w < CACHE_W && w == floor(w) && r->lat_cache[(size_t)w])
                return r->lat_cache[(size_t)w] - 2;
        b = pmucal_numa_classify(r->t, r->nm, w, r->unit, &m) == PMUCAL_OK ? bucket_id(r, m.bucket) : -1;
        if (w >= 0 && w < CACHE_W && w == floor(w))
                r->lat_cache[(size_t)w] = (int16_t)(b + 2);
        return b;
}

/* How weight @p w fits source @p s's bucket (PMUCAL_FITS..; its bucket in *@p bucket), or -1
 * when the table has no bucket for that source. */
static int src_fit(struct report *r, int s, double w, int *bucket)
{
        struct pmucal_match m;
        bool                cached = w >= 0 && w < CACHE_W && w == floor(w);
        uint16_t           *c      = cached ? &r->src_cache[s][(size_t)w] : NULL;

        if (c && *c == 0xffff)
                return -1;
        if (c && *c) {
                *bucket = (*c - 1) >> 2;
                return (*c - 1) & 3;
        }
        if (pmucal_numa_classify_source(r->t, r->nm, r->src_name[s], w, r->unit, &m) != PMUCAL_OK) {
                if (c)
                        *c = 0xffff;
                return -1;
        }
        *bucket = bucket_id(r, m.bucket);
        if (c)
                *c = (uint16_t)(((unsigned)*bucket << 2 | (unsigned)m.fit) + 1);
        return (int)m.fit;
}

/* The latency bucket number of bucket @p b: numbered in the order first met. */
static int lat_of(struct report *r, int b)
{
        if (r->lat_idx[b] < 0 && r->n_lat < r->syms.n_lat)
                r->lat_idx[b] = (int8_t)r->n_lat++;
        return r->lat_idx[b];
}

/* One line of perf output. */
static void take(struct report *r, const char *line, size_t len)
{
        struct perf_sample sm;
        uint64_t           ds;
        const char        *src;
        int                b, s, sb = -1, fit, lat;

        if (cli_perf_line_parse(&r->in, line, len, &sm) == PERF_LINE_SKIP)
                return;
        r->n_samples++;
        if (!sm.has_weight) {
                r->n_nolat++;
                return;
        }
        if (sm.weight <= 0 || (b = lat_bucket(r, sm.weight)) < 0) {
                r->n_badlat++;
                return;
        }
        r->count[b]++;
        if ((lat = lat_of(r, b)) >= 0) {
                if (sm.sym)
                        keyed_add(&r->syms, (unsigned)lat, hash_text(sm.sym, sm.sym_len), sm.sym,
                                  sm.sym_len);
                if (sm.has_addr)
                        keyed_add(&r->addrs, (unsigned)lat, sm.addr, NULL, 0);
        }
        if (!sm.has_src)
                return;
        ds = sm.data_src;
        /* a run has few distinct data_src values: each mapped once */
        struct src_slot *slot = &r->src_slots[(ds ^ ds >> 17 ^ ds >> 33) & (SRC_SLOTS - 1)];
        if (slot->used && slot->ds == ds) {
                s = slot->id;
        } else {
                s          = pmucal_source_perf_data_src(ds, &src) == PMUCAL_OK ? source_id(r, src) : -1;
                *slot      = (struct src_slot){ .used = true, .ds = ds, .id = s };
        }
        if (s < 0) {
                r->n_nosrc++;
                return;
        }
        fit = src_fit(r, s, sm.weight, &sb);
        if (fit == PMUCAL_FITS)
                return;
        r->n_disagree++;
        for (int i = 0; i < r->n_dis; i++)
                if (r->dis[i].src == s && r->dis[i].bucket == b && r->dis[i].fit == fit) {
                        r->dis[i].count++;
                        return;
                }
        if (r->n_dis < (int)(sizeof(r->dis) / sizeof(r->dis[0]))) {
                struct disagree *dd = &r->dis[r->n_dis++];
                *dd = (struct disagree){ .src = s, .bucket = b, .fit = fit, .count = 1 };
                while (len && (*line == ' ' || *line == '\t'))
                        line++, len--;
                snprintf(dd->example, sizeof(dd->example), "%.*s", (int)(len < 150 ? len : 150), line);
        }
}

static int by_count(const void *a, const void *b)
{
        const struct kv *x = a, *y = b;

        if (x->count != y->count)
                return x->count < y->count ? 1 : -1;
        return x->id < y->id ? -1 : x->id > y->id;
}

/* The @p top most frequent entries of @p t in bucket @p b (most first, the first seen first
 * among equals) into @p out; their number. */
static size_t top_of(const struct report *r, const struct keyed *t, int b, int top,
                     struct kv *out)
{
        size_t k = 0;
        int    lat = r->lat_idx[b];

        if (lat < 0)
                return 0;
        for (size_t i = 0; i < t->n; i++) {
                uint32_t c = t->counts[i * t->n_lat + (unsigned)lat];
                if (!c || (k == (size_t)top && c <= out[k - 1].count))
                        continue;
                if (k < (size_t)top)
                        k++;
                out[k - 1] = (struct kv){ .key = t->keys[i], .id = (uint32_t)i, .count = c,
                                          .text = t->text ? t->text[i] : NULL };
                for (size_t j = k - 1; j > 0 && by_count(&out[j - 1], &out[j]) > 0; j--) {
                        struct kv x = out[j];
                        out[j]      = out[j - 1];
                        out[j - 1]  = x;
                }
        }
        return k;
}

static const char *const fit_name[] = { "fits", "faster", "slower", "no bucket" };

static void print_text(struct report *r, int top, double total, double rate)
{
        uint64_t   cls = 0;
        size_t     ns, na;
        struct kv *sy = calloc((size_t)top, sizeof(*sy)), *ad = calloc((size_t)top, sizeof(*ad));
        double     scale = 0;

        if (!sy || !ad) {
                free(sy);
                free(ad);
                return;
        }
        for (int i = 0; i < r->n_buckets; i++)
                cls += r->count[i];
        if (total > 0 && rate > 0 && cls)
                scale = total / ((double)cls * rate);
        printf("report: %" PRIu64 " samples, %" PRIu64 " sorted by latency (%s), %" PRIu64
               " without a weight, %" PRIu64 " not a latency\n",
               r->n_samples, cls, pmucal_unit_name(r->unit), r->n_nolat, r->n_badlat);
        if (scale > 0)
                printf("scale:  %.4f = %.0f misses / (%" PRIu64 " sampled x rate %.0f)\n", scale,
                       total, cls, rate);
        printf("%-26s %10s %7s%s\n", "bucket", "samples", "share", scale > 0 ? "    est. misses" : "");
        for (int i = 0; i < r->n_buckets; i++) {
                if (!r->count[i])
                        continue;
                printf("%-26s %10" PRIu64 " %6.1f%%", cli_esc(r->bucket[i]), r->count[i],
                       cls ? 100.0 * (double)r->count[i] / (double)cls : 0.0);
                if (scale > 0)
                        printf(" %15.0f", (double)r->count[i] * rate * scale);
                printf("\n");
        }
        for (int i = 0; i < r->n_buckets; i++) {
                if (!r->count[i])
                        continue;
                printf("top %s:", cli_esc(r->bucket[i]));
                ns = top_of(r, &r->syms, i, top, sy);
                na = top_of(r, &r->addrs, i, top, ad);
                for (size_t j = 0; j < ns; j++)
                        printf(" %s %" PRIu32, cli_esc(sy[j].text), sy[j].count);
                for (size_t j = 0; j < na; j++)
                        printf("%s 0x%" PRIx64 " %" PRIu32, j == 0 ? " | addr" : "", ad[j].key,
                               ad[j].count);
                printf("\n");
        }
        printf("source disagrees with its latency bucket: %" PRIu64 " sample(s)%s\n", r->n_disagree,
               r->n_nosrc ? "" : "");
        for (int i = 0; i < r->n_dis; i++) {
                const struct disagree *d = &r->dis[i];
                printf("  source %-18s latency bucket %-18s %-9s %8" PRIu64 "  e.g. %s\n",
                       r->src_name[d->src], cli_esc(r->bucket[d->bucket]),
                       fit_name[d->fit < 0 ? 3 : d->fit], d->count, cli_esc(d->example));
        }
        if (r->n_nosrc)
                printf("  %" PRIu64 " sample(s) with a data source no bucket stands for\n", r->n_nosrc);
        free(sy);
        free(ad);
}

static void json_str(const char *s)
{
        putchar('"');
        for (; *s; s++) {
                unsigned char c = (unsigned char)*s;
                if (c == '"' || c == '\\')
                        printf("\\%c", c);
                else if (c < 0x20)
                        printf("\\u%04x", c);
                else
                        putchar(c);
        }
        putchar('"');
}

static void print_json(struct report *r, int top, double total, double rate)
{
        uint64_t   cls = 0;
        size_t     ns, na;
        struct kv *sy = calloc((size_t)top, sizeof(*sy)), *ad = calloc((size_t)top, sizeof(*ad));

        if (!sy || !ad) {
                free(sy);
                free(ad);
                return;
        }
        for (int i = 0; i < r->n_buckets; i++)
                cls += r->count[i];
        printf("{\"samples\": %" PRIu64 ", \"sorted\": %" PRIu64 ", \"without_weight\": %" PRIu64
               ", \"not_latency\": %" PRIu64 ", \"unit\": \"%s\", \"scale\": ",
               r->n_samples, cls, r->n_nolat, r->n_badlat, pmucal_unit_name(r->unit));
        if (total > 0 && rate > 0 && cls)
                printf("%.17g", total / ((double)cls * rate));
        else
                printf("null");
        printf(", \"buckets\": [");
        for (int i = 0, first = 1; i < r->n_buckets; i++) {
                if (!r->count[i])
                        continue;
                printf("%s{\"bucket\": ", first ? "" : ", ");
                first = 0;
                json_str(r->bucket[i]);
                printf(", \"samples\": %" PRIu64 ", \"share\": %.6f, \"symbols\": [", r->count[i],
                       cls ? (double)r->count[i] / (double)cls : 0.0);
                ns = top_of(r, &r->syms, i, top, sy);
                na = top_of(r, &r->addrs, i, top, ad);
                for (size_t j = 0; j < ns; j++) {
                        printf("%s{\"sym\": ", j ? ", " : "");
                        json_str(sy[j].text);
                        printf(", \"samples\": %" PRIu32 "}", sy[j].count);
                }
                printf("], \"addresses\": [");
                for (size_t j = 0; j < na; j++)
                        printf("%s{\"addr\": \"0x%" PRIx64 "\", \"samples\": %" PRIu32 "}",
                               j ? ", " : "", ad[j].key, ad[j].count);
                printf("]}");
        }
        printf("], \"disagreements\": %" PRIu64 ", \"disagree\": [", r->n_disagree);
        for (int i = 0; i < r->n_dis; i++) {
                const struct disagree *d = &r->dis[i];
                printf("%s{\"source\": \"%s\", \"latency_bucket\": ", i ? ", " : "", r->src_name[d->src]);
                json_str(r->bucket[d->bucket]);
                printf(", \"fit\": \"%s\", \"samples\": %" PRIu64 ", \"example\": ",
                       fit_name[d->fit < 0 ? 3 : d->fit], d->count);
                json_str(d->example);
                printf("}");
        }
        printf("], \"unknown_sources\": %" PRIu64 "}\n", r->n_nosrc);
        free(sy);
        free(ad);
}

static int read_all(struct report *r, FILE *in)
{
        char  *buf = malloc(IN_BYTES + 1);
        size_t have = 0, k;

        if (!buf)
                return EXIT_BAD;
        while ((k = fread(buf + have, 1, IN_BYTES - have, in)) > 0 || have) {
                char *p = buf, *nl, *e = buf + have + k;
                bool  eof = k == 0;
                while ((nl = memchr(p, '\n', (size_t)(e - p)))) {
                        r->n_lines++;
                        take(r, p, (size_t)(nl - p));
                        p = nl + 1;
                }
                if (eof || (p == buf && e - buf == IN_BYTES)) { /* the last line, or one too long */
                        if (p < e)
                                take(r, p, (size_t)(e - p));
                        p = e;
                }
                have = (size_t)(e - p);
                memmove(buf, p, have);
                if (eof)
                        break;
        }
        free(buf);
        return ferror(in) ? EXIT_BAD : 0;
}

/* The options of `report` before its TABLE [FILE|-]. */
struct report_args {
        const char *ghz, *fields;
        double      total, rate;
        int         top;
        bool        json;
        int         first; /* argv index of TABLE */
};

/* Read the options into @p a (the weights' unit into @p r); 0, or EXIT_USAGE said. */
static int report_args(int argc, char **argv, struct report *r, struct report_args *a)
{
        int i = 0;

        *a = (struct report_args){ .fields = "ip,sym,addr,weight,data_src", .top = TOP_DEFAULT };
        for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
                if (!strcmp(argv[i], "--json")) {
                        a->json = true;
                        continue;
                }
                if (i + 1 >= argc)
                        break;
                if (!strcmp(argv[i], "--unit") && cli_parse_unit(argv[i + 1], &r->unit))
                        i++;
                else if (!strcmp(argv[i], "--core-ghz"))
                        a->ghz = argv[++i];
                else if (!strcmp(argv[i], "--fields"))
                        a->fields = argv[++i];
                else if (!strcmp(argv[i], "--total"))
                        a->total = strtod(argv[++i], NULL);
                else if (!strcmp(argv[i], "--rate"))
                        a->rate = strtod(argv[++i], NULL);
                else if (!strcmp(argv[i], "--top"))
                        a->top = atoi(argv[++i]);
                else {
                        fprintf(stderr, "pmucal-table: report: unknown option \"%s\"\n", cli_esc(argv[i]));
                        return EXIT_USAGE;
                }
        }
        if (argc - i < 1 || argc - i > 2 || a->top < 1) {
                fprintf(stderr, "pmucal-table: report: wrong arguments ([--json] [--unit U] "
                                "[--core-ghz G] [--fields F] [--total N --rate R] [--top K] TABLE "
                                "[FILE|-])\n");
                return EXIT_USAGE;
        }
        a->first = i;
        return 0;
}

/* Load the table @p path (and its NUMA part) into @p r, with the core clock @p ghz where the
 * samples' unit needs one, and lay out the buckets: the table's levels fastest first, its
 * measured DRAM levels, then beyond the last level's ceiling. 0, or EXIT_BAD said; @p *t and
 * @p *nm are the caller's to free either way. */
static int report_tables(struct report *r, const char *path, const char *ghz,
                         struct pmucal_table **t, struct pmucal_numa **nm)
{
        char err[512];
        int  rc, lvl;

        if (!(*t = cli_load_table(path)))
                return EXIT_BAD;
        if (ghz && (rc = cli_core_ghz(path, *t, ghz)))
                return rc;
        if (pmucal_table_classify(*t, 0, r->unit, &lvl) == PMUCAL_E_NO_RATIO) {
                fprintf(stderr, "pmucal-table: %s: the samples' weights are %s but the table has no "
                                "ratio for them; give the core clock the samples ran at with "
                                "--core-ghz GHZ\n", cli_esc(path), pmucal_unit_name(r->unit));
                return EXIT_BAD;
        }
        if (pmucal_numa_load(path, nm, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return EXIT_BAD;
        }
        r->t  = *t;
        r->nm = *nm;
        /* the buckets in the table's order, fastest first */
        for (size_t k = 0; k < (*t)->n_levels; k++)
                bucket_id(r, (*t)->levels[k].name);
        for (size_t k = 0; k < pmucal_numa_dram_count(*nm); k++)
                if (pmucal_numa_dram_level(*nm, k)->measured)
                        bucket_id(r, pmucal_numa_dram_level(*nm, k)->name);
        /* a latency's bucket is a level, a DRAM level or beyond the last level's ceiling */
        r->syms.n_lat = r->addrs.n_lat =
                (unsigned)((*t)->n_levels + pmucal_numa_dram_count(*nm) + 1);
        return 0;
}

static void report_free(struct report *r)
{
        keyed_free(&r->syms);
        keyed_free(&r->addrs);
        for (int s = 0; s < r->n_src; s++)
                free(r->src_cache[s]);
        free(r->lat_cache);
        free(r);
}

int cmd_report(int argc, char **argv)
{
        struct report       *r = calloc(1, sizeof(*r));
        struct pmucal_table *t = NULL;
        struct pmucal_numa  *nm = NULL;
        struct report_args   a;
        int                  rc;
        FILE                *in = stdin;

        if (!r || !(r->lat_cache = calloc(CACHE_W, sizeof(*r->lat_cache)))) {
                free(r);
                return EXIT_BAD;
        }
        r->unit       = PMUCAL_UNIT_CORE; /* perf's weight: core cycles (PEBS, IBS, SPE) */
        r->syms.texts = true;
        memset(r->lat_idx, -1, sizeof(r->lat_idx));
        if ((rc = report_args(argc, argv, r, &a)))
                goto out;
        r->in.have_addr = strstr(a.fields, "addr") != NULL;
        r->in.have_src  = strstr(a.fields, "data_src") != NULL;
        if ((rc = report_tables(r, argv[a.first], a.ghz, &t, &nm)))
                goto out;
        if (argc - a.first == 2 && strcmp(argv[a.first + 1], "-") &&
            !(in = fopen(argv[a.first + 1], "r"))) {
                fprintf(stderr, "pmucal-table: report: cannot open %s\n",
                        cli_esc(argv[a.first + 1]));
                rc = EXIT_BAD;
                goto out;
        }
        if ((rc = read_all(r, in)) == 0) {
                if (a.json)
                        print_json(r, a.top, a.total, a.rate);
                else
                        print_text(r, a.top, a.total, a.rate);
        }
        if (in != stdin)
                fclose(in);
out:
        report_free(r);
        pmucal_numa_free(nm);
        pmucal_table_free(t);
        return rc;
}
