/** @file
 * The machine inventory: what the harness found out about the CPU, its caches, TLBs and PMU,
 * the processors and NUMA topology the firmware describes, SMBIOS identity and memory. The
 * gathering is in app/gather.c; this module only prints it (console text) and writes it as
 * inventory.json (schema "pmucal.inventory/1.1"), from a filled struct: pure, host-tested.
 */
#ifndef PMUCAL_INVENTORY_H
#define PMUCAL_INVENTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/acpi.h"
#include "boot/plat.h"
#include "boot/smbios.h"
#include "boot/cpu_info.h"
#include "report/json.h"

#define INV_SCHEMA   "pmucal.inventory/1.4"
#define INV_MAX_MSRS 12
#define INV_MAX_CPUS 256

/** How a firmware table turned out. */
enum inv_table_state {
        INV_TABLE_ABSENT = 0, /* the firmware does not publish it */
        INV_TABLE_OK,
        INV_TABLE_MALFORMED,  /* rejected: diag says where and why; nothing used from it */
        INV_TABLE_UNSUPPORTED,/* well-formed but beyond what pmucal handles (limits, revision) */
};

struct inv_table {
        enum inv_table_state state;
        char                 diag[128]; /* why it was rejected ("offset 0x2c: ...") */
};

/** One MSR the inventory probed (or deliberately did not). */
struct inv_msr {
        const char *name;   /* "IA32_PERF_CAPABILITIES" */
        uint32_t    msr;
        status_t    st;     /* ST_OK, ST_FAULT (#GP: unsupported), ST_UNSUPPORTED (not probed) */
        uint64_t    value;
        const char *why;    /* for ST_UNSUPPORTED: why it was not probed */
};

/** How the TSC frequency was obtained. */
enum inv_tsc_source {
        INV_TSC_UNKNOWN = 0,
        INV_TSC_CPUID,      /* CPUID 0x15 (and 0x16) */
        INV_TSC_CALIBRATED, /* against the firmware's timer (gBS->Stall) */
        INV_TSC_CNTFRQ,     /* AArch64: the generic timer's CNTFRQ_EL0 */
};

/** AArch64 identification (all zero on x86-64): the registers and what the PMU has. */
struct inv_arm64 {
        bool        valid;
        uint64_t    midr, mpidr, revidr, dfr0, pmcr, pmceid0, pmceid1;
        const char *part_name, *pmu_name;
        uint8_t     pmuver, n_counters, counter_bits, spe, brbe;
        unsigned    n_common_events;  /* PMCEID0/1 bits set */
        uint8_t     current_el;       /* CurrentEL the harness runs at: 1 or 2 (1.3) */
};

struct inventory {
        const char *platform;
        enum plat_secure_boot secure_boot; /* the firmware's Secure Boot state (1.3) */
        const char *arch;              /* "x86_64", "aarch64" */

        struct cpu_info cpu;
        status_t        cpu_st;
        uint64_t        microcode;       /* valid when microcode_st == ST_OK */
        status_t        microcode_st;

        enum inv_tsc_source tsc_source;
        uint64_t            tsc_hz;            /* what the harness uses */
        uint64_t            tsc_hz_calibrated; /* 0 if not calibrated */
        uint32_t            tsc_cal_spread_ppm;/* max-min of the calibration runs, per million */
        uint32_t            tsc_cal_ms;        /* length of each calibration run */
        uint64_t            nominal_hz;        /* from MSR_PLATFORM_INFO or CPUID 0x16; 0 = unknown */

        struct inv_msr msrs[INV_MAX_MSRS];
        unsigned       n_msrs;

        struct plat_cpu cpus[INV_MAX_CPUS]; /* as the firmware's MP services report them */
        unsigned        n_cpus;             /* in cpus[] */
        unsigned        n_cpus_total;       /* plat_cpu_count() */
        unsigned        n_cpus_enabled;

        struct inv_table   madt_t, srat_t, slit_t, hmat_t, smbios_t;
        struct acpi_madt  *madt;   /* NULL unless madt_t.state == INV_TABLE_OK; same below */
        struct acpi_srat  *srat;
        struct acpi_slit  *slit;
        struct acpi_hmat  *hmat;
        struct smbios_info *smbios;

        struct plat_mem_summary mem;
        status_t                mem_st;

        struct inv_arm64 arm64;
};

/** Free the inventory and the tables it holds; NULL is ignored. */
void inventory_free(struct inventory *inv);

/** Number of NUMA nodes: SRAT's distinct proximity domains, else 1. */
unsigned inventory_n_nodes(const struct inventory *inv);
/** Node of the processor with @p apic_id from SRAT; -1 when SRAT does not say. */
int inventory_node_of_apic(const struct inventory *inv, uint32_t apic_id);
/** Bytes of SRAT memory proximity domain @p node has at boot: enabled ranges that are neither
 *  hot-pluggable nor non-volatile (acpi_srat_mem_present). */
uint64_t inventory_node_mem(const struct inventory *inv, uint32_t node);

/** "ok", "absent", "malformed" or "unsupported"; never NULL. */
const char *inventory_table_state_name(const struct inv_table *t);
/** "cpuid", "calibrated" or "unknown"; never NULL. */
const char *inventory_tsc_source_name(enum inv_tsc_source s);
/** inventory.json's secure_boot: "on", "off", "setup_mode", or NULL when unknown. */
const char *inventory_secure_boot_name(enum plat_secure_boot sb);
/** The console's words for @p sb; never NULL. */
const char *inventory_secure_boot_text(enum plat_secure_boot sb);

/** Logical processors that share @p k: the enabled processors of @p inv whose APIC IDs fall in
 *  the sharing domain of the processor the inventory's CPUID came from (the APIC ID shifted
 *  right by the sharing field rounded up to a power of two, [SDM-2A] leaf 04H EAX[25:14]).
 *  0 when CPUID gives no sharing field or the inventory has no processor list. */
unsigned inventory_cache_sharing_cpus(const struct inventory *inv, const struct cpu_cache *k);

/** Print the inventory report with rep_printf. */
void inventory_print(const struct inventory *inv);
/** Write inventory.json (a complete document) into @p w. */
void inventory_json(struct json_w *w, const struct inventory *inv);
/** "64 KiB", "1.5 MiB", "32 GiB": bytes in binary units into @p buf. */
const char *inventory_size_str(char *buf, size_t n, uint64_t bytes);

#endif
