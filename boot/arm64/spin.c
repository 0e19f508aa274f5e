/** @file spin_relax on AArch64 (see boot/spin.h): YIELD, the hint a spin-wait loop gives a
 *  multithreaded core. [ARM-ARM] C6.2 YIELD. */
#include "boot/spin.h"

void spin_relax(void)
{
        __asm__ volatile("yield" ::: "memory");
}
