/** @file
 * Loaded latency and the bandwidth matrix (part of the NUMA phase; see app/numa_priv.h).
 *
 * A curve: one processor chases its node's chain (the latency matrix's buffer) while the
 * other processors of the node, or of every node, stream reads through slices of a second
 * buffer on their own node (bench/kernel_load.h), at injection rates from idle through
 * delay loops to full speed. Each point gives the chase's p10/p50/p90 and the bandwidth the
 * loaders achieved: latency against GB/s, per node and with every node loaded. The loaders run
 * until a TSC deadline set well past the chase, so no stop message is needed; a point whose
 * loaders stopped before the chase finished is flagged. The bandwidth matrix: every processor
 * of node i reads slices of node j's load buffer at full speed.
 *
 * Under QEMU TCG the vCPUs take turns on one host thread, so the loaders and the chase barely
 * overlap: the figures are the emulator's, said as INFO.
 */
#include "app/numa_priv.h"

#include "app/cpus.h"
#include "bench/kernel_load.h"
#include "boot/spin.h"
#include "lib/fmt.h"
#include "report/inventory.h"

#define LOAD_US          20000u     /* loaders run this long per point on hardware */
#define LOAD_US_EMULATED 300000u    /* vCPUs take turns in slices of ~100 ms under TCG */
#define START_SPINS      (1u << 26) /* a loader that has not begun by then is late */
#define LINE             64u

static const uint32_t delays[] = { LOADED_IDLE, 2048, 512, 128, 32, 8, 0 };

static struct bench_load      loads[MP_MAX_CPUS];
static struct bench_chase_job chase_job;

/* The taking-part processors of node @p k (every node for k < 0), the BSP first. */
static unsigned node_cpus(const struct numa_run *s, int k, unsigned *out)
{
        const struct app_cpus *cs = app_cpus_get();
        unsigned               n  = 0;

        for (unsigned pass = 0; pass < 2; pass++)
                for (unsigned i = 0; i < cs->n; i++) {
                        const struct app_cpu *c = &cs->cpu[i];
                        bool here = k < 0 || s->n_nodes == 1 ||
                                    (c->node >= 0 && (uint32_t)c->node == s->pd[k]);
                        if (!here || (pass == 0) != (c->state == MP_BSP))
                                continue;
                        if (c->state == MP_BSP || c->state == MP_PARKED)
                                out[n++] = i;
                }
        return n;
}

/* Node index of processor @p cpu; 0 when it has none. */
static unsigned node_of(const struct numa_run *s, unsigned cpu)
{
        const struct app_cpu *c = &app_cpus_get()->cpu[cpu];

        for (unsigned k = 0; k < s->n_nodes; k++)
                if (c->node >= 0 && (uint32_t)c->node == s->pd[k])
                        return k;
        return 0;
}

/* Load descriptors for @p n processors reading node @p mem's load buffer (mem < 0: each its
 * own node's), sliced evenly among those that share a buffer. */
static bool setup_loads(struct numa_run *s, const unsigned *cpu, unsigned n, int mem,
                        uint32_t delay, uint64_t deadline)
{
        unsigned sharing[NUMA_MAX_NODES] = { 0 }, slot[NUMA_MAX_NODES] = { 0 };

        for (unsigned i = 0; i < n; i++)
                sharing[mem < 0 ? node_of(s, cpu[i]) : (unsigned)mem]++;
        for (unsigned i = 0; i < n; i++) {
                unsigned                 b  = mem < 0 ? node_of(s, cpu[i]) : (unsigned)mem;
                const struct numa_place *pl = &s->load_place[b];
                size_t slice = pl->bytes / sharing[b] / LINE * LINE;

                if (pl->st != ST_OK || !slice)
                        return false;
                loads[i] = (struct bench_load){ .buf = (const uint8_t *)pl->p + slot[b]++ * slice,
                                                .bytes = slice, .delay = delay,
                                                .deadline_tsc = deadline };
        }
        return true;
}

/* Start the loads on the APs among @p cpu and wait until every one has begun. On failure
 * the calls already made are waited for (they end at their deadline). */
static status_t start_loads(const unsigned *cpu, unsigned n)
{
        status_t st = ST_OK;
        unsigned k;

        for (k = 0; k < n && st == ST_OK; k++)
                if (mp_cpu_state(cpu[k]) != MP_BSP)
                        st = mp_call(cpu[k], bench_load_run, &loads[k]);
        for (unsigned i = 0; i < k && st == ST_OK; i++)
                for (uint32_t spins = 0; mp_cpu_state(cpu[i]) != MP_BSP &&
                                         !__atomic_load_n(&loads[i].started, __ATOMIC_ACQUIRE);
                     spins++) {
                        if (spins == START_SPINS) {
                                st = ST_TIMEOUT;
                                break;
                        }
                        spin_relax();
                }
        if (st != ST_OK)
                for (unsigned i = 0; i < k; i++)
                        if (mp_cpu_state(cpu[i]) != MP_BSP)
                                mp_wait(cpu[i], JOB_TIMEOUT_US);
        return st;
}

static uint64_t ticks(const struct numa_run *s, uint32_t us)
{
        return (uint64_t)((unsigned __int128)s->clock.tsc_hz * us / 1000000u);
}

/* Wait for the loads and add up what they read: MB/s. *@p early: one stopped before @p t. */
static status_t finish_loads(struct numa_run *s, const unsigned *cpu, unsigned n,
                             uint32_t wait_us, uint64_t t, uint64_t *mb_s, bool *early)
{
        status_t st = ST_OK;

        *mb_s = 0;
        *early = false;
        for (unsigned i = 0; i < n; i++) {
                if (mp_cpu_state(cpu[i]) != MP_BSP && mp_wait(cpu[i], wait_us) != ST_OK) {
                        st = ST_TIMEOUT;
                        continue;
                }
                const struct bench_load *l = &loads[i];
                if (l->t_end > l->t_start)
                        *mb_s += (uint64_t)((unsigned __int128)l->bytes_read * s->clock.tsc_hz /
                                            (l->t_end - l->t_start) / 1000000u);
                *early |= l->t_end < t;
        }
        return st;
}

/* One point of a curve: chaser on @p chaser, chain of node @p home, @p cpu[] loading. */
static status_t point(struct numa_run *s, unsigned chaser, unsigned home, const unsigned *cpu,
                      unsigned n, uint32_t delay, uint32_t load_us, struct loaded_point *p,
                      bool *early)
{
        uint64_t deadline = bench_load_now() + ticks(s, load_us);
        status_t st;

        *p     = (struct loaded_point){ .delay = delay, .n_loaders = delay == LOADED_IDLE ? 0 : n };
        *early = false;
        if (delay != LOADED_IDLE) {
                if (!setup_loads(s, cpu, n, -1, delay, deadline))
                        return ST_NOT_FOUND;
                if ((st = start_loads(cpu, n)) != ST_OK)
                        return st;
        }
        st = app_numa_chase(s, chaser, s->chain[home], &chase_job, &p->p10_ps, &p->p50_ps,
                        &p->p90_ps);
        if (delay != LOADED_IDLE) {
                status_t st2 = finish_loads(s, cpu, n, load_us + JOB_TIMEOUT_US,
                                            bench_load_now(), &p->bw_mb_s, early);
                st = st == ST_OK ? st2 : st;
        }
        p->measured = st == ST_OK;
        return st;
}

/* "node 1, delay 512" / "every node, idle": a point of a curve, for the console. */
static void point_name(char *out, size_t len, int k, uint32_t delay)
{
        char node[16];

        if (k < 0)
                fmt_snprintf(node, sizeof(node), "every node");
        else
                fmt_snprintf(node, sizeof(node), "node %d", k);
        if (delay == LOADED_IDLE)
                fmt_snprintf(out, len, "%s, idle (no load)", node);
        else
                fmt_snprintf(out, len, "%s, delay %u", node, delay);
}

/* Keep the chaser @p cpu[0] and the loaders whose node has a load buffer (a node with
 * processors and no memory has none: its processors cannot load their own node); say once
 * which nodes' processors were left out and why. Returns how many remain. */
static unsigned loadable(struct numa_run *s, unsigned *cpu, unsigned n, bool *said)
{
        bool     left[NUMA_MAX_NODES] = { false };
        unsigned m = n ? 1 : 0;

        for (unsigned i = 1; i < n; i++) {
                unsigned b = node_of(s, cpu[i]);
                if (s->load_place[b].st == ST_OK)
                        cpu[m++] = cpu[i];
                else
                        left[b] = true;
        }
        for (unsigned b = 0; b < s->n_nodes && !*said; b++)
                if (left[b])
                        rep_info("loaded latency: the processors of node %u do not load: no "
                                 "buffer on their node (%s)", b, s->load_place[b].why);
        *said = true;
        return m;
}

/* The curve of node @p k (every node when k < 0). False, with the reason said, when there is
 * nothing to chase or to load with. */
static bool curve(struct numa_run *s, int k, uint32_t load_us, unsigned *n_failed,
                  unsigned *n_early)
{
        static unsigned cpu[MP_MAX_CPUS];
        unsigned        n = node_cpus(s, k, cpu);
        unsigned        home = n ? node_of(s, cpu[0]) : 0;
        bool            said = k >= 0;  /* a node's own curve: its buffer is checked below */
        char            name[16];

        if (k < 0)
                fmt_snprintf(name, sizeof(name), "every node");
        else
                fmt_snprintf(name, sizeof(name), "node %d", k);
        if (n && !s->chain[home]) {
                if (k >= 0 || s->n_nodes > 1)
                        rep_info("loaded latency, %s: no curve: node %u, where its chasing "
                                 "processor is, has no buffer (%s)", name, home,
                                 s->place[home].why);
                return false;
        }
        if (k >= 0 && n >= 2 && s->load_place[k].st != ST_OK) {
                rep_info("loaded latency, %s: no curve: no buffer for the loaders (%s)", name,
                         s->load_place[k].why);
                return false;
        }
        n = loadable(s, cpu, n, &said);
        if (n < 2) {
                if (s->n_nodes > 1)
                        rep_info("loaded latency, %s: fewer than two processors taking part "
                                 "that can load: no curve", name);
                return false;
        }
        struct loaded_curve *c = &s->curve[s->n_curves++];
        *c = (struct loaded_curve){ .node = k, .n_points = ARRAY_SIZE(delays),
                                    .chaser_apic = app_cpus_get()->cpu[cpu[0]].fw_apic };
        for (unsigned q = 0; q < ARRAY_SIZE(delays); q++) {
                bool     early;
                status_t st = point(s, cpu[0], home, cpu + 1, n - 1, delays[q], load_us,
                                    &c->pt[q], &early);
                char what[48];
                if (st != ST_OK)
                        point_name(what, sizeof(what), k, delays[q]);
                if (st == ST_DISTURBED) {
                        rep_info("loaded latency, %s: left out, every window disturbed", what);
                        s->n_disturbed++;
                } else if (st != ST_OK) {
                        rep_err(st, "loaded latency, %s", what);
                        (*n_failed)++;
                }
                *n_early += early;
        }
        return true;
}

/* Every processor of node @p i reading node @p j's load buffer at full speed. */
static status_t bw_cell(struct numa_run *s, unsigned i, unsigned j, uint32_t load_us)
{
        static unsigned cpu[MP_MAX_CPUS];
        unsigned        n = node_cpus(s, (int)i, cpu);
        uint64_t        deadline = bench_load_now() + ticks(s, load_us);
        bool            early;
        status_t        st;

        s->bw.n_readers[i] = n;
        if (!n || !setup_loads(s, cpu, n, (int)j, 0, deadline))
                return ST_OK;
        if ((st = start_loads(cpu, n)) != ST_OK)
                return st;
        if (mp_cpu_state(cpu[0]) == MP_BSP)
                bench_load_run(&loads[0]);
        st = finish_loads(s, cpu, n, load_us + JOB_TIMEOUT_US, 0, &s->bw.mb_s[i][j], &early);
        s->bw.measured[i][j] = st == ST_OK;
        return st;
}

static void place_load_buffers(struct numa_run *s, const struct run *r)
{
        for (unsigned k = 0; k < s->n_nodes; k++)
                app_numa_place_pages(r->inv ? r->inv->srat : NULL, s->pd[k], s->ws, s->page,
                                     &s->load_place[k]);
}

static void report(struct numa_run *s, unsigned n_points, unsigned failed, unsigned disturbed,
                   unsigned n_bw_failed, unsigned early, bool emulated)
{
        struct rep_buf b = { 0 };

        if (loaded_text(&b, s->curve, s->n_curves, &s->bw) == ST_OK && b.p)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
        if (!failed && !n_bw_failed && disturbed == n_points)
                rep_skip(REP_SKIP_ENV, "loaded latency: every one of %u points left out: every "
                         "window "
                         "disturbed", n_points);
        else
                rep_check(failed == 0 && n_bw_failed == 0,
                          "loaded latency: %zu curve%s, %u of %u points measured (%u left out "
                          "as disturbed), %u bandwidth cell%s failed", s->n_curves,
                          s->n_curves == 1 ? "" : "s", n_points - failed - disturbed, n_points,
                          disturbed, n_bw_failed, n_bw_failed == 1 ? "" : "s");
        if (emulated) {
                rep_info("loaded latency: the CPU is emulated (QEMU TCG): vCPUs take turns on "
                         "one host thread, so load and chase barely overlap; the emulator's "
                         "figures");
                return;
        }
        if (early)
                rep_warn("loaded latency: %u point%s where the loads ended before the chase did "
                         "(their latency is partly unloaded)", early, early == 1 ? "" : "s");
        for (size_t i = 0; i < s->n_curves; i++) {
                const struct loaded_curve *c = &s->curve[i];
                const struct loaded_point *idle = &c->pt[0], *full = &c->pt[c->n_points - 1];
                if (idle->measured && full->measured)
                        rep_info("loaded latency, %s: %llu ns idle, %llu ns at %llu.%llu GB/s",
                                 c->node < 0 ? "all nodes" : "one node",
                                 (unsigned long long)(idle->p50_ps / 1000),
                                 (unsigned long long)(full->p50_ps / 1000),
                                 (unsigned long long)(full->bw_mb_s / 1000),
                                 (unsigned long long)(full->bw_mb_s % 1000 / 100));
        }
}

void app_numa_loaded(struct numa_run *s, struct run *r, bool emulated)
{
        uint32_t load_us = r->cfg.numa_load_ms ? r->cfg.numa_load_ms * 1000u
                           : emulated          ? LOAD_US_EMULATED
                                               : LOAD_US;
        unsigned failed = 0, early = 0, n_bw_failed = 0, disturbed0 = s->n_disturbed;

        s->n_curves = 0;
        s->bw       = (struct bw_matrix){ .n_nodes = s->n_nodes };
        if (app_cpus_get()->n_taking_part < 2 && r->cfg.cpus == CONFIG_CPUS_BSP) {
                rep_skip(REP_SKIP_ENV, "loaded latency: cpus = bsp: the load needs other "
                         "processors");
                return;
        }
        place_load_buffers(s, r);
        for (unsigned k = 0; k < s->n_nodes; k++)
                curve(s, (int)k, load_us, &failed, &early);
        if (s->n_nodes > 1)
                curve(s, -1, load_us, &failed, &early);
        if (!s->n_curves) {
                rep_skip(REP_SKIP_ENV, "loaded latency: no curve: fewer than two processors take "
                         "part, or none of their nodes has the buffers (see above)");
                return;
        }
        for (unsigned i = 0; i < s->n_nodes; i++)
                for (unsigned j = 0; j < s->n_nodes; j++) {
                        status_t st = bw_cell(s, i, j, load_us);
                        if (st != ST_OK) {
                                rep_err(st, "bandwidth, node %u reading node %u", i, j);
                                n_bw_failed++;
                        }
                }
        report(s, (unsigned)(s->n_curves * ARRAY_SIZE(delays)), failed,
               s->n_disturbed - disturbed0, n_bw_failed, early, emulated);
}

void app_numa_loaded_free(struct numa_run *s)
{
        for (unsigned k = 0; k < s->n_nodes; k++)
                app_numa_unplace(&s->load_place[k]);
}
