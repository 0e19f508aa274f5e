/** @file
 * The inventory's x86-64 part: the CPUID dump of the processor the run described, written as
 * text. Portable: no UEFI types.
 */
#ifndef PMUCAL_REPORT_X86_INVENTORY_CPUID_H
#define PMUCAL_REPORT_X86_INVENTORY_CPUID_H

#include "boot/x86/cpuid.h"
#include "report/rep.h"

/** Append the CPUID dump in the text format of `cpuid -r` (one logical CPU), so a run on new
 *  hardware gives a fixture for tests/data/cpuid/. */
status_t inventory_cpuid_text(struct rep_buf *b, const struct cpuid_dump *d);

#endif
