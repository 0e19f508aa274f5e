/** @file
 * CPUID decoding (see cpuid.h; the dump itself is collected by cpuid_dump.c). Register layouts follow the Intel SDM
 * Vol. 2A CPUID reference, Table 3-8 "Information Returned by CPUID Instruction" and Table 3-12
 * "Encoding of CPUID Leaf 2 Descriptors" [SDM-2A], and the AMD APM Vol. 3 Appendix E
 * "Obtaining Processor Information Via the CPUID Instruction" [APM-3].
 */
#include "boot/x86/cpuid.h"
#include "boot/x86/cpuid_priv.h"

#include "boot/plat.h"

/* ---- constants ---------------------------------------------------------------------- */



/* Feature bits as data. [SDM-2A] Table 3-8; [APM-3] E.3/E.4. */
#define CPUID_DTES64       ((struct cpuid_bit){ 0x1, 0, CPUID_ECX, 2 })
#define CPUID_PDCM         ((struct cpuid_bit){ 0x1, 0, CPUID_ECX, 15 })
#define CPUID_X2APIC       ((struct cpuid_bit){ 0x1, 0, CPUID_ECX, 21 })
#define CPUID_PSE          ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 3 })
#define CPUID_PAE          ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 6 })
#define CPUID_APIC         ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 9 })
#define CPUID_DS           ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 21 })
#define CPUID_HTT          ((struct cpuid_bit){ 0x1, 0, CPUID_EDX, 28 })
#define CPUID_APERFMPERF   ((struct cpuid_bit){ 0x6, 0, CPUID_ECX, 0 })
#define CPUID_ARCH_LBR     ((struct cpuid_bit){ 0x7, 0, CPUID_EDX, 19 })
#define CPUID_LBR_TIMED    ((struct cpuid_bit){ 0x1c, 0, CPUID_ECX, 1 })
#define CPUID_NX           ((struct cpuid_bit){ 0x80000001, 0, CPUID_EDX, 20 })
#define CPUID_PDPE1GB      ((struct cpuid_bit){ 0x80000001, 0, CPUID_EDX, 26 })
#define CPUID_RDTSCP       ((struct cpuid_bit){ 0x80000001, 0, CPUID_EDX, 27 })
#define CPUID_INVTSC       ((struct cpuid_bit){ 0x80000007, 0, CPUID_EDX, 8 })
/* AMD only: on Intel these 80000001H:ECX bits are reserved. [APM-3] E.4.2 */
#define CPUID_AMD_IBS      ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 10 })
#define CPUID_AMD_PERFCTR_CORE ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 23 })
#define CPUID_AMD_PERFCTR_NB   ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 24 })
#define CPUID_AMD_PERFCTR_LLC  ((struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 28 })
#define CPUID_AMD_PERFMON_V2   ((struct cpuid_bit){ 0x80000022, 0, CPUID_EAX, 0 })
#define CPUID_HYBRID           ((struct cpuid_bit){ 0x7, 0, CPUID_EDX, 15 })
#define CPUID_AMD_LFENCE_SERIALIZING ((struct cpuid_bit){ 0x80000021, 0, CPUID_EAX, 2 })
#define CPUID_ARCH_PERFMON_EXT ((struct cpuid_bit){ 0x7, 1, CPUID_EAX, 8 })
/* [APM-3] CPUID Fn8000_0026 EAX[30] HeterogeneousCores; EBX[31:28] CoreType (0 performance,
 * 1 efficiency); Linux X86_FEATURE_AMD_HETEROGENEOUS_CORES, topology_amd.c. */
#define CPUID_AMD_HETERO       ((struct cpuid_bit){ 0x80000026, 0, CPUID_EAX, 30 })

/* Leaf 23H (architectural performance monitoring extended): sub-leaf 0 EAX = bitmap of the
 * valid sub-leaves; sub-leaf 1 EAX = general-purpose counter bitmap, EBX = fixed counter
 * bitmap; sub-leaf 3 EAX = architectural events supported (bit set = supported). [SDM-2A]
 * CPUID leaf 23H; Linux update_pmu_cap() (ARCH_PERFMON_NUM_COUNTER_LEAF, _EVENTS_LEAF). */
#define LEAF23_COUNTERS 1
#define LEAF23_EVENTS   3

/* IBS capabilities when CPUID 8000001BH is absent or IbsFFV is clear: fetch and op sampling
 * (Linux amd/ibs.c IBS_CAPS_DEFAULT). [APM-3] CPUID Fn8000_001B */
#define IBS_CAPS_AVAIL    BIT_ULL(0)
#define IBS_CAPS_FETCHSAM BIT_ULL(1)
#define IBS_CAPS_OPSAM    BIT_ULL(2)

/* ---- types -------------------------------------------------------------------------- */

/** A bool field of struct cpu_info and the CPUID bit it mirrors. */
struct feature_map {
        size_t           offset;
        struct cpuid_bit bit;
};

/* ---- private data ------------------------------------------------------------------- */

static const struct feature_map common_features[] = {
        { offsetof(struct cpu_info, hypervisor), CPUID_HYPERVISOR },
        { offsetof(struct cpu_info, pse), CPUID_PSE },
        { offsetof(struct cpu_info, pae), CPUID_PAE },
        { offsetof(struct cpu_info, apic), CPUID_APIC },
        { offsetof(struct cpu_info, x2apic), CPUID_X2APIC },
        { offsetof(struct cpu_info, nx), CPUID_NX },
        { offsetof(struct cpu_info, pdpe1gb), CPUID_PDPE1GB },
        { offsetof(struct cpu_info, rdtscp), CPUID_RDTSCP },
        { offsetof(struct cpu_info, tsc_invariant), CPUID_INVTSC },
        { offsetof(struct cpu_info, aperfmperf), CPUID_APERFMPERF },
        { offsetof(struct cpu_info, intel.pdcm), CPUID_PDCM },
        { offsetof(struct cpu_info, intel.ds), CPUID_DS },
        { offsetof(struct cpu_info, intel.dtes64), CPUID_DTES64 },
        { offsetof(struct cpu_info, intel.arch_lbr), CPUID_ARCH_LBR },
};

static const struct feature_map amd_features[] = {
        { offsetof(struct cpu_info, amd.ibs), CPUID_AMD_IBS },
        { offsetof(struct cpu_info, amd.perfctr_core), CPUID_AMD_PERFCTR_CORE },
        { offsetof(struct cpu_info, amd.perfctr_nb), CPUID_AMD_PERFCTR_NB },
        { offsetof(struct cpu_info, amd.perfctr_llc), CPUID_AMD_PERFCTR_LLC },
        { offsetof(struct cpu_info, amd.perfmon_v2), CPUID_AMD_PERFMON_V2 },
};

/* ---- private functions -------------------------------------------------------------- */

static void set_features(const struct cpuid_dump *d, struct cpu_info *out,
                         const struct feature_map *map, size_t n)
{
        for (size_t i = 0; i < n; i++)
                *(bool *)((char *)out + map[i].offset) = cpuid_dump_has(d, map[i].bit);
}

/** 12 ASCII bytes from three registers, NUL-terminated into @p s[13]. */
static void regs_to_str12(char s[13], uint32_t a, uint32_t b, uint32_t c)
{
        uint32_t w[3] = { a, b, c };

        for (unsigned i = 0; i < 12; i++)
                s[i] = (char)(w[i / 4] >> (8 * (i % 4)));
        s[12] = '\0';
}

static void decode_vendor(const struct cpuid_regs *r0, struct cpu_info *out)
{
        regs_to_str12(out->vendor_str, r0->ebx, r0->edx, r0->ecx);
        if (!strcmp(out->vendor_str, "GenuineIntel"))
                out->vendor = VEN_INTEL;
        else if (!strcmp(out->vendor_str, "AuthenticAMD"))
                out->vendor = VEN_AMD;
        else if (!strcmp(out->vendor_str, "HygonGenuine"))
                out->vendor = VEN_HYGON;
        else
                out->vendor = VEN_OTHER;
}

/* Display family/model. [SDM-2A] CPUID, Figure 3-6 and the text under it; [APM-3] E.3.2 */
static void decode_signature(uint32_t eax, struct cpu_info *out)
{
        uint32_t base_fam = bits(eax, 11, 8), base_model = bits(eax, 7, 4);

        out->signature = eax;
        out->stepping  = bits(eax, 3, 0);
        out->family    = base_fam == 0xf ? base_fam + bits(eax, 27, 20) : base_fam;
        out->model     = (base_fam == 0x6 || base_fam == 0xf)
                                 ? (bits(eax, 19, 16) << 4) | base_model : base_model;
}

static void decode_brand(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r;
        size_t            n = 0, start = 0;

        if (out->max_ext_leaf < 0x80000004)
                return;
        for (uint32_t l = 0x80000002; l <= 0x80000004; l++) {
                cpuid_dump_get(d, l, 0, &r);
                for (unsigned reg = CPUID_EAX; reg <= CPUID_EDX; reg++)
                        for (unsigned b = 0; b < 4; b++)
                                out->brand[n++] = (char)(reg_of(&r, (enum cpuid_reg)reg) >> (8 * b));
        }
        out->brand[48] = '\0';
        n              = strlen(out->brand);
        while (n > 0 && out->brand[n - 1] == ' ')
                out->brand[--n] = '\0';
        while (out->brand[start] == ' ')
                start++;
        memmove(out->brand, out->brand + start, n - start + 1);
}

/* TSC from leaf 15H: TSC Hz = ECX * EBX / EAX [SDM-2A] Table 3-8. When ECX (crystal Hz) is 0,
 * derive the crystal from leaf 16H base MHz as Linux native_calibrate_tsc() does, in kHz with
 * the same truncation: crystal_khz = base_mhz * 1000 * EAX / EBX. */
static void decode_tsc(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r15, r16;

        if (out->max_leaf >= 0x16 && cpuid_dump_get(d, 0x16, 0, &r16)) {
                out->base_mhz = bits(r16.eax, 15, 0);
                out->max_mhz  = bits(r16.ebx, 15, 0);
                out->bus_mhz  = bits(r16.ecx, 15, 0);
        }
        if (out->max_leaf < 0x15 || !cpuid_dump_get(d, 0x15, 0, &r15) || !r15.eax || !r15.ebx)
                return;
        if (r15.ecx) {
                out->tsc_hz_cpuid  = (uint64_t)r15.ecx * r15.ebx / r15.eax;
                out->tsc_hz_source = "CPUID 0x15";
        } else if (out->base_mhz) {
                uint64_t crystal_khz = (uint64_t)out->base_mhz * 1000 * r15.eax / r15.ebx;

                out->tsc_hz_cpuid  = crystal_khz * r15.ebx / r15.eax * 1000;
                out->tsc_hz_source = "CPUID 0x15, crystal from 0x16 base MHz";
        }
}

/** Counters 0..n-1 all set in @p mask: the n of a "number of counters" field. */
static uint8_t low_ones(uint32_t mask)
{
        uint8_t n = 0;

        while (n < 32 && (mask & (1u << n)))
                n++;
        return n;
}

/* Alder Lake / Raptor Lake hybrid performance cores (06_97H, 06_9AH, 06_B7H, 06_BAH, 06_BFH)
 * have no leaf 23H, and leaf 0AH gives the counters both core types share (6 GP, 3 fixed);
 * the Golden Cove / Raptor Cove core has 8 GP and 4 fixed (fixed 3: TOPDOWN.SLOTS), which
 * Linux adds for the big core (arch/x86/events/intel/core.c intel_pmu_init, Alder Lake:
 * num_counters + 2, num_counters_fixed + 1). */
static bool adl_big_core(const struct cpu_info *out)
{
        static const uint8_t models[] = { 0x97, 0x9a, 0xb7, 0xba, 0xbf };

        if (out->vendor != VEN_INTEL || out->family != 6 || !out->hybrid ||
            out->core_type != CPU_CORE_CORE)
                return false;
        for (size_t i = 0; i < ARRAY_SIZE(models); i++)
                if (out->model == models[i])
                        return true;
        return false;
}

/* Leaf 23H, when CPUID.(7,1):EAX[8] says it exists: the counter bitmaps replace leaf 0AH's
 * counts, and the supported architectural events replace EBX (leaf 0AH is the same on every
 * core of a hybrid part; leaf 23H is each core type's own). */
static bool decode_pmu_leaf23(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpu_pmu_intel *p = &out->intel;
        struct cpuid_regs     r0, r;
        bool                  counters = false;

        if (out->max_leaf < 0x23 || !cpuid_dump_has(d, CPUID_ARCH_PERFMON_EXT) ||
            !cpuid_dump_get(d, 0x23, 0, &r0))
                return false;
        if ((r0.eax & (1u << LEAF23_COUNTERS)) && cpuid_dump_get(d, 0x23, LEAF23_COUNTERS, &r)) {
                counters           = true;
                p->gp_mask         = r.eax;
                p->n_gp            = low_ones(r.eax);
                p->fixed_mask      = r.ebx;
                p->n_fixed         = low_ones(r.ebx);
                p->counters_source = "CPUID 0x23.1";
        }
        if ((r0.eax & (1u << LEAF23_EVENTS)) && cpuid_dump_get(d, 0x23, LEAF23_EVENTS, &r))
                p->events_unavailable = ~r.eax & (p->ebx_len >= 32 ? UINT32_MAX
                                                                   : (1u << p->ebx_len) - 1);
        return counters;
}

/* Intel architectural perfmon, leaf 0AH: EAX version [7:0], GP counters [15:8], width
 * [23:16], EBX length [31:24]; EBX bit set = event unavailable; ECX fixed-counter mask (v5);
 * EDX fixed counters [4:0], width [12:5], AnyThread deprecated [15]. Fixed counter i exists
 * when ECX[i] || EDX[4:0] > i. [SDM-3B] "Architectural Performance Monitoring" */
static void decode_pmu_intel(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpu_pmu_intel *p = &out->intel;
        struct cpuid_regs     r;

        if (out->max_leaf >= 0xa && cpuid_dump_get(d, 0xa, 0, &r)) {
                p->version            = (uint8_t)bits(r.eax, 7, 0);
                p->n_gp               = (uint8_t)bits(r.eax, 15, 8);
                p->gp_width           = (uint8_t)bits(r.eax, 23, 16);
                p->ebx_len            = (uint8_t)bits(r.eax, 31, 24);
                p->events_unavailable = p->ebx_len >= 32 ? r.ebx
                                                         : r.ebx & (uint32_t)((1ull << p->ebx_len) - 1);
                if (p->version >= 2) {
                        p->n_fixed     = (uint8_t)bits(r.edx, 4, 0);
                        p->fixed_width = (uint8_t)bits(r.edx, 12, 5);
                        p->fixed_mask  = (p->version >= 5 ? r.ecx : 0) |
                                        (uint32_t)((1ull << p->n_fixed) - 1);
                }
                p->anythread_deprecated = r.edx & (1u << 15);
                p->gp_mask              = p->n_gp >= 32 ? UINT32_MAX : (1u << p->n_gp) - 1;
                p->counters_source      = "CPUID 0xA";
                if (!decode_pmu_leaf23(d, out) && adl_big_core(out)) {
                        p->n_gp            = (uint8_t)(p->n_gp + 2);
                        p->gp_mask         = (1u << p->n_gp) - 1;
                        p->n_fixed         = (uint8_t)(p->n_fixed + 1);
                        p->fixed_mask     |= (1u << p->n_fixed) - 1;
                        p->counters_source = "CPUID 0xA + 2 GP, 1 fixed on the hybrid big core "
                                             "(Linux intel_pmu_init, Alder Lake)";
                }
        }
        if (p->arch_lbr && out->max_leaf >= 0x1c && cpuid_dump_get(d, 0x1c, 0, &r)) {
                p->arch_lbr_depth_mask = (uint8_t)bits(r.eax, 7, 0);
                p->arch_lbr_cycles     = cpuid_dump_has(d, CPUID_LBR_TIMED);
                p->arch_lbr_ebx        = r.ebx;
                p->arch_lbr_ecx        = r.ecx;
        }
}

/* [APM-3] Fn8000_0001 ECX, Fn8000_0022 EBX (NumPerfCtrCore [3:0], LbrV2StackSize [9:4]),
 * Fn8000_001B EAX (IBS capabilities, valid when IbsFFV bit 0 is set). */
static void decode_pmu_amd(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpu_pmu_amd *p = &out->amd;
        struct cpuid_regs   r;

        set_features(d, out, amd_features, ARRAY_SIZE(amd_features));
        if (out->max_ext_leaf < 0x80000022)
                p->perfmon_v2 = false;
        p->lfence_serializing = out->max_ext_leaf >= 0x80000021 &&
                                cpuid_dump_has(d, CPUID_AMD_LFENCE_SERIALIZING);
        if (p->perfmon_v2 && cpuid_dump_get(d, 0x80000022, 0, &r)) {
                p->n_core       = (uint8_t)bits(r.ebx, 3, 0);
                p->lbr_v2_depth = (uint8_t)bits(r.ebx, 9, 4);
        } else {
                p->n_core = p->perfctr_core ? 6 : 4;
        }
        if (p->ibs) {
                p->ibs_caps = IBS_CAPS_FETCHSAM | IBS_CAPS_OPSAM;
                if (out->max_ext_leaf >= 0x8000001b && cpuid_dump_get(d, 0x8000001b, 0, &r) &&
                    (r.eax & IBS_CAPS_AVAIL))
                        p->ibs_caps = r.eax;
        }
}

/* Logical processors per package: the largest EBX[15:0] of the valid levels of leaf 1FH (or
 * 0BH), else CPUID.01H:EBX[23:16] when HTT is set. [SDM-2A] leaves 0BH/1FH */
static void decode_topology(const struct cpuid_dump *d, struct cpu_info *out, uint32_t leaf1_ebx)
{
        static const uint32_t topo_leaves[] = { 0x1f, 0xb };
        struct cpuid_regs     r;

        out->initial_apic_id = bits(leaf1_ebx, 31, 24);
        for (size_t i = 0; i < ARRAY_SIZE(topo_leaves); i++) {
                uint32_t leaf = topo_leaves[i], n = 0;

                if (out->max_leaf < leaf || !cpuid_dump_get(d, leaf, 0, &r) || !bits(r.ebx, 15, 0))
                        continue;
                out->initial_apic_id = r.edx;
                for (uint32_t s = 0; s < SUBLEAF_MAX && cpuid_dump_get(d, leaf, s, &r); s++) {
                        if (!level_type_null(&r) && bits(r.ebx, 15, 0) > n)
                                n = bits(r.ebx, 15, 0);
                        if (level_type_null(&r))
                                break;
                }
                out->n_logical_per_pkg = n;
                return;
        }
        out->n_logical_per_pkg = cpuid_dump_has(d, CPUID_HTT) ? bits(leaf1_ebx, 23, 16) : 1;
}

/* ---- public functions --------------------------------------------------------------- */

/* Intel CPUID.07H:EDX[15] and the core type of CPUID.1AH:EAX[31:24] [SDM-2A]; AMD
 * heterogeneous cores CPUID 80000026H.0:EAX[30] and EBX[31:28] [APM-3]. Each leaf only where
 * the basic / extended range reaches it. */
bool cpuid_dump_hybrid(const struct cpuid_dump *d, uint8_t *core_type)
{
        struct cpuid_regs r0, rx, r;
        uint32_t          max_ext = 0;

        *core_type = 0;
        if (!cpuid_dump_get(d, 0, 0, &r0))
                return false;
        if (cpuid_dump_get(d, LEAF_EXT, 0, &rx) && (rx.eax & 0xffff0000u) == LEAF_EXT)
                max_ext = rx.eax;
        if (r0.eax >= 7 && cpuid_dump_has(d, CPUID_HYBRID)) {
                if (r0.eax >= 0x1a && cpuid_dump_get(d, 0x1a, 0, &r))
                        *core_type = (uint8_t)bits(r.eax, 31, 24);
                return true;
        }
        if (max_ext >= 0x80000026 && cpuid_dump_has(d, CPUID_AMD_HETERO) &&
            cpuid_dump_get(d, 0x80000026, 0, &r)) {
                *core_type = bits(r.ebx, 31, 28) == 0 ? CPU_CORE_CORE : CPU_CORE_ATOM;
                return true;
        }
        return false;
}

status_t cpu_decode(const struct cpuid_dump *d, struct cpu_info *out)
{
        struct cpuid_regs r0, r1, r;

        if (!d || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (!cpuid_dump_get(d, 0, 0, &r0))
                return ST_BAD_DATA;

        out->max_leaf = r0.eax;
        decode_vendor(&r0, out);
        if (cpuid_dump_get(d, LEAF_EXT, 0, &r) && (r.eax & 0xffff0000u) == LEAF_EXT)
                out->max_ext_leaf = r.eax;
        if (out->max_leaf >= 1 && cpuid_dump_get(d, 1, 0, &r1)) {
                decode_signature(r1.eax, out);
                decode_topology(d, out, r1.ebx);
        }
        set_features(d, out, common_features, ARRAY_SIZE(common_features));
        if (out->hypervisor && cpuid_dump_get(d, LEAF_HV_BASE, 0, &r))
                regs_to_str12(out->hv_vendor, r.ebx, r.ecx, r.edx);
        decode_brand(d, out);
        decode_tsc(d, out);
        out->phys_addr_bits = 36;
        if (out->max_ext_leaf >= 0x80000008 && cpuid_dump_get(d, 0x80000008, 0, &r) &&
            (r.eax & 0xff))
                out->phys_addr_bits = (uint8_t)(r.eax & 0xff);

        bool amd_like = out->vendor == VEN_AMD || out->vendor == VEN_HYGON;

        out->hybrid = cpuid_dump_hybrid(d, &out->core_type);
        cpuid_decode_caches_tlbs(d, out, amd_like);
        if (amd_like)
                decode_pmu_amd(d, out);
        decode_pmu_intel(d, out);
        return ST_OK;
}
