/** @file
 * Levels per core type and cache domain: after the BSP's sweep, the latency phase groups the
 * processors that described themselves (app/cpus.h) by core type and cache geometry
 * (report/lattable_sets.h; config level_sets = domains: by last-level-cache domain too) and
 * runs the same sweep once more for every group the BSP is not in, with its windows on one
 * processor of that group through the MP mailboxes (bench_sweep_cfg.run_on): planning,
 * allocation and logging stay on the BSP, the AP only runs chains and windows. Groups that
 * are alike are one set, calibrated once; the table's "core_types" says which APIC IDs and
 * domains each set covers. On most machines (and under QEMU) every processor is alike: one
 * set, no extra sweep.
 */
#include "app/latency_sets.h"

#include "app/cpus.h"
#include "report/inventory.h"

#define POINT_TIMEOUT_US (60u * 1000 * 1000) /* one point's windows, emulated DRAM included */
#define CLOCK_CALIB_US   5000u

/* What the extra sweeps cost, for the cost line make bench reads. */
static struct {
        unsigned n_sweeps;
        size_t   n_points;
        uint64_t ms;
} cost;

struct on_cpu {
        unsigned idx;
        bool     lost;
};

/* bench_sweep_cfg.run_on: the work on the parked AP, waiting for it. */
static status_t run_on_ap(void *ctx, void (*fn)(void *arg), void *arg)
{
        struct on_cpu *o = ctx;
        status_t       st;

        if (o->lost)
                return ST_TIMEOUT;
        if ((st = mp_run(o->idx, fn, arg, POINT_TIMEOUT_US)) != ST_OK)
                o->lost = true;
        return st;
}

/* The processors that took part and described themselves. */
static size_t gather(struct lat_set_cpu *out)
{
        const struct app_cpus *c = app_cpus_get();
        size_t                 n = 0;

        for (unsigned i = 0; i < c->n && n < LAT_SETS_MAX_CPUS; i++) {
                const struct app_cpu *p = &c->cpu[i];
                if (!p->described || (p->state != MP_BSP && p->state != MP_PARKED))
                        continue;
                out[n++] = (struct lat_set_cpu){ .idx = i, .is_bsp = p->state == MP_BSP,
                                                 .topo = p->topo };
        }
        return n;
}

/* The BSP's CPU description with the set's own cache sizes, so that the sweep's range and
 * the levels' CPUID cross-check follow the caches of the processor that measures. */
static void set_cpu(const struct cpu_info *bsp, const struct lat_set *s, struct cpu_info *out)
{
        *out = *bsp;
        for (size_t i = 0; i < ARRAY_SIZE(out->caches); i++) {
                struct cpu_cache *c = &out->caches[i];
                if (c->level >= 1 && c->level <= TOPO_CACHE_LEVELS && c->type != CACHE_INST &&
                    s->cache_bytes[c->level - 1])
                        c->size_bytes = s->cache_bytes[c->level - 1];
        }
}

static void measure_set(const struct bench_sweep_cfg *base, const struct inventory *inv,
                        struct lat_set *s)
{
        struct on_cpu           on  = { .idx = s->measure_idx };
        struct bench_sweep_cfg  cfg = *base;
        struct bench_sweep_info info;
        struct bench_clock      clk;
        struct lat_curve        curve;
        struct cpu_info        *cpu;

        if (mp_cpu_state(s->measure_idx) != MP_PARKED) {
                s->why_not = "its processor did not park";
                return;
        }
        if (!(cpu = plat_alloc(sizeof(*cpu)))) {
                s->why_not = "no memory";
                return;
        }
        set_cpu(&inv->cpu, s, cpu);
        /* TSC with APERF/MPERF where readable: that source reads the measuring CPU's own
         * MSRs (through its own fault fixup); the BSP's PMU counter would not. */
        bench_clock_init(&clk, cpu, CLOCK_CALIB_US, NULL);
        if (inv->tsc_hz && clk.tsc_hz) {
                clk.core_hz = (uint64_t)((unsigned __int128)clk.core_hz * inv->tsc_hz / clk.tsc_hz);
                clk.tsc_hz  = inv->tsc_hz;
        }
        cfg.clock      = &clk;
        cfg.remap      = NULL; /* the firmware's mapping: own page tables stay the BSP's */
        cfg.remap_ctx  = NULL;
        cfg.run_on     = run_on_ap;
        cfg.run_on_ctx = &on;
        cost.n_sweeps++;
        if (bench_sweep_run(&cfg, cpu, &curve, &info) != ST_OK) {
                s->why_not = on.lost ? "its processor did not answer in time" : "the sweep failed";
        } else {
                cost.n_points += curve.n;
                if (lv_detect(&curve, cpu, &s->lv) != ST_OK)
                        s->why_not = "no levels detected";
                else
                        s->measured = true;
                bench_sweep_free(&curve);
        }
        plat_free(cpu);
}

struct lat_sets *lat_sets_measure(const struct run *r, const struct bench_sweep_cfg *base,
                                  const struct lat_levels *bsp_levels)
{
        static struct lat_set_cpu cpus[LAT_SETS_MAX_CPUS];
        struct lat_sets          *sets;
        size_t                    n = gather(cpus), n_other = 0;

        if (r->cfg.level_sets == CONFIG_SETS_OFF || !n || !r->inv)
                return NULL;
        if (!(sets = plat_alloc(sizeof(*sets))))
                return NULL;
        if (rep_lat_sets_group(cpus, n, r->cfg.level_sets == CONFIG_SETS_DOMAINS ? LAT_SETS_DOMAINS
                                                                             : LAT_SETS_AUTO,
                           sets) != ST_OK) {
                plat_free(sets);
                return NULL;
        }
        for (size_t i = 0; i < sets->n; i++) {
                struct lat_set *s = &sets->set[i];
                if (s->is_bsp_set) {
                        s->lv       = *bsp_levels;
                        s->measured = true;
                } else {
                        n_other++;
                }
        }
        memset(&cost, 0, sizeof(cost));
        if (n_other && app_cpus_park(r) == ST_OK) {
                uint64_t t0 = bench_timer_now();
                for (size_t i = 0; i < sets->n; i++)
                        if (!sets->set[i].is_bsp_set)
                                measure_set(base, r->inv, &sets->set[i]);
                if (base->clock && base->clock->tsc_hz)
                        cost.ms = (bench_timer_now() - t0) * 1000 / base->clock->tsc_hz;
                app_cpus_release();
        }
        for (size_t i = 0; i < sets->n; i++)
                if (!sets->set[i].measured && !sets->set[i].why_not)
                        sets->set[i].why_not = "the processors could not be parked";
        return sets;
}

void lat_sets_report(const struct lat_sets *s)
{
        struct rep_buf b = { 0 };
        unsigned       covered = 0, n_measured = 0, n_ordered = 0, n_other = 0;

        if (!s)
                return;
        if (rep_lat_sets_text(&b, s) == ST_OK && b.p)
                rep_printf("\n%s", b.p);
        rep_buf_free(&b);
        for (size_t i = 0; i < s->n; i++) {
                const struct lat_set *v = &s->set[i];
                covered += v->n_cpus;
                if (v->is_bsp_set)
                        continue;
                n_other++;
                if (!v->measured) {
                        rep_warn("level set %zu (APIC ID %u) not measured: %s", i,
                                 v->measure_apic, v->why_not);
                        continue;
                }
                n_measured++;
                bool ok = v->lv.n >= 1;
                for (size_t k = 0; k + 1 < v->lv.n; k++)
                        ok &= v->lv.lv[k].lat_mcyc.p50 < v->lv.lv[k + 1].lat_mcyc.p50;
                n_ordered += ok;
        }
        rep_check(covered == s->n_cpus && !s->n_left_out,
                  "level sets: %zu set%s cover %u of %u processors, each in one set (%u of "
                  "another kind left out)", s->n, s->n == 1 ? "" : "s", covered, s->n_cpus,
                  s->n_left_out);
        if (!n_other)
                rep_info("level sets: every processor has the BSP's core type and cache "
                         "geometry%s: calibrated once, on the BSP",
                         s->set[0].n_domains > 1 ? " in each LLC domain" : "");
        else if (n_measured)
                rep_check(n_ordered == n_measured, "level sets: %u of %u sets measured on their "
                          "own processor have levels ordered by latency", n_ordered, n_measured);
        if (cost.n_sweeps)
                rep_info("level sets: cost: %u sweep%s on other processors, %zu points, %llu ms",
                         cost.n_sweeps, cost.n_sweeps == 1 ? "" : "s", cost.n_points,
                         (unsigned long long)cost.ms);
}
