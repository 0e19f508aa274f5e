/** @file
 * AArch64 identification: the ID registers pmucal reads (struct arm64_id_regs, a recorded
 * "dump" like x86's CPUID dump) and their decoding into one struct arm64_cpu_info: who made
 * the core (MIDR_EL1), where it sits (MPIDR_EL1), its caches (CLIDR_EL1, CCSIDR_EL1 per
 * level, CTR_EL0), its PMU (ID_AA64DFR0_EL1.PMUVer, PMCR_EL0.N, PMCEID0/1_EL0), SPE and BRBE
 * presence, and the generic timer frequency (CNTFRQ_EL0).
 *
 * Decoding is pure (host-tested on register values of real cores, tests/test_arm64_idreg.c);
 * arm64_id_collect() (boot/arm64/idreg_cpu.c) reads the live CPU. Field layouts: [ARM-ARM]
 * D23.2 (MIDR_EL1, MPIDR_EL1, CLIDR_EL1, CCSIDR_EL1, CTR_EL0, ID_AA64DFR0_EL1,
 * ID_AA64MMFR2_EL1) and D23.5 (PMCR_EL0, PMCEID0_EL0, PMCEID1_EL0).
 */
#ifndef PMUCAL_ARM64_IDREG_H
#define PMUCAL_ARM64_IDREG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

#define ARM64_CACHE_LEVELS 7

/** Raw register values, as read on one CPU (or recorded from a manual). */
struct arm64_id_regs {
        uint64_t midr, mpidr, revidr;
        uint64_t pfr0, dfr0, isar0, mmfr0, mmfr2;
        uint64_t ctr, clidr, cntfrq;
        /* CCSIDR_EL1 per level (index level - 1): [0] data or unified, [1] instruction */
        uint64_t ccsidr[ARM64_CACHE_LEVELS][2];
        bool     has_pmu_regs;       /* PMCR/PMCEID were read (PMUv3 present) */
        uint64_t pmcr, pmceid0, pmceid1;
        bool     has_pmmir;
        uint64_t pmmir;
};

enum arm64_cache_type { A64_CACHE_DATA = 1, A64_CACHE_INST = 2, A64_CACHE_UNIFIED = 3 };

struct arm64_cache {
        uint8_t               level;
        enum arm64_cache_type type;
        uint64_t              size_bytes;
        uint32_t              ways, line_bytes, sets;
};

/* ID_AA64DFR0_EL1.PMUVer values. */
#define PMUVER_NONE   0x0
#define PMUVER_V3     0x1
#define PMUVER_V3P1   0x4
#define PMUVER_V3P4   0x5
#define PMUVER_V3P5   0x6 /* FEAT_PMUv3p5: 64-bit event counters (PMCR_EL0.LP) */
#define PMUVER_V3P7   0x7
#define PMUVER_V3P8   0x8
#define PMUVER_V3P9   0x9
#define PMUVER_IMPDEF 0xf

struct arm64_cpu_info {
        uint8_t     implementer;     /* MIDR_EL1[31:24] */
        uint8_t     variant;         /* [23:20]: the "r" of rNpM */
        uint8_t     revision;        /* [3:0]: the "p" */
        uint16_t    part;            /* [15:4] */
        const char *vendor;          /* "Arm", "Ampere", ...; never NULL */
        const char *part_name;       /* "Neoverse N1"; "unknown part" when not in the table */
        uint8_t     aff[4];          /* MPIDR_EL1 Aff0..Aff3 */
        bool        mt;              /* MPIDR_EL1.MT: Aff0 are threads of one core */

        struct arm64_cache caches[2 * ARM64_CACHE_LEVELS];
        size_t             n_caches;
        uint8_t            loc;      /* CLIDR_EL1.LoC: levels to the point of coherency */
        uint32_t           dminline_bytes, iminline_bytes; /* CTR_EL0 smallest lines */
        bool               ccidx;    /* 64-bit CCSIDR format (ID_AA64MMFR2_EL1.CCIDX) */

        uint8_t     pmuver;          /* PMUVER_* */
        const char *pmu_name;        /* "PMUv3p5", "none", "IMPLEMENTATION DEFINED" */
        bool        pmu;             /* a PMUv3 this harness can program */
        uint8_t     n_counters;      /* PMCR_EL0.N event counters (the cycle counter aside) */
        bool        counters_64bit;  /* PMUv3p5: PMCR_EL0.LP makes event counters 64-bit */
        uint8_t     pmcr_imp;        /* PMCR_EL0.IMP (0 where only MIDR_EL1 identifies it) */
        uint8_t     spe;             /* ID_AA64DFR0_EL1.PMSVer: 0 = no SPE */
        uint8_t     brbe;            /* ID_AA64DFR0_EL1.BRBE: 0 = no BRBE */
        uint8_t     trbe;            /* ID_AA64DFR0_EL1.TraceBuffer */
        uint8_t     gic_sysreg;      /* ID_AA64PFR0_EL1.GIC: 1 = GICv3/4 CPU interface */
        uint64_t    cntfrq_hz;       /* generic timer frequency */
};

/** Decode @p r into @p out. ST_BAD_ARG for NULL; ST_BAD_DATA when MIDR_EL1 is 0. */
status_t arm64_decode(const struct arm64_id_regs *r, struct arm64_cpu_info *out);

/** True when common event @p ev (0x0000..0x003F, 0x4000..0x403F) is implemented according to
 *  PMCEID0_EL0/PMCEID1_EL0: bit n of PMCEID0[31:0] is event n, PMCEID1[31:0] is 0x20 + n,
 *  PMCEID0[63:32] is 0x4000 + n, PMCEID1[63:32] is 0x4020 + n. False outside those ranges. */
bool arm64_pmceid_has(uint64_t pmceid0, uint64_t pmceid1, uint16_t ev);

/** Number of common events PMCEID0/1 say are implemented. */
unsigned arm64_pmceid_count(uint64_t pmceid0, uint64_t pmceid1);

/** "PMUv3p5" etc. for a PMUVer value; never NULL. */
const char *arm64_pmuver_name(uint8_t pmuver);

/** Registers the fault self-test reads through the fixup: one every CPU has, and two that
 *  only exist with SPE (PMSIDR_EL1) or BRBE (BRBIDR0_EL1). */
enum arm64_probe_reg { ARM64_REG_MIDR, ARM64_REG_PMSIDR, ARM64_REG_BRBIDR0 };

/** Read @p reg through the fault fixup: ST_OK, ST_FAULT (*out = 0) when it is UNDEFINED
 *  here, ST_UNSUPPORTED when the harness's vectors are not installed. */
status_t arm64_sysreg_probe(enum arm64_probe_reg reg, uint64_t *out);
/** MIDR_EL1 of the calling CPU, read plainly. */
uint64_t arm64_midr(void);
/** The generic timer's virtual count (CNTVCT_EL0), ordered after earlier instructions. */
uint64_t arm64_timer_ticks(void);

/** Read the identification registers of the calling CPU (EL1). PMU registers only when
 *  ID_AA64DFR0_EL1.PMUVer says PMUv3 is there, through the fault fixup. */
void arm64_id_collect(struct arm64_id_regs *r);

#endif
