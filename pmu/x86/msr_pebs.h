/** @file
 * Intel PEBS and the Debug Store: MSR numbers (IA32_PERF_CAPABILITIES in msr_arch.h), the
 * 64-bit DS save-area layout, PEBS record layouts per format, adaptive-PEBS groups and the
 * load-latency data-source encoding bits. Numbers and bit macros only. Sources: [SDM-3B]
 * "Debug Store (DS) Mechanism" and "PEBS" sections; Linux msr-index.h, perf_event.h
 * (struct pebs_basic / pebs_meminfo), events/intel/ds.c (struct pebs_record_*, union
 * intel_x86_pebs_dse, pebs_data_source[] and its per-generation patches).
 */
#ifndef PMUCAL_MSR_PEBS_H
#define PMUCAL_MSR_PEBS_H

#include "lib/base.h"
#include "pmu/x86/msr_arch.h" /* IA32_PERF_CAPABILITIES fields */

/* ---- MSRs ([SDM-4] Table 2-2; Linux msr-index.h) ----------------------------------------- */
#define MSR_IA32_DS_AREA            0x600
#define MSR_IA32_PEBS_ENABLE        0x3f1
#define MSR_PEBS_DATA_CFG           0x3f2        /* adaptive PEBS (PERF_CAPABILITIES[14]) */
#define MSR_PEBS_LD_LAT_THRESHOLD   0x3f6        /* cycles; Linux valid mask 0xffff */
#define MSR_PEBS_FRONTEND           0x3f7
#define PEBS_LD_LAT_THRESHOLD_MASK  0xffffull

/* IA32_PERF_CAPABILITIES fields (PEBS format, baseline, ...) are in pmu/x86/msr_arch.h. */

/* IA32_MISC_ENABLE bits saying the DS features are absent ([SDM-4] Table 2-2). */
#define MSR_IA32_MISC_ENABLE        0x1a0
#define MISC_ENABLE_BTS_UNAVAIL     BIT_ULL(11)
#define MISC_ENABLE_PEBS_UNAVAIL    BIT_ULL(12)

/* ---- IA32_PEBS_ENABLE ------------------------------------------------------------------- */
/* Bit n enables PEBS on GP counter n. With perfmon version < 5 a load-latency event on
 * counter n also needs bit 32 + n (Linux intel/ds.c); from PEBS format 4 (baseline) bit
 * 32 + j enables PEBS on fixed counter j. Bit 63: precise store (SNB). */
#define PEBS_ENABLE_LDLAT_SHIFT     32
#define PEBS_ENABLE_FIXED_SHIFT     32
#define PEBS_ENABLE_PST             BIT_ULL(63)

/* ---- MSR_PEBS_DATA_CFG (Linux perf_event.h PEBS_DATACFG_*) ------------------------------ */
#define PEBS_DATACFG_MEMINFO        BIT_ULL(0)
#define PEBS_DATACFG_GP             BIT_ULL(1)
#define PEBS_DATACFG_XMMS           BIT_ULL(2)
#define PEBS_DATACFG_LBRS           BIT_ULL(3)
#define PEBS_DATACFG_LBR_SHIFT      24           /* number of LBR entries - 1, [31:24] */
#define PEBS_DATACFG_LBR_NR         (0xffull << PEBS_DATACFG_LBR_SHIFT)

/* ---- Debug Store save area, 64-bit format (u64 fields; [SDM-3B] DS save area) ------------ */
#define DS_BTS_BUFFER_BASE          0x00
#define DS_BTS_INDEX                0x08
#define DS_BTS_ABSOLUTE_MAXIMUM     0x10
#define DS_BTS_INTERRUPT_THRESHOLD  0x18
#define DS_PEBS_BUFFER_BASE         0x20
#define DS_PEBS_INDEX               0x28
#define DS_PEBS_ABSOLUTE_MAXIMUM    0x30
#define DS_PEBS_INTERRUPT_THRESHOLD 0x38
#define DS_PEBS_EVENT_RESET         0x40         /* u64 reset value per counter */
/* Reset-array index: GP counter n at n; fixed counter j at 8 + j before PEBS format 5,
 * at 32 + j from format 5 (Linux MAX_PEBS_EVENTS_FMT4 / MAX_PEBS_EVENTS). */
#define DS_RESET_FIXED_BASE_FMT4    8
#define DS_RESET_FIXED_BASE_FMT5    32
#define DS_RESET_NR                 48
#define BTS_RECORD_SIZE             24

/* ---- PEBS records, legacy formats 0-3 (byte offsets of u64 fields; Linux ds.c) ----------- */
#define PEBS_REC_FLAGS              0x00         /* RFLAGS */
#define PEBS_REC_IP                 0x08         /* fmt 0/1: IP after the eventing insn */
#define PEBS_REC_STATUS             0x90         /* fmt 1+: counters that overflowed */
#define PEBS_REC_DLA                0x98         /* data linear address */
#define PEBS_REC_DSE                0xa0         /* data source encoding */
#define PEBS_REC_LAT                0xa8         /* load latency, core cycles */
#define PEBS_REC_REAL_IP            0xb0         /* fmt 2+: eventing IP */
#define PEBS_REC_TSX_TUNING         0xb8
#define PEBS_REC_TSC                0xc0         /* fmt 3 */
#define PEBS_REC_SIZE_FMT0          0x90
#define PEBS_REC_SIZE_FMT1          0xb0
#define PEBS_REC_SIZE_FMT2          0xc0
#define PEBS_REC_SIZE_FMT3          0xc8

/* ---- Adaptive PEBS (format 4+, PERF_CAP_PEBS_BASELINE) ----------------------------------- */
/* Basic group: u64 format word, ip (eventing), applicable_counters, tsc. */
#define PEBS_BASIC_FORMAT           0x00
#define PEBS_BASIC_IP               0x08
#define PEBS_BASIC_APPLICABLE       0x10
#define PEBS_BASIC_TSC              0x18
#define PEBS_BASIC_SIZE             0x20
#define PEBS_BASIC_GROUP            0xffffffffull /* [31:0]: PEBS_DATACFG_* groups present */
#define PEBS_BASIC_RETIRE_LAT_SHIFT 32           /* [47:32] retire latency (timing info) */
#define PEBS_BASIC_RETIRE_LAT       (0xffffull << PEBS_BASIC_RETIRE_LAT_SHIFT)
#define PEBS_BASIC_RECORD_SIZE_SHIFT 48          /* [63:48] whole record, bytes */
/* Memory-info group: address, aux (= dse), latency, tsx_tuning. Groups follow the basic
 * group in this order: meminfo, GPRs, XMMs, LBRs. */
#define PEBS_MEMINFO_ADDRESS        0x00
#define PEBS_MEMINFO_AUX            0x08
#define PEBS_MEMINFO_LATENCY        0x10
#define PEBS_MEMINFO_TSX_TUNING     0x18
#define PEBS_MEMINFO_SIZE           0x20
/* Alder Lake and later split the latency word: [15:0] instruction latency, [47:32] cache
 * (load-to-use) latency (Linux struct pebs_meminfo). */
#define PEBS_MEMINFO_INSTR_LAT      0xffffull
#define PEBS_MEMINFO_CACHE_LAT_SHIFT 32
#define PEBS_MEMINFO_CACHE_LAT      (0xffffull << PEBS_MEMINFO_CACHE_LAT_SHIFT)
#define PEBS_GPRS_SIZE              (18 * 8)     /* flags, ip, ax, cx, dx, bx, sp, bp, si, di, r8-r15 */
#define PEBS_XMMS_SIZE              (32 * 8)
#define PEBS_LBR_ENTRY_SIZE         (3 * 8)      /* from, to, info */

/* ---- Load-latency data-source encoding (the dse / aux word) ------------------------------ */
/* Core (SNB .. Golden Cove, Goldmont/Gracemont E-cores): [3:0] source, 4 STLB miss, 5 locked,
 * 6 data blocked (store forward), 7 address blocked. */
#define PEBS_DSE_SRC                0xfull
#define PEBS_DSE_STLB_MISS          BIT_ULL(4)
#define PEBS_DSE_LOCKED             BIT_ULL(5)
#define PEBS_DSE_DATA_BLK           BIT_ULL(6)
#define PEBS_DSE_ADDR_BLK           BIT_ULL(7)
/* Crestmont (MTL E-core): [4:0] source, 5 locked, 6 STLB miss, 7 forward blocked. */
#define PEBS_DSE_CMT_SRC            0x1full
#define PEBS_DSE_CMT_LOCKED         BIT_ULL(5)
#define PEBS_DSE_CMT_STLB_MISS      BIT_ULL(6)
#define PEBS_DSE_CMT_FWD_BLK        BIT_ULL(7)
/* Lion Cove (LNL/ARL P-core): [7:0] source, 10 STLB miss, 11 locked, 12 data blk, 13 addr blk. */
#define PEBS_DSE_LNC_SRC            0xffull
#define PEBS_DSE_LNC_STLB_MISS      BIT_ULL(10)
#define PEBS_DSE_LNC_LOCKED         BIT_ULL(11)
#define PEBS_DSE_LNC_DATA_BLK       BIT_ULL(12)
#define PEBS_DSE_LNC_ADDR_BLK       BIT_ULL(13)

#endif
