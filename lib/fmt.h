/** @file
 * printf-style formatting for the freestanding build (and, identically, the host build).
 * Supports %d %i %u %x %X %o %c %s %p %%, flags '-' '0' '+' ' ', width and precision (also
 * '*'), and the length modifiers hh h l ll z j t. No floating point: statistics are integers
 * (ps, cycles), so firmware and host print identical bits. Always NUL-terminates when n > 0.
 */
#ifndef PMUCAL_FMT_H
#define PMUCAL_FMT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define PRINTF_FMT(a, b) __attribute__((format(printf, a, b)))

/** Format into @p buf (capacity @p n bytes). Returns the length the full output would have,
 *  like C99 vsnprintf; the output is truncated when that is >= n. */
int fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
/** As fmt_vsnprintf with variadic arguments. */
int fmt_snprintf(char *buf, size_t n, const char *fmt, ...) PRINTF_FMT(3, 4);

/** Write @p v (a fixed-point value with @p decimals decimal places, e.g. 1234 with 3 ->
 *  "1.234") into @p buf; returns @p buf. For ns and GHz figures kept as integers. */
char *fmt_fixed(char *buf, size_t n, int64_t v, unsigned decimals);

#endif
