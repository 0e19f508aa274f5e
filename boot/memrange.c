/** @file Placement arithmetic over physical ranges (see memrange.h). */
#include "boot/memrange.h"

/* Intersection of the span with [base, limit): false when empty. Overflow-safe for spans
 * that reach the top of the address space. */
static bool clip(const struct mem_span *s, uint64_t base, uint64_t limit, uint64_t *lo,
                 uint64_t *hi)
{
        uint64_t end = s->bytes > UINT64_MAX - s->base ? UINT64_MAX : s->base + s->bytes;

        *lo = s->base > base ? s->base : base;
        *hi = end < limit ? end : limit;
        return s->bytes && *hi > *lo;
}

static void insert_desc(uint64_t *out, size_t *n, size_t max, uint64_t v)
{
        size_t k = *n < max ? (*n)++ : max;

        if (k == max && (max == 0 || out[max - 1] >= v))
                return;
        if (k == max)
                k = max - 1;
        while (k > 0 && out[k - 1] < v) {
                out[k] = out[k - 1];
                k--;
        }
        out[k] = v;
}

status_t memrange_candidates(const struct mem_span *free, size_t n, uint64_t base,
                             uint64_t limit, uint64_t bytes, uint64_t align, uint64_t *out,
                             size_t max, size_t *n_out, uint64_t *largest)
{
        uint64_t big = 0;
        size_t   k   = 0;

        if (n_out)
                *n_out = 0;
        if (largest)
                *largest = 0;
        if (!bytes || !align || (align & (align - 1)) || limit <= base || (!free && n) ||
            !n_out || (!out && max))
                return ST_BAD_ARG;
        for (size_t i = 0; i < n; i++) {
                uint64_t lo, hi;

                if (!clip(&free[i], base, limit, &lo, &hi))
                        continue;
                if (hi - lo > big)
                        big = hi - lo;
                if (hi - lo < bytes)
                        continue;
                uint64_t at = (hi - bytes) & ~(align - 1);
                if (at < lo)
                        continue;
                insert_desc(out, &k, max, at);
        }
        *n_out = k;
        if (largest)
                *largest = big;
        return k ? ST_OK : ST_NOT_FOUND;
}

bool memrange_inside(const struct mem_span *spans, size_t n, uint64_t addr, uint64_t bytes)
{
        for (size_t i = 0; i < n; i++)
                if (spans[i].bytes && addr >= spans[i].base && bytes <= spans[i].bytes &&
                    addr - spans[i].base <= spans[i].bytes - bytes)
                        return true;
        return false;
}

uint64_t memrange_subtract(struct mem_span *spans, size_t *n, size_t max, uint64_t base,
                           uint64_t bytes, status_t *st)
{
        uint64_t cut_end = bytes > UINT64_MAX - base ? UINT64_MAX : base + bytes, removed = 0;

        if (st)
                *st = ST_OK;
        for (size_t i = 0; i < *n && bytes; i++) {
                struct mem_span *s = &spans[i];
                uint64_t         lo, hi;

                if (!clip(s, base, cut_end, &lo, &hi))
                        continue;
                uint64_t end = s->bytes > UINT64_MAX - s->base ? UINT64_MAX : s->base + s->bytes;

                removed += hi - lo;
                if (hi < end) {                 /* an upper part stays */
                        if (lo > s->base) {     /* and a lower one: split */
                                if (*n == max) {
                                        if (st)
                                                *st = ST_NO_MEM;
                                        removed += end - hi;
                                } else {
                                        spans[(*n)++] = (struct mem_span){ hi, end - hi };
                                }
                                s->bytes = lo - s->base;
                        } else {
                                *s = (struct mem_span){ hi, end - hi };
                        }
                } else {
                        s->bytes = lo - s->base;  /* 0 when the cut covers it */
                }
        }
        return removed;
}
