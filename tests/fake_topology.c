/** @file A cpu_topology_self() for the test platform: each "processor" (the BSP or a thread
 *  tests/fake_plat.c started) describes itself as the CPU list given to fake_plat_set_cpus()
 *  says, as a real CPU would answer from its own CPUID; fake_topology_set_kind() makes one a
 *  core of a hybrid part with caches of its own. */
#include "boot/topology.h"
#include "tests/fake_plat.h"

static struct {
        uint8_t  core_type;
        uint64_t l2_bytes;
} kinds[64];

void fake_topology_set_kind(unsigned idx, uint8_t core_type, uint64_t l2_bytes)
{
        if (idx < 64)
                kinds[idx] = (typeof(kinds[0])){ core_type, l2_bytes };
}

void cpu_topology_self(struct cpu_topology *out)
{
        struct plat_cpu c   = { 0 };
        unsigned        idx = (unsigned)fake_plat_this_cpu();

        plat_cpu_info(idx, &c, NULL);
        *out = (struct cpu_topology){ .apic_id = c.apic_id, .package = c.package,
                                      .core = c.core, .thread = c.thread,
                                      .llc_domain = c.package, .llc_level = 3,
                                      .source = "test platform" };
        if (idx < 64 && kinds[idx].core_type) {
                out->hybrid         = true;
                out->core_type      = kinds[idx].core_type;
                out->cache_bytes[0] = kinds[idx].core_type == 0x20 ? 32 << 10 : 48 << 10;
                out->cache_bytes[1] = kinds[idx].l2_bytes;
                out->cache_bytes[2] = 36 << 20;
        }
}
