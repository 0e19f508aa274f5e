/** @file Validation checks over precise samples: verdicts with measured and expected values
 * (see samples.h; the reports are in samples.c). */
#include "report/x86/samples.h"
#include "report/x86/samples_priv.h"

#include "boot/plat.h"
#include "lib/fmt.h"

/* ---- private helpers -------------------------------------------------------------------- */

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

/* A check every one of @p n_all items must pass, in @p unit: SKIP with @p skip_why when there
 * is none (false: nothing decided, the caller has no more to say), else PASS only when all
 * @p n_good are. */
static bool all_or_nothing(struct rep_verdict *out, uint64_t n_good, uint64_t n_all,
                           const char *unit, const char *skip_why)
{
        if (n_all == 0) {
                verdict(out, REP_V_SKIP, 0, 0, 0, 0, unit);
                fmt_snprintf(out->why, sizeof(out->why), "%s", skip_why);
                return false;
        }
        verdict(out, n_good == n_all ? REP_V_PASS : REP_V_FAIL, (int64_t)n_good, (int64_t)n_all,
                (int64_t)n_all, (int64_t)n_all, unit);
        return true;
}

/* A check that @p n_match of @p n_known items, in permille, reach @p min_permille: SKIP with
 * @p skip_why when none is known (false, as all_or_nothing). */
static bool share_at_least(struct rep_verdict *out, uint64_t n_match, uint64_t n_known,
                           uint32_t min_permille, const char *skip_why)
{
        if (n_known == 0) {
                verdict(out, REP_V_SKIP, 0, min_permille, min_permille, 1000, "permille");
                fmt_snprintf(out->why, sizeof(out->why), "%s", skip_why);
                return false;
        }
        verdict(out, permille(n_match, n_known) >= min_permille ? REP_V_PASS : REP_V_FAIL,
                permille(n_match, n_known), min_permille, min_permille, 1000, "permille");
        return true;
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
        if (!all_or_nothing(out, n_good, n_addr, "samples",
                            "no sampled load carried a data address"))
                return ST_OK;
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
        if (!all_or_nothing(out, n_good, n_both, "samples", "no sample had both addresses valid"))
                return ST_OK;
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
        if (!all_or_nothing(out, n_good, n_both, "samples", "no sample had both addresses valid"))
                return ST_OK;
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
                verdict(out, REP_V_SKIP, 0, 0, lo, hi, "core cycles");
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
                a, ((int64_t)lo + hi) / 2, lo, hi, "core cycles");
        fmt_snprintf(out->why, sizeof(out->why), "median %u core cycles; %llu of %llu (%u permille, "
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
        if (!share_at_least(out, n_match, n_known, min_permille,
                            "no load with a known data source"))
                return ST_OK;
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
        if (!share_at_least(out, n_match, n_known, min_permille, "no sample with TLB information"))
                return ST_OK;
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
        if (!all_or_nothing(out, n_in, 2 * n, "addresses", "no branch records"))
                return ST_OK;
        fmt_snprintf(out->why, sizeof(out->why), "%llu of %llu branch addresses inside known "
                     "symbols; first outside 0x%llx", (unsigned long long)n_in,
                     (unsigned long long)(2 * n), (unsigned long long)first_bad);
        return ST_OK;
}
