/** @file
 * Write errors on standard output, for the host programs (pmucal-table, pmucal-host): output
 * redirected to a full disk or /dev/full must not end in exit 0 with an empty or short file.
 */
#ifndef PMUCAL_CLI_STDOUT_H
#define PMUCAL_CLI_STDOUT_H

/** At exit, flush standard output; if that or any earlier write to it failed, print
 *  "@p prog: writing standard output: <reason>" on standard error and end the process with
 *  status @p code instead of the one it was exiting with. Call once, early in main. */
void cli_stdout_check_at_exit(const char *prog, int code);

#endif
