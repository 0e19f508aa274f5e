/** @file The memory kernels of the validation suite: how big a chase buffer must be to miss
 *  a cache level or the dTLB on every load, and setting one up (see validate.h). The page
 *  chase needs the buffer mapped by 4 KiB pages; where the firmware uses 2 MiB / 1 GiB pages
 *  (OVMF and most firmware), it runs under the harness's own page tables (bench/ownpt.h, as
 *  the TLB phase does), with CR3 switched only around the counted region. */
#include "app/pmu_validate.h"
#include "boot/cpu.h"

#include "bench/chase_buf.h"
#include "bench/kernel_chase.h"
#include "bench/kernel_pmu.h"
#include "bench/kernel_tlb.h"
#include "bench/ownpt.h"

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

/* Entries of the largest data/unified TLB level for 4 KiB pages, by the one TLB-size rule
 * (cpu_tlb_entries: the STLB's leaf 0x18 rows add up); 0 if CPUID names none. */
static uint32_t dtlb_entries(const struct cpu_info *ci)
{
        unsigned types = 1u << TLB_DATA | 1u << TLB_UNIFIED | 1u << TLB_LOAD | 1u << TLB_STORE;
        uint32_t n     = 0;

        for (uint8_t level = 1; level <= 4; level++) {
                uint32_t e = cpu_tlb_entries(ci, level, types, TLB_PG_4K, NULL);
                if (e > n)
                        n = e;
        }
        return n;
}

status_t val_chase_plan(const struct cpu_info *ci, const struct val_check *c, uint64_t max_bytes,
                        uint64_t *bytes, const char **reason)
{
        uint64_t want;

        if (!ci || !c || !bytes || !reason)
                return ST_BAD_ARG;
        *bytes = 0;
        if (c->truth == TRUTH_PAGE_CHASE) {
                uint32_t n = dtlb_entries(ci);
                want = (uint64_t)(n ? n : VAL_PAGE_TLB_DEFAULT) * VAL_PAGE_OVERSIZE * PAGE_BYTES;
        } else if (c->truth == TRUTH_CHASE_MISSES) {
                const struct cpu_cache *k = cache_at(ci, c->level);
                if (!k) {
                        *reason = "CPUID reports no size for this cache level";
                        return ST_UNSUPPORTED;
                }
                want = k->size_bytes * VAL_CHASE_OVERSIZE;
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

/* One pointer per 4 KiB page only misses the dTLB if the pages are 4 KiB; the firmware's
 * identity map (OVMF and most firmware: 2 MiB and 1 GiB) makes the whole buffer a handful of
 * TLB entries. So map it again, by 4 KiB pages, in the harness's own tables, check every page
 * with the software walker and the addresses the counted window touches. */
static status_t own_tables(struct val_chase *ch, const struct cpu_info *ci, const char **reason)
{
        int      local = 0;
        status_t st;

        if (!ci) {
                *reason = "no CPU description to build 4 KiB page tables for";
                return ST_UNSUPPORTED;
        }
        if (bench_ownpt_absent_why()) {
                *reason = bench_ownpt_absent_why();
                return ST_UNSUPPORTED;
        }
        if (!(ch->own = plat_alloc(sizeof(*ch->own)))) {
                *reason = "no memory for the page-table bookkeeping";
                return ST_NO_MEM;
        }
        if ((st = bench_ownpt_build(ch->own, ci, ch->cb.buf, ch->cb.bytes)) != ST_OK) {
                *reason = st == ST_UNSUPPORTED
                                  ? "the firmware maps this buffer with 2 MiB or 1 GiB pages and "
                                    "this platform gives no memory map to build 4 KiB page "
                                    "tables from"
                                  : "building 4 KiB page tables over the chase buffer failed";
                return st;
        }
        const uintptr_t probes[] = {
                (uintptr_t)bench_pmu_measure, (uintptr_t)bench_chase,
                (uintptr_t)val_chase_step, (uintptr_t)cpu_page_tables_restore,
                (uintptr_t)bench_tlb_flush_all, (uintptr_t)&local, (uintptr_t)ch,
                (uintptr_t)ch->own, (uintptr_t)pmu_get_caps(),
        };
        if (bench_ownpt_check_4k(ch->own, ch->cb.buf, ch->cb.bytes, &ch->n_walked) != ST_OK ||
            ch->n_walked != ch->cb.bytes / PAGE_BYTES) {
                *reason = "not every page of the 4 KiB test mapping walks to itself";
                return ST_BAD_DATA;
        }
        if (!bench_ownpt_identity_ok(ch->own, probes, ARRAY_SIZE(probes))) {
                *reason = "the harness's own page tables do not identity-map its code, stack "
                          "or data";
                return ST_BAD_DATA;
        }
        return ST_OK;
}

status_t val_chase_setup(struct val_chase *ch, const struct cpu_info *ci, uint64_t bytes,
                         bool per_page, const char **reason)
{
        struct bench_chase_buf_cfg bc = {
                .bytes = bytes, .page = PLAT_PAGE_4K, .no_chain = true,
                .chain = { .layout = BENCH_LAYOUT_RANDOM,
                           .line_bytes = per_page ? PAGE_BYTES : LINE_BYTES,
                           .seed = 0x70757063686173ull },
        };
        status_t st;

        *ch = (struct val_chase){ 0 };
        if ((st = bench_chase_buf_create(&ch->cb, &bc)) != ST_OK) {
                *reason = "could not allocate the chase buffer";
                return st;
        }
        if (per_page && ch->cb.page_got != PLAT_PAGE_4K &&
            (st = own_tables(ch, ci, reason)) != ST_OK) {
                val_chase_free(ch);
                return st;
        }
        if ((st = bench_chase_buf_lay(&ch->cb, bytes, &bc.chain)) != ST_OK) {
                *reason = "building the chase chain failed";
                val_chase_free(ch);
                return st;
        }
        uint64_t loads = ch->cb.n_lines < VAL_CHASE_MAX_LOADS ? ch->cb.n_lines
                                                              : VAL_CHASE_MAX_LOADS;
        ch->iters = loads / BENCH_CHASE_UNROLL ? loads / BENCH_CHASE_UNROLL : 1;
        bench_chase_buf_lap(&ch->cb); /* steady state, not the cold first touch */
        return ST_OK;
}

void val_chase_free(struct val_chase *ch)
{
        if (!ch)
                return;
        if (ch->own) {
                bench_ownpt_free(ch->own);
                plat_free(ch->own);
        }
        bench_chase_buf_destroy(&ch->cb);
        *ch = (struct val_chase){ 0 };
}

status_t val_chase_enter(struct val_chase *ch)
{
        status_t st;

        if (!ch->own)
                return ST_OK;
        if ((st = cpu_page_tables_load(bench_ownpt_root_pa(ch->own), &ch->saved_cr3)) != ST_OK)
                return st;
        /* A CR3 load keeps global entries and, with PCIDs, other contexts' entries: toggle
         * CR4.PGE then, as the TLB phase does. CR4 is read here, where CR3 loads proved we
         * run at CPL 0. [SDM-3A] "Invalidation of TLBs and Paging-Structure Caches" */
        ch->flush = bench_cr4_read() & (BENCH_CR4_PGE | BENCH_CR4_PCIDE);
        if (ch->flush)
                bench_tlb_flush_all();
        return ST_OK;
}

void val_chase_leave(struct val_chase *ch)
{
        if (!ch->own)
                return;
        cpu_page_tables_restore(ch->saved_cr3);
        if (ch->flush)
                bench_tlb_flush_all();
        if (bench_cr3_read() != ch->saved_cr3)
                ch->n_cr3_bad++;
}

void val_chase_step(void *arg)
{
        struct val_chase_run *r = arg;

        r->ch->cb.start = bench_chase(r->ch->cb.start, r->iters);
}
