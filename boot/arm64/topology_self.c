/** @file
 * The calling processor's place in the machine on AArch64, from MPIDR_EL1 (see
 * boot/topology.h): the affinity fields packed into one ID (Aff3.Aff2.Aff1.Aff0, the
 * processor ID UEFI's MP services and the MADT GICC entries use), threads where MPIDR_EL1.MT
 * says Aff0 numbers the threads of a core. The last-level cache's sharing is not in MPIDR
 * (PPTT would say): llc_level stays 0. [ARM-ARM] D23.2.124 MPIDR_EL1.
 */
#include "boot/topology.h"

#include "boot/arm64/sysreg.h"

void cpu_topology_self(struct cpu_topology *out)
{
        uint64_t m   = SYSREG_READ(mpidr_el1);
        uint32_t aff0 = m & 0xff, aff1 = m >> 8 & 0xff, aff2 = m >> 16 & 0xff;
        uint32_t aff3 = m >> 32 & 0xff;
        bool     mt   = m >> 24 & 1;

        *out = (struct cpu_topology){ .source = "MPIDR_EL1" };
        out->apic_id   = aff3 << 24 | aff2 << 16 | aff1 << 8 | aff0;
        out->thread    = mt ? aff0 : 0;
        out->core      = mt ? out->apic_id >> 8 : out->apic_id;
        out->package   = mt ? aff3 << 8 | aff2 : aff3 << 16 | aff2 << 8 | aff1;
        out->smt_shift = mt ? 8 : 0;
        out->pkg_shift = mt ? 16 : 8;
}
