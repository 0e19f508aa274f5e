/** @file
 * The modes of pmucal-host besides the latency sweep, each a main of its own that
 * host/pmucal_host.c hands the parsed options to (host/host_args.h), the output folder
 * already created and locked. Each returns the exit status: 0 on success, 1 on a failure.
 * The latency run, --c2c and --numa are app/ phases run by host/pmucal_host.c itself.
 */
#ifndef PMUCAL_HOST_H
#define PMUCAL_HOST_H

#include "lib/status.h"

struct host_opts;

/** `--tlb`: the dTLB calibration (host/tlb_host.c). */
int host_tlb_main(const struct host_opts *o);
/** `--inventory`: the firmware's inventory phase, of this machine or a recorded one
 *  (host/inventory_host.c). Exit status 2 for a --cpu the recorded dump does not have. */
int host_inventory_main(const struct host_opts *o);

#endif
