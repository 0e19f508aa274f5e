/** @file
 * Intel PEBS, the pure part: PEBS capabilities from IA32_PERF_CAPABILITIES, the DS save area
 * set-up in caller memory, IA32_PEBS_ENABLE / MSR_PEBS_DATA_CFG / load-latency threshold
 * values, record decoding for formats 0-3 and adaptive PEBS (format 4+, basic + memory-info
 * + GPR/XMM/LBR groups), and the load-latency data-source tables per core generation. The
 * runtime owns the buffers, the MSR writes and the PMI; it passes the records it drained
 * (DS pebs_buffer_base .. pebs_index) to pmu_pebs_decode_buffer(). Layouts: pmu/x86/msr_pebs.h.
 */
#ifndef PMUCAL_PEBS_H
#define PMUCAL_PEBS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "pmu/x86/msr_pebs.h"
#include "pmu/psample.h"

/** PEBS facts from IA32_PERF_CAPABILITIES. */
struct pmu_pebs_caps {
        uint8_t pebs_fmt;       /* [11:8] */
        bool    baseline;       /* [14]: adaptive PEBS, MSR_PEBS_DATA_CFG */
        bool    trap, arch_reg, smm_freeze, fw_write, output_pt, timing_info;
        uint8_t lbr_fmt;        /* [5:0] */
};

/** Which data-source table a core uses (chosen by the runtime from its uarch table). */
enum pmu_pebs_dse_kind {
        PEBS_DSE_NHM = 0,       /* Nehalem/Westmere: 5 snoop hit, 6/7 HITM */
        PEBS_DSE_SNB,           /* Sandy Bridge .. Broadwell: the base table */
        PEBS_DSE_SKL,           /* Skylake .. Golden Cove P-core: L4/PMEM, remote fwd/HITM */
        PEBS_DSE_SKL_PMEM,      /* as SKL with 8/9 = (remote) PMEM */
        PEBS_DSE_GRT,           /* Goldmont+/Tremont/Gracemont E-cores */
        PEBS_DSE_CMT,           /* Crestmont (MTL/SRF E-cores): 5-bit source */
        PEBS_DSE_LNC,           /* Lion Cove (LNL/ARL P-core): 8-bit source */
        PEBS_DSE__COUNT
};

/** How a core's PEBS records are laid out and read. */
struct pmu_pebs_fmt {
        struct pmu_pebs_caps   caps;
        uint64_t               data_cfg;    /* MSR_PEBS_DATA_CFG as programmed (adaptive) */
        enum pmu_pebs_dse_kind dse_kind;
        bool                   split_latency; /* ADL+: meminfo latency = instr | cache << 32 */
        bool                   no_tlb_info;   /* Nehalem: dse bits 4/5 not reported */
};

/** One decoded PEBS record. */
struct pmu_pebs_record {
        uint64_t ip;            /* eventing IP where the format has it, else IP after */
        bool     ip_exact;
        uint64_t applicable;    /* counters this record belongs to (status / applicable) */
        uint64_t dla;           /* data linear address (0 = none) */
        bool     mem_valid;     /* the record carries dla/dse/latency */
        uint64_t dse;
        uint32_t lat_cycles;    /* load latency (ADL+: cache latency) */
        uint32_t instr_lat_cycles; /* ADL+ instruction latency, else 0 */
        uint16_t retire_lat_cycles; /* adaptive basic [47:32] */
        uint64_t tsc;           /* 0 before format 3 */
        uint32_t size_bytes;    /* bytes this record occupies */
        size_t   lbr_offset;    /* adaptive LBR group: byte offset in the record, 0 = none */
        unsigned n_lbr;
};

/** A decoded data-source word. */
struct pmu_pebs_dse {
        uint8_t            src;         /* table index */
        enum psample_level level;
        bool               remote;
        bool               snoop_hitm;
        bool               stlb_miss_known, stlb_miss;
        bool               locked, data_blk, addr_blk;
        const char        *name;        /* "L3 hit, snoop hit" */
};

/** Decode IA32_PERF_CAPABILITIES. */
void pmu_pebs_caps_decode(uint64_t perf_capabilities, struct pmu_pebs_caps *out);

/** Bytes per record: fixed for formats 0-3; for adaptive PEBS computed from @p fmt->data_cfg
 *  (basic + enabled groups). 0 for a format this code does not know. */
uint32_t pmu_pebs_record_size(const struct pmu_pebs_fmt *fmt);

/** The 64-bit DS save area (memory layout, [SDM-3B]); the runtime allocates it. */
struct pmu_ds_area {
        uint64_t bts_buffer_base, bts_index, bts_absolute_maximum, bts_interrupt_threshold;
        uint64_t pebs_buffer_base, pebs_index, pebs_absolute_maximum, pebs_interrupt_threshold;
        uint64_t pebs_event_reset[DS_RESET_NR];
};

/** Point @p ds at a PEBS buffer at linear address @p buf_la of @p buf_bytes for records of
 *  @p rec_bytes: index = base, absolute maximum rounded down to whole records, interrupt
 *  threshold after @p pmi_after_records records (1 = a PMI per record). BTS left off.
 *  ST_BAD_ARG when the buffer holds no record or the threshold is beyond it. */
status_t pmu_pebs_ds_setup(struct pmu_ds_area *ds, uint64_t buf_la, uint64_t buf_bytes,
                           uint32_t rec_bytes, uint32_t pmi_after_records);

/** Set the reload value for GP counter @p gp (fixed = false) or fixed counter @p gp (fixed =
 *  true): the counter restarts at -@p period after each record. ST_BAD_ARG out of range. */
status_t pmu_pebs_ds_set_reset(struct pmu_ds_area *ds, const struct pmu_pebs_caps *caps,
                               unsigned counter, bool fixed, uint64_t period, unsigned width);

/** Records written since set-up: (pebs_index - pebs_buffer_base) / @p rec_bytes; 0 on a
 *  corrupt index. */
uint64_t pmu_pebs_ds_count(const struct pmu_ds_area *ds, uint32_t rec_bytes);

/** IA32_PEBS_ENABLE for GP counters @p gp_mask, load-latency GP counters @p ldlat_mask
 *  (subset of gp_mask) and fixed counters @p fixed_mask, for perfmon @p pmu_version. */
uint64_t pmu_pebs_enable_value(const struct pmu_pebs_caps *caps, unsigned pmu_version,
                               uint32_t gp_mask, uint32_t ldlat_mask, uint32_t fixed_mask);

/** MSR_PEBS_DATA_CFG for the groups wanted and @p n_lbr LBR entries (0 = no LBR group,
 *  else 1..256). ST_BAD_ARG for n_lbr > 256. */
status_t pmu_pebs_data_cfg(bool meminfo, bool gprs, bool xmms, unsigned n_lbr, uint64_t *out);

/** MSR_PEBS_LD_LAT_THRESHOLD for @p cycles (1..0xffff); ST_BAD_ARG otherwise. */
status_t pmu_pebs_ld_lat_threshold(uint32_t cycles, uint64_t *out);

/** Decode the record at @p rec (@p avail bytes readable). ST_BAD_DATA when the record is
 *  truncated or an adaptive record's size/group word is inconsistent; ST_UNSUPPORTED for
 *  an unknown format. */
status_t pmu_pebs_decode(const struct pmu_pebs_fmt *fmt, const void *rec, size_t avail,
                         struct pmu_pebs_record *out);

/** Decode the records in @p buf (@p len bytes: base .. index) into @p out (capacity @p max);
 *  @p n gets the count decoded. Stops with ST_BAD_DATA at the first bad record (records
 *  before it are kept) and ST_NO_SPACE when @p out is full. */
status_t pmu_pebs_decode_buffer(const struct pmu_pebs_fmt *fmt, const void *buf, size_t len,
                                struct pmu_pebs_record *out, size_t max, size_t *n);

/** Decode a load-latency data-source word with the table of @p kind. */
void pmu_pebs_dse_decode(const struct pmu_pebs_fmt *fmt, uint64_t dse, struct pmu_pebs_dse *out);

/** Convert a decoded load-latency record into the common sample. */
status_t pmu_pebs_to_psample(const struct pmu_pebs_fmt *fmt, const struct pmu_pebs_record *rec,
                             struct psample *out);

#endif
