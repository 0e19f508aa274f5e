/** @file
 * Host-only controls of the hosted platform (boot/linux/linux_plat.c, boot/linux/linux_file.c,
 * boot/linux/x86/linux_msr.c) used by pmucal-host: the output folder files are written under
 * (locked for the run), CPU pinning, and what the last measurement buffer really got. Not
 * portable: only the pmucal-host programs include this.
 */
#ifndef PMUCAL_LINUX_PLAT_H
#define PMUCAL_LINUX_PLAT_H

#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"

/** Directory plat_file_write/plat_file_read paths are relative to (copied; default "."). */
void linux_plat_set_out_dir(const char *dir);

/** Make @p dir the output folder: create it (and its parents), take an exclusive lock on it
 *  that lasts until the process exits (flock; another run asking for it gets EBUSY, so two
 *  runs never mix their files in one folder), check that a file can be made in it (a probe
 *  made and removed: a read-only folder is found before anything is measured), and set it as
 *  the out dir. 0 on success, else an errno value (EBUSY: another process holds the lock;
 *  EROFS, EACCES: not writable). */
int linux_plat_use_out_dir(const char *dir);

/** Create a new folder named @p prefix + UTC date and time ("pmucal-20261123T081500Z"), with
 *  "-2", "-3", ... when that exists already: never an existing folder. Its name goes to
 *  @p name. 0 on success, else an errno value. */
int linux_plat_new_out_dir(const char *prefix, char *name, size_t cap);

/** Remove what runs killed in this output folder left: ".NAME.tmp-PID" files in it (the
 *  folder is locked, so no live writer owns one) and staging folders beside it whose process
 *  is gone. Returns how many were removed. */
unsigned linux_plat_clean_stale(void);

/** Start a unit: from now on relative paths are written into a new staging folder beside the
 *  output folder (".NAME.new-PID"), and read from it once written there. 0, or an errno
 *  value (EBUSY: a unit is open already). */
int linux_plat_unit_begin(void);

/** End the unit: the staging folder, plus what the output folder held and this run did not
 *  write, takes the output folder's place in one exchange of the two folders; the previous
 *  folder is removed. ST_OK, or the error (the output folder is then as it was). */
status_t linux_plat_unit_commit(void);

/** Drop the unit: the staging folder and the files in it are removed; the output folder is
 *  as it was. */
void linux_plat_unit_abort(void);

/** Pin the calling thread to logical CPU @p cpu (sched_setaffinity); ST_BAD_ARG for a CPU
 *  this process may not run on. MSR accesses go to that CPU's /dev/cpu/N/msr afterwards. */
status_t linux_plat_pin_cpu(unsigned cpu);

/** Share of the last plat_alloc_pages buffer backed by 2 MiB pages, per mille
 *  (AnonHugePages of its mapping in /proc/self/smaps); 0 when unknown. */
unsigned linux_plat_last_huge_permille(void);

/** Context switches of the calling thread so far (getrusage RUSAGE_THREAD, voluntary +
 *  involuntary): the hosted build's "the CPU was taken away" counter for the window guard
 *  (bench_steal_count_fn; @p ctx unused). */
uint64_t linux_plat_ctx_switches(void *ctx);

/** Open the calling thread's hardware cycles counter (perf_event_open) once and set
 *  @p info's core_cycles and core_cycles_name, or core_cycles_why (boot/linux/linux_perf.c). */
void linux_perf_cycles(struct plat_info *info);

/** Describe a recorded machine instead of this one (pmucal-host --inventory): ACPI tables from
 *  the folder @p dir (the sysfs names APIC, SRAT, ... and acpixtract's apic.dat, srat.dat,
 *  ...; NULL: none, the recorded machine's tables were not given), no SMBIOS, plat_info()
 *  named @p name and its processors unlisted. */
void linux_plat_use_recorded(const char *dir, const char *name);

/** Take the processor list (plat_cpu_info, plat_cpu_start): every CPU Linux configured, and
 *  which of them this process may run on as sched_getaffinity says before anything is
 *  pinned; taken once, at the first call (linux_plat_pin_cpu makes it before it pins).
 *  Returns how many CPUs. */
unsigned linux_cpu_list(void);

/** Whether this process may run on processor @p idx of that list (taskset, cgroups). */
bool linux_cpu_allowed(unsigned idx);

/** The node Linux puts logical CPU @p cpu on (/sys/devices/system/cpu/cpuN/nodeM; 0 on a
 *  kernel without NUMA) (boot/linux/linux_numa.c). */
uint32_t linux_cpu_node(unsigned cpu);

/** Linux's number of processor @p idx of that list (0 past its end). */
unsigned linux_cpu_number(unsigned idx);

/** The first CPU the program is pinned to (linux_plat_pin_cpu) is the BSP, index 0 of the
 *  processor list; the others follow in ascending order. Later calls change nothing. */
void linux_cpu_set_bsp(unsigned cpu);

/** The processor list is the recorded CPU alone, with APIC ID @p apic_id (linux_cpu.c). */
void linux_cpu_set_recorded(uint32_t apic_id);

/** Select the CPU whose /dev/cpu/N/msr the MSR accessors use (linux_plat_pin_cpu does it). */
void linux_msr_set_cpu(unsigned cpu);

#endif
