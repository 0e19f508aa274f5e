/** @file AArch64's own page tables for a measurement (see bench/ownpt.h and
 *  bench/arm64/ownpt_types.h): none are built, and each entry point says so. */
#include "bench/ownpt.h"

const char *bench_ownpt_absent_why(void)
{
        return "AArch64: the harness builds no translation tables of its own";
}

status_t bench_ownpt_build(struct bench_ownpt *o, const struct cpu_info *cpu, const void *fine,
                           uint64_t fine_bytes)
{
        return bench_ownpt_build_pages(o, cpu, fine, fine_bytes, BENCH_OWNPT_4K);
}

status_t bench_ownpt_build_pages(struct bench_ownpt *o, const struct cpu_info *cpu,
                                 const void *fine, uint64_t fine_bytes, uint64_t page_bytes)
{
        (void)cpu, (void)fine, (void)fine_bytes, (void)page_bytes;
        *o = (struct bench_ownpt){ 0 };
        return ST_UNSUPPORTED;
}

void bench_ownpt_free(struct bench_ownpt *o)
{
        if (o)
                *o = (struct bench_ownpt){ 0 };
}

status_t bench_ownpt_check_4k(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                              uint64_t *n_walked)
{
        return bench_ownpt_check(o, buf, bytes, BENCH_OWNPT_4K, n_walked);
}

status_t bench_ownpt_check(const struct bench_ownpt *o, const void *buf, uint64_t bytes,
                           uint64_t page_bytes, uint64_t *n_walked)
{
        (void)o, (void)buf, (void)bytes, (void)page_bytes;
        *n_walked = 0;
        return ST_UNSUPPORTED;
}

bool bench_ownpt_identity_ok(const struct bench_ownpt *o, const uintptr_t *va, size_t n)
{
        (void)o, (void)va, (void)n;
        return false;
}

uint64_t bench_ownpt_root_pa(const struct bench_ownpt *o)
{
        (void)o;
        return 0;
}

uint32_t bench_ownpt_n_table_pages(const struct bench_ownpt *o)
{
        (void)o;
        return 0;
}
