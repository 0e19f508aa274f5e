/** @file
 * The phases of the x86-64 program that have no AArch64 counterpart yet: each SKIPs with
 * what stands in the way, so that a run's summary says what was not checked. Precise
 * sampling has nothing to run on without SPE or BRBE, and says which of them the ID registers
 * show.
 */
#include "app/run.h"

#include "report/inventory.h"

status_t phase_sampling(struct run *r)
{
        const struct inv_arm64 *a = r->inv ? &r->inv->arm64 : NULL;

        if (!a || !a->valid)
                rep_skip(REP_SKIP_ENV, "precise sampling: no decoded ID registers from the "
                         "inventory phase");
        else if (!a->spe && !a->brbe)
                rep_skip(REP_SKIP_FEATURE, "precise sampling: ID_AA64DFR0_EL1 shows neither SPE "
                         "(PMSVer 0) nor "
                         "BRBE (BRBE 0), the AArch64 analogues of IBS/PEBS and LBR: nothing to "
                         "sample loads or branches with (the pmu phase says what the harness "
                         "would do with them)");
        else
                rep_skip(REP_SKIP_FEATURE, "precise sampling: SPE %s, BRBE %s in ID_AA64DFR0_EL1, "
                         "but their "
                         "buffer and record drivers are not written yet",
                         a->spe ? "present" : "absent", a->brbe ? "present" : "absent");
        return ST_UNSUPPORTED;
}
