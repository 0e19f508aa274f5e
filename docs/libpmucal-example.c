/* A profiler's use of libpmucal: load a latency table, check the library's version, and sort
 * sampled load latencies into its levels, in the unit the profiler measured them in.
 *
 *     cc libpmucal-example.c $(pkg-config --cflags --libs pmucal) -o libpmucal-example
 *     ./libpmucal-example latency-table.json tsc 3.1 15 40 900
 *     ./libpmucal-example latency-table.json core 60     # IBS/PEBS latencies: core cycles
 *
 * Prints one line per latency ("40 tsc: L3") and a count per level. The tests build it
 * against the installed headers and library (tests/test_install.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmucal/table.h>

int main(int argc, char **argv)
{
        struct pmucal_table *t;
        enum pmucal_unit     unit;
        enum pmucal_err      e;
        char                 err[512], name[256];
        size_t               n, bad;
        double              *lat;
        int                 *level;

        if (argc < 4) {
                fprintf(stderr, "usage: %s TABLE table|tsc|core|ns LATENCY...\n", argv[0]);
                return 2;
        }
        /* Built against 1.x, runs with any 1.y: the major must match. */
        if (pmucal_version() / 10000 != PMUCAL_VERSION_MAJOR) {
                fprintf(stderr, "libpmucal %s is not major version %d\n", pmucal_version_string(),
                        PMUCAL_VERSION_MAJOR);
                return 1;
        }
        for (unit = PMUCAL_UNIT_TABLE; unit <= PMUCAL_UNIT_NS; unit++)
                if (!strcmp(argv[2], pmucal_unit_name(unit)))
                        break;
        if (unit > PMUCAL_UNIT_NS) {
                fprintf(stderr, "unknown unit %s\n", argv[2]);
                return 2;
        }
        if ((e = pmucal_table_load(argv[1], &t, err, sizeof(err))) != PMUCAL_OK) {
                fprintf(stderr, "%s\n", err); /* "FILE: levels[1].cycles.p50: missing" */
                return 1;
        }
        printf("libpmucal %s, %s: %zu levels, figures in %s\n", pmucal_version_string(),
               t->schema, t->n_levels, pmucal_unit_name(t->cycles_unit));

        /* The whole set in one call; a NaN or negative sample is marked, not fatal. */
        n     = (size_t)argc - 3;
        lat   = calloc(n, sizeof(*lat));
        level = calloc(n, sizeof(*level));
        for (size_t i = 0; i < n; i++)
                lat[i] = strtod(argv[3 + i], NULL);
        e = pmucal_table_classify_batch(t, lat, n, unit, level, &bad);
        if (e == PMUCAL_E_NO_RATIO) {
                printf("%s latencies: %s\n", pmucal_unit_name(unit), pmucal_strerror(e));
        } else if (e == PMUCAL_OK) {
                for (size_t i = 0; i < n; i++) {
                        const char *what = level[i] == PMUCAL_LEVEL_BEYOND    ? "beyond the last level"
                                           : level[i] == PMUCAL_LEVEL_INVALID ? "not a latency"
                                                                              : t->levels[level[i]].name;
                        pmucal_escape(name, sizeof(name), what); /* names come from a file */
                        printf("%g %s: %s\n", lat[i], pmucal_unit_name(unit), name);
                }
                printf("%zu of %zu samples were not latencies\n", bad, n);
        }
        free(lat);
        free(level);
        pmucal_table_free(t);
        return e == PMUCAL_OK ? 0 : 1;
}
