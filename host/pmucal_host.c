/** @file
 * pmucal-host: the latency calibration under Linux. The same kernels (bench/) and analysis
 * (report/) as the firmware, on the hosted platform (boot/linux/linux_plat.c): pinned to one CPU,
 * transparent huge pages when asked, interrupts not maskable (the report says so).
 *
 *     pmucal-host [--tlb] [--out DIR] [--cpu N] [--quick|--full] [--page 4k|2m]
 *                 [--layout random|groups|stride] [--reps N] [--max-mib N]
 *                 [--prefetch off|keep] [--seed N] [--with-c2c]   (host/host_args.c; --help)
 *
 * Writes DIR/latency-table.json and DIR/latency-curve.csv (report/lattable.h, the same files
 * the firmware writes) and prints the levels table and the plot; without --out, DIR is a new
 * folder named after the date. DIR is locked for the run, and the run's files replace DIR's
 * as one unit or not at all (a staging folder swapped in; boot/linux/linux_file.c). --with-c2c then measures cache-to-cache transfers
 * between the CPUs this process may run on (as --c2c does; skipped with one CPU), adds the
 * table's "c2c" section (report/lattable_numa.h) and writes c2c.json. Exit status 0 on
 * success, 1 on a failure, 2 on a usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "app/tlb.h"
#include "bench/measure.h"
#include "boot/linux/linux_plat.h"
#include "boot/smbios.h"
#include "boot/x86/cpuid.h"
#include "host/cli_stdout.h"
#include "host/host.h"
#include "host/host_args.h"
#include "report/lattable.h"
#include "report/lattable_numa.h"
#include "report/levels.h"
#include "report/rep.h"

#ifndef PMUCAL_VERSION
#define PMUCAL_VERSION "unknown"
#endif

#define CURVE_FILE "latency-curve.csv"
#define TABLE_FILE "latency-table.json"

static status_t console_sink(void *ctx, const char *s, size_t n)
{
        (void)ctx;
        plat_console_write(s, n);
        return ST_OK;
}

static void print_curve(const struct lat_curve *c)
{
        rep_printf("%12s %8s %14s %14s %14s %6s\n", "ws_bytes", "windows", "p10 TSC ticks",
                   "p50 TSC ticks", "p90 TSC ticks", "ns");
        for (size_t i = 0; i < c->n; i++) {
                const struct lat_point *p = &c->pts[i];
                char a[24], b[24], d[24], ns[24];
                uint64_t ps = lat_milli_to_ps(p->p50_mcyc, c->tsc_hz);

                rep_printf("%12llu %5u/%-2u %14s %14s %14s %6s\n", (unsigned long long)p->ws_bytes,
                           p->n_windows, p->n_disturbed, fmt_fixed(a, sizeof(a), (int64_t)p->p10_mcyc, 3),
                           fmt_fixed(b, sizeof(b), (int64_t)p->p50_mcyc, 3),
                           fmt_fixed(d, sizeof(d), (int64_t)p->p90_mcyc, 3),
                           fmt_fixed(ns, sizeof(ns), (int64_t)ps / 100, 1));
        }
}

/* The prefetcher states in the words of the table schema (report/lattable.h). */
static const char *prefetch_word(enum bench_pf_state s)
{
        switch (s) {
        case BENCH_PF_DISABLED: return "off";
        case BENCH_PF_LEFT_ON: return "on";
        case BENCH_PF_FAILED: return "failed";
        case BENCH_PF_UNSUPPORTED: return "unchanged";
        }
        return "unknown";
}

/* Microcode revision from /proc/cpuinfo ("microcode\t: 0xa101148"); false if absent. */
static bool read_microcode(uint64_t *rev)
{
        FILE *f = fopen("/proc/cpuinfo", "r");
        char  line[256];
        bool  ok = false;

        if (!f)
                return false;
        while (!ok && fgets(line, sizeof(line), f))
                ok = sscanf(line, "microcode : %" SCNx64, rev) == 1;
        fclose(f);
        return ok;
}

static status_t save(const char *name, struct rep_buf *b, const struct host_opts *o)
{
        status_t st = b->oom ? ST_NO_MEM : plat_file_write(name, b->p, b->len);

        if (st != ST_OK)
                return rep_err(st, "writing %s/%s (%zu bytes)", o->out, name, b->len);
        rep_info("latency: wrote %s/%s", o->out, name);
        return ST_OK;
}

/* Why the sweep buffer planned could not be had (allocations failed, so it was halved until
 * one succeeded): an address-space limit (ulimit -v) below what the plan needs is the usual
 * cause. Also formats the limit into @p buf when given. */
static const char *buffer_why(const struct bench_sweep_info *info, char *buf, size_t n)
{
        static char   why[160];
        struct rlimit rl;
        char          a[24];

        if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY &&
            rl.rlim_cur < 2 * info->planned_bytes)
                snprintf(why, sizeof(why), "allocation failed under the address-space limit "
                         "(ulimit -v) of %s", fmt_size(a, sizeof(a), rl.rlim_cur));
        else
                snprintf(why, sizeof(why), "allocation failed: not enough free memory");
        if (buf)
                snprintf(buf, n, "%s", why);
        return why;
}

/* Detect the levels, write latency-table.json and latency-curve.csv, print table and plot. */
static status_t report(const struct lat_curve *c, const struct cpu_info *cpu,
                       const struct host_opts *o, const struct bench_sweep_info *info,
                       const struct lat_c2c_in *c2c)
{
        struct lat_json_section   sec[LAT_REMOTE_MAX_SECTIONS];
        size_t                    n_sec = lat_remote_sections(NULL, c2c, sec);
        static struct smbios_info sm;
        struct lat_table_meta     m = { 0 };
        struct lat_levels         lv;
        struct rep_buf            b = { 0 };
        struct plat_fw_table      smt;
        char                      date[32];
        struct plat_time          now;
        status_t                  st, st_lv;

        lat_table_meta_from_cpu(&m, cpu);
        m.microcode_valid = read_microcode(&m.microcode);
        m.tsc_hz          = c->tsc_hz;
        if (plat_fw_table(PLAT_FW_SMBIOS, NULL, 0, &smt) == ST_OK &&
            smbios_parse(smt.data, smt.len, smt.major, smt.minor, &sm, NULL) == ST_OK &&
            sm.has_system) {
                m.smbios_manufacturer = sm.sys_manufacturer;
                m.smbios_product      = sm.sys_product;
        }
        m.kernel           = "pointer-chase";
        m.layout           = bench_layout_name(o->sweep.layout);
        m.page_bytes       = info->page_got == PLAT_PAGE_2M ? 2 * MiB : 4 * KiB;
        m.n_windows        = info->repetitions;
        m.max_windows      = info->max_windows;
        m.passes           = info->passes;
        m.ci_permille      = info->ci_permille;
        m.n_settled        = info->n_settled;
        m.n_remeasured     = info->n_remeasured;
        m.loads_per_window = info->loads_per_run;
        if (info->planned_bytes > info->max_bytes) {
                m.buffer_planned_bytes = info->planned_bytes;
                m.buffer_bytes         = info->max_bytes;
                m.buffer_why           = buffer_why(info, NULL, 0);
        }
        m.clock            = c->clock;
        m.prefetchers      = prefetch_word(info->prefetch.state);
        m.pmucal_version   = PMUCAL_VERSION;
        m.platform         = plat_info()->name;
        if (plat_wallclock(&now) == ST_OK) {
                m.date_zone = lat_date_utc(&now, date, sizeof(date));
                m.date      = m.date_zone ? date : NULL;
        }

        if ((st = rep_lat_csv(&b, c)) == ST_OK)
                st = save(CURVE_FILE, &b, o);
        rep_buf_free(&b);
        if ((st_lv = rep_levels_detect(c, cpu, &lv)) != ST_OK) {
                print_curve(c);
                rep_err(st_lv, "latency: level detection on %zu points", c->n);
                return st_lv;
        }
        if ((st_lv = rep_lat_json(&b, &m, c, &lv, sec, n_sec)) != ST_OK)
                st = rep_err(st_lv, "latency: formatting %s", TABLE_FILE);
        else if (st == ST_OK)
                st = save(TABLE_FILE, &b, o);
        rep_buf_free(&b);
        if (rep_lat_levels_text(&b, c, &lv) == ST_OK && rep_lat_plot(&b, c, &lv) == ST_OK &&
            !b.oom)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
        return st;
}

static void print_method(const struct cpu_info *cpu, const struct host_opts *o,
                         const struct bench_sweep_info *info, const struct lat_curve *c)
{
        const struct bench_prefetch *pf = &info->prefetch;
        char                         r[3][24];

        for (size_t i = 0; i < cpu->n_caches; i++)
                rep_info("cpuid: L%u %s %s, %u-way, %u B lines", cpu->caches[i].level,
                         cpu_cache_type_name(cpu->caches[i].type),
                         fmt_size(r[0], sizeof(r[0]), cpu->caches[i].size_bytes),
                         cpu->caches[i].ways, cpu->caches[i].line_bytes);
        if (c->core_ppm)
                rep_info("latency: windows timed in TSC ticks (%llu Hz); core clock from %s: %s "
                         "core cycles per TSC tick (%s..%s over the points)",
                         (unsigned long long)c->tsc_hz, c->core_source,
                         fmt_fixed(r[0], sizeof(r[0]), c->core_ppm / 1000, 3),
                         fmt_fixed(r[1], sizeof(r[1]), c->core_ppm_lo / 1000, 3),
                         fmt_fixed(r[2], sizeof(r[2]), c->core_ppm_hi / 1000, 3));
        else
                rep_info("latency: windows timed in TSC ticks (%llu Hz); core clock unknown (%s): "
                         "the table's core-cycle figures are null", (unsigned long long)c->tsc_hz,
                         c->core_why ? c->core_why : "no source");
        rep_info("latency: at least %u windows per point, more until the median is known within "
                 "+/- %s %% (95 %% confidence), at most %u: %zu of %zu points settled; %zu outlier "
                 "points measured again", info->repetitions,
                 fmt_fixed(r[0], sizeof(r[0]), info->ci_permille, 1), info->max_windows,
                 info->n_settled, c->n, info->n_remeasured);
        if (!info->guard.irq_maskable)
                rep_info("latency: interrupts cannot be masked on %s: windows with a context "
                         "switch or whose N and 2N runs disagree are dropped", plat_info()->name);
        rep_info("latency: SMI count %s", info->guard.smi_count_ok ? "watched (MSR 0x34)"
                                                                    : "not available");
        if (pf->state == BENCH_PF_UNSUPPORTED)
                rep_info("latency: prefetchers: no documented control for this CPU (left as found)");
        else
                rep_info("latency: prefetchers %s (MSR 0x%x, was 0x%llx, %s)%s%s",
                         bench_prefetch_state_name(pf->state), (unsigned)pf->msr,
                         (unsigned long long)pf->saved, pf->source,
                         pf->state == BENCH_PF_FAILED ? ": " : "",
                         pf->state == BENCH_PF_FAILED ? status_str(pf->why) : "");
        rep_info("latency: page %s asked, %s obtained (%u permille in 2 MiB pages)",
                 bench_page_name(o->sweep.page), bench_page_name(info->page_got),
                 linux_plat_last_huge_permille());
        if (info->planned_bytes > info->max_bytes)
                rep_warn("latency: the sweep buffer is %s, not the %s planned (%s): levels "
                         "beyond %s are not measured, the last level named may be wrong, and "
                         "the table says so (method.buffer_reduced)",
                         fmt_size(r[0], sizeof(r[0]), info->max_bytes),
                         fmt_size(r[1], sizeof(r[1]), info->planned_bytes),
                         buffer_why(info, NULL, 0), fmt_size(r[2], sizeof(r[2]), info->max_bytes));
        rep_info("latency: %zu points planned, %zu added by refinement, %u windows dropped",
                 info->n_planned, info->n_refined, info->n_disturbed);
        for (int d = BENCH_WIN_OK + 1; d < BENCH_WIN__COUNT; d++)
                if (info->n_dropped_by[d])
                        rep_info("latency:   %u dropped: %s", info->n_dropped_by[d],
                                 bench_disturb_name((enum bench_disturb)d));
        rep_info("latency: overhead removed by N/2N: %s TSC ticks per run; left: %s TSC ticks "
                 "per load", fmt_fixed(r[0], sizeof(r[0]), info->overhead_mcyc, 3),
                 fmt_fixed(r[1], sizeof(r[1]), info->residual_mcyc, 3));
}

/* The core clock check before (@p st_before, @p before) and after the sweep: whether the core
 * clock held still while the windows ran, i.e. whether this run's TSC-tick figures compare
 * with another run's (host/clock_check.c). Where no counter read the core clock, the two runs
 * are the table's estimate of the core:TSC ratio (@p c: method.core_clock.estimate). */
static void print_clock_check(status_t st_before, uint32_t before, const struct bench_clock *clk,
                              struct lat_curve *c)
{
        uint32_t after = 0;
        status_t st    = st_before == ST_OK ? host_clock_check(&after) : st_before;
        char     r[3][24];

        if (st != ST_OK) {
                rep_info("latency: core clock check: %s", status_str(st));
                return;
        }
        uint32_t lo = before < after ? before : after, hi = before < after ? after : before;
        uint64_t moved_permille = (uint64_t)(hi - lo) * 1000 / lo;
        if (!c->core_ppm) {
                c->est_ppm    = (uint32_t)(((uint64_t)lo + hi + 1) / 2);
                c->est_ppm_lo = lo;
                c->est_ppm_hi = hi;
                c->est_method = "dependent-add chain";
        }
        rep_info("latency: core clock check (dependent adds, one core cycle each, timed in TSC "
                 "ticks; %s): %s core cycles per TSC tick before the sweep, %s after (%s GHz): %s",
                 c->core_ppm ? "an estimate beside the counter's ratio, not in the table"
                             : "no counter read the core clock: the table's estimated ratio",
                 fmt_fixed(r[0], sizeof(r[0]), before / 1000, 3),
                 fmt_fixed(r[1], sizeof(r[1]), after / 1000, 3),
                 fmt_fixed(r[2], sizeof(r[2]), clk->tsc_hz / 1000000 * after / 1000000, 3),
                 moved_permille <= 20 ? "steady" : "the core clock moved during the run");
        if (moved_permille > 20)
                rep_info("latency:   by %s %%: TSC-tick figures of runs at different core "
                         "clocks do not compare", fmt_fixed(r[0], sizeof(r[0]), moved_permille, 1));
}

/* The output folder: --out (created if needed) or a new dated folder; locked for the run. */
static int open_out_dir(struct host_opts *o)
{
        static char name[256];
        int         e;

        if (!o->out) {
                if ((e = linux_plat_new_out_dir("pmucal-", name, sizeof(name)))) {
                        fprintf(stderr, "pmucal-host: creating a results folder in the current "
                                        "directory: %s\n", strerror(e));
                        return 1;
                }
                o->out = name;
                printf("pmucal-host: no --out given: the results go to the new folder %s\n", name);
        }
        if ((e = linux_plat_use_out_dir(o->out))) {
                if (e == EBUSY)
                        fprintf(stderr, "pmucal-host: %s is in use by another pmucal-host run "
                                        "(locked); wait for it or choose another --out\n", o->out);
                else
                        fprintf(stderr, "pmucal-host: cannot use %s as the results folder: %s\n",
                                o->out, strerror(e));
                return 1;
        }
        return 0;
}

int main(int argc, char **argv)
{
        static struct cpuid_dump dump;
        static struct cpu_info   cpu;
        struct host_opts         o;
        struct lat_curve         curve;
        struct bench_sweep_info  info;
        struct bench_clock       clk;
        char                     fm[32];
        struct lat_c2c_in        c2c;
        bool                     have_c2c = false;
        long                     n_cpus = sysconf(_SC_NPROCESSORS_CONF);
        status_t                 st, st_before;
        uint32_t                 ppm_before = 0;
        int                      rc;

        cli_stdout_check_at_exit("pmucal-host", 1);
        rc = host_args_parse(argc, argv, n_cpus > 0 ? (unsigned)n_cpus : 1, &o, stderr);
        if (rc != HOST_ARGS_OK)
                return rc == HOST_ARGS_HELP ? 0 : 2;
        if (open_out_dir(&o))
                return 1;
        unsigned stale = linux_plat_clean_stale();
        if (stale)
                printf("pmucal-host: removed %u temporary file(s) or folder(s) a killed run left "
                       "in or beside %s\n", stale, o.out);
        /* Each mode's last SKIP line may still be held (rep_skip): printed before the exit. */
        if (o.mode == HOST_MODE_TLB) /* the dTLB calibration, host/tlb_host.c */
                return rc = host_tlb_main(&o), rep_flush(), rc;
        if (o.mode == HOST_MODE_C2C) /* cache-to-cache latency, host/c2c_host.c */
                return rc = host_c2c_main(&o), rep_flush(), rc;
        if (o.mode == HOST_MODE_NUMA) /* the NUMA matrix, host/numa_host.c */
                return rc = host_numa_main(&o), rep_flush(), rc;
        if (o.mode == HOST_MODE_INVENTORY) /* the inventory phase, host/inventory_host.c */
                return rc = host_inventory_main(&o), rep_flush(), rc;
        rep_add_sink((struct rep_sink){ .write = console_sink });
        host_c2c_save_cpus();
        if ((st = linux_plat_pin_cpu(o.cpu)) != ST_OK) {
                rep_err(st, "pinning to CPU %u", o.cpu);
                return 1;
        }
        cpuid_dump_collect(&dump);
        if ((st = cpu_decode(&dump, &cpu)) != ST_OK) {
                rep_err(st, "decoding CPUID");
                return 1;
        }
        rep_info("pmucal-host %s on %s: %s (family/model %s), CPU %u", PMUCAL_VERSION,
                 plat_info()->name, cpu.brand, fmt_family_model(fm, sizeof(fm), cpu.family, cpu.model), o.cpu);
        rep_info("command: %s", o.cmdline);

        bench_clock_init(&clk, &cpu, 5000, &(struct bench_guard){ .steal_count =
                                                                  linux_plat_ctx_switches });
        host_perf_core_src(&clk.core);
        o.sweep.clock = &clk;
        st_before = host_clock_check(&ppm_before);
        rep_push("latency"); /* what the sweep says, it says under this prefix */
        st = bench_sweep_run(&o.sweep, &cpu, &curve, &info);
        rep_pop();
        if (st != ST_OK)
                return 1;
        print_method(&cpu, &o, &info, &curve);
        print_clock_check(st_before, ppm_before, &clk, &curve);
        /* The run's files (curve, table, c2c.json) as one unit: written into a staging
         * folder that replaces --out whole, or not at all (boot/linux/linux_file.c). */
        int e = linux_plat_unit_begin();
        if (e)
                rep_info("latency: no staging folder beside %s (%s): the files are written one "
                         "by one, each whole", o.out, strerror(e));
        if (o.with_c2c && host_c2c_for_table(o.out, o.sweep.prefetchers_off, &c2c) == ST_OK)
                have_c2c = true;
        st = report(&curve, &cpu, &o, &info, have_c2c ? &c2c : NULL);
        bench_sweep_free(&curve);
        if (!e && st == ST_OK && (st = linux_plat_unit_commit()) != ST_OK)
                rep_err(st, "latency: putting the new files in place of %s", o.out);
        else if (!e && st != ST_OK) {
                linux_plat_unit_abort();
                rep_info("latency: nothing in %s was changed", o.out);
        }
        rep_flush();
        return st == ST_OK ? 0 : 1;
}
