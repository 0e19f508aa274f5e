/** @file
 * The *_safe accessors of boot/x86/msr.h on the real CPU, for the firmware build: each arms the
 * fault fixup of boot/x86/trap.h around one RDMSR/WRMSR/RDPMC, so a #GP or #UD comes back as
 * ST_FAULT instead of reaching the firmware's handler. The label after the instruction is the
 * resume point; the fixup is disarmed on both paths.
 */
#include "boot/x86/msr.h"

#include "boot/x86/trap.h"

status_t rdmsr_safe(uint32_t msr, uint64_t *out)
{
        uint32_t lo = 0, hi = 0;

        *out = 0;
        if (!trap_active())
                return ST_UNSUPPORTED;
        trap_vector = 0;
        __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                         "movq %%r11, %[fix]\n\t"
                         "rdmsr\n"
                         "1:\n\t"
                         "movq $0, %[fix]"
                         : "+a"(lo), "+d"(hi), [fix] "=m"(trap_fixup_rip)
                         : "c"(msr)
                         : "r11", "memory");
        if (trap_vector)
                return ST_FAULT;
        *out = ((uint64_t)hi << 32) | lo;
        return ST_OK;
}

status_t wrmsr_safe(uint32_t msr, uint64_t val)
{
        if (!trap_active())
                return ST_UNSUPPORTED;
        trap_vector = 0;
        __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                         "movq %%r11, %[fix]\n\t"
                         "wrmsr\n"
                         "1:\n\t"
                         "movq $0, %[fix]"
                         : [fix] "=m"(trap_fixup_rip)
                         : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
                         : "r11", "memory");
        return trap_vector ? ST_FAULT : ST_OK;
}

status_t rdpmc_safe(uint32_t ecx, uint64_t *out)
{
        uint32_t lo = 0, hi = 0;

        *out = 0;
        if (!trap_active())
                return ST_UNSUPPORTED;
        trap_vector = 0;
        __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                         "movq %%r11, %[fix]\n\t"
                         "rdpmc\n"
                         "1:\n\t"
                         "movq $0, %[fix]"
                         : "+a"(lo), "+d"(hi), [fix] "=m"(trap_fixup_rip)
                         : "c"(ecx)
                         : "r11", "memory");
        if (trap_vector)
                return ST_FAULT;
        *out = ((uint64_t)hi << 32) | lo;
        return ST_OK;
}

unsigned msr_last_fault_vector(void)
{
        return trap_vector;
}
