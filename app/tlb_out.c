/** @file
 * The TLB calibration's sweep table and analysis, shared by the firmware phase and the hosted
 * driver (see app/tlb.h).
 */
#include "app/tlb.h"

#include "app/run.h"

#include "boot/plat.h"
#include "report/json.h"

/* What each profile sweeps. The quick sweep only has to exercise the machinery (own page
 * tables, CR3 switch, every page size) in a smoke boot; the full sweep goes far past the
 * second-level TLBs of current parts (Zen 4: 3072 4 KiB entries; Golden Cove: 2048). */
static const struct tlbcal_sweep quick_sweeps[] = {
        /* side          page      pte           max N  steps/octave */
        { TLB_SIDE_DATA, 4 * KiB, TLB_PTE_NEAR, 128,  2 },
        { TLB_SIDE_DATA, 2 * MiB, TLB_PTE_NEAR, 32,   2 },
        { TLB_SIDE_DATA, 1 * GiB, TLB_PTE_NEAR, 16,   2 },
        { TLB_SIDE_INST, 4 * KiB, TLB_PTE_NEAR, 64,   2 },
};

static const struct tlbcal_sweep full_sweeps[] = {
        /* side          page      pte           max N  steps/octave */
        { TLB_SIDE_DATA, 4 * KiB, TLB_PTE_NEAR, 8192, 8 },
        { TLB_SIDE_DATA, 4 * KiB, TLB_PTE_LINE, 2048, 4 },
        { TLB_SIDE_DATA, 2 * MiB, TLB_PTE_NEAR, 4096, 8 },
        { TLB_SIDE_DATA, 1 * GiB, TLB_PTE_NEAR, 64,   4 },
        { TLB_SIDE_INST, 4 * KiB, TLB_PTE_NEAR, 2048, 8 },
};

void tlbcal_sweeps(bool full, struct tlbcal_sweep *out, size_t *n)
{
        const struct tlbcal_sweep *s = full ? full_sweeps : quick_sweeps;
        size_t k = full ? ARRAY_SIZE(full_sweeps) : ARRAY_SIZE(quick_sweeps);

        for (size_t i = 0; i < k; i++)
                out[i] = s[i];
        *n = k;
}

void tlbcal_sweeps_keep(enum config_pages pages, struct tlbcal_sweep *sw, size_t *n)
{
        uint64_t want = pages == CONFIG_PAGES_4K ? 4 * KiB : pages == CONFIG_PAGES_2M ? 2 * MiB : 0;
        size_t   k    = 0;

        for (size_t i = 0; i < *n; i++)
                if (!want || sw[i].page_bytes == want)
                        sw[k++] = sw[i];
        *n = k;
}

status_t tlbcal_ns(const struct tlbcal_sweep *s, uint32_t *ns, size_t *n)
{
        return bench_tlb_sweep(4, s->max_pages, s->steps_per_octave, ns, TLBDET_MAX_POINTS, n);
}

const char *tlbcal_page_name(uint64_t page_bytes)
{
        return page_bytes == 4 * KiB   ? "4 KiB"
               : page_bytes == 2 * MiB ? "2 MiB"
               : page_bytes == 1 * GiB ? "1 GiB"
                                       : "?";
}

/* Verdicts for one curve; returns false when the curve shows no step at all. */
static bool verdicts(const struct tlb_result *r, bool emulated)
{
        rep_push(bench_tlb_side_name(r->side));
        rep_push(tlbcal_page_name(r->page_bytes));
        rep_push(bench_tlb_pte_layout_name(r->pte));
        bool flat = r->n_lvl == 0;
        if (flat && emulated)
                rep_info("no TLB hierarchy visible (flat curve up to %u pages; the CPU is "
                         "emulated, so there are no TLB costs to see)", r->max_n);
        else if (flat)
                rep_warn("no TLB hierarchy visible (flat curve up to %u pages)", r->max_n);
        for (size_t i = 0; i < r->n_lvl; i++) {
                const struct tlb_level *l = &r->lvl[i];
                if (emulated)
                        rep_info("L%zu: a step at %u pages, CPUID %u: the emulator's software "
                                 "TLB, not a hardware level", i + 1, l->entries,
                                 l->cpuid_entries);
                else if (l->verdict == TLB_DISAGREE)
                        rep_warn("L%zu: %u entries measured, CPUID %s says %u", i + 1,
                                 l->entries, l->cpuid_source ? l->cpuid_source : "?",
                                 l->cpuid_entries);
                else
                        rep_info("L%zu: %u entries (%s)", i + 1, l->entries,
                                 tlb_verdict_name(l->verdict));
        }
        if (r->flags & TLBDET_F_STILL_RISING)
                rep_info("the sweep ends inside a step (largest N %u)", r->max_n);
        rep_pop();
        rep_pop();
        rep_pop();
        return !flat;
}

status_t tlbcal_finish(const struct tlbcal *t, const struct cpu_info *cpu, bool emulated,
                       struct rep_buf *json, struct rep_buf *csv)
{
        static struct tlb_result res[TLBCAL_MAX_CURVES];
        struct rep_buf           con = { 0 };
        struct json_w            w;
        size_t                   n = 0;
        status_t                 st;

        for (size_t i = 0; i < t->n; i++) {
                const struct tlb_curve *c = &t->c[i];
                if (c->n_left_out)
                        rep_info("%s %s: %u of %zu points left out: the timer disagreed with "
                                 "itself in every window of %u %s (%s)",
                                 bench_tlb_side_name(c->side), tlbcal_page_name(c->page_bytes),
                                 c->n_left_out, c->n + c->n_left_out,
                                 c->passes > 1 ? c->passes : TLBCAL_POINT_TRIES,
                                 c->passes > 1 ? "interleaved passes" : "tries",
                                 emulated ? "an emulated CPU shares its host's cores"
                                          : "interrupts, SMIs or a hypervisor took time");
                if (c->n < 2) {
                        if (c->n_left_out)
                                rep_skip(REP_SKIP_ENV, "%s %s: %zu points measured, too few to "
                                         "analyse",
                                         bench_tlb_side_name(c->side), tlbcal_page_name(c->page_bytes),
                                         c->n);
                        continue;
                }
                if ((st = tlbdet_detect(&t->c[i], NULL, &res[n])) != ST_OK) {
                        rep_err(st, "analysing the %s %s curve", bench_tlb_side_name(t->c[i].side),
                                tlbcal_page_name(t->c[i].page_bytes));
                        continue;
                }
                tlbdet_crosscheck(&res[n], &t->c[i], cpu);
                n++;
        }
        if ((st = tlb_report_console(res, n, &con)) == ST_OK && con.len)
                rep_printf("%.*s", (int)con.len, con.p);
        rep_buf_free(&con);

        unsigned visible = 0;
        for (size_t i = 0; i < n; i++)
                visible += verdicts(&res[i], emulated);
        if (!visible && n)
                rep_info("no TLB hierarchy visible in any curve%s",
                         emulated ? " (emulated CPU: expected)" : "");

        json_init(&w, json);
        tlb_json_write(&w, NULL, res, n, &t->clock);
        if ((st = json_finish(&w)) != ST_OK)
                return rep_err(st, "building %s", TLBCAL_TABLE_FILE);
        if ((st = tlb_curve_csv(t->c, t->n, csv)) != ST_OK)
                return rep_err(st, "building %s", TLBCAL_CURVE_FILE);
        return ST_OK;
}

void tlbcal_free(struct tlbcal *t)
{
        for (size_t i = 0; i < t->n; i++) {
                plat_free(t->c[i].pts);
                t->c[i].pts = NULL;
        }
        t->n = 0;
}

void tlbcal_add_to_latency_table(struct run *r, const struct rep_buf *tlb)
{
        for (unsigned i = 0; i < r->n_files; i++)
                if (!strcmp(r->files[i].name, "latency-table.json")) {
                        status_t st = json_doc_set_member(&r->files[i].data, "tlb", tlb->p,
                                                          tlb->len);
                        if (st != ST_OK)
                                rep_err(st, "adding the tlb member to latency-table.json");
                        else
                                rep_info("latency-table.json: the TLB table added as its tlb "
                                         "member");
                        return;
                }
}
