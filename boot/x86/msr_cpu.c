/** @file
 * The *_safe accessors of boot/x86/msr.h on the real CPU, for the firmware build: each arms the
 * calling processor's fault fixup (boot/x86/trap.h) around one RDMSR/WRMSR/RDPMC, so a #GP or
 * #UD comes back as ST_FAULT instead of reaching the firmware's handler, on the BSP and on an
 * application processor alike. The label after the instruction is the resume point; the fixup
 * is disarmed on both paths.
 */
#include "boot/x86/msr.h"

#include "boot/x86/trap.h"

#include <stddef.h>

/* The calling processor's slot with its last vector cleared, or NULL (no recovery here). */
static struct trap_cpu *arm_begin(void)
{
        struct trap_cpu *c;

        if (!trap_active() || !(c = trap_cpu_self()))
                return NULL;
        c->vector = 0;
        return c;
}

status_t rdmsr_safe(uint32_t msr, uint64_t *out)
{
        uint32_t         lo = 0, hi = 0;
        struct trap_cpu *c;

        *out = 0;
        if (!(c = arm_begin()))
                return ST_UNSUPPORTED;
        __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                         "movq %%r11, %[fix]\n\t"
                         "rdmsr\n"
                         "1:\n\t"
                         "movq $0, %[fix]"
                         : "+a"(lo), "+d"(hi), [fix] "=m"(c->fixup_rip)
                         : "c"(msr)
                         : "r11", "memory");
        if (c->vector)
                return ST_FAULT;
        *out = ((uint64_t)hi << 32) | lo;
        return ST_OK;
}

status_t wrmsr_safe(uint32_t msr, uint64_t val)
{
        struct trap_cpu *c;

        if (!(c = arm_begin()))
                return ST_UNSUPPORTED;
        __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                         "movq %%r11, %[fix]\n\t"
                         "wrmsr\n"
                         "1:\n\t"
                         "movq $0, %[fix]"
                         : [fix] "=m"(c->fixup_rip)
                         : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
                         : "r11", "memory");
        return c->vector ? ST_FAULT : ST_OK;
}

status_t rdpmc_safe(uint32_t ecx, uint64_t *out)
{
        uint32_t         lo = 0, hi = 0;
        struct trap_cpu *c;

        *out = 0;
        if (!(c = arm_begin()))
                return ST_UNSUPPORTED;
        __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                         "movq %%r11, %[fix]\n\t"
                         "rdpmc\n"
                         "1:\n\t"
                         "movq $0, %[fix]"
                         : "+a"(lo), "+d"(hi), [fix] "=m"(c->fixup_rip)
                         : "c"(ecx)
                         : "r11", "memory");
        if (c->vector)
                return ST_FAULT;
        *out = ((uint64_t)hi << 32) | lo;
        return ST_OK;
}

unsigned msr_last_fault_vector(void)
{
        struct trap_cpu *c = trap_cpu_find();

        return c ? c->vector : 0;
}
