/** @file Processors (plat.h) and the CPU-level operations (boot/cpu.h) on Linux for
 *  pmucal-host: the processors come from sysfs; a user process can neither mask interrupts,
 *  switch page tables, route the PMI nor recover faults, and every such call says so. */
#define _GNU_SOURCE
#include "boot/cpu.h"
#include "boot/plat.h"
#include "boot/linux/linux_plat.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

/* ---- processors ---- */

/* A recorded machine (pmucal-host --inventory --cpuid-dump): one processor, the dump's. */
static bool     recorded;
static uint32_t recorded_apic;

void linux_cpu_set_recorded(uint32_t apic_id)
{
        recorded      = true;
        recorded_apic = apic_id;
}

/* The processors: every CPU Linux configured, the BSP (the CPU the program pinned itself to
 * first) at index 0, the others in ascending order; and which of them this process may run
 * on (sched_getaffinity before anything was pinned). */
static unsigned  cpus[CPU_SETSIZE], n_cpus;
static cpu_set_t allowed;
static bool      bsp_set;

unsigned linux_cpu_list(void)
{
        long n = sysconf(_SC_NPROCESSORS_CONF);

        if (n_cpus)
                return n_cpus;
        if (sched_getaffinity(0, sizeof(allowed), &allowed))
                CPU_ZERO(&allowed);
        for (unsigned c = 0; c < CPU_SETSIZE && (long)c < n; c++)
                cpus[n_cpus++] = c;
        if (!n_cpus)
                cpus[n_cpus++] = 0;
        if (!CPU_COUNT(&allowed))
                for (unsigned k = 0; k < n_cpus; k++)
                        CPU_SET(cpus[k], &allowed);
        return n_cpus;
}

bool linux_cpu_allowed(unsigned idx)
{
        return idx < linux_cpu_list() && CPU_ISSET(cpus[idx], &allowed);
}

unsigned linux_cpu_number(unsigned idx)
{
        return idx < linux_cpu_list() ? cpus[idx] : 0;
}

void linux_cpu_set_bsp(unsigned cpu)
{
        unsigned k;

        linux_cpu_list();
        if (bsp_set)
                return;
        bsp_set = true;
        for (k = 0; k < n_cpus && cpus[k] != cpu; k++)
                ;
        for (; k < n_cpus && k > 0; k--) /* to the front, the others keep their order */
                cpus[k] = cpus[k - 1];
        if (k == 0)
                cpus[0] = cpu;
}

static unsigned cpu_count(void)
{
        if (recorded)
                return 1;
        return linux_cpu_list();
}

/* The APIC ID of logical CPU @p idx: /proc/cpuinfo "apicid" (sysfs does not publish it);
 * @p dflt when it does not say. */
static uint32_t cpuinfo_apic_id(unsigned idx, uint32_t dflt)
{
        FILE    *f = fopen("/proc/cpuinfo", "r");
        char     line[256];
        long     cur = -1;
        unsigned v;
        uint32_t id = dflt;

        if (!f)
                return dflt;
        while (fgets(line, sizeof(line), f)) {
                if (sscanf(line, "processor : %ld", &cur) == 1)
                        continue;
                if (cur == (long)idx && sscanf(line, "apicid : %u", &v) == 1) {
                        id = v;
                        break;
                }
        }
        fclose(f);
        return id;
}

static long read_long(const char *fmt, unsigned idx, long dflt)
{
        char path[128];
        long v;
        FILE *f;

        snprintf(path, sizeof(path), fmt, idx);
        if (!(f = fopen(path, "r")))
                return dflt;
        if (fscanf(f, "%ld", &v) != 1)
                v = dflt;
        fclose(f);
        return v;
}

static status_t cpu_describe(unsigned idx, struct plat_cpu *out)
{
        if (!out || idx >= cpu_count())
                return ST_BAD_ARG;
        if (recorded) {
                *out = (struct plat_cpu){ .apic_id = recorded_apic, .enabled = true,
                                          .is_bsp = true };
                return ST_OK;
        }
        unsigned c = cpus[idx]; /* Linux's CPU number */
        *out = (struct plat_cpu){
                .apic_id = cpuinfo_apic_id(c, c),
                .enabled = read_long("/sys/devices/system/cpu/cpu%u/online", c, 1) != 0,
                .is_bsp  = idx == 0,
                .package = (uint32_t)read_long(
                        "/sys/devices/system/cpu/cpu%u/topology/physical_package_id", c, 0),
                .core   = (uint32_t)read_long("/sys/devices/system/cpu/cpu%u/topology/core_id",
                                              c, c),
                .thread = 0,
                .node   = linux_cpu_node(c),
        };
        return ST_OK;
}

/* An "application processor" of the hosted build: a thread pinned to that CPU. */
struct ap_thread {
        pthread_t thread;
        bool      started;
        unsigned  cpu;
        void (*fn)(void *arg);
        void     *arg;
        volatile int finished;
};

static struct ap_thread ap_threads[CPU_SETSIZE];

static void *ap_main(void *p)
{
        struct ap_thread *a = p;
        cpu_set_t         set;

        CPU_ZERO(&set);
        CPU_SET(a->cpu, &set);
        sched_setaffinity(0, sizeof(set), &set);
        a->fn(a->arg);
        __atomic_store_n(&a->finished, 1, __ATOMIC_RELEASE);
        return NULL;
}

status_t plat_cpu_start(unsigned idx, void (*fn)(void *arg), void *arg)
{
        struct ap_thread *a;

        if (!fn || idx == 0 || idx >= cpu_count() || idx >= CPU_SETSIZE)
                return ST_BAD_ARG;
        if (!linux_cpu_allowed(idx))
                return ST_UNSUPPORTED; /* taskset or a cgroup keeps this process off it */
        a = &ap_threads[idx];
        if (a->started)
                return ST_BAD_ARG;
        *a = (struct ap_thread){ .cpu = cpus[idx], .fn = fn, .arg = arg };
        if (pthread_create(&a->thread, NULL, ap_main, a))
                return ST_NO_MEM;
        a->started = true;
        return ST_OK;
}

status_t plat_cpu_join(unsigned idx, uint32_t timeout_us)
{
        struct ap_thread *a = idx < CPU_SETSIZE ? &ap_threads[idx] : NULL;

        if (!a || !a->started)
                return ST_OK;
        for (uint32_t t = 0; !__atomic_load_n(&a->finished, __ATOMIC_ACQUIRE); t += 100) {
                if (t >= timeout_us)
                        return ST_TIMEOUT;
                usleep(100);
        }
        pthread_join(a->thread, NULL);
        a->started = false;
        return ST_OK;
}

status_t plat_cpu_info(unsigned idx, struct plat_cpu *out, unsigned *n_total)
{
        if (n_total)
                *n_total = cpu_count();
        if (!out)
                return idx < cpu_count() ? ST_OK : ST_BAD_ARG;
        return cpu_describe(idx, out);
}

/* ---- boot/cpu.h: a user process can do none of it ---- */

bool cpu_irq_disable(uint64_t *saved)
{
        if (saved)
                *saved = 0;
        return false; /* a user process cannot mask interrupts; the report says so */
}

void cpu_irq_restore(uint64_t saved)
{
        (void)saved;
}


status_t cpu_page_tables_load(uint64_t root_pa, uint64_t *saved)
{
        (void)root_pa;
        *saved = 0;
        return ST_UNSUPPORTED;
}

void cpu_page_tables_restore(uint64_t saved)
{
        (void)saved;
}


status_t cpu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        (void)fn;
        (void)ctx;
        (void)ext_lvt_offset;
        return ST_UNSUPPORTED;
}

void cpu_pmi_disable(void)
{
}

status_t cpu_pmi_selftest(uint64_t *tsc_round_trip)
{
        if (tsc_round_trip)
                *tsc_round_trip = 0;
        return ST_UNSUPPORTED;
}


status_t cpu_fault_probe(enum cpu_fault_probe kind, unsigned *vector)
{
        (void)kind;
        if (vector)
                *vector = 0;
        return ST_UNSUPPORTED;
}
