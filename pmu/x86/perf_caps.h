/** @file
 * IA32_PERF_CAPABILITIES read on its own, for the inventory, which runs before pmu_init()
 * and lists the register raw (the driver decodes it into struct pmu_caps; field macros in
 * pmu/x86/msr_arch.h).
 */
#ifndef PMUCAL_PMU_X86_PERF_CAPS_H
#define PMUCAL_PMU_X86_PERF_CAPS_H

#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"

/** Read IA32_PERF_CAPABILITIES raw. ST_UNSUPPORTED when CPUID.01H:ECX[15] PDCM is clear (the
 *  register does not exist), ST_FAULT when the read faulted anyway. */
status_t pmu_perf_caps_read(const struct cpu_info *cpu, uint64_t *raw);

#endif
