/** @file
 * The CPUs the virtual PMU impersonates: PMU facts, memory hierarchy, which event selects
 * count what, and the CPUID the harness reads. Counter facts from [SDM-3B]/[APM-2] and the
 * parts' CPUID; PERF_CAPABILITIES values as these parts report them (Linux intel/core.c
 * decodes the same bits); event codes from [SDM-3B] "Architectural Performance Events",
 * Intel's perfmon event lists and AMD's PPRs (the same codes perf's pmu-events carries).
 * Cache sizes are those of the small SKUs named, so that chase buffers stay small in tests.
 */
#include "tests/vpmu/vpmu_priv.h"

#include <string.h>

#include "tests/cpuid_dump.h"

/* ---- event selects ----------------------------------------------------------------------- */

/* [SDM-3B] Table "UMask and Event Select Encodings for Pre-Defined Architectural Events" */
#define ARCH_EVENTS                                                                            \
        { 0x3c, 0x00, VE_CYCLES, "CPU_CLK_UNHALTED.THREAD_P" },                                 \
        { 0xc0, 0x00, VE_INSNS, "INST_RETIRED.ANY_P" },                                        \
        { 0x3c, 0x01, VE_REF_CYCLES, NULL },                                                   \
        { 0xc4, 0x00, VE_BRANCHES, "BR_INST_RETIRED.ALL_BRANCHES" },                           \
        { 0xc5, 0x00, VE_BR_MISP, "BR_MISP_RETIRED.ALL_BRANCHES" },                            \
        { 0x2e, 0x41, VE_LLC_MISS, "LONGEST_LAT_CACHE.MISS" }

static const struct vpmu_evmap ev_skl[] = {
        ARCH_EVENTS,
        { 0xd1, 0x08, VE_L1D_MISS, "MEM_LOAD_RETIRED.L1_MISS" },
        { 0xd1, 0x10, VE_L2_MISS, "MEM_LOAD_RETIRED.L2_MISS" },
        { 0xd1, 0x20, VE_LLC_MISS, "MEM_LOAD_RETIRED.L3_MISS" },
        { 0x08, 0x0e, VE_DTLB_MISS, "DTLB_LOAD_MISSES.WALK_COMPLETED" },
        { 0xcd, 0x01, VE_LDLAT, "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4" },
};

static const struct vpmu_evmap ev_spr[] = {
        ARCH_EVENTS,
        { 0xd1, 0x08, VE_L1D_MISS, "MEM_LOAD_RETIRED.L1_MISS" },
        { 0xd1, 0x10, VE_L2_MISS, "MEM_LOAD_RETIRED.L2_MISS" },
        { 0xd1, 0x20, VE_LLC_MISS, "MEM_LOAD_RETIRED.L3_MISS" },
        /* Golden Cove moved DTLB_LOAD_MISSES to 0x12 */
        { 0x12, 0x0e, VE_DTLB_MISS, "DTLB_LOAD_MISSES.WALK_COMPLETED" },
        { 0xcd, 0x01, VE_LDLAT, "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4" },
};

static const struct vpmu_evmap ev_nhm[] = {
        ARCH_EVENTS,
        { 0x0b, 0x10, VE_LDLAT, NULL }, /* MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD */
};

static const struct vpmu_evmap ev_arch[] = { ARCH_EVENTS };

/* [PPR-17h-71h], [PPR-19h], [PPR-1Ah] "Core Performance Monitor Counters" */
#define ZEN_EVENTS                                                                             \
        { 0x76, 0x00, VE_CYCLES, "ls_not_halted_cyc" },                                        \
        { 0xc0, 0x00, VE_INSNS, "ex_ret_instr" },                                              \
        { 0xc2, 0x00, VE_BRANCHES, "ex_ret_brn" },                                             \
        { 0xc3, 0x00, VE_BR_MISP, "ex_ret_brn_misp" }

static const struct vpmu_evmap ev_zen2[] = {
        ZEN_EVENTS,
        { 0x45, 0xf0, VE_DTLB_MISS, "l2_dtlb_misses" },
        { 0x64, 0x08, VE_L2_MISS, "l2_cache_misses_from_dc_misses" },
        /* L2CacheReqStat: L2 accesses from DC misses */
        { 0x60, 0xc8, VE_L1D_MISS, "l2_cache_accesses_from_dc_misses" },
        /* LsRefillsFromSys: local DRAM */
        { 0x43, 0x08, VE_LLC_MISS, "ls_refills_from_sys.ls_mabresp_lcl_dram" },
};

static const struct vpmu_evmap ev_zen4[] = {
        ZEN_EVENTS,
        { 0x45, 0xf0, VE_DTLB_MISS, "ls_l1_d_tlb_miss.all_l2_miss" },
        { 0x64, 0x08, VE_L2_MISS, "l2_cache_req_stat.ls_rd_blk_c" },
        /* LsDmndFillsFromSys: all sources */
        { 0x43, 0xff, VE_L1D_MISS, "ls_dmnd_fills_from_sys.all" },
        /* LsAnyFillsFromSys: DRAM or IO, any node */
        { 0x44, 0x48, VE_LLC_MISS, "ls_any_fills_from_sys.dram_io_all" },
};

static const struct vpmu_evmap ev_k10[] = {
        { 0x76, 0x00, VE_CYCLES, NULL }, { 0xc0, 0x00, VE_INSNS, NULL },
        { 0xc2, 0x00, VE_BRANCHES, NULL }, { 0xc3, 0x00, VE_BR_MISP, NULL },
};

#define EVS(t) .events = t, .n_events = sizeof(t) / sizeof(t[0])

/* ---- the parts --------------------------------------------------------------------------- */

/* Xeon Silver 4108 (Skylake-SP, 06_55H stepping 4): perfmon v4, LBR format 5 (32 entries),
 * PEBS format 3, full-width writes: PERF_CAPABILITIES 0x33c5. */
const struct vpmu_part vpmu_skx = {
        .name = "Skylake-SP", .family = 6, .model = 0x55, .stepping = 4,
        .version = 4, .n_gp = 4, .gp_width = 48, .n_fixed = 3, .fixed_width = 48,
        .pdcm = true, .ds = true, .perf_caps = 0x33c5,
        .lbr_depth = 32, .lbr_from = VP_LBR_NHM_FROM, .lbr_to = VP_LBR_NHM_TO,
        .l1d_kib = 32, .l2_kib = 1024, .l3_kib = 11264, .stlb_4k_entries = 1536,
        .lat = { 4, 14, 68, 210 }, EVS(ev_skl), .perf_table = "intel-skylakex",
};

/* Xeon Silver 4309Y (Ice Lake-SP, 06_6AH): perfmon v5, 8 GP + 4 fixed, PEBS format 4 with
 * baseline (adaptive), perf metrics: PERF_CAPABILITIES 0xf4c5. */
const struct vpmu_part vpmu_icx = {
        .name = "Ice Lake-SP", .family = 6, .model = 0x6a, .stepping = 6,
        .version = 5, .n_gp = 8, .gp_width = 48, .n_fixed = 4, .fixed_width = 48,
        .pdcm = true, .ds = true, .perf_caps = 0xf4c5,
        .lbr_depth = 32, .lbr_from = VP_LBR_NHM_FROM, .lbr_to = VP_LBR_NHM_TO,
        .l1d_kib = 48, .l2_kib = 1280, .l3_kib = 12288, .stlb_4k_entries = 2048,
        .lat = { 5, 14, 78, 230 }, EVS(ev_skl), .perf_table = "intel-icelakex",
};

/* Xeon Bronze 3408U (Sapphire Rapids, 06_8FH): perfmon v5, PEBS format 5 with baseline,
 * Architectural LBR (CPUID.1CH EAX 0xf: 8-32 entries, EBX 7, ECX 7). */
const struct vpmu_part vpmu_spr = {
        .name = "Sapphire Rapids", .family = 6, .model = 0x8f, .stepping = 8,
        .version = 5, .n_gp = 8, .gp_width = 48, .n_fixed = 4, .fixed_width = 48,
        .pdcm = true, .ds = true, .perf_caps = 0xf5ff,
        .arch_lbr = true, .lbr_1c_eax = 0xf, .lbr_1c_ebx = 0x7, .lbr_1c_ecx = 0x7,
        .l1d_kib = 48, .l2_kib = 2048, .l3_kib = 15360, .stlb_4k_entries = 2048,
        .lat = { 5, 16, 96, 260 }, EVS(ev_spr), .perf_table = "intel-sapphirerapids",
};

/* Ryzen 5 3600 (Zen 2, 17_71H): six extended core counters, no PerfMonV2; IBS with
 * OpCnt, BrnTrgt, OpCntExt, RipInvalidChk, OpBrnFuse (CPUID.8000001BH:EAX 0x1ff).
 * Front end of every Zen here: 32-byte aligned fetch blocks ([SOG-17h] and [SOG-19h]
 * "Instruction Fetch and Decode": 32 bytes per cycle from the instruction cache). Branch
 * fusion: Zen 2 fuses only CMP and TEST with a following Jcc, so the chase's dec and jnz are
 * two ops; Zen 3 and later also fuse ADD/SUB/AND/OR/XOR/INC/DEC with it ([SOG-19h] "Branch
 * Fusion"; corsix.org "x86 macro-op fusion notes" tabulates both). */
const struct vpmu_part vpmu_zen2 = {
        .name = "Zen 2", .amd = true, .family = 0x17, .model = 0x71, .stepping = 0,
        .ext_core = true, .ibs_caps = 0x1ff, .fetch_block_bytes = 32,
        .l1d_kib = 32, .l2_kib = 512, .l3_kib = 16384, .stlb_4k_entries = 2048,
        .lat = { 4, 12, 40, 330 }, EVS(ev_zen2), .perf_table = "amd-zen2",
};

/* Ryzen 5 7600 (Zen 4, 19_61H): PerfMonV2 with 6 counters; IBS adds FetchCtlExtd, OpData4
 * and the Zen 4 extensions (L3MissOnly, DataSrc[4:3]): 0xfff. */
const struct vpmu_part vpmu_zen4 = {
        .name = "Zen 4", .amd = true, .family = 0x19, .model = 0x61, .stepping = 2,
        .ext_core = true, .perfmon_v2 = true, .amd_n_core = 6, .ibs_caps = 0xfff,
        .fuse_dec_jcc = true, .fetch_block_bytes = 32,
        .l1d_kib = 32, .l2_kib = 1024, .l3_kib = 32768, .stlb_4k_entries = 3072,
        .lat = { 4, 14, 50, 340 }, EVS(ev_zen4), .perf_table = "amd-zen4",
};

/* EPYC 9005 (Zen 5 "Turin", 1A_02H): PerfMonV2, 4096 L2 dTLB entries (Software
 * Optimization Guide for the AMD Zen5 Microarchitecture, pub. 58455); IBS adds the
 * load-latency filter (bit 12) and is subject to erratum 1606. */
const struct vpmu_part vpmu_zen5 = {
        .name = "Zen 5", .amd = true, .family = 0x1a, .model = 0x02, .stepping = 1,
        .ext_core = true, .perfmon_v2 = true, .amd_n_core = 6, .ibs_caps = 0x1fff,
        .fuse_dec_jcc = true, .fetch_block_bytes = 32,
        .l1d_kib = 48, .l2_kib = 1024, .l3_kib = 32768, .stlb_4k_entries = 4096,
        .lat = { 5, 14, 50, 360 }, EVS(ev_zen4), .perf_table = "amd-zen5",
};

/* Atom C2750 (Silvermont, 06_4DH): v3, 2 GP x 40 bits, LBR format 3 with 8 entries at
 * 0x40/0x60 (Linux intel_pmu_lbr_init_slm). */
const struct vpmu_part vpmu_slm = {
        .name = "Silvermont", .family = 6, .model = 0x4d, .stepping = 8,
        .version = 3, .n_gp = 2, .gp_width = 40, .n_fixed = 3, .fixed_width = 40,
        .pdcm = true, .ds = true, .perf_caps = 0x1c3,
        .lbr_depth = 8, .lbr_from = VP_LBR_CORE_FROM, .lbr_to = VP_LBR_CORE_TO,
        .l1d_kib = 24, .l2_kib = 1024, .stlb_4k_entries = 128,
        .lat = { 3, 14, 14, 200 }, EVS(ev_arch),
};

/* Xeon X5650 (Westmere-EP, 06_2CH): v3, PEBS format 1 with load latency; the data source
 * carries the STLB-miss and lock bits (Linux leaves pebs_no_tlb clear for Westmere). */
const struct vpmu_part vpmu_wsm = {
        .name = "Westmere-EP", .family = 6, .model = 0x2c, .stepping = 2,
        .version = 3, .n_gp = 4, .gp_width = 48, .n_fixed = 3, .fixed_width = 48,
        .pdcm = true, .ds = true, .perf_caps = 0x1c3,
        .lbr_depth = 16, .lbr_from = VP_LBR_NHM_FROM, .lbr_to = VP_LBR_NHM_TO,
        .l1d_kib = 32, .l2_kib = 256, .l3_kib = 12288, .stlb_4k_entries = 512,
        .lat = { 4, 10, 40, 200 }, EVS(ev_nhm),
};

/* Xeon X5570 (Nehalem-EP, 06_1AH). */
const struct vpmu_part vpmu_nhm = {
        .name = "Nehalem-EP", .family = 6, .model = 0x1a, .stepping = 5,
        .version = 3, .n_gp = 4, .gp_width = 48, .n_fixed = 3, .fixed_width = 48,
        .pdcm = true, .ds = true, .perf_caps = 0x1c3,
        .lbr_depth = 16, .lbr_from = VP_LBR_NHM_FROM, .lbr_to = VP_LBR_NHM_TO,
        .l1d_kib = 32, .l2_kib = 256, .l3_kib = 8192, .stlb_4k_entries = 512,
        .lat = { 4, 10, 40, 200 }, EVS(ev_nhm),
};

/* Opteron 2435 (K10, 10_08H): four legacy counters. */
const struct vpmu_part vpmu_k10 = {
        .name = "K10", .amd = true, .family = 0x10, .model = 0x08, .stepping = 0,
        .l1d_kib = 64, .l2_kib = 512, .l3_kib = 6144, .stlb_4k_entries = 512,
        .lat = { 3, 15, 45, 250 }, EVS(ev_k10),
};

/* ---- CPUID ------------------------------------------------------------------------------- */

static void put(struct cpuid_dump *d, uint32_t leaf, uint32_t sub, uint32_t a, uint32_t b,
                uint32_t c, uint32_t dx)
{
        cpuid_dump_put(d, leaf, sub, (struct cpuid_regs){ a, b, c, dx });
}

static uint32_t signature(const struct vpmu_part *p)
{
        uint32_t fam = p->family > 0xf ? 0xf : p->family;
        uint32_t ext = p->family > 0xf ? p->family - 0xf : 0;

        return p->stepping | (p->model & 0xf) << 4 | fam << 8 | (p->model >> 4) << 16 | ext << 20;
}

/* A way count that divides the cache into whole 64-byte sets (11: Skylake-SP, 15: SPR). */
static unsigned ways_for(uint32_t kib)
{
        static const unsigned w[] = { 11, 15, 12, 16, 20, 8 };

        for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
                if (kib * 16 % w[i] == 0 && (kib * 16 / w[i]) % 64 == 0)
                        return w[i];
        return 1;
}

/* Deterministic cache parameters (Intel leaf 4 / AMD 0x8000001D): ways x sets x 64 B. */
static void cache_leaf(struct cpuid_dump *d, uint32_t leaf, uint32_t sub, unsigned level,
                       unsigned type, uint32_t kib, unsigned ways)
{
        uint32_t sets = kib * 1024 / 64 / ways;

        put(d, leaf, sub, type | level << 5 | 1u << 8, 63 | (ways - 1) << 22, sets - 1, 0);
}

void vpmu_cpuid(struct cpuid_dump *d)
{
        const struct vpmu_part *p = vp.p;

        memset(d, 0, sizeof(*d));
        if (!p)
                return;
        const char *v = p->amd ? "AuthenticAMD" : "GenuineIntel";
        uint32_t    w[3];

        memcpy(w, v, 12); /* EBX EDX ECX */
        /* leaf 1: EDX FPU..APIC(9), DS(21); ECX DTES64(2), PDCM(15), X2APIC(21) */
        uint32_t ecx1 = 1u << 21 | (p->pdcm ? 1u << 15 : 0) | (p->ds ? 1u << 2 : 0);
        uint32_t edx1 = 1u << 9 | 1u << 6 | 1u << 3 | (p->ds ? 1u << 21 : 0);

        put(d, 0, 0, p->amd ? 0x10 : 0x1f, w[0], w[2], w[1]);
        put(d, 1, 0, signature(p), 0x00100800, ecx1, edx1);
        put(d, 6, 0, 0, 0, 1, 0); /* APERF/MPERF */
        put(d, 7, 0, 0, 0, 0, p->arch_lbr ? 1u << 19 : 0);
        put(d, 0x80000000, 0, p->amd ? 0x80000022 : 0x80000008, 0, 0, 0);
        put(d, 0x80000007, 0, 0, 0, 0, 1u << 8);
        if (!p->amd) {
                unsigned l3w = ways_for(p->l3_kib);
                uint32_t ebx_len = 7, eax = p->version | p->n_gp << 8 | p->gp_width << 16 |
                                            ebx_len << 24;
                uint32_t edx = p->version >= 2 ? p->n_fixed | p->fixed_width << 5 : 0;

                put(d, 0xa, 0, eax, 0, p->version >= 5 ? (1u << p->n_fixed) - 1 : 0, edx);
                cache_leaf(d, 4, 0, 1, 1, p->l1d_kib, p->l1d_kib % 3 ? 8 : 12);
                cache_leaf(d, 4, 1, 1, 2, 32, 8);
                cache_leaf(d, 4, 2, 2, 3, p->l2_kib, p->l2_kib == 1280 ? 20 : 16);
                if (p->l3_kib)
                        cache_leaf(d, 4, 3, 3, 3, p->l3_kib, l3w);
                put(d, 4, p->l3_kib ? 4 : 3, 0, 0, 0, 0);
                /* leaf 0x18: sub-leaf 1 = the STLB, 4K|2M, 8 ways (type 3 unified, level 2) */
                put(d, 0x18, 0, 1, 0, 0, 0);
                put(d, 0x18, 1, 0, 0x3 | 8u << 16, p->stlb_4k_entries / 8, 3 | 2u << 5);
                if (p->arch_lbr)
                        put(d, 0x1c, 0, p->lbr_1c_eax, p->lbr_1c_ebx, p->lbr_1c_ecx, 0);
                put(d, 2, 0, 1, 0, 0, 0); /* leaf 2: no descriptors, use leaf 0x18 */
                return;
        }
        /* AMD: 80000001H ECX IBS(10), TOPOEXT(22), PerfCtrExtCore(23); EDX NX, 1G, RDTSCP */
        put(d, 0x80000001, 0, signature(p), 0,
            (p->ibs_caps ? 1u << 10 : 0) | 1u << 22 | (p->ext_core ? 1u << 23 : 0),
            1u << 20 | 1u << 26 | 1u << 27);
        put(d, 0x80000005, 0, 0, 0xff40ff40u, p->l1d_kib << 24 | 8 << 16 | 64, 0);
        /* Family 1Ah counts the L2 TLB entries of 80000006H in units of 32, as the real parts
         * report them (boot/x86/cpuid_cache.c, AMD_FAM1AH_L2TLB_UNIT). */
        uint32_t l2_unit = p->family >= 0x1a ? 32 : 1;
        put(d, 0x80000006, 0, 0,
            0x6000u << 16 | (p->stlb_4k_entries / l2_unit) << 16 | 0x6000 | 512 / l2_unit, 0, 0);
        cache_leaf(d, 0x8000001d, 0, 1, 1, p->l1d_kib, p->l1d_kib % 3 ? 8 : 12);
        cache_leaf(d, 0x8000001d, 1, 1, 2, 32, 8);
        cache_leaf(d, 0x8000001d, 2, 2, 3, p->l2_kib, 8);
        cache_leaf(d, 0x8000001d, 3, 3, 3, p->l3_kib, ways_for(p->l3_kib));
        put(d, 0x8000001d, 4, 0, 0, 0, 0);
        if (p->ibs_caps)
                put(d, 0x8000001b, 0, p->ibs_caps, 0, 0, 0);
        put(d, 0x80000022, 0, p->perfmon_v2 ? 1 : 0, p->amd_n_core, 0, 0);
}

void vpmu_cpu_info(struct cpu_info *ci)
{
        static struct cpuid_dump d;

        vpmu_cpuid(&d);
        memset(ci, 0, sizeof(*ci));
        cpu_decode(&d, ci);
}
