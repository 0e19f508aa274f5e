/** @file
 * The inventory phase: find out what the machine is (the CPU through app/gather_<arch>.c:
 * CPUID, safe MSR probes and the TSC rate, or the AArch64 ID registers and generic timer;
 * the firmware's processor list, ACPI MADT/SRAT/SLIT/HMAT, SMBIOS, the memory map), check
 * that the firmware's descriptions agree with each other, print the report and keep
 * inventory.json and the raw CPU registers (cpuid.txt, idregs.txt) for the results folder. A table that is malformed is
 * reported with where and why, and skipped; the run goes on.
 */
#include "app/gather.h"
#include "app/run.h"

#include "report/inventory.h"
#include "report/json.h"

static void gather_cpus(struct inventory *inv)
{
        inv->n_cpus_total = plat_cpu_count();
        for (unsigned i = 0; i < inv->n_cpus_total; i++) {
                struct plat_cpu c;
                if (plat_cpu_info(i, &c, NULL) != ST_OK)
                        continue;
                if (c.enabled)
                        inv->n_cpus_enabled++;
                if (inv->n_cpus < INV_MAX_CPUS)
                        inv->cpus[inv->n_cpus++] = c;
        }
}

typedef status_t (*acpi_parser)(const void *t, size_t avail, void *out, struct acpi_diag *d);

/* Find, parse and keep one ACPI table; a malformed one is reported once and dropped. */
static void *gather_acpi(const char sig[4], acpi_parser parse, size_t out_bytes,
                         struct inv_table *state)
{
        struct plat_fw_table ft;
        const void          *t = plat_fw_table(PLAT_FW_ACPI, sig, 0, &ft) == ST_OK ? ft.data
                                                                                  : NULL;
        struct acpi_diag     diag = { 0 };

        *state = (struct inv_table){ .state = INV_TABLE_ABSENT };
        if (!t)
                return NULL;
        void *out = plat_alloc(out_bytes);
        if (!out) {
                state->state = INV_TABLE_UNSUPPORTED;
                fmt_snprintf(state->diag, sizeof(state->diag), "no memory to parse it");
                return NULL;
        }
        status_t st = parse(t, ACPI_LEN_FROM_HEADER, out, &diag);
        if (st == ST_OK) {
                /* something the parser ignored, as Linux ignores it (a stray fragment after
                 * the last entry, an entry with the invalid ID marked enabled) */
                if (diag.what[0])
                        rep_warn("ACPI %.4s at offset 0x%x: %s", sig, diag.offset, diag.what);
                state->state = INV_TABLE_OK;
                return out;
        }
        plat_free(out);
        state->state = st == ST_UNSUPPORTED ? INV_TABLE_UNSUPPORTED : INV_TABLE_MALFORMED;
        fmt_snprintf(state->diag, sizeof(state->diag), "offset 0x%x: %s", diag.offset,
                     diag.what);
        rep_warn("ACPI %.4s %s at offset 0x%x: %s (table skipped)", sig,
                 st == ST_UNSUPPORTED ? "not supported" : "malformed", diag.offset, diag.what);
        return NULL;
}

static void gather_smbios(struct inventory *inv)
{
        struct plat_fw_table t;
        struct smbios_diag   diag = { 0 };

        inv->smbios_t = (struct inv_table){ .state = INV_TABLE_ABSENT };
        if (plat_fw_table(PLAT_FW_SMBIOS, NULL, 0, &t) != ST_OK)
                return;
        if (!(inv->smbios = plat_alloc(sizeof(*inv->smbios))))
                return;
        status_t st = smbios_parse(t.data, t.len, t.major, t.minor, inv->smbios, &diag);
        if (st == ST_OK) {
                inv->smbios_t.state = INV_TABLE_OK;
                return;
        }
        /* The walk keeps what it parsed before the bad structure. */
        inv->smbios_t.state = INV_TABLE_MALFORMED;
        fmt_snprintf(inv->smbios_t.diag, sizeof(inv->smbios_t.diag), "offset 0x%x: %s",
                     diag.offset, diag.what);
        rep_warn("SMBIOS malformed at offset 0x%x: %s (kept the structures before it)",
                 diag.offset, diag.what);
}

/* The firmware describes the processors three times (MP services, MADT, SRAT) and the nodes
 * twice (SRAT, SLIT); a new board's firmware gets these wrong, so they are checked. */
static void check_consistency(const struct inventory *inv)
{
        rep_push("consistency");
        const char *via = plat_info()->cpus_via;

        if (via && !strncmp(via, "PSCI", 4))
                rep_info("MADT vs MP services: no MP services; the processors are the MADT's "
                         "own (%s), %u enabled", via, inv->madt ? inv->madt->n_enabled : 0);
        else if (plat_info()->cpus_unlisted)
                rep_skip(REP_SKIP_ENV, "MADT vs MP services: the firmware has no MP services "
                         "protocol "
                         "(AAVMF has none), so only the BSP is enumerated; the MADT lists %u "
                         "enabled processors", inv->madt ? inv->madt->n_enabled : 0);
        else if (inv->madt)
                rep_check(inv->madt->n_enabled == inv->n_cpus_enabled,
                          "MADT enabled processors (%u) = MP services enabled processors (%u)",
                          inv->madt->n_enabled, inv->n_cpus_enabled);
        else
                rep_skip(REP_SKIP_ENV, "MADT vs MP services: no usable MADT");
        if (inv->srat) {
                unsigned missing = 0;
                for (unsigned i = 0; i < inv->n_cpus; i++)
                        if (inv->cpus[i].enabled &&
                            inventory_node_of_apic(inv, inv->cpus[i].apic_id) < 0)
                                missing++;
                rep_check(missing == 0, "SRAT gives a node for every enabled processor (%u "
                          "without)", missing);
        } else {
                rep_skip(REP_SKIP_ENV, "SRAT vs processors: no usable SRAT");
        }
        if (inv->srat && inv->slit)
                rep_check(inv->slit->n >= inv->srat->n_nodes,
                          "SLIT covers the SRAT nodes (%u localities, %u nodes)", inv->slit->n,
                          inv->srat->n_nodes);
        else
                rep_skip(REP_SKIP_ENV, "SLIT vs SRAT: not both usable");
        rep_pop();
}

/* Raw copies of the firmware tables go into the results folder: a bring-up engineer attaches
 * them to a bug report, and QEMU's become test fixtures (tests/data/acpi/qemu-*). */
static const struct {
        char        sig[5];
        const char *file;
} raw_tables[] = {
        { "APIC", "acpi-APIC.dat" }, { "SRAT", "acpi-SRAT.dat" },
        { "SLIT", "acpi-SLIT.dat" }, { "HMAT", "acpi-HMAT.dat" },
        { "PPTT", "acpi-PPTT.dat" },
};

#define RAW_TABLE_MAX (1 * MiB)

static void keep_raw_tables(struct run *r)
{
        for (size_t i = 0; i < ARRAY_SIZE(raw_tables); i++) {
                struct plat_fw_table t;
                struct rep_buf       b = { 0 };
                if (plat_fw_table(PLAT_FW_ACPI, raw_tables[i].sig, 0, &t) != ST_OK)
                        continue;
                if (t.len < ACPI_HEADER_LEN || t.len > RAW_TABLE_MAX)
                        continue; /* already reported as malformed */
                if (rep_buf_append(&b, t.data, t.len) == ST_OK)
                        run_add_file(r, raw_tables[i].file, &b);
                rep_buf_free(&b);
        }
        struct plat_fw_table sm;
        if (plat_fw_table(PLAT_FW_SMBIOS, NULL, 0, &sm) == ST_OK && sm.len <= RAW_TABLE_MAX) {
                struct rep_buf b = { 0 };
                if (rep_buf_append(&b, sm.data, sm.len) == ST_OK)
                        run_add_file(r, "smbios.dat", &b);
                rep_buf_free(&b);
        }
}

static status_t parse_madt(const void *t, size_t n, void *o, struct acpi_diag *d)
{
        return acpi_parse_madt(t, n, o, d);
}
static status_t parse_srat(const void *t, size_t n, void *o, struct acpi_diag *d)
{
        return acpi_parse_srat(t, n, o, d);
}
static status_t parse_slit(const void *t, size_t n, void *o, struct acpi_diag *d)
{
        return acpi_parse_slit(t, n, o, d);
}
static status_t parse_hmat(const void *t, size_t n, void *o, struct acpi_diag *d)
{
        return acpi_parse_hmat(t, n, o, d);
}

status_t phase_inventory(struct run *r)
{
        struct inventory     *inv = plat_alloc(sizeof(*inv));
        struct gather_cpu_raw raw = { 0 };
        status_t              st  = ST_OK;

        if (!inv)
                return rep_err(ST_NO_MEM, "allocating the inventory");
        r->inv        = inv;
        inv->platform    = plat_info()->name;
        inv->secure_boot = plat_info()->secure_boot;

        if ((st = gather_cpu(inv, &raw)) != ST_OK)
                return rep_err(st, "identifying the CPU");
        gather_cpus(inv);
        inv->madt = gather_acpi("APIC", parse_madt, sizeof(struct acpi_madt), &inv->madt_t);
        inv->srat = gather_acpi("SRAT", parse_srat, sizeof(struct acpi_srat), &inv->srat_t);
        inv->slit = gather_acpi("SLIT", parse_slit, sizeof(struct acpi_slit), &inv->slit_t);
        inv->hmat = gather_acpi("HMAT", parse_hmat, sizeof(struct acpi_hmat), &inv->hmat_t);
        acpi_srat_resolve_uids(inv->srat, inv->madt);
        gather_smbios(inv);
        inv->mem_st = plat_mem_map(&inv->mem, NULL, 0, NULL);

        inventory_print(inv);
        rep_printf("\n");
        gather_cpu_report(inv, &raw);
        check_consistency(inv);

        struct rep_buf b = { 0 };
        struct json_w  w;
        json_init(&w, &b);
        inventory_json(&w, inv);
        if ((st = json_finish(&w)) != ST_OK)
                rep_err(st, "building inventory.json");
        else
                run_add_file(r, "inventory.json", &b);
        rep_buf_free(&b);

        gather_cpu_files(r, &raw);
        keep_raw_tables(r);
        return st;
}
