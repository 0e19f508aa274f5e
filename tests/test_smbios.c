/* Unit tests for boot/smbios.c: tests/data/smbios/synthetic-3.4.bin (written by
 * mk_synthetic.py, which documents each expected value), variants of it corrupted here, and
 * small tables built here. Run from the repository root, or set PMUCAL_TESTDATA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_util.h"
#include "boot/smbios.h"

static struct smbios_info info;

static uint8_t *load(const char *name, size_t *len)
{
        char rel[256];

        snprintf(rel, sizeof(rel), "%s/%s", "smbios", name);
        return test_load(rel, len);
}

/* Offset of structure @p idx, by a walk independent of the parser's. */
static size_t struct_off(const uint8_t *t, size_t len, unsigned idx)
{
        size_t off = 0;

        while (idx--) {
                off += t[off + 1];
                while (off + 1 < len && (t[off] || t[off + 1]))
                        off++;
                off += 2;
        }
        return off;
}

/* A small builder: structures appended to a buffer. */
static struct {
        uint8_t b[8192];
        size_t  n;
} tb;

static void tb_struct(uint8_t type, const uint8_t *body, size_t body_len, const char *strings,
                      size_t strings_len)
{
        tb.b[tb.n++] = type;
        tb.b[tb.n++] = (uint8_t)(4 + body_len);
        tb.b[tb.n] = (uint8_t)tb.n; /* handle: anything unique */
        tb.b[tb.n + 1] = 0;
        tb.n += 2;
        memcpy(tb.b + tb.n, body, body_len);
        tb.n += body_len;
        if (strings_len) {
                memcpy(tb.b + tb.n, strings, strings_len);
                tb.n += strings_len;
        } else {
                tb.b[tb.n++] = 0;
        }
        tb.b[tb.n++] = 0;
}

static void test_synthetic(void **state)
{
        size_t len;
        uint8_t *t = load("synthetic-3.4.bin", &len);
        struct smbios_diag d;

        assert_int_equal(smbios_parse(t, len, 3, 4, &info, &d), ST_OK);
        assert_string_equal(d.what, "");
        assert_int_equal(info.n_structs, 11);
        assert_true(info.saw_end);
        assert_true(info.has_bios && info.has_system && info.has_board);
        assert_string_equal(info.bios_vendor, "pmucal BIOS Inc.");
        assert_string_equal(info.bios_version, "1.2.3");
        assert_string_equal(info.bios_date, "11/23/2026");
        assert_string_equal(info.sys_manufacturer, "ACME");
        assert_string_equal(info.sys_product, "Test Machine"); /* trailing blanks trimmed */
        assert_string_equal(info.sys_version, "v1");
        assert_true(info.has_uuid);
        assert_string_equal(info.sys_uuid_str, "00112233-4455-6677-8899-aabbccddeeff");
        assert_string_equal(info.board_manufacturer, "ACME Boards");
        assert_string_equal(info.board_product, "MB-1");
        assert_string_equal(info.board_version, "Rev?A"); /* BEL replaced */

        assert_int_equal(info.n_cpus, 2);
        assert_string_equal(info.cpu[0].socket, "CPU0");
        assert_string_equal(info.cpu[0].manufacturer, "GenuineTest");
        assert_string_equal(info.cpu[0].version, "Test CPU @ 3.0GHz");
        assert_int_equal(info.cpu[0].max_speed_mhz, 4000);
        assert_int_equal(info.cpu[0].cur_speed_mhz, 3000);
        assert_int_equal(info.cpu[0].n_cores, 300);
        assert_int_equal(info.cpu[0].n_cores_enabled, 288);
        assert_int_equal(info.cpu[0].n_threads, 600);
        assert_true(info.cpu[0].populated);
        assert_string_equal(info.cpu[1].socket, "CPU1");
        assert_string_equal(info.cpu[1].manufacturer, "");
        assert_false(info.cpu[1].populated);
        assert_int_equal(info.cpu[1].n_cores, 0);

        /* Five devices (the one after End-of-Table is not walked): one empty, one of
         * unknown size, 16 GiB + 64 GiB (Extended Size) + 512 KiB (KiB granularity). */
        assert_int_equal(info.n_mem_devices, 5);
        assert_int_equal(info.n_mem_populated, 4);
        assert_int_equal(info.n_mem_unknown_size, 1);
        assert_int_equal(info.mem_total_bytes, (16ull << 30) + (64ull << 30) + (512ull << 10));

        /* Pre-2.6 tables store the UUID in wire order. */
        assert_int_equal(smbios_parse(t, len, 2, 5, &info, NULL), ST_OK);
        assert_string_equal(info.sys_uuid_str, "33221100-5544-7766-8899-aabbccddeeff");
        /* All 00 and all FF mean "not set" / "not present". */
        size_t uuid_off = struct_off(t, len, 1) + 8;
        for (int fill = 0; fill <= 0xff; fill += 0xff) {
                memset(t + uuid_off, fill, 16);
                assert_int_equal(smbios_parse(t, len, 3, 4, &info, NULL), ST_OK);
                assert_false(info.has_uuid);
                assert_string_equal(info.sys_uuid_str, "");
        }
        free(t);
}

static void test_null_and_empty(void **state)
{
        uint8_t one = 0;
        struct smbios_diag d;

        assert_int_equal(smbios_parse(NULL, 10, 3, 0, &info, &d), ST_BAD_ARG);
        assert_int_equal(smbios_parse(&one, 1, 3, 0, NULL, &d), ST_BAD_ARG);
        assert_int_equal(smbios_parse(&one, 0, 3, 0, &info, &d), ST_OK);
        assert_int_equal(info.n_structs, 0);
        assert_false(info.saw_end);
        assert_int_equal(info.major, 3);
}

/* Malformed structures stop the walk and keep what came before. */
static void test_malformed(void **state)
{
        enum { CUT, POKE };
        static const struct {
                const char *what;
                int         kind;
                unsigned    idx;      /* structure the damage is in */
                size_t      at;       /* CUT: keep idx's offset + at bytes; POKE: byte at */
                uint8_t     val;
                unsigned    n_structs;
        } cases[] = {
                { "cut in the header", CUT, 3, 2, 0, 3 },
                { "cut in the formatted area", CUT, 3, 10, 0, 3 },
                { "cut in the strings", CUT, 3, 0x32, 0, 3 },
                { "cut between the two NULs", CUT, 2, 0x0f + 23, 0, 2 },
                { "length 0", POKE, 0, 1, 0, 0 },
                { "length 3", POKE, 4, 1, 3, 4 },
                { "length past the end", POKE, 9, 1, 0xff, 9 },
        };
        size_t len;
        uint8_t *good = load("synthetic-3.4.bin", &len);
        uint8_t *t = malloc(len);

        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                size_t off = struct_off(good, len, cases[c].idx), n = len;
                struct smbios_diag d;

                memcpy(t, good, len);
                if (cases[c].kind == CUT) {
                        n = off + cases[c].at;
                } else {
                        /* Up to (not including) End-of-Table, so that "past the end" is. */
                        t[off + cases[c].at] = cases[c].val;
                        n = struct_off(good, len, 10);
                }
                print_message("  %s\n", cases[c].what);
                assert_true(n < len);
                assert_int_equal(smbios_parse(t, n, 3, 4, &info, &d), ST_BAD_DATA);
                assert_int_equal(d.offset, off);
                assert_memory_equal(d.what, "SMBIOS:", 7);
                assert_int_equal(info.n_structs, cases[c].n_structs);
                assert_false(info.saw_end);
                assert_int_equal(info.has_bios, cases[c].n_structs > 0);
                assert_int_equal(info.has_board, cases[c].n_structs > 2);
        }
        /* Without End-of-Table the walk ends cleanly at the buffer's end... */
        size_t n10 = struct_off(good, len, 10);
        assert_int_equal(smbios_parse(good, n10, 3, 4, &info, NULL), ST_OK);
        assert_int_equal(info.n_structs, 10);
        assert_false(info.saw_end);
        /* ...and every shorter prefix is either clean or BAD_DATA, never more structures. */
        for (size_t n = 0; n < len; n++) {
                status_t st = smbios_parse(good, n, 3, 4, &info, NULL);

                assert_true(st == ST_OK || st == ST_BAD_DATA);
                assert_true(info.n_structs <= 11);
        }
        free(t);
        free(good);
}

/* Strings: index 0 / past the set, truncation, non-printables; old, short layouts. */
static void test_strings_and_layouts(void **state)
{
        static const char strings[] = "first\0\x01\x7f\x80x\0"
                "0123456789012345678901234567890123456789012345678901234567890123456789\0";
        uint8_t t1[0x15] = { 1, 2, 9, 0 };     /* type 1 (2.0 length 8 + a bit): idx 1, 2, 9, 0 */
        uint8_t t4_old[0x16] = { 0 };          /* type 4 of SMBIOS 2.0: length 0x1A */
        uint8_t t4_25[0x24] = { 0 };           /* 2.5 length 0x28: no count-2 fields */
        uint8_t t17_short[0x11] = { 0 };       /* 0x7FFF but no Extended Size field */
        struct smbios_diag d;

        memset(&tb, 0, sizeof(tb));
        tb_struct(1, t1, 4, strings, sizeof(strings) - 1);
        t4_old[0x14 - 4] = 0xa0, t4_old[0x15 - 4] = 0x0f;          /* max 4000 MHz */
        tb_struct(4, t4_old, sizeof(t4_old), NULL, 0);
        t4_25[0x23 - 4] = 0xff, t4_25[0x24 - 4] = 8, t4_25[0x25 - 4] = 16;
        tb_struct(4, t4_25, sizeof(t4_25), NULL, 0);
        t17_short[0x0c - 4] = 0xff, t17_short[0x0d - 4] = 0x7f;
        tb_struct(17, t17_short, sizeof(t17_short), NULL, 0);
        for (unsigned i = 0; i < SMBIOS_MAX_CPUS; i++)
                tb_struct(4, t4_old, sizeof(t4_old), NULL, 0);

        assert_int_equal(smbios_parse(tb.b, tb.n, 2, 0, &info, &d), ST_OK);
        assert_string_equal(info.sys_manufacturer, "first");
        assert_string_equal(info.sys_product, "???x");
        assert_string_equal(info.sys_version, ""); /* index 9 of 3 */
        assert_false(info.has_uuid);              /* structure too short for it */

        assert_int_equal(info.n_cpus, SMBIOS_MAX_CPUS);
        assert_int_equal(info.n_cpus_dropped, 2);
        assert_int_equal(info.cpu[0].max_speed_mhz, 4000);
        assert_int_equal(info.cpu[0].n_cores, 0);
        assert_int_equal(info.cpu[1].n_cores, 255); /* 0xFF, no Core Count 2 to consult */
        assert_int_equal(info.cpu[1].n_cores_enabled, 8);
        assert_int_equal(info.cpu[1].n_threads, 16);
        assert_int_equal(info.mem_total_bytes, 0x7fffull << 20);

        /* A 70-character string is cut to SMBIOS_STR_LEN - 1. */
        t1[0] = 3;
        memset(&tb, 0, sizeof(tb));
        tb_struct(1, t1, 4, strings, sizeof(strings) - 1);
        assert_int_equal(smbios_parse(tb.b, tb.n, 2, 0, &info, NULL), ST_OK);
        assert_int_equal(strlen(info.sys_manufacturer), SMBIOS_STR_LEN - 1);
        assert_memory_equal(info.sys_manufacturer, "0123456789", 10);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_synthetic),
                cmocka_unit_test(test_null_and_empty),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_strings_and_layouts),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
