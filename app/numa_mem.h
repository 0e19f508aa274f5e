/** @file
 * Buffers placed on one NUMA node (app/numa_mem.c): pages inside that proximity domain's
 * SRAT memory ranges (those present at boot: not hot-pluggable, not non-volatile; and not
 * where another domain's range overlaps, which makes the node of those addresses ambiguous),
 * at addresses the platform's memory map says are free
 * (plat_alloc_pages_in), with the physical address of every page checked afterwards. When a
 * placement fails the result says where and why: no memory in SRAT for the domain, no free
 * block of that size in its ranges (with the largest there was), a page outside the ranges,
 * or a platform that cannot choose physical addresses. Without SRAT the platform's own nodes
 * (hosted: Linux binds the pages to the node), or one node and the buffer goes wherever the
 * platform gives pages.
 */
#ifndef PMUCAL_APP_NUMA_MEM_H
#define PMUCAL_APP_NUMA_MEM_H

#include "boot/acpi.h"
#include "boot/plat.h"

struct numa_place {
        uint32_t pd;            /* proximity domain asked for */
        void    *p;             /* NULL unless st == ST_OK */
        size_t   bytes;
        uint64_t phys;          /* physical address of the first page (0: unknown) */
        unsigned n_pages_checked;
        bool     by_node;       /* bound to the platform's node (plat_alloc_pages_on_node) */
        status_t st;
        bool     memoryless;    /* SRAT gives the domain no memory present at boot */
        bool     lacking;       /* its ranges have no free block that large: the machine
                                 * lacks the memory (not a fault of the placement) */
        uint64_t absent_bytes;  /* hot-pluggable or non-volatile ranges, left out */
        uint64_t overlap_bytes; /* of its ranges, covered by another domain's too: left out */
        uint32_t overlap_pd;    /* the first such other domain */
        char     why[160];      /* st != ST_OK: where and why placement failed */
};

/** Place @p bytes (a multiple of 4 KiB) on proximity domain @p pd of @p srat (NULL: no SRAT,
 *  one node: any pages). @p out says what happened; returns out->st. */
status_t app_numa_place(const struct acpi_srat *srat, uint32_t pd, size_t bytes,
                        struct numa_place *out);
/** As app_numa_place, with pages of size @p page where no SRAT is read: bound to the
 *  platform's node @p pd where it places memory by node (hosted: plat_alloc_pages_on_node,
 *  every page's node read back), else any pages. */
status_t app_numa_place_pages(const struct acpi_srat *srat, uint32_t pd, size_t bytes,
                              enum plat_page_kind page, struct numa_place *out);
/** Free a placed buffer (nothing when placement failed). */
void app_numa_unplace(struct numa_place *pl);

#endif
