/** @file pmucal-table, the 1.3 remote sections: what `show` adds for a table with "numa",
 *  "loaded_latency" or "c2c" (the NUMA matrix, the DRAM levels, the C2C classes), and
 *  `classify-source`: each latency as one data source (named, or from a PEBS / perf
 *  perf_mem_data_src or IBS op registers), with its bucket and how it fits. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/include/pmucal/numa.h"
#include "host/include/pmucal/source.h"
#include "host/pmucal_table.h"

static void print_stat(const char *unit, const struct pmucal_stat *s)
{
        printf(" %s p50 %.3f (p10 %.3f, p90 %.3f, min %.3f)", unit, s->p50, s->p10, s->p90, s->min);
}

static void show_matrix(const struct pmucal_numa *n)
{
        unsigned k = pmucal_numa_node_count(n);

        printf("numa:     %u node(s)%s; p50 ns, CPU node (rows) -> memory node\n        ",
               k, n->emulated ? ", emulated (flat)" : "");
        for (unsigned j = 0; j < k; j++)
                printf(" %8u", pmucal_numa_node_pd(n, j));
        for (unsigned i = 0; i < k; i++) {
                printf("\n  %6u", pmucal_numa_node_pd(n, i));
                for (unsigned j = 0; j < k; j++) {
                        if (isnan(pmucal_numa_matrix_ns(n, i, j)))
                                printf(" %8s", "-");
                        else
                                printf(" %8.1f", pmucal_numa_matrix_ns(n, i, j));
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
        for (size_t k = 0; k < pmucal_numa_dram_count(n); k++) {
                const struct pmucal_dram_level *d = pmucal_numa_dram_level(n, k);
                printf("level %-17s SLIT %u, %u cell(s), %zu pair(s)", cli_esc(d->name),
                       d->slit_distance, d->n_cells, d->n_pairs);
                if (d->measured)
                        print_stat("ns", &d->ns);
                if (d->has_upper)
                        printf(" bucket <= %.3f ns", d->upper_ns);
                printf("\n");
        }
        if (pmucal_numa_curve_count(n))
                printf("loaded:   %zu curve(s); loaded p90 / idle p50 up to %.2f\n",
                       pmucal_numa_curve_count(n), n->load_factor);
        for (size_t k = 0; k < pmucal_numa_c2c_count(n); k++) {
                const struct pmucal_c2c_class *x = pmucal_numa_c2c_class(n, k);
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
        if (n->n_unknown)
                printf("note:     %zu value(s) of a later schema minor read as unknown, first %s\n",
                       n->n_unknown, cli_esc(n->unknown_first));
        pmucal_numa_free(n);
        return 0;
}

/* One latency @p arg as source @p src (@p how: "" or " (source S)"); 0, or an exit code after
 * printing why not. */
static int source_one(const char *path, const struct pmucal_table *t,
                      const struct pmucal_numa *nm, const char *src, const char *arg,
                      enum pmucal_unit dflt, const char *how)
{
        static const char *const fit[] = { "fits", "FASTER than the bucket",
                                           "SLOWER than the bucket" };
        struct pmucal_match m;
        enum pmucal_unit    u;
        enum pmucal_err     e;
        double              v;

        if (!cli_parse_latency(arg, strlen(arg), dflt, &v, &u)) {
                fprintf(stderr, "pmucal-table: latency \"%s\" is not a number with an optional "
                                "unit suffix (ns, tsc, core)\n", cli_esc(arg));
                return EXIT_USAGE;
        }
        e = pmucal_numa_classify_source(t, nm, src, v, u, &m);
        if (e != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s: source \"%s\", latency %s: %s\n", cli_esc(path),
                        cli_esc(src), cli_esc(arg),
                        e == PMUCAL_E_UNKNOWN_SOURCE
                                ? "unknown data source (L1..L9, DRAM, lfb, dram, dram-local, "
                                  "dram-remote, DRAM-remote-<k>hop, c2c-<topology>-<kind>: "
                                  "docs/libpmucal.md)"
                        : e == PMUCAL_E_NO_BUCKET ? "this table has no bucket for that source"
                        : e == PMUCAL_E_NO_RATIO
                                ? (u == PMUCAL_UNIT_CORE
                                           ? "core cycles: this table has no core:TSC ratio; give "
                                             "the core clock the samples ran at with --core-ghz GHZ"
                                           : "this table cannot convert it to ns")
                                : pmucal_strerror(e));
                return e == PMUCAL_E_UNKNOWN_SOURCE ? EXIT_USAGE
                     : e == PMUCAL_E_NO_BUCKET      ? EXIT_NO_BUCKET
                                                    : EXIT_BAD;
        }
        printf("%s %s %s (%.3f..%.3f ns, p50 %.3f)%s\n", cli_esc(arg), cli_esc(m.bucket),
               fit[m.fit], m.lo_ns, m.hi_ns, m.p50_ns, how);
        return 0;
}

/* A register value as perf script and MSR dumps print it: hexadecimal, 0x optional. */
static bool parse_hex(const char *s, uint64_t *v)
{
        char *end;

        if (!*s || *s == '-' || *s == '+' || *s == ' ')
                return false;
        errno = 0;
        *v    = strtoull(s, &end, 16);
        return !*end && !errno;
}

/* The source an encoding option names (--perf-data-src V, --ibs-op-data2 V --ibs-op-data3 V):
 * the number of arguments it took (0: none given), or -1 after printing why not. @p src is
 * the source, @p lat the IBS DcMissLat (NaN without one). */
static int encoded_source(const char *path, const struct pmucal_table *t, int argc, char **argv,
                          const char **src, double *lat)
{
        uint64_t        a, b;
        enum pmucal_err e;
        int             used;

        *lat = NAN;
        if (argc >= 2 && !strcmp(argv[0], "--perf-data-src")) {
                if (!parse_hex(argv[1], &a)) {
                        fprintf(stderr, "pmucal-table: --perf-data-src \"%s\" is not a hexadecimal "
                                        "perf_mem_data_src value\n", cli_esc(argv[1]));
                        return -1;
                }
                e    = pmucal_source_perf_data_src(a, src);
                used = 2;
        } else if (argc >= 4 && !strcmp(argv[0], "--ibs-op-data2") &&
                   !strcmp(argv[2], "--ibs-op-data3")) {
                if (!parse_hex(argv[1], &a) || !parse_hex(argv[3], &b)) {
                        fprintf(stderr, "pmucal-table: --ibs-op-data2 \"%s\" / --ibs-op-data3 \"%s\": "
                                        "hexadecimal register values expected\n",
                                cli_esc(argv[1]), cli_esc(argv[3]));
                        return -1;
                }
                e    = pmucal_source_ibs_op(a, b, t->family, t->model, PMUCAL_IBS_LAYOUT_AUTO, src, lat);
                used = 4;
        } else {
                return 0;
        }
        if (e == PMUCAL_E_UNKNOWN_SOURCE) {
                fprintf(stderr, "pmucal-table: %s: %s %s: %s, which no bucket stands for\n",
                        cli_esc(path), argv[0], cli_esc(argv[1]), *src);
                return -2;
        }
        return used;
}

int cmd_classify_source(int argc, char **argv)
{
        struct pmucal_table *t;
        struct pmucal_numa  *nm;
        enum pmucal_unit     dflt = PMUCAL_UNIT_TABLE;
        const char          *ghz = NULL, *src;
        char                 err[512], how[96] = "", lat_arg[32];
        double               lat;
        int                  rc = 0, i = 0, used;

        while (i + 1 < argc && (!strcmp(argv[i], "--unit") || !strcmp(argv[i], "--core-ghz"))) {
                if (argv[i][2] == 'u' && !cli_parse_unit(argv[i + 1], &dflt)) {
                        fprintf(stderr, "pmucal-table: --unit \"%s\" is not table, tsc, core or ns\n",
                                cli_esc(argv[i + 1]));
                        return EXIT_USAGE;
                }
                if (argv[i][2] == 'c')
                        ghz = argv[i + 1];
                i += 2;
        }
        if (argc - i < 2) {
                fprintf(stderr, "pmucal-table: classify-source: wrong arguments ([--unit U] "
                                "[--core-ghz G] FILE SOURCE|--perf-data-src V|--ibs-op-data2 V "
                                "--ibs-op-data3 V LATENCY...)\n");
                return EXIT_USAGE;
        }
        if (!(t = cli_load_table(argv[i])))
                return EXIT_BAD;
        if (ghz && (rc = cli_core_ghz(argv[i], t, ghz))) {
                pmucal_table_free(t);
                return rc;
        }
        if (pmucal_numa_load(argv[i], &nm, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                pmucal_table_free(t);
                return EXIT_BAD;
        }
        used = encoded_source(argv[i], t, argc - i - 1, argv + i + 1, &src, &lat);
        if (used < 0) {
                rc = used == -1 ? EXIT_USAGE : EXIT_NO_BUCKET;
        } else if (used == 0 && argc - i < 3) {
                fprintf(stderr, "pmucal-table: classify-source: no latency given\n");
                rc = EXIT_USAGE;
        } else if (used == 0) {
                for (int k = i + 2; k < argc && !rc; k++)
                        rc = source_one(argv[i], t, nm, argv[i + 1], argv[k], dflt, "");
        } else {
                snprintf(how, sizeof(how), " (source %s)", src);
                if (i + 1 + used == argc && !isnan(lat)) { /* IBS without a latency: DcMissLat */
                        snprintf(lat_arg, sizeof(lat_arg), "%.0fcore", lat);
                        rc = source_one(argv[i], t, nm, src, lat_arg, dflt, how);
                } else if (i + 1 + used == argc) {
                        fprintf(stderr, "pmucal-table: classify-source: no latency given (and no "
                                        "IBS DcMissLat: the op did not miss the data cache)\n");
                        rc = EXIT_USAGE;
                }
                for (int k = i + 1 + used; k < argc && !rc; k++)
                        rc = source_one(argv[i], t, nm, src, argv[k], dflt, how);
        }
        pmucal_numa_free(nm);
        pmucal_table_free(t);
        return rc;
}

static json_t *jstat_or_null(bool has, const struct pmucal_stat *s)
{
        return has ? json_pack("{s:f,s:f,s:f,s:f}", "min", s->min, "p10", s->p10, "p50", s->p50,
                               "p90", s->p90)
                   : json_pack("n");
}

static json_t *jnum_or_null(double v)
{
        return isnan(v) ? json_pack("n") : json_real(v);
}

json_t *cli_remote_json(const char *path)
{
        struct pmucal_numa *n;
        char                err[512];
        json_t             *numa = json_pack("n"), *ll = json_pack("n"), *c2c = json_pack("n");

        if (pmucal_numa_load(path, &n, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err); /* the library escaped it */
                return NULL;
        }
        if (n->has_numa) {
                json_t *pd = json_array(), *mx = json_array(), *dl = json_array();
                for (unsigned i = 0; i < pmucal_numa_node_count(n); i++) {
                        json_t *row = json_array();
                        json_array_append_new(pd, json_integer(pmucal_numa_node_pd(n, i)));
                        for (unsigned j = 0; j < pmucal_numa_node_count(n); j++)
                                json_array_append_new(row, jnum_or_null(pmucal_numa_matrix_ns(n, i, j)));
                        json_array_append_new(mx, row);
                }
                for (size_t k = 0; k < pmucal_numa_dram_count(n); k++) {
                        const struct pmucal_dram_level *d = pmucal_numa_dram_level(n, k);
                        json_array_append_new(dl, json_pack(
                                "{s:s,s:i,s:i,s:o,s:o}", "name", d->name, "slit_distance",
                                (int)d->slit_distance, "n_cells", (int)d->n_cells, "ns",
                                jstat_or_null(d->measured, &d->ns), "upper_ns",
                                d->has_upper ? json_real(d->upper_ns) : json_pack("n")));
                }
                json_decref(numa);
                numa = json_pack("{s:b,s:o,s:o,s:o}", "emulated", n->emulated,
                                 "proximity_domains", pd, "matrix_p50_ns", mx, "dram_levels", dl);
        }
        if (pmucal_numa_curve_count(n)) {
                json_t *cs = json_array();
                for (size_t k = 0; k < pmucal_numa_curve_count(n); k++) {
                        const struct pmucal_curve *cv  = pmucal_numa_curve(n, k);
                        json_t                    *pts = json_array();
                        for (size_t q = 0; q < cv->n_points; q++) {
                                const struct pmucal_loaded_point *p = &cv->pt[q];
                                json_array_append_new(pts, json_pack(
                                        "{s:b,s:b,s:o,s:o,s:o,s:o}", "idle", p->idle, "measured",
                                        p->measured, "bandwidth_gb_s",
                                        p->measured ? json_real(p->gb_s) : json_pack("n"), "p10_ns",
                                        p->measured ? json_real(p->p10_ns) : json_pack("n"), "p50_ns",
                                        p->measured ? json_real(p->p50_ns) : json_pack("n"), "p90_ns",
                                        p->measured ? json_real(p->p90_ns) : json_pack("n")));
                        }
                        json_array_append_new(cs, json_pack(
                                "{s:s,s:o,s:o}", "loaded", cv->all_nodes ? "all nodes" : "node",
                                "node", cv->all_nodes ? json_pack("n") : json_integer(cv->node),
                                "points", pts));
                }
                json_decref(ll);
                ll = json_pack("{s:f,s:o}", "load_factor", n->load_factor, "curves", cs);
        }
        if (n->has_c2c) {
                json_t *cl = json_array();
                for (size_t k = 0; k < pmucal_numa_c2c_count(n); k++) {
                        const struct pmucal_c2c_class *x = pmucal_numa_c2c_class(n, k);
                        json_array_append_new(cl, json_pack(
                                "{s:s,s:s,s:i,s:o,s:o}", "topology", x->topology, "kind", x->kind,
                                "n_pairs", (int)x->n_pairs, "tsc", jstat_or_null(true, &x->tsc),
                                "ns", jstat_or_null(x->has_ns, &x->ns)));
                }
                json_decref(c2c);
                c2c = json_pack("{s:b,s:o,s:o}", "emulated", n->c2c_emulated, "tsc_hz",
                                n->c2c_tsc_hz ? json_integer((json_int_t)n->c2c_tsc_hz) : json_pack("n"),
                                "classes", cl);
        }
        json_t *out = json_pack("{s:o,s:o,s:o,s:{s:I,s:o}}", "numa", numa, "loaded_latency", ll,
                                "c2c", c2c, "unknown_values", "count", (json_int_t)n->n_unknown,
                                "first", n->n_unknown ? json_string(n->unknown_first) : json_pack("n"));
        pmucal_numa_free(n);
        return out;
}

static void csv_or_empty(bool has, double v, const char *sep)
{
        if (has && !isnan(v))
                printf("%.3f%s", v, sep);
        else
                printf("%s", sep);
}

int cli_remote_csv(const char *path)
{
        struct pmucal_numa *n;
        char                err[512];

        if (pmucal_numa_load(path, &n, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err); /* the library escaped it */
                return EXIT_BAD;
        }
        if (n->has_numa) {
                printf("# section numa_matrix: p50 ns, CPU node -> memory node (proximity domains)\n"
                       "cpu_node,memory_node,p50_ns\n");
                for (unsigned i = 0; i < pmucal_numa_node_count(n); i++)
                        for (unsigned j = 0; j < pmucal_numa_node_count(n); j++) {
                                printf("%u,%u,", pmucal_numa_node_pd(n, i), pmucal_numa_node_pd(n, j));
                                csv_or_empty(true, pmucal_numa_matrix_ns(n, i, j), "\n");
                        }
                printf("# section dram_levels\n"
                       "name,slit_distance,n_cells,min_ns,p10_ns,p50_ns,p90_ns,upper_ns\n");
                for (size_t k = 0; k < pmucal_numa_dram_count(n); k++) {
                        const struct pmucal_dram_level *d = pmucal_numa_dram_level(n, k);
                        printf("%s,%u,%u,", d->name, d->slit_distance, d->n_cells);
                        csv_or_empty(d->measured, d->ns.min, ",");
                        csv_or_empty(d->measured, d->ns.p10, ",");
                        csv_or_empty(d->measured, d->ns.p50, ",");
                        csv_or_empty(d->measured, d->ns.p90, ",");
                        csv_or_empty(d->has_upper, d->upper_ns, "\n");
                }
        }
        if (pmucal_numa_curve_count(n)) {
                printf("# section loaded_latency: load factor %.3f\n"
                       "curve,loaded,node,point,idle,bandwidth_gb_s,p10_ns,p50_ns,p90_ns\n",
                       n->load_factor);
                for (size_t k = 0; k < pmucal_numa_curve_count(n); k++) {
                        const struct pmucal_curve *cv = pmucal_numa_curve(n, k);
                        for (size_t q = 0; q < cv->n_points; q++) {
                                const struct pmucal_loaded_point *p = &cv->pt[q];
                                printf("%zu,%s,", k, cv->all_nodes ? "all nodes" : "node");
                                cv->all_nodes ? printf(",") : printf("%u,", cv->node);
                                printf("%zu,%d,", q, p->idle);
                                csv_or_empty(p->measured, p->gb_s, ",");
                                csv_or_empty(p->measured, p->p10_ns, ",");
                                csv_or_empty(p->measured, p->p50_ns, ",");
                                csv_or_empty(p->measured, p->p90_ns, "\n");
                        }
                }
        }
        if (n->has_c2c) {
                printf("# section c2c\ntopology,kind,n_pairs,min_tsc_ticks,p10_tsc_ticks,"
                       "p50_tsc_ticks,p90_tsc_ticks,min_ns,p10_ns,p50_ns,p90_ns\n");
                for (size_t k = 0; k < pmucal_numa_c2c_count(n); k++) {
                        const struct pmucal_c2c_class *x = pmucal_numa_c2c_class(n, k);
                        printf("%s,%s,%u,%.3f,%.3f,%.3f,%.3f,", x->topology, x->kind, x->n_pairs,
                               x->tsc.min, x->tsc.p10, x->tsc.p50, x->tsc.p90);
                        csv_or_empty(x->has_ns, x->ns.min, ",");
                        csv_or_empty(x->has_ns, x->ns.p10, ",");
                        csv_or_empty(x->has_ns, x->ns.p50, ",");
                        csv_or_empty(x->has_ns, x->ns.p90, "\n");
                }
        }
        pmucal_numa_free(n);
        return 0;
}
