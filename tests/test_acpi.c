/** @file Unit tests for boot/acpi.c (the HMAT parser: test_acpi_hmat.c): real tables from a
 * Firecracker guest (tests/data/acpi/firecracker-*.dat), iasl-compiled SRAT/SLIT/HMAT fixtures (*.asl -> *.aml, values in the
 * .asl comments) and corrupted variants built here from both. Run from the repository
 * root, or set PMUCAL_TESTDATA to the tests/data directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_util.h"
#include "boot/acpi.h"
#include "tests/acpi_fixture.h"

/* ---- fixtures and a table builder -------------------------------------------------------- */

static struct {
        uint8_t b[64 * 1024];
        size_t  n;
} tb;

static void tb_start(const char *sig, uint8_t rev, size_t fixed_len)
{
        memset(&tb, 0, sizeof(tb));
        memcpy(tb.b, sig, 4);
        tb.b[8] = rev;
        memcpy(tb.b + 10, "PMUCALTESTTABLE", 14);
        tb.n = fixed_len;
}

static void tb_put(uint64_t v, unsigned bytes)
{
        acpi_fixture_put_le(tb.b + tb.n, v, bytes);
        tb.n += bytes;
}

static uint8_t *tb_finish(void)
{
        acpi_fixture_put_le(tb.b + 4, tb.n, 4);
        acpi_fixture_checksum(tb.b, tb.n);
        return tb.b;
}

/* One output of each kind, and a dispatcher over the signature. */
static struct acpi_madt madt;
static struct acpi_srat srat;
static struct acpi_slit slit;
static struct acpi_hmat hmat;

static status_t parse(const uint8_t *t, size_t avail, struct acpi_diag *d, bool *zero)
{
        status_t st;

        if (!memcmp(t, "APIC", 4)) {
                st    = acpi_parse_madt(t, avail, &madt, d);
                *zero = acpi_fixture_all_zero(&madt, sizeof(madt));
        } else if (!memcmp(t, "SRAT", 4)) {
                st    = acpi_parse_srat(t, avail, &srat, d);
                *zero = acpi_fixture_all_zero(&srat, sizeof(srat));
        } else if (!memcmp(t, "SLIT", 4)) {
                st    = acpi_parse_slit(t, avail, &slit, d);
                *zero = acpi_fixture_all_zero(&slit, sizeof(slit));
        } else {
                st    = acpi_parse_hmat(t, avail, &hmat, d);
                *zero = acpi_fixture_all_zero(&hmat, sizeof(hmat));
        }
        return st;
}

/* ---- header ----------------------------------------------------------------------------- */

static void test_header_real_tables(void **state)
{
        static const struct {
                const char *file, *sig, *oem_id;
                uint32_t length;
                uint8_t revision;
        } cases[] = {
                { "firecracker-apic.dat", "APIC", "FIRECK", 72, 6 },
                { "firecracker-mcfg.dat", "MCFG", "FIRECK", 60, 1 },
                { "firecracker-facp.dat", "FACP", "FIRECK", 276, 6 },
                { "srat-2node.aml", "SRAT", "PMUCAL", 232, 3 },
                { "hmat-3node.aml", "HMAT", "PMUCAL", 370, 2 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct acpi_header h;
                struct acpi_diag d;
                size_t len;
                uint8_t *t = acpi_fixture_load(cases[i].file, &len);

                assert_int_equal(acpi_check_header(t, len, cases[i].sig, 0, &h, &d), ST_OK);
                assert_string_equal(d.what, "");
                assert_string_equal(h.signature, cases[i].sig);
                assert_string_equal(h.oem_id, cases[i].oem_id);
                assert_int_equal(h.length, cases[i].length);
                assert_int_equal(h.length, len);
                assert_int_equal(h.revision, cases[i].revision);
                assert_int_equal(acpi_check_header(t, ACPI_LEN_FROM_HEADER, NULL, 0, NULL, NULL),
                                 ST_OK);
                /* Wrong signature, avail one short, fixed part longer than the table. */
                assert_int_equal(acpi_check_header(t, len, "XXXX", 0, &h, &d), ST_BAD_DATA);
                assert_int_equal(h.length, 0);
                assert_non_null(strstr(d.what, "signature"));
                assert_int_equal(acpi_check_header(t, len - 1, cases[i].sig, 0, NULL, &d),
                                 ST_BAD_DATA);
                assert_int_equal(d.offset, 4);
                assert_int_equal(acpi_check_header(t, len, cases[i].sig, len + 1, NULL, &d),
                                 ST_BAD_DATA);
                free(t);
        }
}

/* debug_exit = auto writes port 0xf4 only under QEMU: KVM's signature is not enough
 * (Firecracker is KVM too); QEMU's tables carry OEM "BOCHS " / "BXPC". */
static void test_built_by_qemu(void **state)
{
        static const struct { const char *file; bool qemu; } cases[] = {
                { "qemu72-q35-3node-hmat-apic.dat", true },
                { "qemu72-q35-3node-hmat-srat.dat", true },
                { "firecracker-facp.dat", false },
                { "firecracker-apic.dat", false },
        };

        (void)state;
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct acpi_header h;
                size_t             len;
                void              *t = acpi_fixture_load(cases[i].file, &len);

                assert_int_equal(acpi_check_header(t, len, NULL, 0, &h, NULL), ST_OK);
                assert_int_equal(acpi_built_by_qemu(&h), cases[i].qemu);
                free(t);
        }
        assert_false(acpi_built_by_qemu(NULL));
}

static void test_header_bad_args_and_lengths(void **state)
{
        uint8_t t[64] = "APIC";
        struct acpi_diag d;

        assert_int_equal(acpi_check_header(NULL, 100, "APIC", 0, NULL, &d), ST_BAD_ARG);
        assert_int_equal(acpi_check_header(t, 0, "APIC", 0, NULL, &d), ST_BAD_DATA);
        assert_int_equal(acpi_check_header(t, 35, "APIC", 0, NULL, &d), ST_BAD_DATA);
        /* Header length 35 (< 36), 0 and 20 MiB (above the sanity limit). */
        static const uint32_t lens[] = { 35, 0, 20u << 20 };
        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
                acpi_fixture_put_le(t + 4, lens[i], 4);
                acpi_fixture_checksum(t, 36);
                assert_int_equal(acpi_check_header(t, ACPI_LEN_FROM_HEADER, "APIC", 0, NULL, &d),
                                 ST_BAD_DATA);
                assert_int_equal(d.offset, 4);
                assert_memory_equal(d.what, "APIC:", 5);
        }
        assert_int_equal(acpi_parse_madt(t, sizeof(t), NULL, &d), ST_BAD_ARG);
        assert_int_equal(acpi_parse_srat(t, sizeof(t), NULL, NULL), ST_BAD_ARG);
        assert_int_equal(acpi_parse_slit(NULL, sizeof(t), &slit, NULL), ST_BAD_ARG);
        assert_int_equal(acpi_parse_hmat(t, sizeof(t), NULL, NULL), ST_BAD_ARG);
}

/* Every single-bit flip of a real table is caught (checksum or length check). */
static void test_header_checksum_every_byte(void **state)
{
        size_t len;
        uint8_t *t = acpi_fixture_load("firecracker-apic.dat", &len);

        for (size_t i = 0; i < len; i++) {
                for (unsigned bit = 0; bit < 8; bit++) {
                        struct acpi_diag d;
                        bool zero;

                        t[i] ^= (uint8_t)(1u << bit);
                        assert_int_equal(parse(t, len, &d, &zero), ST_BAD_DATA);
                        assert_true(zero);
                        assert_true(d.what[0] != '\0');
                        t[i] ^= (uint8_t)(1u << bit);
                }
        }
        free(t);
}

/* ---- MADT ------------------------------------------------------------------------------- */

static void test_madt_firecracker(void **state)
{
        size_t len;
        uint8_t *t = acpi_fixture_load("firecracker-apic.dat", &len);

        assert_int_equal(acpi_parse_madt(t, len, &madt, NULL), ST_OK);
        assert_int_equal(madt.lapic_addr, 0xfee00000u);
        assert_int_equal(madt.n_cpus, 2);
        assert_int_equal(madt.n_enabled, 2);
        assert_int_equal(madt.n_other, 1); /* the I/O APIC */
        for (unsigned i = 0; i < 2; i++) {
                assert_int_equal(madt.cpu[i].apic_id, i);
                assert_int_equal(madt.cpu[i].acpi_uid, i);
                assert_true(madt.cpu[i].enabled);
                assert_false(madt.cpu[i].x2apic);
        }
        free(t);
}

static void test_madt_synthetic(void **state)
{
        static const struct {
                uint8_t  type;
                uint32_t apic_id, uid, flags;
        } in[] = {
                { 0, 0, 0, 1 }, { 0, 1, 1, 2 }, { 9, 0x1000, 7, 1 }, { 0, 3, 3, 0 },
                { 9, 0xfffffffe, 0xffffffff, 3 },
        };

        tb_start("APIC", 5, 36);
        tb_put(0xfee00000, 4);
        tb_put(1, 4);
        tb_put(1, 1), tb_put(12, 1), tb_put(0, 10); /* an I/O APIC */
        for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
                if (in[i].type == 0) {
                        tb_put(0, 1), tb_put(8, 1), tb_put(in[i].uid, 1), tb_put(in[i].apic_id, 1);
                        tb_put(in[i].flags, 4);
                } else {
                        tb_put(9, 1), tb_put(16, 1), tb_put(0, 2), tb_put(in[i].apic_id, 4);
                        tb_put(in[i].flags, 4), tb_put(in[i].uid, 4);
                }
        }
        assert_int_equal(acpi_parse_madt(tb_finish(), tb.n, &madt, NULL), ST_OK);
        assert_int_equal(madt.flags, 1);
        /* revision 5: the entry neither enabled nor online capable is a placeholder */
        assert_int_equal(madt.n_entries, 5);
        assert_int_equal(madt.n_cpus, 4);
        assert_int_equal(madt.n_placeholders, 1);
        assert_int_equal(madt.n_enabled, 3);
        for (size_t i = 0, k = 0; i < sizeof(in) / sizeof(in[0]); i++) {
                if (!(in[i].flags & 3))
                        continue;
                assert_int_equal(madt.cpu[k].apic_id, in[i].apic_id);
                assert_int_equal(madt.cpu[k].acpi_uid, in[i].uid);
                assert_int_equal(madt.cpu[k].enabled, in[i].flags & 1);
                assert_int_equal(madt.cpu[k].online_capable, (in[i].flags & 3) == 2);
                assert_int_equal(madt.cpu[k].x2apic, in[i].type == 9);
                k++;
        }

        /* More processors than ACPI_MAX_CPUS: the rest are counted, not stored. */
        tb_start("APIC", 5, 44);
        for (uint32_t i = 0; i < ACPI_MAX_CPUS + 3; i++)
                tb_put(9, 1), tb_put(16, 1), tb_put(0, 2), tb_put(i, 4), tb_put(1, 4), tb_put(i, 4);
        assert_int_equal(acpi_parse_madt(tb_finish(), tb.n, &madt, NULL), ST_OK);
        assert_int_equal(madt.n_cpus, ACPI_MAX_CPUS);
        assert_int_equal(madt.n_dropped, 3);
        assert_int_equal(madt.cpu[ACPI_MAX_CPUS - 1].apic_id, ACPI_MAX_CPUS - 1);

        /* A Local APIC entry shorter than 8 bytes, an x2APIC entry shorter than 16. */
        static const uint8_t shorties[][2] = { { 0, 6 }, { 9, 12 } };
        for (size_t i = 0; i < 2; i++) {
                struct acpi_diag d;

                tb_start("APIC", 5, 44);
                tb_put(shorties[i][0], 1), tb_put(shorties[i][1], 1), tb_put(0, shorties[i][1] - 2);
                assert_int_equal(acpi_parse_madt(tb_finish(), tb.n, &madt, &d), ST_BAD_DATA);
                assert_int_equal(d.offset, 44);
                assert_true(acpi_fixture_all_zero(&madt, sizeof(madt)));
        }
}

/* ---- SRAT ------------------------------------------------------------------------------- */

static void test_srat_2node(void **state)
{
        static const struct acpi_srat_mem want_mem[] = {
                { 0x0, 0xa0000, 0, ACPI_SRAT_MEM_ENABLED },
                { 0x100000, 0x7ff00000, 0, ACPI_SRAT_MEM_ENABLED },
                { 0x80000000, 0x80000000, 1, ACPI_SRAT_MEM_ENABLED },
        };
        size_t len;
        uint8_t *t = acpi_fixture_load("srat-2node.aml", &len);
        uint64_t per_node[2] = { 0, 0 };

        assert_int_equal(acpi_parse_srat(t, len, &srat, NULL), ST_OK);
        assert_int_equal(srat.n_nodes, 2);
        assert_int_equal(srat.node[0], 0);
        assert_int_equal(srat.node[1], 1);
        assert_int_equal(srat.n_cpus, 4);
        for (unsigned i = 0; i < 4; i++) {
                assert_int_equal(srat.cpu[i].apic_id, i);
                assert_int_equal(srat.cpu[i].node, i / 2);
                assert_true(srat.cpu[i].enabled);
        }
        assert_int_equal(srat.n_mem, 3);
        for (unsigned i = 0; i < 3; i++) {
                assert_int_equal(srat.mem[i].base, want_mem[i].base);
                assert_int_equal(srat.mem[i].len, want_mem[i].len);
                assert_int_equal(srat.mem[i].node, want_mem[i].node);
                assert_int_equal(srat.mem[i].flags, want_mem[i].flags);
                per_node[srat.mem[i].node] += srat.mem[i].len;
        }
        assert_int_equal(per_node[0], 640ull * 1024 + 2047ull * 1024 * 1024);
        assert_int_equal(per_node[1], 2ull << 30);
        assert_int_equal(srat.n_other + srat.n_dropped, 0);
        free(t);
}

static void test_srat_3node(void **state)
{
        size_t len;
        uint8_t *t = acpi_fixture_load("srat-3node.aml", &len);

        assert_int_equal(acpi_parse_srat(t, len, &srat, NULL), ST_OK);
        assert_int_equal(srat.n_nodes, 3); /* the disabled entries add no node */
        for (unsigned i = 0; i < 3; i++)
                assert_int_equal(srat.node[i], i);
        assert_int_equal(srat.n_cpus, 5);
        assert_int_equal(srat.n_other, 1); /* Generic Initiator */
        assert_int_equal(srat.cpu[3].apic_id, 0xfe);
        assert_int_equal(srat.cpu[3].node, 0x010002); /* Low(8) + High(24) */
        assert_false(srat.cpu[3].enabled);
        assert_int_equal(srat.cpu[4].apic_id, 0x100);
        assert_int_equal(srat.cpu[4].node, 1);
        assert_true(srat.cpu[4].x2apic && srat.cpu[4].enabled);
        assert_int_equal(srat.n_mem, 4);
        assert_int_equal(srat.mem[2].node, 2);
        assert_int_equal(srat.mem[2].len, 8ull << 30);
        assert_int_equal(srat.mem[2].flags, ACPI_SRAT_MEM_ENABLED | ACPI_SRAT_MEM_HOT_PLUGGABLE |
                                                    ACPI_SRAT_MEM_NON_VOLATILE);
        assert_int_equal(srat.mem[3].flags, 0);

        /* Revision 1 (ACPI 2.0): the high proximity-domain bytes are reserved. */
        t[8] = 1;
        acpi_fixture_checksum(t, len);
        assert_int_equal(acpi_parse_srat(t, len, &srat, NULL), ST_OK);
        assert_int_equal(srat.cpu[3].node, 2);
        free(t);
}

static void test_srat_limits(void **state)
{
        static const struct {
                unsigned n_domains;
                uint32_t flags;
                status_t want;
        } cases[] = {
                { ACPI_MAX_NODES, 1, ST_OK },
                { ACPI_MAX_NODES + 1, 1, ST_UNSUPPORTED },
                { ACPI_MAX_NODES + 1, 0, ST_OK },       /* disabled: not nodes */
                { ACPI_MAX_MEM_RANGES + 2, 0, ST_OK },  /* two dropped */
        };

        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                struct acpi_diag d;

                tb_start("SRAT", 3, 48);
                for (uint32_t i = 0; i < cases[c].n_domains; i++) {
                        tb_put(1, 1), tb_put(40, 1), tb_put(i, 4), tb_put(0, 2);
                        tb_put((uint64_t)i << 30, 8), tb_put(1u << 30, 8), tb_put(0, 4);
                        tb_put(cases[c].flags, 4), tb_put(0, 8);
                }
                assert_int_equal(acpi_parse_srat(tb_finish(), tb.n, &srat, &d), cases[c].want);
                if (cases[c].want != ST_OK) {
                        assert_true(acpi_fixture_all_zero(&srat, sizeof(srat)));
                        continue;
                }
                assert_int_equal(srat.n_nodes, cases[c].flags ? cases[c].n_domains : 0);
                assert_int_equal(srat.n_mem + srat.n_dropped, cases[c].n_domains);
        }

        /* A memory range that wraps past 2^64. */
        tb_start("SRAT", 3, 48);
        tb_put(1, 1), tb_put(40, 1), tb_put(0, 4), tb_put(0, 2);
        tb_put(UINT64_MAX - 10, 8), tb_put(11, 8), tb_put(0, 4), tb_put(1, 4), tb_put(0, 8);
        assert_int_equal(acpi_parse_srat(tb_finish(), tb.n, &srat, NULL), ST_BAD_DATA);
}

/* ---- SLIT ------------------------------------------------------------------------------- */

static void test_slit_fixtures(void **state)
{
        static const uint8_t want3[3][3] = { { 10, 21, 28 }, { 21, 10, 24 }, { 30, 24, 10 } };
        size_t len;
        uint8_t *t = acpi_fixture_load("slit-2node.aml", &len);

        assert_int_equal(acpi_parse_slit(t, len, &slit, NULL), ST_OK);
        assert_int_equal(slit.n, 2);
        assert_int_equal(slit.dist[0][1], 20);
        assert_int_equal(slit.dist[1][0], 20);
        assert_int_equal(slit.dist[1][1], 10);
        free(t);

        t = acpi_fixture_load("slit-3node.aml", &len);
        assert_int_equal(acpi_parse_slit(t, len, &slit, NULL), ST_OK);
        assert_int_equal(slit.n, 3);
        for (unsigned i = 0; i < 3; i++)
                for (unsigned j = 0; j < 3; j++)
                        assert_int_equal(slit.dist[i][j], want3[i][j]);
        assert_int_equal(slit.dist[0][3], 0);
        free(t);
}

static void test_slit_bad(void **state)
{
        static const struct {
                uint64_t n;
                size_t   body;   /* bytes of matrix present */
                int      poke;   /* index to overwrite with val, or -1 */
                uint8_t  val;
                status_t want;
        } cases[] = {
                { 4, 16, -1, 0, ST_OK },
                { 0, 16, -1, 0, ST_BAD_DATA },
                { 3, 8, -1, 0, ST_BAD_DATA },                 /* N*N past the end */
                { 1ull << 32, 16, -1, 0, ST_BAD_DATA },       /* N*N wraps to 0 */
                { (1ull << 32) + 1, 16, -1, 0, ST_BAD_DATA }, /* N*N wraps to 2^33 + 1 */
                { UINT64_MAX, 16, -1, 0, ST_BAD_DATA },
                { ACPI_SLIT_MAX, ACPI_SLIT_MAX * ACPI_SLIT_MAX, -1, 0, ST_OK },
                { ACPI_SLIT_MAX + 1, (ACPI_SLIT_MAX + 1) * (ACPI_SLIT_MAX + 1), -1, 0,
                  ST_UNSUPPORTED },
                { 4, 16, 5, 11, ST_BAD_DATA },  /* diagonal [1][1] not 10 */
                { 4, 16, 1, 10, ST_BAD_DATA },  /* off-diagonal 10 */
                { 4, 16, 1, 9, ST_BAD_DATA },   /* reserved 0..9 */
                { 4, 16, 1, 255, ST_OK },       /* unreachable */
        };

        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                uint64_t n = cases[c].n;
                struct acpi_diag d;

                tb_start("SLIT", 1, 36);
                tb_put(n, 8);
                for (size_t k = 0; k < cases[c].body; k++)
                        tb_put(n && n < 256 && k % (n + 1) == 0 ? 10 : 20, 1);
                if (cases[c].poke >= 0)
                        tb.b[44 + cases[c].poke] = cases[c].val;
                assert_int_equal(acpi_parse_slit(tb_finish(), tb.n, &slit, &d), cases[c].want);
                if (cases[c].want == ST_OK) {
                        assert_int_equal(slit.n, n);
                        assert_int_equal(slit.dist[n - 1][n - 1], 10);
                } else {
                        assert_true(acpi_fixture_all_zero(&slit, sizeof(slit)));
                        assert_memory_equal(d.what, "SLIT:", 5);
                }
        }
}

/* ---- generic corruption of every fixture ------------------------------------------------ */

static const struct {
        const char *file;
        size_t      first_sub;   /* offset of the first sub-structure */
        size_t      sub_len_off; /* where its length field is, relative to first_sub */
        unsigned    sub_len_bytes;
} fixtures[] = {
        { "firecracker-apic.dat", 44, 1, 1 },
        { "srat-2node.aml", 48, 1, 1 },
        { "srat-3node.aml", 48, 1, 1 },
        { "slit-2node.aml", 36, 0, 8 }, /* the locality count plays the part */
        { "slit-3node.aml", 36, 0, 8 },
        { "hmat-3node.aml", 40, 4, 4 },
};

static void test_corrupt_variants(void **state)
{
        for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
                size_t len;
                uint8_t *good = acpi_fixture_load(fixtures[f].file, &len);
                uint8_t *t = malloc(len);
                size_t lo = fixtures[f].first_sub + fixtures[f].sub_len_off;
                unsigned lb = fixtures[f].sub_len_bytes;
                struct acpi_diag d;
                bool zero;

                memcpy(t, good, len);
                assert_int_equal(parse(t, len, &d, &zero), ST_OK);
                assert_false(zero);

                /* Bad checksum: one body byte changed, checksum not fixed. */
                t[len - 1] ^= 0x40;
                assert_int_equal(parse(t, len, &d, &zero), ST_BAD_DATA);
                assert_true(zero);
                assert_non_null(strstr(d.what, "checksum"));

                /* Header length one short (checksum fixed): the last entry runs past the end. */
                memcpy(t, good, len);
                acpi_fixture_put_le(t + 4, len - 1, 4);
                acpi_fixture_checksum(t, len - 1);
                assert_int_equal(parse(t, len, &d, &zero), ST_BAD_DATA);
                assert_true(zero);

                /* Sub-structure length 0, then one running past the end. */
                static const uint64_t bad_len[] = { 0, 0xff, 0x7fffffff };
                for (size_t k = 0; k < 3; k++) {
                        memcpy(t, good, len);
                        acpi_fixture_put_le(t + lo, bad_len[k], lb);
                        acpi_fixture_checksum(t, len);
                        assert_int_equal(parse(t, len, &d, &zero), ST_BAD_DATA);
                        assert_true(zero);
                        assert_true(d.offset >= fixtures[f].first_sub);
                }

                /* Fewer readable bytes than the header claims: every prefix is refused. */
                memcpy(t, good, len);
                for (size_t avail = 0; avail < len; avail++) {
                        assert_int_equal(parse(t, avail, &d, &zero), ST_BAD_DATA);
                        assert_true(zero);
                }

                /* Consistent headers on every prefix: either a clean parse or BAD_DATA. */
                for (size_t n = 36; n < len; n++) {
                        status_t st;

                        memcpy(t, good, len);
                        acpi_fixture_put_le(t + 4, n, 4);
                        acpi_fixture_checksum(t, n);
                        st = parse(t, n, &d, &zero);
                        assert_true(st == ST_OK || st == ST_BAD_DATA);
                        assert_true(st == ST_OK || zero);
                }
                free(t);
                free(good);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_header_real_tables),
                cmocka_unit_test(test_header_bad_args_and_lengths),
                cmocka_unit_test(test_header_checksum_every_byte),
                cmocka_unit_test(test_madt_firecracker),
                cmocka_unit_test(test_madt_synthetic),
                cmocka_unit_test(test_srat_2node),
                cmocka_unit_test(test_srat_3node),
                cmocka_unit_test(test_srat_limits),
                cmocka_unit_test(test_slit_fixtures),
                cmocka_unit_test(test_slit_bad),
                cmocka_unit_test(test_corrupt_variants),
                cmocka_unit_test(test_built_by_qemu),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
