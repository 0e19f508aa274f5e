/** @file
 * The AArch64 part of the inventory phase (see app/gather.h): the ID registers decoded into
 * the inventory's struct cpu_info (implementer as family, part number as model, revision as
 * stepping; caches from CLIDR/CCSIDR; an emulator's CPU model, implementer 0x00, as
 * hypervisor), the generic timer's frequency as the clock, the PMU's
 * registers, and idregs.txt with every raw value (a test fixture for new hardware, as
 * cpuid.txt is on x86-64).
 */
#include "app/gather.h"
#include "app/cpus.h"

#include "boot/arm64/idreg.h"
#include "boot/arm64/sysreg.h"
#include "lib/fmt.h"

static const enum cpu_cache_type cache_types[] = {
        [A64_CACHE_DATA] = CACHE_DATA, [A64_CACHE_INST] = CACHE_INST,
        [A64_CACHE_UNIFIED] = CACHE_UNIFIED,
};

static void fill_cpu(const struct arm64_id_regs *r, const struct arm64_cpu_info *a,
                     struct cpu_info *c)
{
        c->vendor = VEN_ARM;
        fmt_snprintf(c->vendor_str, sizeof(c->vendor_str), "ARM 0x%02x", a->implementer);
        fmt_snprintf(c->brand, sizeof(c->brand), "%s %s r%up%u", a->vendor, a->part_name,
                     a->variant, a->revision);
        c->family    = a->implementer;
        c->model     = a->part;
        c->stepping  = a->revision;
        c->signature = (uint32_t)r->midr;
        /* MIDR_EL1.Implementer 0x00 is reserved for software use: an emulator's CPU model
         * (QEMU's -cpu max under TCG), whose timings are the emulator's, as under a
         * hypervisor on x86-64 (the latency phase then reports its limits, not failures). */
        c->hypervisor = a->implementer == 0;
        if (c->hypervisor)
                fmt_snprintf(c->hv_vendor, sizeof(c->hv_vendor), "emulator");
        for (size_t i = 0; i < a->n_caches && c->n_caches < ARRAY_SIZE(c->caches); i++) {
                const struct arm64_cache *s = &a->caches[i];
                c->caches[c->n_caches++] = (struct cpu_cache){
                        .level = s->level, .type = cache_types[s->type],
                        .size_bytes = s->size_bytes, .ways = s->ways,
                        .line_bytes = s->line_bytes, .sets = s->sets,
                };
        }
}

status_t gather_cpu(struct inventory *inv, struct gather_cpu_raw *raw)
{
        struct arm64_id_regs *r = plat_alloc(sizeof(*r));
        struct arm64_cpu_info a;

        if (!r)
                return ST_NO_MEM;
        inv->arch = "aarch64";
        arm64_id_collect(r);
        inv->cpu_st = arm64_decode(r, &a);
        if (inv->cpu_st == ST_OK)
                fill_cpu(r, &a, &inv->cpu);
        inv->microcode_st = ST_UNSUPPORTED;
        inv->tsc_hz       = a.cntfrq_hz;
        inv->tsc_source   = a.cntfrq_hz ? INV_TSC_CNTFRQ : INV_TSC_UNKNOWN;
        inv->arm64 = (struct inv_arm64){
                .valid = inv->cpu_st == ST_OK, .midr = r->midr, .mpidr = r->mpidr,
                .revidr = r->revidr, .dfr0 = r->dfr0, .pmcr = r->pmcr, .pmceid0 = r->pmceid0,
                .pmceid1 = r->pmceid1, .part_name = a.part_name, .pmu_name = a.pmu_name,
                .pmuver = a.pmuver, .n_counters = a.n_counters,
                .counter_bits = a.pmu ? (a.counters_64bit ? 64 : 32) : 0, .spe = a.spe,
                .brbe = a.brbe, .n_common_events = arm64_pmceid_count(r->pmceid0, r->pmceid1),
                .current_el = (uint8_t)arm64_current_el(),
        };
        *raw = (struct gather_cpu_raw){ .regs = r, .n = 1 };
        return ST_OK;
}

void gather_cpu_report(const struct inventory *inv, const struct gather_cpu_raw *raw)
{
        const struct inv_arm64 *a = &inv->arm64;

        (void)raw;
        if (!rep_check(inv->cpu_st == ST_OK, "ID registers decoded (MIDR_EL1 0x%08llx: %s)",
                       (unsigned long long)a->midr, a->part_name ? a->part_name : "-"))
                return;
        rep_info("arm64: running at EL%u%s", a->current_el,
                 a->current_el == 2 ? " (UEFI at EL2: the harness uses the _EL2 vectors and "
                                      "translation registers, and counts EL2 with "
                                      "PMEVTYPER.NSH)" : "");
        rep_info("arm64: %s (ID_AA64DFR0_EL1.PMUVer %u), %u event counters of %u bits, %u "
                 "common events in PMCEID0/1; SPE %s, BRBE %s; generic timer %llu Hz",
                 a->pmu_name, a->pmuver, a->n_counters, a->counter_bits, a->n_common_events,
                 a->spe ? "present" : "absent", a->brbe ? "present" : "absent",
                 (unsigned long long)inv->tsc_hz);
}

void gather_cpu_files(struct run *r, struct gather_cpu_raw *raw)
{
        const struct arm64_id_regs *g = raw->regs;
        struct rep_buf              b = { 0 };

        rep_buf_printf(&b, "MIDR_EL1 0x%llx\nMPIDR_EL1 0x%llx\nREVIDR_EL1 0x%llx\n"
                       "ID_AA64PFR0_EL1 0x%llx\nID_AA64DFR0_EL1 0x%llx\nID_AA64ISAR0_EL1 0x%llx\n"
                       "ID_AA64MMFR0_EL1 0x%llx\nID_AA64MMFR2_EL1 0x%llx\nCTR_EL0 0x%llx\n"
                       "CLIDR_EL1 0x%llx\nCNTFRQ_EL0 0x%llx\n",
                       (unsigned long long)g->midr, (unsigned long long)g->mpidr,
                       (unsigned long long)g->revidr, (unsigned long long)g->pfr0,
                       (unsigned long long)g->dfr0, (unsigned long long)g->isar0,
                       (unsigned long long)g->mmfr0, (unsigned long long)g->mmfr2,
                       (unsigned long long)g->ctr, (unsigned long long)g->clidr,
                       (unsigned long long)g->cntfrq);
        for (unsigned lv = 0; lv < ARM64_CACHE_LEVELS; lv++)
                for (unsigned k = 0; k < 2; k++)
                        if (g->ccsidr[lv][k])
                                rep_buf_printf(&b, "CCSIDR_EL1[L%u%s] 0x%llx\n", lv + 1,
                                               k ? "I" : "", (unsigned long long)g->ccsidr[lv][k]);
        if (g->has_pmu_regs)
                rep_buf_printf(&b, "PMCR_EL0 0x%llx\nPMCEID0_EL0 0x%llx\nPMCEID1_EL0 0x%llx\n",
                               (unsigned long long)g->pmcr, (unsigned long long)g->pmceid0,
                               (unsigned long long)g->pmceid1);
        run_add_file(r, "idregs.txt", &b);
        rep_buf_free(&b);
        plat_free(raw->regs);
        raw->regs = NULL;
}

/* The per-processor fault probes are x86-64's; each processor says which exception level
 * it runs at (a PSCI-started one must have come to the boot processor's, smp_entry_arm64.S). */
void app_cpus_fault_self(struct app_cpu *c)
{
        c->ud_st = c->pmc_st = ST_UNSUPPORTED;
        c->ud_vec = c->pmc_vec = 0;
        c->el     = arm64_current_el();
}

void gather_cpu_release(void)
{
}
