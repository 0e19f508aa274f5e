/** @file The chase buffer (see chase_buf.h). */
#include "bench/chase_buf.h"

#include "bench/kernel_chase.h"
#include "lib/stats.h"

/* When the lap in cb->lines (visiting order) holds every line of the chain's span once,
 * which is what a chain over the span does, its ascending order is the span's lines in
 * address order: found with a bitmap of the lines seen, in place of a sort of millions of
 * lines. False (cb->lines untouched) for any other lap, or without memory for the bitmap. */
static bool lines_cover_span(struct bench_chase_buf *cb)
{
        uint64_t base = (uint64_t)(uintptr_t)cb->buf, *seen;
        size_t   words = (cb->n_lines + 63) / 64;
        bool     ok = true;

        if (!(seen = plat_alloc(words * sizeof(*seen))))
                return false;
        memset(seen, 0, words * sizeof(*seen));
        for (size_t i = 0; i < cb->n_lines && ok; i++) {
                uint64_t d = cb->lines[i] - base, k = d / cb->line_bytes;

                ok = cb->lines[i] >= base && d % cb->line_bytes == 0 && k < cb->n_lines &&
                     !(seen[k / 64] & (1ull << (k % 64)));
                seen[k / 64] |= ok ? 1ull << (k % 64) : 0;
        }
        plat_free(seen);
        for (size_t i = 0; ok && i < cb->n_lines; i++)
                cb->lines[i] = base + (uint64_t)i * cb->line_bytes;
        return ok;
}

/* The lines the chain visits, found by following it rather than assumed. */
static status_t list_lines(struct bench_chase_buf *cb)
{
        const void *p = cb->start;

        if (!(cb->lines = plat_alloc((cb->n_lines ? cb->n_lines : 1) * sizeof(*cb->lines))))
                return ST_NO_MEM;
        for (size_t i = 0; i < cb->n_lines; i++) {
                cb->lines[i] = (uint64_t)(uintptr_t)p & ~(uint64_t)(cb->line_bytes - 1);
                p = *(const void *const *)p;
        }
        if (!lines_cover_span(cb))
                lib_sort_u64(cb->lines, cb->n_lines);
        return ST_OK;
}

status_t bench_chase_buf_create(struct bench_chase_buf *cb, const struct bench_chase_buf_cfg *cfg)
{
        status_t st;

        if (!cb)
                return ST_BAD_ARG;
        *cb = (struct bench_chase_buf){ 0 };
        if (!cfg || !cfg->bytes)
                return ST_BAD_ARG;
        cb->bytes    = cfg->bytes;
        cb->page_got = PLAT_PAGE_4K;
        if (cfg->mem) {
                cb->buf = cfg->mem;
        } else {
                if ((st = plat_alloc_pages(cfg->bytes, cfg->page, &cb->buf, &cb->page_got)) !=
                    ST_OK) {
                        *cb = (struct bench_chase_buf){ 0 };
                        return st;
                }
                cb->owned = true;
        }
        if (cfg->no_chain)
                return ST_OK;
        if ((st = bench_chase_buf_lay(cb, cfg->bytes, &cfg->chain)) == ST_OK && cfg->list_lines)
                st = list_lines(cb);
        if (st != ST_OK)
                bench_chase_buf_destroy(cb);
        return st;
}

status_t bench_chase_buf_lay(struct bench_chase_buf *cb, uint64_t bytes,
                             const struct bench_chain_cfg *chain)
{
        status_t st;

        if (!cb || !cb->buf || !chain || bytes > cb->bytes)
                return ST_BAD_ARG;
        if (cb->lines) /* never on an AP: the sweep's chains list no lines */
                plat_free(cb->lines);
        cb->lines       = NULL;
        cb->start       = NULL;
        cb->chain_bytes = cb->n_lines = 0;
        if ((st = bench_chain_build(cb->buf, bytes, chain, &cb->start)) != ST_OK) {
                cb->start = NULL;
                return st;
        }
        cb->chain_bytes = bytes;
        cb->line_bytes  = chain->line_bytes ? chain->line_bytes : 64;
        cb->n_lines     = bytes / cb->line_bytes;
        return ST_OK;
}

void bench_chase_buf_lap(struct bench_chase_buf *cb)
{
        uint64_t lap = cb->n_lines / BENCH_CHASE_UNROLL;

        if (cb->start)
                cb->start = bench_chase(cb->start, lap ? lap : 1);
}

void bench_chase_buf_destroy(struct bench_chase_buf *cb)
{
        if (!cb)
                return;
        if (cb->owned && cb->buf)
                plat_free_pages(cb->buf, cb->bytes);
        plat_free(cb->lines);
        *cb = (struct bench_chase_buf){ 0 };
}
