/** @file
 * Where the calling processor sits: its own APIC ID (or, on Arm, its MPIDR affinity), the
 * package, core and hardware thread that ID encodes, and the domain of the last-level cache
 * it shares. Each processor describes itself (the MP mailbox runs cpu_topology_self() on
 * every AP), so the figures can be held against what the firmware's tables claim (MADT,
 * SRAT, MP services). The x86 decoding is in boot/x86/topology.c. On Arm, MPIDR_EL1's
 * affinity fields have no architected topology meaning, so the firmware's PPTT replaces them
 * where it has one (cpu_topology_from_pptt(); MPIDR is the fallback, boot/arm64/topology_mpidr.c).
 */
#ifndef PMUCAL_TOPOLOGY_H
#define PMUCAL_TOPOLOGY_H

#include "lib/base.h"
#include "lib/status.h"

#define TOPO_CACHE_LEVELS 4 /* L1..L4 */

struct acpi_pptt_cpu;

/** What groups cores between the core and the package, where something does. */
enum topo_group {
        TOPO_GROUP_NONE = 0,
        TOPO_GROUP_MODULE,   /* x86: cores sharing one L2 (CPUID leaf 4's L2 sharing field
                              * wider than a core: the E-core modules of hybrid parts) */
        TOPO_GROUP_CLUSTER,  /* Arm: the PPTT node between the core and the package */
};

struct cpu_topology {
        uint32_t apic_id;       /* x2APIC ID (CPUID 0x1F/0xB) or the initial APIC ID */
        uint32_t package;       /* apic_id >> package shift */
        uint32_t core;          /* apic_id >> SMT shift: unique in the machine */
        uint32_t thread;        /* apic_id & SMT mask */
        uint32_t llc_domain;    /* apic_id >> shift of the last-level cache's sharing field */
        uint32_t cluster;       /* the module or cluster (group != TOPO_GROUP_NONE) */
        uint8_t  group;         /* enum topo_group */
        uint8_t  smt_shift, pkg_shift, llc_shift, l2_shift;
        uint8_t  llc_level;     /* level of the cache llc_domain refers to (0: none found) */
        bool     hybrid;        /* the part mixes core types (x86: CPUID.07H:EDX[15]) */
        uint8_t  core_type;     /* this core's type where hybrid (x86: CPUID.1AH:EAX[31:24],
                                 * 0x20 Atom, 0x40 Core); 0 = not hybrid or not said */
        uint64_t cache_bytes[TOPO_CACHE_LEVELS]; /* data/unified cache size by level - 1 as
                                 * this CPU's own CPUID describes it; 0 = none */
        const char *source;     /* "CPUID 0x1F", "CPUID 0xB", "CPUID 1", "MPIDR_EL1", "PPTT" */
};

/** "module", "cluster"; NULL for TOPO_GROUP_NONE (written as JSON null). */
static inline const char *topo_group_name(unsigned g)
{
        return g == TOPO_GROUP_MODULE ? "module" : g == TOPO_GROUP_CLUSTER ? "cluster" : NULL;
}

/** Describe the processor this runs on (any CPU; no allocation, no printing). */
void cpu_topology_self(struct cpu_topology *out);

/** Decode an MPIDR_EL1 value the way the fallback does without a PPTT: Aff3.Aff2.Aff1.Aff0
 *  packed into apic_id; MT set: Aff0 the thread, Aff3.Aff2.Aff1 the core, Aff3.Aff2 the
 *  package; MT clear: Aff0 the core, Aff3.Aff2.Aff1 the package. Nothing in the architecture
 *  gives the affinity levels that meaning ([ARM-ARM] D23.2.124: "the meaning of each level is
 *  IMPLEMENTATION DEFINED"), which is why the PPTT replaces it. */
void cpu_topology_from_mpidr(uint64_t mpidr, struct cpu_topology *out);

/** Replace @p t's package, cluster, core, thread, last-level-cache domain and cache sizes
 *  by what the PPTT says of this processor (@p p from acpi_pptt_cpu()); apic_id is kept. */
void cpu_topology_from_pptt(struct cpu_topology *t, const struct acpi_pptt_cpu *p);

#endif
