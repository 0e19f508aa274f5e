/** @file
 * The chase over a known buffer that IBS and PEBS samples are validated against, the
 * per-working-set checks and the core:TSC ratio of a sampled run (see app/sampling_run.h).
 */
#include "app/sampling_run.h"

#include "bench/chain.h"
#include "bench/kernel_tlb.h"
#include "bench/pagetable.h"
#include "lib/stats.h"
#include "bench/kernel_chase.h"
#include "boot/x86/msr.h"
#include "pmu/x86/msr_misc.h"
#include "lib/fmt.h"

#define CHASE_SEED 0x5eed5a3d1e5ull

/* CR4.LA57: 5-level paging, which the 4-level walker of bench/pagetable.c cannot follow.
 * [SDM-3A] "Control Registers" */
#define CR4_LA57 BIT_ULL(12)
/* Ratios outside 1/8 .. 8 are taken as a failed measurement. */
#define RATIO_MIN_Q16 (1u << 13)
#define RATIO_MAX_Q16 (8u << 16)

static const char ratio_aperf[] = "APERF/MPERF";
static const char ratio_pmu[]   = "PMU cycles";

/* ---- private helpers -------------------------------------------------------------------- */

/* The firmware's page-table pages are reached through the identity map UEFI keeps on x64
 * ([UEFI-2.10] §2.3.4); the walk never allocates. */
static void *ident_phys(void *ctx, uint64_t pa)
{
        (void)ctx;
        return (void *)(uintptr_t)pa;
}

static status_t no_alloc(void *ctx, uint64_t *pa)
{
        (void)ctx;
        *pa = 0;
        return ST_NO_MEM;
}

static uint8_t max_phys_bits(const struct cpu_info *cpu)
{
        struct cpuid_regs r;

        if (!cpu || cpu->max_ext_leaf < 0x80000008)
                return 36;
        cpuid_raw(0x80000008, 0, &r); /* EAX[7:0]: MAXPHYADDR. [SDM-2A] CPUID */
        return (r.eax & 0xff) ? (uint8_t)(r.eax & 0xff) : 36;
}

/* Walk the live page tables (CR3, 4-level) for every sample's data linear address into @p w.
 * ST_UNSUPPORTED with @p why when they cannot be walked. Ring 0 only: samples exist only in
 * the firmware run, where the PMI is routed. */
static status_t walk_samples(const struct cpu_info *cpu, const struct psample *s, size_t n,
                             struct rep_walk *w, const char **why)
{
        const struct bench_pt_ops ops = { .alloc_page = no_alloc, .phys_to_virt = ident_phys };
        const struct bench_pt_cfg cfg = { .pdpe1gb = cpu && cpu->pdpe1gb, .nx = true,
                                          .phys_bits = max_phys_bits(cpu) };
        uint64_t root = bench_cr3_read() & ((1ull << cfg.phys_bits) - 1) & ~(uint64_t)0xfff;
        struct bench_pt pt;

        if (bench_cr4_read() & CR4_LA57) {
                *why = "5-level paging (CR4.LA57): the software walker is 4-level";
                return ST_UNSUPPORTED;
        }
        if (bench_pt_attach(&pt, &ops, &cfg, root) != ST_OK) {
                *why = "CR3 does not hold a usable PML4 address";
                return ST_UNSUPPORTED;
        }
        for (size_t i = 0; i < n; i++) {
                w[i] = (struct rep_walk){ .st = ST_NOT_FOUND };
                if (s[i].data_la_valid && s[i].data_pa_valid)
                        w[i].st = bench_pt_walk(&pt, s[i].data_la, &w[i].pa, &w[i].page_bytes,
                                                NULL);
        }
        return ST_OK;
}

/* ---- public functions ------------------------------------------------------------------- */

status_t smp_chase_setup(struct smp_chase *c, uint64_t bytes, uint32_t line_bytes)
{
        struct bench_chain_cfg cfg = { .layout = BENCH_LAYOUT_RANDOM, .line_bytes = line_bytes,
                                       .seed = CHASE_SEED };
        const void *p;
        status_t st;

        memset(c, 0, sizeof(*c));
        c->bytes = bytes;
        c->line_bytes = line_bytes;
        c->n_lines = bytes / line_bytes;
        if ((st = plat_alloc_pages(bytes, PLAT_PAGE_4K, &c->buf, &c->got)) != ST_OK)
                return st;
        if (!(c->lines = plat_alloc(c->n_lines * sizeof(*c->lines)))) {
                smp_chase_free(c);
                return ST_NO_MEM;
        }
        if ((st = bench_chain_build(c->buf, bytes, &cfg, &c->start)) != ST_OK) {
                smp_chase_free(c);
                return st;
        }
        /* The lines the chain visits, found by following it rather than assumed. */
        p = c->start;
        for (size_t i = 0; i < c->n_lines; i++) {
                c->lines[i] = (uint64_t)(uintptr_t)p & ~(uint64_t)(line_bytes - 1);
                p = *(const void *const *)p;
        }
        rep_sort_u64(c->lines, c->n_lines);
        return ST_OK;
}

void smp_chase_free(struct smp_chase *c)
{
        if (c->buf)
                plat_free_pages(c->buf, c->bytes);
        plat_free(c->lines);
        memset(c, 0, sizeof(*c));
}

size_t smp_filter_chase(struct psample *s, size_t n)
{
        uint64_t lo = (uint64_t)(uintptr_t)bench_chase;
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (s[i].ip_valid && s[i].ip >= lo && s[i].ip - lo < SMP_CHASE_CODE_BYTES)
                        s[k++] = s[i];
        return k;
}

void smp_check_ws(struct smp_ctx *x, const char *mech, const struct smp_ws *w,
                  const struct smp_chase *c, const struct psample *s, size_t n,
                  const char *lat_note)
{
        struct smp_log *lg = &x->log;
        struct rep_verdict v;
        struct rep_walk *walk;
        const char *why = "no memory for the page walks";
        size_t n_pa = 0, len;
        char name[48];

        fmt_snprintf(name, sizeof(name), "addresses %s", w->name);
        if (rep_check_addrs_in_chain(s, n, (uint64_t)(uintptr_t)c->buf, c->bytes, c->lines,
                                     c->n_lines, c->line_bytes, &v) == ST_OK)
                smp_log_check(lg, mech, name, &v);

        /* Physical addresses against the page tables the CPU is using, not an assumed
         * identity: a software walk of CR3 for each sampled linear address. */
        fmt_snprintf(name, sizeof(name), "physical %s", w->name);
        for (size_t i = 0; i < n; i++)
                n_pa += s[i].data_la_valid && s[i].data_pa_valid;
        walk = n_pa ? plat_alloc(n * sizeof(*walk)) : NULL;
        if (n_pa == 0)
                smp_log_skip(lg, mech, name, "no sample reports both a linear and a physical "
                             "data address");
        else if (!walk || walk_samples(x->cpu, s, n, walk, &why) != ST_OK)
                smp_log_skip(lg, mech, name, why);
        else if (rep_check_phys_walk(s, walk, n, &v) == ST_OK)
                smp_log_check(lg, mech, name, &v);
        plat_free(walk);

        fmt_snprintf(name, sizeof(name), "latency %s", w->name);
        if (rep_check_latency(s, n, REP_SF_LOADS_ONLY | REP_SF_MISSES_ONLY, w->lat_lo, w->lat_hi,
                              500, &v) == ST_OK) {
                len = strlen(v.why);
                if (lat_note && v.v != REP_V_SKIP && len + 3 < sizeof(v.why))
                        fmt_snprintf(v.why + len, sizeof(v.why) - len, "; %s", lat_note);
                smp_log_check(lg, mech, name, &v);
        }

        fmt_snprintf(name, sizeof(name), "data-source %s", w->name);
        if (w->level == PS_LVL_UNKNOWN)
                smp_log_skip(lg, mech, name, "the latency table's level has no data-source "
                             "equivalent");
        else if (rep_check_level(s, n, w->level, 700, &v) == ST_OK)
                smp_log_check(lg, mech, name, &v);
}

void smp_ratio_begin(struct smp_ratio *r, const struct cpu_info *cpu)
{
        const struct pmu_event_desc *ev;
        const char *why;

        memset(r, 0, sizeof(*r));
        r->slot = (struct pmu_slot){ .fixed = false, .idx = 0 }; /* PEBS has counter 1 */
        /* MPERF counts at the TSC rate on Intel and at P0 on AMD, which is the TSC rate of
         * every Zen part; bench_clock_init makes the same assumption. [SDM-3B] "IA32_APERF";
         * [APM-2] "MPERF" */
        if (cpu && cpu->aperfmperf && rdmsr_safe(MSR_IA32_APERF, &r->a0) == ST_OK &&
            rdmsr_safe(MSR_IA32_MPERF, &r->m0) == ST_OK)
                r->how = ratio_aperf;
        else if (pmu_available() && pmu_n_gp() >= 2 &&
                 pmu_alias_event("cycles", &ev, &why) == ST_OK &&
                 pmu_program(r->slot, ev, PMU_OS, 0) == ST_OK &&
                 pmu_start(pmu_slot_bit(r->slot)) == ST_OK)
                r->how = ratio_pmu;
        r->t0 = rdtsc_ordered();
}

uint32_t smp_ratio_end(struct smp_ratio *r)
{
        uint64_t t1 = rdtsc_ordered(), a1 = 0, m1 = 0, num = 0, den = 0, q16;

        if (r->how == ratio_aperf && rdmsr_safe(MSR_IA32_APERF, &a1) == ST_OK &&
            rdmsr_safe(MSR_IA32_MPERF, &m1) == ST_OK) {
                num = a1 - r->a0;
                den = m1 - r->m0;
        } else if (r->how == ratio_pmu) {
                pmu_stop(pmu_slot_bit(r->slot));
                if (pmu_read(r->slot, &num) == ST_OK)
                        den = t1 - r->t0;
        }
        q16 = den ? (uint64_t)(((unsigned __int128)num << 16) / den) : 0;
        if (q16 < RATIO_MIN_Q16 || q16 > RATIO_MAX_Q16) {
                r->how = NULL;
                return 0;
        }
        return (uint32_t)q16;
}
