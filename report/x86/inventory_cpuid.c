/** @file The CPUID dump as `cpuid -r` text (see inventory_cpuid.h). */
#include "report/x86/inventory_cpuid.h"

status_t inventory_cpuid_text(struct rep_buf *b, const struct cpuid_dump *d)
{
        status_t st = rep_buf_printf(b, "CPU 0:\n");

        for (size_t i = 0; i < d->n && st == ST_OK; i++) {
                const struct cpuid_leaf *l = &d->leaves[i];
                st = rep_buf_printf(b, "   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x "
                                    "edx=0x%08x\n", l->leaf, l->subleaf, l->r.eax, l->r.ebx,
                                    l->r.ecx, l->r.edx);
        }
        return st;
}
