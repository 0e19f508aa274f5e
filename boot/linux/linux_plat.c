/** @file The platform interface on Linux for pmucal-host (see plat.h, linux_plat.h; processors
 *  and boot/cpu.h in linux_cpu.c). May use libc and POSIX; nothing portable includes it. */
#define _GNU_SOURCE
#include "boot/linux/linux_plat.h"
#include "boot/arch.h"

#include <errno.h>
#include <fcntl.h>
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

static unsigned huge_permille;

static struct {
        char  sig[4];
        unsigned n;
        void *p;
        size_t len; /* bytes read: a recorded table may be shorter than its Length says */
} acpi_cache[MAX_ACPI];
static char        acpi_dir[512] = ACPI_DIR; /* ends in '/' */
static bool        recorded_tables;          /* acpi_dir is a folder of recorded tables */
static bool        no_tables;                /* a recorded machine without its tables */
static const char *recorded_name;
static unsigned n_acpi_cache;
static void    *smbios;
static size_t   smbios_len;
static unsigned smbios_major, smbios_minor;

/* ---- helpers ---- */

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

status_t linux_plat_pin_cpu(unsigned cpu)
{
        cpu_set_t set;

        CPU_ZERO(&set);
        if (cpu >= CPU_SETSIZE)
                return ST_BAD_ARG;
        CPU_SET(cpu, &set);
        linux_cpu_list(); /* the CPUs this process may run on, before it is pinned */
        if (sched_setaffinity(0, sizeof(set), &set))
                return ST_BAD_ARG;
        linux_cpu_set_bsp(cpu);
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

static void *heap_alloc(size_t bytes)
{
        return calloc(1, bytes ? bytes : 1); /* glibc: 16-byte aligned on x86-64 */
}

static void heap_free(void *p)
{
        free(p);
}

static status_t pages_alloc(size_t bytes, enum plat_page_kind want, void **out,
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
        /* Trim to exactly [p, p + bytes) so that plat_mem_free can munmap it. */
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

static void pages_free(void *p, size_t bytes)
{
        if (p)
                munmap(p, bytes);
}

static status_t mem_summary(struct plat_mem_summary *out)
{
        FILE         *f = fopen("/proc/meminfo", "r");
        char          line[256];
        unsigned long kb;
        struct rlimit rl;

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
        if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY)
                out->limit_bytes = rl.rlim_cur;
        return out->total_bytes ? ST_OK : ST_IO;
}

status_t plat_mem_alloc(size_t bytes, enum plat_page_kind want, void **out,
                        enum plat_page_kind *got)
{
        if (!out)
                return ST_BAD_ARG;
        *out = NULL;
        if (want == PLAT_PAGE_HEAP) {
                if (got)
                        *got = PLAT_PAGE_HEAP;
                return (*out = heap_alloc(bytes)) ? ST_OK : ST_NO_MEM;
        }
        return pages_alloc(bytes, want, out, got);
}

void plat_mem_free(void *p, size_t bytes)
{
        if (!bytes)
                heap_free(p);
        else
                pages_free(p, bytes);
}

/* A Linux process has no physical memory map: the summary comes from /proc/meminfo. */
status_t plat_mem_map(struct plat_mem_summary *sum, struct plat_mem_range *out, size_t max,
                      size_t *n)
{
        status_t st = ST_OK;

        (void)max;
        if (n)
                *n = 0;
        if (recorded_name) { /* a recorded machine: this one's memory is not its */
                if (sum)
                        *sum = (struct plat_mem_summary){ 0 };
                return ST_UNSUPPORTED;
        }
        if (sum && (st = mem_summary(sum)) != ST_OK)
                return st;
        return out ? ST_UNSUPPORTED : ST_OK;
}

uint64_t plat_virt_to_phys(const void *p)
{
        (void)p;
        return 0;
}

status_t plat_alloc_pages_in(uint64_t base, uint64_t limit, size_t bytes, void **out,
                             uint64_t *largest)
{
        /* Physical placement is the kernel's: pmucal-host binds buffers to nodes by policy
         * (mbind) instead, and says so. */
        (void)base, (void)limit, (void)bytes, (void)out;
        if (largest)
                *largest = 0;
        return ST_UNSUPPORTED;
}

/* ---- firmware tables ---- */

/* Table @p n (0 = the first) with signature @p sig from acpi_dir: Linux names a single table
 * SIG and repeated ones SIG1, SIG2, ...; acpixtract -a writes sig.dat and sig1.dat, sig2.dat
 * (lower case). A recorded file must hold at least a header and start with the signature. */
static const void *acpi_table(const char sig[4], unsigned n, size_t *got)
{
        char        path[600], name[5] = { 0 }, lower[5] = { 0 };
        size_t      len = 0;
        void       *p = NULL;
        const char *fmts[4];
        unsigned    nf = 0;

        memcpy(name, sig, 4);
        for (unsigned i = 0; i < 4; i++)
                lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
        if (no_tables)
                return NULL;
        for (unsigned i = 0; i < n_acpi_cache; i++)
                if (!memcmp(acpi_cache[i].sig, sig, 4) && acpi_cache[i].n == n) {
                        *got = acpi_cache[i].len;
                        return acpi_cache[i].p;
                }
        if (n == 0)
                fmts[nf++] = "%s%s";
        fmts[nf++] = "%s%s%u";
        for (unsigned k = 0; k < nf && !p; k++) {
                snprintf(path, sizeof(path), fmts[k], acpi_dir, name, n + 1);
                p = slurp(path, &len);
                if (!p && recorded_tables) {
                        snprintf(path, sizeof(path), k == 0 && n == 0 ? "%s%s.dat" : "%s%s%u.dat",
                                 acpi_dir, lower, n + 1);
                        p = slurp(path, &len);
                }
        }
        if (p && (len < 36 || memcmp(p, sig, 4))) { /* not this table */
                free(p);
                p = NULL;
        }
        if (!p || n_acpi_cache == MAX_ACPI) {
                free(p);
                return NULL;
        }
        memcpy(acpi_cache[n_acpi_cache].sig, sig, 4);
        acpi_cache[n_acpi_cache].n     = n;
        acpi_cache[n_acpi_cache].len   = len;
        acpi_cache[n_acpi_cache++].p   = p;
        *got = len;
        return p;
}

void linux_plat_use_recorded(const char *dir, const char *name)
{
        if (dir) {
                size_t l = strlen(dir);
                snprintf(acpi_dir, sizeof(acpi_dir), "%s%s", dir, l && dir[l - 1] == '/' ? "" : "/");
                recorded_tables = true;
        } else {
                no_tables = true;
        }
        recorded_name = name;
}

static const void *smbios_table(size_t *len, unsigned *major, unsigned *minor)
{
        if (!smbios && !recorded_name) { /* a recorded machine has no SMBIOS here */
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

status_t plat_fw_table(enum plat_fw_kind kind, const char sig[4], unsigned n,
                       struct plat_fw_table *out)
{
        *out = (struct plat_fw_table){ 0 };
        if (kind == PLAT_FW_SMBIOS) {
                out->data = smbios_table(&out->len, &out->major, &out->minor);
        } else if (kind == PLAT_FW_ACPI) {
                uint32_t len;
                size_t   got = 0;
                if (sig && (out->data = acpi_table(sig, n, &got)) != NULL) {
                        memcpy(&len, (const char *)out->data + 4, sizeof(len)); /* Length */
                        out->len = len <= got ? len : got; /* never past the bytes read */
                }
        } else {
                return ST_BAD_ARG;
        }
        return out->data ? ST_OK : ST_NOT_FOUND;
}

/* ---- network ---- */

/* The hosted build writes its results to the file system; its runs reach a collector through
 * `pmucal-collect ingest`, not from here. */
status_t plat_net_post(const char *url, const char *type, const void *body, size_t len,
                       unsigned *http_status, char *reply, size_t reply_cap)
{
        (void)url;
        (void)type;
        (void)body;
        (void)len;
        *http_status = 0;
        if (reply_cap)
                reply[0] = 0;
        return ST_UNSUPPORTED;
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

/* ---- platform ---- */

/* One byte of a UEFI global variable as Linux publishes it in efivarfs
 * (Documentation/filesystems/efivarfs.rst: four bytes of attributes, then the data); -1
 * without UEFI, without efivarfs or without the variable. */
static int efivar_u8(const char *name)
{
        char          path[128];
        unsigned char buf[8];
        FILE         *f;
        size_t        n;

        snprintf(path, sizeof(path),
                 "/sys/firmware/efi/efivars/%s-8be4df61-93ca-11d2-aa0d-00e098032b8c", name);
        if (!(f = fopen(path, "rb")))
                return -1;
        n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        return n == 5 ? buf[4] : -1;
}

/* One (TSC, ns) pair: the clock read between two TSC reads, the narrowest of 64 tries, so
 * that a preemption between the reads cannot widen it. */
static void tsc_ns_pair(uint64_t *tsc, uint64_t *ns)
{
        uint64_t best = UINT64_MAX;

        for (unsigned i = 0; i < 64; i++) {
                struct timespec t;
                uint64_t        a = cpu_ticks_ordered();
                clock_gettime(CLOCK_MONOTONIC_RAW, &t);
                uint64_t        b = cpu_ticks_ordered();
                if (b - a < best) {
                        best = b - a;
                        *tsc = a + (b - a) / 2;
                        *ns  = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
                }
        }
}

/* TSC ticks per second over TSC_RATE_MS of CLOCK_MONOTONIC_RAW (the kernel's clock, which
 * it keeps from the TSC or another source independent of this process's scheduling). */
#define TSC_RATE_MS 20u
static uint64_t tsc_rate(void)
{
        uint64_t        t0 = 0, n0 = 0, t1 = 0, n1 = 0;
        struct timespec d  = { .tv_nsec = TSC_RATE_MS * 1000000l };

        tsc_ns_pair(&t0, &n0);
        nanosleep(&d, NULL);
        tsc_ns_pair(&t1, &n1);
        return n1 > n0 ? (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000ull / (n1 - n0)) : 0;
}

/* How 2 MiB pages are asked for (pages_alloc), with the kernel's THP mode, for the reasons
 * printed where a buffer did not get them. */
static const char *huge_pages_how(void)
{
        static char how[200];
        size_t      len = 0;
        char       *mode = slurp("/sys/kernel/mm/transparent_hugepage/enabled", &len);
        const char *lb = mode ? strchr(mode, '[') : NULL, *rb = lb ? strchr(lb, ']') : NULL;

        snprintf(how, sizeof(how), "transparent huge pages asked with MADV_HUGEPAGE, THP "
                 "mode %.*s (/sys/kernel/mm/transparent_hugepage/enabled); hugetlbfs pages "
                 "(MAP_HUGETLB) are not used", rb ? (int)(rb - lb - 1) : 7,
                 rb ? lb + 1 : "unknown");
        free(mode);
        return how;
}

const struct plat_info *plat_info(void)
{
        static struct plat_info info = { .name = "Linux hosted", .image_base = 0,
                                         .page_tables = "Linux page tables",
                                         .node_placement = "mbind" };

        if (recorded_name) { /* a recorded machine: its processors are not listed here */
                info.name          = recorded_name;
                info.cpus_unlisted = true;
                info.secure_boot   = plat_secure_boot_of(-1, -1);
                return &info;
        }
        info.secure_boot = plat_secure_boot_of(efivar_u8("SecureBoot"), efivar_u8("SetupMode"));
        info.steals      = linux_plat_ctx_switches;
        if (!info.huge_pages)
                info.huge_pages = huge_pages_how();
        if (!info.tsc_hz)
                info.tsc_hz = tsc_rate();
        linux_perf_cycles(&info);
        return &info;
}
