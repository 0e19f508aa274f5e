/** @file Tests of the latency buffer's page size (app/latency_pages.c) and the hooks it uses:
 *  the window hooks in bench_chase_window, the TLB refill length, the sweep's remap call
 *  (bench/measure.c) and the own tables with 2 MiB pages (bench/x86/ownpt.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/latency_pages.h"
#include "bench/kernel_chase.h"
#include "bench/kernel_tlb.h"
#include "report/rep.h"
#include "tests/fake_plat.h"

/* CR3, CR4 and the flush are the fake MMU's (tests/unittests.cfg wraps them at link time). */
uint64_t __wrap_bench_cr3_read(void);
uint64_t __wrap_bench_cr4_read(void);
void     __wrap_bench_tlb_flush_all(void);

uint64_t __wrap_bench_cr3_read(void)
{
        return fake_plat_cr3();
}

uint64_t __wrap_bench_cr4_read(void)
{
        return BENCH_CR4_PGE;
}

void __wrap_bench_tlb_flush_all(void)
{
}

/* ---- page choice ----------------------------------------------------------------------- */

static void test_choose(void **unused)
{
        static const struct {
                enum config_pages   want;
                enum plat_page_kind profile, got;
        } cases[] = {
                { CONFIG_PAGES_AUTO, PLAT_PAGE_4K, PLAT_PAGE_4K }, /* quick */
                { CONFIG_PAGES_AUTO, PLAT_PAGE_2M, PLAT_PAGE_2M }, /* full, sampling */
                { CONFIG_PAGES_4K, PLAT_PAGE_2M, PLAT_PAGE_4K },
                { CONFIG_PAGES_4K, PLAT_PAGE_4K, PLAT_PAGE_4K },
                { CONFIG_PAGES_2M, PLAT_PAGE_4K, PLAT_PAGE_2M },
                { CONFIG_PAGES_2M, PLAT_PAGE_2M, PLAT_PAGE_2M },
                { (enum config_pages)7, PLAT_PAGE_2M, PLAT_PAGE_2M }, /* unknown: the profile's */
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
                assert_int_equal(lat_pages_choose(cases[i].want, cases[i].profile), cases[i].got);
}

/* ---- TLB refill length ----------------------------------------------------------------- */

static void test_refill_iters(void **unused)
{
        static const struct {
                uint64_t ws, page, iters;
        } cases[] = {
                /* 8 loads per page, one lap at most (ws / 64 loads), / 32 per iteration, + 1 */
                { 4 * KiB, 4 * KiB, 8 / 32 + 1 },              /* 1 page: 8 loads */
                { 64 * KiB, 4 * KiB, 16 * 8 / 32 + 1 },        /* 16 pages */
                { 1 * MiB, 4 * KiB, 256 * 8 / 32 + 1 },
                { 1 * MiB + 1, 4 * KiB, 257 * 8 / 32 + 1 },    /* a partial page counts */
                { 64 * MiB, 4 * KiB, 4096 * 8 / 32 + 1 },      /* capped at 4096 pages */
                { 4 * KiB, 2 * MiB, 8 / 32 + 1 },              /* one page; the lap is 64 */
                { 256, 4 * KiB, 256 / 64 / 32 + 1 },           /* lap (4 loads) < 8 */
                { 64 * MiB, 2 * MiB, 32 * 8 / 32 + 1 },
                { 1 * GiB, 2 * MiB, 512 * 8 / 32 + 1 },
                { 1 * MiB, 0, 1 },                             /* no page size: minimal */
                { 0, 4 * KiB, 1 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
                if (bench_refill_iters(cases[i].ws, cases[i].page) != cases[i].iters)
                        fail_msg("case %zu: ws %llu page %llu: %llu, want %llu", i,
                                 (unsigned long long)cases[i].ws,
                                 (unsigned long long)cases[i].page,
                                 (unsigned long long)bench_refill_iters(cases[i].ws,
                                                                        cases[i].page),
                                 (unsigned long long)cases[i].iters);
}

/* ---- window hooks ---------------------------------------------------------------------- */

struct hook_log {
        unsigned n_enter, n_leave;
        char     seq[16];
        status_t enter_st;
};

static status_t log_enter(void *ctx)
{
        struct hook_log *h = ctx;
        size_t           k = strlen(h->seq);

        h->n_enter++;
        if (k + 1 < sizeof(h->seq))
                h->seq[k] = 'e';
        return h->enter_st;
}

static void log_leave(void *ctx)
{
        struct hook_log *h = ctx;
        size_t           k = strlen(h->seq);

        h->n_leave++;
        if (k + 1 < sizeof(h->seq))
                h->seq[k] = 'l';
}

/* Where the chain at @p p is after @p loads dependent loads, stepped by hand. */
static void *step(void *p, uint64_t loads)
{
        while (loads--)
                p = *(void **)p;
        return p;
}

static void test_window_hooks(void **unused)
{
        const size_t           bytes = 64 * KiB;
        void                  *buf   = aligned_alloc(4096, bytes), *start, *p;
        struct bench_chain_cfg cc    = { .layout = BENCH_LAYOUT_RANDOM, .line_bytes = 64,
                                         .seed = 42 };
        struct bench_clock     clk   = { .kind = LAT_CLOCK_TSC };
        struct bench_guard     g     = { 0 };
        struct bench_window    w;
        struct hook_log        h     = { .enter_st = ST_OK };
        const uint64_t         iters = 5;

        assert_int_equal(bench_chain_build(buf, bytes, &cc, &start), ST_OK);

        /* No hooks: N + 2N iterations, nothing else. */
        p = start;
        assert_int_equal(bench_chase_window(&p, iters, &clk, &g, &w), ST_OK);
        assert_ptr_equal(p, step(start, 3 * iters * BENCH_CHASE_UNROLL));

        /* Hooks: entered and left once each, in that order, and the untimed refill runs
         * the window's iters when the sweep set no length ... */
        g.hooks = (struct bench_window_hooks){ .enter = log_enter, .leave = log_leave, .ctx = &h };
        p       = start;
        assert_int_equal(bench_chase_window(&p, iters, &clk, &g, &w), ST_OK);
        assert_int_equal(h.n_enter, 1);
        assert_int_equal(h.n_leave, 1);
        assert_string_equal(h.seq, "el");
        assert_ptr_equal(p, step(start, 4 * iters * BENCH_CHASE_UNROLL));
        assert_true(w.t_2n > w.t_n);

        /* ... or the refill length it set. */
        g.hooks.refill_iters = 11;
        p                    = start;
        assert_int_equal(bench_chase_window(&p, iters, &clk, &g, &w), ST_OK);
        assert_ptr_equal(p, step(start, (11 + 3 * iters) * BENCH_CHASE_UNROLL));
        assert_string_equal(h.seq, "elel");

        /* A failing enter ends the window with its status: no leave, chain position kept. */
        h.enter_st = ST_UNSUPPORTED;
        p          = start;
        assert_int_equal(bench_chase_window(&p, iters, &clk, &g, &w), ST_UNSUPPORTED);
        assert_ptr_equal(p, start);
        assert_int_equal(h.n_enter, 3);
        assert_int_equal(h.n_leave, 2);
        free(buf);
}

/* ---- the sweep's remap call ------------------------------------------------------------ */

struct remap_log {
        unsigned            n_calls;
        enum plat_page_kind want, got;
        uint64_t            bytes;
        void               *buf;
        status_t            st;
        struct hook_log     h;
};

static status_t fake_remap(void *ctx, void *buf, uint64_t bytes, enum plat_page_kind want,
                           enum plat_page_kind got, struct bench_window_hooks *hooks)
{
        struct remap_log *r = ctx;

        r->n_calls++;
        r->want  = want;
        r->got   = got;
        r->bytes = bytes;
        r->buf   = buf;
        /* a failing remap may leave half-set hooks behind: the sweep must drop them */
        *hooks = (struct bench_window_hooks){ .enter = log_enter, .leave = log_leave, .ctx = &r->h };
        return r->st;
}

static void test_sweep_remap(void **unused)
{
        static const struct {
                enum plat_page_kind ask;
                status_t            st;
                unsigned            calls;
                bool                remapped;
                enum plat_page_kind used;
        } cases[] = {
                /* fake_plat backs everything with 4 KiB pages */
                { PLAT_PAGE_4K, ST_OK, 0, false, PLAT_PAGE_4K },          /* as asked: no call */
                { PLAT_PAGE_2M, ST_OK, 1, true, PLAT_PAGE_2M },           /* remapped */
                { PLAT_PAGE_2M, ST_UNSUPPORTED, 1, false, PLAT_PAGE_4K }, /* CR3 not loadable */
                { PLAT_PAGE_2M, ST_BAD_DATA, 1, false, PLAT_PAGE_4K },    /* self-check failed */
        };
        struct cpu_info cpu = { .vendor = VEN_AMD };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct remap_log        r   = { .st = cases[i].st, .h = { .enter_st = ST_OK } };
                struct bench_sweep_cfg  cfg = {
                        .profile = BENCH_PROFILE_QUICK, .layout = BENCH_LAYOUT_RANDOM,
                        .page = cases[i].ask, .repetitions = 11, .max_bytes = 64 * KiB,
                        .seed = 1, .remap = fake_remap, .remap_ctx = &r,
                };
                struct lat_curve        c;
                struct bench_sweep_info info;

                assert_int_equal(bench_sweep_run(&cfg, &cpu, &c, &info), ST_OK);
                assert_int_equal(r.n_calls, cases[i].calls);
                assert_int_equal(info.page_got, PLAT_PAGE_4K);
                assert_int_equal(info.page_used, cases[i].used);
                assert_int_equal(info.remapped, cases[i].remapped);
                /* interleaved passes: every point got its 11 windows over the five of them,
                 * or, where most were disturbed (a host-L1 edge under ASan), at least the 6
                 * tries per missing window a point measured in one go had */
                assert_int_equal(info.passes, 5);
                for (size_t k = 0; k < c.n; k++)
                        assert_true(c.pts[k].n_windows >= 11 ||
                                    c.pts[k].n_windows + c.pts[k].n_disturbed >=
                                            6u * (11u - c.pts[k].n_windows));
                if (cases[i].calls) {
                        assert_int_equal(r.want, cases[i].ask);
                        assert_int_equal(r.got, PLAT_PAGE_4K);
                        assert_true(r.bytes % (2 * MiB) == 0 && r.bytes >= 64 * KiB);
                        assert_true((uintptr_t)r.buf % 4096 == 0);
                }
                /* every window ran under the hooks when remapped, none otherwise */
                assert_int_equal(r.h.n_enter, r.h.n_leave);
                if (cases[i].remapped) {
                        assert_true(r.h.n_enter >= c.n * 11u);
                        bool match = false; /* set per point: the last one measured */
                        for (size_t k = 0; k < c.n; k++)
                                match |= info.guard.hooks.refill_iters ==
                                         bench_refill_iters(c.pts[k].ws_bytes, 2 * MiB);
                        assert_true(match && info.guard.hooks.refill_iters > 0);
                } else {
                        assert_int_equal(r.h.n_enter, 0);
                        assert_null(info.guard.hooks.enter);
                }
                bench_sweep_free(&c);
        }
}

/* ---- own tables with 2 MiB or 4 KiB pages ---------------------------------------------- */

/* Over the fake memory map ([0, 640 KiB), [1 MiB, 2 GiB) RAM, MMIO at 0xfec00000): only
 * addresses are mapped and walked, so the buffers need not exist on the host. */
static void test_own_pages(void **unused)
{
        static const struct {
                uint64_t buf, bytes, page;
                status_t st;
                uint64_t walked;
        } cases[] = {
                { 512 * MiB, 8 * MiB, 2 * MiB, ST_OK, 4 },
                { 2 * MiB, 2 * MiB, 2 * MiB, ST_OK, 1 },
                { 512 * MiB, 64 * KiB, 4 * KiB, ST_OK, 16 },
                { 512 * MiB + 4 * KiB, 2 * MiB, 2 * MiB, ST_BAD_ARG, 0 }, /* misaligned */
                { 512 * MiB, 3 * MiB, 2 * MiB, ST_BAD_ARG, 0 },           /* not whole pages */
                { 512 * MiB, 1 * GiB, 1 * GiB, ST_BAD_ARG, 0 },           /* 1 GiB: not here */
        };
        struct cpu_info ci = { .pdpe1gb = true, .max_ext_leaf = 0x80000008,
                               .phys_addr_bits = 48 };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct bench_ownpt o;
                uint64_t           n = 99, pa, sz;
                const void        *b = (const void *)(uintptr_t)cases[i].buf;

                assert_int_equal(bench_ownpt_build_pages(&o, &ci, b, cases[i].bytes,
                                                         cases[i].page), cases[i].st);
                if (cases[i].st != ST_OK) {
                        bench_ownpt_free(&o);
                        continue;
                }
                assert_int_equal(bench_ownpt_check(&o, b, cases[i].bytes, cases[i].page, &n),
                                 ST_OK);
                assert_int_equal(n, cases[i].walked);
                /* the other size fails the check at the first page */
                uint64_t other = cases[i].page == 2 * MiB ? 4 * KiB : 2 * MiB;
                if (cases[i].bytes % other == 0)
                        assert_int_equal(bench_ownpt_check(&o, b, cases[i].bytes, other, &n),
                                         ST_BAD_DATA);
                assert_int_equal(bench_ownpt_check(&o, b, cases[i].bytes, 1 * GiB, &n),
                                 ST_BAD_ARG);
                /* the last byte of the buffer and the byte after it */
                uint64_t end = cases[i].buf + cases[i].bytes;
                assert_int_equal(bench_pt_walk(&o.pt, end - 1, &pa, &sz, NULL), ST_OK);
                assert_int_equal(pa, end - 1);
                assert_int_equal(sz, cases[i].page);
                assert_int_equal(bench_pt_walk(&o.pt, end, &pa, &sz, NULL), ST_OK);
                assert_int_equal(pa, end);
                bench_ownpt_free(&o);
        }
}

/* ---- lat_pages_remap on the host ------------------------------------------------------- */

/* On the host the buffer maps fine, but the harness's code and stack lie outside the fake
 * memory map: the self-check refuses the tables, nothing is hooked, the verdict is a FAIL
 * that names the pages walked, and the method says the firmware's mapping was kept. */
static void test_remap_host(void **unused)
{
        struct cpu_info           ci  = { .pdpe1gb = true, .max_ext_leaf = 0x80000008,
                                          .phys_addr_bits = 48 };
        struct lat_pages          lp  = { .cpu = &ci };
        struct bench_window_hooks hk  = { 0 };
        struct bench_sweep_cfg    cfg = { .page = PLAT_PAGE_4K };
        struct bench_sweep_info   in  = { .page_got = PLAT_PAGE_2M, .page_used = PLAT_PAGE_2M };
        void                     *buf = NULL;

        assert_int_equal(plat_alloc_pages(64 * KiB, PLAT_PAGE_4K, &buf, NULL), ST_OK);
        assert_int_equal(lat_pages_remap(&lp, buf, 64 * KiB, PLAT_PAGE_4K, PLAT_PAGE_2M, &hk),
                         ST_BAD_DATA);
        assert_null(hk.enter);
        assert_true(lp.tried && lp.checked && !lp.check_ok);
        assert_int_equal(lp.n_pages, 16);
        assert_int_equal(lp.n_walked, 16);
        assert_non_null(strstr(lp.why, "self-check"));

        struct rep_buf cap = { 0 };
        rep_reset();
        assert_int_equal(rep_add_sink(rep_buf_sink(&cap)), ST_OK);
        lat_pages_checks(&lp);
        lat_pages_method(&lp, &cfg, &in);
        rep_reset();
        assert_non_null(cap.p);
        assert_non_null(strstr(cap.p, "FAIL: own page tables: 16 of 16 pages"));
        assert_null(strstr(cap.p, "CR3 restored")); /* no window ran under them */
        assert_non_null(strstr(cap.p, "4k asked, 2m obtained (firmware identity map: the own "
                                      "mapping failed its self-check"));
        rep_buf_free(&cap);
        assert_string_equal(lat_pages_tables_name(&in), "firmware identity map");
        in.remapped = true;
        assert_string_equal(lat_pages_tables_name(&in), "harness page tables");
        assert_string_equal(lat_pages_tables_name(NULL), "firmware identity map");

        /* No CPU description, or 1 GiB asked: refused before anything is built. */
        lat_pages_free(&lp);
        lat_pages_free(&lp);
        struct lat_pages none = { 0 };
        assert_int_equal(lat_pages_remap(&none, buf, 64 * KiB, PLAT_PAGE_4K, PLAT_PAGE_2M, &hk),
                         ST_UNSUPPORTED);
        assert_false(none.checked);
        struct lat_pages big = { .cpu = &ci };
        assert_int_equal(lat_pages_remap(&big, buf, 64 * KiB, PLAT_PAGE_1G, PLAT_PAGE_2M, &hk),
                         ST_UNSUPPORTED);
        assert_int_equal(big.own.n_chunks, 0);
        assert_null(hk.enter);
        plat_free_pages(buf, 64 * KiB);
}

/* Where the firmware's map covers the harness (its code, stack and heap), the own tables pass
 * their self-check and the hooks switch CR3 in every window. The verdict on the way back:
 * with the firmware's CR3 restored after each of 3 windows it PASSes; where the restore does
 * not take, the load that proves CR3 once already reads back the harness's root, and it
 * FAILs (the windows after it saved that root, so they count no more). */
static void test_remap_cr3(void **unused)
{
        static const struct { bool restores; const char *want; } cases[] = {
                { true, "PASS: firmware CR3 restored after every window (3 windows, 0 differed)" },
                { false, "FAIL: firmware CR3 restored after every window (3 windows, 1 differed)" },
        };
        struct cpu_info ci  = { .pdpe1gb = true, .max_ext_leaf = 0x80000008,
                                .phys_addr_bits = 48 };
        void           *buf = NULL;
        (void)unused;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct lat_pages          lp = { .cpu = &ci };
                struct bench_window_hooks hk = { 0 };
                struct rep_buf            cap = { 0 };

                fake_plat_reset();
                fake_plat_set_mmu(PLAT_PAGE_2M, true, cases[i].restores, true);
                assert_int_equal(plat_alloc_pages(64 * KiB, PLAT_PAGE_4K, &buf, NULL), ST_OK);
                assert_int_equal(lat_pages_remap(&lp, buf, 64 * KiB, PLAT_PAGE_4K, PLAT_PAGE_2M,
                                                 &hk), ST_OK);
                assert_true(lp.check_ok && lp.flush);
                assert_non_null(hk.enter);
                for (unsigned w = 0; w < 3; w++) {
                        assert_int_equal(hk.enter(hk.ctx), ST_OK);
                        assert_int_not_equal(fake_plat_cr3(), FAKE_PLAT_FIRMWARE_CR3);
                        hk.leave(hk.ctx);
                }
                rep_reset();
                assert_int_equal(rep_add_sink(rep_buf_sink(&cap)), ST_OK);
                lat_pages_checks(&lp);
                rep_reset();
                if (!cap.p || !strstr(cap.p, "PASS: own page tables: 16 of 16 pages") ||
                    !strstr(cap.p, cases[i].want))
                        fail_msg("restores %d: console:\n%s", cases[i].restores,
                                 cap.p ? cap.p : "");
                rep_buf_free(&cap);
                lat_pages_free(&lp);
                plat_free_pages(buf, 64 * KiB);
        }
        fake_plat_set_mmu(PLAT_PAGE_4K, false, false, false);
        fake_plat_reset();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_choose),       cmocka_unit_test(test_refill_iters),
                cmocka_unit_test(test_window_hooks), cmocka_unit_test(test_sweep_remap),
                cmocka_unit_test(test_own_pages),    cmocka_unit_test(test_remap_host),
                cmocka_unit_test(test_remap_cr3),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
