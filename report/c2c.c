/** @file Topology classes, pair planning and the summaries of cache-to-cache runs (see c2c.h). */
#include "report/c2c.h"

#include "lib/stats.h"

#define MATRIX_MAX_CPUS 16u   /* the text matrix: beyond this only the class table */

enum c2c_class c2c_pair_class(const struct c2c_cpu *a, const struct c2c_cpu *b)
{
        if (a->package != b->package)
                return C2C_OTHER_PKG;
        if (a->core == b->core)
                return C2C_SMT;
        return a->l3_domain == b->l3_domain ? C2C_SAME_L3 : C2C_OTHER_L3;
}

const char *c2c_class_name(enum c2c_class c)
{
        static const char *const names[C2C__COUNT] = {
                [C2C_SMT]       = "smt",
                [C2C_SAME_L3]   = "same-l3",
                [C2C_OTHER_L3]  = "other-l3",
                [C2C_OTHER_PKG] = "other-package",
        };

        return (unsigned)c < C2C__COUNT ? names[c] : "unknown";
}

static status_t push_pair(struct c2c_pair *out, size_t max, size_t *n, unsigned a, unsigned b,
                          enum c2c_class cls)
{
        if (*n == max)
                return ST_NO_MEM;
        out[(*n)++] = (struct c2c_pair){ .a = (uint16_t)a, .b = (uint16_t)b, .cls = cls };
        return ST_OK;
}

status_t c2c_pairs_plan(const struct c2c_cpu *cpu, unsigned n, unsigned all_up_to,
                        unsigned per_class, struct c2c_pair *out, size_t max, size_t *n_out)
{
        unsigned taken[C2C__COUNT] = { 0 };
        status_t st;

        if (!cpu || !out || !n_out)
                return ST_BAD_ARG;
        *n_out = 0;
        if (n <= all_up_to) {
                for (unsigned a = 0; a < n; a++)
                        for (unsigned b = a + 1; b < n; b++)
                                if ((st = push_pair(out, max, n_out, a, b,
                                                    c2c_pair_class(&cpu[a], &cpu[b]))) != ST_OK)
                                        return st;
                return ST_OK;
        }
        /* Sample: walk the first CPU of each pair with a stride co-prime to n so the chosen
         * pairs spread over the machine instead of all starting at CPU 0. */
        unsigned stride = n / 2 + 1;

        while (stride > 1 && n % stride == 0)
                stride--;
        for (unsigned d = 1; d < n; d++)
                for (unsigned s = 0, a = 0; s < n; s++, a = (a + stride) % n) {
                        unsigned       b   = (a + d) % n;
                        enum c2c_class cls = c2c_pair_class(&cpu[a], &cpu[b]);

                        if (a > b || taken[cls] >= per_class)
                                continue;
                        if ((st = push_pair(out, max, n_out, a, b, cls)) != ST_OK)
                                return st;
                        taken[cls]++;
                }
        return ST_OK;
}

void c2c_result_set(struct c2c_result *r, enum bench_c2c_kind kind, uint64_t *rounds, size_t n)
{
        if ((unsigned)kind >= BENCH_C2C__COUNT || !n)
                return;
        lib_sort_u64(rounds, n);
        r->measured[kind]  = true;
        r->p10_milli[kind] = lib_pct_nearest_rank(rounds, n, 10);
        r->p50_milli[kind] = lib_pct_nearest_rank(rounds, n, 50);
        r->p90_milli[kind] = lib_pct_nearest_rank(rounds, n, 90);
}

void c2c_summarise(const struct c2c_result *r, size_t n,
                   struct c2c_class_summary out[C2C__COUNT][BENCH_C2C__COUNT])
{
        memset(out, 0, sizeof(struct c2c_class_summary) * C2C__COUNT * BENCH_C2C__COUNT);
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        uint64_t v[256];
                        size_t   m = 0;

                        for (size_t i = 0; i < n && m < ARRAY_SIZE(v); i++)
                                if (r[i].known_class && r[i].cls == c && r[i].measured[k])
                                        v[m++] = r[i].p50_milli[k];
                        if (!m)
                                continue;
                        lib_sort_u64(v, m);
                        out[c][k] = (struct c2c_class_summary){
                                .n_pairs = (unsigned)m, .p50_milli = lib_pct_nearest_rank(v, m, 50),
                                .min_milli = v[0], .max_milli = v[m - 1] };
                }
}

/* ticks x 1000 -> ns x 1000 */
static uint64_t ns_milli(uint64_t ticks_milli, uint64_t tsc_hz)
{
        return tsc_hz ? ticks_milli * 1000000000ull / tsc_hz : 0;
}

static void json_figure(struct json_w *w, const char *key, uint64_t milli, uint64_t tsc_hz)
{
        if (tsc_hz)
                json_fixed(w, key, (int64_t)ns_milli(milli, tsc_hz), 3);
        else
                json_null(w, key);
}

static void json_kind(struct json_w *w, const char *key, uint64_t p10, uint64_t p50,
                      uint64_t p90, uint64_t tsc_hz)
{
        json_obj_begin(w, key);
        json_fixed(w, "p10_tsc", (int64_t)p10, 3);
        json_fixed(w, "p50_tsc", (int64_t)p50, 3);
        json_fixed(w, "p90_tsc", (int64_t)p90, 3);
        json_figure(w, "p10_ns", p10, tsc_hz);
        json_figure(w, "p50_ns", p50, tsc_hz);
        json_figure(w, "p90_ns", p90, tsc_hz);
        json_obj_end(w);
}

void c2c_json(struct json_w *w, const struct c2c_result *r, size_t n, uint64_t tsc_hz)
{
        static struct c2c_class_summary s[C2C__COUNT][BENCH_C2C__COUNT];

        c2c_summarise(r, n, s);
        json_obj_begin(w, "c2c");
        json_arr_begin(w, "classes");
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        if (!s[c][k].n_pairs)
                                continue;
                        json_obj_begin(w, NULL);
                        json_str(w, "topology", c2c_class_name((enum c2c_class)c));
                        json_str(w, "kind", bench_c2c_kind_name((enum bench_c2c_kind)k));
                        json_u64(w, "n_pairs", s[c][k].n_pairs);
                        json_fixed(w, "p50_tsc", (int64_t)s[c][k].p50_milli, 3);
                        json_fixed(w, "min_tsc", (int64_t)s[c][k].min_milli, 3);
                        json_fixed(w, "max_tsc", (int64_t)s[c][k].max_milli, 3);
                        json_figure(w, "p50_ns", s[c][k].p50_milli, tsc_hz);
                        json_obj_end(w);
                }
        json_arr_end(w);
        json_arr_begin(w, "pairs");
        for (size_t i = 0; i < n; i++) {
                json_obj_begin(w, NULL);
                json_u64(w, "owner_cpu", r[i].owner_cpu);
                json_u64(w, "reader_cpu", r[i].reader_cpu);
                json_u64(w, "owner_apic_id", r[i].owner_apic);
                json_u64(w, "reader_apic_id", r[i].reader_apic);
                json_str(w, "topology", r[i].known_class ? c2c_class_name(r[i].cls) : NULL);
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        const char *name = bench_c2c_kind_name((enum bench_c2c_kind)k);
                        if (r[i].measured[k])
                                json_kind(w, name, r[i].p10_milli[k], r[i].p50_milli[k],
                                          r[i].p90_milli[k], tsc_hz);
                        else
                                json_null(w, name);
                }
                json_obj_end(w);
        }
        json_arr_end(w);
        json_obj_end(w);
}

static unsigned find_cpu_index(const unsigned *cpus, unsigned n, unsigned cpu)
{
        for (unsigned i = 0; i < n; i++)
                if (cpus[i] == cpu)
                        return i;
        return n;
}

/* The HITM matrix for up to MATRIX_MAX_CPUS CPUs, owner rows and reader columns, in ns
 * (TSC ticks when the frequency is unknown). */
static void text_matrix(struct rep_buf *b, const struct c2c_result *r, size_t n, uint64_t tsc_hz)
{
        unsigned cpus[MATRIX_MAX_CPUS], m = 0;

        for (size_t i = 0; i < n; i++) {
                const unsigned both[2] = { r[i].owner_cpu, r[i].reader_cpu };
                for (unsigned k = 0; k < 2; k++) {
                        if (find_cpu_index(cpus, m, both[k]) < m)
                                continue;
                        if (m == MATRIX_MAX_CPUS)
                                return;
                        cpus[m++] = both[k];
                }
        }
        rep_buf_printf(b, "c2c: HITM %s, owner (rows) -> reader (columns)\n%8s",
                       tsc_hz ? "ns" : "TSC ticks", "");
        for (unsigned j = 0; j < m; j++)
                rep_buf_printf(b, " %7u", cpus[j]);
        rep_buf_printf(b, "\n");
        for (unsigned i = 0; i < m; i++) {
                rep_buf_printf(b, "%8u", cpus[i]);
                for (unsigned j = 0; j < m; j++) {
                        const struct c2c_result *x = NULL;
                        for (size_t k = 0; k < n; k++)
                                if (r[k].owner_cpu == cpus[i] && r[k].reader_cpu == cpus[j])
                                        x = &r[k];
                        if (!x || !x->measured[BENCH_C2C_HITM]) {
                                rep_buf_printf(b, " %7s", "-");
                                continue;
                        }
                        uint64_t v = x->p50_milli[BENCH_C2C_HITM];
                        v = tsc_hz ? ns_milli(v, tsc_hz) : v;
                        rep_buf_printf(b, " %5llu.%llu", (unsigned long long)(v / 1000),
                                       (unsigned long long)(v % 1000 / 100));
                }
                rep_buf_printf(b, "\n");
        }
}

status_t c2c_text(struct rep_buf *b, const struct c2c_result *r, size_t n, uint64_t tsc_hz)
{
        static struct c2c_class_summary s[C2C__COUNT][BENCH_C2C__COUNT];

        c2c_summarise(r, n, s);
        rep_buf_printf(b, "c2c: %-14s %-6s %6s %10s %10s %10s  (%s per access)\n", "topology",
                       "kind", "pairs", "p50", "min", "max", tsc_hz ? "ns" : "TSC ticks");
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        const struct c2c_class_summary *x = &s[c][k];
                        uint64_t v[3] = { x->p50_milli, x->min_milli, x->max_milli };

                        if (!x->n_pairs)
                                continue;
                        rep_buf_printf(b, "c2c: %-14s %-6s %6u",
                                       c2c_class_name((enum c2c_class)c),
                                       bench_c2c_kind_name((enum bench_c2c_kind)k), x->n_pairs);
                        for (unsigned q = 0; q < 3; q++) {
                                uint64_t y = tsc_hz ? ns_milli(v[q], tsc_hz) : v[q];
                                rep_buf_printf(b, " %8llu.%llu", (unsigned long long)(y / 1000),
                                               (unsigned long long)(y % 1000 / 100));
                        }
                        rep_buf_printf(b, "\n");
                }
        text_matrix(b, r, n, tsc_hz);
        return b->oom ? ST_NO_MEM : ST_OK;
}
