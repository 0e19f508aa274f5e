/** @file A trap_self_id() for the test platform: each "processor" (the BSP or a thread
 *  tests/fake_plat.c started) answers with the APIC ID the CPU list of fake_plat_set_cpus()
 *  gives it, as a real CPU answers from its own CPUID. */
#include "boot/x86/trap.h"
#include "tests/fake_plat.h"

uint32_t trap_self_id(void)
{
        struct plat_cpu c = { 0 };

        plat_cpu_info((unsigned)fake_plat_this_cpu(), &c, NULL);
        return c.apic_id;
}
