/** @file
 * The core PMU, behind one interface: detection into one struct pmu_caps (filled once by
 * pmu_init() from CPUID facts and from probing, through rdmsr_safe, the MSRs no CPUID bit
 * guarantees), accessors that hide the vendor layout, and program / start / stop / read with
 * counter widths and wrap handled. Drivers: pmu/x86/drv_intel.c (architectural perfmon v1-v5)
 * and pmu/x86/drv_amd.c (legacy, extended core counters, PerfMonV2); on AArch64
 * pmu/arm64/pmu_common.c puts this interface on the PMUv3 driver (general counter n = event
 * counter n, no fixed counters, PMU_USR/PMU_OS = EL0/EL1), so that the shared validation suite
 * runs there through the same calls.
 *
 * Counters are named by struct pmu_slot; a set of counters is a mask in the layout of
 * IA32_PERF_GLOBAL_CTRL (bit n = general counter n, bit 32 + n = fixed counter n), used for
 * both vendors. The state is per logical CPU in hardware but kept once here: call pmu_init
 * and use the counters on the CPU that measures (the BSP).
 */
#ifndef PMUCAL_PMU_H
#define PMUCAL_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/cpu_info.h"
#include "pmu/x86/encode.h"
#include "pmu/x86/quirks.h"
#include "pmu/events.h"

#define PMU_MAX_GP    16
#define PMU_MAX_FIXED 4
#define PMU_FIXED_BIT 32 /* fixed counter n is bit 32 + n of a counter mask */
#define PMU_WHY_BYTES 160 /* a session probe's reason text, as printed in a SKIP line */

/** One counter: general-purpose counter idx, or fixed counter idx (Intel). */
struct pmu_slot {
        bool    fixed;
        uint8_t idx;
};

/* Quirk flags (pmu_has_quirk); rows of the quirk table pmu/x86/quirks.c. */

/** IA32_PERF_CAPABILITIES decoded (Intel, when the register exists). [SDM-4]
 *  IA32_PERF_CAPABILITIES; the field macros are pmu/x86/msr_arch.h's PERF_CAP_*. */
struct pmu_perf_caps_fields {
        uint8_t lbr_fmt;         /* [5:0] */
        uint8_t pebs_fmt;        /* [11:8] */
        bool    freeze_in_smm;   /* [12] */
        bool    fw_writes;       /* [13] full-width counter writes offered */
        bool    pebs_baseline;   /* [14] adaptive PEBS */
        bool    perf_metrics;    /* [15] */
};

enum pmu_kind { PMU_NONE = 0, PMU_INTEL_ARCH, PMU_AMD_LEGACY, PMU_AMD_CORE_EXT, PMU_ARM_PMUV3 };

/** What the core PMU of this CPU has; filled once by pmu_init(). */
struct pmu_caps {
        bool            available;
        const char     *reason;       /* why not, when !available (static text) */
        enum pmu_kind   kind;
        enum cpu_vendor vendor;
        uint32_t        family, model;
        uint8_t         version;      /* Intel arch perfmon version; AMD 1, or 2 = PerfMonV2 */
        uint8_t         n_gp, gp_width;
        uint8_t         n_fixed, fixed_width;
        uint32_t        fixed_mask;   /* bit n: fixed counter n exists */
        uint32_t        arch_unavailable; /* CPUID.0AH:EBX, bits past its length set too */
        bool            anythread_deprecated;
        bool            has_perf_caps;
        uint64_t        perf_caps;    /* IA32_PERF_CAPABILITIES, when has_perf_caps */
        struct pmu_perf_caps_fields perf_caps_f; /* perf_caps decoded */
        bool            full_width_writes;
        bool            has_global;   /* Intel GLOBAL_CTRL/STATUS/OVF_CTRL; AMD PerfMonV2 */
        uint32_t        evtsel_base, ctr_base, ctr_write_base;
        uint8_t         msr_stride;   /* 1, or 2 for AMD extended core counters */
        uint32_t        quirks;       /* PMU_Q_* */
        const char     *quirk_ref;    /* source of the first matching quirk row, or NULL */
        const struct pmu_event_table *events; /* table from mapfile.csv, or NULL */
};

/** Detect the core PMU of the CPU described by @p ci (the one this runs on). ST_OK when
 *  counters are usable; ST_UNSUPPORTED with pmu_get_caps()->reason when there is no PMU
 *  (QEMU TCG: CPUID.0AH all zero, AMD PerfCtrExtCore clear); ST_BAD_ARG for NULL. With a PMU
 *  it saves the counter MSRs the drivers write (once, until pmu_restore) and resets them:
 *  IA32_PERF_GLOBAL_CTRL and AMD PerfCntrGlobalCtl come out of reset with every general
 *  counter enabled, so without that a counter would count from its event-select write
 *  instead of from pmu_start. */
status_t pmu_init(const struct cpu_info *ci);

/** The record pmu_init() filled (all zero, reason "pmu_init not called" before). */
const struct pmu_caps *pmu_get_caps(void);

/** True when pmu_init() found usable counters. */
bool pmu_available(void);
/** True when fixed counter @p n exists (Intel v2+, CPUID.0AH EDX[4:0] / ECX). */
bool pmu_has_fixed(unsigned n);
/** True when counters can be written at full width through IA32_A_PMCx
 *  (PERF_CAPABILITIES[13]); always true on AMD (48-bit writes). */
bool pmu_has_full_width_writes(void);
/** True when a global enable/status exists (Intel v2+, AMD PerfMonV2). */
bool pmu_has_global_ctrl(void);
/** True when quirk @p q (PMU_Q_*) applies to this CPU. */
bool pmu_has_quirk(uint32_t q);
/** Number of general-purpose counters (0 without a PMU). */
unsigned pmu_n_gp(void);

/** Whether @p ev can be counted here: ST_OK, or ST_UNSUPPORTED with *reason (static text)
 *  for an architectural event CPUID marks unavailable, an event a quirk rules out, a fixed
 *  pseudo-event on a CPU without that fixed counter, or no PMU. */
status_t pmu_event_usable(const struct pmu_event_desc *ev, const char **reason);

/** Resolve portable @p alias in this CPU's table and check it is usable; ST_UNSUPPORTED
 *  with *reason when it is not. */
status_t pmu_alias_event(const char *alias, const struct pmu_event_desc **out,
                         const char **reason);

/** Bit of @p s in a counter mask. */
uint64_t pmu_slot_bit(struct pmu_slot s);
/** Width in bits of counter @p s. */
unsigned pmu_slot_width(struct pmu_slot s);
/** ECX for RDPMC of counter @p s (Intel fixed: bit 30 | n). */
uint32_t pmu_rdpmc_index(struct pmu_slot s);

/** Stop every counter, zero counters and event selects, clear overflow status. */
status_t pmu_reset(void);
/** Put back the counter MSRs pmu_init saved (what the firmware or OS left), global enable
 *  last. ST_OK and nothing written when nothing was saved. */
status_t pmu_restore(void);
/** Program counter @p s for @p ev with PMU_USR/PMU_OS/PMU_INT/PMU_ADAPTIVE @p flags and
 *  initial value
 *  @p start (masked to the width; for sampling (-period)). It does not count until
 *  pmu_start(). A fixed slot must be given the fixed pseudo-event for that counter.
 *  ST_UNSUPPORTED when @p start needs full-width writes the CPU lacks, or when the event's
 *  table restricts it to other general counters (perf "Counter"). */
status_t pmu_program(struct pmu_slot s, const struct pmu_event_desc *ev, unsigned flags,
                     uint64_t start);
/** Start / stop the counters in @p mask. */
status_t pmu_start(uint64_t mask);
status_t pmu_stop(uint64_t mask);
/** Read counter @p s (masked to its width) through rdmsr_safe. */
status_t pmu_read(struct pmu_slot s, uint64_t *out);
/** Write counter @p s (masked to its width). */
status_t pmu_write(struct pmu_slot s, uint64_t val);
/** Overflow status as a counter mask (Intel GLOBAL_STATUS raw, including its flag bits;
 *  AMD PerfMonV2 PerfCntrGlobalStatus; AMD legacy: emulated from bit 47 of counters whose
 *  start value had it set, as Linux does). ST_UNSUPPORTED on Intel v1. */
status_t pmu_ovf_status(uint64_t *out);
/** Clear overflow bits @p mask. */
status_t pmu_ovf_clear(uint64_t mask);

#endif
