/** @file
 * The modes of pmucal-host besides the latency sweep, each a main of its own that
 * host/pmucal_host.c hands the remaining arguments to (argv[0] is the mode's flag). Each
 * returns 0 on success, 1 on a failure, 2 on a usage error. And the hosted core clock.
 */
#ifndef PMUCAL_HOST_H
#define PMUCAL_HOST_H

#include "bench/window.h"

/** `--tlb`: the dTLB calibration (host/tlb_host.c). */
int host_tlb_main(int argc, char **argv);
/** `--c2c`: cache-to-cache latency between every ordered pair of CPUs (host/c2c_host.c). */
int host_c2c_main(int argc, char **argv);

/** Where @p src has no core-clock source (APERF/MPERF through /dev/cpu/N/msr did not read),
 *  install perf_event_open's hardware cycles counter of the calling thread (user mode), read
 *  with the TSC around every window; else add the reason to src->why_none (static storage). */
void host_perf_core_src(struct bench_core_src *src);

#endif
