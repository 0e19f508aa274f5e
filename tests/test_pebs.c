/** @file Unit tests for pmu/x86/pebs.c over PEBS records built byte by byte from the layouts in
 * Linux intel/ds.c (struct pebs_record_nhm/hsw/skl), perf_event.h (struct pebs_basic,
 * pebs_meminfo) and [SDM-3B] (DS save area, load-latency data-source encoding). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/pebs.h"

#define B(n) (1ull << (n))

static void put64(uint8_t *p, size_t off, uint64_t v)
{
        memcpy(p + off, &v, sizeof(v));
}

static struct pmu_pebs_fmt fmt_of(unsigned pebs_fmt, bool baseline, uint64_t data_cfg,
                                  enum pmu_pebs_dse_kind kind)
{
        struct pmu_pebs_fmt f;

        memset(&f, 0, sizeof(f));
        f.caps.pebs_fmt = (uint8_t)pebs_fmt;
        f.caps.baseline = baseline;
        f.data_cfg = data_cfg;
        f.dse_kind = kind;
        return f;
}

static void test_caps(void **state)
{
        struct pmu_pebs_caps c;

        (void)state;
        /* PERF_CAPABILITIES: LBR fmt [5:0], PEBS fmt [11:8], FW write 13, baseline 14,
         * timing info 17 ([SDM-4]; Linux union perf_capabilities). */
        pmu_pebs_caps_decode(0x5 | (4ull << 8) | B(13) | B(14) | B(17), &c);
        assert_int_equal(c.lbr_fmt, 5);
        assert_int_equal(c.pebs_fmt, 4);
        assert_true(c.baseline && c.fw_write && c.timing_info);
        assert_false(c.trap || c.arch_reg || c.smm_freeze || c.output_pt);
        pmu_pebs_caps_decode(0x3f | (0xfull << 8) | B(6) | B(7) | B(12) | B(16), &c);
        assert_int_equal(c.lbr_fmt, 0x3f);
        assert_int_equal(c.pebs_fmt, 15);
        assert_true(c.trap && c.arch_reg && c.smm_freeze && c.output_pt);
        assert_false(c.baseline);
}

static void test_record_size(void **state)
{
        static const struct {
                unsigned fmt; bool base; uint64_t cfg; uint32_t want;
        } cases[] = {
                { 0, false, 0, 0x90 }, { 1, false, 0, 0xb0 }, { 2, false, 0, 0xc0 },
                { 3, false, 0, 0xc8 }, { 7, false, 0, 0 }, { 6, true, 0, 0 },
                /* formats 4/5 without baseline: the basic group alone (Linux intel_ds_init) */
                { 4, false, PEBS_DATACFG_MEMINFO, 0x20 }, { 5, false, 0, 0x20 },
                { 4, true, 0, 0x20 },
                { 4, true, PEBS_DATACFG_MEMINFO, 0x40 },
                { 4, true, PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GP, 0x40 + 18 * 8 },
                { 5, true, PEBS_DATACFG_XMMS, 0x20 + 32 * 8 },
                { 4, true, PEBS_DATACFG_LBRS | (31ull << 24), 0x20 + 32 * 24 },
                { 4, true, PEBS_DATACFG_LBRS, 0x20 + 24 },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmu_pebs_fmt f = fmt_of(cases[i].fmt, cases[i].base, cases[i].cfg,
                                               PEBS_DSE_SKL);

                assert_int_equal(pmu_pebs_record_size(&f), cases[i].want);
        }
        assert_int_equal(pmu_pebs_record_size(NULL), 0);
}

static void test_legacy_decode(void **state)
{
        static const struct { unsigned fmt; bool exact; uint64_t ip, tsc; } cases[] = {
                { 0, false, 0x401001, 0 },   /* fmt 0/1: IP after the instruction */
                { 1, false, 0x401001, 0 },
                { 2, true,  0x401000, 0 },   /* fmt 2+: real_ip at 0xb0 */
                { 3, true,  0x401000, 0x123456789 },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint8_t rec[0x100];
                struct pmu_pebs_fmt f = fmt_of(cases[i].fmt, false, 0, PEBS_DSE_SKL);
                struct pmu_pebs_record r;
                uint32_t size = pmu_pebs_record_size(&f);

                memset(rec, 0xee, sizeof(rec));
                put64(rec, 0x00, 0x246);               /* flags */
                put64(rec, 0x08, 0x401001);            /* ip */
                put64(rec, 0x90, 0x1);                 /* status */
                put64(rec, 0x98, 0x7f0000001040);      /* dla */
                put64(rec, 0xa0, 0x3);                 /* dse: L2 hit */
                put64(rec, 0xa8, 17);                  /* lat */
                put64(rec, 0xb0, 0x401000);            /* real_ip */
                put64(rec, 0xb8, 0);                   /* tsx_tuning */
                put64(rec, 0xc0, 0x123456789);         /* tsc */
                assert_int_equal(pmu_pebs_decode(&f, rec, size, &r), ST_OK);
                assert_int_equal(r.size_bytes, size);
                assert_int_equal(r.ip, cases[i].ip);
                assert_int_equal(r.ip_exact, cases[i].exact);
                assert_int_equal(r.tsc, cases[i].tsc);
                assert_int_equal(r.mem_valid, cases[i].fmt >= 1);
                if (cases[i].fmt >= 1) {
                        assert_int_equal(r.dla, 0x7f0000001040);
                        assert_int_equal(r.dse, 3);
                        assert_int_equal(r.lat_cycles, 17);
                        assert_int_equal(r.applicable, 1);
                }
                assert_int_equal(pmu_pebs_decode(&f, rec, size - 1, &r), ST_BAD_DATA);
        }
        {
                struct pmu_pebs_fmt f = fmt_of(6, false, 0, PEBS_DSE_SKL);
                struct pmu_pebs_record r;
                uint8_t rec[0x100] = { 0 };

                assert_int_equal(pmu_pebs_decode(&f, rec, sizeof(rec), &r), ST_UNSUPPORTED);
                assert_int_equal(pmu_pebs_decode(&f, NULL, sizeof(rec), &r), ST_BAD_ARG);
        }
}

/* Adaptive basic group word: [31:0] groups, [47:32] retire latency, [63:48] record size. */
static void test_adaptive_decode(void **state)
{
        uint8_t rec[0x400];
        uint64_t cfg = PEBS_DATACFG_MEMINFO | PEBS_DATACFG_LBRS | (3ull << 24);   /* 4 LBRs */
        uint32_t size = 0x20 + 0x20 + 4 * 24;
        struct pmu_pebs_fmt f = fmt_of(4, true, cfg, PEBS_DSE_SKL);
        struct pmu_pebs_record r;

        (void)state;
        memset(rec, 0, sizeof(rec));
        put64(rec, 0x00, (PEBS_DATACFG_MEMINFO | PEBS_DATACFG_LBRS) | (9ull << 32) |
                         ((uint64_t)size << 48));
        put64(rec, 0x08, 0x401000);              /* ip */
        put64(rec, 0x10, 0x1);                   /* applicable counters */
        put64(rec, 0x18, 0xabcdef);              /* tsc */
        put64(rec, 0x20, 0x7f0000002000);        /* meminfo.address */
        put64(rec, 0x28, 0x4);                   /* aux = dse: L3 hit */
        put64(rec, 0x30, (40ull << 32) | 7);     /* latency (ADL split: cache 40, instr 7) */
        assert_int_equal(pmu_pebs_record_size(&f), size);
        assert_int_equal(pmu_pebs_decode(&f, rec, sizeof(rec), &r), ST_OK);
        assert_int_equal(r.size_bytes, size);
        assert_int_equal(r.ip, 0x401000);
        assert_true(r.ip_exact && r.mem_valid);
        assert_int_equal(r.tsc, 0xabcdef);
        assert_int_equal(r.retire_lat_cycles, 9);
        assert_int_equal(r.dla, 0x7f0000002000);
        assert_int_equal(r.lat_cycles, (uint32_t)((40ull << 32) | 7));  /* ICL: whole word */
        assert_int_equal(r.lbr_offset, 0x40);
        assert_int_equal(r.n_lbr, 4);
        f.split_latency = true;
        assert_int_equal(pmu_pebs_decode(&f, rec, sizeof(rec), &r), ST_OK);
        assert_int_equal(r.lat_cycles, 40);
        assert_int_equal(r.instr_lat_cycles, 7);
        /* Corruptions: size disagrees with the groups, record longer than the buffer. */
        put64(rec, 0x00, PEBS_DATACFG_MEMINFO | ((uint64_t)size << 48));
        assert_int_equal(pmu_pebs_decode(&f, rec, sizeof(rec), &r), ST_BAD_DATA);
        put64(rec, 0x00, (PEBS_DATACFG_MEMINFO | PEBS_DATACFG_LBRS) | ((uint64_t)size << 48));
        assert_int_equal(pmu_pebs_decode(&f, rec, size - 8, &r), ST_BAD_DATA);
        assert_int_equal(pmu_pebs_decode(&f, rec, 0x10, &r), ST_BAD_DATA);
        /* An unknown trailing group (counters, bit 4) is allowed when the size covers it. */
        put64(rec, 0x00, (PEBS_DATACFG_MEMINFO | B(4)) | ((uint64_t)(0x40 + 0x18) << 48));
        assert_int_equal(pmu_pebs_decode(&f, rec, sizeof(rec), &r), ST_OK);
        assert_int_equal(r.size_bytes, 0x58);
        assert_int_equal(r.n_lbr, 0);
}

static void test_decode_buffer(void **state)
{
        uint8_t buf[3 * 0xc8 + 0x10];
        struct pmu_pebs_fmt f = fmt_of(3, false, 0, PEBS_DSE_SKL);
        struct pmu_pebs_record out[4];
        size_t n = 99;

        (void)state;
        memset(buf, 0, sizeof(buf));
        for (int i = 0; i < 3; i++)
                put64(buf, (size_t)i * 0xc8 + 0xb0, 0x401000 + (uint64_t)i);
        assert_int_equal(pmu_pebs_decode_buffer(&f, buf, 3 * 0xc8, out, 4, &n), ST_OK);
        assert_int_equal(n, 3);
        assert_int_equal(out[2].ip, 0x401002);
        assert_int_equal(pmu_pebs_decode_buffer(&f, buf, 3 * 0xc8, out, 2, &n), ST_NO_SPACE);
        assert_int_equal(n, 2);
        assert_int_equal(pmu_pebs_decode_buffer(&f, buf, 3 * 0xc8 + 0x10, out, 4, &n),
                         ST_BAD_DATA);
        assert_int_equal(n, 3);
        assert_int_equal(pmu_pebs_decode_buffer(&f, buf, 0, out, 4, &n), ST_OK);
        assert_int_equal(n, 0);
        assert_int_equal(pmu_pebs_decode_buffer(&f, NULL, 8, out, 4, &n), ST_BAD_ARG);
}

static void test_ds_area(void **state)
{
        struct pmu_ds_area ds;
        struct pmu_pebs_caps c3 = { .pebs_fmt = 3 }, c5 = { .pebs_fmt = 5, .baseline = true };

        (void)state;
        /* [SDM-3B] 64-bit DS save area offsets. */
        assert_int_equal(offsetof(struct pmu_ds_area, bts_buffer_base), 0x00);
        assert_int_equal(offsetof(struct pmu_ds_area, pebs_buffer_base), 0x20);
        assert_int_equal(offsetof(struct pmu_ds_area, pebs_index), 0x28);
        assert_int_equal(offsetof(struct pmu_ds_area, pebs_absolute_maximum), 0x30);
        assert_int_equal(offsetof(struct pmu_ds_area, pebs_event_reset), 0x40);

        assert_int_equal(pmu_pebs_ds_setup(&ds, 0x100000, 0x1000, 0xc8, 1), ST_OK);
        assert_int_equal(ds.pebs_buffer_base, 0x100000);
        assert_int_equal(ds.pebs_index, 0x100000);
        assert_int_equal(ds.pebs_absolute_maximum, 0x100000 + 20 * 0xc8);  /* whole records */
        assert_int_equal(ds.pebs_interrupt_threshold, 0x100000 + 0xc8);
        assert_int_equal(ds.bts_buffer_base, 0);
        assert_int_equal(pmu_pebs_ds_setup(&ds, 0x100000, 0x1000, 0xc8, 20), ST_OK);
        assert_int_equal(ds.pebs_interrupt_threshold, ds.pebs_absolute_maximum);
        assert_int_equal(pmu_pebs_ds_setup(&ds, 0x100000, 0x1000, 0xc8, 21), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ds_setup(&ds, 0x100000, 0x1000, 0, 1), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ds_setup(&ds, 0x100000, 0x10, 0xc8, 1), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ds_setup(NULL, 0x100000, 0x1000, 0xc8, 1), ST_BAD_ARG);

        /* Record count from the index; corrupt indexes give 0. */
        assert_int_equal(pmu_pebs_ds_setup(&ds, 0x100000, 0x1000, 0xc8, 1), ST_OK);
        ds.pebs_index = 0x100000 + 3 * 0xc8;
        assert_int_equal(pmu_pebs_ds_count(&ds, 0xc8), 3);
        ds.pebs_index = 0x100000 + 3 * 0xc8 + 8;
        assert_int_equal(pmu_pebs_ds_count(&ds, 0xc8), 0);
        ds.pebs_index = 0x0fffff;
        assert_int_equal(pmu_pebs_ds_count(&ds, 0xc8), 0);
        ds.pebs_index = ds.pebs_absolute_maximum + 0xc8;
        assert_int_equal(pmu_pebs_ds_count(&ds, 0xc8), 0);

        /* Reset values: GP n at n; fixed j at 8 + j before format 5, 32 + j from 5. */
        memset(&ds, 0, sizeof(ds));
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c3, 1, false, 100, 48), ST_OK);
        assert_int_equal(ds.pebs_event_reset[1], 0xffffffffff9cull);
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c3, 0, true, 1000, 48), ST_OK);
        assert_int_equal(ds.pebs_event_reset[8], 0x1000000000000ull - 1000);
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c5, 1, true, 1000, 48), ST_OK);
        assert_int_equal(ds.pebs_event_reset[33], 0x1000000000000ull - 1000);
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c3, 8, false, 100, 48), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c5, 8, false, 100, 48), ST_OK);
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c5, 16, true, 100, 48), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c3, 0, false, 0, 48), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c3, 0, false, 1ull << 48, 48), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ds_set_reset(&ds, &c3, 0, false, 5, 64), ST_OK);
        assert_int_equal(ds.pebs_event_reset[0], (uint64_t)-5);
}

static void test_control_values(void **state)
{
        struct pmu_pebs_caps c3 = { .pebs_fmt = 3 }, c4 = { .pebs_fmt = 4, .baseline = true };
        uint64_t v = 1;

        (void)state;
        /* PEBS_ENABLE: load latency on GP n also sets 32 + n before perfmon v5 (ds.c). */
        assert_int_equal(pmu_pebs_enable_value(&c3, 4, 0x5, 0x1, 0), 0x100000005ull);
        assert_int_equal(pmu_pebs_enable_value(&c3, 4, 0x5, 0x2, 0), 0x5);   /* not in gp */
        assert_int_equal(pmu_pebs_enable_value(&c4, 5, 0x5, 0x1, 0x3), 0x300000005ull);
        assert_int_equal(pmu_pebs_enable_value(&c3, 5, 0x1, 0, 0x1), 0x1);   /* no fixed PEBS */
        /* DATA_CFG: MEMINFO 0, GP 1, XMM 2, LBR 3, LBR count - 1 in [31:24]. */
        assert_int_equal(pmu_pebs_data_cfg(true, false, false, 32, &v), ST_OK);
        assert_int_equal(v, 0x1f000009ull);
        assert_int_equal(pmu_pebs_data_cfg(true, true, true, 0, &v), ST_OK);
        assert_int_equal(v, 0x7);
        assert_int_equal(pmu_pebs_data_cfg(false, false, false, 256, &v), ST_OK);
        assert_int_equal(v, 0xff000008ull);
        assert_int_equal(pmu_pebs_data_cfg(false, false, false, 257, &v), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ld_lat_threshold(3, &v), ST_OK);
        assert_int_equal(v, 3);
        assert_int_equal(pmu_pebs_ld_lat_threshold(0xffff, &v), ST_OK);
        assert_int_equal(pmu_pebs_ld_lat_threshold(0, &v), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_ld_lat_threshold(0x10000, &v), ST_BAD_ARG);
}

/* Data-source words per generation, Linux intel/ds.c pebs_data_source[] and its patches. */
static void test_dse(void **state)
{
        static const struct {
                enum pmu_pebs_dse_kind kind;
                uint64_t dse;
                enum psample_level level;
                bool remote, hitm, stlb, locked, dblk, ablk;
        } cases[] = {
                { PEBS_DSE_SNB, 0x0, PS_LVL_UNKNOWN, false, false, false, false, false, false },
                { PEBS_DSE_SNB, 0x1, PS_LVL_L1, false, false, false, false, false, false },
                { PEBS_DSE_SNB, 0x2, PS_LVL_LFB, false, false, false, false, false, false },
                { PEBS_DSE_SNB, 0x13, PS_LVL_L2, false, false, true, false, false, false },
                { PEBS_DSE_SNB, 0x24, PS_LVL_L3, false, false, false, true, false, false },
                { PEBS_DSE_SNB, 0x6, PS_LVL_L3, false, false, false, false, false, false },
                { PEBS_DSE_SNB, 0x7, PS_LVL_L3, false, true, false, false, false, false },
                { PEBS_DSE_SNB, 0x8, PS_LVL_REMOTE_CACHE, true, false, false, false, false, false },
                { PEBS_DSE_SNB, 0xa, PS_LVL_LOCAL_DRAM, false, false, false, false, false, false },
                { PEBS_DSE_SNB, 0xc, PS_LVL_LOCAL_DRAM, false, false, false, false, false, false },
                { PEBS_DSE_SNB, 0xd, PS_LVL_REMOTE_DRAM, true, false, false, false, false, false },
                { PEBS_DSE_SNB, 0xe, PS_LVL_IO, false, false, false, false, false, false },
                { PEBS_DSE_SNB, 0xcf, PS_LVL_UNCACHED, false, false, false, false, true, true },
                { PEBS_DSE_NHM, 0x6, PS_LVL_L3, false, true, false, false, false, false },
                { PEBS_DSE_SKL, 0x8, PS_LVL_OTHER_MEM, false, false, false, false, false, false },
                { PEBS_DSE_SKL, 0xc, PS_LVL_REMOTE_CACHE, true, false, false, false, false, false },
                { PEBS_DSE_SKL, 0xa, PS_LVL_LOCAL_DRAM, false, false, false, false, false, false },
                { PEBS_DSE_SKL_PMEM, 0x9, PS_LVL_OTHER_MEM, true, false, false, false, false, false },
                { PEBS_DSE_GRT, 0x8, PS_LVL_L3, false, false, false, false, false, false },
                { PEBS_DSE_CMT, 0x41, PS_LVL_L1, false, false, true, false, false, false },
                { PEBS_DSE_CMT, 0xa8, PS_LVL_L3, false, true, false, true, true, false },
                { PEBS_DSE_CMT, 0x0d, PS_LVL_REMOTE_DRAM, true, true, false, false, false, false },
                { PEBS_DSE_CMT, 0x11, PS_LVL_UNKNOWN, false, false, false, false, false, false },
                { PEBS_DSE_LNC, 0x405, PS_LVL_L2, false, false, true, false, false, false },
                { PEBS_DSE_LNC, 0x811, PS_LVL_LOCAL_DRAM, false, false, false, true, false, false },
                { PEBS_DSE_LNC, 0x3010, PS_LVL_OTHER_MEM, false, false, false, false, true, true },
                { PEBS_DSE_LNC, 0x04, PS_LVL_UNKNOWN, false, false, false, false, false, false },
                { PEBS_DSE_LNC, 0x0d, PS_LVL_L3, false, true, false, false, false, false },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmu_pebs_fmt f = fmt_of(3, false, 0, cases[i].kind);
                struct pmu_pebs_dse d;

                print_message("dse case %zu\n", i);
                pmu_pebs_dse_decode(&f, cases[i].dse, &d);
                assert_int_equal(d.level, cases[i].level);
                assert_int_equal(d.remote, cases[i].remote);
                assert_int_equal(d.snoop_hitm, cases[i].hitm);
                assert_int_equal(d.stlb_miss, cases[i].stlb);
                assert_int_equal(d.locked, cases[i].locked);
                assert_int_equal(d.data_blk, cases[i].dblk);
                assert_int_equal(d.addr_blk, cases[i].ablk);
                assert_non_null(d.name);
        }
        {       /* Nehalem reports no TLB/lock bits. */
                struct pmu_pebs_fmt f = fmt_of(1, false, 0, PEBS_DSE_NHM);
                struct pmu_pebs_dse d;

                f.no_tlb_info = true;
                pmu_pebs_dse_decode(&f, 0x33, &d);
                assert_false(d.stlb_miss_known || d.stlb_miss || d.locked);
                assert_int_equal(d.level, PS_LVL_L2);
        }
}

static void test_to_psample(void **state)
{
        struct pmu_pebs_fmt f = fmt_of(3, false, 0, PEBS_DSE_SKL);
        struct pmu_pebs_record r = { .ip = 0x401000, .ip_exact = true, .mem_valid = true,
                                     .dla = 0x7f0000003000, .dse = 0x1a, .lat_cycles = 250,
                                     .tsc = 77 };
        struct psample s;

        (void)state;
        assert_int_equal(pmu_pebs_to_psample(&f, &r, &s), ST_OK);
        assert_true(s.ip_valid && s.ip_exact && s.is_load && s.lat_valid && s.data_la_valid);
        assert_int_equal(s.level, PS_LVL_LOCAL_DRAM);
        assert_true(s.l1_miss_known && s.l1_miss);
        assert_true(s.tlb_l2_known && s.tlb_l2_miss);
        assert_false(s.tlb_l1_known);
        assert_int_equal(s.lat_cycles, 250);
        assert_int_equal(s.tsc, 77);
        r.dse = 0x1;
        r.dla = 0;
        assert_int_equal(pmu_pebs_to_psample(&f, &r, &s), ST_OK);
        assert_int_equal(s.level, PS_LVL_L1);
        assert_false(s.l1_miss);
        assert_false(s.data_la_valid);
        r.dse = 0x0;       /* "unknown L3 miss" is still a miss */
        assert_int_equal(pmu_pebs_to_psample(&f, &r, &s), ST_OK);
        assert_true(s.l1_miss_known && s.l1_miss);
        r.mem_valid = false;
        assert_int_equal(pmu_pebs_to_psample(&f, &r, &s), ST_OK);
        assert_false(s.is_load || s.lat_valid);
        assert_int_equal(pmu_pebs_to_psample(&f, NULL, &s), ST_BAD_ARG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_caps),
                cmocka_unit_test(test_record_size),
                cmocka_unit_test(test_legacy_decode),
                cmocka_unit_test(test_adaptive_decode),
                cmocka_unit_test(test_decode_buffer),
                cmocka_unit_test(test_ds_area),
                cmocka_unit_test(test_control_values),
                cmocka_unit_test(test_dse),
                cmocka_unit_test(test_to_psample),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
