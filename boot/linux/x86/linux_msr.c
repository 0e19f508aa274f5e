/** @file The MSR accessors of boot/x86/msr.h for the hosted build: the msr driver's
 *  /dev/cpu/N/msr, where the file offset is the MSR number and a register the CPU lacks reads
 *  as EIO (the kernel caught the #GP). No driver or no permission: ST_UNSUPPORTED, except for
 *  the microcode revision, which the kernel also publishes in /proc/cpuinfo. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boot/x86/msr.h"
#include "boot/x86/msr_misc.h"
#include "boot/linux/linux_plat.h"

static __thread int msr_cpu = -1; /* per thread (an AP thread is pinned to its own CPU);
                                     * -1: the CPU the caller runs on now */

void linux_msr_set_cpu(unsigned cpu)
{
        msr_cpu = (int)cpu;
}

static int open_msr(int flags, status_t *st)
{
        char path[48];
        int  cpu = msr_cpu >= 0 ? msr_cpu : sched_getcpu();
        int  fd;

        snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu < 0 ? 0 : cpu);
        fd = open(path, flags | O_CLOEXEC);
        if (fd < 0)
                *st = ST_UNSUPPORTED; /* ENOENT (no msr module), EACCES, EPERM */
        return fd;
}

/* IA32_BIOS_SIGN_ID as the CPU would give it, from /proc/cpuinfo's "microcode : 0x..." of
 * the CPU the accessors use: Intel keeps the revision in bits 63:32 [SDM-3A] "Microcode
 * Update Facilities", AMD's patch level is bits 31:0 [APM-2] "Microcode Patch Level". */
static status_t ucode_from_cpuinfo(uint64_t *out)
{
        FILE             *f   = fopen("/proc/cpuinfo", "r");
        int               cpu = msr_cpu >= 0 ? msr_cpu : sched_getcpu();
        long              cur = -1;
        char              line[256];
        uint64_t          rev;
        struct cpuid_regs r;
        status_t          st = ST_UNSUPPORTED;

        if (!f)
                return st;
        while (st != ST_OK && fgets(line, sizeof(line), f)) {
                if (sscanf(line, "processor : %ld", &cur) == 1)
                        continue;
                if (cur == (cpu < 0 ? 0 : cpu) && sscanf(line, "microcode : %" SCNx64, &rev) == 1)
                        st = ST_OK;
        }
        fclose(f);
        if (st != ST_OK)
                return st;
        cpuid_raw(0, 0, &r);
        *out = r.ebx == 0x756e6547u /* "Genu" */ ? rev << UCODE_REV_INTEL_SHIFT : rev;
        return ST_OK;
}

status_t rdmsr_safe(uint32_t msr, uint64_t *out)
{
        status_t st = ST_OK;
        uint64_t v  = 0;
        int      fd = open_msr(O_RDONLY, &st);

        if (out)
                *out = 0;
        if (fd < 0 && msr == MSR_IA32_UCODE_REV && out)
                return ucode_from_cpuinfo(out);
        if (fd < 0)
                return st;
        if (pread(fd, &v, sizeof(v), msr) != (ssize_t)sizeof(v))
                st = errno == EIO ? ST_FAULT : ST_UNSUPPORTED;
        close(fd);
        if (st == ST_OK && out)
                *out = v;
        return st;
}

status_t wrmsr_safe(uint32_t msr, uint64_t val)
{
        status_t st = ST_OK;
        int      fd = open_msr(O_WRONLY, &st);

        if (fd < 0)
                return st;
        if (pwrite(fd, &val, sizeof(val), msr) != (ssize_t)sizeof(val))
                st = errno == EIO ? ST_FAULT : ST_UNSUPPORTED;
        close(fd);
        return st;
}

status_t rdpmc_safe(uint32_t ecx, uint64_t *out)
{
        (void)ecx;
        if (out)
                *out = 0;
        return ST_UNSUPPORTED;
}

unsigned msr_last_fault_vector(void)
{
        return 0;
}
