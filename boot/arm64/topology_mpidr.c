/** @file
 * The MPIDR_EL1 fallback of the Arm topology (see boot/topology.h): pure, so the host tests
 * hold it against real processors' affinity values. [ARM-ARM] D23.2.124 MPIDR_EL1.
 */
#include "boot/topology.h"

#define MPIDR_MT BIT_ULL(24)

void cpu_topology_from_mpidr(uint64_t m, struct cpu_topology *out)
{
        uint32_t aff0 = m & 0xff, aff1 = m >> 8 & 0xff, aff2 = m >> 16 & 0xff;
        uint32_t aff3 = m >> 32 & 0xff;
        bool     mt   = m & MPIDR_MT;

        *out = (struct cpu_topology){ .source = "MPIDR_EL1" };
        out->apic_id   = aff3 << 24 | aff2 << 16 | aff1 << 8 | aff0;
        out->thread    = mt ? aff0 : 0;
        out->core      = mt ? out->apic_id >> 8 : out->apic_id;
        out->package   = mt ? aff3 << 8 | aff2 : aff3 << 16 | aff2 << 8 | aff1;
        out->smt_shift = mt ? 8 : 0;
        out->pkg_shift = mt ? 16 : 8;
}
