/** @file Unit tests for boot/acpi_hmat.c: the iasl-compiled hmat-3node.aml fixture (values in
 *  the .asl comments) and corrupted variants of it. Run from the repository root, or set
 *  PMUCAL_TESTDATA to the tests/data directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/acpi.h"
#include "tests/acpi_fixture.h"

static struct acpi_hmat hmat;

#define HMAT_LOC0 (40 + 3 * 40) /* the first type 1 structure in hmat-3node.aml */

static void test_hmat_fixture(void **state)
{
        static const struct {
                enum acpi_hmat_data_type type;
                uint32_t init, targ;
                status_t st;
                uint8_t  state;
                uint64_t value;
        } cases[] = {
                { ACPI_HMAT_ACCESS_LATENCY, 0, 0, ST_OK, ACPI_HMAT_VALUE, 80000 },
                { ACPI_HMAT_ACCESS_LATENCY, 0, 1, ST_OK, ACPI_HMAT_VALUE, 135000 },
                { ACPI_HMAT_ACCESS_LATENCY, 1, 1, ST_OK, ACPI_HMAT_VALUE, 80000 },
                { ACPI_HMAT_ACCESS_LATENCY, 0, 2, ST_OK, ACPI_HMAT_NOT_PROVIDED, 0 },
                { ACPI_HMAT_ACCESS_LATENCY, 1, 2, ST_OK, ACPI_HMAT_UNREACHABLE, 0 },
                { ACPI_HMAT_ACCESS_BANDWIDTH, 0, 0, ST_OK, ACPI_HMAT_VALUE, 20000 },
                { ACPI_HMAT_ACCESS_BANDWIDTH, 1, 0, ST_OK, ACPI_HMAT_VALUE, 9000 },
                { ACPI_HMAT_ACCESS_BANDWIDTH, 1, 2, ST_OK, ACPI_HMAT_VALUE, 4000 },
                { ACPI_HMAT_READ_LATENCY, 0, 2, ST_NOT_FOUND, 0, 0 }, /* cache level only */
                { ACPI_HMAT_WRITE_BANDWIDTH, 0, 0, ST_NOT_FOUND, 0, 0 },
                { ACPI_HMAT_ACCESS_LATENCY, 2, 0, ST_NOT_FOUND, 0, 0 },
        };
        size_t len;
        uint8_t *t = acpi_fixture_load("hmat-3node.aml", &len);
        struct acpi_hmat_entry e;

        assert_int_equal(acpi_parse_hmat(t, len, &hmat, NULL), ST_OK);
        assert_int_equal(hmat.revision, 2);
        assert_int_equal(hmat.n_domains, 3);
        assert_true(hmat.domain[1].initiator_valid);
        assert_int_equal(hmat.domain[1].initiator_pd, 1);
        assert_int_equal(hmat.domain[1].memory_pd, 1);
        assert_false(hmat.domain[2].initiator_valid);
        assert_int_equal(hmat.n_localities, 3);
        assert_int_equal(hmat.n_entries, 6 + 6 + 2);
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                assert_int_equal(acpi_hmat_find(&hmat, cases[c].type, cases[c].init,
                                                cases[c].targ, &e), cases[c].st);
                if (cases[c].st != ST_OK)
                        continue;
                assert_int_equal(e.state, cases[c].state);
                assert_int_equal(e.value, cases[c].value);
        }
        /* The level-1 memory-side-cache read latencies, in table order. */
        assert_int_equal(hmat.entry[12].hierarchy, 1);
        assert_int_equal(hmat.entry[12].data_type, ACPI_HMAT_READ_LATENCY);
        assert_int_equal(hmat.entry[12].value, 95000);
        assert_int_equal(hmat.entry[13].initiator_pd, 1);
        assert_int_equal(hmat.entry[13].value, 90000);

        assert_int_equal(hmat.n_caches, 1);
        assert_int_equal(hmat.cache[0].memory_pd, 2);
        assert_int_equal(hmat.cache[0].size_bytes, 16ull << 30);
        assert_int_equal(hmat.cache[0].total_levels, 1);
        assert_int_equal(hmat.cache[0].level, 1);
        assert_int_equal(hmat.cache[0].associativity, 1);
        assert_int_equal(hmat.cache[0].write_policy, 1);
        assert_int_equal(hmat.cache[0].line_bytes, 64);
        assert_int_equal(hmat.cache[0].n_smbios_handles, 1);

        assert_int_equal(acpi_hmat_find(NULL, 0, 0, 0, &e), ST_BAD_ARG);
        assert_string_equal(acpi_hmat_type_name(ACPI_HMAT_WRITE_BANDWIDTH), "write bandwidth");
        assert_string_equal(acpi_hmat_type_name(6), "reserved");
        free(t);
}

static void test_hmat_bad(void **state)
{
        static const struct {
                const char *what;
                size_t      off;
                unsigned    bytes;
                uint64_t    val;
                status_t    want;
        } cases[] = {
                { "revision 0", 8, 1, 0, ST_UNSUPPORTED },
                { "first structure length 0", 44, 4, 0, ST_BAD_DATA },
                { "first structure length 7", 44, 4, 7, ST_BAD_DATA },
                { "first structure past the end", 44, 4, 0xfffffff0, ST_BAD_DATA },
                { "domain structure too short", 44, 4, 32, ST_BAD_DATA },
                { "initiators 2^32-1", HMAT_LOC0 + 12, 4, 0xffffffff, ST_BAD_DATA },
                { "initiators x targets wrap 32 bits", HMAT_LOC0 + 12, 8, 0x0001000000010000ull,
                  ST_BAD_DATA },
                { "one target too many", HMAT_LOC0 + 16, 4, 4, ST_BAD_DATA },
                { "entry x base unit overflows", HMAT_LOC0 + 24, 8, UINT64_MAX / 2, ST_BAD_DATA },
                { "base unit 0", HMAT_LOC0 + 24, 8, 0, ST_BAD_DATA },
                { "locality length below 32", HMAT_LOC0 + 4, 4, 31, ST_BAD_DATA },
                { "cache lists 2 handles", 370 - 34 + 30, 2, 2, ST_BAD_DATA },
                { "reserved data type", HMAT_LOC0 + 9, 1, 6, ST_OK },
                { "reserved structure type", 40, 2, 7, ST_OK },
        };
        size_t len;
        uint8_t *good = acpi_fixture_load("hmat-3node.aml", &len);
        uint8_t *t = malloc(len);

        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                struct acpi_diag d;

                memcpy(t, good, len);
                acpi_fixture_put_le(t + cases[c].off, cases[c].val, cases[c].bytes);
                acpi_fixture_checksum(t, len);
                print_message("  %s\n", cases[c].what);
                assert_int_equal(acpi_parse_hmat(t, len, &hmat, &d), cases[c].want);
                if (cases[c].want != ST_OK)
                        assert_true(acpi_fixture_all_zero(&hmat, sizeof(hmat)));
                else
                        assert_int_equal(hmat.n_other, 1);
        }
        free(t);
        free(good);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hmat_fixture),
                cmocka_unit_test(test_hmat_bad),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
