/** @file
 * The virtual PMU's own register map: MSR numbers, bit positions and record layouts written
 * from the vendor manuals, deliberately NOT taken from the driver's pmu/msr_*.h, so that a
 * wrong number in the driver makes the model fault or count nothing instead of agreeing with
 * it. tests/test_vpmu.c compares the two sets and fails where they differ.
 *
 * Tags: [SDM-3B] Intel SDM Vol. 3B "Performance Monitoring" (architectural perfmon, PEBS, DS,
 * LBR, Arch LBR); [SDM-4] Intel SDM Vol. 4 "Model-Specific Registers" (Table 2-2);
 * [SDM-3A] Vol. 3A "Local APIC"; [APM-2] AMD64 APM Vol. 2 "Performance Monitor Counters",
 * "Instruction-Based Sampling"; [PPR-19h]/[PPR-1Ah] AMD Processor Programming Reference for
 * families 19h/1Ah (MSRC001_1030..103D). Names are the manuals' own, prefixed VP_.
 */
#ifndef PMUCAL_VPMU_REGS_H
#define PMUCAL_VPMU_REGS_H

#define VP_BIT(n) (1ull << (n))

/* ---- Intel architectural perfmon [SDM-4] Table 2-2, [SDM-3B] ------------------------- */
#define VP_IA32_PMC0                 0x0c1u  /* +n, legacy write: low 32 bits sign-extended */
#define VP_IA32_PERFEVTSEL0          0x186u  /* +n */
#define VP_IA32_A_PMC0               0x4c1u  /* +n, full-width alias (PERF_CAPABILITIES[13]) */
#define VP_IA32_FIXED_CTR0           0x309u  /* +n */
#define VP_IA32_FIXED_CTR_CTRL       0x38du
#define VP_IA32_PERF_GLOBAL_STATUS   0x38eu
#define VP_IA32_PERF_GLOBAL_CTRL     0x38fu
#define VP_IA32_PERF_GLOBAL_OVF_CTRL 0x390u  /* v4: IA32_PERF_GLOBAL_STATUS_RESET */
#define VP_IA32_PERF_GLOBAL_STATUS_SET 0x391u /* v4 */
#define VP_IA32_PERF_CAPABILITIES    0x345u
#define VP_IA32_MISC_ENABLE          0x1a0u
#define VP_IA32_DEBUGCTL             0x1d9u
#define VP_IA32_MPERF                0x0e7u
#define VP_IA32_APERF                0x0e8u

/* IA32_PERFEVTSELx */
#define VP_EVTSEL_USR   VP_BIT(16)
#define VP_EVTSEL_OS    VP_BIT(17)
#define VP_EVTSEL_E     VP_BIT(18)
#define VP_EVTSEL_INT   VP_BIT(20)
#define VP_EVTSEL_EN    VP_BIT(22)
#define VP_EVTSEL_INV   VP_BIT(23)
#define VP_EVTSEL_ADAPTIVE VP_BIT(34) /* Adaptive_Record, PEBS baseline parts [SDM-3B] */

/* IA32_FIXED_CTR_CTRL: four bits per counter: 0 OS, 1 USR, 2 AnyThread, 3 PMI. */
#define VP_FIXED_OS     0x1u
#define VP_FIXED_USR    0x2u
#define VP_FIXED_PMI    0x8u

/* IA32_PERF_GLOBAL_STATUS flag bits [SDM-3B] "Performance Monitoring Version 4/5". */
#define VP_STATUS_PERF_METRICS VP_BIT(48)
#define VP_STATUS_LBR_FRZ      VP_BIT(58)
#define VP_STATUS_CTR_FRZ      VP_BIT(59)
#define VP_STATUS_OVF_BUFFER   VP_BIT(62)
#define VP_STATUS_COND_CHGD    VP_BIT(63)

/* IA32_PERF_CAPABILITIES */
#define VP_CAP_LBR_FMT(v)      ((unsigned)((v) & 0x3f))
#define VP_CAP_PEBS_FMT(v)     ((unsigned)(((v) >> 8) & 0xf))
#define VP_CAP_FW_WRITE        VP_BIT(13)
#define VP_CAP_PEBS_BASELINE   VP_BIT(14)

/* IA32_MISC_ENABLE */
#define VP_MISC_PERFMON        VP_BIT(7)
#define VP_MISC_BTS_UNAVAIL    VP_BIT(11)
#define VP_MISC_PEBS_UNAVAIL   VP_BIT(12)

/* IA32_DEBUGCTL */
#define VP_DEBUGCTL_LBR            VP_BIT(0)
#define VP_DEBUGCTL_FREEZE_LBR_PMI VP_BIT(11)

/* ---- Debug store and PEBS [SDM-3B] "Debug Store (DS) Mechanism", "PEBS" -------------- */
#define VP_IA32_DS_AREA              0x600u
#define VP_IA32_PEBS_ENABLE          0x3f1u
#define VP_MSR_PEBS_DATA_CFG         0x3f2u
#define VP_MSR_PEBS_LD_LAT           0x3f6u
/* 64-bit DS save area, byte offsets */
#define VP_DS_PEBS_BASE      0x20u
#define VP_DS_PEBS_INDEX     0x28u
#define VP_DS_PEBS_MAX       0x30u
#define VP_DS_PEBS_THRESH    0x38u
#define VP_DS_PEBS_RESET     0x40u  /* u64 per counter: GP n at n; fixed j at 8+j (fmt<5), 32+j */
/* Legacy records: RFLAGS, RIP, RAX..R15 (18 words), then format 1+: GLOBAL_STATUS, DLA,
 * DSE, latency; format 2+: EventingIP, TX abort; format 3: TSC. */
#define VP_PEBS_IP       0x08u
#define VP_PEBS_STATUS   0x90u
#define VP_PEBS_DLA      0x98u
#define VP_PEBS_DSE      0xa0u
#define VP_PEBS_LAT      0xa8u
#define VP_PEBS_EV_IP    0xb0u
#define VP_PEBS_TSC      0xc0u
/* Adaptive records (format 4+ with baseline): basic group, then MEMINFO, GPR, XMM, LBR. */
#define VP_PEBS_BASIC_BYTES   0x20u  /* record-format word, IP, applicable counters, TSC */
#define VP_PEBS_MEMINFO_BYTES 0x20u  /* address, aux (DSE), latency, TSX */
#define VP_DATACFG_MEMINFO    VP_BIT(0)
#define VP_DATACFG_GPR        VP_BIT(1)
#define VP_DATACFG_XMM        VP_BIT(2)
#define VP_DATACFG_LBR        VP_BIT(3)

/* ---- LBR [SDM-3B] "Last Branch Recording", "Architectural Last Branch Records" -------- */
#define VP_MSR_LBR_SELECT        0x1c8u
#define VP_MSR_LBR_TOS           0x1c9u
#define VP_LBR_CORE_FROM         0x040u  /* Core 2, Atom, Silvermont/Airmont */
#define VP_LBR_CORE_TO           0x060u
#define VP_LBR_NHM_FROM          0x680u  /* Nehalem .. Ice Lake, Goldmont */
#define VP_LBR_NHM_TO            0x6c0u
#define VP_LBR_INFO0             0xdc0u  /* format 5 / 7 */
#define VP_IA32_LBR_CTL          0x14ceu
#define VP_IA32_LBR_DEPTH        0x14cfu
#define VP_IA32_LBR_FROM0        0x1500u
#define VP_IA32_LBR_TO0          0x1600u
#define VP_IA32_LBR_INFO0        0x1200u
#define VP_LBR_CTL_EN            VP_BIT(0)
#define VP_LBR_CTL_OS            VP_BIT(1)
#define VP_LBR_CTL_USR           VP_BIT(2)
#define VP_LBR_CTL_CALL_STACK    VP_BIT(3)
#define VP_LBR_CTL_FILTERS       (0x7full << 16)  /* JCC .. OTHER_BRANCH */
#define VP_LBR_INFO_MISPRED      VP_BIT(63)
#define VP_LBR_INFO_IN_TX        VP_BIT(62)
#define VP_LBR_INFO_ABORT        VP_BIT(61)
#define VP_LBR_INFO_CYC_VALID    VP_BIT(60)  /* Arch LBR */
#define VP_LBR_INFO_BR_TYPE_SHIFT 56         /* Arch LBR, 4 bits */
#define VP_LBR_FROM_MISPRED      VP_BIT(63)  /* formats 3, 4, 6 */

/* ---- AMD core counters [APM-2] "Performance Monitor Counters" ------------------------ */
#define VP_K7_EVNTSEL0           0xc0010000u  /* +n, four counters */
#define VP_K7_PERFCTR0           0xc0010004u
#define VP_F15H_PERF_CTL0        0xc0010200u  /* +2n, six counters (PerfCtrExtCore) */
#define VP_F15H_PERF_CTR0        0xc0010201u
#define VP_AMD_GLOBAL_STATUS     0xc0000300u  /* PerfMonV2 */
#define VP_AMD_GLOBAL_CTL        0xc0000301u
#define VP_AMD_GLOBAL_STATUS_CLR 0xc0000302u
#define VP_AMD_EVTSEL_EVENT_HI_SHIFT 32        /* EventSelect[11:8] at [35:32] */

/* ---- AMD IBS [APM-2] "Instruction-Based Sampling", [PPR-19h] MSRC001_1030.. ---------- */
#define VP_IBS_FETCH_CTL   0xc0011030u
#define VP_IBS_FETCH_LINAD 0xc0011031u
#define VP_IBS_FETCH_PHYSAD 0xc0011032u
#define VP_IBS_OP_CTL      0xc0011033u
#define VP_IBS_OP_RIP      0xc0011034u
#define VP_IBS_OP_DATA     0xc0011035u
#define VP_IBS_OP_DATA2    0xc0011036u
#define VP_IBS_OP_DATA3    0xc0011037u
#define VP_IBS_DC_LINAD    0xc0011038u
#define VP_IBS_DC_PHYSAD   0xc0011039u
#define VP_IBS_CTL         0xc001103au
#define VP_IBS_BR_TARGET   0xc001103bu
#define VP_IBS_FETCH_EXTD  0xc001103cu
#define VP_IBS_OP_DATA4    0xc001103du
/* IbsOpCtl */
#define VP_OPCTL_MAXCNT        0xffffull
#define VP_OPCTL_L3MISSONLY    VP_BIT(16)
#define VP_OPCTL_EN            VP_BIT(17)
#define VP_OPCTL_VAL           VP_BIT(18)
#define VP_OPCTL_CNT_CTL       VP_BIT(19)
#define VP_OPCTL_MAXCNT_EXT_SHIFT 20       /* [26:20] = MaxCnt[22:16] */
#define VP_OPCTL_CURCNT_SHIFT  32          /* [58:32]; [38:32] random */
#define VP_OPCTL_LDLAT_SHIFT   59          /* [62:59] threshold/128 - 1 */
#define VP_OPCTL_LDLAT_EN      VP_BIT(63)
/* IbsFetchCtl */
#define VP_FETCH_MAXCNT        0xffffull
#define VP_FETCH_CNT_SHIFT     16
#define VP_FETCH_LAT_SHIFT     32
#define VP_FETCH_EN            VP_BIT(48)
#define VP_FETCH_VAL           VP_BIT(49)
#define VP_FETCH_COMP          VP_BIT(50)
#define VP_FETCH_IC_MISS       VP_BIT(51)
#define VP_FETCH_PHY_VALID     VP_BIT(52)
#define VP_FETCH_RAND_EN       VP_BIT(57)
/* IbsOpData */
#define VP_OPDATA_TAG_TO_RET_SHIFT 16
#define VP_OPDATA_RETURN       VP_BIT(34)
#define VP_OPDATA_BRN_TAKEN    VP_BIT(35)
#define VP_OPDATA_BRN_MISP     VP_BIT(36)
#define VP_OPDATA_BRN_RET      VP_BIT(37)
/* IbsOpData2 (Fam17h+): DataSrc[2:0], RmtNode 4, CacheHitSt 5, DataSrc[4:3] at [7:6] */
#define VP_OPDATA2_SRC_LO      0x7ull
#define VP_OPDATA2_SRC_HI_SHIFT 6
/* IbsOpData3 */
#define VP_OPDATA3_LD          VP_BIT(0)
#define VP_OPDATA3_ST          VP_BIT(1)
#define VP_OPDATA3_L1TLB_MISS  VP_BIT(2)
#define VP_OPDATA3_L2TLB_MISS  VP_BIT(3)
#define VP_OPDATA3_L1TLB_HIT_2M VP_BIT(4)  /* IbsDcL1tlbHit2M */
#define VP_OPDATA3_DC_MISS     VP_BIT(7)
#define VP_OPDATA3_LIN_VALID   VP_BIT(17)
#define VP_OPDATA3_PHY_VALID   VP_BIT(18)
#define VP_OPDATA3_L2_MISS     VP_BIT(20)
#define VP_OPDATA3_WIDTH_SHIFT 22          /* OpMemWidth [25:22] */
#define VP_OPDATA3_MISS_LAT_SHIFT 32       /* IbsDcMissLat [47:32] */
/* IBS_CTL */
#define VP_IBSCTL_LVT_OFFSET   0xfull
#define VP_IBSCTL_LVT_VALID    VP_BIT(8)
/* IbsOpData2 DataSrc values: Zen 1-3 and Zen 4+ [PPR-19h] */
#define VP_SRC_LOC_CACHE   2u   /* Zen 1-3: L3 / other CCX on this node */
#define VP_SRC_DRAM        3u
#define VP_SRC4_LOC_CACHE  1u   /* Zen 4+: local L3 */
#define VP_SRC4_DRAM       3u

/* ---- local APIC [SDM-3A] "Local Vector Table", [APM-2] extended LVT ----------------- */
#define VP_APIC_LVT_PMC     0x340u
#define VP_APIC_EILVT0      0x500u
#define VP_APIC_LVT_MASKED  VP_BIT(16)
#define VP_APIC_DM_NMI      (4u << 8)

#endif
