/* LD_PRELOAD shim for the crash tests of pmucal-host (tests/test_cli_host_crash.sh): the
 * process kills itself with SIGKILL on its Nth call of rename() or renameat2() (N from
 * PMUCAL_KILL_AT_RENAME), before the call takes effect, as a crash or power cut there would
 * stop it. Every call is counted in the file PMUCAL_RENAME_LOG names, when set. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void count(const char *from, const char *to)
{
        static int  n;
        const char *log = getenv("PMUCAL_RENAME_LOG");
        const char *at  = getenv("PMUCAL_KILL_AT_RENAME");

        n++;
        if (log) {
                FILE *f = fopen(log, "a");
                if (f) {
                        fprintf(f, "%d %s -> %s\n", n, from, to);
                        fclose(f);
                }
        }
        if (at && atoi(at) == n)
                raise(SIGKILL);
}

int rename(const char *from, const char *to)
{
        static int (*real)(const char *, const char *);

        count(from, to);
        if (!real)
                real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
        return real(from, to);
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
        static int (*real)(int, const char *, int, const char *, unsigned);

        count(from, to);
        if (!real)
                real = (int (*)(int, const char *, int, const char *, unsigned))dlsym(RTLD_NEXT,
                                                                                     "renameat2");
        return real(fd1, from, fd2, to, flags);
}
