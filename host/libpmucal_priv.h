/** @file
 * libpmucal internals shared by the latency-table and TLB-table loaders
 * (host/libpmucal_common.c): one size limit and one file reader for every table, one
 * schema version rule (docs/versioning.md), and error messages made safe to print. Not
 * installed; every symbol here is hidden from the shared library.
 */
#ifndef PMUCAL_LIBPMUCAL_PRIV_H
#define PMUCAL_LIBPMUCAL_PRIV_H

#include <stddef.h>

#include "host/include/pmucal/table.h"

#define PMUCAL_HIDDEN __attribute__((visibility("hidden")))

/** Largest table file any loader reads (the same limit for every subcommand). */
#define PMUCAL_MAX_FILE (16u << 20)

/** Read the whole file @p path (at most PMUCAL_MAX_FILE bytes) into a new buffer (free()).
 *  On failure a message "PATH: ..." is in @p err. */
PMUCAL_HIDDEN enum pmucal_err pmucal__read_file(const char *path, char **buf, size_t *len,
                                                char *err, size_t errlen);

/** Check the schema string @p s against "@p prefix <major>[.<minor>]" (docs/versioning.md).
 *  PMUCAL_OK with *@p minor set (0 when absent) when the major is @p major; PMUCAL_E_KIND
 *  when @p s does not start with @p prefix; PMUCAL_E_VERSION when the version is malformed or
 *  another major. The reason goes to @p msg, quoting @p s as given. */
PMUCAL_HIDDEN enum pmucal_err pmucal__schema_version(const char *s, const char *prefix,
                                                     unsigned major, unsigned *minor, char *msg,
                                                     size_t msglen);

/** Escape @p err in place (pmucal_escape), so that a message quoting a file's text can be
 *  printed to a terminal; truncated to @p errlen with "..." when it grows too long. */
PMUCAL_HIDDEN void pmucal__escape_msg(char *err, size_t errlen);

#endif
