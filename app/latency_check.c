/** @file
 * The latency phase's verdicts on its own work (see latency_check.h). Portable.
 */
#include "app/latency_check.h"

#include "report/inventory.h"
#include "report/json_check.h"
#include "report/lattable.h"

/* Verdicts on how many points and windows the sweep kept. */
void lat_check_sweep(const struct lat_curve *c, const struct bench_sweep_info *in,
                     const struct cpu_info *cpu)
{
        size_t   n_full   = 0;
        uint32_t min_kept = UINT32_MAX;

        for (size_t i = 0; i < c->n; i++) {
                if (c->pts[i].n_windows < min_kept)
                        min_kept = c->pts[i].n_windows;
                if (c->pts[i].n_windows >= in->repetitions)
                        n_full++;
        }
        /* A point all of whose windows were disturbed is left out by the runner (it warned).
         * One at a capacity edge happens (under TCG the 32 KiB point flips between host-L1
         * hits and misses from run to run, so N and 2N disagree); many mean the guard or the
         * timer is broken. Counted per attempt: refinement may retry a lost point. */
        size_t n_tried = in->n_planned + in->n_refined;
        size_t n_lost  = n_tried > c->n ? n_tried - c->n : 0;
        /* Under a hypervisor the host schedules our vCPU away whatever we mask, and under an
         * emulator (TCG) timing follows the host's load: how many windows survive says
         * something about the host, not about pmucal. There the limits are reported, and a
         * miss is a WARN; on bare metal it is a failure. */
        bool   strict  = !(cpu && cpu->hypervisor);
        bool   lost_ok = min_kept >= 1 && n_lost * 10 <= n_tried;

        /* Under a hypervisor these can only be INFO or WARN: a PASS there could not have
         * been a FAIL. */
        if (strict)
                rep_check(lost_ok,
                          "sweep: %zu points kept, each with at least one undisturbed window "
                          "(fewest %u); %zu of %zu attempts left out as all-disturbed (at most "
                          "10%% may be)", c->n, min_kept, n_lost, n_tried);
        else if (lost_ok)
                rep_info("sweep: %zu points kept (fewest %u undisturbed windows); %zu of %zu "
                         "attempts left out as all-disturbed (under a hypervisor: informative)",
                         c->n, min_kept, n_lost, n_tried);
        else
                rep_warn("sweep: %zu of %zu attempts left out as all-disturbed (more than the "
                         "10%% allowed on bare metal; under a hypervisor the host's load decides)",
                         n_lost, n_tried);
        /* With interrupts masked only an SMI or a broken timer drops a window; where they
         * cannot be masked (hosted, the unit tests' fake platform) dropping is routine. */
        bool full_ok = n_full * 10 >= c->n * 9;
        if (in->guard.irq_maskable && strict)
                rep_check(full_ok, "sweep: %zu of %zu points kept all %u windows "
                          "(at least 90%% must)", n_full, c->n, in->repetitions);
        else
                rep_info("sweep: %zu of %zu points kept all %u windows (%s)", n_full, c->n,
                         in->repetitions,
                         in->guard.irq_maskable ? "under a hypervisor: not a failure"
                                                : "interrupts not maskable here");
}

/* Verdicts on the table and curve files as written. */
void lat_check_files(const struct lat_curve *c, const struct lat_levels *l,
                     const struct rep_buf *json, const struct rep_buf *csv)
{
        size_t            n_lines = 0;
        struct json_check s = { .str_key = "schema", .arr_key = "levels" };

        json_check(json->p, json->len, &s);
        rep_check(s.ok && !strcmp(s.str, LAT_TABLE_SCHEMA) && s.n_elems == l->n,
                  "%s reads back: %s, schema \"%s\", %zu levels (%zu detected)", LAT_TABLE_FILE,
                  s.ok ? "valid JSON" : s.why, s.str, s.n_elems, l->n);
        for (size_t i = 0; csv->p && i < csv->len; i++)
                n_lines += csv->p[i] == '\n';
        rep_check(csv->len > sizeof(LAT_CSV_HEADER) && !strncmp(csv->p, LAT_CSV_HEADER,
                  sizeof(LAT_CSV_HEADER) - 1) && n_lines == c->n + 1,
                  "%s: header and %zu point lines (%zu points)", LAT_CURVE_FILE,
                  n_lines ? n_lines - 1 : 0, c->n);
}

/* Verdict on the levels: ordered by latency and capacity, bounds between them. */
void lat_check_levels(const struct lat_levels *l)
{
        bool ordered = l->n >= 1;
        for (size_t k = 0; k < l->n; k++) {
                const struct lat_level *v = &l->lv[k];
                ordered &= v->lat_mcyc.p10 <= v->lat_mcyc.p50 && v->lat_mcyc.p50 <= v->lat_mcyc.p90;
                if (k + 1 < l->n)
                        ordered &= v->capacity_bytes > 0 &&
                                   v->lat_mcyc.p50 < l->lv[k + 1].lat_mcyc.p50 &&
                                   l->bound_mcyc[k] >= v->lat_mcyc.p50 &&
                                   l->bound_mcyc[k] < l->lv[k + 1].lat_mcyc.p50 &&
                                   (k + 2 == l->n || v->capacity_bytes < l->lv[k + 1].capacity_bytes);
                else
                        ordered &= v->capacity_bytes == 0;
        }
        rep_check(ordered, "levels: %zu, latency and capacity increase level by level, each bound "
                  "between its neighbours' medians", l->n);
}
