/** @file pmucal-table report: a dcache report, as HP Caliper's gave, from `perf script`
 *  output: samples per latency bucket with their share (and the estimated misses when the
 *  run's total and sampling rate are given), the top symbols and data addresses of each
 *  bucket, and the samples whose recorded data source disagrees with their latency's bucket
 *  (a bucket sized wrong for this run, or a source the hardware labelled wrong). Text or JSON.
 *
 *  Input: one sample per line as `perf script -F ip,sym,addr,weight,data_src` prints it
 *  (tools/perf/builtin-script.c prints the fields in a fixed order, whatever the -F order:
 *  [comm tid cpu time: period event:] addr, data_src with its decoded text ("|OP LOAD|LVL L1
 *  hit|...|BLK  N/A"), weight, ip, sym). The decoded text anchors the line: the hex value
 *  before it is data_src and the one before that addr; the first decimal after its BLK part
 *  is the weight, then ip and sym. Without data_src (--fields without it) the fields are
 *  taken from the end of the line: [addr] weight ip sym. Lines starting with '#' and blank
 *  lines are skipped; a line without a weight counts as a sample without a latency.
 *
 *  Speed: weights are integers, so each distinct weight is classified once (by latency, and
 *  once per data source), and a data_src value's source once. */
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

#define MAX_BUCKETS  48
#define MAX_SOURCES  24
#define CACHE_W      65536          /* weights classified once each below this */
#define TOP_DEFAULT  5
#define IN_BYTES     (1u << 20)

struct tok {
        const char *p;
        size_t      n;
};

/* A count keyed by (bucket, text or number): the top symbols and addresses. */
struct kv {
        uint64_t key;      /* address, or a 64-bit hash of the text (compared alone) */
        uint32_t bucket;
        uint32_t count;
        char    *text;     /* the symbol (NULL for an address); filled when sorting */
};

/* 16-byte slots (key, bucket, count) so that the table of a run's addresses stays in the
 * caches; the symbols' text beside them, only in the symbol table. */
struct slot {
        uint64_t key;
        uint32_t bucket;
        uint32_t count;
};

struct table_kv {
        struct slot *v;
        char       **text;   /* NULL for the address table */
        size_t       cap, n;
        bool         texts;
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
        bool                       have_src_field, have_addr_field;
        char                       bucket[MAX_BUCKETS][40];
        int                        n_buckets;
        uint64_t                   count[MAX_BUCKETS];
        const char                *src_name[MAX_SOURCES];
        int                        n_src;
        int16_t                   *lat_cache;             /* weight -> bucket + 2 (0 unknown) */
        uint16_t                  *src_cache[MAX_SOURCES];/* weight -> (bucket << 2 | fit) + 1,
                                                             0xffff: no bucket, 0: not yet */
        struct table_kv            syms, addrs;
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

static size_t slot_of(uint64_t key, uint32_t bucket, size_t cap)
{
        return (size_t)(((key ^ ((uint64_t)bucket << 56)) * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static int kv_grow(struct table_kv *t)
{
        size_t       cap = t->cap ? t->cap * 2 : 1024;
        struct slot *v   = calloc(cap, sizeof(*v));
        char       **tx  = t->texts ? calloc(cap, sizeof(*tx)) : NULL;

        if (!v || (t->texts && !tx)) {
                free(v);
                free(tx);
                return -1;
        }
        for (size_t i = 0; i < t->cap; i++) {
                if (!t->v[i].count)
                        continue;
                size_t j = slot_of(t->v[i].key, t->v[i].bucket, cap);
                while (v[j].count)
                        j = (j + 1) & (cap - 1);
                v[j] = t->v[i];
                if (tx)
                        tx[j] = t->text[i];
        }
        free(t->v);
        free(t->text);
        t->v    = v;
        t->text = tx;
        t->cap  = cap;
        return 0;
}

/* Count one of (@p bucket, @p key); @p text (@p len bytes) is kept with a new key. */
static void kv_add(struct table_kv *t, int bucket, uint64_t key, const char *text, size_t len)
{
        size_t j;

        if ((t->n + 1) * 4 > t->cap * 3 && kv_grow(t))
                return;
        j = slot_of(key, (uint32_t)bucket, t->cap);
        while (t->v[j].count) {
                struct slot *e = &t->v[j];
                if (e->key == key && e->bucket == (uint32_t)bucket) {
                        e->count++;
                        return;
                }
                j = (j + 1) & (t->cap - 1);
        }
        if (t->texts && !(t->text[j] = strndup(text, len)))
                return;
        t->v[j] = (struct slot){ .key = key, .bucket = (uint32_t)bucket, .count = 1 };
        t->n++;
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

static bool is_hex(const struct tok *t)
{
        size_t i = t->n > 2 && t->p[0] == '0' && (t->p[1] == 'x' || t->p[1] == 'X') ? 2 : 0;

        if (i == t->n)
                return false;
        for (; i < t->n; i++)
                if (!isxdigit((unsigned char)t->p[i]))
                        return false;
        return true;
}

static bool is_dec(const struct tok *t)
{
        for (size_t i = 0; i < t->n; i++)
                if (!isdigit((unsigned char)t->p[i]))
                        return false;
        return t->n > 0;
}

static uint64_t hex_of(const struct tok *t)
{
        uint64_t v = 0;
        size_t   i = t->n > 2 && t->p[0] == '0' && (t->p[1] == 'x' || t->p[1] == 'X') ? 2 : 0;

        for (; i < t->n; i++)
                v = v * 16 + (uint64_t)(isdigit((unsigned char)t->p[i]) ? t->p[i] - '0'
                                                                       : (t->p[i] | 32) - 'a' + 10);
        return v;
}

/* The blank-separated token ending just before @p at (after @p lo), or an empty one. */
static struct tok token_before(const char *lo, const char *at)
{
        const char *e = at, *b;

        while (e > lo && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
        b = e;
        while (b > lo && b[-1] != ' ' && b[-1] != '\t')
                b--;
        return (struct tok){ b, (size_t)(e - b) };
}

/* The blank-separated token starting at or after @p p (before @p end); *@p p moves past it. */
static struct tok token_after(const char **p, const char *end)
{
        const char *b = *p, *e;

        while (b < end && (*b == ' ' || *b == '\t' || *b == '\r'))
                b++;
        e = b;
        while (e < end && *e != ' ' && *e != '\t' && *e != '\r')
                e++;
        *p = e;
        return (struct tok){ b, (size_t)(e - b) };
}

/* One line of perf script output. */
static void take(struct report *r, const char *line, size_t len)
{
        const char *end = line + len, *op, *p;
        struct tok  w = { NULL, 0 }, sym = { NULL, 0 }, a, d;
        bool        has_addr = false, has_src = false;
        uint64_t    addr = 0, ds = 0;
        double      weight;
        const char *src;
        int         b, s, sb = -1, fit;

        for (p = line; p < end && (*p == ' ' || *p == '\t'); p++)
                ;
        if (p == end || *p == '#')
                return;
        r->n_samples++;
        op = r->have_src_field ? memmem(line, len, "|OP", 3) : NULL;
        if (op && (d = token_before(line, op)).n && is_hex(&d)) {
                has_src = true;
                ds      = hex_of(&d);
                a       = token_before(line, d.p);
                if (r->have_addr_field && a.n && is_hex(&a)) {
                        has_addr = true;
                        addr     = hex_of(&a);
                }
                /* the decoded text ends with "|BLK" and its words; the weight follows */
                const char *blk = memmem(op, (size_t)(end - op), "|BLK", 4);
                p               = blk ? blk + 4 : op;
                while (p < end && !w.n) {
                        struct tok t = token_after(&p, end);
                        if (!t.n)
                                break;
                        if (is_dec(&t))
                                w = t;
                }
                token_after(&p, end);           /* ip */
                sym = token_after(&p, end);
        } else {                                /* [addr] weight ip sym, from the end */
                struct tok t3 = token_before(line, end), t2 = token_before(line, t3.p),
                           t1 = token_before(line, t2.p);
                if (t1.n && is_dec(&t1) && is_hex(&t2)) {
                        w   = t1;
                        sym = t3;
                        a   = token_before(line, t1.p);
                        if (r->have_addr_field && a.n && is_hex(&a)) {
                                has_addr = true;
                                addr     = hex_of(&a);
                        }
                }
        }
        if (!w.n) {
                r->n_nolat++;
                return;
        }
        weight = 0;
        for (size_t i = 0; i < w.n; i++) /* decimal digits (is_dec) */
                weight = weight * 10 + (w.p[i] - '0');
        if (weight <= 0 || (b = lat_bucket(r, weight)) < 0) {
                r->n_badlat++;
                return;
        }
        r->count[b]++;
        if (sym.n)
                kv_add(&r->syms, b, hash_text(sym.p, sym.n), sym.p, sym.n);
        if (has_addr)
                kv_add(&r->addrs, b, addr, NULL, 0);
        if (!has_src)
                return;
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
        fit = src_fit(r, s, weight, &sb);
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
        return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* The entries of @p t sorted by count, most first (caller frees). */
static struct kv *sorted(const struct table_kv *t, size_t *n)
{
        struct kv *v = malloc((t->n + 1) * sizeof(*v));
        size_t     k = 0;

        for (size_t i = 0; v && i < t->cap; i++)
                if (t->v[i].count)
                        v[k++] = (struct kv){ .key = t->v[i].key, .bucket = t->v[i].bucket,
                                              .count = t->v[i].count,
                                              .text = t->text ? t->text[i] : NULL };
        if (v)
                qsort(v, k, sizeof(*v), by_count);
        *n = v ? k : 0;
        return v;
}

static const char *const fit_name[] = { "fits", "faster", "slower", "no bucket" };

static void print_text(struct report *r, int top, double total, double rate)
{
        uint64_t   cls = 0;
        size_t     ns, na;
        struct kv *sy = sorted(&r->syms, &ns), *ad = sorted(&r->addrs, &na);
        double     scale = 0;

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
                int k = 0;
                if (!r->count[i])
                        continue;
                printf("top %s:", cli_esc(r->bucket[i]));
                for (size_t j = 0; j < ns && k < top; j++)
                        if (sy[j].bucket == (uint32_t)i && ++k)
                                printf(" %s %" PRIu32, cli_esc(sy[j].text), sy[j].count);
                for (size_t j = 0, a = 0; j < na && (int)a < top; j++)
                        if (ad[j].bucket == (uint32_t)i && ++a)
                                printf("%s 0x%" PRIx64 " %" PRIu32, a == 1 ? " | addr" : "", ad[j].key,
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
        struct kv *sy = sorted(&r->syms, &ns), *ad = sorted(&r->addrs, &na);

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
                int k = 0;
                if (!r->count[i])
                        continue;
                printf("%s{\"bucket\": ", first ? "" : ", ");
                first = 0;
                json_str(r->bucket[i]);
                printf(", \"samples\": %" PRIu64 ", \"share\": %.6f, \"symbols\": [", r->count[i],
                       cls ? (double)r->count[i] / (double)cls : 0.0);
                for (size_t j = 0; j < ns && k < top; j++)
                        if (sy[j].bucket == (uint32_t)i) {
                                printf("%s{\"sym\": ", k++ ? ", " : "");
                                json_str(sy[j].text);
                                printf(", \"samples\": %" PRIu32 "}", sy[j].count);
                        }
                printf("], \"addresses\": [");
                k = 0;
                for (size_t j = 0; j < na && k < top; j++)
                        if (ad[j].bucket == (uint32_t)i)
                                printf("%s{\"addr\": \"0x%" PRIx64 "\", \"samples\": %" PRIu32 "}",
                                       k++ ? ", " : "", ad[j].key, ad[j].count);
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

int cmd_report(int argc, char **argv)
{
        struct report       *r = calloc(1, sizeof(*r));
        struct pmucal_table *t = NULL;
        struct pmucal_numa  *nm = NULL;
        const char          *ghz = NULL, *fields = "ip,sym,addr,weight,data_src";
        double               total = 0, rate = 0;
        int                  i = 0, top = TOP_DEFAULT, rc = 0, lvl;
        bool                 json = false;
        char                 err[512];
        FILE                *in = stdin;

        if (!r || !(r->lat_cache = calloc(CACHE_W, sizeof(*r->lat_cache)))) {
                free(r);
                return EXIT_BAD;
        }
        r->unit       = PMUCAL_UNIT_CORE; /* perf's weight: core cycles (PEBS, IBS, SPE) */
        r->syms.texts = true;
        for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
                if (!strcmp(argv[i], "--json")) {
                        json = true;
                        continue;
                }
                if (i + 1 >= argc)
                        break;
                if (!strcmp(argv[i], "--unit") && cli_parse_unit(argv[i + 1], &r->unit))
                        i++;
                else if (!strcmp(argv[i], "--core-ghz"))
                        ghz = argv[++i];
                else if (!strcmp(argv[i], "--fields"))
                        fields = argv[++i];
                else if (!strcmp(argv[i], "--total"))
                        total = strtod(argv[++i], NULL);
                else if (!strcmp(argv[i], "--rate"))
                        rate = strtod(argv[++i], NULL);
                else if (!strcmp(argv[i], "--top"))
                        top = atoi(argv[++i]);
                else {
                        fprintf(stderr, "pmucal-table: report: unknown option \"%s\"\n", cli_esc(argv[i]));
                        rc = EXIT_USAGE;
                        goto out;
                }
        }
        if (argc - i < 1 || argc - i > 2 || top < 1) {
                fprintf(stderr, "pmucal-table: report: wrong arguments ([--json] [--unit U] "
                                "[--core-ghz G] [--fields F] [--total N --rate R] [--top K] TABLE "
                                "[FILE|-])\n");
                rc = EXIT_USAGE;
                goto out;
        }
        r->have_addr_field = strstr(fields, "addr") != NULL;
        r->have_src_field  = strstr(fields, "data_src") != NULL;
        if (!(t = cli_load_table(argv[i]))) {
                rc = EXIT_BAD;
                goto out;
        }
        if ((ghz && (rc = cli_core_ghz(argv[i], t, ghz))))
                goto out;
        if (pmucal_table_classify(t, 0, r->unit, &lvl) == PMUCAL_E_NO_RATIO) {
                fprintf(stderr, "pmucal-table: %s: the samples' weights are %s but the table has no "
                                "ratio for them; give the core clock the samples ran at with "
                                "--core-ghz GHZ\n", cli_esc(argv[i]), pmucal_unit_name(r->unit));
                rc = EXIT_BAD;
                goto out;
        }
        if (pmucal_numa_load(argv[i], &nm, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                rc = EXIT_BAD;
                goto out;
        }
        r->t  = t;
        r->nm = nm;
        /* the buckets in the table's order, fastest first */
        for (size_t k = 0; k < t->n_levels; k++)
                bucket_id(r, t->levels[k].name);
        for (size_t k = 0; k < nm->n_dram; k++)
                if (nm->dram[k].measured)
                        bucket_id(r, nm->dram[k].name);
        if (argc - i == 2 && strcmp(argv[i + 1], "-") && !(in = fopen(argv[i + 1], "r"))) {
                fprintf(stderr, "pmucal-table: report: cannot open %s\n", cli_esc(argv[i + 1]));
                rc = EXIT_BAD;
                goto out;
        }
        if ((rc = read_all(r, in)) == 0) {
                if (json)
                        print_json(r, top, total, rate);
                else
                        print_text(r, top, total, rate);
        }
        if (in != stdin)
                fclose(in);
out:
        for (size_t k = 0; r->syms.text && k < r->syms.cap; k++)
                free(r->syms.text[k]);
        free(r->syms.text);
        free(r->syms.v);
        free(r->addrs.v);
        for (int s = 0; s < r->n_src; s++)
                free(r->src_cache[s]);
        free(r->lat_cache);
        free(r);
        pmucal_numa_free(nm);
        pmucal_table_free(t);
        return rc;
}
