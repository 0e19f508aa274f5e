/** @file
 * pmucal-host --inventory: the firmware's inventory phase (app/gather.c, report/inventory*.c)
 * on the hosted platform, so that a user sees what pmucal will make of a machine before
 * booting it: this machine (its CPUID on --cpu N, /sys/firmware/acpi/tables, SMBIOS from
 * sysfs where readable), or a recorded one: --cpuid-dump FILE (cpuid -r or any InstLatx64 /
 * AIDA64 layout, boot/x86/cpuid_text.c; --cpu N picks its processor block) and --acpi-dir DIR
 * (raw tables: acpixtract's apic.dat, srat.dat, ... or the sysfs names). Writes what the
 * firmware writes to its results folder (inventory.json, cpuid.txt, the raw tables) and
 * report.txt, the console text. Host only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/gather.h"
#include "app/run.h"
#include "boot/linux/linux_plat.h"
#include "host/arch.h"
#include "host/host.h"
#include "host/host_args.h"
#include "report/inventory.h"
#include "report/rep.h"

static status_t console_sink(void *ctx, const char *s, size_t n)
{
        (void)ctx;
        plat_console_write(s, n);
        return ST_OK;
}

int host_inventory_main(const struct host_opts *o)
{
        static char              name[640];
        struct run              *r = calloc(1, sizeof(*r));
        status_t                 st;
        int                      rc;

        if (!r)
                return 1;
        if (o->cpuid_dump) {
                struct cpu_info ci;

                if ((rc = host_cpu_replay(o->cpuid_dump, o->cpu)) != 0) {
                        free(r);
                        return rc;
                }
                if (host_cpu_identify(&ci) == ST_OK)
                        linux_cpu_set_recorded(ci.initial_apic_id);
        }
        if (o->cpuid_dump || o->acpi_dir) {
                if (o->cpuid_dump)
                        snprintf(name, sizeof(name), "Linux hosted, recorded machine: CPUID %s "
                                 "block %u, ACPI tables %s", o->cpuid_dump, o->cpu,
                                 o->acpi_dir ? o->acpi_dir : "not given");
                else
                        snprintf(name, sizeof(name), "Linux hosted: CPUID of CPU %u, recorded "
                                 "ACPI tables %s", o->cpu, o->acpi_dir);
                linux_plat_use_recorded(o->acpi_dir, name);
        }
        if (!o->cpuid_dump && (st = linux_plat_pin_cpu(o->cpu)) != ST_OK) {
                fprintf(stderr, "pmucal-host: pinning to CPU %u: %s\n", o->cpu, status_str(st));
                free(r);
                return 1;
        }
        rep_add_sink((struct rep_sink){ .write = console_sink });
        rep_add_sink(rep_buf_sink(&r->console));
        rep_info("command: %s", o->cmdline);
        rep_printf("\n== inventory ==\n");
        rep_push("inventory");
        st = phase_inventory(r);
        rep_pop();
        gather_cpu_release();
        rep_printf("\n");
        rc = rep_summary() == 0 && st == ST_OK ? 0 : 1;
        bool unsaved = false;

        for (unsigned i = 0; i < r->n_files; i++) {
                struct rep_buf *b = &r->files[i].data;
                status_t        w = b->oom ? ST_NO_MEM : plat_file_write(r->files[i].name, b->p,
                                                                          b->len);
                if (w != ST_OK) {
                        fprintf(stderr, "pmucal-host: writing %s/%s: %s\n", o->out,
                                r->files[i].name, status_str(w));
                        rc      = 1;
                        unsaved = true;
                } else {
                        printf("pmucal-host: wrote %s/%s\n", o->out, r->files[i].name);
                }
                rep_buf_free(b);
        }
        if (!r->console.oom && plat_file_write("report.txt", r->console.p, r->console.len) != ST_OK)
                rc = 1, unsaved = true;
        printf(unsaved ? "RESULTS NOT SAVED: a file could not be written in %s\n"
                       : "RESULTS: saved to %s\n", o->out);
        rep_buf_free(&r->console);
        if (r->inv)
                inventory_free(r->inv);
        free(r);
        return rc;
}
