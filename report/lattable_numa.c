/** @file The "numa", "c2c", "loaded_latency" and "bandwidth_matrix" members of
 * latency-table.json (see lattable_numa.h). */
#include "report/lattable_numa.h"

#include "lib/fmt.h"
#include "lib/stats.h"
#include "report/numa_out.h"

#define MATRIX_MAX_CPUS 256u   /* the C2C pair matrix: CPUs beyond are left out of it */

/* ps -> TSC ticks x 1000 */
static uint64_t tsc_milli(uint64_t ps, uint64_t tsc_hz)
{
        return (uint64_t)((unsigned __int128)ps * tsc_hz / 1000000000ull);
}

/* TSC ticks x 1000 -> ps */
static uint64_t ps_of_tsc(uint64_t milli, uint64_t tsc_hz)
{
        return tsc_hz ? (uint64_t)((unsigned __int128)milli * 1000000000ull / tsc_hz) : 0;
}

static void json_stat4(struct json_w *w, const char *key, const uint64_t v[4])
{
        static const char *const names[4] = { "min", "p10", "p50", "p90" };

        json_obj_begin(w, key);
        for (unsigned k = 0; k < 4; k++)
                json_fixed(w, names[k], (int64_t)v[k], 3);
        json_obj_end(w);
}

/* ---- remote-DRAM levels ------------------------------------------------------------------ */

static void pool_class(const struct numa_matrix *m, const struct numa_classes *c, unsigned k,
                       struct lat_dram_level *o)
{
        uint64_t p10[NUMA_MAX_NODES * NUMA_MAX_NODES], p50[NUMA_MAX_NODES * NUMA_MAX_NODES],
                 p90[NUMA_MAX_NODES * NUMA_MAX_NODES];
        unsigned n = 0;

        *o = (struct lat_dram_level){ .cls = k, .distance = c->cls[k].distance };
        for (unsigned p = 0; p < c->cls[k].n_pairs; p++) {
                const struct numa_cell *x = &m->cell[c->cls[k].pair_i[p]][c->cls[k].pair_j[p]];
                if (!x->measured || c->cls[k].pair_i[p] >= m->n_nodes ||
                    c->cls[k].pair_j[p] >= m->n_nodes)
                        continue;
                p10[n] = x->p10_ps;
                p50[n] = x->p50_ps;
                p90[n] = x->p90_ps;
                n++;
        }
        o->n_cells = n;
        if (!n)
                return;
        lib_sort_u64(p10, n);
        lib_sort_u64(p50, n);
        lib_sort_u64(p90, n);
        o->min_ps = p10[0];
        o->p10_ps = lib_pct_nearest_rank(p10, n, 10);
        o->p50_ps = lib_pct_nearest_rank(p50, n, 50);
        o->p90_ps = lib_pct_nearest_rank(p90, n, 90);
}

void rep_lat_dram_levels(const struct numa_matrix *m, const struct numa_classes *c,
                     struct lat_dram_level *out)
{
        unsigned order[NUMA_MAX_CLASSES], n = 0;

        for (unsigned k = 0; k < c->n_classes && k < NUMA_MAX_CLASSES; k++) {
                pool_class(m, c, k, &out[k]);
                if (!out[k].n_cells)
                        continue;
                /* insertion by p50, ties by class */
                unsigned at = n;
                while (at && out[order[at - 1]].p50_ps > out[k].p50_ps) {
                        order[at] = order[at - 1];
                        at--;
                }
                order[at] = k;
                n++;
        }
        for (unsigned q = 0; q + 1 < n; q++) {
                struct lat_dram_level       *a = &out[order[q]];
                const struct lat_dram_level *b = &out[order[q + 1]];
                uint64_t                     bound;

                a->overlap = a->p90_ps >= b->p10_ps;
                bound      = a->overlap ? lib_isqrt_u64(a->p50_ps * b->p50_ps)
                                        : lib_isqrt_u64(a->p90_ps * b->p10_ps);
                a->has_upper = true;
                a->upper_ps  = bound < a->p50_ps ? a->p50_ps : bound;
        }
}

static void json_dram_level(struct json_w *w, const struct lat_dram_level *v,
                            const struct numa_class *cl, const uint32_t *pd, uint64_t tsc_hz)
{
        char name[32];

        json_obj_begin(w, NULL);
        json_str(w, "name", numa_level_name(v->cls, name, sizeof(name)));
        json_u64(w, "class", v->cls);
        json_u64(w, "slit_distance", v->distance);
        json_u64(w, "n_cells", v->n_cells);
        if (v->n_cells) {
                uint64_t ps[4] = { v->min_ps, v->p10_ps, v->p50_ps, v->p90_ps }, t[4];
                json_stat4(w, "ns", ps);
                for (unsigned k = 0; k < 4; k++)
                        t[k] = tsc_milli(ps[k], tsc_hz);
                if (tsc_hz)
                        json_stat4(w, "tsc", t);
                else
                        json_null(w, "tsc");
        } else {
                json_null(w, "ns");
                json_null(w, "tsc");
        }
        if (v->has_upper)
                json_fixed(w, "upper_ns", (int64_t)v->upper_ps, 3);
        else
                json_null(w, "upper_ns");
        json_bool(w, "overlaps_next", v->overlap);
        json_arr_begin(w, "pairs");
        for (unsigned p = 0; p < cl->n_pairs; p++) {
                json_arr_begin(w, NULL);
                json_u64(w, NULL, pd ? pd[cl->pair_i[p]] : cl->pair_i[p]);
                json_u64(w, NULL, pd ? pd[cl->pair_j[p]] : cl->pair_j[p]);
                json_arr_end(w);
        }
        json_arr_end(w);
        json_obj_end(w);
}

void rep_lat_numa_json(struct json_w *w, void *ctx)
{
        const struct lat_numa_in *in = ctx;
        struct lat_dram_level     lv[NUMA_MAX_CLASSES];

        rep_lat_dram_levels(in->m, in->cls, lv);
        json_obj_begin(w, "numa");
        json_obj_begin(w, "method");
        json_str(w, "clock", "tsc");
        json_u64_or_null(w, "tsc_hz", in->tsc_hz);
        json_u64(w, "working_set_bytes", in->ws_bytes);
        json_u64(w, "windows", in->windows);
        json_bool(w, "emulated", in->emulated);
        json_obj_end(w);
        json_u64(w, "n_nodes", in->m->n_nodes);
        json_arr_begin(w, "dram_levels");
        for (unsigned k = 0; k < in->cls->n_classes && k < NUMA_MAX_CLASSES; k++)
                json_dram_level(w, &lv[k], &in->cls->cls[k], in->pd, in->tsc_hz);
        json_arr_end(w);
        numa_json(w, in->m, in->cls, in->pd, in->tsc_hz);
        json_obj_end(w);
}

void rep_lat_loaded_json(struct json_w *w, void *ctx)
{
        const struct lat_numa_in *in = ctx;

        loaded_json(w, in->curve, in->n_curves, in->bw, in->pd);
}

/* ---- cache-to-cache ---------------------------------------------------------------------- */

void rep_lat_c2c_classes(const struct c2c_result *r, size_t n,
                     struct lat_c2c_class out[C2C__COUNT][BENCH_C2C__COUNT])
{
        static uint64_t p10[2048], p50[2048], p90[2048];

        memset(out, 0, sizeof(struct lat_c2c_class) * C2C__COUNT * BENCH_C2C__COUNT);
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < BENCH_C2C__COUNT; k++) {
                        size_t m = 0;

                        for (size_t i = 0; i < n && m < ARRAY_SIZE(p10); i++) {
                                if (!r[i].known_class || r[i].cls != c || !r[i].measured[k])
                                        continue;
                                p10[m] = r[i].p10_milli[k];
                                p50[m] = r[i].p50_milli[k];
                                p90[m] = r[i].p90_milli[k];
                                m++;
                        }
                        if (!m)
                                continue;
                        lib_sort_u64(p10, m);
                        lib_sort_u64(p50, m);
                        lib_sort_u64(p90, m);
                        out[c][k] = (struct lat_c2c_class){
                                .n_pairs = (unsigned)m, .min = p10[0],
                                .p10 = lib_pct_nearest_rank(p10, m, 10),
                                .p50 = lib_pct_nearest_rank(p50, m, 50),
                                .p90 = lib_pct_nearest_rank(p90, m, 90) };
                }
}

static void json_c2c_classes(struct json_w *w, const struct lat_c2c_in *in)
{
        static struct lat_c2c_class s[C2C__COUNT][BENCH_C2C__COUNT];

        rep_lat_c2c_classes(in->res, in->n, s);
        json_arr_begin(w, "classes");
        for (unsigned c = 0; c < C2C__COUNT; c++)
                for (unsigned k = 0; k < LAT_C2C_KINDS; k++) {
                        const struct lat_c2c_class *x = &s[c][k];
                        uint64_t t[4] = { x->min, x->p10, x->p50, x->p90 }, ns[4];

                        if (!x->n_pairs)
                                continue;
                        json_obj_begin(w, NULL);
                        json_str(w, "topology", c2c_class_name((enum c2c_class)c));
                        json_str(w, "kind", bench_c2c_kind_name((enum bench_c2c_kind)k));
                        json_u64(w, "n_pairs", x->n_pairs);
                        json_stat4(w, "tsc", t);
                        for (unsigned q = 0; q < 4; q++)
                                ns[q] = ps_of_tsc(t[q], in->tsc_hz);
                        if (in->tsc_hz)
                                json_stat4(w, "ns", ns);
                        else
                                json_null(w, "ns");
                        json_obj_end(w);
                }
        json_arr_end(w);
}

/* The CPUs of the pairs, in order of first appearance; returns how many (<= max). */
static unsigned c2c_cpus(const struct c2c_result *r, size_t n, unsigned *cpu, uint32_t *apic,
                         unsigned max)
{
        unsigned m = 0;

        for (size_t i = 0; i < n; i++) {
                const unsigned c[2] = { r[i].owner_cpu, r[i].reader_cpu };
                const uint32_t a[2] = { r[i].owner_apic, r[i].reader_apic };
                for (unsigned s = 0; s < 2; s++) {
                        unsigned q = 0;
                        while (q < m && cpu[q] != c[s])
                                q++;
                        if (q == m && m < max) {
                                cpu[m]    = c[s];
                                apic[m++] = a[s];
                        }
                }
        }
        return m;
}

static int c2c_index(const unsigned *cpu, unsigned m, unsigned c)
{
        for (unsigned q = 0; q < m; q++)
                if (cpu[q] == c)
                        return (int)q;
        return -1;
}

/* One matrix per kind: p50 in TSC ticks, owner rows, reader columns, null where not measured. */
static void json_c2c_matrix(struct json_w *w, const char *key, const struct lat_c2c_in *in,
                            const unsigned *cpu, unsigned m)
{
        json_obj_begin(w, key);
        for (unsigned k = 0; k < LAT_C2C_KINDS; k++) {
                json_arr_begin(w, bench_c2c_kind_name((enum bench_c2c_kind)k));
                for (unsigned a = 0; a < m; a++) {
                        json_arr_begin(w, NULL);
                        for (unsigned b = 0; b < m; b++) {
                                const struct c2c_result *x = NULL;
                                for (size_t i = 0; i < in->n && !x; i++)
                                        if (in->res[i].owner_cpu == cpu[a] &&
                                            in->res[i].reader_cpu == cpu[b])
                                                x = &in->res[i];
                                if (x && x->measured[k])
                                        json_fixed(w, NULL, (int64_t)x->p50_milli[k], 3);
                                else
                                        json_null(w, NULL);
                        }
                        json_arr_end(w);
                }
                json_arr_end(w);
        }
        json_obj_end(w);
}

void rep_lat_c2c_json(struct json_w *w, void *ctx)
{
        static unsigned           cpu[MATRIX_MAX_CPUS];
        static uint32_t           apic[MATRIX_MAX_CPUS];
        const struct lat_c2c_in *in = ctx;
        unsigned                  m  = c2c_cpus(in->res, in->n, cpu, apic, MATRIX_MAX_CPUS);

        json_obj_begin(w, "c2c");
        json_obj_begin(w, "method");
        json_str(w, "clock", "tsc");
        json_u64_or_null(w, "tsc_hz", in->tsc_hz);
        json_u64(w, "lines", in->lines);
        json_u64(w, "rounds", in->rounds);
        json_u64(w, "n_cpus", in->n_cpus);
        json_str_or_null(w, "pair_plan", in->pair_plan);
        json_str_or_null(w, "topology_source", in->topology_source);
        json_bool(w, "emulated", in->emulated);
        json_obj_end(w);
        json_c2c_classes(w, in);
        json_arr_begin(w, "cpus");
        for (unsigned q = 0; q < m; q++) {
                json_obj_begin(w, NULL);
                json_u64(w, "cpu", cpu[q]);
                json_u64(w, "apic_id", apic[q]);
                json_obj_end(w);
        }
        json_arr_end(w);
        json_arr_begin(w, "pair_topology");
        for (unsigned a = 0; a < m; a++) {
                json_arr_begin(w, NULL);
                for (unsigned b = 0; b < m; b++) {
                        const char *t = NULL;
                        for (size_t i = 0; i < in->n && !t; i++)
                                if (in->res[i].known_class &&
                                    c2c_index(cpu, m, in->res[i].owner_cpu) == (int)a &&
                                    c2c_index(cpu, m, in->res[i].reader_cpu) == (int)b)
                                        t = c2c_class_name(in->res[i].cls);
                        json_str_or_null(w, NULL, t);
                }
                json_arr_end(w);
        }
        json_arr_end(w);
        /* the 1.x name and, since latency-table 1.6, the unit-named one, same values */
        json_c2c_matrix(w, "matrix_p50_tsc", in, cpu, m);
        json_c2c_matrix(w, "matrix_p50_tsc_ticks", in, cpu, m);
        json_obj_end(w);
}

/* ---- sections and text ------------------------------------------------------------------- */

size_t rep_lat_remote_sections(const struct lat_numa_in *numa, const struct lat_c2c_in *c2c,
                           struct lat_json_section *out)
{
        size_t n = 0;

        if (!out)
                return 0;
        if (numa && numa->m && numa->cls && numa->m->n_nodes) {
                out[n++] = (struct lat_json_section){ rep_lat_numa_json, (void *)numa };
                if (numa->n_curves || numa->bw)
                        out[n++] = (struct lat_json_section){ rep_lat_loaded_json, (void *)numa };
        }
        if (c2c && c2c->res && c2c->n)
                out[n++] = (struct lat_json_section){ rep_lat_c2c_json, (void *)c2c };
        return n;
}

static void fixed1(struct rep_buf *b, uint64_t ps)
{
        uint64_t tenths = (ps + 50) / 100;

        rep_buf_printf(b, " %7llu.%llu", (unsigned long long)(tenths / 10),
                       (unsigned long long)(tenths % 10));
}

status_t rep_lat_dram_levels_text(struct rep_buf *b, const struct lat_numa_in *numa)
{
        struct lat_dram_level lv[NUMA_MAX_CLASSES];
        char                  name[32];

        if (!b || !numa || !numa->m || !numa->cls)
                return ST_BAD_ARG;
        rep_lat_dram_levels(numa->m, numa->cls, lv);
        rep_buf_printf(b, "latency table: DRAM levels by distance class (ns)\n  %-18s %5s %5s"
                          " %9s %9s %9s %9s %9s\n", "level", "dist", "cells", "min", "p10", "p50",
                       "p90", "upper");
        for (unsigned k = 0; k < numa->cls->n_classes && k < NUMA_MAX_CLASSES; k++) {
                rep_buf_printf(b, "  %-18s %5u %5u", numa_level_name(k, name, sizeof(name)),
                               lv[k].distance, lv[k].n_cells);
                if (lv[k].n_cells) {
                        fixed1(b, lv[k].min_ps);
                        fixed1(b, lv[k].p10_ps);
                        fixed1(b, lv[k].p50_ps);
                        fixed1(b, lv[k].p90_ps);
                        if (lv[k].has_upper)
                                fixed1(b, lv[k].upper_ps);
                        else
                                rep_buf_printf(b, " %9s", "(last)");
                }
                rep_buf_printf(b, "%s\n", lv[k].overlap ? "  overlaps the next" : "");
        }
        return b->oom ? ST_NO_MEM : ST_OK;
}
