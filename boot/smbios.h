/** @file
 * A bounds-checked walker of the SMBIOS structure table (the table itself, not the entry
 * point), extracting what the inventory reports: BIOS (type 0), system (type 1), baseboard
 * (type 2), processors (type 4) and a summary of memory devices (type 17). Portable (no
 * UEFI types, no plat_* calls): the inventory passes plat_fw_table(PLAT_FW_SMBIOS), the tests and
 * the fuzzer pass byte buffers.
 *
 * Each structure is a formatted area (type, length, handle, fields) followed by a string
 * set that ends in a double NUL. The walk stops at the End-of-Table structure (type 127)
 * or at the end of the buffer. Fields are read only when the structure's length covers
 * them, so tables of any 2.x/3.x version decode. Strings are copied into fixed arrays,
 * truncated, with non-printable bytes replaced by '?' and trailing blanks removed; a
 * missing string (index 0 or past the set) is "".
 *
 * On a malformed structure (length below 4, formatted area or string set running past the
 * end) the walk stops: @p out keeps what the structures before it gave, and the status is
 * ST_BAD_DATA with @p diag saying where. The caller may report the partial result.
 *
 * Layouts: [SMBIOS-3.6] (DSP0134 3.6.0) §6.1.2 (structure header, strings), §7.1, §7.2,
 * §7.3, §7.5, §7.18, §7.45; checked against dmidecode.c.
 */
#ifndef PMUCAL_SMBIOS_H
#define PMUCAL_SMBIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/status.h"

#define SMBIOS_STR_LEN  64u  /* bytes per copied string, NUL included */
#define SMBIOS_MAX_CPUS 16u  /* type 4 structures kept; more are counted in n_cpus_dropped */

/** Where and why the walk stopped early; @p what is empty after ST_OK. */
struct smbios_diag {
        uint32_t offset; /* byte offset in the table of the offending structure */
        char     what[96];
};

/** One Processor Information structure (type 4). */
struct smbios_cpu {
        char     socket[SMBIOS_STR_LEN];       /* Socket Designation */
        char     manufacturer[SMBIOS_STR_LEN];
        char     version[SMBIOS_STR_LEN];
        uint16_t max_speed_mhz, cur_speed_mhz; /* 0 = unknown */
        uint16_t n_cores, n_cores_enabled, n_threads; /* 0 = unknown; count-2 fields used
                                                       * when the byte fields say 0xFF */
        bool     populated;                    /* Status bit 6: CPU socket populated */
};

/** What the table says; zero / "" for anything it does not have. */
struct smbios_info {
        unsigned major, minor;        /* as passed in */
        uint32_t n_structs;           /* structures walked, End-of-Table included */
        bool     saw_end;             /* the walk met type 127 */

        bool has_bios;                /* first type 0 */
        char bios_vendor[SMBIOS_STR_LEN];
        char bios_version[SMBIOS_STR_LEN];
        char bios_date[SMBIOS_STR_LEN];

        bool has_system;              /* first type 1 */
        char sys_manufacturer[SMBIOS_STR_LEN];
        char sys_product[SMBIOS_STR_LEN];
        char sys_version[SMBIOS_STR_LEN];
        bool has_uuid;                /* UUID field present and not all 00 or all FF */
        uint8_t sys_uuid[16];         /* as stored in the table */
        char sys_uuid_str[37];        /* canonical text, first three fields decoded
                                       * little-endian from SMBIOS 2.6 on (§7.2.1) */

        bool has_board;               /* first type 2 */
        char board_manufacturer[SMBIOS_STR_LEN];
        char board_product[SMBIOS_STR_LEN];
        char board_version[SMBIOS_STR_LEN];

        uint32_t n_cpus;              /* entries in cpu[] */
        uint32_t n_cpus_dropped;      /* type 4 beyond SMBIOS_MAX_CPUS */
        struct smbios_cpu cpu[SMBIOS_MAX_CPUS];

        uint32_t n_mem_devices;       /* type 17 structures */
        uint32_t n_mem_populated;     /* of those, with a module installed */
        uint32_t n_mem_unknown_size;  /* populated, size 0xFFFF (unknown) */
        uint64_t mem_total_bytes;     /* sum of the known sizes */
};

/** Walk the structure table @p table of @p len bytes (SMBIOS version @p major.@p minor)
 *  into @p out (caller-owned, zeroed first). ST_BAD_ARG for NULL @p table or @p out;
 *  ST_BAD_DATA (with @p diag, optional) when a structure is malformed, @p out then holding
 *  the structures before it. An empty table is ST_OK with nothing found. */
status_t smbios_parse(const void *table, size_t len, unsigned major, unsigned minor,
                      struct smbios_info *out, struct smbios_diag *diag);

#endif
