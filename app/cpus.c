/** @file
 * The processors phase: park the chosen application processors (boot/mp.h), let every
 * processor describe itself (its own APIC ID, package/core/thread and last-level-cache
 * domain from CPUID), and hold that against what the firmware claims: MP services' APIC
 * IDs, the MADT's processor entries and SRAT's processor affinity. Writes processors.json.
 *
 * Parked APs spin on their mailboxes, which an emulator pays for with host time (QEMU's
 * MWAIT does not sleep with several vCPUs), so the APs are parked only for the phases that
 * use them: app_cpus_park() at a phase's start, app_cpus_release() at its end.
 */
#include "app/cpus.h"

#include "boot/mp.h"
#include "boot/smbios.h"
#include "report/inventory.h"
#include "report/json.h"

#define PARK_TIMEOUT_US  (1000u * 1000)   /* a healthy AP parks in well under a millisecond */
#define CALL_TIMEOUT_US  (1000u * 1000)
#define CPUS_FILE        "processors.json"

static struct app_cpus cpus;

const struct app_cpus *app_cpus_get(void)
{
        return &cpus;
}

/* Each processor describes itself and recovers two deliberate faults of its own, so that an
 * AP's *_safe accessors are known to report "unsupported" as the BSP's do. */
static void describe_self(void *arg)
{
        struct app_cpu *c = arg;

        cpu_topology_self(&c->topo);
        app_cpus_fault_self(c);
}

static bool madt_has(const struct inventory *inv, uint32_t apic_id)
{
        for (uint32_t i = 0; inv->madt && i < inv->madt->n_cpus; i++)
                if (inv->madt->cpu[i].apic_id == apic_id && inv->madt->cpu[i].enabled)
                        return true;
        return false;
}

static const char *state_name(enum mp_state s)
{
        static const char *const names[] = {
                [MP_ABSENT] = "not used", [MP_BSP] = "bsp", [MP_PARKED] = "parked",
                [MP_LOST] = "lost",
        };
        return names[s];
}

/* Which processors take part: the config's choice (the BSP always: it runs the harness). */
static void choose(const struct run *r, bool *want, unsigned n)
{
        for (unsigned i = 0; i < n; i++) {
                struct plat_cpu c;
                bool            known = plat_cpu_info(i, &c, NULL) == ST_OK;
                want[i] = r->cfg.cpus == CONFIG_CPUS_ALL || (known && c.is_bsp) ||
                          (known && r->cfg.cpus == CONFIG_CPUS_LIST &&
                           config_cpus_has(&r->cfg.cpu_list, c.apic_id));
        }
}

/* The config's choice as processors.json and the console name it. */
static const char *chosen_name(const struct run *r)
{
        return r->cfg.cpus == CONFIG_CPUS_ALL ? "all" : r->cfg.cpus == CONFIG_CPUS_BSP ? "bsp"
                                                                                 : "list";
}

/* cpus = list: say who was asked for and who takes part; every item of the list that names
 * no processor of this machine is a WARN (a typo there silently shrinks the run). */
static unsigned report_list(const struct run *r)
{
        const struct config_cpu_list *l = &r->cfg.cpu_list;
        char                          text[CONFIG_MAX_LINE];
        unsigned                      unmatched = 0;

        if (r->cfg.cpus != CONFIG_CPUS_LIST)
                return 0;
        rep_info("listed: %s: the processors with those APIC IDs take part, and the BSP",
                 config_cpus_text(l, text, sizeof(text)));
        for (unsigned k = 0; k < l->n; k++) {
                bool hit = false;
                for (unsigned i = 0; i < cpus.n && !hit; i++)
                        hit = cpus.cpu[i].fw_apic >= l->lo[k] && cpus.cpu[i].fw_apic <= l->hi[k];
                if (hit)
                        continue;
                unmatched++;
                if (l->lo[k] == l->hi[k])
                        rep_warn("APIC ID %u is listed but no processor has it", l->lo[k]);
                else
                        rep_warn("APIC IDs %u-%u are listed but no processor has one",
                                 l->lo[k], l->hi[k]);
        }
        for (unsigned i = 0; i < cpus.n; i++)
                if (cpus.cpu[i].state == MP_BSP && !config_cpus_has(l, cpus.cpu[i].fw_apic))
                        rep_info("the BSP (APIC ID %u) is not listed but takes part: it runs the "
                                 "harness", cpus.cpu[i].fw_apic);
        return unmatched;
}

/* Where the platform places memory by node itself (plat_node_info serves: hosted), processor
 * @p i's node is its word; true when it gave one. */
static bool platform_node(unsigned i, int *node)
{
        struct plat_cpu pc;

        if (plat_node_info(0, NULL, NULL, 0, NULL) != ST_OK || plat_cpu_info(i, &pc, NULL) != ST_OK)
                return false;
        *node = (int)pc.node;
        return true;
}

static void describe_all(const struct inventory *inv)
{
        for (unsigned i = 0; i < cpus.n; i++) {
                struct app_cpu *c = &cpus.cpu[i];
                enum mp_state   s = mp_cpu_state(i);

                *c         = (struct app_cpu){ .state = s };
                c->fw_apic = mp_cpu_apic_id(i);
                c->node    = inv ? inventory_node_of_apic(inv, c->fw_apic) : -1;
                if (c->node < 0 && !(inv && inv->srat)) /* the platform's own (hosted) */
                        platform_node(i, &c->node);
                if (s == MP_BSP || s == MP_PARKED)
                        c->described = mp_run(i, describe_self, c, CALL_TIMEOUT_US) == ST_OK;
                c->state = mp_cpu_state(i); /* lost if it did not answer */
        }
}

static void print_table(void)
{
        rep_printf("  cpu  state      APIC ID (firmware / own)  package  cluster  core  thread  "
                   "LLC domain  node\n");
        for (unsigned i = 0; i < cpus.n; i++) {
                const struct app_cpu *c = &cpus.cpu[i];
                char                  cl[16] = "-", llc[16] = "-";

                if (!c->described) {
                        rep_printf("  %3u  %-9s  %8u / -\n", i, state_name(c->state), c->fw_apic);
                        continue;
                }
                if (c->topo.group != TOPO_GROUP_NONE)
                        fmt_snprintf(cl, sizeof(cl), "%u", c->topo.cluster);
                /* an LLC domain only where a cache was described (not QEMU's PPTT) */
                if (c->topo.llc_level || strcmp(c->topo.source ? c->topo.source : "", "PPTT"))
                        fmt_snprintf(llc, sizeof(llc), "%u", c->topo.llc_domain);
                rep_printf("  %3u  %-9s  %8u / %-13u  %7u  %7s  %4u  %6u  %10s  %4d\n", i,
                           state_name(c->state), c->fw_apic, c->topo.apic_id, c->topo.package,
                           cl, c->topo.core, c->topo.thread, llc, c->node);
        }
}

/* Every processor that described itself also took a #UD (ud2) and an RDPMC of a counter no
 * CPU has (#GP, or #UD where RDPMC is not emulated) and came back through its own fixup. */
static void check_faults(void)
{
        unsigned n = 0, ok = 0, unsupported = 0;

        for (unsigned i = 0; i < cpus.n; i++) {
                const struct app_cpu *c = &cpus.cpu[i];
                if (!c->described)
                        continue;
                if (c->ud_st == ST_UNSUPPORTED || c->pmc_st == ST_UNSUPPORTED) {
                        /* no handlers of ours (hosted), or an architecture without the probe */
                        unsupported++;
                        continue;
                }
                n++;
                ok += c->ud_st == ST_OK && c->ud_vec == 6 && c->pmc_st == ST_FAULT &&
                      (c->pmc_vec == 6 || c->pmc_vec == 13);
        }
        if (unsupported)
                rep_skip(REP_SKIP_ENV, "fault recovery on %u processors: not probed here (no "
                         "fault handlers "
                         "of ours, or no such probe on this architecture)",
                         unsupported);
        if (n)
                rep_check(ok == n, "%u of %u processors recovered their own deliberate faults "
                          "(ud2 -> #UD, rdpmc of a counter no CPU has -> #GP or #UD)", ok, n);
}

/* AArch64: every processor runs at the boot processor's exception level (the secondaries
 * were brought to it before any C code); each says its own. */
static void check_levels(unsigned n)
{
        unsigned bsp_el = 0, same = 0, with_el = 0;

        for (unsigned i = 0; i < cpus.n; i++)
                if (cpus.cpu[i].described && cpus.cpu[i].state == MP_BSP)
                        bsp_el = cpus.cpu[i].el;
        for (unsigned i = 0; i < cpus.n; i++) {
                const struct app_cpu *c = &cpus.cpu[i];
                if (!c->described || !c->el)
                        continue;
                with_el++;
                same += c->el == bsp_el;
                rep_info("processor %u (MPIDR affinity 0x%x) runs at EL%u", i, c->topo.apic_id,
                         c->el);
        }
        if (with_el)
                rep_check(bsp_el && same == n, "%u of %u processors run at EL%u, the boot "
                          "processor's exception level", same, n, bsp_el);
}

static void check(const struct inventory *inv)
{
        unsigned n = 0, id_ok = 0, madt_ok = 0, srat_ok = 0, n_nodes = 0;

        for (unsigned i = 0; i < cpus.n; i++) {
                const struct app_cpu *c = &cpus.cpu[i];
                if (!c->described)
                        continue;
                n++;
                id_ok += c->topo.apic_id == c->fw_apic;
                madt_ok += madt_has(inv, c->topo.apic_id);
                srat_ok += c->node >= 0;
        }
        /* AArch64 without MP services: the platform lists the MADT's GICC entries and
         * starts them with PSCI (boot/arm64/smp.h); the ID is the MPIDR affinity. */
        const char *via = plat_info()->cpus_via;
        bool        psci = via && !strncmp(via, "PSCI", 4);
        rep_check(id_ok == n, "%u of %u processors report the %s gives them", id_ok, n,
                  psci ? "MPIDR affinity the MADT (PSCI)" : "APIC ID MP services");
        if (inv && inv->madt)
                rep_check(madt_ok == n, "%u of %u processors' own APIC IDs are enabled in the MADT",
                          madt_ok, n);
        else
                rep_skip(REP_SKIP_ENV, "no MADT to hold the processors against");
        check_faults();
        check_levels(n);
        if (inv && inv->srat)
                rep_check(srat_ok == n, "%u of %u processors have a node in SRAT", srat_ok, n);
        else if (plat_node_info(0, NULL, NULL, 0, &n_nodes) == ST_OK)
                rep_info("no SRAT: the platform's %u node%s (%s)", n_nodes, n_nodes == 1 ? "" : "s",
                         plat_info()->name);
        else
                rep_info("no SRAT: one node");
}

static status_t write_json(struct run *r, unsigned n_unmatched)
{
        struct rep_buf b = { 0 };
        struct json_w  w;
        status_t       st;

        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.processors/1.2");
        json_str(&w, "chosen", chosen_name(r));
        if (r->cfg.cpus == CONFIG_CPUS_LIST) {
                char text[CONFIG_MAX_LINE];
                json_str(&w, "cpu_list", config_cpus_text(&r->cfg.cpu_list, text, sizeof(text)));
                json_u64(&w, "n_list_unmatched", n_unmatched);
        } else {
                json_null(&w, "cpu_list");
                json_null(&w, "n_list_unmatched");
        }
        json_u64(&w, "n_taking_part", cpus.n_taking_part);
        json_arr_begin(&w, "processors");
        for (unsigned i = 0; i < cpus.n; i++) {
                const struct app_cpu *c = &cpus.cpu[i];
                json_obj_begin(&w, NULL);
                json_u64(&w, "index", i);
                json_str(&w, "state", state_name(c->state));
                json_u64(&w, "firmware_apic_id", c->fw_apic);
                if (c->described) {
                        json_u64(&w, "apic_id", c->topo.apic_id);
                        json_u64(&w, "package", c->topo.package);
                        json_u64(&w, "core", c->topo.core);
                        json_u64(&w, "thread", c->topo.thread);
                        if (c->topo.group != TOPO_GROUP_NONE)
                                json_u64(&w, "cluster", c->topo.cluster);
                        else
                                json_null(&w, "cluster");
                        json_str(&w, "cluster_kind", topo_group_name(c->topo.group));
                        json_u64(&w, "llc_domain", c->topo.llc_domain);
                        json_u64(&w, "llc_level", c->topo.llc_level);
                        json_str(&w, "topology_source", c->topo.source);
                } else {
                        json_null(&w, "apic_id");
                }
                if (c->node >= 0)
                        json_u64(&w, "node", (uint64_t)c->node);
                else
                        json_null(&w, "node");
                json_obj_end(&w);
        }
        json_arr_end(&w);
        json_obj_end(&w);
        if ((st = json_finish(&w)) != ST_OK) {
                rep_buf_free(&b);
                return rep_err(st, "formatting %s", CPUS_FILE);
        }
        return run_add_file(r, CPUS_FILE, &b);
}

status_t app_cpus_park(const struct run *r)
{
        static bool want[MP_MAX_CPUS];
        status_t    st;

        cpus.n = plat_cpu_count() < MP_MAX_CPUS ? plat_cpu_count() : MP_MAX_CPUS;
        choose(r, want, cpus.n);
        if ((st = mp_start(want, PARK_TIMEOUT_US, NULL)) != ST_OK)
                return rep_err(st, "starting the application processors");
        for (unsigned i = 0; i < cpus.n; i++)
                cpus.cpu[i].state = mp_cpu_state(i);
        return ST_OK;
}

status_t phase_cpus(struct run *r)
{
        status_t st;

        if ((st = app_cpus_park(r)) != ST_OK)
                return st;
        describe_all(r->inv);
        app_cpus_release();
        app_cpus_topology_from_pptt(&cpus, r->inv);
        cpus.n_taking_part = 0;
        for (unsigned i = 0; i < cpus.n; i++)
                cpus.n_taking_part += cpus.cpu[i].state == MP_BSP || cpus.cpu[i].state == MP_PARKED;
        rep_info("%u of %u processors take part (cpus = %s)%s", cpus.n_taking_part, cpus.n,
                 chosen_name(r),
                 cpus.n_taking_part < 2 ? ": phases that need two CPUs will be skipped" : "");
        unsigned unmatched = report_list(r);
        print_table();
        check(r->inv);
        return write_json(r, unmatched);
}

bool app_cpus_emulated(const struct run *r)
{
        const struct cpu_info    *c = r->inv ? &r->inv->cpu : NULL;
        const struct smbios_info *s = r->inv ? r->inv->smbios : NULL;

        /* AArch64 has no hypervisor leaf: QEMU says so in SMBIOS, and this CI has no KVM for
         * Arm guests, so a QEMU virt machine is taken as TCG. */
        if (r->inv && r->inv->arch && !strcmp(r->inv->arch, "aarch64"))
                return s && !strcmp(s->sys_manufacturer, "QEMU");
        return c && c->hypervisor && !strcmp(c->hv_vendor, "TCGTCGTCGTCG");
}

void app_cpus_release(void)
{
        mp_stop(PARK_TIMEOUT_US);
}
