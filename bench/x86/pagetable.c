/** @file 4-level page-table builder and software walker (see pagetable.h). */
#include "bench/x86/pagetable.h"

/* Levels, counted from the leaf: 0 = PT (4 KiB), 1 = PD (2 MiB), 2 = PDPT (1 GiB), 3 = PML4.
 * Each level indexes 9 bits of the linear address above bit 12. [SDM-3A] "4-Level Paging". */
#define LVL_PT   0
#define LVL_PD   1
#define LVL_PDPT 2
#define LVL_PML4 3

#define VA_BITS  48

/* Upper-level entries: permissive, so the leaf decides. */
#define TABLE_BITS (PTE_P | PTE_RW | PTE_US | PTE_A)

static uint64_t level_bytes(unsigned lvl)
{
        return 1ull << (PTE_ADDR_SHIFT + 9 * lvl);
}

static unsigned level_index(uint64_t va, unsigned lvl)
{
        return (unsigned)(va >> (PTE_ADDR_SHIFT + 9 * lvl)) & (PT_ENTRIES - 1);
}

static int page_level(uint64_t page_bytes)
{
        switch (page_bytes) {
        case PT_4K: return LVL_PT;
        case PT_2M: return LVL_PD;
        case PT_1G: return LVL_PDPT;
        default: return -1;
        }
}

static unsigned phys_bits(const struct bench_pt *pt)
{
        return pt->cfg.phys_bits ? pt->cfg.phys_bits : 52;
}

/* Address bits (M-1):12 of an entry. */
static uint64_t addr_mask(const struct bench_pt *pt)
{
        return ((1ull << phys_bits(pt)) - 1) & ~(uint64_t)(PT_PAGE_BYTES - 1);
}

/* Bits that must be zero in a present entry at @lvl (leaf says whether PS=1 or a PTE). */
static uint64_t reserved_mask(const struct bench_pt *pt, unsigned lvl, bool leaf)
{
        uint64_t m = ((1ull << 52) - 1) & ~((1ull << phys_bits(pt)) - 1); /* 51:M */

        if (!pt->cfg.nx)
                m |= PTE_XD;
        if (leaf && lvl > LVL_PT)
                m |= (level_bytes(lvl) - 1) & ~(uint64_t)((PT_PAGE_BYTES - 1) | PTE_PAT_LARGE);
        return m;
}

static uint64_t *table(const struct bench_pt *pt, uint64_t pa)
{
        if (pa & (PT_PAGE_BYTES - 1))
                return NULL;
        return pt->ops.phys_to_virt(pt->ops.ctx, pa);
}

static uint64_t leaf_bits(uint64_t attrs, unsigned lvl)
{
        uint64_t e = PTE_P | PTE_A | PTE_D; /* A/D preset: no locked update in a timed lap */

        if (attrs & BENCH_PT_WRITE)
                e |= PTE_RW;
        if (attrs & BENCH_PT_USER)
                e |= PTE_US;
        if (attrs & BENCH_PT_PWT)
                e |= PTE_PWT;
        if (attrs & BENCH_PT_PCD)
                e |= PTE_PCD;
        if (attrs & BENCH_PT_GLOBAL)
                e |= PTE_G;
        if (attrs & BENCH_PT_NX)
                e |= PTE_XD;
        if (lvl > LVL_PT)
                e |= PTE_PS;
        return e;
}

static status_t new_table(struct bench_pt *pt, uint64_t *pa)
{
        uint64_t *t;
        status_t  st = pt->ops.alloc_page(pt->ops.ctx, pa);

        if (st != ST_OK)
                return st;
        if (*pa & ~addr_mask(pt) || !(t = table(pt, *pa)))
                return ST_BAD_DATA;
        memset(t, 0, PT_PAGE_BYTES);
        pt->n_table_pages++;
        return ST_OK;
}

/* True when the table at @pa (level @lvl) maps nothing, through all its sub-tables. */
static bool table_empty(const struct bench_pt *pt, uint64_t pa, unsigned lvl)
{
        const uint64_t *t = table(pt, pa);

        if (!t)
                return false;
        for (unsigned i = 0; i < PT_ENTRIES; i++) {
                if (!(t[i] & PTE_P))
                        continue;
                if (lvl == LVL_PT || (t[i] & PTE_PS) ||
                    !table_empty(pt, t[i] & addr_mask(pt), lvl - 1))
                        return false;
        }
        return true;
}

static void free_tree(struct bench_pt *pt, uint64_t pa, unsigned lvl)
{
        uint64_t *t = table(pt, pa);

        if (t && lvl > LVL_PT) {
                for (unsigned i = 0; i < PT_ENTRIES; i++)
                        if ((t[i] & PTE_P) && !(t[i] & PTE_PS))
                                free_tree(pt, t[i] & addr_mask(pt), lvl - 1);
        }
        if (pt->ops.free_page)
                pt->ops.free_page(pt->ops.ctx, pa);
        if (pt->n_table_pages)
                pt->n_table_pages--;
}

/* Descend to the entry at @va where the walk stops: a non-present entry, a leaf, or the
 * 4 KiB PTE. Returns a pointer to it and its level, NULL on a broken tree. */
static uint64_t *lookup(const struct bench_pt *pt, uint64_t va, unsigned *lvl_out)
{
        uint64_t *t = table(pt, pt->root_pa);

        for (unsigned lvl = LVL_PML4;; lvl--) {
                uint64_t *e;

                if (!t)
                        return NULL;
                e = &t[level_index(va, lvl)];
                if (!(*e & PTE_P) || lvl == LVL_PT ||
                    (lvl < LVL_PML4 && (*e & PTE_PS))) {
                        *lvl_out = lvl;
                        return e;
                }
                t = table(pt, *e & addr_mask(pt));
        }
}

/* Write one leaf of @lvl at @va; ST_BAD_ARG if something is mapped there already. */
static status_t map_one(struct bench_pt *pt, uint64_t va, uint64_t pa, unsigned leaf_lvl,
                        uint64_t attrs)
{
        uint64_t *t = table(pt, pt->root_pa);

        for (unsigned lvl = LVL_PML4; lvl > leaf_lvl; lvl--) {
                uint64_t *e = &t[level_index(va, lvl)];
                uint64_t  tpa;
                status_t  st;

                if (!(*e & PTE_P)) {
                        if ((st = new_table(pt, &tpa)) != ST_OK)
                                return st;
                        *e = tpa | TABLE_BITS;
                } else if (lvl < LVL_PML4 && (*e & PTE_PS)) {
                        return ST_BAD_ARG; /* inside a larger page */
                }
                if (!(t = table(pt, *e & addr_mask(pt))))
                        return ST_BAD_DATA;
        }
        uint64_t *e = &t[level_index(va, leaf_lvl)];
        if (*e & PTE_P) {
                bool is_table = leaf_lvl > LVL_PT && !(*e & PTE_PS);

                if (!is_table || !table_empty(pt, *e & addr_mask(pt), leaf_lvl - 1))
                        return ST_BAD_ARG;
                free_tree(pt, *e & addr_mask(pt), leaf_lvl - 1); /* left over by an unmap */
        }
        *e = pa | leaf_bits(attrs, leaf_lvl);
        return ST_OK;
}

/* Clear every leaf in [va, va + bytes); with @check, only verify none sticks out. */
static status_t clear_range(struct bench_pt *pt, uint64_t va, uint64_t bytes, bool check)
{
        uint64_t end = va + bytes;

        while (va < end) {
                unsigned  lvl;
                uint64_t *e    = lookup(pt, va, &lvl);
                uint64_t  size = level_bytes(lvl);
                uint64_t  base = va & ~(size - 1);

                if (!e)
                        return ST_BAD_DATA;
                if (*e & PTE_P) {
                        if (base < va || base + size > end)
                                return ST_BAD_ARG;
                        if (!check)
                                *e = 0;
                }
                if (base + size < base)
                        break; /* wrapped past the top */
                va = base + size;
        }
        return ST_OK;
}

static bool range_ok(const struct bench_pt *pt, uint64_t va, uint64_t bytes)
{
        uint64_t last = va + bytes - 1;

        return bytes && last >= va && bench_pt_canonical(va) && bench_pt_canonical(last) &&
               (va >> (VA_BITS - 1)) == (last >> (VA_BITS - 1));
}

static bool ops_ok(const struct bench_pt_ops *ops, const struct bench_pt_cfg *cfg)
{
        return ops && cfg && ops->alloc_page && ops->phys_to_virt &&
               (cfg->phys_bits == 0 || (cfg->phys_bits >= 32 && cfg->phys_bits <= 52));
}

/* ---- public ---- */

bool bench_pt_canonical(uint64_t va)
{
        uint64_t top = va >> (VA_BITS - 1);

        return top == 0 || top == (~0ull >> (VA_BITS - 1));
}

status_t bench_pt_attach(struct bench_pt *pt, const struct bench_pt_ops *ops,
                         const struct bench_pt_cfg *cfg, uint64_t root_pa)
{
        if (!pt || !ops_ok(ops, cfg) || (root_pa & (PT_PAGE_BYTES - 1)))
                return ST_BAD_ARG;
        memset(pt, 0, sizeof(*pt));
        pt->ops            = *ops;
        pt->cfg            = *cfg;
        pt->root_pa        = root_pa;
        pt->next_window_va = BENCH_PT_WINDOW_BASE;
        return ST_OK;
}

status_t bench_pt_init(struct bench_pt *pt, const struct bench_pt_ops *ops,
                       const struct bench_pt_cfg *cfg)
{
        status_t st = bench_pt_attach(pt, ops, cfg, 0);

        if (st != ST_OK)
                return st;
        return new_table(pt, &pt->root_pa);
}

void bench_pt_destroy(struct bench_pt *pt)
{
        if (!pt || !pt->ops.free_page || !table(pt, pt->root_pa))
                return;
        free_tree(pt, pt->root_pa, LVL_PML4);
        pt->root_pa = 0;
}

status_t bench_pt_map(struct bench_pt *pt, uint64_t va, uint64_t pa, uint64_t bytes,
                      uint64_t page_bytes, uint64_t attrs)
{
        int      lvl = page_level(page_bytes);
        uint64_t done;
        status_t st = ST_OK;

        if (!pt || lvl < 0 || (attrs & ~BENCH_PT_ATTRS))
                return ST_BAD_ARG;
        if ((va | pa | bytes) & (page_bytes - 1) || !range_ok(pt, va, bytes) ||
            pa + bytes < pa || pa + bytes - 1 > ((1ull << phys_bits(pt)) - 1))
                return ST_BAD_ARG;
        if ((lvl == LVL_PDPT && !pt->cfg.pdpe1gb) || ((attrs & BENCH_PT_NX) && !pt->cfg.nx))
                return ST_UNSUPPORTED;
        if ((st = clear_range(pt, va, bytes, true)) != ST_OK)
                return st; /* a mapped page sticks out of the range */
        for (done = 0; done < bytes; done += page_bytes) {
                if ((st = map_one(pt, va + done, pa + done, (unsigned)lvl, attrs)) != ST_OK)
                        break;
        }
        if (st != ST_OK && done)
                clear_range(pt, va, done, false);
        return st;
}

status_t bench_pt_unmap(struct bench_pt *pt, uint64_t va, uint64_t bytes)
{
        status_t st;

        if (!pt || (va | bytes) & (PT_PAGE_BYTES - 1) || !range_ok(pt, va, bytes))
                return ST_BAD_ARG;
        if ((st = clear_range(pt, va, bytes, true)) != ST_OK)
                return st;
        return clear_range(pt, va, bytes, false);
}

status_t bench_pt_identity_map(struct bench_pt *pt, const struct bench_pt_range *r, size_t n,
                               uint64_t max_page_bytes)
{
        static const uint64_t sizes[] = { PT_1G, PT_2M, PT_4K };

        if (!pt || (!r && n) || page_level(max_page_bytes) < 0)
                return ST_BAD_ARG;
        for (size_t i = 0; i < n; i++) {
                uint64_t base = r[i].base, end = r[i].base + r[i].bytes;
                uint64_t attrs = r[i].attrs;

                if ((base | r[i].bytes) & (PT_4K - 1) || !r[i].bytes || end < base)
                        return ST_BAD_ARG;
                if (!pt->cfg.nx)
                        attrs &= ~BENCH_PT_NX;
                while (base < end) {
                        uint64_t pg = PT_4K;
                        status_t st;

                        for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
                                if (sizes[k] > max_page_bytes ||
                                    (sizes[k] == PT_1G && !pt->cfg.pdpe1gb))
                                        continue;
                                if (!(base & (sizes[k] - 1)) && end - base >= sizes[k]) {
                                        pg = sizes[k];
                                        break;
                                }
                        }
                        if ((st = bench_pt_map(pt, base, base, pg, pg, attrs)) != ST_OK)
                                return st;
                        base += pg;
                }
        }
        return ST_OK;
}

status_t bench_pt_window(struct bench_pt *pt, uint64_t pool_pa, uint64_t pool_pages,
                         uint64_t n_pages, uint64_t page_bytes, uint64_t attrs, uint64_t *va)
{
        uint64_t base, i;
        status_t st = ST_OK;

        if (!pt || !va || !pool_pages || !n_pages || page_level(page_bytes) < 0 ||
            pool_pages > n_pages || n_pages > (1ull << 36) / (page_bytes >> 12))
                return ST_BAD_ARG;
        base = (pt->next_window_va + PT_1G - 1) & ~(PT_1G - 1);
        if (pool_pages == n_pages) {
                st = bench_pt_map(pt, base, pool_pa, n_pages * page_bytes, page_bytes, attrs);
        } else {
                for (i = 0; i < n_pages; i++) {
                        st = bench_pt_map(pt, base + i * page_bytes,
                                          pool_pa + (i % pool_pages) * page_bytes, page_bytes,
                                          page_bytes, attrs);
                        if (st != ST_OK)
                                break;
                }
                if (st != ST_OK && i)
                        clear_range(pt, base, i * page_bytes, false);
        }
        if (st != ST_OK)
                return st;
        *va                = base;
        pt->next_window_va = base + n_pages * page_bytes;
        return ST_OK;
}

status_t bench_pt_walk(const struct bench_pt *pt, uint64_t va, uint64_t *pa,
                       uint64_t *page_bytes, uint64_t *flags)
{
        const uint64_t *t;
        uint64_t        f = BENCH_PT_WRITE | BENCH_PT_USER;

        if (!pt || !pa)
                return ST_BAD_ARG;
        if (!bench_pt_canonical(va))
                return ST_BAD_ARG;
        t = table(pt, pt->root_pa);
        for (unsigned lvl = LVL_PML4;; lvl--) {
                uint64_t e;
                bool     leaf;

                if (!t)
                        return ST_BAD_DATA;
                e = t[level_index(va, lvl)];
                if (!(e & PTE_P))
                        return ST_NOT_FOUND;
                leaf = lvl == LVL_PT || (lvl < LVL_PML4 && (e & PTE_PS));
                if ((lvl == LVL_PML4 && (e & PTE_PS)) ||
                    (lvl == LVL_PDPT && leaf && !pt->cfg.pdpe1gb) ||
                    (e & reserved_mask(pt, lvl, leaf)))
                        return ST_BAD_DATA;
                if (!(e & PTE_RW))
                        f &= ~BENCH_PT_WRITE;
                if (!(e & PTE_US))
                        f &= ~BENCH_PT_USER;
                if (e & PTE_XD)
                        f |= BENCH_PT_NX;
                if (leaf) {
                        uint64_t size = level_bytes(lvl);

                        f |= (e & PTE_PWT ? BENCH_PT_PWT : 0) | (e & PTE_PCD ? BENCH_PT_PCD : 0) |
                             (e & PTE_G ? BENCH_PT_GLOBAL : 0);
                        *pa = (e & addr_mask(pt) & ~(size - 1)) | (va & (size - 1));
                        if (page_bytes)
                                *page_bytes = size;
                        if (flags)
                                *flags = f;
                        return ST_OK;
                }
                t = table(pt, e & addr_mask(pt));
        }
}
