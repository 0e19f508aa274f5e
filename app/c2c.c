/** @file
 * The cache-to-cache phase: a line bouncing between two processors (bench/c2c.h), the owner
 * on one CPU and the reader on another, both driven through the MP mailboxes (boot/mp.h) or
 * one of them on the BSP itself. The pairs come from c2c_pairs_plan() over each CPU's own
 * description of where it sits (the cpus phase asked every CPU), every pair where there are
 * few CPUs and a sample per topology class beyond; each pair is measured in both directions.
 * Prints the class table and the HITM matrix (report/c2c.h) and writes c2c.json.
 *
 * Under an emulator (QEMU TCG) the transfers cost what the emulator's memory model costs:
 * the figures are reported as the emulator's, as INFO, and nothing fails for them. With one
 * processor taking part (a single-CPU machine, or cpus = bsp) the phase SKIPs with the reason.
 */
#include "app/run.h"

#include "app/cpus.h"
#include "bench/chain.h"
#include "boot/cpu.h"
#include "report/c2c.h"
#include "report/inventory.h"
#include "report/json.h"
#include "report/lattable.h"
#include "report/lattable_numa.h"

#define C2C_LINES        256u             /* 16 KiB: fits the owner's L1/L2 */
#define C2C_SEED         0xc2c
#define C2C_ALL_UP_TO    16u              /* every pair up to this many CPUs */
#define C2C_PER_CLASS    4u               /* pairs per topology class beyond */
#define C2C_MAX_PAIRS    256u
#define C2C_SPIN_LIMIT   (1ull << 28)     /* a side gives up after this many spins */
#define C2C_TIMEOUT_US   (30u * 1000 * 1000)
#define C2C_FILE         "c2c.json"

struct c2c_run {
        unsigned        n;                          /* CPUs taking part */
        unsigned        idx[MP_MAX_CPUS];           /* their processor indices */
        struct c2c_cpu  cpu[MP_MAX_CPUS];
        struct c2c_pair pair[C2C_MAX_PAIRS];
        size_t          n_pairs;
        struct c2c_result res[2 * C2C_MAX_PAIRS];
        size_t          n_res;
        unsigned        rounds;
        void           *chain;
        uint64_t        n_transfers;                /* line transfers timed (cost line) */
        const char     *topology_source;            /* "each CPU's own CPUID" / MPIDR_EL1 */
};

static struct c2c_run run_state;
static struct bench_c2c shared;      /* the measurement both sides work on */
static uint64_t         rounds_copy[BENCH_C2C_MAX_ROUNDS];
static struct lat_c2c_in result;     /* what the latency table gets (r->c2c_result) */

/* Each side runs with interrupts masked, on the BSP as on an AP. */
static void owner_side(void *arg)
{
        uint64_t saved;
        cpu_irq_disable(&saved);
        bench_c2c_owner(arg);
        cpu_irq_restore(saved);
}

static void reader_side(void *arg)
{
        uint64_t saved;
        cpu_irq_disable(&saved);
        bench_c2c_reader(arg);
        cpu_irq_restore(saved);
}

/* Start @p fn on @p idx: queued on a parked AP, or (BSP) returned for the caller to run. */
static status_t start_side(unsigned idx, void (*fn)(void *), bool *on_bsp)
{
        *on_bsp = mp_cpu_state(idx) == MP_BSP;
        return *on_bsp ? ST_OK : mp_call(idx, fn, &shared);
}

/* One kind on one ordered pair of processor indices. */
static status_t measure(enum bench_c2c_kind kind, unsigned owner, unsigned reader,
                        unsigned rounds, void *chain)
{
        bool     owner_bsp, reader_bsp;
        status_t st, st2;

        if ((st = bench_c2c_init(&shared, kind, chain, C2C_LINES, 64, rounds)) != ST_OK)
                return st;
        shared.spin_limit = C2C_SPIN_LIMIT;
        if ((st = start_side(owner, owner_side, &owner_bsp)) != ST_OK)
                return st;
        if ((st = start_side(reader, reader_side, &reader_bsp)) != ST_OK) {
                shared.aborted = 1;
                mp_wait(owner, C2C_TIMEOUT_US);
                return st;
        }
        if (owner_bsp)
                owner_side(&shared);
        if (reader_bsp)
                reader_side(&shared);
        st  = reader_bsp ? ST_OK : mp_wait(reader, C2C_TIMEOUT_US);
        st2 = owner_bsp ? ST_OK : mp_wait(owner, C2C_TIMEOUT_US);
        if (st != ST_OK || st2 != ST_OK)
                return ST_TIMEOUT;
        if (shared.reader_status != ST_OK)
                return shared.reader_status;
        return shared.owner_status;
}

/* The processors that take part and described themselves, as the analysis sees them. */
static void gather_cpus(struct c2c_run *s)
{
        const struct app_cpus *cs = app_cpus_get();

        s->n = 0;
        for (unsigned i = 0; i < cs->n; i++) {
                const struct app_cpu *c = &cs->cpu[i];
                if ((c->state != MP_BSP && c->state != MP_PARKED) || !c->described)
                        continue;
                s->idx[s->n] = i;
                s->cpu[s->n] = (struct c2c_cpu){ .apic_id = c->topo.apic_id,
                                                 .package = c->topo.package,
                                                 .core = c->topo.core, .thread = c->topo.thread,
                                                 .l3_domain = c->topo.llc_domain };
                s->n++;
        }
        /* AArch64: the PPTT's (app/cpus_pptt.c), else each CPU's MPIDR_EL1 guess */
        const char *src = s->n ? cs->cpu[s->idx[0]].topo.source : NULL;
        s->topology_source = !src                       ? "each CPU's own CPUID"
                             : !strcmp(src, "PPTT")      ? "the firmware's PPTT"
                             : !strcmp(src, "MPIDR_EL1") ? "each CPU's own MPIDR_EL1"
                                                         : "each CPU's own CPUID";
}

/* Both directions of every planned pair; a pair that fails is reported and left out. */
static unsigned measure_pairs(struct c2c_run *s)
{
        unsigned failed = 0;

        s->n_res = 0;
        for (size_t p = 0; p < s->n_pairs; p++)
                for (unsigned dir = 0; dir < 2; dir++) {
                        unsigned a = dir ? s->pair[p].b : s->pair[p].a;
                        unsigned b = dir ? s->pair[p].a : s->pair[p].b;
                        struct c2c_result *r = &s->res[s->n_res];
                        status_t st = ST_OK;

                        *r = (struct c2c_result){ .owner_cpu = s->idx[a], .reader_cpu = s->idx[b],
                                                  .owner_apic = s->cpu[a].apic_id,
                                                  .reader_apic = s->cpu[b].apic_id,
                                                  .cls = s->pair[p].cls, .known_class = true };
                        for (unsigned k = 0; k < BENCH_C2C__COUNT && st == ST_OK; k++) {
                                st = measure((enum bench_c2c_kind)k, s->idx[a], s->idx[b],
                                             s->rounds, s->chain);
                                if (st != ST_OK)
                                        break;
                                memcpy(rounds_copy, shared.ticks_per_line_milli,
                                       shared.n_done * sizeof(*rounds_copy));
                                s->n_transfers += (uint64_t)shared.n_done * C2C_LINES;
                                c2c_result_set(r, (enum bench_c2c_kind)k, rounds_copy,
                                               shared.n_done);
                        }
                        if (st != ST_OK) {
                                rep_err(st, "CPU %u (APIC ID %u) -> CPU %u (APIC ID %u)",
                                        s->idx[a], s->cpu[a].apic_id, s->idx[b],
                                        s->cpu[b].apic_id);
                                failed++;
                                continue;
                        }
                        s->n_res++;
                }
        return failed;
}

/* The time of the run in UTC for method.date; NULL without a clock. */
static const char *run_date(char *buf, size_t n)
{
        struct plat_time t;

        return plat_wallclock(&t) == ST_OK && lat_date_utc(&t, buf, n) ? buf : NULL;
}

static status_t write_json(struct run *r, const struct c2c_run *s, uint64_t tsc_hz,
                           bool emulated)
{
        struct rep_buf b = { 0 };
        struct json_w  w;
        char           date[24];
        status_t       st;

        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.c2c/1.1");
        json_obj_begin(&w, "method");
        json_str(&w, "platform", plat_info()->name);
        json_str(&w, "date", run_date(date, sizeof(date)));
        json_str(&w, "clock", bench_c2c_clock_name());
        json_u64(&w, "tsc_hz", tsc_hz);
        json_u64(&w, "lines", C2C_LINES);
        json_u64(&w, "rounds", s->rounds);
        json_u64(&w, "n_cpus", s->n);
        json_u64(&w, "n_pairs_planned", s->n_pairs);
        json_str(&w, "pair_plan", s->n <= C2C_ALL_UP_TO ? "every pair" : "sample per class");
        json_str(&w, "topology_source", s->topology_source);
        json_bool(&w, "emulated", emulated);
        json_obj_end(&w);
        c2c_json(&w, s->res, s->n_res, tsc_hz);
        json_obj_end(&w);
        if ((st = json_finish(&w)) != ST_OK) {
                rep_buf_free(&b);
                return rep_err(st, "formatting %s", C2C_FILE);
        }
        return run_add_file(r, C2C_FILE, &b);
}

static void report(struct c2c_run *s, unsigned failed, uint64_t tsc_hz, bool emulated)
{
        struct rep_buf b = { 0 };
        unsigned       n_cls = 0;
        bool           seen[C2C__COUNT] = { false };

        if (c2c_text(&b, s->res, s->n_res, tsc_hz) == ST_OK && b.p)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
        for (size_t i = 0; i < s->n_pairs; i++)
                if (!seen[s->pair[i].cls]) {
                        seen[s->pair[i].cls] = true;
                        n_cls++;
                }
        rep_check(failed == 0, "%zu of %zu ordered pairs measured (hit, hitm, write; %u "
                  "rounds each), %u topology class%s", s->n_res, 2 * s->n_pairs, s->rounds,
                  n_cls, n_cls == 1 ? "" : "es");
        if (emulated)
                rep_info("the CPU is emulated (QEMU TCG): these are the emulator's "
                         "figures for a line moving between vCPUs, not a cache's");
}

status_t phase_c2c(struct run *r)
{
        struct c2c_run *s        = &run_state;
        bool            emulated = app_cpus_emulated(r);
        uint64_t        tsc_hz   = r->inv ? r->inv->tsc_hz : 0;
        void           *buf      = NULL;
        status_t        st;

        if (r->cfg.cpus == CONFIG_CPUS_BSP) {
                rep_skip("cpus = bsp: a transfer needs two processors");
                return ST_OK;
        }
        if ((st = app_cpus_park(r)) != ST_OK)
                return st;
        gather_cpus(s);
        if (s->n < 2) {
                app_cpus_release();
                rep_skip("%u processor%s take%s part: a transfer needs two", s->n,
                         s->n == 1 ? "" : "s", s->n == 1 ? "s" : "");
                return ST_OK;
        }
        st = c2c_pairs_plan(s->cpu, s->n, C2C_ALL_UP_TO, C2C_PER_CLASS, s->pair,
                            C2C_MAX_PAIRS, &s->n_pairs);
        struct bench_chain_cfg cc = { .layout = BENCH_LAYOUT_RANDOM, .seed = C2C_SEED };
        if (st == ST_OK)
                st = plat_alloc_pages(C2C_LINES * 64, PLAT_PAGE_4K, &buf, NULL);
        if (st == ST_OK)
                st = bench_chain_build(buf, C2C_LINES * 64, &cc, &s->chain);
        if (st != ST_OK) {
                app_cpus_release();
                if (buf)
                        plat_free_pages(buf, C2C_LINES * 64);
                return rep_err(st, "planning pairs and laying the chain");
        }
        /* A round is a lap of C2C_LINES transfers already averaged; the rounds give the
         * spread, as the windows of a latency point do. */
        s->rounds = r->cfg.repetitions;
        if (s->rounds > BENCH_C2C_MAX_ROUNDS)
                s->rounds = BENCH_C2C_MAX_ROUNDS;
        rep_info("%u processors, %zu pairs (%s), both directions, %u rounds of %u lines",
                 s->n, s->n_pairs, s->n <= C2C_ALL_UP_TO ? "every pair" : "a sample per class",
                 s->rounds, C2C_LINES);
        uint64_t t0     = bench_c2c_clock();
        s->n_transfers  = 0;
        unsigned failed = measure_pairs(s);
        if (tsc_hz)
                rep_info("cost: %zu ordered pairs x 3 kinds x %u rounds of %u lines: %llu "
                         "transfers, %llu ms", s->n_res, s->rounds, C2C_LINES,
                         (unsigned long long)s->n_transfers,
                         (unsigned long long)((bench_c2c_clock() - t0) * 1000 / tsc_hz));
        app_cpus_release();
        plat_free_pages(buf, C2C_LINES * 64);
        report(s, failed, tsc_hz, emulated);
        if (s->n_res) {
                result = (struct lat_c2c_in){
                        .res = s->res, .n = s->n_res, .lines = C2C_LINES, .rounds = s->rounds,
                        .n_cpus = s->n, .tsc_hz = tsc_hz, .emulated = emulated,
                        .pair_plan = s->n <= C2C_ALL_UP_TO ? "every pair" : "sample per class",
                        .topology_source = s->topology_source };
                r->c2c_result = &result;
        }
        return write_json(r, s, tsc_hz, emulated);
}
