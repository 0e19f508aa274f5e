/** @file Reports and validation checks over precise samples (see samples.h). */
#include "samples.h"

#include "../boot/plat.h"
#include "fmt.h"

/* ---- constants -------------------------------------------------------------------------- */

#define LINE_BYTES 64u

/* ---- private helpers -------------------------------------------------------------------- */

static bool passes(const struct psample *p, unsigned flags)
{
        if ((flags & REP_SF_LOADS_ONLY) && !p->is_load)
                return false;
        if ((flags & REP_SF_MISSES_ONLY) && !(p->l1_miss_known && p->l1_miss))
                return false;
        return true;
}

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

static void verdict(struct rep_verdict *out, enum rep_verdict_kind v, int64_t measured,
                    int64_t expected, int64_t lo, int64_t hi, const char *unit)
{
        out->v = v;
        out->measured = measured;
        out->expected = expected;
        out->lo = lo;
        out->hi = hi;
        out->unit = unit;
}

static uint32_t permille(uint64_t part, uint64_t whole)
{
        return whole ? (uint32_t)((part * 1000 + whole / 2) / whole) : 0;
}

static bool line_visited(const uint64_t *lines, size_t n, uint64_t line)
{
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (lines[mid] == line)
                        return true;
                if (lines[mid] < line)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return false;
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
        rep_buf_printf(out, "\nLatency bucket (cycles)          samples  permille\n");
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

/* ---- public functions: validation ------------------------------------------------------- */

const char *rep_verdict_name(enum rep_verdict_kind v)
{
        return v == REP_V_PASS ? "PASS" : v == REP_V_FAIL ? "FAIL" : "SKIP";
}

status_t rep_check_addrs_in_chain(const struct psample *s, size_t n, uint64_t base,
                                  uint64_t bytes, const uint64_t *lines, size_t n_lines,
                                  uint32_t line_bytes, struct rep_verdict *out)
{
        uint64_t n_addr = 0, n_good = 0, first_bad = 0;
        bool have_bad = false;

        if (!out || (!s && n) || (!lines && n_lines) || !line_bytes ||
            (line_bytes & (line_bytes - 1)))
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        for (size_t i = 0; i < n; i++) {
                uint64_t a = s[i].data_la;

                if (!s[i].is_load || !s[i].data_la_valid)
                        continue;
                n_addr++;
                if (a >= base && a - base < bytes &&
                    line_visited(lines, n_lines, a & ~(uint64_t)(line_bytes - 1)))
                        n_good++;
                else if (!have_bad) {
                        have_bad = true;
                        first_bad = a;
                }
        }
        if (n_addr == 0) {
                verdict(out, REP_V_SKIP, 0, 0, 0, 0, "samples");
                fmt_snprintf(out->why, sizeof(out->why), "no sampled load carried a data address");
                return ST_OK;
        }
        verdict(out, n_good == n_addr ? REP_V_PASS : REP_V_FAIL, (int64_t)n_good,
                (int64_t)n_addr, (int64_t)n_addr, (int64_t)n_addr, "samples");
        if (have_bad)
                fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu addresses on visited "
                             "lines of [0x%llx, +%llu); first bad 0x%llx",
                             (unsigned long long)n_good, (unsigned long long)n_addr,
                             (unsigned long long)base, (unsigned long long)bytes,
                             (unsigned long long)first_bad);
        else
                fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu addresses on visited "
                             "lines of [0x%llx, +%llu)", (unsigned long long)n_good,
                             (unsigned long long)n_addr, (unsigned long long)base,
                             (unsigned long long)bytes);
        return ST_OK;
}

status_t rep_check_phys(const struct psample *s, size_t n, const struct rep_xlat *map,
                        size_t n_map, struct rep_verdict *out)
{
        uint64_t n_both = 0, n_good = 0;

        if (!out || (!s && n) || (!map && n_map))
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        for (size_t i = 0; i < n; i++) {
                size_t lo = 0, hi = n_map;

                if (!s[i].data_la_valid || !s[i].data_pa_valid)
                        continue;
                n_both++;
                while (lo < hi) {           /* last mapping with va <= address */
                        size_t mid = lo + (hi - lo) / 2;

                        if (map[mid].va <= s[i].data_la)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                if (lo > 0 && s[i].data_la - map[lo - 1].va < map[lo - 1].bytes &&
                    map[lo - 1].pa + (s[i].data_la - map[lo - 1].va) == s[i].data_pa)
                        n_good++;
        }
        if (n_both == 0) {
                verdict(out, REP_V_SKIP, 0, 0, 0, 0, "samples");
                fmt_snprintf(out->why, sizeof(out->why), "no sample had both addresses valid");
                return ST_OK;
        }
        verdict(out, n_good == n_both ? REP_V_PASS : REP_V_FAIL, (int64_t)n_good,
                (int64_t)n_both, (int64_t)n_both, (int64_t)n_both, "samples");
        fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu physical addresses match the "
                     "page tables", (unsigned long long)n_good, (unsigned long long)n_both);
        return ST_OK;
}

status_t rep_check_phys_walk(const struct psample *s, const struct rep_walk *w, size_t n,
                             struct rep_verdict *out)
{
        uint64_t n_both = 0, n_good = 0, n_nowalk = 0, n_ident = 0;
        size_t   bad = n;

        if (!out || ((!s || !w) && n))
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        for (size_t i = 0; i < n; i++) {
                if (!s[i].data_la_valid || !s[i].data_pa_valid)
                        continue;
                n_both++;
                if (w[i].st != ST_OK)
                        n_nowalk++;
                if (w[i].st == ST_OK && w[i].pa == s[i].data_pa) {
                        n_good++;
                        n_ident += s[i].data_pa == s[i].data_la;
                } else if (bad == n) {
                        bad = i;
                }
        }
        if (n_both == 0) {
                verdict(out, REP_V_SKIP, 0, 0, 0, 0, "samples");
                fmt_snprintf(out->why, sizeof(out->why), "no sample had both addresses valid");
                return ST_OK;
        }
        verdict(out, n_good == n_both ? REP_V_PASS : REP_V_FAIL, (int64_t)n_good,
                (int64_t)n_both, (int64_t)n_both, (int64_t)n_both, "samples");
        if (bad == n)
                fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu physical addresses equal "
                             "the CR3 walk (%llu identity)", (unsigned long long)n_good,
                             (unsigned long long)n_both, (unsigned long long)n_ident);
        else
                fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu equal the CR3 walk (%llu "
                             "unwalkable); first: la 0x%llx pa 0x%llx walk %s 0x%llx",
                             (unsigned long long)n_good, (unsigned long long)n_both,
                             (unsigned long long)n_nowalk, (unsigned long long)s[bad].data_la,
                             (unsigned long long)s[bad].data_pa, status_str(w[bad].st),
                             (unsigned long long)w[bad].pa);
        return ST_OK;
}

status_t rep_check_latency(const struct psample *s, size_t n, unsigned flags, uint32_t lo,
                           uint32_t hi, uint32_t min_permille, struct rep_verdict *out)
{
        uint64_t n_lat = 0, n_in = 0;
        uint32_t a = 0, b = UINT32_MAX;

        if (!out || (!s && n) || lo > hi)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        for (size_t i = 0; i < n; i++) {
                if (!s[i].lat_valid || !passes(&s[i], flags))
                        continue;
                n_lat++;
                n_in += s[i].lat_cycles >= lo && s[i].lat_cycles <= hi;
        }
        if (n_lat == 0) {
                verdict(out, REP_V_SKIP, 0, 0, lo, hi, "cycles");
                fmt_snprintf(out->why, sizeof(out->why), "no sample with a latency");
                return ST_OK;
        }
        /* Median without a scratch copy: the smallest x with count(lat <= x) >= ceil(n/2). */
        while (a < b) {
                uint32_t mid = a + (b - a) / 2;
                uint64_t c = 0;

                for (size_t i = 0; i < n; i++)
                        c += s[i].lat_valid && passes(&s[i], flags) && s[i].lat_cycles <= mid;
                if (c >= (n_lat + 1) / 2)
                        b = mid;
                else
                        a = mid + 1;
        }
        verdict(out, a >= lo && a <= hi && permille(n_in, n_lat) >= min_permille ? REP_V_PASS
                                                                                  : REP_V_FAIL,
                a, ((int64_t)lo + hi) / 2, lo, hi, "cycles");
        fmt_snprintf(out->why, sizeof(out->why), "median %u cycles; %llu of %llu (%u permille, "
                     "need %u) within [%u, %u]", a, (unsigned long long)n_in,
                     (unsigned long long)n_lat, permille(n_in, n_lat), min_permille, lo, hi);
        return ST_OK;
}

status_t rep_check_level(const struct psample *s, size_t n, enum psample_level want,
                         uint32_t min_permille, struct rep_verdict *out)
{
        uint64_t n_known = 0, n_match = 0;

        if (!out || (!s && n) || want >= PS_LVL__COUNT)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        for (size_t i = 0; i < n; i++) {
                if (!s[i].is_load || s[i].level == PS_LVL_UNKNOWN)
                        continue;
                n_known++;
                n_match += s[i].level == want;
        }
        if (n_known == 0) {
                verdict(out, REP_V_SKIP, 0, min_permille, min_permille, 1000, "permille");
                fmt_snprintf(out->why, sizeof(out->why), "no load with a known data source");
                return ST_OK;
        }
        verdict(out, permille(n_match, n_known) >= min_permille ? REP_V_PASS : REP_V_FAIL,
                permille(n_match, n_known), min_permille, min_permille, 1000, "permille");
        fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu loads report %s",
                     (unsigned long long)n_match, (unsigned long long)n_known,
                     psample_level_name(want));
        return ST_OK;
}

status_t rep_check_tlb(const struct psample *s, size_t n, bool want_l2_miss,
                       enum psample_pgsz want_pgsz, uint32_t min_permille,
                       struct rep_verdict *out)
{
        uint64_t n_known = 0, n_match = 0;

        if (!out || (!s && n))
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        for (size_t i = 0; i < n; i++) {
                const struct psample *p = &s[i];

                if (!p->tlb_l2_known)
                        continue;
                n_known++;
                n_match += p->tlb_l2_miss == want_l2_miss &&
                           (p->pgsz == PS_PG_UNKNOWN || want_pgsz == PS_PG_UNKNOWN ||
                            p->pgsz == want_pgsz);
        }
        if (n_known == 0) {
                verdict(out, REP_V_SKIP, 0, min_permille, min_permille, 1000, "permille");
                fmt_snprintf(out->why, sizeof(out->why), "no sample with TLB information");
                return ST_OK;
        }
        verdict(out, permille(n_match, n_known) >= min_permille ? REP_V_PASS : REP_V_FAIL,
                permille(n_match, n_known), min_permille, min_permille, 1000, "permille");
        fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu samples: STLB %s, page %s",
                     (unsigned long long)n_match, (unsigned long long)n_known,
                     want_l2_miss ? "miss" : "hit", psample_pgsz_name(want_pgsz));
        return ST_OK;
}

status_t rep_check_sample_count(uint64_t n_samples, uint64_t n_events, uint64_t period,
                                uint32_t tol_permille, struct rep_verdict *out)
{
        uint64_t want, tol;

        if (!out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (period == 0 || n_events == 0) {
                verdict(out, REP_V_SKIP, (int64_t)n_samples, 0, 0, 0, "samples");
                fmt_snprintf(out->why, sizeof(out->why), "no events counted or no period");
                return ST_OK;
        }
        want = n_events / period;
        tol = want * tol_permille / 1000;
        if (tol < 1)
                tol = 1;
        verdict(out, n_samples + tol >= want && n_samples <= want + tol ? REP_V_PASS : REP_V_FAIL,
                (int64_t)n_samples, (int64_t)want, (int64_t)(want > tol ? want - tol : 0),
                (int64_t)(want + tol), "samples");
        fmt_snprintf(out->why, sizeof(out->why), "%llu samples for %llu events / period %llu",
                     (unsigned long long)n_samples, (unsigned long long)n_events,
                     (unsigned long long)period);
        return ST_OK;
}

status_t rep_check_lbr_block_cost(const struct lbr_block_stat *st, size_t n_st, uint64_t start,
                                  uint64_t end, uint64_t expected_mcyc, uint32_t tol_permille,
                                  struct rep_verdict *out)
{
        uint64_t tol, mean;

        if (!out || (!st && n_st))
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        tol = expected_mcyc * tol_permille / 1000;
        for (size_t i = 0; i < n_st; i++) {
                if (st[i].start != start || st[i].end != end || st[i].n == 0)
                        continue;
                mean = pmu_lbr_block_mean_mcyc(&st[i]);
                verdict(out, mean + tol >= expected_mcyc && mean <= expected_mcyc + tol ?
                             REP_V_PASS : REP_V_FAIL, (int64_t)mean, (int64_t)expected_mcyc,
                        (int64_t)(expected_mcyc > tol ? expected_mcyc - tol : 0),
                        (int64_t)(expected_mcyc + tol), "milli-cycles");
                fmt_snprintf(out->why, sizeof(out->why), "block 0x%llx-0x%llx: %u samples, "
                             "cycles %u..%u", (unsigned long long)start, (unsigned long long)end,
                             st[i].n, st[i].min_cycles, st[i].max_cycles);
                return ST_OK;
        }
        verdict(out, REP_V_FAIL, 0, (int64_t)expected_mcyc, 0, 0, "milli-cycles");
        fmt_snprintf(out->why, sizeof(out->why), "block 0x%llx-0x%llx never recorded (%zu blocks)",
                     (unsigned long long)start, (unsigned long long)end, n_st);
        return ST_OK;
}

status_t rep_check_lbr_symbols(const struct lbr_entry *e, size_t n, const struct rep_sym *syms,
                               size_t n_syms, struct rep_verdict *out)
{
        uint64_t n_in = 0, first_bad = 0;
        bool have_bad = false;

        if (!out || (!e && n) || (!syms && n_syms))
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (n == 0) {
                verdict(out, REP_V_SKIP, 0, 0, 0, 0, "addresses");
                fmt_snprintf(out->why, sizeof(out->why), "no branch records");
                return ST_OK;
        }
        for (size_t i = 0; i < 2 * n; i++) {
                uint64_t a = i & 1 ? e[i / 2].to : e[i / 2].from;
                size_t lo = 0, hi = n_syms;

                while (lo < hi) {
                        size_t mid = lo + (hi - lo) / 2;

                        if (syms[mid].addr <= a)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                if (lo > 0 && a - syms[lo - 1].addr < syms[lo - 1].bytes)
                        n_in++;
                else if (!have_bad) {
                        have_bad = true;
                        first_bad = a;
                }
        }
        verdict(out, n_in == 2 * n ? REP_V_PASS : REP_V_FAIL, (int64_t)n_in, (int64_t)(2 * n),
                (int64_t)(2 * n), (int64_t)(2 * n), "addresses");
        fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu branch addresses inside known "
                     "symbols; first outside 0x%llx", (unsigned long long)n_in,
                     (unsigned long long)(2 * n), (unsigned long long)first_bad);
        return ST_OK;
}
