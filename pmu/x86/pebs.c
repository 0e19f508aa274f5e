/** @file Intel PEBS: DS set-up values, record decoding and data-source tables (see pebs.h). */
#include "pmu/x86/pebs.h"

/* struct pmu_ds_area is the hardware's memory layout: keep it byte-exact. */
_Static_assert(offsetof(struct pmu_ds_area, pebs_buffer_base) == DS_PEBS_BUFFER_BASE, "DS");
_Static_assert(offsetof(struct pmu_ds_area, pebs_interrupt_threshold) ==
               DS_PEBS_INTERRUPT_THRESHOLD, "DS");
_Static_assert(offsetof(struct pmu_ds_area, pebs_event_reset) == DS_PEBS_EVENT_RESET, "DS");

/* ---- data-source tables ----------------------------------------------------------------- */

struct dse_row {
        enum psample_level level;
        bool               remote, hitm;
        const char        *name;
};

/* Sandy Bridge and later, Linux intel/ds.c pebs_data_source[] ([SDM-3B] "Load Latency
 * Performance Monitoring Facility", data-source encoding table). */
static const struct dse_row dse_base[16] = {
        [0x0] = { PS_LVL_UNKNOWN,      false, false, "unknown (L3 miss)" },
        [0x1] = { PS_LVL_L1,           false, false, "L1 hit" },
        [0x2] = { PS_LVL_LFB,          false, false, "fill buffer hit" },
        [0x3] = { PS_LVL_L2,           false, false, "L2 hit" },
        [0x4] = { PS_LVL_L3,           false, false, "L3 hit, no snoop" },
        [0x5] = { PS_LVL_L3,           false, false, "L3 hit, snoop miss" },
        [0x6] = { PS_LVL_L3,           false, false, "L3 hit, snoop hit" },
        [0x7] = { PS_LVL_L3,           false, true,  "L3 hit, snoop HITM" },
        [0x8] = { PS_LVL_REMOTE_CACHE, true,  false, "L3 miss, remote cache hit" },
        [0x9] = { PS_LVL_REMOTE_CACHE, true,  true,  "L3 miss, remote cache HITM" },
        [0xa] = { PS_LVL_LOCAL_DRAM,   false, false, "L3 miss, local DRAM (shared)" },
        [0xb] = { PS_LVL_REMOTE_DRAM,  true,  false, "L3 miss, remote DRAM (shared)" },
        [0xc] = { PS_LVL_LOCAL_DRAM,   false, false, "L3 miss, local DRAM (exclusive)" },
        [0xd] = { PS_LVL_REMOTE_DRAM,  true,  false, "L3 miss, remote DRAM (exclusive)" },
        [0xe] = { PS_LVL_IO,           false, false, "I/O" },
        [0xf] = { PS_LVL_UNCACHED,     false, false, "uncached" },
};

/* Lion Cove, Linux intel/ds.c lnc_pebs_data_source[]; codes not listed are reserved. */
static const struct dse_row dse_lnc[0x12] = {
        [0x00] = { PS_LVL_UNKNOWN,      false, false, "unknown (L3 miss)" },
        [0x01] = { PS_LVL_L1,           false, false, "L1 hit" },
        [0x02] = { PS_LVL_L1,           false, false, "L1 hit" },
        [0x03] = { PS_LVL_LFB,          false, false, "L1 miss-handling buffer hit" },
        [0x05] = { PS_LVL_L2,           false, false, "L2 hit" },
        [0x06] = { PS_LVL_L2,           false, false, "L2 miss-handling buffer hit" },
        [0x08] = { PS_LVL_L3,           false, false, "L3 hit" },
        [0x0c] = { PS_LVL_L3,           false, false, "L3 hit, snoop forward" },
        [0x0d] = { PS_LVL_L3,           false, true,  "L3 hit, snoop HITM" },
        [0x0f] = { PS_LVL_REMOTE_CACHE, false, true,  "L3 miss, snoop HITM" },
        [0x10] = { PS_LVL_OTHER_MEM,    false, false, "memory-side cache hit" },
        [0x11] = { PS_LVL_LOCAL_DRAM,   false, false, "local memory" },
};

struct dse_patch {
        enum pmu_pebs_dse_kind kind;
        uint8_t                src;
        struct dse_row         row;
};

/* Per-generation changes to dse_base, Linux intel/ds.c intel_pmu_pebs_data_source_nhm/skl/
 * grt/cmt. */
static const struct dse_patch dse_patches[] = {
        { PEBS_DSE_NHM, 0x5, { PS_LVL_L3, false, false, "L3 hit, snoop hit" } },
        { PEBS_DSE_NHM, 0x6, { PS_LVL_L3, false, true,  "L3 hit, snoop HITM" } },
        { PEBS_DSE_NHM, 0x7, { PS_LVL_L3, false, true,  "L3 hit, snoop HITM" } },
        { PEBS_DSE_SKL, 0x8, { PS_LVL_OTHER_MEM, false, false, "L4 hit" } },
        { PEBS_DSE_SKL, 0x9, { PS_LVL_OTHER_MEM, true,  false, "remote L4 hit" } },
        { PEBS_DSE_SKL, 0xb, { PS_LVL_REMOTE_DRAM, true, false, "remote DRAM" } },
        { PEBS_DSE_SKL, 0xc, { PS_LVL_REMOTE_CACHE, true, false, "remote cache forward" } },
        { PEBS_DSE_SKL, 0xd, { PS_LVL_REMOTE_CACHE, true, true, "remote cache HITM" } },
        { PEBS_DSE_SKL_PMEM, 0x8, { PS_LVL_OTHER_MEM, false, false, "PMEM hit" } },
        { PEBS_DSE_SKL_PMEM, 0x9, { PS_LVL_OTHER_MEM, true,  false, "remote PMEM hit" } },
        { PEBS_DSE_SKL_PMEM, 0xb, { PS_LVL_REMOTE_DRAM, true, false, "remote DRAM" } },
        { PEBS_DSE_SKL_PMEM, 0xc, { PS_LVL_REMOTE_CACHE, true, false, "remote cache forward" } },
        { PEBS_DSE_SKL_PMEM, 0xd, { PS_LVL_REMOTE_CACHE, true, true, "remote cache HITM" } },
        { PEBS_DSE_GRT, 0x5, { PS_LVL_L3, false, false, "L3 hit, snoop hit" } },
        { PEBS_DSE_GRT, 0x6, { PS_LVL_L3, false, true,  "L3 hit, snoop HITM" } },
        { PEBS_DSE_GRT, 0x8, { PS_LVL_L3, false, false, "L3 hit, snoop forward" } },
        { PEBS_DSE_CMT, 0x7, { PS_LVL_L3, false, false, "L3 hit, snoop forward" } },
        { PEBS_DSE_CMT, 0x8, { PS_LVL_L3, false, true,  "L3 hit, snoop HITM" } },
        { PEBS_DSE_CMT, 0xa, { PS_LVL_LOCAL_DRAM, false, false, "local DRAM" } },
        { PEBS_DSE_CMT, 0xb, { PS_LVL_REMOTE_DRAM, true, false, "remote DRAM" } },
        { PEBS_DSE_CMT, 0xc, { PS_LVL_REMOTE_DRAM, true, false, "remote DRAM, snoop forward" } },
        { PEBS_DSE_CMT, 0xd, { PS_LVL_REMOTE_DRAM, true, true,  "remote DRAM, snoop HITM" } },
};

static const struct dse_row dse_reserved = { PS_LVL_UNKNOWN, false, false, "reserved" };

/* ---- private helpers -------------------------------------------------------------------- */

static uint64_t rd64(const uint8_t *p, size_t off)
{
        uint64_t v;

        memcpy(&v, p + off, sizeof(v));
        return v;
}

static const struct dse_row *dse_lookup(enum pmu_pebs_dse_kind kind, unsigned src)
{
        if (kind == PEBS_DSE_LNC)
                return src < ARRAY_SIZE(dse_lnc) && dse_lnc[src].name ? &dse_lnc[src]
                                                                      : &dse_reserved;
        for (size_t i = 0; i < ARRAY_SIZE(dse_patches); i++)
                if (dse_patches[i].kind == kind && dse_patches[i].src == src)
                        return &dse_patches[i].row;
        return src < ARRAY_SIZE(dse_base) ? &dse_base[src] : &dse_reserved;
}

/* Formats 4 and 5 write the adaptive layout; without PEBS baseline (PERF_CAPABILITIES[14])
 * it is the basic group alone, no MSR_PEBS_DATA_CFG (Linux intel_ds_init: "Only basic
 * record supported"). */
static bool adaptive(const struct pmu_pebs_fmt *fmt)
{
        return fmt->caps.pebs_fmt == 4 || fmt->caps.pebs_fmt == 5;
}

static unsigned cfg_n_lbr(uint64_t cfg)
{
        return (unsigned)((cfg & PEBS_DATACFG_LBR_NR) >> PEBS_DATACFG_LBR_SHIFT) + 1;
}

/* Bytes of an adaptive record with the groups in @p group. */
static uint32_t adaptive_size(uint64_t group, unsigned n_lbr)
{
        uint32_t sz = PEBS_BASIC_SIZE;

        if (group & PEBS_DATACFG_MEMINFO)
                sz += PEBS_MEMINFO_SIZE;
        if (group & PEBS_DATACFG_GP)
                sz += PEBS_GPRS_SIZE;
        if (group & PEBS_DATACFG_XMMS)
                sz += PEBS_XMMS_SIZE;
        if (group & PEBS_DATACFG_LBRS)
                sz += n_lbr * PEBS_LBR_ENTRY_SIZE;
        return sz;
}

static status_t decode_adaptive(const struct pmu_pebs_fmt *fmt, const uint8_t *p, size_t avail,
                                struct pmu_pebs_record *out)
{
        const uint64_t known = PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GP | PEBS_DATACFG_XMMS |
                               PEBS_DATACFG_LBRS;
        uint64_t word, group;
        uint32_t size, want;
        size_t off = PEBS_BASIC_SIZE;

        if (avail < PEBS_BASIC_SIZE)
                return ST_BAD_DATA;
        word = rd64(p, PEBS_BASIC_FORMAT);
        group = word & PEBS_BASIC_GROUP;
        size = (uint32_t)(word >> PEBS_BASIC_RECORD_SIZE_SHIFT);
        want = adaptive_size(group, cfg_n_lbr(fmt->data_cfg));
        if (!fmt->caps.baseline && group)
                return ST_BAD_DATA; /* groups without baseline: not a record of this CPU */
        /* Groups this code does not know (counter snapshots) follow the known ones. */
        if ((group & ~known) ? size < want : size != want)
                return ST_BAD_DATA;
        if (size > avail)
                return ST_BAD_DATA;
        out->size_bytes = size;
        out->ip = rd64(p, PEBS_BASIC_IP);
        out->ip_exact = true;
        out->applicable = rd64(p, PEBS_BASIC_APPLICABLE);
        out->tsc = rd64(p, PEBS_BASIC_TSC);
        out->retire_lat_cycles = (uint16_t)((word & PEBS_BASIC_RETIRE_LAT) >>
                                            PEBS_BASIC_RETIRE_LAT_SHIFT);
        if (group & PEBS_DATACFG_MEMINFO) {
                uint64_t lat = rd64(p, off + PEBS_MEMINFO_LATENCY);

                out->mem_valid = true;
                out->dla = rd64(p, off + PEBS_MEMINFO_ADDRESS);
                out->dse = rd64(p, off + PEBS_MEMINFO_AUX);
                if (fmt->split_latency) {
                        out->lat_cycles = (uint32_t)((lat & PEBS_MEMINFO_CACHE_LAT) >>
                                                     PEBS_MEMINFO_CACHE_LAT_SHIFT);
                        out->instr_lat_cycles = (uint32_t)(lat & PEBS_MEMINFO_INSTR_LAT);
                } else {
                        out->lat_cycles = (uint32_t)lat;
                }
                off += PEBS_MEMINFO_SIZE;
        }
        if (group & PEBS_DATACFG_GP)
                off += PEBS_GPRS_SIZE;
        if (group & PEBS_DATACFG_XMMS)
                off += PEBS_XMMS_SIZE;
        if (group & PEBS_DATACFG_LBRS) {
                out->lbr_offset = off;
                out->n_lbr = cfg_n_lbr(fmt->data_cfg);
        }
        return ST_OK;
}

/* ---- public functions ------------------------------------------------------------------- */

void pmu_pebs_caps_decode(uint64_t v, struct pmu_pebs_caps *out)
{
        out->pebs_fmt = (uint8_t)((v & PERF_CAP_PEBS_FORMAT) >> PERF_CAP_PEBS_FORMAT_SHIFT);
        out->baseline = (v & PERF_CAP_PEBS_BASELINE) != 0;
        out->trap = (v & PERF_CAP_PEBS_TRAP) != 0;
        out->arch_reg = (v & PERF_CAP_ARCH_REG) != 0;
        out->smm_freeze = (v & PERF_CAP_FREEZE_IN_SMM) != 0;
        out->fw_write = (v & PERF_CAP_FW_WRITES) != 0;
        out->output_pt = (v & PERF_CAP_PEBS_OUTPUT_PT) != 0;
        out->timing_info = (v & PERF_CAP_PEBS_TIMING_INFO) != 0;
        out->lbr_fmt = (uint8_t)(v & PERF_CAP_LBR_FMT);
}

uint32_t pmu_pebs_record_size(const struct pmu_pebs_fmt *fmt)
{
        if (!fmt)
                return 0;
        if (adaptive(fmt))
                return fmt->caps.baseline ? adaptive_size(fmt->data_cfg, cfg_n_lbr(fmt->data_cfg))
                                          : PEBS_BASIC_SIZE;
        switch (fmt->caps.pebs_fmt) {
        case 0: return PEBS_REC_SIZE_FMT0;
        case 1: return PEBS_REC_SIZE_FMT1;
        case 2: return PEBS_REC_SIZE_FMT2;
        case 3: return PEBS_REC_SIZE_FMT3;
        default: return 0;
        }
}

status_t pmu_pebs_ds_setup(struct pmu_ds_area *ds, uint64_t buf_la, uint64_t buf_bytes,
                           uint32_t rec_bytes, uint32_t pmi_after_records)
{
        uint64_t n;

        if (!ds || rec_bytes == 0)
                return ST_BAD_ARG;
        n = buf_bytes / rec_bytes;
        if (n == 0 || pmi_after_records == 0 || pmi_after_records > n)
                return ST_BAD_ARG;
        memset(ds, 0, sizeof(*ds));
        ds->pebs_buffer_base = buf_la;
        ds->pebs_index = buf_la;
        /* Whole records only, as Linux alloc_pebs_buffer() rounds it. */
        ds->pebs_absolute_maximum = buf_la + n * rec_bytes;
        ds->pebs_interrupt_threshold = buf_la + (uint64_t)pmi_after_records * rec_bytes;
        return ST_OK;
}

status_t pmu_pebs_ds_set_reset(struct pmu_ds_area *ds, const struct pmu_pebs_caps *caps,
                               unsigned counter, bool fixed, uint64_t period, unsigned width)
{
        unsigned idx;
        uint64_t mask;

        if (!ds || !caps || period == 0 || width == 0 || width > 64)
                return ST_BAD_ARG;
        mask = width == 64 ? ~0ull : (1ull << width) - 1;
        if (period > mask)
                return ST_BAD_ARG;
        if (fixed) {
                idx = (caps->pebs_fmt < 5 ? DS_RESET_FIXED_BASE_FMT4 : DS_RESET_FIXED_BASE_FMT5) +
                      counter;
                if (counter >= 16)
                        return ST_BAD_ARG;
        } else {
                idx = counter;
                if (counter >= (caps->pebs_fmt < 5 ? DS_RESET_FIXED_BASE_FMT4
                                                   : DS_RESET_FIXED_BASE_FMT5))
                        return ST_BAD_ARG;
        }
        if (idx >= DS_RESET_NR)
                return ST_BAD_ARG;
        ds->pebs_event_reset[idx] = (0 - period) & mask;
        return ST_OK;
}

uint64_t pmu_pebs_ds_count(const struct pmu_ds_area *ds, uint32_t rec_bytes)
{
        uint64_t used;

        if (!ds || rec_bytes == 0 || ds->pebs_index < ds->pebs_buffer_base ||
            ds->pebs_index > ds->pebs_absolute_maximum)
                return 0;
        used = ds->pebs_index - ds->pebs_buffer_base;
        return used % rec_bytes ? 0 : used / rec_bytes;
}

uint64_t pmu_pebs_enable_value(const struct pmu_pebs_caps *caps, unsigned pmu_version,
                               uint32_t gp_mask, uint32_t ldlat_mask, uint32_t fixed_mask)
{
        uint64_t v = gp_mask;

        if (pmu_version < 5)
                v |= (uint64_t)(ldlat_mask & gp_mask) << PEBS_ENABLE_LDLAT_SHIFT;
        else if (caps && caps->pebs_fmt >= 4)
                v |= (uint64_t)fixed_mask << PEBS_ENABLE_FIXED_SHIFT;
        return v;
}

status_t pmu_pebs_data_cfg(bool meminfo, bool gprs, bool xmms, unsigned n_lbr, uint64_t *out)
{
        uint64_t v = 0;

        if (!out || n_lbr > 256)
                return ST_BAD_ARG;
        if (meminfo)
                v |= PEBS_DATACFG_MEMINFO;
        if (gprs)
                v |= PEBS_DATACFG_GP;
        if (xmms)
                v |= PEBS_DATACFG_XMMS;
        if (n_lbr)
                v |= PEBS_DATACFG_LBRS | ((uint64_t)(n_lbr - 1) << PEBS_DATACFG_LBR_SHIFT);
        *out = v;
        return ST_OK;
}

status_t pmu_pebs_ld_lat_threshold(uint32_t cycles, uint64_t *out)
{
        if (!out || cycles == 0 || cycles > PEBS_LD_LAT_THRESHOLD_MASK)
                return ST_BAD_ARG;
        *out = cycles;
        return ST_OK;
}

status_t pmu_pebs_decode(const struct pmu_pebs_fmt *fmt, const void *rec, size_t avail,
                         struct pmu_pebs_record *out)
{
        const uint8_t *p = rec;
        uint32_t size;

        if (!fmt || !rec || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (adaptive(fmt))
                return decode_adaptive(fmt, p, avail, out);
        size = pmu_pebs_record_size(fmt);
        if (size == 0)
                return ST_UNSUPPORTED;
        if (avail < size)
                return ST_BAD_DATA;
        out->size_bytes = size;
        out->ip = rd64(p, PEBS_REC_IP);
        if (fmt->caps.pebs_fmt >= 1) {
                out->applicable = rd64(p, PEBS_REC_STATUS);
                out->mem_valid = true;
                out->dla = rd64(p, PEBS_REC_DLA);
                out->dse = rd64(p, PEBS_REC_DSE);
                out->lat_cycles = (uint32_t)rd64(p, PEBS_REC_LAT);
        }
        if (fmt->caps.pebs_fmt >= 2) {
                out->ip = rd64(p, PEBS_REC_REAL_IP);
                out->ip_exact = true;
        }
        if (fmt->caps.pebs_fmt >= 3)
                out->tsc = rd64(p, PEBS_REC_TSC);
        return ST_OK;
}

status_t pmu_pebs_decode_buffer(const struct pmu_pebs_fmt *fmt, const void *buf, size_t len,
                                struct pmu_pebs_record *out, size_t max, size_t *n)
{
        const uint8_t *p = buf;
        size_t off = 0;
        status_t st;

        if (!fmt || (!buf && len) || !n || (!out && max))
                return ST_BAD_ARG;
        *n = 0;
        while (off < len) {
                if (*n == max)
                        return ST_NO_SPACE;
                if ((st = pmu_pebs_decode(fmt, p + off, len - off, &out[*n])) != ST_OK)
                        return st;
                off += out[*n].size_bytes;
                (*n)++;
        }
        return ST_OK;
}

void pmu_pebs_dse_decode(const struct pmu_pebs_fmt *fmt, uint64_t dse, struct pmu_pebs_dse *out)
{
        enum pmu_pebs_dse_kind kind = fmt ? fmt->dse_kind : PEBS_DSE_SNB;
        const struct dse_row *row;

        memset(out, 0, sizeof(*out));
        switch (kind) {
        case PEBS_DSE_CMT:
                out->src = (uint8_t)(dse & PEBS_DSE_CMT_SRC);
                out->stlb_miss = (dse & PEBS_DSE_CMT_STLB_MISS) != 0;
                out->locked = (dse & PEBS_DSE_CMT_LOCKED) != 0;
                out->data_blk = (dse & PEBS_DSE_CMT_FWD_BLK) != 0;
                break;
        case PEBS_DSE_LNC:
                out->src = (uint8_t)(dse & PEBS_DSE_LNC_SRC);
                out->stlb_miss = (dse & PEBS_DSE_LNC_STLB_MISS) != 0;
                out->locked = (dse & PEBS_DSE_LNC_LOCKED) != 0;
                out->data_blk = (dse & PEBS_DSE_LNC_DATA_BLK) != 0;
                out->addr_blk = (dse & PEBS_DSE_LNC_ADDR_BLK) != 0;
                break;
        default:
                out->src = (uint8_t)(dse & PEBS_DSE_SRC);
                out->stlb_miss = (dse & PEBS_DSE_STLB_MISS) != 0;
                out->locked = (dse & PEBS_DSE_LOCKED) != 0;
                out->data_blk = (dse & PEBS_DSE_DATA_BLK) != 0;
                out->addr_blk = (dse & PEBS_DSE_ADDR_BLK) != 0;
                break;
        }
        out->stlb_miss_known = !(fmt && fmt->no_tlb_info);
        if (!out->stlb_miss_known)
                out->stlb_miss = out->locked = false;
        row = dse_lookup(kind, out->src);
        out->level = row->level;
        out->remote = row->remote;
        out->snoop_hitm = row->hitm;
        out->name = row->name;
}

status_t pmu_pebs_to_psample(const struct pmu_pebs_fmt *fmt, const struct pmu_pebs_record *rec,
                             struct psample *out)
{
        struct pmu_pebs_dse d;

        if (!fmt || !rec || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        out->ip = rec->ip;
        out->ip_valid = true;
        out->ip_exact = rec->ip_exact;
        out->tsc = rec->tsc;
        if (!rec->mem_valid)
                return ST_OK;
        /* A load-latency record: the address, its latency and where the data came from. */
        out->is_load = true;
        out->data_la = rec->dla;
        out->data_la_valid = rec->dla != 0;
        out->lat_cycles = rec->lat_cycles;
        out->lat_valid = true;
        out->retire_lat_cycles = rec->instr_lat_cycles;
        pmu_pebs_dse_decode(fmt, rec->dse, &d);
        out->level = d.level;
        out->remote = d.remote;
        out->src_raw = d.src;
        out->l1_miss_known = d.level != PS_LVL_UNKNOWN;
        out->l1_miss = d.level != PS_LVL_L1 && d.level != PS_LVL_UNKNOWN;
        if (d.level == PS_LVL_UNKNOWN && d.src == 0) {
                out->l1_miss_known = true;    /* code 0: "unknown L3 miss" is still a miss */
                out->l1_miss = true;
        }
        out->tlb_l2_known = d.stlb_miss_known;
        out->tlb_l2_miss = d.stlb_miss;
        out->locked = d.locked;
        return ST_OK;
}
