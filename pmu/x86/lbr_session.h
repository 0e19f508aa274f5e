/** @file
 * An Intel LBR session: LBR (legacy or Architectural) records every branch at CPL 0, a cycles
 * counter on general counter 0 raises the PMI, DEBUGCTL.FREEZE_LBRS_ON_PMI keeps the stack
 * still while the PMI body reads it, and the body unfreezes it. The probe decides from CPUID
 * 0x1C or the model table (legacy stack depth) and PERF_CAPABILITIES whether LBR with cycle
 * counts can run and says why not; disarm puts DEBUGCTL and LBR_SELECT / LBR_CTL back. All
 * register access goes through rdmsr_safe / wrmsr_safe and pmu/pmu.h. [SDM-3B] "Last Branch
 * Recording", "Architectural Last Branch Records", "LBR Freeze on PMI"; Linux
 * arch/x86/events/intel/lbr.c.
 */
#ifndef PMUCAL_PMU_X86_LBR_SESSION_H
#define PMUCAL_PMU_X86_LBR_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"
#include "pmu/events.h"
#include "pmu/pmu.h"
#include "pmu/x86/lbr.h"

#define PMU_LBR_MAX_DEPTH 64 /* deepest stack a session reads */

/** An LBR session: the stack read in the PMI of a cycles counter, frozen on PMI. */
struct pmu_lbr_session {
        struct pmu_lbr_fmt fmt;
        unsigned           pmu_version;
        uint32_t           from_base, to_base, info_base; /* MSR numbers of entry 0 */
        uint32_t           cpuid_1c_ebx;                  /* Arch LBR filters offered */
        const struct pmu_event_desc *ev;                  /* trigger: "cycles" */
        uint64_t           period;
        uint64_t           saved_debugctl, saved_select, saved_ctl, saved_depth;
        struct lbr_entry  *stacks;      /* caller's: stack_cap stacks of fmt.depth entries */
        unsigned          *stack_n;     /* entries in each stack */
        size_t             stack_cap, n_stacks;
        uint64_t           n_pmi, n_spurious, n_dropped, n_errors;
        char               why[PMU_WHY_BYTES];
};

/** Decide whether LBR with cycle counts can run: Architectural LBR from CPUID 0x1C, or legacy
 *  LBR with a format carrying cycles and a stack depth from the model table. ST_UNSUPPORTED
 *  with @p s->why otherwise. Needs pmu_init for the trigger counter. */
status_t pmu_lbr_session_probe(const struct cpu_info *cpu, struct pmu_lbr_session *s);
/** Enable LBR for all branches at CPL 0 with freeze-on-PMI and start counter 0 on cycles with
 *  -@p period. */
status_t pmu_lbr_session_arm(struct pmu_lbr_session *s, uint64_t period);
/** The PMI body: read TOS and FROM/TO/INFO (frozen), store the decoded stack, re-arm the
 *  counter, clear its status and unfreeze the LBRs. */
void pmu_lbr_session_on_pmi(struct pmu_lbr_session *s);
/** Stop the counter and put DEBUGCTL / LBR_SELECT / LBR_CTL back. */
status_t pmu_lbr_session_disarm(struct pmu_lbr_session *s);
/** Legacy LBR stack depth of Intel family-6 model @p model; 0 when not in the table. */
unsigned pmu_lbr_model_depth(uint32_t model);

#endif
