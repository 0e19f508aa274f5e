/** @file
 * `pmucal-host --c2c`: cache-to-cache latency between every ordered pair of the CPUs this
 * process may run on, with the kernels of bench/c2c.h on two pinned threads and the analysis
 * of report/c2c.h, as the firmware measures them: every kind in passes, the windows that were
 * not concurrent or faster than the reader's own L2 hit left out, each side's hardware
 * prefetchers off where the config says so and the MSR driver lets us (restored after). The
 * topology class of each pair comes from Linux's view of the machine
 * (/sys/devices/system/cpu/cpuN/topology, cache/index2 and index3/shared_cpu_list: an L2
 * shared by several cores is a module). Writes DIR/c2c.json and prints the class table and
 * the HITM matrix (options: host/host_args.c).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/chase_buf.h"
#include "bench/window.h"
#include "boot/linux/linux_plat.h"
#include "boot/prefetch.h"
#include "boot/x86/cpuid.h"
#include "boot/x86/msr.h"
#include "boot/x86/topology.h"
#include "host/host.h"
#include "host/host_args.h"
#include "report/c2c.h"
#include "report/json.h"
#include "report/lattable_numa.h"
#include "report/rep.h"

#define MAX_CPUS     64u
#define C2C_LINES    256u   /* 16 KiB: fits the owner's L1/L2, one lap per round */
#define C2C_SEED     0xc2c
#define C2C_FILE     "c2c.json"
#define FLOOR_MAX    (256u * 1024)

struct side {
        unsigned              cpu;
        struct bench_c2c     *c;
        status_t              st;
        struct bench_prefetch pf;
};

/* What every measurement of the run shares. */
static struct {
        struct cpu_info info;
        bool            info_ok;
        bool            pf_off;
        void           *floor_chain;
        size_t          floor_lines;
        size_t          floor_bytes;    /* 0: no floor measured */
        const char     *floor_name;
} run;

static status_t console_sink(void *ctx, const char *s, size_t n)
{
        (void)ctx;
        fwrite(s, 1, n, stdout);
        return ST_OK;
}

static long sysfs_long(unsigned cpu, const char *leaf)
{
        char  path[160];
        long  v = -1;
        FILE *f;

        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/%s", cpu, leaf);
        if ((f = fopen(path, "r"))) {
                if (fscanf(f, "%ld", &v) != 1)
                        v = -1;
                fclose(f);
        }
        return v;
}

/* How many CPUs a sysfs CPU list ("0-3,8,10-11") names; 0 when unreadable. */
static unsigned list_count(unsigned cpu, const char *leaf)
{
        char     path[160], text[1024];
        unsigned n = 0;
        FILE    *f;

        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/%s", cpu, leaf);
        if (!(f = fopen(path, "r")))
                return 0;
        if (!fgets(text, sizeof(text), f))
                text[0] = 0;
        fclose(f);
        for (char *p = text; *p && *p != '\n';) {
                char         *e;
                unsigned long a = strtoul(p, &e, 10), b = a;
                if (e == p)
                        break;
                if (*e == '-')
                        b = strtoul(e + 1, &e, 10);
                n += b >= a ? (unsigned)(b - a + 1) : 0;
                p = *e == ',' ? e + 1 : e;
        }
        return n;
}

/* Topology from sysfs; false when Linux does not say. The L3 domain is the first CPU of the
 * L3's shared_cpu_list; an L2 shared by more CPUs than the core's threads makes a module
 * (x86 hybrid E-cores), as does a cluster (Arm, topology/cluster_id) smaller than the
 * package. */
static bool topology(unsigned cpu, struct c2c_cpu *out)
{
        long pkg  = sysfs_long(cpu, "topology/physical_package_id");
        long core = sysfs_long(cpu, "topology/core_id");
        long l3   = sysfs_long(cpu, "cache/index3/shared_cpu_list");
        long l2   = sysfs_long(cpu, "cache/index2/shared_cpu_list");
        long cl   = sysfs_long(cpu, "topology/cluster_id");
        unsigned n_smt = list_count(cpu, "topology/thread_siblings_list");
        unsigned n_l2  = list_count(cpu, "cache/index2/shared_cpu_list");
        unsigned n_cl  = list_count(cpu, "topology/cluster_cpus_list");
        unsigned n_pkg = list_count(cpu, "topology/core_siblings_list");

        *out = (struct c2c_cpu){ .apic_id = cpu };
        if (pkg < 0 || core < 0)
                return false;
        out->package   = (uint32_t)pkg;
        out->core      = (uint32_t)(pkg << 16 | core);
        out->l3_domain = l3 < 0 ? (uint32_t)pkg << 16 : (uint32_t)l3;
        out->no_l3     = l3 < 0;
        if (l2 >= 0 && n_smt && n_l2 > n_smt) {
                out->group   = C2C_GROUP_MODULE;
                out->cluster = (uint32_t)l2;
        } else if (cl >= 0 && n_cl > (n_smt ? n_smt : 1) && n_cl < n_pkg) {
                out->group   = C2C_GROUP_CLUSTER;
                out->cluster = (uint32_t)(pkg << 16 | cl);
        }
        return true;
}

/* Each side with its prefetchers off (where documented and the MSR driver lets us) on the CPU
 * it is pinned to: the MSR accessors follow the calling thread's CPU. */
static void run_side(void (*fn)(void *), struct bench_c2c *c, struct bench_prefetch *pf)
{
        bench_c2c_side(fn, c, run.info_ok ? &run.info : NULL, run.pf_off, pf);
}

static void *owner_main(void *arg)
{
        struct side *s = arg;

        if ((s->st = linux_plat_pin_cpu(s->cpu)) != ST_OK) {
                s->c->aborted = 1;
                return NULL;
        }
        run_side(bench_c2c_owner, s->c, &s->pf);
        return NULL;
}

/* One kind on one ordered pair; the calling thread is the reader. */
static status_t measure(struct bench_c2c *c, void *chain, enum bench_c2c_kind kind,
                        unsigned owner, unsigned reader, unsigned rounds, const char **pf)
{
        struct side           o = { .cpu = owner, .c = c };
        struct bench_prefetch rp;
        pthread_t             t;
        status_t              st;

        if ((st = bench_c2c_init(c, kind, chain, C2C_LINES, 64, rounds)) != ST_OK)
                return st;
        c->floor_chain = run.floor_chain;
        c->floor_lines = run.floor_lines;
        if ((st = linux_plat_pin_cpu(reader)) != ST_OK)
                return st;
        if (pthread_create(&t, NULL, owner_main, &o))
                return ST_NO_MEM;
        run_side(bench_c2c_reader, c, &rp);
        pthread_join(t, NULL);
        *pf = o.pf.state == rp.state ? bench_prefetch_state_name(rp.state) : "mixed";
        if (o.st != ST_OK)
                return o.st;
        return c->reader_status != ST_OK ? c->reader_status : c->owner_status;
}

static cpu_set_t saved_set;
static bool      saved_valid;

void host_c2c_save_cpus(void)
{
        saved_valid = !sched_getaffinity(0, sizeof(saved_set), &saved_set);
}

/* The CPUs this process may run on: as host_c2c_save_cpus() found them (before the sweep
 * pinned the thread), else now. */
static unsigned allowed_cpus(unsigned *cpus)
{
        cpu_set_t set;
        unsigned  n = 0;

        if (saved_valid)
                set = saved_set;
        else if (sched_getaffinity(0, sizeof(set), &set))
                return 0;
        for (unsigned i = 0; i < CPU_SETSIZE && n < MAX_CPUS; i++)
                if (CPU_ISSET(i, &set))
                        cpus[n++] = i;
        return n;
}

static uint64_t measure_tsc_hz(unsigned cpu)
{
        static struct cpuid_dump dump;
        struct bench_clock       clk;

        linux_plat_pin_cpu(cpu);
        cpuid_dump_collect(&dump);
        if (cpu_decode(&dump, &run.info) != ST_OK)
                return 0;
        run.info_ok = true;
        bench_clock_init(&clk, &run.info, 100000, NULL);
        return clk.tsc_hz;
}

/* Every kind on one ordered pair in C2C_PASSES passes (kinds interleaved), filtered. */
static status_t measure_pair(struct bench_c2c *c, void *chain, unsigned owner, unsigned reader,
                             unsigned rounds, struct c2c_result *r)
{
        static uint64_t acc[BENCH_C2C__COUNT][C2C_PASSES * BENCH_C2C_MAX_ROUNDS];
        size_t          n_acc[BENCH_C2C__COUNT] = { 0 };
        unsigned        per_pass = (rounds + C2C_PASSES - 1) / C2C_PASSES;
        status_t        st;

        for (unsigned p = 0; p < C2C_PASSES; p++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        const char *pf = NULL;
                        if ((st = measure(c, chain, (enum bench_c2c_kind)k, owner, reader,
                                          per_pass, &pf)) != ST_OK)
                                return rep_err(st, "c2c: %s, CPU %u -> CPU %u",
                                               bench_c2c_kind_name(k), owner, reader);
                        if (!r->prefetchers)
                                r->prefetchers = pf;
                        if (c->floor_milli && (!r->floor_milli || c->floor_milli < r->floor_milli))
                                r->floor_milli = c->floor_milli;
                        c2c_result_pass(r, (enum bench_c2c_kind)k, c->ticks_per_line_milli,
                                        c->concurrent, c->n_done, acc[k], &n_acc[k]);
                }
        for (unsigned k = 0; k < BENCH_C2C__COUNT; k++)
                c2c_result_set(r, (enum bench_c2c_kind)k, acc[k], n_acc[k]);
        return ST_OK;
}

static status_t run_pairs(const unsigned *cpus, unsigned n, unsigned rounds, void *chain,
                          struct c2c_result *res, size_t *n_res)
{
        static struct bench_c2c c;
        struct c2c_cpu          topo[MAX_CPUS];
        bool                    known[MAX_CPUS];
        status_t                st;

        for (unsigned i = 0; i < n; i++)
                known[i] = topology(cpus[i], &topo[i]);
        *n_res = 0;
        for (unsigned a = 0; a < n; a++)
                for (unsigned b = 0; b < n; b++) {
                        struct c2c_result *r = &res[*n_res];

                        if (a == b)
                                continue;
                        *r = (struct c2c_result){ .owner_cpu = cpus[a], .reader_cpu = cpus[b],
                                                  .owner_apic = topo[a].apic_id,
                                                  .reader_apic = topo[b].apic_id,
                                                  .known_class = known[a] && known[b] };
                        if (r->known_class)
                                r->cls = c2c_pair_class(&topo[a], &topo[b]);
                        if ((st = measure_pair(&c, chain, cpus[a], cpus[b], rounds, r)) != ST_OK)
                                return st;
                        (*n_res)++;
                }
        return ST_OK;
}

static status_t write_json(const struct c2c_result *r, size_t n, uint64_t tsc_hz,
                           unsigned rounds, unsigned n_cpus)
{
        struct rep_buf b = { 0 };
        struct json_w  w;
        char           date[32];
        time_t         now = time(NULL);
        status_t       st;

        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.c2c/1.2");
        json_obj_begin(&w, "method");
        json_str(&w, "platform", plat_info()->name);
        json_str(&w, "date", date);
        json_str(&w, "clock", "tsc");
        json_u64_or_null(&w, "tsc_hz", tsc_hz);
        json_u64(&w, "lines", C2C_LINES);
        json_u64(&w, "rounds", rounds);
        json_u64(&w, "n_cpus", n_cpus);
        json_u64(&w, "n_pairs_planned", (uint64_t)n_cpus * (n_cpus - 1) / 2);
        json_str(&w, "pair_plan", "every pair");
        json_str(&w, "topology_source", "linux sysfs");
        json_bool(&w, "emulated", false);
        json_u64(&w, "passes", C2C_PASSES);
        json_str(&w, "floor", run.floor_name);
        json_u64(&w, "floor_bytes", run.floor_bytes);
        json_str(&w, "prefetchers_asked", run.pf_off ? "off" : "as found");
        json_obj_end(&w);
        c2c_json(&w, r, n, tsc_hz);
        json_obj_end(&w);
        st = json_finish(&w);
        if (st == ST_OK)
                st = plat_file_write(C2C_FILE, b.p, b.len);
        rep_buf_free(&b);
        return st;
}

/* Measure every ordered pair of the allowed CPUs, print the tables and write c2c.json.
 * ST_UNSUPPORTED (SKIP printed) with fewer than two CPUs. */
static status_t measure_all(unsigned rounds, bool pf_off, const char *out_shown,
                            struct lat_c2c_in *out)
{
        static struct c2c_result res[MAX_CPUS * (MAX_CPUS - 1)];
        static unsigned          cpus[MAX_CPUS];
        unsigned                 n;
        size_t                   n_res;
        void                    *buf, *chain;
        struct bench_chase_buf   xfer, floor = { 0 };
        status_t                 st;

        if ((n = allowed_cpus(cpus)) < 2) {
                rep_skip(REP_SKIP_ENV, "c2c: needs two CPUs, this process may run on %u", n);
                return ST_UNSUPPORTED;
        }
        buf = aligned_alloc(4096, C2C_LINES * 64);
        struct bench_chase_buf_cfg xc = {
                .bytes = C2C_LINES * 64, .mem = buf,
                .chain = { .layout = BENCH_LAYOUT_RANDOM, .seed = C2C_SEED } };
        if (!buf || bench_chase_buf_create(&xfer, &xc) != ST_OK) {
                free(buf);
                return rep_err(ST_NO_MEM, "c2c: chain of %u lines", C2C_LINES);
        }
        chain = xfer.start;
        uint64_t tsc_hz = measure_tsc_hz(cpus[0]);
        /* the reader's own hit: a chain between L1D and L2 (its own L2 hit) */
        struct cpuid_dump      *dump = calloc(1, sizeof(*dump));
        struct cpu_topology     t = { 0 };
        if (dump) {
                cpuid_dump_collect(dump);
                cpu_topology_decode(dump, &t);
                free(dump);
        }
        size_t floor_bytes = c2c_floor_bytes(t.cache_bytes[0], t.cache_bytes[1], FLOOR_MAX,
                                             C2C_LINES * 64, &run.floor_name);
        void  *floor_buf   = aligned_alloc(4096, floor_bytes);
        struct bench_chase_buf_cfg fc = {
                .bytes = floor_bytes, .mem = floor_buf,
                .chain = { .layout = BENCH_LAYOUT_RANDOM, .seed = C2C_SEED + 1 } };
        run.pf_off = pf_off;
        linux_msr_set_cpu((unsigned)-1); /* the MSR of whichever CPU the thread runs on */
        if (floor_buf && bench_chase_buf_create(&floor, &fc) == ST_OK)
                run.floor_chain = floor.start, run.floor_lines = floor.n_lines,
                run.floor_bytes = floor_bytes;
        else
                run.floor_chain = NULL, run.floor_name = NULL, run.floor_bytes = 0;
        rep_info("c2c: %u CPUs, %u ordered pairs, %u rounds of %u lines each in %u passes, TSC "
                 "%llu Hz, floor %s (%zu KiB chain), prefetchers %s", n, n * (n - 1), rounds,
                 C2C_LINES, C2C_PASSES, (unsigned long long)tsc_hz,
                 run.floor_name ? run.floor_name : "none", floor_bytes / 1024,
                 pf_off ? "off where documented" : "as found");
        st = run_pairs(cpus, n, rounds, chain, res, &n_res);
        free(buf);
        free(floor_buf);
        run.floor_chain = NULL;
        if (st != ST_OK)
                return st;
        c2c_report_rejects(res, n_res, false);
        struct rep_buf b = { 0 };
        if (c2c_text(&b, res, n_res, tsc_hz) == ST_OK)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
        if ((st = write_json(res, n_res, tsc_hz, rounds, n)) != ST_OK)
                return rep_err(st, "c2c: writing %s/%s", out_shown, C2C_FILE);
        rep_info("c2c: wrote %s/%s", out_shown, C2C_FILE);
        *out = (struct lat_c2c_in){ .res = res, .n = n_res, .lines = C2C_LINES,
                                    .rounds = rounds, .n_cpus = n, .pair_plan = "every pair",
                                    .topology_source = "linux sysfs", .tsc_hz = tsc_hz };
        return ST_OK;
}

status_t host_c2c_for_table(const char *out_dir, bool prefetchers_off, struct lat_c2c_in *out)
{
        return measure_all(HOST_C2C_TABLE_ROUNDS, prefetchers_off, out_dir, out);
}

int host_c2c_main(const struct host_opts *o)
{
        struct lat_c2c_in in;
        status_t          st;

        rep_add_sink((struct rep_sink){ .write = console_sink });
        st = measure_all(o->rounds, o->sweep.prefetchers_off, o->out, &in);
        return st == ST_OK || st == ST_UNSUPPORTED ? 0 : 1;
}
