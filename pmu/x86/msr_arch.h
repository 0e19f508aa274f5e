/** @file
 * Intel architectural performance monitoring: MSR numbers and bit fields, numbers only.
 * Names follow Linux arch/x86/include/asm/msr-index.h and asm/perf_event.h (MSR_<SCOPE>_<NAME>,
 * fields as <REG>_<FIELD>); each is cited to the SDM: [SDM-3B] "Performance Monitoring"
 * (architectural perfmon v1-v5) and [SDM-4] "Model-Specific Registers", Table 2-2
 * (IA-32 architectural MSRs). Counter count and width never come from here: they come from
 * CPUID.0AH (boot/x86/cpuid.h). Accessors live in boot/x86/msr.h.
 */
#ifndef PMUCAL_MSR_ARCH_H
#define PMUCAL_MSR_ARCH_H

#include "lib/base.h"

/* ---- general-purpose counters [SDM-4] Table 2-2; [SDM-3B] "Architectural Performance
 *      Monitoring Version 1" ---- */
#define MSR_ARCH_PERFMON_PERFCTR0   0xc1  /* IA32_PMC0; +n. Legacy write: low 32 bits,
                                           * sign-extended to the counter width */
#define MSR_ARCH_PERFMON_EVENTSEL0  0x186 /* IA32_PERFEVTSEL0; +n */
#define MSR_IA32_PMC0               0x4c1 /* IA32_A_PMC0; +n: full-width writes, only when
                                           * IA32_PERF_CAPABILITIES[13] [SDM-3B] "Full-Width
                                           * Writes to Performance Counter Registers" */

/* IA32_PERFEVTSELx fields. [SDM-3B] Figure "Layout of IA32_PERFEVTSELx MSRs" */
#define ARCH_PERFMON_EVENTSEL_EVENT       0xffull
#define ARCH_PERFMON_EVENTSEL_UMASK_SHIFT 8
#define ARCH_PERFMON_EVENTSEL_UMASK       (0xffull << ARCH_PERFMON_EVENTSEL_UMASK_SHIFT)
#define ARCH_PERFMON_EVENTSEL_USR         BIT_ULL(16)
#define ARCH_PERFMON_EVENTSEL_OS          BIT_ULL(17)
#define ARCH_PERFMON_EVENTSEL_EDGE        BIT_ULL(18)
#define ARCH_PERFMON_EVENTSEL_PIN_CONTROL BIT_ULL(19)
#define ARCH_PERFMON_EVENTSEL_INT         BIT_ULL(20)
#define ARCH_PERFMON_EVENTSEL_ANY         BIT_ULL(21) /* AnyThread; deprecated when
                                                       * CPUID.0AH:EDX[15] [SDM-3B] */
#define ARCH_PERFMON_EVENTSEL_ENABLE      BIT_ULL(22)
#define ARCH_PERFMON_EVENTSEL_INV         BIT_ULL(23)
/* Adaptive_Record: a PEBS counter writes the groups MSR_PEBS_DATA_CFG selects, only with
 * PEBS baseline (PERF_CAPABILITIES[14]); without it the record is the basic group alone.
 * [SDM-3B] "Adaptive PEBS"; Linux ICL_EVENTSEL_ADAPTIVE */
#define ARCH_PERFMON_EVENTSEL_ADAPTIVE    BIT_ULL(34)
#define ARCH_PERFMON_EVENTSEL_CMASK_SHIFT 24
#define ARCH_PERFMON_EVENTSEL_CMASK       (0xffull << ARCH_PERFMON_EVENTSEL_CMASK_SHIFT)

/* ---- fixed-function counters (v2+) [SDM-4] Table 2-2; [SDM-3B] "Architectural
 *      Performance Monitoring Version 2" ---- */
#define MSR_ARCH_PERFMON_FIXED_CTR0     0x309 /* IA32_FIXED_CTR0: INST_RETIRED.ANY; +n */
#define MSR_ARCH_PERFMON_FIXED_CTR1     0x30a /* IA32_FIXED_CTR1: CPU_CLK_UNHALTED.THREAD */
#define MSR_ARCH_PERFMON_FIXED_CTR2     0x30b /* IA32_FIXED_CTR2: CPU_CLK_UNHALTED.REF_TSC */
#define MSR_ARCH_PERFMON_FIXED_CTR3     0x30c /* IA32_FIXED_CTR3: TOPDOWN.SLOTS */
#define MSR_ARCH_PERFMON_FIXED_CTR_CTRL 0x38d /* IA32_FIXED_CTR_CTRL */

/* IA32_FIXED_CTR_CTRL: one 4-bit field per counter n at bit 4n. [SDM-3B] Figure "Layout
 * of IA32_FIXED_CTR_CTRL MSR" */
#define FIXED_CTR_CTRL_BITS   4
#define FIXED_CTR_CTRL_OS     0x1ull /* count at CPL 0 */
#define FIXED_CTR_CTRL_USR    0x2ull /* count at CPL > 0 */
#define FIXED_CTR_CTRL_ANY    0x4ull /* AnyThread (v3+) */
#define FIXED_CTR_CTRL_PMI    0x8ull /* PMI on overflow */
#define FIXED_CTR_CTRL_MASK   0xfull
#define FIXED_CTR_CTRL_SHIFT(n) (FIXED_CTR_CTRL_BITS * (n))

/* RDPMC ECX: bit 30 selects the fixed counters. [SDM-2B] RDPMC; Linux
 * INTEL_PMC_FIXED_RDPMC_BASE */
#define INTEL_PMC_FIXED_RDPMC_BASE BIT_ULL(30)

/* Fixed counters have no event code: the pseudo-encoding is event 0x00, umask n + 1.
 * Linux perf_event.h comment above MSR_ARCH_PERFMON_FIXED_CTR0. */
#define INTEL_PMC_MAX_FIXED 4 /* Linux INTEL_PMC_MAX_FIXED; v5 enumerates up to 32 in ECX */
#define INTEL_PMC_MAX_GENERIC 8 /* IA32_PMC0..7 at 0xC1..0xC8; 0xCF is IA32_CORE_CAPABILITIES */
#define INTEL_PMC_IDX_FIXED 32 /* fixed counter n is bit 32 + n in GLOBAL_CTRL/STATUS */

/* ---- global control (v2+) [SDM-4] Table 2-2; [SDM-3B] "Architectural Performance
 *      Monitoring Version 2", "... Version 4" ---- */
#define MSR_CORE_PERF_GLOBAL_STATUS     0x38e /* IA32_PERF_GLOBAL_STATUS (read only) */
#define MSR_CORE_PERF_GLOBAL_CTRL       0x38f /* IA32_PERF_GLOBAL_CTRL */
#define MSR_CORE_PERF_GLOBAL_OVF_CTRL   0x390 /* IA32_PERF_GLOBAL_OVF_CTRL (v2, v3) */
#define MSR_CORE_PERF_GLOBAL_STATUS_RESET 0x390 /* same MSR, renamed IA32_PERF_GLOBAL_STATUS_RESET
                                                 * in v4 [SDM-3B] "... Version 4" */
#define MSR_CORE_PERF_GLOBAL_STATUS_SET 0x391 /* IA32_PERF_GLOBAL_STATUS_SET (v4+) */
#define MSR_CORE_PERF_GLOBAL_INUSE      0x392 /* IA32_PERF_GLOBAL_INUSE (v4+) */

/* IA32_PERF_GLOBAL_STATUS bits. Linux perf_event.h GLOBAL_STATUS_*; [SDM-3B] Figure
 * "IA32_PERF_GLOBAL_STATUS MSR and Architectural Perfmon Version 4" */
#define GLOBAL_STATUS_PERF_METRICS_OVF_BIT 48
#define GLOBAL_STATUS_TRACE_TOPAPMI        BIT_ULL(55)
#define GLOBAL_STATUS_LBRS_FROZEN          BIT_ULL(58) /* v4 */
#define GLOBAL_STATUS_COUNTERS_FROZEN      BIT_ULL(59) /* v4 */
#define GLOBAL_STATUS_ASIF                 BIT_ULL(60) /* v4 */
#define GLOBAL_STATUS_UNC_OVF              BIT_ULL(61)
#define GLOBAL_STATUS_BUFFER_OVF           BIT_ULL(62) /* DS buffer (PEBS/BTS) */
#define GLOBAL_STATUS_COND_CHG             BIT_ULL(63)

/* ---- capabilities ---- */
/* IA32_PERF_CAPABILITIES: every field, once; pmu/x86/msr_pebs.h and msr_lbr.h use these.
 * Spellings as Linux msr-index.h (PERF_CAP_ARCH_REG, PERF_CAP_PEBS_FORMAT, PERF_CAP_FW_WRITES,
 * PERF_CAP_FREEZE_IN_SMM, PERF_CAP_PEBS_TIMING_INFO); bit 15 is Linux's PERF_CAP_METRICS_IDX,
 * bit 16 PERF_CAP_PEBS_OUTPUT_PT. Layout [SDM-4] Table 2-2, [SDM-3B] "PEBS" sections. */
#define MSR_IA32_PERF_CAPABILITIES 0x345 /* exists when CPUID.01H:ECX[15] PDCM [SDM-4] */
#define PERF_CAP_LBR_FMT           0x3full     /* [5:0] legacy LBR format */
#define PERF_CAP_PEBS_TRAP         BIT_ULL(6)
#define PERF_CAP_ARCH_REG          BIT_ULL(7)  /* PEBS saves architectural registers */
#define PERF_CAP_PEBS_FORMAT_SHIFT 8           /* [11:8] */
#define PERF_CAP_PEBS_FORMAT       (0xfull << PERF_CAP_PEBS_FORMAT_SHIFT)
#define PERF_CAP_FREEZE_IN_SMM     BIT_ULL(12)
#define PERF_CAP_FW_WRITES         BIT_ULL(13) /* IA32_A_PMCx exist [SDM-3B] */
#define PERF_CAP_PEBS_BASELINE     BIT_ULL(14) /* adaptive PEBS */
#define PERF_CAP_PERF_METRICS      BIT_ULL(15)
#define PERF_CAP_PEBS_OUTPUT_PT    BIT_ULL(16)
#define PERF_CAP_PEBS_TIMING_INFO  BIT_ULL(17)

/* IA32_DEBUGCTL [SDM-4] Table 2-2; the LBR bits are used by pmu/x86/lbr.c. */
#define MSR_IA32_DEBUGCTLMSR               0x1d9
#define DEBUGCTLMSR_LBR                    BIT_ULL(0) /* legacy LBR only; Arch LBR: LBR_CTL */
#define DEBUGCTLMSR_BTF                    BIT_ULL(1)
#define DEBUGCTLMSR_FREEZE_LBRS_ON_PMI     BIT_ULL(11)
#define DEBUGCTLMSR_FREEZE_PERFMON_ON_PMI  BIT_ULL(12)
#define DEBUGCTLMSR_FREEZE_IN_SMM          BIT_ULL(14)

/* Architectural events (CPUID.0AH:EBX bit index = event). The codes are data in
 * pmu/events/intel-arch.json; only the bit count lives here. [SDM-3B] Table
 * "UMask and Event Select Encodings for Pre-Defined Architectural Performance Events" */
#define ARCH_PERFMON_EVENTS_COUNT 8

#endif
