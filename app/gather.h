/** @file
 * The architecture's part of the inventory phase (app/gather.c): identify the CPU into the
 * inventory's struct cpu_info and clock fields, report the identification check, and keep
 * the raw registers as a results file. app/x86/gather.c (CPUID, MSR probes, TSC
 * calibration; cpuid.txt) and app/arm64/gather.c (ID registers, generic timer; idregs.txt).
 */
#ifndef PMUCAL_APP_GATHER_H
#define PMUCAL_APP_GATHER_H

#include "app/run.h"
#include "report/inventory.h"

/** The raw registers gather_cpu read (owned by the architecture's file). */
struct gather_cpu_raw {
        void  *regs;
        size_t n;      /* leaves or registers read */
};

/** Identify the CPU this runs on into @p inv (cpu, cpu_st, arch, clock, microcode, MSRs). */
status_t gather_cpu(struct inventory *inv, struct gather_cpu_raw *raw);
/** After the inventory is printed: the identification verdict. */
void gather_cpu_report(const struct inventory *inv, const struct gather_cpu_raw *raw);
/** Hand the raw dump to the run as a results file and free it. */
void gather_cpu_files(struct run *r, struct gather_cpu_raw *raw);
/** At the end of the run, on the CPU gather_cpu ran on: undo what gather_cpu changed to make
 *  the measurements sound (x86: DE_CFG[1], boot/x86/lfence.h). Idempotent. */
void gather_cpu_release(void);

#endif
