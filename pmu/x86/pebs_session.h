/** @file
 * An Intel PEBS load-latency session on general counter 1 with the caller's own DS save area
 * and PEBS buffer: the probe decides from CPUID, the PMU capabilities, IA32_MISC_ENABLE and
 * the model tables (data-source layout, load-latency event) whether it can run and says why
 * not; arm programs DS_AREA, the threshold and the counter; the PMI body drains records base
 * .. index into the caller's buffer (GLOBAL_STATUS bit 62); disarm puts every MSR it touched
 * back. Records are decoded afterwards by pmu/x86/pebs.c. All register access goes through
 * rdmsr_safe / wrmsr_safe and pmu/pmu.h. [SDM-3B] "Debug Store (DS) Mechanism", "Load Latency
 * Performance Monitoring Facility"; Linux arch/x86/events/intel/ds.c.
 */
#ifndef PMUCAL_PMU_X86_PEBS_SESSION_H
#define PMUCAL_PMU_X86_PEBS_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"
#include "pmu/events.h"
#include "pmu/pmu.h"
#include "pmu/x86/pebs.h"

/** A PEBS load-latency session. */
struct pmu_pebs_session {
        struct pmu_pebs_fmt          fmt;
        unsigned                     pmu_version;
        const struct pmu_event_desc *ev;          /* MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* */
        struct pmu_ds_area          *ds;          /* caller-allocated, page aligned */
        uint8_t                     *buf;         /* PEBS buffer (DS base .. maximum) */
        size_t                       buf_bytes;
        uint32_t                     rec_bytes;
        uint8_t                     *raw;         /* drained records, caller-allocated */
        size_t                       raw_cap, raw_len;
        uint64_t                     period;
        uint32_t                     ldlat_cycles;
        uint64_t                     saved_ds_area, saved_pebs_enable, saved_ld_lat, saved_data_cfg;
        uint64_t                     n_pmi, n_spurious, n_dropped, n_errors, n_records;
        char                         why[PMU_WHY_BYTES];
};

/** Decide whether PEBS load latency can run: Intel, DS and DTES64 from CPUID, a core PMU
 *  (pmu_init done), PERF_CAPABILITIES' PEBS format, IA32_MISC_ENABLE's PEBS-unavailable bit
 *  clear, a load-latency event in the CPU's event table, a data-source table for the model.
 *  ST_UNSUPPORTED with @p s->why otherwise. */
status_t pmu_pebs_session_probe(const struct cpu_info *cpu, struct pmu_pebs_session *s);
/** Point the DS area at @p s->buf, program counter 1 for the load-latency event with
 *  -@p period and threshold @p ldlat_cycles, enable PEBS and start the counter. */
status_t pmu_pebs_session_arm(struct pmu_pebs_session *s, uint64_t period,
                              uint32_t ldlat_cycles);
/** The PMI body: on GLOBAL_STATUS bit 62 (DS buffer) or the counter's bit, copy the records
 *  base .. index into @p s->raw, reset the index, clear the status bits. */
void pmu_pebs_session_on_pmi(struct pmu_pebs_session *s);
/** Stop the counter, drain what is left, put DS_AREA and PEBS_ENABLE back. */
status_t pmu_pebs_session_disarm(struct pmu_pebs_session *s);

/** Which data-source table family-6 model @p model uses and whether its data source lacks the
 *  STLB-miss/lock bits (@p no_tlb may be NULL); false when not in the table. */
bool pmu_pebs_model_dse(uint32_t model, enum pmu_pebs_dse_kind *kind, bool *split_latency,
                        bool *no_tlb);
/** The load-latency event of event table @p t, looked up by perf name
 *  (MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4 and its Nehalem and Atom counterparts); NULL when the
 *  table has none (the generic intel-arch table never has: the event is model-specific). */
const struct pmu_event_desc *pmu_pebs_ldlat_event(const struct pmu_event_table *t);

#endif
