/** @file
 * plat_alloc_pages_in() for the firmware build: pages at chosen physical addresses, for
 * buffers that must sit on one NUMA node. The free ranges are the EfiConventionalMemory
 * descriptors of the memory map; boot/memrange.c finds where the block fits inside the
 * window, and AllocatePages(AllocateAddress) claims it ([UEFI-2.10] §7.2 AllocatePages:
 * "AllocateAddress ... allocate pages at the address pointed to by Memory"; EFI_NOT_FOUND
 * when those pages are not free). UEFI runs identity-mapped, so the address is the pointer.
 */
#include "boot/uefi/uefi_priv.h"

#include "boot/memrange.h"

#define MAX_FREE      512u   /* free descriptors considered (a large server has ~200) */
#define MAX_TRIES     16u    /* candidates tried per alignment */

static struct mem_span free_spans[MAX_FREE];

static size_t free_ranges(void)
{
        UINTN                  count, key, desc_size;
        UINT32                 ver;
        EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&count, &key, &desc_size, &ver);
        size_t                 n   = 0;

        if (!map)
                return 0;
        for (UINTN i = 0; i < count && n < MAX_FREE; i++) {
                EFI_MEMORY_DESCRIPTOR *d = (void *)((char *)map + i * desc_size);
                if (d->Type == EfiConventionalMemory && (d->Attribute & EFI_MEMORY_WB))
                        free_spans[n++] = (struct mem_span){ d->PhysicalStart,
                                                             d->NumberOfPages * 4096 };
        }
        FreePool(map);
        return n;
}

status_t plat_alloc_pages_in(uint64_t base, uint64_t limit, size_t bytes, void **out,
                             uint64_t *largest)
{
        static const uint64_t aligns[] = { 2 * MiB, 4 * KiB };
        uint64_t              cand[MAX_TRIES];
        size_t                n_free, n_cand;
        status_t              st = ST_NOT_FOUND;

        if (!out || !bytes || bytes % (4 * KiB) || limit <= base)
                return ST_BAD_ARG;
        n_free = free_ranges();
        for (size_t a = 0; a < ARRAY_SIZE(aligns); a++) {
                st = memrange_candidates(free_spans, n_free, base, limit, bytes, aligns[a], cand,
                                         MAX_TRIES, &n_cand, largest);
                for (size_t i = 0; st == ST_OK && i < n_cand; i++) {
                        EFI_PHYSICAL_ADDRESS at = cand[i];
                        EFI_STATUS est = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
                                                           EfiLoaderData, bytes / (4 * KiB), &at);
                        if (EFI_ERROR(est) || at != cand[i])
                                continue;
                        memset((void *)(uintptr_t)at, 0, bytes);
                        *out = (void *)(uintptr_t)at;
                        return ST_OK;
                }
        }
        return st == ST_OK ? ST_NOT_FOUND : st;
}

status_t plat_node_info(unsigned k, uint32_t *id, uint8_t *dist, unsigned max, unsigned *n)
{
        (void)k;
        (void)id;
        (void)dist;
        (void)max;
        if (n)
                *n = 0;
        return ST_UNSUPPORTED; /* nodes come from SRAT, memory by physical address */
}

status_t plat_alloc_pages_on_node(uint32_t id, size_t bytes, enum plat_page_kind want,
                                  void **out, unsigned *n_checked)
{
        (void)id;
        (void)bytes;
        (void)want;
        *out = NULL;
        if (n_checked)
                *n_checked = 0;
        return ST_UNSUPPORTED;
}
