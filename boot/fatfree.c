/** @file
 * Free clusters counted in the FAT: see fatfree.h.
 */
#include "boot/fatfree.h"

/* The FAT is read in chunks of this many bytes: a multiple of every entry size (FAT12 is read
 * whole: at most 4084 entries of 1.5 bytes). */
#define CHUNK 65536u

static uint8_t chunk[CHUNK];

static uint32_t le16(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
        return le16(p) | le16(p + 2) << 16;
}

static bool pow2(uint32_t v)
{
        return v && !(v & (v - 1));
}

/* [FAT] FSInfo: FSI_LeadSig 0x41615252 at 0, FSI_StrucSig 0x61417272 at 484, FSI_Free_Count
 * at 488, FSI_TrailSig 0xAA550000 at 508. */
static void read_hint(fat_read_fn read, void *ctx, uint64_t at, struct fat_free *out)
{
        uint8_t s[512];

        if (read(ctx, at, s, sizeof(s)) != ST_OK)
                return;
        if (le32(s) != 0x41615252u || le32(s + 484) != 0x61417272u ||
            le32(s + 508) != 0xAA550000u)
                return;
        uint32_t n = le32(s + 488);
        if (n == 0xFFFFFFFFu || n > out->clusters)
                return;
        out->hint_valid = true;
        out->hint_free  = n;
}

status_t fat_count_free(fat_read_fn read, void *ctx, uint32_t cap, struct fat_free *out)
{
        uint8_t  bs[512];
        status_t st;

        *out = (struct fat_free){ 0 };
        if ((st = read(ctx, 0, bs, sizeof(bs))) != ST_OK)
                return st;
        /* [FAT] "Boot Sector and BPB Structure" */
        uint32_t bps = le16(bs + 11), spc = bs[13], rsv = le16(bs + 14), nfats = bs[16];
        uint32_t root_ents = le16(bs + 17), tot = le16(bs + 19), fatsz = le16(bs + 22);
        if (bs[510] != 0x55 || bs[511] != 0xAA || bps < 512 || bps > 4096 || !pow2(bps) ||
            !pow2(spc) || rsv == 0 || nfats == 0)
                return ST_BAD_DATA;
        if (!tot)
                tot = le32(bs + 32);
        if (!fatsz)
                fatsz = le32(bs + 36);
        uint64_t root_secs = ((uint64_t)root_ents * 32 + bps - 1) / bps;
        uint64_t meta      = rsv + (uint64_t)nfats * fatsz + root_secs;
        if (!fatsz || meta >= tot)
                return ST_BAD_DATA;
        uint64_t clusters = (tot - meta) / spc;
        /* [FAT] "FAT Type Determination": by the count of clusters alone */
        unsigned bits = clusters < 4085 ? 12 : clusters < 65525 ? 16 : 32;
        if ((bits == 32 && root_ents) || clusters > 0x0FFFFFF5u)
                return ST_BAD_DATA;
        uint64_t fat_bytes = (uint64_t)fatsz * bps;
        if ((clusters + 2) * bits / 8 > fat_bytes)
                return ST_BAD_DATA; /* a FAT too small for its clusters */
        out->fat_bits      = bits;
        out->cluster_bytes = bps * spc;
        out->clusters      = (uint32_t)clusters;
        if (bits == 32 && le16(bs + 48) != 0 && le16(bs + 48) != 0xFFFF && le16(bs + 48) < rsv)
                read_hint(read, ctx, (uint64_t)le16(bs + 48) * bps, out);

        uint64_t fat_at = (uint64_t)rsv * bps, last = clusters + 1;
        if (bits == 12) {
                size_t n = (size_t)((last + 1) * 3 / 2 + 1);
                if ((st = read(ctx, fat_at, chunk, n)) != ST_OK)
                        return st;
                for (uint64_t c = 2; c <= last; c++) {
                        uint32_t v = le16(chunk + c * 3 / 2);
                        v          = c & 1 ? v >> 4 : v & 0xFFF;
                        if (!v && ++out->free_clusters == cap && c < last) {
                                out->capped = true;
                                break;
                        }
                }
                return ST_OK;
        }
        unsigned per  = bits / 8;
        uint64_t end  = (last + 1) * per; /* bytes of the FAT that hold entries 0 .. last */
        for (uint64_t off = 0; off < end && !out->capped; off += CHUNK) {
                size_t n = (size_t)(end - off < CHUNK ? end - off : CHUNK);
                if ((st = read(ctx, fat_at + off, chunk, n)) != ST_OK)
                        return st;
                for (size_t i = 0; i < n; i += per) {
                        uint64_t c = (off + i) / per;
                        if (c < 2)
                                continue;
                        uint32_t v = bits == 16 ? le16(chunk + i) : le32(chunk + i) & 0x0FFFFFFFu;
                        if (!v && ++out->free_clusters == cap && c < last) {
                                out->capped = true;
                                break;
                        }
                }
        }
        return ST_OK;
}
