/** @file
 * Test-side controls of the fake platform (tests/fake_plat.c): an in-memory volume with
 * directories and cluster-counted free space whose writes can be made to fail, injectable
 * ACPI/SMBIOS tables and CPUs, and captured console output. Host unit tests only.
 */
#ifndef PMUCAL_FAKE_PLAT_H
#define PMUCAL_FAKE_PLAT_H

#include "boot/memrange.h"
#include "boot/plat.h"

/** Forget files, tables, CPUs, captured console text and injected failures. */
void fake_plat_reset(void);

/** One scripted answer of plat_net_post (tests/fake_net.c): a status other than ST_OK is a
 *  collector that could not be reached; else @p code and @p reply are its answer. */
struct fake_net_answer {
        status_t    st;
        unsigned    code;
        const char *reply;
};
#define FAKE_NET_MAX 16
/** The answers of the next calls, in order (a call past them: ST_UNSUPPORTED); forgets the
 *  calls and bodies recorded so far. */
void fake_net_script(const struct fake_net_answer *a, size_t n);
/** How many times plat_net_post was called since the last script. */
size_t fake_net_calls(void);
/** The last body posted (NUL-terminated copy), its length, URL and Content-Type. */
const char *fake_net_last(size_t *len, const char **url, const char **type);
/** The volume's part of fake_plat_reset (tests/fake_volume.c). */
void fake_volume_reset(void);
/** plat_file_elsewhere finds @p path on another volume named @p where (NULL: on none). */
void fake_plat_set_elsewhere(const char *path, const char *where);
/** Console text written since the last reset (NUL-terminated; never NULL). */
const char *fake_plat_console(void);
/** Make every later plat_file_write fail with @p st (ST_OK: succeed again). */
void fake_plat_fail_writes(status_t st);
/** Let @p n more plat_file_write calls succeed, then fail every later one with @p st. */
void fake_plat_fail_writes_after(unsigned n, status_t st);
/** The volume's free space and cluster size (writes use it up) and write protection. The
 *  default after a reset: 1 GiB free, 4 KiB clusters, writable. */
void fake_plat_set_volume(uint64_t free_bytes, uint32_t cluster_bytes, bool read_only);
/** Make plat_file_read of every path ending in @p suffix return one byte short, as a volume
 *  that lost data would (NULL or "": read back what was written again). */
void fake_plat_short_reads(const char *suffix);
/** Add a file to the in-memory volume (copied), making its parent directories. */
status_t fake_plat_put_file(const char *path, const void *buf, size_t len);
/** Add a directory (and its parents) to the in-memory volume. */
status_t fake_plat_put_dir(const char *path);
/** The content of a file on the in-memory volume; NULL if absent or a directory. */
const char *fake_plat_get_file(const char *path, size_t *len);
/** How many entries (files and directories) @p path and everything under it make; 0 when
 *  it does not exist. */
unsigned fake_plat_count_under(const char *path);
/** Publish @p table (not copied; header says its signature) as an ACPI table. */
void fake_plat_add_acpi(const void *table);
/** Publish an SMBIOS structure table (not copied). */
void fake_plat_set_smbios(const void *table, size_t len, unsigned major, unsigned minor);
/** Describe the processors plat_cpu_info reports (copied, at most 64). */
void fake_plat_set_cpus(const struct plat_cpu *cpus, unsigned n);
/** Processor @p idx never runs what plat_cpu_start hands it (a CPU that does not answer). */
void fake_plat_cpu_dead(unsigned idx, bool dead);
/** Make plat_stall_us really wait (default: return at once, so calibrations are instant);
 *  the processor tests need it, since their "APs" are threads that must get a turn. */
void fake_plat_real_stall(bool on);
/** Index of the processor the caller runs on (the thread a plat_cpu_start made, or the BSP). */
int fake_plat_this_cpu(void);
/** Forget started-but-dead processors (after mp_stop gave up on them). */
void fake_plat_cpus_reset(void);

/** CR3 of the firmware's page tables, as the fake MMU starts. */
#define FAKE_PLAT_FIRMWARE_CR3 0x1000ull
/** The MMU as the firmware leaves it (fake_plat_reset: 4 KiB, no CR3 load, map without the
 *  process): page buffers reported as mapped with @p pages; cpu_page_tables_load works when
 *  @p load_cr3 (the fake CR3 takes the root), cpu_page_tables_restore puts the saved value
 *  back when @p restore_cr3; plat_mem_map also covers the test process's code, stack and
 *  heap (as a firmware's map covers the harness) when @p cover_process. */
void fake_plat_set_mmu(enum plat_page_kind pages, bool load_cr3, bool restore_cr3,
                       bool cover_process);
/** With the process covered (fake_plat_set_mmu), plat_mem_map leaves [@p base, @p base +
 *  @p bytes) out, a range of it the firmware's map does not describe (0 bytes: none; reset by
 *  fake_plat_set_mmu). */
void fake_plat_map_leave_out(uint64_t base, uint64_t bytes);
/** The page size page buffers are reported mapped with (fake_plat_set_mmu), for a model of
 *  the TLB that must agree with it. */
enum plat_page_kind fake_plat_page_kind(void);
/** The fake CR3 (what the tests' bench_cr3_read wrapper returns). */
uint64_t fake_plat_cr3(void);

/* Topology (tests/fake_topology.c, for the tests that link it). */

/** Processor @p idx describes itself as a core of a hybrid part: core type @p core_type
 *  (0x20 atom, 0x40 core; 0: back to a plain processor) with an L2 of @p l2_bytes. */
void fake_topology_set_kind(unsigned idx, uint8_t core_type, uint64_t l2_bytes);

/* Physical placement (tests/fake_mem_node.c). */

/** The free physical memory plat_alloc_pages_in() places blocks in (copied, at most 64
 *  spans; default: everything from 1 MiB to 16 TiB). Allocations take their blocks out. */
void fake_plat_set_free_mem(const struct mem_span *free, size_t n);
/** The next plat_alloc_pages_in() block reports a wrong physical address for the page at
 *  byte @p offset (-1: none). */
void fake_plat_misplace_page(int64_t offset);
/** Free every placed block and forget the free map (fake_plat_reset calls it). */
void fake_mem_node_reset(void);
/** Free @p p if it is a placed block; false if it is not one. */
bool fake_mem_node_forget(void *p);

#endif
