/** @file pmucal-table, the 1.3 remote sections: what `show` adds for a table with "numa",
 *  "loaded_latency" or "c2c" (the NUMA matrix, the DRAM levels, the C2C classes), and
 *  `classify-source`: each latency as one data source, with its bucket and how it fits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/include/pmucal/numa.h"
#include "host/pmucal_table.h"

static void print_stat(const char *unit, const struct pmucal_stat *s)
{
        printf(" %s p50 %.3f (p10 %.3f, p90 %.3f, min %.3f)", unit, s->p50, s->p10, s->p90, s->min);
}

static void show_matrix(const struct pmucal_numa *n)
{
        printf("numa:     %u node(s)%s; p50 ns, CPU node (rows) -> memory node\n        ",
               n->n_nodes, n->emulated ? ", emulated (flat)" : "");
        for (unsigned j = 0; j < n->n_nodes; j++)
                printf(" %8u", n->node_pd[j]);
        for (unsigned i = 0; i < n->n_nodes; i++) {
                printf("\n  %6u", n->node_pd[i]);
                for (unsigned j = 0; j < n->n_nodes; j++) {
                        if (isnan(n->p50_ns[i][j]))
                                printf(" %8s", "-");
                        else
                                printf(" %8.1f", n->p50_ns[i][j]);
                }
        }
        printf("\n");
}

int cli_show_remote(const char *path)
{
        struct pmucal_numa *n;
        char                err[512];

        if (pmucal_numa_load(path, &n, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err); /* the library escaped it */
                return EXIT_BAD;
        }
        if (n->has_numa)
                show_matrix(n);
        for (size_t k = 0; k < n->n_dram; k++) {
                const struct pmucal_dram_level *d = &n->dram[k];
                printf("level %-17s SLIT %u, %u cell(s), %zu pair(s)", cli_esc(d->name),
                       d->slit_distance, d->n_cells, d->n_pairs);
                if (d->measured)
                        print_stat("ns", &d->ns);
                if (d->has_upper)
                        printf(" bucket <= %.3f ns", d->upper_ns);
                printf("\n");
        }
        if (n->n_curves)
                printf("loaded:   %zu curve(s); loaded p90 / idle p50 up to %.2f\n", n->n_curves,
                       n->load_factor);
        for (size_t k = 0; k < n->n_c2c; k++) {
                const struct pmucal_c2c_class *x = &n->c2c[k];
                printf("c2c %-13s %-5s %3u pair(s)", cli_esc(x->topology), cli_esc(x->kind),
                       x->n_pairs);
                print_stat("tsc", &x->tsc);
                if (x->has_ns)
                        print_stat("ns", &x->ns);
                printf("\n");
        }
        if (n->has_c2c)
                printf("c2c:      %zu CPU(s) in the pair matrix%s\n", n->n_c2c_cpus,
                       n->c2c_emulated ? ", emulated" : "");
        pmucal_numa_free(n);
        return 0;
}

/* One latency argument as source @p src; 0, or an exit code after printing why not. */
static int source_one(const char *path, const struct pmucal_table *t,
                      const struct pmucal_numa *nm, const char *src, const char *arg)
{
        static const char *const fit[] = { "fits", "FASTER than the bucket",
                                           "SLOWER than the bucket" };
        struct pmucal_match m;
        enum pmucal_unit    u;
        enum pmucal_err     e;
        double              v, ns;

        if (!cli_parse_latency(arg, strlen(arg), PMUCAL_UNIT_TABLE, &v, &u)) {
                fprintf(stderr, "pmucal-table: latency \"%s\" is not a number with an optional "
                                "unit suffix (ns, tsc, core)\n", cli_esc(arg));
                return EXIT_USAGE;
        }
        e = pmucal_table_convert(t, v, u, PMUCAL_UNIT_NS, &ns);
        if (e == PMUCAL_OK)
                e = pmucal_numa_classify_source_ns(t, nm, src, ns, &m);
        if (e != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s: source \"%s\", latency %s: %s\n", cli_esc(path),
                        cli_esc(src), cli_esc(arg),
                        e == PMUCAL_E_UNKNOWN_SOURCE
                                ? "unknown data source (L1..L9, DRAM, lfb, dram, dram-local, "
                                  "dram-remote, DRAM-remote-<k>hop, c2c-<topology>-<kind>: "
                                  "docs/latency-table.md)"
                        : e == PMUCAL_E_NO_BUCKET ? "this table has no bucket for that source"
                        : e == PMUCAL_E_NO_RATIO ? "this table cannot convert it to ns"
                                                 : pmucal_strerror(e));
                return e == PMUCAL_E_UNKNOWN_SOURCE ? EXIT_USAGE
                     : e == PMUCAL_E_NO_BUCKET      ? EXIT_NO_BUCKET
                                                    : EXIT_BAD;
        }
        printf("%s %s %s (%.3f..%.3f ns, p50 %.3f)\n", cli_esc(arg), cli_esc(m.bucket),
               fit[m.fit], m.lo_ns, m.hi_ns, m.p50_ns);
        return 0;
}

int cmd_classify_source(int argc, char **argv)
{
        struct pmucal_table *t;
        struct pmucal_numa  *nm;
        char                 err[512];
        int                  rc = 0;

        if (argc < 3) {
                fprintf(stderr, "pmucal-table: classify-source: wrong arguments (FILE SOURCE "
                                "LATENCY...)\n");
                return EXIT_USAGE;
        }
        if (!(t = cli_load_table(argv[0])))
                return EXIT_BAD;
        if (pmucal_numa_load(argv[0], &nm, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                pmucal_table_free(t);
                return EXIT_BAD;
        }
        for (int i = 2; i < argc && !rc; i++)
                rc = source_one(argv[0], t, nm, argv[1], argv[i]);
        pmucal_numa_free(nm);
        pmucal_table_free(t);
        return rc;
}
