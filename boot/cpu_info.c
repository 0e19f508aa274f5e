/** @file
 * Names of the CPU description's enumerations (boot/cpu_info.h: vendor, cache and TLB
 * types), shared by every architecture's decoder and by the report.
 */
#include "boot/cpu_info.h"

static const char *const vendor_names[] = {
        [VEN_UNKNOWN] = "unknown", [VEN_INTEL] = "Intel", [VEN_AMD] = "AMD",
        [VEN_HYGON] = "Hygon",     [VEN_OTHER] = "other",     [VEN_ARM] = "Arm",
};

static const char *const cache_type_names[] = {
        [CACHE_NULL] = "null", [CACHE_DATA] = "data", [CACHE_INST] = "instruction",
        [CACHE_UNIFIED] = "unified",
};

static const char *const tlb_type_names[] = {
        [TLB_DATA] = "data", [TLB_INST] = "instruction", [TLB_UNIFIED] = "unified",
        [TLB_LOAD] = "load", [TLB_STORE] = "store",
};

const char *cpu_vendor_name(enum cpu_vendor v)
{
        return (unsigned)v < ARRAY_SIZE(vendor_names) && vendor_names[v] ? vendor_names[v]
                                                                           : "unknown";
}

const char *cpu_cache_type_name(enum cpu_cache_type t)
{
        return (unsigned)t < ARRAY_SIZE(cache_type_names) && cache_type_names[t]
                       ? cache_type_names[t] : "unknown";
}

const char *cpu_tlb_type_name(enum cpu_tlb_type t)
{
        return (unsigned)t < ARRAY_SIZE(tlb_type_names) && tlb_type_names[t] ? tlb_type_names[t]
                                                                              : "unknown";
}
