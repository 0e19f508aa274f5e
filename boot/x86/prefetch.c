/** @file Hardware prefetcher control, one documented row per CPU range (see prefetch.h). */
#include "boot/prefetch.h"
#include "boot/x86/msr_misc.h" /* the prefetcher-control registers */

#include "boot/plat.h"
#include "boot/x86/msr.h"

#define INTEL_ALL4 (MISC_FEATURE_CONTROL_L2_HW_PF_DIS | MISC_FEATURE_CONTROL_L2_ADJ_PF_DIS | \
                    MISC_FEATURE_CONTROL_DCU_HW_PF_DIS | MISC_FEATURE_CONTROL_DCU_IP_PF_DIS)
#define INTEL_L2_DCU (MISC_FEATURE_CONTROL_L2_HW_PF_DIS | MISC_FEATURE_CONTROL_DCU_HW_PF_DIS)
#define AMD_ZEN_ALL (PREFETCH_CONTROL_L1_STREAM | PREFETCH_CONTROL_L1_STRIDE | \
                     PREFETCH_CONTROL_L1_REGION | PREFETCH_CONTROL_L2_STREAM | \
                     PREFETCH_CONTROL_UP_DOWN)

struct pf_quirk {
        enum cpu_vendor vendor;
        uint32_t        family, model_lo, model_hi;
        uint32_t        msr;
        uint64_t        mask;
        const char     *source;
};

/* Sources, by the tag in each row (README "References" maps the [SDM-*] and [PPR-*] tags):
 *   INTEL-HWPF    Intel, "Disclosure of H/W prefetcher control on some Intel processors"
 *                 (2014): MSR 0x1A4 bits 0-3 on Nehalem through Broadwell.
 *   SDM-4 ...     [SDM-4] MSR_MISC_FEATURE_CONTROL in the per-model MSR tables named.
 *   PPR-19h-11h   AMD PPR for Family 19h Model 11h (pub. 55901), MSRC000_0108.
 *   PPR-1Ah-00h   AMD PPR for Family 1Ah Model 00h..0Fh (pub. 57238), MSRC000_0108.
 * Knights Landing/Mill (6-57h, 6-85h) use other bit meanings and are left out on purpose. */
static const struct pf_quirk pf_quirks[] = {
        /* vendor    fam   models        msr                         mask          source */
        { VEN_INTEL, 6,    0x1a, 0x1a,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Nehalem" },
        { VEN_INTEL, 6,    0x1e, 0x1f,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Nehalem" },
        { VEN_INTEL, 6,    0x2e, 0x2e,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Nehalem-EX" },
        { VEN_INTEL, 6,    0x25, 0x25,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Westmere" },
        { VEN_INTEL, 6,    0x2c, 0x2c,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Westmere-EP" },
        { VEN_INTEL, 6,    0x2f, 0x2f,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Westmere-EX" },
        { VEN_INTEL, 6,    0x2a, 0x2a,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Sandy Bridge" },
        { VEN_INTEL, 6,    0x2d, 0x2d,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Sandy Bridge-EP" },
        { VEN_INTEL, 6,    0x3a, 0x3a,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Ivy Bridge" },
        { VEN_INTEL, 6,    0x3e, 0x3e,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Ivy Bridge-EP" },
        { VEN_INTEL, 6,    0x3c, 0x3c,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Haswell" },
        { VEN_INTEL, 6,    0x3f, 0x3f,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Haswell-EP" },
        { VEN_INTEL, 6,    0x45, 0x46,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Haswell" },
        { VEN_INTEL, 6,    0x3d, 0x3d,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Broadwell" },
        { VEN_INTEL, 6,    0x47, 0x47,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Broadwell" },
        { VEN_INTEL, 6,    0x4f, 0x4f,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Broadwell-EP" },
        { VEN_INTEL, 6,    0x56, 0x56,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "INTEL-HWPF Broadwell-DE" },
        { VEN_INTEL, 6,    0x4e, 0x4e,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "SDM-4 Skylake MSRs" },
        { VEN_INTEL, 6,    0x5e, 0x5e,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "SDM-4 Skylake MSRs" },
        { VEN_INTEL, 6,    0x55, 0x55,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "SDM-4 Skylake-SP MSRs" },
        { VEN_INTEL, 6,    0x8e, 0x8e,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "SDM-4 Kaby/Coffee Lake MSRs" },
        { VEN_INTEL, 6,    0x9e, 0x9e,   MSR_MISC_FEATURE_CONTROL,   INTEL_ALL4,   "SDM-4 Kaby/Coffee Lake MSRs" },
        { VEN_INTEL, 6,    0x5c, 0x5c,   MSR_MISC_FEATURE_CONTROL,   INTEL_L2_DCU, "SDM-4 Goldmont MSRs" },
        { VEN_INTEL, 6,    0x5f, 0x5f,   MSR_MISC_FEATURE_CONTROL,   INTEL_L2_DCU, "SDM-4 Goldmont MSRs" },
        { VEN_AMD,   0x19, 0x10, 0x1f,   MSR_AMD64_PREFETCH_CONTROL, AMD_ZEN_ALL,  "PPR-19h-11h MSRC000_0108" },
        { VEN_AMD,   0x1a, 0x00, 0x1f,   MSR_AMD64_PREFETCH_CONTROL, AMD_ZEN_ALL,  "PPR-1Ah-00h MSRC000_0108" },
};

static const char *const state_names[] = {
        [PREFETCH_UNSUPPORTED] = "unsupported",
        [PREFETCH_LEFT_ON]     = "on",
        [PREFETCH_DISABLED]    = "off",
        [PREFETCH_FAILED]      = "failed",
};

bool prefetch_lookup(const struct cpu_info *cpu, uint32_t *msr, uint64_t *mask,
                           const char **source)
{
        if (!cpu)
                return false;
        for (size_t i = 0; i < ARRAY_SIZE(pf_quirks); i++) {
                const struct pf_quirk *q = &pf_quirks[i];

                if (q->vendor == cpu->vendor && q->family == cpu->family &&
                    cpu->model >= q->model_lo && cpu->model <= q->model_hi) {
                        *msr    = q->msr;
                        *mask   = q->mask;
                        *source = q->source;
                        return true;
                }
        }
        return false;
}

status_t prefetch_disable(const struct cpu_info *cpu, bool want_off,
                                struct prefetch_info *pf)
{
        status_t st;

        if (!pf)
                return ST_BAD_ARG;
        *pf = (struct prefetch_info){ .state = PREFETCH_UNSUPPORTED };
        if (!prefetch_lookup(cpu, &pf->msr, &pf->disable_mask, &pf->source)) {
                pf->msr = 0;
                return ST_OK;
        }
        if ((st = rdmsr_safe(pf->msr, &pf->saved)) != ST_OK) {
                pf->state = PREFETCH_FAILED;
                pf->why   = st;
                return ST_OK;
        }
        if (!want_off) {
                pf->state = PREFETCH_LEFT_ON;
                return ST_OK;
        }
        if ((st = wrmsr_safe(pf->msr, pf->saved | pf->disable_mask)) != ST_OK) {
                pf->state = PREFETCH_FAILED;
                pf->why   = st;
                return ST_OK;
        }
        pf->state = PREFETCH_DISABLED;
        return ST_OK;
}

status_t prefetch_restore(struct prefetch_info *pf)
{
        if (!pf || pf->state != PREFETCH_DISABLED)
                return ST_OK;
        return wrmsr_safe(pf->msr, pf->saved);
}

const char *prefetch_state_name(enum prefetch_state s)
{
        if ((unsigned)s >= ARRAY_SIZE(state_names))
                return "unknown";
        return state_names[s];
}
