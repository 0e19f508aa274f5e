/** @file
 * The virtual PMU's clock. The model is one CPU that runs while the test thread runs: its
 * counters and its TSC (vpmu_tsc) advance with the host's TSC over the spans in which the
 * thread executed. Whether it did is measured, not guessed from a span's length: the thread's
 * CPU clock (CLOCK_THREAD_CPUTIME_ID) against CLOCK_MONOTONIC says how much of a span the
 * host gave to another thread or another guest; that time is not this CPU's, and it is
 * reported (vpmu_stats: n_host_desched, host_desched_ticks) instead of counted. Whatever the
 * thread executes counts, however long: a stall of the program (the stall fault spins for
 * it) inflates the cycles and the TSC as it would on a core. What a switch itself costs the
 * thread's CPU clock (some 40 us on a loaded virtual machine: the interrupt, the switch out
 * and back) counts as execution too; the harness's own spans in which a descheduling was
 * found are counted apart (n_host_desched_harness), so that a test whose verdict such a
 * span can bias re-runs it, and says how often. See vpmu.h.
 */
#include "tests/vpmu/vpmu_priv.h"

#include <pthread.h>
#include <time.h>

/* The CPU clock costs a system call (some 0.2 us): it is read only once this many TSC ticks
 * (some 6 us) have passed since it was last read. Time off the CPU longer than that lies
 * within one span between two touches of the model and is found in it; a shorter one (a host
 * interrupt) is counted as execution. */
#define SAMPLE_TICKS (1ull << 14)
/* A difference of the two clocks below this is their reading jitter (a system call apart),
 * not a descheduling. */
#define OFF_CPU_MIN_NS 2000u
/* A reading of the two clocks takes well under a microsecond; bracketed by more TSC ticks
 * than this, the thread was preempted in it (tried up to READ_TRIES times). */
#define BRACKET_TICKS (1ull << 15)
#define READ_TRIES    8u
/* The TSC rate is measured against CLOCK_MONOTONIC over this long. */
#define RATE_SPAN_NS 2000000u

/* The clocks when last read, by which thread. */
static struct {
        bool      valid;
        pthread_t thread;
        uint64_t  tsc, mono_ns, cpu_ns;
} last;

static uint64_t tsc_per_ms;

uint64_t vp_tsc(void)
{
        uint32_t lo, hi;

        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        return ((uint64_t)hi << 32) | lo;
}

static uint64_t ns_of(clockid_t id)
{
        struct timespec t;

        clock_gettime(id, &t);
        return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* A TSC reading and CLOCK_MONOTONIC at the same instant: of five, the one whose TSC bracket
 * is the tightest. */
static void tsc_mono_pair(uint64_t *tsc, uint64_t *ns)
{
        uint64_t best = UINT64_MAX;

        for (unsigned i = 0; i < 5; i++) {
                uint64_t a = vp_tsc(), n = ns_of(CLOCK_MONOTONIC), b = vp_tsc();

                if (b - a < best) {
                        best = b - a;
                        *tsc = a + (b - a) / 2;
                        *ns = n;
                }
        }
}

uint64_t vp_tsc_per_ms(void)
{
        uint64_t t0, n0, t1, n1;

        if (tsc_per_ms)
                return tsc_per_ms;
        tsc_mono_pair(&t0, &n0);
        do
                tsc_mono_pair(&t1, &n1);
        while (n1 - n0 < RATE_SPAN_NS);
        tsc_per_ms = (uint64_t)((__uint128_t)(t1 - t0) * 1000000u / (n1 - n0));
        return tsc_per_ms ? tsc_per_ms : 1;
}

uint64_t vp_ticks_of_us(uint64_t us)
{
        return us * vp_tsc_per_ms() / 1000;
}

/* Read both clocks and the TSC at one instant, the TSC on both sides of the two reads; again
 * where the thread was preempted between them (it may be at any instruction), so that the
 * reading does not put a descheduling on the wrong side of the span's end. Returns the TSC. */
static uint64_t clocks_read(void)
{
        for (unsigned i = 0;; i++) {
                uint64_t a = vp_tsc(), m = ns_of(CLOCK_MONOTONIC), c = ns_of(CLOCK_THREAD_CPUTIME_ID);
                uint64_t b = vp_tsc();

                if (b - a <= BRACKET_TICKS || i == READ_TRIES - 1) {
                        last.valid = true;
                        last.thread = pthread_self();
                        last.tsc = b;
                        last.mono_ns = m;
                        last.cpu_ns = c;
                        return b;
                }
        }
}

uint64_t vp_tsc_model(void)
{
        return vp.tsc_last + (uint64_t)vp.tsc_adj;
}

void vp_clock_start(void)
{
        (void)vp_tsc_per_ms();
        vp.tsc_last = clocks_read();
}

uint64_t vp_clock_ran(void)
{
        uint64_t now = vp_tsc(), mono0 = last.mono_ns, cpu0 = last.cpu_ns, span, wall, ran, off = 0;
        bool     same = last.valid && pthread_equal(last.thread, pthread_self());

        if (!same || now - last.tsc > SAMPLE_TICKS) {
                now = clocks_read();
                /* The span's ticks in which the test thread did not run: the wall clock's
                 * advance less the thread's CPU clock's since they were last read (another
                 * thread's CPU clock says nothing of this span). */
                wall = last.mono_ns - mono0;
                ran = last.cpu_ns - cpu0;
                if (same && wall >= ran + OFF_CPU_MIN_NS)
                        off = (uint64_t)((__uint128_t)(wall - ran) * vp_tsc_per_ms() / 1000000u);
        }
        span = now - vp.tsc_last;
        off = off < span ? off : span;
        if (off) {
                vp.stats.n_host_desched++;
                vp.stats.host_desched_ticks += off;
        }
        vp.tsc_adj -= (int64_t)off;
        vp.tsc_last = now;
        return span - off;
}

/* The model's TSC is the host's less the host time the model does not count as the program's
 * (the thread descheduled, the model's own PMI emulation, the host's time around a step that
 * declares its own) plus the time such steps declare: it advances with the reference cycles
 * the model counts, as the TSC and the reference cycles of a CPU do. */
void vp_clock_skip(void)
{
        vp.tsc_adj -= (int64_t)vp_clock_ran();
}

/* The core executes something else for @p us of the thread's CPU time: the test thread spins
 * that long, and the span is counted as any other. */
void vp_spin_us(uint64_t us)
{
        uint64_t t0 = ns_of(CLOCK_THREAD_CPUTIME_ID);

        while (ns_of(CLOCK_THREAD_CPUTIME_ID) - t0 < us * 1000)
                ;
}

/* The host takes the CPU away for @p us: the test thread sleeps. The system call itself
 * takes the thread some 20-50 us of CPU time on a virtual machine (the timer armed, the
 * switch out and back): returned in TSC ticks, so that the fault can leave out what the
 * sleep, not the descheduling it stands for, spends (a preemption's own switches cost the
 * thread's clock some 40 us as well, which the model counts: see the file's head). */
uint64_t vp_sleep_us(uint64_t us)
{
        struct timespec t = { .tv_sec = (time_t)(us / 1000000), .tv_nsec = (long)(us % 1000000) * 1000 };
        uint64_t        c0 = ns_of(CLOCK_THREAD_CPUTIME_ID);

        while (nanosleep(&t, &t))
                ;
        return (uint64_t)((__uint128_t)(ns_of(CLOCK_THREAD_CPUTIME_ID) - c0) * vp_tsc_per_ms() /
                          1000000u);
}
