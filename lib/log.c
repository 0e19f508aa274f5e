/** @file Diagnostics forwarded to the registered writer (see log.h). */
#include "lib/log.h"

static log_writer_fn writer;

void log_set_writer(log_writer_fn fn)
{
        writer = fn;
}

static void emit(enum log_level level, status_t st, const char *fmt, va_list ap)
{
        if (writer)
                writer(level, st, fmt, ap);
}

void log_info(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        emit(LOG_INFO, ST_OK, fmt, ap);
        va_end(ap);
}

void log_warn(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        emit(LOG_WARN, ST_OK, fmt, ap);
        va_end(ap);
}

status_t log_err(status_t st, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        emit(LOG_ERR, st, fmt, ap);
        va_end(ap);
        return st;
}
