/** @file
 * A register-level model of the core PMU for host tests: implements rdmsr_safe, wrmsr_safe,
 * rdpmc_safe and msr_last_fault_vector (boot/x86/msr.h). A configurable MSR space (absent MSRs
 * raise #GP -> ST_FAULT, vector 13), a log of every write in order, and event injection that
 * counts into enabled counters according to their event select and the global enable, wraps
 * at the counter width and sets overflow bits (Intel GLOBAL_STATUS, AMD PerfMonV2).
 */
#ifndef PMUCAL_FAKE_MSR_H
#define PMUCAL_FAKE_MSR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/x86/msr.h"

enum fake_pmu_layout { FAKE_NONE = 0, FAKE_INTEL, FAKE_AMD_LEGACY, FAKE_AMD_EXT };

struct fake_msr_cfg {
        enum fake_pmu_layout layout;
        unsigned             version;     /* Intel arch perfmon version; AMD: 2 = PerfMonV2 */
        unsigned             n_gp, gp_width;
        unsigned             n_fixed, fixed_width;
        bool                 pdcm;        /* IA32_PERF_CAPABILITIES exists */
        uint64_t             perf_caps;   /* its value; bit 13 creates IA32_A_PMCx */
        bool                 tcg_like;    /* every MSR reads 0 and writes are ignored */
};

struct fake_msr_write {
        uint32_t msr;
        uint64_t val;
};

/** Reset the model to @p cfg (NULL: no MSRs at all). Clears the write log. */
void fake_msr_setup(const struct fake_msr_cfg *cfg);
/** Make @p msr exist as plain storage holding @p val. */
void fake_msr_add(uint32_t msr, uint64_t val);
/** Make @p msr absent (#GP on access). */
void fake_msr_remove(uint32_t msr);
/** Current value of @p msr without logging (0 if absent). */
uint64_t fake_msr_peek(uint32_t msr);
/** Number of successful writes since setup / fake_msr_clear_log. */
size_t fake_msr_n_writes(void);
/** The @p i-th logged write (NULL past the end). */
const struct fake_msr_write *fake_msr_write_at(size_t i);
/** Forget the write log. */
void fake_msr_clear_log(void);
/** Number of faults raised since setup. */
unsigned fake_msr_n_faults(void);
/** Count @p n occurrences of event @p code / @p umask at CPL 0 into every enabled counter
 *  that selects it (OS bit or fixed-control OS field set). Intel fixed counters 0/1/2 count
 *  0xc0/00, 0x3c/00, 0x3c/01. */
void fake_msr_inject(uint16_t code, uint8_t umask, uint64_t n);
/** PMIs raised (overflow with INT / fixed PMI set) since setup. */
unsigned fake_msr_n_pmi(void);

#endif
