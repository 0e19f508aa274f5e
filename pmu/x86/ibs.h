/** @file
 * AMD Instruction-Based Sampling, what op and fetch sampling share: capability detection from
 * the decoded CPUID (struct cpu_info.amd), the IBS_CTL LVT-offset and extended-APIC LVT words,
 * and the session both sides sample into. Each side has one module of its own, from its
 * control register's encoding through arming and the PMI's register reads to the decoded
 * sample: pmu/x86/ibs_op.h and pmu/x86/ibs_fetch.h; pmu/x86/ibs_session.h probes, dispatches
 * the PMI to the armed sides and stops both. MSRs are touched through rdmsr_safe / wrmsr_safe
 * only, so host tests drive a session with the register model tests/fake_msr.c; the decoders
 * are pure, over a raw register snapshot the handler took. Layouts: pmu/x86/msr_ibs.h.
 * [APM-2] "Instruction-Based Sampling"; [PPR-19h-01h] MSRC001_103x; Linux
 * arch/x86/events/amd/ibs.c for the re-arm and disable rules.
 */
#ifndef PMUCAL_IBS_H
#define PMUCAL_IBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "boot/x86/cpuid.h"
#include "boot/x86/msr.h"
#include "pmu/pmu.h"
#include "pmu/x86/msr_ibs.h"
#include "pmu/x86/quirks.h"
#include "pmu/psample.h"

/** What this CPU's IBS can do, and the family/model the decoders key their quirks on. */
struct pmu_ibs_info {
        bool     present;         /* CPUID.80000001H:ECX[10] */
        uint32_t caps;            /* IBS_CAPS_*; IBS_CAPS_DEFAULT when the leaf is absent */
        uint32_t family, model;
        unsigned quirks;          /* PMU_IBS_Q_* from the quirk table pmu/x86/quirks.c */
};

/** The IBS_CTL register: which extended LVT entry IBS interrupts through. */
struct pmu_ibs_lvt {
        unsigned offset;                   /* 0..15 */
        bool     valid;                    /* LvtOffsetVal */
};

struct pmu_ibs_op_regs;    /* pmu/x86/ibs_op.h */
struct pmu_ibs_fetch_regs; /* pmu/x86/ibs_fetch.h */

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

/** The PMI body's MSR read: a fault reads 0 and counts in @p s->n_errors, since the handler
 *  can neither print nor return it. */
static inline void pmu_ibs_rd(struct pmu_ibs_session *s, uint32_t msr, uint64_t *v)
{
        if (rdmsr_safe(msr, v) != ST_OK)
                s->n_errors++;
}

/** The PMI body's MSR write, a fault counted as pmu_ibs_rd does. */
static inline void pmu_ibs_wr(struct pmu_ibs_session *s, uint32_t msr, uint64_t v)
{
        if (wrmsr_safe(msr, v) != ST_OK)
                s->n_errors++;
}

/** Fill @p out from decoded CPUID. ST_UNSUPPORTED when the CPU is not AMD/Hygon or has no
 *  IBS (then @p out->present is false). Applies the errata table by family/model. */
status_t pmu_ibs_detect(const struct cpu_info *cpu, struct pmu_ibs_info *out);

/** Decode IBS_CTL (MSRC001_103A). */
void pmu_ibs_ctl_decode(uint64_t ibs_ctl, struct pmu_ibs_lvt *out);

/** The 32-bit extended-APIC LVT entry word: vector, message type (APIC_EILVT_MSG_*), mask.
 *  ST_BAD_ARG for a message type the entry cannot hold. */
status_t pmu_ibs_eilvt_encode(uint8_t vector, unsigned msg_type, bool masked, uint32_t *out);
/** xAPIC MMIO offset of extended LVT entry @p offset (0x500 + 0x10 * offset). */
uint32_t pmu_ibs_eilvt_reg(unsigned offset);

#endif
