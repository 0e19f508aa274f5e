/** @file
 * The measurement kernels (bench/) for an independent count of what they retire: run one
 * kernel with a given length under valgrind (tests/test_oracle.sh), which counts the
 * instructions, conditional branches and loads each function executes; two lengths give the
 * per-iteration counts, the call's own cost cancelling. `oracle_kernels --claims` prints what
 * the kernels' headers claim per iteration, the numbers the harness and the virtual PMU take
 * as truth, for the script to compare.
 *
 *   oracle_kernels KERNEL N     run KERNEL for N iterations (loop, pattern-zero, pattern-one,
 *                               skid, chase, block, add-chain)
 *   oracle_kernels --claims     one line per kernel: name insns branches loads symbols...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/clock_chain.h"
#include "bench/kernel_block.h"
#include "bench/kernel_branch.h"
#include "bench/kernel_chase.h"
#include "bench/kernel_skid.h"

/* What each kernel's header claims per iteration, and the symbols its code lies under (a
 * kernel with labels inside it is counted over all of them). */
static const struct claim {
        const char *name;
        unsigned    insns, branches, loads;
        const char *symbols;
} claims[] = {
        { "loop", BENCH_LOOP_INSNS_PER_ITER, BENCH_LOOP_BRANCHES_PER_ITER, 0, "bench_loop" },
        { "pattern-zero", BENCH_PATTERN_INSNS_ZERO_BYTE, BENCH_PATTERN_BRANCHES_PER_ITER,
          BENCH_PATTERN_LOADS_PER_ITER, "bench_branch_pattern" },
        { "pattern-one", BENCH_PATTERN_INSNS_OTHER_BYTE, BENCH_PATTERN_BRANCHES_PER_ITER,
          BENCH_PATTERN_LOADS_PER_ITER, "bench_branch_pattern" },
        { "skid", BENCH_SKID_INSNS_PER_ITER, BENCH_SKID_BRANCHES_PER_ITER, 0,
          "bench_skid_loop,bench_skid_body" },
        { "chase", BENCH_CHASE_INSNS_PER_ITER, BENCH_CHASE_BRANCHES_PER_ITER,
          BENCH_CHASE_UNROLL, "bench_chase" },
        { "block", BENCH_BLOCK_INSNS_PER_ITER, BENCH_BLOCK_BRANCHES_PER_ITER, 0,
          "bench_block_run,bench_block_top,bench_block_jcc" },
        { "add-chain", BENCH_ADD_CHAIN_INSNS_PER_ROUND, BENCH_ADD_CHAIN_BRANCHES_PER_ROUND, 0,
          "bench_add_chain" },
};

#define CHASE_LINES 64

int main(int argc, char **argv)
{
        static void *ring[CHASE_LINES * 8] __attribute__((aligned(64)));
        uint64_t n;

        if (argc == 2 && !strcmp(argv[1], "--claims")) {
                for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++)
                        printf("%s %u %u %u %s\n", claims[i].name, claims[i].insns,
                               claims[i].branches, claims[i].loads, claims[i].symbols);
                return 0;
        }
        if (argc != 3 || !(n = strtoull(argv[2], NULL, 10))) {
                fprintf(stderr, "usage: %s KERNEL N | --claims\n", argv[0]);
                return 2;
        }
        if (!strcmp(argv[1], "loop")) {
                bench_loop(n);
        } else if (!strncmp(argv[1], "pattern-", 8)) {
                uint8_t *pat = malloc(n);

                if (!pat)
                        return 1;
                memset(pat, !strcmp(argv[1], "pattern-one"), n);
                bench_branch_pattern(pat, n);
                free(pat);
        } else if (!strcmp(argv[1], "skid")) {
                bench_skid_loop(n);
        } else if (!strcmp(argv[1], "chase")) {
                /* a cyclic chain, one node per 64-byte line */
                for (size_t i = 0; i < CHASE_LINES; i++)
                        ring[i * 8] = &ring[((i + 1) % CHASE_LINES) * 8];
                if (!bench_chase(ring, n))
                        return 1;
        } else if (!strcmp(argv[1], "block")) {
                bench_block_run(n);
        } else if (!strcmp(argv[1], "add-chain")) {
                bench_add_chain(n);
        } else {
                fprintf(stderr, "%s: unknown kernel %s\n", argv[0], argv[1]);
                return 2;
        }
        return 0;
}
