/** @file Unit tests for libpmucal's data-source mapping (host/x86/libpmucal_source.c): PEBS /
 *  perf perf_mem_data_src values built with the kernel's own macros (PERF_MEM_S() of
 *  <linux/perf_event.h>, as the x86, Power and Arm drivers encode them), and IBS op
 *  IbsOpData2 / IbsOpData3 values built from the register layout (pmu/x86/msr_ibs.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <linux/perf_event.h>
#include <math.h>
#include <string.h>

#include "host/include/pmucal/source.h"
#include "pmu/x86/msr_ibs.h"

#define LD      PERF_MEM_S(OP, LOAD)
#define HIT(l)  (PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, l))
#define NUM(l)  PERF_MEM_S(LVLNUM, l)
#define REM     PERF_MEM_S(REMOTE, REMOTE)
#define SNP(s)  PERF_MEM_S(SNOOP, s)
#define SNPX(s) PERF_MEM_S(SNOOPX, s)
/* PERF_MEM_LVLNUM values newer than some installed headers */
#define LVLNUM_L2_MHB 0x05ull
#define LVLNUM_UNC    0x08ull

static const struct {
        uint64_t        v;
        enum pmucal_err want;
        const char     *source;
        const char     *what;
} perf_cases[] = {
        { LD | HIT(L1) | NUM(L1), PMUCAL_OK, "L1", "Intel L1 hit" },
        { LD | HIT(LFB) | NUM(LFB), PMUCAL_OK, "lfb", "Intel LFB hit" },
        { LD | HIT(L2) | NUM(L2), PMUCAL_OK, "L2", "L2 hit" },
        { LD | HIT(L3) | NUM(L3) | SNP(NONE), PMUCAL_OK, "L3", "L3 hit, no snoop" },
        { LD | HIT(L3) | NUM(L3) | SNP(MISS), PMUCAL_OK, "L3", "L3 hit, snoop miss" },
        { LD | HIT(L3) | NUM(L3) | SNP(HIT), PMUCAL_OK, "c2c-local-hit", "L3 hit, clean in a sibling core" },
        { LD | HIT(L3) | NUM(L3) | SNP(HITM), PMUCAL_OK, "c2c-local-hitm", "L3 hit, modified in a sibling core" },
        { LD | HIT(REM_CCE1) | NUM(ANY_CACHE) | REM | SNP(HITM), PMUCAL_OK, "c2c-remote-hitm", "Intel remote HITM" },
        { LD | HIT(REM_CCE1) | NUM(ANY_CACHE) | REM | SNPX(FWD), PMUCAL_OK, "c2c-remote-hit", "Intel remote forward" },
        { LD | HIT(LOC_RAM) | NUM(RAM) | SNP(MISS), PMUCAL_OK, "dram-local", "local DRAM" },
        { LD | HIT(REM_RAM1) | NUM(RAM) | REM, PMUCAL_OK, "dram-remote", "remote DRAM" },
        { LD | HIT(REM_RAM2), PMUCAL_OK, "dram-remote", "remote DRAM, mem_lvl only" },
        { LD | HIT(L2), PMUCAL_OK, "L2", "L2 hit, mem_lvl only (old kernels)" },
        { LD | HIT(REM_CCE2) | SNP(HIT), PMUCAL_OK, "c2c-remote-hit", "remote cache, mem_lvl only" },
        { LD | HIT(L2) | NUM(L2) | REM | PERF_MEM_S(HOPS, 0), PMUCAL_OK, "c2c-local-any", "Power: remote core, same node" },
        { LD | HIT(L2) | NUM(L2) | REM | PERF_MEM_S(HOPS, 2), PMUCAL_OK, "c2c-remote-any", "Power: remote socket" },
        { LD | NUM(ANY_CACHE) | HIT(L3) | SNPX(PEER), PMUCAL_OK, "c2c-local-hit", "Arm: from a peer core" },
        { LD | HIT(L3) | HIT(REM_CCE1) | NUM(ANY_CACHE) | REM | PERF_MEM_S(HOPS, 0), PMUCAL_OK, "L3",
          "AMD Zen 1-3 IBS through perf: L3 or a CCX on the node, as DataSrc 2 directly" },
        { LD | HIT(REM_CCE2) | NUM(ANY_CACHE) | REM | PERF_MEM_S(HOPS, 2) | SNP(HITM), PMUCAL_OK,
          "c2c-remote-hitm", "AMD IBS through perf: a far CCX on another socket, modified" },
        { LD | HIT(REM_RAM1) | NUM(RAM) | REM | PERF_MEM_S(HOPS, 1), PMUCAL_OK, "dram-remote",
          "remote node, same socket DRAM" },
        { LD | (LVLNUM_L2_MHB << PERF_MEM_LVLNUM_SHIFT), PMUCAL_OK, "lfb", "L2 miss handling buffer" },
        { LD | HIT(L1) | NUM(L4), PMUCAL_OK, "L4", "L4 (eDRAM)" },
        { LD | HIT(IO) | NUM(IO), PMUCAL_E_UNKNOWN_SOURCE, "I/O", "I/O" },
        { LD | HIT(UNC) | (LVLNUM_UNC << PERF_MEM_LVLNUM_SHIFT), PMUCAL_E_UNKNOWN_SOURCE, "uncached", "uncached" },
        { LD | NUM(PMEM), PMUCAL_E_UNKNOWN_SOURCE, "persistent memory", "PMEM" },
        { LD | NUM(CXL), PMUCAL_E_UNKNOWN_SOURCE, "CXL memory", "CXL" },
        { PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | NUM(NA), PMUCAL_E_UNKNOWN_SOURCE, "not available", "N/A" },
        { PERF_MEM_S(OP, STORE) | PERF_MEM_S(LVL, MISS) | PERF_MEM_S(LVL, L1), PMUCAL_E_UNKNOWN_SOURCE,
          "a miss whose serving level is not recorded", "store, L1 miss" },
        { 0, PMUCAL_E_UNKNOWN_SOURCE, "not available", "nothing recorded" },
};

static void test_perf_data_src(void **state)
{
        const char *s;
        (void)state;
        for (size_t i = 0; i < sizeof(perf_cases) / sizeof(perf_cases[0]); i++) {
                enum pmucal_err e = pmucal_source_perf_data_src(perf_cases[i].v, &s);
                if (e != perf_cases[i].want || !s || strcmp(s, perf_cases[i].source))
                        fail_msg("%s (0x%llx): %s \"%s\", want %s \"%s\"", perf_cases[i].what,
                                 (unsigned long long)perf_cases[i].v, pmucal_strerror(e), s ? s : "(null)",
                                 pmucal_strerror(perf_cases[i].want), perf_cases[i].source);
        }
        assert_int_equal(pmucal_source_perf_data_src(1, NULL), PMUCAL_E_ARG);
}

#define D3_LD_MISS   (IBSOPDATA3_LD_OP | IBSOPDATA3_DC_MISS | IBSOPDATA3_L2_MISS)
#define LAT(c)       ((uint64_t)(c) << IBSOPDATA3_DC_MISS_LAT_SHIFT)
#define SRC_EXT(s)   (((uint64_t)(s) & 7) | (((uint64_t)(s) >> 3) << IBSOPDATA2_DATA_SRC_HI_SHIFT))

static const struct {
        uint64_t        d2, d3;
        unsigned        family, model;
        enum pmucal_err want;
        const char     *source;
        double          lat;   /* NAN: none */
} ibs_cases[] = {
        /* Zen 2 (17h/31h) and Zen 3 (19h/21h): DataSrc[2:0] */
        { 0, IBSOPDATA3_LD_OP, 0x17, 0x31, PMUCAL_OK, "L1", NAN },
        { 0, IBSOPDATA3_LD_OP | IBSOPDATA3_DC_MISS | LAT(14), 0x17, 0x31, PMUCAL_OK, "L2", 14 },
        { IBS_DATA_SRC_LOC_CACHE, D3_LD_MISS | LAT(50), 0x17, 0x31, PMUCAL_OK, "L3", 50 },
        { IBS_DATA_SRC_DRAM, D3_LD_MISS | LAT(300), 0x17, 0x31, PMUCAL_OK, "dram-local", 300 },
        { IBS_DATA_SRC_DRAM | IBSOPDATA2_RMT_NODE, D3_LD_MISS | LAT(500), 0x19, 0x21, PMUCAL_OK, "dram-remote", 500 },
        { IBS_DATA_SRC_REM_CACHE, D3_LD_MISS, 0x19, 0x21, PMUCAL_OK, "c2c-remote-hitm", 0 },
        { IBS_DATA_SRC_REM_CACHE | IBSOPDATA2_CACHE_HIT_ST, D3_LD_MISS, 0x19, 0x21, PMUCAL_OK, "c2c-remote-hit", 0 },
        { IBS_DATA_SRC_IO, D3_LD_MISS, 0x17, 0x31, PMUCAL_E_UNKNOWN_SOURCE, "I/O", 0 },
        { 0, D3_LD_MISS | IBSOPDATA3_DC_MISS_NO_MAB_ALLOC | LAT(20), 0x17, 0x31, PMUCAL_OK, "lfb", 20 },
        /* erratum 1293: Fam19h models 00h-0Fh (Zen 3 Milan) with a MAB hit */
        { 0, D3_LD_MISS | IBSOPDATA3_DC_MISS_NO_MAB_ALLOC, 0x19, 0x01, PMUCAL_E_UNKNOWN_SOURCE,
          "unreliable (erratum 1293)", 0 },
        { 0, IBSOPDATA3_LD_OP | IBSOPDATA3_DC_MISS | IBSOPDATA3_DC_UC_MEM_ACC, 0x17, 0x31,
          PMUCAL_E_UNKNOWN_SOURCE, "uncached", 0 },
        { 0, 0, 0x17, 0x31, PMUCAL_E_UNKNOWN_SOURCE, "not a load or store", NAN },
        { 0, IBSOPDATA3_ST_OP, 0x17, 0x31, PMUCAL_OK, "L1", NAN },
        /* Zen 4 (19h/11h, 19h/61h) and Zen 5 (1Ah/02h): DataSrc[4:0] */
        { SRC_EXT(IBS_DATA_SRC_EXT_LOC_CACHE), D3_LD_MISS, 0x19, 0x11, PMUCAL_OK, "L3", 0 },
        { SRC_EXT(IBS_DATA_SRC_EXT_NEAR_CCX_CACHE), D3_LD_MISS, 0x19, 0x61, PMUCAL_OK, "c2c-local-hitm", 0 },
        { SRC_EXT(IBS_DATA_SRC_EXT_FAR_CCX_CACHE) | IBSOPDATA2_CACHE_HIT_ST, D3_LD_MISS, 0x19, 0x11,
          PMUCAL_OK, "c2c-local-hit", 0 },
        { SRC_EXT(IBS_DATA_SRC_EXT_FAR_CCX_CACHE) | IBSOPDATA2_RMT_NODE, D3_LD_MISS, 0x1a, 0x02,
          PMUCAL_OK, "c2c-remote-hitm", 0 },
        { SRC_EXT(IBS_DATA_SRC_EXT_DRAM) | IBSOPDATA2_RMT_NODE, D3_LD_MISS, 0x1a, 0x02, PMUCAL_OK,
          "dram-remote", 0 },
        { SRC_EXT(IBS_DATA_SRC_EXT_EXT_MEM), D3_LD_MISS, 0x19, 0x11, PMUCAL_E_UNKNOWN_SOURCE, "CXL memory", 0 },
        { SRC_EXT(IBS_DATA_SRC_EXT_PEER_AGENT_MEM), D3_LD_MISS, 0x19, 0x11, PMUCAL_E_UNKNOWN_SOURCE,
          "a peer agent's memory", 0 },
        { SRC_EXT(IBS_DATA_SRC_EXT_PMEM), D3_LD_MISS, 0x19, 0x11, PMUCAL_E_UNKNOWN_SOURCE, "persistent memory", 0 },
        /* the same DataSrc 8 (EXT_MEM) read with the Fam17h layout is 0: reserved */
        { SRC_EXT(IBS_DATA_SRC_EXT_EXT_MEM), D3_LD_MISS, 0x19, 0x21, PMUCAL_E_UNKNOWN_SOURCE,
          "a reserved DataSrc", 0 },
};

static void test_ibs_op(void **state)
{
        const char *s;
        double      lat;
        (void)state;
        for (size_t i = 0; i < sizeof(ibs_cases) / sizeof(ibs_cases[0]); i++) {
                enum pmucal_err e = pmucal_source_ibs_op(ibs_cases[i].d2, ibs_cases[i].d3,
                                                         ibs_cases[i].family, ibs_cases[i].model,
                                                         PMUCAL_IBS_LAYOUT_AUTO, &s, &lat);
                if (e != ibs_cases[i].want || !s || strcmp(s, ibs_cases[i].source))
                        fail_msg("case %zu: %s \"%s\", want %s \"%s\"", i, pmucal_strerror(e),
                                 s ? s : "(null)", pmucal_strerror(ibs_cases[i].want), ibs_cases[i].source);
                if (isnan(ibs_cases[i].lat) ? !isnan(lat) : lat != ibs_cases[i].lat)
                        fail_msg("case %zu: DcMissLat %g, want %g", i, lat, ibs_cases[i].lat);
        }
        /* the layout can be forced: DataSrc 8 with the Zen 4 layout is CXL memory */
        assert_int_equal(pmucal_source_ibs_op(SRC_EXT(IBS_DATA_SRC_EXT_EXT_MEM), D3_LD_MISS, 0x19, 0x21,
                                              PMUCAL_IBS_LAYOUT_ZEN4, &s, NULL),
                         PMUCAL_E_UNKNOWN_SOURCE);
        assert_string_equal(s, "CXL memory");
        assert_int_equal(pmucal_source_ibs_op(0, 0, 0x17, 0, (enum pmucal_ibs_layout)7, &s, NULL), PMUCAL_E_ARG);
        assert_int_equal(pmucal_source_ibs_op(0, 0, 0x17, 0, PMUCAL_IBS_LAYOUT_AUTO, NULL, NULL), PMUCAL_E_ARG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_perf_data_src),
                cmocka_unit_test(test_ibs_op),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
