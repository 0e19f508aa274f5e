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

/** Write a CPU's display family and model by pmucal's one rule: hexadecimal with an h, then
 *  decimal in parentheses, "19h/11h (25/17)"; returns @p buf. */
char *fmt_family_model(char *buf, size_t n, uint32_t family, uint32_t model);

/** Write the size @p bytes by pmucal's one rule for sizes into @p buf; returns @p buf. Below
 *  1 KiB in bytes ("512 B"); else in the largest binary unit it reaches (KiB, MiB, GiB, TiB),
 *  whole when it is a whole number of that unit ("32 KiB", "2 MiB") and with one decimal,
 *  rounded, when not ("30.8 KiB"). */
char *fmt_size(char *buf, size_t n, uint64_t bytes);

#endif
