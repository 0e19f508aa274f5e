/** @file The CPUID corpus: real processors' dumps (tests/data/cpuid/real/, InstLatx64; see the
 *  README there) decoded and held against what each must decode to (expect.tsv: the dumps'
 *  own AIDA64 text and published figures, never pmucal's output). Every processor block of
 *  every file is decoded (no failure, no sanitizer report); every row of expect.tsv is one
 *  field compared. Prints "cpuid corpus: ..." with the counts, and each disagreement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/plat.h"
#include "boot/topology.h"
#include "boot/x86/cpuid.h"
#include "boot/x86/topology.h"
#include "tests/cpuid_dump.h"

#define CORPUS_DIR  "tests/data/cpuid/real/"
#define EXPECT_FILE CORPUS_DIR "expect.tsv"
#define UNKNOWN     (-1ll) /* "unknown" in expect.tsv: ways not given */

struct decoded {
        struct cpu_info     ci;
        struct cpu_topology topo;
};

static const struct { const char *name; enum cpu_cache_type type; uint8_t level; } cache_keys[] = {
        { "l1d", CACHE_DATA, 1 },    { "l1i", CACHE_INST, 1 },    { "l2", CACHE_UNIFIED, 2 },
        { "l3", CACHE_UNIFIED, 3 },  { "l4", CACHE_UNIFIED, 4 },
};

static const struct { const char *name; unsigned types; } tlb_types[] = {
        { "data", 1u << TLB_DATA },       { "inst", 1u << TLB_INST },
        { "unified", 1u << TLB_UNIFIED }, { "load", 1u << TLB_LOAD },
};

static const struct { const char *name; uint32_t page; } tlb_pages[] = {
        { "4k", TLB_PG_4K }, { "2m", TLB_PG_2M }, { "4m", TLB_PG_4M }, { "1g", TLB_PG_1G },
};

/* The first cache CPUID lists (no quirk source) at @p level of @p type. */
static const struct cpu_cache *listed_cache(const struct cpu_info *ci, uint8_t level,
                                            enum cpu_cache_type type)
{
        for (size_t i = 0; i < ci->n_caches; i++)
                if (ci->caches[i].level == level && ci->caches[i].type == type &&
                    !ci->caches[i].source)
                        return &ci->caches[i];
        return NULL;
}

/* "tlb2.data.4k" and "tlb1.inst.4k.ways". */
static bool tlb_field(const struct cpu_info *ci, const char *f, long long *v)
{
        char   type[16], page[8], what[8] = "";
        int    level;
        size_t t, p;

        if (sscanf(f, "tlb%d.%15[a-z].%7[0-9a-z].%7s", &level, type, page, what) < 3)
                return false;
        for (t = 0; t < ARRAY_SIZE(tlb_types) && strcmp(type, tlb_types[t].name); t++)
                ;
        for (p = 0; p < ARRAY_SIZE(tlb_pages) && strcmp(page, tlb_pages[p].name); p++)
                ;
        if (t == ARRAY_SIZE(tlb_types) || p == ARRAY_SIZE(tlb_pages))
                return false;
        if (!strcmp(what, "ways")) {
                *v = 0;
                for (size_t i = 0; i < ci->n_tlbs; i++) {
                        const struct cpu_tlb *e = &ci->tlbs[i];
                        if (e->level == level && (tlb_types[t].types & (1u << e->type)) &&
                            (e->page_sizes & tlb_pages[p].page)) {
                                *v = e->ways == CPU_WAYS_UNKNOWN ? UNKNOWN : e->ways;
                                return true;
                        }
                }
                return false;
        }
        *v = cpu_tlb_entries(ci, (uint8_t)level, tlb_types[t].types, tlb_pages[p].page, NULL);
        return true;
}

/** The decoded value of field @p f; false for a field name this test does not know. */
static bool field(const struct decoded *d, const char *f, long long *v)
{
        const struct cpu_info *ci = &d->ci;
        char                   key[16], what[8];

        if (sscanf(f, "%15[a-z0-9].%7s", key, what) == 2)
                for (size_t i = 0; i < ARRAY_SIZE(cache_keys); i++) {
                        if (strcmp(key, cache_keys[i].name))
                                continue;
                        const struct cpu_cache *c =
                                listed_cache(ci, cache_keys[i].level, cache_keys[i].type);
                        if (!strcmp(what, "kib"))
                                *v = c ? (long long)(c->size_bytes / 1024) : 0;
                        else if (!strcmp(what, "ways"))
                                *v = !c ? 0 : c->ways == CPU_WAYS_UNKNOWN ? UNKNOWN : c->ways;
                        else
                                return false;
                        return true;
                }
        if (!strcmp(f, "l1d_unlisted.kib")) {
                *v = 0;
                for (size_t i = 0; i < ci->n_caches; i++)
                        if (ci->caches[i].level == 1 && ci->caches[i].type == CACHE_DATA &&
                            ci->caches[i].source)
                                *v += (long long)(ci->caches[i].size_bytes / 1024);
                return true;
        }
        if (!strncmp(f, "tlb", 3))
                return tlb_field(ci, f, v);
        if (!strcmp(f, "pmu.n_gp"))
                *v = ci->intel.n_gp;
        else if (!strcmp(f, "pmu.fixed_mask"))
                *v = ci->intel.fixed_mask;
        else if (!strcmp(f, "pmu.events_unavailable"))
                *v = ci->intel.events_unavailable;
        else if (!strcmp(f, "hybrid"))
                *v = d->topo.hybrid;
        else if (!strcmp(f, "core_type"))
                *v = d->topo.core_type;
        else if (!strcmp(f, "topo.smt_shift"))
                *v = d->topo.smt_shift;
        else
                return false;
        return true;
}

static long long parse_value(const char *s)
{
        return !strcmp(s, "unknown") ? UNKNOWN : strtoll(s, NULL, 0);
}

static status_t decode_block(const char *file, unsigned block, struct decoded *out,
                             unsigned *n_blocks)
{
        static struct cpuid_dump dump;
        char                     path[512];
        status_t                 st;

        snprintf(path, sizeof(path), CORPUS_DIR "%s", file);
        if ((st = cpuid_dump_load_cpu(path, block, &dump, n_blocks)) != ST_OK)
                return st;
        if ((st = cpu_decode(&dump, &out->ci)) != ST_OK)
                return st;
        cpu_topology_decode(&dump, &out->topo);
        return ST_OK;
}

/* Every processor block of every dump decodes. */
static void test_every_block_decodes(void **state)
{
        DIR           *dir = opendir(CORPUS_DIR);
        struct dirent *e;
        unsigned       n_files = 0, n_blocks = 0;

        (void)state;
        assert_non_null(dir);
        while ((e = readdir(dir))) {
                size_t          len = strlen(e->d_name);
                unsigned        n   = 0;
                struct decoded *d   = malloc(sizeof(*d));

                if (len < 4 || strcmp(e->d_name + len - 4, ".txt")) {
                        free(d);
                        continue;
                }
                assert_int_equal(decode_block(e->d_name, 0, d, &n), ST_OK);
                assert_true(n >= 1);
                for (unsigned b = 0; b < n; b++) {
                        assert_int_equal(decode_block(e->d_name, b, d, NULL), ST_OK);
                        /* the decoder and the topology say the same of hybrid parts */
                        assert_int_equal(d->ci.hybrid, d->topo.hybrid);
                        assert_int_equal(d->ci.core_type, d->topo.core_type);
                }
                assert_int_equal(decode_block(e->d_name, n, d, NULL), ST_NOT_FOUND);
                n_files++;
                n_blocks += n;
                free(d);
        }
        closedir(dir);
        print_message("cpuid corpus: %u dumps, %u processor blocks decoded\n", n_files, n_blocks);
        assert_true(n_files >= 30);
}

/* Every row of expect.tsv agrees. */
static void test_expectations(void **state)
{
        FILE           *f = fopen(EXPECT_FILE, "r");
        char            line[512], cur[128] = "";
        unsigned        cur_block = ~0u, n_rows = 0, n_agree = 0, n_disagree = 0;
        struct decoded *d = malloc(sizeof(*d));

        (void)state;
        assert_non_null(f);
        while (fgets(line, sizeof(line), f)) {
                char      file[128], fld[64], want_s[32];
                unsigned  block;
                long long got = 0, want;

                if (line[0] == '#' || line[0] == '\n')
                        continue;
                assert_int_equal(sscanf(line, "%127[^\t]\t%u\t%63[^\t]\t%31[^\t]", file, &block,
                                        fld, want_s), 4);
                if (strcmp(file, cur) || block != cur_block) {
                        assert_int_equal(decode_block(file, block, d, NULL), ST_OK);
                        snprintf(cur, sizeof(cur), "%s", file);
                        cur_block = block;
                }
                if (!field(d, fld, &got))
                        fail_msg("%s block %u: unknown field %s", file, block, fld);
                want = parse_value(want_s);
                n_rows++;
                if (got == want) {
                        n_agree++;
                } else {
                        n_disagree++;
                        print_message("DISAGREE %s block %u %s: decoded %lld, expected %lld: %s",
                                      file, block, fld, got, want, strrchr(line, '\t') + 1);
                }
        }
        fclose(f);
        free(d);
        print_message("cpuid corpus: %u of %u fields agree, %u disagree\n", n_agree, n_rows,
                      n_disagree);
        assert_true(n_rows > 300);
        assert_int_equal(n_disagree, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_block_decodes),
                cmocka_unit_test(test_expectations),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
