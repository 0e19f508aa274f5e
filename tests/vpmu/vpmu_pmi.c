/** @file
 * The virtual PMU's PMI: skid of the interrupted RIP, delivery through the local APIC's LVT PMC
 * (or an extended LVT entry), and the fake platform's PMI route. See vpmu.h.
 */
#include "tests/vpmu/vpmu_priv.h"

/* ---- PMI ------------------------------------------------------------------------------------ */

void vpmu_set_skid(uint64_t max_bytes)
{
        vp.skid_max = max_bytes;
}

uint64_t vp_pmi_rip(const struct vpmu_step *s)
{
        if (!s || !s->rip_hi)
                return vp_harness_step.rip_lo;
        if (vp.f.skid_extra_bytes)
                return s->rip_hi + vp.f.skid_extra_bytes;
        if (!s->rip_ev) /* anywhere in the kernel */
                return s->rip_lo + vp_rand() % (s->rip_hi - s->rip_lo);
        uint64_t rip = s->rip_ev + (vp.skid_max ? vp_rand() % vp.skid_max : 0);
        return rip < s->rip_hi ? rip : s->rip_hi - 1;
}

void vp_pmi(uint64_t rip, int eilvt)
{
        uint32_t *lvt = eilvt >= 0 ? &vp.eilvt[eilvt & 3] : &vp.lvt_pmc;
        struct cpu_pmi_frame fr = { .rip = rip, .cs = 0x38, .rflags = 0x2 };

        if (vp.in_pmi || (*lvt & VP_APIC_LVT_MASKED) || !vp.pmi_fn)
                return; /* NMI blocked / entry masked: no interrupt [SDM-3A] */
        vp.stats.n_pmi++;
        if (vp.f.lose_pmi_every && vp.stats.n_pmi % vp.f.lose_pmi_every == 0) {
                vp.stats.n_pmi_lost++;
                return;
        }
        /* Hardware sets the LVT PMC mask on delivery [SDM-3B] "Generating an Interrupt on
         * Overflow"; the extended LVT of IBS is not masked by delivery. */
        if (eilvt < 0)
                *lvt |= VP_APIC_LVT_MASKED;
        if (!vp_amd() && vp.f.lbr_stray_every && vp.stats.n_pmi % vp.f.lbr_stray_every == 0) {
                uint64_t at = vp.f.lbr_stray_from ? vp.f.lbr_stray_from : vp_harness_step.rip_lo;
                vp_lbr_push(&(struct vpmu_branch){ .from = at, .to = at + 0x40 });
        }
        if (!vp_amd() && (vp.debugctl & VP_DEBUGCTL_FREEZE_LBR_PMI))
                vp_lbr_freeze();
        vp.in_pmi = true;
        vp_harness_cost(VP_PMI_ENTRY_INSNS, 0, VP_PMI_ENTRY_CYCLES);
        vp.pmi_fn(&fr, vp.pmi_ctx);
        if (vp.f.spurious_pmi_every && vp.stats.n_pmi % vp.f.spurious_pmi_every == 0)
                vp.pmi_fn(&fr, vp.pmi_ctx); /* an NMI from elsewhere, no overflow status */
        vp_clock_skip();
        vp_harness_cost(VP_PMI_EXIT_INSNS, 0, VP_PMI_EXIT_CYCLES);
        vp.in_pmi = false;
        /* LVT PMC stays masked until the platform's dispatcher writes it back (tests/
         * fake_plat.c route_dispatch, with the firmware's apic_pmi_rearm) */
}

/* The fake platform's PMI route (tests/fake_plat.c) calls these. */
status_t vpmu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        if (!vp.p)
                return ST_UNSUPPORTED;
        if (vp.pmi_fn)
                return ST_BAD_ARG;
        vp.pmi_fn = fn;
        vp.pmi_ctx = ctx;
        vp.lvt_pmc = VP_APIC_DM_NMI | 2;
        if (ext_lvt_offset >= 0)
                vp.eilvt[ext_lvt_offset & 3] = VP_APIC_DM_NMI | 2;
        return ST_OK;
}

void vpmu_pmi_disable(void)
{
        vp.pmi_fn = NULL;
        vp.lvt_pmc = VP_APIC_LVT_MASKED;
        for (unsigned i = 0; i < 4; i++)
                vp.eilvt[i] = VP_APIC_LVT_MASKED;
}

status_t vpmu_pmi_selftest(uint64_t *rt)
{
        struct cpu_pmi_frame fr = { .rip = vp_harness_step.rip_lo };

        if (!vp.pmi_fn || vp.f.route_dead)
                return ST_TIMEOUT;
        uint64_t t0 = vp_tsc();
        vp.pmi_fn(&fr, vp.pmi_ctx);
        if (rt)
                *rt = vp_tsc() - t0;
        return ST_OK;
}

void vpmu_apic_write(uint32_t reg, uint32_t v)
{
        if (reg == VP_APIC_LVT_PMC)
                vp.lvt_pmc = v;
        else if (reg >= VP_APIC_EILVT0 && reg < VP_APIC_EILVT0 + 0x40)
                vp.eilvt[(reg - VP_APIC_EILVT0) / 0x10] = v;
}

uint32_t vpmu_apic(uint32_t reg)
{
        if (reg == VP_APIC_LVT_PMC)
                return vp.lvt_pmc;
        if (reg >= VP_APIC_EILVT0 && reg < VP_APIC_EILVT0 + 0x40)
                return vp.eilvt[(reg - VP_APIC_EILVT0) / 0x10];
        return 0;
}
