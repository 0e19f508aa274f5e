/* A profiler's samples into a pmucal table's buckets, as HP Caliper's dcache report sorted them:
 * each sample's data source from what the hardware recorded (a PEBS / perf mem
 * perf_mem_data_src, or an AMD IBS op's IbsOpData2 / IbsOpData3), its latency in core cycles
 * (the perf weight, or the op's DcMissLat), sorted by source and by latency alone, then a count
 * per bucket. Written from docs/libpmucal.md ("Units and clocks", "Buckets", "Data sources");
 * docs/examples/profiler_samples.py does the same in Python and prints the same lines.
 *
 *     cc profiler-samples.c $(pkg-config --cflags --libs pmucal) -o profiler-samples
 *     ./profiler-samples latency-table.json [--core-ghz G] [SAMPLES|-] < samples.txt
 *
 * SAMPLES (default stdin) has one sample a line (docs/examples/samples.txt): `perf DATA_SRC
 * CYCLES`, `ibs OP_DATA2 OP_DATA3` or `ibs-zen4 OP_DATA2 OP_DATA3` (the Zen 4/5 DataSrc layout
 * whatever the table's CPU), values in hex as perf script prints them; `#` starts a comment.
 * --core-ghz G: the core clock the samples ran at, for a table without a core:TSC ratio of its
 * own (a firmware run under QEMU has none). Exit status: 0, 1 when the table does not load or
 * cannot take core cycles, 2 for a usage error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmucal/numa.h>
#include <pmucal/source.h>

#define MAX_BUCKETS 64

/* The error kinds by name, as the Python reader names them (pmucal.Error.kind). */
static const char *kind(enum pmucal_err e)
{
        switch (e) {
        case PMUCAL_OK:               return "ok";
        case PMUCAL_E_IO:             return "io";
        case PMUCAL_E_SYNTAX:         return "syntax";
        case PMUCAL_E_VERSION:        return "version";
        case PMUCAL_E_SCHEMA:         return "schema";
        case PMUCAL_E_NOMEM:          return "nomem";
        case PMUCAL_E_ARG:            return "arg";
        case PMUCAL_E_KIND:           return "kind";
        case PMUCAL_E_RANGE:          return "range";
        case PMUCAL_E_NO_RATIO:       return "no_ratio";
        case PMUCAL_E_NO_CURVE:       return "no_curve";
        case PMUCAL_E_UNKNOWN_SOURCE: return "unknown_source";
        case PMUCAL_E_NO_BUCKET:      return "no_bucket";
        }
        return "?";
}

static const char *const fit_name[] = { [PMUCAL_FITS] = "fits", [PMUCAL_FASTER] = "faster",
                                        [PMUCAL_SLOWER] = "slower" };

struct count {
        char     bucket[40];
        unsigned n;
};

static void tally(struct count *c, unsigned *n_c, const char *bucket)
{
        for (unsigned i = 0; i < *n_c; i++) {
                if (!strcmp(c[i].bucket, bucket)) {
                        c[i].n++;
                        return;
                }
        }
        if (*n_c < MAX_BUCKETS) {
                snprintf(c[*n_c].bucket, sizeof(c[*n_c].bucket), "%s", bucket);
                c[(*n_c)++].n = 1;
        }
}

int main(int argc, char **argv)
{
        struct pmucal_table *t;
        struct pmucal_numa  *n;
        struct count         counts[MAX_BUCKETS];
        unsigned             n_counts = 0, n_samples = 0;
        char                 err[512], line[512];
        FILE                *in = stdin;
        int                  a = 2;

        if (argc < 2) {
                fprintf(stderr, "usage: %s TABLE [--core-ghz G] [SAMPLES|-]\n", argv[0]);
                return 2;
        }
        if (pmucal_table_load(argv[1], &t, err, sizeof(err)) != PMUCAL_OK ||
            pmucal_numa_load(argv[1], &n, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "%s\n", err);
                return 1;
        }
        if (a + 1 < argc && !strcmp(argv[a], "--core-ghz")) {
                /* the samples' core clock: GHz x 1e9 / tsc_hz core cycles per TSC tick */
                enum pmucal_err e = pmucal_table_set_core_ratio(t, strtod(argv[a + 1], NULL) * 1e9 /
                                                                       (double)t->tsc_hz);
                if (e != PMUCAL_OK) {
                        fprintf(stderr, "--core-ghz %s: %s\n", argv[a + 1], pmucal_strerror(e));
                        return 1;
                }
                a += 2;
        }
        if (a < argc && strcmp(argv[a], "-") && !(in = fopen(argv[a], "r"))) {
                perror(argv[a]);
                return 1;
        }
        if (!t->has_core_ratio) {
                fprintf(stderr, "%s: no core:TSC ratio for core-cycle samples; give --core-ghz G\n",
                        argv[1]);
                return 1;
        }
        printf("table %s: core:TSC ratio %.4f (%s%s)\n", argv[1], t->core_per_tsc,
               t->core_ratio_estimated ? "estimated by " : "", t->core_ratio_source);

        while (fgets(line, sizeof(line), in)) {
                char               what[16];
                unsigned long long v1, v2;
                double             lat = NAN;
                const char        *src = NULL;
                struct pmucal_match m;
                enum pmucal_err    e;

                line[strcspn(line, "\r\n")] = '\0';
                if (line[0] == '#' || line[0] == '\0')
                        continue;
                if (sscanf(line, "%15s", what) == 1 && !strcmp(what, "perf") &&
                    sscanf(line, "%*s %llx %lf", &v1, &lat) == 2) {
                        e = pmucal_source_perf_data_src(v1, &src);
                } else if (sscanf(line, "%15s", what) == 1 &&
                           (!strcmp(what, "ibs") || !strcmp(what, "ibs-zen4")) &&
                           sscanf(line, "%*s %llx %llx", &v1, &v2) == 2) {
                        e = pmucal_source_ibs_op(v1, v2, t->family, t->model,
                                                 what[3] ? PMUCAL_IBS_LAYOUT_ZEN4 : PMUCAL_IBS_LAYOUT_AUTO,
                                                 &src, &lat);
                } else {
                        printf("%s: not a sample\n", line);
                        continue;
                }
                n_samples++;
                if (e == PMUCAL_E_UNKNOWN_SOURCE) {
                        printf("%s: source unknown (%s)\n", line, src);
                        tally(counts, &n_counts, "(unknown source)");
                        continue;
                }
                if (e != PMUCAL_OK) {
                        printf("%s: %s\n", line, kind(e));
                        continue;
                }
                if (isnan(lat)) {
                        printf("%s: source %s, no latency (the op did not miss)\n", line, src);
                        tally(counts, &n_counts, src);
                        continue;
                }
                printf("%s: source %s, %g core cycles: ", line, src, lat);
                e = pmucal_numa_classify_source(t, n, src, lat, PMUCAL_UNIT_CORE, &m);
                if (e == PMUCAL_OK) {
                        printf("%s %s (%.3f..%.3f ns)", m.bucket, fit_name[m.fit], m.lo_ns, m.hi_ns);
                        tally(counts, &n_counts, m.bucket);
                } else {
                        printf("%s", kind(e));
                        tally(counts, &n_counts, "(no bucket)");
                }
                e = pmucal_numa_classify(t, n, lat, PMUCAL_UNIT_CORE, &m);
                printf("; by latency: %s\n", e == PMUCAL_OK ? m.bucket : kind(e));
        }
        printf("%u samples\n", n_samples);
        for (unsigned i = 0; i < n_counts; i++)
                printf("  %-28s %u\n", counts[i].bucket, counts[i].n);
        if (in != stdin)
                fclose(in);
        pmucal_numa_free(n);
        pmucal_table_free(t);
        return 0;
}
