/** @file
 * The self-test phase on AArch64: deliberate exceptions under the harness's vectors must
 * come back with the exception class the architecture gives them, a register the CPU lacks
 * must read as "unsupported", and (crash_test = on) an exception nobody expects must end
 * the run with a FATAL line instead of a hang. The x86-64 counterpart is app/x86/selftest.c.
 */
#include "app/run.h"

#include "boot/arm64/idreg.h"
#include "boot/cpu.h"
#include "boot/arm64/trap.h"

static const struct {
        enum cpu_fault_probe kind;
        unsigned              want_ec;
        const char           *what;
} probes[] = {
        /* kind                          ESR_ELx.EC        what */
        { CPU_PROBE_UD2,                ESR_EC_UNKNOWN,   "UDF #0 (undefined instruction)" },
        { CPU_PROBE_GP_NONCANONICAL,    ESR_EC_DABT,      "load from an unmapped address" },
};

/* A register only SPE or BRBE has must fault where ID_AA64DFR0_EL1 says the feature is
 * absent; where it is present the read must succeed. */
static void missing_register(enum arm64_probe_reg reg, const char *name, bool present)
{
        uint64_t v   = 0;
        status_t st  = arm64_sysreg_probe(reg, &v);
        if (present)
                rep_check(st == ST_OK, "%s (feature present) reads: %s", name, status_str(st));
        else
                rep_check(st == ST_FAULT && v == 0, "%s (feature absent) reported unsupported: "
                          "%s, value %llu", name, status_str(st), (unsigned long long)v);
}

status_t phase_selftest(struct run *r)
{
        struct arm64_id_regs  regs;
        struct arm64_cpu_info ci;
        uint64_t              v = 0, n0 = trap_n_recovered;
        unsigned              ec;

        rep_push("fault-recovery");
        if (!trap_active()) {
                rep_skip(REP_SKIP_ENV, "the harness's vectors are not installed (not running at "
                         "EL1 or EL2)");
                rep_pop();
                return ST_UNSUPPORTED;
        }
        for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
                status_t st = cpu_fault_probe(probes[i].kind, &ec);
                rep_check(st == ST_OK && ec == probes[i].want_ec,
                          "%s: caught ESR_EL%u.EC 0x%02x (expected 0x%02x), recovered (%s)",
                          probes[i].what, trap_el(), ec, probes[i].want_ec, status_str(st));
        }
        status_t st = arm64_sysreg_probe(ARM64_REG_MIDR, &v);
        rep_check(st == ST_OK && v == arm64_midr(),
                  "MIDR_EL1 through the fixup reads what a plain read does: 0x%llx (%s)",
                  (unsigned long long)v, status_str(st));
        arm64_id_collect(&regs);
        if (arm64_decode(&regs, &ci) == ST_OK) {
                missing_register(ARM64_REG_PMSIDR, "PMSIDR_EL1", ci.spe != 0);
                missing_register(ARM64_REG_BRBIDR0, "BRBIDR0_EL1", ci.brbe != 0);
        }
        rep_check(trap_n_recovered > n0, "harness carried on after %llu deliberate faults",
                  (unsigned long long)(trap_n_recovered - n0));
        rep_pop();

        if (r->cfg.crash_test) {
                rep_info("crash_test = on: executing UDF with no fixup armed; what follows "
                         "must be a FATAL line, not a hang");
                if (cpu_fault_probe(CPU_PROBE_UNHANDLED_UD2, &ec) == ST_UNSUPPORTED)
                        rep_skip(REP_SKIP_ENV, "crash test: no crash path on this platform");
        }
        return ST_OK;
}
