/** @file Latency table writers: JSON, CSV, console table, ASCII plot (see lattable.h). */
#include "report/lattable.h"

#include "boot/plat.h"
#include "lib/fixq8.h"
#include "lib/fmt.h"

#define PLOT_MARGIN 9 /* "  405.0 |" */

static const char *const clock_names[] = {
        [LAT_CLOCK_TSC]        = "tsc",
        [LAT_CLOCK_TSC_APERF]  = "tsc-aperf-mperf",
        [LAT_CLOCK_PMU_CYCLES] = "pmu-core-cycles",
};

static const char *const flag_text[] = {
        "no visible cache hierarchy: the curve is flat (as under QEMU TCG, which has no caches); "
        "the table holds only what was measured",
        "noisy: window spread or point-to-point noise is large; treat bounds with care",
        "a detected capacity disagrees with CPUID (VMs and cache partitioning often give a smaller "
        "effective capacity)",
        "the sweep ended inside the largest CPUID cache: no DRAM level",
        "latency still rising at the largest working set: the last level may not be settled",
        "adjacent levels' p10..p90 spreads overlap: their bound is the geometric mean of the medians",
        "no core clock readable: core-cycle figures are null (ns come from the TSC)",
        "too few points to detect more than one level",
};

/* ---- helpers ----------------------------------------------------------------------------- */

/* A point's p50 as text in TSC ticks, core cycles and ns ("" where unknown). */
static void point_units(const struct lat_curve *c, const struct lat_point *p, char *tick,
                        char *core, char *ns, size_t n)
{
        bool     tsc   = c->clock == LAT_CLOCK_TSC;
        uint32_t ppm   = p->core_ppm ? p->core_ppm : c->core_ppm;
        uint64_t t     = tsc ? p->p50_mcyc : lat_core_to_ticks(p->p50_mcyc, ppm);
        uint64_t k     = tsc ? (ppm ? lat_ticks_to_core(p->p50_mcyc, ppm) : 0) : p->p50_mcyc;
        uint64_t ps    = tsc ? lat_milli_to_ps(t, c->tsc_hz) : lat_milli_to_ps(k, c->core_hz);

        tick[0] = core[0] = ns[0] = '\0';
        if (t)
                fmt_fixed(tick, n, (int64_t)t, 3);
        if (k)
                fmt_fixed(core, n, (int64_t)k, 3);
        if (ps)
                fmt_fixed(ns, n, (int64_t)ps, 3);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
        y -= m <= 2;
        int64_t  era = (y >= 0 ? y : y - 399) / 400;
        unsigned yoe = (unsigned)(y - era * 400);
        unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
        z += 719468;
        int64_t  era = (z >= 0 ? z : z - 146096) / 146097;
        unsigned doe = (unsigned)(z - era * 146097);
        unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        unsigned mp  = (5 * doy + 2) / 153;
        *d = doy - (153 * mp + 2) / 5 + 1;
        *m = mp < 10 ? mp + 3 : mp - 9;
        *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* ---- public ------------------------------------------------------------------------------ */

const char *rep_lat_date_utc(const struct plat_time *t, char *buf, size_t n)
{
        const char *zone;
        int64_t     min, y;
        unsigned    mo, d;

        if (buf && n)
                buf[0] = '\0';
        if (!t || !buf || n < 21 || !t->valid || t->month < 1 || t->month > 12 || t->day < 1 ||
            t->day > 31 || t->hour > 23 || t->minute > 59 || t->second > 60 || t->year < 1900 ||
            t->year > 9999)
                return NULL;
        min = (days_from_civil(t->year, t->month, t->day) * 24 + t->hour) * 60 + t->minute;
        switch (t->zone) {
        case PLAT_ZONE_UTC:
                zone = "utc";
                break;
        case PLAT_ZONE_OFFSET:
                if (t->utc_offset_min < -1440 || t->utc_offset_min > 1440)
                        return NULL;
                min -= t->utc_offset_min;
                zone = "firmware-offset";
                break;
        default:
                zone = "assumed-utc";
                break;
        }
        civil_from_days(min / 1440 - (min % 1440 < 0), &y, &mo, &d);
        min = ((min % 1440) + 1440) % 1440;
        if (y < 1 || y > 9999)
                return NULL;
        fmt_snprintf(buf, n, "%04u-%02u-%02uT%02u:%02u:%02uZ", (unsigned)y, mo, d,
                     (unsigned)(min / 60), (unsigned)(min % 60), t->second);
        return zone;
}


const char *rep_lat_clock_name(enum lat_clock c)
{
        return (unsigned)c < ARRAY_SIZE(clock_names) && clock_names[c] ? clock_names[c] : "unknown";
}

void rep_lat_meta_from_cpu(struct lat_table_meta *m, const struct cpu_info *cpu)
{
        if (!m || !cpu)
                return;
        m->vendor     = cpu->vendor_str;
        m->family     = cpu->family;
        m->model      = cpu->model;
        m->stepping   = cpu->stepping;
        m->brand      = cpu->brand;
        m->hypervisor = cpu->hypervisor;
}

status_t rep_lat_csv(struct rep_buf *out, const struct lat_curve *c)
{
        status_t st;

        if (!out || !c || (c->n && !c->pts))
                return ST_BAD_ARG;
        st = rep_buf_printf(out, "%s\n",
                            c->clock == LAT_CLOCK_TSC ? LAT_CSV_HEADER : LAT_CSV_HEADER_CORE);
        for (size_t i = 0; st == ST_OK && i < c->n; i++) {
                const struct lat_point *p = &c->pts[i];
                char                    tick[32], core[32], ns[32], ratio[32] = "", lo[24] = "",
                                        hi[24] = "";

                point_units(c, p, tick, core, ns, sizeof(tick));
                if (p->core_ppm)
                        fmt_fixed(ratio, sizeof(ratio), (int64_t)p->core_ppm, 6);
                if (p->p50_hi_mcyc) {
                        fmt_snprintf(lo, sizeof(lo), "%llu", (unsigned long long)p->p50_lo_mcyc);
                        fmt_snprintf(hi, sizeof(hi), "%llu", (unsigned long long)p->p50_hi_mcyc);
                }
                st = rep_buf_printf(out, "%llu,%u,%u,%llu,%llu,%llu,%llu,%s,%s,%s,%s,%s,%s,%u\n",
                                    (unsigned long long)p->ws_bytes, p->n_windows, p->n_disturbed,
                                    (unsigned long long)p->min_mcyc, (unsigned long long)p->p10_mcyc,
                                    (unsigned long long)p->p50_mcyc, (unsigned long long)p->p90_mcyc,
                                    tick, ns, core, ratio, lo, hi,
                                    p->n_measured ? p->n_measured : 1);
        }
        return st;
}

/* The console's heading: the clocks, by their names. */
/* The reference timer's name in text: "TSC", "CNTVCT_EL0". */
static const char *timer_name(const struct lat_curve *c)
{
        return c->timer ? c->timer : "TSC";
}

static void levels_heading(struct rep_buf *out, const struct lat_curve *c,
                           const struct lat_levels *l)
{
        char hz[32], r[32];

        rep_buf_printf(out, "latency levels: %zu; %s %s GHz; ", l->n, timer_name(c),
                       c->tsc_hz ? fmt_fixed(hz, sizeof(hz), (int64_t)(c->tsc_hz / 1000000), 3)
                                 : "?");
        if (l->has_core && c->core_ppm)
                rep_buf_printf(out, "core clock from %s: %s core cycles per %s tick (%s GHz)\n",
                               c->core_source ? c->core_source : rep_lat_clock_name(c->clock),
                               fmt_fixed(r, sizeof(r), (int64_t)c->core_ppm / 1000, 3),
                               timer_name(c),
                               fmt_fixed(hz, sizeof(hz), (int64_t)(c->core_hz / 1000000), 3));
        else if (l->has_core)
                rep_buf_printf(out, "figures measured in core cycles (%s)\n",
                               rep_lat_clock_name(c->clock));
        else
                rep_buf_printf(out, "core clock unknown (%s): core cycles not given\n",
                               c->core_why ? c->core_why : "no core clock source");
}

status_t rep_lat_levels_text(struct rep_buf *out, const struct lat_curve *c,
                             const struct lat_levels *l)
{
        if (!out || !c || !l)
                return ST_BAD_ARG;
        char h50[48], h1090[40], hbd[40];

        levels_heading(out, c, l);
        fmt_snprintf(h50, sizeof(h50), "p50 %s ticks (95%% CI)", timer_name(c));
        fmt_snprintf(h1090, sizeof(h1090), "p10..p90 %s ticks", timer_name(c));
        fmt_snprintf(hbd, sizeof(hbd), "upper bound %s ticks", timer_name(c));
        /* ns first: the figure a reader compares with a datasheet or another machine */
        rep_buf_printf(out, "  %-5s %-28s %-8s %-8s %9s %-26s %-21s %11s %s\n", "level",
                       "capacity (range)", "CPUID", "vs CPUID", "p50 ns", h50, h1090,
                       "core cycles", hbd);
        for (size_t k = 0; k < l->n; k++) {
                const struct lat_level *v = &l->lv[k];
                char cap[48] = "-", a[16], b[16], cp[16] = "-", p50[48], x[16], y[16], z[16],
                     core[16] = "-", ns[16] = "-", rng[40], bd[16] = "(last)";
                const struct lat_stat *t = l->has_ticks ? &v->lat_tick : &v->lat_mcyc;

                if (v->capacity_bytes) {
                        fmt_size(cap, sizeof(cap), v->capacity_bytes);
                        if (v->capacity_hi_bytes)
                                fmt_snprintf(cap + strlen(cap), sizeof(cap) - strlen(cap),
                                             " (%s..%s)",
                                             fmt_size(a, sizeof(a), v->capacity_lo_bytes),
                                             fmt_size(b, sizeof(b), v->capacity_hi_bytes));
                }
                if (v->cpuid_capacity_bytes)
                        fmt_size(cp, sizeof(cp), v->cpuid_capacity_bytes);
                if (l->has_core)
                        fmt_fixed(core, sizeof(core), (int64_t)v->lat_core.p50, 3);
                if (l->has_ps)
                        fmt_fixed(ns, sizeof(ns), (int64_t)v->lat_ps.p50, 3);
                if (k + 1 < l->n)
                        fmt_fixed(bd, sizeof(bd), (int64_t)(l->has_ticks ? l->bound_tick[k]
                                                                          : l->bound_mcyc[k]), 3);
                fmt_snprintf(p50, sizeof(p50), "%s (%s..%s)",
                             fmt_fixed(x, sizeof(x), (int64_t)t->p50, 3),
                             fmt_fixed(y, sizeof(y), (int64_t)t->p50_lo, 3),
                             fmt_fixed(z, sizeof(z), (int64_t)t->p50_hi, 3));
                fmt_snprintf(rng, sizeof(rng), "%s..%s",
                             fmt_fixed(x, sizeof(x), (int64_t)t->p10, 3),
                             fmt_fixed(y, sizeof(y), (int64_t)t->p90, 3));
                rep_buf_printf(out, "  %-5s %-28s %-8s %-8s %9s %-26s %-21s %11s %s\n", v->name,
                               cap, cp, lv_agree_name(v->agreement), ns, p50, rng, core, bd);
        }
        for (unsigned b = 0; b < ARRAY_SIZE(flag_text); b++)
                if (l->flags & BIT_ULL(b))
                        rep_buf_printf(out, "  flag %s: %s\n", lv_flag_name(BIT_ULL(b)), flag_text[b]);
        return out->oom ? ST_NO_MEM : ST_OK;
}

/* ---- plot ---------------------------------------------------------------------------------- */

struct plot {
        char     g[LAT_PLOT_H][LAT_PLOT_W + 1];
        uint32_t x0, x1, y0, y1; /* log2 Q8 ranges */
};

static unsigned col_of(const struct plot *p, uint64_t ws)
{
        uint32_t x = lib_log2_q8(ws);
        if (x <= p->x0 || p->x1 == p->x0)
                return 0;
        if (x >= p->x1)
                return LAT_PLOT_W - 1;
        return (unsigned)((uint64_t)(x - p->x0) * (LAT_PLOT_W - 1) / (p->x1 - p->x0));
}

static unsigned row_of(const struct plot *p, uint64_t mcyc)
{
        uint32_t y = lib_log2_q8(mcyc);
        if (y >= p->y1)
                return 0;
        if (y <= p->y0)
                return LAT_PLOT_H - 1;
        return (LAT_PLOT_H - 1) -
               (unsigned)(((uint64_t)(y - p->y0) * (LAT_PLOT_H - 1) + (p->y1 - p->y0) / 2) /
                          (p->y1 - p->y0));
}

static void plot_put(struct plot *p, unsigned r, unsigned col, char ch, const char *over)
{
        char cur = p->g[r][col];
        for (; *over; over++)
                if (cur == *over) {
                        p->g[r][col] = ch;
                        return;
                }
}

static void rtrim(char *s)
{
        size_t n = strlen(s);
        while (n && s[n - 1] == ' ')
                s[--n] = '\0';
}

static void plot_axis(struct rep_buf *out, const struct plot *p, const struct lat_curve *c,
                      const struct lat_levels *l)
{
        char axis[LAT_PLOT_W + 1], lab[LAT_PLOT_W + 16], names[LAT_PLOT_W + 16];
        int  next_free = 0, next_name = 0;

        memset(axis, '-', LAT_PLOT_W);
        axis[LAT_PLOT_W] = '\0';
        memset(lab, ' ', sizeof(lab) - 1);
        lab[sizeof(lab) - 1] = '\0';
        memset(names, ' ', sizeof(names) - 1);
        names[sizeof(names) - 1] = '\0';
        /* ticks and labels at powers of 4 */
        for (uint64_t ws = 4096; ws && ws <= c->pts[c->n - 1].ws_bytes; ws *= 4) {
                char     t[12];
                unsigned col, k;
                if (ws < c->pts[0].ws_bytes)
                        continue;
                col       = col_of(p, ws);
                axis[col] = '+';
                k = (unsigned)fmt_snprintf(t, sizeof(t), "%llu%s",
                                           (unsigned long long)(ws >= GiB ? ws / GiB : ws >= MiB ? ws / MiB : ws / KiB),
                                           ws >= GiB ? "G" : ws >= MiB ? "M" : "K");
                if ((int)col >= next_free && col + k < sizeof(lab) - 1) {
                        memcpy(lab + col, t, k);
                        next_free = (int)(col + k + 1);
                }
        }
        for (size_t k = 0; l && k + 1 < l->n; k++) {
                unsigned col = col_of(p, l->lv[k].capacity_bytes);
                size_t   len = strlen(l->lv[k].name);
                axis[col]    = '^';
                if ((int)col >= next_name && col + len < sizeof(names) - 1) {
                        memcpy(names + col, l->lv[k].name, len);
                        next_name = (int)(col + len + 1);
                }
        }
        rtrim(lab);
        rtrim(names);
        rep_buf_printf(out, "%*s+%s\n", PLOT_MARGIN - 1, "", axis);
        rep_buf_printf(out, "%*s%s   (working set)\n", PLOT_MARGIN, "", lab);
        if (l && l->n > 1)
                rep_buf_printf(out, "%*s%s   (^ capacity)\n", PLOT_MARGIN, "", names);
}

status_t rep_lat_plot(struct rep_buf *out, const struct lat_curve *c, const struct lat_levels *l)
{
        struct plot p;

        if (!out || !c || !c->pts || c->n == 0)
                return ST_BAD_ARG;
        memset(&p, 0, sizeof(p));
        for (unsigned r = 0; r < LAT_PLOT_H; r++) {
                memset(p.g[r], ' ', LAT_PLOT_W);
                p.g[r][LAT_PLOT_W] = '\0';
        }
        p.x0 = lib_log2_q8(c->pts[0].ws_bytes);
        p.x1 = lib_log2_q8(c->pts[c->n - 1].ws_bytes);
        p.y0 = UINT32_MAX;
        for (size_t i = 0; i < c->n; i++) {
                uint32_t y = lib_log2_q8(c->pts[i].p50_mcyc);
                p.y0       = y < p.y0 ? y : p.y0;
                p.y1       = y > p.y1 ? y : p.y1;
        }
        /* at least half an octave of latency, and a margin so the extremes are not on the edge */
        if (p.y1 - p.y0 < 128)
                p.y1 = p.y0 + 128;
        p.y0 = p.y0 > 16 ? p.y0 - 16 : 0;
        p.y1 += 16;

        for (size_t k = 0; l && k + 1 < l->n; k++) {
                unsigned r = row_of(&p, l->bound_mcyc[k]);
                for (unsigned x = 0; x < LAT_PLOT_W; x++)
                        p.g[r][x] = (x & 1) ? ' ' : '-';
        }
        for (size_t k = 0; l && k + 1 < l->n; k++) {
                unsigned x = col_of(&p, l->lv[k].capacity_bytes);
                for (unsigned r = 0; r < LAT_PLOT_H; r += 2)
                        plot_put(&p, r, x, '.', " ");
        }
        for (size_t i = 0; i < c->n; i++) {
                unsigned x = col_of(&p, c->pts[i].ws_bytes);
                unsigned lo = row_of(&p, c->pts[i].p10_mcyc), hi = row_of(&p, c->pts[i].p90_mcyc);
                for (unsigned r = hi; r <= lo && r < LAT_PLOT_H; r++)
                        plot_put(&p, r, x, ':', " -.");
        }
        for (size_t i = 0; i < c->n; i++)
                p.g[row_of(&p, c->pts[i].p50_mcyc)][col_of(&p, c->pts[i].ws_bytes)] = '*';

        rep_buf_printf(out, "latency per load in %s%s (log) by working set (log): * p50, : "
                            "p10..p90, - - bounds\n",
                       c->clock == LAT_CLOCK_TSC ? timer_name(c) : "core cycles",
                       c->clock == LAT_CLOCK_TSC ? " ticks" : "");
        for (unsigned r = 0; r < LAT_PLOT_H; r++) {
                char     lab[16] = "", right[32] = "";
                /* the latency at the middle of the row */
                uint32_t y = p.y1 - (uint32_t)((uint64_t)r * (p.y1 - p.y0) / (LAT_PLOT_H - 1));

                if (r % 4 == 0 || r == LAT_PLOT_H - 1) {
                        char v[16];
                        fmt_snprintf(lab, sizeof(lab), "%s",
                                     fmt_fixed(v, sizeof(v), (int64_t)(lib_exp2_q8(y) / 100), 1));
                }
                for (size_t k = 0; l && k < l->n; k++)
                        if (row_of(&p, l->lv[k].lat_mcyc.p50) == r) {
                                fmt_snprintf(right, sizeof(right), " %s", l->lv[k].name);
                                break;
                        }
                rep_buf_printf(out, "%*s |%s%s\n", PLOT_MARGIN - 2, lab, p.g[r], right);
        }
        plot_axis(out, &p, c, l);
        return out->oom ? ST_NO_MEM : ST_OK;
}
