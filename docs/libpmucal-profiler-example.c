/* A profiler's samples sorted the way HP Caliper's dcache report did: each sample's latency in
 * core cycles (PEBS, IBS, perf mem weights) with its recorded data source (a PEBS/perf
 * perf_mem_data_src, or IBS op registers), into the table's buckets: levels, DRAM by NUMA
 * distance, cache-to-cache transfers.
 *
 *     cc libpmucal-profiler-example.c $(pkg-config --cflags --libs pmucal) -o profiler
 *     ./profiler latency-table.json [--core-ghz G] perf DATA_SRC CYCLES
 *     ./profiler latency-table.json [--core-ghz G] ibs OP_DATA2 OP_DATA3   # DcMissLat
 *
 * DATA_SRC and the IBS registers in hex, as perf script prints them. Prints
 * "source dram-remote: DRAM-remote-1hop fits (96.900..471.015 ns)". The tests build it against
 * the installed library (tests/test_install.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmucal/numa.h>
#include <pmucal/source.h>

int main(int argc, char **argv)
{
        static const char *const fit[] = { "fits", "FASTER than", "SLOWER than" };
        struct pmucal_table *t;
        struct pmucal_numa  *n;
        struct pmucal_match  m;
        const char          *src;
        double               cycles = NAN;
        char                 err[512];
        int                  a = 2;
        enum pmucal_err      e;

        if (argc < 5) {
                fprintf(stderr, "usage: %s TABLE [--core-ghz G] perf DATA_SRC CYCLES | ibs D2 D3\n",
                        argv[0]);
                return 2;
        }
        if (pmucal_table_load(argv[1], &t, err, sizeof(err)) != PMUCAL_OK ||
            pmucal_numa_load(argv[1], &n, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "%s\n", err);
                return 1;
        }
        /* the samples' core clock, when the table has no core:TSC ratio of its own */
        if (!strcmp(argv[a], "--core-ghz") && a + 1 < argc) {
                e = pmucal_table_set_core_ratio(t, strtod(argv[a + 1], NULL) * 1e9 / (double)t->tsc_hz);
                if (e != PMUCAL_OK) {
                        fprintf(stderr, "--core-ghz: %s\n", pmucal_strerror(e));
                        return 1;
                }
                a += 2;
        }
        if (a + 2 >= argc) {
                fprintf(stderr, "missing arguments\n");
                return 2;
        }
        if (!strcmp(argv[a], "perf")) {
                e      = pmucal_source_perf_data_src(strtoull(argv[a + 1], NULL, 16), &src);
                cycles = strtod(argv[a + 2], NULL);
        } else {
                e = pmucal_source_ibs_op(strtoull(argv[a + 1], NULL, 16), strtoull(argv[a + 2], NULL, 16),
                                         t->family, t->model, PMUCAL_IBS_LAYOUT_AUTO, &src, &cycles);
        }
        if (e == PMUCAL_E_UNKNOWN_SOURCE) {
                printf("source: %s, which no bucket stands for\n", src);
                return 0;
        }
        if (t->has_core_ratio)
                printf("core:TSC ratio %.3f (%s%s)\n", t->core_per_tsc,
                       t->core_ratio_estimated ? "estimated by " : "", t->core_ratio_source);
        e = pmucal_numa_classify_source(t, n, src, cycles, PMUCAL_UNIT_CORE, &m);
        if (e != PMUCAL_OK) {
                printf("source %s, %g core cycles: %s\n", src, cycles, pmucal_strerror(e));
        } else {
                printf("source %s: %s %s (%.3f..%.3f ns)\n", src, m.bucket, fit[m.fit], m.lo_ns,
                       m.hi_ns);
                /* and by latency alone */
                if (pmucal_numa_classify(t, n, cycles, PMUCAL_UNIT_CORE, &m) == PMUCAL_OK)
                        printf("latency %g core cycles: %s\n", cycles, m.bucket);
        }
        pmucal_numa_free(n);
        pmucal_table_free(t);
        return e == PMUCAL_OK ? 0 : 1;
}
