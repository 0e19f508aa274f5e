/** @file Buffers on a chosen NUMA node (see numa_mem.h). */
#include "app/numa_mem.h"

#include "boot/memrange.h"
#include "lib/fmt.h"

#define PAGE 4096u

/* The SRAT memory of @p pd present at boot (acpi_srat_mem_present), less every part another
 * domain's present range also claims: which node such an address is on cannot be told, so
 * nothing is placed there. What was left out is recorded in @p pl. */
static size_t node_spans(const struct acpi_srat *srat, uint32_t pd, struct mem_span *out,
                         size_t max, struct numa_place *pl)
{
        size_t n = 0;

        for (uint32_t i = 0; i < srat->n_mem && n < max; i++) {
                const struct acpi_srat_mem *m = &srat->mem[i];
                if (m->node != pd || !(m->flags & ACPI_SRAT_MEM_ENABLED) || !m->len)
                        continue;
                if (acpi_srat_mem_present(m))
                        out[n++] = (struct mem_span){ m->base, m->len };
                else
                        pl->absent_bytes += m->len;
        }
        for (uint32_t i = 0; i < srat->n_mem; i++) {
                const struct acpi_srat_mem *m = &srat->mem[i];
                uint64_t cut;

                if (m->node == pd || !acpi_srat_mem_present(m) || !m->len)
                        continue;
                cut = memrange_subtract(out, &n, max, m->base, m->len, NULL);
                if (cut && !pl->overlap_bytes)
                        pl->overlap_pd = m->node;
                pl->overlap_bytes += cut;
        }
        /* drop the spans the cuts emptied */
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (out[i].bytes)
                        out[k++] = out[i];
        return k;
}

static status_t fail(struct numa_place *pl, status_t st, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        fmt_vsnprintf(pl->why, sizeof(pl->why), fmt, ap);
        va_end(ap);
        if (pl->p)
                plat_free_pages(pl->p, pl->bytes);
        pl->p  = NULL;
        pl->st = st;
        return st;
}

/* Every page's physical address inside the node's ranges. */
static status_t check_pages(struct numa_place *pl, const struct mem_span *spans, size_t n)
{
        uint64_t first_bad = 0, bad_phys = 0;
        unsigned n_bad = 0, n_pages = (unsigned)(pl->bytes / PAGE);

        for (unsigned k = 0; k < n_pages; k++) {
                uint64_t phys = plat_virt_to_phys((const uint8_t *)pl->p + (size_t)k * PAGE);
                if (!phys)
                        return fail(pl, ST_UNSUPPORTED, "the platform cannot tell the physical "
                                    "address of the buffer's pages");
                if (memrange_inside(spans, n, phys, PAGE))
                        continue;
                if (!n_bad++) {
                        first_bad = (uint64_t)k * PAGE;
                        bad_phys  = phys;
                }
        }
        pl->n_pages_checked = n_pages;
        if (n_bad)
                return fail(pl, ST_BAD_DATA, "%u of %u pages outside proximity domain %u's "
                            "ranges, the first at offset 0x%llx (physical 0x%llx)", n_bad,
                            n_pages, pl->pd, (unsigned long long)first_bad,
                            (unsigned long long)bad_phys);
        return ST_OK;
}

status_t app_numa_place(const struct acpi_srat *srat, uint32_t pd, size_t bytes,
                        struct numa_place *out)
{
        return app_numa_place_pages(srat, pd, bytes, PLAT_PAGE_2M, out);
}

/* No SRAT: the platform's node @p pd, where it binds pages to nodes itself, else any pages. */
static status_t place_unlisted(uint32_t pd, size_t bytes, enum plat_page_kind page,
                               struct numa_place *out)
{
        unsigned checked = 0;
        status_t st      = plat_alloc_pages_on_node(pd, bytes, page, &out->p, &checked);

        if (st == ST_OK) {
                out->by_node         = true;
                out->n_pages_checked = checked;
        } else if (st != ST_UNSUPPORTED) {
                return fail(out, st, "%s: %zu bytes bound to node %u: %s", plat_info()->name,
                            bytes, pd, st == ST_BAD_DATA ? "a page is on another node"
                                                         : status_str(st));
        } else if ((st = plat_alloc_pages(bytes, page, &out->p, NULL)) != ST_OK) {
                return fail(out, st, "no SRAT (one node): %zu bytes not available", bytes);
        }
        out->phys = plat_virt_to_phys(out->p);
        return out->st = ST_OK;
}

status_t app_numa_place_pages(const struct acpi_srat *srat, uint32_t pd, size_t bytes,
                              enum plat_page_kind page, struct numa_place *out)
{
        static struct mem_span spans[ACPI_MAX_MEM_RANGES];
        uint64_t               largest = 0, have = 0;
        size_t                 n;
        status_t               st = ST_NOT_FOUND;

        *out = (struct numa_place){ .pd = pd, .bytes = bytes };
        if (!bytes || bytes % PAGE)
                return fail(out, ST_BAD_ARG, "%zu bytes is not a whole number of pages", bytes);
        if (!srat)
                return place_unlisted(pd, bytes, page, out);
        if (!(n = node_spans(srat, pd, spans, ARRAY_SIZE(spans), out))) {
                out->memoryless = !out->overlap_bytes;
                if (out->overlap_bytes)
                        return fail(out, ST_NOT_FOUND, "all of proximity domain %u's memory "
                                    "(%llu MiB) overlaps proximity domain %u's ranges in SRAT: "
                                    "the node of those addresses is ambiguous", pd,
                                    (unsigned long long)(out->overlap_bytes / MiB),
                                    out->overlap_pd);
                if (out->absent_bytes)
                        return fail(out, ST_NOT_FOUND, "SRAT gives proximity domain %u no memory "
                                    "present at boot (%llu MiB hot-pluggable or non-volatile, "
                                    "left out)", pd,
                                    (unsigned long long)(out->absent_bytes / MiB));
                return fail(out, ST_NOT_FOUND, "SRAT gives proximity domain %u no enabled memory",
                            pd);
        }
        for (size_t i = 0; i < n && st != ST_OK; i++) {
                uint64_t l = 0;
                st = plat_alloc_pages_in(spans[i].base, spans[i].base + spans[i].bytes, bytes,
                                         &out->p, &l);
                if (l > largest)
                        largest = l;
                have += spans[i].bytes;
                if (st == ST_UNSUPPORTED)
                        return fail(out, st, "the platform cannot place pages at physical "
                                    "addresses");
        }
        if (st != ST_OK) {
                out->lacking = true;
                return fail(out, st, "no free block of %llu KiB in proximity domain %u's %zu "
                            "range%s (%llu MiB; largest free block %llu KiB)",
                            (unsigned long long)(bytes / KiB), pd, n, n == 1 ? "" : "s",
                            (unsigned long long)(have / MiB), (unsigned long long)(largest / KiB));
        }
        out->phys = plat_virt_to_phys(out->p);
        if ((st = check_pages(out, spans, n)) != ST_OK)
                return st;
        return out->st = ST_OK;
}

void app_numa_unplace(struct numa_place *pl)
{
        if (pl->p)
                plat_free_pages(pl->p, pl->bytes);
        pl->p = NULL;
}
