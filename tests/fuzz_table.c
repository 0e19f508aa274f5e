/* libFuzzer target for host/libpmucal.c: the input is a latency-table document, loaded with
 * pmucal_table_load_buf() from an exact-size heap copy (no NUL terminator, so ASan sees any
 * read past the end). A table that loads is then classified at a few latencies and freed.
 * Seeds: tests/corpus/table/ (valid tables and near misses). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/include/pmucal/numa.h"
#include "host/include/pmucal/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The remote sections of a table that loaded: classified by latency, by every kind of
 * source, and listed as candidates; every bucket named must be a real one. */
static void fuzz_numa(const struct pmucal_table *t, const char *buf, size_t size)
{
        static const char *const src[] = { "dram", "dram-remote", "dram-remote-1hop", "L2",
                                           "c2c-any-any", "c2c-remote-hitm", "c2c-local-hit" };
        static const double      lat[] = { 0, 3, 90, 150, 1e9, NAN };
        struct pmucal_numa      *n;
        struct pmucal_match      m[8];
        char                     err[256];

        if (pmucal_numa_load_buf(buf, size, "fuzz.json", &n, err, sizeof(err)) != PMUCAL_OK) {
                if (!strstr(err, "fuzz.json"))
                        abort();
                return;
        }
        for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
                if (pmucal_numa_classify_ns(t, n, lat[i], m) == PMUCAL_OK && !m[0].bucket[0])
                        abort();
                for (size_t k = 0; k < sizeof(src) / sizeof(src[0]); k++)
                        if (pmucal_numa_classify_source_ns(t, n, src[k], lat[i], m) == PMUCAL_OK &&
                            (!m[0].bucket[0] || m[0].fit > PMUCAL_SLOWER))
                                abort();
                if (pmucal_numa_candidates_ns(t, n, lat[i], m, 8) > 64 + 20)
                        abort();
        }
        pmucal_numa_free(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const double lat[] = { 0, 1, 4.5, 37, 1e6, INFINITY, -1 };
        struct pmucal_table *t;
        char                 err[256];
        char                *buf = malloc(size ? size : 1);

        if (!buf)
                return 0;
        memcpy(buf, data, size);
        if (pmucal_table_load_buf(buf, size, "fuzz.json", &t, err, sizeof(err)) == PMUCAL_OK) {
                for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
                        int k = pmucal_table_classify_cycles(t, lat[i]);
                        if (k < 0 || (size_t)k >= t->n_levels)
                                abort();
                        k = pmucal_table_classify_ns(t, lat[i]);
                        if (k >= (int)t->n_levels)
                                abort();
                }
                pmucal_table_has_flag(t, "noisy");
                fuzz_numa(t, buf, size);
                pmucal_table_free(t);
        } else if (strlen(err) == 0 || !strstr(err, "fuzz.json")) {
                abort(); /* every failure must say which file */
        }
        free(buf);
        return 0;
}
