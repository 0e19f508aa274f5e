/** @file
 * The description of one processor that every layer reads: vendor, family/model/stepping,
 * brand, TSC facts, caches, TLBs and the core PMU's capabilities, in one struct cpu_info.
 * Architecture-neutral: x86-64 fills it from CPUID (boot/x86/cpuid.h: cpu_decode), AArch64
 * from its ID registers (boot/arm64/idreg.h, put in by app/arm64/gather.c); fields with no
 * source on an architecture stay zero (the Intel and AMD PMU records on AArch64, for one).
 * The names of its enumerations are in boot/cpu_info.c. Portable: no UEFI types.
 */
#ifndef PMUCAL_BOOT_CPU_INFO_H
#define PMUCAL_BOOT_CPU_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base.h"

enum cpu_vendor { VEN_UNKNOWN = 0, VEN_INTEL, VEN_AMD, VEN_HYGON, VEN_OTHER, VEN_ARM };

enum cpu_cache_type { CACHE_NULL = 0, CACHE_DATA = 1, CACHE_INST = 2, CACHE_UNIFIED = 3 };

/* struct cpu_cache.ways / struct cpu_tlb.ways when the source gives no associativity (a leaf 2
 * descriptor such as 0x50 "64 entries" with none, a quirk row): not 0, which means fully
 * associative. */
#define CPU_WAYS_UNKNOWN UINT32_MAX

struct cpu_cache {
        uint8_t             level;          /* 1, 2, 3, 4 */
        enum cpu_cache_type type;
        uint64_t            size_bytes;
        uint32_t            ways;           /* 0 = fully associative; CPU_WAYS_UNKNOWN */
        uint32_t            line_bytes;
        uint32_t            sets;
        uint32_t            n_sharing;      /* leaf 4 / 0x8000001D EAX[25:14] + 1: addressable
                                             * IDs of the sharing field (not a CPU count) */
        bool                inclusive;
        const char         *source;         /* NULL: CPUID describes it; else the quirk row's
                                             * citation (a cache CPUID does not list) */
};

/* struct cpu_info.core_type: the Intel CPUID.1AH codes; an AMD efficiency core is reported
 * as CPU_CORE_ATOM, a performance core as CPU_CORE_CORE (the class, not the microarchitecture). */
#define CPU_CORE_ATOM 0x20
#define CPU_CORE_CORE 0x40

enum cpu_tlb_type { TLB_DATA = 1, TLB_INST = 2, TLB_UNIFIED = 3, TLB_LOAD = 4, TLB_STORE = 5 };

/* Page-size bit mask for struct cpu_tlb.page_sizes. */
#define TLB_PG_4K BIT_ULL(0)
#define TLB_PG_2M BIT_ULL(1)
#define TLB_PG_4M BIT_ULL(2)
#define TLB_PG_1G BIT_ULL(3)

struct cpu_tlb {
        uint8_t           level;      /* 1 = first level, 2 = second level (STLB / L2 TLB) */
        enum cpu_tlb_type type;
        uint32_t          page_sizes; /* TLB_PG_* */
        uint32_t          entries;
        uint32_t          ways;       /* 0 = fully associative; CPU_WAYS_UNKNOWN */
        const char       *source;     /* "leaf 2 descriptor 0x63", "leaf 0x18.1", "0x80000006" */
};

/** Intel architectural perfmon, CPUID leaf 0xA. [SDM-3B] "Architectural Performance
 *  Monitoring"; field layout also in Linux perf_event.h union cpuid10_eax/ebx/edx. */
struct cpu_pmu_intel {
        uint8_t  version;            /* 0: no architectural perfmon */
        uint8_t  n_gp;               /* general-purpose counters 0..n_gp-1 */
        uint32_t gp_mask;            /* general-purpose counters present (bit i = PMCi) */
        uint8_t  gp_width;
        uint8_t  ebx_len;            /* valid bits in events_unavailable */
        uint32_t events_unavailable; /* CPUID.0AH:EBX: bit set = arch event NOT available */
        uint8_t  n_fixed;            /* fixed counters 0..n_fixed-1 all present */
        uint8_t  fixed_width;
        uint32_t fixed_mask;         /* fixed counters present: CPUID.23H.1:EBX, else
                                      * CPUID.0AH:ECX (v5+) | EDX[4:0] counters */
        const char *counters_source; /* "CPUID 0xA", "CPUID 0x23.1", or the rule that added
                                      * counters CPUID does not enumerate */
        bool     anythread_deprecated;
        bool     pdcm;               /* CPUID.01H:ECX[15]: IA32_PERF_CAPABILITIES exists */
        bool     ds, dtes64;         /* CPUID.01H:EDX[21], ECX[2]: debug store for PEBS */
        bool     arch_lbr;           /* CPUID.07H.0:EDX[19] */
        uint8_t  arch_lbr_depth_mask;/* CPUID.1CH:EAX[7:0] */
        bool     arch_lbr_cycles;    /* CPUID.1CH:ECX[1] timed LBR */
        uint32_t arch_lbr_ebx;       /* CPUID.1CH:EBX: [0] CPL filter, [1] branch filter,
                                      * [2] call-stack mode */
        uint32_t arch_lbr_ecx;       /* CPUID.1CH:ECX: [0] mispredict, [1] timed, [2] type */
};

/** AMD core PMU and IBS. [APM-2] "Performance Monitoring Counters", PPR CPUID pages. */
struct cpu_pmu_amd {
        bool     perfctr_core;       /* CPUID.80000001H:ECX[23]: six extended core counters */
        bool     perfctr_nb;         /* ECX[24] */
        bool     perfctr_llc;        /* ECX[28] */
        bool     perfmon_v2;         /* CPUID.80000022H:EAX[0] */
        uint8_t  n_core;             /* from 0x80000022 EBX[3:0] when v2, else 4 or 6 */
        uint8_t  lbr_v2_depth;       /* 0x80000022 EBX[9:4] */
        bool     ibs;                /* CPUID.80000001H:ECX[10] */
        uint32_t ibs_caps;           /* CPUID.8000001BH:EAX (IBS_CAPS_* bits) */
        bool     lfence_serializing; /* CPUID.80000021H:EAX[2] LFenceAlwaysSerializing */
};

struct cpu_info {
        enum cpu_vendor vendor;
        char            vendor_str[13];
        char            brand[49];
        uint32_t        family, model, stepping; /* display values (extended fields folded in) */
        uint32_t        signature;               /* CPUID.01H:EAX */
        uint32_t        max_leaf, max_ext_leaf;
        bool            hypervisor;
        char            hv_vendor[13];           /* "TCGTCGTCGTCG", "KVMKVMKVM" */

        /* hybrid parts: Intel CPUID.07H:EDX[15] with CPUID.1AH:EAX[31:24]; AMD heterogeneous
         * cores CPUID 80000026H.0:EAX[30] with EBX[31:28] (0 performance, 1 efficiency) */
        bool    hybrid;
        uint8_t core_type;       /* CPU_CORE_* of this processor; 0: not said */

        /* TSC */
        bool     tsc_invariant;    /* CPUID.80000007H:EDX[8] */
        bool     rdtscp;           /* CPUID.80000001H:EDX[27] */
        uint64_t tsc_hz_cpuid;     /* from leaf 0x15 (with 0x16 crystal fallback); 0 = not given */
        const char *tsc_hz_source; /* "CPUID 0x15", "CPUID 0x15 crystal from 0x16", NULL */
        uint32_t base_mhz, max_mhz, bus_mhz; /* CPUID 0x16, 0 = not given */

        /* features pmucal cares about */
        bool pdpe1gb;              /* CPUID.80000001H:EDX[26]: 1 GiB pages */
        bool pse, pae, nx, x2apic, apic;
        bool aperfmperf;           /* CPUID.06H:ECX[0] */
        uint8_t phys_addr_bits;    /* CPUID.80000008H:EAX[7:0] MAXPHYADDR; 36 when not given
                                      ([SDM-2A] CPUID: the default without the leaf) */

        /* logical-processor counts from CPUID (per package) */
        uint32_t n_logical_per_pkg;
        uint32_t initial_apic_id;  /* of the CPU the dump came from */

        struct cpu_cache caches[16];
        size_t           n_caches;
        struct cpu_tlb   tlbs[32];
        size_t           n_tlbs;

        struct cpu_pmu_intel intel;
        struct cpu_pmu_amd   amd;
};

/** Entries of the TLBs at @p level whose type is in @p types (bit per enum cpu_tlb_type) and
 *  that can hold a page of @p page (TLB_PG_*). One rule for every consumer: leaf 0x18 rows of
 *  one type at one level are one structure described per page-size group, and add up (the
 *  Sunny Cove .. Lion Cove STLB is two rows, 4K/2M/4M and 4K/1G, whose 4K entries together are
 *  the published 2048); rows from leaf 2 descriptors or AMD's leaves are separate arrays (a
 *  micro-TLB beside a large-page DTLB), and so are different types (load and store TLBs): of
 *  those the largest counts. @p source (may be NULL) gets the source of the row (or first
 *  leaf 0x18 row) that counted. 0 when CPUID names none. */
static inline uint32_t cpu_tlb_entries(const struct cpu_info *ci, uint8_t level, unsigned types,
                                       uint32_t page, const char **source)
{
        uint32_t best = 0;

        if (source)
                *source = NULL;
        for (unsigned t = TLB_DATA; t <= TLB_STORE; t++) {
                uint32_t    sum18 = 0;
                const char *src18 = NULL;

                if (!(types & (1u << t)))
                        continue;
                for (size_t i = 0; i < ci->n_tlbs && i < sizeof(ci->tlbs) / sizeof(ci->tlbs[0]);
                     i++) {
                        const struct cpu_tlb *e = &ci->tlbs[i];

                        if (e->level != level || e->type != (enum cpu_tlb_type)t ||
                            !(e->page_sizes & page))
                                continue;
                        if (e->source && !strncmp(e->source, "leaf 0x18", 9)) {
                                sum18 += e->entries;
                                if (!src18)
                                        src18 = e->source;
                        } else if (e->entries > best) {
                                best = e->entries;
                                if (source)
                                        *source = e->source;
                        }
                }
                if (sum18 > best) {
                        best = sum18;
                        if (source)
                                *source = src18;
                }
        }
        return best;
}

/** "Intel", "AMD", ... never NULL. */
const char *cpu_vendor_name(enum cpu_vendor v);
const char *cpu_cache_type_name(enum cpu_cache_type t);
const char *cpu_tlb_type_name(enum cpu_tlb_type t);

#endif
