/** @file
 * Pure parsers of the ACPI tables that describe processors and memory topology: MADT
 * ("APIC"), SRAT, SLIT and HMAT. Portable (no UEFI types, no plat_* calls): the inventory
 * passes tables from plat_fw_table(PLAT_FW_ACPI), the unit tests and the fuzzer pass byte buffers.
 *
 * Every parser validates the common header first (signature, length >= fixed part,
 * length <= the bytes the caller says are readable, checksum) and checks every length
 * field against the table length before using it. Results go into a caller-owned struct of
 * fixed size (the limits are the ACPI_MAX_* below; they are large, so allocate the struct
 * with plat_alloc rather than on a firmware stack). Entries beyond a limit are counted in
 * n_dropped and the parse still succeeds, except for proximity domains (ACPI_MAX_NODES),
 * where the table is ST_UNSUPPORTED because a partial node list would mislead.
 *
 * On any status other than ST_OK the output struct is all zero (never half-parsed), and
 * @p diag (optional) says what was wrong and at which byte offset, for the caller to log
 * once before skipping the table. A bad checksum, a truncated table or a sub-structure
 * whose length is 0 or runs past the end is ST_BAD_DATA. A fragment after the last entry
 * that is shorter than an entry header is not: Linux's acpi_parse_entries_array() walks
 * entries only while a whole header fits and ignores the rest, and so do these parsers; the
 * table is ST_OK, trailing_bytes counts the fragment and @p diag says where it is, for the
 * caller to WARN about (after ST_OK, diag->what is empty unless there is such a warning).
 *
 * Layouts: [ACPI-6.5] §5.2.6 (header), §5.2.12 (MADT), §5.2.16 (SRAT), §5.2.17 (SLIT),
 * §5.2.28 (HMAT, the ACPI 6.3 revision-2 layout); cross-checked against ACPICA actbl1.h,
 * actbl2.h and actbl3.h.
 */
#ifndef PMUCAL_ACPI_H
#define PMUCAL_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/plat.h"   /* BIT_ULL, status_t */

/** Pass as @p avail when the table comes from the firmware and its header length is
 *  trusted to describe readable memory (plat_fw_table(PLAT_FW_ACPI)). */
#define ACPI_LEN_FROM_HEADER ((size_t)-1)

#define ACPI_HEADER_LEN      36u   /* [ACPI-6.5] §5.2.6 Table 5.4 */

#define ACPI_MAX_CPUS        2048u /* MADT / SRAT processor entries kept */
#define ACPI_MAX_MEM_RANGES  256u  /* SRAT memory affinity entries kept */
#define ACPI_MAX_NODES       64u   /* distinct proximity domains; more -> ST_UNSUPPORTED */
#define ACPI_SLIT_MAX        64u   /* SLIT localities; more -> ST_UNSUPPORTED */
#define ACPI_HMAT_MAX_DOMAINS 64u  /* HMAT type 0 structures kept */
#define ACPI_HMAT_MAX_ENTRIES 4096u /* HMAT type 1 matrix entries kept (all structures) */
#define ACPI_HMAT_MAX_CACHES 64u   /* HMAT type 2 structures kept */

/** Where and why a table was rejected. @p what is NUL-terminated, starts with the
 *  signature ("SRAT: memory affinity length 0"), and is empty after ST_OK. */
struct acpi_diag {
        uint32_t offset; /* byte offset in the table of the offending field */
        char     what[96];
};

/** The common header, decoded (strings NUL-terminated, not trimmed). */
struct acpi_header {
        char     signature[5];
        uint32_t length;
        uint8_t  revision;
        char     oem_id[7];
        char     oem_table_id[9];
        uint32_t oem_revision;
};

/* ---- MADT ------------------------------------------------------------------------------- */

/* Local APIC flags, [ACPI-6.5] §5.2.12.2 Table 5.23 (shared by type 0 and type 9). */
#define ACPI_MADT_ENABLED        BIT_ULL(0)
#define ACPI_MADT_ONLINE_CAPABLE BIT_ULL(1)

/** One processor from a Processor Local APIC (type 0), Local x2APIC (type 9) or Arm GICC
 *  (type 0x0B) entry; a GICC's apic_id is its MPIDR_EL1 affinity packed Aff3.Aff2.Aff1.Aff0.
 *  Only processors are kept, by the rules of Linux's acpi_parse_lapic()/acpi_parse_x2apic()
 *  (arch/x86/kernel/acpi/boot.c): an entry with the invalid ID (0xFF, 0xFFFFFFFF), one
 *  neither enabled nor online capable (Online Capable exists from MADT revision 5; Linux also
 *  keeps disabled entries of older tables, to size its possible-CPU map, pmucal does not), and
 *  an x2APIC entry below ID 0xFF in a MADT that has xAPIC entries (the xAPIC entry is the
 *  processor, [ACPI-6.5] §5.2.12.12) are placeholders, counted in struct acpi_madt but not
 *  listed. */
struct acpi_cpu {
        uint32_t apic_id;        /* xAPIC ID (type 0, 8 bits) or x2APIC ID (type 9) */
        uint32_t acpi_uid;       /* ACPI Processor ID (type 0) / UID (type 9) */
        bool     enabled;        /* usable now */
        bool     online_capable; /* disabled but can be brought online at run time */
        bool     x2apic;         /* from a type 9 entry */
};

/** The MADT revision from which the Online Capable flag (bit 1) is defined: ACPI 6.3
 *  introduced it with MADT revision 5; before, the bit is reserved (Linux reads it only
 *  when the revision is >= 5: acpi_support_online_capable). */
#define ACPI_MADT_REV_ONLINE_CAPABLE 5u

/** The MADT's processors, in table order. */
struct acpi_madt {
        uint8_t  revision;
        uint32_t lapic_addr;      /* Local Interrupt Controller Address */
        uint32_t flags;           /* bit 0: PCAT_COMPAT */
        uint32_t n_entries;       /* processor entries in the table (types 0, 9, 0x0B) */
        uint32_t n_cpus;          /* usable processors in cpu[] */
        uint32_t n_enabled;       /* of those, enabled */
        uint32_t n_placeholders;  /* entries with ID 0xFF / 0xFFFFFFFF, or neither enabled
                                   * nor online capable: not processors */
        uint32_t n_x2apic_dup;    /* x2APIC entries below ID 0xFF beside xAPIC entries */
        uint32_t n_invalid_enabled; /* of the placeholders, enabled with the invalid ID */
        uint32_t n_dropped;       /* processor entries beyond ACPI_MAX_CPUS */
        uint32_t n_other;         /* sub-structures of other types (I/O APIC, NMI, ...) */
        uint32_t trailing_bytes;  /* fragment after the last entry, ignored */
        struct acpi_cpu cpu[ACPI_MAX_CPUS];
};

/* ---- SRAT ------------------------------------------------------------------------------- */

/* Memory affinity flags, [ACPI-6.5] §5.2.16.2 Table 5.59. */
#define ACPI_SRAT_MEM_ENABLED       BIT_ULL(0)
#define ACPI_SRAT_MEM_HOT_PLUGGABLE BIT_ULL(1)
#define ACPI_SRAT_MEM_NON_VOLATILE  BIT_ULL(2)

/** A processor's proximity domain (SRAT type 0 or type 2). */
struct acpi_srat_cpu {
        uint32_t apic_id;
        uint32_t node;    /* proximity domain */
        bool     enabled;
        bool     x2apic;  /* from a type 2 entry */
        bool     by_uid;  /* GICC affinity (type 3): apic_id holds the ACPI processor UID
                           * until acpi_srat_resolve_uids finds its MADT entry */
};

/** A memory range's proximity domain (SRAT type 1). A hot-pluggable or non-volatile range
 *  is not memory the node has now: see acpi_srat_mem_present(). */
struct acpi_srat_mem {
        uint64_t base;
        uint64_t len;     /* bytes */
        uint32_t node;    /* proximity domain */
        uint32_t flags;   /* ACPI_SRAT_MEM_* */
};

/** The SRAT's affinities, in table order, plus the distinct proximity domains that
 *  enabled entries name, sorted ascending (disabled entries do not add a node). */
struct acpi_srat {
        uint32_t n_cpus, n_mem, n_nodes;
        uint32_t n_dropped; /* cpu or memory entries beyond the limits */
        uint32_t n_other;   /* sub-structures of other types (GICC, generic initiator, ...) */
        uint32_t trailing_bytes; /* fragment after the last entry, ignored */
        uint32_t node[ACPI_MAX_NODES];
        struct acpi_srat_cpu cpu[ACPI_MAX_CPUS];
        struct acpi_srat_mem mem[ACPI_MAX_MEM_RANGES];
};

/* ---- SLIT ------------------------------------------------------------------------------- */

/** The N x N relative distances: dist[i][j] from locality i to locality j; 10 = local,
 *  255 = unreachable. Rows and columns beyond n are zero. */
struct acpi_slit {
        uint32_t n;
        uint8_t  dist[ACPI_SLIT_MAX][ACPI_SLIT_MAX];
};

/* ---- HMAT ------------------------------------------------------------------------------- */

/** HMAT type 1 Data Type values, [ACPI-6.5] §5.2.28.4 Table 5.146. */
enum acpi_hmat_data_type {
        ACPI_HMAT_ACCESS_LATENCY = 0,
        ACPI_HMAT_READ_LATENCY,
        ACPI_HMAT_WRITE_LATENCY,
        ACPI_HMAT_ACCESS_BANDWIDTH,
        ACPI_HMAT_READ_BANDWIDTH,
        ACPI_HMAT_WRITE_BANDWIDTH,
        ACPI_HMAT_DATA_TYPE_COUNT
};

/** What a matrix entry says. */
enum acpi_hmat_state {
        ACPI_HMAT_VALUE = 0,       /* value is valid */
        ACPI_HMAT_NOT_PROVIDED,    /* raw entry 0 */
        ACPI_HMAT_UNREACHABLE,     /* raw entry 0xFFFF */
};

/** A Memory Proximity Domain Attributes structure (type 0; in a revision-1 HMAT the Memory
 *  Subsystem Address Range structure, whose range is given too). */
struct acpi_hmat_domain {
        uint32_t memory_pd;       /* valid when memory_valid (always from revision 2) */
        uint32_t initiator_pd;    /* attached initiator, valid when initiator_valid */
        bool     initiator_valid;
        bool     memory_valid;
        uint64_t range_base, range_len; /* revision 1 only: the range described */
};

/** One cell of a System Locality Latency and Bandwidth Information structure (type 1). */
struct acpi_hmat_entry {
        uint32_t initiator_pd;
        uint32_t target_pd;
        uint64_t value;     /* latency in ps or bandwidth in MB/s (entry x base unit;
                             * revision 1 as Linux's hmat_normalize() reads it);
                             * 0 unless state == ACPI_HMAT_VALUE */
        uint8_t  data_type; /* enum acpi_hmat_data_type */
        uint8_t  hierarchy; /* 0 = memory, 1..3 = memory-side cache level */
        uint8_t  state;     /* enum acpi_hmat_state */
};

/** A Memory Side Cache Information structure (type 2). */
struct acpi_hmat_cache {
        uint32_t memory_pd;
        uint64_t size_bytes;
        uint8_t  total_levels, level;
        uint8_t  associativity;   /* 0 none, 1 direct mapped, 2 complex indexing */
        uint8_t  write_policy;    /* 0 none, 1 write-back, 2 write-through */
        uint16_t line_bytes;
        uint16_t n_smbios_handles;
};

/** The HMAT's structures, in table order; the type 1 matrices are flattened to entries
 *  (initiator-major, as stored). */
struct acpi_hmat {
        uint8_t  revision;
        uint32_t n_domains, n_localities, n_entries, n_caches;
        uint32_t n_dropped; /* type 0/1-entries/2 beyond the limits */
        uint32_t n_other;   /* structures of reserved types */
        uint32_t trailing_bytes; /* fragment after the last structure, ignored */
        struct acpi_hmat_domain domain[ACPI_HMAT_MAX_DOMAINS];
        struct acpi_hmat_entry  entry[ACPI_HMAT_MAX_ENTRIES];
        struct acpi_hmat_cache  cache[ACPI_HMAT_MAX_CACHES];
};

/* ---- API -------------------------------------------------------------------------------- */

/** Validate the header of @p table (@p avail readable bytes, or ACPI_LEN_FROM_HEADER):
 *  signature @p sig (NULL: any), length between @p min_len (raised to 36) and @p avail,
 *  byte sum 0. @p out (optional) receives the decoded header, zeroed on error.
 *  ST_BAD_ARG for a NULL table; ST_BAD_DATA with @p diag (optional) otherwise. */
status_t acpi_check_header(const void *table, size_t avail, const char *sig, size_t min_len,
                           struct acpi_header *out, struct acpi_diag *diag);

/** True when the table whose header @p h is was built by QEMU: OEM ID "BOCHS " and OEM
 *  table ID "BXPC..." (QEMU hw/acpi/aml-build.c ACPI_BUILD_APPNAME6/8). Other KVM-based
 *  monitors (Firecracker, cloud-hypervisor, crosvm) write their own IDs. NULL: false. */
bool acpi_built_by_qemu(const struct acpi_header *h);

/** SRAT GICC affinity entries name a processor by ACPI UID: replace each by the processor ID
 *  (apic_id) of the MADT entry with that UID; entries without one keep by_uid set. */
void acpi_srat_resolve_uids(struct acpi_srat *srat, const struct acpi_madt *madt);

/** Parse a MADT ("APIC") into @p out (caller-owned; zero on error). */
status_t acpi_parse_madt(const void *table, size_t avail, struct acpi_madt *out,
                         struct acpi_diag *diag);

/** Parse an SRAT into @p out (caller-owned; zero on error). ST_UNSUPPORTED when enabled
 *  entries name more than ACPI_MAX_NODES proximity domains. */
status_t acpi_parse_srat(const void *table, size_t avail, struct acpi_srat *out,
                         struct acpi_diag *diag);

/** Parse a SLIT into @p out (caller-owned; zero on error). ST_UNSUPPORTED for more than
 *  ACPI_SLIT_MAX localities; ST_BAD_DATA for 0 localities, N*N past the end, a diagonal
 *  other than 10 or an off-diagonal distance <= 10 (Linux slit_valid() rejects those too). */
status_t acpi_parse_slit(const void *table, size_t avail, struct acpi_slit *out,
                         struct acpi_diag *diag);

/** Parse an HMAT into @p out (caller-owned; zero on error). Revision 1 (ACPI 6.2) is read
 *  as Linux reads it (drivers/acpi/numa/hmat.c): the type 0 structure's Memory Proximity
 *  Domain only when its flag bit 1 says so, and an entry's value as entry x base unit / 10,
 *  rounded up, in ns for latencies (stored here in ps) and MB/s for bandwidths; a value
 *  below 10 is "not provided". ST_UNSUPPORTED for revision 0; ST_BAD_DATA when entry x
 *  base unit overflows 64 bits. */
status_t acpi_parse_hmat(const void *table, size_t avail, struct acpi_hmat *out,
                         struct acpi_diag *diag);

/** True when SRAT memory range @p m is memory its node has now: enabled, and neither
 *  hot-pluggable (a window for memory that may be added later) nor non-volatile; [ACPI-6.5]
 *  §5.2.16.2 Table 5.59. Only such ranges count as node memory or hold buffers. NULL: false. */
bool acpi_srat_mem_present(const struct acpi_srat_mem *m);

/** The memory-level (hierarchy 0) entry of @p type from @p initiator_pd to @p target_pd
 *  in a parsed HMAT, copied to @p out; ST_NOT_FOUND when the table has none. */
status_t acpi_hmat_find(const struct acpi_hmat *h, enum acpi_hmat_data_type type,
                        uint32_t initiator_pd, uint32_t target_pd, struct acpi_hmat_entry *out);

/** Short name of an HMAT data type ("access latency"); "reserved" when out of range. */
const char *acpi_hmat_type_name(unsigned type);

#endif
