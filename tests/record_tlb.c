/** @file
 * record_tlb: run the TLB kernels under Linux and print tlb-curve.csv to stdout, with '#'
 * comment lines naming the machine, the command and the date. Used to record the real curves
 * in tests/data/curves/ (host-only; pmucal-host runs the same kernels in the product).
 *
 *   build/host/record_tlb [-s d|i] [-p 4k|2m] [-l near|line|page] [-n MAX_N] [-k STEPS]
 *                         [-w WINDOWS] [-m MIN_ACCESSES] [-c CPU] [-C (no control)]
 *
 * 4 KiB pages: anonymous memory with MADV_NOHUGEPAGE. 2 MiB pages: 2 MiB-aligned anonymous
 * memory with MADV_HUGEPAGE; the AnonHugePages figure of /proc/self/smaps is checked and the
 * run refused when THP did not back the window. iTLB: the chain is written, then the pages
 * are made PROT_READ|PROT_EXEC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench/kernel_tlb.h"
#include "boot/plat.h"
#include "bench/tlb.h"
#include "boot/x86/msr.h"
#include "report/tlbdetect_out.h"

static void *map_region(uint64_t bytes, uint64_t align, bool huge)
{
        uint64_t len = bytes + align;
        uint8_t *p   = mmap(NULL, len, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        uint8_t *a;

        if (p == MAP_FAILED)
                return NULL;
        a = (uint8_t *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
        if (madvise(a, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0)
                fprintf(stderr, "record_tlb: madvise: %s\n", strerror(errno));
        return a;
}

/* AnonHugePages (bytes) of the mapping that contains @addr, from /proc/self/smaps. */
static uint64_t thp_bytes(const void *addr)
{
        FILE    *f = fopen("/proc/self/smaps", "r");
        char     line[512];
        bool     in = false;
        uint64_t kb = 0;

        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f)) {
                unsigned long lo, hi;
                if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
                        in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
                else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
                        break;
        }
        fclose(f);
        return (uint64_t)kb * 1024;
}

static void header(int argc, char **argv, const char *what)
{
        char              model[128] = "?", line[256];
        FILE             *f          = fopen("/proc/cpuinfo", "r");
        struct cpuid_regs r5, r6;
        time_t            now = time(NULL);
        char              date[64];

        while (f && fgets(line, sizeof(line), f)) {
                if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
                        snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
                        model[strcspn(model, "\n")] = 0;
                        break;
                }
        }
        if (f)
                fclose(f);
        struct cpuid_regs h, one;
        char              hv[13] = "none";
        cpuid_raw(1, 0, &one);
        if (one.ecx & (1u << 31)) { /* CPUID.01H:ECX[31]: running under a hypervisor */
                cpuid_raw(0x40000000, 0, &h);
                memcpy(hv, &h.ebx, 4);
                memcpy(hv + 4, &h.ecx, 4);
                memcpy(hv + 8, &h.edx, 4);
                hv[12] = 0;
        }
        cpuid_raw(0x80000005, 0, &r5);
        cpuid_raw(0x80000006, 0, &r6);
        strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
        printf("# pmucal TLB curve: %s\n", what);
        printf("# machine: %s (signature 0x%08x), hypervisor %s, %ld CPUs online; CPUID 0x80000005 ebx=0x%08x (L1 dTLB 4K %u "
               "entries), 0x80000006 ebx=0x%08x (L2 dTLB 4K %u entries)\n",
               model, one.eax, hv, sysconf(_SC_NPROCESSORS_ONLN), r5.ebx, (r5.ebx >> 16) & 0xff, r6.ebx,
               (r6.ebx >> 16) & 0xfff);
        printf("# command:");
        for (int i = 0; i < argc; i++)
                printf(" %s", argv[i]);
        printf("\n# date: %s\n", date);
        printf("# latencies in milli-cycles at the TSC rate (TSC ticks x 1000) per access; "
               "ctl_p50 = same lines without TLB misses\n");
}

/* What the command line asks for. */
struct opts {
        enum tlb_side        side;
        struct bench_tlb_cfg cfg;
        struct bench_tlb_run run;
        uint32_t             max_n;
        unsigned             steps;
        int                  cpu;
        bool                 control;
};

/* Fill @p o from the command line (see the file comment); false on an unknown option. */
static bool parse_opts(int argc, char **argv, struct opts *o)
{
        int opt;

        *o = (struct opts){
                .side    = TLB_SIDE_DATA,
                .cfg     = { .page_bytes = 4 * KiB, .pte = TLB_PTE_NEAR, .seed = 0x5eed },
                .run     = { .n_windows = 11, .min_accesses = 20000 },
                .steps   = 16,
                .control = true,
        };
        while ((opt = getopt(argc, argv, "s:p:l:n:k:w:m:c:C")) != -1) {
                switch (opt) {
                case 's': o->side = optarg[0] == 'i' ? TLB_SIDE_INST : TLB_SIDE_DATA; break;
                case 'p': o->cfg.page_bytes = !strcmp(optarg, "2m") ? 2 * MiB : 4 * KiB; break;
                case 'l':
                        o->cfg.pte = !strcmp(optarg, "line") ? TLB_PTE_LINE
                                     : !strcmp(optarg, "page") ? TLB_PTE_PAGE : TLB_PTE_NEAR;
                        break;
                case 'n': o->max_n = (uint32_t)strtoul(optarg, NULL, 0); break;
                case 'k': o->steps = (unsigned)strtoul(optarg, NULL, 0); break;
                case 'w': o->run.n_windows = (uint32_t)strtoul(optarg, NULL, 0); break;
                case 'm': o->run.min_accesses = strtoull(optarg, NULL, 0); break;
                case 'c': o->cpu = atoi(optarg); break;
                case 'C': o->control = false; break;
                default: return false;
                }
        }
        if (!o->max_n)
                o->max_n = o->side == TLB_SIDE_INST ? 2048
                           : o->cfg.page_bytes == 4 * KiB ? 8192 : 4608;
        return true;
}

/* One N (already in o->cfg.n_pages) into @p pt: the dTLB kernel over @p win, or an iTLB chain
 * written into @p win and then made executable. */
static status_t measure_point(struct opts *o, uint8_t *win, uint64_t span, uint8_t *ctl,
                              uint64_t ctl_bytes, struct tlb_point *pt)
{
        uint64_t entry;
        status_t st;

        if (o->side == TLB_SIDE_DATA)
                return bench_dtlb_measure(win, span, ctl, ctl_bytes, &o->cfg, &o->run, pt);
        mprotect(win, span, PROT_READ | PROT_WRITE);
        st = bench_itlb_gen(&o->cfg, win, span, &entry);
        if (st == ST_OK && mprotect(win, span, PROT_READ | PROT_EXEC) != 0)
                st = ST_FAULT;
        if (st == ST_OK)
                st = bench_itlb_measure((void (*)(void))(win + entry), o->cfg.n_pages, &o->run, pt);
        return st;
}

/* The comment header and the CSV on stdout; the detected levels on stderr. */
static int print_curve(int argc, char **argv, const char *what, const struct tlb_curve *c,
                       bool huge, const void *win, uint64_t span)
{
        struct rep_buf    b = { 0 };
        struct tlb_result r;

        header(argc, argv, what);
        if (huge)
                printf("# THP: AnonHugePages %llu MiB of the %llu MiB window\n",
                       (unsigned long long)(thp_bytes(win) >> 20), (unsigned long long)(span >> 20));
        if (tlb_curve_csv(c, 1, &b) != ST_OK)
                return 1;
        fwrite(b.p, 1, b.len, stdout);

        if (tlbdet_detect(c, NULL, &r) == ST_OK) {
                struct rep_buf t = { 0 };
                tlbdet_crosscheck(&r, c, NULL);
                tlb_report_console(&r, 1, &t);
                fwrite(t.p, 1, t.len, stderr);
                rep_buf_free(&t);
        }
        rep_buf_free(&b);
        return 0;
}

int main(int argc, char **argv)
{
        struct opts o;
        uint32_t    ns[TLBDET_MAX_POINTS];
        size_t      n_ns;
        uint64_t    span;
        int         rc;

        if (!parse_opts(argc, argv, &o)) {
                fprintf(stderr, "usage: see tests/record_tlb.c\n");
                return 2;
        }

        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o.cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set) != 0)
                fprintf(stderr, "record_tlb: cannot pin to CPU %d\n", o.cpu);

        if (bench_tlb_sweep(4, o.max_n, o.steps, ns, ARRAY_SIZE(ns), &n_ns) != ST_OK) {
                fprintf(stderr, "record_tlb: bad sweep\n");
                return 2;
        }
        o.cfg.n_pages = o.max_n;
        if (bench_tlb_span(&o.cfg, &span) != ST_OK)
                return 2;
        bool     huge = o.cfg.page_bytes == 2 * MiB;
        uint8_t *win  = map_region(span, o.cfg.page_bytes, huge);
        uint64_t ctl_bytes = ((uint64_t)o.max_n * BENCH_TLB_LINE_BYTES + 2 * MiB - 1) & ~(2 * MiB - 1);
        uint8_t *ctl  = o.control && o.side == TLB_SIDE_DATA ? map_region(ctl_bytes, 2 * MiB, true)
                                                             : NULL;
        if (!win) {
                fprintf(stderr, "record_tlb: mmap of %llu bytes failed\n", (unsigned long long)span);
                return 1;
        }
        struct tlb_point *pts = calloc(n_ns, sizeof(*pts));
        char what[128];
        snprintf(what, sizeof(what), "%s, %s pages, PTE %s", bench_tlb_side_name(o.side),
                 huge ? "2 MiB" : "4 KiB", bench_tlb_pte_layout_name(o.cfg.pte));

        for (size_t i = 0; i < n_ns; i++) {
                status_t st;

                o.cfg.n_pages = ns[i];
                if ((st = measure_point(&o, win, span, ctl, ctl_bytes, &pts[i])) != ST_OK) {
                        fprintf(stderr, "record_tlb: N=%u: %s\n", ns[i], status_str(st));
                        return 1;
                }
                if (i == 0 && huge && thp_bytes(win) < 2 * MiB) {
                        fprintf(stderr, "record_tlb: THP did not back the window\n");
                        return 1;
                }
                fprintf(stderr, "N=%5u p50 %7.3f ctl %7.3f cyc\n", ns[i],
                        pts[i].p50_mcyc / 1000.0, pts[i].ctl_p50_mcyc / 1000.0);
        }
        if (huge)
                fprintf(stderr, "record_tlb: AnonHugePages %llu MiB of %llu MiB\n",
                        (unsigned long long)(thp_bytes(win) >> 20),
                        (unsigned long long)(span >> 20));

        struct tlb_curve c = { .pts = pts, .n = n_ns, .side = o.side, .pte = o.cfg.pte,
                               .page_bytes = o.cfg.page_bytes, .clock = LAT_CLOCK_TSC };
        rc = print_curve(argc, argv, what, &c, huge, win, span);
        free(pts);
        return rc;
}
