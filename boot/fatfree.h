/** @file
 * Free clusters of a FAT volume counted in the file allocation table itself, and the FAT32
 * FSInfo free-cluster hint beside it. UEFI's FAT driver reports the FSInfo figure as the free
 * space when the sector's signatures are valid; a hint left stale by another system (it is
 * only ever a hint: [FAT] "FAT32 FSInfo Sector Structure", FSI_Free_Count) lets a full volume
 * look empty, and a folder created there takes no cluster. Portable: the caller supplies a
 * reader of the volume's bytes (the UEFI platform reads the partition through DiskIo; the
 * tests read an image in memory).
 *
 * [FAT] Microsoft Extensible Firmware Initiative FAT32 File System Specification, 1.03:
 *       "Boot Sector and BPB Structure", "FAT Type Determination", "FAT32 FSInfo Sector".
 */
#ifndef PMUCAL_FATFREE_H
#define PMUCAL_FATFREE_H

#include "lib/base.h"
#include "lib/status.h"

/** Reads @p len bytes at byte @p offset of the volume into @p buf; ST_OK or the read's error. */
typedef status_t (*fat_read_fn)(void *ctx, uint64_t offset, void *buf, size_t len);

struct fat_free {
        unsigned fat_bits;      /* 12, 16 or 32 ([FAT] "FAT Type Determination") */
        uint32_t cluster_bytes; /* bytes per sector x sectors per cluster */
        uint32_t clusters;      /* data clusters: FAT entries 2 .. clusters + 1 */
        uint32_t free_clusters; /* entries that read 0; a lower bound when capped */
        bool     capped;        /* counting stopped at the cap: at least free_clusters free */
        bool     hint_valid;    /* FAT32 with an FSInfo sector whose signatures and free
                                 * count are valid (not 0xFFFFFFFF, not above clusters) */
        uint32_t hint_free;     /* the FSInfo free count where hint_valid */
};

/** Parse the boot sector at offset 0 of the volume @p read reads, then count the FAT's free
 *  entries (the first FAT; entries 2 .. clusters + 1), stopping once @p cap are found (0: no
 *  cap). ST_BAD_DATA where the boot sector is not a FAT one (no 0x55AA, a sector size or
 *  cluster size that is not a power of two, no FAT), ST_IO and the like from @p read. */
status_t fat_count_free(fat_read_fn read, void *ctx, uint32_t cap, struct fat_free *out);

#endif
