/** @file
 * An AMD IBS sampling session as a whole: op and/or fetch sampling through the extended LVT
 * entry IBS_CTL names. The probe decides from CPUID (struct cpu_info) and IBS_CTL whether IBS
 * can run and says why not; the PMI body hands the interrupt to each armed side, which takes
 * its sample into the caller's buffers and re-arms; arm / disarm start or stop both sides at
 * once. Each side alone is pmu/x86/ibs_op.h and pmu/x86/ibs_fetch.h; the session struct and
 * what the sides share, pmu/x86/ibs.h. The PMI body never prints or allocates.
 */
#ifndef PMUCAL_PMU_X86_IBS_SESSION_H
#define PMUCAL_PMU_X86_IBS_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"
#include "pmu/x86/ibs.h"
#include "pmu/x86/ibs_fetch.h"
#include "pmu/x86/ibs_op.h"

/** Decide whether IBS can run on the CPU @p cpu describes: CPUID, then IBS_CTL. ST_UNSUPPORTED
 *  with @p s->why when it cannot (no IBS; Fam10h needs northbridge PCI config 0x1CC, which the
 *  harness cannot reach; the firmware left LvtOffsetVal clear). */
status_t pmu_ibs_session_probe(const struct cpu_info *cpu, struct pmu_ibs_session *s);
/** Start sampling with control values @p op_ctl / @p fetch_ctl (0 = that side off): each
 *  side's arm in turn; when the fetch side faults, both are stopped again. */
status_t pmu_ibs_session_arm(struct pmu_ibs_session *s, uint64_t op_ctl, uint64_t fetch_ctl);
/** The PMI body: each armed side takes its sample (pmu_ibs_op_take, pmu_ibs_fetch_take);
 *  neither had one: spurious. */
void pmu_ibs_session_on_pmi(struct pmu_ibs_session *s);
/** Stop both sides (pmu_ibs_op_disarm, pmu_ibs_fetch_disarm): the first side's fault, else
 *  the second's, else ST_OK. */
status_t pmu_ibs_session_disarm(struct pmu_ibs_session *s);

#endif
