/** @file
 * Collecting a CPUID dump (see cpuid.h) from the processor this runs on: every leaf and
 * sub-leaf it reports. Sub-leaf walks follow [SDM-2A] CPUID (leaves 4, 7, 0xB, 0x18, 0x1F,
 * 0x23) and [APM-3] (0x8000001D, 0x80000026). Host tests that run the whole program link
 * tests/fake_cpuid.c instead, so that what they expect does not depend on the host's CPU.
 */
#include "boot/x86/cpuid_priv.h"

/** Append (leaf, subleaf) as the live CPU reports it; the registers go to @p out too. */
static void collect_one(struct cpuid_dump *d, uint32_t leaf, uint32_t sub, struct cpuid_regs *out)
{
        struct cpuid_regs r;

        cpuid_raw(leaf, sub, &r);
        if (out)
                *out = r;
        if (d->n < CPUID_DUMP_MAX)
                d->leaves[d->n++] = (struct cpuid_leaf){ .leaf = leaf, .subleaf = sub, .r = r };
}

/** Sub-leaves 1.. of @p leaf, until @p stop says the sub-leaf just read ends the list. */
static void collect_walk(struct cpuid_dump *d, uint32_t leaf, uint32_t last,
                         bool (*stop)(const struct cpuid_regs *r))
{
        struct cpuid_regs r;

        for (uint32_t s = 1; s <= last && s < SUBLEAF_MAX; s++) {
                collect_one(d, leaf, s, &r);
                if (stop && stop(&r))
                        break;
        }
}

static void collect_leaf(struct cpuid_dump *d, uint32_t leaf)
{
        struct cpuid_regs r0;

        collect_one(d, leaf, 0, &r0);
        switch (leaf) {
        case 0x4:
        case 0x8000001d:
                if (!cache_type_null(&r0))
                        collect_walk(d, leaf, SUBLEAF_MAX, cache_type_null);
                break;
        case 0xb:
        case 0x1f:
        case 0x80000026:
                if (!level_type_null(&r0))
                        collect_walk(d, leaf, SUBLEAF_MAX, level_type_null);
                break;
        case 0x7:
        case 0x18:
                collect_walk(d, leaf, r0.eax, NULL); /* EAX of sub-leaf 0 = last sub-leaf */
                break;
        case 0x23: /* EAX of sub-leaf 0: bit n set = sub-leaf n is valid */
                for (uint32_t s = 1; s < 32; s++)
                        if (r0.eax & (1u << s))
                                collect_one(d, leaf, s, NULL);
                break;
        default:
                break;
        }
}

void cpuid_dump_collect(struct cpuid_dump *d)
{
        struct cpuid_regs r;
        uint32_t          max;

        if (cpuid_dump_replayed()) { /* a recorded processor instead of this one */
                *d = *cpuid_dump_replayed();
                return;
        }
        d->n = 0;
        cpuid_raw(0, 0, &r);
        max = r.eax;
        for (uint32_t l = 0; l <= max && d->n < CPUID_DUMP_MAX; l++)
                collect_leaf(d, l);

        cpuid_raw(1, 0, &r);
        if (max >= 1 && (r.ecx & (1u << CPUID_HYPERVISOR.bit))) {
                cpuid_raw(LEAF_HV_BASE, 0, &r);
                uint32_t hv_max = r.eax < LEAF_HV_BASE ? LEAF_HV_BASE : r.eax;

                for (uint32_t l = LEAF_HV_BASE; l <= hv_max && l <= LEAF_HV_LAST; l++)
                        collect_one(d, l, 0, NULL);
        }

        cpuid_raw(LEAF_EXT, 0, &r);
        if ((r.eax & 0xffff0000u) != LEAF_EXT)
                return;
        max = r.eax < LEAF_EXT_MAX ? r.eax : LEAF_EXT_MAX;
        for (uint32_t l = LEAF_EXT; l <= max && d->n < CPUID_DUMP_MAX; l++)
                collect_leaf(d, l);
}
