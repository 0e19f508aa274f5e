/** @file
 * The mode of pmucal-host that is not a run of app/ phases, a main of its own that
 * host/pmucal_host.c hands the parsed options to (host/host_args.h), the output folder
 * already created and locked. It returns the exit status: 0 on success, 1 on a failure.
 * The latency run, --tlb, --c2c and --numa are app/ phases run by host/pmucal_host.c itself.
 */
#ifndef PMUCAL_HOST_H
#define PMUCAL_HOST_H

#include "lib/status.h"

struct host_opts;

/** `--inventory`: the firmware's inventory phase, of this machine or a recorded one
 *  (host/inventory_host.c). Exit status 2 for a --cpu the recorded dump does not have. */
int host_inventory_main(const struct host_opts *o);

#endif
