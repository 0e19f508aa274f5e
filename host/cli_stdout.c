/** @file
 * Write errors on standard output: see cli_stdout.h. An atexit handler, so every return from
 * main and every exit() is covered.
 */
#include "host/cli_stdout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog_name = "pmucal";
static int         fail_code = 1;

static void check(void)
{
        errno = 0;
        if (fflush(stdout) != EOF && !ferror(stdout))
                return;
        int e = errno;
        fprintf(stderr, "%s: writing standard output: %s: the output is incomplete\n",
                prog_name, e ? strerror(e) : "an earlier write failed");
        fflush(stderr);
        _exit(fail_code);
}

void cli_stdout_check_at_exit(const char *prog, int code)
{
        prog_name = prog;
        fail_code = code;
        atexit(check);
}
