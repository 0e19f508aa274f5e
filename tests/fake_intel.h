/** @file
 * Host-test fixtures for the PMU sampling sessions: the last MSR write the register model
 * saw, and a Skylake-X (family 6 model 0x55, perfmon v4, PEBS format 3, LBR format 5) whose
 * PEBS and LBR MSRs exist in tests/fake_msr.c, with pmu_init done. Header-only so that each
 * session test includes just what it uses.
 */
#ifndef PMUCAL_TESTS_FAKE_INTEL_H
#define PMUCAL_TESTS_FAKE_INTEL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "boot/x86/cpuid.h"
#include "pmu/pmu.h"
#include "pmu/x86/msr_arch.h"
#include "pmu/x86/msr_lbr.h"
#include "pmu/x86/msr_pebs.h"
#include "tests/fake_msr.h"

static inline const struct fake_msr_write *fake_msr_last_write(void)
{
        size_t n = fake_msr_n_writes();
        return n ? fake_msr_write_at(n - 1) : NULL;
}

/* The Skylake-X below with arch perfmon @p version and IA32_PERF_CAPABILITIES @p perf_caps
 * (@p pdcm false: the MSR absent, as with CPUID.01H:ECX[15] clear). */
static inline struct cpu_info fake_intel_skx_caps(bool pdcm, uint64_t perf_caps, unsigned version)
{
        struct cpu_info ci = { .vendor = VEN_INTEL, .family = 6, .model = 0x55 };
        ci.intel = (struct cpu_pmu_intel){ .version = version, .n_gp = 4, .gp_width = 48,
                                           .ebx_len = 7, .n_fixed = 3, .fixed_width = 48,
                                           .pdcm = pdcm, .ds = true, .dtes64 = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .version = version, .n_gp = 4,
                                    .gp_width = 48, .n_fixed = 3, .fixed_width = 48,
                                    .pdcm = pdcm, .perf_caps = perf_caps };
        fake_msr_setup(&cfg);
        fake_msr_add(MSR_IA32_MISC_ENABLE, 0);
        fake_msr_add(MSR_IA32_DS_AREA, 0);
        fake_msr_add(MSR_IA32_PEBS_ENABLE, 0);
        fake_msr_add(MSR_PEBS_LD_LAT_THRESHOLD, 0);
        fake_msr_add(MSR_IA32_DEBUGCTLMSR, 0);
        fake_msr_add(MSR_LBR_SELECT, 0);
        fake_msr_add(MSR_LBR_TOS, 0);
        for (unsigned i = 0; i < 32; i++) {
                fake_msr_add(MSR_LBR_NHM_FROM + i, 0);
                fake_msr_add(MSR_LBR_NHM_TO + i, 0);
                fake_msr_add(MSR_LBR_INFO_0 + i, 0);
        }
        assert_int_equal(pmu_init(&ci), ST_OK);
        return ci;
}

static inline struct cpu_info fake_intel_skx(void)
{
        return fake_intel_skx_caps(true, 0x305 | PERF_CAP_FW_WRITES, 4);
}

#endif
