/** @file The two sides of a cache-to-cache transfer measurement (see c2c.h). */
#include "bench/c2c.h"

#include "boot/prefetch.h"
#include "boot/spin.h"

#define DEFAULT_SPIN_LIMIT (1ull << 32)

static void *next(void *p)
{
        return *(void **)p;
}

/* Wait until *flag >= want (every flag only grows, and the other side may already be one step
 * further); @p beat (the owner's heartbeat, or NULL) counts every spin. */
static bool wait_beating(const volatile uint64_t *flag, uint64_t want, struct bench_c2c *c,
                         volatile uint64_t *beat)
{
        for (uint64_t spins = 0; *flag < want; spins++) {
                if (c->aborted || spins == c->spin_limit) {
                        c->aborted = 1;
                        return false;
                }
                if (beat)
                        *beat = *beat + 1;
                spin_relax();
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        return true;
}

static bool wait_for(const volatile uint64_t *flag, uint64_t want, struct bench_c2c *c)
{
        return wait_beating(flag, want, c, NULL);
}

static void publish(volatile uint64_t *flag, uint64_t v)
{
        __atomic_thread_fence(__ATOMIC_RELEASE);
        *flag = v;
}

status_t bench_c2c_init(struct bench_c2c *c, enum bench_c2c_kind kind, void *chain,
                        size_t n_lines, uint32_t line_bytes, unsigned rounds)
{
        if (!c || !chain || !n_lines || (unsigned)kind >= BENCH_C2C__COUNT || rounds == 0 ||
            rounds > BENCH_C2C_MAX_ROUNDS || line_bytes < 16)
                return ST_BAD_ARG;
        memset(c, 0, sizeof(*c));
        c->kind       = kind;
        c->chain      = chain;
        c->n_lines    = n_lines;
        c->line_bytes = line_bytes;
        c->rounds     = rounds;
        c->spin_limit = DEFAULT_SPIN_LIMIT;
        c->n_exchanges = n_lines;
        return ST_OK;
}

/* The owner's turn: make every line its own, clean (read) or modified (write). */
static void owner_touch(struct bench_c2c *c, uint64_t round)
{
        void *p = c->chain;

        for (size_t i = 0; i < c->n_lines; i++, p = next(p)) {
                if (c->kind == BENCH_C2C_HIT)
                        (void)*(volatile uint64_t *)((char *)p + 8);
                else
                        *(volatile uint64_t *)((char *)p + 8) = round;
        }
}

/* Round r: the reader publishes reader_seq = 2r+1 when the lines are ready for the owner
 * (flushed for HIT), the owner publishes owner_seq = r+1 when it has touched them, the
 * reader measures and publishes reader_seq = 2r+2. */
/* PINGPONG, the owner's side: answer each of the reader's n_lines numbers of a round. */
static bool owner_pong(struct bench_c2c *c, uint64_t round)
{
        for (size_t i = 1; i <= c->n_exchanges; i++) {
                uint64_t v = round * c->n_exchanges + i;
                if (!wait_for(&c->ping, v, c))
                        return false;
                __atomic_store_n(&c->pong, v, __ATOMIC_RELEASE);
        }
        return true;
}

void bench_c2c_owner(void *arg)
{
        struct bench_c2c *c = arg;

        for (unsigned r = 0; r < c->rounds; r++) {
                if (!wait_for(&c->reader_seq, 2ull * r + 1, c)) {
                        c->owner_status = ST_TIMEOUT;
                        return;
                }
                if (c->kind == BENCH_C2C_PINGPONG) {
                        publish(&c->owner_seq, r + 1ull);
                        if (!owner_pong(c, r)) {
                                c->owner_status = ST_TIMEOUT;
                                return;
                        }
                        continue;
                }
                owner_touch(c, r);
                publish(&c->owner_seq, r + 1ull);
                /* the reader's window: beat until it ends */
                if (!wait_beating(&c->reader_seq, 2ull * r + 2, c, &c->owner_beat)) {
                        c->owner_status = ST_TIMEOUT;
                        return;
                }
        }
        wait_for(&c->reader_seq, 2ull * c->rounds, c);
        c->owner_status = ST_OK;
}

/* PINGPONG, the reader's side of round @p round: clock ticks for n_lines round trips. */
static bool reader_ping(struct bench_c2c *c, uint64_t round, uint64_t *ticks)
{
        uint64_t t0 = bench_c2c_clock();

        for (size_t i = 1; i <= c->n_exchanges; i++) {
                uint64_t v = round * c->n_exchanges + i;
                __atomic_store_n(&c->ping, v, __ATOMIC_RELEASE);
                if (!wait_for(&c->pong, v, c))
                        return false;
        }
        *ticks = bench_c2c_clock() - t0;
        return true;
}

static uint64_t reader_window(struct bench_c2c *c)
{
        switch (c->kind) {
        case BENCH_C2C_WRITE:  return bench_c2c_store_timed(c->chain, c->n_lines);
        case BENCH_C2C_ATOMIC: return bench_c2c_rmw_timed(c->chain, c->n_lines);
        default:               return bench_c2c_chase_timed(c->chain, c->n_lines);
        }
}

void bench_c2c_reader(void *arg)
{
        struct bench_c2c *c = arg;

        if (c->floor_chain)
                c->floor_milli = bench_c2c_own_hit(c->floor_chain, c->floor_lines, 5);
        for (unsigned r = 0; r < c->rounds; r++) {
                if (c->kind == BENCH_C2C_HIT) {
                        void *p = c->chain;
                        for (size_t i = 0; i < c->n_lines; i++) {
                                void *n = next(p); /* read before the line goes */
                                bench_c2c_flush_line(p);
                                p = n;
                        }
                }
                publish(&c->reader_seq, 2ull * r + 1);
                if (!wait_for(&c->owner_seq, r + 1ull, c)) {
                        c->reader_status = ST_TIMEOUT;
                        return;
                }
                uint64_t t, beat0 = c->owner_beat;
                if (c->kind == BENCH_C2C_PINGPONG) {
                        if (!reader_ping(c, r, &t)) {
                                c->reader_status = ST_TIMEOUT;
                                return;
                        }
                        /* every answer came from the other side while this one waited */
                        c->concurrent[r] = true;
                        c->ticks_per_line_milli[r] = t * 1000 / (2 * c->n_exchanges);
                } else {
                        t = reader_window(c);
                        c->concurrent[r] = c->owner_beat != beat0;
                        c->ticks_per_line_milli[r] = t * 1000 / c->n_lines;
                }
                c->n_not_concurrent += !c->concurrent[r];
                c->n_done = r + 1;
                publish(&c->reader_seq, 2ull * r + 2);
        }
        c->reader_status = ST_OK;
}

uint64_t bench_c2c_own_hit(void *floor_chain, size_t n, unsigned laps)
{
        uint64_t best = UINT64_MAX;

        if (!floor_chain || !n)
                return 0;
        bench_c2c_chase_timed(floor_chain, n);
        bench_c2c_chase_timed(floor_chain, n);
        for (unsigned i = 0; i < laps; i++) {
                uint64_t t = bench_c2c_chase_timed(floor_chain, n) * 1000 / n;
                if (t < best)
                        best = t;
        }
        return best == UINT64_MAX ? 0 : best;
}

void bench_c2c_side(void (*fn)(void *), struct bench_c2c *c, const struct cpu_info *cpu,
                    bool prefetchers_off, struct prefetch_info *pf)
{
        prefetch_disable(cpu, prefetchers_off, pf);
        fn(c);
        prefetch_restore(pf);
}
