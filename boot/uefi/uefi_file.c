/** @file
 * Files on the volume the harness booted from, for the firmware build (memory: uefi_mem.c).
 * Paths arrive with '/' separators and are relative to the volume root.
 */
#include "boot/fatfree.h"
#include "boot/uefi/uefi_priv.h"

#define MAX_PATH 256
#define NET_READ_MAX (1024 * 1024) /* the largest file read from the boot server */

static EFI_FILE_HANDLE root;
static EFI_HANDLE      root_device;
static EFI_STATUS      root_status = EFI_NOT_STARTED;

void uefi_file_init(EFI_HANDLE image)
{
        EFI_LOADED_IMAGE *li;
        EFI_GUID          guid = LOADED_IMAGE_PROTOCOL;

        root_status = uefi_call_wrapper(BS->HandleProtocol, 3, image, &guid, (void **)&li);
        if (EFI_ERROR(root_status))
                return;
        root_device = li->DeviceHandle;
        root        = LibOpenRoot(li->DeviceHandle);
        root_status = root ? EFI_SUCCESS : EFI_NOT_FOUND;
        if (!root)
                uefi_net_init(li->DeviceHandle);
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

/* Create every directory on the way to the file named by path (not the last component).
 * A directory is created only where the volume has a free cluster for it: on a full volume
 * EnhancedFatDxe (FatPkg, FatCreateDirEnt then the cluster for "." and "..") has been seen to
 * leave the new entry with start cluster 0, a directory that fsck deletes as pointing at the
 * root. */
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
                                                       EFI_FILE_MODE_READ, 0);
                if (st == EFI_NOT_FOUND) {
                        struct plat_volume_info v;
                        if (plat_volume_info(&v) == ST_OK && v.free_bytes < v.cluster_bytes)
                                return EFI_VOLUME_FULL;
                        st = uefi_call_wrapper(root->Open, 5, root, &dir, wpart,
                                               EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE |
                                                       EFI_FILE_MODE_CREATE,
                                               EFI_FILE_DIRECTORY);
                }
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

/* Delete the file or empty directory @p path. Delete closes the handle either way;
 * EFI_WARN_DELETE_FAILURE is a warning, not an error, but the file is still there.
 * [UEFI-2.10] EFI_FILE_PROTOCOL.Delete() */
static status_t remove_path(const char *path)
{
        EFI_FILE_HANDLE f;
        status_t        rc = open_path(path, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, &f);

        if (rc != ST_OK)
                return rc;
        EFI_STATUS st = uefi_call_wrapper(f->Delete, 1, f);
        return st == EFI_WARN_DELETE_FAILURE ? ST_IO : uefi_status(st);
}

status_t plat_file_write(const char *path, const void *buf, size_t len)
{
        EFI_FILE_HANDLE f;
        EFI_STATUS      st;
        status_t        rc;

        if (!root)
                return uefi_net_source() ? ST_UNSUPPORTED : uefi_status(root_status);
        if (!buf)
                return len ? ST_BAD_ARG : remove_path(path);
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

status_t plat_file_read(const char *path, char **buf, size_t *len)
{
        EFI_FILE_HANDLE f;
        EFI_STATUS      st;
        status_t        rc;

        *buf = NULL;
        *len = 0;
        if (!root && uefi_net_source())
                return uefi_net_read(path, NET_READ_MAX, buf, len);
        if ((rc = open_path(path, EFI_FILE_MODE_READ, &f)) != ST_OK)
                return rc;

        EFI_FILE_INFO *info = LibFileInfo(f);
        if (!info) {
                uefi_call_wrapper(f->Close, 1, f);
                return ST_IO;
        }
        UINTN size   = info->FileSize;
        bool  is_dir = info->Attribute & EFI_FILE_DIRECTORY;
        FreePool(info);
        if (is_dir) { /* Read would return its directory entries */
                uefi_call_wrapper(f->Close, 1, f);
                return ST_BAD_ARG;
        }
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

status_t plat_file_stat(const char *path, struct plat_file_info *out)
{
        EFI_FILE_HANDLE f;
        status_t        rc;

        *out = (struct plat_file_info){ .kind = PLAT_FILE_NONE };
        if (!root && uefi_net_source()) { /* TFTP has no stat: the size is what a read gets */
                char  *b;
                size_t n;
                if ((rc = uefi_net_read(path, NET_READ_MAX, &b, &n)) != ST_OK)
                        return rc;
                plat_free(b);
                *out = (struct plat_file_info){ .kind = PLAT_FILE_REGULAR, .size_bytes = n };
                return ST_OK;
        }
        rc = open_path(path, EFI_FILE_MODE_READ, &f);
        if (rc != ST_OK)
                return rc;
        EFI_FILE_INFO *info = LibFileInfo(f);
        uefi_call_wrapper(f->Close, 1, f);
        if (!info)
                return ST_IO;
        bool dir = (info->Attribute & EFI_FILE_DIRECTORY) != 0;
        *out     = (struct plat_file_info){ .kind       = dir ? PLAT_FILE_DIR : PLAT_FILE_REGULAR,
                                            .size_bytes = dir ? 0 : info->FileSize };
        FreePool(info);
        return ST_OK;
}

/* The device path of @p h as ASCII text ("PciRoot(0x0)/Pci(0x3,0x0)/HD(1,GPT,...)") in @p buf;
 * "?" where it has none. */
static const char *handle_path(EFI_HANDLE h, char *buf, size_t cap)
{
        EFI_DEVICE_PATH *dp = h ? DevicePathFromHandle(h) : NULL;
        CHAR16          *w  = dp ? DevicePathToStr(dp) : NULL;
        size_t           i  = 0;

        for (const CHAR16 *c = w; c && *c && i + 1 < cap; c++)
                buf[i++] = *c < 0x80 ? (char)*c : '?';
        if (!i && cap > 1)
                buf[i++] = '?';
        if (cap)
                buf[i] = 0;
        if (w)
                FreePool(w);
        return buf;
}

const char *uefi_boot_volume(void)
{
        static char name[160];

        if (!root)
                return NULL;
        if (!name[0] && root_device)
                handle_path(root_device, name, sizeof(name));
        return name[0] ? name : NULL;
}

/* [UEFI-2.10] LocateHandleBuffer(ByProtocol, EFI_SIMPLE_FILE_SYSTEM_PROTOCOL): every file
 * system but the boot volume, in the firmware's order. */
status_t plat_file_elsewhere(const char *path, char *where, size_t cap)
{
        CHAR16      wpath[MAX_PATH];
        EFI_HANDLE *h = NULL;
        UINTN       n = 0;
        EFI_GUID    fs_guid = FileSystemProtocol;
        status_t    rc = ST_NOT_FOUND;

        if (cap)
                where[0] = 0;
        if (to_char16(path, wpath, MAX_PATH) != ST_OK)
                return ST_BAD_ARG;
        /* Only the file systems the firmware has already connected: its boot manager
         * connects the devices of its boot order (OVMF those QEMU gives a bootindex).
         * ConnectController() on every PCI device would find more, but it starts drivers
         * (network, USB, storage option ROMs) that then stay loaded through the measurement,
         * on every run without a config of its own; pmucal changes nothing it cannot put
         * back. [UEFI-2.10] ConnectController() */
        if (EFI_ERROR(LibLocateHandle(ByProtocol, &fs_guid, NULL, &n, &h)))
                return ST_NOT_FOUND;
        for (UINTN i = 0; i < n && rc == ST_NOT_FOUND; i++) {
                if (h[i] == root_device)
                        continue;
                EFI_FILE_HANDLE vol = LibOpenRoot(h[i]), f;
                if (!vol)
                        continue;
                if (!EFI_ERROR(uefi_call_wrapper(vol->Open, 5, vol, &f, wpath, EFI_FILE_MODE_READ,
                                                 0))) {
                        uefi_call_wrapper(f->Close, 1, f);
                        handle_path(h[i], where, cap);
                        rc = ST_OK;
                }
                uefi_call_wrapper(vol->Close, 1, vol);
        }
        FreePool(h);
        return rc;
}

struct disk {
        EFI_DISK_IO *io;
        UINT32       media;
};

/* [UEFI-2.10] EFI_DISK_IO_PROTOCOL.ReadDisk: byte offsets on the partition. */
static status_t disk_read(void *ctx, uint64_t off, void *buf, size_t len)
{
        struct disk *d = ctx;
        return uefi_status(uefi_call_wrapper(d->io->ReadDisk, 5, d->io, d->media, off, len, buf));
}

/* Enough free clusters found in the FAT to stop counting: far more than a run's folder takes,
 * so only a (nearly) full volume has its whole FAT read. */
#define FAT_COUNT_CAP 65536u

/* The free clusters in the boot volume's FAT, where it is a FAT volume (FatPkg reports the
 * FSInfo hint as FreeSpace when the hint's signatures are valid, stale or not). False where
 * the volume cannot be read or is not FAT. */
static bool fat_free_count(struct fat_free *f)
{
        EFI_GUID      dio_guid = DiskIoProtocol, bio_guid = BlockIoProtocol;
        EFI_DISK_IO  *dio;
        EFI_BLOCK_IO *bio;

        if (!root_device ||
            EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, root_device, &dio_guid,
                                        (void **)&dio)) ||
            EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, root_device, &bio_guid,
                                        (void **)&bio)))
                return false;
        struct disk d = { .io = dio, .media = bio->Media->MediaId };
        return fat_count_free(disk_read, &d, FAT_COUNT_CAP, f) == ST_OK;
}

/* [UEFI-2.10] EFI_FILE_PROTOCOL.GetInfo with EFI_FILE_SYSTEM_INFO: ReadOnly, FreeSpace,
 * BlockSize (EnhancedFatDxe gives the cluster size there). FreeSpace is checked against the
 * FAT's own count: the smaller figure is the one a write can rely on. */
status_t plat_volume_info(struct plat_volume_info *out)
{
        struct fat_free f;

        *out = (struct plat_volume_info){ .free_bytes = UINT64_MAX };
        if (!root)
                return uefi_net_source() ? ST_UNSUPPORTED : uefi_status(root_status);
        EFI_FILE_SYSTEM_INFO *fs = LibFileSystemInfo(root);
        if (!fs)
                return ST_IO;
        *out = (struct plat_volume_info){ .free_bytes    = fs->FreeSpace,
                                          .cluster_bytes = fs->BlockSize,
                                          .read_only     = fs->ReadOnly != 0 };
        FreePool(fs);
        if (fat_free_count(&f) && !f.capped) {
                uint64_t counted = (uint64_t)f.free_clusters * f.cluster_bytes;
                if (counted < out->free_bytes) {
                        out->hint_stale      = true;
                        out->hint_free_bytes = out->free_bytes;
                        out->free_bytes      = counted;
                }
        }
        return ST_OK;
}
