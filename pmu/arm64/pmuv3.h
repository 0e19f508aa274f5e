/** @file
 * Arm PMUv3 system registers and their fields, numbers only. Names and layouts follow the
 * Arm ARM [ARM-ARM] D23.5 "Performance Monitors registers" and Linux
 * include/linux/perf/arm_pmuv3.h (ARMV8_PMU_PMCR_*, ARMV8_PMU_EXCLUDE_*). Registers GNU as
 * knows by name are used by name (pmcr_el0, pmccntr_el0, ...); the rest by encoding.
 */
#ifndef PMUCAL_ARM64_PMUV3_H
#define PMUCAL_ARM64_PMUV3_H

#include "lib/base.h"

#define SYS_PMCEID0_EL0 S3_3_C9_C12_6
#define SYS_PMCEID1_EL0 S3_3_C9_C12_7

/* PMCR_EL0 [ARM-ARM] D23.5.7 */
#define PMCR_E        BIT_ULL(0)  /* enable every counter PMCNTENSET enables */
#define PMCR_P        BIT_ULL(1)  /* reset event counters (write-only action) */
#define PMCR_C        BIT_ULL(2)  /* reset the cycle counter */
#define PMCR_D        BIT_ULL(3)  /* cycle counter counts every 64th cycle */
#define PMCR_X        BIT_ULL(4)  /* export events */
#define PMCR_DP       BIT_ULL(5)  /* cycle counter off where event counting is prohibited */
#define PMCR_LC       BIT_ULL(6)  /* cycle counter overflows at 64 bits, not 32 */
#define PMCR_LP       BIT_ULL(7)  /* event counters overflow at 64 bits (FEAT_PMUv3p5) */
#define PMCR_N_SHIFT  11
#define PMCR_N_MASK   0x1f

/* PMEVTYPER<n>_EL0 and PMCCFILTR_EL0 filter bits [ARM-ARM] D23.5.9, D23.5.3. A set P or U
 * bit EXCLUDES EL1 or EL0; NSH INCLUDES EL2. */
#define PMEVTYPER_P          BIT_ULL(31)
#define PMEVTYPER_U          BIT_ULL(30)
#define PMEVTYPER_NSK        BIT_ULL(29)
#define PMEVTYPER_NSU        BIT_ULL(28)
#define PMEVTYPER_NSH        BIT_ULL(27)
#define PMEVTYPER_EVTCOUNT   0xffffull /* 16 bits from PMUv3p1, 10 bits before */

/* The cycle counter is bit 31 of PMCNTENSET/CLR, PMINTENSET/CLR and PMOVSSET/CLR. */
#define PMU_CYCLE_BIT  31
#define PMU_MAX_EVENT_COUNTERS 31

/* PMUSERENR_EL0.EN: EL0 access (left as the firmware set it; saved and restored). */
#define PMUSERENR_EN BIT_ULL(0)

/* Common events the driver itself needs (the rest come from pmu/events/arm-common.json). */
#define ARMV8_PMUV3_SW_INCR 0x00

#endif
