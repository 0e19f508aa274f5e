/** @file
 * pmucal-host --numa (host/numa_host.c): the nodes as Linux describes them and the placement
 * of a buffer on one (host/numa_host_nodes.c). Host only.
 */
#ifndef PMUCAL_HOST_NUMA_HOST_H
#define PMUCAL_HOST_NUMA_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/acpi.h"
#include "report/numa.h"

#define HOST_NUMA_MAX_CPUS 256u
#define MAX_CPUS           HOST_NUMA_MAX_CPUS

/** One node: its CPUs this process may run on and its buffers. */
struct host_numa_node {
        unsigned id;                    /* Linux node number */
        unsigned cpu[MAX_CPUS], n_cpus; /* allowed CPUs on it */
        uint8_t *buf, *load;            /* chase buffer, loaders' buffer */
        void    *chain;
        unsigned pages_checked;
        char     why[128];              /* placement failure; "" when placed */
};

/** Linux's nodes (/sys/devices/system/node) with the CPUs this process may run on, at most
 *  NUMA_MAX_NODES, into @p nodes and their numbers into @p pd; their distance table (the
 *  SLIT) into @p slit with *@p have_slit. One node with every allowed CPU where sysfs has none
 *  (a kernel without NUMA). Returns the number of nodes. */
unsigned host_numa_read_nodes(struct host_numa_node *nodes, uint32_t *pd, struct acpi_slit *slit,
                              bool *have_slit);

/** @p bytes bound to Linux node @p id (MPOL_BIND, strict), faulted in, and every page's node
 *  read back (*@p checked pages); NULL with the reason in @p why. Where the kernel has no NUMA
 *  (and @p n_nodes is 1) the buffer is unbound and nothing is checked. */
uint8_t *host_numa_place(unsigned id, size_t bytes, unsigned n_nodes, unsigned *checked,
                         char *why, size_t cap);

#endif
