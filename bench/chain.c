/** @file Pointer-chase chain builder (see chain.h). */
#include "bench/chain.h"

#include <stdbool.h>

#include "boot/plat.h"

#define DEFAULT_LINE_BYTES  64u
#define DEFAULT_PAGE_BYTES  4096u
#define DEFAULT_GROUP_PAGES 16u
/* Word 0 of a line holds the pointer, word 1 the line visited at that position of a group,
 * word 2 (lines 0 .. n_groups-1 only) the group order. */
#define MIN_LINE_BYTES (3u * sizeof(uint64_t))

static const char *const layout_names[BENCH_LAYOUT__COUNT] = {
        [BENCH_LAYOUT_RANDOM] = "random",
        [BENCH_LAYOUT_GROUPS] = "groups",
        [BENCH_LAYOUT_STRIDE] = "stride",
};

static uint64_t splitmix64(uint64_t *x)
{
        uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

static inline uint64_t *word(uint8_t *buf, uint32_t line_bytes, uint64_t line, unsigned w)
{
        return (uint64_t *)(void *)(buf + line * line_bytes) + w;
}

/* Fisher-Yates over word @p w of lines [first, first + n). */
static void shuffle(uint8_t *buf, uint32_t line_bytes, uint64_t first, uint64_t n, unsigned w,
                    struct bench_rng *r)
{
        for (uint64_t i = n; i > 1; i--) {
                uint64_t  j = bench_rng_below(r, i);
                uint64_t *a = word(buf, line_bytes, first + i - 1, w);
                uint64_t *b = word(buf, line_bytes, first + j, w);
                uint64_t  t = *a;

                *a = *b;
                *b = t;
        }
}

static bool is_pow2(uint64_t v)
{
        return v && !(v & (v - 1));
}

void bench_rng_seed(struct bench_rng *r, uint64_t seed)
{
        uint64_t x = seed;

        r->s = splitmix64(&x);
        if (!r->s)
                r->s = 0x2545f4914f6cdd1dull; /* xorshift must not start at 0 */
}

uint64_t bench_rng_next(struct bench_rng *r)
{
        /* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators") */
        r->s ^= r->s >> 12;
        r->s ^= r->s << 25;
        r->s ^= r->s >> 27;
        return r->s * 0x2545f4914f6cdd1dull;
}

uint64_t bench_rng_below(struct bench_rng *r, uint64_t n)
{
        /* Lemire's multiply-shift: the bias is below n / 2^64. */
        return (uint64_t)(((unsigned __int128)bench_rng_next(r) * n) >> 64);
}

/* A chain being built: @p n_grps groups of @p per_grp lines (the last may be shorter) over
 * the @p n_lines lines of @p b. */
struct chain_geom {
        uint8_t *b;
        uint32_t line_bytes;
        uint64_t n_lines, per_grp, n_grps;
};

/* Lines in the group starting at line @p first. */
static uint64_t group_lines(const struct chain_geom *cg, uint64_t first)
{
        return cg->n_lines - first < cg->per_grp ? cg->n_lines - first : cg->per_grp;
}

/* Position -> line, kept in word 1; group order in word 2 of the first n_grps lines. */
static void order_lines(const struct chain_geom *cg, enum bench_layout layout, uint64_t s_lines,
                        struct bench_rng *r)
{
        uint8_t *b = cg->b;

        if (layout == BENCH_LAYOUT_STRIDE) {
                uint64_t k = 0;
                if (!s_lines || s_lines > cg->n_lines)
                        s_lines = s_lines ? cg->n_lines : 1;
                for (uint64_t off = 0; off < s_lines; off++)
                        for (uint64_t i = off; i < cg->n_lines; i += s_lines)
                                *word(b, cg->line_bytes, k++, 1) = i;
        } else {
                for (uint64_t i = 0; i < cg->n_lines; i++)
                        *word(b, cg->line_bytes, i, 1) = i;
                for (uint64_t g = 0; g < cg->n_grps; g++) {
                        uint64_t first = g * cg->per_grp;
                        shuffle(b, cg->line_bytes, first, group_lines(cg, first), 1, r);
                }
        }
        for (uint64_t g = 0; g < cg->n_grps; g++)
                *word(b, cg->line_bytes, g, 2) = g;
        shuffle(b, cg->line_bytes, 0, cg->n_grps, 2, r);
}

/* Link the lines in visiting order; the last one closes the cycle. Returns the first line. */
static uint64_t link_lines(const struct chain_geom *cg)
{
        uint8_t *b          = cg->b;
        uint32_t line_bytes = cg->line_bytes;
        uint64_t first_line = UINT64_MAX, prev = 0;

        for (uint64_t j = 0; j < cg->n_grps; j++) {
                uint64_t g     = *word(b, line_bytes, j, 2);
                uint64_t first = g * cg->per_grp;
                uint64_t n     = group_lines(cg, first);

                for (uint64_t i = 0; i < n; i++) {
                        uint64_t cur = *word(b, line_bytes, first + i, 1);

                        if (first_line == UINT64_MAX)
                                first_line = cur;
                        else
                                *word(b, line_bytes, prev, 0) =
                                        (uint64_t)(uintptr_t)(b + cur * line_bytes);
                        prev = cur;
                }
        }
        *word(b, line_bytes, prev, 0) = (uint64_t)(uintptr_t)(b + first_line * line_bytes);
        return first_line;
}

/* Zero words 1 and 2, the builder's scratch, so that only the pointers remain. */
static void clear_scratch(const struct chain_geom *cg)
{
        for (uint64_t i = 0; i < cg->n_lines; i++) {
                *word(cg->b, cg->line_bytes, i, 1) = 0;
                if (i < cg->n_grps)
                        *word(cg->b, cg->line_bytes, i, 2) = 0;
        }
}

status_t bench_chain_build(void *buf, size_t bytes, const struct bench_chain_cfg *cfg,
                           void **start)
{
        if (!buf || !cfg || !start || (unsigned)cfg->layout >= BENCH_LAYOUT__COUNT)
                return ST_BAD_ARG;

        uint32_t line_bytes = cfg->line_bytes ? cfg->line_bytes : DEFAULT_LINE_BYTES;
        uint32_t page_bytes = cfg->page_bytes ? cfg->page_bytes : DEFAULT_PAGE_BYTES;
        uint32_t grp_pages  = cfg->group_pages ? cfg->group_pages : DEFAULT_GROUP_PAGES;
        uint32_t stride     = cfg->stride_bytes ? cfg->stride_bytes : line_bytes;

        if (!is_pow2(line_bytes) || line_bytes < MIN_LINE_BYTES || page_bytes < line_bytes ||
            page_bytes % line_bytes || stride % line_bytes)
                return ST_BAD_ARG;
        if (!bytes || bytes % line_bytes || (uintptr_t)buf % line_bytes)
                return ST_BAD_ARG;

        struct chain_geom cg = {
                .b          = buf,
                .line_bytes = line_bytes,
                .n_lines    = bytes / line_bytes,
                .per_grp    = bytes / line_bytes,
                .n_grps     = 1,
        };
        struct bench_rng r;
        uint64_t         first_line;

        if (cfg->layout == BENCH_LAYOUT_GROUPS) {
                cg.per_grp = (uint64_t)grp_pages * (page_bytes / line_bytes);
                if (cg.per_grp > cg.n_lines)
                        cg.per_grp = cg.n_lines;
                cg.n_grps = (cg.n_lines + cg.per_grp - 1) / cg.per_grp;
        }
        bench_rng_seed(&r, cfg->seed);
        order_lines(&cg, cfg->layout, stride / line_bytes, &r);
        first_line = link_lines(&cg);
        clear_scratch(&cg);
        *start = cg.b + first_line * line_bytes;
        return ST_OK;
}

uint64_t bench_chain_lap(const void *start, uint64_t max_steps)
{
        const void *p = start;

        if (!start)
                return 0;
        for (uint64_t n = 1; n <= max_steps; n++) {
                p = *(const void *const *)p;
                if (p == start)
                        return n;
        }
        return 0;
}

const char *bench_layout_name(enum bench_layout l)
{
        if ((unsigned)l >= BENCH_LAYOUT__COUNT)
                return "unknown";
        return layout_names[l];
}
