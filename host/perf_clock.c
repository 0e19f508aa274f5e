/** @file The hosted programs' core clock: perf_event_open(PERF_COUNT_HW_CPU_CYCLES) on the
 *  calling thread, read with the TSC around every window; where the kernel offers no hardware
 *  cycles event (a guest without a virtual PMU, perf_event_paranoid), the msr driver's
 *  APERF/MPERF (boot/linux/linux_msr.c) or nothing, with the reason (see host.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot/cpu.h"
#include "boot/x86/msr.h"
#include "host/host.h"

static int  cycles_fd = -1;
static char why[192];

static status_t read_cycles(void *ctx, uint64_t *core, uint64_t *ref)
{
        uint64_t v = 0;

        (void)ctx;
        if (read(cycles_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
                return ST_IO;
        *core = v;
        *ref  = rdtsc_ordered();
        return ST_OK;
}

void host_perf_core_src(struct bench_core_src *src)
{
        struct perf_event_attr a;
        uint64_t               v;
        const char            *prev = src->why_none;

        if (src->name)
                return; /* APERF/MPERF through /dev/cpu/N/msr serves */
        memset(&a, 0, sizeof(a));
        a.type           = PERF_TYPE_HARDWARE;
        a.size           = sizeof(a);
        a.config         = PERF_COUNT_HW_CPU_CYCLES;
        a.exclude_kernel = 1;
        a.exclude_hv     = 1;
        if (cycles_fd < 0)
                cycles_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (cycles_fd >= 0 && read(cycles_fd, &v, sizeof(v)) == (ssize_t)sizeof(v)) {
                *src = (struct bench_core_src){ .name = "perf_event cycles", .read = read_cycles };
                return;
        }
        snprintf(why, sizeof(why), "%s; perf_event_open(cycles): %s%s",
                 prev ? prev : "no APERF/MPERF", strerror(errno),
                 errno == ENOENT ? " (no hardware PMU exposed to this system)" : "");
        src->why_none = why;
}
