/** @file
 * `pmucal-host --c2c`: cache-to-cache latency between every ordered pair of the CPUs this
 * process may run on, with the kernels of bench/c2c.h on two pinned threads and the analysis
 * of report/c2c.h. The topology class of each pair comes from Linux's view of the machine
 * (/sys/devices/system/cpu/cpuN/topology and cache/index3/shared_cpu_list). Writes
 * DIR/c2c.json and prints the class table and the HITM matrix (options: host/host_args.c).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/chain.h"
#include "bench/window.h"
#include "boot/linux/linux_plat.h"
#include "boot/x86/cpuid.h"
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

struct side {
        unsigned           cpu;
        struct bench_c2c  *c;
        status_t           st;
};

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

/* Topology from sysfs; false when Linux does not say. The L3 domain is the first CPU of the
 * L3's shared_cpu_list. */
static bool topology(unsigned cpu, struct c2c_cpu *out)
{
        long pkg  = sysfs_long(cpu, "topology/physical_package_id");
        long core = sysfs_long(cpu, "topology/core_id");
        long l3   = sysfs_long(cpu, "cache/index3/shared_cpu_list");

        *out = (struct c2c_cpu){ .apic_id = cpu };
        if (pkg < 0 || core < 0)
                return false;
        out->package   = (uint32_t)pkg;
        out->core      = (uint32_t)(pkg << 16 | core);
        out->l3_domain = l3 < 0 ? (uint32_t)pkg << 16 : (uint32_t)l3;
        return true;
}

static void *owner_main(void *arg)
{
        struct side *s = arg;

        if ((s->st = linux_plat_pin_cpu(s->cpu)) != ST_OK) {
                s->c->aborted = 1;
                return NULL;
        }
        bench_c2c_owner(s->c);
        return NULL;
}

/* One kind on one ordered pair; the calling thread is the reader. */
static status_t measure(struct bench_c2c *c, void *chain, enum bench_c2c_kind kind,
                        unsigned owner, unsigned reader, unsigned rounds)
{
        struct side o = { .cpu = owner, .c = c };
        pthread_t   t;
        status_t    st;

        if ((st = bench_c2c_init(c, kind, chain, C2C_LINES, 64, rounds)) != ST_OK)
                return st;
        if ((st = linux_plat_pin_cpu(reader)) != ST_OK)
                return st;
        if (pthread_create(&t, NULL, owner_main, &o))
                return ST_NO_MEM;
        bench_c2c_reader(c);
        pthread_join(t, NULL);
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
        static struct cpu_info   info;
        struct bench_clock       clk;

        linux_plat_pin_cpu(cpu);
        cpuid_dump_collect(&dump);
        if (cpu_decode(&dump, &info) != ST_OK)
                return 0;
        bench_clock_init(&clk, &info, 100000, NULL);
        return clk.tsc_hz;
}

static status_t run_pairs(const unsigned *cpus, unsigned n, unsigned rounds, void *chain,
                          struct c2c_result *res, size_t *n_res)
{
        static struct bench_c2c c;
        static uint64_t         v[BENCH_C2C_MAX_ROUNDS];
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
                        for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                                st = measure(&c, chain, (enum bench_c2c_kind)k, cpus[a],
                                             cpus[b], rounds);
                                if (st != ST_OK)
                                        return rep_err(st, "c2c: %s, CPU %u -> CPU %u",
                                                       bench_c2c_kind_name(k), cpus[a], cpus[b]);
                                memcpy(v, c.ticks_per_line_milli, c.n_done * sizeof(*v));
                                c2c_result_set(r, (enum bench_c2c_kind)k, v, c.n_done);
                        }
                        (*n_res)++;
                }
        return ST_OK;
}

static status_t write_json(const struct c2c_result *r, size_t n, uint64_t tsc_hz,
                           unsigned rounds)
{
        struct rep_buf b = { 0 };
        struct json_w  w;
        char           date[32];
        time_t         now = time(NULL);
        status_t       st;

        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.c2c/1.0");
        json_obj_begin(&w, "method");
        json_str(&w, "platform", plat_info()->name);
        json_str(&w, "date", date);
        json_str(&w, "clock", "tsc");
        json_u64_or_null(&w, "tsc_hz", tsc_hz);
        json_u64(&w, "lines", C2C_LINES);
        json_u64(&w, "rounds", rounds);
        json_str(&w, "topology_source", "linux sysfs");
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
static status_t measure_all(unsigned rounds, const char *out_shown, struct lat_c2c_in *out)
{
        static struct c2c_result res[MAX_CPUS * (MAX_CPUS - 1)];
        static unsigned          cpus[MAX_CPUS];
        unsigned                 n;
        size_t                   n_res;
        void                    *buf, *chain;
        status_t                 st;

        if ((n = allowed_cpus(cpus)) < 2) {
                rep_skip("c2c: needs two CPUs, this process may run on %u", n);
                return ST_UNSUPPORTED;
        }
        buf = aligned_alloc(4096, C2C_LINES * 64);
        struct bench_chain_cfg cfg = { .layout = BENCH_LAYOUT_RANDOM, .seed = C2C_SEED };
        if (!buf || bench_chain_build(buf, C2C_LINES * 64, &cfg, &chain) != ST_OK) {
                free(buf);
                return rep_err(ST_NO_MEM, "c2c: chain of %u lines", C2C_LINES);
        }
        uint64_t tsc_hz = measure_tsc_hz(cpus[0]);
        rep_info("c2c: %u CPUs, %u ordered pairs, %u rounds of %u lines each, TSC %llu Hz", n,
                 n * (n - 1), rounds, C2C_LINES, (unsigned long long)tsc_hz);
        st = run_pairs(cpus, n, rounds, chain, res, &n_res);
        free(buf);
        if (st != ST_OK)
                return st;
        struct rep_buf b = { 0 };
        if (c2c_text(&b, res, n_res, tsc_hz) == ST_OK)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
        if ((st = write_json(res, n_res, tsc_hz, rounds)) != ST_OK)
                return rep_err(st, "c2c: writing %s/%s", out_shown, C2C_FILE);
        rep_info("c2c: wrote %s/%s", out_shown, C2C_FILE);
        *out = (struct lat_c2c_in){ .res = res, .n = n_res, .lines = C2C_LINES,
                                    .rounds = rounds, .n_cpus = n, .pair_plan = "every pair",
                                    .topology_source = "linux sysfs", .tsc_hz = tsc_hz };
        return ST_OK;
}

status_t host_c2c_for_table(const char *out_dir, struct lat_c2c_in *out)
{
        return measure_all(HOST_C2C_TABLE_ROUNDS, out_dir, out);
}

int host_c2c_main(const struct host_opts *o)
{
        struct lat_c2c_in in;
        status_t          st;

        rep_add_sink((struct rep_sink){ .write = console_sink });
        st = measure_all(o->rounds, o->out, &in);
        return st == ST_OK || st == ST_UNSUPPORTED ? 0 : 1;
}
