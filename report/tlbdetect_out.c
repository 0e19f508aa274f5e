/** @file TLB reports: console report, "tlb" JSON section, tlb-curve.csv and the names they
 * print (see tlbdetect_out.h; the analysis is analysis/tlbdetect.c). */
#include "report/tlbdetect_out.h"

#include "boot/plat.h"
#include "lib/fmt.h"

static const char *const class_names[TLB_CLASS__COUNT] = {
        [TLB_CLASS_L1_HIT] = "l1_hit",
        [TLB_CLASS_L2_HIT] = "l2_hit",
        [TLB_CLASS_WALK]   = "walk",
        [TLB_CLASS_MISS]   = "miss",
};

static const char *const class_titles[TLB_CLASS__COUNT] = {
        [TLB_CLASS_L1_HIT] = "L1 TLB hit",
        [TLB_CLASS_L2_HIT] = "L2 TLB hit",
        [TLB_CLASS_WALK]   = "page walk",
        [TLB_CLASS_MISS]   = "L1 TLB miss",
};

static const char *const verdict_names[] = {
        [TLB_NO_CPUID] = "no_cpuid",
        [TLB_AGREE]    = "agree",
        [TLB_DISAGREE] = "disagree",
};

static const struct {
        uint32_t    flag;
        const char *name;
        const char *meaning; /* as docs/tlb-table.md says it */
} flag_names[] = {
        { TLBDET_F_STILL_RISING, "still_rising",
          "the sweep ended inside a step: the last class's latency is below the plateau the "
          "sweep did not reach" },
        { TLBDET_F_EXTRA_LEVEL, "extra_level", "more steps than CPUID has levels" },
        { TLBDET_F_MISSING_LEVEL, "missing_level",
          "a CPUID level within the sweep showed no step" },
        { TLBDET_F_DISAGREE, "disagree", "a level's entries disagree with CPUID" },
        { TLBDET_F_NON_MONOTONIC, "non_monotonic", "a plateau lies below the one before it" },
        { TLBDET_F_NOT_CHECKED, "not_checked", "no CPUID TLB figures to check against" },
};

static const char *page_name(uint64_t page_bytes)
{
        return page_bytes == 4 * KiB ? "4 KiB" : page_bytes == 2 * MiB ? "2 MiB"
               : page_bytes == 1 * GiB ? "1 GiB" : "?";
}

static status_t report_one(const struct tlb_result *r, const struct tlb_result *all, size_t n,
                           struct rep_buf *out)
{
        char a[32], b[32];

        rep_buf_printf(out, "TLB: %s, %s pages, PTE %s: %u points up to %u pages%s; "
                            "noise %s ticks, step >= %s ticks\n",
                       bench_tlb_side_name(r->side), page_name(r->page_bytes),
                       bench_tlb_pte_layout_name(r->pte), r->n_points, r->max_n,
                       r->uses_control ? ", control subtracted" : "",
                       fmt_fixed(a, sizeof(a), (int64_t)r->noise_mcyc, 3),
                       fmt_fixed(b, sizeof(b), (int64_t)r->step_mcyc, 3));
        rep_buf_printf(out, "  %-6s %9s %9s %9s  %s\n", "Level", "Entries", "Next N", "CPUID",
                       "Verdict");
        for (size_t j = 0; j < r->n_lvl; j++) {
                const struct tlb_level *l = &r->lvl[j];
                rep_buf_printf(out, "  L%-5zu %9u %9u %9u  %s%s%s%s\n", j + 1, l->entries,
                               l->next_n, l->cpuid_entries,
                               l->verdict == TLB_DISAGREE ? "DISAGREE" : tlb_verdict_name(l->verdict),
                               l->cpuid_source ? " (" : "", l->cpuid_source ? l->cpuid_source : "",
                               l->cpuid_source ? ")" : "");
        }
        if (!r->n_lvl)
                rep_buf_printf(out, "  (no TLB level found: the curve is flat)\n");
        rep_buf_printf(out, "  %-14s %12s %12s  %s\n", "Class", "Latency ticks", "Added ticks",
                       "Pages");
        for (size_t k = 0; k < r->n_plat; k++) {
                const struct tlb_plateau *p = &r->plat[k];
                rep_buf_printf(out, "  %-14s %12s %12s  %u..%u\n", class_titles[p->cls],
                               fmt_fixed(a, sizeof(a), (int64_t)p->lat_mcyc, 3),
                               fmt_fixed(b, sizeof(b), (int64_t)p->added_mcyc, 3), p->first_n,
                               p->last_n);
        }
        /* Walk cost split: this curve's walk against the near-PTE curve's walk. */
        uint64_t w, w0;
        for (size_t i = 0; r->pte != TLB_PTE_NEAR && i < n; i++) {
                const struct tlb_result *o = &all[i];
                if (o->pte != TLB_PTE_NEAR || o->side != r->side || o->page_bytes != r->page_bytes ||
                    tlbdet_class_cost(r, TLB_CLASS_WALK, &w) != ST_OK ||
                    tlbdet_class_cost(o, TLB_CLASS_WALK, &w0) != ST_OK)
                        continue;
                /* a curve that ends inside a step or lacks a level has no walk class to
                 * compare: its last class is a lower bound or a second-level hit */
                if ((r->flags | o->flags) & (TLBDET_F_STILL_RISING | TLBDET_F_MISSING_LEVEL)) {
                        rep_buf_printf(out, "  walk with PTE %s: not compared with PTE near (%s)\n",
                                       bench_tlb_pte_layout_name(r->pte),
                                       (r->flags | o->flags) & TLBDET_F_STILL_RISING
                                               ? "a sweep ends inside a step"
                                               : "a curve misses a CPUID level");
                        continue;
                }
                int64_t d = (int64_t)w - (int64_t)w0;
                rep_buf_printf(out, "  walk with PTE %s costs %s ticks %s than with PTE near\n",
                               bench_tlb_pte_layout_name(r->pte),
                               fmt_fixed(a, sizeof(a), d < 0 ? -d : d, 3), d < 0 ? "less" : "more");
        }
        for (size_t f = 0; f < ARRAY_SIZE(flag_names); f++)
                if (r->flags & flag_names[f].flag)
                        rep_buf_printf(out, "  flag %s: %s\n", flag_names[f].name,
                                       flag_names[f].meaning);
        return out->oom ? ST_NO_MEM : ST_OK;
}

status_t tlb_report_console(const struct tlb_result *r, size_t n, struct rep_buf *out)
{
        status_t st = ST_OK;

        if (!out || (!r && n))
                return ST_BAD_ARG;
        for (size_t i = 0; i < n && st == ST_OK; i++)
                st = report_one(&r[i], r, n, out);
        return st;
}

/* One figure of the table (TSC milli-ticks) in the three named units; null where unknown. */
static void json_units(struct json_w *w, const char *stem, bool has, uint64_t mtick,
                       const struct lat_clock_desc *clk)
{
        char key[48];

        fmt_snprintf(key, sizeof(key), "%s_tsc_ticks", stem);
        if (has)
                json_fixed(w, key, (int64_t)mtick, 3);
        else
                json_null(w, key);
        fmt_snprintf(key, sizeof(key), "%s_core_cycles", stem);
        if (has && clk && clk->core_ppm)
                json_fixed(w, key, (int64_t)lat_ticks_to_core(mtick, clk->core_ppm), 3);
        else
                json_null(w, key);
        fmt_snprintf(key, sizeof(key), "%s_ns", stem);
        if (has && clk && clk->tsc_hz)
                json_fixed(w, key, (int64_t)lat_milli_to_ps(mtick, clk->tsc_hz), 3);
        else
                json_null(w, key);
}

/* "clock": what the figures are in and how to turn them into core cycles and ns. */
static void json_clock(struct json_w *w, const struct lat_clock_desc *clk)
{
        json_obj_begin(w, "clock");
        json_str(w, "figures", "tsc_ticks");
        if (clk && clk->tsc_hz)
                json_u64(w, "tsc_hz", clk->tsc_hz);
        else
                json_null(w, "tsc_hz");
        if (clk && clk->core_ppm && clk->tsc_hz)
                json_u64(w, "core_hz", lat_ticks_to_core(clk->tsc_hz, clk->core_ppm));
        else
                json_null(w, "core_hz");
        if (clk && clk->core_ppm) {
                json_fixed(w, "core_per_tsc", (int64_t)clk->core_ppm, 6);
                json_str(w, "core_source", clk->core_source ? clk->core_source : "?");
                json_null(w, "reason");
        } else {
                json_null(w, "core_per_tsc");
                json_null(w, "core_source");
                json_str(w, "reason", clk && clk->core_why ? clk->core_why
                                                            : "no core clock was measured");
        }
        json_obj_end(w);
}

void tlb_json_write(struct json_w *w, const char *key, const struct tlb_result *r, size_t n,
                    const struct lat_clock_desc *clk)
{
        if (!w)
                return;
        if (!r && n) {
                if (w->st == ST_OK)
                        w->st = ST_BAD_ARG;
                return;
        }
        json_obj_begin(w, key);
        json_str(w, "schema", TLB_TABLE_SCHEMA);
        json_str(w, "units", "mcyc"); /* the *_mcyc members: TSC milli-ticks (named so until 2.0) */
        json_clock(w, clk);
        json_arr_begin(w, "curves");
        for (size_t i = 0; i < n; i++) {
                const struct tlb_result *x = &r[i];

                json_obj_begin(w, NULL);
                json_str(w, "side", bench_tlb_side_name(x->side));
                json_u64(w, "page_bytes", x->page_bytes);
                json_str(w, "pte", bench_tlb_pte_layout_name(x->pte));
                json_u64(w, "points", x->n_points);
                json_u64(w, "max_pages", x->max_n);
                json_bool(w, "uses_control", x->uses_control);
                json_u64(w, "noise_mcyc", x->noise_mcyc);
                json_u64(w, "step_mcyc", x->step_mcyc);
                /* 1.3: the same figures named by their unit, as every other figure is; the
                 * _mcyc members go in 2.0 (docs/versioning.md, "Unit names") */
                json_units(w, "noise", true, x->noise_mcyc, clk);
                json_units(w, "step", true, x->step_mcyc, clk);
                json_u64(w, "passes", x->passes ? x->passes : 1); /* 0: one, unrecorded */
                json_arr_begin(w, "flags");
                for (size_t f = 0; f < ARRAY_SIZE(flag_names); f++)
                        if (x->flags & flag_names[f].flag)
                                json_str(w, NULL, flag_names[f].name);
                json_arr_end(w);
                json_arr_begin(w, "levels");
                for (size_t j = 0; j < x->n_lvl; j++) {
                        json_obj_begin(w, NULL);
                        json_u64(w, "level", j + 1);
                        json_u64(w, "entries", x->lvl[j].entries);
                        json_u64(w, "next_pages", x->lvl[j].next_n);
                        json_u64_or_null(w, "cpuid_entries", x->lvl[j].cpuid_entries);
                        json_str_or_null(w, "cpuid_source", x->lvl[j].cpuid_source);
                        json_str(w, "verdict", tlb_verdict_name(x->lvl[j].verdict));
                        json_obj_end(w);
                }
                json_arr_end(w);
                json_arr_begin(w, "classes");
                for (size_t k = 0; k < x->n_plat; k++) {
                        const struct tlb_plateau *p = &x->plat[k];

                        json_obj_begin(w, NULL);
                        json_str(w, "class", tlb_class_name(p->cls));
                        json_u64(w, "lat_mcyc", p->lat_mcyc);
                        json_u64(w, "added_mcyc", p->added_mcyc);
                        if (k + 1 < x->n_plat)
                                json_u64(w, "upper_added_mcyc",
                                         (p->added_mcyc + x->plat[k + 1].added_mcyc) / 2);
                        else
                                json_null(w, "upper_added_mcyc");
                        json_units(w, "lat", true, p->lat_mcyc, clk);
                        json_units(w, "added", true, p->added_mcyc, clk);
                        json_units(w, "upper_added", k + 1 < x->n_plat,
                                   (p->added_mcyc + (k + 1 < x->n_plat
                                                     ? x->plat[k + 1].added_mcyc : 0)) / 2, clk);
                        json_u64(w, "first_pages", p->first_n);
                        json_u64(w, "last_pages", p->last_n);
                        json_obj_end(w);
                }
                json_arr_end(w);
                json_obj_end(w);
        }
        json_arr_end(w);
        json_obj_end(w);
}

status_t tlb_curve_csv(const struct tlb_curve *c, size_t n, struct rep_buf *out)
{
        if (!out || (!c && n))
                return ST_BAD_ARG;
        rep_buf_printf(out, "side,page_bytes,pte,n_pages,n_windows,min_mtick,p10_mtick,p50_mtick,"
                            "p90_mtick,ctl_p50_mtick\n");
        for (size_t i = 0; i < n; i++) {
                if (!c[i].pts && c[i].n)
                        return ST_BAD_ARG;
                for (size_t k = 0; k < c[i].n; k++) {
                        const struct tlb_point *p = &c[i].pts[k];
                        rep_buf_printf(out, "%s,%llu,%s,%u,%u,%llu,%llu,%llu,%llu,%llu\n",
                                       bench_tlb_side_name(c[i].side),
                                       (unsigned long long)c[i].page_bytes,
                                       bench_tlb_pte_layout_name(c[i].pte), p->n_pages, p->n_windows,
                                       (unsigned long long)p->min_mcyc,
                                       (unsigned long long)p->p10_mcyc,
                                       (unsigned long long)p->p50_mcyc,
                                       (unsigned long long)p->p90_mcyc,
                                       (unsigned long long)p->ctl_p50_mcyc);
                }
        }
        return out->oom ? ST_NO_MEM : ST_OK;
}

const char *tlb_class_name(enum tlb_class cls)
{
        return (unsigned)cls < TLB_CLASS__COUNT ? class_names[cls] : "?";
}

const char *tlb_verdict_name(enum tlb_verdict v)
{
        return (unsigned)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}
