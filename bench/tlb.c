/** @file TLB chase plans, iTLB jump chains and N sweeps (see tlb.h). */
#include "bench/tlb.h"

#include "boot/plat.h"

#define SPAN_MAX (1ull << 47)

/* 2^(j/16) in Q16, j = 0..15: the geometric sweep without floating point. */
static const uint32_t pow2_16th_q16[16] = {
        65536, 68438, 71468, 74632, 77936, 81386, 84990, 88752,
        92682, 96785, 101070, 105545, 110218, 115098, 120194, 125515,
};

static const uint32_t stride_pages[TLB_PTE__COUNT] = {
        [TLB_PTE_NEAR] = 1,
        [TLB_PTE_LINE] = BENCH_TLB_LINE_BYTES / 8, /* 8-byte entries [SDM-3A] 4-level paging */
        [TLB_PTE_PAGE] = 512,
};

static const char *const pte_names[TLB_PTE__COUNT] = {
        [TLB_PTE_NEAR] = "near",
        [TLB_PTE_LINE] = "line",
        [TLB_PTE_PAGE] = "page",
};

static const char *const side_names[TLB_SIDE__COUNT] = {
        [TLB_SIDE_DATA] = "dtlb",
        [TLB_SIDE_INST] = "itlb",
};

/* splitmix64: small, stateless apart from one word, identical on host and firmware. */
static uint64_t mix_next(uint64_t *s)
{
        uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

/* Page indices in visiting order into off[]: ascending, or one random cycle (Sattolo). */
static void visit_order(const struct bench_tlb_cfg *cfg, uint64_t *off)
{
        uint64_t s = cfg->seed;

        for (uint32_t i = 0; i < cfg->n_pages; i++)
                off[i] = i;
        if (!cfg->seed)
                return;
        for (uint32_t i = cfg->n_pages - 1; i > 0; i--) {
                uint32_t j = (uint32_t)(mix_next(&s) % i); /* j < i: a single cycle */
                uint64_t t = off[i];

                off[i] = off[j];
                off[j] = t;
        }
}

static bool page_ok(uint64_t page_bytes)
{
        return page_bytes == 4 * KiB || page_bytes == 2 * MiB || page_bytes == 1 * GiB;
}

/* ---- public ---- */

uint32_t bench_tlb_stride_pages(enum tlb_pte_layout pte)
{
        return (unsigned)pte < TLB_PTE__COUNT ? stride_pages[pte] : 0;
}

uint32_t bench_tlb_slots(uint64_t page_bytes)
{
        uint64_t n = page_bytes / BENCH_TLB_LINE_BYTES;

        return n > BENCH_TLB_MAX_SLOTS ? BENCH_TLB_MAX_SLOTS : (uint32_t)n;
}

status_t bench_tlb_span(const struct bench_tlb_cfg *cfg, uint64_t *bytes)
{
        uint32_t stride;

        if (!cfg || !bytes || !page_ok(cfg->page_bytes) || !cfg->n_pages ||
            !(stride = bench_tlb_stride_pages(cfg->pte)))
                return ST_BAD_ARG;
        /* n_pages < 2^32, stride <= 2^9, page <= 2^30: the product fits in 71 bits, so
         * compare before multiplying. */
        if ((uint64_t)cfg->n_pages * stride > SPAN_MAX / cfg->page_bytes)
                return ST_BAD_ARG;
        *bytes = (uint64_t)cfg->n_pages * stride * cfg->page_bytes;
        return ST_OK;
}

status_t bench_tlb_plan(const struct bench_tlb_cfg *cfg, uint64_t *off, size_t n_off)
{
        uint64_t span;
        status_t st;
        uint32_t slots;

        if ((st = bench_tlb_span(cfg, &span)) != ST_OK)
                return st;
        if (!off || n_off != cfg->n_pages)
                return ST_BAD_ARG;
        slots = bench_tlb_slots(cfg->page_bytes);
        visit_order(cfg, off);
        for (uint32_t i = 0; i < cfg->n_pages; i++) {
                uint64_t p = off[i];

                off[i] = p * stride_pages[cfg->pte] * cfg->page_bytes +
                         (p % slots) * BENCH_TLB_LINE_BYTES;
        }
        return ST_OK;
}

status_t bench_tlb_control_plan(const struct bench_tlb_cfg *cfg, uint64_t *off, size_t n_off)
{
        uint64_t span;
        status_t st;

        if ((st = bench_tlb_span(cfg, &span)) != ST_OK)
                return st;
        if (!off || n_off != cfg->n_pages)
                return ST_BAD_ARG;
        visit_order(cfg, off);
        for (uint32_t i = 0; i < cfg->n_pages; i++)
                off[i] *= BENCH_TLB_LINE_BYTES; /* slot p mod slots, as in the chase */
        return ST_OK;
}

status_t bench_itlb_gen_off(const struct bench_tlb_cfg *cfg, uint64_t *off, size_t n_off,
                            uint8_t *buf, uint64_t buf_bytes, uint64_t *entry_off)
{
        uint64_t span;
        status_t st;

        if ((st = bench_tlb_span(cfg, &span)) != ST_OK)
                return st;
        if (!buf || !entry_off || buf_bytes < span || span > (1ull << 31))
                return ST_BAD_ARG;
        if ((st = bench_tlb_plan(cfg, off, n_off)) != ST_OK)
                return st;
        for (uint32_t i = 0; i < cfg->n_pages; i++) {
                uint8_t *p = buf + off[i];

                memset(p, X86_INT3, BENCH_TLB_LINE_BYTES);
                if (i + 1 == cfg->n_pages) {
                        p[0] = X86_RET;
                        continue;
                }
                /* rel32 counts from the end of the 5-byte instruction. */
                int64_t  rel = (int64_t)off[i + 1] - (int64_t)(off[i] + BENCH_ITLB_STUB_BYTES);
                uint32_t r   = (uint32_t)rel;

                p[0] = X86_JMP_REL32;
                p[1] = (uint8_t)r;
                p[2] = (uint8_t)(r >> 8);
                p[3] = (uint8_t)(r >> 16);
                p[4] = (uint8_t)(r >> 24);
        }
        *entry_off = off[0];
        return ST_OK;
}

status_t bench_itlb_gen(const struct bench_tlb_cfg *cfg, uint8_t *buf, uint64_t buf_bytes,
                        uint64_t *entry_off)
{
        uint64_t span, *off;
        status_t st;

        if ((st = bench_tlb_span(cfg, &span)) != ST_OK)
                return st;
        if (!buf || !entry_off || buf_bytes < span || span > (1ull << 31))
                return ST_BAD_ARG;
        if (!(off = plat_alloc(cfg->n_pages * sizeof(*off))))
                return ST_NO_MEM;
        st = bench_itlb_gen_off(cfg, off, cfg->n_pages, buf, buf_bytes, entry_off);
        plat_free(off);
        return st;
}

status_t bench_tlb_sweep(uint32_t min_pages, uint32_t max_pages, unsigned steps_per_octave,
                         uint32_t *out, size_t cap, size_t *n)
{
        size_t k = 0;

        if (!out || !n || !min_pages || min_pages > max_pages || !steps_per_octave ||
            steps_per_octave > 16 || 16 % steps_per_octave)
                return ST_BAD_ARG;
        for (unsigned i = 0;; i++) {
                unsigned oct  = i / steps_per_octave;
                unsigned frac = (i % steps_per_octave) * (16 / steps_per_octave);
                uint64_t v;

                if (oct >= 32 || ((uint64_t)min_pages << oct) > max_pages)
                        break;
                v = (((uint64_t)min_pages << oct) * pow2_16th_q16[frac] + 32768) >> 16;
                if (v > max_pages)
                        break;
                if (k && v <= out[k - 1])
                        continue;
                if (k == cap)
                        return ST_NO_SPACE;
                out[k++] = (uint32_t)v;
        }
        if (out[k - 1] != max_pages) {
                if (k == cap)
                        return ST_NO_SPACE;
                out[k++] = max_pages;
        }
        *n = k;
        return ST_OK;
}

const char *bench_tlb_pte_layout_name(enum tlb_pte_layout pte)
{
        return (unsigned)pte < TLB_PTE__COUNT ? pte_names[pte] : "?";
}

const char *bench_tlb_side_name(enum tlb_side side)
{
        return (unsigned)side < TLB_SIDE__COUNT ? side_names[side] : "?";
}
