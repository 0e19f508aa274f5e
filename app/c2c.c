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
#include "bench/chase_buf.h"
#include "boot/cpu.h"
#include "boot/prefetch.h"
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
#define C2C_FLOOR_MAX    (256u * 1024)    /* the reader's own-hit chain: up to this */
#define C2C_PP_EMULATED  16u              /* ping-pong round trips per round under an emulator,
                                           * which hands a line over only between time slices */

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
        void           *floor_chain;                /* the reader's own-hit chain, or NULL */
        size_t          floor_lines;
        const char     *floor_name;                 /* "own L2 hit", "own L1 hit", NULL */
        bool            pf_off;                     /* config prefetchers = off */
        bool            emulated;
        const struct cpu_info *cpu_info;
};

static struct c2c_run run_state;
static struct bench_c2c shared;      /* the measurement both sides work on */
static uint64_t         acc[BENCH_C2C__COUNT][C2C_PASSES * BENCH_C2C_MAX_ROUNDS];
static size_t           n_acc[BENCH_C2C__COUNT];
static struct lat_c2c_in result;     /* what the latency table gets (r->c2c_result) */
static struct prefetch_info pf_side[2]; /* owner's, reader's: their prefetchers this window */

/* Each side runs with interrupts masked, on the BSP as on an AP, with its own hardware
 * prefetchers off where the config says so (a documented control; given back after). */
static void side(void (*fn)(void *), struct prefetch_info *pf)
{
        uint64_t saved;

        cpu_irq_disable(&saved);
        bench_c2c_side(fn, &shared, run_state.cpu_info, run_state.pf_off, pf);
        cpu_irq_restore(saved);
}

static void owner_side(void *arg)
{
        (void)arg;
        side(bench_c2c_owner, &pf_side[0]);
}

static void reader_side(void *arg)
{
        (void)arg;
        side(bench_c2c_reader, &pf_side[1]);
}

/* The setting both CPUs' prefetchers had: the state's name when they agree, else "mixed". */
static const char *pf_pair(void)
{
        return pf_side[0].state == pf_side[1].state ? prefetch_state_name(pf_side[0].state)
                                                    : "mixed";
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
        shared.spin_limit  = C2C_SPIN_LIMIT;
        shared.floor_chain = run_state.floor_chain;
        shared.floor_lines = run_state.floor_lines;
        if (run_state.emulated)
                shared.n_exchanges = C2C_PP_EMULATED;
        pf_side[0] = pf_side[1] = (struct prefetch_info){ 0 };
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
                /* the group values are the same (boot/topology.h, report/c2c.h); an LLC
                 * below L3 or none described is no L3 to class pairs by */
                s->cpu[s->n] = (struct c2c_cpu){ .apic_id = c->topo.apic_id,
                                                 .package = c->topo.package,
                                                 .core = c->topo.core, .thread = c->topo.thread,
                                                 .l3_domain = c->topo.llc_domain,
                                                 .cluster = c->topo.cluster,
                                                 .group = c->topo.group,
                                                 .no_l3 = c->topo.llc_level < 3 };
                s->n++;
        }
        /* AArch64: the PPTT's (app/cpus_pptt.c), else each CPU's MPIDR_EL1 guess */
        const char *src = s->n ? cs->cpu[s->idx[0]].topo.source : NULL;
        s->topology_source = !src                       ? "each CPU's own CPUID"
                             : !strcmp(src, "PPTT")      ? "the firmware's PPTT"
                             : !strcmp(src, "MPIDR_EL1") ? "each CPU's own MPIDR_EL1"
                                                         : "each CPU's own CPUID";
}

/* Every kind on one ordered pair, in C2C_PASSES passes of a share of the rounds each, the
 * kinds interleaved; the figures of each pass are filtered (c2c_result_pass). */
static status_t measure_pair(struct c2c_run *s, unsigned a, unsigned b, struct c2c_result *r)
{
        unsigned per_pass = (s->rounds + C2C_PASSES - 1) / C2C_PASSES;
        status_t st;

        memset(n_acc, 0, sizeof(n_acc));
        for (unsigned p = 0; p < C2C_PASSES; p++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        st = measure((enum bench_c2c_kind)k, s->idx[a], s->idx[b], per_pass,
                                     s->chain);
                        if (st != ST_OK)
                                return st;
                        if (!r->prefetchers)
                                r->prefetchers = pf_pair();
                        if (shared.floor_milli &&
                            (!r->floor_milli || shared.floor_milli < r->floor_milli))
                                r->floor_milli = shared.floor_milli;
                        s->n_transfers += (uint64_t)shared.n_done * C2C_LINES;
                        c2c_result_pass(r, (enum bench_c2c_kind)k, shared.ticks_per_line_milli,
                                        shared.concurrent, shared.n_done, acc[k], &n_acc[k]);
                }
        for (unsigned k = 0; k < BENCH_C2C__COUNT; k++)
                c2c_result_set(r, (enum bench_c2c_kind)k, acc[k], n_acc[k]);
        return ST_OK;
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
                        status_t st;

                        *r = (struct c2c_result){ .owner_cpu = s->idx[a], .reader_cpu = s->idx[b],
                                                  .owner_apic = s->cpu[a].apic_id,
                                                  .reader_apic = s->cpu[b].apic_id,
                                                  .cls = s->pair[p].cls, .known_class = true,
                                                  .keep_all = s->emulated };
                        if ((st = measure_pair(s, a, b, r)) != ST_OK) {
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

        return plat_wallclock(&t) == ST_OK && rep_lat_date_utc(&t, buf, n) ? buf : NULL;
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
        json_str(&w, "schema", "pmucal.c2c/1.3");
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
        json_u64(&w, "passes", C2C_PASSES);
        json_str(&w, "floor", s->floor_name);
        json_u64(&w, "floor_bytes", s->floor_chain ? s->floor_lines * 64 : 0);
        json_str(&w, "prefetchers_asked", s->pf_off ? "off" : "as found");
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
        rep_check(failed == 0, "%zu of %zu ordered pairs measured (hit, hitm, write, atomic, "
                  "pingpong; %u rounds each in %u passes), %u topology class%s", s->n_res,
                  2 * s->n_pairs, s->rounds, C2C_PASSES, n_cls, n_cls == 1 ? "" : "es");
        c2c_report_rejects(s->res, s->n_res, emulated);
        if (emulated)
                rep_info("the CPU is emulated (QEMU TCG): these are the emulator's "
                         "figures for a line moving between vCPUs, not a cache's");
}

status_t phase_c2c(struct run *r)
{
        struct c2c_run *s        = &run_state;
        bool            emulated = app_cpus_emulated(r);
        uint64_t        tsc_hz   = r->inv ? r->inv->tsc_hz : 0;
        struct bench_chase_buf xfer = { 0 }, floor = { 0 };
        status_t        st;

        if (r->cfg.cpus == CONFIG_CPUS_BSP) {
                rep_skip(REP_SKIP_ENV, "cpus = bsp: a transfer needs two processors");
                return ST_OK;
        }
        if ((st = app_cpus_park(r)) != ST_OK)
                return st;
        gather_cpus(s);
        if (s->n < 2) {
                app_cpus_release();
                rep_skip(REP_SKIP_ENV, "%u processor%s take%s part: a transfer needs two", s->n,
                         s->n == 1 ? "" : "s", s->n == 1 ? "s" : "");
                return ST_OK;
        }
        st = c2c_pairs_plan(s->cpu, s->n, C2C_ALL_UP_TO, C2C_PER_CLASS, s->pair,
                            C2C_MAX_PAIRS, &s->n_pairs);
        struct bench_chase_buf_cfg xc = {
                .bytes = C2C_LINES * 64, .page = PLAT_PAGE_4K,
                .chain = { .layout = BENCH_LAYOUT_RANDOM, .seed = C2C_SEED } };
        if (st == ST_OK)
                st = bench_chase_buf_create(&xfer, &xc);
        if (st != ST_OK) {
                app_cpus_release();
                return rep_err(st, "planning pairs and laying the chain");
        }
        s->chain = xfer.start;
        /* The reader's own hit: a chain between its L1D and L2 (its own L2 hit) where CPUID or
         * the PPTT gave the sizes, else the transfer chain itself (its L1 hit). Not under an
         * emulator, which models no caches. */
        const struct cpu_topology *t0p = &app_cpus_get()->cpu[s->idx[0]].topo;
        size_t floor_bytes = c2c_floor_bytes(t0p->cache_bytes[0], t0p->cache_bytes[1],
                                             C2C_FLOOR_MAX, C2C_LINES * 64, &s->floor_name);
        struct bench_chase_buf_cfg fc = {
                .bytes = floor_bytes, .page = PLAT_PAGE_4K,
                .chain = { .layout = BENCH_LAYOUT_RANDOM, .seed = C2C_SEED + 1 } };
        s->floor_chain = NULL;
        s->emulated    = emulated;
        s->pf_off      = r->cfg.prefetchers == CONFIG_PREFETCH_OFF;
        s->cpu_info    = r->inv ? &r->inv->cpu : NULL;
        if (!emulated && bench_chase_buf_create(&floor, &fc) == ST_OK) {
                s->floor_chain = floor.start;
                s->floor_lines = floor.n_lines;
        } else {
                s->floor_name = NULL;
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
                rep_info("cost: %zu ordered pairs x %u kinds x %u rounds of %u lines: %llu "
                         "transfers, %llu ms", s->n_res, BENCH_C2C__COUNT, s->rounds, C2C_LINES,
                         (unsigned long long)s->n_transfers,
                         (unsigned long long)((bench_c2c_clock() - t0) * 1000 / tsc_hz));
        app_cpus_release();
        bench_chase_buf_destroy(&xfer);
        bench_chase_buf_destroy(&floor);
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
