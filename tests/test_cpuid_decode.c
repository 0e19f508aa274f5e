/** @file Unit tests for the table decoders of boot/x86/cpuid*.c on synthetic dumps: Intel's leaf 2
 *  descriptors, AMD's associativity encodings and legacy cache leaves, the TSC leaves 15H/16H,
 *  the signature and the name tables. (Recorded dumps, the loader and the live CPU:
 *  test_cpuid.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "boot/plat.h"
#include "boot/x86/cpuid.h"
#include "tests/cpuid_dump.h"

#define MB (1024ull * 1024)

static struct cpuid_dump *load(const char *file)
{
        struct cpuid_dump *d = cpuid_dump_load_recorded(file);

        assert_non_null(d);
        return d;
}

static struct cpuid_dump *empty_dump(const char *vendor, uint32_t max_leaf, uint32_t max_ext)
{
        struct cpuid_dump *d = cpuid_dump_new(vendor, max_leaf, max_ext);

        assert_non_null(d);
        return d;
}

/* ---- leaf 2 descriptors ([SDM-2A] Table 3-12) -------------------------------------------- */

static const struct {
        struct cpuid_regs r;
        size_t            n;
        struct { uint8_t level; enum cpu_tlb_type type; uint32_t pages, entries, ways; } t[2];
} leaf2_cases[] = {
        /* AL = 01H is an iteration count, not descriptor 01H */
        { { 0x00000001, 0, 0, 0 }, 0, { { 0 } } },
        /* SDM Example 3-1 (Pentium 4): 50H = ITLB 64 entries 4K/2M/4M; 5BH = DTLB 64 entries
         * 4K/4M (no associativity given: unknown, not fully associative); 66H and 70H/7AH
         * are caches */
        { { 0x665b5001, 0, 0, 0x007a7000 }, 2,
          { { 1, TLB_INST, TLB_PG_4K | TLB_PG_2M | TLB_PG_4M, 64, CPU_WAYS_UNKNOWN },
            { 1, TLB_DATA, TLB_PG_4K | TLB_PG_4M, 64, CPU_WAYS_UNKNOWN } } },
        /* Silvermont Z3740 (InstLatx64 GenuineIntel0030673): A0H micro-TLB 32 entries fully
         * associative, B3H beside it is the 128-entry 4-way DTLB behind it, the second level */
        { { 0x00b3a001, 0, 0, 0 }, 2,
          { { 1, TLB_DATA, TLB_PG_4K, 32, 0 }, { 2, TLB_DATA, TLB_PG_4K, 128, 4 } } },
        /* without a micro-TLB beside it, B3H is the first-level DTLB */
        { { 0x0000b301, 0, 0, 0 }, 1, { { 1, TLB_DATA, TLB_PG_4K, 128, 4 } } },
        /* 63H: DTLB 2M/4M 4-way 32 entries and a separate 1G array, 4-way, 4 entries */
        { { 0x00006301, 0, 0, 0 }, 2,
          { { 1, TLB_DATA, TLB_PG_2M | TLB_PG_4M, 32, 4 }, { 1, TLB_DATA, TLB_PG_1G, 4, 4 } } },
        /* C3H: STLB 4K/2M 6-way 1536 entries, also 1G 4-way 16 entries */
        { { 0x00000001, 0, 0, 0x000000c3 }, 2,
          { { 2, TLB_UNIFIED, TLB_PG_4K | TLB_PG_2M, 1536, 6 },
            { 2, TLB_UNIFIED, TLB_PG_1G, 16, 4 } } },
        /* B5H: ITLB 4K 8-way 64; 76H: ITLB 2M/4M fully associative 8 */
        { { 0x00000001, 0x0000b576, 0, 0 }, 2,
          { { 1, TLB_INST, TLB_PG_2M | TLB_PG_4M, 8, 0 }, { 1, TLB_INST, TLB_PG_4K, 64, 8 } } },
        /* bit 31 set: the register holds no descriptors */
        { { 0x00000001, 0x800000b5, 0x80006300, 0 }, 0, { { 0 } } },
        /* F0H prefetch, FFH "use leaf 4", null bytes */
        { { 0x00ff0001, 0x000000f0, 0, 0 }, 0, { { 0 } } },
};

static void test_leaf2(void **state)
{
        (void)state;
        for (size_t k = 0; k < ARRAY_SIZE(leaf2_cases); k++) {
                struct cpuid_dump *d = empty_dump("GenuineIntel", 2, 0);
                struct cpu_info    ci;

                cpuid_dump_put(d, 2, 0, leaf2_cases[k].r);
                assert_int_equal(cpu_decode(d, &ci), ST_OK);
                print_message("leaf2 case %zu\n", k);
                assert_int_equal(ci.n_tlbs, leaf2_cases[k].n);
                for (size_t i = 0; i < leaf2_cases[k].n; i++) {
                        assert_int_equal(ci.tlbs[i].level, leaf2_cases[k].t[i].level);
                        assert_int_equal(ci.tlbs[i].type, leaf2_cases[k].t[i].type);
                        assert_int_equal(ci.tlbs[i].page_sizes, leaf2_cases[k].t[i].pages);
                        assert_int_equal(ci.tlbs[i].entries, leaf2_cases[k].t[i].entries);
                        assert_int_equal(ci.tlbs[i].ways, leaf2_cases[k].t[i].ways);
                        assert_non_null(strstr(ci.tlbs[i].source, "leaf 2 descriptor"));
                }
                free(d);
        }
}

/* FEH sends the decoder to leaf 18H; without FEH, TLBs found in leaf 2 are not doubled. */
static void test_leaf2_fe_leaf18(void **state)
{
        (void)state;
        for (int fe = 0; fe <= 1; fe++) {
                struct cpuid_dump *d = empty_dump("GenuineIntel", 0x18, 0);
                struct cpu_info    ci;

                cpuid_dump_put(d, 2, 0, (struct cpuid_regs){ fe ? 0x00fe0001 : 0x00b50001, 0, 0, 0 });
                cpuid_dump_put(d, 0x18, 0, (struct cpuid_regs){ 1, 0, 0, 0 });
                /* 4K, 4 ways, 16 sets, data TLB (1), level 1 (1 << 5) */
                cpuid_dump_put(d, 0x18, 1, (struct cpuid_regs){ 0, 0x00040001, 16, 0x21 });
                assert_int_equal(cpu_decode(d, &ci), ST_OK);
                assert_int_equal(ci.n_tlbs, 1);
                assert_int_equal(ci.tlbs[0].type, fe ? TLB_DATA : TLB_INST);
                assert_int_equal(ci.tlbs[0].entries, 64);
                assert_string_equal(ci.tlbs[0].source, fe ? "leaf 0x18.1" : "leaf 2 descriptor 0xb5");
                free(d);
        }
}

/* ---- AMD associativity encodings ([APM-3] Fn8000_0005 / Fn8000_0006) --------------------- */

static const struct { uint8_t code; bool valid; uint32_t ways; } l2_assoc_cases[] = {
        { 0x0, false, 0 }, { 0x1, true, 1 },   { 0x2, true, 2 },   { 0x3, true, 3 },
        { 0x4, true, 4 },  { 0x5, true, 6 },   { 0x6, true, 8 },   { 0x7, false, 0 },
        { 0x8, true, 16 }, { 0x9, false, 0 },  { 0xa, true, 32 },  { 0xb, true, 48 },
        { 0xc, true, 64 }, { 0xd, true, 96 },  { 0xe, true, 128 }, { 0xf, true, 0 /* full */ },
};

static void test_amd_assoc(void **state)
{
        (void)state;
        for (size_t k = 0; k < ARRAY_SIZE(l2_assoc_cases); k++) {
                struct cpuid_dump *d = empty_dump("AuthenticAMD", 1, 0x80000006);
                struct cpu_info    ci;

                /* L2 DTLB for 4K pages: assoc [31:28], 2048 entries [27:16]; no ITLB */
                cpuid_dump_put(d, 0x80000006, 0,
                               (struct cpuid_regs){ 0, (uint32_t)l2_assoc_cases[k].code << 28 |
                                                               2048u << 16, 0, 0 });
                assert_int_equal(cpu_decode(d, &ci), ST_OK);
                assert_int_equal(ci.n_tlbs, l2_assoc_cases[k].valid ? 1 : 0);
                if (l2_assoc_cases[k].valid) {
                        assert_int_equal(ci.tlbs[0].level, 2);
                        assert_int_equal(ci.tlbs[0].type, TLB_DATA);
                        assert_int_equal(ci.tlbs[0].page_sizes, TLB_PG_4K);
                        assert_int_equal(ci.tlbs[0].entries, 2048);
                        assert_int_equal(ci.tlbs[0].ways, l2_assoc_cases[k].ways);
                }
                free(d);
        }
        /* L1 encoding is the way count itself, FFh = fully associative */
        static const struct { uint8_t code; uint32_t ways; } l1[] = { { 1, 1 }, { 8, 8 }, { 0xff, 0 } };
        for (size_t k = 0; k < ARRAY_SIZE(l1); k++) {
                struct cpuid_dump *d = empty_dump("AuthenticAMD", 1, 0x80000005);
                struct cpu_info    ci;

                cpuid_dump_put(d, 0x80000005, 0,
                               (struct cpuid_regs){ 0, (uint32_t)l1[k].code << 24 | 64u << 16, 0, 0 });
                assert_int_equal(cpu_decode(d, &ci), ST_OK);
                assert_int_equal(ci.n_tlbs, 1);
                assert_int_equal(ci.tlbs[0].entries, 64);
                assert_int_equal(ci.tlbs[0].ways, l1[k].ways);
                free(d);
        }
}

/* Without TOPOEXT the caches come from 80000005H/80000006H. Ryzen 9 7950X: 32 KiB L1D/L1I,
 * 1 MiB L2 per core, 64 MB L3 per package (amd.com); 80000006H reports the package L3. */
static void test_amd_legacy_caches(void **state)
{
        struct cpuid_dump *d = load("amd-ryzen9-7950x.txt");
        struct cpuid_regs  r;
        struct cpu_info    ci;

        (void)state;
        assert_true(cpuid_dump_get(d, 0x80000001, 0, &r));
        r.ecx &= ~(1u << 22);
        cpuid_dump_put(d, 0x80000001, 0, r);
        assert_int_equal(cpu_decode(d, &ci), ST_OK);
        assert_int_equal(ci.n_caches, 4);
        assert_int_equal(cpu_info_cache(&ci, 1, CACHE_DATA)->size_bytes, 32 * 1024);
        assert_int_equal(cpu_info_cache(&ci, 1, CACHE_DATA)->ways, 8);
        assert_int_equal(cpu_info_cache(&ci, 1, CACHE_INST)->size_bytes, 32 * 1024);
        assert_int_equal(cpu_info_cache(&ci, 2, CACHE_UNIFIED)->size_bytes, 1 * MB);
        assert_int_equal(cpu_info_cache(&ci, 2, CACHE_UNIFIED)->ways, 8);
        assert_int_equal(cpu_info_cache(&ci, 2, CACHE_UNIFIED)->sets, 1 * MB / 64 / 8);
        assert_int_equal(cpu_info_cache(&ci, 3, CACHE_UNIFIED)->size_bytes, 64 * MB);
        assert_int_equal(cpu_info_cache(&ci, 3, CACHE_UNIFIED)->line_bytes, 64);
        free(d);
}

/* ---- TSC from leaves 15H/16H -------------------------------------------------------------- */

static const struct {
        uint32_t max_leaf, den, num, crystal_hz, base_mhz;
        uint64_t want_hz;
        const char *src;
} tsc_cases[] = {
        { 0x16, 2, 176, 25000000, 2200, 2200000000ull, "CPUID 0x15" },
        /* crystal from 16H: 2200 * 1000 * 2 / 176 = 25000 kHz; * 176 / 2 = 2200000 kHz */
        { 0x16, 2, 176, 0, 2200, 2200000000ull, "CPUID 0x15, crystal from 0x16 base MHz" },
        /* Linux truncates in kHz: 3000000 * 2 / 156 = 38461 kHz; * 156 / 2 = 2999958 kHz */
        { 0x16, 2, 156, 0, 3000, 2999958000ull, "CPUID 0x15, crystal from 0x16 base MHz" },
        { 0x16, 2, 156, 0, 0, 0, NULL },          /* no crystal, no base MHz */
        { 0x16, 0, 156, 38400000, 3000, 0, NULL }, /* denominator 0: not enumerated */
        { 0x16, 2, 0, 38400000, 3000, 0, NULL },   /* numerator 0: not enumerated */
        { 0x14, 2, 156, 38400000, 3000, 0, NULL }, /* beyond the max leaf */
};

static void test_tsc(void **state)
{
        (void)state;
        for (size_t k = 0; k < ARRAY_SIZE(tsc_cases); k++) {
                struct cpuid_dump *d = empty_dump("GenuineIntel", tsc_cases[k].max_leaf, 0);
                struct cpu_info    ci;

                cpuid_dump_put(d, 0x15, 0, (struct cpuid_regs){ tsc_cases[k].den, tsc_cases[k].num,
                                                                tsc_cases[k].crystal_hz, 0 });
                cpuid_dump_put(d, 0x16, 0, (struct cpuid_regs){ tsc_cases[k].base_mhz, 0, 100, 0 });
                assert_int_equal(cpu_decode(d, &ci), ST_OK);
                assert_int_equal(ci.tsc_hz_cpuid, tsc_cases[k].want_hz);
                if (tsc_cases[k].src)
                        assert_string_equal(ci.tsc_hz_source, tsc_cases[k].src);
                else
                        assert_null(ci.tsc_hz_source);
                free(d);
        }
}

/* ---- signature ([SDM-2A] CPUID Figure 3-6; [APM-3] E.3.2) --------------------------------- */

static const struct { uint32_t eax, family, model, stepping; } sig_cases[] = {
        { 0x000806f8, 0x6, 0x8f, 8 },  /* Sapphire Rapids 06_8FH */
        { 0x00050670, 0x6, 0x57, 0 },  /* Knights Landing 06_57H */
        { 0x00000f41, 0xf, 0x04, 1 },  /* Pentium 4 Prescott: base family F, ext 0 */
        { 0x00020f12, 0xf, 0x21, 2 },  /* AMD family 0Fh: extended model applies */
        { 0x00100f22, 0x10, 0x02, 2 }, /* AMD family 10h */
        { 0x00a60f12, 0x19, 0x61, 2 }, /* AMD family 19h model 61h */
        { 0x00000543, 0x5, 0x04, 3 },  /* Pentium P55C */
        { 0x000f0543, 0x5, 0x04, 3 },  /* extended model ignored below family 6 */
        { 0x0ff00f00, 0x10e, 0x00, 0 },/* largest extended family */
};

static void test_signature(void **state)
{
        (void)state;
        for (size_t k = 0; k < ARRAY_SIZE(sig_cases); k++) {
                struct cpuid_dump *d = empty_dump("GenuineIntel", 1, 0);
                struct cpu_info    ci;

                cpuid_dump_put(d, 1, 0, (struct cpuid_regs){ sig_cases[k].eax, 0, 0, 0 });
                assert_int_equal(cpu_decode(d, &ci), ST_OK);
                assert_int_equal(ci.signature, sig_cases[k].eax);
                assert_int_equal(ci.family, sig_cases[k].family);
                assert_int_equal(ci.model, sig_cases[k].model);
                assert_int_equal(ci.stepping, sig_cases[k].stepping);
                free(d);
        }
}

static void test_names(void **state)
{
        (void)state;
        assert_string_equal(cpu_vendor_name(VEN_INTEL), "Intel");
        assert_string_equal(cpu_vendor_name(VEN_AMD), "AMD");
        assert_string_equal(cpu_vendor_name((enum cpu_vendor)99), "unknown");
        assert_string_equal(cpu_cache_type_name(CACHE_UNIFIED), "unified");
        assert_string_equal(cpu_cache_type_name((enum cpu_cache_type)-1), "unknown");
        assert_string_equal(cpu_tlb_type_name(TLB_STORE), "store");
        assert_string_equal(cpu_tlb_type_name((enum cpu_tlb_type)0), "unknown");
        assert_string_equal(cpu_tlb_type_name((enum cpu_tlb_type)6), "unknown");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_leaf2),
                cmocka_unit_test(test_leaf2_fe_leaf18),
                cmocka_unit_test(test_amd_assoc),
                cmocka_unit_test(test_amd_legacy_caches),
                cmocka_unit_test(test_tsc),
                cmocka_unit_test(test_signature),
                cmocka_unit_test(test_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
