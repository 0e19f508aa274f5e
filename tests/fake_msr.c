/** @file Register-level PMU model for host tests (see fake_msr.h). */
#include "tests/fake_msr.h"

#include <string.h>

#include "pmu/x86/msr_amd.h"
#include "pmu/x86/msr_arch.h"

#define MAX_MSRS   256
#define MAX_WRITES 4096
#define VEC_GP     13

struct reg {
        uint32_t msr;
        uint64_t val;
};

static struct fake_msr_cfg   cfg;
static struct reg            regs[MAX_MSRS];
static unsigned              n_regs;
static struct fake_msr_write log_[MAX_WRITES];
static size_t                n_log;
static unsigned              last_vector, n_faults, n_pmi;

static struct reg *find(uint32_t msr)
{
        for (unsigned i = 0; i < n_regs; i++)
                if (regs[i].msr == msr)
                        return &regs[i];
        return NULL;
}

void fake_msr_add(uint32_t msr, uint64_t val)
{
        struct reg *r = find(msr);

        if (!r && n_regs < MAX_MSRS)
                r = &regs[n_regs++];
        if (r) {
                r->msr = msr;
                r->val = val;
        }
}

void fake_msr_remove(uint32_t msr)
{
        struct reg *r = find(msr);

        if (r)
                *r = regs[--n_regs];
}

uint64_t fake_msr_peek(uint32_t msr)
{
        struct reg *r = find(msr);

        return r ? r->val : 0;
}

static uint64_t mask(unsigned w)
{
        return w >= 64 ? ~0ull : (1ull << w) - 1;
}

static bool is_amd(void)
{
        return cfg.layout == FAKE_AMD_LEGACY || cfg.layout == FAKE_AMD_EXT;
}

static uint32_t amd_ctl(unsigned n)
{
        return cfg.layout == FAKE_AMD_EXT ? MSR_F15H_PERF_CTL + 2 * n : MSR_K7_EVNTSEL0 + n;
}

static uint32_t amd_ctr(unsigned n)
{
        return cfg.layout == FAKE_AMD_EXT ? MSR_F15H_PERF_CTR + 2 * n : MSR_K7_PERFCTR0 + n;
}

void fake_msr_setup(const struct fake_msr_cfg *c)
{
        memset(&cfg, 0, sizeof(cfg));
        if (c)
                cfg = *c;
        n_regs = 0;
        n_log = 0;
        last_vector = n_faults = n_pmi = 0;
        if (cfg.layout == FAKE_INTEL) {
                for (unsigned n = 0; n < cfg.n_gp; n++) {
                        fake_msr_add(MSR_ARCH_PERFMON_EVENTSEL0 + n, 0);
                        fake_msr_add(MSR_ARCH_PERFMON_PERFCTR0 + n, 0);
                }
                if (cfg.pdcm)
                        fake_msr_add(MSR_IA32_PERF_CAPABILITIES, cfg.perf_caps);
                if (cfg.version >= 2) {
                        for (unsigned n = 0; n < cfg.n_fixed; n++)
                                fake_msr_add(MSR_ARCH_PERFMON_FIXED_CTR0 + n, 0);
                        fake_msr_add(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, 0);
                        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 0);
                        fake_msr_add(MSR_CORE_PERF_GLOBAL_CTRL, 0);
                        fake_msr_add(MSR_CORE_PERF_GLOBAL_OVF_CTRL, 0);
                }
        } else if (is_amd()) {
                unsigned n_ctr = cfg.n_gp ? cfg.n_gp : 4;

                cfg.n_gp = n_ctr;
                cfg.gp_width = cfg.gp_width ? cfg.gp_width : AMD64_COUNTER_WIDTH;
                for (unsigned n = 0; n < n_ctr; n++) {
                        fake_msr_add(amd_ctl(n), 0);
                        fake_msr_add(amd_ctr(n), 0);
                }
                if (cfg.layout == FAKE_AMD_EXT && cfg.version >= 2) {
                        fake_msr_add(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, 0);
                        fake_msr_add(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
                        fake_msr_add(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, 0);
                }
        }
}

size_t fake_msr_n_writes(void)
{
        return n_log;
}

const struct fake_msr_write *fake_msr_write_at(size_t i)
{
        return i < n_log ? &log_[i] : NULL;
}

void fake_msr_clear_log(void)
{
        n_log = 0;
}

unsigned fake_msr_n_faults(void)
{
        return n_faults;
}

unsigned fake_msr_n_pmi(void)
{
        return n_pmi;
}

unsigned msr_last_fault_vector(void)
{
        return last_vector;
}

static status_t fault(unsigned vec)
{
        last_vector = vec;
        n_faults++;
        return ST_FAULT;
}

static bool in_range(uint32_t msr, uint32_t base, unsigned n)
{
        return msr >= base && msr < base + n;
}

status_t rdmsr_safe(uint32_t msr, uint64_t *out)
{
        struct reg *r = find(msr);

        *out = 0;
        if (cfg.tcg_like)
                return ST_OK;
        if (cfg.layout == FAKE_INTEL && cfg.pdcm && (cfg.perf_caps & PERF_CAP_FW_WRITES) &&
            in_range(msr, MSR_IA32_PMC0, cfg.n_gp))
                r = find(MSR_ARCH_PERFMON_PERFCTR0 + (msr - MSR_IA32_PMC0));
        if (!r)
                return fault(VEC_GP);
        if (msr == MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR && is_amd())
                return ST_OK; /* write-only: reads as zero */
        *out = r->val;
        return ST_OK;
}

status_t wrmsr_safe(uint32_t msr, uint64_t val)
{
        struct reg *r;

        if (cfg.tcg_like)
                return ST_OK;
        if (cfg.layout == FAKE_INTEL && cfg.pdcm && (cfg.perf_caps & PERF_CAP_FW_WRITES) &&
            in_range(msr, MSR_IA32_PMC0, cfg.n_gp)) {
                /* Full-width alias: a value wider than the counter raises #GP. [SDM-3B] */
                if (val & ~mask(cfg.gp_width))
                        return fault(VEC_GP);
                r      = find(MSR_ARCH_PERFMON_PERFCTR0 + (msr - MSR_IA32_PMC0));
                r->val = val;
                goto logged;
        }
        if (!(r = find(msr)))
                return fault(VEC_GP);
        if (cfg.layout == FAKE_INTEL) {
                if (msr == MSR_CORE_PERF_GLOBAL_STATUS || msr == MSR_IA32_PERF_CAPABILITIES)
                        return fault(VEC_GP); /* read only */
                if (msr == MSR_CORE_PERF_GLOBAL_OVF_CTRL) {
                        find(MSR_CORE_PERF_GLOBAL_STATUS)->val &= ~val;
                        goto logged;
                }
                if (in_range(msr, MSR_ARCH_PERFMON_PERFCTR0, cfg.n_gp)) {
                        /* Legacy write: bits 31:0, sign-extended to the width. */
                        r->val = (uint64_t)(int64_t)(int32_t)(uint32_t)val & mask(cfg.gp_width);
                        goto logged;
                }
                if (in_range(msr, MSR_ARCH_PERFMON_FIXED_CTR0, cfg.n_fixed)) {
                        r->val = val & mask(cfg.fixed_width);
                        goto logged;
                }
        } else if (is_amd()) {
                if (msr == MSR_AMD64_PERF_CNTR_GLOBAL_STATUS)
                        return fault(VEC_GP);
                if (msr == MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR) {
                        find(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS)->val &= ~val;
                        goto logged;
                }
                for (unsigned n = 0; n < cfg.n_gp; n++)
                        if (msr == amd_ctr(n)) {
                                r->val = val & mask(cfg.gp_width);
                                goto logged;
                        }
        }
        r->val = val;
logged:
        if (n_log < MAX_WRITES)
                log_[n_log++] = (struct fake_msr_write){ msr, val };
        return ST_OK;
}

status_t rdpmc_safe(uint32_t ecx, uint64_t *out)
{
        *out = 0;
        if (cfg.tcg_like || cfg.layout == FAKE_NONE)
                return fault(VEC_GP);
        if (cfg.layout == FAKE_INTEL && (ecx & INTEL_PMC_FIXED_RDPMC_BASE)) {
                unsigned n = ecx & ~(uint32_t)INTEL_PMC_FIXED_RDPMC_BASE;

                if (cfg.version < 2 || n >= cfg.n_fixed)
                        return fault(VEC_GP);
                *out = fake_msr_peek(MSR_ARCH_PERFMON_FIXED_CTR0 + n);
                return ST_OK;
        }
        if (ecx >= cfg.n_gp)
                return fault(VEC_GP);
        *out = fake_msr_peek(cfg.layout == FAKE_INTEL ? MSR_ARCH_PERFMON_PERFCTR0 + ecx
                                                      : amd_ctr(ecx));
        return ST_OK;
}

/* Add n to a counter; on wrap set the overflow bit and count a PMI if enabled. */
static void bump(uint32_t ctr_msr, unsigned width, uint64_t n, uint32_t status_msr,
                 uint64_t status_bit, bool pmi)
{
        struct reg *r = find(ctr_msr);
        uint64_t    m = mask(width);
        uint64_t    room = m - r->val; /* events before the wrap */

        if (n > room) {
                uint64_t wraps = 1 + (n - room - 1) / (m + 1 == 0 ? ~0ull : m + 1);

                r->val = (r->val + n) & m;
                if (status_msr)
                        find(status_msr)->val |= status_bit;
                if (pmi)
                        n_pmi += (unsigned)wraps;
        } else {
                r->val += n;
        }
}

static void inject_intel(uint16_t code, uint8_t umask, uint64_t n)
{
        uint64_t global = cfg.version >= 2 ? fake_msr_peek(MSR_CORE_PERF_GLOBAL_CTRL) : ~0ull;
        uint32_t status = cfg.version >= 2 ? MSR_CORE_PERF_GLOBAL_STATUS : 0;

        for (unsigned i = 0; i < cfg.n_gp; i++) {
                uint64_t sel = fake_msr_peek(MSR_ARCH_PERFMON_EVENTSEL0 + i);

                if (!(sel & ARCH_PERFMON_EVENTSEL_ENABLE) || !(global & (1ull << i)) ||
                    !(sel & ARCH_PERFMON_EVENTSEL_OS) || (sel & 0xff) != code ||
                    ((sel >> 8) & 0xff) != umask)
                        continue;
                bump(MSR_ARCH_PERFMON_PERFCTR0 + i, cfg.gp_width, n, status, 1ull << i,
                     sel & ARCH_PERFMON_EVENTSEL_INT);
        }
        if (cfg.version < 2)
                return;
        static const struct { uint16_t code; uint8_t umask; } fixed_ev[] = {
                { 0xc0, 0x00 }, { 0x3c, 0x00 }, { 0x3c, 0x01 },
        };
        uint64_t fctl = fake_msr_peek(MSR_ARCH_PERFMON_FIXED_CTR_CTRL);
        for (unsigned j = 0; j < cfg.n_fixed && j < 3; j++) {
                uint64_t f = (fctl >> (4 * j)) & 0xf;

                if (fixed_ev[j].code != code || fixed_ev[j].umask != umask ||
                    !(f & FIXED_CTR_CTRL_OS) || !(global & (1ull << (32 + j))))
                        continue;
                bump(MSR_ARCH_PERFMON_FIXED_CTR0 + j, cfg.fixed_width, n, status,
                     1ull << (32 + j), f & FIXED_CTR_CTRL_PMI);
        }
}

static void inject_amd(uint16_t code, uint8_t umask, uint64_t n)
{
        bool     v2     = cfg.layout == FAKE_AMD_EXT && cfg.version >= 2;
        uint64_t global = v2 ? fake_msr_peek(MSR_AMD64_PERF_CNTR_GLOBAL_CTL) : ~0ull;

        for (unsigned i = 0; i < cfg.n_gp; i++) {
                uint64_t sel = fake_msr_peek(amd_ctl(i));
                uint16_t ev  = (uint16_t)((sel & 0xff) | (((sel >> 32) & 0xf) << 8));

                if (!(sel & AMD64_EVENTSEL_ENABLE) || !(global & (1ull << i)) ||
                    !(sel & AMD64_EVENTSEL_OS) || ev != code || ((sel >> 8) & 0xff) != umask)
                        continue;
                bump(amd_ctr(i), cfg.gp_width, n, v2 ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS : 0,
                     1ull << i, sel & AMD64_EVENTSEL_INT);
        }
}

void fake_msr_inject(uint16_t code, uint8_t umask, uint64_t n)
{
        if (cfg.layout == FAKE_INTEL)
                inject_intel(code, umask, n);
        else if (is_amd())
                inject_amd(code, umask, n);
}
