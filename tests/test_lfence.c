/** @file Unit tests for boot/x86/lfence.c: LFENCE made dispatch-serializing as Linux init_amd()
 *  does, on real processors' CPUID (tests/data/cpuid/real/) and the fake MSR space. Zen 1 (EPYC
 *  7551P: extended leaves end at 0x8000001F, no 0x80000021) needs DE_CFG[1]; Zen 5 (Ryzen 7
 *  9700X: CPUID 0x80000021 EAX[2] = 1) does not; Intel never. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "boot/x86/lfence.h"
#include "boot/x86/msr_misc.h"
#include "tests/cpuid_dump.h"
#include "tests/fake_msr.h"

static struct cpu_info decode(const char *file)
{
        char               path[256];
        struct cpuid_dump *d = malloc(sizeof(*d));
        struct cpu_info    ci;

        snprintf(path, sizeof(path), "tests/data/cpuid/real/%s", file);
        assert_int_equal(cpuid_dump_load_cpu(path, 0, d, NULL), ST_OK);
        assert_int_equal(cpu_decode(d, &ci), ST_OK);
        free(d);
        return ci;
}

static const struct {
        const char         *file;
        bool                de_cfg_exists;
        uint64_t            de_cfg;     /* as found */
        enum x86_lfence_how how;
        size_t              writes;     /* by x86_lfence_serialize */
        status_t            st;
} cases[] = {
        { "intel-i7-12800hx-alderlake.txt", false, 0, LFENCE_ARCH, 0, ST_OK },
        { "amd-ryzen7-9700x-zen5.txt", true, 0, LFENCE_CPUID, 0, ST_OK },
        { "amd-epyc-7551p-zen1.txt", true, 0x2000, LFENCE_DE_CFG_SET, 1, ST_OK },
        { "amd-epyc-7551p-zen1.txt", true, 0x2002, LFENCE_DE_CFG_FOUND, 0, ST_OK },
        { "amd-epyc-7551p-zen1.txt", false, 0, LFENCE_NOT_SERIALIZING, 0, ST_FAULT },
        { "hygon-c86-3185.txt", true, 0, LFENCE_DE_CFG_SET, 1, ST_OK },
};

static void test_serialize_restore(void **state)
{
        (void)state;
        for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
                struct cpu_info   ci = decode(cases[k].file);
                struct x86_lfence s;

                print_message("case %zu %s\n", k, cases[k].file);
                fake_msr_setup(NULL);
                if (cases[k].de_cfg_exists)
                        fake_msr_add(MSR_AMD64_DE_CFG, cases[k].de_cfg);
                assert_int_equal(x86_lfence_serialize(&ci, &s), cases[k].st);
                assert_int_equal(s.how, cases[k].how);
                assert_int_equal(fake_msr_n_writes(), cases[k].writes);
                if (cases[k].how == LFENCE_DE_CFG_SET) {
                        assert_int_equal(fake_msr_peek(MSR_AMD64_DE_CFG),
                                         cases[k].de_cfg | DE_CFG_LFENCE_SERIALIZE);
                        x86_lfence_restore(&s);
                        x86_lfence_restore(&s); /* idempotent */
                        assert_int_equal(fake_msr_peek(MSR_AMD64_DE_CFG), cases[k].de_cfg);
                        assert_int_equal(fake_msr_n_writes(), 2);
                } else {
                        x86_lfence_restore(&s);
                        assert_int_equal(fake_msr_n_writes(), 0);
                        if (cases[k].de_cfg_exists)
                                assert_int_equal(fake_msr_peek(MSR_AMD64_DE_CFG), cases[k].de_cfg);
                }
                assert_non_null(x86_lfence_how_text(&s));
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_serialize_restore),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
