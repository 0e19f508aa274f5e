/** @file x86-64's own page tables for a measurement (see bench/ownpt.h): 4-level tables
 *  (bench/x86/pagetable.c) over the firmware's memory map. */
#include "bench/ownpt.h"

#include "lib/log.h"

#define MAX_RANGES 512u
#define LOW_4G     (4 * GiB)

/* ---- page-table page allocator: bump allocation from plat_alloc_pages chunks ---- */

static status_t alloc_page(void *vctx, uint64_t *pa)
{
        struct bench_ownpt *o = vctx;

        if (!o->n_chunks || o->used == BENCH_OWNPT_CHUNK_PAGES) {
                void    *p;
                status_t st;
                if (o->n_chunks == BENCH_OWNPT_MAX_CHUNKS)
                        return ST_NO_MEM;
                if ((st = plat_alloc_pages(BENCH_OWNPT_CHUNK_PAGES * PT_PAGE_BYTES, PLAT_PAGE_4K,
                                           &p, NULL)) != ST_OK)
                        return st;
                o->chunk[o->n_chunks++] = p;
                o->used                 = 0;
        }
        *pa = plat_virt_to_phys(o->chunk[o->n_chunks - 1] + (size_t)o->used++ * PT_PAGE_BYTES);
        return ST_OK;
}

static void *phys_to_virt(void *vctx, uint64_t pa)
{
        (void)vctx;
        return (void *)(uintptr_t)pa; /* the firmware runs identity-mapped */
}

/* ---- the identity map ---- */

static uint64_t range_attrs(const struct plat_mem_range *m)
{
        /* No NX anywhere: the firmware's data allocations may hold code it jumps to, and the
         * iTLB chain runs from a data buffer. No user bit: SMEP/SMAP would fault on it. */
        if (m->kind == PLAT_MEM_MMIO || m->uncached)
                return BENCH_PT_WRITE | BENCH_PT_PCD | BENCH_PT_PWT;
        return BENCH_PT_WRITE;
}

static status_t add_range(struct bench_pt_range *out, size_t *k, uint64_t base, uint64_t bytes,
                          uint64_t attrs)
{
        if (*k == MAX_RANGES)
                return ST_NO_MEM;
        out[(*k)++] = (struct bench_pt_range){ .base = base, .bytes = bytes, .attrs = attrs };
        return ST_OK;
}

/* Take [f0, f1) out of the @p *k ranges (sorted, disjoint): a range that holds all of it is
 * split in two (the array has room for one more than MAX_RANGES); otherwise ranges holding
 * part of it are cut and ranges inside it dropped. */
static void carve(struct bench_pt_range *r, size_t *k, uint64_t f0, uint64_t f1)
{
        size_t n = 0;

        for (size_t i = 0; i < *k; i++) {
                uint64_t e = r[i].base + r[i].bytes;
                if (r[i].base < f0 && e > f1) {
                        for (size_t j = *k; j > i + 1; j--)
                                r[j] = r[j - 1];
                        r[i + 1] = (struct bench_pt_range){ .base = f1, .bytes = e - f1,
                                                            .attrs = r[i].attrs };
                        r[i].bytes = f0 - r[i].base;
                        (*k)++;
                        return;
                }
        }
        for (size_t i = 0; i < *k; i++) { /* in place: n <= i */
                struct bench_pt_range x = r[i];
                uint64_t              e = x.base + x.bytes;
                if (e > f0 && x.base < f1) {
                        if (x.base >= f0 && e <= f1)
                                continue;
                        if (x.base < f0)
                                x.bytes = f0 - x.base;
                        else
                                x = (struct bench_pt_range){ .base = f1, .bytes = e - f1,
                                                             .attrs = x.attrs };
                }
                r[n++] = x;
        }
        *k = n;
}

static uint8_t phys_bits(const struct cpu_info *c)
{
        return c->phys_addr_bits ? c->phys_addr_bits : 36; /* 0: a cpu_info not decoded */
}

/* Identity-map the memory map, plus the holes below 4 GiB as uncached (local APIC, I/O APIC,
 * flash, PCI BARs such as the frame buffer are mapped by the firmware but often absent from
 * its memory map), leaving [f0, f1) out. */
static status_t identity(struct bench_ownpt *o, uint64_t f0, uint64_t f1)
{
        static struct plat_mem_range  m[MAX_RANGES];
        static struct bench_pt_range  ranges[MAX_RANGES + 1]; /* + 1: carve's split */
        size_t                        n = 0, k = 0;
        uint64_t                      at = 0;
        status_t                      st;
        const uint64_t                hole = BENCH_PT_WRITE | BENCH_PT_PCD | BENCH_PT_PWT;

        if ((st = plat_mem_map(NULL, m, MAX_RANGES / 2, &n)) != ST_OK)
                return st;
        for (size_t i = 1; i < n; i++) { /* UEFI does not promise a sorted map */
                struct plat_mem_range v = m[i];
                size_t                j = i;
                for (; j && m[j - 1].base > v.base; j--)
                        m[j] = m[j - 1];
                m[j] = v;
        }
        for (size_t i = 0; i < n && st == ST_OK; i++) {
                if (m[i].base < at)
                        return log_err(ST_BAD_DATA, "memory map: range at %#llx overlaps",
                                       (unsigned long long)m[i].base);
                if (m[i].base > at && m[i].base <= LOW_4G)
                        st = add_range(ranges, &k, at, m[i].base - at, hole);
                else if (m[i].base > at && at < LOW_4G)
                        st = add_range(ranges, &k, at, LOW_4G - at, hole);
                if (st == ST_OK)
                        st = add_range(ranges, &k, m[i].base, m[i].bytes, range_attrs(&m[i]));
                at = m[i].base + m[i].bytes;
        }
        if (st == ST_OK && at < LOW_4G)
                st = add_range(ranges, &k, at, LOW_4G - at, hole);
        if (st == ST_OK && f1 > f0)
                carve(ranges, &k, f0, f1);
        if (st == ST_OK)
                st = bench_pt_identity_map(&o->pt, ranges, k, PT_1G);
        o->n_map = n;
        return st;
}

static const char *page_name(uint64_t page_bytes)
{
        return page_bytes == PT_2M ? "2 MiB" : page_bytes == PT_4K ? "4 KiB" : "odd-sized";
}

/* ---- public ---- */

const char *bench_ownpt_absent_why(void)
{
        return NULL;
}

status_t bench_ownpt_build(struct bench_ownpt *o, const struct cpu_info *cpu, const void *fine,
                           uint64_t fine_bytes)
{
        return bench_ownpt_build_pages(o, cpu, fine, fine_bytes, PT_4K);
}

status_t bench_ownpt_build_pages(struct bench_ownpt *o, const struct cpu_info *cpu,
                                 const void *fine, uint64_t fine_bytes, uint64_t page_bytes)
{
        struct bench_pt_ops ops = { .alloc_page = alloc_page, .phys_to_virt = phys_to_virt,
                                    .ctx = o };
        struct bench_pt_cfg cfg = { .pdpe1gb = cpu->pdpe1gb, .nx = false,
                                    .phys_bits = phys_bits(cpu) };
        uint64_t            f0 = (uint64_t)(uintptr_t)fine, f1 = f0 + fine_bytes;
        status_t            st;

        *o = (struct bench_ownpt){ 0 };
        if (page_bytes != PT_4K && page_bytes != PT_2M)
                return log_err(ST_BAD_ARG, "own page tables: %llu-byte pages asked (4 KiB or "
                               "2 MiB)", (unsigned long long)page_bytes);
        if (fine_bytes && (f0 % page_bytes || fine_bytes % page_bytes ||
                           plat_virt_to_phys(fine) != f0))
                return log_err(ST_BAD_ARG, "%s mapping of %#llx (%llu bytes): not an "
                               "identity-mapped buffer aligned to its pages", page_name(page_bytes),
                               (unsigned long long)f0, (unsigned long long)fine_bytes);
        if ((st = bench_pt_init(&o->pt, &ops, &cfg)) != ST_OK)
                return log_err(st, "starting the page tables");
        if ((st = identity(o, f0, f1)) != ST_OK) {
                if (st != ST_UNSUPPORTED)
                        log_err(st, "identity-mapping the firmware's memory map");
                return st;
        }
        if (fine_bytes &&
            (st = bench_pt_map(&o->pt, f0, f0, fine_bytes, page_bytes, BENCH_PT_WRITE)) != ST_OK)
                return log_err(st, "mapping %#llx (%llu bytes) with %s pages",
                               (unsigned long long)f0, (unsigned long long)fine_bytes,
                               page_name(page_bytes));
        return ST_OK;
}

void bench_ownpt_free(struct bench_ownpt *o)
{
        if (!o)
                return;
        for (unsigned i = 0; i < o->n_chunks; i++)
                plat_free_pages(o->chunk[i], BENCH_OWNPT_CHUNK_PAGES * PT_PAGE_BYTES);
        *o = (struct bench_ownpt){ 0 };
}

status_t bench_ownpt_check_4k(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                              uint64_t *n_walked)
{
        return bench_ownpt_check(o, buf, bytes, PT_4K, n_walked);
}

status_t bench_ownpt_check(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                           uint64_t page_bytes, uint64_t *n_walked)
{
        uint64_t base = (uint64_t)(uintptr_t)buf;

        *n_walked = 0;
        if (page_bytes != PT_4K && page_bytes != PT_2M)
                return ST_BAD_ARG;
        for (uint64_t off = 0; off < bytes; off += page_bytes) {
                /* an address inside the page, not its first byte: a walker that dropped the
                 * offset bits would still map the base right */
                uint64_t pa, sz, fl, va = base + off + page_bytes / 2 + 64;
                status_t st = bench_pt_walk(&o->pt, va, &pa, &sz, &fl);
                if (st != ST_OK || pa != va || sz != page_bytes || !(fl & BENCH_PT_WRITE) ||
                    (fl & (BENCH_PT_NX | BENCH_PT_USER)))
                        return ST_BAD_DATA;
                (*n_walked)++;
        }
        return ST_OK;
}

bool bench_ownpt_identity_ok(const struct bench_ownpt *o, const uintptr_t *va, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                uint64_t pa;
                if (bench_pt_walk(&o->pt, va[i], &pa, NULL, NULL) != ST_OK || pa != va[i])
                        return false;
        }
        return true;
}

uint64_t bench_ownpt_root_pa(const struct bench_ownpt *o)
{
        return o->pt.root_pa;
}

uint32_t bench_ownpt_n_table_pages(const struct bench_ownpt *o)
{
        return o->pt.n_table_pages;
}
