/** @file The virtual PMU retires a step's ops in runs between the points where something can
 *  happen (tests/vpmu/vpmu_core.c): counter wraps, PEBS records, IBS tags. The runs must leave
 *  what retiring every op alone leaves: the PMIs with their RIPs and status, the counters, the
 *  IBS samples and the PEBS records, with the count fault's carry on the way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/cpu.h"
#include "boot/x86/msr.h"
#include "tests/vpmu/vpmu.h"
#include "tests/vpmu/vpmu_regs.h"

#define BLOCK   37          /* ops of one kind in a row */
#define N_STEPS 40
#define STEP    12345       /* ops per step */
#define TOP     (1ull << 48)

/* What the handler and the end saw, folded (FNV-1a over 64-bit words). */
static uint64_t seen;
static unsigned n_pmi;

static void mix(uint64_t v)
{
        seen = (seen ^ v) * 0x100000001b3ull;
}

static uint64_t rd(uint32_t msr)
{
        uint64_t v = 0;

        assert_int_equal(rdmsr_safe(msr, &v), ST_OK);
        return v;
}

static void wr(uint32_t msr, uint64_t v)
{
        assert_int_equal(wrmsr_safe(msr, v), ST_OK);
}

/* Op g of the workload: blocks of BLOCK ops, a block's ops all loads from one level (one of
 * them with dTLB misses) or all other ops. */
static void gen_op(void *ctx, uint64_t i, struct vpmu_op *o)
{
        uint64_t g = *(const uint64_t *)ctx + i;
        unsigned kind = (unsigned)(g / BLOCK % 6);

        *o = (struct vpmu_op){ .rip = 0x400000 + g % BLOCK * 4 };
        if (kind == 5)
                return;
        o->load = true;
        o->level = (enum vpmu_level)(kind % 4);
        o->dtlb_miss = kind == 4;
        o->la = 0x10000000 + g * 64;
}

static uint64_t gen_alike(void *ctx, uint64_t i, uint64_t n)
{
        uint64_t g = *(const uint64_t *)ctx + i, m = BLOCK - g % BLOCK;

        return m < n ? m : n;
}

static void work(void)
{
        uint64_t         base = 0;
        struct vpmu_step s = { .rip_lo = 0x400000, .rip_hi = 0x400000 + BLOCK * 4,
                               .op_at = gen_op, .op_alike = gen_alike, .ctx = &base };

        assert_true(vpmu_wants_ops());
        for (unsigned k = 0; k < N_STEPS; k++, base += STEP) {
                s.n[VE_OPS] = STEP;
                vpmu_retire(&s);
        }
}

/* ---- Zen 4: IBS op sampling, three counters (one with the count fault) ---------------------- */

static const uint64_t zen_period[3] = { 1000, 777, 0 };
static const uint64_t ibs_ctl = VP_OPCTL_EN | VP_OPCTL_CNT_CTL | (4096 >> 4);

static void zen_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        uint64_t st = rd(VP_AMD_GLOBAL_STATUS), ctl = rd(VP_IBS_OP_CTL);

        (void)ctx;
        n_pmi++;
        mix(f->rip);
        mix(st);
        for (unsigned c = 0; c < 3; c++)
                if (st & (1ull << c))
                        wr(VP_F15H_PERF_CTR0 + 2 * c, TOP - zen_period[c]);
        wr(VP_AMD_GLOBAL_STATUS_CLR, st);
        if (ctl & VP_OPCTL_VAL) {
                mix(rd(VP_IBS_OP_RIP));
                mix(rd(VP_IBS_DC_LINAD));
                mix(rd(VP_IBS_OP_DATA3));
                wr(VP_IBS_OP_CTL, ibs_ctl);
        }
}

static uint64_t zen_run(bool runs)
{
        const struct vpmu_faults f = { .count_kind = VE_L1D_MISS, .count_ppm = 123457 };
        static const uint64_t    sel[3] = { 0x43 | 0xff00, 0x44 | 0x4800, 0x45 | 0xf000 };

        seen = 0xcbf29ce484222325ull;
        n_pmi = 0;
        vpmu_init(&vpmu_zen4, &f);
        vpmu_set_op_runs(runs);
        assert_int_equal(cpu_pmi_enable(zen_pmi, NULL, 1), ST_OK);
        wr(VP_AMD_GLOBAL_CTL, 0);
        for (unsigned c = 0; c < 3; c++) {
                wr(VP_F15H_PERF_CTL0 + 2 * c, VP_EVTSEL_EN | VP_EVTSEL_OS |
                                                  (zen_period[c] ? VP_EVTSEL_INT : 0) | sel[c]);
                wr(VP_F15H_PERF_CTR0 + 2 * c, TOP - (zen_period[c] ? zen_period[c] : 1));
        }
        wr(VP_AMD_GLOBAL_CTL, 7);
        wr(VP_IBS_OP_CTL, ibs_ctl);
        work();
        for (unsigned c = 0; c < 3; c++)
                mix(rd(VP_F15H_PERF_CTR0 + 2 * c));
        mix(rd(VP_IBS_OP_CTL));
        mix(vpmu_stats()->n_ibs_op);
        cpu_pmi_disable();
        return seen;
}

static void test_zen_runs_match_single_ops(void **unused)
{
        uint64_t alone = zen_run(false);
        unsigned n = n_pmi;
        uint64_t ibs = vpmu_stats()->n_ibs_op;

        /* enough happened for the comparison to mean something */
        assert_true(n > 500);
        assert_true(ibs > 50);
        assert_int_equal(zen_run(true), alone);
        assert_int_equal(n_pmi, n);
}

/* ---- Sapphire Rapids: load-latency PEBS, a loads counter, the buffer threshold -------------- */

static uint64_t ds[32];
static uint8_t  pebs_buf[16 * 1024] __attribute__((aligned(64)));

static void ds_reset_index(void)
{
        ds[VP_DS_PEBS_INDEX / 8] = (uint64_t)(uintptr_t)pebs_buf;
}

static void spr_pmi(const struct cpu_pmi_frame *f, void *ctx)
{
        uint64_t st = rd(VP_IA32_PERF_GLOBAL_STATUS);

        (void)ctx;
        n_pmi++;
        mix(f->rip);
        mix(st);
        if (st & 2)
                wr(VP_IA32_PMC0 + 1, (uint32_t)-333);
        if (st & VP_STATUS_OVF_BUFFER) {
                /* the records without their TSC word: IP, counters, address, source, latency */
                for (uint64_t a = (uint64_t)(uintptr_t)pebs_buf; a < ds[VP_DS_PEBS_INDEX / 8];) {
                        const uint64_t *r = (const uint64_t *)(uintptr_t)a;

                        mix(r[0]);
                        mix(r[1]);
                        mix(r[2]);
                        mix(r[4]);
                        mix(r[5]);
                        mix(r[6]);
                        a += r[0] >> 48;
                }
                ds_reset_index();
        }
        wr(VP_IA32_PERF_GLOBAL_OVF_CTRL, st);
}

static uint64_t spr_run(bool runs)
{
        seen = 0xcbf29ce484222325ull;
        n_pmi = 0;
        memset(ds, 0, sizeof(ds));
        ds[VP_DS_PEBS_BASE / 8] = (uint64_t)(uintptr_t)pebs_buf;
        ds[VP_DS_PEBS_MAX / 8] = (uint64_t)(uintptr_t)pebs_buf + sizeof(pebs_buf);
        ds[VP_DS_PEBS_THRESH / 8] = (uint64_t)(uintptr_t)pebs_buf + sizeof(pebs_buf) / 2;
        ds[VP_DS_PEBS_RESET / 8] = TOP - 501;
        ds_reset_index();
        vpmu_init(&vpmu_spr, NULL);
        vpmu_set_op_runs(runs);
        assert_int_equal(cpu_pmi_enable(spr_pmi, NULL, -1), ST_OK);
        wr(VP_IA32_PERF_GLOBAL_CTRL, 0);
        wr(VP_IA32_DS_AREA, (uint64_t)(uintptr_t)ds);
        wr(VP_MSR_PEBS_DATA_CFG, VP_DATACFG_MEMINFO);
        wr(VP_MSR_PEBS_LD_LAT, 20);
        wr(VP_IA32_PERFEVTSEL0, VP_EVTSEL_EN | VP_EVTSEL_OS | VP_EVTSEL_ADAPTIVE | 0x01cd);
        wr(VP_IA32_PMC0, (uint32_t)-501);
        wr(VP_IA32_PERFEVTSEL0 + 1, VP_EVTSEL_EN | VP_EVTSEL_OS | VP_EVTSEL_INT | 0x08d1);
        wr(VP_IA32_PMC0 + 1, (uint32_t)-333);
        wr(VP_IA32_PEBS_ENABLE, 1);
        wr(VP_IA32_PERF_GLOBAL_CTRL, 3);
        work();
        mix(rd(VP_IA32_PMC0));
        mix(rd(VP_IA32_PMC0 + 1));
        mix(ds[VP_DS_PEBS_INDEX / 8] - (uint64_t)(uintptr_t)pebs_buf);
        mix(vpmu_stats()->n_pebs_records);
        cpu_pmi_disable();
        return seen;
}

static void test_spr_runs_match_single_ops(void **unused)
{
        uint64_t alone = spr_run(false);
        unsigned n = n_pmi;
        uint64_t recs = vpmu_stats()->n_pebs_records;

        assert_true(n > 100);
        assert_true(recs > 200);
        assert_int_equal(spr_run(true), alone);
        assert_int_equal(n_pmi, n);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_zen_runs_match_single_ops),
                cmocka_unit_test(test_spr_runs_match_single_ops),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
