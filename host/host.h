/** @file
 * The modes of pmucal-host besides the latency sweep, each a main of its own that
 * host/pmucal_host.c hands the parsed options to (host/host_args.h), the output folder
 * already created and locked. Each returns the exit status: 0 on success, 1 on a failure.
 * And the hosted core clock.
 */
#ifndef PMUCAL_HOST_H
#define PMUCAL_HOST_H

#include "bench/window.h"
#include "lib/status.h"

struct host_opts;

/** `--tlb`: the dTLB calibration (host/tlb_host.c). */
int host_tlb_main(const struct host_opts *o);
/** `--numa`: the NUMA matrix, loaded latency and bandwidth matrix (host/numa_host.c). */
int host_numa_main(const struct host_opts *o);
/** `--c2c`: cache-to-cache latency between every ordered pair of CPUs (host/c2c_host.c). */
int host_c2c_main(const struct host_opts *o);
/** `--inventory`: the firmware's inventory phase, of this machine or a recorded one
 *  (host/inventory_host.c). Exit status 2 for a --cpu the recorded dump does not have. */
int host_inventory_main(const struct host_opts *o);

/** Where @p src has no core-clock source (APERF/MPERF through /dev/cpu/N/msr did not read),
 *  install perf_event_open's hardware cycles counter of the calling thread (user mode), read
 *  with the TSC around every window; else add the reason to src->why_none (static storage). */
void host_perf_core_src(struct bench_core_src *src);
/** The core clock check (host/clock_check.c): core cycles per TSC tick, in ppm, from a chain
 *  of dependent adds (one core cycle each) timed in TSC ticks; an estimate for the console,
 *  never a table's core-cycle figure. ST_UNSUPPORTED off x86-64. */
status_t host_clock_check(uint32_t *core_per_tick_ppm);
struct lat_c2c_in;
/** For `pmucal-host --with-c2c`: measure every ordered pair of the CPUs this process may run
 *  on (HOST_C2C_TABLE_ROUNDS rounds), print the class table, write c2c.json into the output
 *  folder and fill @p out for the latency table's "c2c" section (it points into static
 *  storage). ST_UNSUPPORTED (with a SKIP line) with fewer than two CPUs. */
status_t host_c2c_for_table(const char *out_dir, bool prefetchers_off, struct lat_c2c_in *out);
/** Remember the CPUs this process may run on, before anything pins it (for the above). */
void host_c2c_save_cpus(void);

#define HOST_C2C_TABLE_ROUNDS 101u

#endif
