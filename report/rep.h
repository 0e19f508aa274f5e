/** @file
 * Console reporting, modelled on kvm-unit-tests' report*(): every verdict line starts with
 * PASS:, FAIL:, SKIP:, INFO:, WARN: or ERROR:, then the prefix path ("pmu: intel: fixed0: "),
 * so run-qemu.sh and people can grep it. Output goes to every registered sink (the console and
 * the report.txt capture in the harness; a memory buffer in tests).
 *
 *     rep_push("amd"); rep_push("ibs-op");
 *     if (!rep_check(n > 0, "samples collected (%u)", n)) ...
 *     rep_pop(); rep_pop(); return rep_summary();  // "SUMMARY: 14 passed, 1 failed, 3 skipped"
 *                                                  // "CHECKS: 15 decided here (PASS/FAIL), ..."
 */
#ifndef PMUCAL_REP_H
#define PMUCAL_REP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/status.h"
#include "lib/fmt.h"

/** Where text goes. @p write returns ST_OK or why it could not take the text. */
struct rep_sink {
        status_t (*write)(void *ctx, const char *s, size_t n);
        void *ctx;
};

/** A growable text buffer (memory from plat_alloc). After an allocation failure it keeps
 *  what it had and sets @p oom; appends become no-ops. */
struct rep_buf {
        char  *p;
        size_t len;
        size_t cap;
        bool   oom;
};

/** Append @p n bytes; ST_NO_MEM when the buffer could not grow. Keeps p NUL-terminated. */
status_t rep_buf_append(struct rep_buf *b, const char *s, size_t n);
/** Append formatted text. */
status_t rep_buf_printf(struct rep_buf *b, const char *fmt, ...) PRINTF_FMT(2, 3);
/** Free the buffer's memory and reset it to empty. */
void rep_buf_free(struct rep_buf *b);
/** A sink that appends to @p b. */
struct rep_sink rep_buf_sink(struct rep_buf *b);

/** Register a sink (at most 4); every line printed afterwards goes to it too. */
status_t rep_add_sink(struct rep_sink sink);
/** Forget all sinks, prefixes and counts (start of a run, or between unit tests). */
void rep_reset(void);

/** Print plain text to every sink. */
void rep_printf(const char *fmt, ...) PRINTF_FMT(1, 2);
void rep_vprintf(const char *fmt, va_list ap);

/** Push a prefix component ("pmu", "intel"); at most 8 deep. */
void rep_push(const char *prefix);
void rep_pop(void);

/** Why a check is skipped, chosen by its reason where the SKIP is decided: the environment of
 *  the run (no memory, the configuration, an emulator, data an earlier phase did not give),
 *  no hardware PMU (none, or none the harness can program here), or a feature this machine
 *  lacks (an event, IBS, PEBS, LBR, a counter, a page size, a CPUID leaf). */
enum rep_skip_kind {
        REP_SKIP_ENV = 0,
        REP_SKIP_PMU,
        REP_SKIP_FEATURE,
        REP_SKIP__COUNT
};
/** "environment", "needs a hardware PMU", "needs a feature"; never NULL. */
const char *rep_skip_kind_name(enum rep_skip_kind kind);

/** Print PASS or FAIL with the prefix path and message; returns @p pass. */
bool rep_check(bool pass, const char *fmt, ...) PRINTF_FMT(2, 3);
/** Print SKIP with the reason and its kind, "SKIP: prefix: check: reason [kind]"; counted as
 *  skipped, by kind. Consecutive SKIPs under one prefix path with one reason and kind print
 *  as one line, "SKIP: prefix: N checks: reason [kind]" (the details stay in the phase's
 *  JSON; the summary counts each). The line is held until the next line of any kind,
 *  rep_flush() or rep_summary(). */
void rep_skip(enum rep_skip_kind kind, const char *fmt, ...) PRINTF_FMT(2, 3);

/** Print the SKIP line rep_skip may be holding. */
void rep_flush(void);
/** Print INFO (not counted). */
void rep_info(const char *fmt, ...) PRINTF_FMT(1, 2);
/** Print WARN (not counted). */
void rep_warn(const char *fmt, ...) PRINTF_FMT(1, 2);
/** Print "ERROR: <message>: <status text>" and return @p st unchanged, so callers can write
 *  `return rep_err(st, "writing %s", path);`. */
status_t rep_err(status_t st, const char *fmt, ...) PRINTF_FMT(2, 3);

struct rep_counts {
        unsigned n_pass, n_fail, n_skip;
        unsigned n_skip_by[REP_SKIP__COUNT]; /* of n_skip, by kind */
};
struct rep_counts rep_get_counts(void);

/** Print "SUMMARY: N passed, N failed, N skipped" and "CHECKS: N decided here (PASS/FAIL),
 *  M need a hardware PMU (SKIP), F need a feature this machine lacks (SKIP), E skipped for
 *  the environment (SKIP)"; return 0 if nothing failed and something passed, 1 on any
 *  failure, 2 when everything was skipped. */
int rep_summary(void);

#endif
