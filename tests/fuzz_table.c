/* libFuzzer target for host/libpmucal.c: the input is a latency-table document, loaded with
 * pmucal_table_load_buf() from an exact-size heap copy (no NUL terminator, so ASan sees any
 * read past the end), and as a TLB table. A table that loads is then classified at a few
 * latencies (its remote sections too), its level sets checked, and freed.
 * Seeds: tests/corpus/table/ (valid tables and near misses). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/include/pmucal/numa.h"
#include "host/include/pmucal/table.h"
#include "host/include/pmucal/tlb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const double lat[] = { 0, 1, 4.5, 37, 1e6, INFINITY, -1, NAN };
#define N_LAT (sizeof(lat) / sizeof(lat[0]))

/* The remote sections of a table that loaded: classified by latency, by every kind of
 * source, and listed as candidates; every bucket named must be a real one. */
static void fuzz_numa(const struct pmucal_table *t, const char *buf, size_t size)
{
        static const char *const src[] = { "dram", "dram-remote", "dram-remote-1hop", "L2",
                                           "c2c-any-any", "c2c-remote-hitm", "c2c-local-hit" };
        static const double      nlat[] = { 0, 3, 90, 150, 1e9, NAN };
        struct pmucal_numa      *n;
        struct pmucal_match      m[8];
        char                     err[256];

        if (pmucal_numa_load_buf(buf, size, "fuzz.json", &n, err, sizeof(err)) != PMUCAL_OK) {
                if (!strstr(err, "fuzz.json"))
                        abort();
                return;
        }
        for (size_t i = 0; i < sizeof(nlat) / sizeof(nlat[0]); i++) {
                if (pmucal_numa_classify_ns(t, n, nlat[i], m) == PMUCAL_OK && !m[0].bucket[0])
                        abort();
                for (size_t k = 0; k < sizeof(src) / sizeof(src[0]); k++)
                        if (pmucal_numa_classify_source_ns(t, n, src[k], nlat[i], m) == PMUCAL_OK &&
                            (!m[0].bucket[0] || m[0].fit > PMUCAL_SLOWER))
                                abort();
                if (pmucal_numa_candidates_ns(t, n, nlat[i], m, 8) > 64 + 20)
                        abort();
        }
        pmucal_numa_free(n);
}

/* The level sets of a table that loaded (1.4 core_types): each covers at least one APIC ID,
 * ascending, none in two sets; a measured set has levels; the set of each listed APIC ID is
 * the set that lists it. */
static void fuzz_core_sets(const struct pmucal_table *t)
{
        for (size_t i = 0; i < t->n_core_sets; i++) {
                const struct pmucal_core_set *s = &t->core_sets[i];
                if (!s->n_apic_ids || (s->measured && !s->n_levels) ||
                    (!s->measured && (s->n_levels || !s->why_not_measured)))
                        abort();
                for (size_t a = 0; a < s->n_apic_ids; a++)
                        if ((a && s->apic_ids[a] <= s->apic_ids[a - 1]) ||
                            pmucal_table_core_set(t, s->apic_ids[a]) != s)
                                abort();
        }
}

static void latency(const char *buf, size_t size)
{
        struct pmucal_table *t;
        char                 err[256];
        int                  levels[N_LAT];

        if (pmucal_table_load_buf(buf, size, "fuzz.json", &t, err, sizeof(err)) != PMUCAL_OK) {
                if (strlen(err) == 0 || !strstr(err, "fuzz.json"))
                        abort(); /* every failure must say which file */
                return;
        }
        for (int u = PMUCAL_UNIT_TABLE; u <= PMUCAL_UNIT_NS; u++) {
                for (size_t i = 0; i < N_LAT; i++) {
                        int             k = -99;
                        enum pmucal_err e = pmucal_table_classify(t, lat[i], (enum pmucal_unit)u, &k);
                        if (e == PMUCAL_OK && (k < PMUCAL_LEVEL_BEYOND || k >= (int)t->n_levels))
                                abort();
                        if (e == PMUCAL_OK && u == PMUCAL_UNIT_TABLE && i < 5 && k == -99)
                                abort();
                }
                if (pmucal_table_classify_batch(t, lat, N_LAT, (enum pmucal_unit)u, levels, NULL) ==
                    PMUCAL_OK)
                        for (size_t i = 0; i < N_LAT; i++)
                                if (levels[i] < PMUCAL_LEVEL_INVALID || levels[i] >= (int)t->n_levels)
                                        abort();
        }
        pmucal_table_has_flag(t, "noisy");
        fuzz_core_sets(t);
        fuzz_numa(t, buf, size);
        pmucal_table_free(t);
}

static void tlb(const char *buf, size_t size)
{
        struct pmucal_tlb *t;
        char               err[256];
        int                cls[N_LAT];

        if (pmucal_tlb_load_buf(buf, size, "fuzz.json", &t, err, sizeof(err)) != PMUCAL_OK) {
                if (strlen(err) == 0 || !strstr(err, "fuzz.json"))
                        abort();
                return;
        }
        for (size_t c = 0; c < t->n_curves; c++) {
                const struct pmucal_tlb_curve *cv = &t->curves[c];
                for (size_t i = 0; i < N_LAT; i++) {
                        const struct pmucal_tlb_class *k = NULL;
                        if (pmucal_tlb_classify(t, cv->side, cv->page_bytes, lat[i], PMUCAL_UNIT_TSC,
                                                &k) == PMUCAL_OK && !k)
                                abort();
                }
                pmucal_tlb_classify_batch(t, cv->side, cv->page_bytes, lat, N_LAT, PMUCAL_UNIT_CORE,
                                          cls, NULL);
        }
        pmucal_tlb_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *buf = malloc(size ? size : 1);

        if (!buf)
                return 0;
        memcpy(buf, data, size);
        latency(buf, size);
        tlb(buf, size);
        free(buf);
        return 0;
}
