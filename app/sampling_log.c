/** @file
 * The sampling phase's verdict log and its JSON form, sampling-validation.json (see
 * app/sampling.h). Schema pmucal.sampling-validation/1:
 *   { "schema", "levels_source",
 *     "summary": { "pass", "fail", "skip", "lost" },
 *     "checks": [ { "mechanism", "check", "verdict", "measured", "expected", "lo", "hi",
 *                   "unit", "detail" } ],
 *     "figures": [ { "mechanism", "name", "value", "unit" } ] }
 */
#include "app/sampling.h"

#include "lib/fmt.h"
#include "report/json.h"

void smp_log_check(struct smp_log *lg, const char *mech, const char *name,
                   const struct rep_verdict *v)
{
        if (!lg || !v)
                return;
        switch (v->v) {
        case REP_V_SKIP:
                rep_skip("%s: %s: %s", mech, name, v->why[0] ? v->why : "no reason given");
                break;
        default:
                rep_check(v->v == REP_V_PASS, "%s: %s: measured %lld %s, expected %lld "
                          "(accepted %lld..%lld): %s", mech, name, (long long)v->measured,
                          v->unit ? v->unit : "", (long long)v->expected, (long long)v->lo,
                          (long long)v->hi, v->why);
                break;
        }
        if (lg->n_checks == SMP_MAX_CHECKS) {
                lg->n_lost++;
                return;
        }
        struct smp_check *c = &lg->checks[lg->n_checks++];
        c->mech = mech;
        fmt_snprintf(c->name, sizeof(c->name), "%s", name);
        c->v = *v;
}

void smp_log_skip(struct smp_log *lg, const char *mech, const char *name, const char *why)
{
        struct rep_verdict v = { .v = REP_V_SKIP, .unit = "" };

        fmt_snprintf(v.why, sizeof(v.why), "%s", why ? why : "");
        smp_log_check(lg, mech, name, &v);
}

void smp_log_figure(struct smp_log *lg, const char *mech, const char *name, uint64_t value,
                    const char *unit)
{
        if (!lg)
                return;
        rep_info("%s: %s: %llu %s", mech, name, (unsigned long long)value, unit ? unit : "");
        if (lg->n_figs == SMP_MAX_FIGURES)
                return;
        struct smp_figure *f = &lg->figs[lg->n_figs++];
        f->mech = mech;
        fmt_snprintf(f->name, sizeof(f->name), "%s", name);
        f->value = value;
        f->unit = unit;
}

status_t smp_json_write(const struct smp_log *lg, struct rep_buf *out)
{
        struct json_w w;
        uint64_t n[3] = { 0 };

        if (!lg || !out)
                return ST_BAD_ARG;
        for (size_t i = 0; i < lg->n_checks; i++)
                if ((unsigned)lg->checks[i].v.v < 3)
                        n[lg->checks[i].v.v]++;
        json_init(&w, out);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.sampling-validation/1");
        json_str(&w, "levels_source", lg->levels_source);
        json_obj_begin(&w, "summary");
        json_u64(&w, "pass", n[REP_V_PASS]);
        json_u64(&w, "fail", n[REP_V_FAIL]);
        json_u64(&w, "skip", n[REP_V_SKIP]);
        json_u64(&w, "lost", lg->n_lost);
        json_obj_end(&w);
        json_arr_begin(&w, "checks");
        for (size_t i = 0; i < lg->n_checks; i++) {
                const struct smp_check *c = &lg->checks[i];

                json_obj_begin(&w, NULL);
                json_str(&w, "mechanism", c->mech);
                json_str(&w, "check", c->name);
                json_str(&w, "verdict", rep_verdict_name(c->v.v));
                if (c->v.v != REP_V_SKIP) {
                        json_i64(&w, "measured", c->v.measured);
                        json_i64(&w, "expected", c->v.expected);
                        json_i64(&w, "lo", c->v.lo);
                        json_i64(&w, "hi", c->v.hi);
                        json_str(&w, "unit", c->v.unit);
                }
                json_str(&w, "detail", c->v.why);
                json_obj_end(&w);
        }
        json_arr_end(&w);
        json_arr_begin(&w, "figures");
        for (size_t i = 0; i < lg->n_figs; i++) {
                json_obj_begin(&w, NULL);
                json_str(&w, "mechanism", lg->figs[i].mech);
                json_str(&w, "name", lg->figs[i].name);
                json_u64(&w, "value", lg->figs[i].value);
                json_str(&w, "unit", lg->figs[i].unit);
                json_obj_end(&w);
        }
        json_arr_end(&w);
        json_obj_end(&w);
        return json_finish(&w);
}

/* ---- the plan ---------------------------------------------------------------------------- */

struct fallback_level {
        const char        *name;
        uint64_t           bytes;
        uint32_t           p50_cycles;
        enum psample_level level;
};

/* Typical of current x86 server cores; used only when the latency phase gave no table. */
static const struct fallback_level fallback_levels[] = {
        { "L1",   16 * KiB,   5,   PS_LVL_L1 },
        { "L2",   256 * KiB,  14,  PS_LVL_L2 },
        { "L3",   4 * MiB,    45,  PS_LVL_L3 },
        { "DRAM", 128 * MiB,  250, PS_LVL_LOCAL_DRAM },
};

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
        return b > SMP_WS_MAX_BYTES ? SMP_WS_MAX_BYTES : b;
}

/* Accepted latency of level i: from the bound below (0 for the first) to the bound above
 * (twice the p50 for the last), each widened by 25 %. */
static void set_range(struct smp_plan *p, const uint32_t *bound, size_t i)
{
        struct smp_ws *w = &p->ws[i];
        uint32_t lo = i ? bound[i - 1] : 0;
        uint32_t hi = i + 1 < p->n ? bound[i] : 2 * w->p50_cycles;

        w->lat_lo = lo - lo / 4;
        w->lat_hi = hi + hi / 4;
}

void smp_plan_build(const struct lat_levels *l, struct smp_plan *out)
{
        uint32_t bound[LAT_MAX_LEVELS] = { 0 };

        memset(out, 0, sizeof(*out));
        if (!l || l->n < 2 || (l->flags & LAT_F_NO_HIERARCHY)) {
                out->fallback = true;
                out->n = ARRAY_SIZE(fallback_levels);
                for (size_t i = 0; i < out->n; i++) {
                        const struct fallback_level *f = &fallback_levels[i];

                        fmt_snprintf(out->ws[i].name, sizeof(out->ws[i].name), "%s", f->name);
                        out->ws[i].bytes = f->bytes;
                        out->ws[i].level = f->level;
                        out->ws[i].p50_cycles = f->p50_cycles;
                        if (i + 1 < out->n)
                                bound[i] = (f->p50_cycles + fallback_levels[i + 1].p50_cycles) / 2;
                }
        } else {
                out->n = l->n > LAT_MAX_LEVELS ? LAT_MAX_LEVELS : l->n;
                out->tsc_cycles = l->clock == LAT_CLOCK_TSC;
                out->clock_hz = l->clock_hz;
                for (size_t i = 0; i < out->n; i++) {
                        const struct lat_level *lv = &l->lv[i];
                        struct smp_ws *w = &out->ws[i];

                        fmt_snprintf(w->name, sizeof(w->name), "%s", lv->name);
                        w->level = level_of_name(lv->name);
                        w->p50_cycles = (uint32_t)((lv->lat_mcyc.p50 + 500) / 1000);
                        /* Middle of the plateau; past the last capacity for the last level. */
                        w->bytes = i + 1 < out->n ? round_ws((lv->ws_lo_bytes + lv->ws_hi_bytes) / 2)
                                                  : round_ws(2 * lv->ws_lo_bytes);
                        if (i + 1 < out->n)
                                bound[i] = (uint32_t)((l->bound_mcyc[i] + 500) / 1000);
                }
        }
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

void smp_plan_core_cycles(const struct smp_plan *in, uint32_t core_per_tsc_q16,
                          const char *ratio_src, struct smp_plan *out)
{
        const uint32_t r = core_per_tsc_q16;

        *out = *in;
        for (size_t i = 0; i < out->n; i++)
                out->buckets[i].name = out->ws[i].name;
        if (!in->tsc_cycles) {
                fmt_snprintf(out->lat_note, sizeof(out->lat_note), "expected in core cycles%s",
                             in->fallback ? " (fixed fallback)" : "");
                return;
        }
        if (r == 0) {
                /* Bucket bounds stay in TSC ticks: the histogram says so through the note. */
                for (size_t i = 0; i < out->n; i++) {
                        struct smp_ws *w = &out->ws[i];

                        w->lat_lo /= 2;
                        w->lat_hi = w->lat_hi > (UINT32_MAX - 2) / 2 ? UINT32_MAX - 2
                                                                     : 2 * w->lat_hi;
                }
                fmt_snprintf(out->lat_note, sizeof(out->lat_note), "table in TSC ticks, core:TSC "
                             "unknown: range widened to x0.5..x2");
                return;
        }
        for (size_t i = 0; i < out->n; i++) {
                struct smp_ws *w = &out->ws[i];

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

/* ---- the LBR cycles-per-block report ----------------------------------------------------- */

static const char *sym_name(const struct rep_sym *syms, size_t n, uint64_t a)
{
        for (size_t i = n; i-- > 0;)
                if (syms[i].addr <= a && a - syms[i].addr < syms[i].bytes)
                        return syms[i].name;
        return "?";
}

status_t smp_lbr_block_report(const struct lbr_block_stat *st, size_t n_st,
                              const struct rep_sym *syms, size_t n_syms, struct rep_buf *out)
{
        if ((!st && n_st) || (!syms && n_syms) || !out)
                return ST_BAD_ARG;
        rep_buf_printf(out, "cycles: cycles per basic block from LBR cycle counts (Caliper "
                       "\"Cycles Per Block\")\n"
                       "  function           block start         block end            samples"
                       "  cycles/block    min    max\n");
        for (size_t i = 0; i < n_st; i++) {
                uint64_t m = pmu_lbr_block_mean_mcyc(&st[i]);

                rep_buf_printf(out, "  %-18s 0x%016llx  0x%016llx  %8u  %8llu.%03llu  %5u  %5u\n",
                               sym_name(syms, n_syms, st[i].start),
                               (unsigned long long)st[i].start, (unsigned long long)st[i].end,
                               st[i].n, (unsigned long long)(m / 1000),
                               (unsigned long long)(m % 1000), st[i].min_cycles,
                               st[i].max_cycles);
        }
        return out->oom ? ST_NO_MEM : ST_OK;
}
