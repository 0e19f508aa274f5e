/** @file Recorded IBS samples from real CPUs (tests/data/ibs/, each file names its source)
 *  decoded by pmu/x86/ibs_op.c and ibs_fetch.c and compared, field by field, with the decoding
 *  the source printed (perf report -D). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmu/x86/ibs_fetch.h"
#include "pmu/x86/ibs_op.h"
#include "tests/test_util.h"

struct fixture {
        struct pmu_ibs_info       info;
        struct pmu_ibs_op_regs    op;
        struct pmu_ibs_fetch_regs fetch;
        struct pmu_ibs_op         o;
        struct pmu_ibs_fetch      f;
};

static const struct { const char *name; size_t off; } regs[] = {
        { "ibs_op_ctl", offsetof(struct fixture, op.op_ctl) },
        { "ibs_op_rip", offsetof(struct fixture, op.op_rip) },
        { "ibs_op_data", offsetof(struct fixture, op.op_data) },
        { "ibs_op_data2", offsetof(struct fixture, op.op_data2) },
        { "ibs_op_data3", offsetof(struct fixture, op.op_data3) },
        { "ibs_dc_linad", offsetof(struct fixture, op.dc_linad) },
        { "ibs_dc_physad", offsetof(struct fixture, op.dc_physad) },
        { "ibs_fetch_ctl", offsetof(struct fixture, fetch.fetch_ctl) },
};

/* The decoded value of field @p name (false: unknown name). */
static bool field(const struct fixture *x, const char *name, uint64_t *v)
{
        const struct pmu_ibs_op *o = &x->o;
        const struct pmu_ibs_fetch *f = &x->f;
        const struct { const char *name; uint64_t v; } t[] = {
                { "op_period", pmu_ibs_op_ctl_period(&x->info, x->op.op_ctl) },
                { "op_valid", o->valid },
                { "op_curcnt", (x->op.op_ctl & IBSOPCTL_CURCNT) >> IBSOPCTL_CURCNT_SHIFT },
                { "op_l3_miss_only", (x->op.op_ctl & IBSOPCTL_L3_MISS_ONLY) != 0 },
                { "comp_to_ret", o->comp_to_ret_cycles }, { "tag_to_ret", o->tag_to_ret_cycles },
                { "brn_ret", o->brn_ret }, { "microcode", o->microcode },
                { "rmt_node", o->rmt_node }, { "data_src", o->data_src },
                { "data_src_valid", o->data_src_valid },
                { "data2_raw_src", (x->op.op_data2 & 7) | ((x->op.op_data2 >> 6) & 3) << 3 },
                { "data2_raw_rmt", (x->op.op_data2 >> 4) & 1 },
                { "ld_op", o->ld_op }, { "st_op", o->st_op },
                { "dc_l1tlb_miss", o->dc_l1tlb_miss }, { "dc_l1tlb_hit_2m", o->dc_l1tlb_hit_2m },
                { "dc_l1tlb_hit_1g", o->dc_l1tlb_hit_1g }, { "dc_miss", o->dc_miss },
                { "dc_miss_no_mab_alloc", o->dc_miss_no_mab_alloc },
                { "dc_lin_addr_valid", o->dc_lin_addr_valid },
                { "dc_phy_addr_valid", o->dc_phy_addr_valid }, { "l2_miss", o->l2_miss },
                { "op_mem_width_bytes", o->op_mem_width_bytes },
                { "dc_miss_open_mem_reqs", o->dc_miss_open_mem_reqs },
                { "dc_miss_lat", o->dc_miss_lat_cycles },
                { "dc_linad", o->dc_linad }, { "dc_physad", o->dc_physad },
                /* the decoder keeps the register fields; perf prints fetches (x 16) */
                { "fetch_max_cnt", (uint64_t)f->max_cnt << 4 },
                { "fetch_cnt", (uint64_t)f->cnt << 4 },
                { "fetch_lat", f->lat_cycles }, { "fetch_valid", f->valid },
                { "fetch_complete", f->complete }, { "fetch_ic_miss", f->ic_miss },
                { "fetch_phy_valid", f->phy_addr_valid }, { "fetch_page_kib", f->l1tlb_page_kib },
                { "fetch_l2_miss", f->l2_miss }, { "fetch_l3_miss_only", f->l3_miss_only },
                { "fetch_oc_miss", f->oc_miss }, { "fetch_l3_miss", f->l3_miss },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
                if (!strcmp(t[i].name, name)) {
                        *v = t[i].v;
                        return true;
                }
        return false;
}

static void check_file(const char *rel)
{
        struct fixture x;
        size_t         len;
        char          *text = test_load(rel, &len), *save = NULL;
        unsigned       n_expect = 0, bad = 0;
        struct cpu_info cpu = { .vendor = VEN_AMD, .max_ext_leaf = 0x8000001b };

        memset(&x, 0, sizeof(x));
        for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
                char               name[32], num[32];
                unsigned long long v;
                unsigned           fam, model, caps;

                if (ln[0] == '#')
                        continue;
                if (sscanf(ln, "cpu %x %x %x", &fam, &model, &caps) == 3) {
                        cpu.family = fam;
                        cpu.model = model;
                        cpu.amd.ibs = true;
                        cpu.amd.ibs_caps = caps;
                        assert_int_equal(pmu_ibs_detect(&cpu, &x.info), ST_OK);
                        continue;
                }
                if (sscanf(ln, "expect %31s %31s", name, num) == 2) {
                        v = strtoull(num, NULL, 0);
                        uint64_t got = 0;

                        if (!n_expect++) {
                                assert_int_equal(pmu_ibs_op_decode(&x.info, &x.op, &x.o), ST_OK);
                                assert_int_equal(pmu_ibs_fetch_decode(&x.info, &x.fetch, &x.f),
                                                 ST_OK);
                        }
                        if (!field(&x, name, &got))
                                fail_msg("%s: unknown field %s", rel, name);
                        if (got != (uint64_t)v) {
                                print_message("  %s: %s decoded %#llx, the source says %#llx\n",
                                              rel, name, (unsigned long long)got, v);
                                bad++;
                        }
                        continue;
                }
                assert_int_equal(sscanf(ln, "%31s %llx", name, &v), 2);
                size_t i;
                for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
                        if (!strcmp(regs[i].name, name))
                                break;
                if (i == sizeof(regs) / sizeof(regs[0]))
                        fail_msg("%s: unknown register %s", rel, name);
                memcpy((char *)&x + regs[i].off, &(uint64_t){ v }, 8);
        }
        free(text);
        assert_true(n_expect > 10);
        assert_int_equal(bad, 0);
}

static void test_perf_doc_sample(void **unused)
{
        check_file("ibs/perf-amd-ibs-doc.txt");
}

static void test_zen4_l3missonly_samples(void **unused)
{
        check_file("ibs/perf-zen4-l3missonly.txt");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_perf_doc_sample),
                cmocka_unit_test(test_zen4_l3missonly_samples),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
