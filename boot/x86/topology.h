/** @file
 * x86 topology from CPUID: the x2APIC ID and level shifts of leaf 0x1F (or 0xB), the legacy
 * leaf 1 / 0x80000008 fields where those are missing, and the sharing field of the
 * last-level cache (leaf 4, or 0x8000001D on AMD). [SDM-2A] CPUID leaves 04H, 0BH, 1FH;
 * [APM-3] CPUID Fn8000_0008, Fn8000_001D. Decoding works on a struct cpuid_dump, so the
 * recorded dumps of real processors in tests/data/cpuid/ exercise it.
 */
#ifndef PMUCAL_X86_TOPOLOGY_H
#define PMUCAL_X86_TOPOLOGY_H

#include "boot/topology.h"
#include "boot/x86/cpuid.h"

/** Decode @p d (one CPU's leaves) into @p out. */
void cpu_topology_decode(const struct cpuid_dump *d, struct cpu_topology *out);

#endif
