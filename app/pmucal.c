/** @file
 * The harness's program: config, phases, summary, results. Its entry, pmucal_main, is
 * declared in boot/plat.h; the run the phases share is app/run.h.
 */
#include "boot/plat.h"

#include "app/gather.h"
#include "app/run.h"
#include "app/upload.h"

#include "app/config.h"
#include "app/cpus.h"
#include "report/inventory.h"
#include "report/json.h"

#ifndef PMUCAL_VERSION
#define PMUCAL_VERSION "unknown"
#endif

#define MAX_DIAGS    16

/* Which profiles run a phase. */
#define P_QUICK    BIT_ULL(CONFIG_PROFILE_QUICK)
#define P_FULL     BIT_ULL(CONFIG_PROFILE_FULL)
#define P_PMU      BIT_ULL(CONFIG_PROFILE_PMU)
#define P_SAMPLING BIT_ULL(CONFIG_PROFILE_SAMPLING)
#define P_TLB      BIT_ULL(CONFIG_PROFILE_TLB)
#define P_ALL      (P_QUICK | P_FULL | P_PMU | P_SAMPLING | P_TLB)

struct phase {
        const char *name;
        uint64_t    profiles;
        status_t (*run)(struct run *r);
};

static const struct phase phases[] = {
        /* name          profiles  function */
        { "selftest",    P_ALL,    phase_selftest },
        { "inventory",   P_ALL,    phase_inventory },
        { "cpus",        P_ALL,    phase_cpus },
        /* >>> further phases: one row each, in this order: latency, tlb, pmu, sampling */
        { "c2c",         P_QUICK | P_FULL, phase_c2c },
        { "numa",        P_QUICK | P_FULL, phase_numa },
        { "latency",     P_QUICK | P_FULL | P_SAMPLING, phase_latency },
        { "tlb",         P_QUICK | P_FULL | P_TLB, phase_tlb },
        { "pmu",         P_QUICK | P_FULL | P_PMU, phase_pmu },
        { "sampling",    P_QUICK | P_FULL | P_SAMPLING, phase_sampling },
};

static status_t console_sink(void *ctx, const char *s, size_t n)
{
        (void)ctx;
        plat_console_write(s, n);
        return ST_OK;
}

/* Read the config file; NULL text (and a line saying why) when there is none to parse. */
/* The boot volume has no config: is there one on another volume (a second ESP)? Said, since
 * only the boot volume's is read. Not looked for when the boot volume has one: the search
 * connects every device's drivers, which a run that has its config does not need. */
static void config_elsewhere(void)
{
        char where[160];

        if (plat_file_elsewhere(CONFIG_PATH, where, sizeof(where)) != ST_OK)
                return;
        rep_warn("config: another volume holds %s (%s); only the boot volume's would be read: "
                 "copy it to the boot volume or boot from that one", CONFIG_PATH, where);
}

static status_t read_config(char **text, size_t *len)
{
        struct plat_file_info fi;
        status_t              st = plat_file_stat(CONFIG_PATH, &fi);
        const char           *vol = plat_info()->volume;

        if (vol)
                rep_info("config: boot volume %s", vol);
        if (!vol && plat_info()->net_source) {
                rep_info("config: no volume: loaded over the network from %s; reading "
                         "pmucal.cfg beside it", plat_info()->net_source);
                if (st == ST_NOT_FOUND) {
                        rep_info("config: no pmucal.cfg beside %s on the server: defaults",
                                 plat_info()->net_source);
                        return st;
                }
        }
        if (st == ST_NOT_FOUND) {
                rep_info("config: no %s on the boot volume: defaults", CONFIG_PATH);
                config_elsewhere();
                return st;
        }
        if (st == ST_OK && fi.kind == PLAT_FILE_DIR) {
                rep_warn("config: %s is a folder, not a file: using the defaults", CONFIG_PATH);
                return ST_BAD_DATA;
        }
        if (st == ST_OK && fi.size_bytes > CONFIG_MAX_BYTES) {
                rep_warn("config: %s: file too large (%llu bytes, limit %u): not read, using "
                         "the defaults", CONFIG_PATH, (unsigned long long)fi.size_bytes,
                         (unsigned)CONFIG_MAX_BYTES);
                return ST_BAD_DATA;
        }
        if (st == ST_OK)
                st = plat_file_read(CONFIG_PATH, text, len);
        if (st != ST_OK)
                rep_err(st, "reading %s (using the defaults)", CONFIG_PATH);
        return st;
}

static void load_config(struct run *r)
{
        char              *text = NULL;
        size_t             len  = 0;
        struct config_diag diags[MAX_DIAGS];
        size_t             n_diags = 0;

        if (read_config(&text, &len) != ST_OK) {
                config_defaults(&r->cfg);
        } else {
                config_parse(text, len, &r->cfg, diags, MAX_DIAGS, &n_diags);
                for (size_t i = 0; i < n_diags && i < MAX_DIAGS; i++) {
                        /* "unknown key 'x'" already says its kind: not "unknown key: unknown key" */
                        const char *kind = config_diag_kind_str(diags[i].kind);
                        bool        said = !strncmp(diags[i].msg, kind, strlen(kind));
                        rep_warn("config: %s:%u: %s%s%s%s", CONFIG_PATH,
                                 diags[i].line, said ? "" : kind, said ? "" : ": ",
                                 diags[i].msg,
                                 diags[i].kind == CONFIG_DIAG_ENCODING ? "" : " (line ignored)");
                }
                if (n_diags > MAX_DIAGS)
                        rep_warn("config: %zu more problems not shown", n_diags - MAX_DIAGS);
                rep_info("config: read %s (%zu bytes, %zu problem%s)", CONFIG_PATH, len,
                         n_diags, n_diags == 1 ? "" : "s");
        }
        plat_free(text);
        config_print(&r->cfg);
}

int pmucal_main(struct pmucal_outcome *out)
{
        struct run r = { 0 };

        rep_reset();
        rep_add_sink((struct rep_sink){ .write = console_sink });
        rep_add_sink(rep_buf_sink(&r.console));

        rep_printf("pmucal %s on %s\n", PMUCAL_VERSION, plat_info()->name);
        load_config(&r);
        plat_console_serial(r.cfg.serial);
        run_name(&r);
        if (r.no_name)
                rep_warn("run: every name from %s-01 to -%u is taken in %s: the results will not "
                         "be saved", r.name, RUN_NAME_MAX, r.dir_shown);
        else if (plat_info()->net_source)
                rep_info("run: %s (no volume to write results to: loaded over the network)",
                         r.name);
        else
                rep_info("run: %s (results go to %s)", r.name, r.dir_shown);

        for (size_t i = 0; i < ARRAY_SIZE(phases); i++) {
                if (!(phases[i].profiles & BIT_ULL(r.cfg.profile)))
                        continue;
                rep_printf("\n== %s ==\n", phases[i].name);
                rep_push(phases[i].name);
                status_t st = phases[i].run(&r);
                if (st != ST_OK && st != ST_UNSUPPORTED)
                        rep_check(false, "phase ended early: %s", status_str(st));
                rep_pop();
        }

        app_cpus_release();
        gather_cpu_release();
        rep_printf("\n");
        int code = rep_summary();

        bool uploaded = false;
        if (r.cfg.results && r.cfg.collector_set) {
                struct upload_policy pol = upload_policy_of(&r.cfg);
                uploaded = upload_run(&r, &pol) == UPLOAD_STORED;
        }
        if (!r.cfg.results) {
                rep_printf("RESULTS: not saved (results = off in the config)\n");
        } else if (uploaded && plat_info()->net_source) {
                rep_printf("RESULTS: uploaded to %s (no volume to save to: loaded over the "
                           "network)\n", r.cfg.collector);
        } else if (run_save(&r) != ST_OK && code != PMUCAL_EXIT_FAILED) {
                code = PMUCAL_EXIT_NOT_SAVED;
        }

        run_files_free(&r);
        rep_buf_free(&r.console);
        inventory_free(r.inv);
        plat_free(r.levels);
        rep_reset();

        out->exit_code  = code;
        out->leave      = r.cfg.on_exit == CONFIG_EXIT_SHUTDOWN ? PMUCAL_LEAVE_SHUTDOWN
                          : r.cfg.on_exit == CONFIG_EXIT_REBOOT ? PMUCAL_LEAVE_REBOOT
                                                                : PMUCAL_LEAVE_RETURN;
        out->debug_exit = r.cfg.debug_exit == CONFIG_ON    ? 1
                          : r.cfg.debug_exit == CONFIG_OFF ? 0
                                                           : -1;
        return code;
}
