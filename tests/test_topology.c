/* Topology decoding from the recorded CPUID of real processors (tests/data/cpuid/) and from
 * edited dumps: x2APIC ID, SMT and package shifts, the last-level cache's domain, and the
 * legacy path without leaf 0xB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/x86/topology.h"
#include "report/c2c.h"
#include "tests/cpuid_dump.h"

static struct cpuid_dump *load(const char *file)
{
        char               path[256];
        struct cpuid_dump *d = malloc(sizeof(*d));

        assert_non_null(d);
        snprintf(path, sizeof(path), "%s/cpuid/%s",
                 getenv("PMUCAL_TESTDATA") ? getenv("PMUCAL_TESTDATA") : "tests/data", file);
        assert_int_equal(cpuid_dump_load(path, d), ST_OK);
        return d;
}

static const struct {
        const char *file;
        uint32_t    apic_id;
        uint8_t     smt_shift, pkg_shift, llc_shift, llc_level;
        const char *source;
} recorded[] = {
        /* 2 vCPUs of a Genoa guest: no SMT, L3 shared by 2 IDs */
        { "amd-epyc-genoa-kvm.txt",  1, 0, 5, 1, 3, "CPUID 0xB" },
        /* Zen 4 desktop: SMT, 16 IDs per CCX's L3 */
        { "amd-ryzen9-7950x.txt",    0, 1, 5, 4, 3, "CPUID 0xB" },
        /* Raptor Lake: leaf 0x1F, one L3 for the package (128 IDs) */
        { "intel-i9-13900k.txt",     0, 1, 7, 7, 3, "CPUID 0x1F" },
        { "intel-xeon-w9-3475x.txt", 0, 1, 7, 7, 3, "CPUID 0x1F" },
        /* QEMU TCG: leaf 4 empty, so the package is the last-level domain */
        { "qemu72-tcg-max.txt",      0, 0, 2, 2, 0, "CPUID 0xB" },
};

static void test_recorded(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++) {
                struct cpuid_dump  *d = load(recorded[i].file);
                struct cpu_topology t;

                cpu_topology_decode(d, &t);
                printf("# %s: apic %u smt %u pkg %u llc L%u shift %u\n", recorded[i].file,
                       t.apic_id, t.smt_shift, t.pkg_shift, t.llc_level, t.llc_shift);
                assert_int_equal(t.apic_id, recorded[i].apic_id);
                assert_int_equal(t.smt_shift, recorded[i].smt_shift);
                assert_int_equal(t.pkg_shift, recorded[i].pkg_shift);
                assert_int_equal(t.llc_shift, recorded[i].llc_shift);
                assert_int_equal(t.llc_level, recorded[i].llc_level);
                assert_string_equal(t.source, recorded[i].source);
                free(d);
        }
}

/* The same part, another CPU: x2APIC ID 0x83 on the i9 is package 1, core 0x41, thread 1. */
static void test_fields_from_id(void **state)
{
        struct cpuid_dump  *d = load("intel-i9-13900k.txt");
        struct cpuid_regs   r;
        struct cpu_topology t;
        (void)state;

        for (uint32_t s = 0; s < 3; s++)
                if (cpuid_dump_get(d, 0x1f, s, &r)) {
                        r.edx = 0x83;
                        assert_int_equal(cpuid_dump_put(d, 0x1f, s, r), ST_OK);
                }
        cpu_topology_decode(d, &t);
        assert_int_equal(t.apic_id, 0x83);
        assert_int_equal(t.package, 1);
        assert_int_equal(t.core, 0x41);
        assert_int_equal(t.thread, 1);
        assert_int_equal(t.llc_domain, 1);
        free(d);
}

/* Raptor Lake is hybrid (CPUID.07H:EDX[15]); the recorded CPU is a P-core (1AH: 0x40) with
 * 48 KiB L1d, 2 MiB L2, 36 MiB L3. Edited into an E-core: type 0x20, 4 MiB L2 (the cluster's).
 * The Zen 4 desktop is not hybrid: no core type. */
static void test_core_type_and_caches(void **state)
{
        struct cpuid_dump  *d = load("intel-i9-13900k.txt");
        struct cpuid_regs   r;
        struct cpu_topology t;
        (void)state;

        cpu_topology_decode(d, &t);
        assert_true(t.hybrid);
        assert_int_equal(t.core_type, 0x40);
        assert_int_equal(t.cache_bytes[0], 48 * 1024);
        assert_int_equal(t.cache_bytes[1], 2 * 1024 * 1024);
        assert_int_equal(t.cache_bytes[2], 36 * 1024 * 1024);
        assert_int_equal(t.cache_bytes[3], 0);
        assert_true(cpuid_dump_get(d, 4, 2, &r));
        r.ecx = 4095; /* 16 ways x 64 B x 4096 sets */
        assert_int_equal(cpuid_dump_put(d, 4, 2, r), ST_OK);
        assert_int_equal(cpuid_dump_put(d, 0x1a, 0, (struct cpuid_regs){ .eax = 0x20000001 }),
                         ST_OK);
        cpu_topology_decode(d, &t);
        assert_int_equal(t.core_type, 0x20);
        assert_int_equal(t.cache_bytes[1], 4 * 1024 * 1024);
        free(d);

        d = load("amd-ryzen9-7950x.txt");
        cpu_topology_decode(d, &t);
        assert_false(t.hybrid);
        assert_int_equal(t.core_type, 0);
        assert_int_equal(t.cache_bytes[1], 1024 * 1024); /* Zen 4: 1 MiB L2 (0x8000001D) */
        free(d);
}

/* Without leaves 0xB/0x1F: leaf 1's initial APIC ID and logical count, AMD's
 * ApicIdCoreIdSize and threads per core. */
static void test_legacy(void **state)
{
        struct cpuid_dump  *d = load("amd-epyc-genoa-kvm.txt");
        struct cpu_topology t;
        (void)state;

        for (uint32_t s = 0; s < 3; s++)
                cpuid_dump_remove(d, 0xb, s);
        /* leaf 1: APIC ID 6, HTT, 8 logical processors */
        assert_int_equal(cpuid_dump_put(d, 1, 0, (struct cpuid_regs){ .eax = 0x00a10f11,
                                                  .ebx = 0x06080800, .edx = 1u << 28 }),
                         ST_OK);
        assert_int_equal(cpuid_dump_put(d, 0x80000008, 0, (struct cpuid_regs){ .ecx = 0 }),
                         ST_OK);
        assert_int_equal(cpuid_dump_put(d, 0x8000001e, 0, (struct cpuid_regs){ .ebx = 0x100 }),
                         ST_OK);
        cpu_topology_decode(d, &t);
        assert_string_equal(t.source, "CPUID 1");
        assert_int_equal(t.apic_id, 6);
        assert_int_equal(t.pkg_shift, 3);  /* 8 logical processors */
        assert_int_equal(t.smt_shift, 1);  /* two threads per core */
        assert_int_equal(t.core, 3);
        assert_int_equal(t.thread, 0);
        /* AMD's ApicIdCoreIdSize wins over the leaf 1 count */
        assert_int_equal(cpuid_dump_put(d, 0x80000008, 0, (struct cpuid_regs){ .ecx = 4u << 12 }),
                         ST_OK);
        cpu_topology_decode(d, &t);
        assert_int_equal(t.pkg_shift, 4);
        free(d);
}

/* The recorded i9-13900K as the processor with x2APIC ID @p id (leaf 0x1F EDX), of core type
 * @p type (leaf 0x1A), as the app hands it to the cache-to-cache classes. */
static struct c2c_cpu rpl_cpu(struct cpuid_dump *d, uint32_t id, uint8_t type)
{
        struct cpuid_regs   r;
        struct cpu_topology t;

        for (uint32_t s = 0; s < 3; s++)
                if (cpuid_dump_get(d, 0x1f, s, &r)) {
                        r.edx = id;
                        assert_int_equal(cpuid_dump_put(d, 0x1f, s, r), ST_OK);
                }
        assert_int_equal(cpuid_dump_put(d, 0x1a, 0, (struct cpuid_regs){ .eax = (uint32_t)type << 24 | 1 }),
                         ST_OK);
        cpu_topology_decode(d, &t);
        return (struct c2c_cpu){ .apic_id = t.apic_id, .package = t.package, .core = t.core,
                                 .thread = t.thread, .l3_domain = t.llc_domain,
                                 .cluster = t.cluster, .group = t.group,
                                 .no_l3 = t.llc_level < 3 };
}

/* Raptor Lake's L2 sharing field (leaf 4 sub-leaf 2 EAX[25:14] = 7: 8 IDs) spans an E-core
 * module: four E-cores at x2APIC IDs 0x40, 0x42, 0x44, 0x46 share one 4 MiB L2, the next
 * module starts at 0x48; a P-core (IDs 0/1, 8/9, ...; 2 MiB L2 of its own) is a module of one.
 * So two E-cores of a module are "same-module", not pooled into "same-l3" with P-E pairs.
 * Intel's published topology of the i9-13900K: 8 P-cores, 16 E-cores in 4 modules of 4 sharing
 * a 4 MB L2, 36 MB L3 shared by all. */
static void test_hybrid_modules(void **state)
{
        struct cpuid_dump *d = load("intel-i9-13900k.txt");
        struct cpuid_regs  r;
        (void)state;

        assert_true(cpuid_dump_get(d, 4, 2, &r));
        assert_int_equal((r.eax >> 14) & 0xfff, 7);
        struct c2c_cpu p0 = rpl_cpu(d, 0, 0x40), p0t = rpl_cpu(d, 1, 0x40), p1 = rpl_cpu(d, 8, 0x40);
        struct c2c_cpu e0 = rpl_cpu(d, 0x40, 0x20), e1 = rpl_cpu(d, 0x42, 0x20);
        struct c2c_cpu e3 = rpl_cpu(d, 0x46, 0x20), e4 = rpl_cpu(d, 0x48, 0x20);

        assert_int_equal(e0.group, C2C_GROUP_MODULE);
        assert_int_equal(c2c_pair_class(&e0, &e1), C2C_SAME_MODULE);
        assert_int_equal(c2c_pair_class(&e0, &e3), C2C_SAME_MODULE);
        assert_int_equal(c2c_pair_class(&e0, &e4), C2C_SAME_L3);
        assert_int_equal(c2c_pair_class(&p0, &e0), C2C_SAME_L3);
        assert_int_equal(c2c_pair_class(&p0, &p1), C2C_SAME_L3);
        assert_int_equal(c2c_pair_class(&p0, &p0t), C2C_SMT);
        free(d);

        /* Zen 4: the L2 is the core's own (0x8000001D: 2 IDs, the SMT pair): no module */
        struct cpu_topology t;
        d = load("amd-ryzen9-7950x.txt");
        cpu_topology_decode(d, &t);
        assert_int_equal(t.group, TOPO_GROUP_NONE);
        free(d);
}

/* Real processors without leaf 0xB: the SMT shift of the legacy path as Linux derives it.
 * Atom 330 (Bonnell, 2 cores / 4 threads, ark.intel.com): leaf 1 says 4 logical, leaf 4 2
 * cores: shift 1. EPYC 7551P (Zen 1, 32 cores / 64 threads): 0x8000001E EBX[15:8] = 1: shift
 * 1; the same dump with its extended range cut below 0x8000001E must not read that leaf (0),
 * nor may family 15h, where the field counts cores per compute unit (Linux parse_8000_001e). */
static void test_legacy_smt_real(void **state)
{
        struct cpuid_dump  *d = malloc(sizeof(*d));
        struct cpu_topology t;
        struct cpuid_regs   r;

        (void)state;
        assert_int_equal(cpuid_dump_load_cpu("tests/data/cpuid/real/intel-atom-330-bonnell.txt", 0,
                                             d, NULL), ST_OK);
        cpu_topology_decode(d, &t);
        assert_string_equal(t.source, "CPUID 1");
        assert_int_equal(t.smt_shift, 1);
        assert_int_equal(t.pkg_shift, 2);

        assert_int_equal(cpuid_dump_load_cpu("tests/data/cpuid/real/amd-epyc-7551p-zen1.txt", 0,
                                             d, NULL), ST_OK);
        cpu_topology_decode(d, &t);
        assert_string_equal(t.source, "CPUID 1");
        assert_int_equal(t.smt_shift, 1);
        assert_true(cpuid_dump_get(d, 0x80000000, 0, &r));
        r.eax = 0x8000001d;
        assert_int_equal(cpuid_dump_put(d, 0x80000000, 0, r), ST_OK);
        cpu_topology_decode(d, &t);
        assert_int_equal(t.smt_shift, 0);
        r.eax = 0x8000001f;
        assert_int_equal(cpuid_dump_put(d, 0x80000000, 0, r), ST_OK);
        assert_true(cpuid_dump_get(d, 1, 0, &r));
        r.eax = (r.eax & ~0x0ff00f00u) | 0x00600f00u; /* family 0Fh + 06h = 15h */
        assert_int_equal(cpuid_dump_put(d, 1, 0, r), ST_OK);
        cpu_topology_decode(d, &t);
        assert_int_equal(t.smt_shift, 0);
        free(d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_recorded),
                cmocka_unit_test(test_fields_from_id),
                cmocka_unit_test(test_legacy),
                cmocka_unit_test(test_legacy_smt_real),
                cmocka_unit_test(test_core_type_and_caches),
                cmocka_unit_test(test_hybrid_modules),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
