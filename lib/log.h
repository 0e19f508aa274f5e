/** @file
 * Diagnostics from the layers below the report: errors, warnings and notes that bench/,
 * pmu/ and boot/ have to say while they work. They never decide a verdict; they say what
 * happened (`return log_err(st, "mapping %#llx", pa);`) and hand the status up unchanged.
 * The text goes to the writer the report layer registers (report/rep.c prints it as
 * "ERROR:", "WARN:" or "INFO:" lines on every sink); before one is registered it is dropped.
 * Portable: no platform calls, no allocation.
 */
#ifndef PMUCAL_LOG_H
#define PMUCAL_LOG_H

#include <stdarg.h>

#include "lib/fmt.h"
#include "lib/status.h"

enum log_level { LOG_INFO = 0, LOG_WARN, LOG_ERR };

/** Receives every message: @p st is the status for LOG_ERR (ST_OK otherwise). */
typedef void (*log_writer_fn)(enum log_level level, status_t st, const char *fmt, va_list ap);

/** Send every later message to @p fn (NULL: drop them). */
void log_set_writer(log_writer_fn fn);

/** A note worth a line in the report (not a verdict). */
void log_info(const char *fmt, ...) PRINTF_FMT(1, 2);
/** Something went wrong but the work goes on. */
void log_warn(const char *fmt, ...) PRINTF_FMT(1, 2);
/** Say what failed, with the status text appended, and return @p st unchanged. */
status_t log_err(status_t st, const char *fmt, ...) PRINTF_FMT(2, 3);

#endif
