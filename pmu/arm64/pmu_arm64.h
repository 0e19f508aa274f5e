/** @file
 * The Arm PMUv3 driver: detection into one struct pmu_arm64_caps (from the decoded ID
 * registers, never a model table), counter programming with exception-level filtering,
 * start/stop/read/write, overflow status and interrupt enables, SW_INCR, and putting back
 * every register it changed. Counters: event counter n is index n (0 .. N-1); the cycle
 * counter PMCCNTR_EL0 is PMU_ARM64_CYCLE. A set of counters is a mask in the layout of
 * PMCNTENSET_EL0 (bit n = event counter n, bit 31 = cycle counter).
 *
 * Event counters are 64-bit where the CPU has FEAT_PMUv3p5 (PMCR_EL0.LP set by
 * pmu_arm64_init), else 32-bit; the cycle counter is always read at 64 bits and overflows at
 * 64 (PMCR_EL0.LC). Register access: plain MRS/MSR on registers PMUVer guarantees, so
 * the calls are usable in timed regions; call pmu_arm64_init first and only on the CPU that
 * measures. Runs at EL1 or EL2 (caps.el).
 */
#ifndef PMUCAL_ARM64_PMU_H
#define PMUCAL_ARM64_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/arm64/idreg.h"
#include "lib/status.h"

#define PMU_ARM64_CYCLE 31u

/* Exception levels counted (flags of pmu_arm64_program). PMU_EL1 is the kernel level, the
 * one the harness runs at: EL1, and at EL2 (UEFI at EL2) EL2 as well (PMEVTYPER.NSH). */
#define PMU_EL0 (1u << 0)
#define PMU_EL1 (1u << 1)
#define PMU_EL2 (1u << 2)
#define PMU_ARM64_INT (1u << 3) /* overflow interrupt */

struct pmu_arm64_caps {
        bool        available;
        const char *reason;        /* why not, when !available (static text) */
        uint8_t     pmuver;
        uint8_t     n_counters;    /* PMCR_EL0.N */
        uint8_t     counter_bits;  /* 64 with FEAT_PMUv3p5, else 32 */
        uint64_t    pmceid0, pmceid1;
        uint8_t     el;            /* exception level the harness runs at */
};

/** Detect the PMU of the calling CPU from @p ci (decoded) and @p r (raw), save every
 *  register the driver may change, and stop and zero all counters. ST_UNSUPPORTED with
 *  caps.reason when there is none. */
status_t pmu_arm64_init(const struct arm64_cpu_info *ci, const struct arm64_id_regs *r);
/** Put back every PMU register pmu_arm64_init saved. */
void pmu_arm64_restore(void);
const struct pmu_arm64_caps *pmu_arm64_get_caps(void);

/** True when PMCEID0/1 say common event @p ev is implemented (events below 0x40 and
 *  0x4000..0x403F); IMPLEMENTATION DEFINED events (0x40..0x3FFF) are not described there
 *  and count as implemented. */
bool pmu_arm64_event_implemented(uint16_t ev);

/** Stop every counter, zero them, clear overflow flags and interrupt enables. */
void pmu_arm64_reset(void);
/** Program counter @p idx (or PMU_ARM64_CYCLE, whose event is CPU_CYCLES by definition)
 *  for @p ev at the levels in @p flags (PMU_EL0/EL1/EL2, PMU_ARM64_INT) with initial value
 *  @p start. Stopped until pmu_arm64_start. ST_BAD_ARG for a counter the CPU lacks. */
status_t pmu_arm64_program(unsigned idx, uint16_t ev, unsigned flags, uint64_t start);
/** Enable the counters in @p mask (PMCR_EL0.E first, so that counting starts at the
 *  PMCNTENSET_EL0 write whatever E was). */
void pmu_arm64_start(uint32_t mask);
/** Disable the counters in @p mask. */
void pmu_arm64_stop(uint32_t mask);
/** Current value of counter @p idx. */
uint64_t pmu_arm64_read(unsigned idx);
/** Set counter @p idx to @p val (masked to its width). */
void pmu_arm64_write(unsigned idx, uint64_t val);
/** PMOVSSET_EL0: counters that overflowed since last cleared. */
uint32_t pmu_arm64_ovf_status(void);
void pmu_arm64_ovf_clear(uint32_t mask);
/** Increment every counter in @p mask programmed with SW_INCR (PMSWINC_EL0). */
void pmu_arm64_sw_incr(uint32_t mask);
/** Width in bits of counter @p idx. */
unsigned pmu_arm64_width(unsigned idx);

#endif
