/** @file
 * The sampling phase's plan (see app/x86/sampling.h): a working set and a latency bucket per
 * level of the latency table (without one, working sets from the CPUID cache sizes and no
 * expected latency), and its conversion to core cycles by the core:TSC ratio measured over
 * a run.
 */
#include "app/x86/sampling.h"

#include "lib/fmt.h"

/* ---- the plan ---------------------------------------------------------------------------- */

static enum psample_level level_of_name(const char *n)
{
        if (!strcmp(n, "L1"))
                return PS_LVL_L1;
        if (!strcmp(n, "L2"))
                return PS_LVL_L2;
        if (!strcmp(n, "L3"))
                return PS_LVL_L3;
        if (!strcmp(n, "DRAM"))
                return PS_LVL_LOCAL_DRAM;
        if (!strcmp(n, "L4"))
                return PS_LVL_OTHER_MEM;
        return PS_LVL_UNKNOWN;
}

static uint64_t round_ws(uint64_t b)
{
        b &= ~(uint64_t)(4 * KiB - 1);
        if (b < 4 * KiB)
                b = 4 * KiB;
        return b > SAMP_WS_MAX_BYTES ? SAMP_WS_MAX_BYTES : b;
}

/* Accepted latency of level i: from the bound below (0 for the first) to the bound above
 * (twice the p50 for the last), each widened by 25 %. */
static void set_range(struct samp_plan *p, const uint32_t *bound, size_t i)
{
        struct samp_ws *w = &p->ws[i];
        uint32_t lo = i ? bound[i - 1] : 0;
        uint32_t hi = i + 1 < p->n ? bound[i] : 2 * w->p50_cycles;

        w->lat_lo = lo - lo / 4;
        w->lat_hi = hi + hi / 4;
}

/* The measured table: one working set in the middle of each plateau (past the last capacity
 * for the last level), latencies and bounds from the table. */
static void plan_from_table(const struct lat_levels *l, struct samp_plan *out, uint32_t *bound)
{
        out->n = l->n > LAT_MAX_LEVELS ? LAT_MAX_LEVELS : l->n;
        out->tsc_cycles = l->clock == LAT_CLOCK_TSC;
        out->clock_hz = l->clock_hz;
        for (size_t i = 0; i < out->n; i++) {
                const struct lat_level *lv = &l->lv[i];
                struct samp_ws *w = &out->ws[i];

                fmt_snprintf(w->name, sizeof(w->name), "%s", lv->name);
                w->level = level_of_name(lv->name);
                w->p50_cycles = (uint32_t)((lv->lat_mcyc.p50 + 500) / 1000);
                w->bytes = i + 1 < out->n ? round_ws((lv->ws_lo_bytes + lv->ws_hi_bytes) / 2)
                                          : round_ws(2 * lv->ws_lo_bytes);
                if (i + 1 < out->n)
                        bound[i] = (uint32_t)((l->bound_mcyc[i] + 500) / 1000);
        }
}

/* Why the table gives no latencies (it is NULL or shows no hierarchy). */
static const char *thin_why(const struct lat_levels *l)
{
        if (!l)
                return "no latency table (the latency phase did not run or failed)";
        if (l->flags & LAT_F_NO_HIERARCHY)
                return "the latency table shows no cache hierarchy (one flat level)";
        return "the latency table has fewer than two levels";
}

/* Size of the data (or unified) cache of level @p lvl in @p cpu; 0 when CPUID has none. */
static uint64_t cpuid_cache(const struct cpu_info *cpu, unsigned lvl)
{
        for (size_t i = 0; cpu && i < cpu->n_caches && i < ARRAY_SIZE(cpu->caches); i++)
                if (cpu->caches[i].level == lvl && cpu->caches[i].type != CACHE_INST)
                        return cpu->caches[i].size_bytes;
        return 0;
}

/* No usable table: working sets and levels from the CPUID caches (half the L1D; between two
 * cache sizes; twice the last for DRAM). Latencies are not guessed: every ws carries
 * lat_why and the latency checks SKIP with it. Without CPUID caches the usual level names
 * carry ws_why instead and SKIP whole. */
static void plan_from_cpuid(const struct lat_levels *l, const struct cpu_info *cpu,
                            struct samp_plan *out)
{
        static const char *const names[] = { "L1", "L2", "L3", "L4" };
        uint64_t prev = 0, sz;
        size_t n = 0;

        out->fallback = true;
        fmt_snprintf(out->lat_note, sizeof(out->lat_note), "no expected latency: %s",
                     thin_why(l));
        for (unsigned lvl = 1; lvl <= 4 && (sz = cpuid_cache(cpu, lvl)) > prev; lvl++) {
                struct samp_ws *w = &out->ws[n++];

                fmt_snprintf(w->name, sizeof(w->name), "%s", names[lvl - 1]);
                w->level = level_of_name(w->name);
                w->bytes = round_ws(prev ? (prev + sz) / 2 : sz / 2);
                prev = sz;
        }
        if (n == 0) {
                for (; n < 3; n++) {
                        fmt_snprintf(out->ws[n].name, sizeof(out->ws[n].name), "%s", names[n]);
                        out->ws[n].level = level_of_name(names[n]);
                        out->ws[n].ws_why = "no latency table and no CPUID cache sizes: the "
                                            "level's working set is unknown";
                }
        }
        struct samp_ws *d = &out->ws[n++];
        fmt_snprintf(d->name, sizeof(d->name), "DRAM");
        d->level = PS_LVL_LOCAL_DRAM;
        d->bytes = prev ? round_ws(2 * prev) : 0;
        if (!prev)
                d->ws_why = out->ws[0].ws_why;
        else if (d->bytes <= prev)
                d->ws_why = "the largest working set the phase allocates fits the last-level "
                            "cache";
        out->n = n;
        for (size_t i = 0; i < n; i++)
                out->ws[i].lat_why = thin_why(l);
}

void samp_plan_build(const struct lat_levels *l, const struct cpu_info *cpu,
                     struct samp_plan *out)
{
        uint32_t bound[LAT_MAX_LEVELS] = { 0 };

        memset(out, 0, sizeof(*out));
        if (!l || l->n < 2 || (l->flags & LAT_F_NO_HIERARCHY)) {
                plan_from_cpuid(l, cpu, out);
                return; /* no latency buckets */
        }
        plan_from_table(l, out, bound);
        for (size_t i = 0; i < out->n; i++) {
                set_range(out, bound, i);
                out->buckets[i].name = out->ws[i].name;
                out->buckets[i].upper_cycles = i + 1 < out->n ? bound[i] : UINT32_MAX - 1;
        }
        out->n_buckets = out->n;
        /* Bounds must ascend strictly for the histogram; a degenerate table keeps the levels
         * but only the first bucket. */
        for (size_t i = 1; i < out->n_buckets; i++)
                if (out->buckets[i].upper_cycles <= out->buckets[i - 1].upper_cycles)
                        out->n_buckets = i;
}

/* v x ratio (Q16), rounded down or up, saturating below UINT32_MAX - 1 (the open bound). */
static uint32_t scale_q16(uint32_t v, uint32_t q16, bool up)
{
        uint64_t x = ((uint64_t)v * q16 + (up ? 0xffffu : 0)) >> 16;

        return x >= UINT32_MAX - 1 ? UINT32_MAX - 2 : (uint32_t)x;
}

void samp_plan_core_cycles(const struct samp_plan *in, uint32_t core_per_tsc_q16,
                           const char *ratio_src, struct samp_plan *out)
{
        const uint32_t r = core_per_tsc_q16;

        *out = *in;
        for (size_t i = 0; i < out->n; i++)
                out->buckets[i].name = out->ws[i].name;
        if (in->fallback)
                return; /* no latency to convert: lat_note says why */
        if (!in->tsc_cycles) {
                fmt_snprintf(out->lat_note, sizeof(out->lat_note), "expected in core cycles");
                return;
        }
        if (r == 0) {
                /* Bucket bounds stay in TSC ticks: the histogram says so through the note. */
                for (size_t i = 0; i < out->n; i++) {
                        struct samp_ws *w = &out->ws[i];

                        w->lat_lo /= 2;
                        w->lat_hi = w->lat_hi > (UINT32_MAX - 2) / 2 ? UINT32_MAX - 2
                                                                     : 2 * w->lat_hi;
                }
                fmt_snprintf(out->lat_note, sizeof(out->lat_note), "table in TSC ticks, core:TSC "
                             "unknown: range widened to x0.5..x2");
                return;
        }
        for (size_t i = 0; i < out->n; i++) {
                struct samp_ws *w = &out->ws[i];

                w->p50_cycles = scale_q16(w->p50_cycles, r, false);
                w->lat_lo = scale_q16(w->lat_lo, r, false);
                w->lat_hi = scale_q16(w->lat_hi, r, true);
                if (i + 1 < out->n)
                        out->buckets[i].upper_cycles = scale_q16(in->buckets[i].upper_cycles, r,
                                                                 false);
        }
        for (size_t i = 1; i < out->n_buckets; i++)
                if (out->buckets[i].upper_cycles <= out->buckets[i - 1].upper_cycles)
                        out->n_buckets = i;
        fmt_snprintf(out->lat_note, sizeof(out->lat_note), "table in TSC ticks, x%u.%03u "
                     "core:TSC (%s)", r >> 16, (uint32_t)(((uint64_t)(r & 0xffff) * 1000) >> 16),
                     ratio_src ? ratio_src : "measured");
}
