/** @file Tests for the sampling phase's sessions (app/sampling_{ibs,pebs,lbr}.c) driven by
 * the register-level model (tests/fake_msr.c) and fake MSR snapshots, the plan built from a
 * latency table, the LBR block report, and sampling-validation.json read back with jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "app/sampling.h"
#include "bench/kernel_block.h"
#include "pmu/x86/msr_arch.h"
#include "tests/fake_msr.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static const struct fake_msr_write *last_write(void)
{
        size_t n = fake_msr_n_writes();
        return n ? fake_msr_write_at(n - 1) : NULL;
}

static struct cpu_info amd(uint32_t family, uint32_t model, uint32_t caps)
{
        struct cpu_info ci = { .vendor = VEN_AMD, .family = family, .model = model,
                               .max_ext_leaf = 0x80000021 };
        ci.amd.ibs = true;
        ci.amd.ibs_caps = caps;
        return ci;
}

static void add_ibs_msrs(uint64_t ibs_ctl)
{
        static const uint32_t msrs[] = {
                MSR_AMD64_IBSFETCHCTL, MSR_AMD64_IBSFETCHLINAD, MSR_AMD64_IBSFETCHPHYSAD,
                MSR_AMD64_IBSOPCTL, MSR_AMD64_IBSOPRIP, MSR_AMD64_IBSOPDATA, MSR_AMD64_IBSOPDATA2,
                MSR_AMD64_IBSOPDATA3, MSR_AMD64_IBSDCLINAD, MSR_AMD64_IBSDCPHYSAD,
                MSR_AMD64_IBSBRTARGET, MSR_AMD64_ICIBSEXTDCTL, MSR_AMD64_IBSOPDATA4,
        };
        fake_msr_setup(NULL);
        for (size_t i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++)
                fake_msr_add(msrs[i], 0);
        fake_msr_add(MSR_AMD64_IBSCTL, ibs_ctl);
}

/* ---- IBS -------------------------------------------------------------------------------- */

static void test_ibs_probe_reasons(void **unused)
{
        static const struct {
                uint32_t    family;
                bool        ibs, ctl_exists;
                uint64_t    ibs_ctl;
                status_t    want;
                const char *why;   /* substring of s.why */
        } cases[] = {
                { 0x19, false, true,  0x101, ST_UNSUPPORTED, "IBS is clear" },
                { 0x19, true,  false, 0,     ST_UNSUPPORTED, "faults" },
                { 0x10, true,  true,  0x000, ST_UNSUPPORTED, "F3x1cc" },
                { 0x19, true,  true,  0x002, ST_UNSUPPORTED, "LvtOffsetVal clear" },
                { 0x19, true,  true,  0x10c, ST_UNSUPPORTED, "at most" },
                { 0x19, true,  true,  0x101, ST_OK,          "" },
                { 0x17, true,  true,  0x100, ST_OK,          "" },
        };
        struct smp_ibs s;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cpu_info ci = amd(cases[i].family, 1, 0x7ff);

                ci.amd.ibs = cases[i].ibs;
                add_ibs_msrs(cases[i].ibs_ctl);
                if (!cases[i].ctl_exists)
                        fake_msr_remove(MSR_AMD64_IBSCTL);
                assert_int_equal(smp_ibs_probe(&ci, &s), cases[i].want);
                if (cases[i].want != ST_OK)
                        assert_non_null(strstr(s.why, cases[i].why));
                else
                        assert_int_equal(s.lvt.offset, cases[i].ibs_ctl & 0xf);
        }
        struct cpu_info intel = { .vendor = VEN_INTEL };
        assert_int_equal(smp_ibs_probe(&intel, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "not an AMD"));
}

static void test_ibs_op_pmi_state_machine(void **unused)
{
        struct cpu_info ci = amd(0x19, 0x11, 0x7ff);  /* RdWrOpCnt, OpCnt, BrnTrgt, OpData4 */
        struct pmu_ibs_op_regs ops[2];
        struct pmu_ibs_op_opts opts = { .count = PMU_IBS_COUNT_DISPATCHED_OPS };
        struct smp_ibs s;
        uint64_t ctl;

        add_ibs_msrs(0x101);
        assert_int_equal(smp_ibs_probe(&ci, &s), ST_OK);
        assert_int_equal(pmu_ibs_op_ctl_encode(&s.info, 4096, &opts, &ctl), ST_OK);
        s.ops = ops;
        s.op_cap = 2;
        assert_int_equal(smp_ibs_arm(&s, ctl, 0), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_AMD64_IBSOPCTL), ctl);

        /* No Val bit: spurious, nothing written. */
        fake_msr_clear_log();
        smp_ibs_on_pmi(&s);
        assert_int_equal(s.n_spurious, 1);
        assert_int_equal(fake_msr_n_writes(), 0);

        /* A sample: the snapshot is stored and the control re-armed with Val clear, the
         * random CurCnt bits [38:32] kept (dispatched-op mode with RdWrOpCnt). */
        const uint64_t read = ctl | IBSOPCTL_OP_VAL | (0x55ull << IBSOPCTL_CURCNT_SHIFT) |
                              (0x1000ull << IBSOPCTL_CURCNT_SHIFT);
        fake_msr_add(MSR_AMD64_IBSOPRIP, 0xffff800000401000ull);
        fake_msr_add(MSR_AMD64_IBSOPDATA3, IBSOPDATA3_LD_OP | IBSOPDATA3_DC_LIN_ADDR_VALID);
        fake_msr_add(MSR_AMD64_IBSDCLINAD, 0x12340);
        fake_msr_add(MSR_AMD64_IBSOPDATA4, 1);
        for (int k = 0; k < 3; k++) {
                fake_msr_add(MSR_AMD64_IBSOPCTL, read);   /* the hardware set Val again */
                smp_ibs_on_pmi(&s);
        }
        assert_int_equal(s.n_spurious, 1);
        assert_int_equal(s.n_op, 2);
        assert_int_equal(s.n_dropped, 1);          /* buffer of 2 */
        assert_int_equal(ops[0].op_rip, 0xffff800000401000ull);
        assert_int_equal(ops[1].dc_linad, 0x12340);
        assert_int_equal(ops[0].op_data4, 1);
        assert_int_equal(last_write()->msr, MSR_AMD64_IBSOPCTL);
        assert_int_equal(last_write()->val, pmu_ibs_op_ctl_rearm(&s.info, ctl, read));
        assert_false(last_write()->val & IBSOPCTL_OP_VAL);
        assert_int_equal((last_write()->val >> IBSOPCTL_CURCNT_SHIFT) & 0x7f, 0x55);

        /* Disarm: counted-so-far from CurCnt, then En cleared in one write (not Fam10h). */
        fake_msr_add(MSR_AMD64_IBSOPCTL, ctl | (300ull << IBSOPCTL_CURCNT_SHIFT));
        fake_msr_clear_log();
        assert_int_equal(smp_ibs_disarm(&s), ST_OK);
        assert_int_equal(s.op_tail, 300);
        assert_int_equal(fake_msr_n_writes(), 1);
        assert_false(fake_msr_peek(MSR_AMD64_IBSOPCTL) & IBSOPCTL_OP_EN);
}

static void test_ibs_fetch_and_fam10h_disable(void **unused)
{
        static const struct {
                uint32_t family;
                size_t   rearm_writes, disable_writes;
        } cases[] = {
                { 0x17, 2, 1 },   /* fetch_count_reset_broken: En off, then on */
                { 0x19, 1, 1 },
                { 0x10, 1, 2 },   /* erratum 420: MaxCnt cleared before En */
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cpu_info ci = amd(cases[i].family, 1, 0);
                struct pmu_ibs_fetch_regs f[4];
                struct smp_ibs s;
                uint64_t ctl;

                add_ibs_msrs(0x100);
                assert_int_equal(smp_ibs_probe(&ci, &s), ST_OK);
                assert_int_equal(pmu_ibs_fetch_ctl_encode(&s.info, 1024, true, false, &ctl), ST_OK);
                s.fetches = f;
                s.fetch_cap = 4;
                assert_int_equal(smp_ibs_arm(&s, 0, ctl), ST_OK);
                fake_msr_add(MSR_AMD64_IBSFETCHCTL, ctl | IBSFETCHCTL_VAL | IBSFETCHCTL_COMP);
                fake_msr_add(MSR_AMD64_IBSFETCHLINAD, 0x401000);
                fake_msr_clear_log();
                smp_ibs_on_pmi(&s);
                assert_int_equal(s.n_fetch, 1);
                assert_int_equal(f[0].fetch_linad, 0x401000);
                assert_int_equal(fake_msr_n_writes(), cases[i].rearm_writes);
                assert_int_equal(last_write()->val, ctl);
                if (cases[i].rearm_writes == 2)
                        assert_int_equal(fake_msr_write_at(0)->val, ctl & ~IBSFETCHCTL_EN);
                fake_msr_clear_log();
                assert_int_equal(smp_ibs_disarm(&s), ST_OK);
                assert_int_equal(fake_msr_n_writes(), cases[i].disable_writes);
                assert_int_equal(fake_msr_peek(MSR_AMD64_IBSFETCHCTL) &
                                 (IBSFETCHCTL_EN | IBSFETCHCTL_MAXCNT), 0);
        }
}

/* ---- Intel: PEBS and LBR on the model ---------------------------------------------------- */

/* A Skylake-X core: v4, 4 GP x 48 bits, 3 fixed; PEBS format 3, LBR format 5 (INFO). */
static struct cpu_info skx(void)
{
        struct cpu_info ci = { .vendor = VEN_INTEL, .family = 6, .model = 0x55 };
        ci.intel = (struct cpu_pmu_intel){ .version = 4, .n_gp = 4, .gp_width = 48, .ebx_len = 7,
                                           .n_fixed = 3, .fixed_width = 48, .pdcm = true,
                                           .ds = true, .dtes64 = true };
        struct fake_msr_cfg cfg = { .layout = FAKE_INTEL, .version = 4, .n_gp = 4, .gp_width = 48,
                                    .n_fixed = 3, .fixed_width = 48, .pdcm = true,
                                    .perf_caps = 0x305 | PERF_CAP_FW_WRITES };
        fake_msr_setup(&cfg);
        fake_msr_add(MSR_IA32_MISC_ENABLE, 0);
        fake_msr_add(MSR_IA32_DS_AREA, 0);
        fake_msr_add(MSR_IA32_PEBS_ENABLE, 0);
        fake_msr_add(MSR_PEBS_LD_LAT_THRESHOLD, 0);
        fake_msr_add(MSR_IA32_DEBUGCTLMSR, 0);
        fake_msr_add(MSR_LBR_SELECT, 0);
        fake_msr_add(MSR_LBR_TOS, 0);
        for (unsigned i = 0; i < 32; i++) {
                fake_msr_add(MSR_LBR_NHM_FROM + i, 0);
                fake_msr_add(MSR_LBR_NHM_TO + i, 0);
                fake_msr_add(MSR_LBR_INFO_0 + i, 0);
        }
        assert_int_equal(pmu_init(&ci), ST_OK);
        return ci;
}

static void test_model_tables(void **unused)
{
        static const struct {
                uint32_t model;
                bool     dse_known;
                enum pmu_pebs_dse_kind kind;
                bool     split;
                unsigned lbr_depth;
        } cases[] = {
                { 0x1a, true,  PEBS_DSE_NHM,      false, 16 },
                { 0x3c, true,  PEBS_DSE_SNB,      false, 16 },
                { 0x55, true,  PEBS_DSE_SKL_PMEM, false, 32 },
                { 0x8f, true,  PEBS_DSE_SKL_PMEM, true,  0 },   /* Arch LBR part */
                { 0xaf, true,  PEBS_DSE_CMT,      true,  0 },
                { 0x97, false, 0,                 false, 0 },   /* hybrid Alder Lake */
                { 0x5c, false, 0,                 false, 32 },  /* Goldmont: format 6 */
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                enum pmu_pebs_dse_kind k = PEBS_DSE__COUNT;
                bool split = false;

                assert_int_equal(smp_pebs_model_dse(cases[i].model, &k, &split), cases[i].dse_known);
                if (cases[i].dse_known) {
                        assert_int_equal(k, cases[i].kind);
                        assert_int_equal(split, cases[i].split);
                }
                assert_int_equal(smp_lbr_model_depth(cases[i].model), cases[i].lbr_depth);
        }
}

static void test_pebs_probe_reasons(void **unused)
{
        struct smp_pebs s;
        struct cpu_info ci = { .vendor = VEN_AMD };

        assert_int_equal(smp_pebs_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "not an Intel"));
        ci = skx();
        ci.intel.ds = false;
        assert_int_equal(smp_pebs_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "DS"));
        ci = skx();
        fake_msr_add(MSR_IA32_MISC_ENABLE, MISC_ENABLE_PEBS_UNAVAIL);
        assert_int_equal(smp_pebs_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "unavailable"));
        /* Skylake-SP has a model table (intel-skylakex) with the load-latency event. */
        ci = skx();
        assert_int_equal(smp_pebs_probe(&ci, &s), ST_OK);
        assert_ptr_equal(s.ev, pmu_event_find(pmu_events_table("intel-skylakex"),
                                              "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4"));
        assert_int_equal(s.rec_bytes, PEBS_REC_SIZE_FMT3);
        assert_int_equal(s.fmt.dse_kind, PEBS_DSE_SKL_PMEM);
        /* Haswell-X has a data-source table but no model event table: the generic table has no
         * load-latency event, and the probe says so instead of using a hand-typed code. */
        ci = skx();
        ci.model = 0x3f;
        assert_int_equal(pmu_init(&ci), ST_OK);
        assert_string_equal(pmu_get_caps()->events->name, "intel-arch");
        assert_int_equal(smp_pebs_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "LOAD_LATENCY"));
        assert_null(s.ev);
        assert_int_equal(s.fmt.dse_kind, PEBS_DSE_SNB);
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
        memcpy(p + off, &v, 8);
}

static void test_pebs_drain_on_pmi(void **unused)
{
        struct cpu_info ci = skx();
        struct smp_pebs s;
        const char *why;
        static struct pmu_ds_area ds;
        static uint8_t buf[16 * PEBS_REC_SIZE_FMT3], raw[64 * PEBS_REC_SIZE_FMT3];
        struct pmu_pebs_record rec[8];
        size_t n = 0;

        smp_pebs_probe(&ci, &s);  /* fills fmt; the event is supplied below */
        assert_int_equal(pmu_alias_event("insts", &s.ev, &why), ST_OK);
        s.ds = &ds;
        s.buf = buf;
        s.buf_bytes = sizeof(buf);
        s.raw = raw;
        s.raw_cap = sizeof(raw);
        assert_int_equal(smp_pebs_arm(&s, 2003, 3), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_IA32_DS_AREA), (uint64_t)(uintptr_t)&ds);
        /* general counter 1, with its load-latency bit (32 + 1) */
        assert_int_equal(fake_msr_peek(MSR_IA32_PEBS_ENABLE), 2 | (2ull << 32));
        assert_int_equal(fake_msr_peek(MSR_PEBS_LD_LAT_THRESHOLD), 3);
        assert_int_equal(ds.pebs_buffer_base, (uint64_t)(uintptr_t)buf);
        assert_int_equal(ds.pebs_event_reset[1], (-2003ull) & ((1ull << 48) - 1));
        assert_int_equal(ds.pebs_event_reset[0], 0);

        /* The CPU wrote three records and raised the DS-buffer PMI. */
        for (int i = 0; i < 3; i++) {
                put64(buf + i * PEBS_REC_SIZE_FMT3, PEBS_REC_DLA, 0x1000 + 64 * i);
                put64(buf + i * PEBS_REC_SIZE_FMT3, PEBS_REC_LAT, 40 + i);
                put64(buf + i * PEBS_REC_SIZE_FMT3, PEBS_REC_STATUS, 2); /* counter 1 */
        }
        ds.pebs_index = ds.pebs_buffer_base + 3 * PEBS_REC_SIZE_FMT3;
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, GLOBAL_STATUS_BUFFER_OVF);
        smp_pebs_on_pmi(&s);
        assert_int_equal(s.n_records, 3);
        assert_int_equal(s.raw_len, 3 * PEBS_REC_SIZE_FMT3);
        assert_int_equal(ds.pebs_index, ds.pebs_buffer_base);
        assert_int_equal(fake_msr_peek(MSR_CORE_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_BUFFER_OVF, 0);
        assert_int_equal(pmu_pebs_decode_buffer(&s.fmt, raw, s.raw_len, rec, 8, &n), ST_OK);
        assert_int_equal(n, 3);
        assert_int_equal(rec[2].dla, 0x1080);
        assert_int_equal(rec[1].lat_cycles, 41);

        /* A PMI that is not ours; then a corrupt index is counted, not followed. */
        smp_pebs_on_pmi(&s);
        assert_int_equal(s.n_spurious, 1);
        ds.pebs_index = ds.pebs_buffer_base + sizeof(buf) + 8;
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, GLOBAL_STATUS_BUFFER_OVF);
        smp_pebs_on_pmi(&s);
        assert_int_equal(s.n_errors, 1);
        assert_int_equal(smp_pebs_disarm(&s), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_IA32_PEBS_ENABLE), 0);
        assert_int_equal(fake_msr_peek(MSR_IA32_DS_AREA), 0);
}

static void test_lbr_freeze_read_unfreeze(void **unused)
{
        struct cpu_info ci = skx();
        struct smp_lbr s;
        struct lbr_entry stacks[2 * 32];
        unsigned stack_n[2];
        const uint64_t top = (uint64_t)(uintptr_t)bench_block_top;
        const uint64_t jcc = (uint64_t)(uintptr_t)bench_block_jcc;

        assert_int_equal(smp_lbr_probe(&ci, &s), ST_OK);
        assert_int_equal(s.fmt.depth, 32);
        assert_true(s.fmt.has_cycles);
        s.stacks = stacks;
        s.stack_n = stack_n;
        s.stack_cap = 2;
        assert_int_equal(smp_lbr_arm(&s, 100003), ST_OK);
        assert_true(fake_msr_peek(MSR_IA32_DEBUGCTLMSR) & DEBUGCTLMSR_LBR);
        assert_true(fake_msr_peek(MSR_IA32_DEBUGCTLMSR) & DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);
        assert_int_equal(fake_msr_peek(MSR_LBR_SELECT),
                         pmu_lbr_select_value(PMU_LBR_F_KERNEL | PMU_LBR_F_ALL_BRANCHES));

        /* Frozen stack: 4 back branches of the block kernel, TOS at 3, 48 cycles each. */
        for (unsigned i = 0; i < 4; i++) {
                fake_msr_add(MSR_LBR_NHM_FROM + i, jcc);
                fake_msr_add(MSR_LBR_NHM_TO + i, top);
                fake_msr_add(MSR_LBR_INFO_0 + i, 48);
        }
        fake_msr_add(MSR_LBR_TOS, 3);
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 1 | GLOBAL_STATUS_LBRS_FROZEN);
        smp_lbr_on_pmi(&s);
        assert_int_equal(s.n_stacks, 1);
        assert_int_equal(stack_n[0], 4);
        assert_int_equal(stacks[0].from, jcc);
        assert_int_equal(stacks[0].to, top);
        assert_int_equal(stacks[0].cycles, 48);
        assert_int_equal(fake_msr_peek(MSR_CORE_PERF_GLOBAL_STATUS), 0);  /* unfrozen, acked */
        assert_int_equal(fake_msr_peek(MSR_ARCH_PERFMON_PERFCTR0), (-100003ull) & ((1ull << 48) - 1));

        /* Blocks from that stack: three top..jcc blocks of 48 cycles. */
        struct lbr_block blk[8];
        struct lbr_block_stat st[4];
        unsigned nb;
        size_t n_st = 0;
        struct rep_verdict v;
        assert_int_equal(pmu_lbr_blocks(stacks, stack_n[0], blk, 8, &nb, NULL), ST_OK);
        assert_int_equal(pmu_lbr_block_accumulate(st, &n_st, 4, blk, nb), ST_OK);
        assert_int_equal(rep_check_lbr_block_cost(st, n_st, top, jcc, 48000, 100, &v), ST_OK);
        assert_int_equal(v.v, REP_V_PASS);

        smp_lbr_on_pmi(&s);          /* counter bit clear: spurious, still unfrozen */
        assert_int_equal(s.n_spurious, 1);
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 1);
        smp_lbr_on_pmi(&s);
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, 1);
        smp_lbr_on_pmi(&s);
        assert_int_equal(s.n_dropped, 1);
        assert_int_equal(smp_lbr_disarm(&s), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_IA32_DEBUGCTLMSR), 0);
        assert_int_equal(fake_msr_peek(MSR_LBR_SELECT), 0);
}

static void test_lbr_probe_reasons(void **unused)
{
        struct smp_lbr s;
        struct cpu_info ci = { .vendor = VEN_AMD };

        assert_int_equal(smp_lbr_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "not an Intel"));
        ci = skx();
        ci.model = 0x97;
        assert_int_equal(smp_lbr_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "model table"));
        ci = skx();
        ci.intel.arch_lbr = true;
        ci.intel.arch_lbr_depth_mask = 0x80;   /* depth 64, no timed LBR */
        assert_int_equal(smp_lbr_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "timed LBR"));
        fake_msr_setup(NULL);                  /* no PMU at all (TCG) */
        ci = (struct cpu_info){ .vendor = VEN_INTEL, .family = 6, .model = 0x55 };
        pmu_init(&ci);
        assert_int_equal(smp_lbr_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "no core PMU"));
}

/* ---- plan, report, JSON ----------------------------------------------------------------- */

static void test_plan(void **unused)
{
        struct smp_plan p;
        struct lat_levels l = { .n = 3 };

        smp_plan_build(NULL, &p);
        assert_true(p.fallback);
        assert_int_equal(p.n, 4);
        assert_string_equal(p.ws[3].name, "DRAM");
        assert_int_equal(p.ws[3].level, PS_LVL_LOCAL_DRAM);
        assert_int_equal(p.n_buckets, 4);
        for (size_t i = 1; i < p.n_buckets; i++)
                assert_true(p.buckets[i].upper_cycles > p.buckets[i - 1].upper_cycles);
        assert_int_equal(p.buckets[0].upper_cycles, 9);    /* (5 + 14) / 2 */
        assert_int_equal(p.ws[1].lat_lo, 9 - 9 / 4);
        assert_int_equal(p.ws[1].lat_hi, 29 + 29 / 4);

        static const char *names[] = { "L1", "L2", "DRAM" };
        for (size_t i = 0; i < 3; i++) {
                strcpy(l.lv[i].name, names[i]);
                l.lv[i].lat_mcyc.p50 = (uint64_t[]){ 4000, 12000, 200000 }[i];
                l.lv[i].ws_lo_bytes = (uint64_t[]){ 4096, 64 * 1024, 64ull << 20 }[i];
                l.lv[i].ws_hi_bytes = (uint64_t[]){ 32768, 1 << 20, 512ull << 20 }[i];
        }
        l.bound_mcyc[0] = 8000;
        l.bound_mcyc[1] = 100000;
        smp_plan_build(&l, &p);
        assert_false(p.fallback);
        assert_int_equal(p.n, 3);
        assert_int_equal(p.ws[0].bytes, 16384);            /* middle of 4K..32K, page multiple */
        assert_int_equal(p.ws[2].bytes, 128ull << 20);      /* twice the last plateau start */
        assert_int_equal(p.ws[2].lat_hi, 400 + 100);
        assert_int_equal(p.ws[1].level, PS_LVL_L2);
        l.flags = LAT_F_NO_HIERARCHY;
        smp_plan_build(&l, &p);
        assert_true(p.fallback);
}

static void test_block_report(void **unused)
{
        const struct lbr_block_stat st[] = {
                { .start = 0x1010, .end = 0x1050, .n = 4, .sum_cycles = 194, .min_cycles = 48,
                  .max_cycles = 50 },
        };
        const struct rep_sym syms[] = { { 0x1000, 0x100, "bench_block_run" } };
        struct rep_buf b = { 0 };

        assert_int_equal(smp_lbr_block_report(st, 1, syms, 1, &b), ST_OK);
        assert_non_null(strstr(b.p, "bench_block_run"));
        assert_non_null(strstr(b.p, "48.500"));
        assert_int_equal(smp_lbr_block_report(NULL, 1, syms, 1, &b), ST_BAD_ARG);
        rep_buf_free(&b);
}

static void test_json_read_back(void **unused)
{
        static struct smp_log lg;
        struct rep_verdict v = { .v = REP_V_FAIL, .measured = 7, .expected = 10, .lo = 9,
                                 .hi = 11, .unit = "samples" };
        struct rep_buf b = { 0 };
        json_error_t err;

        memset(&lg, 0, sizeof(lg));
        lg.levels_source = "fixed fallback";
        strcpy(v.why, "7 samples for 100 events / period 10 \"quoted\"");
        smp_log_check(&lg, "pebs", "sample-count", &v);
        smp_log_skip(&lg, "ibs-op", "addresses L1", "CPUID.80000001H:ECX[10] IBS is clear");
        smp_log_figure(&lg, "lbr", "interrupt cost per sample", 1234, "TSC ticks");
        for (int i = 0; i < SMP_MAX_CHECKS + 3; i++)
                smp_log_skip(&lg, "lbr", "symbols", "x");
        assert_int_equal(lg.n_lost, 5);
        assert_int_equal(smp_json_write(&lg, &b), ST_OK);

        json_t *root = json_loadb(b.p, b.len, 0, &err);
        assert_non_null(root);
        assert_string_equal(json_string_value(json_object_get(root, "schema")),
                            "pmucal.sampling-validation/1");
        json_t *sum = json_object_get(root, "summary");
        assert_int_equal(json_integer_value(json_object_get(sum, "fail")), 1);
        assert_int_equal(json_integer_value(json_object_get(sum, "skip")), SMP_MAX_CHECKS - 1);
        assert_int_equal(json_integer_value(json_object_get(sum, "lost")), 5);
        json_t *checks = json_object_get(root, "checks");
        assert_int_equal(json_array_size(checks), SMP_MAX_CHECKS);
        json_t *c0 = json_array_get(checks, 0);
        assert_string_equal(json_string_value(json_object_get(c0, "verdict")), "FAIL");
        assert_int_equal(json_integer_value(json_object_get(c0, "measured")), 7);
        assert_int_equal(json_integer_value(json_object_get(c0, "lo")), 9);
        assert_non_null(strstr(json_string_value(json_object_get(c0, "detail")), "\"quoted\""));
        json_t *c1 = json_array_get(checks, 1);
        assert_null(json_object_get(c1, "measured"));   /* SKIP: no numbers */
        assert_string_equal(json_string_value(json_object_get(c1, "mechanism")), "ibs-op");
        json_t *f = json_array_get(json_object_get(root, "figures"), 0);
        assert_int_equal(json_integer_value(json_object_get(f, "value")), 1234);
        json_decref(root);
        rep_buf_free(&b);
}

/* ---- load-latency event from the tables, latency units, physical addresses ------------- */

/* Every model-specific Intel mapfile row whose models the PEBS data-source table claims (the
 * harness would run PEBS load latency there) maps to a table with the load-latency event; the
 * generic table has none (the event is model-specific), so other models SKIP with a reason. */
static void test_ldlat_event_in_claimed_tables(void **unused)
{
        size_t n_claimed = 0;

        for (size_t i = 0; i < pmu_n_event_map; i++) {
                const struct pmu_map_row *r = &pmu_event_map[i];
                const struct pmu_event_table *t = &pmu_event_tables[r->table];

                if (r->vendor != VEN_INTEL || r->model_hi > 0xff)
                        continue;              /* the wildcard row: intel-arch, checked below */
                for (uint32_t m = r->model_lo; m <= r->model_hi; m++) {
                        enum pmu_pebs_dse_kind kind;
                        bool split;
                        const struct pmu_event_desc *ev;

                        if (!smp_pebs_model_dse(m, &kind, &split) ||
                            pmu_events_for(VEN_INTEL, r->family < 0 ? 6 : (uint32_t)r->family,
                                           m) != t)
                                continue;
                        n_claimed++;
                        ev = smp_pebs_ldlat_event(t);
                        if (!ev)
                                fail_msg("%s (model 0x%x) has no load-latency event", t->name, m);
                        assert_true(ev >= t->events && ev < t->events + t->n_events);
                        assert_int_equal(ev->fixed, -1);
                        assert_int_equal(ev->cmask, 0);  /* [SDM-3B]: CMASK and INV must be 0 */
                        assert_false(ev->inv);
                }
        }
        /* Ice Lake client 0x7d 0x7e; Skylake client 0x4e 0x5e 0x8e 0x9e 0xa5 0xa6; Skylake-SP
         * 0x55; Ice Lake-SP/D 0x6a 0x6c; Sapphire Rapids 0x8f. */
        assert_int_equal(n_claimed, 12);
        assert_null(smp_pebs_ldlat_event(pmu_events_table("intel-arch")));
        assert_null(smp_pebs_ldlat_event(NULL));
}

/* A CPUID signature, decoded by boot/x86/cpuid.c as on the target, picks the table perf's
 * mapfile.csv names for that part; where the PEBS data-source table knows the model, the
 * table has the load-latency event. Signatures: CPUID.01H:EAX of real parts ([SDM-2A]
 * CPUID Figure 3-6; [APM-3] E.3.2 for the AMD extended family). */
static void test_tables_from_cpuid_signature(void **unused)
{
        static const struct {
                const char *part;
                bool        amd;
                uint32_t    eax;
                uint32_t    family, model;
                const char *table;   /* NULL: no table */
                bool        dse;     /* the PEBS data-source table knows the model */
        } cases[] = {
                { "Skylake-S i7-6700K",      false, 0x000506e3, 6, 0x5e, "intel-skylake", true },
                { "Kaby Lake-S i7-7700K",    false, 0x000906e9, 6, 0x9e, "intel-skylake", true },
                { "Comet Lake-S i9-10900K",  false, 0x000a0655, 6, 0xa5, "intel-skylake", true },
                { "Skylake-SP (stepping 4)", false, 0x00050654, 6, 0x55, "intel-skylakex", true },
                { "Cascade Lake (stepping 7)", false, 0x00050657, 6, 0x55, "intel-skylakex", true },
                { "Ice Lake client",         false, 0x000706e5, 6, 0x7e, "intel-icelake", true },
                { "Ice Lake-SP",             false, 0x000606a6, 6, 0x6a, "intel-icelakex", true },
                { "Sapphire Rapids",         false, 0x000806f8, 6, 0x8f, "intel-sapphirerapids", true },
                { "Alder Lake-S",            false, 0x00090672, 6, 0x97, "intel-alderlake", false },
                { "Raptor Lake-S",           false, 0x000b0671, 6, 0xb7, "intel-alderlake", false },
                { "Haswell-S",               false, 0x000306c3, 6, 0x3c, "intel-arch", true },
                { "Zen 2 Rome",              true,  0x00830f10, 0x17, 0x31, "amd-zen2", false },
                { "Zen 2 Matisse",           true,  0x00870f10, 0x17, 0x71, "amd-zen2", false },
                { "Zen 1 Naples",            true,  0x00800f12, 0x17, 0x01, NULL, false },
                { "Zen 3 Milan",             true,  0x00a00f11, 0x19, 0x01, "amd-zen3", false },
                { "Zen 4 Genoa",             true,  0x00a10f11, 0x19, 0x11, "amd-zen4", false },
        };
        static struct cpuid_dump d;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct cpu_info ci;
                const struct pmu_event_table *t;
                enum pmu_pebs_dse_kind kind;
                bool split;

                memset(&d, 0, sizeof(d));
                d.leaves[0].leaf = 0;
                d.leaves[0].r = cases[i].amd
                        ? (struct cpuid_regs){ 1, 0x68747541, 0x444d4163, 0x69746e65 } /* AuthenticAMD */
                        : (struct cpuid_regs){ 1, 0x756e6547, 0x6c65746e, 0x49656e69 }; /* GenuineIntel */
                d.leaves[1].leaf = 1;
                d.leaves[1].r.eax = cases[i].eax;
                d.n = 2;
                assert_int_equal(cpu_decode(&d, &ci), ST_OK);
                assert_int_equal(ci.vendor, cases[i].amd ? VEN_AMD : VEN_INTEL);
                if (ci.family != cases[i].family || ci.model != cases[i].model)
                        fail_msg("%s: decoded family 0x%x model 0x%x", cases[i].part, ci.family,
                                 ci.model);
                t = pmu_events_for(ci.vendor, ci.family, ci.model);
                if (!cases[i].table) {
                        assert_null(t);
                        continue;
                }
                if (!t || strcmp(t->name, cases[i].table))
                        fail_msg("%s: table %s, want %s", cases[i].part, t ? t->name : "none",
                                 cases[i].table);
                if (cases[i].amd)
                        continue;
                assert_int_equal(smp_pebs_model_dse(ci.model, &kind, &split), cases[i].dse);
                if (!strcmp(t->name, "intel-arch"))
                        assert_null(smp_pebs_ldlat_event(t));      /* SKIP with a reason */
                else if (cases[i].dse && !smp_pebs_ldlat_event(t))
                        fail_msg("%s: %s has no load-latency event", cases[i].part, t->name);
        }
}

/* On an Ice Lake the probe finds the event through pmu/events and arm programs its code. */
static void test_pebs_probe_finds_icelake_event(void **unused)
{
        struct cpu_info ci = skx();
        const struct pmu_event_desc *want;
        struct smp_pebs s;
        static struct pmu_ds_area ds;
        static uint8_t buf[16 * PEBS_REC_SIZE_FMT3];

        ci.model = 0x7e;
        assert_int_equal(pmu_init(&ci), ST_OK);
        want = pmu_event_find(pmu_events_table("intel-icelake"),
                              "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4");
        assert_non_null(want);
        assert_int_equal(smp_pebs_probe(&ci, &s), ST_OK);
        assert_ptr_equal(s.ev, want);
        s.ds = &ds;
        s.buf = buf;
        s.buf_bytes = sizeof(buf);
        assert_int_equal(smp_pebs_arm(&s, 2003, 3), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_ARCH_PERFMON_EVENTSEL0 + 1) & 0xffff,
                         ((unsigned)want->umask << 8) | want->code);
        assert_int_equal(fake_msr_peek(MSR_PEBS_LD_LAT_THRESHOLD), 3);
        assert_int_equal(smp_pebs_disarm(&s), ST_OK);
}

/* The latency phase's clock reaches the plan: rep_levels_detect carries it. */
static void test_levels_carry_clock(void **unused)
{
        struct lat_point pts[3] = {
                { .ws_bytes = 4096, .p50_mcyc = 4000 }, { .ws_bytes = 8192, .p50_mcyc = 4000 },
                { .ws_bytes = 16384, .p50_mcyc = 4100 },
        };
        struct lat_curve c = { .pts = pts, .n = 3, .clock = LAT_CLOCK_TSC,
                               .core_hz = 2000000000, .tsc_hz = 2000000000 };
        struct lat_levels l;

        for (size_t i = 0; i < 3; i++)
                pts[i].p10_mcyc = pts[i].p90_mcyc = pts[i].min_mcyc = pts[i].p50_mcyc;
        assert_int_equal(rep_levels_detect(&c, NULL, &l), ST_OK);
        assert_int_equal(l.clock, LAT_CLOCK_TSC);
        assert_int_equal(l.clock_hz, 2000000000);
        c.clock = LAT_CLOCK_TSC_APERF;
        c.core_hz = 3100000000ull;
        assert_int_equal(rep_levels_detect(&c, NULL, &l), ST_OK);
        assert_int_equal(l.clock, LAT_CLOCK_TSC_APERF);
        assert_int_equal(l.clock_hz, 3100000000ull);
}

/* Expected latencies become core cycles: scaled by the measured ratio, widened when unknown,
 * untouched when the table already is in core cycles. */
static void test_plan_core_cycles(void **unused)
{
        static const struct {
                enum lat_clock clock;
                uint32_t       q16;      /* core cycles per TSC tick */
                uint32_t       p50_l2, lo_l2, hi_l2, bound0;
                const char    *note;
        } cases[] = {
                /* TSC table: L2 p50 12, range [8 - 2, 100 + 25] = [6, 125], bound 8 */
                { LAT_CLOCK_TSC,        0,                  12, 3,  250, 8,  "widened" },
                { LAT_CLOCK_TSC,        3u << 15,           18, 9,  188, 12, "x1.500" },
                { LAT_CLOCK_TSC,        1u << 15,           6,  3,  63,  4,  "x0.500 core:TSC (APERF" },
                { LAT_CLOCK_TSC_APERF,  3u << 15,           12, 6,  125, 8,  "core cycles" },
                { LAT_CLOCK_PMU_CYCLES, 0,                  12, 6,  125, 8,  "core cycles" },
        };
        static const char *names[] = { "L1", "L2", "DRAM" };
        struct lat_levels l = { .n = 3 };
        struct smp_plan p, pc;

        for (size_t i = 0; i < 3; i++) {
                strcpy(l.lv[i].name, names[i]);
                l.lv[i].lat_mcyc.p50 = (uint64_t[]){ 4000, 12000, 200000 }[i];
                l.lv[i].ws_lo_bytes = (uint64_t[]){ 4096, 64 * 1024, 64ull << 20 }[i];
                l.lv[i].ws_hi_bytes = (uint64_t[]){ 32768, 1 << 20, 512ull << 20 }[i];
        }
        l.bound_mcyc[0] = 8000;
        l.bound_mcyc[1] = 100000;
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
                l.clock = cases[k].clock;
                l.clock_hz = 2100000000;
                smp_plan_build(&l, &p);
                assert_int_equal(p.tsc_cycles, cases[k].clock == LAT_CLOCK_TSC);
                assert_int_equal(p.clock_hz, 2100000000);
                assert_int_equal(p.ws[1].lat_lo, 6);
                assert_int_equal(p.ws[1].lat_hi, 125);
                smp_plan_core_cycles(&p, cases[k].q16, "APERF/MPERF", &pc);
                assert_int_equal(pc.ws[1].p50_cycles, cases[k].p50_l2);
                assert_int_equal(pc.ws[1].lat_lo, cases[k].lo_l2);
                assert_int_equal(pc.ws[1].lat_hi, cases[k].hi_l2);
                assert_int_equal(pc.buckets[0].upper_cycles, cases[k].bound0);
                assert_int_equal(pc.buckets[2].upper_cycles, UINT32_MAX - 1); /* open bound */
                assert_ptr_equal(pc.buckets[1].name, pc.ws[1].name);
                assert_int_equal(pc.n_buckets, 3);
                assert_int_equal(pc.ws[2].bytes, p.ws[2].bytes);
                if (!strstr(pc.lat_note, cases[k].note))
                        fail_msg("case %zu: note \"%s\" lacks \"%s\"", k, pc.lat_note,
                                 cases[k].note);
        }
        smp_plan_build(NULL, &p);                   /* fixed fallback: core cycles */
        assert_false(p.tsc_cycles);
        smp_plan_core_cycles(&p, 0, NULL, &pc);
        assert_int_equal(pc.ws[1].lat_hi, p.ws[1].lat_hi);
        assert_non_null(strstr(pc.lat_note, "fallback"));
}

/* Physical addresses are compared with what the page-table walk says, not with the linear
 * address: a non-identity mapping passes, a wrong or unwalkable one fails and is named. */
static void test_phys_walk_compare(void **unused)
{
        static const struct {
                uint64_t    la, pa;        /* as the sample reports them */
                bool        la_ok, pa_ok;
                status_t    walk_st;
                uint64_t    walk_pa;
        } smp[] = {
                [0] = { 0x100040, 0x100040, true, true,  ST_OK,        0x100040 },  /* identity */
                [1] = { 0x400000040ull, 0x7f000040, true, true, ST_OK, 0x7f000040 }, /* remapped */
                [2] = { 0x200080, 0x300080, true, true,  ST_OK,        0x200080 },  /* wrong pa */
                [3] = { 0x500000, 0x500000, true, true,  ST_NOT_FOUND, 0 },         /* unmapped */
                [4] = { 0x600000, 0,        true, false, ST_NOT_FOUND, 0 },         /* no pa */
        };
        static const struct {
                size_t                first, n;
                enum rep_verdict_kind want;
                int64_t               good, both;
                const char           *why;
        } cases[] = {
                { 0, 2, REP_V_PASS, 2, 2, "2 of 2 physical addresses equal the CR3 walk (1 identity)" },
                { 0, 3, REP_V_FAIL, 2, 3, "first: la 0x200080 pa 0x300080 walk" },
                { 3, 1, REP_V_FAIL, 0, 1, "(1 unwalkable); first: la 0x500000" },
                { 4, 1, REP_V_SKIP, 0, 0, "no sample had both" },
                { 0, 0, REP_V_SKIP, 0, 0, "no sample had both" },
        };
        struct psample s[5];
        struct rep_walk w[5];
        struct rep_verdict v;

        memset(s, 0, sizeof(s));
        for (size_t i = 0; i < 5; i++) {
                s[i].data_la = smp[i].la;
                s[i].data_la_valid = smp[i].la_ok;
                s[i].data_pa = smp[i].pa;
                s[i].data_pa_valid = smp[i].pa_ok;
                w[i] = (struct rep_walk){ .st = smp[i].walk_st, .pa = smp[i].walk_pa,
                                          .page_bytes = 4096 };
        }
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
                assert_int_equal(rep_check_phys_walk(s + cases[k].first, w + cases[k].first,
                                                     cases[k].n, &v), ST_OK);
                assert_int_equal(v.v, cases[k].want);
                assert_int_equal(v.measured, cases[k].good);
                assert_int_equal(v.expected, cases[k].both);
                if (!strstr(v.why, cases[k].why))
                        fail_msg("case %zu: \"%s\" lacks \"%s\"", k, v.why, cases[k].why);
        }
        assert_int_equal(rep_check_phys_walk(NULL, w, 1, &v), ST_BAD_ARG);
        assert_int_equal(rep_check_phys_walk(s, NULL, 1, &v), ST_BAD_ARG);
        assert_int_equal(rep_check_phys_walk(s, w, 1, NULL), ST_BAD_ARG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ibs_probe_reasons),
                cmocka_unit_test(test_ibs_op_pmi_state_machine),
                cmocka_unit_test(test_ibs_fetch_and_fam10h_disable),
                cmocka_unit_test(test_model_tables),
                cmocka_unit_test(test_pebs_probe_reasons),
                cmocka_unit_test(test_pebs_drain_on_pmi),
                cmocka_unit_test(test_lbr_freeze_read_unfreeze),
                cmocka_unit_test(test_lbr_probe_reasons),
                cmocka_unit_test(test_plan),
                cmocka_unit_test(test_block_report),
                cmocka_unit_test(test_json_read_back),
                cmocka_unit_test(test_ldlat_event_in_claimed_tables),
                cmocka_unit_test(test_tables_from_cpuid_signature),
                cmocka_unit_test(test_pebs_probe_finds_icelake_event),
                cmocka_unit_test(test_levels_carry_clock),
                cmocka_unit_test(test_plan_core_cycles),
                cmocka_unit_test(test_phys_walk_compare),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
