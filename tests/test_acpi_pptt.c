/** @file Unit tests for boot/acpi_pptt.c and the Arm topology built on it: QEMU 7.2's PPTT for
 *  `-smp 8,sockets=2,clusters=2,cores=2` and `-smp 8,sockets=1,clusters=2,cores=2,threads=2`
 *  on virt (tests/data/acpi/qemu72-virt-aarch64-*-pptt.dat, the runs' acpi-PPTT.dat), tables
 *  built here (sockets, clusters, SMT, private and shared caches, Cache IDs), malformed ones
 *  (rejected with the offset), and the MPIDR fallback on the affinity values of Ampere Altra
 *  and Neoverse reference platforms. Expected values come from the -smp arguments and from the
 *  tables' own bytes. Run from the repository root, or set PMUCAL_TESTDATA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/acpi_pptt.h"
#include "boot/topology.h"
#include "tests/acpi_fixture.h"

/* ---- a PPTT builder ------------------------------------------------------------------------ */

struct tb {
        uint8_t  t[4096];
        uint32_t len;
};

static void tb_init(struct tb *b, uint8_t revision)
{
        memset(b, 0, sizeof(*b));
        memcpy(b->t, "PPTT", 4);
        b->t[8] = revision;
        memcpy(b->t + 10, "PMUCAL", 6);
        b->len = ACPI_HEADER_LEN;
}

/* A processor hierarchy node; returns its offset. */
static uint32_t tb_node(struct tb *b, uint32_t flags, uint32_t parent, uint32_t id,
                        unsigned n_priv, const uint32_t *priv)
{
        uint32_t off = b->len;
        uint8_t *e   = b->t + off;

        e[0] = 0;
        e[1] = (uint8_t)(20 + 4 * n_priv);
        acpi_fixture_put_le(e + 4, flags, 4);
        acpi_fixture_put_le(e + 8, parent, 4);
        acpi_fixture_put_le(e + 12, id, 4);
        acpi_fixture_put_le(e + 16, n_priv, 4);
        for (unsigned i = 0; i < n_priv; i++)
                acpi_fixture_put_le(e + 20 + 4 * i, priv[i], 4);
        b->len += e[1];
        return off;
}

#define C_DATA     (ACPI_PPTT_CACHE_DATA << ACPI_PPTT_CACHE_TYPE_SHIFT)
#define C_INST     (ACPI_PPTT_CACHE_INSTRUCTION << ACPI_PPTT_CACHE_TYPE_SHIFT)
#define C_UNIFIED  (ACPI_PPTT_CACHE_UNIFIED << ACPI_PPTT_CACHE_TYPE_SHIFT)
#define CF_VALID   (ACPI_PPTT_CACHE_SIZE_VALID | ACPI_PPTT_CACHE_TYPE_VALID)

/* A cache type structure (28 bytes with the Cache ID of revision 3); returns its offset. */
static uint32_t tb_cache(struct tb *b, uint32_t flags, uint32_t next, uint32_t bytes,
                         uint8_t attributes, uint32_t id)
{
        uint32_t off = b->len;
        uint8_t *e   = b->t + off;

        e[0] = 1;
        e[1] = b->t[8] >= 3 ? 28 : 24;
        acpi_fixture_put_le(e + 4, flags, 4);
        acpi_fixture_put_le(e + 8, next, 4);
        acpi_fixture_put_le(e + 12, bytes, 4);
        acpi_fixture_put_le(e + 16, bytes / 64 / 8, 4);
        e[20] = 8;
        e[21] = attributes;
        acpi_fixture_put_le(e + 22, 64, 2);
        if (e[1] == 28)
                acpi_fixture_put_le(e + 24, id, 4);
        b->len += e[1];
        return off;
}

static void tb_finish(struct tb *b)
{
        acpi_fixture_put_le(b->t + 4, b->len, 4);
        acpi_fixture_checksum(b->t, b->len);
}

/* 2 packages x 2 clusters x 2 cores x 2 threads, revision 3: each core has its L1D and L1I
 * (64 KiB) leading to its own L2 (1 MiB); each cluster an L3 (8 MiB, Cache ID 100 + cluster);
 * each package an L4 without a Cache ID (32 MiB). Thread UIDs 0..15 in order. */
static void build_big(struct tb *b, uint32_t cluster_off[4])
{
        tb_init(b, 3);
        for (unsigned p = 0; p < 2; p++) {
                uint32_t l4 = tb_cache(b, CF_VALID, 0, 32u << 20, C_UNIFIED, 0);
                uint32_t pk = tb_node(b, ACPI_PPTT_PHYSICAL_PACKAGE | ACPI_PPTT_ID_VALID, 0, p,
                                      1, &l4);
                for (unsigned c = 0; c < 2; c++) {
                        uint32_t l3 = tb_cache(b, CF_VALID | ACPI_PPTT_CACHE_ID_VALID, 0,
                                               8u << 20, C_UNIFIED, 100 + p * 2 + c);
                        uint32_t cl = tb_node(b, 0, pk, 0, 1, &l3);
                        cluster_off[p * 2 + c] = cl;
                        for (unsigned k = 0; k < 2; k++) {
                                uint32_t l2 = tb_cache(b, CF_VALID, 0, 1u << 20, C_UNIFIED, 0);
                                uint32_t l1[2] = {
                                        tb_cache(b, CF_VALID, l2, 64u << 10, C_DATA, 0),
                                        tb_cache(b, CF_VALID, l2, 64u << 10, C_INST, 0),
                                };
                                uint32_t core = tb_node(b, 0, cl, 0, 2, l1);
                                for (unsigned th = 0; th < 2; th++)
                                        tb_node(b, ACPI_PPTT_ID_VALID | ACPI_PPTT_IS_THREAD |
                                                           ACPI_PPTT_IS_LEAF,
                                                core, ((p * 2 + c) * 2 + k) * 2 + th, 0, NULL);
                        }
                }
        }
        tb_finish(b);
}

static struct acpi_pptt_cpu cpu_of(const void *t, uint32_t uid)
{
        struct acpi_pptt_cpu c;

        assert_int_equal(acpi_pptt_cpu(t, uid, &c), ST_OK);
        return c;
}

/* ---- QEMU's tables --------------------------------------------------------------------------- */

/* -smp 8,sockets=2,clusters=2,cores=2: CPUs 0-3 in socket 0 and 4-7 in socket 1; {0,1}, {2,3},
 * {4,5}, {6,7} share a cluster; one thread per core; QEMU 7.2 describes no caches. */
static void test_qemu_sockets_clusters(void **state)
{
        size_t   n;
        uint8_t *t = acpi_fixture_load("qemu72-virt-aarch64-2s2cl2c-pptt.dat", &n);
        uint32_t n_cpus;
        (void)state;

        assert_int_equal(acpi_pptt_check(t, n, &n_cpus, NULL), ST_OK);
        assert_int_equal(n_cpus, 8);
        for (uint32_t a = 0; a < 8; a++) {
                struct acpi_pptt_cpu x = cpu_of(t, a);

                assert_false(x.is_thread);
                assert_true(x.has_cluster);
                assert_int_equal(x.llc_level, 0);
                assert_int_equal(x.n_levels, 0);
                /* the package is a node with the Physical package flag (its bytes say so) */
                assert_int_equal(t[x.package], 0);
                assert_true(t[x.package + 4] & ACPI_PPTT_PHYSICAL_PACKAGE);
                for (uint32_t b = 0; b < 8; b++) {
                        struct acpi_pptt_cpu y = cpu_of(t, b);

                        assert_int_equal(x.package == y.package, a / 4 == b / 4);
                        assert_int_equal(x.cluster == y.cluster, a / 2 == b / 2);
                        assert_int_equal(x.core == y.core, a == b);
                }
        }
        struct acpi_pptt_cpu x;
        assert_int_equal(acpi_pptt_cpu(t, 8, &x), ST_NOT_FOUND);
        free(t);
}

/* -smp 8,sockets=1,clusters=2,cores=2,threads=2: one package; threads {2k, 2k+1} share a core,
 * CPUs 0-3 and 4-7 a cluster. */
static void test_qemu_threads(void **state)
{
        size_t   n;
        uint8_t *t = acpi_fixture_load("qemu72-virt-aarch64-1s2cl2c2t-pptt.dat", &n);
        uint32_t n_cpus;
        (void)state;

        assert_int_equal(acpi_pptt_check(t, n, &n_cpus, NULL), ST_OK);
        assert_int_equal(n_cpus, 8);
        for (uint32_t a = 0; a < 8; a++)
                for (uint32_t b = 0; b < 8; b++) {
                        struct acpi_pptt_cpu x = cpu_of(t, a), y = cpu_of(t, b);

                        assert_true(x.is_thread && x.has_cluster);
                        assert_int_equal(x.package, y.package);
                        assert_int_equal(x.cluster == y.cluster, a / 4 == b / 4);
                        assert_int_equal(x.core == y.core, a / 2 == b / 2);
                        assert_int_equal(x.thread == y.thread, a == b);
                }
        free(t);
}

/* The processors' topology from QEMU's PPTT, against the MPIDR fallback: virt numbers the
 * vCPUs' MPIDR Aff0 0..7 whatever -smp says, so MPIDR makes them one package and the PPTT two. */
static void test_qemu_topology_vs_mpidr(void **state)
{
        size_t              n;
        uint8_t            *t = acpi_fixture_load("qemu72-virt-aarch64-2s2cl2c-pptt.dat", &n);
        struct cpu_topology m0, m4, p0, p4;
        (void)state;

        cpu_topology_from_mpidr(0x80000000, &m0);
        cpu_topology_from_mpidr(0x80000004, &m4);
        assert_int_equal(m0.package, m4.package);
        p0 = m0, p4 = m4;
        struct acpi_pptt_cpu c0 = cpu_of(t, 0), c4 = cpu_of(t, 4);
        cpu_topology_from_pptt(&p0, &c0);
        cpu_topology_from_pptt(&p4, &c4);
        assert_int_not_equal(p0.package, p4.package);
        assert_int_equal(p0.apic_id, 0);
        assert_int_equal(p4.apic_id, 4);
        assert_int_equal(p0.group, TOPO_GROUP_CLUSTER);
        assert_int_equal(p0.llc_level, 0);
        assert_string_equal(p0.source, "PPTT");
        free(t);
}

/* ---- tables built here ----------------------------------------------------------------------- */

static void test_built_hierarchy_and_caches(void **state)
{
        static struct tb b;
        uint32_t         cl[4], n_cpus;
        (void)state;

        build_big(&b, cl);
        assert_int_equal(acpi_pptt_check(b.t, b.len, &n_cpus, NULL), ST_OK);
        assert_int_equal(n_cpus, 16);
        for (uint32_t a = 0; a < 16; a++) {
                struct acpi_pptt_cpu x = cpu_of(b.t, a);

                assert_true(x.is_thread && x.has_cluster);
                assert_int_equal(x.package, a / 8);      /* the packages' valid IDs */
                assert_int_equal(x.cluster, cl[a / 4]);  /* no ID: the node's offset */
                assert_int_equal(x.thread, a);
                assert_int_equal(x.n_levels, 4);
                assert_int_equal(x.llc_level, 4);
                static const uint32_t bytes[4] = { 64u << 10, 1u << 20, 8u << 20, 32u << 20 };
                static const uint8_t  scope[4] = { ACPI_PPTT_SCOPE_CORE, ACPI_PPTT_SCOPE_CORE,
                                                   ACPI_PPTT_SCOPE_CLUSTER,
                                                   ACPI_PPTT_SCOPE_PACKAGE };
                for (unsigned l = 0; l < 4; l++) {
                        assert_int_equal(x.cache_bytes[l], bytes[l]);
                        assert_int_equal(x.cache_scope[l], scope[l]);
                }
                /* L1 is the data cache, not the instruction cache beside it */
                assert_int_equal(b.t[x.cache_offset[0] + 21], C_DATA);
                /* L3 by its Cache ID */
                assert_int_equal(x.cache_domain[2], 0x80000000u | (100 + a / 4));
                for (uint32_t y = 0; y < 16; y++) {
                        struct acpi_pptt_cpu o = cpu_of(b.t, y);

                        assert_int_equal(x.core == o.core, a / 2 == y / 2);
                        assert_int_equal(x.cache_domain[0] == o.cache_domain[0], a / 2 == y / 2);
                        assert_int_equal(x.cache_domain[1] == o.cache_domain[1], a / 2 == y / 2);
                        assert_int_equal(x.cache_domain[2] == o.cache_domain[2], a / 4 == y / 4);
                        assert_int_equal(x.cache_domain[3] == o.cache_domain[3], a / 8 == y / 8);
                }
        }
        /* the topology a processor takes from it: LLC = the package's L4 */
        struct cpu_topology  t = { .apic_id = 0x10203 };
        struct acpi_pptt_cpu x = cpu_of(b.t, 9);
        cpu_topology_from_pptt(&t, &x);
        assert_int_equal(t.apic_id, 0x10203);
        assert_int_equal(t.package, 1);
        assert_int_equal(t.llc_level, 4);
        assert_int_equal(t.llc_domain, x.cache_domain[3]);
        assert_int_equal(t.cache_bytes[2], 8u << 20);
}

/* Revision 1 (ACPI 6.2): no leaf or thread flags, so a leaf is a node no other names as its
 * parent, and every leaf is a core. Single-core packages: no cluster; a cache listed at the
 * package only. */
static void test_built_revision1(void **state)
{
        static struct tb b;
        uint32_t         n_cpus, pk[2];
        (void)state;

        tb_init(&b, 1);
        for (unsigned p = 0; p < 2; p++) {
                uint32_t l2 = tb_cache(&b, CF_VALID, 0, 512u << 10, C_UNIFIED, 0);
                pk[p] = tb_node(&b, ACPI_PPTT_PHYSICAL_PACKAGE, 0, 0, 1, &l2);
                tb_node(&b, ACPI_PPTT_ID_VALID, pk[p], 10 + p, 0, NULL);
        }
        tb_finish(&b);
        assert_int_equal(acpi_pptt_check(b.t, b.len, &n_cpus, NULL), ST_OK);
        assert_int_equal(n_cpus, 2);
        struct acpi_pptt_cpu x = cpu_of(b.t, 11);
        assert_false(x.is_thread);
        assert_false(x.has_cluster);
        assert_int_equal(x.package, pk[1]);
        /* levels are counted up the chains, not stated: the only cache is level 1 */
        assert_int_equal(x.llc_level, 1);
        assert_int_equal(x.cache_scope[0], ACPI_PPTT_SCOPE_PACKAGE);
        assert_int_equal(x.cache_bytes[0], 512u << 10);
        assert_int_equal(x.n_levels, 1);
        /* the package node itself has no valid ID and is no processor */
        assert_int_equal(acpi_pptt_cpu(b.t, 0, &x), ST_NOT_FOUND);
}

/* ---- malformed tables: rejected with where ----------------------------------------------- */

static void test_malformed(void **state)
{
        static struct tb b;
        struct acpi_diag d;
        uint32_t         cl[4];
        (void)state;

        /* a node 4 bytes too short: reported at the node */
        build_big(&b, cl);
        uint32_t core = b.t[cl[0] + 1] + cl[0]; /* the first L2 follows the cluster */
        while (b.t[core] != 0)
                core += b.t[core + 1];
        b.t[core + 1] = 16;
        acpi_fixture_checksum(b.t, b.len);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        assert_non_null(strstr(d.what, "PPTT"));

        /* a node that lists more private resources than its length holds */
        build_big(&b, cl);
        acpi_fixture_put_le(b.t + cl[0] + 16, 3, 4);
        acpi_fixture_checksum(b.t, b.len);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        assert_int_equal(d.offset, cl[0] + 16);
        assert_non_null(strstr(d.what, "private resources"));

        /* a structure of length 0, and one running past the end */
        build_big(&b, cl);
        b.t[cl[1] + 1] = 0;
        acpi_fixture_checksum(b.t, b.len);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        assert_int_equal(d.offset, cl[1] + 1);
        build_big(&b, cl);
        uint32_t last = b.len - 20;
        b.t[last + 1] = 200;
        acpi_fixture_checksum(b.t, b.len);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        assert_int_equal(d.offset, last + 1);
        assert_non_null(strstr(d.what, "length 200"));

        /* a parent into the middle of a structure; a parent that is a cache */
        build_big(&b, cl);
        acpi_fixture_put_le(b.t + cl[2] + 8, cl[0] + 4, 4);
        acpi_fixture_checksum(b.t, b.len);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        assert_int_equal(d.offset, cl[2] + 8);
        build_big(&b, cl);
        acpi_fixture_put_le(b.t + cl[2] + 8, ACPI_HEADER_LEN, 4); /* the first L4 */
        acpi_fixture_checksum(b.t, b.len);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        assert_non_null(strstr(d.what, "type 1, not 0"));

        /* a parent loop: cluster 0's parent is one of its own cores */
        build_big(&b, cl);
        acpi_fixture_put_le(b.t + cl[0] + 8, core, 4);
        acpi_fixture_checksum(b.t, b.len);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        assert_non_null(strstr(d.what, "loop"));

        /* a revision-3 cache type structure without its Cache ID (24 bytes) */
        build_big(&b, cl);
        b.t[8] = 3;
        uint32_t c = ACPI_HEADER_LEN;
        b.t[c + 1] = 24;
        memmove(b.t + c + 24, b.t + c + 28, b.len - c - 28);
        b.len -= 4;
        tb_finish(&b);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        assert_int_equal(d.offset, c);
        assert_non_null(strstr(d.what, "cache type entry of 24 bytes, needs 28"));

        /* a bad checksum, a wrong signature */
        build_big(&b, cl);
        b.t[9] ^= 1;
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);
        build_big(&b, cl);
        memcpy(b.t, "SRAT", 4);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_BAD_DATA);

        /* stray bytes shorter than a structure header at the end are ignored */
        build_big(&b, cl);
        b.len += 3;
        tb_finish(&b);
        assert_int_equal(acpi_pptt_check(b.t, b.len, NULL, &d), ST_OK);
}

/* ---- the MPIDR fallback on real affinity values -------------------------------------------- */

/* Ampere Altra (Neoverse N1): two cores of one socket with MPIDR affinity 0x130100 and
 * 0x1b0100 (Aff2 0x13 / 0x1b, Aff1 1); Neoverse cores set MPIDR_EL1.MT (bit 24) with Aff0 = 0.
 * The affinity rule makes them two packages, with MT set and clear alike; so does a Neoverse
 * reference platform with one core per cluster (Aff1 = 0, Aff2 = cluster). The socket's PPTT
 * (one package, clusters of two cores, private L1/L2, no L3: the SLC is in the mesh) makes them
 * one package. */
static void test_mpidr_fallback_altra(void **state)
{
        static const uint64_t altra[][2] = {
                { 0x00130100, 0x001b0100 },
                { 0x01130100, 0x011b0100 },
                { 0x01000000, 0x01010000 }, /* Neoverse reference: clusters 0 and 1 */
        };
        (void)state;

        for (size_t i = 0; i < sizeof(altra) / sizeof(altra[0]); i++) {
                struct cpu_topology a, b;

                cpu_topology_from_mpidr(altra[i][0], &a);
                cpu_topology_from_mpidr(altra[i][1], &b);
                assert_string_equal(a.source, "MPIDR_EL1");
                assert_int_not_equal(a.package, b.package);
                assert_int_not_equal(a.core, b.core);
                assert_int_equal(a.thread, 0);
        }

        static struct tb t;
        tb_init(&t, 2);
        uint32_t pk = tb_node(&t, ACPI_PPTT_PHYSICAL_PACKAGE, 0, 0, 0, NULL);
        for (unsigned cl = 0; cl < 2; cl++) {
                uint32_t c = tb_node(&t, 0, pk, 0, 0, NULL);
                for (unsigned k = 0; k < 2; k++) {
                        uint32_t l2 = tb_cache(&t, CF_VALID, 0, 1u << 20, C_UNIFIED, 0);
                        uint32_t l1 = tb_cache(&t, CF_VALID, l2, 64u << 10, C_DATA, 0);
                        tb_node(&t, ACPI_PPTT_ID_VALID | ACPI_PPTT_IS_LEAF, c, cl * 2 + k, 1, &l1);
                }
        }
        tb_finish(&t);
        assert_int_equal(acpi_pptt_check(t.t, t.len, NULL, NULL), ST_OK);
        struct cpu_topology a, b;
        cpu_topology_from_mpidr(0x01130100, &a);
        cpu_topology_from_mpidr(0x011b0100, &b);
        struct acpi_pptt_cpu x = cpu_of(t.t, 1), y = cpu_of(t.t, 2);
        cpu_topology_from_pptt(&a, &x);
        cpu_topology_from_pptt(&b, &y);
        assert_int_equal(a.package, b.package);
        assert_int_not_equal(a.cluster, b.cluster);
        assert_int_equal(a.llc_level, 2);          /* private L2: no shared cache described */
        assert_int_not_equal(a.llc_domain, b.llc_domain);
        assert_int_equal(a.apic_id, 0x130100);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_qemu_sockets_clusters),
                cmocka_unit_test(test_qemu_threads),
                cmocka_unit_test(test_qemu_topology_vs_mpidr),
                cmocka_unit_test(test_built_hierarchy_and_caches),
                cmocka_unit_test(test_built_revision1),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_mpidr_fallback_altra),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
