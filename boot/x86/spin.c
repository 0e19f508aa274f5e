/** @file PAUSE as the spin-wait hint (see boot/spin.h). [SDM-2B] PAUSE. */
#include "boot/spin.h"

void spin_relax(void)
{
        __asm__ volatile("pause" ::: "memory");
}
