/** @file
 * Files on the volume the harness booted from, and pool/page memory, for the firmware build.
 * Paths arrive with '/' separators and are relative to the volume root.
 */
#include "boot/uefi/uefi_priv.h"

#define MAX_PATH 256

static EFI_FILE_HANDLE root;
static EFI_STATUS      root_status = EFI_NOT_STARTED;

void uefi_file_init(void)
{
        EFI_LOADED_IMAGE *li;
        EFI_GUID          guid = LOADED_IMAGE_PROTOCOL;

        root_status = uefi_call_wrapper(BS->HandleProtocol, 3, uefi_image, &guid, (void **)&li);
        if (EFI_ERROR(root_status))
                return;
        root = LibOpenRoot(li->DeviceHandle);
        root_status = root ? EFI_SUCCESS : EFI_NOT_FOUND;
}

static status_t to_char16(const char *path, CHAR16 *out, size_t cap)
{
        size_t n = strlen(path);

        if (n + 1 > cap)
                return ST_BAD_ARG;
        for (size_t i = 0; i <= n; i++)
                out[i] = path[i] == '/' ? L'\\' : (CHAR16)(unsigned char)path[i];
        return ST_OK;
}

/* Create every directory on the way to the file named by path (not the last component). */
static EFI_STATUS make_parents(const char *path)
{
        char   part[MAX_PATH];
        CHAR16 wpart[MAX_PATH];

        for (size_t i = 0; path[i]; i++) {
                if (path[i] != '/' || i == 0)
                        continue;
                if (i >= sizeof(part))
                        return EFI_INVALID_PARAMETER;
                memcpy(part, path, i);
                part[i] = 0;
                to_char16(part, wpart, MAX_PATH);
                EFI_FILE_HANDLE dir;
                EFI_STATUS      st = uefi_call_wrapper(root->Open, 5, root, &dir, wpart,
                                                       EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE |
                                                               EFI_FILE_MODE_CREATE,
                                                       EFI_FILE_DIRECTORY);
                if (EFI_ERROR(st))
                        return st;
                uefi_call_wrapper(dir->Close, 1, dir);
        }
        return EFI_SUCCESS;
}

/* Open @p path on the boot volume with @p mode; the one place that checks the volume and
 * converts the path. */
static status_t open_path(const char *path, UINT64 mode, EFI_FILE_HANDLE *f)
{
        CHAR16 wpath[MAX_PATH];

        if (!root)
                return uefi_status(root_status);
        if (to_char16(path, wpath, MAX_PATH) != ST_OK)
                return ST_BAD_ARG;
        return uefi_status(uefi_call_wrapper(root->Open, 5, root, f, wpath, mode, 0));
}

status_t plat_write_file(const char *path, const void *buf, size_t len)
{
        EFI_FILE_HANDLE f;
        EFI_STATUS      st;
        status_t        rc;

        if (!root)
                return uefi_status(root_status);
        st = make_parents(path);
        if (EFI_ERROR(st))
                return uefi_status(st);

        /* Replace, not overwrite in place: an old, longer file must not leave a tail. */
        if (open_path(path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, &f) == ST_OK)
                uefi_call_wrapper(f->Delete, 1, f);
        rc = open_path(path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, &f);
        if (rc != ST_OK)
                return rc;

        UINTN n = len;
        st      = uefi_call_wrapper(f->Write, 3, f, &n, (void *)buf);
        if (!EFI_ERROR(st) && n != len)
                st = EFI_VOLUME_FULL;
        if (!EFI_ERROR(st))
                st = uefi_call_wrapper(f->Flush, 1, f);
        if (EFI_ERROR(st)) {
                uefi_call_wrapper(f->Delete, 1, f); /* no truncated results file left behind */
                return uefi_status(st);
        }
        st = uefi_call_wrapper(f->Close, 1, f);
        return uefi_status(st);
}

status_t plat_read_file(const char *path, char **buf, size_t *len)
{
        EFI_FILE_HANDLE f;
        EFI_STATUS      st;
        status_t        rc;

        *buf = NULL;
        *len = 0;
        if ((rc = open_path(path, EFI_FILE_MODE_READ, &f)) != ST_OK)
                return rc;

        EFI_FILE_INFO *info = LibFileInfo(f);
        if (!info) {
                uefi_call_wrapper(f->Close, 1, f);
                return ST_IO;
        }
        UINTN size = info->FileSize;
        FreePool(info);
        char *p = plat_alloc(size + 1);
        if (!p) {
                uefi_call_wrapper(f->Close, 1, f);
                return ST_NO_MEM;
        }
        UINTN n = size;
        st      = uefi_call_wrapper(f->Read, 3, f, &n, p);
        uefi_call_wrapper(f->Close, 1, f);
        if (EFI_ERROR(st)) {
                plat_free(p);
                return uefi_status(st);
        }
        p[n] = 0;
        *buf = p;
        *len = n;
        return ST_OK;
}

status_t plat_file_exists(const char *path)
{
        EFI_FILE_HANDLE f;
        status_t        rc = open_path(path, EFI_FILE_MODE_READ, &f);

        if (rc == ST_OK)
                uefi_call_wrapper(f->Close, 1, f);
        return rc;
}

/* ---- memory ---- */

/* Pool memory is 8-byte aligned; keep 16 bytes in front for alignment and the original. */
void *plat_alloc(size_t bytes)
{
        void *raw;

        if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, bytes + 16, &raw)))
                return NULL;
        uintptr_t p = ((uintptr_t)raw + 16) & ~(uintptr_t)15;
        ((void **)p)[-1] = raw;
        memset((void *)p, 0, bytes);
        return (void *)p;
}

void plat_free(void *p)
{
        if (p)
                uefi_call_wrapper(BS->FreePool, 1, ((void **)p)[-1]);
}

static const uint64_t page_bytes[] = {
        [PLAT_PAGE_4K] = 4 * KiB,
        [PLAT_PAGE_2M] = 2 * MiB,
        [PLAT_PAGE_1G] = 1 * GiB,
};

/* The page size the live page tables (identity-mapped under UEFI) use for va. [SDM-3A]
 * "4-Level Paging": PS (bit 7) in a PDPTE maps 1 GiB, in a PDE 2 MiB. */
static enum plat_page_kind mapped_page_kind(uint64_t va)
{
        uint64_t cr3;
        __asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
        const uint64_t  addr_mask = 0x000ffffffffff000ull;
        const uint64_t *pml4      = (const uint64_t *)(cr3 & addr_mask);
        uint64_t        e         = pml4[(va >> 39) & 511];

        if (!(e & 1))
                return PLAT_PAGE_4K;
        e = ((const uint64_t *)(e & addr_mask))[(va >> 30) & 511];
        if ((e & 1) && (e & BIT_ULL(7)))
                return PLAT_PAGE_1G;
        if (!(e & 1))
                return PLAT_PAGE_4K;
        e = ((const uint64_t *)(e & addr_mask))[(va >> 21) & 511];
        if ((e & 1) && (e & BIT_ULL(7)))
                return PLAT_PAGE_2M;
        return PLAT_PAGE_4K;
}

status_t plat_alloc_pages(size_t bytes, enum plat_page_kind want, void **out,
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

        memset((void *)start, 0, bytes);
        *out = (void *)start;
        if (got) {
                /* The firmware's identity map decides; a smaller page anywhere in the buffer
                 * decides for the whole buffer. */
                enum plat_page_kind k = PLAT_PAGE_1G;
                for (uint64_t off = 0; off < bytes; off += 4 * KiB) {
                        enum plat_page_kind m = mapped_page_kind(start + off);
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

void plat_free_pages(void *p, size_t bytes)
{
        if (p)
                uefi_call_wrapper(BS->FreePages, 2, (EFI_PHYSICAL_ADDRESS)(uintptr_t)p,
                                  bytes / (4 * KiB));
}

status_t plat_mem_summary(struct plat_mem_summary *out)
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

status_t plat_mem_ranges(struct plat_mem_range *out, size_t max, size_t *n)
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

status_t plat_page_tables_load(uint64_t root_pa, uint64_t *saved)
{
        __asm__ volatile("mov %%cr3, %0" : "=r"(*saved));
        __asm__ volatile("mov %0, %%cr3" : : "r"(root_pa) : "memory");
        return ST_OK;
}

void plat_page_tables_restore(uint64_t saved)
{
        __asm__ volatile("mov %0, %%cr3" : : "r"(saved) : "memory");
}

uint64_t plat_virt_to_phys(const void *p)
{
        return (uint64_t)(uintptr_t)p; /* UEFI runs identity-mapped */
}
