/** @file inventory.json (schema pmucal.inventory/1.4, docs/inventory.md) and cpuid.txt from a
 * filled struct inventory (see inventory.h). */
#include "report/inventory.h"

/* ---- inventory.json -------------------------------------------------------------------- */

static void json_table_state(struct json_w *w, const char *key, const struct inv_table *t)
{
        json_obj_begin(w, key);
        json_str(w, "state", inventory_table_state_name(t));
        if (t->diag[0])
                json_str(w, "problem", t->diag);
        json_obj_end(w);
}

static void json_cpu(struct json_w *w, const struct inventory *inv)
{
        const struct cpu_info *c = &inv->cpu;

        json_obj_begin(w, "cpu");
        json_str(w, "decode", status_str(inv->cpu_st));
        json_str(w, "vendor", cpu_vendor_name(c->vendor));
        json_str_or_null(w, "vendor_string", c->vendor_str);
        json_str_or_null(w, "brand", c->brand);
        json_u64(w, "family", c->family);
        json_u64(w, "model", c->model);
        json_u64(w, "stepping", c->stepping);
        json_hex(w, "signature", c->signature);
        if (inv->microcode_st == ST_OK)
                json_hex(w, "microcode", inv->microcode);
        else
                json_null(w, "microcode");
        json_bool(w, "hypervisor", c->hypervisor);
        json_str_or_null(w, "hypervisor_vendor", c->hypervisor ? c->hv_vendor : NULL);
        json_hex(w, "max_leaf", c->max_leaf);
        json_hex(w, "max_ext_leaf", c->max_ext_leaf);
        json_obj_begin(w, "features");
        json_bool(w, "pdpe1gb", c->pdpe1gb);
        json_bool(w, "nx", c->nx);
        json_bool(w, "x2apic", c->x2apic);
        json_bool(w, "aperfmperf", c->aperfmperf);
        json_bool(w, "tsc_invariant", c->tsc_invariant);
        json_bool(w, "rdtscp", c->rdtscp);
        json_obj_end(w);
        json_obj_end(w);

        json_obj_begin(w, "tsc");
        json_u64_or_null(w, "hz", inv->tsc_hz);
        json_str_or_null(w, "source", inv->tsc_source == INV_TSC_UNKNOWN
                                              ? NULL : inventory_tsc_source_name(inv->tsc_source));
        json_u64_or_null(w, "cpuid_hz", c->tsc_hz_cpuid);
        json_str_or_null(w, "cpuid_source", c->tsc_hz_source);
        if (inv->tsc_hz_calibrated) {
                json_u64(w, "calibrated_hz", inv->tsc_hz_calibrated);
                json_u64(w, "calibration_spread_ppm", inv->tsc_cal_spread_ppm);
                json_u64(w, "calibration_run_ms", inv->tsc_cal_ms);
        } else {
                json_null(w, "calibrated_hz");
                json_null(w, "calibration_spread_ppm");
                json_null(w, "calibration_run_ms");
        }
        json_bool(w, "invariant", c->tsc_invariant);
        json_u64_or_null(w, "nominal_core_hz", inv->nominal_hz);
        json_u64_or_null(w, "cpuid_base_mhz", c->base_mhz);
        json_u64_or_null(w, "cpuid_max_mhz", c->max_mhz);
        json_obj_end(w);
}

static void json_ways(struct json_w *w, uint32_t ways)
{
        if (ways == CPU_WAYS_UNKNOWN)
                json_null(w, "ways");
        else
                json_u64(w, "ways", ways);
}

static void json_caches_tlbs(struct json_w *w, const struct inventory *inv)
{
        const struct cpu_info *c = &inv->cpu;

        json_arr_begin(w, "caches");
        for (size_t i = 0; i < c->n_caches; i++) {
                const struct cpu_cache *k = &c->caches[i];
                json_obj_begin(w, NULL);
                json_u64(w, "level", k->level);
                json_str(w, "type", cpu_cache_type_name(k->type));
                json_u64_or_null(w, "size_bytes", k->size_bytes);
                json_ways(w, k->ways);
                json_u64_or_null(w, "line_bytes", k->line_bytes);
                json_u64_or_null(w, "sets", k->sets);
                json_u64_or_null(w, "sharing_cpus", inventory_cache_sharing_cpus(inv, k));
                json_u64_or_null(w, "sharing_ids", k->n_sharing);
                json_bool(w, "inclusive", k->inclusive);
                json_str_or_null(w, "source", k->source);
                json_obj_end(w);
        }
        json_arr_end(w);
        json_arr_begin(w, "tlbs");
        for (size_t i = 0; i < c->n_tlbs; i++) {
                const struct cpu_tlb *t = &c->tlbs[i];
                json_obj_begin(w, NULL);
                json_u64(w, "level", t->level);
                json_str(w, "type", cpu_tlb_type_name(t->type));
                json_arr_begin(w, "page_sizes");
                if (t->page_sizes & TLB_PG_4K)
                        json_str(w, NULL, "4K");
                if (t->page_sizes & TLB_PG_2M)
                        json_str(w, NULL, "2M");
                if (t->page_sizes & TLB_PG_4M)
                        json_str(w, NULL, "4M");
                if (t->page_sizes & TLB_PG_1G)
                        json_str(w, NULL, "1G");
                json_arr_end(w);
                json_u64_or_null(w, "entries", t->entries);
                json_ways(w, t->ways);
                json_str_or_null(w, "source", t->source);
                json_obj_end(w);
        }
        json_arr_end(w);
}

static void json_pmu(struct json_w *w, const struct inventory *inv)
{
        const struct cpu_pmu_intel *i = &inv->cpu.intel;
        const struct cpu_pmu_amd   *a = &inv->cpu.amd;

        json_obj_begin(w, "pmu");
        json_obj_begin(w, "intel_arch_perfmon");
        json_u64(w, "version", i->version);
        json_u64(w, "gp_counters", i->n_gp);
        json_u64(w, "gp_width", i->gp_width);
        json_u64(w, "fixed_counters", i->n_fixed);
        json_u64(w, "fixed_width", i->fixed_width);
        json_hex(w, "fixed_mask", i->fixed_mask);
        json_hex(w, "events_unavailable", i->events_unavailable);
        json_u64(w, "event_vector_length", i->ebx_len);
        json_bool(w, "pdcm", i->pdcm);
        json_bool(w, "ds", i->ds);
        json_bool(w, "dtes64", i->dtes64);
        json_bool(w, "arch_lbr", i->arch_lbr);
        json_hex(w, "arch_lbr_depth_mask", i->arch_lbr_depth_mask);
        json_bool(w, "arch_lbr_cycles", i->arch_lbr_cycles);
        json_obj_end(w);
        json_obj_begin(w, "amd");
        json_bool(w, "perfctr_core", a->perfctr_core);
        json_bool(w, "perfctr_nb", a->perfctr_nb);
        json_bool(w, "perfctr_llc", a->perfctr_llc);
        json_bool(w, "perfmon_v2", a->perfmon_v2);
        json_u64(w, "core_counters", a->n_core);
        json_u64(w, "lbr_v2_depth", a->lbr_v2_depth);
        json_bool(w, "ibs", a->ibs);
        json_hex(w, "ibs_caps", a->ibs_caps);
        json_obj_end(w);
        json_arr_begin(w, "msrs");
        for (unsigned k = 0; k < inv->n_msrs; k++) {
                const struct inv_msr *m = &inv->msrs[k];
                json_obj_begin(w, NULL);
                json_str(w, "name", m->name);
                json_hex(w, "msr", m->msr);
                json_str(w, "state", m->st == ST_OK      ? "read"
                                     : m->st == ST_FAULT ? "unsupported"
                                                         : "not probed");
                if (m->st == ST_OK)
                        json_hex(w, "value", m->value);
                else
                        json_null(w, "value");
                if (m->st != ST_OK && m->st != ST_FAULT)
                        json_str(w, "why", m->why ? m->why : status_str(m->st));
                json_obj_end(w);
        }
        json_arr_end(w);
        json_obj_end(w);
}

static void json_cpus(struct json_w *w, const struct inventory *inv)
{
        json_obj_begin(w, "cpus");
        json_u64(w, "logical", inv->n_cpus_total);
        json_u64(w, "enabled", inv->n_cpus_enabled);
        json_arr_begin(w, "list");
        for (unsigned i = 0; i < inv->n_cpus; i++) {
                json_obj_begin(w, NULL);
                json_u64(w, "apic_id", inv->cpus[i].apic_id);
                json_bool(w, "enabled", inv->cpus[i].enabled);
                json_bool(w, "bsp", inv->cpus[i].is_bsp);
                json_u64(w, "package", inv->cpus[i].package);
                json_u64(w, "core", inv->cpus[i].core);
                json_u64(w, "thread", inv->cpus[i].thread);
                int node = inventory_node_of_apic(inv, inv->cpus[i].apic_id);
                if (node >= 0)
                        json_u64(w, "node", (uint64_t)node);
                else
                        json_null(w, "node");
                json_obj_end(w);
        }
        json_arr_end(w);
        if (inv->madt) {
                json_u64(w, "madt_processors", inv->madt->n_cpus);
                json_u64(w, "madt_enabled", inv->madt->n_enabled);
        } else {
                json_null(w, "madt_processors");
                json_null(w, "madt_enabled");
        }
        json_obj_end(w);
}

/* The SLIT distance matrix, or null without a SLIT. */
static void json_slit(struct json_w *w, const struct inventory *inv)
{
        if (inv->slit) {
                json_arr_begin(w, "slit");
                for (uint32_t i = 0; i < inv->slit->n; i++) {
                        json_arr_begin(w, NULL);
                        for (uint32_t j = 0; j < inv->slit->n; j++)
                                json_u64(w, NULL, inv->slit->dist[i][j]);
                        json_arr_end(w);
                }
                json_arr_end(w);
        } else {
                json_null(w, "slit");
        }
}

/* The HMAT entries that carry a value, or null without an HMAT. */
static void json_hmat(struct json_w *w, const struct inventory *inv)
{
        if (inv->hmat) {
                json_arr_begin(w, "hmat");
                for (uint32_t i = 0; i < inv->hmat->n_entries; i++) {
                        const struct acpi_hmat_entry *e = &inv->hmat->entry[i];
                        if (e->state != ACPI_HMAT_VALUE)
                                continue;
                        bool lat = e->data_type <= ACPI_HMAT_WRITE_LATENCY;
                        json_obj_begin(w, NULL);
                        json_str(w, "type", acpi_hmat_type_name(e->data_type));
                        json_u64(w, "hierarchy", e->hierarchy);
                        json_u64(w, "initiator", e->initiator_pd);
                        json_u64(w, "target", e->target_pd);
                        json_u64(w, lat ? "latency_ps" : "bandwidth_mb_s", e->value);
                        json_obj_end(w);
                }
                json_arr_end(w);
        } else {
                json_null(w, "hmat");
        }
}

static void json_numa(struct json_w *w, const struct inventory *inv)
{
        json_obj_begin(w, "numa");
        json_u64(w, "nodes", inventory_n_nodes(inv));
        json_str(w, "source", inv->srat ? "SRAT" : "none (single node assumed)");
        json_arr_begin(w, "node_list");
        if (inv->srat) {
                for (uint32_t n = 0; n < inv->srat->n_nodes; n++) {
                        uint32_t node = inv->srat->node[n];
                        json_obj_begin(w, NULL);
                        json_u64(w, "node", node);
                        json_u64(w, "memory_bytes", inventory_node_mem(inv, node));
                        json_arr_begin(w, "apic_ids");
                        for (uint32_t i = 0; i < inv->srat->n_cpus; i++)
                                if (inv->srat->cpu[i].node == node && inv->srat->cpu[i].enabled)
                                        json_u64(w, NULL, inv->srat->cpu[i].apic_id);
                        json_arr_end(w);
                        json_obj_end(w);
                }
        }
        json_arr_end(w);
        json_slit(w, inv);
        json_hmat(w, inv);
        json_obj_end(w);
}

static void json_topology(struct json_w *w, const struct inventory *inv)
{
        json_cpus(w, inv);
        json_numa(w, inv);
}

static void json_smbios(struct json_w *w, const struct inventory *inv)
{
        const struct smbios_info *s = inv->smbios;

        if (!s) {
                json_null(w, "smbios");
                return;
        }
        json_obj_begin(w, "smbios");
        json_u64(w, "major", s->major);
        json_u64(w, "minor", s->minor);
        json_str_or_null(w, "manufacturer", s->sys_manufacturer);
        json_str_or_null(w, "product", s->sys_product);
        json_str_or_null(w, "system_version", s->sys_version);
        json_str_or_null(w, "uuid", s->has_uuid ? s->sys_uuid_str : NULL);
        json_str_or_null(w, "board_manufacturer", s->board_manufacturer);
        json_str_or_null(w, "board_product", s->board_product);
        json_str_or_null(w, "bios_vendor", s->bios_vendor);
        json_str_or_null(w, "bios_version", s->bios_version);
        json_str_or_null(w, "bios_date", s->bios_date);
        json_arr_begin(w, "sockets");
        for (uint32_t i = 0; i < s->n_cpus; i++) {
                json_obj_begin(w, NULL);
                json_str_or_null(w, "socket", s->cpu[i].socket);
                json_str_or_null(w, "manufacturer", s->cpu[i].manufacturer);
                json_str_or_null(w, "version", s->cpu[i].version);
                json_bool(w, "populated", s->cpu[i].populated);
                /* SMBIOS type 4: 0 is "unknown" for the counts and speeds */
                json_u64_or_null(w, "cores", s->cpu[i].n_cores);
                json_u64_or_null(w, "cores_enabled", s->cpu[i].n_cores_enabled);
                json_u64_or_null(w, "threads", s->cpu[i].n_threads);
                json_u64_or_null(w, "max_speed_mhz", s->cpu[i].max_speed_mhz);
                json_u64_or_null(w, "current_speed_mhz", s->cpu[i].cur_speed_mhz);
                json_obj_end(w);
        }
        json_arr_end(w);
        json_u64(w, "memory_devices", s->n_mem_devices);
        json_u64(w, "memory_populated", s->n_mem_populated);
        json_u64(w, "memory_bytes", s->mem_total_bytes);
        json_obj_end(w);
}

static void json_arm64(struct json_w *w, const struct inv_arm64 *a)
{
        if (!a->valid) {
                json_null(w, "arm64");
                return;
        }
        json_obj_begin(w, "arm64");
        json_hex(w, "midr", a->midr);
        json_hex(w, "mpidr", a->mpidr);
        json_hex(w, "revidr", a->revidr);
        json_str(w, "part", a->part_name);
        json_hex(w, "id_aa64dfr0", a->dfr0);
        json_u64(w, "pmuver", a->pmuver);
        json_str(w, "pmu", a->pmu_name);
        json_hex(w, "pmcr", a->pmcr);
        json_u64(w, "event_counters", a->n_counters);
        json_u64(w, "counter_bits", a->counter_bits);
        json_hex(w, "pmceid0", a->pmceid0);
        json_hex(w, "pmceid1", a->pmceid1);
        json_u64(w, "common_events", a->n_common_events);
        json_u64(w, "spe", a->spe);
        json_u64(w, "brbe", a->brbe);
        json_u64(w, "current_el", a->current_el);
        json_obj_end(w);
}

void inventory_json(struct json_w *w, const struct inventory *inv)
{
        json_obj_begin(w, NULL);
        json_str(w, "schema", INV_SCHEMA);
        json_str_or_null(w, "platform", inv->platform);
        json_str_or_null(w, "secure_boot", inventory_secure_boot_name(inv->secure_boot));
        json_str(w, "arch", inv->arch ? inv->arch : "x86_64");
        json_cpu(w, inv);
        json_caches_tlbs(w, inv);
        json_pmu(w, inv);
        json_arm64(w, &inv->arm64);
        json_topology(w, inv);
        json_smbios(w, inv);
        json_obj_begin(w, "memory_map");
        if (inv->mem_st == ST_OK) {
                json_u64(w, "ram_bytes", inv->mem.total_bytes);
                json_u64(w, "free_bytes", inv->mem.conventional_bytes);
                json_u64(w, "reserved_bytes", inv->mem.reserved_bytes);
                json_u64_or_null(w, "descriptors", inv->mem.n_descriptors); /* hosted: none */
        } else {
                json_null(w, "ram_bytes");
                json_null(w, "free_bytes");
                json_null(w, "reserved_bytes");
                json_null(w, "descriptors");
                json_str(w, "problem", status_str(inv->mem_st));
        }
        json_obj_end(w);
        json_obj_begin(w, "firmware_tables");
        json_table_state(w, "MADT", &inv->madt_t);
        json_table_state(w, "SRAT", &inv->srat_t);
        json_table_state(w, "SLIT", &inv->slit_t);
        json_table_state(w, "HMAT", &inv->hmat_t);
        json_table_state(w, "SMBIOS", &inv->smbios_t);
        json_obj_end(w);
        json_obj_end(w);
}
