/** @file
 * The virtual PMU's AMD Instruction-Based Sampling: IbsOpCtl counting ops or cycles up to
 * MaxCnt with CurCnt's random low bits, the tagged op's registers (OpRip, OpData 1-3,
 * DcLinAd/DcPhysAd, BrTarget) filled from the workload's op, the L3MissOnly and load-latency
 * filters (Zen 5 erratum 1606: without L3MissOnly the latency filter lets unwanted samples
 * through), IbsFetchCtl with its Cnt, and the interrupt through the extended LVT entry IBS_CTL
 * names. [APM-2] "Instruction-Based Sampling"; [PPR-19h]/[PPR-1Ah] MSRC001_1030..103D; AMD
 * Family 1Ah Models 00h-0Fh revision guide, erratum 1606; Linux arch/x86/events/amd/ibs.c.
 */
#include "tests/vpmu/vpmu_priv.h"

#define CAP_BRNTRGT   (1u << 5)
#define CAP_OPCNTEXT  (1u << 6)
#define CAP_FETCHEXTD (1u << 9)
#define CAP_OPDATA4   (1u << 10)
#define CAP_ZEN4      (1u << 11)

static bool has(uint32_t cap)
{
        return (vp.p->ibs_caps & cap) != 0;
}

/* @p n events as a counter off by @p ppm counts them (the fraction carried in @p frac). */
static uint64_t skewed(uint64_t n, int32_t ppm, uint64_t *frac)
{
        if (!ppm)
                return n;
        uint64_t num = n * (uint64_t)(1000000 + (int64_t)ppm) + *frac;

        *frac = num % 1000000;
        return num / 1000000;
}

/* Ops the op counter can take while it counts at most @p room (its count fault and carry
 * included). */
static uint64_t ops_for(uint64_t room)
{
        int64_t ppm = 1000000 + (int64_t)vp.f.ibs_op_count_ppm;

        if (!vp.f.ibs_op_count_ppm || !(vp.ibs_op_ctl & VP_OPCTL_CNT_CTL))
                return room;
        if (ppm <= 0)
                return UINT64_MAX;
        /* the largest k with (k x ppm + frac) / 10^6 <= room */
        return (uint64_t)(((__uint128_t)(room + 1) * 1000000 - vp.ibs_op_frac - 1) /
                          (uint64_t)ppm);
}

static uint64_t op_period(void)
{
        uint64_t max = vp.ibs_op_ctl & VP_OPCTL_MAXCNT;

        if (has(CAP_OPCNTEXT))
                max |= ((vp.ibs_op_ctl >> VP_OPCTL_MAXCNT_EXT_SHIFT) & 0x7f) << 16;
        return max << 4;
}

bool vp_ibs_rd(uint32_t msr, uint64_t *v)
{
        if (!vp.p->ibs_caps)
                return false;
        switch (msr) {
        case VP_IBS_FETCH_CTL:
                *v = (vp.ibs_fetch_ctl & ~(0xffffull << VP_FETCH_CNT_SHIFT)) |
                     ((vp.ibs_fetch_cnt >> 4) & 0xffff) << VP_FETCH_CNT_SHIFT;
                return true;
        case VP_IBS_FETCH_LINAD: *v = vp.ibs_fetch_linad; return true;
        case VP_IBS_FETCH_PHYSAD: *v = vp.ibs_fetch_physad; return true;
        case VP_IBS_OP_CTL:
                *v = (vp.ibs_op_ctl & ~(0x7ffffffull << VP_OPCTL_CURCNT_SHIFT)) |
                     (vp.ibs_op_cnt & 0x7ffffff) << VP_OPCTL_CURCNT_SHIFT;
                return true;
        case VP_IBS_OP_RIP: *v = vp.ibs_op_rip; return true;
        case VP_IBS_OP_DATA: *v = vp.ibs_op_data; return true;
        case VP_IBS_OP_DATA2: *v = vp.ibs_op_data2; return true;
        case VP_IBS_OP_DATA3: *v = vp.ibs_op_data3; return true;
        case VP_IBS_DC_LINAD: *v = vp.ibs_dc_linad; return true;
        case VP_IBS_DC_PHYSAD: *v = vp.ibs_dc_physad; return true;
        case VP_IBS_CTL: *v = vp.ibs_ctl; return true;
        case VP_IBS_BR_TARGET:
                if (!has(CAP_BRNTRGT))
                        return false;
                *v = vp.ibs_br_target;
                return true;
        case VP_IBS_FETCH_EXTD:
                if (!has(CAP_FETCHEXTD))
                        return false;
                *v = vp.ibs_fetch_extd;
                return true;
        case VP_IBS_OP_DATA4:
                if (!has(CAP_OPDATA4))
                        return false;
                *v = vp.ibs_op_data4;
                return true;
        }
        return false;
}

int vp_ibs_wr(uint32_t msr, uint64_t v)
{
        uint64_t d;

        if (!vp.p->ibs_caps || !vp_ibs_rd(msr, &d))
                return 0;
        switch (msr) {
        case VP_IBS_OP_CTL:
                vp.ibs_op_ctl = v & ~(0x7ffffffull << VP_OPCTL_CURCNT_SHIFT);
                /* CurCnt as written: the random bits the hardware preloads at a roll-over
                 * are in CurCnt[6:0] when the handler reads the control, and the handler
                 * writes them back (Linux ibs.c perf_ibs_handle_irq, IBS_OP_CUR_CNT_RAND). */
                vp.ibs_op_cnt = (v >> VP_OPCTL_CURCNT_SHIFT) & 0x7ffffff;
                vp.ibs_op_tag = false;
                return 1;
        case VP_IBS_FETCH_CTL:
                vp.ibs_fetch_ctl = v;
                vp.ibs_fetch_cnt = ((v >> VP_FETCH_CNT_SHIFT) & 0xffff) << 4;
                if (v & VP_FETCH_RAND_EN)
                        vp.ibs_fetch_cnt |= vp_rand() & 0xf;
                return 1;
        case VP_IBS_CTL:
                return -1; /* written by firmware through PCI config / read only here */
        default:
                /* the sample registers are writable ([PPR-19h]) */
                switch (msr) {
                case VP_IBS_FETCH_LINAD: vp.ibs_fetch_linad = v; break;
                case VP_IBS_FETCH_PHYSAD: vp.ibs_fetch_physad = v; break;
                case VP_IBS_OP_RIP: vp.ibs_op_rip = v; break;
                case VP_IBS_OP_DATA: vp.ibs_op_data = v; break;
                case VP_IBS_OP_DATA2: vp.ibs_op_data2 = v; break;
                case VP_IBS_OP_DATA3: vp.ibs_op_data3 = v; break;
                case VP_IBS_DC_LINAD: vp.ibs_dc_linad = v; break;
                case VP_IBS_DC_PHYSAD: vp.ibs_dc_physad = v; break;
                case VP_IBS_BR_TARGET: vp.ibs_br_target = v; break;
                case VP_IBS_FETCH_EXTD: vp.ibs_fetch_extd = v; break;
                case VP_IBS_OP_DATA4: vp.ibs_op_data4 = v; break;
                }
                return 1;
        }
}

bool vp_ibs_op_on(void)
{
        return vp.p && vp.p->ibs_caps && (vp.ibs_op_ctl & VP_OPCTL_EN) &&
               !(vp.ibs_op_ctl & VP_OPCTL_VAL);
}

static unsigned lvt_offset(void)
{
        return (unsigned)(vp.ibs_ctl & VP_IBSCTL_LVT_OFFSET);
}

/* Fam 1Ah models 00h-0Fh: erratum 1606, the load-latency filter only works together with
 * L3MissOnly. */
static bool erratum_1606(void)
{
        return vp.p->family == 0x1a && vp.p->model <= 0x0f;
}

static bool fault_here(const struct vpmu_op *op)
{
        return !vp.f.ibs_fault_level || vp.f.ibs_fault_level == (unsigned)op->level + 1;
}

static uint64_t data_src(const struct vpmu_op *op)
{
        bool     zen4 = has(CAP_ZEN4);
        unsigned src;

        if (op->level <= VL_L2)
                return 0;
        if (op->level == VL_L3 || (vp.f.ibs_wrong_src && fault_here(op)))
                src = zen4 ? VP_SRC4_LOC_CACHE : VP_SRC_LOC_CACHE;
        else
                src = zen4 ? VP_SRC4_DRAM : VP_SRC_DRAM;
        return (src & VP_OPDATA2_SRC_LO) | ((uint64_t)(src >> 3) << VP_OPDATA2_SRC_HI_SHIFT);
}

/* The tagged op completes: fill the registers, apply the filters, interrupt. */
static void tag(const struct vpmu_op *op, const struct vpmu_step *s)
{
        uint64_t lat = vp_load_latency(op), d3;
        bool     l3miss = op->load && op->level == VL_DRAM;

        vp.ibs_op_tag = false;
        if ((vp.ibs_op_ctl & VP_OPCTL_L3MISSONLY) && !l3miss)
                goto drop;
        if ((vp.ibs_op_ctl & VP_OPCTL_LDLAT_EN) &&
            ((vp.ibs_op_ctl & VP_OPCTL_L3MISSONLY) || !erratum_1606())) {
                uint64_t thr = (((vp.ibs_op_ctl >> VP_OPCTL_LDLAT_SHIFT) & 0xf) + 1) * 128;
                if (!op->load || lat < thr)
                        goto drop;
        }
        if (vp.f.ibs_lat_scale_pct && fault_here(op))
                lat = lat * vp.f.ibs_lat_scale_pct / 100;
        vp.ibs_op_rip = op->rip;
        vp.ibs_op_data = (uint64_t)(lat + 2) << VP_OPDATA_TAG_TO_RET_SHIFT | 1;
        vp.ibs_op_data2 = op->load ? data_src(op) : 0;
        d3 = 0;
        if (op->load) {
                d3 = VP_OPDATA3_LD | (3ull << VP_OPDATA3_WIDTH_SHIFT) | VP_OPDATA3_LIN_VALID |
                     VP_OPDATA3_PHY_VALID;
                if (op->level > VL_L1)
                        d3 |= VP_OPDATA3_DC_MISS | lat << VP_OPDATA3_MISS_LAT_SHIFT;
                if (op->level > VL_L2)
                        d3 |= VP_OPDATA3_L2_MISS;
                bool tlb_miss = op->dtlb_miss;
                if (vp.f.tlb_flip_every && ++vp.n_tlb_loads % vp.f.tlb_flip_every == 0)
                        tlb_miss = !tlb_miss;
                if (tlb_miss)
                        d3 |= VP_OPDATA3_L1TLB_MISS | VP_OPDATA3_L2TLB_MISS;
                else if (op->page_2m)
                        d3 |= VP_OPDATA3_L1TLB_HIT_2M;
                vp.ibs_dc_linad = op->la;
                vp.ibs_dc_physad = op->la ^ (fault_here(op) ? vp.f.ibs_phys_xor : 0); /* identity */
                vp.n_ibs_loads++;
                if (vp.f.ibs_no_data_every && vp.n_ibs_loads % vp.f.ibs_no_data_every == 0)
                        d3 &= ~(VP_OPDATA3_LD | VP_OPDATA3_LIN_VALID);
                if (vp.f.ibs_no_la_every && vp.n_ibs_loads % vp.f.ibs_no_la_every == 0)
                        d3 &= ~VP_OPDATA3_LIN_VALID;
        }
        if (vp.f.ibs_op_stray_every && (vp.stats.n_ibs_op + 1) % vp.f.ibs_op_stray_every == 0) {
                vp.ibs_op_rip = s->rip_lo - 0x40;
                vp.ibs_dc_linad = vp.ibs_dc_physad = 0x1000;
        }
        vp.ibs_op_data3 = d3;
        /* At the roll-over the hardware preloads CurCnt[6:0] with random bits, 0 .. 127, so
         * that the next period is perturbed: [PPR-17h-31h] IbsOpCurCnt, Linux commit
         * "perf/x86/amd/ibs: Fix sample bias for dispatched micro-ops". */
        vp.ibs_op_cnt = (vp.ibs_op_cnt & ~0x7full) | (vp_rand() & 0x7f);
        vp.ibs_op_ctl |= VP_OPCTL_VAL;
        vp.stats.n_ibs_op++;
        vp_pmi(op->rip, (int)lvt_offset());
        return;
drop:
        /* filtered out: the hardware restarts with random low bits [Linux ibs.c] */
        vp.ibs_op_cnt = vp_rand() & 0x7f;
}

void vp_ibs_op_count(uint64_t n, const struct vpmu_op *op, const struct vpmu_step *s)
{
        uint64_t period = op_period();

        if (!vp_ibs_op_on() || !period)
                return;
        if (vp.ibs_op_tag) {
                if (op)
                        tag(op, s);
                return;
        }
        if (vp.ibs_op_ctl & VP_OPCTL_CNT_CTL)
                n = skewed(n, vp.f.ibs_op_count_ppm, &vp.ibs_op_frac);
        vp.ibs_op_cnt += n;
        if (vp.ibs_op_cnt < period)
                return;
        vp.ibs_op_cnt = period;
        vp.ibs_op_tag = true;  /* the next op to retire is the sampled one */
}

uint64_t vp_ibs_op_room(void)
{
        uint64_t period = op_period();

        if (!vp_ibs_op_on() || !period || (!(vp.ibs_op_ctl & VP_OPCTL_CNT_CTL) && !vp.ibs_op_tag))
                return UINT64_MAX;
        if (vp.ibs_op_tag)
                return 0;
        return ops_for(vp.ibs_op_cnt + 1 < period ? period - vp.ibs_op_cnt - 1 : 0);
}

/* Length of the branch instruction at @p from: Jcc rel8 / JMP rel8 (2 bytes), JMP rel32 (5),
 * Jcc rel32 (0F 8x, 6); anything else is taken as the short form. [SDM-2] Jcc, JMP. */
static uint64_t branch_bytes(uint64_t from)
{
        const uint8_t *b = (const uint8_t *)(uintptr_t)from;

        if (b[0] == 0x0f && (b[1] & 0xf0) == 0x80)
                return 6;
        return b[0] == 0xe9 ? 5 : 2;
}

uint64_t vp_fetches(const struct vpmu_step *s)
{
        uint64_t blk = vp.p && vp.p->fetch_block_bytes ? vp.p->fetch_block_bytes : 32;

        /* A loop whose taken branch the step names: each pass fetches the aligned blocks
         * from the branch target to the branch's last byte, fetch stops at the taken
         * branch and restarts at the target ([SOG-17h] "Branch Prediction"). */
        if (s->br && s->br->to <= s->br->from) {
                uint64_t last = s->br->from + branch_bytes(s->br->from) - 1;

                return s->n[VE_BRANCHES] * (last / blk - s->br->to / blk + 1);
        }
        /* Straight-line code: its instructions' bytes, taken as 4 each. */
        return s->n[VE_INSNS] * 4 / blk;
}

void vp_ibs_fetch_count(uint64_t n, const struct vpmu_step *s)
{
        uint64_t max;

        n = skewed(n, vp.f.ibs_fetch_count_ppm, &vp.ibs_fetch_frac);
        /* The handler re-arms inside the step (the PMI is taken at the sampled fetch), so the
         * step's later fetches count into the next period. */
        while (n && vp.p && vp.p->ibs_caps && (vp.ibs_fetch_ctl & VP_FETCH_EN) &&
               !(vp.ibs_fetch_ctl & VP_FETCH_VAL) && s->rip_hi &&
               (max = (vp.ibs_fetch_ctl & VP_FETCH_MAXCNT) << 4) != 0) {
                uint64_t room = vp.ibs_fetch_cnt < max ? max - vp.ibs_fetch_cnt : 0;

                if (n < room) {
                        vp.ibs_fetch_cnt += n;
                        return;
                }
                n -= room;
                vp.ibs_fetch_cnt = max;
                vp.ibs_fetch_linad = s->rip_lo + vp_rand() % (s->rip_hi - s->rip_lo);
                vp.n_ibs_fetches++;
                if (vp.f.ibs_fetch_stray_every &&
                    vp.n_ibs_fetches % vp.f.ibs_fetch_stray_every == 0)
                        vp.ibs_fetch_linad = vp.f.ibs_fetch_stray_at
                                                     ? vp.f.ibs_fetch_stray_at
                                                     : s->rip_hi + vp_rand() % 64;
                if (vp.f.ibs_fetch_zero_every &&
                    vp.n_ibs_fetches % vp.f.ibs_fetch_zero_every == 0)
                        vp.ibs_fetch_linad = 0;
                vp.ibs_fetch_physad = vp.ibs_fetch_linad;
                vp.ibs_fetch_ctl |= VP_FETCH_VAL | VP_FETCH_COMP | VP_FETCH_PHY_VALID |
                                    (3ull << VP_FETCH_LAT_SHIFT);
                vp.stats.n_ibs_fetch++;
                vp_pmi(vp.ibs_fetch_linad, (int)lvt_offset());
        }
}
