/** @file
 * The AArch64 measurement kernels (bench/arm64/, the firmware's own objects) in a static
 * AArch64 Linux program, for a count of what they execute that is not pmucal's: the program
 * runs one kernel with a given length under qemu-user, which traces every instruction it
 * executes (tests/test_oracle_arm64.sh); two lengths give the per-iteration counts, the call's
 * own cost cancelling. `oracle_kernels --claims` prints what the kernels' headers claim per
 * iteration, compiled for AArch64 as the firmware is (some counts differ by architecture).
 * Freestanding: no AArch64 C library is installed, so _start and two raw Linux system calls
 * (write, exit_group) stand in for it.
 *
 *   oracle_kernels KERNEL N   run KERNEL for N iterations (loop, pattern-zero, pattern-one,
 *                             skid, chase, add-chain)
 *   oracle_kernels --claims   one line per kernel: name insns branches loads symbols
 *                             range (0xLO:0xHI, the addresses an iteration runs in, or -)
 */
#include <stddef.h>
#include <stdint.h>

#include "bench/clock_chain.h"
#include "bench/kernel_branch.h"
#include "bench/kernel_chase.h"
#include "bench/kernel_skid.h"

/* Linux AArch64 system call numbers (include/uapi/asm-generic/unistd.h). */
#define SYS_WRITE      64
#define SYS_EXIT_GROUP 94

#define MAX_ITERS   100000u
#define CHASE_LINES 64

/* What each kernel's header claims per iteration, the symbols its code lies under (a kernel
 * with labels inside it is counted over all of them) and, where the harness takes one, the
 * range of addresses an iteration runs in: range_lo and 4 bytes per instruction from it. */
static const struct claim {
        const char *name;
        unsigned    insns, branches, loads;
        const char *symbols;
        const char *range_lo;
        unsigned    range_insns;
} claims[] = {
        { "loop", BENCH_LOOP_INSNS_PER_ITER, BENCH_LOOP_BRANCHES_PER_ITER, 0, "bench_loop",
          NULL, 0 },
        { "pattern-zero", BENCH_PATTERN_INSNS_ZERO_BYTE, BENCH_PATTERN_BRANCHES_PER_ITER,
          BENCH_PATTERN_LOADS_PER_ITER, "bench_branch_pattern", NULL, 0 },
        { "pattern-one", BENCH_PATTERN_INSNS_OTHER_BYTE, BENCH_PATTERN_BRANCHES_PER_ITER,
          BENCH_PATTERN_LOADS_PER_ITER, "bench_branch_pattern", NULL, 0 },
        /* app/arm64/validate.c's skid-in-kernel range: the sampled PCs must fall in it */
        { "skid", BENCH_SKID_INSNS_PER_ITER, BENCH_SKID_BRANCHES_PER_ITER, 0,
          "bench_skid_loop,bench_skid_body", bench_skid_body, BENCH_SKID_INSNS_PER_ITER },
        { "chase", BENCH_CHASE_INSNS_PER_ITER, BENCH_CHASE_BRANCHES_PER_ITER,
          BENCH_CHASE_UNROLL, "bench_chase", NULL, 0 },
        { "add-chain", BENCH_ADD_CHAIN_INSNS_PER_ROUND, BENCH_ADD_CHAIN_BRANCHES_PER_ROUND, 0,
          "bench_add_chain", NULL, 0 },
};

/* Reached from _start and through the link's --defsym names, not from C. */
__attribute__((noreturn)) void oracle_main(const uint64_t *sp);
__attribute__((noreturn)) void oracle_not_reached(void);

static uint8_t pattern[MAX_ITERS];
static void   *ring[CHASE_LINES * 8] __attribute__((aligned(64)));

static long sys3(long nr, long a, long b, long c)
{
        register long x8 __asm__("x8") = nr;
        register long x0 __asm__("x0") = a;
        register long x1 __asm__("x1") = b;
        register long x2 __asm__("x2") = c;

        __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
        return x0;
}

static __attribute__((noreturn)) void leave(int code)
{
        for (;;)
                sys3(SYS_EXIT_GROUP, code, 0, 0);
}

static size_t len(const char *s)
{
        size_t n = 0;

        while (s[n])
                n++;
        return n;
}

static void put(const char *s)
{
        sys3(SYS_WRITE, 1, (long)s, (long)len(s));
}

/* @p v in base @p base (10 or 16, with 0x). */
static void put_u(unsigned long v, unsigned base)
{
        char   buf[24];
        size_t i = sizeof(buf);

        buf[--i] = 0;
        do
                buf[--i] = "0123456789abcdef"[v % base];
        while (v /= base);
        if (base == 16) {
                buf[--i] = 'x';
                buf[--i] = '0';
        }
        put(&buf[i]);
}

static int same(const char *a, const char *b)
{
        while (*a && *a == *b)
                a++, b++;
        return *a == *b;
}

/* N in decimal, 1..MAX_ITERS; 0 if it is not. */
static uint64_t parse_iters(const char *s)
{
        uint64_t v = 0;

        if (!*s)
                return 0;
        for (; *s; s++) {
                if (*s < '0' || *s > '9' || (v = v * 10 + (uint64_t)(*s - '0')) > MAX_ITERS)
                        return 0;
        }
        return v;
}

static int run(const char *kernel, uint64_t n)
{
        if (same(kernel, "loop")) {
                bench_loop(n);
        } else if (same(kernel, "pattern-zero") || same(kernel, "pattern-one")) {
                uint8_t byte = same(kernel, "pattern-one");

                for (uint64_t i = 0; i < n; i++)
                        ((volatile uint8_t *)pattern)[i] = byte;
                bench_branch_pattern(pattern, n);
        } else if (same(kernel, "skid")) {
                bench_skid_loop(n);
        } else if (same(kernel, "chase")) {
                /* a cyclic chain, one node per 64-byte line */
                for (size_t i = 0; i < CHASE_LINES; i++)
                        ((void *volatile *)ring)[i * 8] = &ring[((i + 1) % CHASE_LINES) * 8];
                if (!bench_chase(ring, n))
                        return 1;
        } else if (same(kernel, "add-chain")) {
                bench_add_chain(n);
        } else {
                put("oracle_kernels: unknown kernel ");
                put(kernel);
                put("\n");
                return 2;
        }
        return 0;
}

/* Called by _start with the initial stack: argc, then argv[] (Linux AArch64 ELF ABI). */
__attribute__((noreturn, used)) void oracle_main(const uint64_t *sp)
{
        uint64_t     argc = sp[0], n;
        const char **argv = (const char **)(sp + 1);

        if (argc == 2 && same(argv[1], "--claims")) {
                for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
                        put(claims[i].name);
                        put(" ");
                        put_u(claims[i].insns, 10);
                        put(" ");
                        put_u(claims[i].branches, 10);
                        put(" ");
                        put_u(claims[i].loads, 10);
                        put(" ");
                        put(claims[i].symbols);
                        if (claims[i].range_lo) {
                                uintptr_t lo = (uintptr_t)claims[i].range_lo;

                                put(" ");
                                put_u(lo, 16);
                                put(":");
                                put_u(lo + 4ul * claims[i].range_insns, 16);
                                put("\n");
                        } else {
                                put(" -\n");
                        }
                }
                leave(0);
        }
        if (argc != 3 || !(n = parse_iters(argv[2]))) {
                put("usage: oracle_kernels KERNEL N (1..100000) | --claims\n");
                leave(2);
        }
        leave(run(argv[1], n));
}

/* What the chase window (bench_chase_window, in the same object as bench_chase) calls; the
 * oracle never runs the window, so reaching one of these is an error. */
__attribute__((noreturn, used)) void oracle_not_reached(void)
{
        put("oracle_kernels: the chase window's helpers are not part of the oracle\n");
        leave(125);
}

/* memset, which the compiler may call for the chase window's zeroing. */
void *memset(void *d, int c, size_t n)
{
        volatile uint8_t *p = d;

        while (n--)
                *p++ = (uint8_t)c;
        return d;
}

__asm__(".text\n\t"
        ".globl _start\n\t"
        ".type _start, %function\n"
        "_start:\n\t"
        "mov x0, sp\n\t"
        "bl oracle_main\n\t"
        ".size _start, . - _start\n");
