/** @file
 * The TLB phase on AArch64: the dTLB sweeps of app/tlb.h run on the firmware's identity map,
 * not on page tables of the harness's own (those are x86-64 4-level tables loaded into CR3,
 * app/x86/tlb.c), through app/tlb_platmap.c: each sweep on one buffer asked with its page size,
 * run only where the firmware's translation tables really map it so (TTBR0_ELx of the level
 * the harness runs at, walked by the platform: 4 KiB granule, 2 MiB blocks at level 2), N cut
 * down to the largest buffer so mapped (AAVMF maps every buffer a quick sweep asks for with
 * 4 KiB pages, so its 2 MiB sweep SKIPs). 1 GiB pages, PTE layouts spaced 512 pages apart
 * and the iTLB sweep (its jump chain is x86-64 machine code, bench_itlb_gen) SKIP with their
 * reason. Windows mask interrupts (DAIF) and are timed with the generic timer; the core clock
 * is the PMU's cycle counter where it exists.
 */
#include "app/run.h"

#include "app/latency_clock.h"
#include "app/tlb.h"
#include "bench/kernel_tlb.h"
#include "boot/cpu.h"
#include "report/inventory.h"

#define CLOCK_CALIB_US 1000u
#define N_WINDOWS      11u
/* Accesses per L-lap run: the generic timer may tick only every 16 ns or more (QEMU: 62.5
 * MHz), so a run lasts a thousand ticks or more even at one access per ns. */
#define MIN_ACCESSES   20000u

/* The MIDR implementer 0x00 is "reserved for software use": QEMU's -cpu max under TCG. */
static bool is_emulated(const struct cpu_info *cpu)
{
        return cpu->vendor == VEN_ARM && cpu->family == 0;
}

status_t phase_tlb(struct run *r)
{
        static struct tlbcal        t;
        static struct lat_clock_pmu pc;
        struct bench_clock          clk;
        struct bench_core_span      sp;
        struct rep_buf              json = { 0 }, csv = { 0 };
        struct tlbcal_sweep         sw[TLBCAL_MAX_CURVES];
        size_t                      n_sw;
        struct bench_tlb_run        run = { .n_windows = N_WINDOWS, .min_accesses = MIN_ACCESSES };
        status_t                    st;

        if (!r->inv || r->inv->cpu_st != ST_OK) {
                rep_skip(REP_SKIP_ENV, "no CPU inventory");
                return ST_UNSUPPORTED;
        }
        const struct cpu_info *cpu = &r->inv->cpu;
        uint64_t               t0  = bench_timer_now();

        rep_info("page tables: the firmware's identity map is TTBR0_EL%u's; the harness's own "
                 "translation tables are x86-64 only",
                 r->inv->arm64.current_el ? r->inv->arm64.current_el : 1u);
        t = (struct tlbcal){ 0 };
        tlbcal_sweeps(r->cfg.profile != CONFIG_PROFILE_QUICK, sw, &n_sw);
        tlbcal_sweeps_keep(r->cfg.tlb_pages, sw, &n_sw);
        bench_clock_init(&clk, cpu, CLOCK_CALIB_US, NULL);
        lat_clock_pmu_begin(&pc, &clk, cpu);
        bench_core_span_begin(&clk.core, &sp);
        st = tlbcal_run_platform_map(sw, n_sw, &run, "the iTLB jump chain is x86-64 machine "
                                     "code (bench_itlb_gen); an A64 chain of B instructions is "
                                     "not written yet", &t);
        t.clock = (struct lat_clock_desc){ .tsc_hz = r->inv->tsc_hz ? r->inv->tsc_hz : clk.tsc_hz,
                                           .core_ppm = bench_core_span_end(&clk.core, &sp),
                                           .core_source = clk.core.name,
                                           .core_why = clk.core.why_none };
        if (!t.clock.core_ppm && clk.core.name)
                t.clock.core_why = "the core clock source gave no usable ratio";
        lat_clock_pmu_end(&pc);

        if (!t.n) {
                rep_skip(REP_SKIP_ENV, "no dTLB sweep could run on the firmware's identity map");
        } else if (tlbcal_finish(&t, cpu, is_emulated(cpu), &json, &csv) == ST_OK) {
                tlbcal_add_to_latency_table(r, &json);
                run_add_file(r, TLBCAL_TABLE_FILE, &json);
                run_add_file(r, TLBCAL_CURVE_FILE, &csv);
        }
        rep_buf_free(&json);
        rep_buf_free(&csv);
        tlbcal_free(&t);
        if (t.clock.tsc_hz)
                rep_info("TLB calibration took %llu ms (%s sweep, generic timer)",
                         (unsigned long long)((bench_timer_now() - t0) * 1000 / t.clock.tsc_hz),
                         r->cfg.profile == CONFIG_PROFILE_QUICK ? "quick" : "full");
        return st != ST_OK ? st : t.n ? ST_OK : ST_UNSUPPORTED;
}
