/** @file The platform interface on Linux for pmucal-host (see plat.h, linux_plat.h). May use
 *  libc and POSIX; nothing portable includes it. */
#define _GNU_SOURCE
#include "boot/linux/linux_plat.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ACPI_DIR      "/sys/firmware/acpi/tables/"
#define DMI_TABLE     "/sys/firmware/dmi/tables/DMI"
#define DMI_ENTRY     "/sys/firmware/dmi/tables/smbios_entry_point"
#define MAX_ACPI      32
#define PATH_BYTES    4096

static char     out_dir[PATH_BYTES] = ".";
static unsigned huge_permille;

static struct {
        char  sig[4];
        unsigned n;
        void *p;
} acpi_cache[MAX_ACPI];
static unsigned n_acpi_cache;
static void    *smbios;
static size_t   smbios_len;
static unsigned smbios_major, smbios_minor;

/* ---- helpers ---- */

static status_t errno_status(int e)
{
        switch (e) {
        case ENOENT: return ST_NOT_FOUND;
        case EROFS: return ST_READ_ONLY;
        case ENOSPC: case EDQUOT: return ST_NO_SPACE;
        case ENOMEM: return ST_NO_MEM;
        default: return ST_IO;
        }
}

static int full_path(char *dst, size_t n, const char *path)
{
        if (path[0] == '/')
                return snprintf(dst, n, "%s", path) < (int)n ? 0 : -1;
        return snprintf(dst, n, "%s/%s", out_dir, path) < (int)n ? 0 : -1;
}

static int mkdir_parents(const char *file)
{
        char tmp[PATH_BYTES];

        snprintf(tmp, sizeof(tmp), "%s", file);
        for (char *s = tmp + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = '\0';
                if (mkdir(tmp, 0755) && errno != EEXIST)
                        return -1;
                *s = '/';
        }
        return 0;
}

/* Read a whole (sysfs) file into malloc'd memory; NULL when unreadable or empty. */
static void *slurp(const char *path, size_t *len)
{
        FILE  *f = fopen(path, "rb");
        char  *p = NULL;
        size_t n = 0, cap = 0, got;

        if (!f)
                return NULL;
        do {
                if (n + 4096 + 1 > cap) {
                        char *q = realloc(p, cap = cap ? 2 * cap : 8192);
                        if (!q) {
                                free(p);
                                fclose(f);
                                return NULL;
                        }
                        p = q;
                }
                got = fread(p + n, 1, 4096, f);
                n += got;
        } while (got);
        fclose(f);
        if (!n) {
                free(p);
                return NULL;
        }
        p[n] = '\0';
        *len = n;
        return p;
}

/* AnonHugePages of the mapping that contains [p, p + bytes), per mille of bytes. */
static unsigned smaps_huge_permille(const void *p, size_t bytes)
{
        FILE         *f = fopen("/proc/self/smaps", "r");
        char          line[512];
        bool          in = false;
        unsigned long lo, hi, kb;
        unsigned      r = 0;

        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f)) {
                if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
                        in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
                        continue;
                }
                if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
                        uint64_t v = (uint64_t)kb * 1024 * 1000 / bytes;
                        r          = v > 1000 ? 1000 : (unsigned)v;
                        break;
                }
        }
        fclose(f);
        return r;
}

/* ---- host-only controls ---- */

void linux_plat_set_out_dir(const char *dir)
{
        snprintf(out_dir, sizeof(out_dir), "%s", dir && *dir ? dir : ".");
}

status_t linux_plat_pin_cpu(unsigned cpu)
{
        cpu_set_t set;

        CPU_ZERO(&set);
        if (cpu >= CPU_SETSIZE)
                return ST_BAD_ARG;
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set))
                return ST_BAD_ARG;
        linux_msr_set_cpu(cpu);
        return ST_OK;
}

unsigned linux_plat_last_huge_permille(void)
{
        return huge_permille;
}

uint64_t linux_plat_ctx_switches(void *ctx)
{
        struct rusage ru;

        (void)ctx;
        if (getrusage(RUSAGE_THREAD, &ru))
                return 0;
        return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* ---- console ---- */

void plat_console_write(const char *s, size_t n)
{
        fwrite(s, 1, n, stdout);
        fflush(stdout);
}

void plat_console_serial(bool on)
{
        (void)on;
}

/* ---- memory ---- */

void *plat_alloc(size_t bytes)
{
        return calloc(1, bytes ? bytes : 1); /* glibc: 16-byte aligned on x86-64 */
}

void plat_free(void *p)
{
        free(p);
}

status_t plat_alloc_pages(size_t bytes, enum plat_page_kind want, void **out,
                          enum plat_page_kind *got)
{
        size_t   align = want == PLAT_PAGE_4K ? 4096 : 2u << 20;
        uint8_t *raw, *p;

        if (!out || !bytes || bytes % 4096)
                return ST_BAD_ARG;
        huge_permille = 0;
        raw = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
        if (raw == MAP_FAILED)
                return ST_NO_MEM;
        /* Trim to exactly [p, p + bytes) so that plat_free_pages can munmap it. */
        p = (uint8_t *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
        if (p > raw)
                munmap(raw, (size_t)(p - raw));
        if (raw + bytes + align > p + bytes)
                munmap(p + bytes, (size_t)(raw + bytes + align - (p + bytes)));

        /* THP must be asked for before the first touch; 1 GiB pages are not attempted on the
         * host (they need a hugetlbfs reservation), so 1g gets THP too. */
        madvise(p, bytes, want == PLAT_PAGE_4K ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
        for (size_t off = 0; off < bytes; off += 4096)
                p[off] = 0;
        *out = p;
        if (want != PLAT_PAGE_4K)
                huge_permille = smaps_huge_permille(p, bytes);
        if (got)
                *got = huge_permille >= 990 ? PLAT_PAGE_2M : PLAT_PAGE_4K;
        return ST_OK;
}

void plat_free_pages(void *p, size_t bytes)
{
        if (p)
                munmap(p, bytes);
}

status_t plat_mem_summary(struct plat_mem_summary *out)
{
        FILE         *f = fopen("/proc/meminfo", "r");
        char          line[256];
        unsigned long kb;

        if (!out)
                return ST_BAD_ARG;
        *out = (struct plat_mem_summary){ 0 };
        if (!f)
                return ST_IO;
        while (fgets(line, sizeof(line), f)) {
                if (sscanf(line, "MemTotal: %lu kB", &kb) == 1)
                        out->total_bytes = (uint64_t)kb * 1024;
                else if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
                        out->conventional_bytes = (uint64_t)kb * 1024;
        }
        fclose(f);
        out->reserved_bytes = 0;
        out->n_descriptors  = 0;
        return out->total_bytes ? ST_OK : ST_IO;
}

/* ---- files ---- */

status_t plat_write_file(const char *path, const void *buf, size_t len)
{
        char  full[PATH_BYTES];
        FILE *f;

        if (!path || (!buf && len) || full_path(full, sizeof(full), path))
                return ST_BAD_ARG;
        if (mkdir_parents(full))
                return errno_status(errno);
        if (!(f = fopen(full, "wb")))
                return errno_status(errno);
        if (fwrite(buf, 1, len, f) != len) {
                int e = errno;
                fclose(f);
                return errno_status(e);
        }
        return fclose(f) ? errno_status(errno) : ST_OK;
}

status_t plat_read_file(const char *path, char **buf, size_t *len)
{
        char  full[PATH_BYTES];
        FILE *f;
        long  n;

        if (!path || !buf || !len || full_path(full, sizeof(full), path))
                return ST_BAD_ARG;
        if (!(f = fopen(full, "rb")))
                return errno_status(errno);
        if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
                fclose(f);
                return ST_IO;
        }
        if (!(*buf = plat_alloc((size_t)n + 1))) {
                fclose(f);
                return ST_NO_MEM;
        }
        if (fread(*buf, 1, (size_t)n, f) != (size_t)n) {
                fclose(f);
                plat_free(*buf);
                *buf = NULL;
                return ST_IO;
        }
        fclose(f);
        (*buf)[n] = '\0';
        *len      = (size_t)n;
        return ST_OK;
}

status_t plat_file_exists(const char *path)
{
        char        full[PATH_BYTES];
        struct stat st;

        if (!path || full_path(full, sizeof(full), path))
                return ST_BAD_ARG;
        return stat(full, &st) ? ST_NOT_FOUND : ST_OK;
}

/* ---- firmware tables ---- */

const void *plat_acpi_table(const char sig[4], unsigned n)
{
        char   path[64], name[5] = { 0 };
        size_t len;
        void  *p = NULL;

        memcpy(name, sig, 4);
        for (unsigned i = 0; i < n_acpi_cache; i++)
                if (!memcmp(acpi_cache[i].sig, sig, 4) && acpi_cache[i].n == n)
                        return acpi_cache[i].p;
        /* Linux names a single table SIG and repeated ones SIG1, SIG2, ... */
        if (n == 0) {
                snprintf(path, sizeof(path), ACPI_DIR "%s", name);
                p = slurp(path, &len);
        }
        if (!p) {
                snprintf(path, sizeof(path), ACPI_DIR "%s%u", name, n + 1);
                p = slurp(path, &len);
        }
        if (!p || n_acpi_cache == MAX_ACPI) {
                free(p);
                return NULL;
        }
        memcpy(acpi_cache[n_acpi_cache].sig, sig, 4);
        acpi_cache[n_acpi_cache].n   = n;
        acpi_cache[n_acpi_cache++].p = p;
        return p;
}

const void *plat_smbios_table(size_t *len, unsigned *major, unsigned *minor)
{
        if (!smbios) {
                size_t         elen = 0;
                unsigned char *ep   = slurp(DMI_ENTRY, &elen);

                smbios = slurp(DMI_TABLE, &smbios_len);
                /* [SMBIOS-3.6] 5.2: "_SM3_" has major/minor at 7/8, "_SM_" at 6/7. */
                if (ep && elen >= 9 && !memcmp(ep, "_SM3_", 5)) {
                        smbios_major = ep[7];
                        smbios_minor = ep[8];
                } else if (ep && elen >= 8 && !memcmp(ep, "_SM_", 4)) {
                        smbios_major = ep[6];
                        smbios_minor = ep[7];
                }
                free(ep);
        }
        if (!smbios)
                return NULL;
        if (len)
                *len = smbios_len;
        if (major)
                *major = smbios_major;
        if (minor)
                *minor = smbios_minor;
        return smbios;
}

/* ---- processors ---- */

unsigned plat_cpu_count(void)
{
        long n = sysconf(_SC_NPROCESSORS_CONF);

        return n > 0 ? (unsigned)n : 1;
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

status_t plat_cpu_info(unsigned idx, struct plat_cpu *out)
{
        if (!out || idx >= plat_cpu_count())
                return ST_BAD_ARG;
        *out = (struct plat_cpu){
                .apic_id = (uint32_t)idx, /* Linux does not publish APIC IDs in sysfs */
                .enabled = read_long("/sys/devices/system/cpu/cpu%u/online", idx, 1) != 0,
                .is_bsp  = idx == 0,
                .package = (uint32_t)read_long(
                        "/sys/devices/system/cpu/cpu%u/topology/physical_package_id", idx, 0),
                .core   = (uint32_t)read_long("/sys/devices/system/cpu/cpu%u/topology/core_id",
                                              idx, idx),
                .thread = 0,
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

        if (!fn || idx == 0 || idx >= plat_cpu_count() || idx >= CPU_SETSIZE)
                return ST_BAD_ARG;
        a = &ap_threads[idx];
        if (a->started)
                return ST_BAD_ARG;
        *a = (struct ap_thread){ .cpu = idx, .fn = fn, .arg = arg };
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

/* ---- time ---- */

void plat_stall_us(uint32_t us)
{
        struct timespec t0, t;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        do
                clock_gettime(CLOCK_MONOTONIC, &t);
        while ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t.tv_nsec -
                       (uint64_t)t0.tv_nsec < (uint64_t)us * 1000);
}

status_t plat_wallclock(struct plat_time *out)
{
        time_t    now = time(NULL);
        struct tm tm;

        if (!out)
                return ST_BAD_ARG;
        if (!gmtime_r(&now, &tm)) {
                *out = (struct plat_time){ 0 };
                return ST_IO;
        }
        *out = (struct plat_time){ .year = (uint16_t)(tm.tm_year + 1900),
                                   .month = (uint8_t)(tm.tm_mon + 1), .day = (uint8_t)tm.tm_mday,
                                   .hour = (uint8_t)tm.tm_hour, .minute = (uint8_t)tm.tm_min,
                                   .second = (uint8_t)tm.tm_sec, .valid = true,
                                   .zone = PLAT_ZONE_UTC };
        return ST_OK;
}

/* ---- exclusive control ---- */

bool plat_irq_disable(uint64_t *saved)
{
        if (saved)
                *saved = 0;
        return false; /* a user process cannot mask interrupts; the report says so */
}

void plat_irq_restore(uint64_t saved)
{
        (void)saved;
}

/* A Linux process has no physical memory map, page tables or APIC of its own. */
status_t plat_mem_ranges(struct plat_mem_range *out, size_t max, size_t *n)
{
        (void)out;
        (void)max;
        *n = 0;
        return ST_UNSUPPORTED;
}

status_t plat_page_tables_load(uint64_t root_pa, uint64_t *saved)
{
        (void)root_pa;
        *saved = 0;
        return ST_UNSUPPORTED;
}

void plat_page_tables_restore(uint64_t saved)
{
        (void)saved;
}

uint64_t plat_virt_to_phys(const void *p)
{
        (void)p;
        return 0;
}

status_t plat_pmi_enable(plat_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        (void)fn;
        (void)ctx;
        (void)ext_lvt_offset;
        return ST_UNSUPPORTED;
}

void plat_pmi_disable(void)
{
}

status_t plat_pmi_selftest(uint64_t *tsc_round_trip)
{
        if (tsc_round_trip)
                *tsc_round_trip = 0;
        return ST_UNSUPPORTED;
}

uint64_t plat_image_base(void)
{
        return 0;
}

status_t plat_fault_probe(enum plat_fault_probe kind, unsigned *vector)
{
        (void)kind;
        if (vector)
                *vector = 0;
        return ST_UNSUPPORTED;
}

const char *plat_name(void)
{
        return "Linux hosted";
}
