/** @file Topology classes, pair planning and the summaries of cache-to-cache runs (see c2c.h). */
#include "report/c2c.h"

#include "lib/fmt.h"
#include "lib/stats.h"
#include "report/rep.h"

#define MATRIX_MAX_CPUS 16u   /* the text matrix: beyond this only the class table */

enum c2c_class c2c_pair_class(const struct c2c_cpu *a, const struct c2c_cpu *b)
{
        if (a->package != b->package)
                return C2C_OTHER_PKG;
        if (a->core == b->core)
                return C2C_SMT;
        if (a->group != C2C_GROUP_NONE && a->group == b->group && a->cluster == b->cluster)
                return a->group == C2C_GROUP_MODULE ? C2C_SAME_MODULE : C2C_SAME_CLUSTER;
        if (a->no_l3 || b->no_l3)
                return C2C_SAME_PKG;
        return a->l3_domain == b->l3_domain ? C2C_SAME_L3 : C2C_OTHER_L3;
}

bool c2c_class_may_share_l2(enum c2c_class c)
{
        return c == C2C_SMT || c == C2C_SAME_MODULE || c == C2C_SAME_CLUSTER;
}

const char *c2c_class_name(enum c2c_class c)
{
        static const char *const names[C2C__COUNT] = {
                [C2C_SMT]          = "smt",
                [C2C_SAME_MODULE]  = "same-module",
                [C2C_SAME_CLUSTER] = "same-cluster",
                [C2C_SAME_L3]      = "same-l3",
                [C2C_OTHER_L3]     = "other-l3",
                [C2C_SAME_PKG]     = "same-package",
                [C2C_OTHER_PKG]    = "other-package",
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

void c2c_result_pass(struct c2c_result *r, enum bench_c2c_kind kind, const uint64_t *rounds,
                     const bool *concurrent, size_t n, uint64_t *acc, size_t *n_acc)
{
        size_t   first = *n_acc;
        bool     floor = r->floor_milli && r->known_class && !c2c_class_may_share_l2(r->cls);
        unsigned p;

        if ((unsigned)kind >= BENCH_C2C__COUNT)
                return;
        p = r->n_passes[kind] < C2C_PASSES ? r->n_passes[kind]++ : C2C_PASSES - 1;
        r->n_rounds[kind] += (unsigned)n;
        for (size_t i = 0; i < n; i++) {
                if (concurrent && !concurrent[i]) {
                        r->n_not_concurrent[kind]++;
                        if (!r->keep_all)
                                continue;
                } else if (floor && rounds[i] < r->floor_milli) {
                        r->n_below_floor[kind]++;
                        if (!r->keep_all)
                                continue;
                }
                acc[(*n_acc)++] = rounds[i];
        }
        if (*n_acc == first)
                return;
        /* the pass's median, on a sorted copy of its kept rounds at the end of acc */
        static uint64_t tmp[BENCH_C2C_MAX_ROUNDS];
        size_t          m = *n_acc - first < ARRAY_SIZE(tmp) ? *n_acc - first : ARRAY_SIZE(tmp);
        memcpy(tmp, acc + first, m * sizeof(*tmp));
        lib_sort_u64(tmp, m);
        r->pass_p50_milli[kind][p] = lib_pct_nearest_rank(tmp, m, 50);
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

/* Each pass's median over the pairs of class @p c, kind @p k, and their spread. */
static void summarise_passes(const struct c2c_result *r, size_t n, unsigned c, unsigned k,
                             struct c2c_class_summary *o)
{
        uint64_t v[256], lo = UINT64_MAX, hi = 0;

        for (unsigned p = 0; p < C2C_PASSES; p++) {
                size_t m = 0;
                for (size_t i = 0; i < n && m < ARRAY_SIZE(v); i++)
                        if (r[i].known_class && r[i].cls == c && r[i].measured[k] &&
                            r[i].pass_p50_milli[k][p])
                                v[m++] = r[i].pass_p50_milli[k][p];
                if (!m)
                        continue;
                lib_sort_u64(v, m);
                o->pass_p50_milli[o->n_passes++] = lib_pct_nearest_rank(v, m, 50);
        }
        for (unsigned p = 0; p < o->n_passes; p++) {
                lo = o->pass_p50_milli[p] < lo ? o->pass_p50_milli[p] : lo;
                hi = o->pass_p50_milli[p] > hi ? o->pass_p50_milli[p] : hi;
        }
        o->spread_milli = o->n_passes ? hi - lo : 0;
}

void c2c_summarise(const struct c2c_result *r, size_t n,
                   struct c2c_class_summary out[C2C__COUNT][BENCH_C2C__COUNT])
{
        memset(out, 0, sizeof(struct c2c_class_summary) * C2C__COUNT * BENCH_C2C__COUNT);
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        struct c2c_class_summary *o = &out[c][k];
                        uint64_t v[256];
                        size_t   m = 0;

                        for (size_t i = 0; i < n; i++) {
                                if (!r[i].known_class || r[i].cls != c)
                                        continue;
                                o->n_rounds += r[i].n_rounds[k];
                                o->n_not_concurrent += r[i].n_not_concurrent[k];
                                o->n_below_floor += r[i].n_below_floor[k];
                                o->kept |= r[i].keep_all;
                                if (r[i].measured[k] && m < ARRAY_SIZE(v))
                                        v[m++] = r[i].p50_milli[k];
                        }
                        if (!m)
                                continue;
                        lib_sort_u64(v, m);
                        o->n_pairs   = (unsigned)m;
                        o->p50_milli = lib_pct_nearest_rank(v, m, 50);
                        o->min_milli = v[0];
                        o->max_milli = v[m - 1];
                        summarise_passes(r, n, c, k, o);
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

/* A TSC figure under its 1.x name (key_tsc) and its unit-named one (key_tsc_ticks), same value. */
static void json_tsc(struct json_w *w, const char *key, uint64_t milli)
{
        char k[32];

        fmt_snprintf(k, sizeof(k), "%s_tsc", key);
        json_fixed(w, k, (int64_t)milli, 3);
        fmt_snprintf(k, sizeof(k), "%s_tsc_ticks", key);
        json_fixed(w, k, (int64_t)milli, 3);
}

static void json_tsc_null(struct json_w *w, const char *key)
{
        char k[32];

        fmt_snprintf(k, sizeof(k), "%s_tsc", key);
        json_null(w, k);
        fmt_snprintf(k, sizeof(k), "%s_tsc_ticks", key);
        json_null(w, k);
}

static void json_passes1(struct json_w *w, const char *key, const uint64_t *p50, unsigned n)
{
        json_arr_begin(w, key);
        for (unsigned p = 0; p < n; p++)
                if (p50[p])
                        json_fixed(w, NULL, (int64_t)p50[p], 3);
                else
                        json_null(w, NULL);
        json_arr_end(w);
}

/* passes_p50_tsc and, beside it, passes_p50_tsc_ticks */
static void json_passes(struct json_w *w, const uint64_t *p50, unsigned n)
{
        json_passes1(w, "passes_p50_tsc", p50, n);
        json_passes1(w, "passes_p50_tsc_ticks", p50, n);
}

static void json_kind(struct json_w *w, const char *key, const struct c2c_result *r,
                      unsigned k, uint64_t tsc_hz)
{
        json_obj_begin(w, key);
        json_tsc(w, "p10", r->p10_milli[k]);
        json_tsc(w, "p50", r->p50_milli[k]);
        json_tsc(w, "p90", r->p90_milli[k]);
        json_figure(w, "p10_ns", r->p10_milli[k], tsc_hz);
        json_figure(w, "p50_ns", r->p50_milli[k], tsc_hz);
        json_figure(w, "p90_ns", r->p90_milli[k], tsc_hz);
        json_u64(w, "n_rounds", r->n_rounds[k]);
        json_u64(w, "n_not_concurrent", r->n_not_concurrent[k]);
        json_u64(w, "n_below_floor", r->n_below_floor[k]);
        json_passes(w, r->pass_p50_milli[k], r->n_passes[k]);
        json_obj_end(w);
}

/* A kind with rounds taken but none kept: null figures, and what left them out. */
static void json_rejected(struct json_w *w, const char *key, const struct c2c_result *r,
                          unsigned k)
{
        static const char *const figs[] = { "p10", "p50", "p90" };
        char                     k_ns[16];

        if (!r->n_rounds[k]) {
                json_null(w, key);
                return;
        }
        json_obj_begin(w, key);
        for (size_t i = 0; i < ARRAY_SIZE(figs); i++)
                json_tsc_null(w, figs[i]);
        for (size_t i = 0; i < ARRAY_SIZE(figs); i++) {
                fmt_snprintf(k_ns, sizeof(k_ns), "%s_ns", figs[i]);
                json_null(w, k_ns);
        }
        json_u64(w, "n_rounds", r->n_rounds[k]);
        json_u64(w, "n_not_concurrent", r->n_not_concurrent[k]);
        json_u64(w, "n_below_floor", r->n_below_floor[k]);
        json_passes(w, r->pass_p50_milli[k], r->n_passes[k]);
        json_obj_end(w);
}

static void json_class(struct json_w *w, unsigned c, unsigned k,
                       const struct c2c_class_summary *x, uint64_t tsc_hz)
{
        json_obj_begin(w, NULL);
        json_str(w, "topology", c2c_class_name((enum c2c_class)c));
        json_str(w, "kind", bench_c2c_kind_name((enum bench_c2c_kind)k));
        json_u64(w, "n_pairs", x->n_pairs);
        json_tsc(w, "p50", x->p50_milli);
        json_tsc(w, "min", x->min_milli);
        json_tsc(w, "max", x->max_milli);
        json_figure(w, "p50_ns", x->p50_milli, tsc_hz);
        json_passes(w, x->pass_p50_milli, x->n_passes);
        json_tsc(w, "spread", x->spread_milli);
        json_figure(w, "spread_ns", x->spread_milli, tsc_hz);
        json_u64(w, "n_rounds", x->n_rounds);
        json_u64(w, "n_not_concurrent", x->n_not_concurrent);
        json_u64(w, "n_below_floor", x->n_below_floor);
        json_obj_end(w);
}

void c2c_json(struct json_w *w, const struct c2c_result *r, size_t n, uint64_t tsc_hz)
{
        static struct c2c_class_summary s[C2C__COUNT][BENCH_C2C__COUNT];

        c2c_summarise(r, n, s);
        json_obj_begin(w, "c2c");
        json_arr_begin(w, "classes");
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++)
                        if (s[c][k].n_pairs)
                                json_class(w, c, k, &s[c][k], tsc_hz);
        json_arr_end(w);
        json_arr_begin(w, "pairs");
        for (size_t i = 0; i < n; i++) {
                json_obj_begin(w, NULL);
                json_u64(w, "owner_cpu", r[i].owner_cpu);
                json_u64(w, "reader_cpu", r[i].reader_cpu);
                json_u64(w, "owner_apic_id", r[i].owner_apic);
                json_u64(w, "reader_apic_id", r[i].reader_apic);
                json_str(w, "topology", r[i].known_class ? c2c_class_name(r[i].cls) : NULL);
                json_str(w, "prefetchers", r[i].prefetchers);
                if (r[i].floor_milli) {
                        json_tsc(w, "floor", r[i].floor_milli);
                        json_figure(w, "floor_ns", r[i].floor_milli, tsc_hz);
                } else {
                        json_tsc_null(w, "floor");
                        json_null(w, "floor_ns");
                }
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        const char *name = bench_c2c_kind_name((enum bench_c2c_kind)k);
                        if (r[i].measured[k])
                                json_kind(w, name, &r[i], k, tsc_hz);
                        else
                                json_rejected(w, name, &r[i], k);
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

static void text_fig(struct rep_buf *b, uint64_t v, uint64_t tsc_hz)
{
        uint64_t y = tsc_hz ? ns_milli(v, tsc_hz) : v;

        rep_buf_printf(b, " %7llu.%llu", (unsigned long long)(y / 1000),
                       (unsigned long long)(y % 1000 / 100));
}

status_t c2c_text(struct rep_buf *b, const struct c2c_result *r, size_t n, uint64_t tsc_hz)
{
        static struct c2c_class_summary s[C2C__COUNT][BENCH_C2C__COUNT];

        c2c_summarise(r, n, s);
        rep_buf_printf(b, "c2c: %-13s %-8s %5s %9s %9s %9s %9s  %s  (%s per access; spread: "
                       "largest - smallest of the %u passes' medians)\n", "topology", "kind",
                       "pairs", "p50", "min", "max", "spread", "flagged", tsc_hz ? "ns" : "TSC ticks",
                       C2C_PASSES);
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        const struct c2c_class_summary *x = &s[c][k];

                        if (!x->n_pairs && !x->n_rounds)
                                continue;
                        rep_buf_printf(b, "c2c: %-13s %-8s %5u", c2c_class_name((enum c2c_class)c),
                                       bench_c2c_kind_name((enum bench_c2c_kind)k), x->n_pairs);
                        if (x->n_pairs) {
                                text_fig(b, x->p50_milli, tsc_hz);
                                text_fig(b, x->min_milli, tsc_hz);
                                text_fig(b, x->max_milli, tsc_hz);
                                text_fig(b, x->spread_milli, tsc_hz);
                        } else {
                                rep_buf_printf(b, " %9s %9s %9s %9s", "-", "-", "-", "-");
                        }
                        rep_buf_printf(b, "  %u of %u rounds%s", x->n_not_concurrent + x->n_below_floor,
                                       x->n_rounds, x->kept ? ", kept (emulated)" : " left out");
                        if (x->n_not_concurrent)
                                rep_buf_printf(b, " (%u not concurrent)", x->n_not_concurrent);
                        if (x->n_below_floor)
                                rep_buf_printf(b, " (%u faster than the reader's own hit: not "
                                               "transfers)", x->n_below_floor);
                        rep_buf_printf(b, "\n");
                }
        text_matrix(b, r, n, tsc_hz);
        return b->oom ? ST_NO_MEM : ST_OK;
}

size_t c2c_floor_bytes(uint64_t l1d_bytes, uint64_t l2_bytes, size_t max, size_t fallback,
                       const char **name)
{
        uint64_t b = 4 * l1d_bytes;

        if (b > l2_bytes / 2)
                b = l2_bytes / 2;
        if (b > max)
                b = max;
        b &= ~(uint64_t)4095;
        if (!l1d_bytes || !l2_bytes || b < 2 * l1d_bytes) {
                *name = "own L1 hit";
                return fallback;
        }
        *name = "own L2 hit";
        return (size_t)b;
}

void c2c_report_rejects(const struct c2c_result *r, size_t n, bool emulated)
{
        static struct c2c_class_summary s[C2C__COUNT][BENCH_C2C__COUNT];

        c2c_summarise(r, n, s);
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        const struct c2c_class_summary *x = &s[c][k];
                        const char *cls  = c2c_class_name((enum c2c_class)c);
                        const char *kind = bench_c2c_kind_name((enum bench_c2c_kind)k);

                        if (x->n_not_concurrent && emulated)
                                rep_info("%s %s: %u of %u windows not concurrent (the emulator "
                                         "runs the vCPUs in turn): kept, as the emulator's "
                                         "figures", cls, kind, x->n_not_concurrent, x->n_rounds);
                        else if (x->n_not_concurrent)
                                rep_warn("%s %s: %u of %u windows left out: the owner did not "
                                         "run while the reader measured (both sides on one core "
                                         "in turn: not a transfer)", cls, kind,
                                         x->n_not_concurrent, x->n_rounds);
                        if (x->n_below_floor)
                                rep_warn("%s %s: %u of %u windows left out: faster than the "
                                         "reader's own hit, which a transfer between caches that "
                                         "share no L2 cannot be", cls, kind, x->n_below_floor,
                                         x->n_rounds);
                }
}
