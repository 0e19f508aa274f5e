/** @file The AArch64 counting suite and overflow-sampling run (app/arm64/validate.c: the
 * shared ones through pmu/pmu.h, tests/vpmu/vpmu_a64_common.c, with the PMUv3's own checks)
 * and the AArch64 driver (pmu/arm64/pmu_arm64.c) on the virtual PMUv3
 * (tests/vpmu/vpmu_a64.c): every check PASSes on a faithful QEMU and a faithful hardware PMU, SKIPs only for a reason it names, and each
 * fault the model can show turns the check that is meant to catch it into a FAIL while every
 * other check keeps its verdict; the model's own filter and overflow rules are checked against
 * the Arm ARM's tables directly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/arm64/validate.h"
#include "boot/cpu_info.h"
#include "report/json.h"
#include "pmu/arm64/pmu_arm64.h"
#include "report/rep.h"
#include "tests/vpmu/vpmu_a64.h"

#define MAX_V 64

struct verdicts {
        unsigned n;
        char     name[MAX_V][48];
        char     v[MAX_V];
        char     text[MAX_V][160];
        char     json[32768]; /* pmu-validation.json of the run */
};

/* "<V>: <prefix>: <check>[: ]<rest>" -> name "<prefix>: <check>"; collapsed SKIPs ("N
 * checks: why") keep the reason as text. */
static void parse(const char *out, struct verdicts *v)
{
        memset(v, 0, sizeof(*v));
        for (const char *ln = out; ln && *ln; ln = strchr(ln, '\n') ? strchr(ln, '\n') + 1 : NULL) {
                char c = ln[0];
                const char *e = strchr(ln, '\n'), *p, *q;

                if ((c != 'P' && c != 'F' && c != 'S') || ln[4] != ':' || v->n == MAX_V)
                        continue;
                p = ln + 6;
                q = strchr(p, ':');           /* end of the prefix */
                if (!q)
                        continue;
                q += 2;
                while (*q && *q != ' ' && *q != ':' && *q != '\n')
                        q++;
                size_t len = (size_t)(q - p), tl = e ? (size_t)(e - ln) : strlen(ln);
                memcpy(v->name[v->n], p, len < 47 ? len : 47);
                memcpy(v->text[v->n], ln, tl < 159 ? tl : 159);
                v->v[v->n++] = c;
        }
}

/* The verdict of @p name: F if any of its lines FAILed, else the first line's; '?' absent. */
static char verdict_of(const struct verdicts *v, const char *name)
{
        char r = '?';

        for (unsigned i = 0; i < v->n; i++)
                if (!strcmp(v->name[i], name)) {
                        if (v->v[i] == 'F')
                                return 'F';
                        if (r == '?')
                                r = v->v[i];
                }
        return r;
}

/* Whether pmu-validation.json's entry for check @p name has verdict @p verdict and its
 * text holds @p has (the SKIP reason, which the console may give for several checks at
 * once). */
static bool json_says(const struct verdicts *v, const char *name, const char *verdict,
                      const char *has)
{
        char        key[80], want[40];
        const char *b, *e;

        snprintf(key, sizeof(key), "\"check\": \"%s\"", name);
        snprintf(want, sizeof(want), "\"verdict\": \"%s\"", verdict);
        if (!(b = strstr(v->json, key)))
                return false;
        e = strstr(b + 1, "\"check\": ");
        size_t n = e ? (size_t)(e - b) : strlen(b);
        char   entry[2048];
        snprintf(entry, sizeof(entry), "%.*s", (int)(n < sizeof(entry) - 1 ? n : sizeof(entry) - 1), b);
        return strstr(entry, want) && strstr(entry, has);
}

static const char *text_of(const struct verdicts *v, const char *name)
{
        for (unsigned i = 0; i < v->n; i++)
                if (!strcmp(v->name[i], name))
                        return v->text[i];
        return "";
}

static void run(const struct vpa_part *p, const struct vpa_faults *f, bool qemu,
                struct verdicts *v)
{
        struct arm64_id_regs  r;
        struct arm64_cpu_info ci;
        struct rep_buf        out = { 0 }, json = { 0 };
        static const struct cpu_info no_cpu;

        vpa_init(p, f);
        vpa_id_regs(&r);
        assert_int_equal(arm64_decode(&r, &ci), ST_OK);
        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(pmu_arm64_init(&ci, &r), ST_OK);
        assert_int_equal(val_arm64_suite(&ci, &no_cpu, qemu, 1, NULL, 0, 0, &json), ST_OK);
        pmu_arm64_restore();
        rep_flush();
        rep_reset();
        if (getenv("VPMU_VERBOSE"))
                fprintf(stderr, "==== %s%s\n%s\n", p->name, qemu ? " (QEMU)" : "", out.p);
        parse(out.p, v);
        snprintf(v->json, sizeof(v->json), "%s", json.p ? json.p : "");
        rep_buf_free(&out);
        rep_buf_free(&json);
}

/* Checks every faithful run decides and PASSes. */
static const char *const decided[] = {
        "pmu-validate: insts-loop", "pmu-validate: el-filter-el1-only",
        "pmu-validate: el-filter-el0-only", "pmu-validate: sw-incr",
        "pmu-validate: counters-count", "pmu-validate: counter-disabled",
        "sampling: pmi-route", "sampling: pmi-count", "sampling: skid-in-kernel",
        "sampling: caliper-scale",
};

static struct verdicts ref_qemu, ref_hw;

static void no_fail(const struct verdicts *v, const char *what)
{
        for (unsigned i = 0; i < v->n; i++)
                if (v->v[i] == 'F')
                        fail_msg("%s: %s", what, v->text[i]);
        for (size_t i = 0; i < sizeof(decided) / sizeof(decided[0]); i++)
                if (verdict_of(v, decided[i]) != 'P')
                        fail_msg("%s: %s is %c (%s)", what, decided[i], verdict_of(v, decided[i]),
                                 text_of(v, decided[i]));
}

/* Faithful QEMU (-icount: one instruction per cycle, the PMI at the overflowing instruction):
 * the cycle counter against the timer and the deterministic skid are decided too; BR_RETIRED,
 * which QEMU 7.2 does not implement (PMCEID1), SKIPs for that reason. Faithful hardware
 * (Neoverse N1, 32-bit event counters, EL3, skid): BR_RETIRED decided, the cycles check is
 * INFO (no independent truth), the skid check absent. */
static void test_faithful(void **unused)
{
        run(&vpa_qemu_max, NULL, true, &ref_qemu);
        no_fail(&ref_qemu, "QEMU");
        assert_int_equal(verdict_of(&ref_qemu, "pmu-validate: cycles-vs-timer"), 'P');
        assert_int_equal(verdict_of(&ref_qemu, "sampling: skid-deterministic"), 'P');
        assert_true(json_says(&ref_qemu, "branches-loop", "SKIP", "PMCEID"));

        run(&vpa_neoverse_n1, NULL, false, &ref_hw);
        no_fail(&ref_hw, "hardware");
        assert_int_equal(verdict_of(&ref_hw, "pmu-validate: branches-loop"), 'P');
        assert_int_equal(verdict_of(&ref_hw, "pmu-validate: cycles-vs-timer"), '?');
        assert_int_equal(verdict_of(&ref_hw, "sampling: skid-deterministic"), '?');
}

/* INST_RETIRED that reads 0 over a loop: QEMU without -icount (detected by the caller from
 * SMBIOS) SKIPs the checks that need it, naming QEMU; on hardware the same reading is a
 * broken counter and FAILs. */
static void test_inst_retired_zero(void **unused)
{
        const struct vpa_faults zero = { .inst_zero = true };
        struct verdicts v;

        run(&vpa_qemu_max, &zero, true, &v);
        assert_int_equal(verdict_of(&v, "pmu-validate: insts-loop"), 'S');
        assert_non_null(strstr(text_of(&v, "pmu-validate: insts-loop"), "-icount"));
        for (unsigned i = 0; i < v.n; i++)
                if (v.v[i] == 'F')
                        fail_msg("QEMU without -icount: %s", v.text[i]);
        /* The harness knows -icount is off (INST_RETIRED does not count): the clock checks
         * hold only as the bounds of the mechanism, the deterministic skid is not claimed,
         * and no verdict says "under -icount". */
        assert_int_equal(verdict_of(&v, "pmu-validate: cycles-vs-timer"), 'P');
        assert_non_null(strstr(text_of(&v, "pmu-validate: cycles-vs-timer"), "without -icount"));
        assert_int_equal(verdict_of(&v, "sampling: pmi-count"), 'P');
        assert_int_equal(verdict_of(&v, "sampling: skid-deterministic"), '?');
        for (unsigned i = 0; i < v.n; i++)
                if (v.v[i] == 'P' && (strstr(v.text[i], "under -icount") ||
                                      strstr(v.text[i], "QEMU -icount")))
                        fail_msg("QEMU without -icount, a PASS names it: %s", v.text[i]);

        run(&vpa_neoverse_n1, &zero, false, &v);
        assert_int_equal(verdict_of(&v, "pmu-validate: insts-loop"), 'F');
        assert_int_equal(verdict_of(&v, "pmu-validate: el-filter-el1-only"), 'F');
        assert_int_equal(verdict_of(&v, "pmu-validate: counter-disabled"), 'F');
        assert_int_equal(verdict_of(&v, "pmu-validate: sw-incr"), 'P');
}

/* UEFI at EL2 (Arm servers): the harness's code runs at EL2, where only PMEVTYPER.NSH /
 * PMCCFILTR.NSH make it count. The same suite decides the same checks with the same
 * counts as at EL1, on QEMU's part (no EL3) and on a part with EL3. */
static void test_el2(void **unused)
{
        struct vpa_part q2 = vpa_qemu_max, n2 = vpa_neoverse_n1;
        struct verdicts v;

        (void)unused;
        q2.el = n2.el = 2;
        run(&q2, NULL, true, &v);
        no_fail(&v, "QEMU at EL2");
        assert_int_equal(verdict_of(&v, "pmu-validate: cycles-vs-timer"), 'P');
        assert_int_equal(verdict_of(&v, "sampling: skid-deterministic"), 'P');
        for (unsigned i = 0; i < v.n && i < ref_qemu.n; i++)
                assert_string_equal(v.text[i], ref_qemu.text[i]); /* line for line as at EL1 */
        assert_int_equal(v.n, ref_qemu.n);
        run(&n2, NULL, false, &v);
        no_fail(&v, "Neoverse N1 at EL2");
}

/* Event numbers from 0x4000 need the 16-bit event field of PMUv3p1: with PMUv3 (10 bits)
 * 0x4000 would count event 0x000 (SW_INCR), so it is neither offered nor programmed. */
static void test_event_field(void **unused)
{
        struct vpa_part       v30 = vpa_neoverse_n1, v31 = vpa_neoverse_n1;
        struct arm64_id_regs  r;
        struct arm64_cpu_info ci;

        (void)unused;
        v30.pmuver = 0x1;
        v30.pmceid0 = v31.pmceid0 = vpa_neoverse_n1.pmceid0 | 1ull << 32; /* 0x4000 */
        vpa_init(&v30, NULL);
        vpa_id_regs(&r);
        assert_int_equal(arm64_decode(&r, &ci), ST_OK);
        assert_int_equal(pmu_arm64_init(&ci, &r), ST_OK);
        assert_false(pmu_arm64_event_implemented(0x4000));
        assert_int_equal(pmu_arm64_program(0, 0x4000, PMU_EL0 | PMU_EL1, 0), ST_BAD_ARG);
        assert_int_equal(pmu_arm64_program(0, 0x3ff, PMU_EL0 | PMU_EL1, 0), ST_OK);
        pmu_arm64_restore();
        vpa_init(&v31, NULL);
        vpa_id_regs(&r);
        assert_int_equal(arm64_decode(&r, &ci), ST_OK);
        assert_int_equal(pmu_arm64_init(&ci, &r), ST_OK);
        assert_true(pmu_arm64_event_implemented(0x4000));
        assert_int_equal(pmu_arm64_program(0, 0x4000, PMU_EL0 | PMU_EL1, 0), ST_OK);
        pmu_arm64_restore();
}

/* ---- one fault, the checks it must flip ------------------------------------------------- */

static const struct {
        const char        *what;
        bool               qemu;
        struct vpa_faults  f;
        const char        *fails[4];
} fault_cases[] = {
        { "P/U filter ignored", false, { .filter_ignored = true },
          { "pmu-validate: el-filter-el0-only" } },
        { "PMSWINC_EL0 dead", false, { .sw_incr_dead = true },
          { "pmu-validate: sw-incr", "pmu-validate: counters-count" } },
        { "counter 2 counts without PMCNTENSET", false, { .cnten_ignored = 1u << 2 },
          { "pmu-validate: counter-disabled" } },
        { "counter 4 claimed by PMCR_EL0.N but never counts", false, { .dead = 1u << 4 },
          { "pmu-validate: counters-count" } },
        /* 50 ppm of 200000 instructions: 10 too many, against a tolerance of 0 */
        { "INST_RETIRED 50 ppm high", false, { .insts_ppm = 50 },
          { "pmu-validate: insts-loop", "pmu-validate: el-filter-el1-only" } },
        /* every 10th overflow lost: the counter runs on from 0 and never overflows again;
         * the branch skid run of the shared sampling (BR_RETIRED on this part) then has 9 of
         * its 200 samples, which its skid-in-kernel counts against it too */
        { "overflow lost", false, { .lose_pmi_every = 10 },
          { "sampling: pmi-count", "sampling: caliper-scale", "sampling: skid-in-kernel" } },
        { "PC past the kernel", false, { .skid_extra_bytes = 1u << 20 },
          { "sampling: skid-in-kernel" } },
        /* 1 % fast against 2 ticks + 64 cycles of tolerance over 10^7 cycles; its fraction
         * also moves the handler's reading by one now and then */
        { "cycle counter 1 % fast (QEMU)", true, { .cycles_ppm = 10000 },
          { "pmu-validate: cycles-vs-timer", "sampling: skid-deterministic" } },
        { "PMU interrupt never delivered", false, { .route_dead = true },
          { "sampling: pmi-route", "sampling: pmi-count", "sampling: skid-in-kernel",
            "sampling: caliper-scale" } },
};

static bool listed(const char *const *fails, const char *name)
{
        for (unsigned i = 0; i < 4 && fails[i]; i++)
                if (!strcmp(fails[i], name))
                        return true;
        return false;
}

static void test_faults(void **unused)
{
        struct verdicts v;

        for (size_t i = 0; i < sizeof(fault_cases) / sizeof(fault_cases[0]); i++) {
                const struct verdicts *ref = fault_cases[i].qemu ? &ref_qemu : &ref_hw;

                run(fault_cases[i].qemu ? &vpa_qemu_max : &vpa_neoverse_n1, &fault_cases[i].f,
                    fault_cases[i].qemu, &v);
                for (unsigned k = 0; k < ref->n; k++) {
                        const char *n = ref->name[k];
                        char want = listed(fault_cases[i].fails, n) ? 'F' : verdict_of(ref, n);

                        if (verdict_of(&v, n) != want)
                                fail_msg("%s: %s is %c, want %c (%s)", fault_cases[i].what, n,
                                         verdict_of(&v, n), want, text_of(&v, n));
                }
        }
}

/* ---- each tolerance at its edge --------------------------------------------------------- */

/* The measured figure of check @p name ("measured=N" in its line), 0 if absent. */
static uint64_t measured_of(const struct verdicts *v, const char *name)
{
        const char *m = strstr(text_of(v, name), "measured=");

        return m ? strtoull(m + 9, NULL, 10) : 0;
}

/* Exact counts have no tolerance: one INST_RETIRED too many over the 200000-instruction loop
 * (5 ppm) FAILs, and 5 of 1000 SW_INCR writes lost FAIL. cycles-vs-timer under QEMU -icount
 * allows two timer ticks (16 ns each at 62.5 MHz) and 64 cycles, 96 in all: a cycle counter
 * 150 cycles fast over the timed span FAILs, 40 PASSes. pmi-count allows one PMI and 1 %,
 * caliper-scale one period and 1 %: cycle-counter writes landing 267 cycles ahead make each
 * 10007-cycle period 2.7 % short and FAIL both, 67 ahead (0.7 %) PASS both. A PMI taken
 * again with no overflow pending is not a sample (its reading is not a skid). */
static void test_tolerance_edges(void **unused)
{
        const uint64_t span = measured_of(&ref_qemu, "pmu-validate: cycles-vs-timer");
        struct {
                const char        *check;
                bool               qemu;
                struct vpa_faults  f;
                char               want;
        } cases[] = {
                { "pmu-validate: insts-loop", false, { .insts_ppm = 5 }, 'F' },
                { "pmu-validate: sw-incr", false, { .sw_incr_lose_every = 200 }, 'F' },
                { "pmu-validate: cycles-vs-timer", true,
                  { .cycles_ppm = (int32_t)(150000000 / (span ? span : 1)) }, 'F' },
                { "pmu-validate: cycles-vs-timer", true,
                  { .cycles_ppm = (int32_t)(40000000 / (span ? span : 1)) }, 'P' },
                { "sampling: pmi-count", false, { .ccntr_write_skew = 267 }, 'F' },
                { "sampling: caliper-scale", false, { .ccntr_write_skew = 267 }, 'F' },
                { "sampling: pmi-count", false, { .ccntr_write_skew = 67 }, 'P' },
                /* an interrupt with no overflow pending (every 10th PMI taken twice) is
                 * spurious, not a sample: the skid of the samples stays one distance */
                { "sampling: skid-deterministic", true, { .spurious_pmi_every = 10 }, 'P' },
                { "sampling: caliper-scale", false, { .ccntr_write_skew = 67 }, 'P' },
        };
        /* Lines of this suite's own checks where the shared sampling run prints a check of
         * the same name: one SW_INCR write in 1000 lost (999 against a tolerance of 0), the
         * sampled PC 1 MiB past the kernel, no PMI at all (0 of 0 is not a PASS). */
        static const struct {
                struct vpa_faults f;
                const char       *line;
        } own[] = {
                { { .sw_incr_lose_every = 1000 },
                  "FAIL: pmu-validate: sw-incr measured=999 expected=1000 tolerance=0" },
                { { .skid_extra_bytes = 1u << 20 },
                  "FAIL: sampling: skid-in-kernel: 0 of 823 sampled PCs inside bench_skid_body" },
                { { .route_dead = true },
                  "FAIL: sampling: skid-in-kernel: 0 of 0 sampled PCs inside bench_skid_body" },
        };
        struct verdicts v;

        (void)unused;
        for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
                bool seen = false;
                run(&vpa_neoverse_n1, &own[i].f, false, &v);
                for (unsigned k = 0; k < v.n; k++)
                        seen |= !strncmp(v.text[k], own[i].line, strlen(own[i].line));
                if (!seen)
                        fail_msg("own case %zu: no line \"%s\"", i, own[i].line);
        }
        assert_true(span > 1000000); /* the ppm above resolve a cycle or two */
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                run(cases[i].qemu ? &vpa_qemu_max : &vpa_neoverse_n1, &cases[i].f, cases[i].qemu,
                    &v);
                if (verdict_of(&v, cases[i].check) != cases[i].want)
                        fail_msg("case %zu: %s is %c, want %c (%s)", i, cases[i].check,
                                 verdict_of(&v, cases[i].check), cases[i].want,
                                 text_of(&v, cases[i].check));
        }
}

/* ---- the model against the Arm ARM's rules ---------------------------------------------- */

/* PMEVTYPER filtering, [ARM-ARM] D11.6: without EL3, P excludes EL1, U excludes EL0 and NSH
 * includes EL2; with EL3 (Non-secure), EL1 counts when NSK equals P and EL0 when NSU equals U. */
static void test_model_filters(void **unused)
{
        static const struct {
                bool     el3;
                unsigned el;
                uint64_t type;
                bool     counts;
        } cases[] = {
                { false, 1, 0, true },           { false, 1, 1ull << 31, false },
                { false, 0, 1ull << 31, true },  { false, 0, 1ull << 30, false },
                { false, 2, 0, false },          { false, 2, 1ull << 27, true },
                { true, 1, 1ull << 31, false },  { true, 1, 1ull << 31 | 1ull << 29, true },
                { true, 1, 1ull << 29, false },  { true, 0, 1ull << 30 | 1ull << 28, true },
                { true, 0, 1ull << 28, false },  { true, 2, 1ull << 27, true },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct vpa_part p = vpa_neoverse_n1;

                p.el3 = cases[i].el3;
                vpa_init(&p, NULL);
                vpa_sysreg_write("pmevtyper0_el0", cases[i].type | 0x08);   /* INST_RETIRED */
                vpa_sysreg_write("pmcntenset_el0", 1);
                vpa_sysreg_write("pmcr_el0", 1);                            /* E */
                vpa_set_el(cases[i].el);
                vpa_retire(1000, 0, 0x1000, 0x2000);
                vpa_set_el(1);
                uint64_t n = vpa_sysreg_read("pmevcntr0_el0");
                if ((n >= 1000) != cases[i].counts || (!cases[i].counts && n > 4))
                        fail_msg("case %zu (EL3 %d, EL%u, type 0x%llx): counted %llu", i,
                                 cases[i].el3, cases[i].el, (unsigned long long)cases[i].type,
                                 (unsigned long long)n);
        }
}

/* Overflow widths, [ARM-ARM] D11.8: event counters overflow at 32 bits unless FEAT_PMUv3p5
 * and PMCR_EL0.LP; the cycle counter at 32 unless PMCR_EL0.LC. */
static void test_model_overflow(void **unused)
{
        static const struct {
                const struct vpa_part *p;
                uint64_t               pmcr;
                bool                   ovf_evt, ovf_cyc;
        } cases[] = {
                { &vpa_neoverse_n1, 0x1 | 0x80, true, true },   /* no p5: LP has no effect */
                { &vpa_qemu_max, 0x1, true, true },
                { &vpa_qemu_max, 0x1 | 0x80 | 0x40, false, false },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                vpa_init(cases[i].p, NULL);
                vpa_sysreg_write("pmevtyper0_el0", 0x11);     /* CPU_CYCLES */
                vpa_sysreg_write("pmevcntr0_el0", 0xffffff00ull);
                vpa_sysreg_write("pmccntr_el0", 0xffffff00ull);
                vpa_sysreg_write("pmcntenset_el0", 1u | 1u << 31);
                vpa_sysreg_write("pmcr_el0", cases[i].pmcr);
                vpa_retire(1000, 0, 0x1000, 0x2000);
                uint64_t ovs = vpa_sysreg_read("pmovsset_el0");
                assert_int_equal((ovs & 1) != 0, cases[i].ovf_evt);
                assert_int_equal((ovs >> 31 & 1) != 0, cases[i].ovf_cyc);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_model_filters),
                cmocka_unit_test(test_model_overflow),
                cmocka_unit_test(test_faithful),
                cmocka_unit_test(test_inst_retired_zero),
                cmocka_unit_test(test_el2),
                cmocka_unit_test(test_event_field),
                cmocka_unit_test(test_faults),
                cmocka_unit_test(test_tolerance_edges),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
