/** @file
 * `pmucal-host --numa`: the firmware's NUMA phase (app/numa.c, app/numa_loaded.c) under Linux.
 * Nodes are Linux's (/sys/devices/system/node: each node's CPUs this process may run on, and
 * the distance table, which is the SLIT); each node's buffers are bound to it with mbind()
 * (MPOL_BIND, strict) and every page's node is read back with move_pages(), the hosted
 * counterpart of checking every page's physical address against SRAT; the chase and the loads
 * run on pinned threads. The kernels (bench/chase_job.h, bench/kernel_load.h), the analysis
 * (report/numa.h, report/loaded.h) and numa-matrix.json are the firmware's. A machine with one
 * node gives a 1 x 1 matrix and says so. Nodes and placement: host/numa_host_nodes.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench/chase_buf.h"
#include "bench/chase_job.h"
#include "bench/kernel_load.h"
#include "boot/linux/linux_plat.h"
#include "boot/x86/cpuid.h"
#include "host/host.h"
#include "host/host_args.h"
#include "host/numa_host.h"
#include "lib/stats.h"
#include "report/json.h"
#include "report/loaded.h"
#include "report/numa.h"
#include "report/numa_out.h"
#include "report/rep.h"

#define NUMA_FILE      "numa-matrix.json"
#define WINDOW_US      400u
#define CHAIN_SEED     0x6e756d61 /* the firmware's */
#define TOL_SLIT_PCT   25u
#define TOL_HMAT_PCT   25u
#define CHASE_TRIES    3u

static const uint32_t delays[] = { LOADED_IDLE, 2048, 512, 128, 32, 8, 0 };


static struct host_numa_node        nodes[NUMA_MAX_NODES];
static unsigned            n_nodes;
static struct acpi_slit    slit;
static bool                have_slit;
static struct numa_matrix  mx;
static struct numa_classes cls;
static uint32_t            pd[NUMA_MAX_NODES];
static struct loaded_curve curves[NUMA_MAX_NODES + 1];
static size_t              n_curves;
static struct bw_matrix    bw;
static struct bench_clock  clk;
static struct bench_guard  guard;
static struct bench_load   loads[MAX_CPUS];
static size_t              ws;

static status_t console_sink(void *ctx, const char *s, size_t n)
{
        (void)ctx;
        fwrite(s, 1, n, stdout);
        return ST_OK;
}

/* One chase on @p cpu through @p chain: p10/p50/p90 in ps (as app/numa.c's numa_chase). */
static status_t chase(unsigned cpu, void *chain, unsigned windows, struct bench_chase_job *j,
                      uint64_t *p10, uint64_t *p50, uint64_t *p90)
{
        uint64_t *out[3] = { p10, p50, p90 };
        unsigned  pct[3] = { 10, 50, 90 };
        status_t  st;

        if ((st = linux_plat_pin_cpu(cpu)) != ST_OK)
                return st;
        /* Hosted, another task's time slice can disturb every window of a job (the guard
         * counts this thread's context switches): tried again, as the sweep re-measures. */
        for (unsigned attempt = 0; attempt < CHASE_TRIES; attempt++) {
                *j = (struct bench_chase_job){ .start = chain, .clock = &clk, .guard = &guard,
                                               .want = windows, .target_us = WINDOW_US };
                bench_chase_job_run(j);
                if (j->st != ST_DISTURBED)
                        break;
        }
        if (j->st != ST_OK)
                return j->st;
        lib_sort_u64(j->lat_mcyc, j->n_kept);
        for (unsigned k = 0; k < 3; k++)
                *out[k] = (uint64_t)((unsigned __int128)lib_pct_nearest_rank(j->lat_mcyc,
                                                                             j->n_kept, pct[k]) *
                                     1000000000ull / clk.tsc_hz);
        return ST_OK;
}

struct loader {
        unsigned           cpu;
        struct bench_load *l;
        pthread_t          t;
        status_t           st;
};

static void *loader_main(void *arg)
{
        struct loader *x = arg;

        if ((x->st = linux_plat_pin_cpu(x->cpu)) == ST_OK)
                bench_load_run(x->l);
        else
                x->l->started = 1; /* do not keep the chaser waiting */
        return NULL;
}

/* Start loaders on @p cpu[0..n) reading slices of node @p mem's load buffer (mem < 0: each its
 * own node's), until @p deadline. Returns how many threads started. */
static unsigned start_loaders(const unsigned *cpu, const unsigned *home, unsigned n, int mem,
                              uint32_t delay, uint64_t deadline, struct loader *x,
                              struct bench_load *lds, unsigned extra)
{
        unsigned sharing[NUMA_MAX_NODES] = { 0 }, slot[NUMA_MAX_NODES] = { 0 }, k;

        if (mem >= 0)
                sharing[mem] = extra; /* slices kept for readers on the calling thread */
        for (unsigned i = 0; i < n; i++)
                sharing[mem < 0 ? home[i] : (unsigned)mem]++;
        for (k = 0; k < n; k++) {
                unsigned b     = mem < 0 ? home[k] : (unsigned)mem;
                size_t   slice = nodes[b].load ? ws / sharing[b] / 64 * 64 : 0;
                if (!slice)
                        break;
                lds[k] = (struct bench_load){ .buf = nodes[b].load + slot[b]++ * slice,
                                              .bytes = slice, .delay = delay,
                                              .deadline_tsc = deadline };
                x[k] = (struct loader){ .cpu = cpu[k], .l = &lds[k] };
                if (pthread_create(&x[k].t, NULL, loader_main, &x[k]))
                        break;
        }
        for (unsigned i = 0; i < k; i++)
                while (!__atomic_load_n(&lds[i].started, __ATOMIC_ACQUIRE))
                        sched_yield();
        return k;
}

/* Join the loaders and add up what they read: MB/s. *@p early: one stopped before @p t. */
static status_t join_loaders(struct loader *x, unsigned n, uint64_t t, uint64_t *mb_s,
                             bool *early)
{
        status_t st = ST_OK;

        *mb_s  = 0;
        *early = false;
        for (unsigned i = 0; i < n; i++) {
                const struct bench_load *l = x[i].l;
                pthread_join(x[i].t, NULL);
                if (x[i].st != ST_OK)
                        st = x[i].st;
                if (l->t_end > l->t_start)
                        *mb_s += (uint64_t)((unsigned __int128)l->bytes_read * clk.tsc_hz /
                                            (l->t_end - l->t_start) / 1000000u);
                *early |= l->t_end < t;
        }
        return st;
}

static uint64_t ticks(uint32_t us)
{
        return (uint64_t)((unsigned __int128)clk.tsc_hz * us / 1000000u);
}

/* The CPUs of node @p k (every node for k < 0) with each one's node. */
static unsigned node_cpus(int k, unsigned *cpu, unsigned *home)
{
        unsigned n = 0;

        for (unsigned i = 0; i < n_nodes; i++)
                for (unsigned c = 0; (k < 0 || (unsigned)k == i) && c < nodes[i].n_cpus &&
                                     n < MAX_CPUS; c++) {
                        cpu[n]    = nodes[i].cpu[c];
                        home[n++] = i;
                }
        return n;
}

/* The curve of node @p k (every node when k < 0): the first CPU chases its node's chain while
 * the others load at each injection rate. False with fewer than two CPUs. */
static bool curve(int k, unsigned windows, uint32_t load_us, unsigned *failed, unsigned *early)
{
        static unsigned        cpu[MAX_CPUS], home[MAX_CPUS];
        static struct loader   x[MAX_CPUS];
        struct bench_chase_job j;
        unsigned               n = node_cpus(k, cpu, home);

        if (n < 2 || !nodes[home[0]].chain)
                return false;
        struct loaded_curve *c = &curves[n_curves++];
        *c = (struct loaded_curve){ .node = k, .n_points = ARRAY_SIZE(delays),
                                    .chaser_apic = cpu[0] };
        for (unsigned q = 0; q < ARRAY_SIZE(delays); q++) {
                struct loaded_point *p = &c->pt[q];
                unsigned             started = 0;
                bool                 e = false;
                status_t             st;

                *p = (struct loaded_point){ .delay = delays[q],
                                            .n_loaders = delays[q] == LOADED_IDLE ? 0 : n - 1 };
                if (delays[q] != LOADED_IDLE)
                        started = start_loaders(cpu + 1, home + 1, n - 1, -1, delays[q],
                                                bench_load_now() + ticks(load_us), x, loads, 0);
                st = started == p->n_loaders ? chase(cpu[0], nodes[home[0]].chain, windows, &j,
                                                     &p->p10_ps, &p->p50_ps, &p->p90_ps)
                                             : ST_NO_MEM;
                if (started) {
                        status_t st2 = join_loaders(x, started, bench_load_now(), &p->bw_mb_s, &e);
                        st = st == ST_OK ? st2 : st;
                }
                p->measured = st == ST_OK;
                if (st != ST_OK) {
                        rep_err(st, "loaded latency, %s %d, delay %u", k < 0 ? "all nodes" : "node",
                                k, delays[q]);
                        (*failed)++;
                }
                *early += e;
        }
        return true;
}

/* Every CPU of node @p i reading node @p j's load buffer at full speed: the first on this
 * thread, the others on pinned threads. */
static status_t bw_cell(unsigned i, unsigned j, uint32_t load_us)
{
        static unsigned      cpu[MAX_CPUS], home[MAX_CPUS];
        static struct loader x[MAX_CPUS];
        unsigned             n = node_cpus((int)i, cpu, home), started;
        uint64_t             deadline = bench_load_now() + ticks(load_us), mb0 = 0, rest = 0;
        bool                 early;
        status_t             st;

        bw.n_readers[i] = n;
        if (!n || !nodes[j].load)
                return ST_OK;
        started = start_loaders(cpu + 1, home + 1, n - 1, (int)j, 0, deadline, x + 1, loads + 1, 1);
        size_t slice = ws / n / 64 * 64; /* the last slice: start_loaders kept it */
        loads[0] = (struct bench_load){ .buf = nodes[j].load + (size_t)(n - 1) * slice,
                                        .bytes = slice, .deadline_tsc = deadline };
        if ((st = linux_plat_pin_cpu(cpu[0])) == ST_OK)
                bench_load_run(&loads[0]);
        if (loads[0].t_end > loads[0].t_start)
                mb0 = (uint64_t)((unsigned __int128)loads[0].bytes_read * clk.tsc_hz /
                                 (loads[0].t_end - loads[0].t_start) / 1000000u);
        status_t st2 = join_loaders(x + 1, started, 0, &rest, &early);
        bw.mb_s[i][j]     = mb0 + rest;
        bw.measured[i][j] = st == ST_OK && st2 == ST_OK && started == n - 1;
        return bw.measured[i][j] ? ST_OK : st != ST_OK ? st : ST_NO_MEM;
}

static status_t write_json(unsigned windows)
{
        struct rep_buf b = { 0 };
        struct json_w  w;
        char           date[32];
        time_t         now = time(NULL);
        status_t       st;

        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.numa/1.1");
        json_obj_begin(&w, "method");
        json_str(&w, "clock", "tsc");
        json_u64(&w, "tsc_hz", clk.tsc_hz);
        json_str(&w, "date", date);
        json_u64(&w, "working_set_bytes", ws);
        json_str(&w, "layout", "random");
        json_u64(&w, "windows", windows);
        json_u64(&w, "slit_tolerance_pct", TOL_SLIT_PCT);
        json_u64(&w, "hmat_tolerance_pct", TOL_HMAT_PCT);
        json_bool(&w, "emulated", false);
        json_str(&w, "placement", "mbind");
        json_obj_end(&w);
        json_arr_begin(&w, "nodes");
        for (unsigned k = 0; k < n_nodes; k++) {
                json_obj_begin(&w, NULL);
                json_u64(&w, "node", k);
                json_u64(&w, "proximity_domain", pd[k]);
                if (nodes[k].n_cpus)
                        json_u64(&w, "cpu_apic_id", nodes[k].cpu[0]);
                else
                        json_null(&w, "cpu_apic_id");
                json_null(&w, "buffer_phys");
                json_str_or_null(&w, "placement_error", nodes[k].why[0] ? nodes[k].why : NULL);
                json_u64(&w, "pages_checked", nodes[k].pages_checked);
                json_obj_end(&w);
        }
        json_arr_end(&w);
        numa_json(&w, &mx, &cls, pd, clk.tsc_hz);
        loaded_json(&w, curves, n_curves, &bw, pd);
        json_obj_end(&w);
        st = json_finish(&w);
        if (st == ST_OK)
                st = plat_file_write(NUMA_FILE, b.p, b.len);
        rep_buf_free(&b);
        return st;
}

/* Buffers and chains on every node; how many were placed. */
static unsigned place_all(void)
{
        unsigned n = 0, checked;

        for (unsigned k = 0; k < n_nodes; k++) {
                struct host_numa_node     *h  = &nodes[k];
                struct bench_chase_buf     cb;
                struct bench_chase_buf_cfg cc = {
                        .bytes = ws,
                        .chain = { .layout = BENCH_LAYOUT_RANDOM, .seed = CHAIN_SEED ^ k } };

                h->why[0] = '\0';
                if (!(h->buf = host_numa_place(h->id, ws, n_nodes, &h->pages_checked, h->why,
                                               sizeof(h->why))))
                        continue;
                cc.mem = h->buf; /* the node's block: the placement keeps and frees it */
                if (bench_chase_buf_create(&cb, &cc) != ST_OK) {
                        snprintf(h->why, sizeof(h->why), "no chain of %zu bytes", ws);
                        continue;
                }
                h->chain = cb.start;
                h->load = host_numa_place(h->id, ws, n_nodes, &checked, h->why, sizeof(h->why));
                rep_printf("numa: node %u (Linux node %u): %u CPU%s, chaser CPU %d; buffers of %zu "
                           "MiB bound with mbind, %u pages each read back on the node%s%s\n", k,
                           h->id, h->n_cpus, h->n_cpus == 1 ? "" : "s",
                           h->n_cpus ? (int)h->cpu[0] : -1, ws >> 20, h->pages_checked,
                           h->why[0] ? "; loaders' buffer: " : "", h->why);
                n++;
        }
        return n;
}

static unsigned measure_matrix(unsigned windows, unsigned *n_tried)
{
        struct bench_chase_job j;
        unsigned               failed = 0;

        memset(&mx, 0, sizeof(mx));
        mx.n_nodes = n_nodes;
        *n_tried   = 0;
        for (unsigned i = 0; i < n_nodes; i++)
                for (unsigned k = 0; k < n_nodes; k++) {
                        struct numa_cell *c = &mx.cell[i][k];
                        if (!nodes[i].n_cpus || !nodes[k].chain)
                                continue;
                        (*n_tried)++;
                        status_t st = chase(nodes[i].cpu[0], nodes[k].chain, windows, &j,
                                            &c->p10_ps, &c->p50_ps, &c->p90_ps);
                        c->measured = st == ST_OK;
                        if (st != ST_OK) {
                                failed++;
                                rep_err(st, "CPU %u on node %u, memory on node %u",
                                        nodes[i].cpu[0], i, k);
                        }
                }
        return failed;
}

static void loaded(unsigned windows, uint32_t load_us)
{
        unsigned failed = 0, early = 0, n_points;
        struct rep_buf b = { 0 };

        n_curves = 0;
        bw       = (struct bw_matrix){ .n_nodes = n_nodes };
        for (unsigned k = 0; k < n_nodes; k++)
                curve((int)k, windows, load_us, &failed, &early);
        if (n_nodes > 1)
                curve(-1, windows, load_us, &failed, &early);
        if (!n_curves) {
                rep_skip(REP_SKIP_ENV, "loaded latency: no node has two CPUs this process may run "
                         "on");
                return;
        }
        for (unsigned i = 0; i < n_nodes; i++)
                for (unsigned k = 0; k < n_nodes; k++) {
                        status_t st = bw_cell(i, k, load_us);
                        if (st != ST_OK) {
                                rep_err(st, "bandwidth, node %u reading node %u", i, k);
                                failed++;
                        }
                }
        if (loaded_text(&b, curves, n_curves, &bw) == ST_OK && b.p)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
        n_points = (unsigned)(n_curves * ARRAY_SIZE(delays));
        rep_check(failed == 0, "loaded latency: %zu curve%s, %u of %u points measured, "
                  "bandwidth matrix %ux%u", n_curves, n_curves == 1 ? "" : "s",
                  n_points - (failed < n_points ? failed : n_points), n_points, n_nodes, n_nodes);
        if (early)
                rep_warn("loaded latency: %u point%s where the loads ended before the chase did",
                         early, early == 1 ? "" : "s");
}

/* The firmware's working set: four times the largest cache, 64 MiB .. 1 GiB. */
static unsigned default_ws_mib(const struct cpu_info *cpu)
{
        uint64_t big = 0, mib;

        for (size_t i = 0; i < cpu->n_caches; i++)
                if (cpu->caches[i].size_bytes > big)
                        big = cpu->caches[i].size_bytes;
        mib = big * 4 >> 20;
        return mib < 64 ? 64 : mib > 1024 ? 1024 : (unsigned)mib;
}

int host_numa_main(const struct host_opts *o)
{
        static struct cpuid_dump dump;
        static struct cpu_info   cpu;
        struct rep_buf           b = { 0 };
        unsigned                 n_tried, failed;
        status_t                 st;

        rep_add_sink((struct rep_sink){ .write = console_sink });
        n_nodes = host_numa_read_nodes(nodes, pd, &slit, &have_slit);
        if (!nodes[0].n_cpus && n_nodes == 1)
                return rep_err(ST_NOT_FOUND, "numa: no CPU this process may run on"), 1;
        linux_plat_pin_cpu(nodes[0].n_cpus ? nodes[0].cpu[0] : 0);
        cpuid_dump_collect(&dump);
        if (cpu_decode(&dump, &cpu) != ST_OK)
                return rep_err(ST_BAD_DATA, "numa: CPUID"), 1;
        bench_clock_init(&clk, &cpu, 100000, NULL);
        clk.core = (struct bench_core_src){ 0 }; /* TSC only, as the firmware's matrix */
        clk.core_hz = clk.tsc_hz;
        bench_guard_init(&guard, &cpu);
        guard.steal_count = linux_plat_ctx_switches;
        ws = (size_t)(o->numa_ws_mib ? o->numa_ws_mib : default_ws_mib(&cpu)) << 20;
        /* Linux's distance files are read in node order: the SLIT built from them is indexed
         * by node position, not by node ID (pd_of_node NULL). */
        if (numa_classes_from_slit(have_slit ? &slit : NULL, n_nodes, NULL, &cls) != ST_OK)
                numa_classes_from_slit(NULL, n_nodes, NULL, &cls);
        rep_info("numa: %u node%s (Linux's; distances %s), %zu MiB random chase per cell, %u "
                 "windows per cell, TSC %llu Hz", n_nodes, n_nodes == 1 ? "" : "s",
                 have_slit ? "from /sys/devices/system/node" : "unknown: one remote class",
                 ws >> 20, o->numa_windows, (unsigned long long)clk.tsc_hz);
        place_all();
        failed = measure_matrix(o->numa_windows, &n_tried);
        numa_matrix_check(&mx, have_slit ? &slit : NULL, NULL, NULL,
                          &(struct numa_tolerance){ TOL_SLIT_PCT, TOL_HMAT_PCT });
        if (numa_text(&b, &mx, &cls, clk.tsc_hz) == ST_OK && b.p)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
        rep_check(n_tried > 0 && failed == 0, "numa: %u of %u cells measured (%u node%s, "
                  "p10/p50/p90 each)", n_tried - failed, n_tried, n_nodes, n_nodes == 1 ? "" : "s");
        if (n_nodes == 1)
                rep_info("numa: one node: the matrix is 1 x 1 (local DRAM only)");
        rep_info("numa: no HMAT under Linux here: absolute latencies not compared");
        loaded(o->numa_windows, o->numa_load_ms * 1000u);
        for (unsigned k = 0; k < n_nodes; k++) {
                if (nodes[k].buf)
                        munmap(nodes[k].buf, ws);
                if (nodes[k].load)
                        munmap(nodes[k].load, ws);
        }
        if ((st = write_json(o->numa_windows)) != ST_OK)
                return rep_err(st, "numa: writing %s/%s", o->out, NUMA_FILE), 1;
        rep_info("numa: wrote %s/%s", o->out, NUMA_FILE);
        return n_tried > 0 && failed == 0 ? 0 : 1;
}
