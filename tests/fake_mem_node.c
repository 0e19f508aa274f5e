/** @file
 * Physical placement on the test platform: plat_alloc_pages_in() over a synthetic map of
 * free physical memory (fake_plat_set_free_mem), with the same range arithmetic and the same
 * alignment order as the UEFI build. The block is host memory; plat_virt_to_phys() answers
 * with the physical address the block was given, so the caller's per-page check sees what
 * it would see on a machine. An allocation takes its block out of the free map (freeing puts
 * it back); a page can be made to report a wrong address (fake_plat_misplace_page) to exercise that check.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/memrange.h"
#include "tests/fake_plat.h"

#define MAX_SPANS  64u
#define MAX_BLOCKS 64u
#define DEFAULT_FREE_BASE (1ull << 20)
#define DEFAULT_FREE_TOP  (1ull << 44)
#define MISPLACED_BY      (1ull << 50)   /* outside every range a test uses */

struct block {
        uint8_t *virt;
        uint64_t phys, bytes;
        int64_t  misplaced_off;   /* -1: none */
};

static struct mem_span spans[MAX_SPANS];
static size_t          n_spans;
static bool            spans_set;
static struct block    blocks[MAX_BLOCKS];
static int64_t         misplace_next = -1;

void fake_plat_set_free_mem(const struct mem_span *free, size_t n)
{
        n_spans   = n < MAX_SPANS ? n : MAX_SPANS;
        spans_set = true;
        if (n_spans)
                memcpy(spans, free, n_spans * sizeof(*spans));
}

void fake_plat_misplace_page(int64_t offset)
{
        misplace_next = offset;
}

void fake_mem_node_reset(void)
{
        for (unsigned i = 0; i < MAX_BLOCKS; i++)
                free(blocks[i].virt);
        memset(blocks, 0, sizeof(blocks));
        n_spans       = 0;
        spans_set     = false;
        misplace_next = -1;
}

/* Take [at, at + bytes) out of the free map (it lies inside one span). */
static void take(uint64_t at, uint64_t bytes)
{
        for (size_t i = 0; i < n_spans; i++) {
                struct mem_span *s = &spans[i];
                if (!memrange_inside(s, 1, at, bytes))
                        continue;
                struct mem_span tail = { at + bytes, s->base + s->bytes - (at + bytes) };
                s->bytes = at - s->base;
                if (tail.bytes && n_spans < MAX_SPANS)
                        spans[n_spans++] = tail;
                return;
        }
}

status_t plat_alloc_pages_in(uint64_t base, uint64_t limit, size_t bytes, void **out,
                             uint64_t *largest)
{
        static const uint64_t aligns[] = { 2ull << 20, 4096 };
        uint64_t              at;
        size_t                n_cand = 0;
        status_t              st = ST_NOT_FOUND;
        unsigned              slot;

        if (!out || !bytes || bytes % 4096 || limit <= base)
                return ST_BAD_ARG;
        if (!spans_set)
                fake_plat_set_free_mem(&(struct mem_span){ DEFAULT_FREE_BASE,
                                                           DEFAULT_FREE_TOP - DEFAULT_FREE_BASE },
                                       1);
        for (size_t a = 0; a < 2 && st != ST_OK; a++)
                st = memrange_candidates(spans, n_spans, base, limit, bytes, aligns[a], &at, 1,
                                         &n_cand, largest);
        if (st != ST_OK)
                return st;
        for (slot = 0; slot < MAX_BLOCKS && blocks[slot].virt; slot++)
                ;
        if (slot == MAX_BLOCKS || !(blocks[slot].virt = aligned_alloc(4096, bytes)))
                return ST_NO_MEM;
        memset(blocks[slot].virt, 0, bytes);
        blocks[slot].phys          = at;
        blocks[slot].bytes         = bytes;
        blocks[slot].misplaced_off = misplace_next;
        misplace_next              = -1;
        take(at, bytes);
        *out = blocks[slot].virt;
        return ST_OK;
}

bool fake_mem_node_forget(void *p)
{
        for (unsigned i = 0; i < MAX_BLOCKS; i++)
                if (blocks[i].virt && blocks[i].virt == p) {
                        free(p);
                        if (n_spans < MAX_SPANS) /* back to the free map, unmerged */
                                spans[n_spans++] = (struct mem_span){ blocks[i].phys,
                                                                      blocks[i].bytes };
                        blocks[i] = (struct block){ 0 };
                        return true;
                }
        return false;
}

uint64_t plat_virt_to_phys(const void *p)
{
        const uint8_t *q = p;

        for (unsigned i = 0; i < MAX_BLOCKS; i++) {
                const struct block *b = &blocks[i];
                if (!b->virt || q < b->virt || q >= b->virt + b->bytes)
                        continue;
                uint64_t off = (uint64_t)(q - b->virt);
                bool     bad = b->misplaced_off >= 0 &&
                           off / 4096 == (uint64_t)b->misplaced_off / 4096;
                return b->phys + off + (bad ? MISPLACED_BY : 0);
        }
        return (uint64_t)(uintptr_t)p;
}

status_t plat_node_info(unsigned k, uint32_t *id, uint8_t *dist, unsigned max, unsigned *n)
{
        (void)k;
        (void)id;
        (void)dist;
        (void)max;
        if (n)
                *n = 0;
        return ST_UNSUPPORTED; /* nodes come from the test SRAT, memory by physical address */
}

status_t plat_alloc_pages_on_node(uint32_t id, size_t bytes, enum plat_page_kind want,
                                  void **out, unsigned *n_checked)
{
        (void)id;
        (void)bytes;
        (void)want;
        *out = NULL;
        if (n_checked)
                *n_checked = 0;
        return ST_UNSUPPORTED;
}
