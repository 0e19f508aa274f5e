/** @file
 * Where the calling processor sits: its own APIC ID (or, on Arm, its MPIDR affinity), the
 * package, core and hardware thread that ID encodes, and the domain of the last-level cache
 * it shares. Each processor describes itself (the MP mailbox runs cpu_topology_self() on
 * every AP), so the figures can be held against what the firmware's tables claim (MADT,
 * SRAT, MP services). The x86 decoding is in boot/x86/topology.c.
 */
#ifndef PMUCAL_TOPOLOGY_H
#define PMUCAL_TOPOLOGY_H

#include "lib/base.h"
#include "lib/status.h"

#define TOPO_CACHE_LEVELS 4 /* L1..L4 */

struct cpu_topology {
        uint32_t apic_id;       /* x2APIC ID (CPUID 0x1F/0xB) or the initial APIC ID */
        uint32_t package;       /* apic_id >> package shift */
        uint32_t core;          /* apic_id >> SMT shift: unique in the machine */
        uint32_t thread;        /* apic_id & SMT mask */
        uint32_t llc_domain;    /* apic_id >> shift of the last-level cache's sharing field */
        uint8_t  smt_shift, pkg_shift, llc_shift;
        uint8_t  llc_level;     /* level of the cache llc_domain refers to (0: none found) */
        bool     hybrid;        /* the part mixes core types (x86: CPUID.07H:EDX[15]) */
        uint8_t  core_type;     /* this core's type where hybrid (x86: CPUID.1AH:EAX[31:24],
                                 * 0x20 Atom, 0x40 Core); 0 = not hybrid or not said */
        uint64_t cache_bytes[TOPO_CACHE_LEVELS]; /* data/unified cache size by level - 1 as
                                 * this CPU's own CPUID describes it; 0 = none */
        const char *source;     /* "CPUID 0x1F", "CPUID 0xB", "CPUID 1" */
};

/** Describe the processor this runs on (any CPU; no allocation, no printing). */
void cpu_topology_self(struct cpu_topology *out);

#endif
