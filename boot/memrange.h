/** @file
 * Range arithmetic for placing a buffer at chosen physical addresses: where inside a window
 * [base, limit) (a NUMA node's SRAT memory range) a block of a given size and alignment fits
 * in memory the platform's map says is free. Pure: the UEFI platform feeds it the free
 * (EfiConventionalMemory) descriptors and tries AllocatePages(AllocateAddress) at each
 * candidate; the test platform feeds it a synthetic map. Portable, no allocation.
 */
#ifndef PMUCAL_MEMRANGE_H
#define PMUCAL_MEMRANGE_H

#include "lib/base.h"
#include "lib/status.h"

/** A physical range: [base, base + bytes). Zero-length spans are allowed and ignored. */
struct mem_span {
        uint64_t base;
        uint64_t bytes;
};

/** Candidate addresses for a block of @p bytes aligned to @p align (a power of two) that lies
 *  inside [@p base, @p limit) and inside one free span of @p free (@p n spans, any order,
 *  may overlap or be empty): one per free span that can hold it, the highest aligned address
 *  of the intersection (firmware keeps low memory for itself), highest first. Writes at most
 *  @p max to @p out; *@p n_out gets how many were written. *@p largest (optional) receives
 *  the largest free intersection with the window in bytes, whatever its alignment, for the
 *  report when nothing fits. ST_NOT_FOUND when no candidate exists; ST_BAD_ARG for zero
 *  @p bytes, an @p align that is not a power of two, or @p limit <= @p base. */
status_t memrange_candidates(const struct mem_span *free, size_t n, uint64_t base,
                             uint64_t limit, uint64_t bytes, uint64_t align, uint64_t *out,
                             size_t max, size_t *n_out, uint64_t *largest);

/** Remove [@p base, @p base + @p bytes) from the @p *n spans of @p spans (room for @p max):
 *  a span it covers goes, one it cuts shrinks or splits in two. Returns the bytes removed;
 *  ST_NO_MEM through @p st (optional) when a split needed room beyond @p max (that span's
 *  upper part is then lost too, so the result never claims more than is left). */
uint64_t memrange_subtract(struct mem_span *spans, size_t *n, size_t max, uint64_t base,
                           uint64_t bytes, status_t *st);

/** True when [@p addr, @p addr + @p bytes) lies inside one span of @p spans. */
bool memrange_inside(const struct mem_span *spans, size_t n, uint64_t addr, uint64_t bytes);

#endif
