/** @file libpmucal: the pmucal data source of a sample from its PEBS / perf perf_mem_data_src
 *  or its IBS op registers (see host/include/pmucal/source.h). Host only, no state. */
#include "host/include/pmucal/source.h"

#include <math.h>

#include "host/libpmucal_rules.h"
#include "pmu/x86/msr_ibs.h"

/* The decode tables (python/pmucal/rules.json) cover every value of the fields they index. */
_Static_assert(sizeof(pmucal_rule_perf_mem_lvl_num) / sizeof(pmucal_rule_perf_mem_lvl_num[0]) == 16,
               "mem_lvl_num is 4 bits");
_Static_assert(sizeof(pmucal_rule_ibs_data_src_zen4) / sizeof(pmucal_rule_ibs_data_src_zen4[0]) == 32,
               "Zen 4 DataSrc is 5 bits");
_Static_assert(sizeof(pmucal_rule_ibs_data_src_fam17h) / sizeof(pmucal_rule_ibs_data_src_fam17h[0]) == 8,
               "Fam17h DataSrc is 3 bits");

/* union perf_mem_data_src, Linux include/uapi/linux/perf_event.h: field shifts and widths,
 * and the values of each field this mapping reads. */
#define PERF_MEM_LVL_SHIFT      5      /* mem_lvl:14 */
#define PERF_MEM_SNOOP_SHIFT    19     /* mem_snoop:5 */
#define PERF_MEM_LVLNUM_SHIFT   33     /* mem_lvl_num:4 */
#define PERF_MEM_REMOTE_SHIFT   37     /* mem_remote:1 */
#define PERF_MEM_SNOOPX_SHIFT   38     /* mem_snoopx:2 */
#define PERF_MEM_HOPS_SHIFT     43     /* mem_hops:3 */

#define MEM_LVL_NA       0x01
#define MEM_LVL_HIT      0x02
#define MEM_LVL_MISS     0x04
#define MEM_LVL_L1       0x08
#define MEM_LVL_LFB      0x10
#define MEM_LVL_L2       0x20
#define MEM_LVL_L3       0x40
#define MEM_LVL_LOC_RAM  0x80
#define MEM_LVL_REM_RAM1 0x100
#define MEM_LVL_REM_RAM2 0x200
#define MEM_LVL_REM_CCE1 0x400
#define MEM_LVL_REM_CCE2 0x800
#define MEM_LVL_IO       0x1000
#define MEM_LVL_UNC      0x2000

#define MEM_SNOOP_HIT    0x04
#define MEM_SNOOP_HITM   0x10
#define MEM_SNOOPX_FWD   0x01
#define MEM_SNOOPX_PEER  0x02

/* mem_lvl_num values */
enum lvlnum {
        LVLNUM_NONE = 0x0, /* not set: older kernels fill mem_lvl only */
        LVLNUM_L1 = 0x1, LVLNUM_L2 = 0x2, LVLNUM_L3 = 0x3, LVLNUM_L4 = 0x4,
        LVLNUM_L2_MHB = 0x5, /* L2 miss handling buffer */
        LVLNUM_MSC = 0x6,    /* memory-side cache */
        LVLNUM_L0 = 0x7, LVLNUM_UNC = 0x8, LVLNUM_CXL = 0x9, LVLNUM_IO = 0xa,
        LVLNUM_ANY_CACHE = 0xb, LVLNUM_LFB = 0xc, LVLNUM_RAM = 0xd, LVLNUM_PMEM = 0xe,
        LVLNUM_NA = 0xf,
};

/* mem_hops values: 1 remote core, same node; 2 remote node, same socket; 3 remote socket,
 * same board; 4 remote board. */
#define MEM_HOPS_SAME_NODE 1
#define MEM_HOPS_SAME_SOCKET 2

static unsigned field(uint64_t v, unsigned shift, unsigned bits)
{
        return (unsigned)((v >> shift) & ((1ull << bits) - 1));
}

/* A cache-to-cache source name from where (remote / local) and the snoop result. */
static const char *c2c_name(bool remote, int kind)
{
        static const char *const names[2][3] = {
                { "c2c-local-any", "c2c-local-hit", "c2c-local-hitm" },
                { "c2c-remote-any", "c2c-remote-hit", "c2c-remote-hitm" },
        };
        return names[remote][kind];
}

enum pmucal_err pmucal_source_perf_data_src(uint64_t v, const char **source)
{
        unsigned lvl    = field(v, PERF_MEM_LVL_SHIFT, 14);
        unsigned snoop  = field(v, PERF_MEM_SNOOP_SHIFT, 5);
        unsigned num    = field(v, PERF_MEM_LVLNUM_SHIFT, 4);
        unsigned snoopx = field(v, PERF_MEM_SNOOPX_SHIFT, 2);
        unsigned hops   = field(v, PERF_MEM_HOPS_SHIFT, 3);
        bool     rem    = field(v, PERF_MEM_REMOTE_SHIFT, 1);
        /* a cache a hop away is another package only beyond the socket; DRAM is remote from
         * the next node on */
        bool     remote = hops ? hops > MEM_HOPS_SAME_SOCKET : rem;
        bool     far    = rem || hops >= MEM_HOPS_SAME_SOCKET;
        int      kind   = snoop & MEM_SNOOP_HITM                                 ? 2
                        : (snoop & MEM_SNOOP_HIT) || (snoopx & (MEM_SNOOPX_FWD | MEM_SNOOPX_PEER)) ? 1
                                                                                 : 0;
        bool     cache  = false;

        if (!source)
                return PMUCAL_E_ARG;
        *source = NULL;
        if (num == LVLNUM_NONE) { /* the level from mem_lvl: the serving level's bit */
                if ((lvl & MEM_LVL_MISS) && !(lvl & MEM_LVL_HIT))
                        return *source = "a miss whose serving level is not recorded",
                               PMUCAL_E_UNKNOWN_SOURCE;
                if (lvl & (MEM_LVL_REM_CCE1 | MEM_LVL_REM_CCE2))
                        return *source = c2c_name(true, kind), PMUCAL_OK;
                num = lvl & MEM_LVL_L1 ? LVLNUM_L1 : lvl & MEM_LVL_LFB ? LVLNUM_LFB
                    : lvl & MEM_LVL_L2 ? LVLNUM_L2 : lvl & MEM_LVL_L3 ? LVLNUM_L3
                    : lvl & MEM_LVL_LOC_RAM ? LVLNUM_RAM : lvl & MEM_LVL_IO ? LVLNUM_IO
                    : lvl & MEM_LVL_UNC ? LVLNUM_UNC : LVLNUM_NA;
                if (lvl & (MEM_LVL_REM_RAM1 | MEM_LVL_REM_RAM2)) {
                        num = LVLNUM_RAM;
                        far = true;
                }
        }
        *source = pmucal_rule_perf_mem_lvl_num[num].name;
        switch (pmucal_rule_perf_mem_lvl_num[num].kind) {
        case PMUCAL_RULE_SRC_CACHE: cache = true; break;
        case PMUCAL_RULE_SRC_LFB: *source = "lfb"; return PMUCAL_OK;
        case PMUCAL_RULE_SRC_DRAM: *source = far ? "dram-remote" : "dram-local"; return PMUCAL_OK;
        default: return PMUCAL_E_UNKNOWN_SOURCE;
        }
        /* a cache: another core's (remote, a hop away, or a snoop that found the line in
         * another core's cache: a modified line HITM, a clean one forwarded) is a transfer;
         * "any cache" of this node without a snoop result is the L3 or a sibling CCX's, which
         * AMD's IBS cannot tell apart (Zen 1-3 DataSrc 2) */
        if (cache && num == LVLNUM_ANY_CACHE && hops == MEM_HOPS_SAME_NODE && !kind)
                *source = "L3";
        else if (cache && (remote || hops >= MEM_HOPS_SAME_NODE))
                *source = c2c_name(remote, kind);
        else if (cache && kind && num != LVLNUM_L1 && num != LVLNUM_L0 && num != LVLNUM_L2)
                *source = c2c_name(false, kind);
        return PMUCAL_OK;
}

/* DataSrc of Zen 4 / Zen 5 (IbsCaps bit 11, Linux amd-ibs.h IBS_DATA_SRC_EXT_*) or of the
 * Fam17h layout (IBS_DATA_SRC_*; also Zen 3, Fam19h without the bit). */
static bool ext_layout(unsigned family, unsigned model)
{
        if (family >= 0x1a)
                return true;
        return family == 0x19 && ((model >= 0x10 && model <= 0x1f) ||
                                  (model >= 0x60 && model <= 0x7f) ||
                                  (model >= 0xa0 && model <= 0xaf));
}

enum pmucal_err pmucal_source_ibs_op(uint64_t d2, uint64_t d3, unsigned family, unsigned model,
                                     enum pmucal_ibs_layout layout, const char **source,
                                     double *dc_miss_lat_cycles)
{
        bool     ld = d3 & IBSOPDATA3_LD_OP, miss = d3 & IBSOPDATA3_DC_MISS;
        bool     ext, rmt = d2 & IBSOPDATA2_RMT_NODE;
        int      kind = d2 & IBSOPDATA2_CACHE_HIT_ST ? 1 : 2; /* O state: clean; M: HITM */
        unsigned src;
        const struct pmucal_rule_src *r;

        if (!source || (unsigned)layout > PMUCAL_IBS_LAYOUT_ZEN4)
                return PMUCAL_E_ARG;
        ext = layout == PMUCAL_IBS_LAYOUT_AUTO ? ext_layout(family, model)
                                               : layout == PMUCAL_IBS_LAYOUT_ZEN4;
        src = (unsigned)(d2 & IBSOPDATA2_DATA_SRC_LO);
        if (ext)
                src |= (unsigned)((d2 & IBSOPDATA2_DATA_SRC_HI) >> IBSOPDATA2_DATA_SRC_HI_SHIFT) << 3;
        if (dc_miss_lat_cycles)
                *dc_miss_lat_cycles = ld && miss ? (double)((d3 & IBSOPDATA3_DC_MISS_LAT) >>
                                                            IBSOPDATA3_DC_MISS_LAT_SHIFT)
                                                 : NAN;
        *source = NULL;
        if (!ld && !(d3 & IBSOPDATA3_ST_OP))
                return *source = "not a load or store", PMUCAL_E_UNKNOWN_SOURCE;
        /* DcMiss and the rest mean nothing for an uncached access, except that DataSrc may
         * still say I/O */
        if (d3 & IBSOPDATA3_DC_UC_MEM_ACC)
                return *source = "uncached", PMUCAL_E_UNKNOWN_SOURCE;
        if (!miss)
                return *source = "L1", PMUCAL_OK;
        /* Erratum 1293 (Fam19h models 00h-0Fh): with SwPf or DcMissNoMabAlloc set, L2Miss and
         * DataSrc may be wrong */
        if (family == 0x19 && model <= 0x0f && (d3 & (IBSOPDATA3_SW_PF | IBSOPDATA3_DC_MISS_NO_MAB_ALLOC)))
                return *source = "unreliable (erratum 1293)", PMUCAL_E_UNKNOWN_SOURCE;
        /* the miss found one to the same line in flight in a miss address buffer */
        if (d3 & IBSOPDATA3_DC_MISS_NO_MAB_ALLOC)
                return *source = "lfb", PMUCAL_OK;
        if (!(d3 & IBSOPDATA3_L2_MISS))
                return *source = "L2", PMUCAL_OK;
        if (!ld)
                return *source = "a store that missed L2 (DataSrc is for loads)", PMUCAL_E_UNKNOWN_SOURCE;
        /* the serving level by DataSrc (IBS_DATA_SRC_EXT_* or IBS_DATA_SRC_*): a Fam17h
         * "local cache" is the L3 or a CCX on the node */
        r       = ext ? &pmucal_rule_ibs_data_src_zen4[src & 31] : &pmucal_rule_ibs_data_src_fam17h[src & 7];
        *source = r->name;
        switch (r->kind) {
        case PMUCAL_RULE_SRC_CACHE: return PMUCAL_OK;
        case PMUCAL_RULE_SRC_LFB: *source = "lfb"; return PMUCAL_OK;
        case PMUCAL_RULE_SRC_C2C_LOCAL: *source = c2c_name(false, kind); return PMUCAL_OK;
        case PMUCAL_RULE_SRC_C2C_FAR: *source = c2c_name(rmt, kind); return PMUCAL_OK;
        case PMUCAL_RULE_SRC_C2C_REMOTE: *source = c2c_name(true, kind); return PMUCAL_OK;
        case PMUCAL_RULE_SRC_DRAM: *source = rmt ? "dram-remote" : "dram-local"; return PMUCAL_OK;
        default: return PMUCAL_E_UNKNOWN_SOURCE;
        }
}
