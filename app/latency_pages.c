/** @file The latency buffer's page size and its own mapping (see latency_pages.h). The CR3
 *  switch follows the TLB phase (app/x86/tlb.c) and the dTLB check (app/pmu_validate_mem.c):
 *  load, flush where global pages or PCIDs could keep the firmware's translations, and on the
 *  way out load the firmware's CR3, flush again and read it back. */
#include "app/latency_pages.h"
#include "boot/cpu.h"

#include "bench/kernel_chase.h"
#include "bench/kernel_tlb.h"
#include "report/rep.h"

static uint64_t kind_bytes(enum plat_page_kind k)
{
        return k == PLAT_PAGE_1G ? BENCH_OWNPT_1G : k == PLAT_PAGE_2M ? BENCH_OWNPT_2M
                                                               : BENCH_OWNPT_4K;
}

/* ---- the window hooks: interrupts are masked; nothing here may allocate or print ---- */

static status_t enter(void *ctx)
{
        struct lat_pages *lp = ctx;
        status_t          st;

        if ((st = cpu_page_tables_load(bench_ownpt_root_pa(&lp->own), &lp->saved_cr3)) != ST_OK)
                return st;
        /* A CR3 load keeps global entries and, with PCIDs, other contexts' entries.
         * [SDM-3A] "Invalidation of TLBs and Paging-Structure Caches" */
        if (lp->flush)
                bench_tlb_flush_all();
        lp->n_windows++;
        return ST_OK;
}

static void leave(void *ctx)
{
        struct lat_pages *lp = ctx;

        cpu_page_tables_restore(lp->saved_cr3);
        if (lp->flush)
                bench_tlb_flush_all();
        if (bench_cr3_read() != lp->saved_cr3)
                lp->n_cr3_bad++;
}

/* Every page of the buffer walks to itself at the size asked, and what a window touches
 * while the tables are loaded (the kernel, the hooks, the stack, this struct and the hooks
 * struct in the sweep's info) translates to itself. */
static bool self_check(struct lat_pages *lp, void *buf, uint64_t bytes,
                       const struct bench_window_hooks *hooks)
{
        int             local = 0;
        const uintptr_t probes[] = {
                (uintptr_t)bench_chase, (uintptr_t)bench_chase_window, (uintptr_t)enter,
                (uintptr_t)leave, (uintptr_t)cpu_page_tables_restore,
                (uintptr_t)bench_tlb_flush_all, (uintptr_t)bench_cr3_read, (uintptr_t)&local,
                (uintptr_t)lp, (uintptr_t)hooks,
        };

        lp->checked  = true;
        lp->n_probes = ARRAY_SIZE(probes);
        lp->check_ok = bench_ownpt_check(&lp->own, buf, bytes, lp->page_bytes, &lp->n_walked) ==
                               ST_OK &&
                       lp->n_walked == lp->n_pages &&
                       bench_ownpt_identity_ok(&lp->own, probes, ARRAY_SIZE(probes));
        return lp->check_ok;
}

/* ---- public ---- */

enum plat_page_kind lat_pages_choose(enum config_pages want, enum plat_page_kind profile_page)
{
        switch (want) {
        case CONFIG_PAGES_4K: return PLAT_PAGE_4K;
        case CONFIG_PAGES_2M: return PLAT_PAGE_2M;
        case CONFIG_PAGES_AUTO: break;
        }
        return profile_page;
}

status_t lat_pages_remap(void *ctx, void *buf, uint64_t bytes, enum plat_page_kind want,
                         enum plat_page_kind got, struct bench_window_hooks *hooks)
{
        struct lat_pages *lp = ctx;
        uint64_t          irq, saved = 0;
        status_t          st;

        (void)got;
        lp->tried      = true;
        lp->page_bytes = kind_bytes(want);
        lp->n_pages    = bytes / lp->page_bytes;
        if (want != PLAT_PAGE_4K && want != PLAT_PAGE_2M) {
                lp->why = "the harness's own tables map the buffer with 4 KiB or 2 MiB pages only";
                return ST_UNSUPPORTED;
        }
        if (!lp->cpu) {
                lp->why = "no CPU description to build page tables for";
                return ST_UNSUPPORTED;
        }
        if (bench_ownpt_absent_why()) {
                lp->why = bench_ownpt_absent_why();
                return ST_UNSUPPORTED;
        }
        st = bench_ownpt_build_pages(&lp->own, lp->cpu, buf, bytes, lp->page_bytes);
        lp->built = st == ST_OK || bench_ownpt_n_table_pages(&lp->own);
        if (st != ST_OK) {
                lp->why = st == ST_UNSUPPORTED ? "this platform gives no memory map to build "
                                                 "the harness's own page tables from"
                                               : "building the harness's own page tables failed";
                return st;
        }
        if (!self_check(lp, buf, bytes, hooks)) {
                lp->why = "the own mapping failed its self-check";
                return ST_BAD_DATA;
        }
        /* Prove a CR3 load once, and read CR4 where that proved we run at CPL 0. */
        cpu_irq_disable(&irq);
        st = cpu_page_tables_load(bench_ownpt_root_pa(&lp->own), &saved);
        if (st == ST_OK) {
                lp->flush = bench_cr4_read() & (BENCH_CR4_PGE | BENCH_CR4_PCIDE);
                if (lp->flush)
                        bench_tlb_flush_all();
                cpu_page_tables_restore(saved);
                if (lp->flush)
                        bench_tlb_flush_all();
                if (bench_cr3_read() != saved)
                        lp->n_cr3_bad++;
        }
        cpu_irq_restore(irq);
        if (st != ST_OK) {
                lp->why = "CR3 cannot be loaded on this platform";
                return st;
        }
        *hooks = (struct bench_window_hooks){ .enter = enter, .leave = leave, .ctx = lp };
        return ST_OK;
}

void lat_pages_method(const struct lat_pages *lp, const struct bench_sweep_cfg *cfg,
                      const struct bench_sweep_info *in)
{
        const char *asked = bench_page_name(cfg->page), *fw = bench_page_name(in->page_got);
        const char *map   = lat_pages_tables_name(NULL);

        if (in->remapped)
                rep_info("pages: %s asked, %s in the firmware's identity map: windows ran with %s "
                         "pages through the harness page tables (%llu pages walked, %u table "
                         "pages, CR3 switched in %u windows%s)", asked, fw,
                         bench_page_name(in->page_used), (unsigned long long)lp->n_walked,
                         bench_ownpt_n_table_pages(&lp->own), lp->n_windows,
                         lp->flush ? ", TLB flushed at each switch" : "");
        else if (lp && lp->tried)
                rep_info("pages: %s asked, %s obtained (%s: %s, so the harness's own page "
                         "tables are not used)", asked, fw, map, lp->why ? lp->why : "not used");
        else if (in->page_got != cfg->page)
                rep_info("pages: %s asked, %s obtained (%s; latency_pages = auto: the harness's "
                         "own page tables are not used)", asked, fw, map);
        else
                rep_info("pages: %s asked, %s obtained (%s)", asked, fw, map);
}

void lat_pages_checks(const struct lat_pages *lp)
{
        if (!lp || !lp->checked)
                return;
        rep_check(lp->check_ok, "own page tables: %llu of %llu pages of the buffer walk to "
                  "themselves as %s pages, %llu harness addresses identity-mapped",
                  (unsigned long long)lp->n_walked, (unsigned long long)lp->n_pages,
                  lp->page_bytes == BENCH_OWNPT_2M ? "2 MiB" : "4 KiB",
                  (unsigned long long)lp->n_probes);
        if (lp->n_windows || lp->n_cr3_bad)
                rep_check(lp->n_cr3_bad == 0, "firmware CR3 restored after every window (%u "
                          "windows, %u differed)", lp->n_windows, lp->n_cr3_bad);
}

const char *lat_pages_tables_name(const struct bench_sweep_info *in)
{
        if (in && in->remapped)
                return "harness page tables";
        return plat_info()->page_tables ? plat_info()->page_tables : "firmware identity map";
}

void lat_pages_free(struct lat_pages *lp)
{
        if (!lp)
                return;
        bench_ownpt_free(&lp->own);
        lp->built = false;
}
