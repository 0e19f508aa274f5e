/** @file
 * The AArch64 counting suite and overflow-sampling run: the shared ones of x86-64 through
 * pmu/pmu.h, with the PMUv3's own checks as their architecture part. Each check names its truth, its expected value and its
 * tolerance, and is decided by a counter that counts (QEMU under -icount counts retired
 * instructions exactly; without -icount QEMU's INST_RETIRED stays 0 and those checks SKIP,
 * while on any other machine an INST_RETIRED that reads 0 FAILs them).
 */
#ifndef PMUCAL_APP_ARM64_VALIDATE_H
#define PMUCAL_APP_ARM64_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/arm64/idreg.h"
#include "lib/status.h"

struct cpu_info;
struct pmu_sym;
struct rep_buf;

/** The one counting suite and the one overflow-sampling run on the calling CPU, after
 *  pmu_arm64_init() succeeded: the caps and event aliases, then val_run_arch and
 *  val_sample_run_arch through pmu/pmu.h with the PMUv3's own checks as their architecture
 *  part; everything the driver changed is put back. @p qemu (detected by the caller, from
 *  SMBIOS) selects the emulator's cycle/timer relation for the cycles check (INFO on
 *  hardware) and lets an INST_RETIRED that reads 0 SKIP (FAIL elsewhere). @p cpu, @p reps as
 *  val_run, @p syms .. @p image_base as val_sample_run; pmu-validation.json into
 *  @p json (caller-owned). */
status_t val_arm64_suite(const struct arm64_cpu_info *ci, const struct cpu_info *cpu, bool qemu,
                        unsigned reps, const struct pmu_sym *syms, size_t n_syms,
                        uint64_t image_base, struct rep_buf *json);

#endif
