/** @file Inventory report and inventory.json (see inventory.h). */
#include "report/inventory.h"

static const char *yesno(bool b)
{
        return b ? "yes" : "no";
}

const char *inventory_size_str(char *buf, size_t n, uint64_t bytes)
{
        static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
        unsigned                 u       = 0;
        uint64_t                 scale   = 1;

        while (u + 1 < ARRAY_SIZE(units) && bytes >= scale * 1024)
                scale *= 1024, u++;
        if (bytes % scale == 0)
                fmt_snprintf(buf, n, "%llu %s", (unsigned long long)(bytes / scale), units[u]);
        else /* one decimal, rounded down: 1.5 MiB */
                fmt_snprintf(buf, n, "%llu.%llu %s", (unsigned long long)(bytes / scale),
                             (unsigned long long)(bytes % scale * 10 / scale), units[u]);
        return buf;
}

const char *inventory_table_state_name(const struct inv_table *t)
{
        switch (t->state) {
        case INV_TABLE_OK:          return "ok";
        case INV_TABLE_MALFORMED:   return "malformed";
        case INV_TABLE_UNSUPPORTED: return "unsupported";
        case INV_TABLE_ABSENT:      break;
        }
        return "absent";
}

void inventory_free(struct inventory *inv)
{
        if (!inv)
                return;
        plat_free(inv->madt);
        plat_free(inv->srat);
        plat_free(inv->slit);
        plat_free(inv->hmat);
        plat_free(inv->smbios);
        plat_free(inv);
}

unsigned inventory_n_nodes(const struct inventory *inv)
{
        return inv->srat && inv->srat->n_nodes ? inv->srat->n_nodes : 1;
}

int inventory_node_of_apic(const struct inventory *inv, uint32_t apic_id)
{
        if (!inv->srat)
                return -1;
        for (uint32_t i = 0; i < inv->srat->n_cpus; i++)
                if (inv->srat->cpu[i].apic_id == apic_id && inv->srat->cpu[i].enabled)
                        return (int)inv->srat->cpu[i].node;
        return -1;
}

uint64_t inventory_node_mem(const struct inventory *inv, uint32_t node)
{
        uint64_t sum = 0;

        if (!inv->srat)
                return 0;
        for (uint32_t i = 0; i < inv->srat->n_mem; i++)
                if (inv->srat->mem[i].node == node && acpi_srat_mem_present(&inv->srat->mem[i]))
                        sum += inv->srat->mem[i].len;
        return sum;
}

/* Enabled SRAT ranges of @p node with any of @p flags (hot-pluggable, non-volatile): not
 * memory the node has now, reported beside it. */
static uint64_t node_mem_flagged(const struct inventory *inv, uint32_t node, uint32_t flags)
{
        uint64_t sum = 0;

        for (uint32_t i = 0; i < inv->srat->n_mem; i++)
                if (inv->srat->mem[i].node == node &&
                    (inv->srat->mem[i].flags & ACPI_SRAT_MEM_ENABLED) &&
                    (inv->srat->mem[i].flags & flags))
                        sum += inv->srat->mem[i].len;
        return sum;
}

/* 2994000000 -> "2.994 GHz" */
static const char *hz_str(char *buf, size_t n, uint64_t hz)
{
        if (!hz)
                return "unknown";
        fmt_snprintf(buf, n, "%llu.%03llu GHz", (unsigned long long)(hz / 1000000000),
                     (unsigned long long)(hz / 1000000 % 1000));
        return buf;
}

static const struct {
        const char *name, *text;
} secure_boot_words[] = {
        [PLAT_SB_UNKNOWN]    = { NULL, "unknown (the firmware publishes no SecureBoot variable)" },
        [PLAT_SB_OFF]        = { "off", "off (SecureBoot = 0: images are not verified)" },
        [PLAT_SB_ON]         = { "on", "on (SecureBoot = 1: this image passed the firmware's signature check)" },
        [PLAT_SB_SETUP_MODE] = { "setup_mode", "off, setup mode (SetupMode = 1: no platform key enrolled)" },
};

const char *inventory_secure_boot_name(enum plat_secure_boot sb)
{
        return (unsigned)sb < ARRAY_SIZE(secure_boot_words)
                       ? secure_boot_words[sb].name : NULL;
}

const char *inventory_secure_boot_text(enum plat_secure_boot sb)
{
        return (unsigned)sb < ARRAY_SIZE(secure_boot_words)
                       ? secure_boot_words[sb].text : secure_boot_words[PLAT_SB_UNKNOWN].text;
}

const char *inventory_tsc_source_name(enum inv_tsc_source s)
{
        switch (s) {
        case INV_TSC_CPUID:      return "cpuid";
        case INV_TSC_CALIBRATED: return "calibrated";
        case INV_TSC_CNTFRQ:     return "cntfrq";
        case INV_TSC_UNKNOWN:    break;
        }
        return "unknown";
}

/* ---- console --------------------------------------------------------------------------- */

static void print_cpu(const struct inventory *inv)
{
        const struct cpu_info *c = &inv->cpu;
        char                   a[32], b[32];

        if (inv->cpu_st != ST_OK) {
                rep_printf("CPU         : CPUID could not be decoded (%s)\n",
                           status_str(inv->cpu_st));
                return;
        }
        rep_printf("CPU         : %s\n", c->brand[0] ? c->brand : "(no brand string)");
        rep_printf("              %s (%s) family/model %s stepping %u, signature 0x%08x\n",
                   cpu_vendor_name(c->vendor), c->vendor_str,
                   fmt_family_model(a, sizeof(a), c->family, c->model), c->stepping,
                   c->signature);
        if (inv->microcode_st == ST_OK)
                rep_printf("Microcode   : 0x%llx\n", (unsigned long long)inv->microcode);
        else
                rep_printf("Microcode   : unreadable (%s)\n", status_str(inv->microcode_st));
        if (c->hypervisor)
                rep_printf("Hypervisor  : %s\n", c->hv_vendor[0] ? c->hv_vendor : "(unnamed)");

        rep_printf("TSC         : %s, %s", hz_str(a, sizeof(a), inv->tsc_hz),
                   inv->tsc_source == INV_TSC_CPUID ? "from CPUID 0x15" : "");
        if (inv->tsc_source == INV_TSC_CALIBRATED)
                rep_printf("calibrated against the firmware timer (%u ms runs, spread %u ppm)",
                           inv->tsc_cal_ms, inv->tsc_cal_spread_ppm);
        if (inv->tsc_source == INV_TSC_CPUID && inv->tsc_hz_calibrated)
                rep_printf(" (calibration gave %s)",
                           hz_str(b, sizeof(b), inv->tsc_hz_calibrated));
        rep_printf("; invariant %s, rdtscp %s\n", yesno(c->tsc_invariant), yesno(c->rdtscp));
        if (inv->nominal_hz)
                rep_printf("Nominal     : %s\n", hz_str(a, sizeof(a), inv->nominal_hz));
}

unsigned inventory_cache_sharing_cpus(const struct inventory *inv, const struct cpu_cache *k)
{
        unsigned shift = 0, n = 0;

        if (!inv || !k || !k->n_sharing)
                return 0;
        while (shift < 31 && (1u << shift) < k->n_sharing)
                shift++;
        uint32_t domain = inv->cpu.initial_apic_id >> shift;
        if (inv->n_cpus <= 1 && !inv->madt && plat_info()->cpus_unlisted)
                return 0; /* only the BSP is known: no count */
        if (inv->n_cpus > 1 || !inv->madt) {
                for (unsigned i = 0; i < inv->n_cpus && i < INV_MAX_CPUS; i++)
                        if (inv->cpus[i].enabled && inv->cpus[i].apic_id >> shift == domain)
                                n++;
                return n;
        }
        /* one processor listed (a recorded machine, a firmware without MP services): the
         * MADT's enabled processors, when there is a MADT, else no count */
        for (uint32_t i = 0; i < inv->madt->n_cpus && i < ACPI_MAX_CPUS; i++)
                if (inv->madt->cpu[i].enabled && inv->madt->cpu[i].apic_id >> shift == domain)
                        n++;
        return n;
}

static const char *ways_str(char *buf, size_t n, uint32_t ways)
{
        if (ways == CPU_WAYS_UNKNOWN)
                fmt_snprintf(buf, n, "ways n/a");
        else if (ways)
                fmt_snprintf(buf, n, "%u-way", ways);
        else
                fmt_snprintf(buf, n, "fully assoc");
        return buf;
}

static void print_caches(const struct inventory *inv)
{
        const struct cpu_info *c = &inv->cpu;
        char                   s[24];

        if (!c->n_caches)
                rep_printf("Caches      : none described by CPUID\n");
        for (size_t i = 0; i < c->n_caches; i++) {
                const struct cpu_cache *k = &c->caches[i];
                char                    ways[16], share[48] = "sharing unknown";
                unsigned                cpus = inventory_cache_sharing_cpus(inv, k);

                if (cpus)
                        fmt_snprintf(share, sizeof(share), "shared by %u CPU%s", cpus,
                                     cpus == 1 ? "" : "s");
                else if (k->n_sharing)
                        fmt_snprintf(share, sizeof(share), "sharing field %u IDs", k->n_sharing);
                rep_printf("%-12s: L%u %-11s %9s %-11s %u B lines, %u sets, %s%s\n",
                           i ? "" : "Caches", k->level, cpu_cache_type_name(k->type),
                           inventory_size_str(s, sizeof(s), k->size_bytes),
                           ways_str(ways, sizeof(ways), k->ways), k->line_bytes, k->sets, share,
                           k->inclusive ? ", inclusive" : "");
                if (k->source)
                        rep_printf("%-12s  (not in CPUID: %s)\n", "", k->source);
        }
}

static void print_tlbs(const struct cpu_info *c)
{
        if (!c->n_tlbs)
                rep_printf("TLBs        : none described by CPUID\n");
        for (size_t i = 0; i < c->n_tlbs; i++) {
                const struct cpu_tlb *t = &c->tlbs[i];
                char                  ways[16];

                ways_str(ways, sizeof(ways), t->ways);
                rep_printf("%-12s: L%u %-11s %s%s%s%s %5u entries %-11s (%s)\n", i ? "" : "TLBs",
                           t->level, cpu_tlb_type_name(t->type),
                           t->page_sizes & TLB_PG_4K ? "4K " : "",
                           t->page_sizes & TLB_PG_2M ? "2M " : "",
                           t->page_sizes & TLB_PG_4M ? "4M " : "",
                           t->page_sizes & TLB_PG_1G ? "1G " : "", t->entries, ways,
                           t->source ? t->source : "CPUID");
        }
}

static void print_pmu(const struct inventory *inv)
{
        const struct cpu_pmu_intel *i = &inv->cpu.intel;
        const struct cpu_pmu_amd   *a = &inv->cpu.amd;

        if (inv->cpu.vendor == VEN_INTEL || i->version) {
                if (!i->version)
                        rep_printf("PMU         : Intel architectural perfmon absent (CPUID 0xA "
                                   "version 0)\n");
                else
                        rep_printf("PMU         : Intel architectural perfmon v%u: %u GP x %u bits, "
                                   "%u fixed x %u bits (mask 0x%x), events unavailable 0x%x of "
                                   "%u\n", i->version, i->n_gp, i->gp_width, i->n_fixed,
                                   i->fixed_width, i->fixed_mask, i->events_unavailable,
                                   i->ebx_len);
                rep_printf("              PDCM %s, DS %s, DTES64 %s, Arch LBR %s",
                           yesno(i->pdcm), yesno(i->ds), yesno(i->dtes64), yesno(i->arch_lbr));
                if (i->arch_lbr)
                        rep_printf(" (depths 0x%x, cycles %s)", i->arch_lbr_depth_mask,
                                   yesno(i->arch_lbr_cycles));
                rep_printf("\n");
        }
        if (inv->cpu.vendor == VEN_AMD || inv->cpu.vendor == VEN_HYGON) {
                rep_printf("PMU         : AMD %u core counters; PerfCtrExtCore %s, PerfMonV2 %s, "
                           "NB %s, LLC %s, LBRv2 depth %u\n", a->n_core, yesno(a->perfctr_core),
                           yesno(a->perfmon_v2), yesno(a->perfctr_nb), yesno(a->perfctr_llc),
                           a->lbr_v2_depth);
                rep_printf("              IBS %s", yesno(a->ibs));
                if (a->ibs)
                        rep_printf(" (CPUID 0x8000001B caps 0x%x)", a->ibs_caps);
                rep_printf("\n");
        }
        for (unsigned k = 0; k < inv->n_msrs; k++) {
                const struct inv_msr *m = &inv->msrs[k];
                if (m->st == ST_OK)
                        rep_printf("MSR         : %-24s 0x%-8x = 0x%llx\n", m->name, m->msr,
                                   (unsigned long long)m->value);
                else if (m->st == ST_FAULT)
                        rep_printf("MSR         : %-24s 0x%-8x unsupported (#GP)\n", m->name,
                                   m->msr);
                else
                        rep_printf("MSR         : %-24s 0x%-8x not probed: %s\n", m->name,
                                   m->msr, m->why ? m->why : status_str(m->st));
        }
}

static void print_cpus(const struct inventory *inv)
{
        const char *via = plat_info()->cpus_via;

        rep_printf("CPUs        : %u logical, %u enabled (%s)%s\n",
                   inv->n_cpus_total, inv->n_cpus_enabled, via ? via : "firmware MP services",
                   inv->n_cpus < inv->n_cpus_total ? " - list truncated" : "");
        rep_printf("              APIC IDs:");
        for (unsigned i = 0; i < inv->n_cpus; i++)
                rep_printf(" %u%s%s", inv->cpus[i].apic_id, inv->cpus[i].is_bsp ? "(BSP)" : "",
                           inv->cpus[i].enabled ? "" : "(off)");
        rep_printf("\n");
        if (inv->madt) {
                rep_printf("MADT        : %u processors, %u enabled%s", inv->madt->n_cpus,
                           inv->madt->n_enabled,
                           inv->madt->n_cpus == inv->n_cpus_total ? "" : " (differs from MP services)");
                /* the entries the parser did not count (boot/acpi.h struct acpi_cpu) */
                if (inv->madt->n_placeholders)
                        rep_printf("; %u placeholder entr%s not counted (invalid ID, or neither "
                                   "enabled nor online capable)", inv->madt->n_placeholders,
                                   inv->madt->n_placeholders == 1 ? "y" : "ies");
                if (inv->madt->n_x2apic_dup)
                        rep_printf("; %u x2APIC entr%s below ID 0xFF beside xAPIC entries not "
                                   "counted", inv->madt->n_x2apic_dup,
                                   inv->madt->n_x2apic_dup == 1 ? "y" : "ies");
                rep_printf("\n");
        }
        else
                rep_printf("MADT        : %s%s%s\n", inventory_table_state_name(&inv->madt_t),
                           inv->madt_t.diag[0] ? ": " : "", inv->madt_t.diag);
}

static void print_numa(const struct inventory *inv)
{
        char s[24];

        if (!inv->srat) {
                rep_printf("NUMA        : 1 node (SRAT %s%s%s)\n", inventory_table_state_name(&inv->srat_t),
                           inv->srat_t.diag[0] ? ": " : "", inv->srat_t.diag);
        } else {
                rep_printf("NUMA        : %u nodes (SRAT)\n", inv->srat->n_nodes);
                for (uint32_t n = 0; n < inv->srat->n_nodes; n++) {
                        uint32_t node = inv->srat->node[n];
                        uint64_t hp = node_mem_flagged(inv, node, ACPI_SRAT_MEM_HOT_PLUGGABLE);
                        uint64_t nv = node_mem_flagged(inv, node, ACPI_SRAT_MEM_NON_VOLATILE);
                        rep_printf("              node %u: %s", node,
                                   inventory_size_str(s, sizeof(s), inventory_node_mem(inv, node)));
                        if (hp)
                                rep_printf(" (+ %s hot-pluggable, not present)",
                                           inventory_size_str(s, sizeof(s), hp));
                        if (nv)
                                rep_printf(" (+ %s non-volatile)",
                                           inventory_size_str(s, sizeof(s), nv));
                        rep_printf(", APIC IDs");
                        for (uint32_t i = 0; i < inv->srat->n_cpus; i++)
                                if (inv->srat->cpu[i].node == node && inv->srat->cpu[i].enabled)
                                        rep_printf(" %u", inv->srat->cpu[i].apic_id);
                        rep_printf("\n");
                }
        }
        if (inv->slit) {
                rep_printf("SLIT        : %u x %u distances\n", inv->slit->n, inv->slit->n);
                for (uint32_t i = 0; i < inv->slit->n; i++) {
                        rep_printf("              ");
                        for (uint32_t j = 0; j < inv->slit->n; j++)
                                rep_printf("%4u", inv->slit->dist[i][j]);
                        rep_printf("\n");
                }
        } else {
                rep_printf("SLIT        : %s%s%s\n", inventory_table_state_name(&inv->slit_t),
                           inv->slit_t.diag[0] ? ": " : "", inv->slit_t.diag);
        }
        if (inv->hmat) {
                rep_printf("HMAT        : %u memory-level entries\n", inv->hmat->n_entries);
                for (uint32_t i = 0; i < inv->hmat->n_entries; i++) {
                        const struct acpi_hmat_entry *e = &inv->hmat->entry[i];
                        bool lat = e->data_type <= ACPI_HMAT_WRITE_LATENCY;
                        if (e->hierarchy != 0 || e->state != ACPI_HMAT_VALUE)
                                continue;
                        if (lat)
                                rep_printf("              %-16s initiator %u -> target %u: "
                                           "%llu.%03llu ns\n",
                                           acpi_hmat_type_name(e->data_type), e->initiator_pd,
                                           e->target_pd, (unsigned long long)(e->value / 1000),
                                           (unsigned long long)(e->value % 1000));
                        else
                                rep_printf("              %-16s initiator %u -> target %u: "
                                           "%llu MB/s\n",
                                           acpi_hmat_type_name(e->data_type), e->initiator_pd,
                                           e->target_pd, (unsigned long long)e->value);
                }
        } else {
                rep_printf("HMAT        : %s%s%s\n", inventory_table_state_name(&inv->hmat_t),
                           inv->hmat_t.diag[0] ? ": " : "", inv->hmat_t.diag);
        }
}

static void print_smbios(const struct inventory *inv)
{
        const struct smbios_info *s = inv->smbios;
        char                      sz[24];

        if (!s) {
                rep_printf("SMBIOS      : %s%s%s\n", inventory_table_state_name(&inv->smbios_t),
                           inv->smbios_t.diag[0] ? ": " : "", inv->smbios_t.diag);
                return;
        }
        rep_printf("System      : %s %s (version %s)\n", s->sys_manufacturer, s->sys_product,
                   s->sys_version[0] ? s->sys_version : "-");
        rep_printf("Board       : %s %s\n", s->board_manufacturer[0] ? s->board_manufacturer : "-",
                   s->board_product);
        rep_printf("BIOS        : %s %s (%s), SMBIOS %u.%u%s\n", s->bios_vendor, s->bios_version,
                   s->bios_date, s->major, s->minor,
                   inv->smbios_t.state == INV_TABLE_MALFORMED ? " - walk stopped early" : "");
        for (uint32_t i = 0; i < s->n_cpus; i++)
                rep_printf("Socket      : %s: %s %s, %u cores (%u enabled), %u threads, max %u "
                           "MHz%s\n", s->cpu[i].socket, s->cpu[i].manufacturer, s->cpu[i].version,
                           s->cpu[i].n_cores, s->cpu[i].n_cores_enabled, s->cpu[i].n_threads,
                           s->cpu[i].max_speed_mhz, s->cpu[i].populated ? "" : " (empty)");
        rep_printf("DIMMs       : %u of %u slots populated, %s\n", s->n_mem_populated,
                   s->n_mem_devices, inventory_size_str(sz, sizeof(sz), s->mem_total_bytes));
}

void inventory_print(const struct inventory *inv)
{
        char a[24], b[24];

        rep_printf("Platform    : %s\n", inv->platform ? inv->platform : "unknown");
        rep_printf("Secure Boot : %s\n", inventory_secure_boot_text(inv->secure_boot));
        print_cpu(inv);
        print_caches(inv);
        print_tlbs(&inv->cpu);
        print_pmu(inv);
        print_cpus(inv);
        print_numa(inv);
        print_smbios(inv);
        if (inv->mem_st == ST_OK)
                rep_printf("Memory map  : %s RAM, %s free for pmucal, %u descriptors\n",
                           inventory_size_str(a, sizeof(a), inv->mem.total_bytes),
                           inventory_size_str(b, sizeof(b), inv->mem.conventional_bytes),
                           inv->mem.n_descriptors);
        else
                rep_printf("Memory map  : unavailable (%s)\n", status_str(inv->mem_st));
}
