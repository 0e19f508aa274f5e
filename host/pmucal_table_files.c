/** @file pmucal-table, the run's other files: `check` and `show` of c2c.json (`pmucal.c2c/1`)
 *  and numa-matrix.json (`pmucal.numa/1`) through libpmucal's loaders
 *  (host/include/pmucal/files.h). Figures are printed with their clock in the column name
 *  (`p50_tsc`, `p50_ns`), as the files name them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "host/include/pmucal/files.h"
#include "host/pmucal_table.h"

static void note_unknown(const char *path, size_t n, const char *first)
{
        if (n)
                printf("%s: note: %zu value(s) of a later schema minor read as unknown, first %s\n",
                       cli_esc(path), n, cli_esc(first));
}

static void show_c2c(const struct pmucal_c2c_file *c)
{
        printf("c2c:      %zu class(es), %zu pair(s)%s; TSC %llu Hz\n", c->n_classes, c->n_pairs,
               c->emulated ? ", emulated" : "", (unsigned long long)c->tsc_hz);
        for (size_t k = 0; k < c->n_classes; k++) {
                const struct pmucal_c2c_file_class *x = &c->classes[k];

                printf("c2c %-13s %-8s %3u pair(s) p50_tsc %.3f (min_tsc %.3f, max_tsc %.3f)",
                       cli_esc(x->topology), cli_esc(x->kind), x->n_pairs, x->p50_tsc, x->min_tsc,
                       x->max_tsc);
                if (!isnan(x->p50_ns))
                        printf(" p50_ns %.3f", x->p50_ns);
                printf("\n");
        }
}

static void show_numa(const struct pmucal_numa_file *n)
{
        printf("numa:     %u node(s)%s; p50_ns, CPU node (rows) -> memory node\n        ",
               n->n_nodes, n->emulated ? ", emulated (flat)" : "");
        for (unsigned j = 0; j < n->n_nodes; j++)
                printf(" %8u", n->node_pd[j]);
        for (unsigned i = 0; i < n->n_nodes; i++) {
                printf("\n  %6u", n->node_pd[i]);
                for (unsigned j = 0; j < n->n_nodes; j++) {
                        double v = n->p50_ns[(size_t)i * n->n_nodes + j];
                        if (isnan(v))
                                printf(" %8s", "-");
                        else
                                printf(" %8.1f", v);
                }
        }
        printf("\nloaded:   %zu curve(s)\n", n->n_curves);
}

int cli_other_file(const char *path, bool show)
{
        struct pmucal_c2c_file  *c;
        struct pmucal_numa_file *n;
        char                     err[512];
        enum pmucal_err          e;

        e = pmucal_c2c_file_load(path, &c, err, sizeof(err));
        if (e == PMUCAL_OK) {
                if (show)
                        show_c2c(c);
                else
                        printf("%s: ok, pmucal.c2c/%u.%u, %zu class(es)\n", cli_esc(path), c->major,
                               c->minor, c->n_classes);
                note_unknown(path, c->n_unknown, c->unknown_first);
                pmucal_c2c_file_free(c);
                return 0;
        }
        if (e == PMUCAL_E_KIND)
                e = pmucal_numa_file_load(path, &n, err, sizeof(err));
        else
                n = NULL;
        if (e == PMUCAL_OK) {
                if (show)
                        show_numa(n);
                else
                        printf("%s: ok, pmucal.numa/%u.%u, %u node(s)\n", cli_esc(path), n->major,
                               n->minor, n->n_nodes);
                note_unknown(path, n->n_unknown, n->unknown_first);
                pmucal_numa_file_free(n);
                return 0;
        }
        if (e == PMUCAL_E_KIND)
                return -1;
        fprintf(stderr, "pmucal-table: %s\n", err); /* the library escaped it */
        return EXIT_BAD;
}
