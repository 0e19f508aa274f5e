/** @file
 * The workloads of the virtual PMU: every kernel the suites run, wrapped at link time
 * (-Wl,--wrap=<kernel>, see tests/unittests.cfg) by a description of what it really retires. The
 * wrapper runs the real kernel (so buffers, chains and return values are the real ones) and
 * hands the model its true counts in steps small enough for PMIs to land inside it:
 *   bench_loop            2 instructions and 1 branch per iteration (bench/kernel_branch.h)
 *   bench_branch_pattern  6 instructions for a 0 byte, 7 for another, 2 branches and a load
 *                         per byte; the predictor modelled as "same as last time", so a
 *                         random 0/1 pattern mispredicts half the bytes, zeros none
 *   bench_skid_loop       4098 instructions, 1 branch per iteration; overflow at the jnz
 *   bench_chase           32 loads per iteration, each served by the level the chain's
 *                         working set fits (LRU over a cyclic chain: all misses beyond the
 *                         size), dTLB miss when its pages exceed the STLB; 34 ops per
 *                         iteration, 33 where the part fuses dec with jnz
 *   bench_block_run       18 instructions, 17 ops, one taken jnz of 48 cycles per iteration;
 *                         its cycles are those 48, not the host's time
 */
#include "tests/vpmu/vpmu_priv.h"

#include <stdlib.h>
#include <string.h>

#include "bench/kernel_block.h"
#include "bench/kernel_branch.h"
#include "bench/kernel_chase.h"
#include "bench/kernel_skid.h"
#include "bench/x86/pagetable.h"
#include "bench/x86/ptlive.h"
#include "tests/fake_plat.h"

void  __real_bench_loop(uint64_t n);
void  __real_bench_branch_pattern(const uint8_t *pat, uint64_t n);
void  __real_bench_skid_loop(uint64_t iters);
void *__real_bench_chase(void *p, uint64_t iters);
void  __real_bench_block_run(uint64_t n);

void  __wrap_bench_loop(uint64_t n);
void  __wrap_bench_branch_pattern(const uint8_t *pat, uint64_t n);
void  __wrap_bench_skid_loop(uint64_t iters);
void *__wrap_bench_chase(void *p, uint64_t iters);
void  __wrap_bench_block_run(uint64_t n);

#define CALL_INSNS   6 /* call, prologue, epilogue, ret around each kernel */
#define LOOP_BYTES   16
#define CHUNK        4096

static uint64_t addr(const void *f)
{
        return (uint64_t)(uintptr_t)f;
}

void __wrap_bench_loop(uint64_t n)
{
        struct vpmu_step s = { .rip_lo = addr(__real_bench_loop),
                               .rip_hi = addr(__real_bench_loop) + LOOP_BYTES };

        for (uint64_t done = 0; done < n;) {
                uint64_t k = n - done < 1u << 20 ? n - done : 1u << 20;

                __real_bench_loop(k);
                s.n[VE_INSNS] = k * BENCH_LOOP_INSNS_PER_ITER + (done ? 0 : CALL_INSNS);
                s.n[VE_BRANCHES] = k * BENCH_LOOP_BRANCHES_PER_ITER + (done ? 0 : 1);
                s.n[VE_OPS] = s.n[VE_INSNS];
                vpmu_retire(&s);
                done += k;
        }
}

void __wrap_bench_branch_pattern(const uint8_t *pat, uint64_t n)
{
        struct vpmu_step s = { .rip_lo = addr(__real_bench_branch_pattern),
                               .rip_hi = addr(__real_bench_branch_pattern) + LOOP_BYTES };
        uint8_t last = 0;

        __real_bench_branch_pattern(pat, n);
        for (uint64_t done = 0; done < n;) {
                uint64_t k = n - done < CHUNK ? n - done : CHUNK, misp = 0, other = 0;

                for (uint64_t i = 0; i < k; i++) {
                        uint8_t b = pat[done + i] != 0;
                        misp += b != last;
                        other += b;
                        last = b;
                }
                memset(s.n, 0, sizeof(s.n));
                s.n[VE_INSNS] = k * BENCH_PATTERN_INSNS_ZERO_BYTE +
                                other * (BENCH_PATTERN_INSNS_OTHER_BYTE -
                                         BENCH_PATTERN_INSNS_ZERO_BYTE);
                s.n[VE_BRANCHES] = k * BENCH_PATTERN_BRANCHES_PER_ITER;
                s.n[VE_BR_MISP] = misp;
                s.n[VE_LOADS] = k * BENCH_PATTERN_LOADS_PER_ITER;
                s.n[VE_OPS] = s.n[VE_INSNS];
                vpmu_retire(&s);
                done += k;
        }
}

void __wrap_bench_skid_loop(uint64_t iters)
{
        uint64_t body = addr(bench_skid_body);
        struct vpmu_step s = { .rip_lo = body, .rip_hi = body + BENCH_SKID_BODY_NOPS + 8,
                               .rip_ev = body };

        /* the overflowing branch is the jnz; execution resumes at its target, the body */
        for (uint64_t done = 0; done < iters;) {
                uint64_t k = iters - done < 64 ? iters - done : 64;

                __real_bench_skid_loop(k);
                s.n[VE_INSNS] = k * BENCH_SKID_INSNS_PER_ITER;
                s.n[VE_BRANCHES] = k * BENCH_SKID_BRANCHES_PER_ITER;
                s.n[VE_OPS] = s.n[VE_INSNS];
                /* one branch per iteration: retire them one by one for exact PMI points */
                for (uint64_t i = 0; i < k; i++) {
                        struct vpmu_step one = s;
                        one.n[VE_INSNS] = BENCH_SKID_INSNS_PER_ITER;
                        one.n[VE_BRANCHES] = 1;
                        one.n[VE_OPS] = BENCH_SKID_INSNS_PER_ITER;
                        vpmu_retire(&one);
                }
                done += k;
        }
}

/* ---- the chase ----------------------------------------------------------------------------- */

struct chain {
        uint64_t lo, hi, nodes; /* address range and lap length of a chain */
        uint64_t bytes;         /* the buffer it lies in, from lo (0: found by walking a lap) */
};

static struct chain chains[16];
static unsigned     n_chains;
/* The live page buffers, oldest first (tests/fake_plat.c says when they come and go). */
static struct { uint64_t lo, bytes; } bufs[64];
static unsigned     n_bufs;

void vpmu_note_buffer(const void *p, size_t bytes)
{
        if (n_bufs == 64)
                memmove(&bufs[0], &bufs[1], --n_bufs * sizeof(bufs[0]));
        bufs[n_bufs].lo = addr(p);
        bufs[n_bufs++].bytes = bytes;
}

void vpmu_forget_buffer(const void *p)
{
        for (unsigned i = n_bufs; i-- > 0;)
                if (bufs[i].lo == addr(p)) {
                        memmove(&bufs[i], &bufs[i + 1], (--n_bufs - i) * sizeof(bufs[0]));
                        return;
                }
}

/* The chain through @p p: from the buffer it lies in (one node per line, or per page when
 * the nodes share their offset in the page), else by walking one lap. */
static struct chain chain_of(void *p)
{
        uint64_t a = addr(p);
        struct chain c = { .lo = a, .hi = a };
        void **q = p;

        for (unsigned i = n_bufs; i-- > 0;)
                if (a >= bufs[i].lo && a < bufs[i].lo + bufs[i].bytes) {
                        bool same = true;

                        for (unsigned k = 0; k < 8; k++, q = *q)
                                same &= (addr(q) & 0xfff) == (a & 0xfff);
                        c.lo = bufs[i].lo;
                        c.hi = bufs[i].lo + bufs[i].bytes - 64;
                        c.nodes = bufs[i].bytes / (same ? 4096 : 64);
                        c.bytes = bufs[i].bytes;
                        return c;
                }
        for (unsigned i = 0; i < n_chains; i++)
                if (a >= chains[i].lo && a <= chains[i].hi)
                        return chains[i];
        do {
                uint64_t x = addr(q);
                c.lo = x < c.lo ? x : c.lo;
                c.hi = x > c.hi ? x : c.hi;
                c.nodes++;
                q = *q;
        } while ((void *)q != p && c.nodes < (1ull << 26));
        chains[n_chains++ % 16] = c;
        return c;
}

#define CHASE_LOADS BENCH_CHASE_UNROLL
#define CHASE_INSNS BENCH_CHASE_INSNS_PER_ITER /* per iteration: the loads, dec, jnz */

/* Ops per iteration: the loads, then dec and jnz, one op where the part fuses them. */
static uint64_t chase_ops_per_iter(const struct vpmu_part *p)
{
        return p->fuse_dec_jcc ? CHASE_INSNS - 1 : CHASE_INSNS;
}

/* Where the chase is. Load j of a step is the j-th node from the step's first: read off the
 * lap's order when the chain has one (chase_index), else by following the pointers. */
struct chase_ctx {
        void          **q;         /* the node load `walked` of the step reads */
        uint64_t        walked;
        enum vpmu_level level;
        bool            dtlb_miss, page_2m;
        uint64_t        rip;
        /* the lap in order: node t is slot0 + ord[(pos + t) % lap] x spacing */
        const uint32_t *ord;
        uint64_t        lap, pos, slot0, spacing;
        uint64_t        ops_per_iter;
};

/* Laps in order, kept by what they were derived from: the sampling runs chase the same chains
 * (same seed, same sizes) again and again, each in a fresh buffer. */
#define N_LAPS 8

static struct lap {
        uint64_t  n, k0, len;    /* slots, the first one, lap length */
        uint32_t *next, *ord;    /* slot -> next slot (UINT32_MAX: off the slots); the lap */
} laps[N_LAPS];
static unsigned n_laps_made;

/* The lap from slot @p k0 over @p next: in @p ord, its length returned (0: it leaves the slots
 * or does not come back to k0). */
static uint64_t lap_walk(const uint32_t *next, uint64_t n, uint64_t k0, uint32_t *ord)
{
        uint64_t t;

        ord[0] = (uint32_t)k0;
        for (t = 1; t < n && next[ord[t - 1]] != k0; t++) {
                if (next[ord[t - 1]] == UINT32_MAX)
                        return 0;
                ord[t] = next[ord[t - 1]];
        }
        return next[ord[t - 1]] == k0 ? t : 0;
}

/* The chain as slots of its buffer, its lap in order: found from the pointers stored in every
 * slot (a pass over the buffer) and a walk of those as slot numbers, much faster than
 * following the chain itself once the buffer is larger than the caches. False (and the chase
 * follows the pointers) unless the lap from @p p stays on the slots and comes back to it. */
static bool chase_index(struct chase_ctx *c, const struct chain *ch, void *p, uint64_t spacing)
{
        static uint32_t *next;
        static uint64_t  cap;
        uint64_t         off = (addr(p) - ch->lo) % spacing, n = ch->nodes, k0;
        struct lap      *l = NULL;

        if (!ch->bytes || !n || n != ch->bytes / spacing || off + 8 > spacing || n >= UINT32_MAX)
                return false;
        if (n > cap) {
                free(next);
                cap = (next = malloc(n * sizeof(*next))) ? n : 0;
                if (!cap)
                        return false;
        }
        c->slot0 = ch->lo + off;
        c->spacing = spacing;
        for (uint64_t k = 0; k < n; k++) {
                uint64_t v = *(const uint64_t *)(uintptr_t)(c->slot0 + k * spacing);

                next[k] = v >= c->slot0 && (v - c->slot0) % spacing == 0 &&
                          (v - c->slot0) / spacing < n ? (uint32_t)((v - c->slot0) / spacing)
                                                       : UINT32_MAX;
        }
        k0 = (addr(p) - c->slot0) / spacing;
        for (unsigned i = 0; i < N_LAPS && !l; i++)
                if (laps[i].n == n && laps[i].k0 == k0 && !memcmp(laps[i].next, next, n * 4))
                        l = &laps[i];
        if (!l) {
                l = &laps[n_laps_made++ % N_LAPS];
                free(l->next);
                free(l->ord);
                *l = (struct lap){ .n = n, .k0 = k0, .next = malloc(n * 4), .ord = malloc(n * 4) };
                if (!l->next || !l->ord) {
                        free(l->next);
                        free(l->ord);
                        *l = (struct lap){ 0 };
                        return false;
                }
                memcpy(l->next, next, n * 4);
                l->len = lap_walk(next, n, k0, l->ord);
        }
        if (!l->len)
                return false;
        c->ord = l->ord;
        c->lap = l->len;
        c->pos = 0;
        return true;
}

/* The node load @p j of the step reads (j never goes back within a step). */
static void **chase_node(struct chase_ctx *c, uint64_t j)
{
        if (c->ord)
                return (void **)(uintptr_t)(c->slot0 + c->ord[(c->pos + j) % c->lap] * c->spacing);
        for (; c->walked < j; c->walked++)
                c->q = *c->q;
        return c->q;
}

/* The step is done: its @p loads loads move the chase on. */
static void chase_step_end(struct chase_ctx *c, uint64_t loads)
{
        if (c->ord) {
                c->pos = (c->pos + loads) % c->lap;
                c->q = chase_node(c, 0);
                return;
        }
        chase_node(c, loads);
        c->walked = 0;
}

static void chase_op(void *arg, uint64_t i, struct vpmu_op *out)
{
        struct chase_ctx *c = arg;

        *out = (struct vpmu_op){ .rip = c->rip };
        if (i % c->ops_per_iter >= CHASE_LOADS)
                return; /* dec, jnz */
        out->load = true;
        out->la = addr(chase_node(c, i / c->ops_per_iter * CHASE_LOADS + i % c->ops_per_iter));
        out->level = c->level;
        out->dtlb_miss = c->dtlb_miss;
        out->page_2m = c->page_2m;
}

static uint64_t chase_alike(void *arg, uint64_t i, uint64_t n)
{
        const struct chase_ctx *c = arg;
        uint64_t r = i % c->ops_per_iter;
        uint64_t m = r < CHASE_LOADS ? CHASE_LOADS - r : c->ops_per_iter - r;

        return m < n ? m : n;
}

void *__wrap_bench_chase(void *p, uint64_t iters)
{
        const struct vpmu_part *part = vpmu_part();
        struct chain            ch;
        uint64_t                ws, pages, spacing;
        /* The program names the chase by &bench_chase, which in this link is this wrapper;
         * while sampling it is also the code that performs the loads. */
        struct chase_ctx        c = { .q = p, .rip = addr(__wrap_bench_chase) + 16 };
        struct vpmu_step        s = { .rip_lo = c.rip, .rip_hi = c.rip + 32 * 4 + 8, .ctx = &c,
                                      .op_at = chase_op, .op_alike = chase_alike };
        bool                    tried = false;

        if (!part || !p || !iters)
                return __real_bench_chase(p, iters);
        c.ops_per_iter = chase_ops_per_iter(part);
        ch = chain_of(p);
        spacing = (ch.hi - ch.lo + 64) / (ch.nodes ? ch.nodes : 1);
        ws = ch.nodes * 64;                          /* one line touched per node */
        pages = spacing >= 2048 ? ch.nodes : (ch.hi - ch.lo) / 4096 + 1;
        c.level = ws > (uint64_t)part->l3_kib * KiB && part->l3_kib ? VL_DRAM
                : ws > (uint64_t)part->l2_kib * KiB                ? (part->l3_kib ? VL_L3 : VL_DRAM)
                : ws > (uint64_t)part->l1d_kib * KiB               ? VL_L2
                                                                    : VL_L1;
        /* A buffer the platform maps with 2 MiB pages (fake_plat_set_mmu) takes one
         * translation per 2 MiB: the page-stride chase's 64 MiB is 32 of them, fewer than
         * any second-level dTLB holds (it serves 2 MiB pages as well as 4 KiB ones on the
         * parts modelled here). Not under the harness's own tables (CR3 switched away from
         * the firmware's): those map by 4 KiB pages. */
        c.page_2m = fake_plat_page_kind() == PLAT_PAGE_2M &&
                    fake_plat_cr3() == FAKE_PLAT_FIRMWARE_CR3;
        if (c.page_2m)
                pages = (ch.hi - ch.lo) / (2 * MiB) + 1;
        c.dtlb_miss = pages > part->stlb_4k_entries;
        /* Counting only: the loads are described in bulk and the chase stays where it is (the
         * suites' two lengths cancel whatever it costs); sampling walks the real chain. */
        void *end = p;
        for (uint64_t done = 0; done < iters;) {
                uint64_t k = iters - done;
                bool     ops = vpmu_wants_ops();

                if (ops)
                        k = k < 256 ? k : 256;
                memset(s.n, 0, sizeof(s.n));
                s.n[VE_INSNS] = CHASE_INSNS * k;
                s.n[VE_BRANCHES] = BENCH_CHASE_BRANCHES_PER_ITER * k;
                s.n[VE_OPS] = c.ops_per_iter * k;
                s.n[VE_LOADS] = CHASE_LOADS * k;
                s.n[VE_L1D_MISS] = c.level > VL_L1 ? CHASE_LOADS * k : 0;
                s.n[VE_L2_MISS] = c.level > VL_L2 ? CHASE_LOADS * k : 0;
                s.n[VE_LLC_MISS] = c.level > VL_L3 ? CHASE_LOADS * k : 0;
                s.n[VE_DTLB_MISS] = c.dtlb_miss ? CHASE_LOADS * k : 0;
                if (ops) {
                        if (!tried)
                                tried = true, chase_index(&c, &ch, c.q, spacing);
                        vpmu_retire(&s); /* the ops walked one by one in chase_op */
                        chase_step_end(&c, CHASE_LOADS * k);
                        end = c.q;
                } else {
                        vpmu_retire(&s);
                }
                done += k;
        }
        return end;
}

/* ---- the fixed-cost block ------------------------------------------------------------------- */

struct block_ctx {
        uint64_t lo, hi;
};

static void block_op(void *arg, uint64_t i, struct vpmu_op *out)
{
        struct block_ctx *b = arg;

        *out = (struct vpmu_op){ .rip = b->lo + (i * 4) % (b->hi - b->lo) };
}

void __wrap_bench_block_run(uint64_t n)
{
        struct block_ctx b = { addr(bench_block_top), addr(bench_block_end) };
        struct vpmu_branch br = { .from = addr(bench_block_jcc), .to = addr(bench_block_top),
                                  .cycles = BENCH_BLOCK_NOMINAL_CYCLES };
        struct vpmu_step s = { .rip_lo = b.lo, .rip_hi = b.hi, .br = &br, .op_at = block_op,
                               .ctx = &b, .own_clock = true };

        /* The block costs what it is built to cost, BENCH_BLOCK_NOMINAL_CYCLES per iteration
         * (a chain of dependent imul): the core and reference cycles of its time are that
         * count, not the host's time, and each taken jnz records it in the LBR. The cycles
         * counter and the LBR cycle counts then add up whatever the host's load. The time
         * the harness took up to the call is counted as its own, as any other. */
        vp_accrue(&vp_harness_step);
        if (!vpmu_part())
                __real_bench_block_run(n);
        for (uint64_t done = 0; vpmu_part() && done < n;) {
                uint64_t k = n - done < 64 ? n - done : 64;

                if (vpmu_wants_ops())
                        k = 1;
                /* The kernel itself has no effect but time, which the step declares: it
                 * is not run. */
                s.n[VE_INSNS] = k * BENCH_BLOCK_INSNS_PER_ITER;
                s.n[VE_BRANCHES] = k * BENCH_BLOCK_BRANCHES_PER_ITER;
                s.n[VE_OPS] = k * (BENCH_BLOCK_INSNS_PER_ITER - 1);
                s.n[VE_CYCLES] = k * BENCH_BLOCK_NOMINAL_CYCLES;
                s.n[VE_REF_CYCLES] = k * BENCH_BLOCK_NOMINAL_CYCLES / VPMU_CORE_PER_TSC;
                vpmu_retire(&s);
                done += k;
        }
        vp_clock_skip();
}

/* ---- the MMU under the samples ---------------------------------------------------------- */

/* The sampling phase checks sampled physical addresses with a software walk of the live page
 * tables (CR3). The test platform maps every buffer identity with 4 KiB pages
 * (tests/fake_plat.c plat_virt_to_phys, plat_alloc_pages), so the live tables are that: the
 * attach hands out a marked tree and the walk of a marked tree translates by identity inside
 * the buffers the platform allocated. Any other tree is walked for real. */
#define LIVE_ROOT_MARK 0x7f0000000000ull

status_t __real_bench_pt_walk(const struct bench_pt *pt, uint64_t va, uint64_t *pa,
                              uint64_t *page_bytes, uint64_t *flags);
status_t __wrap_bench_pt_walk(const struct bench_pt *pt, uint64_t va, uint64_t *pa,
                              uint64_t *page_bytes, uint64_t *flags);
status_t __wrap_bench_ptlive_attach(struct bench_pt *pt, const struct cpu_info *cpu,
                                    const char **why);

status_t __wrap_bench_ptlive_attach(struct bench_pt *pt, const struct cpu_info *cpu,
                                    const char **why)
{
        (void)cpu;
        (void)why;
        memset(pt, 0, sizeof(*pt));
        pt->root_pa = LIVE_ROOT_MARK;
        return ST_OK;
}

status_t __wrap_bench_pt_walk(const struct bench_pt *pt, uint64_t va, uint64_t *pa,
                              uint64_t *page_bytes, uint64_t *flags)
{
        if (!pt || pt->root_pa != LIVE_ROOT_MARK)
                return __real_bench_pt_walk(pt, va, pa, page_bytes, flags);
        for (unsigned i = n_bufs; i-- > 0;)
                if (va >= bufs[i].lo && va < bufs[i].lo + bufs[i].bytes) {
                        *pa = va;
                        if (page_bytes)
                                *page_bytes = 4096;
                        if (flags)
                                *flags = 0;
                        return ST_OK;
                }
        return ST_NOT_FOUND;
}
