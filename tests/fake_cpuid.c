/** @file
 * Test double for cpuid_dump_collect() (boot/x86/cpuid_collect.c): the tests that run the
 * whole program on the fake platform see one recorded processor, whatever CPU the host has,
 * so that what they expect (cache sizes, the NUMA buffer they imply, TLB figures) does not
 * change from machine to machine. The processor is tests/data/cpuid/amd-epyc-genoa-kvm.txt,
 * the machine these tests' figures were first written on (see the README there).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/cpuid_dump.h"

#define FAKE_CPUID_FILE "tests/data/cpuid/amd-epyc-genoa-kvm.txt"

void cpuid_dump_collect(struct cpuid_dump *d)
{
        status_t st = cpuid_dump_load(FAKE_CPUID_FILE, d);

        if (st != ST_OK) {
                fprintf(stderr, "fake_cpuid: %s: %s (tests run from the repository root)\n",
                        FAKE_CPUID_FILE, status_str(st));
                abort();
        }
}
