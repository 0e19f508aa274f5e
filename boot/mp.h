/** @file
 * The other processors, parked once and driven through mailboxes in shared memory.
 *
 * Starting work on an application processor through the firmware costs milliseconds (a
 * StartupThisAP each time), far more than one measurement. So mp_start() hands every chosen
 * AP, once, a procedure that parks it in a loop on its own mailbox (a cache line of its own);
 * mp_call() then writes a function and its argument into the mailbox and bumps a sequence
 * number, and the AP runs it and publishes that sequence as done. A CPU that does not park
 * within the timeout, or does not finish a call within the caller's timeout, is marked lost,
 * reported with its APIC ID, and never used again; the run goes on without it. mp_stop()
 * releases every parked AP back to the firmware before the program leaves.
 *
 * The platform supplies plat_cpu_start()/plat_cpu_join() (UEFI MP services in non-blocking
 * mode; pinned threads hosted; threads in the tests). Portable: no firmware types.
 */
#ifndef PMUCAL_MP_H
#define PMUCAL_MP_H

#include "boot/plat.h"

#define MP_MAX_CPUS 256u

enum mp_state {
        MP_ABSENT = 0,  /* not taking part (not chosen, disabled, or beyond MP_MAX_CPUS) */
        MP_BSP,         /* the processor running the program */
        MP_PARKED,      /* an AP waiting on its mailbox */
        MP_LOST,        /* did not park or did not answer in time: left out */
};

/** Processor @p idx (0 .. plat_cpu_count()-1) takes part when @p want[idx] is true (NULL:
 *  every enabled processor). Parks the chosen APs, waiting up to @p park_timeout_us for each;
 *  *@p n_parked (optional) receives how many did. ST_OK even when some were lost (they are
 *  reported through lib/log.h and marked MP_LOST); ST_BAD_ARG when already started. */
status_t mp_start(const bool *want, uint32_t park_timeout_us, unsigned *n_parked);

/** State of processor @p idx (MP_ABSENT for an index out of range). */
enum mp_state mp_cpu_state(unsigned idx);
/** APIC ID the platform gives for @p idx (what MP services or the test platform say). */
uint32_t mp_cpu_apic_id(unsigned idx);

/** Start @p fn(@p arg) on the parked AP @p idx and return at once. ST_BAD_ARG when @p idx is
 *  not parked (the BSP included: run BSP work directly); ST_BAD_ARG while a call is pending. */
status_t mp_call(unsigned idx, void (*fn)(void *arg), void *arg);
/** Wait up to @p timeout_us for the call on @p idx to finish: ST_OK, or ST_TIMEOUT (the CPU
 *  is then marked lost). ST_OK at once when nothing is pending. */
status_t mp_wait(unsigned idx, uint32_t timeout_us);
/** mp_call + mp_wait; on the BSP (MP_BSP) a plain call. */
status_t mp_run(unsigned idx, void (*fn)(void *arg), void *arg, uint32_t timeout_us);

/** Release every parked AP and wait up to @p timeout_us each for it to return to the
 *  platform; forget all state (mp_start may be called again). */
void mp_stop(uint32_t timeout_us);

#endif
