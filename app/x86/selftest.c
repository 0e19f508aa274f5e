/** @file
 * The harness checks itself before it measures anything: deliberately raised faults must come
 * back as errors (a missing MSR reported unsupported, never a reset or a hang). On the host
 * (no exception handlers of ours) these checks SKIP.
 */
#include "app/run.h"
#include "boot/cpu.h"

#include "pmu/x86/fault_probe.h"

struct probe_case {
        enum cpu_fault_probe kind;
        unsigned              vector;
        const char           *what;
};

static const struct probe_case probes[] = {
        /* kind                          vector  what */
        { CPU_PROBE_UD2,                6,      "ud2 raises #UD" },
        { CPU_PROBE_GP_NONCANONICAL,    13,     "load from a non-canonical address raises #GP" },
        { CPU_PROBE_GP_CR4_LA57,    13,     "toggling CR4.LA57 in 64-bit mode raises #GP" },
};

static const char *vector_name(unsigned v)
{
        return v == 6 ? "#UD" : v == 13 ? "#GP" : v == 0 ? "none" : "other";
}

status_t phase_selftest(struct run *r)
{
        unsigned n_recovered = 0, n_raised = 0;
        uint64_t val;

        rep_push("fault-recovery");
        for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
                unsigned vec = 0;
                status_t st  = cpu_fault_probe(probes[i].kind, &vec);
                if (st == ST_UNSUPPORTED) {
                        rep_skip(REP_SKIP_FEATURE, "%s: not available here (no fault recovery, or "
                                 "the CPU lacks the "
                                 "feature)", probes[i].what);
                        continue;
                }
                n_raised++;
                if (rep_check(st == ST_OK && vec == probes[i].vector,
                              "%s: caught %s, recovered", probes[i].what, vector_name(vec)))
                        n_recovered++;
        }

        unsigned fault_vec = 0;
        status_t st        = pmu_fault_probe_msr(&val, &fault_vec);
        if (st == ST_OK) /* QEMU TCG reads unknown MSRs as 0: why we detect from CPUID */
                rep_info("rdmsr(0x%x) of a nonexistent MSR returned 0x%llx without #GP: this "
                         "platform does not fault unknown MSRs, so MSR support is taken from "
                         "CPUID, never from a read", PMU_FAULT_PROBE_MSR, (unsigned long long)val);
        else if (st == ST_FAULT) {
                n_raised++;
                n_recovered += rep_check(fault_vec == 13,
                                         "rdmsr(0x%x) nonexistent MSR reported unsupported "
                                         "(%s recovered)", PMU_FAULT_PROBE_MSR, vector_name(fault_vec));
        } else
                rep_skip(REP_SKIP_ENV, "rdmsr(0x%x): MSRs are not accessible here "
                         "(%s)", PMU_FAULT_PROBE_MSR,
                         status_str(st));

        /* RDPMC with a counter index no CPU has: #GP, or #UD where RDPMC itself is not
         * emulated (QEMU TCG). Either way it must come back. */
        val = ~0ull;
        st  = pmu_fault_probe_rdpmc(&val, &fault_vec);
        if (st == ST_FAULT) {
                n_raised++;
                n_recovered += rep_check((fault_vec == 13 || fault_vec == 6) && val == 0,
                                         "rdpmc(0x%x) reported unsupported: %s recovered (want "
                                         "#GP or #UD), value 0x%llx (want 0)",
                                         PMU_FAULT_PROBE_RDPMC, vector_name(fault_vec),
                                         (unsigned long long)val);
        }
        else if (st == ST_OK)
                rep_info("rdpmc(0x%x) returned 0x%llx without faulting", PMU_FAULT_PROBE_RDPMC,
                         (unsigned long long)val);
        else
                rep_skip(REP_SKIP_ENV, "rdpmc: not accessible here (%s)", status_str(st));

        if (n_raised)
                rep_check(n_recovered == n_raised, "harness carried on after %u deliberate "
                          "faults, %u of them recovered as expected", n_raised, n_recovered);
        rep_pop();

        if (r->cfg.crash_test) {
                unsigned vec;
                rep_info("crash_test = on: executing ud2 with no fixup armed; what follows "
                         "must be a FATAL line, not a hang");
                if (cpu_fault_probe(CPU_PROBE_UNHANDLED_UD2, &vec) == ST_UNSUPPORTED)
                        rep_skip(REP_SKIP_ENV, "crash test: no crash path on this platform");
        }
        return ST_OK;
}
