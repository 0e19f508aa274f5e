/** @file The counted region (see kernel_pmu.h). */
#include "bench/kernel_pmu.h"

status_t bench_pmu_measure(const struct pmu_event_desc *const *ev, const struct pmu_slot *slots,
                           size_t n, void (*fn)(void *arg), void *arg, uint64_t *counts)
{
        uint64_t mask = 0;
        status_t st;

        if (!ev || !slots || !fn || !counts || n == 0)
                return ST_BAD_ARG;
        for (size_t i = 0; i < n; i++) {
                if ((st = pmu_program(slots[i], ev[i], PMU_OS | PMU_USR, 0)) != ST_OK)
                        return st;
                mask |= pmu_slot_bit(slots[i]);
        }
        if ((st = pmu_start(mask)) != ST_OK)
                return st;
        fn(arg);
        if ((st = pmu_stop(mask)) != ST_OK)
                return st;
        for (size_t i = 0; i < n; i++)
                if ((st = pmu_read(slots[i], &counts[i])) != ST_OK)
                        return st;
        return ST_OK;
}
