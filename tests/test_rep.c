/** @file Tests of console reporting (report/rep.c): verdict lines, counts, sinks, summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/rep.h"
#include "tests/fake_plat.h"

static struct rep_buf out;

static int setup(void **state)
{
        rep_reset();
        rep_buf_free(&out);
        return rep_add_sink(rep_buf_sink(&out)) == ST_OK ? 0 : -1;
}

static int teardown(void **state)
{
        rep_reset();
        rep_buf_free(&out);
        return 0;
}

static const char *text(void)
{
        return out.p ? out.p : "";
}

static void clear(void)
{
        out.len = 0;
        if (out.p)
                out.p[0] = '\0';
}

/* ---- verdict lines -------------------------------------------------------------------------- */

enum kind { K_PASS, K_FAIL, K_SKIP, K_INFO, K_WARN };

static const struct {
        enum kind   kind;
        const char *prefixes[3];
        const char *msg;
        const char *want;
} lines[] = {
        { K_PASS, { NULL }, "plain", "PASS: plain\n" },
        { K_FAIL, { NULL }, "plain", "FAIL: plain\n" },
        { K_SKIP, { NULL }, "no IBS", "SKIP: no IBS [needs a feature]\n" },
        { K_INFO, { NULL }, "note", "INFO: note\n" },
        { K_WARN, { NULL }, "careful", "WARN: careful\n" },
        { K_PASS, { "pmu" }, "x", "PASS: pmu: x\n" },
        { K_FAIL, { "pmu", "intel", "fixed0" }, "counts", "FAIL: pmu: intel: fixed0: counts\n" },
        { K_SKIP, { "amd", "ibs-op" }, "IbsOpCntCtl not supported",
          "SKIP: amd: ibs-op: IbsOpCntCtl not supported [needs a feature]\n" },
        { K_INFO, { "lat" }, "", "INFO: lat: \n" },
        { K_WARN, { "a", "b" }, "50%% done", "WARN: a: b: 50% done\n" },
};

static void emit_kind(enum kind k, const char *msg)
{
        switch (k) {
        case K_PASS: rep_check(true, msg, 0); break;
        case K_FAIL: rep_check(false, msg, 0); break;
        case K_SKIP: rep_skip(REP_SKIP_FEATURE, msg, 0); break;
        case K_INFO: rep_info(msg, 0); break;
        case K_WARN: rep_warn(msg, 0); break;
        }
}

static void test_verdict_lines(void **state)
{
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
                size_t n = 0;

                clear();
                for (; n < 3 && lines[i].prefixes[n]; n++)
                        rep_push(lines[i].prefixes[n]);
                emit_kind(lines[i].kind, lines[i].msg);
                while (n--)
                        rep_pop();
                rep_flush(); /* a SKIP line is held until the next line */
                assert_string_equal(text(), lines[i].want);
        }
}

/* SKIPs under one prefix path with one reason and kind print as one line with their count,
 * the kind after the reason; the summary still counts each; another reason, another kind,
 * another prefix or any line between starts a new group. */
static void test_skip_collapse(void **state)
{
        (void)state;
        clear();
        rep_push("sampling");
        rep_push("ibs-op");
        for (unsigned i = 0; i < 12; i++)
                rep_skip(REP_SKIP_FEATURE, "check %u: CPUID.80000001H:ECX[10] IBS is clear", i);
        rep_skip(REP_SKIP_PMU, "sample-count: no PMU");
        rep_pop();
        rep_push("pebs");
        rep_skip(REP_SKIP_PMU, "addresses L1: no PMU");
        rep_skip(REP_SKIP_PMU, "addresses L2: no PMU");
        rep_info("between");
        rep_skip(REP_SKIP_PMU, "addresses L3: no PMU");
        rep_skip(REP_SKIP_ENV, "no name, one reason");
        rep_skip(REP_SKIP_ENV, "no name, one reason");
        rep_skip(REP_SKIP_FEATURE, "no name, one reason"); /* another kind: a line of its own */
        rep_pop();
        for (unsigned i = 0; i < 3; i++) { /* a prefix pushed around each SKIP: still one run */
                rep_push("lbr");
                rep_skip(REP_SKIP_FEATURE, "check %u: not an Intel CPU", i);
                rep_pop();
        }
        rep_pop();
        assert_int_equal(rep_summary(), 2);
        assert_string_equal(text(),
                            "SKIP: sampling: ibs-op: 12 checks: CPUID.80000001H:ECX[10] IBS is "
                            "clear [needs a feature]\n"
                            "SKIP: sampling: ibs-op: sample-count: no PMU [needs a hardware PMU]\n"
                            "SKIP: sampling: pebs: 2 checks: no PMU [needs a hardware PMU]\n"
                            "INFO: sampling: pebs: between\n"
                            "SKIP: sampling: pebs: addresses L3: no PMU [needs a hardware PMU]\n"
                            "SKIP: sampling: pebs: 2 checks: no name, one reason [environment]\n"
                            "SKIP: sampling: pebs: no name, one reason [needs a feature]\n"
                            "SKIP: sampling: lbr: 3 checks: not an Intel CPU [needs a feature]\n"
                            "SUMMARY: 0 passed, 0 failed, 22 skipped\n"
                            "CHECKS: 0 decided here (PASS/FAIL), 4 need a hardware PMU (SKIP), "
                            "16 need a feature this machine lacks (SKIP), 2 skipped for the "
                            "environment (SKIP)\n");
}

static void test_formatting_and_return(void **state)
{
        assert_true(rep_check(true, "samples collected (%u)", 17u));
        assert_false(rep_check(false, "%s = %d", "x", -3));
        assert_string_equal(text(), "PASS: samples collected (17)\nFAIL: x = -3\n");
}

static void test_prefix_depth(void **state)
{
        static const char *names[10] = { "p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9" };

        for (int i = 0; i < 10; i++)
                rep_push(names[i]);
        rep_info("deep");
        /* At most 8 are shown; the extra pushes still need their pops. */
        assert_string_equal(text(), "INFO: p0: p1: p2: p3: p4: p5: p6: p7: deep\n");
        clear();
        rep_pop();
        rep_pop();
        rep_info("x");
        assert_string_equal(text(), "INFO: p0: p1: p2: p3: p4: p5: p6: p7: x\n");
        for (int i = 0; i < 8; i++)
                rep_pop();
        rep_pop(); /* one too many: harmless */
        clear();
        rep_info("top");
        assert_string_equal(text(), "INFO: top\n");
}

/* ---- counts and summary ----------------------------------------------------------------- */

static const struct {
        unsigned pass, fail, skip;
        int      code;
} summaries[] = {
        { 3, 0, 0, 0 }, { 1, 0, 5, 0 }, { 3, 1, 2, 1 }, { 0, 1, 0, 1 },
        { 0, 1, 3, 1 }, { 0, 0, 2, 2 }, { 0, 0, 1, 2 }, { 0, 0, 0, 2 },
};

static void test_summary(void **state)
{
        for (size_t i = 0; i < sizeof(summaries) / sizeof(summaries[0]); i++) {
                char want[256];

                rep_reset();
                rep_buf_free(&out);
                rep_add_sink(rep_buf_sink(&out));
                for (unsigned k = 0; k < summaries[i].pass; k++)
                        rep_check(true, "p%u", k);
                for (unsigned k = 0; k < summaries[i].fail; k++)
                        rep_check(false, "f%u", k);
                for (unsigned k = 0; k < summaries[i].skip; k++)
                        rep_skip(REP_SKIP_ENV, "s%u", k);
                rep_info("not counted");
                rep_warn("not counted");
                rep_err(ST_IO, "not counted");

                struct rep_counts c = rep_get_counts();
                assert_int_equal(c.n_pass, summaries[i].pass);
                assert_int_equal(c.n_fail, summaries[i].fail);
                assert_int_equal(c.n_skip, summaries[i].skip);

                clear();
                assert_int_equal(rep_summary(), summaries[i].code);
                snprintf(want, sizeof(want), "SUMMARY: %u passed, %u failed, %u skipped\n"
                         "CHECKS: %u decided here (PASS/FAIL), 0 need a hardware PMU (SKIP), 0 "
                         "need a feature this machine lacks (SKIP), %u skipped for the "
                         "environment (SKIP)\n", summaries[i].pass, summaries[i].fail,
                         summaries[i].skip, summaries[i].pass + summaries[i].fail,
                         summaries[i].skip);
                assert_string_equal(text(), want);
        }
        rep_reset();
        struct rep_counts c = rep_get_counts();
        assert_int_equal(c.n_pass + c.n_fail + c.n_skip, 0);
}

/* The CHECKS line counts the SKIPs by the kind each was given where it was decided, whatever
 * prefix it prints under (a phase's name says nothing of why). */
static void test_checks_line(void **state)
{
        (void)state;
        clear();
        rep_push("tlb");
        rep_skip(REP_SKIP_FEATURE, "1 GiB pages: CPUID.80000001H:EDX[26] is clear");
        rep_check(true, "4 KiB");
        rep_pop();
        rep_push("pmu");
        rep_push("sampling");
        rep_skip(REP_SKIP_PMU, "pmi-count: no PMU");
        rep_skip(REP_SKIP_PMU, "skid: no PMU");
        rep_check(false, "route");
        rep_pop();
        rep_skip(REP_SKIP_ENV, "aliases: no memory");
        rep_skip(REP_SKIP__COUNT, "out of range: counted as the environment");
        rep_pop();
        rep_skip(REP_SKIP_ENV, "outside: single CPU");
        rep_skip(REP_SKIP_ENV, "outside: single CPU");
        struct rep_counts c = rep_get_counts();
        assert_int_equal(c.n_skip_by[REP_SKIP_PMU], 2);
        assert_int_equal(c.n_skip_by[REP_SKIP_FEATURE], 1);
        assert_int_equal(c.n_skip_by[REP_SKIP_ENV], 4);
        clear();
        assert_int_equal(rep_summary(), 1);
        assert_non_null(strstr(text(), "SUMMARY: 1 passed, 1 failed, 7 skipped\n"
                                       "CHECKS: 2 decided here (PASS/FAIL), 2 need a hardware "
                                       "PMU (SKIP), 1 need a feature this machine lacks (SKIP), "
                                       "4 skipped for the environment (SKIP)\n"));
        rep_reset();
        assert_int_equal(rep_get_counts().n_skip_by[REP_SKIP_PMU], 0);
}

/* ---- rep_err -------------------------------------------------------------------------------- */

static void test_err(void **state)
{
        for (int st = 0; st <= ST__COUNT; st++) {
                char want[256];

                clear();
                assert_int_equal(rep_err((status_t)st, "writing %s (%zu bytes)", "lat.json",
                                         (size_t)4096), st);
                snprintf(want, sizeof(want), "ERROR: writing lat.json (4096 bytes): %s\n",
                         status_str((status_t)st));
                assert_string_equal(text(), want);
        }
        clear();
        assert_int_equal(rep_err(ST_IO, "writing %s", "x"), ST_IO);
        assert_string_equal(text(), "ERROR: writing x: I/O error\n");
        clear();
        rep_push("results");
        assert_int_equal(rep_err(ST_NO_SPACE, "saving"), ST_NO_SPACE);
        rep_pop();
        assert_string_equal(text(), "ERROR: results: saving: volume is full\n");
}

/* ---- long lines ----------------------------------------------------------------------------- */

static void test_long_lines(void **state)
{
        static const size_t sizes[] = { 1000, 1015, 1016, 1017, 1023, 1024, 1025, 5000, 70000 };

        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                size_t len  = sizes[i];
                char  *msg  = malloc(len + 1);
                char  *want = malloc(len + 64);

                for (size_t k = 0; k < len; k++)
                        msg[k] = (char)('a' + k % 26);
                msg[len] = '\0';

                clear();
                rep_printf("%s", msg);
                assert_int_equal(out.len, len);
                assert_string_equal(text(), msg);

                clear();
                rep_push("pfx");
                rep_check(false, "%s", msg);
                rep_pop();
                snprintf(want, len + 64, "FAIL: pfx: %s\n", msg);
                assert_string_equal(text(), want);

                clear();
                rep_err(ST_TIMEOUT, "%s", msg);
                snprintf(want, len + 64, "ERROR: %s: timed out\n", msg);
                assert_string_equal(text(), want);
                free(msg);
                free(want);
        }
}

/* ---- sinks and buffers ---------------------------------------------------------------------- */

static unsigned n_failed_writes;

static status_t failing_write(void *ctx, const char *s, size_t n)
{
        n_failed_writes++;
        return ST_IO;
}

static void test_sinks(void **state)
{
        struct rep_buf b2 = { 0 }, b3 = { 0 }, b4 = { 0 };

        assert_int_equal(rep_add_sink((struct rep_sink){ .write = NULL }), ST_BAD_ARG);
        assert_int_equal(rep_add_sink((struct rep_sink){ .write = failing_write }), ST_OK);
        assert_int_equal(rep_add_sink(rep_buf_sink(&b2)), ST_OK);
        assert_int_equal(rep_add_sink(rep_buf_sink(&b3)), ST_OK);
        assert_int_equal(rep_add_sink(rep_buf_sink(&b4)), ST_BAD_ARG); /* at most 4 */

        n_failed_writes = 0;
        rep_printf("hello %d\n", 1);
        rep_check(true, "ok");
        /* A failing sink does not keep the text from the others. */
        assert_int_equal(n_failed_writes, 2);
        assert_string_equal(text(), "hello 1\nPASS: ok\n");
        assert_string_equal(b2.p, text());
        assert_string_equal(b3.p, text());
        assert_null(b4.p);

        rep_reset(); /* forgets the sinks */
        rep_printf("gone");
        assert_int_equal(n_failed_writes, 2);
        assert_string_equal(b2.p, "hello 1\nPASS: ok\n");
        rep_buf_free(&b2);
        rep_buf_free(&b3);
        assert_null(b2.p);
        assert_int_equal(b2.len, 0);
        assert_int_equal(b2.cap, 0);
}

static void test_buf(void **state)
{
        struct rep_buf b = { 0 };
        char           big[3000];

        assert_int_equal(rep_buf_append(&b, "", 0), ST_OK);
        assert_string_equal(b.p, "");
        assert_int_equal(rep_buf_append(&b, "ab\0cd", 5), ST_OK); /* bytes, not a string */
        assert_int_equal(b.len, 5);
        assert_memory_equal(b.p, "ab\0cd", 6);
        for (size_t i = 0; i < sizeof(big) - 1; i++)
                big[i] = (char)('0' + i % 10);
        big[sizeof(big) - 1] = '\0';
        assert_int_equal(rep_buf_printf(&b, "[%s|%d]", big, 42), ST_OK);
        assert_int_equal(b.len, 5 + 1 + strlen(big) + 4);
        assert_true(b.cap > b.len);
        assert_memory_equal(b.p + 6, big, strlen(big));
        assert_string_equal(b.p + 6 + strlen(big), "|42]");

        struct rep_sink s = rep_buf_sink(&b);
        assert_int_equal(s.write(s.ctx, "xyz", 3), ST_OK);
        assert_string_equal(b.p + b.len - 3, "xyz");

        b.oom = true; /* after an allocation failure: keeps its text, refuses more */
        size_t len = b.len;
        assert_int_equal(rep_buf_append(&b, "more", 4), ST_NO_MEM);
        assert_int_equal(rep_buf_printf(&b, "%d", 1), ST_NO_MEM);
        assert_int_equal(b.len, len);
        rep_buf_free(&b);
        assert_false(b.oom);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_verdict_lines, setup, teardown),
                cmocka_unit_test_setup_teardown(test_formatting_and_return, setup, teardown),
                cmocka_unit_test_setup_teardown(test_prefix_depth, setup, teardown),
                cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
                cmocka_unit_test_setup_teardown(test_err, setup, teardown),
                cmocka_unit_test_setup_teardown(test_long_lines, setup, teardown),
                cmocka_unit_test_setup_teardown(test_sinks, setup, teardown),
                cmocka_unit_test_setup_teardown(test_skip_collapse, setup, teardown),
                cmocka_unit_test_setup_teardown(test_checks_line, setup, teardown),
                cmocka_unit_test(test_buf),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
