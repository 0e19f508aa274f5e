/** @file
 * One PSCI call through HVC or SMC (see smp.h). SMC Calling Convention (Arm DEN0028) §4:
 * function ID in W0, arguments in X1..X3, result in X0; a 1.0 implementation may corrupt
 * X4..X17, so they are clobbered here.
 */
#include "boot/arm64/smp.h"

#define PSCI_CLOBBERS                                                                   \
        "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",   \
                "x16", "x17", "memory"

int64_t psci_call(enum psci_conduit conduit, uint32_t fn, uint64_t a1, uint64_t a2,
                  uint64_t a3)
{
        register uint64_t x0 __asm__("x0") = fn;
        register uint64_t x1 __asm__("x1") = a1;
        register uint64_t x2 __asm__("x2") = a2;
        register uint64_t x3 __asm__("x3") = a3;

        if (conduit == PSCI_CONDUIT_HVC)
                __asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
                                 : : PSCI_CLOBBERS);
        else if (conduit == PSCI_CONDUIT_SMC)
                __asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
                                 : : PSCI_CLOBBERS);
        else
                return PSCI_RET_NOT_SUPPORTED;
        return (int64_t)x0;
}
