/** @file
 * The Processor Properties Topology Table (PPTT): processor hierarchy nodes (type 0) and
 * cache type structures (type 1), read the way Linux's drivers/acpi/pptt.c reads them. A
 * processor is the leaf node whose ACPI Processor ID is its MADT GICC (or x2APIC) UID; above
 * it, the core (the leaf, or its parent when the leaf is a thread), the cluster (the node
 * above the core) and the package (the first node up with the Physical package flag). A
 * node's tag is its ACPI Processor ID where the ID-valid flag says so, else its offset in the
 * table, as Linux's topology_get_acpi_cpu_tag() makes it.
 *
 * Caches: level L of a processor is searched from its leaf upwards; at each node the chains
 * of its private resources are walked (a chain's first cache is one level above the deepest
 * level of the nodes below), so a cache is the one at the node where the search finds it. Two
 * processors share a cache when it has the same valid Cache ID (revision 3) or was found at
 * the same node, as Linux's cache_leaves_are_shared() decides.
 *
 * Pure and portable: acpi_pptt_check() validates every structure once (lengths, and that
 * every parent, private resource and next-level reference names a structure of the right
 * type inside the table, with no loop); the lookups then walk the checked bytes in place, so
 * there is no limit on the number of nodes. Layout: [ACPI-6.5] §5.2.30 (Tables 5.154-5.161).
 */
#ifndef PMUCAL_ACPI_PPTT_H
#define PMUCAL_ACPI_PPTT_H

#include "boot/acpi.h"

#define ACPI_PPTT_MAX_LEVELS 4u /* cache levels looked up: L1..L4 */

/* Processor hierarchy node flags, [ACPI-6.5] §5.2.30.1 Table 5.156. */
#define ACPI_PPTT_PHYSICAL_PACKAGE BIT_ULL(0)
#define ACPI_PPTT_ID_VALID         BIT_ULL(1)
#define ACPI_PPTT_IS_THREAD        BIT_ULL(2) /* revision 2 */
#define ACPI_PPTT_IS_LEAF          BIT_ULL(3) /* revision 2 */

/* Cache type structure flags and attributes, §5.2.30.2 Tables 5.158 and 5.159. */
#define ACPI_PPTT_CACHE_SIZE_VALID  BIT_ULL(0)
#define ACPI_PPTT_CACHE_TYPE_VALID  BIT_ULL(4)
#define ACPI_PPTT_CACHE_ID_VALID    BIT_ULL(7) /* revision 3 */
#define ACPI_PPTT_CACHE_TYPE_SHIFT  2
#define ACPI_PPTT_CACHE_TYPE_MASK   (3u << ACPI_PPTT_CACHE_TYPE_SHIFT)
enum acpi_pptt_cache_type {
        ACPI_PPTT_CACHE_DATA = 0, ACPI_PPTT_CACHE_INSTRUCTION = 1,
        ACPI_PPTT_CACHE_UNIFIED = 2, ACPI_PPTT_CACHE_UNIFIED_ALT = 3,
};

/** Where a cache sits in the hierarchy, by the node the search found it at. */
enum acpi_pptt_scope {
        ACPI_PPTT_SCOPE_NONE = 0, /* no such level */
        ACPI_PPTT_SCOPE_THREAD,   /* the leaf, when it is a thread */
        ACPI_PPTT_SCOPE_CORE,
        ACPI_PPTT_SCOPE_CLUSTER,
        ACPI_PPTT_SCOPE_PACKAGE,
        ACPI_PPTT_SCOPE_OTHER,    /* a node between cluster and package, or above the package */
};

/** What the PPTT says of one processor. */
struct acpi_pptt_cpu {
        uint32_t leaf_offset;     /* offset of its node in the table */
        uint32_t thread, core, cluster, package; /* node tags (see the file comment) */
        bool     is_thread;       /* the leaf has the thread flag: core is its parent */
        bool     has_cluster;     /* a node between the core and the package */
        uint8_t  n_levels;        /* data or unified cache levels found (0..4) */
        uint8_t  llc_level;       /* the highest of them; 0: the PPTT describes no cache */
        /* per level - 1, for the data or unified cache of that level */
        uint32_t cache_domain[ACPI_PPTT_MAX_LEVELS]; /* equal = shared; 0x80000000 | Cache ID
                                                      * where valid, else the node's offset */
        uint32_t cache_offset[ACPI_PPTT_MAX_LEVELS]; /* the cache structure; 0 = none */
        uint32_t cache_bytes[ACPI_PPTT_MAX_LEVELS];  /* 0 when the size is not valid */
        uint8_t  cache_scope[ACPI_PPTT_MAX_LEVELS];  /* enum acpi_pptt_scope */
};

/** Validate the PPTT @p table (@p avail readable bytes, or ACPI_LEN_FROM_HEADER): header,
 *  every structure's length, every reference and the absence of loops. ST_OK with @p n_cpus
 *  (optional) the number of leaf nodes with a valid processor ID; ST_BAD_DATA with @p diag
 *  saying where. A structure of a reserved type is skipped by its length, as Linux does; stray
 *  bytes at the end shorter than a structure header are ignored. */
status_t acpi_pptt_check(const void *table, size_t avail, uint32_t *n_cpus,
                         struct acpi_diag *diag);

/** The topology and caches of the processor with ACPI Processor ID @p uid in a table that
 *  acpi_pptt_check() accepted. ST_NOT_FOUND when no leaf node has that ID. */
status_t acpi_pptt_cpu(const void *table, uint32_t uid, struct acpi_pptt_cpu *out);

/** "thread", "core", "cluster", "package", "other", "none"; never NULL. */
const char *acpi_pptt_scope_name(unsigned scope);

#endif
