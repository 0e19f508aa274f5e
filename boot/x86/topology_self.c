/** @file The calling processor's topology: collect the CPUID leaves the decoder reads and
 *  decode them (see boot/topology.h). In a file of its own so that tests can put a double in
 *  its place that answers for the test platform's processors. */
#include "boot/x86/topology.h"

#include "boot/x86/cpuid_priv.h"

void cpu_topology_self(struct cpu_topology *out)
{
        static const uint32_t plain[]  = { 0, 1, 7, 0x1a, 0x80000000, 0x80000008, 0x8000001e,
                                           0x80000026 };
        static const uint32_t walked[] = { 4, 0xb, 0x1f, 0x8000001d };
        struct cpuid_dump     d; /* 12 KiB of stack; UEFI gives an AP 32 KiB */
        struct cpuid_regs     r;

        uint32_t              max_basic = 0, max_ext = 0;

        d.n = 0;
        /* a leaf past the range the CPU reports is not read: Intel answers it with the data
         * of the highest basic leaf [SDM-2A] CPUID */
        for (size_t i = 0; i < ARRAY_SIZE(plain); i++) {
                uint32_t leaf = plain[i];

                if (leaf >= 0x80000000 ? leaf != 0x80000000 && leaf > max_ext
                                       : leaf && leaf > max_basic)
                        continue;
                cpuid_raw(leaf, 0, &r);
                d.leaves[d.n++] = (struct cpuid_leaf){ leaf, 0, r };
                if (leaf == 0)
                        max_basic = r.eax;
                if (leaf == 0x80000000 && (r.eax & 0xffff0000u) == 0x80000000u)
                        max_ext = r.eax;
        }
        for (size_t i = 0; i < ARRAY_SIZE(walked); i++) {
                uint32_t leaf = walked[i];
                uint32_t max  = leaf >= 0x80000000 ? max_ext : max_basic;
                bool     cache = leaf == 4 || leaf == 0x8000001d;

                for (uint32_t s = 0; leaf <= max && s < 16; s++) {
                        cpuid_raw(leaf, s, &r);
                        d.leaves[d.n++] = (struct cpuid_leaf){ leaf, s, r };
                        if (cache ? !bits(r.eax, 4, 0) : !bits(r.ecx, 15, 8))
                                break;
                }
        }
        cpu_topology_decode(&d, out);
}
