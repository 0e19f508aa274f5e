/** @file
 * Event-select encoding: pure functions from an event description and flags to the value a
 * driver writes into IA32_PERFEVTSELx ([SDM-3B]), AMD PERF_CTLn ([APM-2]) or the nibble of
 * IA32_FIXED_CTR_CTRL. No globals, no MSR access; host-tested in tests/test_encode.c.
 */
#ifndef PMUCAL_ENCODE_H
#define PMUCAL_ENCODE_H

#include <stdint.h>

#include "pmu/events.h"

/* Flags for pmu_evtsel_encode / pmu_fixed_ctrl_encode. */
#define PMU_USR        (1u << 0) /* count at CPL > 0 */
#define PMU_OS         (1u << 1) /* count at CPL 0 */
#define PMU_EN         (1u << 2) /* enable bit in the event select */
#define PMU_INT        (1u << 3) /* interrupt (PMI) on overflow */
#define PMU_ANY        (1u << 4) /* Intel AnyThread (ignored when deprecated is the caller's call) */
#define PMU_HOST_ONLY  (1u << 5) /* AMD HostOnly */
#define PMU_GUEST_ONLY (1u << 6) /* AMD GuestOnly */
#define PMU_LAYOUT_AMD (1u << 7) /* encode the AMD PERF_CTL layout (12-bit event) */
#define PMU_ADAPTIVE   (1u << 8) /* Intel Adaptive_Record (bit 34) for adaptive PEBS */

/** The event-select value for @p ev with @p flags (Intel layout unless PMU_LAYOUT_AMD).
 *  0 when @p ev is NULL, is a fixed-counter pseudo-event, or does not fit the layout
 *  (event code > 0xff on Intel; HostOnly/GuestOnly on Intel). */
uint64_t pmu_evtsel_encode(const struct pmu_event_desc *ev, unsigned flags);

/** The 4-bit IA32_FIXED_CTR_CTRL field for one fixed counter (OS, USR, ANY, PMI from
 *  @p flags), not shifted. */
uint64_t pmu_fixed_ctrl_encode(unsigned flags);

/** All-ones mask of the low @p width_bits bits (0 -> 0, >= 64 -> all ones). Inline: every
 *  architecture's counters use it (pmu/sample.c). */
static inline uint64_t pmu_width_mask(unsigned width_bits)
{
        if (width_bits == 0)
                return 0;
        if (width_bits >= 64)
                return ~0ull;
        return (1ull << width_bits) - 1;
}

/** Events counted between two reads @p before and @p after of a @p width_bits counter,
 *  allowing for one wrap. */
uint64_t pmu_counter_delta(uint64_t before, uint64_t after, unsigned width_bits);

#endif
