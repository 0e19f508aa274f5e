/** @file Unit tests for pmu/x86/ibs.c, ibs_op.c and ibs_fetch.c: detection, control-register
 * encoding and family-aware decoding of IBS registers built bit by bit from [PPR-19h-01h]
 * (Linux amd-ibs.h) and [BKDG-10h] (the DTrace-provider seed's field list). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/ibs.h"
#include "pmu/x86/ibs_fetch.h"
#include "pmu/x86/ibs_op.h"

#define B(n) (1ull << (n))

static struct pmu_ibs_info info_for(uint32_t fam, uint32_t model, uint32_t caps)
{
        struct cpu_info c;
        struct pmu_ibs_info ibs;

        memset(&c, 0, sizeof(c));
        c.vendor = VEN_AMD;
        c.family = fam;
        c.model = model;
        c.max_ext_leaf = 0x80000026;
        c.amd.ibs = true;
        c.amd.ibs_caps = caps;
        assert_int_equal(pmu_ibs_detect(&c, &ibs), ST_OK);
        return ibs;
}

/* Zen 2 (Rome) like: FFV FetchSam OpSam RdWrOpCnt OpCnt BrnTrgt OpCntExt RipInvalidChk
 * OpBrnFuse FetchCtlExtd. */
#define CAPS_ZEN2 0x3ffu
#define CAPS_ZEN4 (0xfffu)

static void test_detect(void **state)
{
        static const struct {
                enum cpu_vendor vendor;
                bool     ibs;
                uint32_t fam, model, max_ext, caps;
                status_t want_st;
                uint32_t want_caps;
                unsigned want_quirk;         /* a quirk that must be set (0: none checked) */
        } cases[] = {
                { VEN_INTEL, true,  6,    0x55, 0x80000008, 0,         ST_UNSUPPORTED, 0, 0 },
                { VEN_AMD,   false, 0x17, 0x31, 0x80000020, 0,         ST_UNSUPPORTED, 0, 0 },
                /* leaf 0x8000001B absent: Linux IBS_CAPS_DEFAULT */
                { VEN_AMD,   true,  0x10, 0x04, 0x8000001a, 0x3ff,     ST_OK, 0x7,
                  PMU_IBS_Q_FAM10H_DISABLE_SEQ },
                /* IBSFFV clear: the other bits are not valid */
                { VEN_AMD,   true,  0x15, 0x02, 0x8000001e, 0x3fe,     ST_OK, 0x7,
                  PMU_IBS_Q_NB_LAYOUT },
                { VEN_AMD,   true,  0x17, 0x31, 0x80000020, CAPS_ZEN2, ST_OK, CAPS_ZEN2,
                  PMU_IBS_Q_FETCH_CNT_RESET },
                { VEN_AMD,   true,  0x19, 0x01, 0x80000021, 0x7ff,     ST_OK, 0x7ff,
                  PMU_IBS_Q_OPDATA2_1293 },
                { VEN_AMD,   true,  0x19, 0x21, 0x80000021, 0x7ff,     ST_OK, 0x7ff,
                  PMU_IBS_Q_CACHE_HIT_ST_BAD },
                { VEN_HYGON, true,  0x18, 0x00, 0x80000020, CAPS_ZEN2, ST_OK, CAPS_ZEN2,
                  PMU_IBS_Q_FETCH_CNT_RESET },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cpu_info c;
                struct pmu_ibs_info ibs;

                memset(&c, 0, sizeof(c));
                c.vendor = cases[i].vendor;
                c.family = cases[i].fam;
                c.model = cases[i].model;
                c.max_ext_leaf = cases[i].max_ext;
                c.amd.ibs = cases[i].ibs;
                c.amd.ibs_caps = cases[i].caps;
                assert_int_equal(pmu_ibs_detect(&c, &ibs), cases[i].want_st);
                if (cases[i].want_st != ST_OK) {
                        assert_false(ibs.present);
                        continue;
                }
                assert_true(ibs.present);
                assert_int_equal(ibs.caps, cases[i].want_caps);
                if (cases[i].want_quirk)
                        assert_true(ibs.quirks & cases[i].want_quirk);
        }
        /* Zen 4 parts carry none of the Fam19h model 0-0Fh errata. */
        assert_int_equal(info_for(0x19, 0x11, CAPS_ZEN4).quirks, 0);
        assert_int_equal(pmu_ibs_detect(NULL, NULL), ST_BAD_ARG);
}

/* IbsFetchCtl [PPR-19h-01h]: MaxCnt[15:0], En 48, RandEn 57, L3MissOnly 59. */
static void test_fetch_encode(void **state)
{
        static const struct {
                uint32_t caps;
                uint64_t period;
                bool     rand, l3;
                status_t want_st;
                uint64_t want;
        } cases[] = {
                { CAPS_ZEN2, 0x10,    false, false, ST_OK, 0x1 | B(48) },
                { CAPS_ZEN2, 0x10000, true,  false, ST_OK, 0x1000 | B(48) | B(57) },
                { CAPS_ZEN2, 0xffff0, false, false, ST_OK, 0xffff | B(48) },
                { CAPS_ZEN2, 0x100000, false, false, ST_BAD_ARG, 0 },   /* MaxCnt overflow */
                { CAPS_ZEN2, 0,       false, false, ST_BAD_ARG, 0 },
                { CAPS_ZEN2, 0x18,    false, false, ST_BAD_ARG, 0 },    /* not a multiple of 16 */
                { CAPS_ZEN2, 0x100,   false, true,  ST_UNSUPPORTED, 0 },
                { CAPS_ZEN4, 0x100,   false, true,  ST_OK, 0x10 | B(48) | B(59) },
                { 0x5,       0x100,   false, false, ST_OK, 0x10 | B(48) }, /* no FetchSam bit */
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmu_ibs_info ibs = info_for(0x19, 0x11, cases[i].caps);
                uint64_t v = 0xdead;

                if (!(cases[i].caps & IBS_CAPS_FETCHSAM)) {
                        ibs.caps &= ~(uint32_t)IBS_CAPS_FETCHSAM;
                        assert_int_equal(pmu_ibs_fetch_ctl_encode(&ibs, cases[i].period,
                                         false, false, &v), ST_UNSUPPORTED);
                        continue;
                }
                assert_int_equal(pmu_ibs_fetch_ctl_encode(&ibs, cases[i].period, cases[i].rand,
                                                          cases[i].l3, &v), cases[i].want_st);
                assert_int_equal(v, cases[i].want);
                if (cases[i].want_st == ST_OK)
                        assert_int_equal(pmu_ibs_fetch_ctl_period(v), cases[i].period);
        }
}

/* IbsOpCtl [PPR-19h-01h]: MaxCnt[15:0], L3MissOnly 16, En 17, CntCtl 19, MaxCnt[22:16] at
 * [26:20]; load-latency threshold [62:59] = thr/128 - 1, enable 63 (Linux ibs.c). */
static void test_op_encode(void **state)
{
        static const struct {
                uint32_t caps;
                uint64_t period;
                struct pmu_ibs_op_opts o;
                status_t want_st;
                uint64_t want;
        } cases[] = {
                { CAPS_ZEN2, 0x10, { 0 }, ST_OK, 0x1 | B(17) },
                { CAPS_ZEN2, 0xffff0, { .count = PMU_IBS_COUNT_DISPATCHED_OPS }, ST_OK,
                  0xffff | B(17) | B(19) },
                { 0x7, 0x100, { .count = PMU_IBS_COUNT_DISPATCHED_OPS }, ST_UNSUPPORTED, 0 },
                { 0x7, 0x100000, { 0 }, ST_BAD_ARG, 0 },                /* needs OpCntExt */
                { CAPS_ZEN2, 0x100000, { 0 }, ST_OK, B(20) | B(17) },   /* MaxCnt = 0x10000 */
                { CAPS_ZEN2, 0x7ffff0, { 0 }, ST_OK, 0xffff | (0x7ull << 20) | B(17) },
                { CAPS_ZEN2, 0x800000, { 0 }, ST_OK, (0x8ull << 20) | B(17) },
                { CAPS_ZEN2, 0x7fffff0, { 0 }, ST_OK, 0xffff | (0x7full << 20) | B(17) },
                { CAPS_ZEN2, 0x8000000, { 0 }, ST_BAD_ARG, 0 },
                { CAPS_ZEN2, 0x8, { 0 }, ST_BAD_ARG, 0 },
                { CAPS_ZEN2, 0x100, { .l3_miss_only = true }, ST_UNSUPPORTED, 0 },
                { CAPS_ZEN4, 0x100, { .l3_miss_only = true }, ST_OK, 0x10 | B(16) | B(17) },
                { CAPS_ZEN4, 0x100, { .ldlat_cycles = 256 }, ST_UNSUPPORTED, 0 },
                { 0x1fff, 0x100, { .ldlat_cycles = 256 }, ST_OK, 0x10 | B(17) | B(63) | B(59) },
                { 0x1fff, 0x100, { .ldlat_cycles = 2048 }, ST_OK,
                  0x10 | B(17) | B(63) | (0xfull << 59) },
                { 0x1fff, 0x100, { .ldlat_cycles = 100 }, ST_BAD_ARG, 0 },
                { 0x1fff, 0x100, { .ldlat_cycles = 200 }, ST_BAD_ARG, 0 },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmu_ibs_info ibs = info_for(0x19, 0x61, cases[i].caps | 1);
                uint64_t v = 0xdead;

                assert_int_equal(pmu_ibs_op_ctl_encode(&ibs, cases[i].period, &cases[i].o, &v),
                                 cases[i].want_st);
                assert_int_equal(v, cases[i].want);
                if (cases[i].want_st == ST_OK)
                        assert_int_equal(pmu_ibs_op_ctl_period(&ibs, v), cases[i].period);
        }
        /* Oracle: encode/decode round trip over every 16th MaxCnt boundary region. */
        {
                struct pmu_ibs_info ibs = info_for(0x17, 0x31, CAPS_ZEN2);

                for (uint64_t p = 16; p <= 0x7fffff0; p = p * 3 + 16 - ((p * 3) & 0xf)) {
                        uint64_t v;

                        assert_int_equal(pmu_ibs_op_ctl_encode(&ibs, p, NULL, &v), ST_OK);
                        assert_int_equal(pmu_ibs_op_ctl_period(&ibs, v), p);
                        assert_true(v & IBSOPCTL_OP_EN);
                        assert_false(v & IBSOPCTL_OP_VAL);
                }
        }
}

static void test_count_rearm_disable(void **state)
{
        struct pmu_ibs_info zen = info_for(0x17, 0x31, CAPS_ZEN2);
        struct pmu_ibs_info f10 = info_for(0x10, 0x04, 0x1f);
        uint64_t armed, w[2];

        (void)state;
        assert_int_equal(pmu_ibs_op_ctl_encode(&zen, 0x10000, NULL, &armed), ST_OK);
        /* IbsOpVal set: the whole period elapsed. */
        assert_int_equal(pmu_ibs_op_ctl_count(&zen, armed | IBSOPCTL_OP_VAL | (0x55ull << 32)),
                         0x10000);
        /* Not valid: CurCnt without its random low 7 bits where RdWrOpCnt exists, else
         * nothing. */
        assert_int_equal(pmu_ibs_op_ctl_count(&zen, armed | (0x1234ull << 32)), 0x1200);
        assert_int_equal(pmu_ibs_op_ctl_count(&f10, armed | (0x1234ull << 32)), 0x1200);
        f10.caps &= ~(uint32_t)IBS_CAPS_RDWROPCNT;
        assert_int_equal(pmu_ibs_op_ctl_count(&f10, armed | (0x1234ull << 32)), 0);
        /* Re-arm keeps the random CurCnt bits only in dispatched-op mode. */
        assert_int_equal(pmu_ibs_op_ctl_rearm(&zen, armed, armed | IBSOPCTL_OP_VAL |
                                              (0x7full << 32)), armed);
        assert_int_equal(pmu_ibs_op_ctl_rearm(&zen, armed | IBSOPCTL_OP_CNT_CTL,
                                              IBSOPCTL_OP_CNT_CTL | IBSOPCTL_OP_VAL |
                                              (0xfffull << 32)),
                         armed | IBSOPCTL_OP_CNT_CTL | (0x7full << 32));
        /* What a re-arm carries into the next period, and the mean period it leaves: the
         * random CurCnt[6:0] are uniform in 0 .. 127 (mean 63.5), carried only in
         * dispatched-op mode with RdWrOpCnt; IbsFetchCnt[3:0] with IbsRandEn, 0 .. 15. */
        assert_int_equal(pmu_ibs_op_ctl_carried(armed | (0x1255ull << 32)), 0x55);
        assert_int_equal(pmu_ibs_op_mean_period_x2(&zen, armed | IBSOPCTL_OP_CNT_CTL),
                         2 * 0x10000 - 127);
        assert_int_equal(pmu_ibs_op_mean_period_x2(&zen, armed), 2 * 0x10000);
        assert_int_equal(pmu_ibs_op_mean_period_x2(&f10, armed | IBSOPCTL_OP_CNT_CTL),
                         2 * 0x10000);                     /* no RdWrOpCnt (cleared above) */
        assert_int_equal(pmu_ibs_fetch_mean_period_x2(0x40 | IBSFETCHCTL_EN |
                                                      IBSFETCHCTL_RAND_EN), 2 * 0x400 - 15);
        assert_int_equal(pmu_ibs_fetch_mean_period_x2(0x40 | IBSFETCHCTL_EN), 2 * 0x400);
        /* Erratum 420: Fam10h clears MaxCnt first, then En. */
        assert_int_equal(pmu_ibs_op_disable_seq(&f10, armed, w), 2);
        assert_int_equal(w[0], IBSOPCTL_OP_EN);
        assert_int_equal(w[1], 0);
        assert_int_equal(pmu_ibs_op_disable_seq(&zen, armed, w), 1);
        assert_int_equal(w[0], 0);
        assert_int_equal(pmu_ibs_fetch_disable_seq(&zen, 0x10 | IBSFETCHCTL_EN |
                                                   IBSFETCHCTL_RAND_EN, w), 1);
        assert_int_equal(w[0], IBSFETCHCTL_RAND_EN);
}

/* IBS_CTL [PPR-19h-01h] MSRC001_103A: LvtOffset[3:0], LvtOffsetVal 8; extended LVT at
 * APIC 0x500 + 0x10 n: vector [7:0], MsgType [10:8], Mask 16 (Linux setup_APIC_eilvt). */
static void test_ibs_ctl_eilvt(void **state)
{
        static const struct { uint64_t v; unsigned off; bool valid; } ctl[] = {
                { 0x100, 0, true }, { 0x103, 3, true }, { 0x003, 3, false },
                { 0xfffffffffffffe0full, 15, false }, { 0x10f, 15, true },
        };
        static const struct {
                uint8_t vec; unsigned msg; bool mask; status_t st; uint32_t want;
        } lvt[] = {
                { 0,    APIC_EILVT_MSG_NMI, false, ST_OK, 0x400 },
                { 0,    APIC_EILVT_MSG_NMI, true,  ST_OK, 0x10400 },
                { 0xf0, APIC_EILVT_MSG_FIX, false, ST_OK, 0xf0 },
                { 0x20, APIC_EILVT_MSG_EXT, false, ST_OK, 0x720 },
                { 0x20, 5,                  false, ST_BAD_ARG, 0 },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
                struct pmu_ibs_lvt l;

                pmu_ibs_ctl_decode(ctl[i].v, &l);
                assert_int_equal(l.offset, ctl[i].off);
                assert_int_equal(l.valid, ctl[i].valid);
        }
        for (size_t i = 0; i < sizeof(lvt) / sizeof(lvt[0]); i++) {
                uint32_t w = 1;

                assert_int_equal(pmu_ibs_eilvt_encode(lvt[i].vec, lvt[i].msg, lvt[i].mask, &w),
                                 lvt[i].st);
                assert_int_equal(w, lvt[i].want);
        }
        assert_int_equal(pmu_ibs_eilvt_reg(0), 0x500);
        assert_int_equal(pmu_ibs_eilvt_reg(3), 0x530);
        assert_int_equal(pmu_ibs_eilvt_encode(0, 4, false, NULL), ST_BAD_ARG);
}

/* Op samples. IbsOpData3 bits [PPR-19h-01h]: LdOp 0, StOp 1, DcL1TlbMiss 2, DcL2TlbMiss 3,
 * L1Hit2M 4, L1Hit1G 5, L2Hit2M 6, DcMiss 7, WC 13, UC 14, Locked 15, NoMab 16, LinValid 17,
 * PhyValid 18, L2Hit1G 19, L2Miss 20, SwPf 21, MemWidth [25:22], MissLat [47:32],
 * TlbRefillLat [63:48]. IbsOpData2: DataSrc [2:0], RmtNode 4, CacheHitSt 5, DataSrc hi [7:6]. */
struct op_case {
        const char *what;
        uint32_t fam, model, caps;
        uint64_t data, data2, data3;
        enum psample_level level;
        bool remote, lat_valid;
        uint32_t lat;
        enum psample_pgsz pgsz;
        bool l2_known;
};

#define LD   B(0)
#define ST_  B(1)
#define MISS B(7)
#define LINV B(17)
#define PHYV B(18)
#define LAT(x) ((uint64_t)(x) << 32)

static const struct op_case op_cases[] = {
        { "zen2 L1 hit, 4K", 0x17, 0x31, CAPS_ZEN2, 0, 0, LD | LINV | PHYV,
          PS_LVL_L1, false, false, 0, PS_PG_4K, true },
        { "zen2 L2 hit, L1 TLB hit 2M", 0x17, 0x31, CAPS_ZEN2, 0, 0,
          LD | MISS | LINV | B(4) | LAT(14), PS_LVL_L2, false, true, 14, PS_PG_2M, true },
        { "zen2 local DRAM, L2 TLB hit 1G", 0x17, 0x31, CAPS_ZEN2, 0, 3,
          LD | MISS | B(20) | LINV | PHYV | B(2) | B(19) | LAT(310) | (40ull << 48),
          PS_LVL_LOCAL_DRAM, false, true, 310, PS_PG_1G, true },
        { "zen2 remote DRAM, page walk", 0x17, 0x31, CAPS_ZEN2, 0, 3 | B(4),
          LD | MISS | B(20) | LINV | B(2) | B(3) | LAT(500), PS_LVL_REMOTE_DRAM, true, true,
          500, PS_PG_UNKNOWN, true },
        { "zen2 local cache (L3)", 0x17, 0x31, CAPS_ZEN2, 0, 2,
          LD | MISS | B(20) | LINV | LAT(45), PS_LVL_L3, false, true, 45, PS_PG_4K, true },
        { "zen2 remote cache", 0x17, 0x31, CAPS_ZEN2, 0, 4,
          LD | MISS | B(20) | LAT(200), PS_LVL_REMOTE_CACHE, true, true, 200, PS_PG_UNKNOWN,
          true },
        { "zen2 UC access", 0x17, 0x31, CAPS_ZEN2, 0, 0, LD | MISS | B(14) | LAT(999),
          PS_LVL_UNCACHED, false, false, 0, PS_PG_UNKNOWN, true },
        { "zen2 UC to IO", 0x17, 0x31, CAPS_ZEN2, 0, 7, LD | MISS | B(20) | B(14),
          PS_LVL_IO, false, false, 0, PS_PG_UNKNOWN, true },
        { "zen2 MAB hit, no DataSrc", 0x17, 0x31, CAPS_ZEN2, 0, 0,
          LD | MISS | B(20) | B(16) | LAT(60), PS_LVL_LFB, false, true, 60, PS_PG_UNKNOWN, true },
        { "zen2 store, L2 miss: DataSrc not for stores", 0x17, 0x31, CAPS_ZEN2, 0, 3,
          ST_ | MISS | B(20), PS_LVL_UNKNOWN, false, false, 0, PS_PG_UNKNOWN, true },
        { "zen3 erratum 1293: SwPf hides L2 hit and DataSrc", 0x19, 0x01, 0x7ff, 0, 3,
          LD | MISS | B(21) | LAT(80), PS_LVL_UNKNOWN, false, true, 80, PS_PG_UNKNOWN, true },
        { "zen3 model 0x21: no erratum 1293", 0x19, 0x21, 0x7ff, 0, 0,
          LD | MISS | B(21) | LAT(15), PS_LVL_L2, false, true, 15, PS_PG_UNKNOWN, true },
        { "zen4 ext DataSrc 8 (CXL) via DataSrc[4:3]", 0x19, 0x11, CAPS_ZEN4, 0, 1ull << 6,
          LD | MISS | B(20) | LAT(700), PS_LVL_OTHER_MEM, false, true, 700, PS_PG_UNKNOWN, true },
        { "zen4 far CCX cache", 0x19, 0x11, CAPS_ZEN4, 0, 5,
          LD | MISS | B(20) | LAT(250), PS_LVL_REMOTE_CACHE, true, true, 250, PS_PG_UNKNOWN,
          true },
        { "zen4 near CCX cache", 0x19, 0x11, CAPS_ZEN4, 0, 2,
          LD | MISS | B(20) | LAT(120), PS_LVL_REMOTE_CACHE, false, true, 120, PS_PG_UNKNOWN,
          true },
        { "zen4 local L3", 0x19, 0x11, CAPS_ZEN4, 0, 1,
          LD | MISS | B(20) | LAT(50), PS_LVL_L3, false, true, 50, PS_PG_UNKNOWN, true },
        /* Fam10h [BKDG-10h]: NbIbsReqSrc 1 = L3, 3 = DRAM with NbIbsReqDstProc; bits 20+
         * reserved, so a stray bit 20 must not read as L2Miss. */
        { "fam10h L3 (NB source 1)", 0x10, 0x04, 0x1f, 0, 1, LD | MISS | B(20) | LAT(40),
          PS_LVL_L3, false, true, 40, PS_PG_UNKNOWN, false },
        { "fam10h remote DRAM", 0x10, 0x04, 0x1f, 0, 3 | B(4), LD | MISS | LAT(400),
          PS_LVL_REMOTE_DRAM, true, true, 400, PS_PG_UNKNOWN, false },
        { "fam10h no NB request: L2", 0x10, 0x04, 0x1f, 0, 0, LD | MISS | LAT(12),
          PS_LVL_L2, false, true, 12, PS_PG_UNKNOWN, false },
};

static void test_op_decode_table(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(op_cases) / sizeof(op_cases[0]); i++) {
                const struct op_case *c = &op_cases[i];
                struct pmu_ibs_info ibs = info_for(c->fam, c->model, c->caps);
                struct pmu_ibs_op_regs r = {
                        .op_ctl = IBSOPCTL_OP_VAL | IBSOPCTL_OP_EN, .op_rip = 0x401000 + i,
                        .op_data = c->data, .op_data2 = c->data2, .op_data3 = c->data3,
                        .dc_linad = 0x7f0000001000 + 64 * i, .dc_physad = 0x12345000 + 64 * i,
                };
                struct pmu_ibs_op op;
                struct psample s;
                bool remote;

                print_message("case %zu: %s\n", i, c->what);
                assert_int_equal(pmu_ibs_op_decode(&ibs, &r, &op), ST_OK);
                assert_int_equal(pmu_ibs_op_level(&ibs, &op, &remote), c->level);
                assert_int_equal(remote, c->remote);
                assert_int_equal(op.l2_miss_known, c->l2_known);
                assert_int_equal(pmu_ibs_op_to_psample(&ibs, &op, &s), ST_OK);
                assert_int_equal(s.level, c->level);
                assert_int_equal(s.lat_valid, c->lat_valid);
                assert_int_equal(s.lat_cycles, c->lat);
                assert_int_equal(s.pgsz, c->pgsz);
                assert_int_equal(s.ip, 0x401000 + i);
                assert_int_equal(s.data_la_valid, (c->data3 & LINV) != 0);
                assert_int_equal(s.data_la, (c->data3 & LINV) ? r.dc_linad : 0);
                assert_int_equal(s.data_pa_valid, (c->data3 & PHYV) != 0);
                assert_int_equal(s.data_pa, (c->data3 & PHYV) ? r.dc_physad : 0);
                assert_int_equal(s.is_load, (c->data3 & LD) != 0);
        }
}

static void test_op_decode_fields(void **state)
{
        struct pmu_ibs_info zen2 = info_for(0x17, 0x31, CAPS_ZEN2);
        struct pmu_ibs_info zen4 = info_for(0x19, 0x11, CAPS_ZEN4);
        struct pmu_ibs_info f10 = info_for(0x10, 0x04, 0x1f);
        struct pmu_ibs_info z3 = info_for(0x19, 0x01, 0x7ff);
        struct pmu_ibs_op_regs r;
        struct pmu_ibs_op op;
        struct psample s;

        (void)state;
        /* IbsOpData: CompToRet [15:0], TagToRet [31:16], Return 34, Taken 35, Misp 36,
         * BrnRet 37, RipInvalid 38, Fuse 39, Microcode 40. */
        memset(&r, 0, sizeof(r));
        r.op_ctl = IBSOPCTL_OP_VAL;
        r.op_rip = 0xffffffff81000000ull;
        r.op_data = 0x0011 | (0x0222ull << 16) | B(35) | B(36) | B(37) | B(39) | B(40);
        r.op_data3 = ST_ | B(15) | (4ull << 22) | (5ull << 26);
        r.br_target = 0x401234;
        assert_int_equal(pmu_ibs_op_decode(&zen2, &r, &op), ST_OK);
        assert_true(op.valid && op.rip_valid);
        assert_int_equal(op.comp_to_ret_cycles, 0x11);
        assert_int_equal(op.tag_to_ret_cycles, 0x222);
        assert_true(op.brn_taken && op.brn_misp && op.brn_ret && op.brn_fuse && op.microcode);
        assert_false(op.op_return);
        assert_true(op.br_target_valid);
        assert_int_equal(op.br_target, 0x401234);
        assert_true(op.st_op && op.dc_locked_op);
        assert_int_equal(op.op_mem_width_bytes, 8);
        assert_int_equal(op.dc_miss_open_mem_reqs, 5);
        assert_false(op.data_src_valid);           /* store: IbsOpData2 not defined */
        assert_int_equal(pmu_ibs_op_to_psample(&zen2, &op, &s), ST_OK);
        assert_int_equal(s.retire_lat_cycles, 0x222);
        assert_true(s.locked && s.is_store);

        /* RipInvalid honoured only with RipInvalidChk. */
        r.op_data |= B(38);
        assert_int_equal(pmu_ibs_op_decode(&zen2, &r, &op), ST_OK);
        assert_false(op.rip_valid);
        zen2.caps &= ~(uint32_t)(IBS_CAPS_RIPINVALIDCHK | IBS_CAPS_BRNTRGT);
        assert_int_equal(pmu_ibs_op_decode(&zen2, &r, &op), ST_OK);
        assert_true(op.rip_valid);
        assert_false(op.br_target_valid);

        /* Fam10h only fields: BrnResync 32, MispReturn 33, bank conflicts 9/10, StToLd 11/12;
         * no TLB refill latency, no mem width. */
        memset(&r, 0, sizeof(r));
        r.op_ctl = IBSOPCTL_OP_VAL;
        r.op_data = B(32) | B(33) | B(40);
        r.op_data3 = LD | B(9) | B(10) | B(11) | B(12) | (0xffffull << 48) | (0xfull << 22);
        assert_int_equal(pmu_ibs_op_decode(&f10, &r, &op), ST_OK);
        assert_true(op.brn_resync && op.misp_return);
        assert_false(op.microcode);
        assert_true(op.dc_ld_bnk_con && op.dc_st_bnk_con && op.dc_st_to_ld_fwd &&
                    op.dc_st_to_ld_can);
        assert_false(op.tlb_refill_lat_known);
        assert_int_equal(op.op_mem_width_bytes, 0);

        /* CacheHitSt: O state on parts where it is valid, ignored where not. */
        memset(&r, 0, sizeof(r));
        r.op_ctl = IBSOPCTL_OP_VAL;
        r.op_data2 = 2 | B(5);
        r.op_data3 = LD | MISS | B(20) | PHYV | (77ull << 48);
        assert_int_equal(pmu_ibs_op_decode(&f10, &r, &op), ST_OK);
        assert_true(op.cache_hit_st_valid && op.cache_hit_st_o);
        assert_int_equal(pmu_ibs_op_decode(&z3, &r, &op), ST_OK);
        assert_false(op.cache_hit_st_valid || op.cache_hit_st_o);
        /* Zen 4: TlbRefillLat only with a valid physical address. */
        assert_int_equal(pmu_ibs_op_decode(&zen4, &r, &op), ST_OK);
        assert_true(op.tlb_refill_lat_known);
        assert_int_equal(op.tlb_refill_lat_cycles, 77);
        r.op_data3 &= ~PHYV;
        assert_int_equal(pmu_ibs_op_decode(&zen4, &r, &op), ST_OK);
        assert_false(op.tlb_refill_lat_known);
        /* DataSrc[4:3] ignored without the Zen 4 capability. */
        r.op_data2 = 3 | (3ull << 6);
        assert_int_equal(pmu_ibs_op_decode(&zen2, &r, &op), ST_OK);
        assert_int_equal(op.data_src, 3);
        assert_int_equal(pmu_ibs_op_decode(&zen4, &r, &op), ST_OK);
        assert_int_equal(op.data_src, 0x1b);

        /* Invalid sample and NULLs. */
        r.op_ctl = 0;
        assert_int_equal(pmu_ibs_op_decode(&zen2, &r, &op), ST_OK);
        assert_false(op.valid);
        assert_int_equal(pmu_ibs_op_to_psample(&zen2, &op, &s), ST_UNSUPPORTED);
        assert_int_equal(pmu_ibs_op_decode(NULL, &r, &op), ST_BAD_ARG);
        assert_int_equal(pmu_ibs_op_decode(&zen2, NULL, &op), ST_BAD_ARG);
        assert_int_equal(pmu_ibs_op_to_psample(&zen2, NULL, &s), ST_BAD_ARG);
}

/* Fetch samples, IbsFetchCtl [PPR-19h-01h]: Cnt [31:16], Lat [47:32], Val 49, Comp 50,
 * IcMiss 51, PhyAddrValid 52, L1TlbPgSz [54:53], L1TlbMiss 55, L2TlbMiss 56, L2Miss 58. */
static void test_fetch_decode(void **state)
{
        static const struct {
                uint32_t fam, model, caps;
                uint64_t ctl, linad, extd;
                uint32_t page_kib;
                bool     ic_known, ic_miss, drop, l2_miss;
                uint16_t lat, itlb_lat;
        } cases[] = {
                { 0x17, 0x31, CAPS_ZEN2, B(49) | B(50) | B(51) | B(52) | (1ull << 53) |
                  (0x55ull << 32) | (0x20ull << 16) | 0x40 | B(58), 0x401000, 0x1234,
                  2048, true, true, false, true, 0x55, 0x1234 },
                { 0x17, 0x31, CAPS_ZEN2, B(49) | (2ull << 53), 0x401000, 0, 0, true, false,
                  false, false, 0, 0 },                     /* PhyAddrValid clear */
                { 0x17, 0x31, CAPS_ZEN2, B(49) | B(52) | (2ull << 53) | B(55) | B(56), 1, 0,
                  1048576, true, false, false, false, 0, 0 },
                /* Fam19h model 0-0Fh: erratum 1347 table, 1238 IcMiss ignored, 1197 RIP 0 */
                { 0x19, 0x01, 0x7ff, B(49) | B(51) | B(52) | (1ull << 53), 0, 0,
                  16, false, false, true, false, 0, 0 },
                { 0x19, 0x01, 0x7ff, B(49) | B(52) | (3ull << 53), 0x1000, 0,
                  1048576, false, false, false, false, 0, 0 },
                /* Fam10h: bit 58 reserved; no IbsFetchCtlExtd */
                { 0x10, 0x04, 0x1f, B(49) | B(52) | B(58), 0x1000, 0xffff,
                  4, true, false, false, false, 0, 0 },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmu_ibs_info ibs = info_for(cases[i].fam, cases[i].model, cases[i].caps);
                struct pmu_ibs_fetch_regs r = { cases[i].ctl, cases[i].linad, 0xabc000,
                                                cases[i].extd };
                struct pmu_ibs_fetch f;

                assert_int_equal(pmu_ibs_fetch_decode(&ibs, &r, &f), ST_OK);
                assert_true(f.valid);
                assert_int_equal(f.l1tlb_page_kib, cases[i].page_kib);
                assert_int_equal(f.ic_miss_known, cases[i].ic_known);
                assert_int_equal(f.ic_miss, cases[i].ic_miss);
                assert_int_equal(f.drop, cases[i].drop);
                assert_int_equal(f.l2_miss, cases[i].l2_miss);
                assert_int_equal(f.lat_cycles, cases[i].lat);
                assert_int_equal(f.itlb_refill_lat_cycles, cases[i].itlb_lat);
                assert_int_equal(f.physad, (cases[i].ctl & B(52)) ? 0xabc000 : 0);
        }
        {
                struct pmu_ibs_info ibs = info_for(0x17, 0x31, CAPS_ZEN2);
                struct pmu_ibs_fetch_regs r = { 0 };
                struct pmu_ibs_fetch f;

                assert_int_equal(pmu_ibs_fetch_decode(&ibs, NULL, &f), ST_BAD_ARG);
                assert_int_equal(pmu_ibs_fetch_decode(&ibs, &r, NULL), ST_BAD_ARG);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_detect),
                cmocka_unit_test(test_fetch_encode),
                cmocka_unit_test(test_op_encode),
                cmocka_unit_test(test_count_rearm_disable),
                cmocka_unit_test(test_ibs_ctl_eilvt),
                cmocka_unit_test(test_op_decode_table),
                cmocka_unit_test(test_op_decode_fields),
                cmocka_unit_test(test_fetch_decode),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
