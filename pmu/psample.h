/** @file
 * One decoded precise sample, the common currency between the vendor decoders (pmu/x86/ibs.c for
 * AMD IBS op samples, pmu/x86/pebs.c for Intel PEBS load-latency records) and the reports and
 * validation checks above them (report/x86/samples*.c). A decoder fills what its hardware reports
 * and leaves the rest zero with the matching *_valid / *_known flag false; nothing above the
 * decoders looks at vendor bits again. Portable: no UEFI types, no code beyond name lookups.
 */
#ifndef PMUCAL_PSAMPLE_H
#define PMUCAL_PSAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/plat.h"

/** Where the sampled load's data came from, as far as the hardware says. */
enum psample_level {
        PS_LVL_UNKNOWN = 0,  /* no data-source information (not a load, invalid, reserved) */
        PS_LVL_L1,
        PS_LVL_LFB,          /* Intel fill buffer / AMD miss-address buffer hit */
        PS_LVL_L2,
        PS_LVL_L3,           /* this core's own L3 / CCX L3 */
        PS_LVL_LOCAL_DRAM,
        PS_LVL_REMOTE_DRAM,
        PS_LVL_REMOTE_CACHE, /* another core complex's or socket's cache */
        PS_LVL_OTHER_MEM,    /* PMEM, CXL, L4/eDRAM, memory-side cache */
        PS_LVL_IO,
        PS_LVL_UNCACHED,
        PS_LVL__COUNT
};

/** Page size of the translation that served the access. */
enum psample_pgsz { PS_PG_UNKNOWN = 0, PS_PG_4K, PS_PG_2M, PS_PG_1G };

/** One precise sample. Latencies are core cycles as the hardware counts them. */
struct psample {
        uint64_t ip;              /* the sampled instruction */
        bool     ip_valid;
        bool     ip_exact;        /* false: PEBS fmt 0/1 reports the next instruction */
        uint64_t data_la;         /* data linear address */
        bool     data_la_valid;
        uint64_t data_pa;         /* data physical address (IBS only) */
        bool     data_pa_valid;
        uint32_t lat_cycles;      /* IBS DcMissLat (misses only); PEBS load latency */
        bool     lat_valid;
        uint32_t retire_lat_cycles; /* IBS TagToRetCtr; PEBS ADL+ instruction latency */
        uint64_t tsc;             /* PEBS fmt 3+ only, else 0 */
        bool     is_load, is_store;
        bool     l1_miss_known, l1_miss; /* IBS DcMiss; PEBS: derived from the level */
        enum psample_level level;
        bool     remote;          /* serviced by another node/socket */
        uint16_t src_raw;         /* vendor data-source code, for reports */
        bool     tlb_l1_known, tlb_l1_miss; /* first-level DTLB (IBS only) */
        bool     tlb_l2_known, tlb_l2_miss; /* second-level DTLB / Intel STLB */
        enum psample_pgsz pgsz;
        bool     locked;
};

/** Short name of @p l ("L1", "local-DRAM"); never NULL. */
static inline const char *psample_level_name(enum psample_level l)
{
        switch (l) {
        case PS_LVL_L1:           return "L1";
        case PS_LVL_LFB:          return "LFB";
        case PS_LVL_L2:           return "L2";
        case PS_LVL_L3:           return "L3";
        case PS_LVL_LOCAL_DRAM:   return "local-DRAM";
        case PS_LVL_REMOTE_DRAM:  return "remote-DRAM";
        case PS_LVL_REMOTE_CACHE: return "remote-cache";
        case PS_LVL_OTHER_MEM:    return "other-mem";
        case PS_LVL_IO:           return "IO";
        case PS_LVL_UNCACHED:     return "uncached";
        case PS_LVL_UNKNOWN:
        case PS_LVL__COUNT:       break;
        }
        return "unknown";
}

/** Short name of @p p ("4K", "2M", "1G", "unknown"); never NULL. */
static inline const char *psample_pgsz_name(enum psample_pgsz p)
{
        return p == PS_PG_4K ? "4K" : p == PS_PG_2M ? "2M" : p == PS_PG_1G ? "1G" : "unknown";
}

/** The psample page size for a page kind the platform mapped a buffer with. */
static inline enum psample_pgsz psample_pgsz_from_plat(enum plat_page_kind k)
{
        return k == PLAT_PAGE_4K ? PS_PG_4K : k == PLAT_PAGE_2M ? PS_PG_2M : PS_PG_1G;
}

#endif
