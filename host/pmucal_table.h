/** @file
 * pmucal-table's internals: the exit codes, the helpers every subcommand shares (escaped
 * printing, table loading with a message, latency parsing with a unit suffix) and one entry
 * point per subcommand (host/pmucal_table_*.c). Host only; the CLI uses libpmucal's public
 * API and nothing else of it.
 */
#ifndef PMUCAL_HOST_PMUCAL_TABLE_H
#define PMUCAL_HOST_PMUCAL_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "host/include/pmucal/table.h"
#include "host/include/pmucal/tlb.h"

#define EXIT_BAD   1 /* a table is bad or cannot answer, or match found no table */
#define EXIT_USAGE 2 /* unknown command, wrong arguments, a malformed latency argument */
#define EXIT_FOUND 3 /* classify -: some input lines were bad; diff: a figure moved beyond
                        the runs' own spread */
#define EXIT_NO_BUCKET 4 /* classify-source: the table has no bucket for that (known) source */

/** @p s escaped for printing (pmucal_escape): text from a file or a directory listing never
 *  reaches the terminal raw. Eight rotating buffers, so one printf can take several. */
const char *cli_esc(const char *s);

/** The text of @p s for printing where it may be NULL (null in the file): "null". */
const char *cli_str(const char *s);

/** Load a latency table; NULL after printing the library's message. */
struct pmucal_table *cli_load_table(const char *path);

/** Load a TLB table; NULL after printing the library's message. */
struct pmucal_tlb *cli_load_tlb(const char *path);

/** Parse "--unit table|tsc|core|ns" into @p u; false for another word. */
bool cli_parse_unit(const char *s, enum pmucal_unit *u);

/** Parse a latency of @p len bytes at @p s: a decimal number (no sign; digits with an
 *  optional fraction and exponent), optional blanks, an optional unit suffix "ns", "tsc" or
 *  "core" (else @p dflt). Fast path for plain decimals; false when malformed. */
bool cli_parse_latency(const char *s, size_t len, enum pmucal_unit dflt, double *v,
                       enum pmucal_unit *unit);

/** --core-ghz @p ghz: the core clock the samples ran at, as @p t's core:TSC ratio
 *  (pmucal_table_set_core_ratio). 0, or an exit code after printing why not. */
int cli_core_ghz(const char *path, struct pmucal_table *t, const char *ghz);

int cmd_check(const char *path);
int cmd_show(int argc, char **argv);
int cmd_classify(int argc, char **argv);
int cmd_classify_tlb(int argc, char **argv);
int cmd_classify_source(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_report(int argc, char **argv);

/** match --collector (host/pmucal_table_collector.c): GET the reference latency table of CPU
 *  signature @p cpu from the collector at @p url within @p timeout_s seconds, write it to
 *  @p out (NULL: pmucal-reference-SIG.json), check that it loads and print its path; 0, or
 *  EXIT_BAD / EXIT_USAGE after saying why on standard error. */
int cli_match_collector(const char *url, const char *cpu, double timeout_s, const char *out);

/** diff's TLB part (host/pmucal_table_diff_tlb.c): print A against B, curve by curve; the
 *  number of figures that moved beyond the runs' spread or are in one table only. */
unsigned cli_diff_tlb(const struct pmucal_tlb *a, const struct pmucal_tlb *b);

/** `diff` of two c2c.json or two numa-matrix.json files (host/pmucal_table_diff_files.c):
 *  the exit code (0, EXIT_FOUND, EXIT_BAD after printing why), or -1 when neither file is
 *  one of those (a table: the caller diffs it). */
int cli_diff_files(const char *pa, const char *pb);

/** What `show` prints of a table's 1.3 remote sections (host/pmucal_table_remote.c): 0, or
 *  EXIT_BAD after printing the library's message. */
int cli_show_remote(const char *path);

/** `check` (@p show false) or `show` of a c2c.json or numa-matrix.json: 0 or EXIT_BAD after
 *  printing why, -1 when @p path is neither (a caller tries the next kind). */
int cli_other_file(const char *path, bool show);

/** The remote sections of the latency table @p path for `show --json`: {"numa",
 *  "loaded_latency", "c2c" (null where absent), "unknown_values"}; NULL after printing why
 *  they cannot be read. */
json_t *cli_remote_json(const char *path);

/** The remote sections of the latency table @p path for `show --csv`, each after a "# section
 *  NAME" line with its own header row; 0, or EXIT_BAD after printing why not. */
int cli_remote_csv(const char *path);

#endif
