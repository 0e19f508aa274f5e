/** @file The calling processor's APIC ID from its own CPUID, for the per-processor fault
 *  fixups (boot/x86/trap.h). In a file of its own so that tests can put a double in its place
 *  that answers for the test platform's processors (their "CPUs" are threads). */
#include "boot/x86/trap.h"

#include "boot/x86/msr.h"

/* The x2APIC ID of CPUID 0xB where that leaf exists (EBX != 0 on sub-leaf 0), else the
 * initial APIC ID of CPUID 1 EBX[31:24]. [SDM-2A] CPUID. */
uint32_t trap_self_id(void)
{
        struct cpuid_regs r;

        cpuid_raw(0, 0, &r);
        if (r.eax >= 0xb) {
                struct cpuid_regs x;
                cpuid_raw(0xb, 0, &x);
                if (x.ebx)
                        return x.edx;
        }
        cpuid_raw(1, 0, &r);
        return r.ebx >> 24;
}
