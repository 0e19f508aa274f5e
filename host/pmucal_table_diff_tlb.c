/** @file pmucal-table diff A B, TLB part: two TLB tables (tlb-table.json, or the tlb member of
 *  a latency table) curve by curve, matched by side, page size and PTE layout. For each TLB
 *  level its entry count in A and B, the change, and whether it exceeds the runs' own spread:
 *  each run places the true count in [entries, next_pages), and the count moved when those
 *  ranges do not overlap. For each class past the L1 hit (an L2 TLB hit, each page walk,
 *  matched by label: walk, walk2, ...) what it adds over an L1 hit in A and B (TSC ticks),
 *  the change, and whether it exceeds the spread: the change is larger than the smallest
 *  step either run's detector counts as a change of plateau (step_mcyc: at least 1.5 ticks
 *  and 4 x the curve's point-to-point noise), i.e. a difference that run would have taken
 *  for a level of its own. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/pmucal_table.h"

static const char *page_name(uint64_t b)
{
        return b == 4096 ? "4 KiB" : b == 2097152 ? "2 MiB" : b == 1073741824 ? "1 GiB" : "?";
}

static size_t find_curve(const struct pmucal_tlb *t, const struct pmucal_tlb_curve *c)
{
        for (size_t i = 0; i < t->n_curves; i++)
                if (t->curves[i].side == c->side && t->curves[i].page_bytes == c->page_bytes &&
                    t->curves[i].pte == c->pte)
                        return i;
        return t->n_curves;
}

static const struct pmucal_tlb_class *find_class(const struct pmucal_tlb_curve *c,
                                                 const char *label)
{
        for (size_t i = 0; i < c->n_classes; i++)
                if (!strcmp(c->classes[i].label, label))
                        return &c->classes[i];
        return NULL;
}

/* Level @p j of curve @p ia in A and @p ib in B; true when it moved beyond the spread. */
static bool entries(const struct pmucal_tlb *a, size_t ia, const struct pmucal_tlb *b, size_t ib,
                    size_t j)
{
        uint64_t ea = a->curves[ia].level_entries[j], eb = b->curves[ib].level_entries[j];
        uint64_t na = a->spread[ia].level_next_pages[j], nb = b->spread[ib].level_next_pages[j];
        uint64_t ha = na > ea ? na : ea + 1, hb = nb > eb ? nb : eb + 1; /* [e, h) */
        bool     beyond = eb >= ha || ea >= hb;

        printf("  L%zu entries     %9llu %9llu %+8.1f%%   [%llu, %llu)   [%llu, %llu)   %s\n", j + 1,
               (unsigned long long)ea, (unsigned long long)eb, 100.0 * ((double)eb / (double)ea - 1),
               (unsigned long long)ea, (unsigned long long)ha, (unsigned long long)eb,
               (unsigned long long)hb, beyond ? "BEYOND SPREAD" : "within spread");
        return beyond;
}

/* A class's added latency in A and B against the larger of the two runs' smallest step;
 * true when it moved beyond it ("spread unknown" and false when neither run gives one). */
static bool added(const struct pmucal_tlb_class *x, double step_a, const struct pmucal_tlb_class *y,
                  double step_b)
{
        double d = fabs(y->added_cycles - x->added_cycles), step = step_a > step_b ? step_a : step_b;
        bool   beyond = step > 0 && d > step;
        char   label[32];

        snprintf(label, sizeof(label), "%s added", x->label);
        printf("  %-14s %9.3f %9.3f %+8.1f%%   step %.3f   step %.3f   %s\n", label,
               x->added_cycles, y->added_cycles,
               x->added_cycles > 0 ? 100.0 * (y->added_cycles / x->added_cycles - 1) : 0.0, step_a,
               step_b, !(step > 0) ? "spread unknown" : beyond ? "BEYOND SPREAD" : "within spread");
        return beyond;
}

/* One curve of A against its match in B: the number of figures that moved, plus one for
 * each level or class found in only one of them. */
static unsigned curve(const struct pmucal_tlb *a, size_t ia, const struct pmucal_tlb *b, size_t ib)
{
        const struct pmucal_tlb_curve *ca = &a->curves[ia], *cb = &b->curves[ib];
        size_t                         nl = ca->n_levels < cb->n_levels ? ca->n_levels : cb->n_levels;
        unsigned                       moved = 0;

        printf("%s %s pages, PTEs %s:\n", ca->side_name, page_name(ca->page_bytes), ca->pte_name);
        for (size_t j = 0; j < nl; j++)
                moved += entries(a, ia, b, ib, j);
        if (ca->n_levels != cb->n_levels) {
                printf("  TLB levels: %zu in A, %zu in B\n", ca->n_levels, cb->n_levels);
                moved++;
        }
        for (size_t j = 0; j < ca->n_classes; j++) {
                const struct pmucal_tlb_class *x = &ca->classes[j], *y = find_class(cb, x->label);
                if (x->kind == PMUCAL_TLB_L1_HIT)
                        continue; /* adds nothing by definition */
                if (!y) {
                        printf("  %-7s only in A\n", x->label);
                        moved++;
                        continue;
                }
                moved += added(x, a->spread[ia].step_cycles, y, b->spread[ib].step_cycles);
        }
        for (size_t j = 0; j < cb->n_classes; j++)
                if (!find_class(ca, cb->classes[j].label)) {
                        printf("  %-7s only in B\n", cb->classes[j].label);
                        moved++;
                }
        return moved;
}

unsigned cli_diff_tlb(const struct pmucal_tlb *a, const struct pmucal_tlb *b)
{
        unsigned moved = 0;

        printf("TLB: entries per TLB level (each run puts the count in [entries, next_pages)); "
               "TSC ticks a class adds over an L1 TLB hit (spread: the smallest step each run's "
               "detector counts)\n");
        printf("  figure                 A         B   change   A spread     B spread     verdict\n");
        for (size_t i = 0; i < a->n_curves; i++) {
                size_t ib = find_curve(b, &a->curves[i]);
                if (ib == b->n_curves) {
                        printf("%s %s pages, PTEs %s: only in A\n", a->curves[i].side_name,
                               page_name(a->curves[i].page_bytes), a->curves[i].pte_name);
                        moved++;
                } else {
                        moved += curve(a, i, b, ib);
                }
        }
        for (size_t i = 0; i < b->n_curves; i++)
                if (find_curve(a, &b->curves[i]) == a->n_curves) {
                        printf("%s %s pages, PTEs %s: only in B\n", b->curves[i].side_name,
                               page_name(b->curves[i].page_bytes), b->curves[i].pte_name);
                        moved++;
                }
        printf("%u TLB figure%s moved beyond the runs' spread or in one table only\n", moved,
               moved == 1 ? "" : "s");
        return moved;
}
