/** @file pmucal-table diff A B of two c2c.json or two numa-matrix.json files (read by
 *  <pmucal/files.h>), with the rule diff applies to latency levels: a figure moved beyond the
 *  runs' own spread when each run's median lies outside the other's spread. c2c.json: each
 *  cache-to-cache class (topology and kind) by its median over the pairs against the pairs'
 *  min..max, in TSC ticks, or in ns when the two runs' TSC rates differ; numa-matrix.json:
 *  each cell (CPU node -> memory node, matched by proximity domain) by its p50 ns against its
 *  p10..p90. Classes, nodes or cells in one file only are a difference too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/include/pmucal/files.h"
#include "host/pmucal_table.h"

enum kind { K_NONE, K_C2C, K_NUMA };

/* What @p path is: a c2c.json, a numa-matrix.json, or neither (K_NONE); -1 after printing why
 * a file of one of those kinds cannot be read. */
static int kind_of(const char *path)
{
        struct pmucal_c2c_file  *c;
        struct pmucal_numa_file *n;
        char                     err[512];
        enum pmucal_err          e = pmucal_c2c_file_load(path, &c, err, sizeof(err));

        pmucal_c2c_file_free(c);
        if (e == PMUCAL_OK)
                return K_C2C;
        if (e == PMUCAL_E_KIND) {
                e = pmucal_numa_file_load(path, &n, err, sizeof(err));
                pmucal_numa_file_free(n);
                if (e == PMUCAL_OK)
                        return K_NUMA;
        }
        if (e == PMUCAL_E_KIND)
                return K_NONE;
        fprintf(stderr, "pmucal-table: %s\n", err); /* the library escaped it */
        return -1;
}

/* Whether @p a moved beyond the spread against @p b; prints one row. */
static bool row(const char *label, double pa, double la, double ha, double pb, double lb,
                double hb)
{
        bool beyond = !(pa >= lb && pa <= hb) && !(pb >= la && pb <= ha);

        printf("%-24s %10.3f %10.3f %+8.1f%%   %.3f..%.3f   %.3f..%.3f   %s\n", label, pa, pb,
               pa > 0 ? 100.0 * (pb / pa - 1) : 0.0, la, ha, lb, hb,
               beyond ? "BEYOND SPREAD" : "within spread");
        return beyond;
}

static const struct pmucal_c2c_file_class *find_class(const struct pmucal_c2c_file *f,
                                                      const struct pmucal_c2c_file_class *x)
{
        for (size_t i = 0; i < f->n_classes; i++)
                if (!strcmp(f->classes[i].topology, x->topology) &&
                    !strcmp(f->classes[i].kind, x->kind))
                        return &f->classes[i];
        return NULL;
}

static bool known(const struct pmucal_c2c_file_class *x)
{
        return strcmp(x->topology, PMUCAL_UNKNOWN) && strcmp(x->kind, PMUCAL_UNKNOWN);
}

/* The classes of @p a not in @p b, printed as "only in @p which"; their number. */
static unsigned c2c_only(const struct pmucal_c2c_file *a, const struct pmucal_c2c_file *b,
                         const char *which)
{
        unsigned n = 0;

        for (size_t i = 0; i < a->n_classes; i++)
                if (known(&a->classes[i]) && !find_class(b, &a->classes[i])) {
                        printf("%s %s only in %s\n", cli_esc(a->classes[i].topology),
                               cli_esc(a->classes[i].kind), which);
                        n++;
                }
        return n;
}

static int diff_c2c(const struct pmucal_c2c_file *a, const struct pmucal_c2c_file *b)
{
        bool     ns = a->tsc_hz && b->tsc_hz && a->tsc_hz != b->tsc_hz;
        double   fa = ns ? 1e9 / (double)a->tsc_hz : 1, fb = ns ? 1e9 / (double)b->tsc_hz : 1;
        unsigned moved = 0, only, skipped = 0;

        printf("class                    A p50 %-4s B p50 %-4s  change   A min..max   B min..max   "
               "verdict\n", ns ? "ns" : "tsc", ns ? "ns" : "tsc");
        for (size_t i = 0; i < a->n_classes; i++) {
                const struct pmucal_c2c_file_class *x = &a->classes[i], *y;
                char                                label[48];

                if (!known(x) || !(y = find_class(b, x))) {
                        skipped += !known(x);
                        continue;
                }
                snprintf(label, sizeof(label), "%s %s", x->topology, x->kind);
                if (isnan(x->p50_tsc) || isnan(y->p50_tsc)) {
                        printf("%-24s not measured in %s\n", cli_esc(label),
                               isnan(x->p50_tsc) ? "A" : "B");
                        continue;
                }
                moved += row(cli_esc(label), x->p50_tsc * fa, x->min_tsc * fa, x->max_tsc * fa,
                             y->p50_tsc * fb, y->min_tsc * fb, y->max_tsc * fb);
        }
        only = c2c_only(a, b, "A") + c2c_only(b, a, "B");
        printf("%u class(es) moved beyond the runs' spread%s", moved,
               only ? "; the files do not have the same classes" : "");
        if (skipped)
                printf("; %u class(es) of a later minor's topology or kind not compared", skipped);
        printf("\n");
        return moved + only ? EXIT_FOUND : 0;
}

static unsigned find_node(const struct pmucal_numa_file *f, uint32_t pd)
{
        unsigned i = 0;

        while (i < f->n_nodes && f->node_pd[i] != pd)
                i++;
        return i;
}

/* The nodes of @p a not in @p b, printed; their number. */
static unsigned numa_only(const struct pmucal_numa_file *a, const struct pmucal_numa_file *b,
                          const char *which)
{
        unsigned n = 0;

        for (unsigned i = 0; i < a->n_nodes; i++)
                if (find_node(b, a->node_pd[i]) == b->n_nodes) {
                        printf("node %u only in %s\n", a->node_pd[i], which);
                        n++;
                }
        return n;
}

static int diff_numa(const struct pmucal_numa_file *a, const struct pmucal_numa_file *b)
{
        unsigned moved = 0, only;

        printf("cpu node -> memory node  A p50 ns   B p50 ns    change   A p10..p90   B p10..p90   "
               "verdict\n");
        for (unsigned i = 0; i < a->n_nodes; i++) {
                unsigned bi = find_node(b, a->node_pd[i]);
                for (unsigned j = 0; bi < b->n_nodes && j < a->n_nodes; j++) {
                        unsigned bj = find_node(b, a->node_pd[j]);
                        size_t   ka = (size_t)i * a->n_nodes + j, kb = (size_t)bi * b->n_nodes + bj;
                        char     label[48];

                        if (bj == b->n_nodes)
                                continue;
                        snprintf(label, sizeof(label), "%u -> %u", a->node_pd[i], a->node_pd[j]);
                        if (isnan(a->p50_ns[ka]) || isnan(b->p50_ns[kb])) {
                                printf("%-24s not measured in %s\n", label,
                                       isnan(a->p50_ns[ka]) ? "A" : "B");
                                continue;
                        }
                        moved += row(label, a->p50_ns[ka], a->p10_ns[ka], a->p90_ns[ka],
                                     b->p50_ns[kb], b->p10_ns[kb], b->p90_ns[kb]);
                }
        }
        only = numa_only(a, b, "A") + numa_only(b, a, "B");
        printf("%u cell(s) moved beyond the runs' spread%s\n", moved,
               only ? "; the files do not have the same nodes" : "");
        return moved + only ? EXIT_FOUND : 0;
}

int cli_diff_files(const char *pa, const char *pb)
{
        int  ka = kind_of(pa), kb = ka < 0 ? -1 : kind_of(pb), rc = EXIT_BAD;
        char err[512];

        if (ka < 0 || kb < 0)
                return EXIT_BAD;
        if (ka == K_NONE && kb == K_NONE)
                return -1;
        if (ka != kb) {
                fprintf(stderr, "pmucal-table: diff: %s and %s are not the same kind of file (c2c.json, "
                                "numa-matrix.json or a table)\n", cli_esc(pa), cli_esc(pb));
                return EXIT_BAD;
        }
        printf("A: %s\nB: %s\n", cli_esc(pa), cli_esc(pb));
        if (ka == K_C2C) {
                struct pmucal_c2c_file *a = NULL, *b = NULL;
                if (pmucal_c2c_file_load(pa, &a, err, sizeof(err)) == PMUCAL_OK &&
                    pmucal_c2c_file_load(pb, &b, err, sizeof(err)) == PMUCAL_OK)
                        rc = diff_c2c(a, b);
                pmucal_c2c_file_free(a);
                pmucal_c2c_file_free(b);
        } else {
                struct pmucal_numa_file *a = NULL, *b = NULL;
                if (pmucal_numa_file_load(pa, &a, err, sizeof(err)) == PMUCAL_OK &&
                    pmucal_numa_file_load(pb, &b, err, sizeof(err)) == PMUCAL_OK)
                        rc = diff_numa(a, b);
                pmucal_numa_file_free(a);
                pmucal_numa_file_free(b);
        }
        return rc;
}
