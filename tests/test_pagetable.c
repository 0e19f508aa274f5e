/** @file Tests for bench/x86/pagetable.c: the builder checked by the software walker and by an
 *  independent scan of the raw entries. Table pages live in aligned_alloc memory standing in
 *  for physical pages at a fake physical base, so a builder that dereferences a physical
 *  address directly crashes instead of passing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/x86/pagetable.h"

#define FAKE_PHYS_BASE 0x7ff00000000ull /* where the fake table pages "are" */
#define POOL_MAX       256

struct pool {
        void    *page[POOL_MAX];
        bool     used[POOL_MAX];
        unsigned limit; /* pages the allocator may hand out */
        unsigned n_alloc, n_free;
};

static status_t pool_alloc(void *ctx, uint64_t *pa)
{
        struct pool *p = ctx;

        for (unsigned i = 0; i < p->limit && i < POOL_MAX; i++) {
                if (p->used[i])
                        continue;
                if (!p->page[i])
                        p->page[i] = aligned_alloc(4096, 4096);
                memset(p->page[i], 0xa5, 4096); /* builder must zero it */
                p->used[i] = true;
                p->n_alloc++;
                *pa = FAKE_PHYS_BASE + (uint64_t)i * 4096;
                return ST_OK;
        }
        return ST_NO_MEM;
}

static void pool_free(void *ctx, uint64_t pa)
{
        struct pool *p = ctx;
        unsigned     i = (unsigned)((pa - FAKE_PHYS_BASE) / 4096);

        assert_true(i < POOL_MAX && p->used[i]);
        p->used[i] = false;
        p->n_free++;
}

static void *pool_virt(void *ctx, uint64_t pa)
{
        struct pool *p = ctx;
        uint64_t     i = (pa - FAKE_PHYS_BASE) / 4096;

        if (pa < FAKE_PHYS_BASE || i >= POOL_MAX || !p->used[i] || pa % 4096)
                return NULL;
        return p->page[i];
}

static struct pool pool;

static void new_tree(struct bench_pt *pt, bool gb, bool nx, unsigned limit)
{
        struct bench_pt_ops ops = { pool_alloc, pool_free, pool_virt, &pool };
        struct bench_pt_cfg cfg = { .pdpe1gb = gb, .nx = nx, .phys_bits = 46 };

        for (unsigned i = 0; i < POOL_MAX; i++)
                free(pool.page[i]);
        memset(&pool, 0, sizeof(pool));
        pool.limit = limit;
        assert_int_equal(bench_pt_init(pt, &ops, &cfg), ST_OK);
}

/* Independent oracle: total bytes mapped, by scanning raw entries (not using the walker). */
static uint64_t scan_bytes(const struct bench_pt *pt, uint64_t pa, unsigned lvl)
{
        const uint64_t *t = pool_virt(&pool, pa);
        uint64_t        sum = 0;

        assert_non_null(t);
        for (unsigned i = 0; i < 512; i++) {
                if (!(t[i] & PTE_P))
                        continue;
                if (lvl == 0 || (lvl < 3 && (t[i] & PTE_PS)))
                        sum += 1ull << (12 + 9 * lvl);
                else
                        sum += scan_bytes(pt, t[i] & 0x000ffffffffff000ull, lvl - 1);
        }
        return sum;
}

struct want {
        uint64_t va, pa, bytes, page, attrs;
};

/* Every page of every range resolves (first, middle, last byte); neighbours do not. */
static void check_mapped(const struct bench_pt *pt, const struct want *w, size_t n)
{
        uint64_t total = 0;

        for (size_t i = 0; i < n; i++) {
                for (uint64_t off = 0; off < w[i].bytes; off += w[i].page) {
                        static const uint64_t probe[] = { 0, 1, 0x777, ~0ull };
                        for (size_t k = 0; k < ARRAY_SIZE(probe); k++) {
                                uint64_t in = probe[k] == ~0ull ? w[i].page - 1
                                                                : probe[k] % w[i].page;
                                uint64_t pa = 0, sz = 0, fl = 0;
                                assert_int_equal(bench_pt_walk(pt, w[i].va + off + in, &pa, &sz,
                                                               &fl), ST_OK);
                                assert_int_equal(pa, w[i].pa + off + in);
                                assert_int_equal(sz, w[i].page);
                                assert_int_equal(fl, w[i].attrs);
                        }
                }
                total += w[i].bytes;
        }
        assert_int_equal(scan_bytes(pt, pt->root_pa, 3), total);
}

static void test_map_sizes(void **state)
{
        static const struct want w[] = {
                { 0x0000000000200000ull, 0x10000000ull, 16 * PT_4K, PT_4K, BENCH_PT_WRITE },
                { 0x00000000001ff000ull, 0x20000000ull, PT_4K, PT_4K, BENCH_PT_NX },
                { 0x0000000040000000ull, 0x40000000ull, 3 * PT_2M, PT_2M,
                  BENCH_PT_WRITE | BENCH_PT_NX | BENCH_PT_PCD | BENCH_PT_PWT },
                { 0x0000008000000000ull, 0x80000000ull, 2 * PT_1G, PT_1G, BENCH_PT_USER },
                { 0xffff800000000000ull, 0x00001000ull, PT_4K, PT_4K,
                  BENCH_PT_GLOBAL | BENCH_PT_WRITE },
                { 0x00007ffffffff000ull, 0x00002000ull, PT_4K, PT_4K, 0 },
        };
        struct bench_pt pt;

        new_tree(&pt, true, true, POOL_MAX);
        for (size_t i = 0; i < ARRAY_SIZE(w); i++)
                assert_int_equal(bench_pt_map(&pt, w[i].va, w[i].pa, w[i].bytes, w[i].page,
                                              w[i].attrs), ST_OK);
        check_mapped(&pt, w, ARRAY_SIZE(w));

        static const uint64_t outside[] = { 0, 0x1fe000, 0x210000, 0x3fffffff, 0x40600000,
                                            0x8000000000ull - 1, 0x8080000000ull,
                                            0xffff800000001000ull, 0xffffffffffffffffull };
        for (size_t i = 0; i < ARRAY_SIZE(outside); i++) {
                uint64_t pa;
                assert_int_equal(bench_pt_walk(&pt, outside[i], &pa, NULL, NULL), ST_NOT_FOUND);
        }
        bench_pt_destroy(&pt);
        assert_int_equal(pool.n_alloc, pool.n_free);
        (void)state;
}

static void test_unsupported(void **state)
{
        struct bench_pt pt;

        new_tree(&pt, false, false, POOL_MAX);
        assert_int_equal(bench_pt_map(&pt, PT_1G, PT_1G, PT_1G, PT_1G, 0), ST_UNSUPPORTED);
        assert_int_equal(bench_pt_map(&pt, 0, 0, PT_4K, PT_4K, BENCH_PT_NX), ST_UNSUPPORTED);
        assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), 0);
        /* The identity helper falls back to 2 MiB pages and drops NX. */
        struct bench_pt_range r = { PT_1G, PT_1G, BENCH_PT_NX | BENCH_PT_WRITE };
        assert_int_equal(bench_pt_identity_map(&pt, &r, 1, PT_1G), ST_OK);
        struct want w = { PT_1G, PT_1G, PT_1G, PT_2M, BENCH_PT_WRITE };
        check_mapped(&pt, &w, 1);
        bench_pt_destroy(&pt);
        (void)state;
}

static void test_exhaustion(void **state)
{
        struct bench_pt pt;

        /* PML4 + PDPT + PD + 2 PTs are needed for 513 pages; allow only 4 pages. */
        new_tree(&pt, true, true, 4);
        assert_int_equal(bench_pt_map(&pt, 0, 0, 513 * PT_4K, PT_4K, BENCH_PT_WRITE),
                         ST_NO_MEM);
        assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), 0); /* rolled back */
        pool.limit = 5;
        assert_int_equal(bench_pt_map(&pt, 0, 0, 513 * PT_4K, PT_4K, BENCH_PT_WRITE), ST_OK);
        assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), 513 * PT_4K);
        bench_pt_destroy(&pt);

        struct bench_pt_ops ops = { pool_alloc, pool_free, pool_virt, &pool };
        struct bench_pt_cfg cfg = { 0 };
        pool.limit = 0;
        assert_int_equal(bench_pt_init(&pt, &ops, &cfg), ST_NO_MEM);
        (void)state;
}

static void test_bad_args(void **state)
{
        static const struct {
                uint64_t va, pa, bytes, page, attrs;
        } bad[] = {
                { 0x1000, 0x1000, 0x1000, 0x800, 0 },             /* page size */
                { 0x1000, 0x1000, 0x1000, 3 * PT_4K, 0 },
                { 0x1800, 0x1000, 0x1000, PT_4K, 0 },             /* va misaligned */
                { 0x1000, 0x1800, 0x1000, PT_4K, 0 },             /* pa misaligned */
                { 0x1000, 0x1000, 0x1800, PT_4K, 0 },             /* bytes misaligned */
                { 0x1000, 0x1000, 0, PT_4K, 0 },                  /* empty */
                { 0x101000, 0x200000, PT_2M, PT_2M, 0 },          /* va not 2M-aligned */
                { 0x200000, 0x201000, PT_2M, PT_2M, 0 },          /* pa not 2M-aligned */
                { 0x0000800000000000ull, 0, PT_4K, PT_4K, 0 },    /* non-canonical */
                { 0x00007ffffffff000ull, 0, 2 * PT_4K, PT_4K, 0 },/* runs into the hole */
                { 0xfffffffffffff000ull, 0, 2 * PT_4K, PT_4K, 0 },/* wraps */
                { 0x1000, 1ull << 46, PT_4K, PT_4K, 0 },          /* beyond MAXPHYADDR */
                { 0x1000, 0x1000, PT_4K, PT_4K, 1u << 9 },        /* unknown attribute */
        };
        struct bench_pt pt;

        new_tree(&pt, true, true, POOL_MAX);
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
                assert_int_equal(bench_pt_map(&pt, bad[i].va, bad[i].pa, bad[i].bytes,
                                              bad[i].page, bad[i].attrs), ST_BAD_ARG);
        assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), 0);

        uint64_t pa;
        assert_int_equal(bench_pt_walk(NULL, 0, &pa, NULL, NULL), ST_BAD_ARG);
        assert_int_equal(bench_pt_walk(&pt, 0, NULL, NULL, NULL), ST_BAD_ARG);
        assert_int_equal(bench_pt_walk(&pt, 0x0000800000000000ull, &pa, NULL, NULL), ST_BAD_ARG);
        assert_int_equal(bench_pt_map(NULL, 0, 0, PT_4K, PT_4K, 0), ST_BAD_ARG);

        struct bench_pt_ops ops = { pool_alloc, pool_free, pool_virt, &pool };
        struct bench_pt_ops no_virt = { pool_alloc, pool_free, NULL, &pool };
        struct bench_pt_cfg cfg = { .phys_bits = 60 }, ok = { 0 };
        struct bench_pt     pt2;
        assert_int_equal(bench_pt_init(&pt2, &ops, &cfg), ST_BAD_ARG);
        assert_int_equal(bench_pt_init(&pt2, &no_virt, &ok), ST_BAD_ARG);
        assert_int_equal(bench_pt_init(&pt2, NULL, &ok), ST_BAD_ARG);
        assert_int_equal(bench_pt_attach(&pt2, &ops, &ok, 0x1234), ST_BAD_ARG);
        struct bench_pt_range r = { 0x1000, 0x1800, 0 };
        assert_int_equal(bench_pt_identity_map(&pt, &r, 1, PT_2M), ST_BAD_ARG);
        assert_int_equal(bench_pt_identity_map(&pt, NULL, 1, PT_2M), ST_BAD_ARG);
        assert_int_equal(bench_pt_identity_map(&pt, NULL, 0, PT_2M), ST_OK);
        bench_pt_destroy(&pt);
        (void)state;
}

static void test_overlap(void **state)
{
        static const struct {
                uint64_t va, bytes, page; /* second mapping; the first is 2M..4M with 4 KiB */
                status_t want;
        } cases[] = {
                { 0x200000, PT_4K, PT_4K, ST_BAD_ARG },           /* same page */
                { 0x3ff000, 2 * PT_4K, PT_4K, ST_BAD_ARG },       /* last page + next */
                { 0x1ff000, PT_4K, PT_4K, ST_OK },                /* just below */
                { 0x400000, PT_4K, PT_4K, ST_OK },                /* just above */
                { 0x200000, PT_2M, PT_2M, ST_BAD_ARG },           /* big page over small */
                { 0x000000, PT_1G, PT_1G, ST_BAD_ARG },
                { 0x400000, PT_2M, PT_2M, ST_OK },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct bench_pt pt;
                new_tree(&pt, true, true, POOL_MAX);
                assert_int_equal(bench_pt_map(&pt, 0x200000, 0x10000000, PT_2M, PT_4K, 0), ST_OK);
                assert_int_equal(bench_pt_map(&pt, cases[i].va, 0x40000000, cases[i].bytes,
                                              cases[i].page, 0), cases[i].want);
                uint64_t want_bytes = PT_2M + (cases[i].want == ST_OK ? cases[i].bytes : 0);
                assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), want_bytes);
                bench_pt_destroy(&pt);
        }

        /* Small page inside a big one, both ways round. */
        struct bench_pt pt;
        new_tree(&pt, true, true, POOL_MAX);
        assert_int_equal(bench_pt_map(&pt, PT_1G, 0, PT_1G, PT_1G, 0), ST_OK);
        assert_int_equal(bench_pt_map(&pt, PT_1G + PT_2M, 0, PT_4K, PT_4K, 0), ST_BAD_ARG);
        assert_int_equal(bench_pt_map(&pt, PT_1G + PT_2M, 0, PT_2M, PT_2M, 0), ST_BAD_ARG);
        /* A range enclosing the big page: refused when reaching it, earlier pages undone. */
        assert_int_equal(bench_pt_map(&pt, 0, 0, 2 * PT_1G, PT_2M, 0), ST_BAD_ARG);
        assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), PT_1G);
        /* Partial unmap of a large page is refused; whole unmap, then remap at 4 KiB works. */
        assert_int_equal(bench_pt_unmap(&pt, PT_1G, PT_2M), ST_BAD_ARG);
        assert_int_equal(bench_pt_unmap(&pt, PT_1G, PT_1G), ST_OK);
        assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), 0);
        assert_int_equal(bench_pt_map(&pt, PT_1G + PT_2M, 0, PT_4K, PT_4K, 0), ST_OK);
        assert_int_equal(bench_pt_unmap(&pt, PT_1G, PT_1G), ST_OK);
        /* The emptied page table is replaced by a 1 GiB leaf. */
        assert_int_equal(bench_pt_map(&pt, PT_1G, 0, PT_1G, PT_1G, 0), ST_OK);
        assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), PT_1G);
        bench_pt_destroy(&pt);
        assert_int_equal(pool.n_alloc, pool.n_free);
        (void)state;
}

static void test_identity(void **state)
{
        /* As a UEFI memory map would give them: adjacent, odd sizes, mixed attributes. */
        static const struct bench_pt_range r[] = {
                { 0x00000000, 0x000a0000, BENCH_PT_WRITE | BENCH_PT_NX },
                { 0x00100000, 0x3ff00000 + PT_1G + 0x00201000, BENCH_PT_WRITE },
                { 0x80201000, 0x00003000, 0 },
        };
        static const struct {
                uint64_t va, page, attrs;
        } probe[] = {
                { 0x0009f000, PT_4K, BENCH_PT_WRITE | BENCH_PT_NX },
                { 0x00100000, PT_4K, BENCH_PT_WRITE },
                { 0x001ff123, PT_4K, BENCH_PT_WRITE },
                { 0x00200000, PT_2M, BENCH_PT_WRITE },
                { 0x3fe00000, PT_2M, BENCH_PT_WRITE },
                { 0x40000000, PT_1G, BENCH_PT_WRITE },
                { 0x80000000, PT_2M, BENCH_PT_WRITE },
                { 0x80200000, PT_4K, BENCH_PT_WRITE },
                { 0x80203fff, PT_4K, 0 },
        };
        struct bench_pt pt;
        uint64_t        total = 0, pa, sz, fl;

        new_tree(&pt, true, true, POOL_MAX);
        assert_int_equal(bench_pt_identity_map(&pt, r, ARRAY_SIZE(r), PT_1G), ST_OK);
        for (size_t i = 0; i < ARRAY_SIZE(probe); i++) {
                assert_int_equal(bench_pt_walk(&pt, probe[i].va, &pa, &sz, &fl), ST_OK);
                assert_int_equal(pa, probe[i].va);
                assert_int_equal(sz, probe[i].page);
                assert_int_equal(fl, probe[i].attrs);
        }
        for (size_t i = 0; i < ARRAY_SIZE(r); i++)
                total += r[i].bytes;
        assert_int_equal(scan_bytes(&pt, pt.root_pa, 3), total);
        assert_int_equal(bench_pt_walk(&pt, 0xa0000, &pa, NULL, NULL), ST_NOT_FOUND);
        assert_int_equal(bench_pt_walk(&pt, 0x80204000, &pa, NULL, NULL), ST_NOT_FOUND);
        /* Overlapping descriptors are refused. */
        assert_int_equal(bench_pt_identity_map(&pt, &r[2], 1, PT_1G), ST_BAD_ARG);
        bench_pt_destroy(&pt);
        (void)state;
}

static void test_window_alias(void **state)
{
        struct bench_pt pt;
        uint64_t        va4, va2, vaa, pa, sz, fl;
        const uint64_t  pool_pa = 0x40000000;

        new_tree(&pt, true, true, POOL_MAX);
        /* The same 4 MiB of physical memory seen with 4 KiB and with 2 MiB pages. */
        assert_int_equal(bench_pt_window(&pt, pool_pa, 1024, 1024, PT_4K,
                                         BENCH_PT_WRITE | BENCH_PT_NX, &va4), ST_OK);
        assert_int_equal(bench_pt_window(&pt, pool_pa, 2, 2, PT_2M, BENCH_PT_WRITE, &va2),
                         ST_OK);
        assert_true(va4 >= BENCH_PT_WINDOW_BASE && va4 % PT_1G == 0 && va2 % PT_1G == 0);
        assert_true(va2 >= va4 + 4 * MiB);
        for (uint64_t off = 0; off < 4 * MiB; off += 0x3040) {
                assert_int_equal(bench_pt_walk(&pt, va4 + off, &pa, &sz, &fl), ST_OK);
                assert_int_equal(pa, pool_pa + off);
                assert_int_equal(sz, PT_4K);
                assert_int_equal(bench_pt_walk(&pt, va2 + off, &pa, &sz, &fl), ST_OK);
                assert_int_equal(pa, pool_pa + off);
                assert_int_equal(sz, PT_2M);
        }
        /* 100 virtual pages aliasing a pool of 3. */
        assert_int_equal(bench_pt_window(&pt, pool_pa, 3, 100, PT_4K, 0, &vaa), ST_OK);
        for (uint64_t i = 0; i < 100; i++) {
                assert_int_equal(bench_pt_walk(&pt, vaa + i * PT_4K + 8, &pa, NULL, NULL), ST_OK);
                assert_int_equal(pa, pool_pa + (i % 3) * PT_4K + 8);
        }
        assert_int_equal(bench_pt_walk(&pt, vaa + 100 * PT_4K, &pa, NULL, NULL), ST_NOT_FOUND);
        assert_int_equal(bench_pt_window(&pt, pool_pa, 4, 3, PT_4K, 0, &vaa), ST_BAD_ARG);
        assert_int_equal(bench_pt_window(&pt, pool_pa, 1, 1, PT_1G, 0, &vaa), ST_OK);
        assert_int_equal(bench_pt_window(&pt, pool_pa + 0x1000, 1, 1, PT_2M, 0, &vaa),
                         ST_BAD_ARG);
        bench_pt_destroy(&pt);
        (void)state;
}

static void test_walk_corrupt(void **state)
{
        struct bench_pt pt, view;
        uint64_t        pa, *t;
        unsigned        idx;

        new_tree(&pt, false, false, POOL_MAX);
        assert_int_equal(bench_pt_map(&pt, PT_2M, 0x600000, PT_2M, PT_2M, 0), ST_OK);
        assert_int_equal(bench_pt_walk(&pt, PT_2M + 5, &pa, NULL, NULL), ST_OK);
        assert_int_equal(pa, 0x600005);
        /* A foreign tree seen through attach walks the same. */
        assert_int_equal(bench_pt_attach(&view, &pt.ops, &pt.cfg, pt.root_pa), ST_OK);
        assert_int_equal(bench_pt_walk(&view, PT_2M + 5, &pa, NULL, NULL), ST_OK);
        assert_int_equal(pa, 0x600005);

        /* Find the PDE and flip reserved bits one by one. */
        uint64_t *pml4 = pool_virt(&pool, pt.root_pa);
        uint64_t *pdpt = pool_virt(&pool, pml4[0] & 0xffffffffff000ull);
        t   = pool_virt(&pool, pdpt[0] & 0xffffffffff000ull);
        idx = 1;
        static const uint64_t bad_bits[] = { BIT_ULL(13), BIT_ULL(20), BIT_ULL(47), PTE_XD };
        for (size_t i = 0; i < ARRAY_SIZE(bad_bits); i++) {
                t[idx] ^= bad_bits[i];
                assert_int_equal(bench_pt_walk(&pt, PT_2M, &pa, NULL, NULL), ST_BAD_DATA);
                t[idx] ^= bad_bits[i];
        }
        pml4[0] |= PTE_PS;
        assert_int_equal(bench_pt_walk(&pt, PT_2M, &pa, NULL, NULL), ST_BAD_DATA);
        pml4[0] &= ~PTE_PS;
        pdpt[0] |= PTE_PS; /* a 1 GiB leaf on a CPU without 1 GiB pages */
        assert_int_equal(bench_pt_walk(&pt, PT_2M, &pa, NULL, NULL), ST_BAD_DATA);
        pdpt[0] &= ~PTE_PS;
        uint64_t keep = pdpt[0];
        pdpt[0] = (keep & 0xfff) | 0x1000; /* table page the context cannot reach */
        assert_int_equal(bench_pt_walk(&pt, PT_2M, &pa, NULL, NULL), ST_BAD_DATA);
        pdpt[0] = keep;
        assert_int_equal(bench_pt_walk(&pt, PT_2M, &pa, NULL, NULL), ST_OK);
        bench_pt_destroy(&pt);
        (void)state;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_map_sizes),    cmocka_unit_test(test_unsupported),
                cmocka_unit_test(test_exhaustion),   cmocka_unit_test(test_bad_args),
                cmocka_unit_test(test_overlap),      cmocka_unit_test(test_identity),
                cmocka_unit_test(test_window_alias), cmocka_unit_test(test_walk_corrupt),
        };
        int rc = cmocka_run_group_tests(tests, NULL, NULL);

        for (unsigned i = 0; i < POOL_MAX; i++)
                free(pool.page[i]);
        return rc;
}
