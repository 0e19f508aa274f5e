/** @file
 * The virtual PMU's PEBS and Debug Store: IA32_DS_AREA, IA32_PEBS_ENABLE, MSR_PEBS_DATA_CFG
 * and the load-latency threshold; records written into the harness's PEBS buffer in the
 * format IA32_PERF_CAPABILITIES[11:8] names (1-3 legacy, 4-5 basic or adaptive), the index
 * advanced, the counter reloaded from the DS reset field, and the threshold PMI through
 * GLOBAL_STATUS.OvfBuffer. [SDM-3B] "Debug Store (DS) Mechanism", "Processor Event Based
 * Sampling", "Adaptive PEBS"; Linux arch/x86/events/intel/ds.c for the record structs.
 */
#include "tests/vpmu/vpmu_priv.h"

#include <string.h>

static unsigned fmt(void)
{
        return VP_CAP_PEBS_FMT(vp.p->perf_caps);
}

static bool baseline(void)
{
        return (vp.p->perf_caps & VP_CAP_PEBS_BASELINE) != 0;
}

static bool has_pebs(void)
{
        return !vp.p->amd && vp.p->ds && vp.p->pdcm && fmt() >= 1;
}

bool vp_pebs_rd(uint32_t msr, uint64_t *v)
{
        if (!has_pebs())
                return false;
        switch (msr) {
        case VP_IA32_DS_AREA:
                *v = vp.ds_area;
                return true;
        case VP_IA32_PEBS_ENABLE:
                *v = vp.pebs_enable;
                return true;
        case VP_MSR_PEBS_LD_LAT:
                *v = vp.ldlat;
                return true;
        case VP_MSR_PEBS_DATA_CFG:
                if (!baseline())
                        return false;
                *v = vp.data_cfg;
                return true;
        }
        return false;
}

int vp_pebs_wr(uint32_t msr, uint64_t v)
{
        uint64_t gp = vp_width_mask(vp.p->n_gp);

        if (!has_pebs())
                return 0;
        switch (msr) {
        case VP_IA32_DS_AREA:
                vp.ds_area = v;
                return 1;
        case VP_IA32_PEBS_ENABLE: {
                /* GP bits; before v5 [35:32] load latency on counters 0-3; from baseline
                 * [35:32] fixed counters (Linux intel/ds.c, KVM pebs_enable_mask). */
                uint64_t ok = gp | (0xfull << 32);
                if (v & ~ok)
                        return -1;
                vp.pebs_enable = v;
                vp.pebs_armed &= (uint32_t)v;
                return 1;
        }
        case VP_MSR_PEBS_LD_LAT:
                if (v & ~0xffffull)
                        return -1;
                vp.ldlat = v;
                return 1;
        case VP_MSR_PEBS_DATA_CFG:
                if (!baseline())
                        return 0;
                vp.data_cfg = v;
                return 1;
        }
        return 0;
}

void vp_pebs_overflow(unsigned n)
{
        vp.pebs_armed |= 1u << n;
}

static uint64_t rd64(uint64_t la)
{
        uint64_t v;

        memcpy(&v, (const void *)(uintptr_t)la, 8);
        return v;
}

static void wr64(uint8_t *rec, unsigned off, uint64_t v)
{
        memcpy(rec + off, &v, 8);
}

/* Data-source word of a load served from @p l ([SDM-3B] "Load Latency ... Data Source
 * Encoding"; Linux ds.c pebs_data_source[]): 0x1 L1 hit, 0x3 L2 hit, 0x4 L3 hit (no snoop),
 * 0xa L3 miss served by local DRAM. 0x8 is L4 / PMEM on Skylake and later. @p up: the level
 * above the one that served it named instead; @p tlb_flip: the STLB bit wrong. */
static uint64_t dse(const struct vpmu_op *op, bool up, bool tlb_flip)
{
        static const uint8_t src[4] = { [VL_L1] = 0x1, [VL_L2] = 0x3, [VL_L3] = 0x4,
                                        [VL_DRAM] = 0xa };
        uint64_t d = src[up && op->level > VL_L1 ? op->level - 1 : op->level];

        if (op->dtlb_miss != tlb_flip)
                d |= 1u << 4; /* STLB miss */
        return d;
}

/* Bytes of the record this counter writes, and its layout. */
static unsigned record_bytes(bool adaptive)
{
        if (fmt() >= 4) {
                unsigned b = VP_PEBS_BASIC_BYTES;
                if (!adaptive)
                        return b;  /* Adaptive_Record clear: basic group only [SDM-3B] */
                if (vp.data_cfg & VP_DATACFG_MEMINFO)
                        b += VP_PEBS_MEMINFO_BYTES;
                if (vp.data_cfg & VP_DATACFG_GPR)
                        b += 18 * 8;
                if (vp.data_cfg & VP_DATACFG_XMM)
                        b += 32 * 8;
                if (vp.data_cfg & VP_DATACFG_LBR)
                        b += (unsigned)(((vp.data_cfg >> 24) & 0xff) + 1) * 24;
                return b;
        }
        static const unsigned legacy[4] = { 0x90, 0xb0, 0xc0, 0xc8 };
        return legacy[fmt() & 3];
}

void vp_pebs_event(unsigned n, const struct vpmu_op *op, const struct vpmu_step *s)
{
        uint8_t  rec[0x400];
        uint64_t ds = vp.ds_area, base, idx, max, thr;
        bool     adaptive = fmt() >= 4 && baseline() && (vp.sel[n] & VP_EVTSEL_ADAPTIVE);
        bool     data = op && op->load && !(vp.f.pebs_no_data_every &&
                                                (vp.stats.n_pebs_records + 1) %
                                                vp.f.pebs_no_data_every == 0);
        unsigned sz = record_bytes(adaptive);
        uint16_t lat = op ? vp_load_latency(op) : 0;
        uint64_t la = op ? op->la : 0;
        bool     up = false, tlb_flip = false;

        if (data && vp.f.tlb_flip_every)
                tlb_flip = ++vp.n_tlb_loads % vp.f.tlb_flip_every == 0;
        if (op && (!vp.f.pebs_fault_level || vp.f.pebs_fault_level == op->level + 1u)) {
                if (data && vp.f.pebs_src_up_every)
                        up = ++vp.n_pebs_src % vp.f.pebs_src_up_every == 0;
                la ^= vp.f.pebs_la_xor;
                if (vp.f.pebs_lat_scale_pct)
                        lat = (uint16_t)(lat * vp.f.pebs_lat_scale_pct / 100);
                if (data && vp.f.pebs_lat_split_every >= 2) {
                        uint64_t k = ++vp.n_pebs_split % vp.f.pebs_lat_split_every;
                        lat = (uint16_t)(k == 0 ? lat * 4 : k == 1 ? lat / 4 : lat);
                }
        }
        if (vp.f.pebs_no_la_every && (vp.stats.n_pebs_records + 1) % vp.f.pebs_no_la_every == 0)
                la = 0;
        if (vp.f.pebs_zero_lat_every &&
            (vp.stats.n_pebs_records + 1) % vp.f.pebs_zero_lat_every == 0)
                lat = 0;

        vp.pebs_armed &= ~(1u << n);
        if (!ds)
                return;
        base = rd64(ds + VP_DS_PEBS_BASE);
        idx = rd64(ds + VP_DS_PEBS_INDEX);
        max = rd64(ds + VP_DS_PEBS_MAX);
        thr = rd64(ds + VP_DS_PEBS_THRESH);
        memset(rec, 0, sizeof(rec));
        if (fmt() >= 4) {
                uint64_t groups = adaptive ? vp.data_cfg & 0xf : 0;
                wr64(rec, 0x00, groups | (uint64_t)sz << 48);
                wr64(rec, 0x08, op ? op->rip : s->rip_ev);
                wr64(rec, 0x10, 1ull << n);
                wr64(rec, 0x18, vp_tsc_model());
                if (groups & VP_DATACFG_MEMINFO && data) {
                        wr64(rec, 0x20, la);
                        wr64(rec, 0x28, dse(op, up, tlb_flip));
                        /* Sapphire Rapids and later split [15:0] instruction and [47:32]
                         * cache latency (Linux struct pebs_meminfo) */
                        wr64(rec, 0x30, vp.p->model == 0x8f ? (uint64_t)lat << 32 | (lat + 2u)
                                                            : lat);
                }
        } else {
                wr64(rec, VP_PEBS_IP, op ? op->rip + 4 : 0); /* IP after the instruction */
                wr64(rec, VP_PEBS_STATUS, 1ull << n);
                if (data) {
                        wr64(rec, VP_PEBS_DLA, la);
                        wr64(rec, VP_PEBS_DSE, dse(op, up, tlb_flip));
                        wr64(rec, VP_PEBS_LAT, lat);
                }
                if (fmt() >= 2)
                        wr64(rec, VP_PEBS_EV_IP, op ? op->rip : 0);
                if (fmt() >= 3)
                        wr64(rec, VP_PEBS_TSC, vp_tsc_model());
        }
        if (idx + sz <= max) {
                memcpy((void *)(uintptr_t)idx, rec, sz);
                idx += sz;
                memcpy((void *)(uintptr_t)(ds + VP_DS_PEBS_INDEX), &idx, 8);
                vp.stats.n_pebs_records++;
        }
        /* Reload from the DS reset field of this counter [SDM-3B] "PEBS Record ... Counter
         * Reset" */
        vp.ctr[n] = rd64(ds + VP_DS_PEBS_RESET + 8 * n) & vp_width_mask(vp.p->gp_width);
        if (idx >= thr && thr > base) {
                vp.gstatus |= VP_STATUS_OVF_BUFFER;
                vp_pmi(vp_pmi_rip(s), -1);
        }
}
