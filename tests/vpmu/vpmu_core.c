/** @file
 * The virtual PMU's core: Intel architectural perfmon v1-v5 and AMD legacy/extended/PerfMonV2
 * counting, overflow, and set-up/inspection. The MSR space is in vpmu_msr.c, the PMI in
 * vpmu_pmi.c, a step's ops in runs in vpmu_runs.c. See vpmu.h.
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

bool vp_amd(void)
{
        return vp.p && vp.p->amd;
}

unsigned vp_n_gp(void)
{
        if (!vp.p)
                return 0;
        if (!vp_amd())
                return vp.p->n_gp;
        if (vp.p->perfmon_v2 && vp.p->amd_n_core)
                return vp.p->amd_n_core;
        return vp.p->ext_core ? 6 : 4;
}

static unsigned gp_width(void)
{
        return vp_amd() ? 48 : vp.p->gp_width; /* [APM-2]: 48-bit counters */
}

bool vp_has_global(void)
{
        return vp_amd() ? vp.p->ext_core && vp.p->perfmon_v2 : vp.p->version >= 2;
}

/* ---- counting ----------------------------------------------------------------------------- */

static enum vpmu_ev gp_event(unsigned n, bool *ok)
{
        uint64_t sel = vp.sel[n];
        uint16_t code = (uint16_t)(sel & 0xff);
        uint8_t  umask = (uint8_t)(sel >> 8);

        *ok = false;
        if (vp_amd())
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
        if (vp_has_global() && !(vp.gctl & (1ull << n)))
                return false;
        if (vp_amd())
                return (sel & VP_EVTSEL_OS) || !(sel & VP_EVTSEL_USR);
        return (sel & VP_EVTSEL_OS) != 0;
}

static bool fixed_counts(unsigned j)
{
        if (vp_amd() || vp.p->version < 2 || j >= vp.p->n_fixed || (vp.gstatus & VP_STATUS_CTR_FRZ))
                return false;
        return ((vp.fctl >> (4 * j)) & VP_FIXED_OS) && (vp.gctl & (1ull << (32 + j)));
}

static const enum vpmu_ev fixed_ev[VP_MAX_FIXED] = { VE_INSNS, VE_CYCLES, VE_REF_CYCLES,
                                                     VE__COUNT };

/* What each counter counts (VE__COUNT: nothing), a function of the part, the event selects,
 * the fixed and global controls and the freeze bit only; it is derived again when one of
 * those differs from the copy it was derived from. */
static struct {
        bool                    valid;
        const struct vpmu_part *p;
        uint64_t                sel[VP_MAX_GP], fctl, gctl, frz;
        uint8_t                 ev[VP_N_CTR];
} act;

const uint8_t *vp_active_events(void)
{
        uint64_t frz = vp.gstatus & VP_STATUS_CTR_FRZ;

        if (act.valid && act.p == vp.p && act.fctl == vp.fctl && act.gctl == vp.gctl && act.frz == frz &&
            !memcmp(act.sel, vp.sel, sizeof(act.sel)))
                return act.ev;
        act.valid = true;
        act.p = vp.p;
        act.fctl = vp.fctl;
        act.gctl = vp.gctl;
        act.frz = frz;
        memcpy(act.sel, vp.sel, sizeof(act.sel));
        for (unsigned c = 0; c < VP_N_CTR; c++) {
                bool         fx = c >= VP_MAX_GP, ok = true;
                unsigned     i = fx ? c - VP_MAX_GP : c;
                enum vpmu_ev ev = VE__COUNT;

                if (fx ? fixed_counts(i) : i < vp_n_gp() && gp_counts(i))
                        ev = fx ? fixed_ev[i] : gp_event(i, &ok);
                act.ev[c] = (uint8_t)(ok ? ev : VE__COUNT);
        }
        return act.ev;
}

bool vp_ctr_dead(unsigned c)
{
        return c >= VP_MAX_GP ? (vp.f.dead_fixed >> (c - VP_MAX_GP)) & 1 : (vp.f.dead_gp >> c) & 1;
}

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
        if (!vp_amd() && (vp.pebs_enable & (1ull << n))) {
                vp_pebs_overflow(n); /* a PEBS counter arms a record instead [SDM-3B] */
                if (!(vp.sel[n] & VP_EVTSEL_INT))
                        return;
        }
        if (vp_has_global())
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

uint64_t vp_ctr_room(unsigned c)
{
        return c >= VP_MAX_GP ? room(vp.fctr[c - VP_MAX_GP], vp.p->fixed_width)
                              : room(vp.ctr[c], gp_width());
}

void vp_ctr_add(unsigned c, enum vpmu_ev ev, uint64_t n)
{
        unsigned i = c >= VP_MAX_GP ? c - VP_MAX_GP : c;

        if (c >= VP_MAX_GP)
                add_fixed(i, faulty(ev, n, &vp.ffrac[i]));
        else
                add_gp(i, faulty(ev, n, &vp.frac[i]));
}

/* Retire @p cnt, splitting at each counter wrap so that every overflow is delivered at the
 * point it happens. An overflow runs the PMI handler, which may reprogram the counters: what
 * the later ones count is looked up again after it. */
static void retire_counts(uint64_t cnt[VE__COUNT], const struct vpmu_step *s)
{
        for (;;) {
                /* the counter that wraps first, as a fraction of its kind's remaining count */
                const uint8_t *act_ev = vp_active_events();
                int            best = -1;
                uint64_t       best_room = 0, best_left = 1;

                for (unsigned c = 0; c < VP_N_CTR; c++) {
                        bool         fx = c >= VP_MAX_GP;
                        unsigned     i = fx ? c - VP_MAX_GP : c;
                        enum vpmu_ev ev = act_ev[c];
                        uint64_t     r, left;

                        if (ev >= VE__COUNT || !cnt[ev] || vp_ctr_dead(c))
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
                for (unsigned c = 0; c < VP_N_CTR; c++) {
                        bool         fx = c >= VP_MAX_GP;
                        unsigned     i = fx ? c - VP_MAX_GP : c;
                        enum vpmu_ev ev = act_ev[c];

                        /* (the first to wrap does, even when the count fault stretches one
                         * event over its room and its kind's share rounds down to none) */
                        if (ev >= VE__COUNT || (!part[ev] && (int)c != best) || vp_ctr_dead(c))
                                continue;
                        uint64_t k = (int)c == best ? best_room
                                                    : faulty(ev, part[ev], fx ? &vp.ffrac[i] : &vp.frac[i]);
                        bool wrap = fx ? add_fixed(i, k) : add_gp(i, k);

                        if (wrap) {
                                fx ? overflow_fixed(i, s) : overflow_gp(i, s);
                                act_ev = vp_active_events();
                        }
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

/* @p ticks of the core's time count as core cycles (VPMU_CORE_PER_TSC per TSC tick: the
 * host's own loops run faster than one iteration per TSC tick on turbo cores, which no
 * modelled core could) and as reference cycles (one per tick). */
static void count_time(uint64_t ticks, const struct vpmu_step *s)
{
        uint64_t cnt[VE__COUNT] = { 0 };

        cnt[VE_REF_CYCLES] = ticks;
        cnt[VE_CYCLES]     = ticks * VPMU_CORE_PER_TSC;
        retire_counts(cnt, s);
        if (vp_ibs_op_on() && !(vp.ibs_op_ctl & VP_OPCTL_CNT_CTL))
                vp_ibs_op_count(ticks * VPMU_CORE_PER_TSC, NULL, s);
}

/* The time since the model last ran counts as far as the test thread executed in it (see
 * vpmu_clock.c): a descheduled thread is measured and left out whatever its length, and a
 * long stretch of the program's own code counts whatever its length. */
void vp_accrue(const struct vpmu_step *s)
{
        if (!vp.p)
                return;
        /* The model's own work in the handler (tens of emulated MSR accesses) is not the
         * program's: its host time is not counted; what the handler costs a CPU is, by
         * vp_harness_cost at its entry, its MSR accesses and its exit. */
        if (vp.in_pmi) {
                vp_clock_skip();
                return;
        }
        uint64_t n = vp.stats.n_host_desched, ran = vp_clock_ran();

        if (s == &vp_harness_step) {
                vp.stats.n_host_desched_harness += vp.stats.n_host_desched != n;
                vp.stats.harness_ticks += ran;
                vp.stats.n_harness_slow += ran > vp_ticks_of_us(VPMU_HARNESS_SLOW_US);
        }
        count_time(ran, s);
}

/* The stall and descheduling faults, once each arming, where vp.f.stall_at says: the core
 * spins through its stall, and the span counts as any other, as execution; the host sleeps
 * through its descheduling, and the span counts as any other, as none, less the CPU time of
 * the sleep's system call (which a thread the host preempts does not spend). */
void vp_stall_point(enum vpmu_stall_at at, const struct vpmu_step *s)
{
        if (!vp.stall_armed || vp.f.stall_at != at || vp.in_pmi)
                return;
        vp.stall_armed = false;
        vp_accrue(s);
        if (vp.f.stall_us) {
                vp_spin_us(vp.f.stall_us);
                vp.stats.n_stalls++;
                count_time(vp_clock_ran(), s);
        }
        if (vp.f.desched_us) {
                uint64_t call = vp_sleep_us(vp.f.desched_us), ran = vp_clock_ran();

                call = call < ran ? call : ran;
                vp.tsc_adj -= (int64_t)call;
                count_time(ran - call, s);
        }
}

const struct vpmu_step vp_harness_step = { .rip_lo = 0x1000, .rip_hi = 0x1001 };

void vp_harness_cost(uint64_t insns, uint64_t branches, uint64_t cycles)
{
        uint64_t cnt[VE__COUNT] = { 0 };

        if (!vp.p)
                return;
        cnt[VE_INSNS] = insns;
        cnt[VE_OPS] = insns;
        cnt[VE_BRANCHES] = branches;
        cnt[VE_CYCLES] = cycles;
        cnt[VE_REF_CYCLES] = cycles / VPMU_CORE_PER_TSC;
        vp.tsc_adj += (int64_t)(cycles / VPMU_CORE_PER_TSC);
        retire_counts(cnt, &vp_harness_step);
        vp.stats.n_harness_cycles += cycles;
}

/* ---- per-op work -------------------------------------------------------------------------- */

uint16_t vp_load_latency(const struct vpmu_op *op)
{
        return op->load ? vp.p->lat[op->level] : 0;
}

/* The per-op events of @p op (the rest zero). */
void vp_op_counts(const struct vpmu_op *op, uint64_t cnt[VE__COUNT])
{
        memset(cnt, 0, VE__COUNT * sizeof(cnt[0]));
        cnt[VE_OPS] = 1;
        if (op->load) {
                cnt[VE_LOADS] = 1;
                cnt[VE_L1D_MISS] = op->level > VL_L1;
                cnt[VE_L2_MISS] = op->level > VL_L2;
                cnt[VE_LLC_MISS] = op->level > VL_L3;
                cnt[VE_DTLB_MISS] = op->dtlb_miss;
                cnt[VE_LDLAT] = vp.ldlat && vp_load_latency(op) > (vp.ldlat & 0xffff);
        }
}

void vp_retire_op(const struct vpmu_op *op, const struct vpmu_step *s)
{
        uint64_t cnt[VE__COUNT];
        const uint8_t *act_ev = vp_active_events();

        vp_op_counts(op, cnt);
        /* A PEBS record is written by the qualifying event after the overflow. */
        for (unsigned n = 0; n < vp_n_gp(); n++) {
                if ((vp.pebs_armed & (1u << n)) && act_ev[n] < VE__COUNT && cnt[act_ev[n]]) {
                        vp_pebs_event(n, op, s);
                        act_ev = vp_active_events();
                }
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
        const uint8_t *act_ev = vp_active_events();

        for (unsigned n = 0; n < VP_MAX_GP; n++)
                if (act_ev[n] == VE_LDLAT)
                        return true;
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
        vp_stall_point(VPMU_AT_KERNEL, s);
        if (s->own_clock) {
                vp_clock_skip();
                vp.tsc_adj += (int64_t)s->n[VE_REF_CYCLES];
        } else
                vp_accrue(s);
        memcpy(cnt, s->n, sizeof(cnt));
        if (s->op_at && vpmu_wants_ops()) {
                static const enum vpmu_ev per_op[] = { VE_OPS, VE_LOADS, VE_L1D_MISS, VE_L2_MISS,
                                                       VE_LLC_MISS, VE_DTLB_MISS, VE_LDLAT };
                for (size_t i = 0; i < sizeof(per_op) / sizeof(per_op[0]); i++)
                        cnt[per_op[i]] = 0;
                retire_counts(cnt, s);
                vp_retire_ops(s);
        } else {
                retire_counts(cnt, s);
                if (vp_ibs_op_on() && (vp.ibs_op_ctl & VP_OPCTL_CNT_CTL) && s->n[VE_OPS]) {
                        struct vpmu_op op = { .rip = s->rip_ev ? s->rip_ev : s->rip_lo };
                        vp_ibs_op_count(s->n[VE_OPS], &op, s);
                }
        }
        vp_ibs_fetch_count(vp_fetches(s), s);
        if (s->br && vp_lbr_recording())
                for (uint64_t i = 0; i < s->n[VE_BRANCHES]; i++)
                        vp_lbr_push(s->br);
}

/* ---- public: set-up and inspection --------------------------------------------------------- */

void vpmu_set_faults(const struct vpmu_faults *f)
{
        memset(&vp.f, 0, sizeof(vp.f));
        if (f)
                vp.f = *f;
        vp.stall_armed = vp.f.stall_us || vp.f.desched_us;
}

void vpmu_init(const struct vpmu_part *p, const struct vpmu_faults *f)
{
        memset(&vp, 0, sizeof(vp));
        vpmu_set_op_runs(true);
        vp.p = p;
        vp.rng = 0x9e3779b97f4a7c15ull;
        vp.skid_max = 16;
        vpmu_set_faults(f);
        vp.lvt_pmc = VP_APIC_LVT_MASKED;
        for (unsigned i = 0; i < 4; i++)
                vp.eilvt[i] = VP_APIC_LVT_MASKED;
        vp_clock_start();
        if (!p)
                return;
        /* IA32_PERF_GLOBAL_CTRL comes out of reset with every GP enable set, so that v1
         * software (EN alone) keeps working [SDM-3B] "Architectural Performance Monitoring
         * Version 2"; PerfCntrGlobalCtl likewise [APM-2] "Performance Monitoring Version 2". */
        if (vp_has_global())
                vp.gctl = vp_width_mask(vp_n_gp());
        if (!vp_amd()) {
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
