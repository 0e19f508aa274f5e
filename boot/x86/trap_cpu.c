/** @file The per-processor fault fixups of the harness's #UD/#GP handlers (see trap.h). */
#include "boot/x86/trap.h"

#include <stddef.h>

struct trap_cpu trap_cpus[TRAP_MAX_CPUS];
volatile uint64_t trap_n_recovered;

/* A slot's owner is the APIC ID + 1, so that 0 means free. */
static struct trap_cpu *find(uint32_t id)
{
        for (unsigned i = 0; i < TRAP_MAX_CPUS; i++) {
                uint64_t o = __atomic_load_n(&trap_cpus[i].owner, __ATOMIC_ACQUIRE);
                if (o == (uint64_t)id + 1)
                        return &trap_cpus[i];
                if (!o)
                        return NULL; /* slots are claimed in order: none further is taken */
        }
        return NULL;
}

struct trap_cpu *trap_cpu_find(void)
{
        return find(trap_self_id());
}

struct trap_cpu *trap_cpu_self(void)
{
        uint32_t         id = trap_self_id();
        struct trap_cpu *c  = find(id);

        for (unsigned i = 0; !c && i < TRAP_MAX_CPUS; i++) {
                uint64_t free_ = 0;
                if (__atomic_compare_exchange_n(&trap_cpus[i].owner, &free_, (uint64_t)id + 1,
                                                false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                        c = &trap_cpus[i];
                else if (free_ == (uint64_t)id + 1)
                        c = &trap_cpus[i];
        }
        return c;
}

void trap_cpus_reset(void)
{
        for (unsigned i = 0; i < TRAP_MAX_CPUS; i++)
                trap_cpus[i] = (struct trap_cpu){ 0 };
        trap_n_recovered = 0;
}

uint64_t trap_fault_fixup(uint64_t vector, uint64_t *frame)
{
        struct trap_cpu *c = trap_cpu_find();
        uint64_t         rip;

        if (!c || !(rip = c->fixup_rip))
                return 0;
        c->fixup_rip = 0;
        c->vector    = (uint32_t)vector;
        c->n_recovered++;
        __atomic_add_fetch(&trap_n_recovered, 1, __ATOMIC_RELAXED);
        frame[vector == TRAP_VEC_GP ? 1 : 0] = rip; /* #GP pushed an error code first */
        return 1;
}
