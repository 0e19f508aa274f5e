/* Free clusters counted in the FAT (boot/fatfree.c) on synthetic volumes built here from the
 * layout in the FAT specification: FAT32 with a stale FSInfo hint (the full volume that looked
 * empty), FAT16, FAT12's packed entries, the cap, and boot sectors that are not FAT ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/fatfree.h"

/* A volume of which only the first bytes (boot sector, FSInfo, FATs) are held; the rest reads
 * as zeros. */
struct vol {
        uint8_t *b;
        size_t   n;
        bool     fail;
};

static status_t vol_read(void *ctx, uint64_t off, void *buf, size_t len)
{
        struct vol *v = ctx;

        if (v->fail)
                return ST_IO;
        memset(buf, 0, len);
        if (off < v->n)
                memcpy(buf, v->b + off, v->n - off < len ? v->n - off : len);
        return ST_OK;
}

static void put16(uint8_t *p, uint32_t v)
{
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
        put16(p, v & 0xFFFF);
        put16(p + 2, v >> 16);
}

/* Boot sector: 512-byte sectors, 1 sector per cluster, @p rsv reserved, 2 FATs of @p fatsz
 * sectors, @p root root entries, @p total sectors. */
static struct vol make(uint32_t rsv, uint32_t fatsz, uint32_t root, uint32_t total, bool fat32)
{
        struct vol v = { .n = (size_t)(rsv + 2 * fatsz) * 512 };
        v.b          = calloc(1, v.n);
        assert_non_null(v.b);
        put16(v.b + 11, 512);
        v.b[13] = 1;
        put16(v.b + 14, rsv);
        v.b[16] = 2;
        put16(v.b + 17, root);
        if (fat32) {
                put32(v.b + 32, total);
                put32(v.b + 36, fatsz);
                put16(v.b + 48, 1); /* FSInfo in sector 1 */
        } else {
                put16(v.b + 19, total);
                put16(v.b + 22, fatsz);
        }
        v.b[510] = 0x55;
        v.b[511] = 0xAA;
        return v;
}

static void set_hint(struct vol *v, uint32_t free)
{
        uint8_t *s = v->b + 512;
        put32(s, 0x41615252u);
        put32(s + 484, 0x61417272u);
        put32(s + 488, free);
        put32(s + 492, 2);
        put32(s + 508, 0xAA550000u);
}

/* FAT32: 32 reserved sectors, 2 FATs of 600 sectors (153600 entries), 70000 clusters. */
#define F32_CLUSTERS 70000u
static struct vol fat32(void)
{
        struct vol v = make(32, 600, 0, 32 + 2 * 600 + F32_CLUSTERS, true);
        uint8_t   *fat = v.b + 32 * 512;
        for (uint32_t c = 0; c < F32_CLUSTERS + 2; c++)
                put32(fat + 4 * c, 0x0FFFFFFFu); /* every cluster in use */
        return v;
}

static void test_fat32_stale_hint(void **state)
{
        struct fat_free f;
        struct vol      v   = fat32();
        uint8_t        *fat = v.b + 32 * 512;
        (void)state;

        set_hint(&v, 60000);
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_OK);
        assert_int_equal(f.fat_bits, 32);
        assert_int_equal(f.clusters, F32_CLUSTERS);
        assert_int_equal(f.cluster_bytes, 512);
        assert_int_equal(f.free_clusters, 0);
        assert_false(f.capped);
        assert_true(f.hint_valid);
        assert_int_equal(f.hint_free, 60000);

        /* Entries 2 and the last are free; the top four bits of an entry are reserved
         * ([FAT]: a free entry is 0 in its low 28 bits) */
        put32(fat + 4 * 2, 0);
        put32(fat + 4 * (F32_CLUSTERS + 1), 0xF0000000u);
        /* an entry past the last cluster is not a cluster */
        put32(fat + 4 * (F32_CLUSTERS + 2), 0);
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_OK);
        assert_int_equal(f.free_clusters, 2);

        /* The cap stops the count early; reaching it on the last cluster is an exact count */
        assert_int_equal(fat_count_free(vol_read, &v, 1, &f), ST_OK);
        assert_int_equal(f.free_clusters, 1);
        assert_true(f.capped);
        assert_int_equal(fat_count_free(vol_read, &v, 2, &f), ST_OK);
        assert_int_equal(f.free_clusters, 2);
        assert_false(f.capped);

        /* FSInfo's "unknown" free count and a bad signature are no hint */
        set_hint(&v, 0xFFFFFFFFu);
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_OK);
        assert_false(f.hint_valid);
        set_hint(&v, 7);
        v.b[512 + 484] ^= 1;
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_OK);
        assert_false(f.hint_valid);
        free(v.b);
}

static void test_fat16(void **state)
{
        /* 4 reserved, 2 FATs of 20 sectors (5120 entries), 512 root entries (32 sectors),
         * 5000 clusters */
        struct vol      v = make(4, 20, 512, 4 + 40 + 32 + 5000, false);
        struct fat_free f;
        uint8_t        *fat = v.b + 4 * 512;
        (void)state;

        for (uint32_t c = 2; c < 5002; c++)
                put16(fat + 2 * c, c % 10 ? 0xFFFF : 0); /* one in ten free */
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_OK);
        assert_int_equal(f.fat_bits, 16);
        assert_int_equal(f.clusters, 5000);
        assert_int_equal(f.free_clusters, 500);
        assert_false(f.hint_valid);
        free(v.b);
}

static void test_fat12(void **state)
{
        /* 1 reserved, 2 FATs of 6 sectors (2048 entries), 224 root entries (14 sectors),
         * 2000 clusters */
        struct vol      v = make(1, 6, 224, 1 + 12 + 14 + 2000, false);
        struct fat_free f;
        uint8_t        *fat = v.b + 512;
        (void)state;

        /* all in use (0xFFF), then free 3 (odd: high 12 bits of its pair) and 4 (even) */
        memset(fat, 0xFF, 6 * 512);
        fat[4] &= 0x0F; /* cluster 3: bytes 4 (high nibble) and 5 */
        fat[5] = 0;
        fat[6] = 0; /* cluster 4: byte 6 and the low nibble of 7 */
        fat[7] &= 0xF0;
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_OK);
        assert_int_equal(f.fat_bits, 12);
        assert_int_equal(f.clusters, 2000);
        assert_int_equal(f.free_clusters, 2);
        free(v.b);
}

static void test_not_fat(void **state)
{
        struct vol      v = fat32();
        struct fat_free f;
        (void)state;

        v.fail = true;
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_IO);
        v.fail   = false;
        v.b[511] = 0;
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_BAD_DATA);
        v.b[511] = 0xAA;
        v.b[13]  = 3; /* sectors per cluster not a power of two */
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_BAD_DATA);
        v.b[13] = 1;
        put32(v.b + 36, 10); /* a FAT far too small for 70000 clusters */
        assert_int_equal(fat_count_free(vol_read, &v, 0, &f), ST_BAD_DATA);
        free(v.b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fat32_stale_hint),
                cmocka_unit_test(test_fat16),
                cmocka_unit_test(test_fat12),
                cmocka_unit_test(test_not_fat),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
