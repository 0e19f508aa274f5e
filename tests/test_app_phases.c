/** @file The processors, c2c and NUMA phases (app/cpus.c, app/c2c.c, app/numa.c) on the fake
 *  platform's three-node QEMU machine, each verdict shown PASSing and then FAILing on the fault
 *  it exists for: a processor whose own APIC ID differs from the firmware's above bit 7, one
 *  whose ud2 comes back as another vector, an RDPMC that does not fault, a processor missing
 *  from SRAT, a c2c pair whose transfer times out or whose reader reports an error, a NUMA
 *  buffer that cannot be placed, a cell whose chase fails, a cell disturbed on every try.
 *
 *  The faults are put where the phases read them: the link wraps (see tests/unittests.cfg) the
 *  processor's self-description, its fault probes, the c2c set-up and reader and the MP
 *  call that runs a chase; each wrap passes through until a test arms it. The working set
 *  of the NUMA chase follows the largest cache: the inventory's caches are cleared so it is
 *  the phase's minimum (64 MiB), whatever the host's cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/cpus.h"
#include "app/run.h"
#include "bench/c2c.h"
#include "bench/chase_job.h"
#include "bench/kernel_load.h"
#include "boot/cpu.h"
#include "boot/mp.h"
#include "boot/topology.h"
#include "pmu/x86/fault_probe.h"
#include "report/inventory.h"
#include "tests/fake_plat.h"
#include "tests/test_util.h"

/* ---- the wraps ------------------------------------------------------------------------------ */

void     __real_cpu_topology_self(struct cpu_topology *out);
status_t __real_cpu_fault_probe(enum cpu_fault_probe kind, unsigned *vector);
status_t __real_pmu_fault_probe_rdpmc(uint64_t *val, unsigned *vector);
status_t __real_pmu_fault_probe_msr(uint64_t *val, unsigned *vector);
status_t __real_bench_c2c_init(struct bench_c2c *c, enum bench_c2c_kind kind, void *chain,
                               uint32_t n_lines, uint32_t line_bytes, uint32_t rounds);
void     __real_bench_c2c_reader(void *c);
status_t __real_mp_run(unsigned idx, void (*fn)(void *arg), void *arg, uint32_t timeout_us);
status_t __real_mp_call(unsigned idx, void (*fn)(void *arg), void *arg);

static struct {
        int      cpu;          /* the processor the faults below hit (-1: none) */
        uint32_t apic_xor;     /* its own APIC ID, as it reports it, xor this */
        unsigned ud_vector;    /* its ud2's vector (0: the platform's) */
        status_t ud_st;        /* ST_OK: the platform's */
        status_t pmc_st;       /* likewise its RDPMC probe */
        bool     pmc_no_fault; /* its RDPMC returns (ST_OK) instead of faulting */
        uint64_t pmc_val;      /* what its faulting RDPMC leaves in the result (0: the probe's) */
        unsigned msr_vector;   /* the vector its RDMSR of a missing MSR reports (0: the probe's) */
        unsigned pmc_vector;
        int      c2c_fail_at;  /* the n-th bench_c2c_init fails (-1: none) */
        int      reader_fail_at; /* the n-th reader reports an error (-1: none) */
        int      chase_fail_at;  /* the n-th chase job fails (-1: none) */
        int      disturb_from, disturb_n; /* chase jobs from .. that are all-disturbed */
        int      load_fail_at;   /* the n-th load started on an AP fails to start (-1: none) */
        int      n_c2c, n_reader, n_chase, n_load;
        int      n_host_disturbed; /* chase jobs the host disturbed in every window, as the
                                    * job's own guard measured, which the plan did not */
} plan;

static void plan_reset(void)
{
        memset(&plan, 0, sizeof(plan));
        plan.cpu = plan.c2c_fail_at = plan.reader_fail_at = plan.chase_fail_at = -1;
        plan.load_fail_at = -1;
        plan.disturb_from = -1;
}

void __wrap_cpu_topology_self(struct cpu_topology *out)
{
        __real_cpu_topology_self(out);
        if (fake_plat_this_cpu() == plan.cpu)
                out->apic_id ^= plan.apic_xor;
}

status_t __wrap_cpu_fault_probe(enum cpu_fault_probe kind, unsigned *vector)
{
        status_t st = __real_cpu_fault_probe(kind, vector);

        if (fake_plat_this_cpu() != plan.cpu || kind != CPU_PROBE_UD2)
                return st;
        if (plan.ud_vector)
                *vector = plan.ud_vector;
        return plan.ud_st != ST_OK ? plan.ud_st : st;
}

status_t __wrap_pmu_fault_probe_rdpmc(uint64_t *val, unsigned *vector)
{
        status_t st = __real_pmu_fault_probe_rdpmc(val, vector);

        if (fake_plat_this_cpu() != plan.cpu)
                return st;
        if (plan.pmc_vector)
                *vector = plan.pmc_vector;
        if (plan.pmc_no_fault)
                return ST_OK;
        if (plan.pmc_val)
                *val = plan.pmc_val;
        return plan.pmc_st != ST_OK ? plan.pmc_st : st;
}

status_t __wrap_pmu_fault_probe_msr(uint64_t *val, unsigned *vector)
{
        status_t st = __real_pmu_fault_probe_msr(val, vector);

        if (fake_plat_this_cpu() == plan.cpu && plan.msr_vector)
                *vector = plan.msr_vector;
        return st;
}

status_t __wrap_bench_c2c_init(struct bench_c2c *c, enum bench_c2c_kind kind, void *chain,
                               uint32_t n_lines, uint32_t line_bytes, uint32_t rounds)
{
        if (plan.n_c2c++ == plan.c2c_fail_at)
                return ST_TIMEOUT;
        return __real_bench_c2c_init(c, kind, chain, n_lines, line_bytes, rounds);
}

void __wrap_bench_c2c_reader(void *c)
{
        __real_bench_c2c_reader(c);
        if (plan.n_reader++ == plan.reader_fail_at)
                ((struct bench_c2c *)c)->reader_status = ST_BAD_DATA;
}

status_t __wrap_mp_run(unsigned idx, void (*fn)(void *arg), void *arg, uint32_t timeout_us)
{
        if (fn != bench_chase_job_run)
                return __real_mp_run(idx, fn, arg, timeout_us);
        int k = plan.n_chase++;
        if (k == plan.chase_fail_at)
                return ST_TIMEOUT;
        status_t st = __real_mp_run(idx, fn, arg, timeout_us);
        if (st == ST_OK && k >= plan.disturb_from && plan.disturb_from >= 0 &&
            k < plan.disturb_from + plan.disturb_n)
                ((struct bench_chase_job *)arg)->st = ST_DISTURBED;
        else if (st == ST_OK && ((struct bench_chase_job *)arg)->st == ST_DISTURBED)
                plan.n_host_disturbed++;
        return st;
}

status_t __wrap_mp_call(unsigned idx, void (*fn)(void *arg), void *arg)
{
        if (fn == bench_load_run && plan.n_load++ == plan.load_fail_at)
                return ST_TIMEOUT;
        return __real_mp_call(idx, fn, arg);
}

/* ---- running the phases ----------------------------------------------------------------- */

static struct run     r;
static struct rep_buf out;

/* Clear the Enabled flag of @p apic_id's Processor Local APIC entry (type 0: flags at byte 4)
 * in MADT @p t and fix its checksum; with @p online_capable set its Online Capable flag (bit
 * 1) and make the table revision 5, where that flag is defined: a processor the firmware
 * lists for hot plug, which the parser keeps as a disabled processor. [ACPI-6.5] §5.2.12.2
 * "Processor Local APIC Structure" */
static void madt_disable(unsigned char *t, unsigned apic_id, bool online_capable)
{
        uint32_t len;
        uint8_t  sum = 0;

        memcpy(&len, t + 4, 4);
        if (online_capable && t[8] < 5)
                t[8] = 5;
        for (uint32_t o = 44; o + 8 <= len && t[o + 1]; o += t[o + 1])
                if (t[o] == 0 && t[o + 3] == apic_id)
                        t[o + 4] = (unsigned char)((t[o + 4] & ~1u) | (online_capable ? 2u : 0u));
        t[9] = 0;
        for (uint32_t i = 0; i < len; i++)
                sum = (uint8_t)(sum + t[i]);
        t[9] = (uint8_t)(0x100 - sum);
}

/* With machine_with's @p disabled: the MADT lists that processor online capable too. */
static bool madt_online_capable;

/* The three-node machine (one processor per node), inventoried; @p n_cpus 4 adds a fourth
 * processor, APIC ID 3, that neither SRAT nor MADT lists; @p disabled >= 0: the MADT says
 * that processor is disabled (MP services still starts it). */
static void machine_with(unsigned n_cpus, int disabled)
{
        static const struct plat_cpu four[4] = {
                { .apic_id = 0, .enabled = true, .is_bsp = true },
                { .apic_id = 1, .enabled = true },
                { .apic_id = 2, .enabled = true },
                { .apic_id = 3, .enabled = true },
        };

        static void *slit, *srat;
        static unsigned char *madt;

        app_cpus_release();
        plan_reset();
        test_platform_qemu_3node();
        if (disabled >= 0) { /* the same machine, with an edited copy of its MADT */
                fake_plat_reset();
                fake_plat_set_cpus(four, 3);
                free(madt);
                madt = test_load("acpi/qemu72-q35-3node-hmat-apic.dat", NULL);
                madt_disable(madt, (unsigned)disabled, madt_online_capable);
                if (!srat)
                        srat = test_load("acpi/qemu72-q35-3node-hmat-srat.dat", NULL);
                fake_plat_add_acpi(madt);
                fake_plat_add_acpi(srat);
        }
        if (n_cpus == 4)
                fake_plat_set_cpus(four, 4);
        if (!slit) /* the same QEMU machine's SLIT: 10 local, 20 remote */
                slit = test_load("acpi/qemu72-q35-3node-hmat-slit.dat", NULL);
        fake_plat_add_acpi(slit);
        fake_plat_real_stall(true);
        memset(&r, 0, sizeof(r));
        config_defaults(&r.cfg);
        r.cfg.repetitions = 3;
        rep_reset();
        rep_buf_free(&out);
        memset(&out, 0, sizeof(out));
        rep_add_sink(rep_buf_sink(&out));
        assert_int_equal(phase_inventory(&r), ST_OK);
        assert_non_null(r.inv);
        r.inv->cpu.n_caches = 0;  /* the NUMA working set: its 64 MiB minimum */
        if (!r.inv->tsc_hz)
                r.inv->tsc_hz = 1000000000ull;
}

static void machine(unsigned n_cpus)
{
        machine_with(n_cpus, -1);
}

static void phase(const char *name, status_t (*fn)(struct run *))
{
        rep_push(name);
        assert_int_equal(fn(&r), ST_OK);
        rep_pop();
        rep_flush();
}

static void finish(void)
{
        app_cpus_release();
        for (unsigned i = 0; i < r.n_files; i++)
                rep_buf_free(&r.files[i].data);
        r.n_files = 0;
        inventory_free(r.inv);
        r.inv = NULL;
        if (getenv("VPMU_VERBOSE"))
                print_message("%s\n", out.p);
}

static void have(const char *line)
{
        if (!strstr(out.p, line)) {
                fprintf(stderr, "%s\n", out.p);
                fail_msg("no \"%s\" in the output above", line);
        }
}

static void absent(const char *line)
{
        if (strstr(out.p, line)) {
                fprintf(stderr, "%s\n", out.p);
                fail_msg("\"%s\" in the output above", line);
        }
}

static int setup(void **unused)
{
        (void)unused;
        plan_reset();
        return 0;
}

static int teardown(void **unused)
{
        (void)unused;
        plan_reset();
        finish();
        rep_reset();
        rep_buf_free(&out);
        memset(&out, 0, sizeof(out));
        fake_plat_real_stall(false);
        return 0;
}

/* ---- cpus ------------------------------------------------------------------------------------ */

static void test_cpus_faithful(void **unused)
{
        (void)unused;
        machine(3);
        phase("cpus", phase_cpus);
        have("PASS: cpus: 3 of 3 processors report the APIC ID MP services gives them");
        have("PASS: cpus: 3 of 3 processors recovered their own deliberate faults");
        have("PASS: cpus: 3 of 3 processors' own APIC IDs are enabled in the MADT");
        have("PASS: cpus: 3 of 3 processors have a node in SRAT");
        finish();
}

/* x2APIC IDs are 32 bits: one that differs from the firmware's only above bit 7 is another
 * processor's (APIC ID 2 and 258 are two packages' apart on a large part). */
static void test_cpus_apic_id_above_bit7(void **unused)
{
        (void)unused;
        machine(3);
        plan.cpu = 2;
        plan.apic_xor = 0x100;
        phase("cpus", phase_cpus);
        have("FAIL: cpus: 2 of 3 processors report the APIC ID MP services gives them");
        have("FAIL: cpus: 2 of 3 processors' own APIC IDs are enabled in the MADT");
        finish();
}

/* The deliberate faults: ud2 must come back as #UD (6), RDPMC of a counter no CPU has as
 * #GP (13) or #UD; another vector, or an RDPMC that does not fault, is a FAIL. A processor
 * without the probes is left out of the count, not failed. */
static void test_cpus_fault_vectors(void **unused)
{
        static const struct {
                unsigned    ud_vector;
                status_t    ud_st, pmc_st;
                unsigned    pmc_vector;
                const char *line;
                bool        pmc_no_fault;
        } cases[] = {
                { 13, ST_OK, ST_OK, 0, "FAIL: cpus: 2 of 3 processors recovered", false },
                { 0, ST_OK, ST_OK, 0, "FAIL: cpus: 2 of 3 processors recovered", true },
                { 0, ST_FAULT, ST_OK, 0, "FAIL: cpus: 2 of 3 processors recovered", false },
                { 0, ST_OK, ST_OK, 14, "FAIL: cpus: 2 of 3 processors recovered", false },
                { 0, ST_OK, ST_OK, 6, "PASS: cpus: 3 of 3 processors recovered", false },
                { 0, ST_OK, ST_FAULT, 13, "PASS: cpus: 3 of 3 processors recovered", false },
                { 0, ST_UNSUPPORTED, ST_OK, 0, "PASS: cpus: 2 of 2 processors recovered", false },
        };

        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                machine(3);
                plan.cpu = 1;
                plan.ud_vector = cases[i].ud_vector;
                plan.ud_st = cases[i].ud_st;
                plan.pmc_st = cases[i].pmc_st;
                plan.pmc_vector = cases[i].pmc_vector;
                plan.pmc_no_fault = cases[i].pmc_no_fault;
                phase("cpus", phase_cpus);
                have(cases[i].line);
                finish();
        }
        /* Without the RDPMC probe on one processor: left out of the count, said so. */
        machine(3);
        plan.cpu = 2;
        plan.pmc_st = ST_UNSUPPORTED;
        phase("cpus", phase_cpus);
        have("PASS: cpus: 2 of 2 processors recovered");
        have("SKIP: cpus: fault recovery on 1 processors: not probed here");
        finish();
}

/* A processor MP services starts but the MADT marks disabled. */
static void test_cpus_madt_disabled(void **unused)
{
        (void)unused;
        machine_with(3, 2);
        phase("cpus", phase_cpus);
        have("FAIL: cpus: 2 of 3 processors' own APIC IDs are enabled in the MADT");
        have("PASS: cpus: 3 of 3 processors report the APIC ID MP services gives them");
        finish();

        /* listed, but for hot plug only (disabled, online capable): still not enabled */
        madt_online_capable = true;
        machine_with(3, 2);
        madt_online_capable = false;
        assert_int_equal(r.inv->madt->n_cpus, 3);
        phase("cpus", phase_cpus);
        have("FAIL: cpus: 2 of 3 processors' own APIC IDs are enabled in the MADT");
        finish();
}

/* A processor SRAT does not list (and the MADT neither). */
static void test_cpus_not_in_srat(void **unused)
{
        (void)unused;
        machine(4);
        phase("cpus", phase_cpus);
        have("FAIL: cpus: 3 of 4 processors have a node in SRAT");
        have("FAIL: cpus: 3 of 4 processors' own APIC IDs are enabled in the MADT");
        have("PASS: cpus: 4 of 4 processors report the APIC ID MP services gives them");
        finish();
}

/* ---- the fault-recovery self-test (app/x86/selftest.c) --------------------------------------- */

/* Each deliberate fault must come back as its own vector: ud2 as #UD, a non-canonical load as
 * #GP, RDMSR of a missing MSR as #GP, RDPMC of a counter no CPU has as #GP or #UD with 0 in
 * the result; any other vector is a FAIL of that probe and of the harness's count. */
static void test_selftest_vectors(void **unused)
{
        static const struct {
                unsigned    ud_vector, msr_vector, pmc_vector;
                uint64_t    pmc_val;
                const char *line;
        } cases[] = {
                { 0, 0, 0, 0, "PASS: selftest: fault-recovery: harness carried on" },
                { 13, 0, 0, 0, "FAIL: selftest: fault-recovery: ud2" },
                { 0, 6, 0, 0, "FAIL: selftest: fault-recovery: rdmsr(" },
                { 0, 0, 14, 0, "FAIL: selftest: fault-recovery: rdpmc(" },
                { 0, 0, 0, 5, "FAIL: selftest: fault-recovery: rdpmc(" },
                { 0, 0, 6, 0, "PASS: selftest: fault-recovery: rdpmc(" },
        };

        (void)unused;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                machine(3);
                plan.cpu = 0;
                plan.ud_vector = cases[i].ud_vector;
                plan.msr_vector = cases[i].msr_vector;
                plan.pmc_vector = cases[i].pmc_vector;
                plan.pmc_val = cases[i].pmc_val;
                phase("selftest", phase_selftest);
                have(cases[i].line);
                if (i)
                        have(i == 5 ? "PASS: selftest: fault-recovery: harness carried on"
                                    : "FAIL: selftest: fault-recovery: harness carried on");
                finish();
        }
}

/* ---- c2c ------------------------------------------------------------------------------------- */

static void test_c2c_pairs(void **unused)
{
        (void)unused;
        machine(3);
        phase("cpus", phase_cpus);
        phase("c2c", phase_c2c);
        have("PASS: c2c: 6 of 6 ordered pairs measured");
        finish();

        machine(3); /* the second kind of the first pair times out */
        plan.c2c_fail_at = 1;
        phase("cpus", phase_cpus);
        phase("c2c", phase_c2c);
        have("FAIL: c2c: 5 of 6 ordered pairs measured");
        finish();

        machine(3); /* the reader of the first transfer reports an error */
        plan.reader_fail_at = 0;
        phase("cpus", phase_cpus);
        phase("c2c", phase_c2c);
        have("FAIL: c2c: 5 of 6 ordered pairs measured");
        finish();

        machine(3); /* one processor taking part: nothing to measure, nothing decided */
        r.cfg.cpus = CONFIG_CPUS_BSP;
        phase("cpus", phase_cpus);
        phase("c2c", phase_c2c);
        have("SKIP: c2c: cpus = bsp");
        absent("ordered pairs measured");
        finish();

        machine(3); /* a list of processors that names the BSP alone */
        r.cfg.cpus = CONFIG_CPUS_LIST;
        assert_true(config_cpus_parse("0", 1, &r.cfg.cpu_list));
        phase("cpus", phase_cpus);
        phase("c2c", phase_c2c);
        have("SKIP: c2c: 1 processor takes part: a transfer needs two");
        absent("ordered pairs measured");
        finish();
}

/* ---- numa ------------------------------------------------------------------------------------ */

/* The NUMA cases' chases are real: 64 MiB chased in windows of 400 us on this host. A cell
 * whose every window of every try the host disturbed (a time slice of another process in the
 * N or the 2N run, which the job's guard finds) is left out, as on hardware; where the plan
 * did not ask for that, the phases are run again (at most NUMA_TRIES times) and the runs
 * counted, never judged. */
#define NUMA_TRIES 3u

static unsigned n_numa_reruns;

/* Cells the output says were left out as disturbed. */
static unsigned cells_left_out(void)
{
        return test_numa_left_out(out.p, "INFO: numa: CPU ");
}

/* The processors' and NUMA phases on the three-node machine, @p arm putting the faults in
 * place (NULL: none), until no more than @p want_left_out cells were left out as disturbed or
 * the plan accounts for the rest. */
static void numa_phases(void (*arm)(void), unsigned want_left_out)
{
        for (unsigned t = 0;; t++) {
                machine(3);
                if (arm)
                        arm();
                phase("cpus", phase_cpus);
                phase("numa", phase_numa);
                if (cells_left_out() <= want_left_out || !plan.n_host_disturbed ||
                    t + 1 == NUMA_TRIES)
                        return;
                n_numa_reruns++;
                print_message("numa: %u cell(s) left out, %d chase(s) the host disturbed in "
                              "every window: run again\n", cells_left_out(),
                              plan.n_host_disturbed);
                finish();
        }
}

static void arm_chase_fail(void)
{
        plan.chase_fail_at = 3;
}

static void arm_disturb_twice(void)
{
        plan.disturb_from = 3;
        plan.disturb_n = 2;
}

static void arm_disturb_thrice(void)
{
        plan.disturb_from = 3;
        plan.disturb_n = 3;
}

static void test_numa_cells(void **unused)
{
        (void)unused;
        numa_phases(NULL, 0);
        have("PASS: numa: 9 of 9 cells measured (3 nodes, p10/p50/p90 each; 0 left out");
        have("numa: node 1 (proximity domain 1): CPU 1 (APIC ID 1)");
        have("numa: node 2 (proximity domain 2): CPU 2 (APIC ID 2)");
        /* the tolerances the verdicts (report/numa.c) are given: SLIT ratios and HMAT
         * latencies within 25 % */
        have("(tolerance 25% / 25%)");
        finish();

        numa_phases(arm_chase_fail, 0); /* the fourth cell's chase fails */
        have("FAIL: numa: 8 of 9 cells measured");
        finish();

        /* the fourth cell disturbed twice, then measured on its third try */
        numa_phases(arm_disturb_twice, 0);
        have("PASS: numa: 9 of 9 cells measured (3 nodes, p10/p50/p90 each; 0 left out");
        finish();

        /* ... and disturbed on every try: left out, the rest decided */
        numa_phases(arm_disturb_thrice, 1);
        have("PASS: numa: 8 of 9 cells measured (3 nodes, p10/p50/p90 each; 1 left out");
        assert_int_equal(cells_left_out(), 1); /* the count the re-runs go by */
        finish();
}

static void arm_misplace(void)
{
        fake_plat_misplace_page(4096 * 5);
}

/* A buffer whose page the platform placed on another node FAILs that node's placement (the
 * others are measured); no free memory on any node is the machine's lack, not a fault: every
 * node SKIPs and no cell is decided (nothing PASSes vacuously). */
static void test_numa_placement(void **unused)
{
        const struct mem_span tiny = { 1ull << 20, 1ull << 20 };

        (void)unused;
        numa_phases(arm_misplace, 0);
        have("FAIL: numa: node 0: buffer of 64 MiB placed on the node");
        have("PASS: numa: 6 of 6 cells measured");
        finish();

        machine(3);
        fake_plat_set_free_mem(&tiny, 1);
        phase("cpus", phase_cpus);
        phase("numa", phase_numa);
        have("SKIP: numa: node 0: buffer of 64 MiB");
        have("SKIP: numa: no cell to measure");
        absent("FAIL: numa:");
        absent("cells measured");
        finish();
}

/* The loaded-latency curves and the bandwidth matrix: every point and cell measured PASSes;
 * a bandwidth cell whose load cannot be started on its AP (the last load the phase starts:
 * the cells come after the curves) FAILs though every curve point was measured. */
static void test_numa_loaded(void **unused)
{
        (void)unused;
        machine(3);
        phase("cpus", phase_cpus);
        phase("numa", phase_numa);
        have("PASS: numa: loaded latency: ");
        have("0 bandwidth cells failed");
        int n_loads = plan.n_load;
        finish();
        assert_true(n_loads > 1);

        machine(3);
        plan.load_fail_at = n_loads - 1;
        phase("cpus", phase_cpus);
        phase("numa", phase_numa);
        have("ERROR: numa: bandwidth, node 2 reading node 2");
        have("FAIL: numa: loaded latency: ");
        have(" left out as disturbed), 1 bandwidth cell failed");
        finish();
}

/* Last: the runs the host disturbed were few. */
static void test_numa_reruns_few(void **unused)
{
        (void)unused;
        print_message("numa: %u run(s) made again: a cell the host disturbed in every window\n",
                      n_numa_reruns);
        assert_true(n_numa_reruns <= 2);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_cpus_faithful, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cpus_apic_id_above_bit7, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cpus_fault_vectors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cpus_madt_disabled, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cpus_not_in_srat, setup, teardown),
                cmocka_unit_test_setup_teardown(test_selftest_vectors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_c2c_pairs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_numa_cells, setup, teardown),
                cmocka_unit_test_setup_teardown(test_numa_placement, setup, teardown),
                cmocka_unit_test_setup_teardown(test_numa_loaded, setup, teardown),
                cmocka_unit_test(test_numa_reruns_few),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
