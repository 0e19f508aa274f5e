/** @file IBS op sampling: IbsOpCtl, the session's op side and the op decoder (see ibs_op.h).
 *  [APM-2] "Instruction-Based Sampling"; Linux arch/x86/events/amd/ibs.c for the re-arm and
 *  disable rules. */
#include "pmu/x86/ibs_op.h"

#include "pmu/x86/quirks.h"

/* ---- private helpers -------------------------------------------------------------------- */

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

static enum psample_pgsz dc_page_size(const struct pmu_ibs_op *op)
{
        if (!op->dc_l1tlb_miss)
                return op->dc_l1tlb_hit_1g ? PS_PG_1G : op->dc_l1tlb_hit_2m ? PS_PG_2M : PS_PG_4K;
        if (!op->dc_l2tlb_miss)
                return op->dc_l2tlb_hit_1g ? PS_PG_1G : op->dc_l2tlb_hit_2m ? PS_PG_2M : PS_PG_4K;
        return PS_PG_UNKNOWN;  /* page walk: the hit bits say nothing */
}

/* Fam10h-16h: NbIbsReqSrc is only set when the northbridge serviced the miss; source 0 on a
 * DC miss means the L2 (or, with IbsDcMabHit, an outstanding miss) supplied the line.
 * [BKDG-10h]; the local/remote split by NbIbsReqDstProc follows HPCToolkit's IBS metrics. */
static enum psample_level nb_level(const struct pmu_ibs_op *op, bool *remote)
{
        switch (op->data_src) {
        case 0:
                return op->dc_miss_no_mab_alloc ? PS_LVL_LFB : PS_LVL_L2;
        case IBS_NB_REQ_SRC_L3:
                *remote = op->rmt_node;
                return op->rmt_node ? PS_LVL_REMOTE_CACHE : PS_LVL_L3;
        case IBS_NB_REQ_SRC_CACHE:
                *remote = op->rmt_node;
                return op->rmt_node ? PS_LVL_REMOTE_CACHE : PS_LVL_L3;
        case IBS_NB_REQ_SRC_DRAM:
                *remote = op->rmt_node;
                return op->rmt_node ? PS_LVL_REMOTE_DRAM : PS_LVL_LOCAL_DRAM;
        case IBS_NB_REQ_SRC_OTHER:
                return PS_LVL_IO;
        default:
                return PS_LVL_UNKNOWN;
        }
}

/* Fam17h+ DataSrc, Linux ibs.c g_data_src[] / g_zen4_data_src[]. RmtNode applies to DRAM
 * (and, with Zen 4, PMEM and CXL memory). */
static enum psample_level zen_level(bool zen4, const struct pmu_ibs_op *op, bool *remote)
{
        if (zen4) {
                switch (op->data_src) {
                case IBS_DATA_SRC_EXT_LOC_CACHE:
                        return PS_LVL_L3;
                case IBS_DATA_SRC_EXT_NEAR_CCX_CACHE:
                case IBS_DATA_SRC_EXT_FAR_CCX_CACHE:
                        *remote = op->data_src == IBS_DATA_SRC_EXT_FAR_CCX_CACHE;
                        return PS_LVL_REMOTE_CACHE;
                case IBS_DATA_SRC_EXT_DRAM:
                        *remote = op->rmt_node;
                        return op->rmt_node ? PS_LVL_REMOTE_DRAM : PS_LVL_LOCAL_DRAM;
                case IBS_DATA_SRC_EXT_PMEM:
                case IBS_DATA_SRC_EXT_EXT_MEM:
                        *remote = op->rmt_node;
                        return PS_LVL_OTHER_MEM;
                case IBS_DATA_SRC_EXT_PEER_AGENT_MEM:
                        return PS_LVL_OTHER_MEM;
                case IBS_DATA_SRC_EXT_IO:
                        return PS_LVL_IO;
                default:
                        return PS_LVL_UNKNOWN;
                }
        }
        switch (op->data_src) {
        case IBS_DATA_SRC_LOC_CACHE:
                return PS_LVL_L3;   /* L3 or another CCX on this node: not separable */
        case IBS_DATA_SRC_REM_CACHE:
                *remote = true;
                return PS_LVL_REMOTE_CACHE;
        case IBS_DATA_SRC_DRAM:
                *remote = op->rmt_node;
                return op->rmt_node ? PS_LVL_REMOTE_DRAM : PS_LVL_LOCAL_DRAM;
        case IBS_DATA_SRC_IO:
                return PS_LVL_IO;
        default:
                return PS_LVL_UNKNOWN;
        }
}

static bool data_src_is_io(const struct pmu_ibs_info *ibs, uint8_t src)
{
        if (ibs->quirks & PMU_IBS_Q_NB_LAYOUT)
                return src == IBS_NB_REQ_SRC_OTHER;
        return src == (has(ibs, IBS_CAPS_ZEN4) ? IBS_DATA_SRC_EXT_IO : IBS_DATA_SRC_IO);
}

/* ---- the control register --------------------------------------------------------------- */

status_t pmu_ibs_op_ctl_encode(const struct pmu_ibs_info *ibs, uint64_t period,
                               const struct pmu_ibs_op_opts *opts, uint64_t *out)
{
        static const struct pmu_ibs_op_opts defaults = { .count = PMU_IBS_COUNT_CYCLES };
        uint64_t max_cnt, v;

        if (!ibs || !out)
                return ST_BAD_ARG;
        *out = 0;
        if (!opts)
                opts = &defaults;
        if (!ibs->present || !has(ibs, IBS_CAPS_OPSAM))
                return ST_UNSUPPORTED;
        if (opts->count == PMU_IBS_COUNT_DISPATCHED_OPS && !has(ibs, IBS_CAPS_OPCNT))
                return ST_UNSUPPORTED;
        if (opts->l3_miss_only && !has(ibs, IBS_CAPS_ZEN4))
                return ST_UNSUPPORTED;
        if (opts->ldlat_cycles && !has(ibs, IBS_CAPS_OPLDLAT))
                return ST_UNSUPPORTED;
        if (opts->ldlat_cycles && (opts->ldlat_cycles < IBS_OP_LDLAT_MIN_CYCLES ||
                                   opts->ldlat_cycles > IBS_OP_LDLAT_MAX_CYCLES ||
                                   opts->ldlat_cycles % IBS_OP_LDLAT_MIN_CYCLES))
                return ST_BAD_ARG;
        max_cnt = period >> 4;
        if ((period & 0xf) || max_cnt == 0 ||
            max_cnt > (has(ibs, IBS_CAPS_OPCNTEXT) ? IBS_OP_MAXCNT_EXT_MAX : IBS_OP_MAXCNT_MAX))
                return ST_BAD_ARG;
        v = (max_cnt & IBSOPCTL_MAXCNT) |
            (((max_cnt >> 16) << IBSOPCTL_MAXCNT_EXT_SHIFT) & IBSOPCTL_MAXCNT_EXT) | IBSOPCTL_OP_EN;
        if (opts->count == PMU_IBS_COUNT_DISPATCHED_OPS)
                v |= IBSOPCTL_OP_CNT_CTL;
        if (opts->l3_miss_only)
                v |= IBSOPCTL_L3_MISS_ONLY;
        if (opts->ldlat_cycles) {
                v |= IBSOPCTL_LDLAT_EN | ((uint64_t)(opts->ldlat_cycles / 128 - 1)
                                          << IBSOPCTL_LDLAT_THRSH_SHIFT);
                if (ibs->quirks & PMU_IBS_Q_LDLAT_L3MISS_1606)
                        v |= IBSOPCTL_L3_MISS_ONLY;
        }
        *out = v;
        return ST_OK;
}

uint64_t pmu_ibs_op_ctl_period(const struct pmu_ibs_info *ibs, uint64_t op_ctl)
{
        uint64_t max_cnt = op_ctl & IBSOPCTL_MAXCNT;

        if (ibs && has(ibs, IBS_CAPS_OPCNTEXT))
                max_cnt |= field(op_ctl, IBSOPCTL_MAXCNT_EXT, IBSOPCTL_MAXCNT_EXT_SHIFT) << 16;
        return max_cnt << 4;
}

uint64_t pmu_ibs_op_ctl_count(const struct pmu_ibs_info *ibs, uint64_t op_ctl)
{
        /* The hardware preloads CurCnt[6:0] with random bits, so only CurCnt[26:7] counts:
         * Linux amd-ibs.h IBS_OP_CUR_CNT (0xfff80 << 32) vs IBS_OP_CUR_CNT_RAND. */
        const uint64_t cur_cnt_rand = 0x7full << IBSOPCTL_CURCNT_SHIFT;

        if (op_ctl & IBSOPCTL_OP_VAL)
                return pmu_ibs_op_ctl_period(ibs, op_ctl);
        if (ibs && has(ibs, IBS_CAPS_RDWROPCNT))
                return field(op_ctl & ~cur_cnt_rand, IBSOPCTL_CURCNT, IBSOPCTL_CURCNT_SHIFT);
        return 0;
}

uint64_t pmu_ibs_op_ctl_rearm(const struct pmu_ibs_info *ibs, uint64_t armed, uint64_t read)
{
        const uint64_t cur_cnt_rand = 0x7full << IBSOPCTL_CURCNT_SHIFT;
        uint64_t v = (armed & ~(IBSOPCTL_OP_VAL | IBSOPCTL_CURCNT)) | IBSOPCTL_OP_EN;

        if (ibs && has(ibs, IBS_CAPS_RDWROPCNT) && (read & IBSOPCTL_OP_CNT_CTL))
                v |= read & cur_cnt_rand;
        return v;
}

uint64_t pmu_ibs_op_ctl_carried(uint64_t op_ctl)
{
        return (op_ctl >> IBSOPCTL_CURCNT_SHIFT) & 0x7f;
}

uint64_t pmu_ibs_op_mean_period_x2(const struct pmu_ibs_info *ibs, uint64_t op_ctl)
{
        uint64_t p2 = 2 * pmu_ibs_op_ctl_period(ibs, op_ctl);
        bool     carried = ibs && has(ibs, IBS_CAPS_RDWROPCNT) && (op_ctl & IBSOPCTL_OP_CNT_CTL);

        return carried && p2 > 127 ? p2 - 127 : p2;
}

unsigned pmu_ibs_op_disable_seq(const struct pmu_ibs_info *ibs, uint64_t op_ctl,
                                uint64_t out[2])
{
        uint64_t ctl = op_ctl & ~(IBSOPCTL_MAXCNT | IBSOPCTL_MAXCNT_EXT | IBSOPCTL_CURCNT);
        unsigned n = 0;

        if (ibs && (ibs->quirks & PMU_IBS_Q_FAM10H_DISABLE_SEQ))
                out[n++] = ctl;
        out[n++] = ctl & ~IBSOPCTL_OP_EN;
        return n;
}

/* ---- the session's op side -------------------------------------------------------------- */

status_t pmu_ibs_op_arm(struct pmu_ibs_session *s, uint64_t op_ctl)
{
        if (!s || !op_ctl)
                return ST_BAD_ARG;
        /* a new run: no sample taken, nothing counted */
        s->n_op = s->n_fetch = 0;
        s->op_tail = s->op_carried = 0;
        s->n_pmi = s->n_spurious = s->n_dropped = s->n_errors = 0;
        s->op_ctl = op_ctl & ~(IBSOPCTL_OP_VAL | IBSOPCTL_CURCNT);
        return wrmsr_safe(MSR_AMD64_IBSOPCTL, s->op_ctl);
}

/* Op side: IbsOpVal set -> read the sample, then re-arm (Linux perf_ibs_handle_irq). */
bool pmu_ibs_op_take(struct pmu_ibs_session *s)
{
        struct pmu_ibs_op_regs r = { 0 };

        pmu_ibs_rd(s, MSR_AMD64_IBSOPCTL, &r.op_ctl);
        if (!(r.op_ctl & IBSOPCTL_OP_VAL))
                return false;
        pmu_ibs_rd(s, MSR_AMD64_IBSOPRIP, &r.op_rip);
        pmu_ibs_rd(s, MSR_AMD64_IBSOPDATA, &r.op_data);
        pmu_ibs_rd(s, MSR_AMD64_IBSOPDATA2, &r.op_data2);
        pmu_ibs_rd(s, MSR_AMD64_IBSOPDATA3, &r.op_data3);
        pmu_ibs_rd(s, MSR_AMD64_IBSDCLINAD, &r.dc_linad);
        pmu_ibs_rd(s, MSR_AMD64_IBSDCPHYSAD, &r.dc_physad);
        if (has(&s->info, IBS_CAPS_BRNTRGT))
                pmu_ibs_rd(s, MSR_AMD64_IBSBRTARGET, &r.br_target);
        if (has(&s->info, IBS_CAPS_OPDATA4))
                pmu_ibs_rd(s, MSR_AMD64_IBSOPDATA4, &r.op_data4);
        if (s->ops && s->n_op < s->op_cap)
                s->ops[s->n_op++] = r;
        else
                s->n_dropped++;
        uint64_t rearm = pmu_ibs_op_ctl_rearm(&s->info, s->op_ctl, r.op_ctl);
        s->op_carried += pmu_ibs_op_ctl_carried(rearm);
        pmu_ibs_wr(s, MSR_AMD64_IBSOPCTL, rearm);
        return true;
}

status_t pmu_ibs_op_disarm(struct pmu_ibs_session *s)
{
        uint64_t seq[2], cur = 0;
        status_t first = ST_OK, st;
        unsigned n;

        if (!s)
                return ST_BAD_ARG;
        if (!s->op_ctl)
                return ST_OK;
        if (rdmsr_safe(MSR_AMD64_IBSOPCTL, &cur) == ST_OK)
                s->op_tail = (cur & IBSOPCTL_OP_VAL) ? 0 : pmu_ibs_op_ctl_count(&s->info, cur);
        n = pmu_ibs_op_disable_seq(&s->info, cur ? cur : s->op_ctl, seq);
        for (unsigned i = 0; i < n; i++)
                if ((st = wrmsr_safe(MSR_AMD64_IBSOPCTL, seq[i])) != ST_OK && !first)
                        first = st;
        s->op_ctl = 0;
        return first;
}

/* ---- the decoder ------------------------------------------------------------------------ */

/* IbsOpRip and IbsOpData: where the op was and how it retired. [APM-2] IbsOpData */
static void decode_op_data(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op_regs *r,
                           bool nb, struct pmu_ibs_op *out)
{
        uint64_t d1 = r->op_data;

        out->valid = bit(r->op_ctl, IBSOPCTL_OP_VAL);
        out->rip = r->op_rip;
        out->rip_valid = !(has(ibs, IBS_CAPS_RIPINVALIDCHK) && bit(d1, IBSOPDATA_OP_RIP_INVALID));
        out->comp_to_ret_cycles = (uint16_t)(d1 & IBSOPDATA_COMP_TO_RET_CTR);
        out->tag_to_ret_cycles = (uint16_t)field(d1, IBSOPDATA_TAG_TO_RET_CTR,
                                                 IBSOPDATA_TAG_TO_RET_CTR_SHIFT);
        out->op_return = bit(d1, IBSOPDATA_OP_RETURN);
        out->brn_taken = bit(d1, IBSOPDATA_OP_BRN_TAKEN);
        out->brn_misp = bit(d1, IBSOPDATA_OP_BRN_MISP);
        out->brn_ret = bit(d1, IBSOPDATA_OP_BRN_RET);
        out->brn_fuse = has(ibs, IBS_CAPS_OPBRNFUSE) && bit(d1, IBSOPDATA_OP_BRN_FUSE);
        out->microcode = !nb && bit(d1, IBSOPDATA_OP_MICROCODE);
        out->brn_resync = nb && bit(d1, IBSOPDATA_OP_BRN_RESYNC);
        out->misp_return = nb && bit(d1, IBSOPDATA_OP_MISP_RETURN);
        out->br_target_valid = has(ibs, IBS_CAPS_BRNTRGT) && out->brn_ret;
        out->br_target = out->br_target_valid ? r->br_target : 0;
}

/* IbsOpData3 and the linear/physical addresses: the load or store, its TLB and cache outcome
 * and its latency. [APM-2] IbsOpData3 */
static void decode_op_data3(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op_regs *r,
                            bool nb, struct pmu_ibs_op *out)
{
        uint64_t d3 = r->op_data3;

        out->ld_op = bit(d3, IBSOPDATA3_LD_OP);
        out->st_op = bit(d3, IBSOPDATA3_ST_OP);
        out->dc_l1tlb_miss = bit(d3, IBSOPDATA3_DC_L1TLB_MISS);
        out->dc_l2tlb_miss = bit(d3, IBSOPDATA3_DC_L2TLB_MISS);
        out->dc_l1tlb_hit_2m = bit(d3, IBSOPDATA3_DC_L1TLB_HIT_2M);
        out->dc_l1tlb_hit_1g = bit(d3, IBSOPDATA3_DC_L1TLB_HIT_1G);
        out->dc_l2tlb_hit_2m = bit(d3, IBSOPDATA3_DC_L2TLB_HIT_2M);
        out->dc_l2tlb_hit_1g = bit(d3, IBSOPDATA3_DC_L2TLB_HIT_1G);
        out->dc_miss = bit(d3, IBSOPDATA3_DC_MISS);
        out->dc_mis_acc = bit(d3, IBSOPDATA3_DC_MIS_ACC);
        out->dc_wc_mem_acc = bit(d3, IBSOPDATA3_DC_WC_MEM_ACC);
        out->dc_uc_mem_acc = bit(d3, IBSOPDATA3_DC_UC_MEM_ACC);
        out->dc_locked_op = bit(d3, IBSOPDATA3_DC_LOCKED_OP);
        out->dc_miss_no_mab_alloc = bit(d3, IBSOPDATA3_DC_MISS_NO_MAB_ALLOC);
        out->dc_lin_addr_valid = bit(d3, IBSOPDATA3_DC_LIN_ADDR_VALID);
        out->dc_phy_addr_valid = bit(d3, IBSOPDATA3_DC_PHY_ADDR_VALID);
        out->dc_miss_lat_cycles = (uint16_t)field(d3, IBSOPDATA3_DC_MISS_LAT,
                                                  IBSOPDATA3_DC_MISS_LAT_SHIFT);
        out->dc_linad = out->dc_lin_addr_valid ? r->dc_linad : 0;
        out->dc_physad = out->dc_phy_addr_valid ? r->dc_physad : 0;
        /* With OpDtlbPgSize the hit bits are re-purposed as a page-size field whose layout
         * we have not verified (Linux amd-sample-raw.c "DcPageSize"): report unknown. */
        out->dc_pgsz = out->dc_lin_addr_valid && !has(ibs, IBS_CAPS_OPDTLBPGSIZE) ?
                       dc_page_size(out) : PS_PG_UNKNOWN;
        if (nb) {
                out->dc_ld_bnk_con = bit(d3, IBSOPDATA3_DC_LD_BNK_CON);
                out->dc_st_bnk_con = bit(d3, IBSOPDATA3_DC_ST_BNK_CON);
                out->dc_st_to_ld_fwd = bit(d3, IBSOPDATA3_DC_ST_TO_LD_FWD);
                out->dc_st_to_ld_can = bit(d3, IBSOPDATA3_DC_ST_TO_LD_CAN);
        } else {
                unsigned w = (unsigned)field(d3, IBSOPDATA3_OP_MEM_WIDTH,
                                             IBSOPDATA3_OP_MEM_WIDTH_SHIFT);

                out->l2_miss_known = true;
                out->l2_miss = bit(d3, IBSOPDATA3_L2_MISS);
                out->sw_pf = bit(d3, IBSOPDATA3_SW_PF);
                out->op_mem_width_bytes = w ? (uint8_t)(1u << (w - 1)) : 0;
                out->dc_miss_open_mem_reqs = (uint8_t)field(d3, IBSOPDATA3_OP_DC_MISS_OPEN_MEM_REQS,
                                                    IBSOPDATA3_OP_DC_MISS_OPEN_MEM_REQS_SHIFT);
                /* Zen 4+: TlbRefillLat only means something with a valid physical address
                 * (Linux amd-sample-raw.c). */
                out->tlb_refill_lat_known = !has(ibs, IBS_CAPS_ZEN4) || out->dc_phy_addr_valid;
                out->tlb_refill_lat_cycles = (uint16_t)field(d3, IBSOPDATA3_TLB_REFILL_LAT,
                                                             IBSOPDATA3_TLB_REFILL_LAT_SHIFT);
        }
}

/* IbsOpData2: where a load's data came from. [APM-2] IbsOpData2 */
static void decode_op_data2(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op_regs *r,
                            struct pmu_ibs_op *out)
{
        uint64_t d2 = r->op_data2;

        /* IbsOpData2 describes loads only (ibs.c perf_ibs_parse_ld_st_data). */
        out->data_src_valid = out->ld_op;
        if ((ibs->quirks & PMU_IBS_Q_OPDATA2_1293) && (out->sw_pf || out->dc_miss_no_mab_alloc))
                out->data_src_valid = false;
        if (out->data_src_valid) {
                out->data_src = (uint8_t)(d2 & IBSOPDATA2_DATA_SRC_LO);
                if (has(ibs, IBS_CAPS_ZEN4))
                        out->data_src |= (uint8_t)(field(d2, IBSOPDATA2_DATA_SRC_HI,
                                                         IBSOPDATA2_DATA_SRC_HI_SHIFT) << 3);
                out->rmt_node = bit(d2, IBSOPDATA2_RMT_NODE);
                out->cache_hit_st_valid = !(ibs->quirks & PMU_IBS_Q_CACHE_HIT_ST_BAD);
                out->cache_hit_st_o = out->cache_hit_st_valid && bit(d2, IBSOPDATA2_CACHE_HIT_ST);
        }
}

status_t pmu_ibs_op_decode(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op_regs *r,
                           struct pmu_ibs_op *out)
{
        bool nb;

        if (!ibs || !r || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        nb = (ibs->quirks & PMU_IBS_Q_NB_LAYOUT) != 0;
        decode_op_data(ibs, r, nb, out);
        decode_op_data3(ibs, r, nb, out);
        decode_op_data2(ibs, r, out);
        out->ld_resync = has(ibs, IBS_CAPS_OPDATA4) && bit(r->op_data4, IBSOPDATA4_LD_RESYNC);
        return ST_OK;
}

enum psample_level pmu_ibs_op_level(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op *op,
                                    bool *remote)
{
        bool dummy;

        if (!remote)
                remote = &dummy;
        *remote = false;
        if (!ibs || !op || (!op->ld_op && !op->st_op))
                return PS_LVL_UNKNOWN;
        /* DcMiss, L2Miss, DataSrc and DcMissLat are all invalid for uncached accesses. */
        if (op->dc_uc_mem_acc && !(op->data_src_valid && data_src_is_io(ibs, op->data_src)))
                return PS_LVL_UNCACHED;
        if (!op->dc_miss)
                return PS_LVL_L1;
        if (op->l2_miss_known && !op->l2_miss &&
            !((ibs->quirks & PMU_IBS_Q_OPDATA2_1293) && (op->sw_pf || op->dc_miss_no_mab_alloc)))
                return PS_LVL_L2;
        if (op->data_src_valid) {
                enum psample_level l = (ibs->quirks & PMU_IBS_Q_NB_LAYOUT) ?
                                       nb_level(op, remote) :
                                       zen_level(has(ibs, IBS_CAPS_ZEN4), op, remote);
                if (l != PS_LVL_UNKNOWN)
                        return l;
        }
        /* MAB hit: the line was already on its way; DataSrc wins when it names a level. */
        return op->dc_miss_no_mab_alloc ? PS_LVL_LFB : PS_LVL_UNKNOWN;
}

status_t pmu_ibs_op_to_psample(const struct pmu_ibs_info *ibs, const struct pmu_ibs_op *op,
                               struct psample *out)
{
        if (!ibs || !op || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (!op->valid)
                return ST_UNSUPPORTED;
        out->ip = op->rip;
        out->ip_valid = op->rip_valid;
        out->ip_exact = op->rip_valid;     /* IBS tags the op itself: no skid */
        out->data_la = op->dc_linad;
        out->data_la_valid = op->dc_lin_addr_valid;
        out->data_pa = op->dc_physad;
        out->data_pa_valid = op->dc_phy_addr_valid;
        out->is_load = op->ld_op;
        out->is_store = op->st_op;
        out->retire_lat_cycles = op->tag_to_ret_cycles;
        /* DcMissLat counts from the miss to data delivery, for loads that missed. */
        out->lat_valid = op->ld_op && op->dc_miss && !op->dc_uc_mem_acc;
        out->lat_cycles = out->lat_valid ? op->dc_miss_lat_cycles : 0;
        out->l1_miss_known = op->ld_op || op->st_op;
        out->l1_miss = op->dc_miss;
        out->level = pmu_ibs_op_level(ibs, op, &out->remote);
        out->src_raw = op->data_src;
        if (op->dc_lin_addr_valid) {
                out->tlb_l1_known = out->tlb_l2_known = true;
                out->tlb_l1_miss = op->dc_l1tlb_miss;
                out->tlb_l2_miss = op->dc_l1tlb_miss && op->dc_l2tlb_miss;
                out->pgsz = op->dc_pgsz;
        }
        out->locked = op->dc_locked_op;
        return ST_OK;
}
