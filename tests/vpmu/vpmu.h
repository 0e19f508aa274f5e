/** @file
 * A virtual PMU for host tests: an executable model of the Intel architectural and AMD core
 * counters, overflow and the PMI, AMD IBS, Intel PEBS with the Debug Store and Intel LBR,
 * written from the vendor manuals with its own register map (tests/vpmu/vpmu_regs.h). It
 * implements the MSR accessors the harness uses (rdmsr_safe, wrmsr_safe, rdpmc_safe,
 * msr_last_fault_vector of boot/x86/msr.h) and, through tests/fake_plat.c, the PMI route
 * (cpu_pmi_enable ...), so the real suites run against it unchanged.
 *
 * What a counter counts comes from a workload the tests describe: each kernel the suite runs
 * is wrapped at link time (-Wl,--wrap, tests/vpmu/vpmu_work.c) by a description of what it
 * retires (instructions, branches, mispredicts, loads and the level each is served from,
 * dTLB misses), handed to vpmu_retire() in steps. Cycles are the host's TSC ticks in which
 * the test thread executed while a counter is enabled, times VPMU_CORE_PER_TSC (APERF/MPERF
 * say the same), or what a step declares. The model has its own TSC (vpmu_tsc, which the
 * harness reads through pmu_clock_tsc_read): it advances with the cycles the model counts, so
 * the host time of the model's own PMI emulation is in neither; what the handler would cost a
 * CPU is in both (the vector and dispatch, and every MSR access of the handler:
 * VP_PMI_ENTRY_INSNS ...). Time in which the host ran something else than the test thread
 * (another process, another guest) is in neither either: the model measures it by the
 * thread's CPU clock (tests/vpmu/vpmu_clock.c) and reports it in vpmu_stats, whatever its
 * length; the program's own time, however long, is counted.
 * Faults (struct vpmu_faults) make the model deviate the way real parts do, one at a time,
 * so that each verdict can be shown to fail.
 *
 * Host tests only; one model per process, state is global like the CPU's.
 */
#ifndef PMUCAL_VPMU_H
#define PMUCAL_VPMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/cpu.h"
#include "boot/plat.h"
#include "boot/x86/cpuid.h"

/** Core cycles per TSC tick of the modelled part. */
#define VPMU_CORE_PER_TSC 3

/* What the harness's own code in a PMI handler costs the program, as on hardware: the
 * vector, the dispatch and the way back, and every MSR access of the handler. Their host time
 * (the model's own emulation) is not counted; these instructions and cycles are, by the
 * counters that count CPL 0, and the model's TSC advances with them. Serialising MSR
 * accesses take on the order of a hundred core cycles on the modelled cores; the C accessor
 * around each adds a few instructions. The handler's branches are not modelled. */
#define VP_PMI_ENTRY_INSNS   40   /* vector, register saves, dispatch to the handler */
#define VP_PMI_ENTRY_CYCLES  300
#define VP_PMI_EXIT_INSNS    30   /* unmask, register restores, IRET */
#define VP_PMI_EXIT_CYCLES   200
#define VP_MSR_INSNS         6    /* the access and its accessor */
#define VP_MSR_CYCLES        100

/** What a workload retires; a counter's event select picks one of these (vpmu_parts.c). */
enum vpmu_ev {
        VE_INSNS = 0,   /* instructions retired */
        VE_CYCLES,      /* core cycles (the model adds the TSC ticks while enabled) */
        VE_REF_CYCLES,  /* reference cycles (likewise) */
        VE_BRANCHES,    /* branches retired */
        VE_BR_MISP,     /* mispredicted branches retired */
        VE_LOADS,       /* loads retired */
        VE_L1D_MISS,    /* loads that missed the L1D */
        VE_L2_MISS,     /* loads that missed the L2 */
        VE_LLC_MISS,    /* loads that missed the last level */
        VE_DTLB_MISS,   /* loads whose translation missed every dTLB level (walk completed) */
        VE_LDLAT,       /* loads slower than MSR_PEBS_LD_LAT_THRESHOLD (computed per op) */
        VE_OPS,         /* ops dispatched (IBS op counting) */
        VE__COUNT
};

/** Where a load was served from. */
enum vpmu_level { VL_L1 = 0, VL_L2, VL_L3, VL_DRAM };

/** One op of a workload, for IBS tagging, PEBS records and load latency. */
struct vpmu_op {
        uint64_t        rip;
        bool            load;
        uint64_t        la;          /* data linear address (loads) */
        enum vpmu_level level;
        bool            dtlb_miss;   /* missed L1 and L2 dTLB */
        bool            page_2m;     /* translated by a 2 MiB page (IBS reports the size) */
};

/** One taken branch, for LBR. */
struct vpmu_branch {
        uint64_t from, to;
        uint16_t cycles;  /* core cycles since the previous branch */
        bool     mispred;
};

/** A step of a kernel: counts, where it runs, and (optionally) its ops and branches. */
struct vpmu_step {
        uint64_t n[VE__COUNT];
        uint64_t rip_lo, rip_hi;     /* the kernel's code: PMIs interrupt in here */
        uint64_t rip_ev;             /* the instruction that overflows (skid measured from it) */
        /* The step's ops, n[VE_OPS] of them (NULL: none is a load), asked for in order; ops
         * that op_alike covers may be passed over. */
        void (*op_at)(void *ctx, uint64_t i, struct vpmu_op *out);
        /* Optional: how many ops from @p i on (1 .. @p n) count alike (load, level, dTLB
         * miss as op i's), so that the model may retire them at once. */
        uint64_t (*op_alike)(void *ctx, uint64_t i, uint64_t n);
        void *ctx;
        const struct vpmu_branch *br; /* n[VE_BRANCHES] taken branches repeat this one */
        bool own_clock;              /* n[VE_CYCLES] and n[VE_REF_CYCLES] are the step's
                                        time: the host's time since the last step is not
                                        counted */
};

/** Where the stall and descheduling faults strike. */
enum vpmu_stall_at {
        VPMU_AT_TSC_READ = 0, /* in the harness's code right after its next TSC read */
        VPMU_AT_KERNEL,       /* in the next kernel the harness runs, before its first step */
};

/** Switchable deviations, as real parts show them; all zero = a faithful model. */
struct vpmu_faults {
        enum vpmu_ev count_kind;      /* with count_ppm: this event is counted off by ... */
        int32_t      count_ppm;       /* ... this many parts per million (signed) */
        uint32_t     dead_gp;         /* GP counters that never count (bit n) */
        uint32_t     dead_fixed;      /* fixed counters that never count */
        uint32_t     refuse_gp;       /* Intel GP counters whose event select #GPs on a
                                       * write that enables it (bit n) */
        unsigned     lose_pmi_every;  /* drop every n-th PMI (status still set); 0 = none */
        int64_t      gp_write_skew;   /* an Intel GP counter write stores the value plus this: each
                                       * period a driver programs is that many events short */
        uint64_t     skid_extra_bytes;/* interrupted RIP this far past the kernel's end */
        uint32_t     ibs_lat_scale_pct; /* IBS DcMissLat scaled (100 = right) */
        uint64_t     ibs_phys_xor;    /* IBS DcPhysAd = linear ^ this */
        unsigned     ibs_fault_level; /* the three IBS faults hit loads from level - 1 only
                                       * (enum vpmu_level + 1); 0 = every level */
        unsigned     pebs_no_data_every; /* every n-th PEBS record without address, source
                                       * and latency (1: all of them) */
        unsigned     pebs_no_la_every; /* every n-th PEBS record without its data linear
                                       * address (latency and source kept) */
        unsigned     pebs_zero_lat_every; /* every n-th PEBS record with latency 0 (address
                                       * and source kept) */
        uint64_t     pebs_la_xor;     /* PEBS data linear address = the load's ^ this */
        uint32_t     pebs_lat_scale_pct; /* PEBS load latency scaled (100 = right) */
        unsigned     pebs_lat_split_every; /* of every n records of loads at the fault
                                       * level, one reports 4 times its latency and one a
                                       * quarter (n >= 2; the median stays right) */
        unsigned     pebs_src_up_every; /* of every n records of loads at the fault level,
                                       * one names the level above as the data source */
        unsigned     pebs_fault_level;/* pebs_la_xor, pebs_lat_scale_pct and the split hit
                                       * loads from level - 1 only (enum vpmu_level + 1); 0 = every level */
        uint32_t     lbr_cycles_scale_pct; /* LBR cycle counts scaled (100 = right) */
        unsigned     lbr_stray_every; /* every n-th PMI's stack ends in a branch outside the
                                       * kernel (the harness's code) */
        uint64_t     lbr_stray_from;  /* that branch's source, its target 0x40 on (0: the
                                       * harness's code, far from the kernel) */
        bool         ibs_wrong_src;   /* IBS DataSrc of a DRAM load says local cache */
        unsigned     ibs_no_data_every; /* every n-th IBS op sample of a load loses LdOp and
                                       * DcLinAddrValid (1: all of them) */
        unsigned     ibs_no_la_every; /* every n-th IBS op sample of a load loses
                                       * DcLinAddrValid alone (LdOp kept) */
        unsigned     tlb_flip_every;  /* every n-th load sample (IBS op, PEBS record) reports
                                       * the STLB outcome its load did not have */
        int32_t      ibs_op_count_ppm;  /* IbsOpCurCnt counting dispatched ops counts this
                                       * many ppm more (signed) than dispatch */
        int32_t      ibs_fetch_count_ppm; /* IbsFetchCnt counts this many ppm more fetches
                                       * (signed) than the code makes */
        unsigned     ibs_fetch_stray_every; /* every n-th fetch sample's address lies just
                                       * past the sampled code's end (the next function) */
        uint64_t     ibs_fetch_stray_at; /* ... or at this address (0: past the end) */
        unsigned     ibs_op_stray_every; /* every n-th op sample is a load of the caller's
                                       * (OpRip before the sampled code, an address outside
                                       * the buffer), as ops retired around the kernel are */
        unsigned     ibs_fetch_zero_every; /* every n-th fetch sample's linear address reads 0
                                       * (Fam19h erratum 1197: such a sample is discarded) */
        unsigned     spurious_pmi_every; /* an extra NMI without overflow after every n-th */
        bool         route_dead;      /* the LVT/IDT route never delivers (self-NMI lost) */
        unsigned     fault_vector;    /* a refused MSR access reports this vector, not #GP */
        uint32_t     stall_us;        /* once, at stall_at: the core stalls this long (the test
                                       * thread spins through as much CPU time), its cycles
                                       * and TSC running on, as an SMI or a storm of page
                                       * walks would take them */
        uint32_t     desched_us;      /* once, at stall_at: the host takes the CPU away this
                                       * long (the test thread sleeps): not the program's
                                       * time, measured and reported, counted nowhere */
        enum vpmu_stall_at stall_at;  /* where the two above strike */
};

/** A CPU the model impersonates. */
struct vpmu_part {
        const char *name;
        bool        amd;
        uint32_t    family, model, stepping;
        /* Intel */
        unsigned    version, n_gp, gp_width, n_fixed, fixed_width;
        uint64_t    perf_caps;          /* 0 with pdcm false: IA32_PERF_CAPABILITIES absent */
        bool        pdcm, ds;
        unsigned    lbr_depth;          /* legacy LBR entries; 0 = none */
        uint32_t    lbr_from, lbr_to;   /* legacy LBR MSR blocks */
        bool        arch_lbr;
        uint32_t    lbr_1c_eax, lbr_1c_ebx, lbr_1c_ecx; /* CPUID.1CH */
        /* AMD */
        bool        ext_core, perfmon_v2;
        unsigned    amd_n_core;         /* PerfMonV2: CPUID.80000022H:EBX[3:0] */
        uint32_t    ibs_caps;           /* CPUID.8000001BH:EAX; 0 = no IBS */
        bool        fuse_dec_jcc;       /* dec + jnz dispatch as one op (Zen 3 on; Zen 2
                                         * fuses only CMP/TEST with a Jcc) */
        unsigned    fetch_block_bytes;  /* aligned bytes per instruction fetch (IBS fetch) */
        /* memory hierarchy (CPUID leaf 4 / 0x8000001D, TLB leaves) */
        uint32_t    l1d_kib, l2_kib, l3_kib, stlb_4k_entries;
        uint16_t    lat[4];             /* load-to-use latency per vpmu_level, core cycles */
        const struct vpmu_evmap *events;/* event select -> enum vpmu_ev */
        size_t      n_events;
        const char *perf_table;         /* pmu/events table of the part (perf's pmu-events) */
};

/** Event select (AMD: 12-bit code) and unit mask -> what it counts; the event's name in
 *  perf's pmu-events (NULL where perf's table for the part does not carry it), by which
 *  tests hold the code against perf's JSON and the driver's aliases against the meaning. */
struct vpmu_evmap {
        uint16_t     code;
        uint8_t      umask;
        enum vpmu_ev ev;
        const char  *perf_name;
};

extern const struct vpmu_part vpmu_skx, vpmu_icx, vpmu_spr, vpmu_zen2, vpmu_zen4, vpmu_zen5;
extern const struct vpmu_part vpmu_slm, vpmu_wsm, vpmu_nhm, vpmu_k10;

/** Become @p p with @p f (NULL: faithful); resets every register as at power-on. */
void vpmu_init(const struct vpmu_part *p, const struct vpmu_faults *f);
/** Switch faults on the running model (NULL: none). */
void vpmu_set_faults(const struct vpmu_faults *f);
/** The part the model is. */
const struct vpmu_part *vpmu_part(void);
/** Fill @p d with the part's CPUID (vendor, signature, PMU leaves, caches, TLBs). */
void vpmu_cpuid(struct cpuid_dump *d);
/** Decode the part's CPUID into @p ci with the harness's own decoder. */
void vpmu_cpu_info(struct cpu_info *ci);

/** Retire one step of a workload: count it, overflow, raise PMIs, tag IBS ops, write PEBS
 *  records, push LBR entries. */
void vpmu_retire(const struct vpmu_step *s);
/** True when ops must be described one by one (IBS op sampling or load latency armed). */
bool vpmu_wants_ops(void);
/** True when taken branches must be described (LBR recording). */
bool vpmu_wants_branches(void);

/** Register value without side effects (0 if absent), and a plain MSR the model does not
 *  otherwise know (e.g. a platform register a test needs). */
uint64_t vpmu_peek(uint32_t msr);
void vpmu_poke(uint32_t msr, uint64_t val);
/** Local APIC register (LVT PMC 0x340, extended LVT 0x500 + 0x10 n). */
uint32_t vpmu_apic(uint32_t reg);
/** The platform writes local APIC register @p reg (LVT PMC and the extended LVT entries;
 *  the rest are ignored): tests/fake_plat.c's dispatcher re-arms the PMI through it. */
void vpmu_apic_write(uint32_t reg, uint32_t v);

/** What happened since vpmu_init. */
struct vpmu_stats {
        uint64_t n_pmi, n_pmi_lost, n_faults, n_pebs_records, n_ibs_op, n_ibs_fetch;
        uint64_t n_lbr_pushed, n_writes;
        uint64_t n_harness_cycles; /* core cycles the handler's modelled cost took */
        uint64_t n_stalls;         /* stall faults struck */
        /* Spans in which the host ran something else than the test thread, and their host
         * TSC ticks, none of them counted (tests/vpmu/vpmu_clock.c); of those spans, the
         * harness's own (between two of its touches of the model, outside any kernel): what
         * the thread executed in them, the switches' own cost included (some 40 us of CPU
         * time a switch on a virtual machine), counts, in the TSC alone where no counter runs */
        uint64_t n_host_desched, host_desched_ticks, n_host_desched_harness;
        /* Host TSC ticks counted for the harness's own code (its spans outside kernels and
         * PMI handlers): some microseconds between two stamps of a check, far more where
         * the host slowed the thread (interrupts, the caches another process left) */
        uint64_t harness_ticks;
        /* Of those spans, the ones longer than VPMU_HARNESS_SLOW_US: a span between two touches
         * of the model is some dozen lines of the harness's C (1-5 us here); longer, and the
         * host slowed it (an interrupt or a switch, which the thread's CPU clock counts as its
         * own; the caches another process left), which no core would. Where a TSC stamp and a
         * counter's enable or disable lie on either side of such a span, it is in the TSC
         * alone or in the counters alone. */
        uint64_t n_harness_slow;
};
/** A harness span longer than this (us) is one the host slowed (vpmu_stats.n_harness_slow). */
#define VPMU_HARNESS_SLOW_US 20u
const struct vpmu_stats *vpmu_stats(void);
/** The @p i-th MSR write since vpmu_init (false past the end; the log keeps 4096). */
bool vpmu_write_at(size_t i, uint32_t *msr, uint64_t *val);
void vpmu_clear_log(void);

/** Tests: retire a step's ops in runs between the points where something can happen (the
 *  default, reset by vpmu_init) or each op alone, the reference the runs must match. */
void vpmu_set_op_runs(bool on);
/** Tests: set how wide the skid is (bytes past rip_ev, uniform in [0, max)); default 16. */
void vpmu_set_skid(uint64_t max_bytes);

/** The model's TSC: the host's less the time the test thread did not run, the time of the
 *  model's PMI emulation and of the host around steps with their own clock, plus the time
 *  those steps declare (reference cycles, one per tick). The harness's pmu_clock_tsc_read
 *  reads it (-Wl,--wrap). */
uint64_t vpmu_tsc(void);
/** Host TSC ticks per millisecond (measured once against CLOCK_MONOTONIC). */
uint64_t vpmu_tsc_per_ms(void);

/* ---- the PMI route (tests/fake_plat.c forwards cpu_pmi_* here) ---- */
status_t vpmu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset);
void     vpmu_pmi_disable(void);
status_t vpmu_pmi_selftest(uint64_t *tsc_round_trip);

/** Link flags that put the workload descriptions (vpmu_work.c) around the kernels. */
#define VPMU_WRAPPED_KERNELS "bench_loop bench_branch_pattern bench_skid_loop bench_chase " \
                             "bench_block_run"

#endif
