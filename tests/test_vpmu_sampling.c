/** @file The sampling sessions (app/x86/sampling_{pebs,lbr,ibs}.c) on the virtual PMU: records,
 *  stacks and samples as the modelled hardware writes them, decoded by the harness. Each
 *  test here failed before the register fix it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/x86/sampling.h"
#include "pmu/x86/ibs_session.h"
#include "pmu/x86/lbr_session.h"
#include "pmu/x86/pebs_session.h"
#include "bench/kernel_block.h"
#include "bench/kernel_chase.h"
#include "tests/vpmu/vpmu.h"
#include "tests/vpmu/vpmu_regs.h"

static struct cpu_info cpu;

static void up(const struct vpmu_part *p)
{
        vpmu_init(p, NULL);
        vpmu_cpu_info(&cpu);
        assert_int_equal(pmu_init(&cpu), ST_OK);
}

/* ---- PEBS ----------------------------------------------------------------------------- */

#define PEBS_BUF_BYTES (64 * 1024)

struct pebs_run {
        struct pmu_pebs_session        s;
        struct bench_chase_buf ch;
        struct pmu_pebs_record rec[4096];
        size_t                 n;
        status_t               decode;
};

static void pebs_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        (void)f;
        pmu_pebs_session_on_pmi(ctx);
}

/* Probe, arm with @p period, chase @p iters iterations over @p ws bytes, disarm, decode. */
static void pebs_run(struct pebs_run *r, uint64_t ws, uint64_t iters, uint64_t period)
{
        memset(r, 0, sizeof(*r));
        assert_int_equal(pmu_pebs_session_probe(&cpu, &r->s), ST_OK);
        r->s.ds = aligned_alloc(4096, 4096);
        r->s.buf = aligned_alloc(4096, PEBS_BUF_BYTES);
        r->s.buf_bytes = PEBS_BUF_BYTES;
        r->s.raw_cap = 1 << 20;
        r->s.raw = malloc(r->s.raw_cap);
        assert_int_equal(bench_chase_buf_create(&r->ch, &SAMP_CHASE_CFG(ws, 64)), ST_OK);
        assert_int_equal(cpu_pmi_enable(pebs_pmi, &r->s, -1), ST_OK);
        assert_int_equal(pmu_pebs_session_arm(&r->s, period, 3), ST_OK);
        bench_chase(r->ch.start, iters);
        assert_int_equal(pmu_pebs_session_disarm(&r->s), ST_OK);
        cpu_pmi_disable();
        r->decode = pmu_pebs_decode_buffer(&r->s.fmt, r->s.raw, r->s.raw_len, r->rec,
                                           sizeof(r->rec) / sizeof(r->rec[0]), &r->n);
}

static void pebs_free(struct pebs_run *r)
{
        bench_chase_buf_destroy(&r->ch);
        free(r->s.ds);
        free(r->s.buf);
        free(r->s.raw);
}

/* Ice Lake-SP (PEBS format 4, baseline): with Adaptive_Record (EVTSEL bit 34) every record
 * carries the memory-info group the decoder was set up for; without it the CPU writes 0x20-byte
 * basic records and half of the decode fails. And the PMI comes from the DS threshold only:
 * with INT on the PEBS counter there would be one per record. */
static void test_pebs_adaptive_records(void **unused)
{
        struct pebs_run *r = calloc(1, sizeof(*r));

        up(&vpmu_icx);
        pebs_run(r, 256 * KiB, 10000, 101); /* 320000 loads from L2: 3168 records */
        assert_int_equal(r->s.rec_bytes, 0x40);
        assert_int_equal(r->decode, ST_OK);
        assert_int_equal(r->n, r->s.n_records);
        assert_true(r->n > 3000 && r->n < 3200);
        for (size_t i = 0; i < r->n; i++) {
                uint64_t dla = r->rec[i].dla;

                if (!r->rec[i].mem_valid || dla < (uint64_t)(uintptr_t)r->ch.buf ||
                    dla >= (uint64_t)(uintptr_t)r->ch.buf + r->ch.bytes)
                        fail_msg("record %zu: mem_valid %d dla %#llx", i, r->rec[i].mem_valid,
                                 (unsigned long long)dla);
                assert_int_equal(r->rec[i].lat_cycles, vpmu_icx.lat[VL_L2]);
        }
        /* one PMI per threshold crossing (buffer of 1024 records, threshold 8 short) */
        uint64_t thr = PEBS_BUF_BYTES / 0x40 - 8;
        if (r->s.n_pmi > r->n / thr + 1)
                fail_msg("%llu PMIs for %zu records: the counter interrupts too",
                         (unsigned long long)r->s.n_pmi, r->n);
        pebs_free(r);
        free(r);
}

/* Formats 4/5 without PEBS baseline write basic records (Linux intel_ds_init): PEBS works,
 * the records carry no memory info. */
static void test_pebs_basic_only(void **unused)
{
        struct vpmu_part p = vpmu_icx;
        struct pebs_run *r = calloc(1, sizeof(*r));

        p.perf_caps &= ~VP_CAP_PEBS_BASELINE;
        up(&p);
        pebs_run(r, 256 * KiB, 2000, 101);
        assert_int_equal(r->s.rec_bytes, 0x20);
        assert_int_equal(r->decode, ST_OK);
        assert_true(r->n > 500);
        for (size_t i = 0; i < r->n; i++)
                assert_false(r->rec[i].mem_valid);
        pebs_free(r);
        free(r);
}

/* Westmere reports the STLB-miss and lock bits of the data source; only Nehalem lacks them
 * (Linux x86_pmu.pebs_no_tlb). The harness has no Westmere event table, so the record is the
 * one the model's PEBS assist writes for a page-stride load (format 1, STLB miss). */
static void test_pebs_westmere_tlb(void **unused)
{
        static const struct { const struct vpmu_part *p; bool known; } cases[] = {
                { &vpmu_wsm, true }, { &vpmu_nhm, false },
        };

        for (size_t c = 0; c < 2; c++) {
                struct pmu_pebs_fmt    fmt = { 0 };
                struct pmu_pebs_record rec;
                struct psample         ps;
                uint8_t                raw[0xb0] = { 0 };
                uint64_t               dse = 0x3 | 1u << 4; /* L2 hit, STLB miss */
                bool                   split;

                up(cases[c].p);
                pmu_pebs_caps_decode(vpmu_part()->perf_caps, &fmt.caps);
                assert_true(pmu_pebs_model_dse(cpu.model, &fmt.dse_kind, &split, &fmt.no_tlb_info));
                assert_int_equal(fmt.no_tlb_info, !cases[c].known);
                memcpy(raw + 0xa0, &dse, 8);
                assert_int_equal(pmu_pebs_decode(&fmt, raw, sizeof(raw), &rec), ST_OK);
                assert_int_equal(pmu_pebs_to_psample(&fmt, &rec, &ps), ST_OK);
                assert_int_equal(ps.tlb_l2_known, cases[c].known);
                assert_int_equal(ps.tlb_l2_miss, cases[c].known);
        }
}

/* ---- LBR -------------------------------------------------------------------------------- */

static void lbr_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        (void)f;
        pmu_lbr_session_on_pmi(ctx);
}

/* Silvermont/Airmont keep 8 entries at 0x40/0x60 (Linux intel_pmu_lbr_init_slm), not at
 * Nehalem's 0x680/0x6c0; its format (3) has no cycle counts, so the session SKIPs for that
 * reason, having found the stack where it is. */
static void test_lbr_silvermont(void **unused)
{
        struct pmu_lbr_session s;

        up(&vpmu_slm);
        assert_int_equal(pmu_lbr_session_probe(&cpu, &s), ST_UNSUPPORTED);
        assert_int_equal(s.from_base, VP_LBR_CORE_FROM);
        assert_int_equal(s.to_base, VP_LBR_CORE_TO);
        assert_int_equal(s.fmt.depth, 8);
        assert_non_null(strstr(s.why, "cycle"));
}

/* Arch LBR: with CPUID.1CH:EBX = 0 (no CPL or branch filtering) the CPL and filter bits of
 * IA32_LBR_CTL are reserved (#GP); ECX[0]/[2] make mispredict and branch type valid. */
static void test_lbr_arch_cpuid(void **unused)
{
        static const uint32_t ebx[] = { 0x7, 0x0 };

        for (size_t c = 0; c < 2; c++) {
                struct vpmu_part p = vpmu_spr;
                struct pmu_lbr_session   s;
                size_t           n_entries = 0;

                p.lbr_1c_ebx = ebx[c];
                up(&p);
                assert_int_equal(pmu_lbr_session_probe(&cpu, &s), ST_OK);
                assert_true(s.fmt.has_mispred && s.fmt.has_br_type && s.fmt.has_cycles);
                s.stack_cap = 64;
                s.stacks = calloc(s.stack_cap * s.fmt.depth, sizeof(*s.stacks));
                s.stack_n = calloc(s.stack_cap, sizeof(*s.stack_n));
                assert_int_equal(cpu_pmi_enable(lbr_pmi, &s, -1), ST_OK);
                assert_int_equal(pmu_lbr_session_arm(&s, 2000003), ST_OK);
                bench_block_run(200000);
                assert_int_equal(pmu_lbr_session_disarm(&s), ST_OK);
                cpu_pmi_disable();
                assert_true(s.n_stacks > 0);
                for (size_t i = 0; i < s.n_stacks; i++)
                        for (unsigned k = 0; k < s.stack_n[i]; k++) {
                                const struct lbr_entry *e = &s.stacks[i * s.fmt.depth + k];

                                assert_true(e->mispred_valid && e->cycles_valid);
                                assert_true(e->cycles > 0); /* what the block took here */
                                assert_int_equal(e->from, (uint64_t)(uintptr_t)bench_block_jcc);
                                n_entries++;
                        }
                assert_true(n_entries >= s.n_stacks * 16);
                free(s.stacks);
                free(s.stack_n);
        }
}

/* ---- IBS -------------------------------------------------------------------------------- */

static void ibs_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        (void)f;
        pmu_ibs_session_on_pmi(ctx);
}

struct ibs_run {
        struct pmu_ibs_session         s;
        struct bench_chase_buf ch;
        struct pmu_ibs_op_regs ops[2048];
};

/* Op sampling with @p opts over a chase of @p iters iterations over @p ws bytes. */
static void ibs_run(struct ibs_run *r, uint64_t period, const struct pmu_ibs_op_opts *opts,
                    uint64_t ws, uint64_t iters)
{
        uint64_t op_ctl;

        memset(r, 0, sizeof(*r));
        assert_int_equal(pmu_ibs_session_probe(&cpu, &r->s), ST_OK);
        r->s.ops = r->ops;
        r->s.op_cap = sizeof(r->ops) / sizeof(r->ops[0]);
        assert_int_equal(pmu_ibs_op_ctl_encode(&r->s.info, period, opts, &op_ctl), ST_OK);
        assert_int_equal(bench_chase_buf_create(&r->ch, &SAMP_CHASE_CFG(ws, 64)), ST_OK);
        assert_int_equal(cpu_pmi_enable(ibs_pmi, &r->s, (int)r->s.lvt.offset), ST_OK);
        assert_int_equal(pmu_ibs_session_arm(&r->s, op_ctl, 0), ST_OK);
        bench_chase(r->ch.start, iters);
        assert_int_equal(pmu_ibs_session_disarm(&r->s), ST_OK);
        cpu_pmi_disable();
        bench_chase_buf_destroy(&r->ch);
}

/* Zen 5 erratum 1606: the load-latency filter alone lets samples below the threshold
 * through; with L3MissOnly (Linux perf_ibs_init on Family 1Ah models 00h-0Fh) a chase served
 * by the L2 (14 cycles) yields no sample at a 256-cycle threshold, a DRAM one only slow ones. */
static void test_ibs_zen5_ldlat(void **unused)
{
        const struct pmu_ibs_op_opts opts = { .count = PMU_IBS_COUNT_DISPATCHED_OPS,
                                              .ldlat_cycles = 256 };
        struct ibs_run *r = calloc(1, sizeof(*r));
        struct pmu_ibs_op op;

        up(&vpmu_zen5);
        ibs_run(r, 4096, &opts, 256 * KiB, 20000);
        assert_int_equal(r->s.n_op, 0);
        ibs_run(r, 4096, &opts, 40 * MiB, 2000);
        assert_true(r->s.n_op > 0);
        for (size_t i = 0; i < r->s.n_op; i++) {
                assert_int_equal(pmu_ibs_op_decode(&r->s.info, &r->s.ops[i], &op), ST_OK);
                assert_true(op.ld_op && op.dc_miss_lat_cycles >= 256);
        }
        free(r);
}

/* IbsOpCurCnt's low 7 bits are random: the ops counted after the last sample are CurCnt[26:7]
 * (a multiple of 128) and within 128 of what ran (the chase: 34 ops per iteration, 33 where
 * dec and jnz fuse). */
static void test_ibs_curcnt(void **unused)
{
        const struct pmu_ibs_op_opts opts = { .count = PMU_IBS_COUNT_DISPATCHED_OPS };
        struct ibs_run *r = calloc(1, sizeof(*r));
        const uint64_t  iters = 100;

        for (size_t i = 0; i < 3; i++) {
                const struct vpmu_part *p[] = { &vpmu_zen2, &vpmu_zen4, &vpmu_zen5 };
                const uint64_t ops = iters * (p[i]->fuse_dec_jcc ? 33 : 34);

                up(p[i]);
                ibs_run(r, 0x100000, &opts, 64 * KiB, iters);
                assert_int_equal(r->s.n_op, 0);
                if (r->s.op_tail % 128 || r->s.op_tail + 128 <= ops || r->s.op_tail >= ops + 128)
                        fail_msg("%s: op_tail %llu for %llu ops", p[i]->name,
                                 (unsigned long long)r->s.op_tail, (unsigned long long)ops);
        }
        free(r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pebs_adaptive_records),
                cmocka_unit_test(test_pebs_basic_only),
                cmocka_unit_test(test_pebs_westmere_tlb),
                cmocka_unit_test(test_lbr_silvermont),
                cmocka_unit_test(test_lbr_arch_cpuid),
                cmocka_unit_test(test_ibs_zen5_ldlat),
                cmocka_unit_test(test_ibs_curcnt),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
