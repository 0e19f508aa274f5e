/** @file The memory kernels of the validation suite: how big a chase buffer must be to miss
 *  a cache level or the dTLB on every load, and setting one up (see validate.h). */
#include "validate.h"

#include "../bench/chain.h"
#include "../bench/kernel_chase.h"

#define LINE_BYTES 64u
#define PAGE_BYTES 4096u

/* Largest data or unified cache of @p level (0 = the highest level present). */
static const struct cpu_cache *cache_at(const struct cpu_info *ci, unsigned level)
{
        const struct cpu_cache *best = NULL;

        if (level == 0)
                for (size_t i = 0; i < ci->n_caches; i++)
                        if (ci->caches[i].type != CACHE_INST && ci->caches[i].level > level)
                                level = ci->caches[i].level;
        for (size_t i = 0; i < ci->n_caches; i++) {
                const struct cpu_cache *k = &ci->caches[i];
                if (k->level == level && k->type != CACHE_INST && k->size_bytes &&
                    (!best || k->size_bytes > best->size_bytes))
                        best = k;
        }
        return best;
}

/* Entries of the largest data/unified TLB for 4 KiB pages; 0 if CPUID names none. */
static uint32_t dtlb_entries(const struct cpu_info *ci)
{
        uint32_t n = 0;

        for (size_t i = 0; i < ci->n_tlbs; i++) {
                const struct cpu_tlb *t = &ci->tlbs[i];
                if (t->type != TLB_INST && (t->page_sizes & TLB_PG_4K) && t->entries > n)
                        n = t->entries;
        }
        return n;
}

status_t pmu_chase_plan(const struct cpu_info *ci, const struct pmu_check *c, uint64_t max_bytes,
                        uint64_t *bytes, const char **reason)
{
        uint64_t want;

        if (!ci || !c || !bytes || !reason)
                return ST_BAD_ARG;
        *bytes = 0;
        if (c->truth == TRUTH_PAGE_CHASE) {
                uint32_t n = dtlb_entries(ci);
                want = (uint64_t)(n ? n : PMU_PAGE_TLB_DEFAULT) * PMU_PAGE_OVERSIZE * PAGE_BYTES;
        } else if (c->truth == TRUTH_CHASE_MISSES) {
                const struct cpu_cache *k = cache_at(ci, c->level);
                if (!k) {
                        *reason = "CPUID reports no size for this cache level";
                        return ST_UNSUPPORTED;
                }
                want = k->size_bytes * PMU_CHASE_OVERSIZE;
        } else {
                return ST_BAD_ARG;
        }
        want = (want + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
        if (want > max_bytes) {
                *reason = "the working set needed (8x the cache, 16x the dTLB reach) exceeds "
                          "the 512 MiB the suite allocates";
                return ST_UNSUPPORTED;
        }
        *bytes = want;
        return ST_OK;
}

status_t pmu_chase_setup(struct pmu_chase *ch, uint64_t bytes, bool per_page, const char **reason)
{
        enum plat_page_kind got = PLAT_PAGE_4K;
        status_t            st;

        *ch = (struct pmu_chase){ 0 };
        if ((st = plat_alloc_pages(bytes, PLAT_PAGE_4K, &ch->buf, &got)) != ST_OK) {
                *reason = "could not allocate the chase buffer";
                return st;
        }
        ch->bytes = bytes;
        if (per_page && got != PLAT_PAGE_4K) {
                /* One pointer per 4 KiB page only misses the dTLB if the pages are 4 KiB; the
                 * firmware's identity map (OVMF and most firmware: 2 MiB and 1 GiB) makes the
                 * whole buffer a handful of TLB entries. */
                *reason = "the firmware maps this buffer with 2 MiB or 1 GiB pages, so a 4 KiB "
                          "page-stride chase would not miss the dTLB";
                pmu_chase_free(ch);
                return ST_UNSUPPORTED;
        }
        struct bench_chain_cfg cfg = { .layout = BENCH_LAYOUT_RANDOM,
                                       .line_bytes = per_page ? PAGE_BYTES : LINE_BYTES,
                                       .seed = 0x70757063686173ull };
        if ((st = bench_chain_build(ch->buf, bytes, &cfg, &ch->p)) != ST_OK) {
                *reason = "building the chase chain failed";
                pmu_chase_free(ch);
                return st;
        }
        uint64_t n_ptrs = bytes / cfg.line_bytes;
        uint64_t loads  = n_ptrs < PMU_CHASE_MAX_LOADS ? n_ptrs : PMU_CHASE_MAX_LOADS;
        ch->iters = loads / BENCH_CHASE_UNROLL ? loads / BENCH_CHASE_UNROLL : 1;
        /* Warm-up lap: steady state, not the cold first touch. */
        uint64_t lap = n_ptrs / BENCH_CHASE_UNROLL;
        ch->p = bench_chase(ch->p, lap ? lap : 1);
        return ST_OK;
}

void pmu_chase_free(struct pmu_chase *ch)
{
        if (ch && ch->buf)
                plat_free_pages(ch->buf, ch->bytes);
        if (ch)
                *ch = (struct pmu_chase){ 0 };
}

void pmu_chase_step(void *arg)
{
        struct pmu_chase_run *r = arg;

        r->ch->p = bench_chase(r->ch->p, r->iters);
}
