/** @file
 * AMD Instruction-Based Sampling: MSR numbers, CPUID 0x8000001B capability bits and the field
 * layouts of every IBS register, as numbers and bit macros only (no code). Names follow Linux
 * msr-index.h / perf_event.h / amd-ibs.h and keep the manual's spelling after the prefix.
 * Sources: [PPR-19h-01h] (55898 rev 0.35, as transcribed in Linux amd-ibs.h), [BKDG-10h]
 * (31116; field list as printed by the Solaris IBS DTrace provider seed and AMD's OProfile
 * opd_ibs_macro.h), Linux arch/x86/events/amd/ibs.c for the cross-family rules.
 * Where the sources disagree the choice is stated next to the field.
 */
#ifndef PMUCAL_MSR_IBS_H
#define PMUCAL_MSR_IBS_H

#include "lib/base.h"

/* ---- CPUID ------------------------------------------------------------------------------ */
#define CPUID_IBS_FEATURES          0x8000001b  /* [PPR-19h-01h] CPUID_Fn8000001B_EAX */
/* Bit 0 (IBSFFV) says the other bits are valid; when it is clear, or the leaf is absent,
 * only fetch and op sampling may be assumed (Linux IBS_CAPS_DEFAULT). */
#define IBS_CAPS_AVAIL              BIT_ULL(0)
#define IBS_CAPS_FETCHSAM           BIT_ULL(1)
#define IBS_CAPS_OPSAM              BIT_ULL(2)
#define IBS_CAPS_RDWROPCNT          BIT_ULL(3)   /* IbsOpCurCnt readable/writable */
#define IBS_CAPS_OPCNT              BIT_ULL(4)   /* IbsOpCntCtl: count dispatched ops */
#define IBS_CAPS_BRNTRGT            BIT_ULL(5)   /* IbsBrTarget MSR */
#define IBS_CAPS_OPCNTEXT           BIT_ULL(6)   /* IbsOpMaxCnt[22:16] in IbsOpCtl[26:20] */
#define IBS_CAPS_RIPINVALIDCHK      BIT_ULL(7)   /* IbsOpData[IbsRipInvalid] */
#define IBS_CAPS_OPBRNFUSE          BIT_ULL(8)   /* IbsOpData[IbsOpBrnFuse] */
#define IBS_CAPS_FETCHCTLEXTD       BIT_ULL(9)   /* IbsFetchCtlExtd MSR */
#define IBS_CAPS_OPDATA4            BIT_ULL(10)  /* IbsOpData4 MSR */
#define IBS_CAPS_ZEN4               BIT_ULL(11)  /* L3MissOnly filters, DataSrc[4:3] */
#define IBS_CAPS_OPLDLAT            BIT_ULL(12)  /* IbsOpCtl load-latency filter */
#define IBS_CAPS_OPDTLBPGSIZE       BIT_ULL(19)
#define IBS_CAPS_DEFAULT            (IBS_CAPS_AVAIL | IBS_CAPS_FETCHSAM | IBS_CAPS_OPSAM)

/* ---- MSR numbers ([PPR-19h-01h] MSRC001_103x; Linux msr-index.h) ----------------------- */
#define MSR_AMD64_IBSFETCHCTL       0xc0011030
#define MSR_AMD64_IBSFETCHLINAD     0xc0011031
#define MSR_AMD64_IBSFETCHPHYSAD    0xc0011032
#define MSR_AMD64_IBSOPCTL          0xc0011033
#define MSR_AMD64_IBSOPRIP          0xc0011034
#define MSR_AMD64_IBSOPDATA         0xc0011035
#define MSR_AMD64_IBSOPDATA2        0xc0011036
#define MSR_AMD64_IBSOPDATA3        0xc0011037
#define MSR_AMD64_IBSDCLINAD        0xc0011038
#define MSR_AMD64_IBSDCPHYSAD       0xc0011039
#define MSR_AMD64_IBSCTL            0xc001103a
#define MSR_AMD64_IBSBRTARGET       0xc001103b   /* IBS_CAPS_BRNTRGT */
#define MSR_AMD64_ICIBSEXTDCTL      0xc001103c   /* IBS_CAPS_FETCHCTLEXTD */
#define MSR_AMD64_IBSOPDATA4        0xc001103d   /* IBS_CAPS_OPDATA4 */

/* ---- IbsFetchCtl (MSRC001_1030) ---------------------------------------------------------- */
#define IBSFETCHCTL_MAXCNT          0xffffull    /* period / 16 */
#define IBSFETCHCTL_CNT_SHIFT       16
#define IBSFETCHCTL_CNT             (0xffffull << IBSFETCHCTL_CNT_SHIFT)
#define IBSFETCHCTL_LAT_SHIFT       32           /* IbsFetchLat, cycles */
#define IBSFETCHCTL_LAT             (0xffffull << IBSFETCHCTL_LAT_SHIFT)
#define IBSFETCHCTL_EN              BIT_ULL(48)
#define IBSFETCHCTL_VAL             BIT_ULL(49)
#define IBSFETCHCTL_COMP            BIT_ULL(50)
#define IBSFETCHCTL_IC_MISS         BIT_ULL(51)
#define IBSFETCHCTL_PHY_ADDR_VALID  BIT_ULL(52)
#define IBSFETCHCTL_L1TLB_PGSZ_SHIFT 53          /* 0 4K, 1 2M, 2 1G (needs PhyAddrValid) */
#define IBSFETCHCTL_L1TLB_PGSZ      (3ull << IBSFETCHCTL_L1TLB_PGSZ_SHIFT)
#define IBSFETCHCTL_L1TLB_MISS      BIT_ULL(55)
#define IBSFETCHCTL_L2TLB_MISS      BIT_ULL(56)
#define IBSFETCHCTL_RAND_EN         BIT_ULL(57)
#define IBSFETCHCTL_L2_MISS         BIT_ULL(58)  /* Fam17h+ (needs IbsFetchComp) */
#define IBSFETCHCTL_L3_MISS_ONLY    BIT_ULL(59)  /* IBS_CAPS_ZEN4 */
#define IBSFETCHCTL_OC_MISS         BIT_ULL(60)  /* IBS_CAPS_ZEN4: op-cache miss */
#define IBSFETCHCTL_L3_MISS         BIT_ULL(61)  /* IBS_CAPS_ZEN4 */

/* ---- IbsFetchCtlExtd (MSRC001_103C) ----------------------------------------------------- */
#define ICIBSEXTDCTL_ITLB_REFILL_LAT 0xffffull   /* cycles */

/* ---- IbsOpCtl (MSRC001_1033) ------------------------------------------------------------- */
#define IBSOPCTL_MAXCNT             0xffffull    /* IbsOpMaxCnt[15:0] = period[19:4] */
#define IBSOPCTL_L3_MISS_ONLY       BIT_ULL(16)  /* IBS_CAPS_ZEN4 */
#define IBSOPCTL_OP_EN              BIT_ULL(17)
#define IBSOPCTL_OP_VAL             BIT_ULL(18)
#define IBSOPCTL_OP_CNT_CTL         BIT_ULL(19)  /* 1 = count dispatched ops, 0 = cycles */
#define IBSOPCTL_MAXCNT_EXT_SHIFT   20           /* IbsOpMaxCnt[22:16], IBS_CAPS_OPCNTEXT */
#define IBSOPCTL_MAXCNT_EXT         (0x7full << IBSOPCTL_MAXCNT_EXT_SHIFT)
#define IBSOPCTL_CURCNT_SHIFT       32           /* IbsOpCurCnt[26:0]; [6:0] random */
#define IBSOPCTL_CURCNT             (0x7ffffffull << IBSOPCTL_CURCNT_SHIFT)
#define IBSOPCTL_LDLAT_THRSH_SHIFT  59           /* (threshold / 128) - 1, IBS_CAPS_OPLDLAT */
#define IBSOPCTL_LDLAT_THRSH        (0xfull << IBSOPCTL_LDLAT_THRSH_SHIFT)
#define IBSOPCTL_LDLAT_EN           BIT_ULL(63)
#define IBS_OP_MAXCNT_MAX           0xffffull    /* without OpCntExt */
#define IBS_OP_MAXCNT_EXT_MAX       0x7fffffull  /* with OpCntExt (not a register mask) */
#define IBS_OP_LDLAT_MIN_CYCLES     128          /* Linux ibs.c: 128..2048, step 128 */
#define IBS_OP_LDLAT_MAX_CYCLES     2048

/* ---- IbsOpData (MSRC001_1035) ------------------------------------------------------------ */
#define IBSOPDATA_COMP_TO_RET_CTR   0xffffull    /* cycles, op completion to retire */
#define IBSOPDATA_TAG_TO_RET_CTR_SHIFT 16        /* cycles, op tag to retire */
#define IBSOPDATA_TAG_TO_RET_CTR    (0xffffull << IBSOPDATA_TAG_TO_RET_CTR_SHIFT)
#define IBSOPDATA_OP_BRN_RESYNC     BIT_ULL(32)  /* [BKDG-10h] only; reserved on Zen */
#define IBSOPDATA_OP_MISP_RETURN    BIT_ULL(33)  /* [BKDG-10h] only; reserved on Zen */
#define IBSOPDATA_OP_RETURN         BIT_ULL(34)
#define IBSOPDATA_OP_BRN_TAKEN      BIT_ULL(35)
#define IBSOPDATA_OP_BRN_MISP       BIT_ULL(36)
#define IBSOPDATA_OP_BRN_RET        BIT_ULL(37)
#define IBSOPDATA_OP_RIP_INVALID    BIT_ULL(38)  /* IBS_CAPS_RIPINVALIDCHK */
#define IBSOPDATA_OP_BRN_FUSE       BIT_ULL(39)  /* IBS_CAPS_OPBRNFUSE */
#define IBSOPDATA_OP_MICROCODE      BIT_ULL(40)

/* ---- IbsOpData2 (MSRC001_1036): valid for load ops that missed ------------------------- */
#define IBSOPDATA2_DATA_SRC_LO      0x7ull       /* [BKDG-10h] NbIbsReqSrc */
#define IBSOPDATA2_RMT_NODE         BIT_ULL(4)   /* [BKDG-10h] NbIbsReqDstProc */
#define IBSOPDATA2_CACHE_HIT_ST     BIT_ULL(5)   /* 1 = O state, 0 = M state */
#define IBSOPDATA2_DATA_SRC_HI_SHIFT 6           /* DataSrc[4:3], IBS_CAPS_ZEN4 */
#define IBSOPDATA2_DATA_SRC_HI      (3ull << IBSOPDATA2_DATA_SRC_HI_SHIFT)

/* DataSrc values. Fam10h-16h NbIbsReqSrc [BKDG-10h]: */
#define IBS_NB_REQ_SRC_L3           1   /* local L3 */
#define IBS_NB_REQ_SRC_CACHE        2   /* another core's cache (DstProc: same/other node) */
#define IBS_NB_REQ_SRC_DRAM         3
#define IBS_NB_REQ_SRC_OTHER        7   /* MMIO, config, APIC */
/* Fam17h-19h without IBS_CAPS_ZEN4 (Linux amd-ibs.h IBS_DATA_SRC_*): */
#define IBS_DATA_SRC_LOC_CACHE      2
#define IBS_DATA_SRC_DRAM           3
#define IBS_DATA_SRC_REM_CACHE      4
#define IBS_DATA_SRC_IO             7
/* With IBS_CAPS_ZEN4, DataSrc = (DATA_SRC_HI << 3) | DATA_SRC_LO (IBS_DATA_SRC_EXT_*): */
#define IBS_DATA_SRC_EXT_LOC_CACHE       1
#define IBS_DATA_SRC_EXT_NEAR_CCX_CACHE  2
#define IBS_DATA_SRC_EXT_DRAM            3
#define IBS_DATA_SRC_EXT_FAR_CCX_CACHE   5
#define IBS_DATA_SRC_EXT_PMEM            6
#define IBS_DATA_SRC_EXT_IO              7
#define IBS_DATA_SRC_EXT_EXT_MEM         8
#define IBS_DATA_SRC_EXT_PEER_AGENT_MEM  12

/* ---- IbsOpData3 (MSRC001_1037) ----------------------------------------------------------- */
#define IBSOPDATA3_LD_OP            BIT_ULL(0)
#define IBSOPDATA3_ST_OP            BIT_ULL(1)
#define IBSOPDATA3_DC_L1TLB_MISS    BIT_ULL(2)
#define IBSOPDATA3_DC_L2TLB_MISS    BIT_ULL(3)
#define IBSOPDATA3_DC_L1TLB_HIT_2M  BIT_ULL(4)
#define IBSOPDATA3_DC_L1TLB_HIT_1G  BIT_ULL(5)
#define IBSOPDATA3_DC_L2TLB_HIT_2M  BIT_ULL(6)
#define IBSOPDATA3_DC_MISS          BIT_ULL(7)
#define IBSOPDATA3_DC_MIS_ACC       BIT_ULL(8)   /* misaligned */
#define IBSOPDATA3_DC_LD_BNK_CON    BIT_ULL(9)   /* [BKDG-10h] only */
#define IBSOPDATA3_DC_ST_BNK_CON    BIT_ULL(10)  /* [BKDG-10h] only */
#define IBSOPDATA3_DC_ST_TO_LD_FWD  BIT_ULL(11)  /* [BKDG-10h] only */
#define IBSOPDATA3_DC_ST_TO_LD_CAN  BIT_ULL(12)  /* [BKDG-10h] only */
/* Bits 13/14: [PPR-19h-01h] (Linux amd-ibs.h) and AMD's own OProfile IBS code for Fam10h put
 * WC at 13 and UC at 14; the DTrace-provider seed, libpfm and CodeXL's hdMSR.h print UC first.
 * We follow the PPR and OProfile for every family. */
#define IBSOPDATA3_DC_WC_MEM_ACC    BIT_ULL(13)
#define IBSOPDATA3_DC_UC_MEM_ACC    BIT_ULL(14)
#define IBSOPDATA3_DC_LOCKED_OP     BIT_ULL(15)
#define IBSOPDATA3_DC_MISS_NO_MAB_ALLOC BIT_ULL(16) /* Fam17h+; [BKDG-10h] IbsDcMabHit */
#define IBSOPDATA3_DC_LIN_ADDR_VALID BIT_ULL(17)
#define IBSOPDATA3_DC_PHY_ADDR_VALID BIT_ULL(18)
#define IBSOPDATA3_DC_L2TLB_HIT_1G  BIT_ULL(19)
#define IBSOPDATA3_L2_MISS          BIT_ULL(20)  /* Fam17h+ */
#define IBSOPDATA3_SW_PF            BIT_ULL(21)  /* Fam17h+ */
#define IBSOPDATA3_OP_MEM_WIDTH_SHIFT 22         /* Fam17h+: 0 none, else 1 << (n - 1) bytes */
#define IBSOPDATA3_OP_MEM_WIDTH     (0xfull << IBSOPDATA3_OP_MEM_WIDTH_SHIFT)
#define IBSOPDATA3_OP_DC_MISS_OPEN_MEM_REQS_SHIFT 26
#define IBSOPDATA3_OP_DC_MISS_OPEN_MEM_REQS (0x3full << IBSOPDATA3_OP_DC_MISS_OPEN_MEM_REQS_SHIFT)
#define IBSOPDATA3_DC_MISS_LAT_SHIFT 32          /* cycles, DC miss to data delivered */
#define IBSOPDATA3_DC_MISS_LAT      (0xffffull << IBSOPDATA3_DC_MISS_LAT_SHIFT)
#define IBSOPDATA3_TLB_REFILL_LAT_SHIFT 48       /* Fam17h+: L1 DTLB refill latency, cycles */
#define IBSOPDATA3_TLB_REFILL_LAT   (0xffffull << IBSOPDATA3_TLB_REFILL_LAT_SHIFT)

/* ---- IbsOpData4 (MSRC001_103D) ----------------------------------------------------------- */
#define IBSOPDATA4_LD_RESYNC        BIT_ULL(0)   /* AMD CodeXL hdMSR.h; not in Linux */

/* ---- IBS_CTL (MSRC001_103A): the extended-APIC LVT entry IBS interrupts through ---------- */
#define IBSCTL_LVT_OFFSET           0xfull
#define IBSCTL_LVT_OFFSET_VALID     BIT_ULL(8)
/* Fam10h: the BIOS leaves IBS_CTL unset and the OS writes the offset, per node, into the
 * northbridge PCI function 3 register 0x1CC, which IBS_CTL mirrors (Linux ibs.c). */
#define IBS_NB_PCI_IBSCTL_REG       0x1cc

/* ---- Extended APIC LVT ([APM-2] "Extended Interrupts"; Linux apic.c setup_APIC_eilvt) --- */
#define APIC_EFEAT                  0x400        /* extended APIC feature register */
#define APIC_EFEAT_XLC_SHIFT        16           /* number of extended LVT entries, [23:16] */
#define APIC_EILVT0                 0x500        /* entry n at APIC_EILVT0 + 0x10 * n */
#define APIC_EILVT_STRIDE           0x10
#define APIC_EILVT_NR_MAX           4
#define APIC_EILVT_VECTOR           0xffull
#define APIC_EILVT_MSG_SHIFT        8
#define APIC_EILVT_MSG_FIX          0
#define APIC_EILVT_MSG_SMI          2
#define APIC_EILVT_MSG_NMI          4
#define APIC_EILVT_MSG_EXT          7
#define APIC_EILVT_MASKED           BIT_ULL(16)

#endif
