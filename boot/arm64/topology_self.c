/** @file
 * The calling processor's place in the machine on AArch64: its MPIDR_EL1, decoded by the
 * fallback rule (boot/arm64/topology_mpidr.c). The processors phase replaces the fields with
 * the PPTT's where the firmware has one (cpu_topology_from_pptt()).
 */
#include "boot/topology.h"

#include "boot/arm64/sysreg.h"

void cpu_topology_self(struct cpu_topology *out)
{
        cpu_topology_from_mpidr(SYSREG_READ(mpidr_el1), out);
}
