/** @file
 * The one header through which shared boot/ code reaches the architecture it is built for:
 * the platforms that are not tied to one architecture (boot/linux/) include this, never
 * boot/x86/ or boot/arm64/ directly (tools/check_layering.py allows one such header per
 * layer). It picks the architecture's CPU access and names what both offer alike.
 */
#ifndef PMUCAL_BOOT_ARCH_H
#define PMUCAL_BOOT_ARCH_H

#include <stdint.h>

#if defined(__x86_64__)
#include "boot/x86/msr.h"

/** The free-running counter the windows are timed with, read in order with the loads around
 *  it: the TSC (rdtsc_ordered). */
static inline uint64_t cpu_ticks_ordered(void)
{
        return rdtsc_ordered();
}
#elif defined(__aarch64__)
#include "boot/arm64/sysreg.h"

/** The free-running counter the windows are timed with, read in order with the loads around
 *  it: the generic timer's CNTVCT_EL0 (cntvct_ordered). */
static inline uint64_t cpu_ticks_ordered(void)
{
        return cntvct_ordered();
}
#else
#error "pmucal is built for x86-64 and AArch64 only"
#endif

#endif
