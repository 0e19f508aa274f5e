/* The NUMA phase on node descriptions that are legal and odd, end to end on the test
 * platform: three processors (QEMU's 3-node MADT, APIC IDs 0-2) and an SRAT (and SLIT) built
 * per case. A node with processors and no memory, SRAT memory beyond the real RAM, memory
 * ranges two domains both claim, hot-pluggable ranges, more domains than the matrix covers and
 * a SLIT saying "unreachable" between measured nodes (and an MADT with a stray byte after
 * its last entry): each is said in words, the run exits 0, and nothing becomes an ERROR or a
 * FAIL. The CPU is taken as emulated (app_cpus_emulated wrapped at link time, see
 * tests/unittests.cfg), which keeps the buffers at 8 MiB whatever this host's caches are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/run.h"
#include "boot/acpi.h"
#include "boot/plat.h"
#include "tests/acpi_fixture.h"
#include "tests/fake_plat.h"
#include "tests/test_util.h"

#define G (1ull << 30)

bool __wrap_app_cpus_emulated(const struct run *r);
bool __wrap_app_cpus_emulated(const struct run *r)
{
        (void)r;
        return true;
}

/* ---- tables ------------------------------------------------------------------------------ */

static uint8_t srat_t[8192], slit_t[1024];
static size_t  srat_n;
static void   *madt_t;

static void put(uint8_t *t, size_t *n, uint64_t v, unsigned bytes)
{
        acpi_fixture_put_le(t + *n, v, bytes);
        *n += bytes;
}

static void srat_start(void)
{
        memset(srat_t, 0, sizeof(srat_t));
        memcpy(srat_t, "SRAT", 4);
        srat_t[8] = 3;
        memcpy(srat_t + 10, "PMUCALTESTTABLE", 14);
        srat_n = 48;
}

/* Processor Local APIC Affinity, [ACPI-6.5] §5.2.16.1 */
static void srat_cpu(uint8_t apic, uint32_t pd)
{
        put(srat_t, &srat_n, 0, 1), put(srat_t, &srat_n, 16, 1);
        put(srat_t, &srat_n, pd & 0xff, 1), put(srat_t, &srat_n, apic, 1);
        put(srat_t, &srat_n, 1, 4), put(srat_t, &srat_n, 0, 1);
        put(srat_t, &srat_n, pd >> 8, 3), put(srat_t, &srat_n, 0, 4);
}

/* Memory Affinity, §5.2.16.2 */
static void srat_mem(uint32_t pd, uint64_t base, uint64_t len, uint32_t flags)
{
        put(srat_t, &srat_n, 1, 1), put(srat_t, &srat_n, 40, 1);
        put(srat_t, &srat_n, pd, 4), put(srat_t, &srat_n, 0, 2);
        put(srat_t, &srat_n, base, 8), put(srat_t, &srat_n, len, 8);
        put(srat_t, &srat_n, 0, 4), put(srat_t, &srat_n, flags, 4), put(srat_t, &srat_n, 0, 8);
}

static void srat_finish(void)
{
        acpi_fixture_put_le(srat_t + 4, srat_n, 4);
        acpi_fixture_checksum(srat_t, srat_n);
        fake_plat_add_acpi(srat_t);
}

/* A SLIT of @p n localities: 10 local, @p remote elsewhere, @p far from 0 to 1 and back. */
static void slit(unsigned n, uint8_t remote, uint8_t far)
{
        size_t len = 44 + (size_t)n * n;

        memset(slit_t, 0, sizeof(slit_t));
        memcpy(slit_t, "SLIT", 4);
        slit_t[8] = 1;
        memcpy(slit_t + 10, "PMUCALTESTTABLE", 14);
        acpi_fixture_put_le(slit_t + 36, n, 8);
        for (unsigned i = 0; i < n; i++)
                for (unsigned j = 0; j < n; j++)
                        slit_t[44 + i * n + j] = i == j ? 10 : (i + j == 1) ? far : remote;
        acpi_fixture_put_le(slit_t + 4, len, 4);
        acpi_fixture_checksum(slit_t, len);
        fake_plat_add_acpi(slit_t);
}

static int setup(void **state)
{
        static const struct plat_cpu three[3] = {
                { .apic_id = 0, .enabled = true, .is_bsp = true },
                { .apic_id = 1, .enabled = true },
                { .apic_id = 2, .enabled = true },
        };

        (void)state;
        fake_plat_reset();
        fake_plat_set_cpus(three, 3);
        free(madt_t);
        madt_t = test_load("acpi/qemu72-q35-3node-hmat-apic.dat", NULL);
        fake_plat_add_acpi(madt_t);
        srat_start();
        for (unsigned c = 0; c < 3; c++)
                srat_cpu((uint8_t)c, c);
        return 0;
}

/* The chases are real: the test platform's processors are threads of this host. A run whose
 * console says the host disturbed every window of a cell or loaded-latency point (the job's
 * own guard) is made again on the same tables, at most RUN_TRIES runs in all, and the re-runs
 * are counted; the lines are then expected exactly, from the last run's console. */
#define RUN_TRIES 3u

static unsigned n_reruns;

/* Run the program; the console of its run. Exit 0, no ERROR, no FAIL, in every run. */
static const char *run_clean(void)
{
        for (unsigned t = 1;; t++) {
                struct pmucal_outcome out;
                size_t                before = strlen(fake_plat_console());
                int                   code   = pmucal_main(&out);
                const char           *con    = fake_plat_console() + before;

                printf("%s", con);
                assert_int_equal(code, PMUCAL_EXIT_OK);
                want_not(con, "ERROR: ");
                want_not(con, "FAIL: ");
                want(con, "SUMMARY: ");
                unsigned left = test_numa_left_out(con, "INFO: numa: ");
                if (!left || t == RUN_TRIES)
                        return con;
                n_reruns++;
                print_message("numa phase: %u cell(s) or point(s) the host disturbed in every "
                              "window: run again (%u re-run(s) so far)\n", left, n_reruns);
        }
}

/* ---- cases ------------------------------------------------------------------------------- */

static void test_node_without_memory(void **state)
{
        (void)state;
        srat_mem(0, 1 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(1, 2 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_finish();
        const char *con = run_clean();

        want(con, "INFO: numa: node 2: SRAT gives proximity domain 2 no enabled memory: no "
                  "cells with memory on it");
        want(con, "PASS: numa: 6 of 6 cells measured");
        want(con, "INFO: numa: loaded latency: the processors of node 2 do not load: no buffer "
                  "on their node");
        want(con, "PASS: numa: loaded latency: 1 curve, 7 of 7 points measured");
}

static void test_memory_beyond_ram(void **state)
{
        (void)state;
        /* the test platform's RAM ends at 16 TiB; domain 2's range starts at 64 TiB */
        srat_mem(0, 1 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(1, 2 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(2, 64ull << 40, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_finish();
        const char *con = run_clean();

        want(con, "SKIP: numa: node 2: buffer of 8 MiB: no free block of 8192 KiB in proximity "
                  "domain 2's 1 range (1024 MiB; largest free block 0 KiB): the machine lacks "
                  "the memory there");
        want(con, "PASS: numa: 6 of 6 cells measured");
}

static void test_overlapping_ranges(void **state)
{
        (void)state;
        /* domain 0 = [1, 3) GiB, domain 1 = [2, 3) GiB: the second GiB is claimed twice */
        srat_mem(0, 1 * G, 2 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(1, 2 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(2, 4 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_finish();
        const char *con = run_clean();

        want(con, "WARN: numa: SRAT: 1024 MiB of proximity domain 0's memory ranges are also in "
                  "proximity domain 1's: which node those addresses are on is ambiguous");
        want(con, "INFO: numa: node 1: all of proximity domain 1's memory (1024 MiB) overlaps "
                  "proximity domain 0's ranges in SRAT");
        /* node 0's buffer lies in its unambiguous gibibyte */
        const char *at = strstr(con, "numa: node 0 (proximity domain 0): CPU 0 (APIC ID 0); "
                                     "buffer at 0x");
        assert_non_null(at);
        uint64_t phys = strtoull(strstr(at, "buffer at ") + 10, NULL, 16);
        assert_true(phys >= 1 * G && phys + (8u << 20) <= 2 * G);
        want(con, "PASS: numa: 6 of 6 cells measured");
}

static void test_hot_pluggable_range(void **state)
{
        (void)state;
        /* domain 0 has 1 GiB and a 1 TiB hot-plug window; domain 2 only a hot-plug window */
        srat_mem(0, 1 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(0, 1ull << 40, 1ull << 40,
                 ACPI_SRAT_MEM_ENABLED | ACPI_SRAT_MEM_HOT_PLUGGABLE);
        srat_mem(1, 2 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(2, 4ull << 40, 64 * G, ACPI_SRAT_MEM_ENABLED | ACPI_SRAT_MEM_NON_VOLATILE);
        srat_finish();
        const char *con = run_clean();

        want(con, "node 0: 1 GiB (+ 1 TiB hot-pluggable, not present)");
        want(con, "node 2: 0 B (+ 64 GiB non-volatile)");
        want(con, "INFO: numa: node 2: SRAT gives proximity domain 2 no memory present at boot "
                  "(65536 MiB hot-pluggable or non-volatile, left out)");
        want(con, "PASS: numa: 6 of 6 cells measured");
}

static void test_seventeen_nodes(void **state)
{
        (void)state;
        for (unsigned pd = 0; pd < 17; pd++)
                srat_mem(pd, (uint64_t)(pd + 1) * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_finish();
        const char *con = run_clean();

        want(con, "WARN: numa: SRAT names 17 proximity domains; the latency matrix covers 16 "
                  "nodes: domains 0 to 15 are measured, domain 16 left out");
        want(con, "INFO: numa: 16 nodes");
        /* 3 nodes with a processor x 16 with memory */
        want(con, "PASS: numa: 48 of 48 cells measured");
}

static void test_slit_unreachable(void **state)
{
        (void)state;
        srat_mem(0, 1 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(1, 2 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_mem(2, 3 * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_finish();
        slit(3, 20, 255);
        const char *con = run_clean();

        want(con, "WARN: numa: node 0 -> 1 (proximity domain 0 -> 1): SLIT says unreachable "
                  "(255), yet the memory was read at ");
        want(con, "WARN: numa: node 1 -> 0 (proximity domain 1 -> 0): SLIT says unreachable");
        size_t      len;
        const char *json = NULL;
        for (unsigned s = 1; s < 100 && !json; s++) {
                char path[96];
                snprintf(path, sizeof(path), "pmucal/results/20261123-081500-%02u/numa-matrix.json",
                         s);
                json = fake_plat_get_file(path, &len);
        }
        assert_non_null(json);
        want(json, "\"slit_unreachable\": true");
}

/* The MADT with one stray byte after its last entry, as some firmware leaves: the inventory
 * keeps the table (Linux ignores such a fragment too) and says so in a WARN. */
static void test_madt_trailing_fragment(void **state)
{
        static const struct plat_cpu three[3] = {
                { .apic_id = 0, .enabled = true, .is_bsp = true },
                { .apic_id = 1, .enabled = true },
                { .apic_id = 2, .enabled = true },
        };
        size_t len;

        (void)state;
        fake_plat_reset();
        fake_plat_set_cpus(three, 3);
        free(madt_t);
        madt_t = test_load("acpi/qemu72-q35-3node-hmat-apic.dat", &len);
        madt_t = realloc(madt_t, len + 1);
        ((uint8_t *)madt_t)[len] = 0;
        acpi_fixture_put_le((uint8_t *)madt_t + 4, len + 1, 4);
        acpi_fixture_checksum(madt_t, len + 1);
        fake_plat_add_acpi(madt_t);
        srat_start();
        for (unsigned c = 0; c < 3; c++)
                srat_cpu((uint8_t)c, c);
        for (unsigned pd = 0; pd < 3; pd++)
                srat_mem(pd, (uint64_t)(pd + 1) * G, 1 * G, ACPI_SRAT_MEM_ENABLED);
        srat_finish();
        const char *con = run_clean();
        char        line[128];

        snprintf(line, sizeof(line), "WARN: inventory: ACPI APIC at offset 0x%zx: APIC: 1 stray "
                                     "byte(s) after the last entry, ignored", len);
        want(con, line);
        want(con, "MADT        : 3 processors, 3 enabled");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup(test_node_without_memory, setup),
                cmocka_unit_test_setup(test_memory_beyond_ram, setup),
                cmocka_unit_test_setup(test_overlapping_ranges, setup),
                cmocka_unit_test_setup(test_hot_pluggable_range, setup),
                cmocka_unit_test_setup(test_seventeen_nodes, setup),
                cmocka_unit_test_setup(test_slit_unreachable, setup),
                cmocka_unit_test(test_madt_trailing_fragment),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
