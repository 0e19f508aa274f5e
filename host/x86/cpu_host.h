/** @file
 * The hosted programs' x86-64 CPU access: the processor's description decoded from its CPUID
 * leaves (boot/x86/cpuid.h), of the CPU the caller runs on or of a recorded processor (a CPUID
 * dump file) put in its place. Shared host/ code reaches it through host/arch.h.
 */
#ifndef PMUCAL_HOST_X86_CPU_HOST_H
#define PMUCAL_HOST_X86_CPU_HOST_H

#include "boot/cpu_info.h"
#include "lib/status.h"

/** Fill @p out (caller's) from the CPUID of the CPU the caller runs on, or of the recorded
 *  processor host_cpu_replay() installed. ST_OK, or cpu_decode()'s status. */
status_t host_cpu_identify(struct cpu_info *out);

/** Read the CPUID dump @p path (cpuid -r or an InstLatx64 / AIDA64 layout), block @p cpu, and
 *  make it the processor the inventory and host_cpu_identify() read from now on. Says what
 *  went wrong on stderr; returns the exit status: 0, 1 (unreadable, no CPUID registers) or 2
 *  (the dump has no block @p cpu). */
int host_cpu_replay(const char *path, unsigned cpu);

#endif
