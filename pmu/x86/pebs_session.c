/** @file
 * The Intel PEBS load-latency session (see pmu/x86/pebs_session.h): the DS save
 * area and PEBS buffer are the harness's own, the counter is general counter 1 through
 * pmu/pmu.h, records are drained base .. index in the PMI (GLOBAL_STATUS bit 62) and decoded
 * afterwards by pmu/x86/pebs.c. [SDM-3B] "Debug Store (DS) Mechanism", "Load Latency Performance
 * Monitoring Facility"; Linux arch/x86/events/intel/ds.c.
 */
#include "pmu/x86/pebs_session.h"

#include "boot/x86/msr.h"
#include "pmu/x86/msr_arch.h"
#include "lib/base.h"
#include "lib/fmt.h"

/* ---- constants -------------------------------------------------------------------------- */

/* The load-latency event by perf name; the code comes from the CPU's event table
 * (pmu/events/), never from here. perf lists one event per threshold (GT_4 .. GT_512, same
 * code, MSRValue for MSR_PEBS_LD_LAT_THRESHOLD); any of them is the same counter event, and
 * pmu_pebs_session_arm programs the threshold. Names as in Linux tools/perf/pmu-events/arch/x86. */
static const char *const ldlat_events[] = {
        "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4",          /* Sandy Bridge .. Granite Rapids */
        "MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD_0",   /* Nehalem, Westmere */
        "MEM_UOPS_RETIRED.LOAD_LATENCY_GT_4",           /* Tremont, Gracemont, Crestmont */
};

/* Which data-source table a family-6 model uses. Hybrid parts (Alder Lake and later client)
 * are left out: the table depends on the core type the harness runs on (CPUID 0x1A). */
struct dse_model {
        uint32_t               model_lo, model_hi;
        enum pmu_pebs_dse_kind kind;
        bool                   split_latency;
        bool                   no_tlb;  /* dse bits 4/5 (STLB miss, lock) not reported */
        const char            *ref;
};

static const struct dse_model dse_models[] = {
        /* models      kind               split  no_tlb reference: Linux intel/core.c
         * intel_pmu_init; no_tlb: x86_pmu.pebs_no_tlb, set for Nehalem only */
        { 0x1a, 0x1a, PEBS_DSE_NHM,     false, true,  "Nehalem-EP" },
        { 0x1e, 0x1f, PEBS_DSE_NHM,     false, true,  "Lynnfield" },
        { 0x2e, 0x2e, PEBS_DSE_NHM,     false, true,  "Nehalem-EX" },
        { 0x25, 0x25, PEBS_DSE_NHM,     false, false, "Westmere" },
        { 0x2c, 0x2c, PEBS_DSE_NHM,     false, false, "Westmere-EP" },
        { 0x2f, 0x2f, PEBS_DSE_NHM,     false, false, "Westmere-EX" },
        { 0x2a, 0x2a, PEBS_DSE_SNB,     false, false, "Sandy Bridge" },
        { 0x2d, 0x2d, PEBS_DSE_SNB,     false, false, "Sandy Bridge-EP" },
        { 0x3a, 0x3a, PEBS_DSE_SNB,     false, false, "Ivy Bridge" },
        { 0x3e, 0x3e, PEBS_DSE_SNB,     false, false, "Ivy Bridge-EP" },
        { 0x3c, 0x3c, PEBS_DSE_SNB,     false, false, "Haswell" },
        { 0x3f, 0x3f, PEBS_DSE_SNB,     false, false, "Haswell-X" },
        { 0x45, 0x46, PEBS_DSE_SNB,     false, false, "Haswell-L/G" },
        { 0x3d, 0x3d, PEBS_DSE_SNB,     false, false, "Broadwell" },
        { 0x47, 0x47, PEBS_DSE_SNB,     false, false, "Broadwell-G" },
        { 0x4f, 0x4f, PEBS_DSE_SNB,     false, false, "Broadwell-X" },
        { 0x56, 0x56, PEBS_DSE_SNB,     false, false, "Broadwell-D" },
        { 0x4e, 0x4e, PEBS_DSE_SKL,     false, false, "Skylake-L" },
        { 0x5e, 0x5e, PEBS_DSE_SKL,     false, false, "Skylake" },
        { 0x55, 0x55, PEBS_DSE_SKL_PMEM, false, false, "Skylake-X / Cascade Lake (pmem)" },
        { 0x8e, 0x8e, PEBS_DSE_SKL,     false, false, "Kaby Lake-L" },
        { 0x9e, 0x9e, PEBS_DSE_SKL,     false, false, "Kaby/Coffee Lake" },
        { 0xa5, 0xa6, PEBS_DSE_SKL,     false, false, "Comet Lake" },
        { 0x66, 0x66, PEBS_DSE_SKL,     false, false, "Cannon Lake" },
        { 0x7d, 0x7e, PEBS_DSE_SKL,     false, false, "Ice Lake client" },
        { 0x6a, 0x6a, PEBS_DSE_SKL_PMEM, false, false, "Ice Lake-X (pmem)" },
        { 0x6c, 0x6c, PEBS_DSE_SKL_PMEM, false, false, "Ice Lake-D (pmem)" },
        { 0x8c, 0x8d, PEBS_DSE_SKL,     false, false, "Tiger Lake" },
        { 0xa7, 0xa7, PEBS_DSE_SKL,     false, false, "Rocket Lake" },
        { 0x8f, 0x8f, PEBS_DSE_SKL_PMEM, true,  false, "Sapphire Rapids (PMU_FL_INSTR_LATENCY)" },
        { 0xcf, 0xcf, PEBS_DSE_SKL_PMEM, true,  false, "Emerald Rapids" },
        { 0xad, 0xae, PEBS_DSE_SKL_PMEM, true,  false, "Granite Rapids" },
        { 0x86, 0x86, PEBS_DSE_GRT,     false, false, "Tremont-D" },
        { 0x96, 0x96, PEBS_DSE_GRT,     false, false, "Elkhart Lake" },
        { 0x9c, 0x9c, PEBS_DSE_GRT,     false, false, "Jasper Lake" },
        { 0xbe, 0xbe, PEBS_DSE_GRT,     true,  false, "Alder Lake-N (Gracemont only)" },
        { 0xaf, 0xaf, PEBS_DSE_CMT,     true,  false, "Sierra Forest" },
        { 0xb6, 0xb6, PEBS_DSE_CMT,     true,  false, "Grand Ridge" },
};

#define PEBS_BUFFER_SLACK_RECORDS 8   /* records the CPU may still write after the PMI */

/* ---- private helpers -------------------------------------------------------------------- */

/* General counter 1: the load-latency event may use counters 0-3 on Nehalem..Ice Lake but
 * only 1-7 on Sapphire Rapids (Linux perf pmu-events sapphirerapids/memory.json, "Counter"
 * of MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4), so 1 is the one every table allows. The
 * core:TSC ratio counter of the same run uses counter 0 (pmu/x86/clock.c). */
#define PEBS_GP 1u
static const struct pmu_slot pebs_ctr = { .fixed = false, .idx = PEBS_GP };

static void drain(struct pmu_pebs_session *s)
{
        struct pmu_ds_area *ds = s->ds;
        uint64_t len;

        if (ds->pebs_index < ds->pebs_buffer_base ||
            ds->pebs_index - ds->pebs_buffer_base > s->buf_bytes) {
                s->n_errors++;
                ds->pebs_index = ds->pebs_buffer_base;
                return;
        }
        len = ds->pebs_index - ds->pebs_buffer_base;
        if (len && s->raw && s->raw_len + len <= s->raw_cap) {
                memcpy(s->raw + s->raw_len, s->buf, len);
                s->raw_len += len;
        } else if (len) {
                s->n_dropped += len / s->rec_bytes;
        }
        s->n_records += len / s->rec_bytes;
        ds->pebs_index = ds->pebs_buffer_base;
}

/* ---- public functions ------------------------------------------------------------------- */

const struct pmu_event_desc *pmu_pebs_ldlat_event(const struct pmu_event_table *t)
{
        const struct pmu_event_desc *ev = NULL;

        for (size_t i = 0; t && i < ARRAY_SIZE(ldlat_events) && !ev; i++)
                ev = pmu_event_find(t, ldlat_events[i]);
        return ev;
}

bool pmu_pebs_model_dse(uint32_t model, enum pmu_pebs_dse_kind *kind, bool *split_latency,
                        bool *no_tlb)
{
        for (size_t i = 0; i < ARRAY_SIZE(dse_models); i++) {
                if (model < dse_models[i].model_lo || model > dse_models[i].model_hi)
                        continue;
                *kind = dse_models[i].kind;
                *split_latency = dse_models[i].split_latency;
                if (no_tlb)
                        *no_tlb = dse_models[i].no_tlb;
                return true;
        }
        return false;
}

status_t pmu_pebs_session_probe(const struct cpu_info *cpu, struct pmu_pebs_session *s)
{
        const struct pmu_caps *caps = pmu_get_caps();
        uint64_t misc = 0;

        if (!cpu || !s)
                return ST_BAD_ARG;
        memset(s, 0, sizeof(*s));
        if (cpu->vendor != VEN_INTEL) {
                fmt_snprintf(s->why, sizeof(s->why), "not an Intel CPU");
                return ST_UNSUPPORTED;
        }
        if (!cpu->intel.ds || !cpu->intel.dtes64) {
                fmt_snprintf(s->why, sizeof(s->why), "CPUID.01H %s is clear: no 64-bit debug store",
                             !cpu->intel.ds ? "EDX[21] DS" : "ECX[2] DTES64");
                return ST_UNSUPPORTED;
        }
        if (!caps->available) {
                fmt_snprintf(s->why, sizeof(s->why), "no core PMU: %s",
                             caps->reason ? caps->reason : "unknown");
                return ST_UNSUPPORTED;
        }
        if (!caps->has_perf_caps) {
                fmt_snprintf(s->why, sizeof(s->why), "no IA32_PERF_CAPABILITIES (CPUID.01H:ECX[15] "
                             "PDCM clear): PEBS record format unknown");
                return ST_UNSUPPORTED;
        }
        if (rdmsr_safe(MSR_IA32_MISC_ENABLE, &misc) != ST_OK ||
            (misc & MISC_ENABLE_PEBS_UNAVAIL)) {
                fmt_snprintf(s->why, sizeof(s->why), "IA32_MISC_ENABLE[12] says PEBS is "
                             "unavailable (0x%llx)", (unsigned long long)misc);
                return ST_UNSUPPORTED;
        }
        pmu_pebs_caps_decode(caps->perf_caps, &s->fmt.caps);
        s->pmu_version = caps->version;
        if (!pmu_pebs_model_dse(cpu->model, &s->fmt.dse_kind, &s->fmt.split_latency,
                                &s->fmt.no_tlb_info) ||
            cpu->family != 6) {
                fmt_snprintf(s->why, sizeof(s->why), "no PEBS data-source table for family 0x%x "
                             "model 0x%x (hybrid or unknown core)", cpu->family, cpu->model);
                return ST_UNSUPPORTED;
        }
        if (s->fmt.caps.baseline &&
            pmu_pebs_data_cfg(true, false, false, 0, &s->fmt.data_cfg) != ST_OK)
                return ST_BAD_ARG;
        if ((s->rec_bytes = pmu_pebs_record_size(&s->fmt)) == 0) {
                fmt_snprintf(s->why, sizeof(s->why), "PEBS record format %u not known to the "
                             "decoder", s->fmt.caps.pebs_fmt);
                return ST_UNSUPPORTED;
        }
        if (!(s->ev = pmu_pebs_ldlat_event(caps->events))) {
                fmt_snprintf(s->why, sizeof(s->why), "no load-latency event "
                             "(MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4) in event table %s for model "
                             "0x%x (pmu/events/mapfile.csv has no model table)",
                             caps->events ? caps->events->name : "none", cpu->model);
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}

status_t pmu_pebs_session_arm(struct pmu_pebs_session *s, uint64_t period, uint32_t ldlat_cycles)
{
        uint64_t cap_records, thr, v;
        status_t st;

        if (!s || !s->ds || !s->buf || !s->rec_bytes || !period)
                return ST_BAD_ARG;
        cap_records = s->buf_bytes / s->rec_bytes;
        if (cap_records < 2)
                return ST_BAD_ARG;
        thr = cap_records > PEBS_BUFFER_SLACK_RECORDS ? cap_records - PEBS_BUFFER_SLACK_RECORDS
                                                     : 1;
        memset(s->ds, 0, sizeof(*s->ds));
        if ((st = pmu_pebs_ds_setup(s->ds, (uint64_t)(uintptr_t)s->buf, s->buf_bytes,
                                    s->rec_bytes, (uint32_t)thr)) != ST_OK)
                return st;
        if ((st = pmu_pebs_ds_set_reset(s->ds, &s->fmt.caps, PEBS_GP, false, period,
                                        pmu_slot_width(pebs_ctr))) != ST_OK)
                return st;
        if ((st = pmu_pebs_ld_lat_threshold(ldlat_cycles, &v)) != ST_OK)
                return st;
        s->period = period;
        s->ldlat_cycles = ldlat_cycles;
        s->raw_len = 0;
        s->n_pmi = s->n_spurious = s->n_dropped = s->n_errors = s->n_records = 0;
        rdmsr_safe(MSR_IA32_DS_AREA, &s->saved_ds_area);
        rdmsr_safe(MSR_IA32_PEBS_ENABLE, &s->saved_pebs_enable);
        rdmsr_safe(MSR_PEBS_LD_LAT_THRESHOLD, &s->saved_ld_lat);
        if (s->fmt.caps.baseline)
                rdmsr_safe(MSR_PEBS_DATA_CFG, &s->saved_data_cfg);
        if ((st = wrmsr_safe(MSR_PEBS_LD_LAT_THRESHOLD, v)) != ST_OK ||
            (st = wrmsr_safe(MSR_IA32_DS_AREA, (uint64_t)(uintptr_t)s->ds)) != ST_OK)
                goto undo;
        if (s->fmt.caps.baseline && (st = wrmsr_safe(MSR_PEBS_DATA_CFG, s->fmt.data_cfg)) != ST_OK)
                goto undo;
        /* No INT: the PMI comes from the DS interrupt threshold (GLOBAL_STATUS bit 62); INT
         * would add one per record. Adaptive_Record makes the CPU write the groups
         * MSR_PEBS_DATA_CFG selects; without it only the basic group. Linux
         * intel_pmu_pebs_enable does both. */
        if ((st = pmu_program(pebs_ctr, s->ev, PMU_OS | (s->fmt.caps.baseline ? PMU_ADAPTIVE : 0),
                              -period)) != ST_OK)
                goto undo;
        v = pmu_pebs_enable_value(&s->fmt.caps, s->pmu_version, 1u << PEBS_GP, 1u << PEBS_GP, 0);
        if ((st = wrmsr_safe(MSR_IA32_PEBS_ENABLE, v)) != ST_OK)
                goto undo;
        pmu_ovf_clear(pmu_slot_bit(pebs_ctr) | GLOBAL_STATUS_BUFFER_OVF);
        if ((st = pmu_start(pmu_slot_bit(pebs_ctr))) != ST_OK)
                goto undo;
        return ST_OK;
undo:
        pmu_pebs_session_disarm(s);
        return st;
}

void pmu_pebs_session_on_pmi(struct pmu_pebs_session *s)
{
        uint64_t status = 0, mine;

        if (!s || !s->ds)
                return;
        s->n_pmi++;
        if (pmu_ovf_status(&status) != ST_OK)
                s->n_errors++;
        mine = status & (GLOBAL_STATUS_BUFFER_OVF | pmu_slot_bit(pebs_ctr));
        if (!mine) {
                s->n_spurious++;
                return;
        }
        /* Stop the counter while the buffer is read, as Linux's handler disables the PMU
         * (intel_pmu_handle_irq), so no record lands between the copy and the index reset. */
        pmu_stop(pmu_slot_bit(pebs_ctr));
        drain(s);
        if (pmu_ovf_clear(mine) != ST_OK)
                s->n_errors++;
        pmu_start(pmu_slot_bit(pebs_ctr));
}

status_t pmu_pebs_session_disarm(struct pmu_pebs_session *s)
{
        status_t first = ST_OK, st;

        if (!s)
                return ST_BAD_ARG;
        if ((st = pmu_stop(pmu_slot_bit(pebs_ctr))) != ST_OK)
                first = st;
        if ((st = wrmsr_safe(MSR_IA32_PEBS_ENABLE, s->saved_pebs_enable)) != ST_OK && !first)
                first = st;
        if (s->ds)
                drain(s);
        if (s->fmt.caps.baseline)
                wrmsr_safe(MSR_PEBS_DATA_CFG, s->saved_data_cfg);
        wrmsr_safe(MSR_PEBS_LD_LAT_THRESHOLD, s->saved_ld_lat);
        if ((st = wrmsr_safe(MSR_IA32_DS_AREA, s->saved_ds_area)) != ST_OK && !first)
                first = st;
        pmu_ovf_clear(pmu_slot_bit(pebs_ctr) | GLOBAL_STATUS_BUFFER_OVF);
        return first;
}
