/** @file
 * An AMD IBS sampling session: op and/or fetch sampling through the extended LVT entry
 * IBS_CTL names. The probe decides from CPUID (struct cpu_info) and IBS_CTL whether IBS can
 * run and says why not; arm / on_pmi / disarm program it and take samples in the PMI into
 * the caller's buffers. Register layouts and the pure encoders/decoders are pmu/x86/ibs.c;
 * this is the part that touches MSRs, always through rdmsr_safe / wrmsr_safe, so host tests
 * drive it with the register model tests/fake_msr.c. The PMI body never prints or allocates.
 * [APM-2] "Instruction-Based Sampling"; [PPR-19h-01h] MSRC001_103x; Linux
 * arch/x86/events/amd/ibs.c for the re-arm and disable rules.
 */
#ifndef PMUCAL_PMU_X86_IBS_SESSION_H
#define PMUCAL_PMU_X86_IBS_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"
#include "pmu/pmu.h"
#include "pmu/x86/ibs.h"

/** An IBS session: what the probe found, what is armed, and the samples taken. */
struct pmu_ibs_session {
        struct pmu_ibs_info        info;
        struct pmu_ibs_lvt         lvt;        /* from IBS_CTL at probe time */
        uint64_t                   op_ctl, fetch_ctl; /* as armed; 0 = that side is off */
        struct pmu_ibs_op_regs    *ops;        /* caller's buffers */
        size_t                     op_cap, n_op;
        struct pmu_ibs_fetch_regs *fetches;
        size_t                     fetch_cap, n_fetch;
        uint64_t                   op_tail;    /* ops/cycles counted after the last sample */
        uint64_t                   op_carried; /* random CurCnt bits the re-arms carried:
                                                * counted before their periods began */
        uint64_t                   n_pmi, n_spurious, n_dropped, n_errors;
        char                       why[PMU_WHY_BYTES];
};

/** Decide whether IBS can run on the CPU @p cpu describes: CPUID, then IBS_CTL. ST_UNSUPPORTED
 *  with @p s->why when it cannot (no IBS; Fam10h needs northbridge PCI config 0x1CC, which the
 *  harness cannot reach; the firmware left LvtOffsetVal clear). */
status_t pmu_ibs_session_probe(const struct cpu_info *cpu, struct pmu_ibs_session *s);
/** Start sampling with control values @p op_ctl / @p fetch_ctl (0 = leave that side off). */
status_t pmu_ibs_session_arm(struct pmu_ibs_session *s, uint64_t op_ctl, uint64_t fetch_ctl);
/** The PMI body: for each side with its Val bit set, read the sample registers, store them
 *  (counted as dropped when the buffer is full) and re-arm. No Val bit set: spurious. */
void pmu_ibs_session_on_pmi(struct pmu_ibs_session *s);
/** Stop both sides (the family's disable sequence) and note the ops counted since the last
 *  sample in @p s->op_tail. */
status_t pmu_ibs_session_disarm(struct pmu_ibs_session *s);

#endif
