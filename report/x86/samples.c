/** @file Reports over precise samples: grouping, latency histogram, dcache report (see
 * samples.h; the validation checks are in samples_check.c). */
#include "report/x86/samples.h"
#include "report/x86/samples_priv.h"

#include "boot/plat.h"
#include "lib/fmt.h"

/* ---- constants -------------------------------------------------------------------------- */

#define LINE_BYTES 64u

/* ---- private helpers -------------------------------------------------------------------- */

static bool by_key(const struct rep_site *a, const struct rep_site *b)
{
        return a->key < b->key;
}

/* a sorts before b: more samples first, then lower key. */
static bool by_count(const struct rep_site *a, const struct rep_site *b)
{
        return a->n != b->n ? a->n > b->n : a->key < b->key;
}

static void swap_site(struct rep_site *a, struct rep_site *b)
{
        struct rep_site t = *a;

        *a = *b;
        *b = t;
}

/* Heap sort: O(n log n), no allocation, bounded stack (firmware-safe). */
static void sift(struct rep_site *v, size_t root, size_t n,
                 bool (*before)(const struct rep_site *, const struct rep_site *))
{
        for (;;) {
                size_t c = 2 * root + 1, top = root;

                if (c < n && before(&v[top], &v[c]))
                        top = c;
                if (c + 1 < n && before(&v[top], &v[c + 1]))
                        top = c + 1;
                if (top == root)
                        return;
                swap_site(&v[root], &v[top]);
                root = top;
        }
}

static void sort_sites(struct rep_site *v, size_t n,
                       bool (*before)(const struct rep_site *, const struct rep_site *))
{
        for (size_t i = n / 2; i-- > 0;)
                sift(v, i, n, before);
        for (size_t end = n; end > 1; end--) {
                swap_site(&v[0], &v[end - 1]);
                sift(v, 0, end - 1, before);
        }
}

static status_t print_sites(struct rep_buf *out, const struct rep_site *w, size_t n_rows)
{
        status_t st = ST_OK;

        for (size_t i = 0; i < n_rows && st == ST_OK; i++) {
                uint64_t avg = w[i].n_lat ? w[i].sum_lat_cycles / w[i].n_lat : 0;

                st = rep_buf_printf(out, "  0x%016llx  %8u  %8u  %8llu  %8u\n",
                                    (unsigned long long)w[i].key, w[i].n, w[i].n_miss,
                                    (unsigned long long)avg, w[i].max_lat_cycles);
        }
        return st;
}

/* ---- public functions: reports ---------------------------------------------------------- */

status_t rep_samples_top(const struct psample *s, size_t n, enum rep_sample_key key,
                         unsigned flags, struct rep_site *work, size_t n_work,
                         size_t *n_distinct)
{
        size_t m = 0, d = 0;

        if ((!s && n) || !n_distinct || (!work && n_work))
                return ST_BAD_ARG;
        *n_distinct = 0;
        for (size_t i = 0; i < n; i++) {
                const struct psample *p = &s[i];
                uint64_t k;

                if (!passes(p, flags))
                        continue;
                if (key == REP_KEY_IP) {
                        if (!p->ip_valid)
                                continue;
                        k = p->ip;
                } else {
                        if (!p->data_la_valid)
                                continue;
                        k = key == REP_KEY_DATA_LINE ? p->data_la & ~(uint64_t)(LINE_BYTES - 1)
                                                     : p->data_la;
                }
                if (m == n_work)
                        return ST_NO_SPACE;
                work[m++] = (struct rep_site){
                        .key = k, .n = 1, .n_miss = p->l1_miss_known && p->l1_miss,
                        .n_lat = p->lat_valid, .sum_lat_cycles = p->lat_valid ? p->lat_cycles : 0,
                        .max_lat_cycles = p->lat_valid ? p->lat_cycles : 0,
                };
        }
        sort_sites(work, m, by_key);
        for (size_t i = 0; i < m; i++) {
                if (d > 0 && work[d - 1].key == work[i].key) {
                        struct rep_site *t = &work[d - 1];

                        t->n += work[i].n;
                        t->n_miss += work[i].n_miss;
                        t->n_lat += work[i].n_lat;
                        t->sum_lat_cycles += work[i].sum_lat_cycles;
                        if (work[i].max_lat_cycles > t->max_lat_cycles)
                                t->max_lat_cycles = work[i].max_lat_cycles;
                } else {
                        work[d++] = work[i];
                }
        }
        sort_sites(work, d, by_count);
        *n_distinct = d;
        return ST_OK;
}

status_t rep_samples_lat_hist(const struct psample *s, size_t n, unsigned flags,
                              const struct rep_lat_bucket *b, size_t nb, uint64_t *counts)
{
        if ((!s && n) || !b || nb == 0 || !counts)
                return ST_BAD_ARG;
        for (size_t j = 1; j < nb; j++)
                if (b[j].upper_cycles <= b[j - 1].upper_cycles)
                        return ST_BAD_ARG;
        memset(counts, 0, (nb + 1) * sizeof(*counts));
        for (size_t i = 0; i < n; i++) {
                size_t j = 0;

                if (!s[i].lat_valid || !passes(&s[i], flags))
                        continue;
                while (j < nb && s[i].lat_cycles > b[j].upper_cycles)
                        j++;
                counts[j]++;
        }
        return ST_OK;
}

status_t rep_samples_dcache_report(const struct rep_dcache_in *in, struct rep_buf *out)
{
        uint64_t counts[33], by_level[PS_LVL__COUNT] = { 0 };
        uint64_t n_loads = 0, n_miss = 0, n_lat = 0, prev = 0;
        size_t d, rows;
        status_t st;

        if (!in || !out || (!in->s && in->n) || !in->buckets || in->n_buckets == 0 ||
            in->n_buckets > 32)
                return ST_BAD_ARG;
        for (size_t i = 0; i < in->n; i++) {
                const struct psample *p = &in->s[i];

                n_loads += p->is_load;
                if (p->l1_miss_known && p->l1_miss) {
                        n_miss++;
                        by_level[p->level]++;
                        n_lat += p->lat_valid;
                }
        }
        if ((st = rep_samples_lat_hist(in->s, in->n, REP_SF_MISSES_ONLY, in->buckets,
                                       in->n_buckets, counts)) != ST_OK)
                return st;
        rep_buf_printf(out, "dcache: %s\n", in->title ? in->title : "");
        rep_buf_printf(out, "  samples %zu  loads %llu  sampled L1 misses %llu  with latency "
                       "%llu  period %llu\n", in->n, (unsigned long long)n_loads,
                       (unsigned long long)n_miss, (unsigned long long)n_lat,
                       (unsigned long long)in->period);
        rep_buf_printf(out, "\nLatency bucket (core cycles)     samples  permille\n");
        for (size_t j = 0; j <= in->n_buckets; j++) {
                char range[48];

                if (j < in->n_buckets)
                        fmt_snprintf(range, sizeof(range), "%s (%llu-%u)", in->buckets[j].name,
                                     (unsigned long long)(j ? prev + 1 : 0),
                                     in->buckets[j].upper_cycles);
                else
                        fmt_snprintf(range, sizeof(range), "above (>%llu)",
                                     (unsigned long long)prev);
                rep_buf_printf(out, "  %-30s %8llu  %8u\n", range,
                               (unsigned long long)counts[j], permille(counts[j], n_lat));
                if (j < in->n_buckets)
                        prev = in->buckets[j].upper_cycles;
        }
        rep_buf_printf(out, "\nData source of L1 misses          samples  permille\n");
        for (int l = 0; l < PS_LVL__COUNT; l++)
                if (by_level[l])
                        rep_buf_printf(out, "  %-30s %8llu  %8u\n",
                                       psample_level_name((enum psample_level)l),
                                       (unsigned long long)by_level[l],
                                       permille(by_level[l], n_miss));
        if ((st = rep_samples_top(in->s, in->n, REP_KEY_IP, REP_SF_MISSES_ONLY, in->work,
                                  in->n_work, &d)) != ST_OK)
                return st;
        rows = d < in->top_n ? d : in->top_n;
        rep_buf_printf(out, "\nTop %zu load sites by sampled misses (of %zu)\n"
                       "  ip                   samples    misses   avg lat   max lat\n", rows, d);
        if ((st = print_sites(out, in->work, rows)) != ST_OK)
                return st;
        if ((st = rep_samples_top(in->s, in->n, REP_KEY_DATA_ADDR, REP_SF_MISSES_ONLY, in->work,
                                  in->n_work, &d)) != ST_OK)
                return st;
        rows = d < in->top_n ? d : in->top_n;
        rep_buf_printf(out, "\nTop %zu VA that caused dcache misses (of %zu)\n"
                       "  address              samples    misses   avg lat   max lat\n", rows, d);
        if ((st = print_sites(out, in->work, rows)) != ST_OK)
                return st;
        return out->oom ? ST_NO_MEM : ST_OK;
}
