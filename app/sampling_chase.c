/** @file
 * The chase over a known buffer that IBS and PEBS samples are validated against, and the
 * per-working-set checks (see app/sampling_run.h).
 */
#include "sampling_run.h"

#include "../bench/chain.h"
#include "../report/stats.h"
#include "../bench/kernel_chase.h"
#include "../report/fmt.h"

#define CHASE_SEED 0x5eed5a3d1e5ull

/* ---- private helpers -------------------------------------------------------------------- */


/* The buffer's translation, page by page through the platform (identity under UEFI), merged
 * into runs. 0 entries when the platform cannot translate. */
static size_t build_xlat(const struct smp_chase *c, struct rep_xlat *map, size_t max)
{
        size_t n = 0;

        for (uint64_t off = 0; off < c->bytes; off += 4 * KiB) {
                const uint8_t *va = (const uint8_t *)c->buf + off;
                uint64_t pa = plat_virt_to_phys(va);

                if (!pa)
                        return 0;
                if (n && map[n - 1].va + map[n - 1].bytes == (uint64_t)(uintptr_t)va &&
                    map[n - 1].pa + map[n - 1].bytes == pa) {
                        map[n - 1].bytes += 4 * KiB;
                        continue;
                }
                if (n == max)
                        return 0;
                map[n++] = (struct rep_xlat){ .va = (uint64_t)(uintptr_t)va, .pa = pa,
                                              .bytes = 4 * KiB };
        }
        return n;
}

/* ---- public functions ------------------------------------------------------------------- */

status_t smp_chase_setup(struct smp_chase *c, uint64_t bytes, uint32_t line_bytes)
{
        struct bench_chain_cfg cfg = { .layout = BENCH_LAYOUT_RANDOM, .line_bytes = line_bytes,
                                       .seed = CHASE_SEED };
        const void *p;
        status_t st;

        memset(c, 0, sizeof(*c));
        c->bytes = bytes;
        c->line_bytes = line_bytes;
        c->n_lines = bytes / line_bytes;
        if ((st = plat_alloc_pages(bytes, PLAT_PAGE_4K, &c->buf, &c->got)) != ST_OK)
                return st;
        if (!(c->lines = plat_alloc(c->n_lines * sizeof(*c->lines)))) {
                smp_chase_free(c);
                return ST_NO_MEM;
        }
        if ((st = bench_chain_build(c->buf, bytes, &cfg, &c->start)) != ST_OK) {
                smp_chase_free(c);
                return st;
        }
        /* The lines the chain visits, found by following it rather than assumed. */
        p = c->start;
        for (size_t i = 0; i < c->n_lines; i++) {
                c->lines[i] = (uint64_t)(uintptr_t)p & ~(uint64_t)(line_bytes - 1);
                p = *(const void *const *)p;
        }
        rep_sort_u64(c->lines, c->n_lines);
        return ST_OK;
}

void smp_chase_free(struct smp_chase *c)
{
        if (c->buf)
                plat_free_pages(c->buf, c->bytes);
        plat_free(c->lines);
        memset(c, 0, sizeof(*c));
}

size_t smp_filter_chase(struct psample *s, size_t n)
{
        uint64_t lo = (uint64_t)(uintptr_t)bench_chase;
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (s[i].ip_valid && s[i].ip >= lo && s[i].ip - lo < SMP_CHASE_CODE_BYTES)
                        s[k++] = s[i];
        return k;
}

void smp_check_ws(struct smp_log *lg, const char *mech, const struct smp_ws *w,
                  const struct smp_chase *c, const struct psample *s, size_t n)
{
        struct rep_verdict v;
        struct rep_xlat *map;
        size_t n_map, max_map = (size_t)(c->bytes / (4 * KiB));
        char name[48];

        fmt_snprintf(name, sizeof(name), "addresses %s", w->name);
        if (rep_check_addrs_in_chain(s, n, (uint64_t)(uintptr_t)c->buf, c->bytes, c->lines,
                                     c->n_lines, c->line_bytes, &v) == ST_OK)
                smp_log_check(lg, mech, name, &v);

        fmt_snprintf(name, sizeof(name), "physical %s", w->name);
        map = plat_alloc(max_map * sizeof(*map));
        n_map = map ? build_xlat(c, map, max_map) : 0;
        if (n_map == 0)
                smp_log_skip(lg, mech, name, "the platform cannot translate the buffer's "
                             "addresses (plat_virt_to_phys)");
        else if (rep_check_phys(s, n, map, n_map, &v) == ST_OK)
                smp_log_check(lg, mech, name, &v);
        plat_free(map);

        fmt_snprintf(name, sizeof(name), "latency %s", w->name);
        if (rep_check_latency(s, n, REP_SF_LOADS_ONLY | REP_SF_MISSES_ONLY, w->lat_lo, w->lat_hi,
                              500, &v) == ST_OK)
                smp_log_check(lg, mech, name, &v);

        fmt_snprintf(name, sizeof(name), "data-source %s", w->name);
        if (w->level == PS_LVL_UNKNOWN)
                smp_log_skip(lg, mech, name, "the latency table's level has no data-source "
                             "equivalent");
        else if (rep_check_level(s, n, w->level, 700, &v) == ST_OK)
                smp_log_check(lg, mech, name, &v);
}
