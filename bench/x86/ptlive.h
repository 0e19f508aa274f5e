/** @file
 * The page tables the CPU is using now, attached for software walks: CR3 (4-level paging)
 * with the firmware's identity map as the way to reach table pages, never allocating. The
 * sampling phase compares sampled physical addresses with these walks. Ring 0 only (the
 * firmware run); the hosted build has no CR3 to read.
 */
#ifndef PMUCAL_BENCH_PTLIVE_H
#define PMUCAL_BENCH_PTLIVE_H

#include "lib/status.h"
#include "boot/cpu_info.h"
#include "bench/x86/pagetable.h"

/** Attach @p pt to the live tables of the CPU @p cpu describes (1 GiB pages, MAXPHYADDR).
 *  ST_UNSUPPORTED with @p why (static text) under 5-level paging or when CR3 does not hold a
 *  usable PML4 address. */
status_t bench_ptlive_attach(struct bench_pt *pt, const struct cpu_info *cpu, const char **why);

#endif
