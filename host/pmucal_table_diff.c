/** @file pmucal-table diff A B: two latency tables level by level (matched by name): the
 *  median latency of each in A and in B, the change, and whether it exceeds the runs' own
 *  spread, i.e. each run's median lies outside the other's p10..p90 (a shift the windows of
 *  either run do not cover); capacities with their change. Both in one unit: the tables'
 *  cycles when their clocks agree, else ns where both have them. Then, where both files have
 *  a TLB table (a tlb-table.json, or a latency table's tlb member), the TLB figures
 *  (host/pmucal_table_diff_tlb.c). Two c2c.json or numa-matrix.json files are compared by
 *  host/pmucal_table_diff_files.c. Exit 3 when a figure moved beyond the spread, 0 when none
 *  did. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/pmucal_table.h"

static const struct pmucal_level *find(const struct pmucal_table *t, const char *name)
{
        for (size_t i = 0; i < t->n_levels; i++)
                if (!strcmp(t->levels[i].name, name))
                        return &t->levels[i];
        return NULL;
}

static bool inside(double v, const struct pmucal_stat *s)
{
        return v >= s->p10 && v <= s->p90;
}

static void capacity(const struct pmucal_level *a, const struct pmucal_level *b)
{
        if (!a->capacity_bytes && !b->capacity_bytes)
                return;
        printf("      capacity %llu -> %llu B", (unsigned long long)a->capacity_bytes,
               (unsigned long long)b->capacity_bytes);
        if (a->capacity_bytes && b->capacity_bytes)
                printf(" (%+.1f%%)", 100.0 * ((double)b->capacity_bytes / (double)a->capacity_bytes - 1));
        printf("\n");
}

/* One level in both tables; true when it moved beyond the runs' spread. */
static bool level(const struct pmucal_level *a, const struct pmucal_level *b, bool ns)
{
        const struct pmucal_stat *sa = ns ? &a->ns : &a->cycles, *sb = ns ? &b->ns : &b->cycles;
        bool beyond = !inside(sa->p50, sb) && !inside(sb->p50, sa);

        printf("%-5s %10.3f %10.3f %+8.1f%%   %.3f..%.3f   %.3f..%.3f   %s\n", cli_esc(a->name),
               sa->p50, sb->p50, sa->p50 > 0 ? 100.0 * (sb->p50 / sa->p50 - 1) : 0.0, sa->p10,
               sa->p90, sb->p10, sb->p90, beyond ? "BEYOND SPREAD" : "within spread");
        capacity(a, b);
        return beyond;
}

/* The latency part; the number of levels that moved or are in one table only, or -1 when
 * the tables have no unit in common (printed). */
static int diff_latency(const char *pa, const struct pmucal_table *a, const char *pb,
                        const struct pmucal_table *b)
{
        const char *unit;
        bool        ns, all_ns = true;
        unsigned    moved = 0, only = 0;

        for (size_t i = 0; i < a->n_levels; i++)
                all_ns = all_ns && a->levels[i].has_ns;
        for (size_t i = 0; i < b->n_levels; i++)
                all_ns = all_ns && b->levels[i].has_ns;
        ns = a->cycles_unit != b->cycles_unit || a->cycles_unit == PMUCAL_UNIT_TABLE;
        if (ns && !all_ns) {
                fprintf(stderr, "pmucal-table: diff: %s is in %s, %s in %s, and not both have ns "
                                "figures: no common unit\n", cli_esc(pa), cli_esc(a->clock),
                        cli_esc(pb), cli_esc(b->clock));
                return -1;
        }
        unit = ns ? "ns" : pmucal_unit_name(a->cycles_unit);
        printf("level  A p50 %-4s B p50 %-4s  change   A p10..p90   B p10..p90   verdict\n", unit, unit);
        for (size_t i = 0; i < a->n_levels; i++) {
                const struct pmucal_level *lb = find(b, a->levels[i].name);
                if (!lb) {
                        printf("%-5s only in A\n", cli_esc(a->levels[i].name));
                        only++;
                } else {
                        moved += level(&a->levels[i], lb, ns);
                }
        }
        for (size_t i = 0; i < b->n_levels; i++)
                if (!find(a, b->levels[i].name)) {
                        printf("%-5s only in B\n", cli_esc(b->levels[i].name));
                        only++;
                }
        printf("%u level%s moved beyond the runs' spread%s\n", moved, moved == 1 ? "" : "s",
               only ? "; the tables do not have the same levels" : "");
        return (int)(moved + only);
}

/* Load @p path as a latency table into *@p t, or leave it NULL when the file is another kind
 * of table; false after printing the message of any other failure. */
static bool load_latency(const char *path, struct pmucal_table **t)
{
        char            err[512];
        enum pmucal_err e = pmucal_table_load(path, t, err, sizeof(err));

        if (e != PMUCAL_OK && e != PMUCAL_E_KIND) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return false;
        }
        return true;
}

/* The TLB part, where both files have a TLB table: its count, or -1 (printed). */
static int diff_tlb(const char *pa, const char *pb)
{
        struct pmucal_tlb *a = cli_load_tlb(pa), *b = a ? cli_load_tlb(pb) : NULL;
        int                n = -1;

        if (a && b)
                n = (int)cli_diff_tlb(a, b);
        pmucal_tlb_free(a);
        pmucal_tlb_free(b);
        return n;
}

int cmd_diff(int argc, char **argv)
{
        struct pmucal_table *a = NULL, *b = NULL;
        int                  lat = 0, tlb = 0, rc = 0;
        bool                 with_tlb;

        if (argc != 2) {
                fprintf(stderr, "pmucal-table: diff: wrong number of arguments (A B)\n");
                return EXIT_USAGE;
        }
        if ((rc = cli_diff_files(argv[0], argv[1])) >= 0)
                return rc;
        rc = 0;
        if (!load_latency(argv[0], &a) || !load_latency(argv[1], &b)) {
                pmucal_table_free(a);
                return EXIT_BAD;
        }
        with_tlb = (!a || a->has_tlb) && (!b || b->has_tlb);
        if (!(a && b) && !with_tlb) {
                fprintf(stderr, "pmucal-table: diff: %s and %s are not the same kind of table (a "
                                "latency table without a tlb member and a TLB table)\n",
                        cli_esc(argv[0]), cli_esc(argv[1]));
                rc = EXIT_BAD;
        } else {
                printf("A: %s (%s)\nB: %s (%s)\n", cli_esc(argv[0]), cli_str(a ? a->date : NULL),
                       cli_esc(argv[1]), cli_str(b ? b->date : NULL));
                if (a && b)
                        lat = diff_latency(argv[0], a, argv[1], b);
                if (lat >= 0 && with_tlb)
                        tlb = diff_tlb(argv[0], argv[1]);
                rc = lat < 0 || tlb < 0 ? EXIT_BAD : lat || tlb ? EXIT_FOUND : 0;
        }
        pmucal_table_free(a);
        pmucal_table_free(b);
        return rc;
}
