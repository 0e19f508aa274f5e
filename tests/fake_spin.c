/** @file A spin_relax() for tests whose "processors" are threads on a shared, oversubscribed
 *  host: a waiting thread gives its core away, so the thread it waits for runs at once
 *  instead of after a time slice. Timing figures from such a test mean nothing, and none
 *  is checked. */
#include <sched.h>

#include "boot/spin.h"

void spin_relax(void)
{
        sched_yield();
}
