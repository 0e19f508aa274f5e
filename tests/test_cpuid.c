/** @file Unit tests for boot/x86/cpuid.c: recorded dumps of real processors (tests/data/cpuid/),
 *  whose expected values come from the vendors' published specifications, plus synthetic
 *  dumps for the table decoders and for corrupted input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/plat.h"
#include "boot/x86/cpuid.h"
#include "tests/cpuid_dump.h"

#define ANY       UINT32_MAX /* field not checked */
#define DATA_DIR  "tests/data/cpuid/"
#define MB        (1024ull * 1024)

struct want_cache {
        uint8_t             level; /* 0 ends the list */
        enum cpu_cache_type type;
        uint64_t            size_bytes;
        uint32_t            ways, line_bytes, n_sharing;
        int                 inclusive; /* -1: not checked */
};

/* Sum of the entries of every TLB at @level whose type is in @types and that maps @page. */
struct want_tlb {
        uint8_t  level; /* 0 ends the list */
        unsigned types; /* bit per enum cpu_tlb_type */
        uint32_t page, entries;
};
#define T(x) (1u << (x))

struct dump_case {
        const char     *file;
        enum cpu_vendor vendor;
        uint32_t        family, model, stepping;
        const char     *brand, *hv_vendor; /* hv_vendor NULL: not a guest */
        uint32_t        n_logical;
        uint64_t        tsc_hz_min, tsc_hz_max; /* 0, 0: leaf 0x15 gives no TSC rate */
        uint32_t        base_mhz, max_mhz;
        struct want_cache caches[5];
        struct want_tlb   tlbs[10];
        /* Intel leaf 0xA / arch LBR */
        uint8_t  pmu_version, n_gp_min, n_gp_max, gp_width, n_fixed_min, fixed_width;
        bool     arch_lbr;
        uint8_t  lbr_depth_bit; /* CPUID.1CH:EAX bit n = depth 8*(n+1); 0xff: none */
        /* AMD */
        bool     perfctr_core, perfmon_v2, ibs;
        uint8_t  n_core, lbr_v2_depth;
        uint32_t ibs_caps_has;
};

/* Golden Cove / Raptor Cove P-core TLBs, Intel 64 and IA-32 Architectures Optimization Reference
 * Manual, Golden Cove "TLB parameters": ITLB 4K 256 and 2M/4M 32 entries; load DTLB 4K 64,
 * 2M/4M 32, 1G 8; store DTLB 16 (all sizes); STLB 2048 entries for 4K pages, 1024 for 1G. */
#define GOLDEN_COVE_TLBS                                                                           \
        { 1, T(TLB_INST), TLB_PG_4K, 256 }, { 1, T(TLB_INST), TLB_PG_2M, 32 },                     \
        { 1, T(TLB_LOAD), TLB_PG_4K, 64 },  { 1, T(TLB_LOAD), TLB_PG_2M, 32 },                     \
        { 1, T(TLB_LOAD), TLB_PG_1G, 8 },   { 1, T(TLB_STORE), TLB_PG_4K, 16 },                    \
        { 2, T(TLB_UNIFIED), TLB_PG_4K, 2048 }, { 2, T(TLB_UNIFIED), TLB_PG_1G, 1024 }

/* Zen 4 core TLBs, AMD Software Optimization Guide for the Zen 4 Microarchitecture (pub. 57647)
 * §2 "Memory address translation": L1 DTLB 72 and L1 ITLB 64 entries (all page sizes), L2 DTLB
 * 3072 and L2 ITLB 512 entries (4K/2M). Caches (same guide, and the Ryzen 7000 / EPYC 9004
 * product pages): L1D 32 KiB 8-way, L1I 32 KiB 8-way, L2 1 MiB 8-way inclusive of L1,
 * L3 32 MiB 16-way per CCD, 64-byte lines. */
#define ZEN4_TLBS_4K                                                                               \
        { 1, T(TLB_DATA), TLB_PG_4K, 72 }, { 1, T(TLB_INST), TLB_PG_4K, 64 },                      \
        { 2, T(TLB_DATA), TLB_PG_4K, 3072 }, { 2, T(TLB_INST), TLB_PG_4K, 512 },                   \
        { 1, T(TLB_DATA), TLB_PG_2M, 72 }, { 2, T(TLB_DATA), TLB_PG_2M, 3072 }

static const struct dump_case dumps[] = {
        {
                /* Core i9-13900K: ark.intel.com (8P+16E, 32 threads, P-core base 3.0 GHz, max
                 * turbo 5.8 GHz, 36 MB Intel Smart Cache); signature 06_B7H [SDM-4] Table 2-1.
                 * Golden/Raptor Cove: L1D 48 KiB 12-way, L1I 32 KiB 8-way, L2 2 MiB 16-way
                 * (Optimization Reference Manual). Perfmon v5 with 48-bit counters [SDM-3B];
                 * hybrid parts may enumerate only the counters common to both core types in
                 * CPUID.0AH, so 6..8 GP counters and >= 3 fixed. Arch LBR depth 32 [SDM-3B]. */
                .file = "intel-i9-13900k.txt", .vendor = VEN_INTEL, .family = 6, .model = 0xb7,
                .stepping = 1, .brand = "13th Gen Intel(R) Core(TM) i9-13900K", .n_logical = 32,
                .tsc_hz_min = 2985000000ull, .tsc_hz_max = 3015000000ull,
                .base_mhz = 3000, .max_mhz = 5800,
                .caches = { { 1, CACHE_DATA, 48 * 1024, 12, 64, 2, -1 },
                            { 1, CACHE_INST, 32 * 1024, 8, 64, 2, -1 },
                            { 2, CACHE_UNIFIED, 2 * MB, 16, 64, ANY, -1 },
                            { 3, CACHE_UNIFIED, 36 * MB, ANY, 64, ANY, -1 } },
                .tlbs = { GOLDEN_COVE_TLBS },
                .pmu_version = 5, .n_gp_min = 6, .n_gp_max = 8, .gp_width = 48, .n_fixed_min = 3,
                .fixed_width = 48, .arch_lbr = true, .lbr_depth_bit = 3,
        },
        {
                /* Xeon w9-3475X: ark.intel.com (36 cores, 72 threads, base 2.2 GHz, max turbo
                 * 4.8 GHz, 82.5 MB cache); 06_8FH [SDM-4]. SPR: L2 2 MiB 16-way per core, LLC
                 * non-inclusive (Optimization Reference Manual). Golden Cove perfmon v5: 8 GP
                 * counters per logical processor, 4 fixed (incl. TOPDOWN.SLOTS) [SDM-3B]. */
                .file = "intel-xeon-w9-3475x.txt", .vendor = VEN_INTEL, .family = 6, .model = 0x8f,
                .stepping = 8, .brand = "Intel(R) Xeon(R) w9-3475X", .n_logical = 72,
                .tsc_hz_min = 2189000000ull, .tsc_hz_max = 2211000000ull,
                .base_mhz = 2200, .max_mhz = 4800,
                .caches = { { 1, CACHE_DATA, 48 * 1024, 12, 64, 2, -1 },
                            { 1, CACHE_INST, 32 * 1024, 8, 64, 2, -1 },
                            { 2, CACHE_UNIFIED, 2 * MB, 16, 64, 2, -1 },
                            { 3, CACHE_UNIFIED, 82 * MB + MB / 2, ANY, 64, ANY, 0 } },
                .tlbs = { GOLDEN_COVE_TLBS },
                .pmu_version = 5, .n_gp_min = 8, .n_gp_max = 8, .gp_width = 48, .n_fixed_min = 4,
                .fixed_width = 48, .arch_lbr = true, .lbr_depth_bit = 3,
        },
        {
                /* Ryzen 9 7950X: amd.com product page (16 cores / 32 threads, 64 MB L3 = two
                 * CCDs of 8 cores sharing 32 MB); family 19h model 61h (PPR 19h/61h). Zen 4 PMU:
                 * PerfMonV2 with 6 core counters, LbrExtV2 16 entries, IBS with the Zen 4
                 * extensions (CPUID 8000001BH bit 11) [APM-2], [PPR-19h-61h]. */
                .file = "amd-ryzen9-7950x.txt", .vendor = VEN_AMD, .family = 0x19, .model = 0x61,
                .stepping = 2, .brand = "AMD Ryzen 9 7950X 16-Core Processor", .n_logical = 32,
                .caches = { { 1, CACHE_DATA, 32 * 1024, 8, 64, 2, -1 },
                            { 1, CACHE_INST, 32 * 1024, 8, 64, 2, -1 },
                            { 2, CACHE_UNIFIED, 1 * MB, 8, 64, 2, 1 },
                            { 3, CACHE_UNIFIED, 32 * MB, 16, 64, 16, -1 } },
                .tlbs = { ZEN4_TLBS_4K, { 1, T(TLB_DATA), TLB_PG_1G, 72 },
                          { 1, T(TLB_INST), TLB_PG_1G, 64 } },
                .lbr_depth_bit = 0xff, .perfctr_core = true, .perfmon_v2 = true, .ibs = true,
                .n_core = 6, .lbr_v2_depth = 16, .ibs_caps_has = 1u << 11,
        },
        {
                /* This machine: a 2-vCPU KVM guest on EPYC 9004 (Genoa, Zen 4, family 19h model
                 * 11h, PPR 19h/11h). The guest's CPU model hides the PMU extensions (no
                 * PerfCtrExtCore, no IBS, no 80000022H), so the legacy 4 counters remain. */
                .file = "amd-epyc-genoa-kvm.txt", .vendor = VEN_AMD, .family = 0x19, .model = 0x11,
                .stepping = 1, .brand = "AMD EPYC", .hv_vendor = "KVMKVMKVM", .n_logical = 2,
                .caches = { { 1, CACHE_DATA, 32 * 1024, 8, 64, ANY, -1 },
                            { 1, CACHE_INST, 32 * 1024, 8, 64, ANY, -1 },
                            { 2, CACHE_UNIFIED, 1 * MB, 8, 64, ANY, 1 },
                            { 3, CACHE_UNIFIED, 32 * MB, 16, 64, ANY, -1 } },
                .tlbs = { ZEN4_TLBS_4K },
                .lbr_depth_bit = 0xff, .n_core = 4,
        },
};

/* ---- helpers ---------------------------------------------------------------------------- */

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

static uint32_t tlb_entries(const struct cpu_info *ci, uint8_t level, unsigned types, uint32_t pg)
{
        uint32_t n = 0;

        for (size_t i = 0; i < ci->n_tlbs; i++)
                if (ci->tlbs[i].level == level && (types & T(ci->tlbs[i].type)) &&
                    (ci->tlbs[i].page_sizes & pg))
                        n += ci->tlbs[i].entries;
        return n;
}

static void assert_sane(const struct cpu_info *ci)
{
        assert_true(ci->n_caches <= ARRAY_SIZE(ci->caches));
        assert_true(ci->n_tlbs <= ARRAY_SIZE(ci->tlbs));
        assert_true(strlen(ci->brand) < sizeof(ci->brand));
        assert_true(strlen(ci->vendor_str) < sizeof(ci->vendor_str));
        for (size_t i = 0; i < ci->n_tlbs; i++)
                assert_non_null(ci->tlbs[i].source);
}

/* ---- recorded dumps --------------------------------------------------------------------- */

static void test_recorded(void **state)
{
        const struct dump_case *c = *state;
        struct cpuid_dump      *d = load(c->file);
        struct cpu_info         ci;

        print_message("dump %s\n", c->file);
        assert_int_equal(cpu_decode(d, &ci), ST_OK);
        assert_sane(&ci);
        assert_int_equal(ci.vendor, c->vendor);
        assert_int_equal(ci.family, c->family);
        assert_int_equal(ci.model, c->model);
        assert_int_equal(ci.stepping, c->stepping);
        assert_string_equal(ci.brand, c->brand);
        assert_int_equal(ci.hypervisor, c->hv_vendor != NULL);
        assert_string_equal(ci.hv_vendor, c->hv_vendor ? c->hv_vendor : "");
        assert_int_equal(ci.n_logical_per_pkg, c->n_logical);
        assert_true(ci.tsc_invariant);
        assert_true(ci.rdtscp && ci.pdpe1gb && ci.nx && ci.pae && ci.apic);
        if (c->tsc_hz_max) {
                assert_in_range(ci.tsc_hz_cpuid, c->tsc_hz_min, c->tsc_hz_max);
                assert_string_equal(ci.tsc_hz_source, "CPUID 0x15");
        } else {
                assert_int_equal(ci.tsc_hz_cpuid, 0);
                assert_null(ci.tsc_hz_source);
        }
        assert_int_equal(ci.base_mhz, c->base_mhz);
        assert_int_equal(ci.max_mhz, c->max_mhz);

        for (const struct want_cache *w = c->caches; w->level; w++) {
                const struct cpu_cache *got = cpu_info_cache(&ci, w->level, w->type);

                print_message("  L%u %s\n", w->level, cpu_cache_type_name(w->type));
                assert_non_null(got);
                assert_int_equal(got->size_bytes, w->size_bytes);
                assert_int_equal(got->line_bytes, w->line_bytes);
                assert_int_equal((uint64_t)got->ways * got->sets * got->line_bytes,
                                 got->ways ? got->size_bytes : 0);
                if (w->ways != ANY)
                        assert_int_equal(got->ways, w->ways);
                if (w->n_sharing != ANY)
                        assert_int_equal(got->n_sharing, w->n_sharing);
                if (w->inclusive >= 0)
                        assert_int_equal(got->inclusive, w->inclusive);
        }
        for (const struct want_tlb *w = c->tlbs; w->level; w++) {
                print_message("  TLB L%u types %#x page %#x\n", w->level, w->types, w->page);
                assert_int_equal(tlb_entries(&ci, w->level, w->types, w->page), w->entries);
        }

        assert_int_equal(ci.intel.version, c->pmu_version);
        assert_in_range(ci.intel.n_gp, c->n_gp_min, c->n_gp_max);
        assert_int_equal(ci.intel.gp_width, c->gp_width);
        assert_true(ci.intel.n_fixed >= c->n_fixed_min);
        assert_int_equal(ci.intel.fixed_width, c->fixed_width);
        assert_int_equal(ci.intel.arch_lbr, c->arch_lbr);
        if (c->lbr_depth_bit != 0xff)
                assert_true(ci.intel.arch_lbr_depth_mask & (1u << c->lbr_depth_bit));
        if (c->vendor == VEN_INTEL) {
                assert_true(ci.intel.pdcm && ci.intel.ds && ci.intel.dtes64);
                assert_int_equal(ci.intel.fixed_mask, (1u << ci.intel.n_fixed) - 1);
        }
        assert_int_equal(ci.amd.perfctr_core, c->perfctr_core);
        assert_int_equal(ci.amd.perfmon_v2, c->perfmon_v2);
        assert_int_equal(ci.amd.ibs, c->ibs);
        if (c->vendor == VEN_AMD)
                assert_int_equal(ci.amd.n_core, c->n_core);
        assert_int_equal(ci.amd.lbr_v2_depth, c->lbr_v2_depth);
        assert_int_equal(ci.amd.ibs_caps & c->ibs_caps_has, c->ibs_caps_has);
        free(d);
}

/* Every dump minus any one of its entries still decodes; a dump whose max leaves claim
 * leaves it does not have decodes to nothing, without reading past what is there. */
static void test_truncated(void **state)
{
        (void)state;
        for (size_t k = 0; k < ARRAY_SIZE(dumps); k++) {
                struct cpuid_dump *full = load(dumps[k].file), *d = malloc(sizeof(*d));
                struct cpu_info    ci;

                assert_non_null(d);
                for (size_t i = 0; i < full->n; i++) {
                        *d = *full;
                        cpuid_dump_remove(d, full->leaves[i].leaf, full->leaves[i].subleaf);
                        status_t st = cpu_decode(d, &ci);

                        assert_int_equal(st, full->leaves[i].leaf == 0 ? ST_BAD_DATA : ST_OK);
                        assert_sane(&ci);
                }
                /* keep only leaf 0 and 0x80000000: max leaves still claim 0x10..0x20 */
                *d = (struct cpuid_dump){ 0 };
                struct cpuid_regs r;
                assert_true(cpuid_dump_get(full, 0, 0, &r));
                cpuid_dump_put(d, 0, 0, r);
                assert_true(cpuid_dump_get(full, 0x80000000, 0, &r));
                cpuid_dump_put(d, 0x80000000, 0, r);
                assert_int_equal(cpu_decode(d, &ci), ST_OK);
                assert_int_equal(ci.vendor, dumps[k].vendor);
                assert_true(ci.max_leaf >= 0x10);
                assert_int_equal(ci.n_caches, 0);
                assert_int_equal(ci.n_tlbs, 0);
                assert_int_equal(ci.family, 0);
                assert_string_equal(ci.brand, "");
                free(d);
                free(full);
        }
}

static void test_bad_args(void **state)
{
        struct cpuid_dump *d = calloc(1, sizeof(*d));
        struct cpu_info    ci;

        (void)state;
        assert_int_equal(cpu_decode(NULL, &ci), ST_BAD_ARG);
        assert_int_equal(cpu_decode(d, NULL), ST_BAD_ARG);
        assert_int_equal(cpu_decode(d, &ci), ST_BAD_DATA); /* empty */
        cpuid_dump_put(d, 1, 0, (struct cpuid_regs){ 0x806f8, 0, 0, 0 });
        assert_int_equal(cpu_decode(d, &ci), ST_BAD_DATA); /* no leaf 0 */
        assert_false(cpuid_dump_get(NULL, 0, 0, NULL));
        assert_false(cpuid_dump_has(d, (struct cpuid_bit){ 1, 0, CPUID_EAX, 32 }));
        assert_false(cpuid_dump_has(d, (struct cpuid_bit){ 7, 0, CPUID_EBX, 0 }));
        assert_true(cpuid_dump_has(d, (struct cpuid_bit){ 1, 0, CPUID_EAX, 3 }));
        free(d);
}

/* Sub-leaf lists that never terminate are bounded, and the output arrays never overflow. */
static void test_runaway_subleaves(void **state)
{
        struct cpuid_dump *d = empty_dump("GenuineIntel", 0x18, 0);
        struct cpu_info    ci;

        (void)state;
        for (uint32_t s = 0; s < 100; s++) {
                cpuid_dump_put(d, 4, s, (struct cpuid_regs){ 0x121, 0x01c0003f, 0x3f, 0 });
                cpuid_dump_put(d, 0x18, s,
                               (struct cpuid_regs){ 0xffffffff, 0x00040001, 16, 0x21 });
        }
        assert_int_equal(cpu_decode(d, &ci), ST_OK);
        assert_int_equal(ci.n_caches, ARRAY_SIZE(ci.caches));
        assert_int_equal(ci.n_tlbs, ARRAY_SIZE(ci.tlbs));
        assert_int_equal(ci.tlbs[0].entries, 64);
        assert_int_equal(ci.tlbs[0].ways, 4);
        free(d);
}

/* ---- the `cpuid -r` loader ---------------------------------------------------------------- */

#define L0 "   0x00000000 0x00: eax=0x00000016 ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
#define L1 "   0x00000001 0x00: eax=0x000806f8 ebx=0x00000800 ecx=0x00000000 edx=0x00000000\n"

static const struct { const char *text; status_t want; size_t n; } load_cases[] = {
        { "", ST_BAD_DATA, 0 },
        { "CPU:\n", ST_BAD_DATA, 0 },
        { "CPU:\n" L0 L1, ST_OK, 2 },
        { "# recorded elsewhere\n\nCPU 0:\n" L0 "\n" L1, ST_OK, 2 },
        { "CPU 0:\n" L0 "CPU 1:\n" L1, ST_OK, 1 },                  /* first CPU only */
        { "CPU:\n" L0 L0, ST_BAD_DATA, 0 },                         /* duplicate */
        { "CPU:\n   0x00000000 0x00: eax=0xzz ebx=0x0 ecx=0x0 edx=0x0\n", ST_BAD_DATA, 0 },
        { "CPU:\n   0x00000000 0x00: eax=0x1 ebx=0x2 ecx=0x3\n", ST_BAD_DATA, 0 },
        { "CPU:\n   0x00000000 0x00: eax=0x1 ebx=0x2 ecx=0x3 edx=0x4 junk\n", ST_BAD_DATA, 0 },
        { "garbage\n", ST_BAD_DATA, 0 },
};

static void write_tmp(char *path, const char *text, size_t len)
{
        int fd = mkstemp(path);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, len), (ssize_t)len);
        close(fd);
}

static void test_load(void **state)
{
        struct cpuid_dump *d = malloc(sizeof(*d));

        (void)state;
        assert_int_equal(cpuid_dump_load("tests/data/cpuid/does-not-exist.txt", d), ST_NOT_FOUND);
        assert_int_equal(cpuid_dump_load(NULL, d), ST_BAD_ARG);
        for (size_t k = 0; k < ARRAY_SIZE(load_cases); k++) {
                char path[] = "/tmp/test_cpuid_XXXXXX";

                write_tmp(path, load_cases[k].text, strlen(load_cases[k].text));
                print_message("load case %zu\n", k);
                assert_int_equal(cpuid_dump_load(path, d), load_cases[k].want);
                assert_int_equal(d->n, load_cases[k].n);
                unlink(path);
        }
        /* one entry more than a dump holds */
        size_t line_len = strlen(L0), n = CPUID_DUMP_MAX + 1;
        char  *big = malloc(n * line_len + 8), path[] = "/tmp/test_cpuid_XXXXXX";

        assert_non_null(big);
        for (size_t i = 0; i < n; i++)
                snprintf(big + i * line_len, line_len + 1,
                         "   0x%08zx 0x00: eax=0x00000016 ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n", i);
        write_tmp(path, big, strlen(big));
        assert_int_equal(cpuid_dump_load(path, d), ST_BAD_DATA);
        big[(n - 1) * line_len] = '\0';
        write_tmp(strcpy(path, "/tmp/test_cpuid_XXXXXX"), big, strlen(big));
        assert_int_equal(cpuid_dump_load(path, d), ST_OK);
        assert_int_equal(d->n, CPUID_DUMP_MAX);
        unlink(path);
        free(big);
        free(d);
}

/* ---- the live CPU ------------------------------------------------------------------------- */

static bool terminated(const struct cpuid_dump *d, uint32_t leaf, unsigned lo_bit, unsigned width)
{
        struct cpuid_regs r;
        uint32_t          mask = (1u << width) - 1;

        for (uint32_t s = 0; s < 64 && cpuid_dump_get(d, leaf, s, &r); s++)
                if ((((lo_bit < 32 ? r.eax : r.ecx) >> (lo_bit % 32)) & mask) == 0)
                        return true;
        return false;
}

static void test_collect_host(void **state)
{
        struct cpuid_dump *d = malloc(sizeof(*d));
        struct cpuid_regs  r0, r;
        struct cpu_info    ci;

        (void)state;
        cpuid_dump_collect(d);
        assert_true(d->n > 0 && d->n <= CPUID_DUMP_MAX);
        for (size_t i = 0; i < d->n; i++)
                for (size_t j = i + 1; j < d->n; j++)
                        assert_false(d->leaves[i].leaf == d->leaves[j].leaf &&
                                     d->leaves[i].subleaf == d->leaves[j].subleaf);
        cpuid_raw(0, 0, &r0);
        assert_true(cpuid_dump_get(d, 0, 0, &r));
        assert_memory_equal(&r, &r0, sizeof(r));
        for (uint32_t l = 0; l <= r0.eax; l++)
                assert_true(cpuid_dump_get(d, l, 0, NULL));
        assert_int_equal(cpu_decode(d, &ci), ST_OK);
        assert_sane(&ci);
        assert_true(ci.vendor != VEN_UNKNOWN);
        print_message("host: %s %s family %#x model %#x, %zu leaves, %zu caches, %zu TLBs\n",
                      cpu_vendor_name(ci.vendor), ci.brand, ci.family, ci.model, d->n,
                      ci.n_caches, ci.n_tlbs);
        if (ci.hypervisor)
                assert_true(cpuid_dump_get(d, 0x40000000, 0, NULL));
        /* deterministic-cache walks keep their type-0 terminator */
        if (ci.vendor == VEN_INTEL && ci.max_leaf >= 4)
                assert_true(terminated(d, 4, 0, 5));
        if (cpuid_dump_has(d, (struct cpuid_bit){ 0x80000001, 0, CPUID_ECX, 22 }) &&
            ci.max_ext_leaf >= 0x8000001d)
                assert_true(terminated(d, 0x8000001d, 0, 5));
        if (ci.max_leaf >= 0xb && cpuid_dump_get(d, 0xb, 0, &r) && (r.ecx & 0xff00))
                assert_true(terminated(d, 0xb, 32 + 8, 8));
        assert_true(ci.n_caches > 0);
        free(d);
}

int main(void)
{
        struct CMUnitTest tests[ARRAY_SIZE(dumps) + 16];
        size_t            n = 0;

        for (size_t i = 0; i < ARRAY_SIZE(dumps); i++)
                tests[n++] = (struct CMUnitTest)cmocka_unit_test_prestate(test_recorded,
                                                                          (void *)&dumps[i]);
        const struct CMUnitTest rest[] = {
                cmocka_unit_test(test_truncated),         cmocka_unit_test(test_bad_args),
                cmocka_unit_test(test_runaway_subleaves), cmocka_unit_test(test_load),
                cmocka_unit_test(test_collect_host),
        };
        for (size_t i = 0; i < ARRAY_SIZE(rest); i++)
                tests[n++] = rest[i];
        return _cmocka_run_group_tests("cpuid", tests, n, NULL, NULL);
}
