/** @file
 * Intel Last Branch Records, the pure part: format selection (legacy from
 * IA32_PERF_CAPABILITIES[5:0], Architectural LBR from CPUID 0x1C), control-register values
 * (LBR_SELECT / IA32_LBR_CTL / DEBUGCTL freeze-on-PMI), decoding FROM/TO/INFO triples into
 * struct lbr_entry, ordering a raw stack newest-first, and cycles per basic block from
 * consecutive entries (the modern form of HP Caliper's cycles-per-bundle from the Itanium
 * ETB). The runtime reads the MSRs (pmu/x86/msr_lbr.h) in the PMI with LBRs frozen.
 */
#ifndef PMUCAL_LBR_H
#define PMUCAL_LBR_H

#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"
#include "pmu/x86/msr_lbr.h"

/** How this CPU's LBR stack is read. */
struct pmu_lbr_fmt {
        bool     arch;          /* Architectural LBR */
        uint8_t  legacy_fmt;    /* LBR_FORMAT_* when !arch */
        unsigned depth;         /* entries */
        bool     has_cycles;    /* entries can carry cycle counts */
        bool     has_mispred;
        bool     has_br_type;   /* Arch LBR INFO[59:56] */
};

/** One decoded branch record. */
struct lbr_entry {
        uint64_t from, to;      /* sign-extended linear addresses, flags stripped */
        uint16_t cycles;        /* core cycles since the previous (older) entry */
        bool     cycles_valid;
        bool     mispred_valid, mispred;
        bool     in_tx, abort;
        uint8_t  br_type;       /* Arch LBR branch type, 0 when not reported */
};

/** A straight-line block between two recorded branches and the cycles it took. */
struct lbr_block {
        uint64_t start;         /* target of the older branch */
        uint64_t end;           /* source of the newer branch */
        uint32_t cycles;
};

/** Running statistics of one (start, end) block over many stacks. */
struct lbr_block_stat {
        uint64_t start, end;
        uint32_t n;
        uint64_t sum_cycles;
        uint32_t min_cycles, max_cycles;
};

/* Branch classes to record (pmu_lbr_select_value / pmu_lbr_arch_ctl_value). */
#define PMU_LBR_F_KERNEL      BIT_ULL(0)
#define PMU_LBR_F_USER        BIT_ULL(1)
#define PMU_LBR_F_JCC         BIT_ULL(2)
#define PMU_LBR_F_REL_CALL    BIT_ULL(3)
#define PMU_LBR_F_IND_CALL    BIT_ULL(4)
#define PMU_LBR_F_RETURN      BIT_ULL(5)
#define PMU_LBR_F_IND_JMP     BIT_ULL(6)
#define PMU_LBR_F_REL_JMP     BIT_ULL(7)
#define PMU_LBR_F_OTHER       BIT_ULL(8)  /* far branches / other */
#define PMU_LBR_F_CALL_STACK  BIT_ULL(9)
#define PMU_LBR_F_ALL_BRANCHES 0x1fcu     /* JCC .. OTHER */

/** Legacy LBR format from IA32_PERF_CAPABILITIES and the model's stack depth @p nr (a power
 *  of two: 4, 8, 16, 32). ST_UNSUPPORTED for a format beyond LBR_FORMAT_MAX_KNOWN;
 *  ST_BAD_ARG for a bad depth. */
status_t pmu_lbr_fmt_legacy(uint64_t perf_capabilities, unsigned nr, struct pmu_lbr_fmt *out);

/** Architectural LBR from CPUID.1CH EAX/ECX; @p want_depth 0 = deepest supported, else it
 *  must be a depth the EAX bitmap allows. ST_UNSUPPORTED when no depth is offered. */
status_t pmu_lbr_fmt_arch(uint32_t cpuid_1c_eax, uint32_t cpuid_1c_ecx, unsigned want_depth,
                          struct pmu_lbr_fmt *out);

/** Decode one FROM/TO/INFO triple (@p info ignored by formats without an INFO MSR; for
 *  LBR_FORMAT_32, @p from holds the single MSR). */
status_t pmu_lbr_decode(const struct pmu_lbr_fmt *fmt, uint64_t from, uint64_t to, uint64_t info,
                        struct lbr_entry *out);

/** Decode a raw stack read in MSR index order (arrays of @p fmt->depth; @p info may be NULL
 *  when the format has none) into @p out newest first. Legacy stacks start at @p tos
 *  (MSR_LBR_TOS); Arch LBR entry 0 is the newest and @p tos is ignored. Empty slots (FROM
 *  and TO both 0) end the stack. @p n gets the count. */
status_t pmu_lbr_stack(const struct pmu_lbr_fmt *fmt, const uint64_t *from, const uint64_t *to,
                       const uint64_t *info, uint64_t tos, struct lbr_entry *out, unsigned *n);

/** MSR_LBR_SELECT for the classes in @p flags (PMU_LBR_F_*): bits of unwanted classes set. */
uint64_t pmu_lbr_select_value(unsigned flags);
/** IA32_LBR_CTL for the classes in @p flags, with LBREn. The CPL bits are written only
 *  with CPUID.1CH:EBX[0], the branch-type bits only with EBX[1] and call-stack mode only with
 *  EBX[2] (reserved otherwise: #GP); without them the CPU records every class. */
uint64_t pmu_lbr_arch_ctl_value(unsigned flags, uint32_t cpuid_1c_ebx);
/** IA32_DEBUGCTL from @p cur: legacy LBR enable (not for Arch LBR) and freeze-on-PMI, which
 *  Linux leaves off in call-stack mode. */
uint64_t pmu_lbr_debugctl_value(const struct pmu_lbr_fmt *fmt, uint64_t cur, bool call_stack);

/** Blocks from a newest-first stack: block i runs from e[i+1].to to e[i].from and took
 *  e[i].cycles. Entries without a valid cycle count or with start > end are skipped (counted
 *  in @p n_skipped if not NULL). ST_NO_SPACE when @p out fills (blocks so far kept). */
status_t pmu_lbr_blocks(const struct lbr_entry *e, unsigned n, struct lbr_block *out,
                        unsigned max, unsigned *n_out, unsigned *n_skipped);

/** Fold @p n blocks into the statistics table @p st (@p *n_st used of @p max). ST_NO_SPACE
 *  when a new block does not fit (the others are still folded). */
status_t pmu_lbr_block_accumulate(struct lbr_block_stat *st, size_t *n_st, size_t max,
                                  const struct lbr_block *b, size_t n);

/** Mean cycles of a block, in milli-cycles (integer; 0 when n is 0). */
uint64_t pmu_lbr_block_mean_mcyc(const struct lbr_block_stat *s);

#endif
