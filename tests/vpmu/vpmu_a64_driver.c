/** @file
 * The AArch64 PMUv3 driver (pmu/arm64/pmu_arm64.c) compiled for the host against the virtual
 * PMUv3: its system-register accesses go to the model (tests/vpmu/vpmu_a64_sysreg.h). The
 * driver's source is included unchanged, so that the host runs the very code the firmware
 * does.
 */
#include "tests/vpmu/vpmu_a64_sysreg.h"

#include "pmu/arm64/pmu_arm64.c"
