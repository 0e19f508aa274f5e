/** @file
 * The CPUID dump (see cpuid.h): looking a register or a feature bit up in a dump, and the
 * recorded processor cpuid_dump_collect() replays instead of the live one. The bottom
 * of the CPUID files: the decoders (cpuid.c, cpuid_cache.c) call into it, it calls neither.
 * Collecting a dump from the live CPU is cpuid_collect.c, a file of its own so that host tests
 * can link a recorded processor in its place (tests/fake_cpuid.c).
 */
#include "boot/x86/cpuid_priv.h"

bool cpuid_dump_get(const struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
                    struct cpuid_regs *out)
{
        if (out)
                *out = (struct cpuid_regs){ 0 };
        if (!d)
                return false;
        for (size_t i = 0; i < d->n && i < CPUID_DUMP_MAX; i++) {
                if (d->leaves[i].leaf == leaf && d->leaves[i].subleaf == subleaf) {
                        if (out)
                                *out = d->leaves[i].r;
                        return true;
                }
        }
        return false;
}

bool cpuid_dump_has(const struct cpuid_dump *d, struct cpuid_bit bit)
{
        struct cpuid_regs r;

        if (bit.bit > 31 || !cpuid_dump_get(d, bit.leaf, bit.subleaf, &r))
                return false;
        return (reg_of(&r, bit.reg) >> bit.bit) & 1;
}

static const struct cpuid_dump *replay; /* cpuid_dump_replay()'s recorded processor */

void cpuid_dump_replay(const struct cpuid_dump *d)
{
        replay = d;
}

bool cpuid_dump_replaying(void)
{
        return replay != NULL;
}

const struct cpuid_dump *cpuid_dump_replayed(void)
{
        return replay;
}
