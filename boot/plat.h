/** @file
 * The platform interface: everything bench/, pmu/, report/ and app/ need from the machine
 * underneath. Three implementations link against it: boot/uefi/ (the firmware application),
 * boot/linux/linux_plat.c (the hosted build, pmucal-host) and tests/fake_plat.c (host unit tests).
 * Portable: only <stdint.h>, <stddef.h>, <stdbool.h>; no UEFI types.
 *
 * Paths use '/' and are relative to the root of the volume the harness booted from
 * ("pmucal/results/20261123-0815-01/inventory.json"). Buffers returned by the platform
 * (plat_file_read, plat_mem_alloc) are owned by the caller and freed with plat_mem_free.
 */
#ifndef PMUCAL_PLAT_H
#define PMUCAL_PLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base.h"
#include "lib/status.h"

/* The interface has seven groups; each function documents what every implementation must do.
 *   console      plat_console_write, plat_console_serial
 *   memory       plat_mem_alloc, plat_mem_free, plat_mem_map, plat_virt_to_phys,
 *                plat_alloc_pages_in
 *   files        plat_file_write, plat_file_read, plat_file_stat, plat_volume_info
 *   firmware     plat_fw_table
 *   processors   plat_cpu_info, plat_cpu_start, plat_cpu_join
 *   time         plat_stall_us, plat_wallclock
 *   platform     plat_info
 * CPU-level operations that depend on the architecture as well as the environment (interrupt
 * masking, page-table switch, PMI route, fault probes) are in boot/cpu.h. */

/* ---- console --------------------------------------------------------------------------- */

/** Write @p n bytes of text to every console the platform has (UEFI text console and serial
 *  port; stdout on the host). '\n' becomes CR LF where the device needs it. */
void plat_console_write(const char *s, size_t n);

/** Also write the serial port(s) directly (on by default; see boot/uefi/uefi_con.c for why a port
 *  the firmware console already mirrors to is left alone). No-op where there is no serial. */
void plat_console_serial(bool on);

/* ---- memory ---------------------------------------------------------------------------- */

enum plat_page_kind {
        PLAT_PAGE_4K = 0,
        PLAT_PAGE_2M,
        PLAT_PAGE_1G,
        PLAT_PAGE_HEAP, /* no page alignment: small zeroed heap memory, 16-byte aligned */
};

/** The one allocator. @p want PLAT_PAGE_HEAP: @p bytes of zeroed, 16-byte aligned memory (any
 *  size; 0 is taken as 1). Otherwise a measurement buffer: @p bytes (a multiple of 4 KiB) of
 *  zeroed memory aligned to the page size asked for; the platform says which page size it
 *  really backed the buffer with in @p *got (may be NULL): the firmware identity map may use
 *  2 MiB pages anyway, the hosted build gets 2 MiB only where transparent huge pages oblige.
 *  ST_NO_MEM when out of memory, ST_BAD_ARG for a size that is not a multiple of 4 KiB. */
status_t plat_mem_alloc(size_t bytes, enum plat_page_kind want, void **out,
                        enum plat_page_kind *got);
/** Free what plat_mem_alloc (or plat_file_read) returned: @p bytes 0 for heap memory, the size
 *  allocated for page memory. NULL is ignored. */
void plat_mem_free(void *p, size_t bytes);

/** Heap memory, the common case: plat_mem_alloc(@p bytes, PLAT_PAGE_HEAP); NULL when out of
 *  memory. */
static inline void *plat_alloc(size_t bytes)
{
        void *p = NULL;
        return plat_mem_alloc(bytes, PLAT_PAGE_HEAP, &p, NULL) == ST_OK ? p : NULL;
}
/** Free heap memory from plat_alloc or plat_file_read; NULL is ignored. */
static inline void plat_free(void *p)
{
        plat_mem_free(p, 0);
}
/** A page-aligned measurement buffer: plat_mem_alloc with a page kind. */
static inline status_t plat_alloc_pages(size_t bytes, enum plat_page_kind want, void **out,
                                        enum plat_page_kind *got)
{
        return want == PLAT_PAGE_HEAP ? ST_BAD_ARG : plat_mem_alloc(bytes, want, out, got);
}
/** Free a buffer from plat_alloc_pages; @p bytes as allocated. */
static inline void plat_free_pages(void *p, size_t bytes)
{
        plat_mem_free(p, bytes);
}

/** Allocate @p bytes (a multiple of 4 KiB) of zeroed pages at physical addresses inside
 *  [@p base, @p limit) that the platform's memory map says are free (the UEFI build tries
 *  AllocatePages(AllocateAddress) at the candidates boot/memrange.h finds, 2 MiB aligned
 *  first); to place a buffer on one NUMA node, pass that node's SRAT ranges one at a time.
 *  ST_NOT_FOUND when no free block of that size lies in the window, *@p largest (optional)
 *  then holds the largest free block there; ST_UNSUPPORTED where the platform cannot choose
 *  physical addresses (hosted: the kernel places pages). Free with plat_free_pages. */
status_t plat_alloc_pages_in(uint64_t base, uint64_t limit, size_t bytes, void **out,
                             uint64_t *largest);

/** The platform's own NUMA nodes, where it places memory by node rather than by physical
 *  address (hosted: Linux's /sys/devices/system/node; the firmware reads SRAT instead): node
 *  @p k's number in @p *id and its distance to each node in @p dist[0 .. min(n, max)) (SLIT
 *  units, 10 = local; 0 where unknown; @p dist may be NULL), how many nodes in @p *n.
 *  ST_BAD_ARG for @p k out of range; ST_UNSUPPORTED where the platform has no such view. */
status_t plat_node_info(unsigned k, uint32_t *id, uint8_t *dist, unsigned max, unsigned *n);

/** @p bytes (a multiple of 4 KiB) of zeroed pages of size @p want bound to the platform's node
 *  @p id (plat_node_info), every page's node read back afterwards: *@p n_checked pages (0
 *  where the platform cannot tell: one node and a kernel without NUMA). ST_BAD_DATA when a
 *  page is on another node, ST_NO_MEM, ST_UNSUPPORTED where memory is placed by physical
 *  address (the firmware: plat_alloc_pages_in). Free with plat_free_pages. */
status_t plat_alloc_pages_on_node(uint32_t id, size_t bytes, enum plat_page_kind want,
                                  void **out, unsigned *n_checked);

struct plat_mem_summary {
        uint64_t total_bytes;        /* all RAM the memory map describes */
        uint64_t conventional_bytes; /* free for the harness (EfiConventionalMemory) */
        uint64_t reserved_bytes;     /* firmware/ACPI/MMIO-free reserved ranges */
        uint32_t n_descriptors;
        uint64_t limit_bytes;        /* a limit on the address space the harness may map
                                        (hosted: RLIMIT_AS, ulimit -v); 0 = none */
};

enum plat_mem_kind {
        PLAT_MEM_RAM = 0,   /* usable or firmware-owned RAM (identity-map it) */
        PLAT_MEM_RESERVED,  /* reserved, ACPI NVS, unusable: map it, never touch it */
        PLAT_MEM_MMIO,      /* memory-mapped I/O the firmware described */
};

struct plat_mem_range {
        uint64_t           base;   /* physical, 4 KiB aligned */
        uint64_t           bytes;
        enum plat_mem_kind kind;
        bool               uncached; /* firmware says UC only (no WB attribute) */
        bool               code;     /* firmware or loader code: must stay executable */
};

/** The platform's memory map. @p sum (may be NULL) receives its summary. With @p out not
 *  NULL, the map itself (merged adjacent ranges of the same kind) is copied into @p out, at
 *  most @p max ranges, and @p *n receives how many there are (ST_NO_MEM when > max); the
 *  identity map of the harness's own page tables is built from it. ST_UNSUPPORTED when the
 *  ranges were asked for and the platform has none to give (hosted: the summary only). */
status_t plat_mem_map(struct plat_mem_summary *sum, struct plat_mem_range *out, size_t max,
                      size_t *n);

/** Physical address of harness memory @p p (identity under UEFI; 0 where unknown). */
uint64_t plat_virt_to_phys(const void *p);

/* ---- files ----------------------------------------------------------------------------- */

/** Create or replace the file @p path with @p len bytes, creating parent directories.
 *  ST_READ_ONLY / ST_NO_SPACE / ST_IO say why it could not. With @p buf NULL (and @p len 0)
 *  remove @p path instead, a file or an empty directory (a partly written results folder). */
status_t plat_file_write(const char *path, const void *buf, size_t len);

/** Read the whole file @p path into a new buffer (NUL-terminated for convenience; the NUL is
 *  not counted in @p *len). ST_NOT_FOUND when it does not exist, ST_BAD_ARG when it is a
 *  directory. Caller frees with plat_free. */
status_t plat_file_read(const char *path, char **buf, size_t *len);

enum plat_file_kind { PLAT_FILE_NONE = 0, PLAT_FILE_REGULAR, PLAT_FILE_DIR };

struct plat_file_info {
        enum plat_file_kind kind;
        uint64_t            size_bytes; /* of a regular file; 0 otherwise */
};

/** What @p path is: ST_OK with the kind and size, or ST_NOT_FOUND (kind PLAT_FILE_NONE). */
status_t plat_file_stat(const char *path, struct plat_file_info *out);

/** Another volume than the one files go to that holds @p path (UEFI: another file system,
 *  such as a second ESP): ST_OK and its name (device path) in @p where, ST_NOT_FOUND, or
 *  ST_UNSUPPORTED where the platform has one volume only. */
status_t plat_file_elsewhere(const char *path, char *where, size_t cap);

struct plat_volume_info {
        uint64_t free_bytes;    /* UINT64_MAX where the platform cannot tell */
        uint32_t cluster_bytes; /* allocation unit: each file and directory takes whole ones
                                 * (0 where the platform cannot tell) */
        bool     read_only;
        /* The file system's own free figure where it overstates what the allocation table
         * holds (a stale FAT32 FSInfo hint): free_bytes is then the table's count. */
        bool     hint_stale;
        uint64_t hint_free_bytes;
};

/** The volume the results go to (the boot volume; the output directory when hosted). On a FAT
 *  volume the firmware build counts the free clusters in the FAT itself (boot/fatfree.h). */
status_t plat_volume_info(struct plat_volume_info *out);

/* ---- firmware tables ------------------------------------------------------------------- */

enum plat_fw_kind { PLAT_FW_ACPI = 0, PLAT_FW_SMBIOS };

struct plat_fw_table {
        const void *data;         /* the raw table; not validated */
        size_t      len;          /* ACPI: the header's length field; SMBIOS: the table's */
        unsigned    major, minor; /* SMBIOS version (entry point); ACPI: revision, 0 */
};

/** One firmware table. PLAT_FW_ACPI: the @p n-th (0-based) table with signature @p sig,
 *  header included. PLAT_FW_SMBIOS: the structure table (not the entry point); @p sig and
 *  @p n are ignored. ST_NOT_FOUND (and a zeroed @p out) when absent. */
status_t plat_fw_table(enum plat_fw_kind kind, const char sig[4], unsigned n,
                       struct plat_fw_table *out);

/* ---- processors ------------------------------------------------------------------------ */

struct plat_cpu {
        uint32_t apic_id;  /* x86: APIC ID; AArch64: MPIDR_EL1 affinity, Aff3.Aff2.Aff1.Aff0 */
        bool     enabled;
        bool     is_bsp;
        uint32_t package, core, thread; /* firmware's location, when it reports one */
        uint32_t node;     /* plat_node_info's number of its node; meaningful only where
                              plat_node_info serves (hosted), SRAT says it elsewhere */
};

/** Processor @p idx and how many there are. @p n_total (may be NULL) receives the number of
 *  logical processors the firmware knows, enabled or not (at least 1). @p out (may be NULL)
 *  receives the description of processor @p idx, in the firmware's order (the BSP is the one
 *  with is_bsp). ST_BAD_ARG when @p idx is out of range; the firmware's status when it cannot
 *  describe that processor. */
status_t plat_cpu_info(unsigned idx, struct plat_cpu *out, unsigned *n_total);

/** Number of logical processors: plat_cpu_info's count. */
static inline unsigned plat_cpu_count(void)
{
        unsigned n = 1;

        plat_cpu_info(0, NULL, &n);
        return n;
}

/** Start @p fn(@p arg) on application processor @p idx (an index into the firmware's order)
 *  and return at once (boot/mp.h parks each AP with it once): UEFI MP services, or on AArch64
 *  without them PSCI CPU_ON (boot/arm64/smp.h). ST_BAD_ARG for the BSP or an index out of
 *  range; ST_UNSUPPORTED where processors cannot run side by side (no way to start them) or
 *  @p idx is disabled. */
status_t plat_cpu_start(unsigned idx, void (*fn)(void *arg), void *arg);
/** Wait up to @p timeout_us for the call plat_cpu_start made on @p idx to return: ST_OK, or
 *  ST_TIMEOUT (the processor is left to the firmware). ST_OK when nothing was started. */
status_t plat_cpu_join(unsigned idx, uint32_t timeout_us);

/* ---- time ------------------------------------------------------------------------------ */

/** Busy-wait @p us microseconds on a firmware timer independent of the TSC (gBS->Stall). */
void plat_stall_us(uint32_t us);

/** What the clock says about its time zone. */
enum plat_zone {
        PLAT_ZONE_UNKNOWN = 0, /* the firmware names no zone (UEFI EFI_UNSPECIFIED_TIMEZONE) */
        PLAT_ZONE_UTC,         /* the time is UTC (the hosted build's system clock) */
        PLAT_ZONE_OFFSET,      /* local time, utc_offset_min from UTC (local = UTC + offset) */
};

struct plat_time {
        uint16_t       year;
        uint8_t        month, day, hour, minute, second;
        bool           valid;
        enum plat_zone zone;
        int16_t        utc_offset_min; /* PLAT_ZONE_OFFSET only */
};
/** The real-time clock (UTC or local, as the firmware keeps it; @p out->zone says which). */
status_t plat_wallclock(struct plat_time *out);

/* ---- platform -------------------------------------------------------------------------- */

/* The firmware's Secure Boot state, from the UEFI global variables SecureBoot and SetupMode
 * [UEFI] "Globally Defined Variables": SecureBoot = 1 means images are verified against db;
 * SetupMode = 1 means no platform key is enrolled, so nothing is enforced. */
enum plat_secure_boot {
        PLAT_SB_UNKNOWN = 0, /* the variables cannot be read (not UEFI, or not published) */
        PLAT_SB_OFF,         /* SecureBoot = 0, a platform key enrolled (user mode) */
        PLAT_SB_ON,          /* SecureBoot = 1: this image passed the firmware's check */
        PLAT_SB_SETUP_MODE,  /* SetupMode = 1: no platform key, nothing enforced */
};

/** The state from the two variables' values, each -1 where it cannot be read. */
static inline enum plat_secure_boot plat_secure_boot_of(int secure_boot, int setup_mode)
{
        if (setup_mode == 1)
                return PLAT_SB_SETUP_MODE;
        if (secure_boot < 0)
                return PLAT_SB_UNKNOWN;
        return secure_boot ? PLAT_SB_ON : PLAT_SB_OFF;
}

struct plat_info {
        const char *name;       /* "UEFI 2.70 EDK II rev 0x10000", "Linux hosted" */
        enum plat_secure_boot secure_boot;
        uint64_t    image_base; /* load address of the harness's image (EFI_LOADED_IMAGE
                                   ImageBase), to turn a sampled RIP into an offset in the
                                   link-time symbol table; 0 where unknown (hosted, tests) */
        bool        cpus_unlisted; /* the processors cannot be enumerated (no UEFI MP
                                      services and no other way): only the BSP is known */
        const char *cpus_via;      /* how they are listed and started: "firmware MP
                                      services", "PSCI 1.1 CPU_ON over HVC, processors from
                                      the MADT"; NULL where the platform does not say */
        const char *volume;        /* the volume files are read from and written to (UEFI:
                                      the boot volume's device path); NULL where not said
                                      or where there is none (a network boot) */
        const char *net_source;    /* the harness was loaded over the network and there is no
                                      volume: "tftp://10.0.2.2/pmucal.efi". plat_file_read
                                      and plat_file_stat then fetch the last component of the
                                      path from beside that file on the server; nothing can be
                                      written (plat_file_write: ST_UNSUPPORTED). NULL for a
                                      volume or the hosted build */
        uint64_t    tsc_hz;        /* the timestamp counter's rate as the platform knows
                                      it (hosted: against CLOCK_MONOTONIC_RAW, each end read
                                      between two TSC reads, so that preemption cannot
                                      stretch it); 0: calibrate against plat_stall_us */
        const char *node_placement; /* how plat_alloc_pages_on_node binds pages ("mbind");
                                       NULL where it does not */
        const char *page_tables;   /* whose page tables map the harness's buffers, as the
                                      latency table names them ("Linux page tables"); NULL:
                                      the firmware's identity map */
        const char *huge_pages;    /* how a buffer asked with 2 MiB pages may get them, to say
                                      why it did not (hosted: transparent huge pages, and the
                                      kernel's THP setting); NULL: as the identity map is */
        /* What the platform counts for the calling thread, beside what the harness programs
         * itself; NULL where it counts nothing (the firmware, whose windows run with
         * interrupts masked and whose PMU the harness drives; the unit tests). */
        uint64_t  (*steals)(void *ctx);     /* times the thread lost its processor so far
                                               (hosted: its context switches); a window
                                               guard's steal counter, @p ctx unused */
        status_t  (*core_cycles)(void *ctx, uint64_t *core, uint64_t *ref);
                                            /* the thread's core cycles and the timestamp
                                               read with them (hosted: perf_event_open's
                                               hardware cycles); a core-clock source */
        const char *core_cycles_name;       /* "perf_event cycles" */
        const char *core_cycles_why;        /* core_cycles NULL: why not (static text) */
};

/** What the platform is; never NULL. */
const struct plat_info *plat_info(void);

/* ---- network --------------------------------------------------------------------------- */

/** One HTTP POST of @p len bytes of @p body (Content-Type @p type) to @p url
 *  ("http://HOST[:PORT]/PATH") through the platform's network stack (UEFI: the firmware's
 *  EFI_HTTP_PROTOCOL on the NIC, with the address the network boot got by DHCP). No retries:
 *  the caller decides. ST_OK when the server answered: its status in @p *http_status and up to
 *  @p reply_cap - 1 bytes of its reply body in @p reply (NUL-terminated). ST_UNSUPPORTED where
 *  the platform has no HTTP client (the hosted build; a firmware without an HTTP driver);
 *  ST_TIMEOUT, ST_IO or another status when the server could not be reached or did not
 *  answer. */
status_t plat_net_post(const char *url, const char *type, const void *body, size_t len,
                       unsigned *http_status, char *reply, size_t reply_cap);

/* ---- the program ------------------------------------------------------------------------ */

/* The platform's own entry (efi_main, a test) calls the program once; the program lives above
 * the platform (app/pmucal.c) and the platform only needs to know how to leave afterwards. */

/* Exit statuses (run-qemu.sh sees (status << 1) | 1 through isa-debug-exit). */
#define PMUCAL_EXIT_OK          0 /* every check passed (or was skipped with a reason) */
#define PMUCAL_EXIT_FAILED      1 /* a check failed */
#define PMUCAL_EXIT_ALL_SKIPPED 2 /* nothing could be checked */
#define PMUCAL_EXIT_NOT_SAVED   3 /* report complete on the console, results not saved */
#define PMUCAL_EXIT_CRASHED     4 /* unexpected exception (boot/uefi/x86/uefi_excl.c) */

enum pmucal_leave { PMUCAL_LEAVE_RETURN = 0, PMUCAL_LEAVE_SHUTDOWN, PMUCAL_LEAVE_REBOOT };

/** What the firmware glue does after the program returns. */
struct pmucal_outcome {
        int               exit_code;  /* PMUCAL_EXIT_* */
        enum pmucal_leave leave;
        int               debug_exit; /* -1 auto (only under QEMU), 0 never, 1 always */
};

/** Run the whole program (implemented in app/pmucal.c); returns out->exit_code. */
int pmucal_main(struct pmucal_outcome *out);

#endif
