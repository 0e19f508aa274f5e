/** @file x86 topology from CPUID (see topology.h). */
#include "boot/x86/topology.h"

#include "boot/x86/cpuid_priv.h"

#define LEVEL_SMT 1u   /* CPUID.0BH/1FH:ECX[15:8] level types [SDM-2A] */

static uint8_t ceil_log2(uint32_t n)
{
        uint8_t s = 0;

        while (s < 31 && (1u << s) < n)
                s++;
        return s;
}

/* Leaf 0x1F or 0xB: x2APIC ID, SMT shift (the SMT level's EAX[4:0]) and package shift (the
 * last valid level's). False when the leaf is missing or says nothing. */
static bool from_levels(const struct cpuid_dump *d, uint32_t leaf, struct cpu_topology *t)
{
        struct cpuid_regs r, r0;

        if (!cpuid_dump_get(d, 0, 0, &r0) || r0.eax < leaf || !cpuid_dump_get(d, leaf, 0, &r) ||
            !bits(r.ebx, 15, 0))
                return false;
        t->apic_id = r.edx;
        for (uint32_t s = 0; s < SUBLEAF_MAX && cpuid_dump_get(d, leaf, s, &r); s++) {
                uint32_t type = bits(r.ecx, 15, 8);

                if (!type)
                        break;
                if (type == LEVEL_SMT)
                        t->smt_shift = (uint8_t)bits(r.eax, 4, 0);
                t->pkg_shift = (uint8_t)bits(r.eax, 4, 0);
        }
        t->source = leaf == 0x1f ? "CPUID 0x1F" : "CPUID 0xB";
        return true;
}

/* Without leaf 0xB, as Linux parse_legacy() and parse_8000_001e() (arch/x86/kernel/cpu/
 * topology_common.c, topology_amd.c): the initial APIC ID of leaf 1; the package shift from
 * the logical-processor count of leaf 1 (HTT), or AMD's ApicIdCoreIdSize (0x80000008
 * ECX[15:12]); the SMT shift from the package's logical processors over its cores (Intel leaf 4
 * EAX[31:26] + 1: a Hyper-Threading Atom 330 has 4 logical processors in 2 cores, shift 1),
 * or on AMD family 17h and later with TOPOEXT from 0x8000001E EBX[15:8] threads per core - 1
 * (family 15h gives cores per compute unit there, not threads), read only when the extended
 * range reaches it. */
static void from_legacy(const struct cpuid_dump *d, struct cpu_topology *t)
{
        struct cpuid_regs r, r0, rx;
        uint32_t          n = 1, family = 0, max_ext = 0;
        bool              amd = false;

        if (cpuid_dump_get(d, 0, 0, &r0))
                amd = r0.ebx == 0x68747541 || r0.ebx == 0x6f677948; /* "Auth", "Hygo" */
        if (cpuid_dump_get(d, 0x80000000, 0, &rx) && (rx.eax & 0xffff0000u) == 0x80000000u)
                max_ext = rx.eax;
        if (cpuid_dump_get(d, 1, 0, &r)) {
                t->apic_id = bits(r.ebx, 31, 24);
                family     = bits(r.eax, 11, 8) == 0xf ? 0xf + bits(r.eax, 27, 20)
                                                      : bits(r.eax, 11, 8);
                if (bits(r.edx, 28, 28)) /* HTT: EBX[23:16] is meaningful */
                        n = bits(r.ebx, 23, 16);
        }
        t->pkg_shift = ceil_log2(n);
        if (!amd && n > 1 && r0.eax >= 4 && cpuid_dump_get(d, 4, 0, &r) && bits(r.eax, 4, 0)) {
                uint8_t core_shift = ceil_log2(bits(r.eax, 31, 26) + 1);

                t->smt_shift = t->pkg_shift > core_shift ? t->pkg_shift - core_shift : 0;
        }
        if (amd && max_ext >= 0x80000008 && cpuid_dump_get(d, 0x80000008, 0, &r) &&
            bits(r.ecx, 15, 12))
                t->pkg_shift = (uint8_t)bits(r.ecx, 15, 12);
        if (amd && family >= 0x17 && max_ext >= 0x8000001e &&
            cpuid_dump_has(d, CPUID_AMD_TOPOEXT) && cpuid_dump_get(d, 0x8000001e, 0, &r) &&
            bits(r.ebx, 15, 8))
                t->smt_shift = ceil_log2(bits(r.ebx, 15, 8) + 1);
        t->source = "CPUID 1";
}

/* The deepest cache level's sharing field: EAX[25:14] + 1 addressable IDs share it; and the
 * L2's (data or unified), which says whether cores share one (a module). */
static void last_level_cache(const struct cpuid_dump *d, struct cpu_topology *t)
{
        static const uint32_t leaves[] = { 4, 0x8000001d };
        struct cpuid_regs     r;

        for (size_t i = 0; i < ARRAY_SIZE(leaves); i++)
                for (uint32_t s = 0; s < SUBLEAF_MAX && cpuid_dump_get(d, leaves[i], s, &r); s++) {
                        uint8_t level = (uint8_t)bits(r.eax, 7, 5);

                        if (!bits(r.eax, 4, 0)) /* null cache type ends the list */
                                break;
                        if (level == 2 && bits(r.eax, 4, 0) != 2) /* 2: instruction cache */
                                t->l2_shift = ceil_log2(bits(r.eax, 25, 14) + 1);
                        if (level < t->llc_level)
                                continue;
                        t->llc_level = level;
                        t->llc_shift = ceil_log2(bits(r.eax, 25, 14) + 1);
                }
}

/* The data and unified caches' sizes by level (leaf 4, or 0x8000001D on AMD), as this CPU
 * reports them: ways x partitions x line x sets, each field + 1. [SDM-2A] CPUID leaf 04H. */
static void cache_sizes(const struct cpuid_dump *d, struct cpu_topology *t)
{
        static const uint32_t leaves[] = { 4, 0x8000001d };
        struct cpuid_regs     r;

        for (size_t i = 0; i < ARRAY_SIZE(leaves); i++)
                for (uint32_t s = 0; s < SUBLEAF_MAX && cpuid_dump_get(d, leaves[i], s, &r); s++) {
                        uint32_t type  = bits(r.eax, 4, 0);
                        uint32_t level = bits(r.eax, 7, 5);

                        if (!type)
                                break;
                        if (type == 2 || level < 1 || level > TOPO_CACHE_LEVELS) /* 2: code */
                                continue;
                        t->cache_bytes[level - 1] = (uint64_t)(bits(r.ebx, 31, 22) + 1) *
                                                    (bits(r.ebx, 21, 12) + 1) *
                                                    (bits(r.ebx, 11, 0) + 1) * ((uint64_t)r.ecx + 1);
                }
}

/* Hybrid parts as cpu_decode() says (struct cpu_info hybrid, core_type): Intel CPUID.07H:EDX[15]
 * and CPUID.1AH:EAX[31:24] (0x20 Atom, 0x40 Core); AMD heterogeneous cores (Zen 5 with Zen 5c,
 * Strix Point) CPUID 80000026H EAX[30] and EBX[31:28], efficiency cores as 0x20. */
static void core_type(const struct cpuid_dump *d, struct cpu_topology *t)
{
        t->hybrid = cpuid_dump_hybrid(d, &t->core_type);
}

void cpu_topology_decode(const struct cpuid_dump *d, struct cpu_topology *out)
{
        *out = (struct cpu_topology){ 0 };
        if (!from_levels(d, 0x1f, out) && !from_levels(d, 0xb, out))
                from_legacy(d, out);
        last_level_cache(d, out);
        cache_sizes(d, out);
        core_type(d, out);
        if (!out->llc_level)
                out->llc_shift = out->pkg_shift;
        out->package    = out->apic_id >> out->pkg_shift;
        out->core       = out->apic_id >> out->smt_shift;
        out->thread     = out->apic_id & ((1u << out->smt_shift) - 1);
        out->llc_domain = out->apic_id >> out->llc_shift;
        /* An L2 shared by more than one core, below a larger L3: the cores of a module (the
         * E-cores of Alder Lake and later share one L2 by four). [SDM-2A] CPUID leaf 04H
         * EAX[25:14]; the core type is leaf 1AH's. */
        if (out->l2_shift > out->smt_shift && out->llc_level >= 3 &&
            out->l2_shift < out->llc_shift) {
                out->group   = TOPO_GROUP_MODULE;
                out->cluster = out->apic_id >> out->l2_shift;
        }
}
