/** @file
 * The harness's program, above the platform: read the config, take the inventory, run the
 * profile's measurements, print the report and save the results. Portable: the firmware
 * entry (boot/uefi_main.c) calls it, and so do the host tests with the fake platform.
 */
#ifndef PMUCAL_APP_H
#define PMUCAL_APP_H

#include <stdbool.h>

/* Exit statuses (run-qemu.sh sees (status << 1) | 1 through isa-debug-exit). */
#define PMUCAL_EXIT_OK          0 /* every check passed (or was skipped with a reason) */
#define PMUCAL_EXIT_FAILED      1 /* a check failed */
#define PMUCAL_EXIT_ALL_SKIPPED 2 /* nothing could be checked */
#define PMUCAL_EXIT_NOT_SAVED   3 /* report complete on the console, results not saved */
#define PMUCAL_EXIT_CRASHED     4 /* unexpected exception (boot/uefi_excl.c) */

enum pmucal_leave { PMUCAL_LEAVE_RETURN = 0, PMUCAL_LEAVE_SHUTDOWN, PMUCAL_LEAVE_REBOOT };

/** What the firmware glue does after the program returns. */
struct pmucal_outcome {
        int               exit_code;  /* PMUCAL_EXIT_* */
        enum pmucal_leave leave;
        int               debug_exit; /* -1 auto (only under QEMU), 0 never, 1 always */
};

/** Run the whole program; returns out->exit_code. */
int pmucal_main(struct pmucal_outcome *out);

#endif
