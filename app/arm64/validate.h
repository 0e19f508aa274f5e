/** @file
 * The PMUv3 validation suite: each check names its truth, its expected value and its
 * tolerance, and is decided by a counter that counts (QEMU under -icount counts retired
 * instructions exactly; without -icount QEMU's INST_RETIRED stays 0 and those checks SKIP,
 * while on any other machine an INST_RETIRED that reads 0 FAILs them).
 */
#ifndef PMUCAL_APP_ARM64_VALIDATE_H
#define PMUCAL_APP_ARM64_VALIDATE_H

#include <stdbool.h>

#include "boot/arm64/idreg.h"

/** Run the suite on the calling CPU after pmu_arm64_init() succeeded. @p qemu (detected by
 *  the caller, from SMBIOS) selects the emulator's cycle/timer relation for the cycles check
 *  (INFO on hardware) and lets an INST_RETIRED that reads 0 SKIP (FAIL elsewhere). */
void arm64_validate(const struct arm64_cpu_info *ci, bool qemu);

#endif
