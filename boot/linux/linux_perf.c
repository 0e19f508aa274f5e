/** @file The hosted platform's core clock (plat_info()->core_cycles): perf_event_open's
 *  PERF_COUNT_HW_CPU_CYCLES on the calling thread, read with the TSC around every window.
 *  Where the kernel offers no hardware cycles event (a guest without a virtual PMU,
 *  perf_event_paranoid) the reason is kept instead (plat_info()->core_cycles_why). The
 *  msr driver's APERF/MPERF (boot/linux/x86/linux_msr.c), where readable, comes first. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot/linux/linux_plat.h"
#include "boot/arch.h"

static int  cycles_fd = -1;
static char why[160];

static status_t read_cycles(void *ctx, uint64_t *core, uint64_t *ref)
{
        uint64_t v = 0;

        (void)ctx;
        if (read(cycles_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
                return ST_IO;
        *core = v;
        *ref  = cpu_ticks_ordered();
        return ST_OK;
}

void linux_perf_cycles(struct plat_info *info)
{
        struct perf_event_attr a;
        uint64_t               v;

        if (info->core_cycles || info->core_cycles_why)
                return; /* opened (or refused) once per process, on the first caller's thread */
        memset(&a, 0, sizeof(a));
        a.type           = PERF_TYPE_HARDWARE;
        a.size           = sizeof(a);
        a.config         = PERF_COUNT_HW_CPU_CYCLES;
        a.exclude_kernel = 1;
        a.exclude_hv     = 1;
        cycles_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (cycles_fd >= 0 && read(cycles_fd, &v, sizeof(v)) == (ssize_t)sizeof(v)) {
                info->core_cycles      = read_cycles;
                info->core_cycles_name = "perf_event cycles";
                return;
        }
        snprintf(why, sizeof(why), "perf_event_open(cycles): %s%s", strerror(errno),
                 errno == ENOENT ? " (no hardware PMU exposed to this system)" : "");
        info->core_cycles_why = why;
}
