/* Host microbenchmark of the precise-sampling decoders (tools/bench-sampling.sh, make bench):
 * how many samples per second the harness can decode for each mechanism, over synthetic raw
 * records built from the vendor layouts (pmu/x86/msr_ibs.h, msr_pebs.h, msr_lbr.h). Taking the
 * samples needs the hardware (the PMI); this measures the decode side only. Not a test.
 * Usage: bench_sampling [N]  (N records per mechanism, default 1000000) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmu/x86/ibs_fetch.h"
#include "pmu/x86/ibs_op.h"
#include "pmu/x86/lbr.h"
#include "pmu/x86/pebs.h"

static uint64_t now_ns(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static void report(const char *what, size_t n, uint64_t ns, uint64_t sink)
{
        printf("%-34s %9zu records  %8.1f ns/record  %12.0f records/s  (check %llu)\n", what, n,
               (double)ns / n, n * 1e9 / (double)ns, (unsigned long long)(sink & 0xff));
}

static void bench_ibs(size_t n)
{
        struct pmu_ibs_info info = { .present = true, .caps = 0x7ff, .family = 0x19, .model = 0x11 };
        struct pmu_ibs_op_regs *r = malloc(n * sizeof(*r));
        struct pmu_ibs_fetch_regs *f = malloc(n * sizeof(*f));
        struct pmu_ibs_op op;
        struct pmu_ibs_fetch fe;
        struct psample ps;
        uint64_t t0, sink = 0;

        for (size_t i = 0; i < n; i++) {
                r[i] = (struct pmu_ibs_op_regs){
                        .op_ctl = IBSOPCTL_OP_VAL | IBSOPCTL_OP_EN | 0x100, .op_rip = next(),
                        .op_data = next(), .op_data2 = next() & 0xff,
                        .op_data3 = (next() | IBSOPDATA3_LD_OP | IBSOPDATA3_DC_LIN_ADDR_VALID) &
                                    ~IBSOPDATA3_ST_OP,
                        .dc_linad = next(), .dc_physad = next() & 0xffffffffff };
                f[i] = (struct pmu_ibs_fetch_regs){ .fetch_ctl = next() | IBSFETCHCTL_VAL,
                                                    .fetch_linad = next() };
        }
        t0 = now_ns();
        for (size_t i = 0; i < n; i++) {
                pmu_ibs_op_decode(&info, &r[i], &op);
                if (pmu_ibs_op_to_psample(&info, &op, &ps) == ST_OK)
                        sink += ps.lat_cycles + ps.level;
        }
        report("IBS op decode + psample", n, now_ns() - t0, sink);
        t0 = now_ns();
        for (size_t i = 0; i < n; i++) {
                pmu_ibs_fetch_decode(&info, &f[i], &fe);
                sink += fe.lat_cycles;
        }
        report("IBS fetch decode", n, now_ns() - t0, sink);
        free(r);
        free(f);
}

static void bench_pebs(size_t n, bool adaptive)
{
        struct pmu_pebs_fmt fmt = { .caps = { .pebs_fmt = adaptive ? 4 : 3, .baseline = adaptive },
                                    .dse_kind = PEBS_DSE_SKL };
        struct pmu_pebs_record *rec = malloc(n * sizeof(*rec));
        struct psample ps;
        uint32_t sz;
        uint8_t *buf;
        size_t got = 0;
        uint64_t t0, sink = 0;

        if (adaptive)
                pmu_pebs_data_cfg(true, false, false, 0, &fmt.data_cfg);
        sz = pmu_pebs_record_size(&fmt);
        buf = calloc(n, sz);
        for (size_t i = 0; i < n; i++) {
                uint8_t *p = buf + i * sz;
                uint64_t v[4] = { next(), next(), next() & 0x1f, 20 + (next() & 0x3ff) };

                if (adaptive) {
                        uint64_t w = PEBS_DATACFG_MEMINFO | ((uint64_t)sz << PEBS_BASIC_RECORD_SIZE_SHIFT);
                        memcpy(p + PEBS_BASIC_FORMAT, &w, 8);
                        memcpy(p + PEBS_BASIC_IP, &v[0], 8);
                        memcpy(p + PEBS_BASIC_SIZE + PEBS_MEMINFO_ADDRESS, &v[1], 8);
                        memcpy(p + PEBS_BASIC_SIZE + PEBS_MEMINFO_AUX, &v[2], 8);
                        memcpy(p + PEBS_BASIC_SIZE + PEBS_MEMINFO_LATENCY, &v[3], 8);
                } else {
                        memcpy(p + PEBS_REC_REAL_IP, &v[0], 8);
                        memcpy(p + PEBS_REC_DLA, &v[1], 8);
                        memcpy(p + PEBS_REC_DSE, &v[2], 8);
                        memcpy(p + PEBS_REC_LAT, &v[3], 8);
                }
        }
        t0 = now_ns();
        pmu_pebs_decode_buffer(&fmt, buf, n * sz, rec, n, &got);
        for (size_t i = 0; i < got; i++)
                if (pmu_pebs_to_psample(&fmt, &rec[i], &ps) == ST_OK)
                        sink += ps.lat_cycles + ps.level;
        report(adaptive ? "PEBS adaptive (fmt 4) decode + psample" : "PEBS fmt 3 decode + psample",
               got, now_ns() - t0, sink);
        free(rec);
        free(buf);
}

static void bench_lbr(size_t n_entries)
{
        struct pmu_lbr_fmt fmt;
        const unsigned d = 32;
        size_t n = n_entries / d;
        uint64_t *from = malloc(n * d * 8), *to = malloc(n * d * 8), *info = malloc(n * d * 8);
        struct lbr_entry e[32];
        struct lbr_block blk[32];
        struct lbr_block_stat st[64];
        size_t n_st = 0;
        unsigned k, nb;
        uint64_t t0, sink = 0;

        pmu_lbr_fmt_legacy(LBR_FORMAT_INFO, d, &fmt);
        for (size_t i = 0; i < n * d; i++) {
                from[i] = 0x401040 + (next() & 0x3) * 0x100;
                to[i] = 0x401000 + (next() & 0x3) * 0x100;
                info[i] = 40 + (next() & 0xf);
        }
        t0 = now_ns();
        for (size_t s = 0; s < n; s++) {
                pmu_lbr_stack(&fmt, from + s * d, to + s * d, info + s * d, s % d, e, &k);
                pmu_lbr_blocks(e, k, blk, 32, &nb, NULL);
                pmu_lbr_block_accumulate(st, &n_st, 64, blk, nb);
                sink += nb;
        }
        report("LBR 32-deep stack decode + blocks", n * d, now_ns() - t0, sink);
        free(from);
        free(to);
        free(info);
}

int main(int argc, char **argv)
{
        size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;

        bench_ibs(n);
        bench_pebs(n, false);
        bench_pebs(n, true);
        bench_lbr(n);
        return 0;
}
