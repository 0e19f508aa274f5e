/** @file
 * The trivial register-level model: a machine with no MSRs and no PMU, as QEMU TCG looks to
 * a careful prober. Every rdmsr_safe/wrmsr_safe raises #GP (vector 13) and RDPMC raises #UD
 * (vector 6), each reported as ST_FAULT. Linked by host tests that must not touch a PMU.
 */
#include "boot/x86/msr.h"

#define VEC_UD 6  /* [SDM-3A] Table 6-1: #UD invalid opcode */
#define VEC_GP 13 /* [SDM-3A] Table 6-1: #GP general protection */

static __thread unsigned last_vector; /* per processor: the test "CPUs" are threads */

status_t rdmsr_safe(uint32_t msr, uint64_t *out)
{
        (void)msr;
        if (out)
                *out = 0;
        last_vector = VEC_GP;
        return ST_FAULT;
}

status_t wrmsr_safe(uint32_t msr, uint64_t val)
{
        (void)msr;
        (void)val;
        last_vector = VEC_GP;
        return ST_FAULT;
}

status_t rdpmc_safe(uint32_t ecx, uint64_t *out)
{
        (void)ecx;
        if (out)
                *out = 0;
        last_vector = VEC_UD;
        return ST_FAULT;
}

unsigned msr_last_fault_vector(void)
{
        return last_vector;
}
