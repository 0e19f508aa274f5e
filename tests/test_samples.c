/** @file Unit tests for report/x86/samples*.c: grouping (against a brute-force oracle), latency
 * histogram, the dcache text report and every validation check (PASS, FAIL and SKIP). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/x86/samples.h"

static struct psample ld(uint64_t ip, uint64_t la, bool miss, uint32_t lat)
{
        struct psample s;

        memset(&s, 0, sizeof(s));
        s.ip = ip;
        s.ip_valid = true;
        s.ip_exact = true;
        s.is_load = true;
        s.data_la = la;
        s.data_la_valid = la != 0;
        s.l1_miss_known = true;
        s.l1_miss = miss;
        s.lat_cycles = lat;
        s.lat_valid = lat != 0;
        s.level = miss ? PS_LVL_L3 : PS_LVL_L1;
        return s;
}

static const struct rep_lat_bucket buckets[] = {
        { "L1", 5 }, { "L2", 15 }, { "L3", 60 }, { "DRAM", 400 },
};

static void test_top_small(void **state)
{
        struct psample s[] = {
                ld(0xa, 0x1000, true, 50), ld(0xa, 0x1008, true, 70), ld(0xa, 0x1040, false, 0),
                ld(0xb, 0x2000, true, 300), ld(0xc, 0, false, 0), ld(0xc, 0, false, 0),
                ld(0xd, 0x3000, true, 9),
        };
        struct rep_site w[8];
        size_t d = 0;

        (void)state;
        s[6].ip_valid = false;
        assert_int_equal(rep_samples_top(s, 7, REP_KEY_IP, 0, w, 8, &d), ST_OK);
        assert_int_equal(d, 3);
        assert_int_equal(w[0].key, 0xa);
        assert_int_equal(w[0].n, 3);
        assert_int_equal(w[0].n_miss, 2);
        assert_int_equal(w[0].n_lat, 2);
        assert_int_equal(w[0].sum_lat_cycles, 120);
        assert_int_equal(w[0].max_lat_cycles, 70);
        assert_int_equal(w[1].key, 0xc);
        assert_int_equal(w[2].key, 0xb);
        assert_int_equal(rep_samples_top(s, 7, REP_KEY_IP, REP_SF_MISSES_ONLY, w, 8, &d), ST_OK);
        assert_int_equal(d, 2);
        assert_int_equal(w[0].key, 0xa);
        assert_int_equal(w[0].n, 2);
        assert_int_equal(rep_samples_top(s, 7, REP_KEY_DATA_LINE, 0, w, 8, &d), ST_OK);
        assert_int_equal(d, 4);
        assert_int_equal(w[0].key, 0x1000);
        assert_int_equal(w[0].n, 2);
        assert_int_equal(rep_samples_top(s, 7, REP_KEY_DATA_ADDR, 0, w, 8, &d), ST_OK);
        assert_int_equal(d, 5);
        assert_int_equal(rep_samples_top(s, 7, REP_KEY_IP, 0, w, 5, &d), ST_NO_SPACE);
        assert_int_equal(rep_samples_top(s, 0, REP_KEY_IP, 0, w, 0, &d), ST_OK);
        assert_int_equal(d, 0);
        assert_int_equal(rep_samples_top(NULL, 3, REP_KEY_IP, 0, w, 8, &d), ST_BAD_ARG);
}

/* Oracle: counts per key by brute force over pseudo-random samples. */
static void test_top_oracle(void **state)
{
        enum { N = 2000 };
        static struct psample s[N];
        static struct rep_site w[N];
        uint64_t x = 12345;
        size_t d = 0, total = 0;

        (void)state;
        for (size_t i = 0; i < N; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                s[i] = ld(0x400000 + ((x >> 33) % 37) * 4, 0x1000, (x >> 20) & 1,
                          (uint32_t)((x >> 40) % 500));
        }
        assert_int_equal(rep_samples_top(s, N, REP_KEY_IP, 0, w, N, &d), ST_OK);
        assert_true(d <= 37);
        for (size_t j = 0; j < d; j++) {
                uint32_t n = 0, miss = 0;
                uint64_t sum = 0;

                for (size_t i = 0; i < N; i++)
                        if (s[i].ip == w[j].key) {
                                n++;
                                miss += s[i].l1_miss;
                                sum += s[i].lat_valid ? s[i].lat_cycles : 0;
                        }
                assert_int_equal(w[j].n, n);
                assert_int_equal(w[j].n_miss, miss);
                assert_int_equal(w[j].sum_lat_cycles, sum);
                if (j > 0)
                        assert_true(w[j - 1].n > w[j].n ||
                                    (w[j - 1].n == w[j].n && w[j - 1].key < w[j].key));
                total += n;
        }
        assert_int_equal(total, N);
}

static void test_hist(void **state)
{
        static const uint32_t lat[] = { 4, 5, 6, 15, 16, 60, 61, 400, 401, 1000 };
        struct psample s[12];
        uint64_t c[5];
        const struct rep_lat_bucket bad[] = { { "a", 10 }, { "b", 10 } };

        (void)state;
        for (size_t i = 0; i < 10; i++)
                s[i] = ld(1, 0x1000, true, lat[i]);
        s[10] = ld(1, 0x1000, true, 0);           /* no latency: not counted */
        s[11] = ld(1, 0x1000, false, 3);          /* L1 hit: filtered by MISSES_ONLY */
        assert_int_equal(rep_samples_lat_hist(s, 12, REP_SF_MISSES_ONLY, buckets, 4, c), ST_OK);
        for (size_t j = 0; j < 5; j++)
                assert_int_equal(c[j], 2);
        assert_int_equal(rep_samples_lat_hist(s, 12, 0, buckets, 4, c), ST_OK);
        assert_int_equal(c[0], 3);
        assert_int_equal(rep_samples_lat_hist(s, 12, 0, bad, 2, c), ST_BAD_ARG);
        assert_int_equal(rep_samples_lat_hist(s, 12, 0, buckets, 0, c), ST_BAD_ARG);
}

static void test_dcache_report(void **state)
{
        struct psample s[] = {
                ld(0x401000, 0x7f0000001000, true, 300), ld(0x401000, 0x7f0000001000, true, 280),
                ld(0x401010, 0x7f0000002040, true, 40), ld(0x401020, 0x7f0000003000, false, 0),
        };
        struct rep_site w[4];
        struct rep_dcache_in in = { .title = "chase 64 MiB", .s = s, .n = 4,
                                    .buckets = buckets, .n_buckets = 4, .period = 65536,
                                    .top_n = 10, .work = w, .n_work = 4 };
        struct rep_buf b = { 0 };

        (void)state;
        assert_int_equal(rep_samples_dcache_report(&in, &b), ST_OK);
        assert_non_null(strstr(b.p, "dcache: chase 64 MiB"));
        assert_non_null(strstr(b.p, "sampled L1 misses 3"));
        assert_non_null(strstr(b.p, "DRAM (61-400)"));
        assert_non_null(strstr(b.p, "Top 2 VA that caused dcache misses (of 2)"));
        assert_non_null(strstr(b.p, "0x00007f0000001000         2         2       290"));
        assert_non_null(strstr(b.p, "0x0000000000401000         2         2       290       300"));
        assert_non_null(strstr(b.p, "L3"));
        rep_buf_free(&b);
        in.n_work = 1;
        assert_int_equal(rep_samples_dcache_report(&in, &b), ST_NO_SPACE);
        rep_buf_free(&b);
        assert_int_equal(rep_samples_dcache_report(NULL, &b), ST_BAD_ARG);
}

static void test_check_addrs_phys(void **state)
{
        static const uint64_t lines[] = { 0x10000, 0x10040, 0x10080 };
        static const struct rep_xlat map[] = {
                { 0x8000, 0x100000, 0x1000 }, { 0x10000, 0x200000, 0x1000 },
        };
        struct psample s[3] = { ld(1, 0x10000, true, 9), ld(1, 0x10048, true, 9),
                                ld(1, 0x10080, true, 9) };
        struct rep_verdict v;

        (void)state;
        assert_int_equal(rep_check_addrs_in_chain(s, 3, 0x10000, 0x1000, lines, 3, 64, &v),
                         ST_OK);
        assert_int_equal(v.v, REP_V_PASS);
        assert_int_equal(v.measured, 3);
        assert_int_equal(v.expected, 3);
        s[2].data_la = 0x100c0;                   /* inside the buffer, line never visited */
        assert_int_equal(rep_check_addrs_in_chain(s, 3, 0x10000, 0x1000, lines, 3, 64, &v),
                         ST_OK);
        assert_int_equal(v.v, REP_V_FAIL);
        assert_int_equal(v.measured, 2);
        assert_non_null(strstr(v.why, "0x100c0"));
        s[2].data_la = 0x20000;                   /* outside the buffer */
        rep_check_addrs_in_chain(s, 3, 0x10000, 0x1000, lines, 3, 64, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        /* the first byte past the buffer, on a line the chain lists: still outside */
        static const uint64_t lines_past[] = { 0x10000, 0x10040, 0x11000 };
        s[2].data_la = 0x11000;
        s[1].data_la = 0x10040;
        rep_check_addrs_in_chain(s, 3, 0x10000, 0x1000, lines_past, 3, 64, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        assert_int_equal(v.measured, 2);
        s[1].data_la = 0x10048;
        s[0].data_la_valid = s[1].data_la_valid = s[2].data_la_valid = false;
        rep_check_addrs_in_chain(s, 3, 0x10000, 0x1000, lines, 3, 64, &v);
        assert_int_equal(v.v, REP_V_SKIP);
        assert_int_equal(rep_check_addrs_in_chain(s, 3, 0x10000, 0x1000, lines, 3, 48, &v),
                         ST_BAD_ARG);

        s[0] = ld(1, 0x10040, true, 9);
        s[0].data_pa = 0x200040;
        s[0].data_pa_valid = true;
        s[1] = ld(1, 0x8010, true, 9);
        s[1].data_pa = 0x100010;
        s[1].data_pa_valid = true;
        assert_int_equal(rep_check_phys(s, 2, map, 2, &v), ST_OK);
        assert_int_equal(v.v, REP_V_PASS);
        assert_int_equal(v.measured, 2);
        s[1].data_pa = 0x100018;
        rep_check_phys(s, 2, map, 2, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        assert_int_equal(v.measured, 1);
        s[1].data_la = 0x9000;                    /* not mapped by the harness */
        rep_check_phys(s, 2, map, 2, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        rep_check_phys(s, 0, map, 2, &v);
        assert_int_equal(v.v, REP_V_SKIP);
}

static int cmp_u32(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        return x < y ? -1 : x > y;
}

static void test_check_latency(void **state)
{
        struct psample s[64];
        uint32_t sorted[64];
        struct rep_verdict v;
        uint64_t x = 99;

        (void)state;
        for (int i = 0; i < 11; i++)
                s[i] = ld(1, 0x1000, true, (uint32_t)(40 + i));
        assert_int_equal(rep_check_latency(s, 11, 0, 38, 52, 1000, &v), ST_OK);
        assert_int_equal(v.v, REP_V_PASS);
        assert_int_equal(v.measured, 45);
        rep_check_latency(s, 11, 0, 46, 60, 100, &v);
        assert_int_equal(v.v, REP_V_FAIL);        /* median 45 below the range */
        s[10].lat_cycles = 900;                   /* one outlier: 10/11 = 909 permille */
        rep_check_latency(s, 11, 0, 38, 52, 900, &v);
        assert_int_equal(v.v, REP_V_PASS);
        rep_check_latency(s, 11, 0, 38, 52, 950, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        rep_check_latency(s, 11, REP_SF_LOADS_ONLY, 38, 52, 0, &v);
        assert_int_equal(v.measured, 45);
        /* Oracle: the median equals the sorted array's lower median for odd and even n. */
        for (int n = 1; n <= 64; n++) {
                for (int i = 0; i < n; i++) {
                        x = x * 6364136223846793005ull + 1;
                        s[i] = ld(1, 0x1000, true, (uint32_t)((x >> 33) % 1000) + 1);
                        sorted[i] = s[i].lat_cycles;
                }
                qsort(sorted, (size_t)n, sizeof(sorted[0]), cmp_u32);
                rep_check_latency(s, (size_t)n, 0, 0, 2000, 0, &v);
                assert_int_equal(v.measured, sorted[(n - 1) / 2]);
        }
        for (int i = 0; i < 4; i++)
                s[i].lat_valid = false;
        rep_check_latency(s, 4, 0, 0, 10, 0, &v);
        assert_int_equal(v.v, REP_V_SKIP);
        assert_int_equal(rep_check_latency(s, 4, 0, 10, 5, 0, &v), ST_BAD_ARG);
}

static void test_check_level_tlb(void **state)
{
        struct psample s[10];
        struct rep_verdict v;

        (void)state;
        for (int i = 0; i < 10; i++)
                s[i] = ld(1, 0x1000, true, 50);
        s[9].level = PS_LVL_LOCAL_DRAM;
        assert_int_equal(rep_check_level(s, 10, PS_LVL_L3, 850, &v), ST_OK);
        assert_int_equal(v.v, REP_V_PASS);
        assert_int_equal(v.measured, 900);
        rep_check_level(s, 10, PS_LVL_L3, 950, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        rep_check_level(s, 10, PS_LVL_L3, 900, &v); /* the share exactly at the bound passes */
        assert_int_equal(v.v, REP_V_PASS);
        rep_check_level(s, 10, PS_LVL_L3, 901, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        s[0].level = PS_LVL_UNKNOWN;              /* unknown levels are not counted */
        rep_check_level(s, 10, PS_LVL_L3, 0, &v);
        assert_int_equal(v.measured, 889);
        rep_check_level(s, 0, PS_LVL_L3, 0, &v);
        assert_int_equal(v.v, REP_V_SKIP);
        assert_int_equal(rep_check_level(s, 10, PS_LVL__COUNT, 0, &v), ST_BAD_ARG);

        for (int i = 0; i < 4; i++) {
                s[i].tlb_l2_known = true;
                s[i].tlb_l2_miss = i < 3;
                s[i].pgsz = PS_PG_UNKNOWN;
        }
        for (int i = 4; i < 10; i++)
                s[i].tlb_l2_known = false;
        rep_check_tlb(s, 10, true, PS_PG_4K, 700, &v);
        assert_int_equal(v.v, REP_V_PASS);
        assert_int_equal(v.measured, 750);
        s[0].pgsz = PS_PG_2M;                     /* reported size disagrees with the map */
        rep_check_tlb(s, 10, true, PS_PG_4K, 700, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        assert_int_equal(v.measured, 500);
        rep_check_tlb(s + 4, 6, true, PS_PG_4K, 700, &v);
        assert_int_equal(v.v, REP_V_SKIP);
        assert_int_equal(psample_pgsz_from_plat(PLAT_PAGE_2M), PS_PG_2M);
}

static void test_check_count(void **state)
{
        static const struct {
                uint64_t n, events, period; uint32_t tol; enum rep_verdict_kind want;
        } cases[] = {
                { 100, 100000, 1000, 50, REP_V_PASS },
                { 105, 100000, 1000, 50, REP_V_PASS },
                { 106, 100000, 1000, 50, REP_V_FAIL },
                { 80, 100000, 1000, 100, REP_V_FAIL },
                { 2, 1500, 1000, 0, REP_V_PASS },          /* tolerance at least 1 */
                { 3, 1500, 1000, 0, REP_V_FAIL },
                { 5, 0, 1000, 0, REP_V_SKIP },
                { 5, 1000, 0, 0, REP_V_SKIP },
        };
        struct rep_verdict v;

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                assert_int_equal(rep_check_sample_count(cases[i].n, cases[i].events,
                                                        cases[i].period, cases[i].tol, &v),
                                 ST_OK);
                assert_int_equal(v.v, cases[i].want);
                assert_int_equal(v.measured, (int64_t)cases[i].n);
        }
        assert_int_equal(rep_check_sample_count(1, 1, 1, 0, NULL), ST_BAD_ARG);
        assert_string_equal(rep_verdict_name(REP_V_SKIP), "SKIP");
}

static void test_check_lbr(void **state)
{
        struct lbr_block_stat st[] = {
                { .start = 0x1000, .end = 0x1040, .n = 4, .sum_cycles = 43, .min_cycles = 10,
                  .max_cycles = 12 },
        };
        static const struct rep_sym syms[] = {
                { 0x1000, 0x100, "chase_loop" }, { 0x2000, 0x10, "exit" },
        };
        struct lbr_entry e[2] = { { .from = 0x1040, .to = 0x1000 },
                                  { .from = 0x10ff, .to = 0x2008 } };
        struct rep_verdict v;

        (void)state;
        assert_int_equal(rep_check_lbr_block_cost(st, 1, 0x1000, 0x1040, 10000, 100, &v), ST_OK);
        assert_int_equal(v.v, REP_V_PASS);
        assert_int_equal(v.measured, 10750);
        rep_check_lbr_block_cost(st, 1, 0x1000, 0x1040, 10000, 50, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        /* the tolerance at its edge on both sides: mean 10750 against 10 % of the expected */
        rep_check_lbr_block_cost(st, 1, 0x1000, 0x1040, 11900, 100, &v); /* 10710..13090 */
        assert_int_equal(v.v, REP_V_PASS);
        rep_check_lbr_block_cost(st, 1, 0x1000, 0x1040, 12000, 100, &v); /* 10800.. */
        assert_int_equal(v.v, REP_V_FAIL);
        rep_check_lbr_block_cost(st, 1, 0x1000, 0x1040, 9773, 100, &v);  /* ..10750 */
        assert_int_equal(v.v, REP_V_PASS);
        rep_check_lbr_block_cost(st, 1, 0x1000, 0x1040, 9772, 100, &v);  /* ..10749 */
        assert_int_equal(v.v, REP_V_FAIL);
        rep_check_lbr_block_cost(st, 1, 0x1000, 0x1044, 10000, 100, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        assert_non_null(strstr(v.why, "never recorded"));

        assert_int_equal(rep_check_lbr_symbols(e, 2, syms, 2, &v), ST_OK);
        assert_int_equal(v.v, REP_V_PASS);
        assert_int_equal(v.measured, 4);
        e[1].to = 0x2010;                         /* one past the end of "exit" */
        rep_check_lbr_symbols(e, 2, syms, 2, &v);
        assert_int_equal(v.v, REP_V_FAIL);
        assert_int_equal(v.measured, 3);
        e[0].from = 0xfff;                        /* below the first symbol */
        rep_check_lbr_symbols(e, 2, syms, 2, &v);
        assert_int_equal(v.measured, 2);
        rep_check_lbr_symbols(e, 0, syms, 2, &v);
        assert_int_equal(v.v, REP_V_SKIP);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_top_small),
                cmocka_unit_test(test_top_oracle),
                cmocka_unit_test(test_hist),
                cmocka_unit_test(test_dcache_report),
                cmocka_unit_test(test_check_addrs_phys),
                cmocka_unit_test(test_check_latency),
                cmocka_unit_test(test_check_level_tlb),
                cmocka_unit_test(test_check_count),
                cmocka_unit_test(test_check_lbr),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
