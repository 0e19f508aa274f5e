/** @file A cpu_topology_self() for the test platform: each "processor" (the BSP or a thread
 *  tests/fake_plat.c started) describes itself as the CPU list given to fake_plat_set_cpus()
 *  says, as a real CPU would answer from its own CPUID. */
#include "boot/topology.h"
#include "tests/fake_plat.h"

void cpu_topology_self(struct cpu_topology *out)
{
        struct plat_cpu c = { 0 };

        plat_cpu_info((unsigned)fake_plat_this_cpu(), &c, NULL);
        *out = (struct cpu_topology){ .apic_id = c.apic_id, .package = c.package,
                                      .core = c.core, .thread = c.thread,
                                      .llc_domain = c.package, .llc_level = 3,
                                      .source = "test platform" };
}
