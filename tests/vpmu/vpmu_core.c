/** @file
 * The virtual PMU's core: the MSR space, Intel architectural perfmon v1-v5 and AMD
 * legacy/extended/PerfMonV2 counting, overflow, the PMI through the local APIC's LVT, and the
 * MSR accessors of pmu/msr.h. See vpmu.h.
 */
#include "tests/vpmu/vpmu_priv.h"

#include <stdlib.h>
#include <string.h>

#include "boot/x86/msr.h"

struct vp_state vp;

/* ---- helpers ---------------------------------------------------------------------------- */

uint64_t vp_width_mask(unsigned bits)
{
        return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

uint64_t vp_rand(void)
{
        /* xorshift64*: reproducible per vpmu_init */
        vp.rng ^= vp.rng >> 12;
        vp.rng ^= vp.rng << 25;
        vp.rng ^= vp.rng >> 27;
        return vp.rng * 0x2545f4914f6cdd1dull;
}

static uint64_t tsc(void)
{
        uint32_t lo, hi;

        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        return ((uint64_t)hi << 32) | lo;
}

static bool amd(void)
{
        return vp.p && vp.p->amd;
}

static unsigned n_gp(void)
{
        if (!vp.p)
                return 0;
        if (!amd())
                return vp.p->n_gp;
        if (vp.p->perfmon_v2 && vp.p->amd_n_core)
                return vp.p->amd_n_core;
        return vp.p->ext_core ? 6 : 4;
}

static unsigned gp_width(void)
{
        return amd() ? 48 : vp.p->gp_width; /* [APM-2]: 48-bit counters */
}

static bool has_global(void)
{
        return amd() ? vp.p->ext_core && vp.p->perfmon_v2 : vp.p->version >= 2;
}

/* ---- counting ----------------------------------------------------------------------------- */

static enum vpmu_ev gp_event(unsigned n, bool *ok)
{
        uint64_t sel = vp.sel[n];
        uint16_t code = (uint16_t)(sel & 0xff);
        uint8_t  umask = (uint8_t)(sel >> 8);

        *ok = false;
        if (amd())
                code |= (uint16_t)(((sel >> VP_AMD_EVTSEL_EVENT_HI_SHIFT) & 0xf) << 8);
        if ((sel >> 24) & 0xff || (sel & VP_EVTSEL_INV)) /* CMASK / INV: not modelled */
                return VE__COUNT;
        for (size_t i = 0; i < vp.p->n_events; i++)
                if (vp.p->events[i].code == code && vp.p->events[i].umask == umask) {
                        *ok = true;
                        return vp.p->events[i].ev;
                }
        return VE__COUNT;
}

/* The harness runs at CPL 0: a counter counts when its OS bit is set (AMD: or neither OS nor
 * USR, which counts at every level [APM-2] PerfEvtSel OsUserMode). */
static bool gp_counts(unsigned n)
{
        uint64_t sel = vp.sel[n];

        if (!(sel & VP_EVTSEL_EN) || (vp.gstatus & VP_STATUS_CTR_FRZ))
                return false;
        if (has_global() && !(vp.gctl & (1ull << n)))
                return false;
        if (amd())
                return (sel & VP_EVTSEL_OS) || !(sel & VP_EVTSEL_USR);
        return (sel & VP_EVTSEL_OS) != 0;
}

static bool fixed_counts(unsigned j)
{
        if (amd() || vp.p->version < 2 || j >= vp.p->n_fixed || (vp.gstatus & VP_STATUS_CTR_FRZ))
                return false;
        return ((vp.fctl >> (4 * j)) & VP_FIXED_OS) && (vp.gctl & (1ull << (32 + j)));
}

static const enum vpmu_ev fixed_ev[VP_MAX_FIXED] = { VE_INSNS, VE_CYCLES, VE_REF_CYCLES,
                                                     VE__COUNT };

/* Events a counter sees of @p want, with the count fault applied (fraction carried). */
static uint64_t faulty(enum vpmu_ev ev, uint64_t want, uint64_t *frac)
{
        if (!vp.f.count_ppm || vp.f.count_kind != ev)
                return want;
        int64_t  ppm = 1000000 + vp.f.count_ppm;
        uint64_t num = want * (uint64_t)ppm + *frac;

        *frac = num % 1000000;
        return num / 1000000;
}

static void overflow_gp(unsigned n, const struct vpmu_step *s)
{
        if (!amd() && (vp.pebs_enable & (1ull << n))) {
                vp_pebs_overflow(n); /* a PEBS counter arms a record instead [SDM-3B] */
                if (!(vp.sel[n] & VP_EVTSEL_INT))
                        return;
        }
        if (has_global())
                vp.gstatus |= 1ull << n;
        if (vp.sel[n] & VP_EVTSEL_INT)
                vp_pmi(vp_pmi_rip(s), -1);
}

static void overflow_fixed(unsigned j, const struct vpmu_step *s)
{
        vp.gstatus |= 1ull << (32 + j);
        if ((vp.fctl >> (4 * j)) & VP_FIXED_PMI)
                vp_pmi(vp_pmi_rip(s), -1);
}

/* Events until counter wraps (1 .. 2^width). */
static uint64_t room(uint64_t v, unsigned width)
{
        return vp_width_mask(width) - v + 1;
}

/* Add @p k events to GP counter @p n; true if it wrapped. */
static bool add_gp(unsigned n, uint64_t k)
{
        uint64_t m = vp_width_mask(gp_width());
        bool     wrap = k >= room(vp.ctr[n], gp_width());

        vp.ctr[n] = (vp.ctr[n] + k) & m;
        return wrap;
}

static bool add_fixed(unsigned j, uint64_t k)
{
        uint64_t m = vp_width_mask(vp.p->fixed_width);
        bool     wrap = k >= room(vp.fctr[j], vp.p->fixed_width);

        vp.fctr[j] = (vp.fctr[j] + k) & m;
        return wrap;
}

/* Retire @p cnt, splitting at each counter wrap so that every overflow is delivered at the
 * point it happens. */
static void retire_counts(uint64_t cnt[VE__COUNT], const struct vpmu_step *s)
{
        for (;;) {
                /* the counter that wraps first, as a fraction of its kind's remaining count */
                int      best = -1;
                uint64_t best_room = 0, best_left = 1;

                for (unsigned c = 0; c < VP_MAX_GP + VP_MAX_FIXED; c++) {
                        bool         fx = c >= VP_MAX_GP, ok = true;
                        unsigned     i = fx ? c - VP_MAX_GP : c;
                        enum vpmu_ev ev;
                        uint64_t     r, left;

                        if (fx ? !fixed_counts(i) || (vp.f.dead_fixed & (1u << i))
                               : i >= n_gp() || !gp_counts(i) || (vp.f.dead_gp & (1u << i)))
                                continue;
                        ev = fx ? fixed_ev[i] : gp_event(i, &ok);
                        if (!ok || ev >= VE__COUNT || !cnt[ev])
                                continue;
                        left = faulty(ev, cnt[ev], fx ? &(uint64_t){ vp.ffrac[i] } : &(uint64_t){ vp.frac[i] });
                        r = fx ? room(vp.fctr[i], vp.p->fixed_width) : room(vp.ctr[i], gp_width());
                        if (r > left)
                                continue;
                        /* r/left < best_room/best_left */
                        if (best < 0 || (__uint128_t)r * best_left < (__uint128_t)best_room * left) {
                                best = (int)c;
                                best_room = r;
                                best_left = left;
                        }
                }
                uint64_t part[VE__COUNT];

                for (unsigned e = 0; e < VE__COUNT; e++)
                        part[e] = best < 0 ? cnt[e]
                                           : (uint64_t)((__uint128_t)cnt[e] * best_room / best_left);
                for (unsigned c = 0; c < VP_MAX_GP + VP_MAX_FIXED; c++) {
                        bool         fx = c >= VP_MAX_GP, ok = true;
                        unsigned     i = fx ? c - VP_MAX_GP : c;
                        enum vpmu_ev ev;

                        if (fx ? !fixed_counts(i) || (vp.f.dead_fixed & (1u << i))
                               : i >= n_gp() || !gp_counts(i) || (vp.f.dead_gp & (1u << i)))
                                continue;
                        ev = fx ? fixed_ev[i] : gp_event(i, &ok);
                        if (!ok || ev >= VE__COUNT || !part[ev])
                                continue;
                        uint64_t k = (int)c == best ? best_room
                                                    : faulty(ev, part[ev], fx ? &vp.ffrac[i] : &vp.frac[i]);
                        bool wrap = fx ? add_fixed(i, k) : add_gp(i, k);

                        if (wrap)
                                fx ? overflow_fixed(i, s) : overflow_gp(i, s);
                }
                if (best < 0)
                        return;
                bool any = false;
                for (unsigned e = 0; e < VE__COUNT; e++) {
                        cnt[e] -= part[e] < cnt[e] ? part[e] : cnt[e];
                        any |= cnt[e] != 0;
                }
                if (!any)
                        return;
        }
}

/* Time since the model last ran counts as core cycles (VPMU_CORE_PER_TSC per TSC tick: the
 * host's own loops run faster than one iteration per TSC tick on turbo cores, which no
 * modelled core could) and as reference cycles (one per tick). */
static void accrue(const struct vpmu_step *s)
{
        uint64_t now = tsc(), cnt[VE__COUNT] = { 0 };

        if (!vp.p)
                return;
        cnt[VE_REF_CYCLES] = now - vp.tsc_last;
        cnt[VE_CYCLES]     = cnt[VE_REF_CYCLES] * VPMU_CORE_PER_TSC;
        vp.tsc_last = now;
        /* The model's own work in the handler (tens of emulated MSR accesses) is not the
         * program's: as if the counters froze on PMI. */
        if (vp.in_pmi)
                return;
        retire_counts(cnt, s);
        if (vp_ibs_op_on() && !(vp.ibs_op_ctl & VP_OPCTL_CNT_CTL))
                vp_ibs_op_count(cnt[VE_CYCLES], NULL, s);
}

static const struct vpmu_step harness_step = { .rip_lo = 0x1000, .rip_hi = 0x1001 };

/* ---- per-op work -------------------------------------------------------------------------- */

uint16_t vp_load_latency(const struct vpmu_op *op)
{
        return op->load ? vp.p->lat[op->level] : 0;
}

static void retire_op(const struct vpmu_op *op, const struct vpmu_step *s)
{
        uint64_t cnt[VE__COUNT] = { 0 };

        cnt[VE_OPS] = 1;
        if (op->load) {
                cnt[VE_LOADS] = 1;
                cnt[VE_L1D_MISS] = op->level > VL_L1;
                cnt[VE_L2_MISS] = op->level > VL_L2;
                cnt[VE_LLC_MISS] = op->level > VL_L3;
                cnt[VE_DTLB_MISS] = op->dtlb_miss;
                cnt[VE_LDLAT] = vp.ldlat && vp_load_latency(op) > (vp.ldlat & 0xffff);
        }
        /* A PEBS record is written by the qualifying event after the overflow. */
        for (unsigned n = 0; n < n_gp(); n++) {
                bool ok;

                if ((vp.pebs_armed & (1u << n)) && gp_counts(n) && gp_event(n, &ok) < VE__COUNT &&
                    ok && cnt[gp_event(n, &ok)])
                        vp_pebs_event(n, op, s);
        }
        struct vpmu_step one = *s;
        one.rip_ev = op->rip;
        retire_counts(cnt, &one);
        if (vp_ibs_op_on() && (vp.ibs_op_ctl & VP_OPCTL_CNT_CTL))
                vp_ibs_op_count(1, op, &one);
        else if (vp.ibs_op_tag)
                vp_ibs_op_count(0, op, &one);
}

/* ---- public: workload ----------------------------------------------------------------------- */

/* True when an enabled counter counts loads above the latency threshold. */
static bool counting_ldlat(void)
{
        for (unsigned n = 0; n < n_gp(); n++) {
                bool ok;

                if (gp_counts(n) && gp_event(n, &ok) == VE_LDLAT && ok)
                        return true;
        }
        return false;
}

bool vpmu_wants_ops(void)
{
        return vp.p && (vp_ibs_op_on() || vp.pebs_enable || counting_ldlat());
}

bool vpmu_wants_branches(void)
{
        return vp.p && vp_lbr_recording();
}

void vpmu_retire(const struct vpmu_step *s)
{
        uint64_t cnt[VE__COUNT];

        if (!vp.p || !s)
                return;
        accrue(s);
        memcpy(cnt, s->n, sizeof(cnt));
        if (s->op_at && vpmu_wants_ops()) {
                static const enum vpmu_ev per_op[] = { VE_OPS, VE_LOADS, VE_L1D_MISS, VE_L2_MISS,
                                                       VE_LLC_MISS, VE_DTLB_MISS, VE_LDLAT };
                for (size_t i = 0; i < sizeof(per_op) / sizeof(per_op[0]); i++)
                        cnt[per_op[i]] = 0;
                retire_counts(cnt, s);
                for (uint64_t i = 0; i < s->n[VE_OPS]; i++) {
                        struct vpmu_op op;

                        s->op_at(s->ctx, i, &op);
                        retire_op(&op, s);
                }
        } else {
                retire_counts(cnt, s);
                if (vp_ibs_op_on() && (vp.ibs_op_ctl & VP_OPCTL_CNT_CTL) && s->n[VE_OPS]) {
                        struct vpmu_op op = { .rip = s->rip_ev ? s->rip_ev : s->rip_lo };
                        vp_ibs_op_count(s->n[VE_OPS], &op, s);
                }
        }
        vp_ibs_fetch_count(s->n[VE_INSNS] / 4, s);
        if (s->br && vp_lbr_recording())
                for (uint64_t i = 0; i < s->n[VE_BRANCHES]; i++)
                        vp_lbr_push(s->br);
}

/* ---- PMI ------------------------------------------------------------------------------------ */

void vpmu_set_skid(uint64_t max_bytes)
{
        vp.skid_max = max_bytes;
}

uint64_t vp_pmi_rip(const struct vpmu_step *s)
{
        if (!s || !s->rip_hi)
                return harness_step.rip_lo;
        if (vp.f.skid_extra_bytes)
                return s->rip_hi + vp.f.skid_extra_bytes;
        if (!s->rip_ev) /* anywhere in the kernel */
                return s->rip_lo + vp_rand() % (s->rip_hi - s->rip_lo);
        uint64_t rip = s->rip_ev + (vp.skid_max ? vp_rand() % vp.skid_max : 0);
        return rip < s->rip_hi ? rip : s->rip_hi - 1;
}

void vp_pmi(uint64_t rip, int eilvt)
{
        uint32_t *lvt = eilvt >= 0 ? &vp.eilvt[eilvt & 3] : &vp.lvt_pmc;
        struct cpu_pmi_frame fr = { .rip = rip, .cs = 0x38, .rflags = 0x2 };

        if (vp.in_pmi || (*lvt & VP_APIC_LVT_MASKED) || !vp.pmi_fn)
                return; /* NMI blocked / entry masked: no interrupt [SDM-3A] */
        vp.stats.n_pmi++;
        if (vp.f.lose_pmi_every && vp.stats.n_pmi % vp.f.lose_pmi_every == 0) {
                vp.stats.n_pmi_lost++;
                return;
        }
        /* Hardware sets the LVT PMC mask on delivery [SDM-3B] "Generating an Interrupt on
         * Overflow"; the extended LVT of IBS is not masked by delivery. */
        if (eilvt < 0)
                *lvt |= VP_APIC_LVT_MASKED;
        if (!amd() && (vp.debugctl & VP_DEBUGCTL_FREEZE_LBR_PMI))
                vp_lbr_freeze();
        vp.in_pmi = true;
        vp.pmi_fn(&fr, vp.pmi_ctx);
        if (vp.f.spurious_pmi_every && vp.stats.n_pmi % vp.f.spurious_pmi_every == 0)
                vp.pmi_fn(&fr, vp.pmi_ctx); /* an NMI from elsewhere, no overflow status */
        vp.in_pmi = false;
        vp.tsc_last = tsc();
        /* the platform unmasks after the handler (boot/plat.h cpu_pmi_fn) */
        *lvt &= ~VP_APIC_LVT_MASKED;
}

/* The fake platform's PMI route (tests/fake_plat.c) calls these. */
status_t vpmu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        if (!vp.p)
                return ST_UNSUPPORTED;
        if (vp.pmi_fn)
                return ST_BAD_ARG;
        vp.pmi_fn = fn;
        vp.pmi_ctx = ctx;
        vp.lvt_pmc = VP_APIC_DM_NMI | 2;
        if (ext_lvt_offset >= 0)
                vp.eilvt[ext_lvt_offset & 3] = VP_APIC_DM_NMI | 2;
        return ST_OK;
}

void vpmu_pmi_disable(void)
{
        vp.pmi_fn = NULL;
        vp.lvt_pmc = VP_APIC_LVT_MASKED;
        for (unsigned i = 0; i < 4; i++)
                vp.eilvt[i] = VP_APIC_LVT_MASKED;
}

status_t vpmu_pmi_selftest(uint64_t *rt)
{
        struct cpu_pmi_frame fr = { .rip = harness_step.rip_lo };

        if (!vp.pmi_fn || vp.f.route_dead)
                return ST_TIMEOUT;
        uint64_t t0 = tsc();
        vp.pmi_fn(&fr, vp.pmi_ctx);
        if (rt)
                *rt = tsc() - t0;
        return ST_OK;
}

uint32_t vpmu_apic(uint32_t reg)
{
        if (reg == VP_APIC_LVT_PMC)
                return vp.lvt_pmc;
        if (reg >= VP_APIC_EILVT0 && reg < VP_APIC_EILVT0 + 0x40)
                return vp.eilvt[(reg - VP_APIC_EILVT0) / 0x10];
        return 0;
}

/* ---- MSR space ------------------------------------------------------------------------------ */

static int in(uint32_t msr, uint32_t base, unsigned n, unsigned stride)
{
        if (msr < base || (msr - base) % stride || (msr - base) / stride >= n)
                return -1;
        return (int)((msr - base) / stride);
}

static bool fw_writes(void)
{
        return !amd() && vp.p->pdcm && (vp.p->perf_caps & VP_CAP_FW_WRITE);
}

/* Core-counter registers; *v read, or NULL for "does it exist". */
static uint64_t *core_reg(uint32_t msr)
{
        int i;

        if (amd()) {
                unsigned legacy = vp.p->ext_core ? 4 : 4;

                if ((i = in(msr, VP_K7_EVNTSEL0, legacy, 1)) >= 0)
                        return &vp.sel[i];   /* the legacy MSRs alias counters 0-3 [APM-2] */
                if ((i = in(msr, VP_K7_PERFCTR0, legacy, 1)) >= 0)
                        return &vp.ctr[i];
                if (vp.p->ext_core && (i = in(msr, VP_F15H_PERF_CTL0, n_gp(), 2)) >= 0)
                        return &vp.sel[i];
                if (vp.p->ext_core && (i = in(msr, VP_F15H_PERF_CTR0, n_gp(), 2)) >= 0)
                        return &vp.ctr[i];
                if (has_global() && msr == VP_AMD_GLOBAL_STATUS)
                        return &vp.gstatus;
                if (has_global() && msr == VP_AMD_GLOBAL_CTL)
                        return &vp.gctl;
                return NULL;
        }
        if ((i = in(msr, VP_IA32_PMC0, vp.p->n_gp, 1)) >= 0)
                return &vp.ctr[i];
        if (fw_writes() && (i = in(msr, VP_IA32_A_PMC0, vp.p->n_gp, 1)) >= 0)
                return &vp.ctr[i];
        if ((i = in(msr, VP_IA32_PERFEVTSEL0, vp.p->n_gp, 1)) >= 0)
                return &vp.sel[i];
        if (vp.p->version < 2)
                return NULL;
        if ((i = in(msr, VP_IA32_FIXED_CTR0, vp.p->n_fixed, 1)) >= 0)
                return &vp.fctr[i];
        if (msr == VP_IA32_FIXED_CTR_CTRL)
                return &vp.fctl;
        if (msr == VP_IA32_PERF_GLOBAL_STATUS)
                return &vp.gstatus;
        if (msr == VP_IA32_PERF_GLOBAL_CTRL)
                return &vp.gctl;
        return NULL;
}

static status_t fault(void)
{
        vp.last_vector = vp.f.fault_vector ? vp.f.fault_vector : VP_VEC_GP;
        vp.stats.n_faults++;
        return ST_FAULT;
}

static bool other_rd(uint32_t msr, uint64_t *v)
{
        static uint64_t zero;

        switch (msr) {
        case VP_IA32_APERF:
                *v = tsc() * VPMU_CORE_PER_TSC; /* actual core clock */
                return true;
        case VP_IA32_MPERF:
                *v = tsc(); /* the reference clock ticks at the TSC rate */
                return true;
        }
        if (!amd()) {
                if (msr == VP_IA32_PERF_CAPABILITIES && vp.p->pdcm)
                        return *v = vp.p->perf_caps, true;
                if (msr == VP_IA32_MISC_ENABLE)
                        return *v = vp.misc_enable, true;
                if (msr == VP_IA32_DEBUGCTL)
                        return *v = vp.debugctl, true;
                if (vp.p->version >= 2 && (msr == VP_IA32_PERF_GLOBAL_OVF_CTRL ||
                                           (vp.p->version >= 4 && msr == VP_IA32_PERF_GLOBAL_STATUS_SET)))
                        return *v = zero, true;
                if (vp_pebs_rd(msr, v) || vp_lbr_rd(msr, v))
                        return true;
        } else {
                if (has_global() && msr == VP_AMD_GLOBAL_STATUS_CLR)
                        return *v = 0, true;
                if (vp_ibs_rd(msr, v))
                        return true;
        }
        for (unsigned i = 0; i < vp.n_poke; i++)
                if (vp.poke[i].msr == msr)
                        return *v = vp.poke[i].val, true;
        return false;
}

static int core_wr(uint32_t msr, uint64_t v)
{
        uint64_t *r = core_reg(msr);
        int       i;

        if (!r)
                return 0;
        if (amd()) {
                if (msr == VP_AMD_GLOBAL_STATUS)
                        return -1; /* read only [APM-2] */
                if (r >= vp.ctr && r < vp.ctr + VP_MAX_GP) {
                        *r = v & vp_width_mask(48);
                        return 1;
                }
                *r = v;
                return 1;
        }
        if (msr == VP_IA32_PERF_GLOBAL_STATUS)
                return -1;
        if ((i = in(msr, VP_IA32_A_PMC0, vp.p->n_gp, 1)) >= 0 && fw_writes()) {
                if (v & ~vp_width_mask(vp.p->gp_width))
                        return -1; /* [SDM-3B] full-width write beyond the width: #GP */
                vp.ctr[i] = v;
                return 1;
        }
        if ((i = in(msr, VP_IA32_PMC0, vp.p->n_gp, 1)) >= 0) {
                vp.ctr[i] = (uint64_t)(int64_t)(int32_t)(uint32_t)v & vp_width_mask(vp.p->gp_width);
                return 1;
        }
        if ((i = in(msr, VP_IA32_FIXED_CTR0, vp.p->n_fixed, 1)) >= 0) {
                vp.fctr[i] = v & vp_width_mask(vp.p->fixed_width);
                return 1;
        }
        if ((i = in(msr, VP_IA32_PERFEVTSEL0, vp.p->n_gp, 1)) >= 0) {
                /* Adaptive_Record exists only with PEBS baseline; reserved bits #GP. */
                if ((v & VP_EVTSEL_ADAPTIVE) && !(vp.p->perf_caps & VP_CAP_PEBS_BASELINE))
                        return -1;
                if (v >> 35)
                        return -1;
                vp.sel[i] = v;
                return 1;
        }
        *r = v;
        return 1;
}

static status_t wr(uint32_t msr, uint64_t v)
{
        int h = core_wr(msr, v);

        if (!h && !amd()) {
                if (msr == VP_IA32_PERF_CAPABILITIES)
                        h = vp.p->pdcm ? -1 : 0;
                else if (vp.p->version >= 2 && msr == VP_IA32_PERF_GLOBAL_OVF_CTRL) {
                        vp.gstatus &= ~v;
                        if (v & VP_STATUS_LBR_FRZ)
                                vp.lbr_frozen = false;
                        h = 1;
                } else if (vp.p->version >= 4 && msr == VP_IA32_PERF_GLOBAL_STATUS_SET) {
                        vp.gstatus |= v; /* [SDM-3B] "... Version 4": software sets bits */
                        h = 1;
                } else if (msr == VP_IA32_MISC_ENABLE) {
                        vp.misc_enable = v;
                        h = 1;
                } else if (msr == VP_IA32_DEBUGCTL) {
                        vp.debugctl = v;
                        if (vp.p->version < 4 && !vp.p->arch_lbr && (v & VP_DEBUGCTL_LBR))
                                vp.lbr_frozen = false;
                        h = 1;
                } else if (!(h = vp_pebs_wr(msr, v))) {
                        h = vp_lbr_wr(msr, v);
                }
        } else if (!h) {
                if (has_global() && msr == VP_AMD_GLOBAL_STATUS_CLR) {
                        vp.gstatus &= ~v;
                        h = 1;
                } else {
                        h = vp_ibs_wr(msr, v);
                }
        }
        if (!h)
                for (unsigned i = 0; i < vp.n_poke; i++)
                        if (vp.poke[i].msr == msr) {
                                vp.poke[i].val = v;
                                h = 1;
                        }
        if (h <= 0)
                return fault();
        vp.stats.n_writes++;
        if (vp.n_log < VP_LOG_MAX) {
                vp.log[vp.n_log].msr = msr;
                vp.log[vp.n_log++].val = v;
        }
        return ST_OK;
}

/* ---- pmu/msr.h on the model ---------------------------------------------------------------- */

status_t rdmsr_safe(uint32_t msr, uint64_t *out)
{
        uint64_t *r;

        *out = 0;
        if (!vp.p)
                return fault();
        accrue(&harness_step);
        if ((r = core_reg(msr))) {
                *out = *r;
                return ST_OK;
        }
        return other_rd(msr, out) ? ST_OK : fault();
}

status_t wrmsr_safe(uint32_t msr, uint64_t val)
{
        if (!vp.p)
                return fault();
        accrue(&harness_step);
        return wr(msr, val);
}

status_t rdpmc_safe(uint32_t ecx, uint64_t *out)
{
        *out = 0;
        if (!vp.p)
                return fault();
        accrue(&harness_step);
        if (!amd() && (ecx & (1u << 30))) { /* [SDM-2B] RDPMC: ECX[30] fixed */
                unsigned j = ecx & ~(1u << 30);
                if (vp.p->version < 2 || j >= vp.p->n_fixed)
                        return fault();
                *out = vp.fctr[j];
                return ST_OK;
        }
        if (ecx >= n_gp())
                return fault();
        *out = vp.ctr[ecx];
        return ST_OK;
}

unsigned msr_last_fault_vector(void)
{
        return vp.last_vector;
}

/* ---- public: set-up and inspection --------------------------------------------------------- */

void vpmu_set_faults(const struct vpmu_faults *f)
{
        memset(&vp.f, 0, sizeof(vp.f));
        if (f)
                vp.f = *f;
}

void vpmu_init(const struct vpmu_part *p, const struct vpmu_faults *f)
{
        memset(&vp, 0, sizeof(vp));
        vp.p = p;
        vp.rng = 0x9e3779b97f4a7c15ull;
        vp.skid_max = 16;
        vpmu_set_faults(f);
        vp.lvt_pmc = VP_APIC_LVT_MASKED;
        for (unsigned i = 0; i < 4; i++)
                vp.eilvt[i] = VP_APIC_LVT_MASKED;
        vp.tsc_last = tsc();
        if (!p)
                return;
        /* IA32_PERF_GLOBAL_CTRL comes out of reset with every GP enable set, so that v1
         * software (EN alone) keeps working [SDM-3B] "Architectural Performance Monitoring
         * Version 2"; PerfCntrGlobalCtl likewise [APM-2] "Performance Monitoring Version 2". */
        if (has_global())
                vp.gctl = vp_width_mask(n_gp());
        if (!amd()) {
                vp.misc_enable = VP_MISC_PERFMON |
                                 (p->ds ? 0 : VP_MISC_BTS_UNAVAIL | VP_MISC_PEBS_UNAVAIL);
                if (p->ds && VP_CAP_PEBS_FMT(p->perf_caps) == 0 && p->version < 2)
                        vp.misc_enable |= VP_MISC_PEBS_UNAVAIL;
                vp.lbr_depth = p->arch_lbr ? 0 : p->lbr_depth;
        }
        vp.ibs_ctl = p->ibs_caps ? VP_IBSCTL_LVT_VALID | 1 : 0; /* firmware picked offset 1 */
}

const struct vpmu_part *vpmu_part(void)
{
        return vp.p;
}

uint64_t vpmu_peek(uint32_t msr)
{
        uint64_t *r, v = 0;

        if (!vp.p)
                return 0;
        if ((r = core_reg(msr)))
                return *r;
        return other_rd(msr, &v) ? v : 0;
}

void vpmu_poke(uint32_t msr, uint64_t val)
{
        for (unsigned i = 0; i < vp.n_poke; i++)
                if (vp.poke[i].msr == msr) {
                        vp.poke[i].val = val;
                        return;
                }
        if (vp.n_poke < VP_MAX_POKE) {
                vp.poke[vp.n_poke].msr = msr;
                vp.poke[vp.n_poke++].val = val;
        }
}

const struct vpmu_stats *vpmu_stats(void)
{
        return &vp.stats;
}

bool vpmu_write_at(size_t i, uint32_t *msr, uint64_t *val)
{
        if (i >= vp.n_log)
                return false;
        *msr = vp.log[i].msr;
        *val = vp.log[i].val;
        return true;
}

void vpmu_clear_log(void)
{
        vp.n_log = 0;
}
