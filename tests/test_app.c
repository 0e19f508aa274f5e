/* The whole program on the fake platform: results saved (and never overwritten), a
 * read-only or full volume still gives the full console report and exit status 3, a
 * malformed config or ACPI table is reported and skipped. MSRs fault (tests/fake_msr_none.c),
 * as they would for a CPU without them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/plat.h"
#include "boot/acpi.h"
#include "tests/fake_plat.h"
#include "tests/test_util.h"

#define RUN1 "pmucal/results/20261123-081500-01"
#define RUN2 "pmucal/results/20261123-081500-02"

static unsigned char *srat; /* the published SRAT, for the malformed-table case */

static int setup(void **state)
{
        (void)state;
        srat = test_platform_qemu_3node();
        return 0;
}

static int run(void)
{
        struct pmucal_outcome out;
        int                   code = pmucal_main(&out);
        assert_int_equal(code, out.exit_code);
        return code;
}

/* The NUMA phase's chases are real: the fake platform's processors are threads of this host,
 * and a cell or loaded-latency point whose every window the host disturbed (the job's own
 * guard: N and 2N runs that disagree, or the thread switched out) is left out and said so, as
 * on hardware. The exit status does not change, but the lines that count the cells and points
 * do. A run with such a line is made again on a fresh platform, at most RUN_TRIES runs in all,
 * and the re-runs are counted; the lines are then expected exactly. (A loaded-latency point
 * has one chase job, 11 windows wanted in at most 44; beside a loaded pool the seven points
 * took 300 windows, three in four dropped, a few short of leaving one out.) */
#define RUN_TRIES 3u

static unsigned n_reruns;

/* run() on the platform setup() made, with @p cfg as pmucal/pmucal.cfg (NULL: none), made again
 * on a fresh platform while the console says the host left NUMA cells or points out. */
static int run_counted(const char *cfg)
{
        for (unsigned t = 1;; t++) {
                if (cfg)
                        fake_plat_put_file("pmucal/pmucal.cfg", cfg, strlen(cfg));
                int      code = run();
                unsigned left = test_numa_left_out(fake_plat_console(), "INFO: numa: ");
                if (!left || t == RUN_TRIES)
                        return code;
                n_reruns++;
                print_message("app: %u NUMA cell(s) or point(s) the host disturbed in every "
                              "window: run again (%u re-run(s) so far)\n", left, n_reruns);
                setup(NULL);
        }
}

/* The CHECKS line against the verdict lines themselves: PASS and FAIL lines are decided here;
 * every SKIP line ("SKIP: pfx: N checks: why [kind]" counts N) carries its kind at its end,
 * and the line's kinds add up to the CHECKS line's. A SKIP without a kind fails. Returns the
 * SKIPs that need a hardware PMU. */
static unsigned checks_agree(const char *con)
{
        static const char *const tags[] = { " [needs a hardware PMU]", " [needs a feature]",
                                            " [environment]" };
        unsigned decided = 0, by[3] = { 0 }, d, h, f, o;
        const char *c;

        for (const char *ln = con; ln && *ln; ln = strchr(ln, '\n') ? strchr(ln, '\n') + 1 : NULL) {
                if (!strncmp(ln, "PASS: ", 6) || !strncmp(ln, "FAIL: ", 6)) {
                        decided++;
                } else if (!strncmp(ln, "SKIP: ", 6)) {
                        unsigned n = 1, kind = 3;
                        const char *e = strchr(ln, '\n'), *k = strstr(ln, " checks: ");
                        size_t len = e ? (size_t)(e - ln) : strlen(ln);
                        if (k && (!e || k < e)) {
                                const char *q = k;
                                while (q > ln && q[-1] >= '0' && q[-1] <= '9')
                                        q--;
                                n = (unsigned)strtoul(q, NULL, 10);
                        }
                        for (unsigned t = 0; t < 3; t++)
                                if (len >= strlen(tags[t]) &&
                                    !strncmp(ln + len - strlen(tags[t]), tags[t], strlen(tags[t])))
                                        kind = t;
                        if (kind == 3)
                                fail_msg("a SKIP without its kind: %.*s", (int)len, ln);
                        by[kind] += n;
                }
        }
        assert_non_null(c = strstr(con, "\nCHECKS: "));
        assert_int_equal(sscanf(c, "\nCHECKS: %u decided here (PASS/FAIL), %u need a hardware PMU "
                                "(SKIP), %u need a feature this machine lacks (SKIP), %u skipped "
                                "for the environment (SKIP)", &d, &h, &f, &o), 4);
        assert_int_equal(d, decided);
        assert_int_equal(h, by[0]);
        assert_int_equal(f, by[1]);
        assert_int_equal(o, by[2]);
        return h;
}

static void test_saves_results(void **state)
{
        size_t len;
        (void)state;
        assert_int_equal(run_counted(NULL), PMUCAL_EXIT_OK);
        const char *con = fake_plat_console();
        /* every processor of the fake platform took part and described itself */
        want(con, "INFO: cpus: 3 of 3 processors take part (cpus = all)");
        want(con, "PASS: cpus: 3 of 3 processors report the APIC ID MP services gives them");
        want(con, "PASS: cpus: 3 of 3 processors recovered their own deliberate faults");
        want(con, "PASS: cpus: 3 of 3 processors' own APIC IDs are enabled in the MADT");
        /* every pair of the three bounced a line both ways through the mailboxes */
        want(con, "PASS: c2c: 6 of 6 ordered pairs measured (hit, hitm, write, atomic, pingpong; "
                  "11 rounds each in 3 passes), 1 topology class");
        want(con, "c2c: HITM ");
        /* three nodes in the SRAT: a buffer on each, every cell measured from each node */
        want(con, "PASS: numa: 9 of 9 cells measured (3 nodes, p10/p50/p90 each; 0 left out as "
                  "disturbed)");
        want(con, "numa: DRAM-remote-1hop ");
        /* one CPU per node: only the every-node curve, and the bandwidth matrix */
        want(con, "PASS: numa: loaded latency: 1 curve, 7 of 7 points measured");
        want(con, "loaded: every node loaded, chase on APIC ID 0");
        want(con, "bandwidth: read GB/s");
        const char *nm = fake_plat_get_file(RUN1 "/numa-matrix.json", &len);
        assert_non_null(nm);
        want(nm, "\"schema\": \"pmucal.numa/1.3\"");
        want(nm, "\"level\": \"DRAM-remote-1hop\"");
        const char *c2c = fake_plat_get_file(RUN1 "/c2c.json", &len);
        assert_non_null(c2c);
        want(c2c, "\"schema\": \"pmucal.c2c/1.3\"");
        want(c2c, "\"owner_apic_id\": 2");
        want(con, "PASS: selftest: fault-recovery: rdmsr(0xdeadbeef) nonexistent MSR reported "
                  "unsupported (#GP recovered)");
        want(con, "PASS: inventory: consistency: MADT enabled processors (3) = MP services "
                  "enabled processors (3)");
        want(con, "SUMMARY: ");
        assert_true(checks_agree(con) > 0); /* the fake platform has no PMU */
        /* ... so every SKIP of the pmu and sampling phases gives that reason's kind, but the
         * PMI route's: the test platform has no interrupt route, a fact of the environment */
        for (const char *ln = con; ln && *ln; ln = strchr(ln, '\n') ? strchr(ln, '\n') + 1 : NULL) {
                const char *e = strchr(ln, '\n');
                size_t ll = e ? (size_t)(e - ln) : strlen(ln), t = strlen("[needs a hardware PMU]");

                if ((!strncmp(ln, "SKIP: pmu: ", 11) || !strncmp(ln, "SKIP: sampling: ", 16)) &&
                    strncmp(ln, "SKIP: pmu: sampling: pmi-route: ", 32) &&
                    (ll < t || strncmp(ln + ll - t, "[needs a hardware PMU]", t)))
                        fail_msg("without a PMU: %.*s", (int)ll, ln);
        }
        assert_non_null(strstr(last_line(con), "RESULTS: saved to \\pmucal\\results\\20261123-081500-01\\"));
        const char *inv = fake_plat_get_file(RUN1 "/inventory.json", &len);
        assert_non_null(inv);
        want(inv, "\"schema\": \"pmucal.inventory/1.4\"");
        const char *rep = fake_plat_get_file(RUN1 "/report.txt", &len);
        assert_non_null(rep);
        want(rep, "SUMMARY: ");
        want(rep, "RESULTS: saved to");
        assert_non_null(fake_plat_get_file(RUN1 "/cpuid.txt", NULL));
        assert_non_null(fake_plat_get_file(RUN1 "/acpi-SRAT.dat", NULL));

        /* A second run must not overwrite the first. */
        assert_int_equal(run(), PMUCAL_EXIT_OK);
        assert_non_null(fake_plat_get_file(RUN2 "/inventory.json", NULL));
        assert_non_null(fake_plat_get_file(RUN1 "/inventory.json", NULL));
}

static void test_unwritable_volume(void **state)
{
        static const struct {
                status_t    st;
                const char *text;
        } cases[] = {
                { ST_READ_ONLY, "RESULTS NOT SAVED: volume is write-protected" },
                { ST_NO_SPACE, "RESULTS NOT SAVED: volume is full" },
                { ST_IO, "RESULTS NOT SAVED: I/O error" },
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                setup(NULL);
                fake_plat_fail_writes(cases[i].st);
                assert_int_equal(run(), PMUCAL_EXIT_NOT_SAVED);
                const char *con = fake_plat_console();
                want(con, "CPU         :");         /* the full report is still there */
                want(con, "SUMMARY: ");
                want(con, "ERROR: writing pmucal/results/");
                assert_non_null(strstr(last_line(con), cases[i].text));
                assert_null(fake_plat_get_file(RUN1 "/report.txt", NULL));
        }
}

/* cpus = bsp: the BSP alone takes part, and the report says so. */
static void test_cpus_bsp(void **state)
{
        static const char cfg[] = "cpus = bsp\n";
        (void)state;
        assert_int_equal(run_counted(cfg), PMUCAL_EXIT_OK);
        const char *con = fake_plat_console();
        want(con, "INFO: cpus: 1 of 3 processors take part (cpus = bsp): phases that need two "
                  "CPUs will be skipped");
        want(con, "PASS: cpus: 1 of 1 processors report the APIC ID MP services gives them");
        want(con, "SKIP: c2c: cpus = bsp: a transfer needs two processors");
        /* the BSP's node only has a row: a column per node, 3 cells */
        want(con, "PASS: numa: 3 of 3 cells measured (3 nodes, p10/p50/p90 each; 0 left out as "
                  "disturbed)");
        want(con, "no processor taking part; buffer at");
        want(con, "SKIP: numa: loaded latency: cpus = bsp: the load needs other processors");
        assert_null(fake_plat_get_file(RUN1 "/c2c.json", NULL));
        size_t len;
        const char *json = fake_plat_get_file(RUN1 "/processors.json", &len);
        assert_non_null(json);
        assert_non_null(strstr(json, "\"chosen\": \"bsp\""));
        assert_non_null(strstr(json, "\"state\": \"not used\""));
}

static void test_malformed_config(void **state)
{
        static const char cfg[] = "repetitions = 21\n"
                                  "garbage line\n"
                                  "colour = blue\n"
                                  "on_exit = sideways\n"
                                  "debug_exit = off\n";
        struct pmucal_outcome out;
        (void)state;
        fake_plat_put_file("pmucal/pmucal.cfg", cfg, sizeof(cfg) - 1);
        assert_int_equal(pmucal_main(&out), PMUCAL_EXIT_OK);
        const char *con = fake_plat_console();
        want(con, "WARN: config: pmucal/pmucal.cfg:2: malformed");
        want(con, "WARN: config: pmucal/pmucal.cfg:3: unknown key");
        want(con, "WARN: config: pmucal/pmucal.cfg:4: bad value");
        /* the kind is said once */
        assert_null(strstr(con, "unknown key: unknown key"));
        assert_null(strstr(con, "bad value: bad value"));
        assert_null(strstr(con, "latency: latency:"));
        want(con, "repetitions   = 21");
        assert_int_equal(out.debug_exit, 0);
        assert_int_equal(out.leave, PMUCAL_LEAVE_RETURN); /* the bad value kept the default */
}

static void test_results_off_and_shutdown(void **state)
{
        static const char cfg[] = "results = off\non_exit = shutdown\n";
        struct pmucal_outcome out;
        (void)state;
        fake_plat_put_file("pmucal/pmucal.cfg", cfg, sizeof(cfg) - 1);
        assert_int_equal(pmucal_main(&out), PMUCAL_EXIT_OK);
        assert_int_equal(out.leave, PMUCAL_LEAVE_SHUTDOWN);
        assert_int_equal(out.debug_exit, -1);
        assert_null(fake_plat_get_file(RUN1 "/inventory.json", NULL));
        assert_non_null(strstr(last_line(fake_plat_console()), "RESULTS: not saved (results = off"));
}

/* A corrupted SRAT (checksum) is reported with where and why; the run goes on without it. */
static void test_malformed_acpi(void **state)
{
        (void)state;
        srat[40] ^= 0x5a;
        assert_int_equal(run(), PMUCAL_EXIT_OK);
        const char *con = fake_plat_console();
        want(con, "WARN: inventory: ACPI SRAT malformed at offset");
        want(con, "(table skipped)");
        want(con, "NUMA        : 1 node (SRAT malformed");
        want(con, "SKIP: inventory: consistency: SRAT vs processors: no usable SRAT");
        const char *inv = fake_plat_get_file(RUN1 "/inventory.json", NULL);
        want(inv, "\"state\": \"malformed\"");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup(test_saves_results, setup),
                cmocka_unit_test_setup(test_unwritable_volume, setup),
                cmocka_unit_test_setup(test_cpus_bsp, setup),
                cmocka_unit_test_setup(test_malformed_config, setup),
                cmocka_unit_test_setup(test_results_off_and_shutdown, setup),
                cmocka_unit_test_setup(test_malformed_acpi, setup),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
