/** @file
 * Host tests of the PEBS load-latency session (pmu/x86/pebs_session.c) against the register
 * model tests/fake_msr.c: the data-source model table, probe reasons, draining on PMI, and
 * the load-latency event found through the CPU's event table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/base.h"
#include "pmu/events.h"
#include "pmu/x86/pebs_session.h"
#include "tests/cpuid_dump.h"
#include "tests/fake_intel.h"

/* The PEBS data-source table: which layout each model uses, and which models are left out. */
static void test_pebs_model_dse(void **unused)
{
        static const struct {
                uint32_t model;
                bool     dse_known;
                enum pmu_pebs_dse_kind kind;
                bool     split;
        } cases[] = {
                { 0x1a, true,  PEBS_DSE_NHM,      false },
                { 0x3c, true,  PEBS_DSE_SNB,      false },
                { 0x55, true,  PEBS_DSE_SKL_PMEM, false },
                { 0x8f, true,  PEBS_DSE_SKL_PMEM, true  },
                { 0xaf, true,  PEBS_DSE_CMT,      true  },
                { 0x97, false, 0,                 false },   /* hybrid Alder Lake */
                { 0x5c, false, 0,                 false },   /* Goldmont */
        };
        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                enum pmu_pebs_dse_kind k = PEBS_DSE__COUNT;
                bool split = false;

                assert_int_equal(pmu_pebs_model_dse(cases[i].model, &k, &split, NULL),
                                 cases[i].dse_known);
                if (cases[i].dse_known) {
                        assert_int_equal(k, cases[i].kind);
                        assert_int_equal(split, cases[i].split);
                }
        }
}

static void test_pebs_probe_reasons(void **unused)
{
        struct pmu_pebs_session s;
        struct cpu_info ci = { .vendor = VEN_AMD };

        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "not an Intel"));
        ci = fake_intel_skx();
        ci.intel.ds = false;
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "DS"));
        ci = fake_intel_skx();
        fake_msr_add(MSR_IA32_MISC_ENABLE, MISC_ENABLE_PEBS_UNAVAIL);
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "unavailable"));
        /* Skylake-SP has a model table (intel-skylakex) with the load-latency event. */
        ci = fake_intel_skx();
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_OK);
        assert_ptr_equal(s.ev, pmu_event_find(pmu_events_table("intel-skylakex"),
                                              "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4"));
        assert_int_equal(s.rec_bytes, PEBS_REC_SIZE_FMT3);
        assert_int_equal(s.fmt.dse_kind, PEBS_DSE_SKL_PMEM);
        /* Haswell-X has a data-source table but no model event table: the generic table has no
         * load-latency event, and the probe says so instead of using a hand-typed code. */
        ci = fake_intel_skx();
        ci.model = 0x3f;
        assert_int_equal(pmu_init(&ci), ST_OK);
        assert_string_equal(pmu_get_caps()->events->name, "intel-arch");
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "LOAD_LATENCY"));
        assert_null(s.ev);
        assert_int_equal(s.fmt.dse_kind, PEBS_DSE_SNB);
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
        memcpy(p + off, &v, 8);
}

static void test_pebs_drain_on_pmi(void **unused)
{
        struct cpu_info ci = fake_intel_skx();
        struct pmu_pebs_session s;
        const char *why;
        static struct pmu_ds_area ds;
        static uint8_t buf[16 * PEBS_REC_SIZE_FMT3], raw[64 * PEBS_REC_SIZE_FMT3];
        struct pmu_pebs_record rec[8];
        size_t n = 0;

        pmu_pebs_session_probe(&ci, &s);  /* fills fmt; the event is supplied below */
        assert_int_equal(pmu_alias_event("insts", &s.ev, &why), ST_OK);
        s.ds = &ds;
        s.buf = buf;
        s.buf_bytes = sizeof(buf);
        s.raw = raw;
        s.raw_cap = sizeof(raw);
        assert_int_equal(pmu_pebs_session_arm(&s, 2003, 3), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_IA32_DS_AREA), (uint64_t)(uintptr_t)&ds);
        /* general counter 1, with its load-latency bit (32 + 1) */
        assert_int_equal(fake_msr_peek(MSR_IA32_PEBS_ENABLE), 2 | (2ull << 32));
        assert_int_equal(fake_msr_peek(MSR_PEBS_LD_LAT_THRESHOLD), 3);
        assert_int_equal(ds.pebs_buffer_base, (uint64_t)(uintptr_t)buf);
        assert_int_equal(ds.pebs_event_reset[1], (-2003ull) & ((1ull << 48) - 1));
        assert_int_equal(ds.pebs_event_reset[0], 0);

        /* The CPU wrote three records and raised the DS-buffer PMI. */
        for (int i = 0; i < 3; i++) {
                put64(buf + i * PEBS_REC_SIZE_FMT3, PEBS_REC_DLA, 0x1000 + 64 * i);
                put64(buf + i * PEBS_REC_SIZE_FMT3, PEBS_REC_LAT, 40 + i);
                put64(buf + i * PEBS_REC_SIZE_FMT3, PEBS_REC_STATUS, 2); /* counter 1 */
        }
        ds.pebs_index = ds.pebs_buffer_base + 3 * PEBS_REC_SIZE_FMT3;
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, GLOBAL_STATUS_BUFFER_OVF);
        pmu_pebs_session_on_pmi(&s);
        assert_int_equal(s.n_records, 3);
        assert_int_equal(s.raw_len, 3 * PEBS_REC_SIZE_FMT3);
        assert_int_equal(ds.pebs_index, ds.pebs_buffer_base);
        assert_int_equal(fake_msr_peek(MSR_CORE_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_BUFFER_OVF, 0);
        assert_int_equal(pmu_pebs_decode_buffer(&s.fmt, raw, s.raw_len, rec, 8, &n), ST_OK);
        assert_int_equal(n, 3);
        assert_int_equal(rec[2].dla, 0x1080);
        assert_int_equal(rec[1].lat_cycles, 41);

        /* A PMI that is not ours; then a corrupt index is counted, not followed. */
        pmu_pebs_session_on_pmi(&s);
        assert_int_equal(s.n_spurious, 1);
        ds.pebs_index = ds.pebs_buffer_base + sizeof(buf) + 8;
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, GLOBAL_STATUS_BUFFER_OVF);
        pmu_pebs_session_on_pmi(&s);
        assert_int_equal(s.n_errors, 1);
        assert_int_equal(pmu_pebs_session_disarm(&s), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_IA32_PEBS_ENABLE), 0);
        assert_int_equal(fake_msr_peek(MSR_IA32_DS_AREA), 0);
}

/* The probe's other refusals, each with its reason. */
static void test_pebs_probe_more_reasons(void **unused)
{
        struct pmu_pebs_session s;
        struct cpu_info ci;
        (void)unused;

        fake_msr_setup(NULL);                       /* no PMU at all (TCG) */
        ci = (struct cpu_info){ .vendor = VEN_INTEL, .family = 6, .model = 0x55 };
        ci.intel.ds = ci.intel.dtes64 = true;
        pmu_init(&ci);
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "no core PMU"));
        ci = fake_intel_skx_caps(false, 0, 4);
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "no IA32_PERF_CAPABILITIES"));
        ci = fake_intel_skx_caps(true, 0x305, 4);
        ci.model = 0x97;                            /* hybrid Alder Lake: no data-source table */
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "no PEBS data-source table for family 0x6 model 0x97"));
        ci = fake_intel_skx_caps(true, 0xf05, 4);   /* PEBS record format 15 */
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_UNSUPPORTED);
        assert_non_null(strstr(s.why, "PEBS record format 15 not known"));
        assert_int_equal(pmu_pebs_session_probe(NULL, &s), ST_BAD_ARG);
}

/* Arming refuses what cannot work, undoes a half-armed state, and disarming gives back every
 * MSR the session wrote as the caller had it: DS area, PEBS enable, load-latency threshold. */
static void test_pebs_arm_undo_and_restore(void **unused)
{
        struct cpu_info ci = fake_intel_skx_caps(true, 0x305, 4);
        struct pmu_pebs_session s;
        const char *why;
        static struct pmu_ds_area ds;
        static uint8_t buf[16 * PEBS_REC_SIZE_FMT3], raw[2 * PEBS_REC_SIZE_FMT3];
        (void)unused;

        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_OK);
        assert_int_equal(pmu_alias_event("insts", &s.ev, &why), ST_OK);
        assert_int_equal(pmu_pebs_session_arm(NULL, 1, 3), ST_BAD_ARG);
        assert_int_equal(pmu_pebs_session_arm(&s, 2003, 3), ST_BAD_ARG);  /* no DS area yet */
        s.ds = &ds;
        s.buf = buf;
        s.buf_bytes = PEBS_REC_SIZE_FMT3;                                 /* room for one */
        assert_int_equal(pmu_pebs_session_arm(&s, 2003, 3), ST_BAD_ARG);
        s.buf_bytes = sizeof(buf);
        s.raw = raw;
        s.raw_cap = sizeof(raw);

        fake_msr_add(MSR_IA32_DS_AREA, 0x5000);     /* the caller's */
        fake_msr_add(MSR_PEBS_LD_LAT_THRESHOLD, 0x20);
        fake_msr_remove(MSR_ARCH_PERFMON_EVENTSEL0 + 1); /* the PEBS counter cannot be programmed */
        assert_int_equal(pmu_pebs_session_arm(&s, 2003, 3), ST_FAULT);
        assert_int_equal(fake_msr_peek(MSR_IA32_DS_AREA), 0x5000);
        assert_int_equal(fake_msr_peek(MSR_PEBS_LD_LAT_THRESHOLD), 0x20);
        assert_int_equal(fake_msr_peek(MSR_IA32_PEBS_ENABLE), 0);

        fake_msr_add(MSR_ARCH_PERFMON_EVENTSEL0 + 1, 0);
        assert_int_equal(pmu_pebs_session_arm(&s, 2003, 3), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_PEBS_LD_LAT_THRESHOLD), 3);
        /* Room for two records in the raw copy: four at once are counted as dropped, two fit. */
        ds.pebs_index = ds.pebs_buffer_base + 4 * PEBS_REC_SIZE_FMT3;
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, GLOBAL_STATUS_BUFFER_OVF);
        pmu_pebs_session_on_pmi(&s);
        ds.pebs_index = ds.pebs_buffer_base + 2 * PEBS_REC_SIZE_FMT3;
        fake_msr_add(MSR_CORE_PERF_GLOBAL_STATUS, GLOBAL_STATUS_BUFFER_OVF);
        pmu_pebs_session_on_pmi(&s);
        assert_int_equal(s.n_records, 6);
        assert_int_equal(s.n_dropped, 4);
        assert_int_equal(s.raw_len, 2 * PEBS_REC_SIZE_FMT3); /* four did not fit, two did */
        assert_int_equal(pmu_pebs_session_disarm(&s), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_IA32_DS_AREA), 0x5000);
        assert_int_equal(fake_msr_peek(MSR_PEBS_LD_LAT_THRESHOLD), 0x20);
        assert_int_equal(fake_msr_peek(MSR_IA32_PEBS_ENABLE), 0);
        assert_int_equal(pmu_pebs_session_disarm(NULL), ST_BAD_ARG);
}

/* ---- the load-latency event from the tables -------------------------------------------- */

/* Every model-specific Intel mapfile row whose models the PEBS data-source table claims (the
 * harness would run PEBS load latency there) maps to a table with the load-latency event; the
 * generic table has none (the event is model-specific), so other models SKIP with a reason. */
static void test_ldlat_event_in_claimed_tables(void **unused)
{
        size_t n_claimed = 0;

        for (size_t i = 0; i < pmu_n_event_map; i++) {
                const struct pmu_map_row *r = &pmu_event_map[i];
                const struct pmu_event_table *t = &pmu_event_tables[r->table];

                if (r->vendor != VEN_INTEL || r->model_hi > 0xff)
                        continue;              /* the wildcard row: intel-arch, checked below */
                for (uint32_t m = r->model_lo; m <= r->model_hi; m++) {
                        enum pmu_pebs_dse_kind kind;
                        bool split;
                        const struct pmu_event_desc *ev;

                        if (!pmu_pebs_model_dse(m, &kind, &split, NULL) ||
                            pmu_events_for(VEN_INTEL, r->family < 0 ? 6 : (uint32_t)r->family,
                                           m) != t)
                                continue;
                        n_claimed++;
                        ev = pmu_pebs_ldlat_event(t);
                        if (!ev)
                                fail_msg("%s (model 0x%x) has no load-latency event", t->name, m);
                        assert_true(ev >= t->events && ev < t->events + t->n_events);
                        assert_int_equal(ev->fixed, -1);
                        assert_int_equal(ev->cmask, 0);  /* [SDM-3B]: CMASK and INV must be 0 */
                        assert_false(ev->inv);
                }
        }
        /* Ice Lake client 0x7d 0x7e; Skylake client 0x4e 0x5e 0x8e 0x9e 0xa5 0xa6; Skylake-SP
         * 0x55; Ice Lake-SP/D 0x6a 0x6c; Sapphire Rapids 0x8f. */
        assert_int_equal(n_claimed, 12);
        assert_null(pmu_pebs_ldlat_event(pmu_events_table("intel-arch")));
        assert_null(pmu_pebs_ldlat_event(NULL));
}

/* A CPUID signature, decoded by boot/x86/cpuid.c as on the target, picks the table perf's
 * mapfile.csv names for that part; where the PEBS data-source table knows the model, the
 * table has the load-latency event. Signatures: CPUID.01H:EAX of real parts ([SDM-2A]
 * CPUID Figure 3-6; [APM-3] E.3.2 for the AMD extended family). */
static void test_tables_from_cpuid_signature(void **unused)
{
        static const struct {
                const char *part;
                bool        amd;
                uint32_t    eax;
                uint32_t    family, model;
                const char *table;   /* NULL: no table */
                bool        dse;     /* the PEBS data-source table knows the model */
        } cases[] = {
                { "Skylake-S i7-6700K",      false, 0x000506e3, 6, 0x5e, "intel-skylake", true },
                { "Kaby Lake-S i7-7700K",    false, 0x000906e9, 6, 0x9e, "intel-skylake", true },
                { "Comet Lake-S i9-10900K",  false, 0x000a0655, 6, 0xa5, "intel-skylake", true },
                { "Skylake-SP (stepping 4)", false, 0x00050654, 6, 0x55, "intel-skylakex", true },
                { "Cascade Lake (stepping 7)", false, 0x00050657, 6, 0x55, "intel-skylakex", true },
                { "Ice Lake client",         false, 0x000706e5, 6, 0x7e, "intel-icelake", true },
                { "Ice Lake-SP",             false, 0x000606a6, 6, 0x6a, "intel-icelakex", true },
                { "Sapphire Rapids",         false, 0x000806f8, 6, 0x8f, "intel-sapphirerapids", true },
                { "Alder Lake-S",            false, 0x00090672, 6, 0x97, "intel-alderlake", false },
                { "Raptor Lake-S",           false, 0x000b0671, 6, 0xb7, "intel-alderlake", false },
                { "Haswell-S",               false, 0x000306c3, 6, 0x3c, "intel-arch", true },
                { "Zen 2 Rome",              true,  0x00830f10, 0x17, 0x31, "amd-zen2", false },
                { "Zen 2 Matisse",           true,  0x00870f10, 0x17, 0x71, "amd-zen2", false },
                { "Zen 1 Naples",            true,  0x00800f12, 0x17, 0x01, NULL, false },
                { "Zen 3 Milan",             true,  0x00a00f11, 0x19, 0x01, "amd-zen3", false },
                { "Zen 4 Genoa",             true,  0x00a10f11, 0x19, 0x11, "amd-zen4", false },
        };
        static struct cpuid_dump d;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct cpu_info ci;
                const struct pmu_event_table *t;
                enum pmu_pebs_dse_kind kind;
                bool split;

                memset(&d, 0, sizeof(d));
                d.leaves[0].leaf = 0;
                d.leaves[0].r = cases[i].amd
                        ? (struct cpuid_regs){ 1, 0x68747541, 0x444d4163, 0x69746e65 } /* AuthenticAMD */
                        : (struct cpuid_regs){ 1, 0x756e6547, 0x6c65746e, 0x49656e69 }; /* GenuineIntel */
                d.leaves[1].leaf = 1;
                d.leaves[1].r.eax = cases[i].eax;
                d.n = 2;
                assert_int_equal(cpu_decode(&d, &ci), ST_OK);
                assert_int_equal(ci.vendor, cases[i].amd ? VEN_AMD : VEN_INTEL);
                if (ci.family != cases[i].family || ci.model != cases[i].model)
                        fail_msg("%s: decoded family 0x%x model 0x%x", cases[i].part, ci.family,
                                 ci.model);
                t = pmu_events_for(ci.vendor, ci.family, ci.model);
                if (!cases[i].table) {
                        assert_null(t);
                        continue;
                }
                if (!t || strcmp(t->name, cases[i].table))
                        fail_msg("%s: table %s, want %s", cases[i].part, t ? t->name : "none",
                                 cases[i].table);
                if (cases[i].amd)
                        continue;
                assert_int_equal(pmu_pebs_model_dse(ci.model, &kind, &split, NULL), cases[i].dse);
                if (!strcmp(t->name, "intel-arch"))
                        assert_null(pmu_pebs_ldlat_event(t));      /* SKIP with a reason */
                else if (cases[i].dse && !pmu_pebs_ldlat_event(t))
                        fail_msg("%s: %s has no load-latency event", cases[i].part, t->name);
        }
}

/* On an Ice Lake the probe finds the event through pmu/events and arm programs its code. */
static void test_pebs_probe_finds_icelake_event(void **unused)
{
        struct cpu_info ci = fake_intel_skx();
        const struct pmu_event_desc *want;
        struct pmu_pebs_session s;
        static struct pmu_ds_area ds;
        static uint8_t buf[16 * PEBS_REC_SIZE_FMT3];

        ci.model = 0x7e;
        assert_int_equal(pmu_init(&ci), ST_OK);
        want = pmu_event_find(pmu_events_table("intel-icelake"),
                              "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4");
        assert_non_null(want);
        assert_int_equal(pmu_pebs_session_probe(&ci, &s), ST_OK);
        assert_ptr_equal(s.ev, want);
        s.ds = &ds;
        s.buf = buf;
        s.buf_bytes = sizeof(buf);
        assert_int_equal(pmu_pebs_session_arm(&s, 2003, 3), ST_OK);
        assert_int_equal(fake_msr_peek(MSR_ARCH_PERFMON_EVENTSEL0 + 1) & 0xffff,
                         ((unsigned)want->umask << 8) | want->code);
        assert_int_equal(fake_msr_peek(MSR_PEBS_LD_LAT_THRESHOLD), 3);
        assert_int_equal(pmu_pebs_session_disarm(&s), ST_OK);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pebs_model_dse),
                cmocka_unit_test(test_pebs_probe_reasons),
                cmocka_unit_test(test_pebs_drain_on_pmi),
                cmocka_unit_test(test_pebs_probe_more_reasons),
                cmocka_unit_test(test_pebs_arm_undo_and_restore),
                cmocka_unit_test(test_ldlat_event_in_claimed_tables),
                cmocka_unit_test(test_tables_from_cpuid_signature),
                cmocka_unit_test(test_pebs_probe_finds_icelake_event),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
