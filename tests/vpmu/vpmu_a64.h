/** @file
 * A virtual Arm PMUv3 for host tests: an executable model of the Performance Monitors
 * Extension written from the Arm ARM ([ARM-ARM] D11 "The Performance Monitors Extension",
 * D23.5 register descriptions), so that the AArch64 driver (pmu/arm64/pmu_arm64.c) and the
 * validation suite (app/arm64/validate.c) run on the host unchanged. The driver's system
 * register accesses reach the model through tests/vpmu/vpmu_a64_sysreg.h, which stands in
 * for boot/arm64/sysreg.h; the PMU interrupt through tests/fake_plat.c's PMI route.
 *
 * Modelled: PMCR_EL0 (E, P, C, D, LC, LP, N), PMCNTENSET/CLR, PMINTENSET/CLR, PMOVSSET/CLR,
 * PMSELR with PMXEVTYPER/PMXEVCNTR and the direct PMEVTYPER<n>/PMEVCNTR<n>, PMCCFILTR,
 * PMCCNTR, PMSWINC, PMUSERENR, PMCEID0/1 and CurrentEL; event counters of 32 bits, or 64
 * with FEAT_PMUv3p5 and PMCR_EL0.LP; the cycle counter overflowing at 32 or 64 bits
 * (PMCR_EL0.LC); the exception-level filters P, U, NSK, NSU and NSH (with and without EL3);
 * overflow status and the interrupt. Every system-register access the harness makes retires
 * one instruction and takes a cycle at the level it runs at, and a PMI costs its vector and
 * dispatch, so harness code counts as on the hardware.
 *
 * The kernels the suite runs (bench_loop, bench_skid_loop) are wrapped at link time
 * (-Wl,--wrap) by what their AArch64 bodies retire (bench/arm64/), one instruction per cycle
 * as under QEMU -icount shift=0; the generic timer ticks every VPA_CYCLES_PER_TICK cycles.
 *
 * Host tests only; one model per process.
 */
#ifndef PMUCAL_VPMU_A64_H
#define PMUCAL_VPMU_A64_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/arm64/idreg.h"
#include "boot/cpu.h"

/** Cycles per generic-timer tick: 1 GHz cycles against QEMU virt's 62.5 MHz CNTFRQ_EL0. */
#define VPA_CYCLES_PER_TICK 16
#define VPA_CNTFRQ_HZ       62500000ull

/** A core the model impersonates. */
struct vpa_part {
        const char *name;
        uint64_t    midr;
        uint8_t     pmuver;       /* ID_AA64DFR0_EL1.PMUVer */
        unsigned    n_counters;   /* PMCR_EL0.N */
        uint64_t    pmceid0, pmceid1;
        unsigned    el;           /* the level the harness runs at (CurrentEL) */
        bool        el3;          /* EL3 implemented: NSK/NSU take part in the filter */
        bool        qemu;         /* PMI at the overflowing instruction (no skid) */
};

/** Switchable deviations; all zero = a faithful PMU. */
struct vpa_faults {
        bool     inst_zero;        /* INST_RETIRED never counts (QEMU without -icount) */
        bool     filter_ignored;   /* P and U ignored: every level counts */
        bool     sw_incr_dead;     /* PMSWINC_EL0 writes do nothing */
        uint32_t cnten_ignored;    /* these counters count without their PMCNTENSET bit */
        uint32_t dead;             /* these event counters never count (programmable or not) */
        int32_t  insts_ppm;        /* INST_RETIRED off by this many parts per million */
        unsigned lose_pmi_every;   /* drop every n-th PMI (overflow status still set) */
        uint64_t skid_extra_bytes; /* the PMI's PC this far past the kernel */
        int32_t  cycles_ppm;       /* the cycle counters off by this many ppm */
        bool     route_dead;       /* the PMU interrupt never reaches the handler */
        unsigned sw_incr_lose_every; /* every n-th PMSWINC_EL0 write does nothing */
        unsigned spurious_pmi_every; /* after every n-th PMI, another without an overflow */
        int64_t  ccntr_write_skew; /* a PMCCNTR_EL0 write stores the value plus this: each
                                      period a driver programs is that many cycles short */
};

/** Stock parts: QEMU virt's -cpu max (PMUv3p5 under TCG, 6 counters, no EL3, no skid), a
 *  Neoverse N1 (PMUv3p1, 32-bit event counters, 6 counters, EL3) with hardware skid. */
extern const struct vpa_part vpa_qemu_max, vpa_neoverse_n1;

/** Become @p p with @p f (NULL: faithful); every register as at reset. */
void vpa_init(const struct vpa_part *p, const struct vpa_faults *f);
/** The ID registers the part reports (as arm64_id_collect would read them). */
void vpa_id_regs(struct arm64_id_regs *r);

/** Retire @p n_insns instructions of which @p n_br are branches (spread evenly, a branch
 *  closing each run) at the current level, with PC advancing 4 bytes an instruction from
 *  @p pc within [@p pc_lo, @p pc_hi). */
void vpa_retire(uint64_t n_insns, uint64_t n_br, uint64_t pc_lo, uint64_t pc_hi);
/** Run at exception level @p el (0..2) from now on. */
void vpa_set_el(unsigned el);

/** System-register access by name ("pmcr_el0", "S3_3_C9_C12_6" ...): what the stand-in
 *  sysreg.h expands SYSREG_READ/SYSREG_WRITE to. Unknown registers read 0. */
uint64_t vpa_sysreg_read(const char *name);
void     vpa_sysreg_write(const char *name, uint64_t v);

/** An ISB: one instruction, one cycle. */
void vpa_isb(void);

/** The model's cycle count (the generic timer, arm64_timer_ticks, is it over
 *  VPA_CYCLES_PER_TICK). */
uint64_t vpa_cycles(void);

/* The PMI route (tests/fake_plat.c forwards cpu_pmi_* here): the PMU interrupt reaches
 * @p fn whenever an enabled overflow is pending, with the program's PC in the frame. */
status_t vpmu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset);
void     vpmu_pmi_disable(void);
status_t vpmu_pmi_selftest(uint64_t *round_trip);

/** What happened since vpa_init. */
struct vpa_stats {
        uint64_t n_pmi, n_pmi_lost, n_sysreg;
};
const struct vpa_stats *vpa_stats(void);

#endif
