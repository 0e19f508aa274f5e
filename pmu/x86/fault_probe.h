/** @file
 * Deliberate faults of the PMU's register access, for the harness's self-test: RDMSR of an
 * index no CPU implements and RDPMC of a counter no CPU has must come back as ST_FAULT with
 * the vector (#GP, or #UD where RDPMC is not emulated), never a reset or a hang. The
 * self-test phase (app/x86/selftest.c) decides what the outcome means.
 */
#ifndef PMUCAL_PMU_X86_FAULT_PROBE_H
#define PMUCAL_PMU_X86_FAULT_PROBE_H

#include <stdint.h>

#include "lib/status.h"

/* No architectural or model-specific MSR range of Intel or AMD contains this index, so RDMSR
 * of it must raise #GP. [SDM-4] Table 2-1 (architectural MSRs); [APM-2] Appendix A. */
#define PMU_FAULT_PROBE_MSR   0xdeadbeefu
/* An RDPMC counter index beyond every general, fixed and special counter. [SDM-2B] RDPMC */
#define PMU_FAULT_PROBE_RDPMC 0x3fffu

/** RDMSR of PMU_FAULT_PROBE_MSR through rdmsr_safe: ST_OK with @p val when the platform reads
 *  it without faulting (QEMU TCG reads unknown MSRs as 0), ST_FAULT with the exception
 *  @p vector, or another status when MSRs are not accessible at all. */
status_t pmu_fault_probe_msr(uint64_t *val, unsigned *vector);
/** RDPMC of PMU_FAULT_PROBE_RDPMC through rdpmc_safe; results as pmu_fault_probe_msr. */
status_t pmu_fault_probe_rdpmc(uint64_t *val, unsigned *vector);

#endif
