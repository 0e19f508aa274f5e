/** @file A processor's topology from the PPTT (see boot/topology.h, boot/acpi_pptt.h). */
#include "boot/topology.h"

#include "boot/acpi_pptt.h"

void cpu_topology_from_pptt(struct cpu_topology *t, const struct acpi_pptt_cpu *p)
{
        t->package   = p->package;
        t->core      = p->core;
        t->thread    = p->thread;
        t->group     = p->has_cluster ? TOPO_GROUP_CLUSTER : TOPO_GROUP_NONE;
        t->cluster   = p->has_cluster ? p->cluster : 0;
        t->llc_level = p->llc_level;
        t->llc_domain = p->llc_level ? p->cache_domain[p->llc_level - 1] : 0;
        t->smt_shift = t->pkg_shift = t->llc_shift = t->l2_shift = 0;
        for (unsigned i = 0; i < TOPO_CACHE_LEVELS && i < ACPI_PPTT_MAX_LEVELS; i++)
                if (p->cache_bytes[i])
                        t->cache_bytes[i] = p->cache_bytes[i];
        t->source = "PPTT";
}
