/** @file
 * The system-register accessors of boot/arm64/sysreg.h on the virtual PMUv3: the encodings
 * are the real header's (included here, so that its include guard also keeps the driver from
 * including it again), and SYSREG_READ / SYSREG_WRITE / isb() become calls into the model
 * (tests/vpmu/vpmu_a64.c) with the register's name as MRS/MSR would spell it. Included first
 * by a translation unit that compiles AArch64 code for the host (tests/vpmu/vpmu_a64_driver.c).
 */
#ifndef PMUCAL_VPMU_A64_SYSREG_H
#define PMUCAL_VPMU_A64_SYSREG_H

#include "boot/arm64/sysreg.h"
#include "tests/vpmu/vpmu_a64.h"

#undef SYSREG_READ
#undef SYSREG_WRITE
#define SYSREG_READ(reg)       vpa_sysreg_read(SYSREG_STR(reg))
#define SYSREG_WRITE(reg, val) vpa_sysreg_write(SYSREG_STR(reg), (uint64_t)(val))
#define isb()                  vpa_isb()

#endif
