/** @file Unit tests for boot/acpi.c and boot/acpi_hmat.c on real firmware tables
 * (tests/data/acpi/linuxhw/, README.md there names the machines and the source): every
 * table decodes to what ACPICA's disassembler says (the .expect files, written from `iasl -d`
 * by tools/acpi-iasl-expect.py), and the meaning the machines show: MADT placeholders are not
 * processors, an x2APIC entry duplicating an xAPIC one is one processor, the Online Capable
 * bit exists from MADT revision 5, a trailing fragment shorter than an entry header is
 * ignored (as Linux ignores it), hot-pluggable and non-volatile SRAT ranges are not node
 * memory, and a revision-1 HMAT reads as Linux reads it. Where a case needs bytes no machine
 * of the corpus has, the real table is extended by the entries the case names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/acpi.h"
#include "tests/acpi_canon.h"
#include "tests/acpi_fixture.h"
#include "tests/test_util.h"

static struct acpi_madt madt;
static struct acpi_srat srat;
static struct acpi_hmat hmat;
static char             got[1 << 16];

/* A real table with room for entries a case appends (append(), then seal()). */
struct grown {
        uint8_t *t;
        size_t   len;
};

static struct grown load(const char *name, size_t room)
{
        struct grown g;
        uint8_t     *t = acpi_fixture_load(name, &g.len);

        g.t = realloc(t, g.len + room);
        assert_non_null(g.t);
        return g;
}

static void append(struct grown *g, const uint8_t *e, size_t n)
{
        memcpy(g->t + g->len, e, n);
        g->len += n;
}

static uint8_t *seal(struct grown *g)
{
        acpi_fixture_put_le(g->t + 4, g->len, 4);
        acpi_fixture_checksum(g->t, g->len);
        return g->t;
}

/* ---- every table as iasl decodes it ------------------------------------------------------ */

static void test_corpus_matches_iasl(void **state)
{
        static const char *const names[] = {
                "asus-rog-strix-x670e-f-apic", "dell-poweredge-r820-apic",
                "dell-poweredge-r820-slit",    "dell-poweredge-r820-srat",
                "evga-x299-micro-apic",        "evga-x299-micro-slit",
                "evga-x299-micro-srat",        "gigabyte-x299-ud4-pro-apic",
                "hp-proliant-dl165-g7-slit",   "hp-proliant-dl165-g7-srat",
                "hp-proliant-dl360-g7-apic",   "hp-proliant-dl360-g7-srat",
                "supermicro-h8dgu-slit",       "supermicro-h8dgu-srat",
                "supermicro-h8qg6-apic",       "supermicro-h8qg6-slit",
                "supermicro-h8qg6-srat",       "supermicro-x10dai-slit",
                "supermicro-x10dai-srat",
        };
        unsigned n_lines = 0;

        (void)state;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                char    path[128];
                size_t  len, elen;
                uint8_t *t;
                char    *want;

                snprintf(path, sizeof(path), "linuxhw/%s.dat", names[i]);
                t = acpi_fixture_load(path, &len);
                snprintf(path, sizeof(path), "acpi/linuxhw/%s.expect", names[i]);
                want = test_load(path, &elen);
                want = realloc(want, elen + 1);
                want[elen] = '\0';
                assert_int_equal(acpi_canon(t, len, got, sizeof(got)), ST_OK);
                /* report the first line that differs, not two walls of text */
                const char *a = want, *b = got;
                while (*a && *b) {
                        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
                        if (la != lb || memcmp(a, b, la))
                                fail_msg("%s: iasl says \"%.*s\", pmucal \"%.*s\"", names[i],
                                         (int)la, a, (int)lb, b);
                        a += la + (a[la] == '\n');
                        b += lb + (b[lb] == '\n');
                        n_lines++;
                }
                if (*a || *b)
                        fail_msg("%s: iasl has %s lines than pmucal (\"%.40s\")", names[i],
                                 *a ? "more" : "fewer", *a ? a : b);
                free(want);
                free(t);
        }
        print_message("  %u lines agree with iasl\n", n_lines);
        assert_true(n_lines > 900);
}

/* ---- MADT -------------------------------------------------------------------------------- */

static void test_madt_placeholders(void **state)
{
        /* From iasl -d of each table: processor entries (types 0 and 9), how many have
         * Processor Enabled = 1, and the revision. */
        static const struct {
                const char *file;
                uint32_t    entries, enabled, processors;
        } cases[] = {
                /* 56 xAPIC (20 enabled, 36 with ID 0xFF) + 56 x2APIC with ID 0xFFFFFFFF */
                { "linuxhw/evga-x299-micro-apic.dat", 112, 20, 20 },
                { "linuxhw/gigabyte-x299-ud4-pro-apic.dat", 112, 12, 12 },
                /* revision 5: 24 enabled, 8 valid IDs with flags 0 */
                { "linuxhw/asus-rog-strix-x670e-f-apic.dat", 32, 24, 24 },
                /* revision 1: 80 enabled, 16 disabled with valid IDs (Online Capable does not
                 * exist before revision 5) */
                { "linuxhw/dell-poweredge-r820-apic.dat", 96, 80, 80 },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                size_t   len;
                uint8_t *t = acpi_fixture_load(cases[i].file, &len);

                print_message("  %s\n", cases[i].file);
                assert_int_equal(acpi_parse_madt(t, len, &madt, NULL), ST_OK);
                assert_int_equal(madt.n_entries, cases[i].entries);
                assert_int_equal(madt.n_cpus, cases[i].processors);
                assert_int_equal(madt.n_enabled, cases[i].enabled);
                assert_int_equal(madt.n_placeholders, cases[i].entries - cases[i].processors);
                for (uint32_t c = 0; c < madt.n_cpus; c++)
                        assert_true(madt.cpu[c].apic_id != 0xff &&
                                    madt.cpu[c].apic_id != 0xffffffffu);
                free(t);
        }
}

/* A Local x2APIC structure, [ACPI-6.5] §5.2.12.12. */
static void x2apic(uint8_t e[16], uint32_t id, uint32_t flags, uint32_t uid)
{
        memset(e, 0, 16);
        e[0] = 9, e[1] = 16;
        acpi_fixture_put_le(e + 4, id, 4);
        acpi_fixture_put_le(e + 8, flags, 4);
        acpi_fixture_put_le(e + 12, uid, 4);
}

static void test_madt_x2apic_duplicates(void **state)
{
        /* The R820's 80 processors, each repeated as an x2APIC entry with the same ID (as
         * firmware that lists both does), and one processor above 0xFF that only an x2APIC
         * entry can give. */
        struct grown g = load("linuxhw/dell-poweredge-r820-apic.dat", 82 * 16);
        struct acpi_madt *m = malloc(sizeof(*m));
        uint8_t e[16];

        (void)state;
        assert_non_null(m);
        assert_int_equal(acpi_parse_madt(g.t, g.len, m, NULL), ST_OK);
        assert_int_equal(m->n_cpus, 80);
        for (uint32_t c = 0; c < 80; c++) {
                x2apic(e, m->cpu[c].apic_id, 1, m->cpu[c].acpi_uid);
                append(&g, e, 16);
        }
        x2apic(e, 0x100, 1, 0x100);
        append(&g, e, 16);
        assert_int_equal(acpi_parse_madt(seal(&g), g.len, &madt, NULL), ST_OK);
        assert_int_equal(madt.n_entries, 96 + 80 + 1);
        assert_int_equal(madt.n_x2apic_dup, 80);
        assert_int_equal(madt.n_cpus, 81);
        assert_int_equal(madt.n_enabled, 81);
        assert_int_equal(madt.cpu[80].apic_id, 0x100);
        assert_true(madt.cpu[80].x2apic);
        free(m);
        free(g.t);
}

static void test_madt_x2apic_invalid_enabled(void **state)
{
        /* The EVGA X299's first x2APIC placeholder (ID 0xFFFFFFFF, offset 0x392 in iasl -d)
         * marked enabled: still not a processor, and said so. */
        struct grown     g = load("linuxhw/evga-x299-micro-apic.dat", 0);
        struct acpi_diag d;

        (void)state;
        assert_int_equal(g.t[0x392], 9);
        assert_int_equal(g.t[0x392 + 4], 0xff);
        acpi_fixture_put_le(g.t + 0x392 + 8, 1, 4);
        assert_int_equal(acpi_parse_madt(seal(&g), g.len, &madt, &d), ST_OK);
        assert_int_equal(madt.n_cpus, 20);
        assert_int_equal(madt.n_enabled, 20);
        assert_int_equal(madt.n_invalid_enabled, 1);
        assert_non_null(strstr(d.what, "invalid ID"));
        free(g.t);
}

static void test_madt_online_capable_revision(void **state)
{
        /* The R820's first entry (offset 0x2C, enabled) made disabled and online capable
         * (flags 2). Before revision 5 bit 1 is reserved: the entry is a placeholder like the
         * table's 16 disabled ones. From revision 5 the bit means what it says. */
        static const struct {
                uint8_t  rev;
                uint32_t flags;
                uint32_t n_cpus;
                bool     online_capable;
        } cases[] = {
                { 1, 2, 79, false }, { 4, 2, 79, false }, { 5, 2, 80, true }, { 6, 2, 80, true },
                { 1, 0, 79, false }, { 5, 0, 79, false },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct grown g = load("linuxhw/dell-poweredge-r820-apic.dat", 0);

                assert_int_equal(g.t[0x2c], 0);
                g.t[8] = cases[i].rev;
                acpi_fixture_put_le(g.t + 0x2c + 4, cases[i].flags, 4);
                assert_int_equal(acpi_parse_madt(seal(&g), g.len, &madt, NULL), ST_OK);
                assert_int_equal(madt.revision, cases[i].rev);
                assert_int_equal(madt.n_cpus, cases[i].n_cpus);
                assert_int_equal(madt.n_enabled, 79);
                if (cases[i].n_cpus == 80) {
                        assert_int_equal(madt.cpu[0].apic_id, 0);
                        assert_false(madt.cpu[0].enabled);
                        assert_int_equal(madt.cpu[0].online_capable, cases[i].online_capable);
                }
                free(g.t);
        }
}

/* ---- a fragment after the last entry ------------------------------------------------------ */

static void test_trailing_fragment(void **state)
{
        static const struct {
                const char *file;
                unsigned    max_fragment;   /* shorter than the entry header */
        } cases[] = {
                { "linuxhw/dell-poweredge-r820-apic.dat", 1 },
                { "linuxhw/dell-poweredge-r820-srat.dat", 1 },
                { "qemu72-q35-3node-hmat-hmat.dat", 7 },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                for (unsigned n = 1; n <= cases[i].max_fragment; n++) {
                        struct grown     g = load(cases[i].file, 8);
                        struct acpi_diag d;
                        size_t           orig = g.len;
                        status_t         st;
                        uint32_t         trailing;

                        memset(g.t + g.len, 0x5a, n);
                        g.len += n;
                        seal(&g);
                        print_message("  %s + %u byte(s)\n", cases[i].file, n);
                        if (!memcmp(g.t, "APIC", 4)) {
                                st       = acpi_parse_madt(g.t, g.len, &madt, &d);
                                trailing = madt.trailing_bytes;
                                assert_int_equal(madt.n_cpus, 80);
                        } else if (!memcmp(g.t, "SRAT", 4)) {
                                st       = acpi_parse_srat(g.t, g.len, &srat, &d);
                                trailing = srat.trailing_bytes;
                                assert_int_equal(srat.n_nodes, 4);
                        } else {
                                st       = acpi_parse_hmat(g.t, g.len, &hmat, &d);
                                trailing = hmat.trailing_bytes;
                                assert_int_equal(hmat.n_entries, 18);
                        }
                        assert_int_equal(st, ST_OK);
                        assert_int_equal(trailing, n);
                        assert_int_equal(d.offset, orig);
                        assert_non_null(strstr(d.what, "ignored"));
                        free(g.t);
                }
        }
        /* A whole header whose length runs past the end is still malformed. */
        struct grown     g = load("linuxhw/dell-poweredge-r820-apic.dat", 2);
        struct acpi_diag d;
        static const uint8_t bad[2] = { 0, 8 };

        append(&g, bad, 2);
        assert_int_equal(acpi_parse_madt(seal(&g), g.len, &madt, &d), ST_BAD_DATA);
        free(g.t);
}

/* ---- SRAT: hot-pluggable and non-volatile ranges ------------------------------------------ */

/* A Memory Affinity structure, [ACPI-6.5] §5.2.16.2. */
static void mem_affinity(uint8_t e[40], uint32_t pd, uint64_t base, uint64_t len, uint32_t flags)
{
        memset(e, 0, 40);
        e[0] = 1, e[1] = 40;
        acpi_fixture_put_le(e + 2, pd, 4);
        acpi_fixture_put_le(e + 8, base, 8);
        acpi_fixture_put_le(e + 16, len, 8);
        acpi_fixture_put_le(e + 28, flags, 4);
}

static void test_srat_hotplug_nonvolatile(void **state)
{
        /* The R820 (domains 1-4) with a 1 TiB hot-plug window on domain 4 above its memory
         * and a 16 GiB non-volatile range on domain 3: neither is memory the node has. The
         * per-domain figures are the .expect file's, from iasl. */
        struct grown g = load("linuxhw/dell-poweredge-r820-srat.dat", 80);
        uint8_t      e[40];
        size_t       elen;
        char        *want = test_load("acpi/linuxhw/dell-poweredge-r820-srat.expect", &elen);

        (void)state;
        want = realloc(want, elen + 1);
        want[elen] = '\0';
        mem_affinity(e, 4, 0x10000000000ull, 1ull << 40,
                     ACPI_SRAT_MEM_ENABLED | ACPI_SRAT_MEM_HOT_PLUGGABLE);
        append(&g, e, 40);
        mem_affinity(e, 3, 0x20000000000ull, 16ull << 30,
                     ACPI_SRAT_MEM_ENABLED | ACPI_SRAT_MEM_NON_VOLATILE);
        append(&g, e, 40);
        assert_int_equal(acpi_canon(seal(&g), g.len, got, sizeof(got)), ST_OK);
        for (unsigned pd = 1; pd <= 4; pd++) {
                char line[64], *at;

                snprintf(line, sizeof(line), "SRAT node pd=%u memory=", pd);
                at = strstr(want, line);
                assert_non_null(at);
                snprintf(line, sizeof(line), "%.*s", (int)strcspn(at, "\n"), at);
                assert_non_null(strstr(got, line));
        }
        assert_int_equal(acpi_parse_srat(g.t, g.len, &srat, NULL), ST_OK);
        assert_int_equal(srat.n_mem, 12);
        assert_false(acpi_srat_mem_present(&srat.mem[10]));
        assert_false(acpi_srat_mem_present(&srat.mem[11]));
        assert_true(acpi_srat_mem_present(&srat.mem[9]) || srat.mem[9].node == 0);
        assert_false(acpi_srat_mem_present(NULL));
        free(want);
        free(g.t);
}

/* ---- HMAT revision 1 ---------------------------------------------------------------------- */

static void test_hmat_revision1(void **state)
{
        /* QEMU 7.2's HMAT (iasl: access latency entries 8/12/16 x base 10000, access bandwidth
         * 20/10/5 x base 1024; type 0 flags 0001) relabelled revision 1. Linux's
         * hmat_normalize() reads revision 1 as entry x base / 10, rounded up: 8 x 10000 / 10 =
         * 8000 (ns) and 20 x 1024 / 10 = 2048 (MB/s); flags bit 1 (Memory PD valid) is clear. */
        struct grown           g = load("qemu72-q35-3node-hmat-hmat.dat", 0);
        struct acpi_hmat_entry e;

        (void)state;
        g.t[8] = 1;
        assert_int_equal(acpi_parse_hmat(seal(&g), g.len, &hmat, NULL), ST_OK);
        assert_int_equal(hmat.revision, 1);
        assert_int_equal(hmat.n_domains, 3);
        assert_true(hmat.domain[1].initiator_valid);
        assert_false(hmat.domain[1].memory_valid);
        assert_int_equal(acpi_hmat_find(&hmat, ACPI_HMAT_ACCESS_LATENCY, 0, 0, &e), ST_OK);
        assert_int_equal(e.value, 8000ull * 1000);
        assert_int_equal(acpi_hmat_find(&hmat, ACPI_HMAT_ACCESS_LATENCY, 0, 2, &e), ST_OK);
        assert_int_equal(e.value, 16000ull * 1000);
        assert_int_equal(acpi_hmat_find(&hmat, ACPI_HMAT_ACCESS_BANDWIDTH, 0, 0, &e), ST_OK);
        assert_int_equal(e.value, 2048);
        assert_int_equal(acpi_hmat_find(&hmat, ACPI_HMAT_ACCESS_BANDWIDTH, 0, 2, &e), ST_OK);
        assert_int_equal(e.value, 512);

        /* base unit 1: entry 5 x 1 < 10 is "not provided" in Linux (0); 12 -> 2 (rounded up) */
        acpi_fixture_put_le(g.t + 0xb8, 1, 8);
        acpi_fixture_put_le(g.t + 0xd8, 5, 2);
        acpi_fixture_put_le(g.t + 0xda, 12, 2);
        assert_int_equal(acpi_parse_hmat(seal(&g), g.len, &hmat, NULL), ST_OK);
        assert_int_equal(acpi_hmat_find(&hmat, ACPI_HMAT_ACCESS_LATENCY, 0, 0, &e), ST_OK);
        assert_int_equal(e.state, ACPI_HMAT_NOT_PROVIDED);
        assert_int_equal(acpi_hmat_find(&hmat, ACPI_HMAT_ACCESS_LATENCY, 0, 1, &e), ST_OK);
        assert_int_equal(e.value, 2000);
        free(g.t);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_corpus_matches_iasl),
                cmocka_unit_test(test_madt_placeholders),
                cmocka_unit_test(test_madt_x2apic_duplicates),
                cmocka_unit_test(test_madt_x2apic_invalid_enabled),
                cmocka_unit_test(test_madt_online_capable_revision),
                cmocka_unit_test(test_trailing_fragment),
                cmocka_unit_test(test_srat_hotplug_nonvolatile),
                cmocka_unit_test(test_hmat_revision1),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
