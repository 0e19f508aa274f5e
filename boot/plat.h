/** @file
 * The platform interface: everything bench/, pmu/, report/ and app/ need from the machine
 * underneath. Three implementations link against it: boot/uefi/ (the firmware application),
 * boot/linux/linux_plat.c (the hosted build, pmucal-host) and tests/fake_plat.c (host unit tests).
 * Portable: only <stdint.h>, <stddef.h>, <stdbool.h>; no UEFI types.
 *
 * Paths use '/' and are relative to the root of the volume the harness booted from
 * ("pmucal/results/20261123-0815-01/inventory.json"). Buffers returned by the platform
 * (plat_read_file, plat_alloc) are owned by the caller and freed with plat_free.
 */
#ifndef PMUCAL_PLAT_H
#define PMUCAL_PLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base.h"
#include "lib/status.h"

/* ---- console --------------------------------------------------------------------------- */

/** Write @p n bytes of text to every console the platform has (UEFI text console and serial
 *  port; stdout on the host). '\n' becomes CR LF where the device needs it. */
void plat_console_write(const char *s, size_t n);

/** Also write the serial port(s) directly (on by default; see boot/uefi/uefi_con.c for why a port
 *  the firmware console already mirrors to is left alone). No-op where there is no serial. */
void plat_console_serial(bool on);

/* ---- memory ---------------------------------------------------------------------------- */

/** Allocate @p bytes of zeroed, 16-byte aligned memory; NULL when out of memory. */
void *plat_alloc(size_t bytes);
/** Free what plat_alloc or plat_read_file returned; NULL is ignored. */
void plat_free(void *p);

enum plat_page_kind { PLAT_PAGE_4K = 0, PLAT_PAGE_2M, PLAT_PAGE_1G };

/** Allocate @p bytes (a multiple of 4 KiB) of page-aligned, zeroed memory for a measurement
 *  buffer, aligned to the page size asked for. The platform says which page size it really
 *  backed the buffer with in @p *got (the firmware identity map may use 2 MiB pages anyway;
 *  the hosted build gets 2 MiB only where transparent huge pages oblige). */
status_t plat_alloc_pages(size_t bytes, enum plat_page_kind want, void **out,
                          enum plat_page_kind *got);
/** Free a buffer from plat_alloc_pages; @p bytes as allocated. */
void plat_free_pages(void *p, size_t bytes);

struct plat_mem_summary {
        uint64_t total_bytes;        /* all RAM the memory map describes */
        uint64_t conventional_bytes; /* free for the harness (EfiConventionalMemory) */
        uint64_t reserved_bytes;     /* firmware/ACPI/MMIO-free reserved ranges */
        uint32_t n_descriptors;
};

/** Summarise the platform memory map. */
status_t plat_mem_summary(struct plat_mem_summary *out);

/* ---- files ----------------------------------------------------------------------------- */

/** Create or replace the file @p path with @p len bytes, creating parent directories.
 *  ST_READ_ONLY / ST_NO_SPACE / ST_IO say why it could not. */
status_t plat_write_file(const char *path, const void *buf, size_t len);

/** Read the whole file @p path into a new buffer (NUL-terminated for convenience; the NUL is
 *  not counted in @p *len). ST_NOT_FOUND when it does not exist. Caller frees with plat_free. */
status_t plat_read_file(const char *path, char **buf, size_t *len);

/** ST_OK when @p path exists (file or directory), ST_NOT_FOUND when not. */
status_t plat_file_exists(const char *path);

/* ---- firmware tables ------------------------------------------------------------------- */

/** The @p n-th (0-based) ACPI table with signature @p sig, or NULL if absent. The pointer is
 *  the raw table, header included; its length is in the header. Not validated. */
const void *plat_acpi_table(const char sig[4], unsigned n);

/** The SMBIOS structure table (not the entry point) and its length; NULL if absent.
 *  @p major / @p minor receive the SMBIOS version. */
const void *plat_smbios_table(size_t *len, unsigned *major, unsigned *minor);

/* ---- processors ------------------------------------------------------------------------ */

struct plat_cpu {
        uint32_t apic_id;
        bool     enabled;
        bool     is_bsp;
        uint32_t package, core, thread; /* firmware's location, when it reports one */
};

/** Number of logical processors the firmware knows (enabled or not); at least 1. */
unsigned plat_cpu_count(void);
/** Description of processor @p idx (0 .. plat_cpu_count()-1; the BSP is the one with is_bsp). */
status_t plat_cpu_info(unsigned idx, struct plat_cpu *out);
/** Start @p fn(@p arg) on application processor @p idx and return at once (boot/mp.h parks
 *  each AP with it once). ST_BAD_ARG for the BSP or an index out of range; ST_UNSUPPORTED
 *  where processors cannot run side by side (no MP services) or @p idx is disabled. */
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

/* ---- exclusive control ----------------------------------------------------------------- */

/** Enter a measurement window: raise to TPL_HIGH_LEVEL and mask interrupts (hosted: nothing
 *  that can be done; returns false). Returns true when interrupts really are masked.
 *  Pair with plat_irq_restore(@p *saved). */
bool plat_irq_disable(uint64_t *saved);
void plat_irq_restore(uint64_t saved);

/* ---- memory map, paging ----------------------------------------------------------------- */

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

/** Copy the firmware's memory map (merged adjacent ranges of the same kind) into @p out,
 *  at most @p max ranges; @p *n receives how many there are (ST_NO_MEM when > max). The
 *  identity map of the harness's own page tables is built from it. */
status_t plat_mem_ranges(struct plat_mem_range *out, size_t max, size_t *n);

/** Load @p root_pa (a PML4 built by bench/pagetable.c) into CR3, saving the current CR3 in
 *  @p *saved. Only inside a window with interrupts masked (plat_irq_disable), and always
 *  paired with plat_page_tables_restore before the window ends. ST_UNSUPPORTED hosted. */
status_t plat_page_tables_load(uint64_t root_pa, uint64_t *saved);
/** Put back the CR3 saved by plat_page_tables_load (flushes non-global TLB entries). */
void plat_page_tables_restore(uint64_t saved);
/** Physical address of harness memory @p p (identity under UEFI; 0 where unknown). */
uint64_t plat_virt_to_phys(const void *p);

/* ---- performance-monitoring interrupt --------------------------------------------------- */

/** What the CPU pushed when the PMI arrived. */
struct plat_pmi_frame {
        uint64_t rip, cs, rflags, rsp;
};

/** Called for each PMI, in interrupt context with interrupts masked, on the CPU that took it.
 *  It must not print or allocate; the platform sends the local APIC EOI (none is due for
 *  NMI delivery) and unmasks the LVT entry after it returns. Every NMI that arrives while
 *  the route is enabled reaches @p fn: tell a PMI by the overflow status. */
typedef void (*plat_pmi_fn)(const struct plat_pmi_frame *frame, void *ctx);

/** Route the local APIC's performance-counter interrupt (LVT PMC, APIC offset 0x340; xAPIC
 *  or x2APIC, whichever the firmware enabled) to @p fn through a vector of the harness's own
 *  IDT. The UEFI build delivers it as an NMI (IDT vector 2), as Linux does, so that a PMI
 *  arrives inside measurement windows run at TPL_HIGH_LEVEL with IF = 0 (boot/uefi/uefi_pmi.c
 *  says why). When @p ext_lvt_offset >= 0, AMD's extended LVT entry of that offset (APIC
 *  0x500 + 0x10 * offset, used by IBS) is routed too. The previous LVT values and IDT entry
 *  are saved. BSP only; one route at a time (ST_BAD_ARG while one is enabled).
 *  ST_UNSUPPORTED where there is no local APIC or no own IDT (hosted). */
status_t plat_pmi_enable(plat_pmi_fn fn, void *ctx, int ext_lvt_offset);
/** Restore the LVT entries and the IDT vector plat_pmi_enable changed. */
void plat_pmi_disable(void);
/** With the route enabled, send this CPU an NMI through the local APIC's ICR and wait for the
 *  handler: checks the entry path where no PMU can raise a PMI (QEMU TCG). @p fn is called
 *  once with the frame. *@p tsc_round_trip: TSC ticks from the ICR write to the return from
 *  the handler. ST_TIMEOUT when it never arrived; ST_UNSUPPORTED hosted. */
status_t plat_pmi_selftest(uint64_t *tsc_round_trip);

/** Load address of the harness's image (EFI_LOADED_IMAGE.ImageBase), to turn a sampled RIP
 *  into an offset in the link-time symbol table; 0 where unknown (hosted, tests). */
uint64_t plat_image_base(void);

/* ---- fault recovery self-test ---------------------------------------------------------- */

enum plat_fault_probe {
        PLAT_PROBE_UD2,              /* ud2: #UD */
        PLAT_PROBE_GP_NONCANONICAL,  /* load from a non-canonical address: #GP */
        PLAT_PROBE_GP_CR4_LA57,      /* toggle CR4.LA57 in 64-bit mode: #GP */
        PLAT_PROBE_UNHANDLED_UD2,    /* ud2 with no fixup armed: the crash path; no return
                                      * under QEMU (exit status 4), the firmware's handler on
                                      * hardware */
        PLAT_PROBE__COUNT
};

/** Deliberately raise the fault @p kind under the harness's fixup and recover. ST_OK with the
 *  vector it caught in @p *vector; ST_FAULT if nothing faulted (the emulator or CPU let it
 *  through); ST_UNSUPPORTED where the platform cannot recover faults (hosted build) or the
 *  probe does not apply to this CPU (CR4.LA57 without 5-level paging support). */
status_t plat_fault_probe(enum plat_fault_probe kind, unsigned *vector);

/** Human name of the platform ("UEFI 2.70 EDK II rev 0x10000", "Linux hosted"). */
const char *plat_name(void);

/* ---- the program ------------------------------------------------------------------------ */

/* The platform's own entry (efi_main, a test) calls the program once; the program lives above
 * the platform (app/pmucal.c) and the platform only needs to know how to leave afterwards. */

/* Exit statuses (run-qemu.sh sees (status << 1) | 1 through isa-debug-exit). */
#define PMUCAL_EXIT_OK          0 /* every check passed (or was skipped with a reason) */
#define PMUCAL_EXIT_FAILED      1 /* a check failed */
#define PMUCAL_EXIT_ALL_SKIPPED 2 /* nothing could be checked */
#define PMUCAL_EXIT_NOT_SAVED   3 /* report complete on the console, results not saved */
#define PMUCAL_EXIT_CRASHED     4 /* unexpected exception (boot/uefi/uefi_excl.c) */

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
