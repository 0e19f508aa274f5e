/** @file
 * pmucal-host: pmucal's phases under Linux. The latency run is the firmware's own latency
 * phase (app/latency.c: the sweep, the levels, latency-table.json and latency-curve.csv)
 * after its inventory phase (app/gather.c), on the hosted platform (boot/linux/): pinned to
 * one CPU, transparent huge pages when asked, interrupts not maskable (the report says so).
 * Only the platform differs from a firmware run, so the files are the same files.
 *
 *     pmucal-host [--tlb] [--out DIR] [--cpu N] [--quick|--full] [--page 4k|2m]
 *                 [--layout random|groups|stride] [--reps N] [--max-mib N]
 *                 [--prefetch off|keep] [--seed N] [--with-c2c] [--with-tlb]
 *                                                         (host/host_args.c; --help)
 *
 * The command line becomes the run's config (app/config.h): --quick/--full the profile,
 * --page latency_pages, --reps repetitions, --max-mib sweep_max_mib, --prefetch prefetchers,
 * --layout and --seed the chain's. Writes DIR/latency-table.json and DIR/latency-curve.csv
 * and prints the inventory, the method, the levels table and the plot; without --out, DIR is
 * a new folder named after the date. DIR is locked for the run, and the run's files replace
 * DIR's as one unit or not at all (a staging folder swapped in; boot/linux/linux_file.c).
 * --numa is the firmware's processors and NUMA phases (app/numa.c, app/numa_loaded.c) on
 * Linux's nodes: each buffer bound to its node with mbind and every page's node read back
 * (boot/linux/linux_numa.c), on the latency sweep's DRAM page size; it writes
 * numa-matrix.json, --ws-mib, --windows and --load-ms size it. --with-numa runs them before
 * the latency phase, whose table then carries the numa section: the DRAM-local and remote
 * levels. --c2c is the firmware's processors and cache-to-cache phases (app/cpus.c, app/c2c.c) over
 * the CPUs this process may run on, the others as pinned threads (boot/linux/linux_cpu.c's
 * plat_cpu_start); it writes c2c.json, --rounds its repetitions. --with-c2c runs them before
 * the latency phase, whose table then carries the "c2c" section (report/lattable_numa.h),
 * as a firmware run's does. --tlb is the firmware's TLB phase (app/x86/tlb.c) on the buffers
 * Linux maps (app/tlb_platmap.c: the process cannot load CR3, so the harness's own page
 * tables are out; 4 KiB pages with MADV_NOHUGEPAGE, 2 MiB where transparent huge pages back
 * the buffer); it writes tlb-table.json and tlb-curve.csv, --page 4k|2m keeps one page size's
 * sweeps, and a latency-table.json already in DIR gets the tlb member. --with-tlb runs it
 * after the latency phase, whose table then carries the tlb member, as a firmware run's does.
 * Exit status 0 on success, 1 on a failure, 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/run.h"
#include "app/cpus.h"
#include "app/gather.h"
#include "app/tlb.h"
#include "boot/linux/linux_plat.h"
#include "host/cli_stdout.h"
#include "host/host.h"
#include "host/host_args.h"
#include "report/inventory.h"
#include "report/rep.h"

#ifndef PMUCAL_VERSION
#define PMUCAL_VERSION "unknown"
#endif

static status_t console_sink(void *ctx, const char *s, size_t n)
{
        (void)ctx;
        plat_console_write(s, n);
        return ST_OK;
}

/* The CPUs this process may run on (taskset, cgroups) as the config's processor choice:
 * `cpus = ` their APIC IDs when some of the machine's are not among them. */
static void cpus_allowed(struct pmucal_config *cfg)
{
        struct config_cpu_list *l = &cfg->cpu_list;
        unsigned                n = linux_cpu_list(), n_allowed = 0;
        struct plat_cpu         c;

        for (unsigned i = 0; i < n; i++)
                n_allowed += linux_cpu_allowed(i);
        if (n_allowed == n)
                return;
        cfg->cpus = CONFIG_CPUS_LIST;
        *l        = (struct config_cpu_list){ 0 };
        for (unsigned i = 0; i < n; i++) {
                if (!linux_cpu_allowed(i) || plat_cpu_info(i, &c, NULL) != ST_OK)
                        continue;
                if (l->n && l->hi[l->n - 1] + 1 == c.apic_id)
                        l->hi[l->n - 1] = c.apic_id;
                else if (l->n < CONFIG_CPUS_MAX_RANGES)
                        l->lo[l->n] = l->hi[l->n] = c.apic_id, l->n++;
        }
}

/* The run's config from the command line (see the file comment). */
static void config_from(const struct host_opts *o, struct pmucal_config *cfg)
{
        enum plat_page_kind profile_page = o->full ? PLAT_PAGE_2M : PLAT_PAGE_4K;

        config_defaults(cfg);
        cfg->profile          = o->full ? CONFIG_PROFILE_FULL : CONFIG_PROFILE_QUICK;
        cfg->latency_pages    = o->sweep.page == profile_page ? CONFIG_PAGES_AUTO
                                : o->sweep.page == PLAT_PAGE_2M ? CONFIG_PAGES_2M
                                                                : CONFIG_PAGES_4K;
        cfg->repetitions      = o->sweep.repetitions;
        cfg->sweep_max_mib    = (uint32_t)(o->sweep.max_bytes / MiB);
        cfg->prefetchers      = o->sweep.prefetchers_off ? CONFIG_PREFETCH_OFF
                                                         : CONFIG_PREFETCH_KEEP;
        cfg->latency_layout   = (uint32_t)o->sweep.layout;
        cfg->latency_seed_set = true;
        cfg->latency_seed     = o->sweep.seed;
        if (o->mode == HOST_MODE_C2C) /* the firmware's c2c phase takes its rounds from it */
                cfg->repetitions = o->rounds;
        if (o->mode == HOST_MODE_NUMA) /* ... and the NUMA phase its windows per cell */
                cfg->repetitions = o->numa_windows;
        cfg->tlb_pages    = o->tlb_pages == HOST_TLB_PAGE_4K   ? CONFIG_PAGES_4K
                            : o->tlb_pages == HOST_TLB_PAGE_2M ? CONFIG_PAGES_2M
                                                               : CONFIG_PAGES_AUTO;
        if (o->mode != HOST_MODE_TLB) /* --with-tlb: both page sizes; --page is the sweep's */
                cfg->tlb_pages = CONFIG_PAGES_AUTO;
        cfg->numa_ws_mib  = o->numa_ws_mib;
        cfg->numa_load_ms = o->numa_load_ms;
        cpus_allowed(cfg);
}

/* One phase as app/pmucal.c runs it: a heading, its prefix, a failed check for a status
 * that ended it early. */
static status_t run_phase(const char *name, status_t (*phase)(struct run *r), struct run *r)
{
        status_t st;

        rep_printf("\n== %s ==\n", name);
        rep_push(name);
        st = phase(r);
        if (st != ST_OK && st != ST_UNSUPPORTED)
                rep_check(false, "phase ended early: %s", status_str(st));
        rep_pop();
        return st;
}

/* Write the phases' files (the run's, in the order they were added) into the output folder. */
static status_t save_files(struct run *r, const char *out)
{
        status_t st = ST_OK;

        for (unsigned i = 0; i < r->n_files; i++) {
                struct rep_buf *b = &r->files[i].data;
                status_t        w = b->oom ? ST_NO_MEM : plat_file_write(r->files[i].name, b->p,
                                                                          b->len);
                if (w != ST_OK)
                        st = rep_err(w, "writing %s/%s (%zu bytes)", out, r->files[i].name,
                                     b->len);
                else
                        rep_info("wrote %s/%s", out, r->files[i].name);
        }
        return st;
}

static void free_run(struct run *r)
{
        for (unsigned i = 0; i < r->n_files; i++)
                rep_buf_free(&r->files[i].data);
        rep_buf_free(&r->console);
        inventory_free(r->inv);
        plat_free(r->levels);
        free(r);
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

/* A phase of a hosted run, and whether its files are this mode's (the inventory's are
 * pmucal-host --inventory's, the processors' a by-product). */
struct host_phase {
        const char *name;
        status_t  (*run)(struct run *r);
        bool        keep;
};

#define HOST_MAX_PHASES 6

/* The phases of @p o's mode, in the firmware's order (app/pmucal.c). */
static size_t plan(const struct host_opts *o, struct host_phase *ph)
{
        size_t n = 0;

        ph[n++] = (struct host_phase){ "inventory", phase_inventory, false };
        bool c2c = o->mode == HOST_MODE_C2C || o->with_c2c;
        bool numa = o->mode == HOST_MODE_NUMA || o->with_numa;

        if (c2c || numa)
                ph[n++] = (struct host_phase){ "cpus", phase_cpus, false };
        if (c2c)
                ph[n++] = (struct host_phase){ "c2c", phase_c2c, true };
        if (numa)
                ph[n++] = (struct host_phase){ "numa", phase_numa, true };
        if (o->mode == HOST_MODE_LATENCY)
                ph[n++] = (struct host_phase){ "latency", phase_latency, true };
        if (o->mode == HOST_MODE_TLB || (o->mode == HOST_MODE_LATENCY && o->with_tlb))
                ph[n++] = (struct host_phase){ "tlb", phase_tlb, true };
        return n;
}

/* Drop the files phases not of this mode added (from index @p from on). */
static void drop_files(struct run *r, unsigned from)
{
        for (unsigned i = from; i < r->n_files; i++)
                rep_buf_free(&r->files[i].data);
        r->n_files = from;
}

/* Save what the phases kept as one unit: written into a staging folder that replaces --out
 * whole, or not at all (boot/linux/linux_file.c); the closing RESULTS line says which. */
static status_t save_unit(struct run *r, const char *out)
{
        status_t st;
        int      e;

        if (!r->n_files) {
                rep_printf("RESULTS: none to save (the phases measured nothing): %s unchanged\n",
                           out);
                return ST_OK;
        }
        if ((e = linux_plat_unit_begin()))
                rep_info("no staging folder beside %s (%s): the files are written one by one, "
                         "each whole", out, strerror(e));
        st = save_files(r, out);
        if (!e && st == ST_OK && (st = linux_plat_unit_commit()) != ST_OK)
                rep_err(st, "putting the new files in place of %s", out);
        else if (!e && st != ST_OK) {
                linux_plat_unit_abort();
                rep_info("nothing in %s was changed", out);
        }
        if (st == ST_OK)
                rep_printf("RESULTS: saved to %s\n", out);
        else
                rep_printf("RESULTS NOT SAVED: %s\n", status_str(st));
        return st;
}

/* --tlb into a folder that holds a latency table: the table goes into the run first, so that
 * the TLB phase adds its tlb member as it does to the latency phase's (tlbcal_add_to_latency_
 * table). Returns the run's file count before it. */
static unsigned keep_latency_table(struct run *r, const char *out)
{
        char          *text = NULL;
        size_t         len  = 0;
        struct rep_buf b    = { 0 };

        if (plat_file_read("latency-table.json", &text, &len) != ST_OK)
                return r->n_files;
        rep_buf_append(&b, text, len);
        plat_free(text);
        rep_info("%s/latency-table.json gets the TLB table as its tlb member", out);
        run_add_file(r, "latency-table.json", &b);
        return r->n_files - 1;
}

/* Whether the run has the file @p name. */
static bool has_file(const struct run *r, const char *name)
{
        for (unsigned i = 0; i < r->n_files; i++)
                if (!strcmp(r->files[i].name, name))
                        return true;
        return false;
}

/* A run of app/ phases on the Linux platform: the latency run (the inventory, with
 * --with-c2c the processors and cache-to-cache phases, then the latency phase, with
 * --with-tlb the TLB phase), --tlb, --c2c or --numa. The BSP is the CPU the run is pinned to:
 * --cpu for the latency run and --tlb, else the first this process may run on; the other
 * CPUs it may run on are the application processors (pinned threads). */
static int phases_main(const struct host_opts *o)
{
        struct run       *r = calloc(1, sizeof(*r));
        struct host_phase ph[HOST_MAX_PHASES];
        size_t            n_ph = plan(o, ph);
        unsigned          cpu;
        status_t          st, worst = ST_OK;
        int               code;

        if (!r)
                return 1;
        config_from(o, &r->cfg);
        cpu = o->cpu;
        bool pinned = o->mode == HOST_MODE_LATENCY || o->mode == HOST_MODE_TLB;
        for (unsigned i = 0; !pinned && i < linux_cpu_list(); i++)
                if (linux_cpu_allowed(i)) {
                        cpu = linux_cpu_number(i);
                        break;
                }
        if ((st = linux_plat_pin_cpu(cpu)) != ST_OK) {
                fprintf(stderr, "pmucal-host: pinning to CPU %u: %s\n", cpu, status_str(st));
                free(r);
                return 1;
        }
        rep_add_sink((struct rep_sink){ .write = console_sink });
        rep_printf("pmucal-host %s on %s, CPU %u\n", PMUCAL_VERSION, plat_info()->name, cpu);
        rep_info("command: %s", o->cmdline);
        unsigned kept = o->mode == HOST_MODE_TLB ? keep_latency_table(r, o->out) : r->n_files;
        for (size_t i = 0; i < n_ph; i++) {
                unsigned had = r->n_files;
                st = run_phase(ph[i].name, ph[i].run, r);
                if (!ph[i].keep)
                        drop_files(r, had);
                if (st != ST_OK && st != ST_UNSUPPORTED)
                        worst = st;
        }
        if (o->mode == HOST_MODE_TLB && kept < r->n_files && !has_file(r, TLBCAL_TABLE_FILE))
                drop_files(r, kept); /* no TLB table: the latency table stays as it was */
        app_cpus_release();
        gather_cpu_release();
        rep_printf("\n");
        code = rep_summary();
        st   = save_unit(r, o->out);
        free_run(r);
        return worst == ST_OK && st == ST_OK && code != PMUCAL_EXIT_FAILED ? 0 : 1;
}

int main(int argc, char **argv)
{
        struct host_opts o;
        long             n_cpus = sysconf(_SC_NPROCESSORS_CONF);
        int              rc;

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
        if (o.mode == HOST_MODE_INVENTORY) /* the inventory phase, host/inventory_host.c */
                return rc = host_inventory_main(&o), rep_flush(), rc;
        rc = phases_main(&o); /* the latency run, --tlb, --c2c or --numa: app/ phases */
        rep_flush();
        return rc;
}
