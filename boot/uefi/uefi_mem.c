/** @file
 * Memory for the firmware build: pool memory for the heap, whole pages for measurement
 * buffers (plat_mem_alloc) and the firmware memory map (plat_mem_map), the same on every
 * architecture; the page size a buffer is mapped with and the switch to the harness's own
 * page tables are the architecture's (boot/uefi/x86/uefi_excl.c, boot/uefi/arm64/uefi_arm64.c).
 */
#include "boot/uefi/uefi_priv.h"

/* Pool memory is 8-byte aligned; keep 16 bytes in front for alignment and the original. */
static void *heap_alloc(size_t bytes)
{
        void *raw;

        if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, bytes + 16, &raw)))
                return NULL;
        uintptr_t p = ((uintptr_t)raw + 16) & ~(uintptr_t)15;
        ((void **)p)[-1] = raw;
        memset((void *)p, 0, bytes);
        return (void *)p;
}

static void heap_free(void *p)
{
        if (p)
                uefi_call_wrapper(BS->FreePool, 1, ((void **)p)[-1]);
}

/* Zero a measurement buffer with the firmware's SetMem: GNU-EFI's memset stores one byte at a
 * time, which under QEMU TCG costs seconds for the tens of MiB a sweep asks for (EDK II's
 * BaseMemoryLib writes words or cache lines). [UEFI] 7.4 EFI_BOOT_SERVICES.SetMem(). */
static void zero_pages(void *p, size_t bytes)
{
        uefi_call_wrapper(BS->SetMem, 3, p, (UINTN)bytes, 0);
}

static const uint64_t page_bytes[] = {
        [PLAT_PAGE_4K] = 4 * KiB,
        [PLAT_PAGE_2M] = 2 * MiB,
        [PLAT_PAGE_1G] = 1 * GiB,
};

static status_t pages_alloc(size_t bytes, enum plat_page_kind want, void **out,
                            enum plat_page_kind *got)
{
        if (!bytes || bytes % (4 * KiB) || (unsigned)want > PLAT_PAGE_1G)
                return ST_BAD_ARG;
        uint64_t align = page_bytes[want];
        UINTN    pages = (bytes + align) / (4 * KiB);
        EFI_PHYSICAL_ADDRESS base;
        EFI_STATUS st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData,
                                          pages, &base);
        if (EFI_ERROR(st))
                return uefi_status(st);

        /* Give back the slack before and after the aligned block. */
        uint64_t start = (base + align - 1) & ~(align - 1);
        uint64_t head  = (start - base) / (4 * KiB);
        uint64_t tail  = pages - head - bytes / (4 * KiB);
        if (head)
                uefi_call_wrapper(BS->FreePages, 2, base, head);
        if (tail)
                uefi_call_wrapper(BS->FreePages, 2, start + bytes, tail);

        zero_pages((void *)start, bytes);
        *out = (void *)start;
        if (got) {
                /* The firmware's identity map decides; a smaller page anywhere in the buffer
                 * decides for the whole buffer. */
                enum plat_page_kind k = PLAT_PAGE_1G;
                for (uint64_t off = 0; off < bytes; off += 4 * KiB) {
                        enum plat_page_kind m = uefi_mapped_page_kind(start + off);
                        if (m < k)
                                k = m;
                        if (k == PLAT_PAGE_4K)
                                break;
                        off += page_bytes[m] - 4 * KiB;
                }
                *got = k;
        }
        return ST_OK;
}

static void pages_free(void *p, size_t bytes)
{
        if (p)
                uefi_call_wrapper(BS->FreePages, 2, (EFI_PHYSICAL_ADDRESS)(uintptr_t)p,
                                  bytes / (4 * KiB));
}

static status_t mem_summary(struct plat_mem_summary *out)
{
        UINTN                  n, key, desc_size;
        UINT32                 ver;
        EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&n, &key, &desc_size, &ver);

        *out = (struct plat_mem_summary){ 0 };
        if (!map)
                return ST_NO_MEM;
        for (UINTN i = 0; i < n; i++) {
                EFI_MEMORY_DESCRIPTOR *d     = (void *)((char *)map + i * desc_size);
                uint64_t               bytes = d->NumberOfPages * 4096;
                switch (d->Type) {
                case EfiConventionalMemory:
                        out->conventional_bytes += bytes;
                        out->total_bytes += bytes;
                        break;
                case EfiLoaderCode:
                case EfiLoaderData:
                case EfiBootServicesCode:
                case EfiBootServicesData:
                case EfiRuntimeServicesCode:
                case EfiRuntimeServicesData:
                case EfiACPIReclaimMemory:
                case EfiACPIMemoryNVS:
                        out->total_bytes += bytes;
                        break;
                case EfiReservedMemoryType:
                case EfiUnusableMemory:
                        out->reserved_bytes += bytes;
                        break;
                default: /* MMIO, port space, PAL code: not RAM */
                        break;
                }
        }
        out->n_descriptors = (uint32_t)n;
        FreePool(map);
        return ST_OK;
}

static status_t mem_ranges(struct plat_mem_range *out, size_t max, size_t *n)
{
        UINTN                  count, key, desc_size;
        UINT32                 ver;
        EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&count, &key, &desc_size, &ver);
        size_t                 k   = 0;
        status_t               st  = ST_OK;

        *n = 0;
        if (!map)
                return ST_NO_MEM;
        for (UINTN i = 0; i < count; i++) {
                EFI_MEMORY_DESCRIPTOR *d = (void *)((char *)map + i * desc_size);
                struct plat_mem_range  r = {
                         .base     = d->PhysicalStart,
                         .bytes    = d->NumberOfPages * 4096,
                         .uncached = !(d->Attribute & EFI_MEMORY_WB),
                         .code     = d->Type == EfiLoaderCode || d->Type == EfiBootServicesCode ||
                                 d->Type == EfiRuntimeServicesCode,
                };
                switch (d->Type) {
                case EfiMemoryMappedIO:
                case EfiMemoryMappedIOPortSpace:
                        r.kind = PLAT_MEM_MMIO;
                        break;
                case EfiReservedMemoryType:
                case EfiUnusableMemory:
                case EfiACPIMemoryNVS:
                case EfiPalCode:
                        r.kind = PLAT_MEM_RESERVED;
                        break;
                default:
                        r.kind = PLAT_MEM_RAM;
                        break;
                }
                struct plat_mem_range *prev = k ? &out[k - 1] : NULL;
                if (prev && k <= max && prev->base + prev->bytes == r.base &&
                    prev->kind == r.kind && prev->uncached == r.uncached &&
                    prev->code == r.code) {
                        prev->bytes += r.bytes;
                        continue;
                }
                if (k < max)
                        out[k] = r;
                else
                        st = ST_NO_MEM;
                k++;
        }
        FreePool(map);
        *n = k;
        return st;
}

status_t plat_mem_alloc(size_t bytes, enum plat_page_kind want, void **out,
                        enum plat_page_kind *got)
{
        if (!out)
                return ST_BAD_ARG;
        *out = NULL;
        if (want == PLAT_PAGE_HEAP) {
                if (got)
                        *got = PLAT_PAGE_HEAP;
                return (*out = heap_alloc(bytes ? bytes : 1)) ? ST_OK : ST_NO_MEM;
        }
        return pages_alloc(bytes, want, out, got);
}

void plat_mem_free(void *p, size_t bytes)
{
        if (!bytes)
                heap_free(p);
        else
                pages_free(p, bytes);
}

status_t plat_mem_map(struct plat_mem_summary *sum, struct plat_mem_range *out, size_t max,
                      size_t *n)
{
        status_t st = ST_OK;

        if (sum && (st = mem_summary(sum)) != ST_OK)
                return st;
        if (out)
                st = mem_ranges(out, max, n);
        else if (n)
                *n = 0;
        return st;
}

uint64_t plat_virt_to_phys(const void *p)
{
        return (uint64_t)(uintptr_t)p; /* UEFI runs identity-mapped */
}
