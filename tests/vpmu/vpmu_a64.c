/** @file
 * The virtual Arm PMUv3 (see vpmu_a64.h): registers, counting with the exception-level
 * filters, overflow and the level-sensitive PMU interrupt, the kernels the suite runs, the
 * generic timer and the PMI route. [ARM-ARM] D11 "The Performance Monitors Extension"
 * (D11.5 "Counter enables", D11.6 "Counter filtering", D11.8 "Overflow", D11.11 common event
 * numbers) and D23.5 (PMCR_EL0, PMEVTYPER<n>_EL0, PMCCFILTR_EL0, PMSWINC_EL0).
 */
#include "tests/vpmu/vpmu_a64.h"

#include <stdlib.h>
#include <string.h>

#include "bench/kernel_branch.h"
#include "bench/kernel_skid.h"
#include "boot/cpu.h"
#include "boot/plat.h"

/* ---- constants ------------------------------------------------------------------------ */

/* Common event numbers the model counts ([ARM-ARM] D11.11.1, "Common architectural event
 * numbers"); any other event counts nothing. */
#define EV_SW_INCR     0x0000
#define EV_INST_RET    0x0008
#define EV_CPU_CYCLES  0x0011
#define EV_BR_RETIRED  0x0021

/* PMCR_EL0 fields [ARM-ARM] D23.5.7 */
#define PMCR_E   (1ull << 0)
#define PMCR_P   (1ull << 1)
#define PMCR_C   (1ull << 2)
#define PMCR_D   (1ull << 3)
#define PMCR_LC  (1ull << 6)
#define PMCR_LP  (1ull << 7)
#define PMCR_N_SHIFT 11
#define PMCR_RW  (PMCR_E | PMCR_D | (1ull << 4) | (1ull << 5) | PMCR_LC | PMCR_LP)

/* PMEVTYPER<n>_EL0 / PMCCFILTR_EL0 [ARM-ARM] D23.5.9 */
#define TYPE_P    (1ull << 31)
#define TYPE_U    (1ull << 30)
#define TYPE_NSK  (1ull << 29)
#define TYPE_NSU  (1ull << 28)
#define TYPE_NSH  (1ull << 27)
#define TYPE_EVT  0xffffull

#define CYCLE     31u
#define PMUVER_P5 0x6

/* What a PMI costs the program: the exception vector, the registers saved, the GIC
 * acknowledge and the dispatch to the handler; then the way back (EOI, restore, ERET).
 * Instructions, one cycle each, at the level the harness runs at. */
#define PMI_ENTRY_INSNS 24
#define PMI_EXIT_INSNS  24
/* Hardware skid: the PMI is taken up to this many instructions past the overflowing one. */
#define HW_SKID_INSNS   8

enum kind { K_INSTS, K_CYCLES, K_BRANCHES };

/* ---- state ----------------------------------------------------------------------------- */

static struct {
        const struct vpa_part *p;
        struct vpa_faults      f;
        uint64_t pmcr;
        uint32_t cnten, inten, ovs;
        uint64_t selr, userenr, ccfiltr, ccntr;
        uint64_t evtyper[31], evcntr[31];
        uint64_t cycles;          /* the core's cycles: the model's time */
        uint64_t div64;           /* PMCR_EL0.D prescaler */
        int64_t  frac_insts, frac_cyc; /* count faults' carry, ppm */
        uint64_t n_swinc;              /* PMSWINC_EL0 writes (the lose fault's clock) */
        unsigned el;
        uint64_t pc;              /* the program's PC where a PMI would interrupt it */
        bool     in_pmi;
        cpu_pmi_fn fn;
        void      *ctx;
        bool       route;
        uint64_t   rng;
        uint64_t   n_ovf;         /* overflows, for the lose fault */
        struct vpa_stats stats;
} a;

const struct vpa_part vpa_qemu_max = {
        /* QEMU 7.2 -cpu max under TCG: the registers tests/data/qemu72-virt-aarch64-max-
         * idregs.txt recorded (PMUv3p5, PMCR_EL0.N 6, PMCEID0/1 with SW_INCR, INST_RETIRED,
         * CPU_CYCLES and the stall events, no BR_RETIRED); no EL3 on the virt board. */
        .name = "QEMU max", .midr = 0x000f0510, .pmuver = 0x6, .n_counters = 6,
        .pmceid0 = 0x20101, .pmceid1 = 0x10000018, .el = 1, .el3 = false, .qemu = true,
};

const struct vpa_part vpa_neoverse_n1 = {
        /* A PMUv3p1 core with Neoverse N1's MIDR (r3p1) and 6 counters of 32 bits, EL3
         * implemented; PMCEID0/1 name the events the suite uses (SW_INCR, INST_RETIRED,
         * CPU_CYCLES, BR_RETIRED). */
        .name = "Neoverse N1", .midr = 0x413fd0c1, .pmuver = 0x4, .n_counters = 6,
        .pmceid0 = (1ull << EV_SW_INCR) | (1ull << EV_INST_RET) | (1ull << EV_CPU_CYCLES),
        .pmceid1 = 1ull << (EV_BR_RETIRED - 0x20), .el = 1, .el3 = true, .qemu = false,
};

/* ---- private functions ----------------------------------------------------------------- */

static uint64_t rnd(void)
{
        a.rng ^= a.rng << 13;
        a.rng ^= a.rng >> 7;
        a.rng ^= a.rng << 17;
        return a.rng;
}

static bool p5(void)
{
        return a.p->pmuver >= PMUVER_P5 && a.p->pmuver != 0xf;
}

/* Bits at which counter @p c overflows. */
static unsigned ovf_bits(unsigned c)
{
        if (c == CYCLE)
                return a.pmcr & PMCR_LC ? 64 : 32;
        return p5() && (a.pmcr & PMCR_LP) ? 64 : 32;
}

static uint64_t mask_of(unsigned bits)
{
        return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* Counter @p c counts at all: PMCR_EL0.E and its PMCNTENSET bit. */
static bool enabled(unsigned c)
{
        uint32_t bit = 1u << c;

        if (c != CYCLE && (c >= a.p->n_counters || (a.f.dead & bit)))
                return false;
        return (a.pmcr & PMCR_E) && ((a.cnten & bit) || (a.f.cnten_ignored & bit));
}

/* The filter of @p type admits the current level: P/U exclude EL1/EL0, NSH includes EL2;
 * with EL3 implemented (Non-secure state) EL1 counts when NSK equals P, EL0 when NSU equals
 * U ([ARM-ARM] D11.6 and PMEVTYPER<n>_EL0.NSK, NSU). */
static bool admits(uint64_t type)
{
        bool p = type & TYPE_P, u = type & TYPE_U;

        if (a.f.filter_ignored)
                return true;
        switch (a.el) {
        case 0: return a.p->el3 ? u == !!(type & TYPE_NSU) : !u;
        case 1: return a.p->el3 ? p == !!(type & TYPE_NSK) : !p;
        default: return (type & TYPE_NSH) != 0;
        }
}

static uint16_t event_of(unsigned c)
{
        return c == CYCLE ? EV_CPU_CYCLES : (uint16_t)(a.evtyper[c] & TYPE_EVT);
}

static bool counts(unsigned c, enum kind k)
{
        static const uint16_t ev_of_kind[] = { [K_INSTS] = EV_INST_RET,
                                               [K_CYCLES] = EV_CPU_CYCLES,
                                               [K_BRANCHES] = EV_BR_RETIRED };

        if (!enabled(c) || !admits(c == CYCLE ? a.ccfiltr : a.evtyper[c]))
                return false;
        if (k == K_INSTS && a.f.inst_zero)
                return false;
        return event_of(c) == ev_of_kind[k];
}

static uint64_t *reg_of(unsigned c)
{
        return c == CYCLE ? &a.ccntr : &a.evcntr[c];
}

/* Add @p n to counter @p c; an unsigned overflow at its width sets PMOVSSET. */
static void add(unsigned c, uint64_t n)
{
        uint64_t *r = reg_of(c), m = mask_of(ovf_bits(c)), low = *r & m;

        if (!n)
                return;
        if (c == CYCLE && (a.pmcr & PMCR_D)) { /* every 64th cycle */
                a.div64 += n;
                n = a.div64 / 64;
                a.div64 %= 64;
                if (!n)
                        return;
        }
        *r += n;
        if (c != CYCLE && !p5())
                *r &= 0xffffffffull;
        if (n > m - low && !(a.f.lose_pmi_every && ++a.n_ovf % a.f.lose_pmi_every == 0))
                a.ovs |= 1u << c;
}

static uint64_t scaled(uint64_t n, int32_t ppm, int64_t *frac)
{
        __int128 v = (__int128)n * (1000000 + ppm) + *frac;

        *frac = (int64_t)(v % 1000000);
        return (uint64_t)(v / 1000000);
}

static void count(enum kind k, uint64_t n)
{
        if (k == K_INSTS && a.f.insts_ppm)
                n = scaled(n, a.f.insts_ppm, &a.frac_insts);
        if (k == K_CYCLES && a.f.cycles_ppm)
                n = scaled(n, a.f.cycles_ppm, &a.frac_cyc);
        for (unsigned c = 0; c < a.p->n_counters; c++)
                if (counts(c, k))
                        add(c, n);
        if (counts(CYCLE, k))
                add(CYCLE, n);
}

/* Instructions that are not branches, one cycle each (the harness's own). */
static void tick(uint64_t n)
{
        a.cycles += n;
        count(K_INSTS, n);
        count(K_CYCLES, n);
}

/* The PMU interrupt is level-sensitive: asserted while an enabled overflow is pending
 * ([ARM-ARM] D11.8: PMOVSSET[n], PMINTENSET[n] and PMCR_EL0.E). */
static bool irq_asserted(void)
{
        return (a.pmcr & PMCR_E) && (a.ovs & a.inten) != 0;
}

static void deliver(void)
{
        for (unsigned guard = 0; guard < 4 && irq_asserted() && !a.in_pmi; guard++) {
                struct cpu_pmi_frame fr = { .rip = a.pc + a.f.skid_extra_bytes };

                if (!a.route || !a.fn || a.f.route_dead)
                        return;
                a.stats.n_pmi++;
                a.in_pmi = true;
                tick(PMI_ENTRY_INSNS);
                a.fn(&fr, a.ctx);
                tick(PMI_EXIT_INSNS);
                if (a.f.spurious_pmi_every && a.stats.n_pmi % a.f.spurious_pmi_every == 0) {
                        tick(PMI_ENTRY_INSNS); /* the interrupt again, nothing pending */
                        a.fn(&fr, a.ctx);
                        tick(PMI_EXIT_INSNS);
                }
                a.in_pmi = false;
        }
}

/* Room of counter @p c in events of its kind before it overflows (UINT64_MAX: none). */
static uint64_t room(unsigned c)
{
        uint64_t m = mask_of(ovf_bits(c)), r = m - (*reg_of(c) & m) + 1;

        if (c == CYCLE && (a.pmcr & PMCR_D))
                return r > UINT64_MAX / 64 ? UINT64_MAX : r * 64 - a.div64;
        return r ? r : UINT64_MAX;
}

/* ---- public: the program --------------------------------------------------------------- */

void vpa_retire(uint64_t n_insns, uint64_t n_br, uint64_t pc_lo, uint64_t pc_hi)
{
        uint64_t per = n_br ? n_insns / n_br : n_insns, done = 0, span = pc_hi - pc_lo;

        if (!a.p || !n_insns || !per)
                return;
        while (done < n_insns) {
                uint64_t m = n_insns - done;

                /* up to the next overflow of a counter that counts here */
                for (unsigned c = 0; c < 32; c++) {
                        if (c != CYCLE && c >= a.p->n_counters)
                                continue;
                        uint64_t r;
                        if (counts(c, K_INSTS) || counts(c, K_CYCLES))
                                r = room(c);
                        else if (counts(c, K_BRANCHES) && n_br)
                                r = room(c) > (n_insns - done) / per + 1
                                            ? UINT64_MAX
                                            : per * (done / per + room(c)) - done;
                        else
                                continue;
                        m = r < m ? r : m;
                }
                uint64_t br = (done + m) / per - done / per;
                tick(m);
                count(K_BRANCHES, n_br ? br : 0);
                done += m;
                a.pc = pc_lo + (span ? ((done % per) * 4) % span : 0);
                if (irq_asserted()) {
                        if (!a.p->qemu && done < n_insns) {
                                /* hardware skid: a few more instructions retire first */
                                uint64_t s = rnd() % HW_SKID_INSNS;
                                s = s < n_insns - done ? s : n_insns - done;
                                br = (done + s) / per - done / per;
                                tick(s);
                                count(K_BRANCHES, n_br ? br : 0);
                                done += s;
                                a.pc = pc_lo + (span ? ((done % per) * 4) % span : 0);
                        }
                        deliver();
                }
        }
}

void vpa_set_el(unsigned el)
{
        a.el = el;
}

uint64_t vpa_cycles(void)
{
        return a.cycles;
}

const struct vpa_stats *vpa_stats(void)
{
        return &a.stats;
}

/* ---- public: registers ---------------------------------------------------------------- */

/* "pmevcntr<n>_el0" / "pmevtyper<n>_el0": n, else -1. */
static int direct_index(const char *name, const char *stem)
{
        size_t l = strlen(stem);
        char  *end;
        long   n;

        if (strncmp(name, stem, l))
                return -1;
        n = strtol(name + l, &end, 10);
        return end != name + l && !strcmp(end, "_el0") && n >= 0 && n < 31 ? (int)n : -1;
}

static bool valid_counter(uint64_t n)
{
        return n < a.p->n_counters;
}

uint64_t vpa_sysreg_read(const char *n)
{
        int i;

        if (!a.p)
                return 0;
        a.stats.n_sysreg++;
        tick(1);
        if (!strcmp(n, "CurrentEL"))
                return (uint64_t)a.el << 2;
        if (!strcmp(n, "pmcr_el0"))
                return (a.pmcr & PMCR_RW) | (uint64_t)a.p->n_counters << PMCR_N_SHIFT |
                       (a.p->midr & 0xff000000ull);
        if (!strcmp(n, "pmcntenset_el0") || !strcmp(n, "pmcntenclr_el0"))
                return a.cnten;
        if (!strcmp(n, "pmintenset_el1") || !strcmp(n, "pmintenclr_el1"))
                return a.inten;
        if (!strcmp(n, "pmovsset_el0") || !strcmp(n, "pmovsclr_el0"))
                return a.ovs;
        if (!strcmp(n, "pmselr_el0"))
                return a.selr;
        if (!strcmp(n, "pmuserenr_el0"))
                return a.userenr;
        if (!strcmp(n, "pmccfiltr_el0"))
                return a.ccfiltr;
        if (!strcmp(n, "pmccntr_el0"))
                return a.ccntr;
        if (!strcmp(n, "S3_3_C9_C12_6") || !strcmp(n, "pmceid0_el0"))
                return a.p->pmceid0;
        if (!strcmp(n, "S3_3_C9_C12_7") || !strcmp(n, "pmceid1_el0"))
                return a.p->pmceid1;
        if (!strcmp(n, "pmxevtyper_el0"))
                return a.selr == CYCLE ? a.ccfiltr : valid_counter(a.selr) ? a.evtyper[a.selr] : 0;
        if (!strcmp(n, "pmxevcntr_el0"))
                return valid_counter(a.selr) ? a.evcntr[a.selr] : 0;
        if ((i = direct_index(n, "pmevcntr")) >= 0)
                return valid_counter((uint64_t)i) ? a.evcntr[i] : 0;
        if ((i = direct_index(n, "pmevtyper")) >= 0)
                return valid_counter((uint64_t)i) ? a.evtyper[i] : 0;
        return 0;
}

static uint32_t implemented(uint64_t v)
{
        uint32_t m = (1u << CYCLE) | ((1u << a.p->n_counters) - 1);

        return (uint32_t)v & m;
}

static void write_type(unsigned c, uint64_t v)
{
        /* EVTCOUNT is 16 bits from PMUv3p1, 10 before; the rest of the low half RES0 */
        uint64_t evt = a.p->pmuver >= 0x4 ? TYPE_EVT : 0x3ff;

        a.evtyper[c] = v & (TYPE_P | TYPE_U | TYPE_NSK | TYPE_NSU | TYPE_NSH | (1ull << 26) | evt);
}

static void write_cntr(unsigned c, uint64_t v)
{
        a.evcntr[c] = p5() ? v : v & 0xffffffffull;
}

void vpa_sysreg_write(const char *n, uint64_t v)
{
        int i;

        if (!a.p)
                return;
        a.stats.n_sysreg++;
        tick(1);
        if (!strcmp(n, "pmcr_el0")) {
                a.pmcr = v & PMCR_RW;
                if (v & PMCR_P) /* reset every event counter (not the cycle counter) */
                        memset(a.evcntr, 0, sizeof(a.evcntr));
                if (v & PMCR_C)
                        a.ccntr = 0, a.div64 = 0;
        } else if (!strcmp(n, "pmcntenset_el0")) {
                a.cnten |= implemented(v);
        } else if (!strcmp(n, "pmcntenclr_el0")) {
                a.cnten &= ~implemented(v);
        } else if (!strcmp(n, "pmintenset_el1")) {
                a.inten |= implemented(v);
        } else if (!strcmp(n, "pmintenclr_el1")) {
                a.inten &= ~implemented(v);
        } else if (!strcmp(n, "pmovsset_el0")) {
                a.ovs |= implemented(v);
        } else if (!strcmp(n, "pmovsclr_el0")) {
                a.ovs &= ~implemented(v);
        } else if (!strcmp(n, "pmselr_el0")) {
                a.selr = v & 0x1f;
        } else if (!strcmp(n, "pmuserenr_el0")) {
                a.userenr = v & 0xf;
        } else if (!strcmp(n, "pmccfiltr_el0")) {
                a.ccfiltr = v & (TYPE_P | TYPE_U | TYPE_NSK | TYPE_NSU | TYPE_NSH | (1ull << 26));
        } else if (!strcmp(n, "pmccntr_el0")) {
                a.ccntr = v + (uint64_t)a.f.ccntr_write_skew;
        } else if (!strcmp(n, "pmswinc_el0")) {
                if (a.f.sw_incr_lose_every && ++a.n_swinc % a.f.sw_incr_lose_every == 0)
                        return;
                /* SW_INCR: each counter of the mask programmed with event 0x00, enabled and
                 * admitted by its filter, counts one ([ARM-ARM] D23.5.18 PMSWINC_EL0) */
                for (unsigned c = 0; c < a.p->n_counters && !a.f.sw_incr_dead; c++)
                        if ((v & (1u << c)) && enabled(c) && admits(a.evtyper[c]) &&
                            event_of(c) == EV_SW_INCR)
                                add(c, 1);
        } else if (!strcmp(n, "pmxevtyper_el0")) {
                if (a.selr == CYCLE)
                        a.ccfiltr = v & (TYPE_P | TYPE_U | TYPE_NSK | TYPE_NSU | TYPE_NSH);
                else if (valid_counter(a.selr))
                        write_type((unsigned)a.selr, v);
        } else if (!strcmp(n, "pmxevcntr_el0")) {
                if (valid_counter(a.selr))
                        write_cntr((unsigned)a.selr, v);
        } else if ((i = direct_index(n, "pmevcntr")) >= 0) {
                if (valid_counter((uint64_t)i))
                        write_cntr((unsigned)i, v);
        } else if ((i = direct_index(n, "pmevtyper")) >= 0) {
                if (valid_counter((uint64_t)i))
                        write_type((unsigned)i, v);
        }
}

void vpa_isb(void)
{
        if (a.p)
                tick(1);
}

/* ---- public: set-up -------------------------------------------------------------------- */

void vpa_init(const struct vpa_part *p, const struct vpa_faults *f)
{
        memset(&a, 0, sizeof(a));
        a.p = p;
        a.rng = 0x9e3779b97f4a7c15ull;
        if (f)
                a.f = *f;
        a.el = p ? p->el : 1;
        /* the firmware's leftovers the driver must save and put back */
        a.pmcr = PMCR_LC;
        a.selr = 3;
}

void vpa_id_regs(struct arm64_id_regs *r)
{
        memset(r, 0, sizeof(*r));
        r->midr = a.p->midr;
        r->mpidr = 0x80000000ull;
        r->dfr0 = (uint64_t)a.p->pmuver << 8 | 0x6; /* DebugVer v8 */
        r->cntfrq = VPA_CNTFRQ_HZ;
        r->has_pmu_regs = a.p->pmuver != 0 && a.p->pmuver != 0xf;
        r->pmcr = (uint64_t)a.p->n_counters << PMCR_N_SHIFT | (a.p->midr & 0xff000000ull);
        r->pmceid0 = a.p->pmceid0;
        r->pmceid1 = a.p->pmceid1;
}

/* ---- the kernels, the timer and the PMI route ----------------------------------------- */

void __real_bench_loop(uint64_t n);
void __wrap_bench_loop(uint64_t n);
void __real_bench_skid_loop(uint64_t iters);
void __wrap_bench_skid_loop(uint64_t iters);

/* bench/arm64/kernel_branch.c: bl, cbz (not taken), the loop "subs; b.ne" n times, ret:
 * 2n + 3 instructions, n + 3 branches. */
void __wrap_bench_loop(uint64_t n)
{
        uint64_t lo = (uint64_t)(uintptr_t)__real_bench_loop;

        vpa_retire(2, 2, lo, lo + 8);           /* bl, cbz */
        if (n)
                vpa_retire(BENCH_LOOP_INSNS_PER_ITER * n, BENCH_LOOP_BRANCHES_PER_ITER * n,
                           lo + 8, lo + 16);
        vpa_retire(1, 1, lo + 16, lo + 20);     /* ret */
}

/* bench/arm64/kernel_skid.c: bl, cbz, then per iteration 4096 NOPs, subs, b.ne; ret. */
void __wrap_bench_skid_loop(uint64_t iters)
{
        uint64_t body = (uint64_t)(uintptr_t)bench_skid_body;

        vpa_retire(2, 2, body - 8, body);
        if (iters)
                vpa_retire(BENCH_SKID_INSNS_PER_ITER * iters, iters, body,
                           body + 4 * BENCH_SKID_INSNS_PER_ITER);
        body += 4 * BENCH_SKID_INSNS_PER_ITER;
        vpa_retire(1, 1, body, body + 4);
}

uint64_t arm64_timer_ticks(void)
{
        if (a.p)
                tick(3); /* dsb, isb, mrs */
        return a.cycles / VPA_CYCLES_PER_TICK;
}

status_t vpmu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        (void)ext_lvt_offset;
        a.fn = fn;
        a.ctx = ctx;
        a.route = true;
        return ST_OK;
}

void vpmu_pmi_disable(void)
{
        a.route = false;
        a.fn = NULL;
}

/* The PPI pended by software is taken like an overflow's: the registered handler runs once
 * (boot/arm64/pmi.c on_irq calls it for every PMU interrupt, the self-test's too). */
status_t vpmu_pmi_selftest(uint64_t *round_trip)
{
        struct cpu_pmi_frame fr = { .rip = a.pc };

        if (!a.route || a.f.route_dead)
                return ST_TIMEOUT;
        *round_trip = (PMI_ENTRY_INSNS + PMI_EXIT_INSNS) / VPA_CYCLES_PER_TICK + 1;
        tick(PMI_ENTRY_INSNS);
        if (a.fn) {
                a.in_pmi = true;
                a.fn(&fr, a.ctx);
                a.in_pmi = false;
        }
        tick(PMI_EXIT_INSNS);
        return ST_OK;
}
