/** @file Parked application processors driven through mailboxes (see mp.h). */
#include "boot/mp.h"

#include "boot/spin.h"
#include "lib/log.h"

#define POLL_US 10u   /* a wait checks its mailbox this often (plat_stall_us between) */

/* One mailbox per CPU, alone in its cache lines so that a parked AP spinning on it does not
 * disturb the others (128 bytes: adjacent-line prefetch pairs lines). */
struct mailbox {
        _Alignas(128) volatile uint64_t seq;   /* written by the BSP: next call */
        volatile uint64_t               done;  /* written by the AP: last call finished */
        void (*volatile fn)(void *arg);
        void *volatile    arg;
        volatile uint32_t parked;              /* written by the AP when it enters the loop */
        volatile uint32_t quit;                /* written by the BSP in mp_stop */
        enum mp_state     state;
        uint32_t          apic_id;
        bool              started;             /* plat_cpu_start succeeded: join in mp_stop */
};

static struct mailbox boxes[MP_MAX_CPUS];
static unsigned       n_boxes;
static bool           running;

static void park(void *arg)
{
        struct mailbox *m = arg;

        __atomic_store_n(&m->parked, 1, __ATOMIC_RELEASE);
        for (;;) {
                uint64_t s = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE);

                if (s != m->done) {
                        m->fn(m->arg);
                        __atomic_store_n(&m->done, s, __ATOMIC_RELEASE);
                        continue;
                }
                if (__atomic_load_n(&m->quit, __ATOMIC_ACQUIRE))
                        return;
                spin_relax();
        }
}

/* True when *@p p becomes @p want within about @p timeout_us: spin a while, then stall
 * POLL_US, and so on. */
static bool wait_u64(const volatile uint64_t *p, uint64_t want, uint32_t timeout_us)
{
        for (uint32_t t = 0;; t += POLL_US) {
                for (unsigned spin = 0; spin < 1000; spin++) {
                        if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == want)
                                return true;
                        spin_relax();
                }
                if (t >= timeout_us)
                        return false;
                plat_stall_us(POLL_US);
        }
}

static bool wait_parked(struct mailbox *m, uint32_t timeout_us)
{
        for (uint32_t t = 0;; t += POLL_US) {
                for (unsigned spin = 0; spin < 1000; spin++) {
                        if (__atomic_load_n(&m->parked, __ATOMIC_ACQUIRE))
                                return true;
                        spin_relax();
                }
                if (t >= timeout_us)
                        return false;
                plat_stall_us(POLL_US);
        }
}

static void lose(unsigned idx, const char *what)
{
        boxes[idx].state = MP_LOST;
        log_warn("cpu %u (APIC ID %u) %s: left out of the run", idx, boxes[idx].apic_id, what);
}

status_t mp_start(const bool *want, uint32_t park_timeout_us, unsigned *n_parked)
{
        unsigned n = plat_cpu_count(), parked = 0;

        if (running)
                return ST_BAD_ARG;
        n_boxes = n < MP_MAX_CPUS ? n : MP_MAX_CPUS;
        if (n > MP_MAX_CPUS)
                log_warn("%u processors: only the first %u take part", n, MP_MAX_CPUS);
        for (unsigned i = 0; i < n_boxes; i++) {
                struct mailbox *m = &boxes[i];
                struct plat_cpu c;

                *m = (struct mailbox){ .state = MP_ABSENT };
                if (plat_cpu_info(i, &c, NULL) != ST_OK)
                        continue;
                m->apic_id = c.apic_id;
                if (c.is_bsp) {
                        m->state = MP_BSP;
                        continue;
                }
                if (!c.enabled || (want && !want[i]))
                        continue;
                status_t st = plat_cpu_start(i, park, m);
                if (st != ST_OK) {
                        m->state = MP_LOST;
                        log_warn("cpu %u (APIC ID %u) could not be started: %s", i, c.apic_id,
                                 status_str(st));
                        continue;
                }
                m->started = true;
                if (!wait_parked(m, park_timeout_us)) {
                        lose(i, "did not park");
                        continue;
                }
                m->state = MP_PARKED;
                parked++;
        }
        running = true;
        if (n_parked)
                *n_parked = parked;
        return ST_OK;
}

enum mp_state mp_cpu_state(unsigned idx)
{
        return idx < n_boxes ? boxes[idx].state : MP_ABSENT;
}

uint32_t mp_cpu_apic_id(unsigned idx)
{
        return idx < n_boxes ? boxes[idx].apic_id : 0;
}

status_t mp_call(unsigned idx, void (*fn)(void *arg), void *arg)
{
        struct mailbox *m;

        if (idx >= n_boxes || !fn || boxes[idx].state != MP_PARKED)
                return ST_BAD_ARG;
        m = &boxes[idx];
        if (m->seq != __atomic_load_n(&m->done, __ATOMIC_ACQUIRE))
                return ST_BAD_ARG;
        m->fn  = fn;
        m->arg = arg;
        __atomic_store_n(&m->seq, m->seq + 1, __ATOMIC_RELEASE);
        return ST_OK;
}

status_t mp_wait(unsigned idx, uint32_t timeout_us)
{
        struct mailbox *m;

        if (idx >= n_boxes)
                return ST_BAD_ARG;
        m = &boxes[idx];
        if (m->state != MP_PARKED)
                return m->state == MP_LOST ? ST_TIMEOUT : ST_OK;
        if (wait_u64(&m->done, m->seq, timeout_us))
                return ST_OK;
        lose(idx, "did not finish its work in time");
        return ST_TIMEOUT;
}

status_t mp_run(unsigned idx, void (*fn)(void *arg), void *arg, uint32_t timeout_us)
{
        status_t st;

        if (idx < n_boxes && boxes[idx].state == MP_BSP) {
                fn(arg);
                return ST_OK;
        }
        if ((st = mp_call(idx, fn, arg)) != ST_OK)
                return st;
        return mp_wait(idx, timeout_us);
}

void mp_stop(uint32_t timeout_us)
{
        for (unsigned i = 0; i < n_boxes; i++) {
                struct mailbox *m = &boxes[i];

                if (!m->started)
                        continue;
                if (!m->parked) { /* it never ran the loop: nothing to release */
                        log_warn("cpu %u (APIC ID %u) never parked: left to the platform", i,
                                 m->apic_id);
                        continue;
                }
                __atomic_store_n(&m->quit, 1, __ATOMIC_RELEASE);
                if (plat_cpu_join(i, timeout_us) != ST_OK)
                        log_warn("cpu %u (APIC ID %u) did not return to the platform", i,
                                 m->apic_id);
        }
        n_boxes = 0;
        running = false;
}
