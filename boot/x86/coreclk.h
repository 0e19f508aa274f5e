/** @file
 * Core clock sources and the other model-independent registers outside the PMU that bench/
 * and app/ read: APERF/MPERF (the effective-frequency ratio), Intel's SMI counter, the
 * microcode revision and the nominal (non-turbo) ratio. Each read hides which MSR it is and
 * how it is probed, so that nothing above boot/ touches an MSR (register numbers in
 * boot/x86/msr_misc.h). All reads use the safe accessors: outside timed runs only.
 */
#ifndef PMUCAL_BOOT_X86_CORECLK_H
#define PMUCAL_BOOT_X86_CORECLK_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"

/** Read IA32_APERF into @p *aperf, then IA32_MPERF into @p *mperf (their ratio over an
 *  interval is the effective over the nominal frequency). ST_FAULT when either faulted. The
 *  caller checks CPUID.06H:ECX[0] (cpu_info.aperfmperf) first. */
status_t x86_aperf_mperf_read(uint64_t *aperf, uint64_t *mperf);

/** Read Intel's MSR_SMI_COUNT (the whole register, as it reads); ST_FAULT where the model
 *  lacks it. Intel only ([SDM-4] Nehalem and later tables): AMD has no counterpart, so the
 *  caller does not even probe it there (x86_smi_count_exists). */
status_t x86_smi_count_read(uint64_t *count);

/** Whether @p cpu's vendor has an SMI counter worth probing (Intel). */
bool x86_smi_count_exists(const struct cpu_info *cpu);

/** The microcode revision: Intel's write-0 / CPUID(1) / read sequence and bits 63:32, AMD's
 *  (and Hygon's) PATCH_LEVEL bits 31:0. ST_UNSUPPORTED for other vendors. */
status_t x86_ucode_rev_read(const struct cpu_info *cpu, uint64_t *rev);

/** Read Intel's MSR_PLATFORM_INFO raw. ST_UNSUPPORTED off Intel; ST_FAULT where absent. */
status_t x86_platform_info_read(const struct cpu_info *cpu, uint64_t *raw);

/** Pure: the nominal frequency in Hz a raw MSR_PLATFORM_INFO gives (maximum non-turbo ratio
 *  times the 100 MHz bus clock); 0 when the ratio field is 0. */
uint64_t x86_platform_info_nominal_hz(uint64_t raw);

#endif
