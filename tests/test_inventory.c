/* Inventory report and inventory.json, built from tables QEMU 7.2 published for a
 * 3-CPU, 3-node machine with HMAT (recorded by pmucal itself: tests/data/acpi/qemu72-*) and
 * the CPUID of QEMU's TCG "max" CPU. The JSON is read back with jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define json_null jansson_json_null
#include <jansson.h>
#undef json_null
#include <cmocka.h>

#include "report/inventory.h"
#include "report/x86/inventory_cpuid.h"
#include "tests/cpuid_dump.h"
#include "tests/fake_plat.h"
#include "tests/test_util.h"


struct fixture {
        struct inventory  inv;
        struct cpuid_dump dump;
        void             *madt_raw, *srat_raw, *slit_raw, *hmat_raw, *smbios_raw;
};

static int setup(void **state)
{
        struct fixture *f = calloc(1, sizeof(*f));
        size_t          smbios_len;

        assert_int_equal(cpuid_dump_load("tests/data/cpuid/qemu72-tcg-max.txt", &f->dump), ST_OK);
        f->inv.cpu_st   = cpu_decode(&f->dump, &f->inv.cpu);
        f->inv.platform = "test";
        f->madt_raw     = test_load("acpi/qemu72-q35-3node-hmat-apic.dat", NULL);
        f->srat_raw     = test_load("acpi/qemu72-q35-3node-hmat-srat.dat", NULL);
        f->slit_raw     = test_load("acpi/qemu72-q35-3node-hmat-slit.dat", NULL);
        f->hmat_raw     = test_load("acpi/qemu72-q35-3node-hmat-hmat.dat", NULL);
        f->smbios_raw   = test_load("smbios/qemu72-q35.bin", &smbios_len);
        f->inv.madt     = calloc(1, sizeof(*f->inv.madt));
        f->inv.srat     = calloc(1, sizeof(*f->inv.srat));
        f->inv.slit     = calloc(1, sizeof(*f->inv.slit));
        f->inv.hmat     = calloc(1, sizeof(*f->inv.hmat));
        f->inv.smbios   = calloc(1, sizeof(*f->inv.smbios));
        assert_int_equal(acpi_parse_madt(f->madt_raw, ACPI_LEN_FROM_HEADER, f->inv.madt, NULL), ST_OK);
        assert_int_equal(acpi_parse_srat(f->srat_raw, ACPI_LEN_FROM_HEADER, f->inv.srat, NULL), ST_OK);
        assert_int_equal(acpi_parse_slit(f->slit_raw, ACPI_LEN_FROM_HEADER, f->inv.slit, NULL), ST_OK);
        assert_int_equal(acpi_parse_hmat(f->hmat_raw, ACPI_LEN_FROM_HEADER, f->inv.hmat, NULL), ST_OK);
        assert_int_equal(smbios_parse(f->smbios_raw, smbios_len, 2, 8, f->inv.smbios, NULL), ST_OK);
        f->inv.madt_t.state = f->inv.srat_t.state = f->inv.slit_t.state = INV_TABLE_OK;
        f->inv.hmat_t.state = f->inv.smbios_t.state = INV_TABLE_OK;
        for (unsigned i = 0; i < 3; i++)
                f->inv.cpus[i] = (struct plat_cpu){ .apic_id = i, .enabled = true, .is_bsp = !i };
        f->inv.n_cpus = f->inv.n_cpus_total = f->inv.n_cpus_enabled = 3;
        f->inv.tsc_hz     = 2596000000ull;
        f->inv.tsc_source = INV_TSC_CALIBRATED;
        f->inv.mem_st     = ST_OK;
        f->inv.mem        = (struct plat_mem_summary){ .total_bytes = 2 * GiB, .n_descriptors = 9 };
        *state            = f;
        fake_plat_reset();
        rep_reset();
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;
        free(f->inv.madt);
        free(f->inv.srat);
        free(f->inv.slit);
        free(f->inv.hmat);
        free(f->inv.smbios);
        free(f->madt_raw);
        free(f->srat_raw);
        free(f->slit_raw);
        free(f->hmat_raw);
        free(f->smbios_raw);
        free(f);
        return 0;
}

static json_t *to_json(const struct inventory *inv)
{
        struct rep_buf b = { 0 };
        struct json_w  w;
        json_error_t   err;

        json_init(&w, &b);
        inventory_json(&w, inv);
        assert_int_equal(json_finish(&w), ST_OK);
        json_t *root = json_loads(b.p, 0, &err);
        if (!root)
                fail_msg("inventory.json does not parse: %s at line %d", err.text, err.line);
        rep_buf_free(&b);
        return root;
}

/* The topology run-qemu.sh asked for: node n holds CPU n, SLIT 10/20/31, HMAT 80+40 ns per
 * hop and 20480 >> hop MB/s. */
static void test_json_topology(void **state)
{
        struct fixture *f    = *state;
        json_t         *root = to_json(&f->inv);
        json_t         *numa = json_object_get(root, "numa");

        assert_string_equal(json_string_value(json_object_get(root, "schema")), INV_SCHEMA);
        assert_int_equal(json_integer_value(json_object_get(numa, "nodes")), 3);
        static const int slit[3][3] = { { 10, 20, 31 }, { 20, 10, 20 }, { 31, 20, 10 } };
        for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                        assert_int_equal(json_integer_value(json_array_get(
                                                 json_array_get(json_object_get(numa, "slit"), i), j)),
                                         slit[i][j]);
        json_t *nodes = json_object_get(numa, "node_list");
        for (size_t n = 0; n < 3; n++) {
                json_t *node = json_array_get(nodes, n);
                assert_int_equal(json_integer_value(json_object_get(node, "node")), n);
                json_t *ids = json_object_get(node, "apic_ids");
                assert_int_equal(json_array_size(ids), 1);
                assert_int_equal(json_integer_value(json_array_get(ids, 0)), n);
                assert_true(json_integer_value(json_object_get(node, "memory_bytes")) > 600 * 1048576ll);
        }
        json_t *cpus = json_object_get(json_object_get(root, "cpus"), "list");
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(json_integer_value(json_object_get(json_array_get(cpus, i), "node")), i);

        json_t *hmat = json_object_get(numa, "hmat");
        assert_int_equal(json_array_size(hmat), 18);
        size_t  i;
        json_t *e;
        json_array_foreach(hmat, i, e) {
                long long d = llabs(json_integer_value(json_object_get(e, "initiator")) -
                                    json_integer_value(json_object_get(e, "target")));
                const char *type = json_string_value(json_object_get(e, "type"));
                if (!strcmp(type, "access latency"))
                        assert_int_equal(json_integer_value(json_object_get(e, "latency_ps")),
                                         (80 + 40 * d) * 1000);
                else
                        assert_int_equal(json_integer_value(json_object_get(e, "bandwidth_mb_s")),
                                         20480 >> d);
        }
        json_t *sm = json_object_get(root, "smbios");
        assert_string_equal(json_string_value(json_object_get(sm, "manufacturer")), "QEMU");
        json_decref(root);
}

/* A table the inventory rejected is reported with its problem and nothing from it is used. */
static void test_json_malformed_table(void **state)
{
        struct fixture *f = *state;

        free(f->inv.srat);
        f->inv.srat         = NULL;
        f->inv.srat_t.state = INV_TABLE_MALFORMED;
        snprintf(f->inv.srat_t.diag, sizeof(f->inv.srat_t.diag), "offset 0x9: bad checksum");
        json_t *root = to_json(&f->inv);
        json_t *t    = json_object_get(json_object_get(root, "firmware_tables"), "SRAT");
        assert_string_equal(json_string_value(json_object_get(t, "state")), "malformed");
        assert_string_equal(json_string_value(json_object_get(t, "problem")), "offset 0x9: bad checksum");
        assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "numa"), "nodes")), 1);
        json_t *cpu0 = json_array_get(json_object_get(json_object_get(root, "cpus"), "list"), 0);
        assert_true(json_is_null(json_object_get(cpu0, "node")));
        json_decref(root);
        assert_int_equal(inventory_n_nodes(&f->inv), 1);
        assert_int_equal(inventory_node_of_apic(&f->inv, 0), -1);
}

/* Null means unknown: figures CPUID or SMBIOS leave at 0 or "" are written as null, never as
 * a number or an empty string. */
static void test_json_unknown_is_null(void **state)
{
        struct fixture *f = *state;

        f->inv.nominal_hz     = 0;
        f->inv.cpu.base_mhz   = 0;
        f->inv.cpu.max_mhz    = 0;
        f->inv.cpu.n_caches   = 1;
        f->inv.cpu.caches[0]  = (struct cpu_cache){ .level = 1, .type = CACHE_DATA,
                                                    .size_bytes = 32768, .ways = 8,
                                                    .line_bytes = 64, .sets = 64 };
        f->inv.cpu.brand[0]   = '\0';
        if (f->inv.smbios)
                f->inv.smbios->board_manufacturer[0] = '\0';
        json_t *root = to_json(&f->inv);
        json_t *tsc  = json_object_get(root, "tsc");
        assert_string_equal(json_string_value(json_object_get(root, "schema")), "pmucal.inventory/1.4");
        assert_true(json_is_null(json_object_get(tsc, "nominal_core_hz")));
        assert_true(json_is_null(json_object_get(tsc, "cpuid_base_mhz")));
        assert_true(json_is_null(json_object_get(tsc, "cpuid_max_mhz")));
        json_t *c0 = json_array_get(json_object_get(root, "caches"), 0);
        assert_true(json_is_null(json_object_get(c0, "sharing_cpus")));
        assert_int_equal(json_integer_value(json_object_get(c0, "ways")), 8);
        assert_true(json_is_null(json_object_get(json_object_get(root, "cpu"), "brand")));
        if (f->inv.smbios)
                assert_true(json_is_null(json_object_get(json_object_get(root, "smbios"),
                                                         "board_manufacturer")));
        json_decref(root);
}

static void test_console(void **state)
{
        struct fixture *f   = *state;
        struct rep_buf  out = { 0 };

        rep_add_sink(rep_buf_sink(&out));
        inventory_print(&f->inv);
        static const char *const want[] = {
                "CPU         : QEMU TCG CPU version 2.5+",
                "Hypervisor  : TCGTCGTCGTCG",
                "TSC         : 2.596 GHz, calibrated",
                "NUMA        : 3 nodes (SRAT)",
                "                10  20  31",
                "access latency   initiator 0 -> target 2: 160.000 ns",
                "access bandwidth initiator 2 -> target 2: 20480 MB/s",
                "System      : QEMU Standard PC (Q35 + ICH9, 2009)",
                "MADT        : 3 processors, 3 enabled\n",
                "Memory map  : 2 GiB RAM",
        };
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
                if (!strstr(out.p, want[i]))
                        fail_msg("console lacks \"%s\":\n%s", want[i], out.p);
        rep_buf_free(&out);
}

/* The EVGA X299 MICRO's MADT (tests/data/acpi/linuxhw/): 112 processor entries, 20 enabled
 * (iasl -d); a board of 20 processors has 20 in MP services, and the inventory says 20. */
static void test_console_madt_placeholders(void **state)
{
        struct fixture *f   = *state;
        struct rep_buf  out = { 0 };
        void           *raw = test_load("acpi/linuxhw/evga-x299-micro-apic.dat", NULL);

        assert_int_equal(acpi_parse_madt(raw, ACPI_LEN_FROM_HEADER, f->inv.madt, NULL), ST_OK);
        f->inv.n_cpus_total = f->inv.n_cpus_enabled = 20;
        rep_add_sink(rep_buf_sink(&out));
        inventory_print(&f->inv);
        if (!strstr(out.p, "MADT        : 20 processors, 20 enabled; 92 placeholder entries not "
                           "counted (invalid ID, or neither enabled nor online capable)\n"))
                fail_msg("console:\n%s", out.p);
        rep_buf_free(&out);
        free(raw);
}

/* cpuid.txt is in the format tests/data/cpuid/ keeps: it loads back to the same dump. */
static void test_cpuid_text_round_trip(void **state)
{
        struct fixture    *f   = *state;
        struct rep_buf     b   = { 0 };
        static struct cpuid_dump back;
        char               path[] = "/tmp/pmucal-cpuidXXXXXX";
        int                fd     = mkstemp(path);

        assert_true(fd >= 0);
        assert_int_equal(inventory_cpuid_text(&b, &f->dump), ST_OK);
        FILE *o = fdopen(fd, "w");
        fwrite(b.p, 1, b.len, o);
        fclose(o);
        assert_int_equal(cpuid_dump_load(path, &back), ST_OK);
        unlink(path);
        assert_int_equal(back.n, f->dump.n);
        assert_memory_equal(back.leaves, f->dump.leaves, f->dump.n * sizeof(back.leaves[0]));
        rep_buf_free(&b);
}

static void test_size_str(void **state)
{
        static const struct {
                uint64_t    bytes;
                const char *want;
        } cases[] = {
                { 0, "0 B" },         { 1023, "1023 B" },      { 1024, "1 KiB" },
                { 1536, "1.5 KiB" },  { 32768, "32 KiB" },     { 1048576, "1 MiB" },
                { 3u << 29, "1.5 GiB" }, { 1ull << 40, "1 TiB" }, { (1ull << 50), "1024 TiB" },
        };
        char buf[24];
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                assert_string_equal(inventory_size_str(buf, sizeof(buf), cases[i].bytes), cases[i].want);
}

/* "Shared by N" counts processors, not the sharing field's addressable IDs: Core Ultra 9 288V
 * (Lunar Lake, tests/data/cpuid/real/, block 0 = P-core APIC ID 0) with the eight processors
 * of that dump (APIC IDs 0, 8, 16, 24 P-cores; 64, 66, 68, 70 E-cores, the dump's own blocks).
 * Leaf 4 gives the L2 8 IDs and the L3 64 IDs; the L2 is per P-core (1 CPU, no SMT) and the
 * 12 MB L3 is the four P-cores' (Intel: the low-power E-core island is off the ring). The
 * leaf-2 / quirk-row caches carry no field: no count. Ways not given are null, not 0. */
static void test_cache_sharing_cpus(void **state)
{
        static const uint32_t apic[] = { 0, 8, 16, 24, 64, 66, 68, 70 };
        struct inventory     *inv    = calloc(1, sizeof(*inv));
        struct cpuid_dump    *d      = malloc(sizeof(*d));

        (void)state;
        assert_int_equal(cpuid_dump_load_cpu("tests/data/cpuid/real/intel-ultra9-288v-lunarlake.txt",
                                             0, d, NULL), ST_OK);
        assert_int_equal(cpu_decode(d, &inv->cpu), ST_OK);
        for (size_t i = 0; i < ARRAY_SIZE(apic); i++)
                inv->cpus[inv->n_cpus++] = (struct plat_cpu){ .apic_id = apic[i], .enabled = true };

        const struct cpu_cache *l2 = cpu_info_cache(&inv->cpu, 2, CACHE_UNIFIED);
        const struct cpu_cache *l3 = cpu_info_cache(&inv->cpu, 3, CACHE_UNIFIED);
        assert_non_null(l2);
        assert_non_null(l3);
        assert_int_equal(l3->n_sharing, 64);
        assert_int_equal(inventory_cache_sharing_cpus(inv, l2), 1);
        assert_int_equal(inventory_cache_sharing_cpus(inv, l3), 4);

        json_t *root = to_json(inv), *caches = json_object_get(root, "caches");
        size_t  i;
        json_t *c;
        bool    seen_l3 = false, seen_quirk = false;
        json_array_foreach(caches, i, c) {
                json_int_t lvl = json_integer_value(json_object_get(c, "level"));
                if (lvl == 3) {
                        seen_l3 = true;
                        assert_int_equal(json_integer_value(json_object_get(c, "sharing_cpus")), 4);
                        assert_int_equal(json_integer_value(json_object_get(c, "sharing_ids")), 64);
                }
                if (json_is_string(json_object_get(c, "source"))) {
                        seen_quirk = true; /* the 192 KB L1D leaf 4 does not list */
                        assert_int_equal(json_integer_value(json_object_get(c, "size_bytes")),
                                         192 * 1024);
                        assert_true(json_is_null(json_object_get(c, "ways")));
                }
        }
        assert_true(seen_l3);
        assert_true(seen_quirk);
        json_decref(root);
        free(d);
        free(inv);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_json_topology, setup, teardown),
                cmocka_unit_test_setup_teardown(test_json_malformed_table, setup, teardown),
                cmocka_unit_test_setup_teardown(test_json_unknown_is_null, setup, teardown),
                cmocka_unit_test_setup_teardown(test_console, setup, teardown),
                cmocka_unit_test_setup_teardown(test_console_madt_placeholders, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cpuid_text_round_trip, setup, teardown),
                cmocka_unit_test(test_size_str),
                cmocka_unit_test(test_cache_sharing_cpus),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
