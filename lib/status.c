/** @file Text for status_t values. */
#include "lib/status.h"

static const char *const status_text[ST__COUNT] = {
        [ST_OK]          = "ok",
        [ST_UNSUPPORTED] = "unsupported",
        [ST_FAULT]       = "faulted",
        [ST_NO_MEM]      = "out of memory",
        [ST_IO]          = "I/O error",
        [ST_BAD_ARG]     = "bad argument",
        [ST_TIMEOUT]     = "timed out",
        [ST_NOT_FOUND]   = "not found",
        [ST_BAD_DATA]    = "malformed data",
        [ST_READ_ONLY]   = "volume is write-protected",
        [ST_NO_SPACE]    = "volume is full",
        [ST_DISTURBED]   = "every timed window disturbed",
};

const char *status_str(status_t st)
{
        if ((unsigned)st >= ST__COUNT || !status_text[st])
                return "unknown status";
        return status_text[st];
}
