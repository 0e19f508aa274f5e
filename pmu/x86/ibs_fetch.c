/** @file IBS fetch sampling: IbsFetchCtl, the session's fetch side and the fetch decoder (see
 *  ibs_fetch.h). [APM-2] "Instruction-Based Sampling"; Linux arch/x86/events/amd/ibs.c for the
 *  re-arm and disable rules. */
#include "pmu/x86/ibs_fetch.h"

#include "pmu/x86/quirks.h"

static bool has(const struct pmu_ibs_info *ibs, uint64_t cap)
{
        return (ibs->caps & cap) != 0;
}

static bool bit(uint64_t v, uint64_t mask)
{
        return (v & mask) != 0;
}

static uint64_t field(uint64_t v, uint64_t mask, unsigned shift)
{
        return (v & mask) >> shift;
}

/* ---- the control register --------------------------------------------------------------- */

status_t pmu_ibs_fetch_ctl_encode(const struct pmu_ibs_info *ibs, uint64_t period,
                                  bool randomize, bool l3_miss_only, uint64_t *out)
{
        if (!ibs || !out)
                return ST_BAD_ARG;
        *out = 0;
        if (!ibs->present || !has(ibs, IBS_CAPS_FETCHSAM))
                return ST_UNSUPPORTED;
        if (l3_miss_only && !has(ibs, IBS_CAPS_ZEN4))
                return ST_UNSUPPORTED;
        if ((period & 0xf) || period < 16 || (period >> 4) > IBSFETCHCTL_MAXCNT)
                return ST_BAD_ARG;
        *out = (period >> 4) | IBSFETCHCTL_EN | (randomize ? IBSFETCHCTL_RAND_EN : 0) |
               (l3_miss_only ? IBSFETCHCTL_L3_MISS_ONLY : 0);
        return ST_OK;
}

uint64_t pmu_ibs_fetch_ctl_period(uint64_t fetch_ctl)
{
        return (fetch_ctl & IBSFETCHCTL_MAXCNT) << 4;
}

uint64_t pmu_ibs_fetch_mean_period_x2(uint64_t fetch_ctl)
{
        uint64_t p2 = 2 * pmu_ibs_fetch_ctl_period(fetch_ctl);

        return (fetch_ctl & IBSFETCHCTL_RAND_EN) && p2 > 15 ? p2 - 15 : p2;
}

unsigned pmu_ibs_fetch_disable_seq(const struct pmu_ibs_info *ibs, uint64_t fetch_ctl,
                                   uint64_t out[2])
{
        uint64_t ctl = fetch_ctl & ~IBSFETCHCTL_MAXCNT;
        unsigned n = 0;

        if (ibs && (ibs->quirks & PMU_IBS_Q_FAM10H_DISABLE_SEQ))
                out[n++] = ctl;
        out[n++] = ctl & ~IBSFETCHCTL_EN;
        return n;
}

/* ---- the session's fetch side ----------------------------------------------------------- */

status_t pmu_ibs_fetch_arm(struct pmu_ibs_session *s, uint64_t fetch_ctl)
{
        status_t st;

        if (!s || !fetch_ctl)
                return ST_BAD_ARG;
        /* a new run: no sample taken, nothing counted */
        s->n_op = s->n_fetch = 0;
        s->op_tail = s->op_carried = 0;
        s->n_pmi = s->n_spurious = s->n_dropped = s->n_errors = 0;
        s->fetch_ctl = fetch_ctl & ~(IBSFETCHCTL_VAL | IBSFETCHCTL_CNT);
        if ((st = wrmsr_safe(MSR_AMD64_IBSFETCHCTL, s->fetch_ctl)) != ST_OK)
                pmu_ibs_fetch_disarm(s);
        return st;
}

/* Fetch side. Re-arming writes the armed value (Val and Cnt clear); where the fetch counter
 * does not reset on a write, En is toggled first (Linux ibs.c fetch_count_reset_broken). */
bool pmu_ibs_fetch_take(struct pmu_ibs_session *s)
{
        struct pmu_ibs_fetch_regs r = { 0 };

        pmu_ibs_rd(s, MSR_AMD64_IBSFETCHCTL, &r.fetch_ctl);
        if (!(r.fetch_ctl & IBSFETCHCTL_VAL))
                return false;
        pmu_ibs_rd(s, MSR_AMD64_IBSFETCHLINAD, &r.fetch_linad);
        pmu_ibs_rd(s, MSR_AMD64_IBSFETCHPHYSAD, &r.fetch_physad);
        if (has(&s->info, IBS_CAPS_FETCHCTLEXTD))
                pmu_ibs_rd(s, MSR_AMD64_ICIBSEXTDCTL, &r.fetch_ctl_extd);
        if (s->fetches && s->n_fetch < s->fetch_cap)
                s->fetches[s->n_fetch++] = r;
        else
                s->n_dropped++;
        if (s->info.quirks & PMU_IBS_Q_FETCH_CNT_RESET)
                pmu_ibs_wr(s, MSR_AMD64_IBSFETCHCTL, s->fetch_ctl & ~IBSFETCHCTL_EN);
        pmu_ibs_wr(s, MSR_AMD64_IBSFETCHCTL, s->fetch_ctl);
        return true;
}

status_t pmu_ibs_fetch_disarm(struct pmu_ibs_session *s)
{
        uint64_t seq[2], cur = 0;
        status_t first = ST_OK, st;
        unsigned n;

        if (!s)
                return ST_BAD_ARG;
        if (!s->fetch_ctl)
                return ST_OK;
        if (rdmsr_safe(MSR_AMD64_IBSFETCHCTL, &cur) != ST_OK)
                cur = s->fetch_ctl;
        n = pmu_ibs_fetch_disable_seq(&s->info, cur, seq);
        for (unsigned i = 0; i < n; i++)
                if ((st = wrmsr_safe(MSR_AMD64_IBSFETCHCTL, seq[i])) != ST_OK && !first)
                        first = st;
        s->fetch_ctl = 0;
        return first;
}

/* ---- the decoder ------------------------------------------------------------------------ */

status_t pmu_ibs_fetch_decode(const struct pmu_ibs_info *ibs,
                              const struct pmu_ibs_fetch_regs *r, struct pmu_ibs_fetch *out)
{
        static const uint32_t pgsz_kib[4] = { 4, 2048, 1048576, 0 };
        static const uint32_t pgsz_kib_1347[4] = { 4, 16, 2048, 1048576 };
        uint64_t c;
        unsigned pg;

        if (!ibs || !r || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        c = r->fetch_ctl;
        out->valid = bit(c, IBSFETCHCTL_VAL);
        out->complete = bit(c, IBSFETCHCTL_COMP);
        out->max_cnt = (uint16_t)(c & IBSFETCHCTL_MAXCNT);
        out->cnt = (uint16_t)field(c, IBSFETCHCTL_CNT, IBSFETCHCTL_CNT_SHIFT);
        out->lat_cycles = (uint16_t)field(c, IBSFETCHCTL_LAT, IBSFETCHCTL_LAT_SHIFT);
        out->ic_miss_known = !(ibs->quirks & PMU_IBS_Q_IGNORE_IC_MISS);
        out->ic_miss = out->ic_miss_known && bit(c, IBSFETCHCTL_IC_MISS);
        out->phy_addr_valid = bit(c, IBSFETCHCTL_PHY_ADDR_VALID);
        out->linad = r->fetch_linad;
        out->physad = out->phy_addr_valid ? r->fetch_physad : 0;
        pg = (unsigned)field(c, IBSFETCHCTL_L1TLB_PGSZ, IBSFETCHCTL_L1TLB_PGSZ_SHIFT);
        if (out->phy_addr_valid)
                out->l1tlb_page_kib = (ibs->quirks & PMU_IBS_Q_FETCH_PGSZ_1347) ?
                                      pgsz_kib_1347[pg] : pgsz_kib[pg];
        out->l1tlb_miss = bit(c, IBSFETCHCTL_L1TLB_MISS);
        out->l2tlb_miss = bit(c, IBSFETCHCTL_L2TLB_MISS);
        out->rand_en = bit(c, IBSFETCHCTL_RAND_EN);
        out->l2_miss = !(ibs->quirks & PMU_IBS_Q_NB_LAYOUT) && bit(c, IBSFETCHCTL_L2_MISS);
        if (has(ibs, IBS_CAPS_ZEN4)) {
                out->l3_miss_only = bit(c, IBSFETCHCTL_L3_MISS_ONLY);
                out->oc_miss = bit(c, IBSFETCHCTL_OC_MISS);
                out->l3_miss = bit(c, IBSFETCHCTL_L3_MISS);
        }
        out->itlb_refill_lat_known = has(ibs, IBS_CAPS_FETCHCTLEXTD);
        if (out->itlb_refill_lat_known)
                out->itlb_refill_lat_cycles = (uint16_t)(r->fetch_ctl_extd &
                                                         ICIBSEXTDCTL_ITLB_REFILL_LAT);
        out->drop = (ibs->quirks & PMU_IBS_Q_FETCH_ZERO_RIP_1197) && r->fetch_linad == 0;
        return ST_OK;
}
