/** @file
 * The processors' topology from the firmware's PPTT on Arm (boot/acpi_pptt.h): each processor
 * described itself from its MPIDR_EL1 (app/cpus.c), whose affinity levels mean whatever the
 * implementation chose (Neoverse sets MT with one core per cluster, Ampere Altra spreads one
 * socket's cores over Aff2), so its package, cluster, core, thread and last-level-cache domain
 * are replaced by the PPTT's: MPIDR -> the MADT GICC entry's ACPI Processor UID -> the PPTT leaf
 * with that ID, as Linux does (drivers/acpi/pptt.c). Without a usable PPTT the MPIDR guess stays,
 * with a WARN that says so.
 */
#include "app/cpus.h"

#include "boot/acpi_pptt.h"
#include "report/inventory.h"

static bool uid_of(const struct inventory *inv, uint32_t mpidr, uint32_t *uid)
{
        for (uint32_t i = 0; inv && inv->madt && i < inv->madt->n_cpus; i++)
                if (inv->madt->cpu[i].apic_id == mpidr) {
                        *uid = inv->madt->cpu[i].acpi_uid;
                        return true;
                }
        return false;
}

/* One line on what the PPTT says of the first processor's caches: which level each is
 * shared at ("L1 core, L2 core, L3 cluster"), or that it describes none. */
static void report_caches(const struct acpi_pptt_cpu *p)
{
        char     line[128];
        size_t   n = 0;

        if (!p->n_levels) {
                rep_info("topology: the PPTT describes no caches: last-level-cache domain "
                         "unknown");
                return;
        }
        line[0] = 0;
        for (unsigned l = 0; l < ACPI_PPTT_MAX_LEVELS && n < sizeof(line); l++)
                if (p->cache_offset[l])
                        n += (size_t)fmt_snprintf(line + n, sizeof(line) - n, "%sL%u %s",
                                                  n ? ", " : "", l + 1,
                                                  acpi_pptt_scope_name(p->cache_scope[l]));
        rep_info("topology: PPTT caches, by where each level is shared: %s", line);
}

void app_cpus_topology_from_pptt(struct app_cpus *cs, const struct inventory *inv)
{
        struct plat_fw_table t;
        struct acpi_diag     d = { 0 };
        struct acpi_pptt_cpu p, first = { 0 };
        unsigned             n = 0, n_arm = 0, missing = 0;
        status_t             st;

        for (unsigned i = 0; i < cs->n; i++)
                n_arm += cs->cpu[i].described && cs->cpu[i].topo.source &&
                         !strcmp(cs->cpu[i].topo.source, "MPIDR_EL1");
        if (!n_arm)
                return;
        if (plat_fw_table(PLAT_FW_ACPI, "PPTT", 0, &t) != ST_OK) {
                rep_warn("topology: no PPTT: package, core and thread are guessed from "
                         "MPIDR_EL1's affinity fields, which the architecture gives no "
                         "topology meaning; no cluster, no last-level-cache domain");
                return;
        }
        if ((st = acpi_pptt_check(t.data, ACPI_LEN_FROM_HEADER, NULL, &d)) != ST_OK) {
                rep_warn("topology: PPTT rejected at offset 0x%x: %s (%s); package, core and "
                         "thread are guessed from MPIDR_EL1", d.offset, d.what, status_str(st));
                return;
        }
        for (unsigned i = 0; i < cs->n; i++) {
                struct app_cpu *c = &cs->cpu[i];
                uint32_t        uid;

                if (!c->described || !c->topo.source || strcmp(c->topo.source, "MPIDR_EL1"))
                        continue;
                if (!uid_of(inv, c->topo.apic_id, &uid) ||
                    acpi_pptt_cpu(t.data, uid, &p) != ST_OK) {
                        missing++;
                        continue;
                }
                if (!n++)
                        first = p;
                cpu_topology_from_pptt(&c->topo, &p);
        }
        if (missing)
                rep_warn("topology: %u of %u processors have no PPTT node (by their MADT "
                         "GICC UID): theirs is guessed from MPIDR_EL1", missing, n_arm);
        if (n)
                report_caches(&first);
}
