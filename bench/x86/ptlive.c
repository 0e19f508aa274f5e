/** @file The live page tables, attached for walks (see bench/x86/ptlive.h). */
#include "bench/x86/ptlive.h"

#include "bench/kernel_tlb.h"

/* CR4.LA57: 5-level paging, which the 4-level walker of bench/x86/pagetable.c cannot follow.
 * [SDM-3A] "Control Registers" */
#define CR4_LA57 BIT_ULL(12)

/* The firmware's page-table pages are reached through the identity map UEFI keeps on x64
 * ([UEFI-2.10] §2.3.4); the walk never allocates. */
static void *ident_phys(void *ctx, uint64_t pa)
{
        (void)ctx;
        return (void *)(uintptr_t)pa;
}

static status_t no_alloc(void *ctx, uint64_t *pa)
{
        (void)ctx;
        *pa = 0;
        return ST_NO_MEM;
}

/* MAXPHYADDR as CPUID decoded it; 36 where the CPU does not say ([SDM-3A] "4-Level
 * Paging": the width is at least 36 where CPUID.80000008H is missing). */
static uint8_t max_phys_bits(const struct cpu_info *cpu)
{
        return cpu && cpu->phys_addr_bits ? (uint8_t)cpu->phys_addr_bits : 36;
}

status_t bench_ptlive_attach(struct bench_pt *pt, const struct cpu_info *cpu, const char **why)
{
        static const struct bench_pt_ops ops = { .alloc_page = no_alloc,
                                                 .phys_to_virt = ident_phys };
        const struct bench_pt_cfg cfg = { .pdpe1gb = cpu && cpu->pdpe1gb, .nx = true,
                                          .phys_bits = max_phys_bits(cpu) };
        uint64_t root = bench_cr3_read() & ((1ull << cfg.phys_bits) - 1) & ~(uint64_t)0xfff;

        if (bench_cr4_read() & CR4_LA57) {
                *why = "5-level paging (CR4.LA57): the software walker is 4-level";
                return ST_UNSUPPORTED;
        }
        if (bench_pt_attach(pt, &ops, &cfg, root) != ST_OK) {
                *why = "CR3 does not hold a usable PML4 address";
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}
