/** @file
 * AMD core performance counters: MSR numbers and PERF_CTL bit fields, numbers only (IBS is
 * in pmu/x86/msr_ibs.h). Names follow Linux msr-index.h / perf_event.h (MSR_K7_*, MSR_F15H_*,
 * MSR_AMD64_PERF_CNTR_GLOBAL_*, AMD64_EVENTSEL_*). Sources: [APM-2] "Performance Monitoring
 * Counters" (legacy and extended core counters, PerfMonV2) and [PPR-19h-11h] MSRC001_020x,
 * MSRC000_030x. Accessors live in boot/x86/msr.h.
 */
#ifndef PMUCAL_MSR_AMD_H
#define PMUCAL_MSR_AMD_H

#include "lib/base.h"

/* Legacy counters, present on every AMD64 processor: four pairs. [APM-2] "Legacy
 * performance counters" */
#define MSR_K7_EVNTSEL0 0xc0010000 /* PerfEvtSel0..3 = +n */
#define MSR_K7_PERFCTR0 0xc0010004 /* PerfCtr0..3 = +n */
#define AMD64_NUM_COUNTERS 4

/* Extended core counters, CPUID.80000001H:ECX[23] PerfCtrExtCore: six pairs, interleaved
 * CTL/CTR, stride 2. [APM-2] "Extended performance counters"; Linux MSR_F15H_PERF_CTL/CTR.
 * The legacy addresses alias the first four of these. */
#define MSR_F15H_PERF_CTL 0xc0010200 /* PERF_CTLn = + 2n */
#define MSR_F15H_PERF_CTR 0xc0010201 /* PERF_CTRn = + 2n */
#define AMD64_NUM_COUNTERS_CORE 6
#define AMD64_MAX_COUNTERS_CORE 16 /* CPUID.80000022H:EBX[3:0] is a 4-bit count */

/* Counter width: 48 bits on every implementation. [APM-2]; Linux amd/core.c cntval_bits */
#define AMD64_COUNTER_WIDTH 48

/* PerfMonV2, CPUID.80000022H:EAX[0]. With V2 a counter counts only when both its
 * PERF_CTL.En and its PerfCntrGlobalCtl bit are set. [APM-2] "Performance Monitoring
 * Version 2"; Linux MSR_AMD64_PERF_CNTR_GLOBAL_* */
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS     0xc0000300 /* PerfCntrGlobalStatus (RO) */
#define MSR_AMD64_PERF_CNTR_GLOBAL_CTL        0xc0000301 /* PerfCntrGlobalCtl */
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR 0xc0000302 /* PerfCntrGlobalStatusClr (W1C) */

/* PERF_CTL layout. [APM-2] Figure "Core Performance Event-Select Register (PerfEvtSeln)";
 * Linux ARCH_PERFMON_EVENTSEL_* (shared low half) and AMD64_EVENTSEL_* */
#define AMD64_EVENTSEL_EVENT_LO       0xffull        /* EventSelect[7:0] */
#define AMD64_EVENTSEL_UMASK_SHIFT    8
#define AMD64_EVENTSEL_UMASK          (0xffull << AMD64_EVENTSEL_UMASK_SHIFT)
#define AMD64_EVENTSEL_USR            BIT_ULL(16)
#define AMD64_EVENTSEL_OS             BIT_ULL(17)
#define AMD64_EVENTSEL_EDGE           BIT_ULL(18)
#define AMD64_EVENTSEL_INT            BIT_ULL(20)
#define AMD64_EVENTSEL_ENABLE         BIT_ULL(22)
#define AMD64_EVENTSEL_INV            BIT_ULL(23)
#define AMD64_EVENTSEL_CMASK_SHIFT    24
#define AMD64_EVENTSEL_CMASK          (0xffull << AMD64_EVENTSEL_CMASK_SHIFT)
#define AMD64_EVENTSEL_EVENT_HI_SHIFT 32             /* EventSelect[11:8] at bits 35:32 */
#define AMD64_EVENTSEL_EVENT_HI       (0xfull << AMD64_EVENTSEL_EVENT_HI_SHIFT)
#define AMD64_EVENTSEL_EVENT          (AMD64_EVENTSEL_EVENT_LO | AMD64_EVENTSEL_EVENT_HI)
#define AMD64_EVENTSEL_GUESTONLY      BIT_ULL(40)
#define AMD64_EVENTSEL_HOSTONLY       BIT_ULL(41)    /* both set (or both clear): count in
                                                      * host and guest */

#endif
