/* The results folder (app/results.c) on the fake platform's volume: a full or write-protected
 * volume, a write or read-back that fails half-way, run names that are all taken,
 * \pmucal\results that is a file; and pmucal.cfg that is a folder or too large. In every
 * case the console report comes first and in full, one line says what happened to the
 * results, and nothing half-written stays on the volume. Runs use profile = pmu (no MSRs
 * here, so it ends quickly). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/config.h"
#include "app/run.h"
#include "boot/plat.h"
#include "tests/fake_plat.h"
#include "tests/test_util.h"

#define RESULTS "pmucal/results"
#define BASE    RESULTS "/20261123-081500"
#define RUN1    BASE "-01"
#define PMU_CFG "profile = pmu\n"

/* An empty volume and one processor. */
static void reset_plat(void)
{
        static const struct plat_cpu bsp = { .apic_id = 0, .enabled = true, .is_bsp = true };

        fake_plat_reset();
        fake_plat_set_cpus(&bsp, 1);
}

static int setup(void **state)
{
        (void)state;
        reset_plat();
        assert_int_equal(fake_plat_put_file(CONFIG_PATH, PMU_CFG, strlen(PMU_CFG)), ST_OK);
        return 0;
}

static int run(void)
{
        struct pmucal_outcome out;
        int                   code = pmucal_main(&out);

        assert_int_equal(code, out.exit_code);
        return code;
}

/* The report is complete (the summary came before), exactly one RESULTS line closes it. */
static void want_not_saved(const char *why)
{
        const char *con = fake_plat_console();
        const char *sum = strstr(con, "SUMMARY: ");

        assert_non_null(sum);
        if (strncmp(last_line(con), why, strlen(why))) {
                fprintf(stderr, "%s\n", con);
                fail_msg("last line is \"%s\", not \"%s...\"", last_line(con), why);
        }
        want_not(con, "RESULTS: saved");
        assert_null(strstr(strstr(con, "RESULTS NOT SAVED") + 1, "RESULTS NOT SAVED"));
}

static unsigned long long needed_bytes(const char *con)
{
        const char        *p = strstr(con, "bytes free, ");
        unsigned long long n = 0;

        assert_non_null(p);
        assert_int_equal(sscanf(p, "bytes free, %llu needed", &n), 1);
        return n;
}

/* Free space below what the run needs: nothing is created, the line says how much is free
 * and needed. With exactly that much free, the run is saved. */
static void test_full_volume(void **state)
{
        static const uint64_t frees[] = { 0, 4096, 3 * 4096 };

        for (size_t i = 0; i < sizeof(frees) / sizeof(frees[0]); i++) {
                setup(state);
                fake_plat_set_volume(frees[i], 4096, false);
                unsigned before = fake_plat_count_under("pmucal");
                assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
                char want_line[96];
                snprintf(want_line, sizeof(want_line),
                         "RESULTS NOT SAVED: volume is full (%llu bytes free, ",
                         (unsigned long long)frees[i]);
                want_not_saved(want_line);
                want_not(fake_plat_console(), "ERROR: writing");
                assert_int_equal(fake_plat_count_under("pmucal"), before);
        }

        unsigned long long need = needed_bytes(fake_plat_console());
        setup(state);
        fake_plat_set_volume(need - 1, 4096, false);
        assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
        want_not_saved("RESULTS NOT SAVED: volume is full");
        setup(state);
        fake_plat_set_volume(need, 4096, false);
        assert_int_equal(run(), PMUCAL_EXIT_OK);
        assert_non_null(strstr(last_line(fake_plat_console()), "RESULTS: saved to"));
        assert_non_null(fake_plat_get_file(RUN1 "/report.txt", NULL));
}

static void test_write_protected(void **state)
{
        fake_plat_set_volume(1 << 30, 4096, true);
        assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
        want_not_saved("RESULTS NOT SAVED: volume is write-protected.");
        want_not(fake_plat_console(), "ERROR: writing");
        (void)state;
}

/* A write that fails after some files (the free-space figure was wrong, a medium error), or
 * the read-back that finds a file short: what was written is removed again and one line says
 * so, never "saved" and "not saved" both. */
static void test_partial_save_removed(void **state)
{
        static const struct {
                unsigned    ok_writes;   /* writes that succeed before the failure */
                const char *short_read;  /* or: reading back this file comes up short */
                const char *line;
        } cases[] = {
                { 0, NULL, "RESULTS NOT SAVED: volume is full (writing inventory.json); "
                           "nothing was left on the volume." },
                { 1, NULL, "RESULTS NOT SAVED: volume is full (writing cpuid.txt)" },
                { 99, NULL, "RESULTS NOT SAVED: volume is full (writing report.txt)" },
                { 0, "/cpuid.txt", "RESULTS NOT SAVED: the folder did not read back right: "
                                   "cpuid.txt reads back " },
                { 0, "/report.txt", "RESULTS NOT SAVED: the folder did not read back right: "
                                    "report.txt reads back " },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                setup(state);
                if (cases[i].short_read) {
                        fake_plat_short_reads(cases[i].short_read);
                } else if (cases[i].ok_writes == 99) {
                        /* every result file, then report.txt fails: count them first */
                        assert_int_equal(run(), PMUCAL_EXIT_OK);
                        unsigned n = fake_plat_count_under(RUN1) - 2; /* folder, report */
                        setup(state);
                        fake_plat_fail_writes_after(n, ST_NO_SPACE);
                } else if (cases[i].ok_writes) {
                        fake_plat_fail_writes_after(cases[i].ok_writes, ST_NO_SPACE);
                } else {
                        fake_plat_fail_writes(ST_NO_SPACE);
                }
                assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
                want_not_saved(cases[i].line);
                want(last_line(fake_plat_console()), "nothing was left on the volume");
                assert_int_equal(fake_plat_count_under(RUN1), 0);
                assert_int_equal(fake_plat_count_under(RESULTS), 0);
        }
}

/* The parents the run made are removed with the run's folder; folders that were there stay. */
static void test_partial_save_keeps_existing(void **state)
{
        assert_int_equal(fake_plat_put_dir(RESULTS "/older-run"), ST_OK);
        fake_plat_fail_writes_after(2, ST_IO);
        assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
        want_not_saved("RESULTS NOT SAVED: I/O error (writing ");
        assert_int_equal(fake_plat_count_under(RUN1), 0);
        assert_int_equal(fake_plat_count_under(RESULTS), 2);
        (void)state;
}

/* -01 .. -99 exist (99 runs in one second, or a board without a clock): the run takes -100
 * and leaves the others alone. */
static void test_name_past_99(void **state)
{
        char path[96];

        for (unsigned i = 1; i <= 99; i++) {
                snprintf(path, sizeof(path), BASE "-%02u/report.txt", i);
                assert_int_equal(fake_plat_put_file(path, "old", 3), ST_OK);
        }
        assert_int_equal(run(), PMUCAL_EXIT_OK);
        want(last_line(fake_plat_console()), "RESULTS: saved to \\pmucal\\results\\20261123-081500-100\\");
        assert_non_null(fake_plat_get_file(BASE "-100/report.txt", NULL));
        assert_string_equal(fake_plat_get_file(BASE "-99/report.txt", NULL), "old");
        assert_int_equal(fake_plat_count_under(BASE "-99"), 2);
        (void)state;
}

/* Every name taken: refuse, say so, touch nothing. */
static void test_every_name_taken(void **state)
{
        char path[96];

        for (unsigned i = 1; i <= RUN_NAME_MAX; i++) {
                snprintf(path, sizeof(path), BASE "-%02u", i);
                assert_int_equal(fake_plat_put_dir(path), ST_OK);
        }
        unsigned before = fake_plat_count_under(RESULTS);
        assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
        want_not_saved("RESULTS NOT SAVED: every run name from \\pmucal\\results\\20261123-081500-01 "
                       "to -9999 is taken");
        assert_int_equal(fake_plat_count_under(RESULTS), before);
        want(fake_plat_console(), "WARN: run: every name from 20261123-081500-01 to -9999 is "
                                  "taken in \\pmucal\\results\\: the results will not be saved");
        (void)state;
}

static void test_results_is_a_file(void **state)
{
        static const struct {
                const char *file, *line;
        } cases[] = {
                { RESULTS, "RESULTS NOT SAVED: \\pmucal\\results is a file, not a folder." },
                { "pmucal", "RESULTS NOT SAVED: \\pmucal is a file, not a folder." },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                reset_plat();
                assert_int_equal(fake_plat_put_file(cases[i].file, "x", 1), ST_OK);
                assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
                want_not_saved(cases[i].line);
                assert_string_equal(fake_plat_get_file(cases[i].file, NULL), "x");
        }
        (void)state;
}

static void test_config_is_a_folder(void **state)
{
        reset_plat();
        assert_int_equal(fake_plat_put_file(CONFIG_PATH "/colour = blue", "x", 1), ST_OK);
        assert_int_equal(run(), PMUCAL_EXIT_OK);
        const char *con = fake_plat_console();
        want(con, "WARN: config: pmucal/pmucal.cfg is a folder, not a file: using the defaults");
        want_not(con, "WARN: config: pmucal/pmucal.cfg:");
        want(con, "profile       = quick");
        (void)state;
}

/* A damaged file system (the firmware's FAT driver says corrupted, ST_BAD_DATA): the
 * RESULTS line says so and what to do, not "malformed data". */
static void test_damaged_volume(void **state)
{
        reset_plat();
        fake_plat_fail_writes(ST_BAD_DATA);
        assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
        const char *con = fake_plat_console();
        want(con, "RESULTS NOT SAVED: the volume's file system is damaged (the firmware reports "
                  "it corrupted); check and repair it with fsck.vfat or chkdsk (writing ");
        want_not(con, "RESULTS NOT SAVED: malformed data");
        (void)state;
}

/* A config on another volume (a second ESP) when the boot volume has none: named. */
static void test_config_on_another_volume(void **state)
{
        reset_plat();
        fake_plat_set_elsewhere(CONFIG_PATH, "PciRoot(0x0)/Pci(0x4,0x0)/HD(1,GPT,x)");
        assert_int_equal(run(), PMUCAL_EXIT_OK);
        const char *con = fake_plat_console();
        want(con, "INFO: config: no pmucal/pmucal.cfg on the boot volume: defaults\n"
                  "WARN: config: another volume holds pmucal/pmucal.cfg "
                  "(PciRoot(0x0)/Pci(0x4,0x0)/HD(1,GPT,x)); only the boot volume's would be "
                  "read: copy it to the boot volume or boot from that one");

        /* The boot volume's own config is read; the other volume is not looked at. */
        reset_plat();
        fake_plat_set_elsewhere(CONFIG_PATH, "second");
        assert_int_equal(fake_plat_put_file(CONFIG_PATH, "profile = quick\n", 16), ST_OK);
        assert_int_equal(run(), PMUCAL_EXIT_OK);
        want_not(fake_plat_console(), "another volume");
        (void)state;
}

/* Over the limit: said first, with both sizes, and nothing of the file applies. */
static void test_config_too_large(void **state)
{
        size_t n    = CONFIG_MAX_BYTES + 100;
        char  *text = malloc(n);

        memset(text, '#', n);
        memcpy(text, "colour = blue\nprofile = pmu\n", 28);
        reset_plat();
        assert_int_equal(fake_plat_put_file(CONFIG_PATH, text, n), ST_OK);
        free(text);
        assert_int_equal(run(), PMUCAL_EXIT_OK);
        const char *con  = fake_plat_console();
        const char *cfg1 = strstr(con, "config: ");
        char        line[160];
        snprintf(line, sizeof(line), "WARN: config: pmucal/pmucal.cfg: file too large (%zu bytes, "
                 "limit %u)", n, (unsigned)CONFIG_MAX_BYTES);
        want(con, line);
        assert_ptr_equal(cfg1, strstr(con, line) + strlen("WARN: "));
        want_not(con, "unknown key");
        want(con, "profile       = quick");
        (void)state;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup(test_full_volume, setup),
                cmocka_unit_test_setup(test_write_protected, setup),
                cmocka_unit_test_setup(test_partial_save_removed, setup),
                cmocka_unit_test_setup(test_partial_save_keeps_existing, setup),
                cmocka_unit_test_setup(test_name_past_99, setup),
                cmocka_unit_test_setup(test_every_name_taken, setup),
                cmocka_unit_test_setup(test_results_is_a_file, setup),
                cmocka_unit_test_setup(test_config_is_a_folder, setup),
                cmocka_unit_test_setup(test_config_on_another_volume, setup),
                cmocka_unit_test_setup(test_damaged_volume, setup),
                cmocka_unit_test_setup(test_config_too_large, setup),
        };
        int rc = cmocka_run_group_tests(tests, NULL, NULL);

        fake_plat_reset();
        return rc;
}
