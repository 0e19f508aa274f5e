/** @file The platform interface on the host, for unit tests (see fake_plat.h). */
#include "tests/fake_plat.h"
#include "boot/cpu.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "boot/x86/apic.h"
#include "report/rep.h"

#define MAX_TABLES 32
#define MAX_CPUS   64
#define HUGE_BYTES (2u << 20)

static const void     *acpi[MAX_TABLES];
static unsigned        n_acpi;
static const void     *smbios;
static size_t          smbios_len;
static unsigned        smbios_major, smbios_minor;
static struct plat_cpu cpus[MAX_CPUS];
static unsigned        n_cpus;
static struct rep_buf  console;

/* The MMU as firmware leaves it (fake_plat_set_mmu): the page size page buffers are mapped
 * with, whether CR3 can be loaded and restored, and whether the memory map covers the test
 * process (code, stack, heap) the way a firmware's map covers the harness. */
static enum plat_page_kind page_kind = PLAT_PAGE_4K;
static bool                cr3_loadable, cr3_restores, map_process;
static uint64_t            cr3 = FAKE_PLAT_FIRMWARE_CR3;
static uint64_t            leave_base, leave_bytes; /* fake_plat_map_leave_out */

void fake_plat_reset(void)
{
        fake_volume_reset();
        n_acpi = 0;
        smbios = NULL;
        n_cpus = 0;
        rep_buf_free(&console);
        fake_mem_node_reset();
        fake_plat_set_mmu(PLAT_PAGE_4K, false, false, false);
}

void fake_plat_set_mmu(enum plat_page_kind pages, bool load_cr3, bool restore_cr3,
                       bool cover_process)
{
        page_kind    = pages;
        cr3_loadable = load_cr3;
        cr3_restores = restore_cr3;
        map_process  = cover_process;
        cr3          = FAKE_PLAT_FIRMWARE_CR3;
        leave_base = leave_bytes = 0;
}

void fake_plat_map_leave_out(uint64_t base, uint64_t bytes)
{
        leave_base  = base;
        leave_bytes = bytes;
}

enum plat_page_kind fake_plat_page_kind(void)
{
        return page_kind;
}

uint64_t fake_plat_cr3(void)
{
        return cr3;
}

const char *fake_plat_console(void)
{
        return console.p ? console.p : "";
}

void fake_plat_add_acpi(const void *table)
{
        if (n_acpi < MAX_TABLES)
                acpi[n_acpi++] = table;
}

void fake_plat_set_smbios(const void *table, size_t len, unsigned major, unsigned minor)
{
        smbios       = table;
        smbios_len   = len;
        smbios_major = major;
        smbios_minor = minor;
}

void fake_plat_set_cpus(const struct plat_cpu *c, unsigned n)
{
        n_cpus = n < MAX_CPUS ? n : MAX_CPUS;
        memcpy(cpus, c, n_cpus * sizeof(*c));
}

/* ---- the platform interface ---- */

void plat_console_write(const char *s, size_t n)
{
        rep_buf_append(&console, s, n);
}

void plat_console_serial(bool on)
{
        (void)on;
}

/* The virtual PMU learns the working set of a chase from the buffer it runs in. */
void vpmu_note_buffer(const void *p, size_t bytes) __attribute__((weak));
void vpmu_forget_buffer(const void *p) __attribute__((weak));

status_t plat_mem_alloc(size_t bytes, enum plat_page_kind want, void **out,
                        enum plat_page_kind *got)
{
        *out = NULL;
        if (want == PLAT_PAGE_HEAP) {
                if (got)
                        *got = PLAT_PAGE_HEAP;
                return (*out = calloc(1, bytes ? bytes : 1)) ? ST_OK : ST_NO_MEM;
        }
        if (!bytes || bytes % 4096)
                return ST_BAD_ARG;
        /* Buffers of whole 2 MiB: 2 MiB aligned and backed by the host's transparent huge
         * pages where it has them, so that the chases over them miss the host's TLB less
         * (the platform still reports 4 KiB pages: the tests see no difference but time). */
        bool  huge = bytes % HUGE_BYTES == 0;
        void *p = aligned_alloc(huge ? HUGE_BYTES : 4096, bytes);
        if (!p)
                return ST_NO_MEM;
        if (huge)
                (void)madvise(p, bytes, MADV_HUGEPAGE);
        memset(p, 0, bytes);
        if (vpmu_note_buffer)
                vpmu_note_buffer(p, bytes);
        *out = p;
        if (got)
                *got = page_kind;
        return ST_OK;
}

void plat_mem_free(void *p, size_t bytes)
{
        if (bytes && vpmu_forget_buffer)
                vpmu_forget_buffer(p);
        if (!fake_mem_node_forget(p))
                free(p);
}

/* With map_process: the process's code, stack and heap are RAM too. Where a sanitizer's
 * allocator and fake stacks put them is anyone's guess, so the rest of the user half of the
 * address space, [4 GiB, 128 TiB), is RAM (mapped by 1 GiB pages) but for the terabyte from
 * BENCH_PT_WINDOW_BASE (64 TiB) where the harness puts its test windows, above every RAM
 * address as on a real machine; nothing of this process lives there (Linux maps top-down
 * from 128 TiB, ASan's heap starts at 96 TiB). */
#define WINDOW_HOLE_BASE (1ull << 46)
#define WINDOW_HOLE_SIZE (1ull << 40)
static size_t map_the_process(struct plat_mem_range *map, size_t n)
{
        size_t first = n;

        map[n++] = (struct plat_mem_range){ .base = 4 * GiB, .bytes = WINDOW_HOLE_BASE - 4 * GiB,
                                            .kind = PLAT_MEM_RAM };
        map[n++] = (struct plat_mem_range){ .base  = WINDOW_HOLE_BASE + WINDOW_HOLE_SIZE,
                                            .bytes = (1ull << 47) - WINDOW_HOLE_BASE -
                                                     WINDOW_HOLE_SIZE,
                                            .kind = PLAT_MEM_RAM };
        for (size_t i = first; leave_bytes && i < n; i++) { /* split the range that holds it */
                struct plat_mem_range r = map[i];
                uint64_t              end = leave_base + leave_bytes;

                if (leave_base < r.base || end > r.base + r.bytes)
                        continue;
                map[i].bytes = leave_base - r.base;
                map[n++] = (struct plat_mem_range){ .base = end, .bytes = r.base + r.bytes - end,
                                                    .kind = PLAT_MEM_RAM };
                break;
        }
        return n;
}

status_t plat_mem_map(struct plat_mem_summary *sum, struct plat_mem_range *out, size_t max,
                      size_t *n)
{
        struct plat_mem_range map[6] = {
                { .base = 0, .bytes = 640 * KiB, .kind = PLAT_MEM_RAM },
                { .base = 1 * MiB, .bytes = 2 * GiB - 1 * MiB, .kind = PLAT_MEM_RAM },
                { .base = 0xfec00000, .bytes = 4 * KiB, .kind = PLAT_MEM_MMIO, .uncached = true },
        };
        size_t n_map = map_process ? map_the_process(map, 3) : 3;

        if (sum)
                *sum = (struct plat_mem_summary){ .total_bytes        = 2 * GiB,
                                                  .conventional_bytes = 1 * GiB,
                                                  .reserved_bytes     = 64 * MiB,
                                                  .n_descriptors      = 42 };
        if (n)
                *n = out ? n_map : 0;
        if (!out)
                return ST_OK;
        if (max < n_map)
                return ST_NO_MEM;
        memcpy(out, map, n_map * sizeof(map[0]));
        return ST_OK;
}

status_t plat_fw_table(enum plat_fw_kind kind, const char sig[4], unsigned n,
                       struct plat_fw_table *out)
{
        *out = (struct plat_fw_table){ 0 };
        if (kind == PLAT_FW_SMBIOS) {
                if (!smbios)
                        return ST_NOT_FOUND;
                *out = (struct plat_fw_table){ .data = smbios, .len = smbios_len,
                                               .major = smbios_major, .minor = smbios_minor };
                return ST_OK;
        }
        if (kind != PLAT_FW_ACPI || !sig)
                return ST_BAD_ARG;
        for (unsigned i = 0; i < n_acpi; i++) {
                if (memcmp(acpi[i], sig, 4) || n-- != 0)
                        continue;
                uint32_t len;
                memcpy(&len, (const char *)acpi[i] + 4, sizeof(len));
                *out = (struct plat_fw_table){ .data = acpi[i], .len = len };
                return ST_OK;
        }
        return ST_NOT_FOUND;
}

static unsigned cpu_count(void)
{
        return n_cpus ? n_cpus : 1;
}

static status_t cpu_describe(unsigned idx, struct plat_cpu *out)
{
        if (!n_cpus && idx == 0) {
                *out = (struct plat_cpu){ .apic_id = 0, .enabled = true, .is_bsp = true };
                return ST_OK;
        }
        if (idx >= n_cpus)
                return ST_BAD_ARG;
        *out = cpus[idx];
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

/* Application processors of the test platform: threads, one per started CPU; a CPU marked
 * dead by fake_plat_cpu_dead() is "started" but never runs anything (it never answers). */
struct fake_ap {
        pthread_t thread;
        bool      started, dead, joinable;
        void (*fn)(void *arg);
        void     *arg;
        volatile int finished;
};

static struct fake_ap fake_aps[64];

void fake_plat_cpu_dead(unsigned idx, bool dead)
{
        if (idx < 64)
                fake_aps[idx].dead = dead;
}

static __thread int this_cpu = -1; /* -1: the BSP */

int fake_plat_this_cpu(void)
{
        if (this_cpu >= 0)
                return this_cpu;
        for (unsigned i = 0; i < n_cpus; i++)
                if (cpus[i].is_bsp)
                        return (int)i;
        return 0;
}

static void *fake_ap_main(void *p)
{
        struct fake_ap *a = p;

        this_cpu = (int)(a - fake_aps);
        a->fn(a->arg);
        __atomic_store_n(&a->finished, 1, __ATOMIC_RELEASE);
        return NULL;
}

status_t plat_cpu_start(unsigned idx, void (*fn)(void *arg), void *arg)
{
        struct plat_cpu c;
        struct fake_ap *a;

        if (!fn || idx >= 64 || cpu_describe(idx, &c) != ST_OK || c.is_bsp)
                return ST_BAD_ARG;
        a = &fake_aps[idx];
        if (a->started)
                return ST_BAD_ARG;
        a->fn = fn, a->arg = arg, a->finished = 0, a->joinable = false;
        a->started = true;
        if (a->dead)
                return ST_OK;
        if (pthread_create(&a->thread, NULL, fake_ap_main, a))
                return ST_NO_MEM;
        a->joinable = true;
        return ST_OK;
}

status_t plat_cpu_join(unsigned idx, uint32_t timeout_us)
{
        struct fake_ap *a = idx < 64 ? &fake_aps[idx] : NULL;

        if (!a || !a->started)
                return ST_OK;
        for (uint32_t t = 0; !__atomic_load_n(&a->finished, __ATOMIC_ACQUIRE); t += 100) {
                if (t >= timeout_us)
                        return ST_TIMEOUT; /* a dead CPU stays started: the test resets it */
                usleep(100);
        }
        if (a->joinable)
                pthread_join(a->thread, NULL);
        a->started = a->joinable = false;
        return ST_OK;
}

void fake_plat_cpus_reset(void)
{
        for (unsigned i = 0; i < 64; i++)
                if (!fake_aps[i].joinable)
                        fake_aps[i] = (struct fake_ap){ 0 };
}

static bool real_stall;

void fake_plat_real_stall(bool on)
{
        real_stall = on;
}

void plat_stall_us(uint32_t us)
{
        if (real_stall)
                usleep(us);
        else
                sched_yield(); /* instant, but let the "APs" (threads) have a turn */
}

status_t plat_wallclock(struct plat_time *out)
{
        *out = (struct plat_time){ .year = 2026, .month = 11, .day = 23, .hour = 8,
                                   .minute = 15, .second = 0, .valid = true };
        return ST_OK;
}

bool cpu_irq_disable(uint64_t *saved)
{
        *saved = 0;
        return false;
}

void cpu_irq_restore(uint64_t saved)
{
        (void)saved;
}

status_t cpu_fault_probe(enum cpu_fault_probe kind, unsigned *vector)
{
        static const unsigned vectors[CPU_PROBE__COUNT] = {
                [CPU_PROBE_UD2] = 6, [CPU_PROBE_GP_NONCANONICAL] = 13,
                [CPU_PROBE_GP_CR4_LA57] = 13,
        };

        if ((unsigned)kind >= CPU_PROBE__COUNT)
                return ST_BAD_ARG;
        if (kind == CPU_PROBE_UNHANDLED_UD2)
                return ST_UNSUPPORTED;
        *vector = vectors[kind];
        return ST_OK;
}

status_t cpu_page_tables_load(uint64_t root_pa, uint64_t *saved)
{
        *saved = cr3;
        if (!cr3_loadable)
                return ST_UNSUPPORTED;
        cr3 = root_pa;
        return ST_OK;
}

void cpu_page_tables_restore(uint64_t saved)
{
        if (cr3_restores)
                cr3 = saved;
}


/* The PMI route belongs to the virtual PMU when a test links it (tests/vpmu/vpmu_core.c);
 * without it there is no route, as in the hosted build. */
status_t vpmu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset) __attribute__((weak));
void     vpmu_pmi_disable(void) __attribute__((weak));
status_t vpmu_pmi_selftest(uint64_t *tsc_round_trip) __attribute__((weak));
/* The x86 model's local APIC (the AArch64 model has none). */
void     vpmu_apic_write(uint32_t reg, uint32_t v) __attribute__((weak));

static struct {
        cpu_pmi_fn fn;
        void      *ctx;
        int        ext;
} route;

/* The dispatcher, as the firmware's (boot/uefi/x86/uefi_pmi.c pmi_dispatch): the handler,
 * then the LVT entries the CPU masked on delivery written back by the same code. */
static void route_dispatch(const struct cpu_pmi_frame *f, void *ctx)
{
        (void)ctx;
        route.fn(f, route.ctx);
        if (vpmu_apic_write)
                apic_pmi_rearm(vpmu_apic_write, APIC_DM_NMI, route.ext);
}

status_t cpu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        if (!vpmu_pmi_enable)
                return ST_UNSUPPORTED;
        if (!fn)
                return ST_BAD_ARG;
        route.fn  = fn;
        route.ctx = ctx;
        route.ext = ext_lvt_offset;
        return vpmu_pmi_enable(route_dispatch, NULL, ext_lvt_offset);
}

void cpu_pmi_disable(void)
{
        if (vpmu_pmi_disable)
                vpmu_pmi_disable();
}

status_t cpu_pmi_selftest(uint64_t *tsc_round_trip)
{
        if (tsc_round_trip)
                *tsc_round_trip = 0;
        if (vpmu_pmi_selftest)
                return vpmu_pmi_selftest(tsc_round_trip);
        return ST_UNSUPPORTED;
}

const struct plat_info *plat_info(void)
{
        static const struct plat_info info = { .name = "host unit test (fake platform)" };

        return &info;
}
