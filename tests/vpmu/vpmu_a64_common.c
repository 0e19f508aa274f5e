/** @file
 * The interface of pmu/pmu.h on the AArch64 PMUv3 (pmu/arm64/pmu_common.c) and the AArch64
 * clocks of pmu/clock.h (pmu/arm64/clock.c), compiled for the host against the virtual
 * PMUv3 as tests/vpmu/vpmu_a64_driver.c compiles the driver: the shared suite then runs on
 * the model through the very calls the firmware makes. The ID registers are the model's.
 */
#include "tests/vpmu/vpmu_a64_sysreg.h"

#include "pmu/arm64/pmu_common.c"

void arm64_id_collect(struct arm64_id_regs *r)
{
        vpa_id_regs(r);
}
