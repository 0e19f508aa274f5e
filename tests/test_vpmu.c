/** @file Tests of the virtual PMU (tests/vpmu/) and of the core drivers running on it: the
 *  model's register map agrees with the driver's headers, counters count only when enabled,
 *  overflow raises a PMI with the LVT masked on delivery, faults deviate, and the driver
 *  detects and counts on each modelled part. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/msr_amd.h"
#include "pmu/x86/msr_arch.h"
#include "pmu/x86/msr_ibs.h"
#include "pmu/x86/msr_lbr.h"
#include "pmu/x86/msr_pebs.h"
#include "bench/kernel_branch.h"
#include "pmu/events.h"
#include "pmu/pmu.h"
#include "tests/vpmu/vpmu.h"
#include "tests/vpmu/vpmu_regs.h"

#define GP(n)    ((struct pmu_slot){ .fixed = false, .idx = (n) })
#define FIXED(n) ((struct pmu_slot){ .fixed = true, .idx = (n) })

static const struct vpmu_part *const six[] = { &vpmu_skx, &vpmu_icx, &vpmu_spr,
                                               &vpmu_zen2, &vpmu_zen4, &vpmu_zen5 };

/* The model's register map is its own; this is the one place both meet. */
static void test_regs_agree(void **unused)
{
        static const struct { const char *name; uint64_t model, driver; } rows[] = {
#define ROW(m, d) { #d, m, d }
                ROW(VP_IA32_PMC0, MSR_ARCH_PERFMON_PERFCTR0),
                ROW(VP_IA32_PERFEVTSEL0, MSR_ARCH_PERFMON_EVENTSEL0),
                ROW(VP_IA32_A_PMC0, MSR_IA32_PMC0),
                ROW(VP_IA32_FIXED_CTR0, MSR_ARCH_PERFMON_FIXED_CTR0),
                ROW(VP_IA32_FIXED_CTR_CTRL, MSR_ARCH_PERFMON_FIXED_CTR_CTRL),
                ROW(VP_IA32_PERF_GLOBAL_STATUS, MSR_CORE_PERF_GLOBAL_STATUS),
                ROW(VP_IA32_PERF_GLOBAL_CTRL, MSR_CORE_PERF_GLOBAL_CTRL),
                ROW(VP_IA32_PERF_GLOBAL_OVF_CTRL, MSR_CORE_PERF_GLOBAL_OVF_CTRL),
                ROW(VP_IA32_PERF_CAPABILITIES, MSR_IA32_PERF_CAPABILITIES),
                ROW(VP_IA32_DEBUGCTL, MSR_IA32_DEBUGCTLMSR),
                ROW(VP_EVTSEL_USR, ARCH_PERFMON_EVENTSEL_USR),
                ROW(VP_EVTSEL_OS, ARCH_PERFMON_EVENTSEL_OS),
                ROW(VP_EVTSEL_INT, ARCH_PERFMON_EVENTSEL_INT),
                ROW(VP_EVTSEL_EN, ARCH_PERFMON_EVENTSEL_ENABLE),
                ROW(VP_FIXED_OS, FIXED_CTR_CTRL_OS),
                ROW(VP_FIXED_PMI, FIXED_CTR_CTRL_PMI),
                ROW(VP_STATUS_LBR_FRZ, GLOBAL_STATUS_LBRS_FROZEN),
                ROW(VP_STATUS_OVF_BUFFER, GLOBAL_STATUS_BUFFER_OVF),
                ROW(VP_CAP_FW_WRITE, PERF_CAP_FW_WRITES),
                ROW(VP_CAP_PEBS_BASELINE, PERF_CAP_PEBS_BASELINE),
                ROW(VP_IA32_DS_AREA, MSR_IA32_DS_AREA),
                ROW(VP_IA32_PEBS_ENABLE, MSR_IA32_PEBS_ENABLE),
                ROW(VP_MSR_PEBS_DATA_CFG, MSR_PEBS_DATA_CFG),
                ROW(VP_MSR_PEBS_LD_LAT, MSR_PEBS_LD_LAT_THRESHOLD),
                ROW(VP_DS_PEBS_BASE, DS_PEBS_BUFFER_BASE),
                ROW(VP_DS_PEBS_INDEX, DS_PEBS_INDEX),
                ROW(VP_DS_PEBS_MAX, DS_PEBS_ABSOLUTE_MAXIMUM),
                ROW(VP_DS_PEBS_THRESH, DS_PEBS_INTERRUPT_THRESHOLD),
                ROW(VP_DS_PEBS_RESET, DS_PEBS_EVENT_RESET),
                ROW(VP_PEBS_IP, PEBS_REC_IP),
                ROW(VP_PEBS_STATUS, PEBS_REC_STATUS),
                ROW(VP_PEBS_DLA, PEBS_REC_DLA),
                ROW(VP_PEBS_DSE, PEBS_REC_DSE),
                ROW(VP_PEBS_LAT, PEBS_REC_LAT),
                ROW(VP_PEBS_EV_IP, PEBS_REC_REAL_IP),
                ROW(VP_PEBS_TSC, PEBS_REC_TSC),
                ROW(VP_PEBS_BASIC_BYTES, PEBS_BASIC_SIZE),
                ROW(VP_PEBS_MEMINFO_BYTES, PEBS_MEMINFO_SIZE),
                ROW(VP_DATACFG_MEMINFO, PEBS_DATACFG_MEMINFO),
                ROW(VP_DATACFG_LBR, PEBS_DATACFG_LBRS),
                ROW(VP_MSR_LBR_SELECT, MSR_LBR_SELECT),
                ROW(VP_MSR_LBR_TOS, MSR_LBR_TOS),
                ROW(VP_LBR_CORE_FROM, MSR_LBR_CORE_FROM),
                ROW(VP_LBR_CORE_TO, MSR_LBR_CORE_TO),
                ROW(VP_LBR_NHM_FROM, MSR_LBR_NHM_FROM),
                ROW(VP_LBR_NHM_TO, MSR_LBR_NHM_TO),
                ROW(VP_LBR_INFO0, MSR_LBR_INFO_0),
                ROW(VP_IA32_LBR_CTL, MSR_ARCH_LBR_CTL),
                ROW(VP_IA32_LBR_DEPTH, MSR_ARCH_LBR_DEPTH),
                ROW(VP_IA32_LBR_FROM0, MSR_ARCH_LBR_FROM_0),
                ROW(VP_IA32_LBR_TO0, MSR_ARCH_LBR_TO_0),
                ROW(VP_IA32_LBR_INFO0, MSR_ARCH_LBR_INFO_0),
                ROW(VP_LBR_CTL_EN, ARCH_LBR_CTL_LBREN),
                ROW(VP_LBR_CTL_OS, ARCH_LBR_CTL_OS),
                ROW(VP_LBR_INFO_MISPRED, LBR_INFO_MISPRED),
                ROW(VP_LBR_INFO_CYC_VALID, LBR_INFO_CYC_CNT_VALID),
                ROW(VP_DEBUGCTL_LBR, DEBUGCTLMSR_LBR),
                ROW(VP_DEBUGCTL_FREEZE_LBR_PMI, DEBUGCTLMSR_FREEZE_LBRS_ON_PMI),
                ROW(VP_K7_EVNTSEL0, MSR_K7_EVNTSEL0),
                ROW(VP_K7_PERFCTR0, MSR_K7_PERFCTR0),
                ROW(VP_F15H_PERF_CTL0, MSR_F15H_PERF_CTL),
                ROW(VP_F15H_PERF_CTR0, MSR_F15H_PERF_CTR),
                ROW(VP_AMD_GLOBAL_STATUS, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS),
                ROW(VP_AMD_GLOBAL_CTL, MSR_AMD64_PERF_CNTR_GLOBAL_CTL),
                ROW(VP_AMD_GLOBAL_STATUS_CLR, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR),
                ROW(VP_IBS_FETCH_CTL, MSR_AMD64_IBSFETCHCTL),
                ROW(VP_IBS_OP_CTL, MSR_AMD64_IBSOPCTL),
                ROW(VP_IBS_OP_RIP, MSR_AMD64_IBSOPRIP),
                ROW(VP_IBS_OP_DATA3, MSR_AMD64_IBSOPDATA3),
                ROW(VP_IBS_DC_PHYSAD, MSR_AMD64_IBSDCPHYSAD),
                ROW(VP_IBS_CTL, MSR_AMD64_IBSCTL),
                ROW(VP_IBS_BR_TARGET, MSR_AMD64_IBSBRTARGET),
                ROW(VP_IBS_OP_DATA4, MSR_AMD64_IBSOPDATA4),
                ROW(VP_OPCTL_EN, IBSOPCTL_OP_EN),
                ROW(VP_OPCTL_VAL, IBSOPCTL_OP_VAL),
                ROW(VP_OPCTL_CNT_CTL, IBSOPCTL_OP_CNT_CTL),
                ROW(VP_OPCTL_L3MISSONLY, IBSOPCTL_L3_MISS_ONLY),
                ROW(VP_OPCTL_LDLAT_EN, IBSOPCTL_LDLAT_EN),
                ROW(VP_OPCTL_CURCNT_SHIFT, IBSOPCTL_CURCNT_SHIFT),
                ROW(VP_OPCTL_LDLAT_SHIFT, IBSOPCTL_LDLAT_THRSH_SHIFT),
                ROW(VP_FETCH_EN, IBSFETCHCTL_EN),
                ROW(VP_FETCH_VAL, IBSFETCHCTL_VAL),
                ROW(VP_OPDATA3_LD, IBSOPDATA3_LD_OP),
                ROW(VP_OPDATA3_DC_MISS, IBSOPDATA3_DC_MISS),
                ROW(VP_OPDATA3_LIN_VALID, IBSOPDATA3_DC_LIN_ADDR_VALID),
                ROW(VP_OPDATA3_PHY_VALID, IBSOPDATA3_DC_PHY_ADDR_VALID),
                ROW(VP_OPDATA3_L2_MISS, IBSOPDATA3_L2_MISS),
                ROW(VP_OPDATA3_MISS_LAT_SHIFT, IBSOPDATA3_DC_MISS_LAT_SHIFT),
                ROW(VP_IBSCTL_LVT_VALID, IBSCTL_LVT_OFFSET_VALID),
                ROW(VP_APIC_EILVT0, APIC_EILVT0),
#undef ROW
        };
        unsigned bad = 0;

        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                if (rows[i].model != rows[i].driver) {
                        print_message("  %s: model %#llx, driver %#llx\n", rows[i].name,
                                      (unsigned long long)rows[i].model,
                                      (unsigned long long)rows[i].driver);
                        bad++;
                }
        assert_int_equal(bad, 0);
}

static const struct pmu_event_desc *alias(const char *a)
{
        const struct pmu_event_desc *ev = NULL;
        const char                  *why = "";

        if (pmu_alias_event(a, &ev, &why) != ST_OK)
                fail_msg("alias %s: %s", a, why);
        return ev;
}

static void up(const struct vpmu_part *p, const struct vpmu_faults *f)
{
        struct cpu_info ci;

        vpmu_init(p, f);
        vpmu_cpu_info(&ci);
        assert_int_equal(pmu_init(&ci), ST_OK);
}

static void retire(enum vpmu_ev ev, uint64_t n)
{
        struct vpmu_step s = { .rip_lo = 0x400000, .rip_hi = 0x400100, .rip_ev = 0x400010 };

        s.n[ev] = n;
        vpmu_retire(&s);
}

/* Every modelled part decodes to what its data sheet says, and gets its event table. */
static void test_parts(void **unused)
{
        static const struct { const char *table; unsigned n_gp, version; } want[] = {
                { "intel-skylakex", 4, 4 },     { "intel-icelakex", 8, 5 },
                { "intel-sapphirerapids", 8, 5 }, { "amd-zen2", 6, 1 },
                { "amd-zen4", 6, 2 },           { "amd-zen5", 6, 2 },
        };

        for (size_t i = 0; i < 6; i++) {
                up(six[i], NULL);
                const struct pmu_caps *c = pmu_get_caps();

                assert_int_equal(c->n_gp, want[i].n_gp);
                assert_int_equal(c->version, want[i].version);
                assert_int_equal(c->gp_width, 48);
                if (!c->events || strcmp(c->events->name, want[i].table))
                        fail_msg("%s: event table %s, want %s", six[i]->name,
                                 c->events ? c->events->name : "none", want[i].table);
        }
}

/* A counter counts from pmu_start to pmu_stop and at no other time. GLOBAL_CTRL (Intel v2+,
 * AMD PerfMonV2) comes out of reset with every GP enable set, so a driver that writes an
 * enabled event select before clearing it counts from the write. */
static void test_counts_only_when_started(void **unused)
{
        for (size_t i = 0; i < 6; i++) {
                uint64_t v = 0;

                up(six[i], NULL);
                assert_int_equal(pmu_program(GP(0), alias("insts"), PMU_OS, 0), ST_OK);
                retire(VE_INSNS, 1000);
                assert_int_equal(pmu_read(GP(0), &v), ST_OK);
                if (v)
                        fail_msg("%s: %llu instructions counted before pmu_start", six[i]->name,
                                 (unsigned long long)v);
                assert_int_equal(pmu_start(pmu_slot_bit(GP(0))), ST_OK);
                retire(VE_INSNS, 1234);
                assert_int_equal(pmu_stop(pmu_slot_bit(GP(0))), ST_OK);
                retire(VE_INSNS, 1000);
                assert_int_equal(pmu_read(GP(0), &v), ST_OK);
                assert_int_equal(v, 1234);
        }
}

/* USR-only counters do not see the harness (CPL 0); OS counters do. */
static void test_cpl_filter(void **unused)
{
        uint64_t a = 0, b = 0;

        up(&vpmu_icx, NULL);
        assert_int_equal(pmu_program(GP(0), alias("branches"), PMU_USR, 0), ST_OK);
        assert_int_equal(pmu_program(GP(1), alias("branches"), PMU_OS, 0), ST_OK);
        assert_int_equal(pmu_start(3), ST_OK);
        retire(VE_BRANCHES, 77);
        pmu_stop(3);
        pmu_read(GP(0), &a);
        pmu_read(GP(1), &b);
        assert_int_equal(a, 0);
        assert_int_equal(b, 77);
}

/* bench_branch_pattern as its x86-64 assembly retires it: "movzbl, inc, test, jz, [nop], dec,
 * jnz" is 6 instructions for a 0 byte (jz taken over the nop) and 7 for any other, 2
 * conditional branches and 1 load per byte (tests/test_oracle.sh counts the same under
 * valgrind). Two lengths, so the call's own cost cancels. */
static void test_pattern_counts(void **unused)
{
        static uint8_t pat[3000];
        static const struct { uint8_t byte; uint64_t insns; } cases[] = { { 0, 6 }, { 1, 7 } };

        for (size_t i = 0; i < 2; i++) {
                uint64_t c[2][3] = { { 0 } };

                memset(pat, cases[i].byte, sizeof(pat));
                for (size_t k = 0; k < 2; k++) {
                        up(&vpmu_icx, NULL);
                        assert_int_equal(pmu_program(GP(0), alias("insts"), PMU_OS, 0), ST_OK);
                        assert_int_equal(pmu_program(GP(1), alias("branches"), PMU_OS, 0), ST_OK);
                        assert_int_equal(pmu_start(3), ST_OK);
                        bench_branch_pattern(pat, k ? 3000 : 1000);
                        pmu_stop(3);
                        pmu_read(GP(0), &c[k][0]);
                        pmu_read(GP(1), &c[k][1]);
                }
                assert_int_equal(c[1][0] - c[0][0], 2000 * cases[i].insns);
                assert_int_equal(c[1][1] - c[0][1], 2000 * 2);
        }
}

/* The model's event map held against perf's pmu-events (pmu/events/, perf's JSON format and
 * names) by event name: each event the model names has the code and unit mask perf gives it,
 * so the model's codes, typed from the manuals, and perf's agree or one of them is wrong. And
 * the driver's aliases against the model's meaning of each event: the event an alias names
 * must be one the model says counts what the alias means. */
static void test_evmap_against_perf(void **unused)
{
        static const struct { const char *alias; enum vpmu_ev ev; } meaning[] = {
                { "cycles", VE_CYCLES }, { "insts", VE_INSNS }, { "branches", VE_BRANCHES },
                { "br-misses", VE_BR_MISP }, { "l1d-misses", VE_L1D_MISS },
                { "l2-misses", VE_L2_MISS }, { "llc-misses", VE_LLC_MISS },
                { "dtlb-misses", VE_DTLB_MISS },
        };

        for (size_t i = 0; i < 6; i++) {
                const struct vpmu_part       *p = six[i];
                const struct pmu_event_table *t = pmu_events_table(p->perf_table);
                unsigned                      n_named = 0;

                assert_non_null(t);
                for (size_t k = 0; k < p->n_events; k++) {
                        const struct vpmu_evmap     *m = &p->events[k];
                        const struct pmu_event_desc *d;

                        if (!m->perf_name)
                                continue;
                        n_named++;
                        d = pmu_event_find(t, m->perf_name);
                        if (!d || d->code != m->code || d->umask != m->umask)
                                fail_msg("%s: %s is 0x%x/0x%x in the model, %s in perf's %s",
                                         p->name, m->perf_name, m->code, m->umask,
                                         d ? "another code" : "absent", p->perf_table);
                }
                assert_true(n_named >= 8);
                for (size_t a = 0; a < sizeof(meaning) / sizeof(meaning[0]); a++) {
                        const struct pmu_event_desc *d = NULL;
                        const char *why = NULL;
                        bool        ok = false;

                        assert_int_equal(pmu_alias_resolve(t, meaning[a].alias, &d, &why), ST_OK);
                        for (size_t k = 0; k < p->n_events; k++)
                                ok |= p->events[k].perf_name && p->events[k].ev == meaning[a].ev &&
                                      !strcmp(p->events[k].perf_name, d->name);
                        if (!ok)
                                fail_msg("%s: alias %s names %s, which the model does not count "
                                         "as that", p->name, meaning[a].alias, d->name);
                }
        }
}

struct pmi_log {
        unsigned n;
        uint64_t rip[8];
        uint32_t lvt_at_entry;
};

static void on_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        struct pmi_log *l = ctx;

        if (l->n < 8)
                l->rip[l->n] = f->rip;
        l->lvt_at_entry = vpmu_apic(VP_APIC_LVT_PMC);
        l->n++;
}

/* Overflow at the width: the status bit, one PMI with the LVT masked at entry (and unmasked
 * after by the platform), the interrupted RIP within the skid of the overflowing instruction. */
static void test_overflow_pmi(void **unused)
{
        for (size_t i = 0; i < 6; i++) {
                struct pmi_log l = { 0 };
                uint64_t       v = 0, st = 0;

                up(six[i], NULL);
                vpmu_set_skid(8);
                assert_int_equal(cpu_pmi_enable(on_pmi, &l, -1), ST_OK);
                assert_int_equal(pmu_program(GP(1), alias("branches"), PMU_OS | PMU_INT,
                                             (uint64_t)-100), ST_OK);
                pmu_start(pmu_slot_bit(GP(1)));
                retire(VE_BRANCHES, 99);
                assert_int_equal(l.n, 0);
                retire(VE_BRANCHES, 51);
                pmu_stop(pmu_slot_bit(GP(1)));
                assert_int_equal(l.n, 1);
                assert_true(l.lvt_at_entry & VP_APIC_LVT_MASKED);
                assert_false(vpmu_apic(VP_APIC_LVT_PMC) & VP_APIC_LVT_MASKED);
                assert_true(l.rip[0] >= 0x400010 && l.rip[0] < 0x400018);
                pmu_read(GP(1), &v);
                assert_int_equal(v, 50);
                assert_int_equal(pmu_ovf_status(&st), ST_OK);
                assert_true(st & 2);
                cpu_pmi_disable();
        }
}

/* Full-width writes: IA32_A_PMCx takes the full width and faults beyond it; the legacy
 * IA32_PMCx sign-extends bit 31. */
static void test_write_widths(void **unused)
{
        uint64_t v;

        vpmu_init(&vpmu_icx, NULL);
        assert_int_equal(wrmsr_safe(VP_IA32_A_PMC0, 1ull << 40), ST_OK);
        assert_int_equal(vpmu_peek(VP_IA32_PMC0), 1ull << 40);
        assert_int_equal(wrmsr_safe(VP_IA32_A_PMC0, 1ull << 48), ST_FAULT);
        assert_int_equal(msr_last_fault_vector(), 13);
        assert_int_equal(wrmsr_safe(VP_IA32_PMC0, 0x80000000ull), ST_OK);
        assert_int_equal(rdmsr_safe(VP_IA32_PMC0, &v), ST_OK);
        assert_int_equal(v, 0xffff80000000ull);
        vpmu_init(&vpmu_skx, NULL); /* no Adaptive_Record without PEBS baseline: #GP */
        assert_int_equal(wrmsr_safe(VP_IA32_PERFEVTSEL0, 1ull << 34 | 0xc0), ST_FAULT);
        vpmu_init(&vpmu_zen2, NULL);
        assert_int_equal(rdmsr_safe(VP_AMD_GLOBAL_CTL, &v), ST_FAULT); /* no PerfMonV2 */
        assert_int_equal(rdmsr_safe(VP_F15H_PERF_CTR0 + 10, &v), ST_OK);
        assert_int_equal(rdmsr_safe(VP_F15H_PERF_CTR0 + 12, &v), ST_FAULT);
}

/* Faults: an event counted 10% high, a dead counter, every second PMI lost. */
static void test_faults(void **unused)
{
        struct vpmu_faults f = { .count_kind = VE_INSNS, .count_ppm = 100000, .dead_gp = 1u << 2,
                                 .lose_pmi_every = 2 };
        struct pmi_log l = { 0 };
        uint64_t a = 0, b = 0;

        up(&vpmu_zen4, &f);
        cpu_pmi_enable(on_pmi, &l, -1);
        pmu_program(GP(0), alias("insts"), PMU_OS, 0);
        pmu_program(GP(2), alias("insts"), PMU_OS, 0);
        pmu_program(GP(3), alias("branches"), PMU_OS | PMU_INT, (uint64_t)-10);
        pmu_start(0xd);
        retire(VE_INSNS, 1000);
        for (unsigned i = 0; i < 4; i++) {
                retire(VE_BRANCHES, 10);
                pmu_write(GP(3), (uint64_t)-10);
        }
        pmu_stop(0xd);
        pmu_read(GP(0), &a);
        pmu_read(GP(2), &b);
        /* 10 % over the program's 1000 and the two delivered PMIs' own instructions (the
         * handler here touches no MSR) */
        assert_int_equal(a, (1000 + 2 * (VP_PMI_ENTRY_INSNS + VP_PMI_EXIT_INSNS)) * 11 / 10);
        assert_int_equal(b, 0);
        assert_int_equal(l.n, 2);
        assert_int_equal(vpmu_stats()->n_pmi_lost, 2);
        cpu_pmi_disable();
}

/* pmu_restore puts back what the firmware left in the counter MSRs, not zeros. */
static void test_restore(void **unused)
{
        struct cpu_info ci;
        uint64_t        v = 0;

        for (size_t i = 0; i < 6; i++) {
                uint32_t sel = six[i]->amd ? VP_F15H_PERF_CTL0 : VP_IA32_PERFEVTSEL0;
                uint32_t ctr = six[i]->amd ? VP_F15H_PERF_CTR0 : VP_IA32_PMC0;

                vpmu_init(six[i], NULL);
                vpmu_cpu_info(&ci);
                assert_int_equal(wrmsr_safe(ctr, 5000), ST_OK);
                assert_int_equal(wrmsr_safe(sel, 0x4300c0), ST_OK); /* EN|OS|USR, 0xc0 */
                if (!six[i]->amd)
                        assert_int_equal(wrmsr_safe(VP_IA32_FIXED_CTR_CTRL, 0x3), ST_OK);
                assert_int_equal(pmu_init(&ci), ST_OK);
                assert_int_equal(pmu_program(GP(0), alias("branches"), PMU_OS, 0), ST_OK);
                pmu_start(1);
                retire(VE_BRANCHES, 10);
                pmu_stop(1);
                assert_int_equal(pmu_restore(), ST_OK);
                assert_int_equal(vpmu_peek(sel), 0x4300c0);
                assert_int_equal(vpmu_peek(ctr), 5000);
                if (!six[i]->amd)
                        assert_int_equal(vpmu_peek(VP_IA32_FIXED_CTR_CTRL), 0x3);
                if (six[i] != &vpmu_zen2)
                        assert_int_equal(vpmu_peek(six[i]->amd ? VP_AMD_GLOBAL_CTL
                                                                : VP_IA32_PERF_GLOBAL_CTRL),
                                         six[i]->amd ? 0x3f : (1u << six[i]->n_gp) - 1);
                assert_int_equal(pmu_restore(), ST_OK); /* nothing saved: nothing written */
                assert_int_equal(rdmsr_safe(ctr, &v), ST_OK);
                assert_int_equal(v, 5000);
        }
}

/* Perfmon v5: GLOBAL_STATUS bit 48 (PERF_METRICS overflow) is cleared with the rest. */
static void test_reset_clears_perf_metrics(void **unused)
{
        uint64_t st = 0;

        up(&vpmu_icx, NULL);
        assert_int_equal(wrmsr_safe(VP_IA32_PERF_GLOBAL_STATUS_SET, VP_STATUS_PERF_METRICS), ST_OK);
        assert_int_equal(pmu_reset(), ST_OK);
        assert_int_equal(pmu_ovf_status(&st), ST_OK);
        assert_int_equal(st, 0);
}

/* perf's "Counter" is enforced: Sapphire Rapids' load-latency event takes counters 1-7. */
static void test_counter_restriction(void **unused)
{
        up(&vpmu_spr, NULL);
        const struct pmu_event_desc *ev =
                pmu_event_find(pmu_get_caps()->events, "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4");

        assert_non_null(ev);
        assert_int_equal(ev->gp_mask, 0xfe);
        assert_int_equal(pmu_program(GP(0), ev, PMU_OS, 0), ST_UNSUPPORTED);
        assert_int_equal(pmu_program(GP(1), ev, PMU_OS, 0), ST_OK);
        assert_int_equal(pmu_program(GP(0), alias("insts"), PMU_OS, 0), ST_OK); /* no limit */
}

/* mapfile.csv: Family 19h split as perf's mapfile (Zen 3: models 00h-0Fh, 20h-5Fh; Zen 4 the
 * rest), Family 1Ah is Zen 5. */
static void test_amd_mapfile(void **unused)
{
        static const struct { uint32_t fam, model; const char *table; } cases[] = {
                { 0x19, 0x01, "amd-zen3" }, { 0x19, 0x21, "amd-zen3" }, { 0x19, 0x50, "amd-zen3" },
                { 0x19, 0x11, "amd-zen4" }, { 0x19, 0x61, "amd-zen4" }, { 0x19, 0x74, "amd-zen4" },
                { 0x1a, 0x02, "amd-zen5" }, { 0x1a, 0x44, "amd-zen5" }, { 0x17, 0x71, "amd-zen2" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct pmu_event_table *t = pmu_events_for(VEN_AMD, cases[i].fam,
                                                                 cases[i].model);
                if (!t || strcmp(t->name, cases[i].table))
                        fail_msg("family %#x model %#x: %s, want %s", cases[i].fam,
                                 cases[i].model, t ? t->name : "none", cases[i].table);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_regs_agree),
                cmocka_unit_test(test_parts),
                cmocka_unit_test(test_counts_only_when_started),
                cmocka_unit_test(test_cpl_filter),
                cmocka_unit_test(test_pattern_counts),
                cmocka_unit_test(test_evmap_against_perf),
                cmocka_unit_test(test_overflow_pmi),
                cmocka_unit_test(test_write_widths),
                cmocka_unit_test(test_faults),
                cmocka_unit_test(test_restore),
                cmocka_unit_test(test_reset_clears_perf_metrics),
                cmocka_unit_test(test_counter_restriction),
                cmocka_unit_test(test_amd_mapfile),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
