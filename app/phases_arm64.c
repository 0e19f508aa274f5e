/** @file
 * The phases of the x86-64 program that have no AArch64 counterpart yet: each SKIPs with
 * what stands in the way, so that a run's summary says what was not checked.
 */
#include "app/run.h"

status_t phase_latency(struct run *r)
{
        (void)r;
        rep_skip("latency calibration: not ported to AArch64 yet: the sweep's window guard "
                 "and clock are the TSC and x86 MSRs (bench/window.c); the AArch64 chase "
                 "kernel exists (bench/arm64/kernel_chase.c)");
        return ST_UNSUPPORTED;
}

status_t phase_tlb(struct run *r)
{
        (void)r;
        rep_skip("TLB calibration: not ported to AArch64 yet: the harness's own page tables "
                 "are x86-64 4-level tables loaded into CR3 (bench/pagetable.c, bench/ptlive.c)");
        return ST_UNSUPPORTED;
}

status_t phase_sampling(struct run *r)
{
        (void)r;
        rep_skip("precise sampling: IBS, PEBS and LBR are x86; their AArch64 analogues (SPE, "
                 "BRBE) are reported by the pmu phase");
        return ST_UNSUPPORTED;
}

status_t phase_numa(struct run *r)
{
        (void)r;
        rep_skip("NUMA latency and bandwidth matrix: not ported to AArch64 yet: its chase "
                 "windows use the x86-64 window guard and TSC (bench/window.c), and its "
                 "loaders need CPUs the firmware can start (AAVMF has no MP services)");
        return ST_UNSUPPORTED;
}
