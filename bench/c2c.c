/** @file The two sides of a cache-to-cache transfer measurement (see c2c.h). */
#include "bench/c2c.h"

#include "boot/spin.h"

#define DEFAULT_SPIN_LIMIT (1ull << 32)

static void *next(void *p)
{
        return *(void **)p;
}

static bool wait_for(const volatile uint64_t *flag, uint64_t want, struct bench_c2c *c)
{
        for (uint64_t spins = 0; *flag != want; spins++) {
                if (c->aborted || spins == c->spin_limit) {
                        c->aborted = 1;
                        return false;
                }
                spin_relax();
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        return true;
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
void bench_c2c_owner(void *arg)
{
        struct bench_c2c *c = arg;

        for (unsigned r = 0; r < c->rounds; r++) {
                if (!wait_for(&c->reader_seq, 2ull * r + 1, c)) {
                        c->owner_status = ST_TIMEOUT;
                        return;
                }
                owner_touch(c, r);
                publish(&c->owner_seq, r + 1ull);
        }
        wait_for(&c->reader_seq, 2ull * c->rounds, c);
        c->owner_status = ST_OK;
}

void bench_c2c_reader(void *arg)
{
        struct bench_c2c *c = arg;

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
                uint64_t t = c->kind == BENCH_C2C_WRITE
                                     ? bench_c2c_rmw_timed(c->chain, c->n_lines)
                                     : bench_c2c_chase_timed(c->chain, c->n_lines);
                c->ticks_per_line_milli[r] = t * 1000 / c->n_lines;
                c->n_done = r + 1;
                publish(&c->reader_seq, 2ull * r + 2);
        }
        c->reader_status = ST_OK;
}
