/** @file Unit tests for pmu/x86/lbr.c: formats, FROM/TO/INFO decoding built bit by bit from
 * [SDM-3B] / Linux intel/lbr.c (LBR_FROM_FLAG_*, LBR_INFO_*, format 6 TO[63:48] cycles),
 * stack ordering, filter values and cycles per basic block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/lbr.h"

#define B(n) (1ull << (n))
#define KADDR 0xffffffff81000000ull

static struct pmu_lbr_fmt legacy(unsigned f)
{
        struct pmu_lbr_fmt fmt;

        assert_int_equal(pmu_lbr_fmt_legacy(f, 32, &fmt), ST_OK);
        return fmt;
}

static void test_formats(void **state)
{
        struct pmu_lbr_fmt f;

        (void)state;
        assert_int_equal(pmu_lbr_fmt_legacy(0x5 | (4ull << 8), 32, &f), ST_OK);
        assert_int_equal(f.legacy_fmt, LBR_FORMAT_INFO);
        assert_true(f.has_cycles && f.has_mispred && !f.arch);
        assert_int_equal(pmu_lbr_fmt_legacy(0x2, 16, &f), ST_OK);
        assert_false(f.has_cycles || f.has_mispred);
        assert_int_equal(pmu_lbr_fmt_legacy(0x6, 8, &f), ST_OK);
        assert_true(f.has_cycles);
        assert_int_equal(pmu_lbr_fmt_legacy(0x3f, 32, &f), ST_UNSUPPORTED);
        assert_int_equal(pmu_lbr_fmt_legacy(0x5, 12, &f), ST_BAD_ARG);
        assert_int_equal(pmu_lbr_fmt_legacy(0x5, 0, &f), ST_BAD_ARG);
        /* CPUID.1CH:EAX[7:0] bit n = depth 8(n+1); ECX 0 mispred, 1 timed, 2 branch type. */
        assert_int_equal(pmu_lbr_fmt_arch(0x0f, 0x7, 0, &f), ST_OK);
        assert_int_equal(f.depth, 32);
        assert_true(f.arch && f.has_cycles && f.has_mispred && f.has_br_type);
        assert_int_equal(pmu_lbr_fmt_arch(0x0f, 0x0, 16, &f), ST_OK);
        assert_int_equal(f.depth, 16);
        assert_false(f.has_cycles);
        assert_int_equal(pmu_lbr_fmt_arch(0x0a, 0x0, 8, &f), ST_BAD_ARG);   /* 8 not offered */
        assert_int_equal(pmu_lbr_fmt_arch(0x0a, 0x0, 12, &f), ST_BAD_ARG);
        assert_int_equal(pmu_lbr_fmt_arch(0x80, 0x0, 0, &f), ST_OK);
        assert_int_equal(f.depth, 64);
        assert_int_equal(pmu_lbr_fmt_arch(0x0, 0x7, 0, &f), ST_UNSUPPORTED);
}

static void test_decode(void **state)
{
        static const struct {
                unsigned fmt;          /* LBR_FORMAT_*, or 0x100 = Arch LBR with all caps */
                uint64_t from, to, info;
                uint64_t want_from, want_to;
                uint16_t cycles;
                bool cyc_valid, mp_valid, mispred, in_tx, abort;
                uint8_t br_type;
        } cases[] = {
                /* format 0: one MSR, FROM [31:0], TO [63:32] */
                { LBR_FORMAT_32, 0x0040200000401000ull, 0, 0, 0x401000, 0x402000,
                  0, false, false, false, false, false, 0 },
                { LBR_FORMAT_EIP, KADDR, 0x401000, 0, KADDR, 0x401000,
                  0, false, false, false, false, false, 0 },
                /* format 3: FROM[63] mispred, address sign-extended from bit 62 */
                { LBR_FORMAT_EIP_FLAGS, B(63) | 0x401000, 0x402000, 0, 0x401000, 0x402000,
                  0, false, true, true, false, false, 0 },
                { LBR_FORMAT_EIP_FLAGS, KADDR & ~B(63), 0x402000, 0, KADDR, 0x402000,
                  0, false, true, false, false, false, 0 },
                /* format 4: + FROM[62] in_tx, FROM[61] abort; sign-extend from bit 60 */
                { LBR_FORMAT_EIP_FLAGS2, B(62) | B(61) | 0x401000, 0x402000, 0, 0x401000,
                  0x402000, 0, false, true, false, true, true, 0 },
                { LBR_FORMAT_EIP_FLAGS2, B(63) | (KADDR & ~(B(63) | B(62) | B(61))), 1, 0,
                  KADDR, 1, 0, false, true, true, false, false, 0 },
                /* format 5: flags and cycles in MSR_LBR_INFO_x */
                { LBR_FORMAT_INFO, KADDR, 0x401000, B(63) | B(62) | 0x123, KADDR, 0x401000,
                  0x123, true, true, true, true, false, 0 },
                { LBR_FORMAT_INFO, 0x401000, 0x402000, 0, 0x401000, 0x402000,
                  0, false, true, false, false, false, 0 },
                /* format 7: no TSX bits */
                { LBR_FORMAT_INFO2, 0x401000, 0x402000, B(62) | B(61) | 7, 0x401000, 0x402000,
                  7, true, true, false, false, false, 0 },
                /* format 6: FROM[63] mispred, TO[63:48] cycles, TO sign-extended from 47 */
                { LBR_FORMAT_TIME, B(63) | 0x401000, (0x55ull << 48) | 0x402000, 0, 0x401000,
                  0x402000, 0x55, true, true, true, false, false, 0 },
                { LBR_FORMAT_TIME, 0x401000, (0x2ull << 48) | (KADDR & 0xffffffffffffull), 0,
                  0x401000, KADDR, 2, true, true, false, false, false, 0 },
                /* Arch LBR: INFO[60] CYC_CNT_VALID, [59:56] branch type */
                { 0x100, 0x401000, 0x402000, B(60) | B(63) | (3ull << 56) | 64, 0x401000,
                  0x402000, 64, true, true, true, false, false, 3 },
                { 0x100, 0x401000, 0x402000, 64, 0x401000, 0x402000,
                  0, false, true, false, false, false, 0 },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmu_lbr_fmt f;
                struct lbr_entry e;

                if (cases[i].fmt == 0x100)
                        assert_int_equal(pmu_lbr_fmt_arch(0xff, 0x7, 0, &f), ST_OK);
                else
                        f = legacy(cases[i].fmt);
                print_message("lbr case %zu\n", i);
                assert_int_equal(pmu_lbr_decode(&f, cases[i].from, cases[i].to, cases[i].info,
                                                &e), ST_OK);
                assert_int_equal(e.from, cases[i].want_from);
                assert_int_equal(e.to, cases[i].want_to);
                assert_int_equal(e.cycles, cases[i].cycles);
                assert_int_equal(e.cycles_valid, cases[i].cyc_valid);
                assert_int_equal(e.mispred_valid, cases[i].mp_valid);
                assert_int_equal(e.mispred, cases[i].mispred);
                assert_int_equal(e.in_tx, cases[i].in_tx);
                assert_int_equal(e.abort, cases[i].abort);
                assert_int_equal(e.br_type, cases[i].br_type);
        }
        assert_int_equal(pmu_lbr_decode(NULL, 0, 0, 0, NULL), ST_BAD_ARG);
}

static void test_stack(void **state)
{
        struct pmu_lbr_fmt f;
        uint64_t from[4] = { 0x10, 0x20, 0x30, 0x40 }, to[4] = { 0x11, 0x21, 0x31, 0x41 };
        uint64_t info[4] = { 1, 2, 3, 4 };
        struct lbr_entry e[4];
        unsigned n = 0;

        (void)state;
        /* Legacy: newest at TOS, then (TOS - i) & (depth - 1). */
        assert_int_equal(pmu_lbr_fmt_legacy(LBR_FORMAT_INFO, 4, &f), ST_OK);
        assert_int_equal(pmu_lbr_stack(&f, from, to, info, 1, e, &n), ST_OK);
        assert_int_equal(n, 4);
        assert_int_equal(e[0].from, 0x20);
        assert_int_equal(e[1].from, 0x10);
        assert_int_equal(e[2].from, 0x40);
        assert_int_equal(e[3].from, 0x30);
        assert_int_equal(e[2].cycles, 4);
        /* An empty slot ends the stack. */
        from[3] = to[3] = 0;
        assert_int_equal(pmu_lbr_stack(&f, from, to, info, 1, e, &n), ST_OK);
        assert_int_equal(n, 2);
        /* INFO format without the INFO array: refused. */
        assert_int_equal(pmu_lbr_stack(&f, from, to, NULL, 1, e, &n), ST_BAD_ARG);
        /* Arch LBR: entry 0 is the newest, TOS ignored. */
        assert_int_equal(pmu_lbr_fmt_arch(0x1, 0x2, 0, &f), ST_OK);   /* depth 8 */
        {
                uint64_t af[8] = { 0x100, 0x200, 0 }, at[8] = { 0x101, 0x201, 0 };
                uint64_t ai[8] = { B(60) | 5, B(60) | 6, 0 };

                assert_int_equal(pmu_lbr_stack(&f, af, at, ai, 5, e, &n), ST_OK);
                assert_int_equal(n, 2);
                assert_int_equal(e[0].from, 0x100);
                assert_int_equal(e[1].cycles, 6);
        }
        assert_int_equal(pmu_lbr_stack(&f, NULL, to, info, 0, e, &n), ST_BAD_ARG);
}

static void test_control(void **state)
{
        struct pmu_lbr_fmt lf, af;

        (void)state;
        /* LBR_SELECT bits suppress: 0 CPL0, 1 CPL>0, 2 JCC .. 8 FAR; 9 call stack enables. */
        assert_int_equal(pmu_lbr_select_value(PMU_LBR_F_USER | PMU_LBR_F_ALL_BRANCHES), 0x1);
        assert_int_equal(pmu_lbr_select_value(PMU_LBR_F_USER | PMU_LBR_F_JCC), 0x1f9);
        assert_int_equal(pmu_lbr_select_value(PMU_LBR_F_USER | PMU_LBR_F_KERNEL |
                                              PMU_LBR_F_ALL_BRANCHES | PMU_LBR_F_CALL_STACK),
                         0x200);
        assert_int_equal(pmu_lbr_select_value(0), 0x1ff);
        /* IA32_LBR_CTL enables: 0 LBREn, 1 OS, 2 USR, 3 call stack, 16..22 branch types. */
        assert_int_equal(pmu_lbr_arch_ctl_value(PMU_LBR_F_USER | PMU_LBR_F_KERNEL |
                                                PMU_LBR_F_ALL_BRANCHES, 0x7), 0x7f0007);
        assert_int_equal(pmu_lbr_arch_ctl_value(PMU_LBR_F_USER | PMU_LBR_F_JCC |
                                                PMU_LBR_F_CALL_STACK, 0x7), 0x1000d);
        assert_int_equal(pmu_lbr_arch_ctl_value(0, 0x7) & ~ARCH_LBR_CTL_MASK, 0);
        /* CPUID.1CH:EBX: no CPL filter (bit 0), no branch filter (bit 1), no call stack (2):
         * those bits are reserved and left clear. */
        assert_int_equal(pmu_lbr_arch_ctl_value(PMU_LBR_F_KERNEL | PMU_LBR_F_ALL_BRANCHES |
                                                PMU_LBR_F_CALL_STACK, 0), 0x1);
        assert_int_equal(pmu_lbr_arch_ctl_value(PMU_LBR_F_KERNEL | PMU_LBR_F_ALL_BRANCHES, 0x1),
                         0x3);
        assert_int_equal(pmu_lbr_arch_ctl_value(PMU_LBR_F_KERNEL | PMU_LBR_F_JCC, 0x2), 0x10001);
        /* DEBUGCTL: bit 0 LBR (legacy only), 11 FREEZE_LBRS_ON_PMI (not in call-stack mode). */
        assert_int_equal(pmu_lbr_fmt_legacy(LBR_FORMAT_INFO, 32, &lf), ST_OK);
        assert_int_equal(pmu_lbr_fmt_arch(0x0f, 0x7, 0, &af), ST_OK);
        assert_int_equal(pmu_lbr_debugctl_value(&lf, 0x4, false), 0x805);
        assert_int_equal(pmu_lbr_debugctl_value(&lf, 0x4, true), 0x5);
        assert_int_equal(pmu_lbr_debugctl_value(&af, 0x801, false), 0x800);
        assert_int_equal(pmu_lbr_debugctl_value(&af, 0x801, true), 0x0);
}

/* A loop whose body 0x1000..0x1040 ends in a branch back to 0x1000. */
static void test_blocks(void **state)
{
        struct lbr_entry e[] = {     /* newest first */
                { .from = 0x1040, .to = 0x1000, .cycles = 10, .cycles_valid = true },
                { .from = 0x1040, .to = 0x1000, .cycles = 12, .cycles_valid = true },
                { .from = 0x1040, .to = 0x1000, .cycles = 0,  .cycles_valid = false },
                { .from = 0x0f00, .to = 0x2000, .cycles = 9,  .cycles_valid = true },
                { .from = 0x1040, .to = 0x1000, .cycles = 11, .cycles_valid = true },
        };
        struct lbr_block b[8];
        struct lbr_block_stat st[2];
        size_t n_st = 0;
        unsigned n = 0, skipped = 0;

        (void)state;
        /* i=0: [0x1000,0x1040] 10; i=1: 12; i=2: invalid; i=3: start 0x1000 > end 0x0f00. */
        assert_int_equal(pmu_lbr_blocks(e, 5, b, 8, &n, &skipped), ST_OK);
        assert_int_equal(n, 2);
        assert_int_equal(skipped, 2);
        assert_int_equal(b[0].start, 0x1000);
        assert_int_equal(b[0].end, 0x1040);
        assert_int_equal(b[0].cycles, 10);
        assert_int_equal(b[1].cycles, 12);
        assert_int_equal(pmu_lbr_blocks(e, 5, b, 1, &n, NULL), ST_NO_SPACE);
        assert_int_equal(n, 1);
        assert_int_equal(pmu_lbr_blocks(e, 1, b, 8, &n, NULL), ST_OK);
        assert_int_equal(n, 0);

        assert_int_equal(pmu_lbr_blocks(e, 5, b, 8, &n, NULL), ST_OK);
        assert_int_equal(pmu_lbr_block_accumulate(st, &n_st, 2, b, n), ST_OK);
        b[0].cycles = 11;
        b[1] = (struct lbr_block){ .start = 0x1000, .end = 0x1040, .cycles = 10 };
        assert_int_equal(pmu_lbr_block_accumulate(st, &n_st, 2, b, 2), ST_OK);
        assert_int_equal(n_st, 1);
        assert_int_equal(st[0].n, 4);
        assert_int_equal(st[0].min_cycles, 10);
        assert_int_equal(st[0].max_cycles, 12);
        assert_int_equal(pmu_lbr_block_mean_mcyc(&st[0]), 10750);    /* (10+12+11+10)/4 */
        b[0] = (struct lbr_block){ .start = 0x2000, .end = 0x2010, .cycles = 3 };
        b[1] = (struct lbr_block){ .start = 0x3000, .end = 0x3010, .cycles = 4 };
        assert_int_equal(pmu_lbr_block_accumulate(st, &n_st, 2, b, 2), ST_NO_SPACE);
        assert_int_equal(n_st, 2);
        assert_int_equal(st[1].sum_cycles, 3);
        assert_int_equal(pmu_lbr_block_mean_mcyc(NULL), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_formats),
                cmocka_unit_test(test_decode),
                cmocka_unit_test(test_stack),
                cmocka_unit_test(test_control),
                cmocka_unit_test(test_blocks),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
