/** @file
 * The harness's own x86-64 4-level page tables ([SDM-3A] "Paging", 4-level paging; [APM-2]
 * "Long-Mode Page Translation"): a builder that maps ranges with 4 KiB, 2 MiB and 1 GiB pages
 * into page-table pages obtained from a caller-supplied allocator, and a software walker.
 *
 * Page-table pages are addressed physically, as the processor addresses them. The caller says
 * how to get one (UEFI AllocatePages in the firmware, aligned_alloc in the tests) and how to
 * reach physical address @c pa through a pointer (identity in the firmware, a lookup in the
 * tests). The builder never switches CR3: it hands bench_pt.root_pa to boot/, which loads it
 * inside a measurement window and restores the firmware's CR3 afterwards.
 *
 * Upper-level entries are written permissive (present, writable, user, executable) and the
 * leaf carries the attributes, so the effective rights of a page are those of its leaf.
 * Portable: no UEFI types, no allocation of its own.
 */
#ifndef PMUCAL_BENCH_PAGETABLE_H
#define PMUCAL_BENCH_PAGETABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"
#include "lib/status.h"

/* Entry bits shared by PML4E, PDPTE, PDE and PTE. [SDM-3A] Tables 4-14..4-20 (4-level paging). */
#define PTE_P            BIT_ULL(0)  /* present */
#define PTE_RW           BIT_ULL(1)  /* read/write */
#define PTE_US           BIT_ULL(2)  /* user/supervisor */
#define PTE_PWT          BIT_ULL(3)  /* page-level write-through */
#define PTE_PCD          BIT_ULL(4)  /* page-level cache disable */
#define PTE_A            BIT_ULL(5)  /* accessed */
#define PTE_D            BIT_ULL(6)  /* dirty (leaf only) */
#define PTE_PS           BIT_ULL(7)  /* page size: PDPTE maps 1 GiB, PDE maps 2 MiB; PML4E: reserved */
#define PTE_G            BIT_ULL(8)  /* global (leaf only, CR4.PGE) */
#define PTE_PAT_LARGE    BIT_ULL(12) /* PAT bit of a PS=1 entry (bit 7 in a 4 KiB PTE) */
#define PTE_XD           BIT_ULL(63) /* execute-disable; reserved unless IA32_EFER.NXE = 1 */
/* Address field: bits (M-1):12 of a table reference or 4 KiB PTE; (M-1):21 of a 2 MiB PDE and
 * (M-1):30 of a 1 GiB PDPTE, the bits below being PAT and reserved-zero. M = MAXPHYADDR. */
#define PTE_ADDR_SHIFT   12
#define PT_ENTRIES       512u
#define PT_PAGE_BYTES    4096u

/* Page sizes the builder maps. */
#define PT_4K (4ull * KiB)
#define PT_2M (2ull * MiB)
#define PT_1G (1ull * GiB)

/* Attributes, as the caller asks for them (not hardware bits). */
#define BENCH_PT_WRITE BIT_ULL(0) /* writable */
#define BENCH_PT_NX    BIT_ULL(1) /* no instruction fetch (needs bench_pt_cfg.nx) */
#define BENCH_PT_USER  BIT_ULL(2) /* CPL 3 may access */
#define BENCH_PT_PWT   BIT_ULL(3) /* write-through */
#define BENCH_PT_PCD   BIT_ULL(4) /* cache disable */
#define BENCH_PT_GLOBAL BIT_ULL(5)
#define BENCH_PT_ATTRS (BENCH_PT_WRITE | BENCH_PT_NX | BENCH_PT_USER | BENCH_PT_PWT | \
                        BENCH_PT_PCD | BENCH_PT_GLOBAL)

/* Where bench_pt_window() places test windows: 64 TiB, far above any identity-mapped RAM,
 * inside the lower canonical half (bit 47 clear). */
#define BENCH_PT_WINDOW_BASE 0x0000400000000000ull

/** How the builder gets and reaches page-table pages. */
struct bench_pt_ops {
        /** Allocate one 4 KiB-aligned page for a table and return its physical address in
         *  @p *pa; ST_NO_MEM when none is left. Need not be zeroed. */
        status_t (*alloc_page)(void *ctx, uint64_t *pa);
        /** Give a table page back (bench_pt_destroy); may be NULL when pages are never freed. */
        void (*free_page)(void *ctx, uint64_t pa);
        /** A pointer through which the 4 KiB page at physical @p pa is read and written;
         *  NULL if @p pa is not a page this context knows. */
        void *(*phys_to_virt)(void *ctx, uint64_t pa);
        void *ctx;
};

/** What the CPU supports, as the caller found out from CPUID. */
struct bench_pt_cfg {
        bool    pdpe1gb;   /* CPUID.80000001H:EDX[26]: 1 GiB pages */
        bool    nx;        /* CPUID.80000001H:EDX[20] and the caller sets IA32_EFER.NXE */
        uint8_t phys_bits; /* MAXPHYADDR, CPUID.80000008H:EAX[7:0]; 0 means 52 */
};

/** One page-table tree. Fill it with bench_pt_init() or bench_pt_attach(). */
struct bench_pt {
        uint64_t            root_pa;        /* the PML4: what CR3 bits 51:12 get */
        struct bench_pt_ops ops;
        struct bench_pt_cfg cfg;
        uint64_t            next_window_va; /* bench_pt_window()'s bump pointer */
        uint32_t            n_table_pages;  /* allocated by this builder */
};

/** One range of an identity map, as a UEFI memory map descriptor gives it: @p base and
 *  @p bytes in bytes (4 KiB multiples), @p attrs BENCH_PT_* bits. */
struct bench_pt_range {
        uint64_t base;
        uint64_t bytes;
        uint64_t attrs;
};

/** Start an empty tree: allocates the PML4 through @p ops. ST_BAD_ARG on NULL callbacks or
 *  phys_bits outside 32..52, ST_NO_MEM when the allocator has nothing. */
status_t bench_pt_init(struct bench_pt *pt, const struct bench_pt_ops *ops,
                       const struct bench_pt_cfg *cfg);

/** Wrap an existing tree rooted at @p root_pa (the firmware's CR3 & ~0xfff) for
 *  bench_pt_walk() only; nothing is allocated. */
status_t bench_pt_attach(struct bench_pt *pt, const struct bench_pt_ops *ops,
                         const struct bench_pt_cfg *cfg, uint64_t root_pa);

/** Free every table page of @p pt through ops.free_page (which must be set); the tree is
 *  unusable afterwards. Pages mapped by the tree are the caller's and are not touched. */
void bench_pt_destroy(struct bench_pt *pt);

/** Map [@p va, @p va + @p bytes) to [@p pa, ...) with pages of @p page_bytes (PT_4K, PT_2M,
 *  PT_1G) and @p attrs (BENCH_PT_*). va, pa and bytes must be multiples of page_bytes, the
 *  range canonical and below 2^MAXPHYADDR physically (else ST_BAD_ARG). ST_UNSUPPORTED for
 *  1 GiB pages without cfg.pdpe1gb or NX without cfg.nx. ST_BAD_ARG too when any page of the
 *  range is already mapped (at any size). On any error the leaves this call wrote are removed
 *  again (emptied table pages stay allocated). */
status_t bench_pt_map(struct bench_pt *pt, uint64_t va, uint64_t pa, uint64_t bytes,
                      uint64_t page_bytes, uint64_t attrs);

/** Remove the leaves covering [@p va, @p va + @p bytes); each must lie wholly inside the range
 *  (ST_BAD_ARG otherwise, with nothing removed). Unmapped holes inside the range are fine.
 *  The caller flushes the TLB (reload CR3 or INVLPG) if the tree is live. */
status_t bench_pt_unmap(struct bench_pt *pt, uint64_t va, uint64_t bytes);

/** Identity-map (va = pa) the @p n ranges of @p r, each with its attrs, using the largest page
 *  (up to @p max_page_bytes; 1 GiB only with cfg.pdpe1gb) that is aligned and fits inside the
 *  range. NX is dropped silently when cfg.nx is false: it is protection, not the purpose. */
status_t bench_pt_identity_map(struct bench_pt *pt, const struct bench_pt_range *r, size_t n,
                               uint64_t max_page_bytes);

/** Map a new virtual window onto physical memory for a measurement: @p n_pages virtual pages
 *  of @p page_bytes each, page i backed by pool page (i mod @p pool_pages) of the physically
 *  contiguous pool at @p pool_pa (pool_pages = n_pages: a plain window; fewer: an alias, so
 *  that many TLB entries share few cache lines). The window's address goes to @p *va; it is
 *  1 GiB-aligned and placed above BENCH_PT_WINDOW_BASE. The same pool may be windowed again
 *  with another page size. */
status_t bench_pt_window(struct bench_pt *pt, uint64_t pool_pa, uint64_t pool_pages,
                         uint64_t n_pages, uint64_t page_bytes, uint64_t attrs, uint64_t *va);

/** Translate @p va like the processor would: physical address to @p *pa, the size of the
 *  page that maps it to @p *page_bytes and its effective BENCH_PT_* attributes to @p *flags
 *  (writable and user only if every level allows, NX if any level forbids). page_bytes and
 *  flags may be NULL. ST_NOT_FOUND when not present, ST_BAD_ARG for a non-canonical @p va,
 *  ST_BAD_DATA for a reserved bit set or a table page ops cannot reach. */
status_t bench_pt_walk(const struct bench_pt *pt, uint64_t va, uint64_t *pa,
                       uint64_t *page_bytes, uint64_t *flags);

/** True when @p va is canonical for 48-bit linear addresses (bits 63:47 all equal). */
bool bench_pt_canonical(uint64_t va);

#endif
