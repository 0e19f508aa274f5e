/** @file
 * Base-2 logarithm and exponential of integers in Q8 fixed point (256 per octave, a factor
 * of two), which level detection (analysis/levels*.c) and the latency table's log-log plot
 * (report/lattable.c) work in: integer arithmetic only, so the firmware and the host compute
 * identical bits. Pure; portable.
 */
#ifndef PMUCAL_LIB_FIXQ8_H
#define PMUCAL_LIB_FIXQ8_H

#include <stdint.h>

/** Integer log2 of @p v in Q8 (256 per octave), its fraction truncated; 0 for v <= 1. */
uint32_t lib_log2_q8(uint64_t v);
/** 2^(@p x / 256), rounded; the inverse of lib_log2_q8 (UINT64_MAX when it overflows). */
uint64_t lib_exp2_q8(uint32_t x);

#endif
