/** @file The NUMA matrix as JSON and text (see numa_out.h). */
#include "report/numa_out.h"

#include "lib/fmt.h"

const char *numa_level_name(unsigned cls, char *buf, size_t n)
{
        if (cls == 0)
                fmt_snprintf(buf, n, "DRAM-local");
        else
                fmt_snprintf(buf, n, "DRAM-remote-%uhop", cls);
        return buf;
}

static uint64_t ticks_milli(uint64_t ps, uint64_t tsc_hz)
{
        return (uint64_t)((unsigned __int128)ps * tsc_hz / 1000000000ull);
}

static void json_lat(struct json_w *w, const char *key, uint64_t ps, uint64_t tsc_hz)
{
        char k[24];

        fmt_snprintf(k, sizeof(k), "%s_ns", key);
        json_fixed(w, k, (int64_t)ps, 3);
        /* the 1.x name (_tsc) and, since pmucal.numa/1.3, the unit-named one, same value */
        for (unsigned u = 0; u < 2; u++) {
                fmt_snprintf(k, sizeof(k), u ? "%s_tsc_ticks" : "%s_tsc", key);
                if (tsc_hz)
                        json_fixed(w, k, (int64_t)ticks_milli(ps, tsc_hz), 3);
                else
                        json_null(w, k);
        }
}

static const char *verdict_name(enum numa_verdict v)
{
        return v == NUMA_AGREE ? "agree" : v == NUMA_DISAGREE ? "DISAGREE" : NULL;
}

static void json_cell(struct json_w *w, const struct numa_cell *c, unsigned i, unsigned j,
                      const uint32_t *pd, uint64_t tsc_hz)
{
        json_obj_begin(w, NULL);
        json_u64(w, "cpu_node", pd ? pd[i] : i);
        json_u64(w, "memory_node", pd ? pd[j] : j);
        json_bool(w, "measured", c->measured);
        if (c->measured) {
                json_lat(w, "p10", c->p10_ps, tsc_hz);
                json_lat(w, "p50", c->p50_ps, tsc_hz);
                json_lat(w, "p90", c->p90_ps, tsc_hz);
        }
        if (c->slit != NUMA_NOT_CHECKED) {
                json_fixed(w, "ratio", c->ratio_milli, 3);
                json_fixed(w, "slit_ratio", c->slit_ratio_milli, 3);
        }
        json_str(w, "slit", verdict_name(c->slit));
        if (c->slit_unreachable)
                json_bool(w, "slit_unreachable", true);
        if (c->hmat_ps)
                json_fixed(w, "hmat_ns", (int64_t)c->hmat_ps, 3);
        else
                json_null(w, "hmat_ns");
        json_str(w, "hmat", verdict_name(c->hmat));
        json_obj_end(w);
}

void numa_json(struct json_w *w, const struct numa_matrix *m, const struct numa_classes *c,
               const uint32_t *pd_of_node, uint64_t tsc_hz)
{
        struct numa_class_latency lat[NUMA_MAX_CLASSES];
        char                      name[32];

        json_arr_begin(w, "matrix");
        for (unsigned i = 0; i < m->n_nodes; i++) {
                json_arr_begin(w, NULL);
                for (unsigned j = 0; j < m->n_nodes; j++)
                        json_cell(w, &m->cell[i][j], i, j, pd_of_node, tsc_hz);
                json_arr_end(w);
        }
        json_arr_end(w);
        numa_class_latencies(m, c, lat);
        json_arr_begin(w, "classes");
        for (unsigned k = 0; k < c->n_classes; k++) {
                json_obj_begin(w, NULL);
                json_str(w, "level", numa_level_name(k, name, sizeof(name)));
                json_u64(w, "class", k);
                json_u64(w, "slit_distance", c->cls[k].distance);
                json_u64(w, "n_cells", lat[k].n_cells);
                if (lat[k].n_cells) {
                        json_lat(w, "p50", lat[k].p50_ps, tsc_hz);
                        json_lat(w, "min", lat[k].min_ps, tsc_hz);
                        json_lat(w, "max", lat[k].max_ps, tsc_hz);
                } else {
                        json_null(w, "p50_ns");
                }
                json_arr_begin(w, "pairs");
                for (unsigned p = 0; p < c->cls[k].n_pairs; p++) {
                        unsigned a = c->cls[k].pair_i[p], b = c->cls[k].pair_j[p];
                        json_arr_begin(w, NULL);
                        json_u64(w, NULL, pd_of_node ? pd_of_node[a] : a);
                        json_u64(w, NULL, pd_of_node ? pd_of_node[b] : b);
                        json_arr_end(w);
                }
                json_arr_end(w);
                json_obj_end(w);
        }
        json_arr_end(w);
        json_bool(w, "slit_asymmetric", c->asymmetric);
        json_u64(w, "n_unreachable", c->n_unreachable);
}

static void fixed1(struct rep_buf *b, uint64_t ps)
{
        uint64_t tenths = (ps + 50) / 100;

        rep_buf_printf(b, " %6llu.%llu", (unsigned long long)(tenths / 10),
                       (unsigned long long)(tenths % 10));
}

status_t numa_text(struct rep_buf *b, const struct numa_matrix *m, const struct numa_classes *c,
                   uint64_t tsc_hz)
{
        struct numa_class_latency lat[NUMA_MAX_CLASSES];
        char                      name[32];

        rep_buf_printf(b, "numa: idle latency p50 (ns), CPU node (rows) -> memory node "
                          "(columns); ! = DISAGREE with SLIT or HMAT\n%-10s", "numa:");
        for (unsigned j = 0; j < m->n_nodes; j++)
                rep_buf_printf(b, " %8u ", j);
        rep_buf_printf(b, "\n");
        for (unsigned i = 0; i < m->n_nodes; i++) {
                rep_buf_printf(b, "numa: %4u", i);
                for (unsigned j = 0; j < m->n_nodes; j++) {
                        const struct numa_cell *x = &m->cell[i][j];
                        if (!x->measured) {
                                rep_buf_printf(b, " %8s ", "-");
                                continue;
                        }
                        fixed1(b, x->p50_ps);
                        rep_buf_printf(b, "%c", x->slit == NUMA_DISAGREE ||
                                                        x->hmat == NUMA_DISAGREE ? '!' : ' ');
                }
                rep_buf_printf(b, "\n");
        }
        numa_class_latencies(m, c, lat);
        rep_buf_printf(b, "numa: %-18s %8s %5s %8s %8s %8s  (ns)\n", "level", "distance", "cells",
                       "p50", "min", "max");
        for (unsigned k = 0; k < c->n_classes; k++) {
                rep_buf_printf(b, "numa: %-18s %8u %5u", numa_level_name(k, name, sizeof(name)),
                               c->cls[k].distance, lat[k].n_cells);
                if (lat[k].n_cells) {
                        fixed1(b, lat[k].p50_ps);
                        fixed1(b, lat[k].min_ps);
                        fixed1(b, lat[k].max_ps);
                }
                rep_buf_printf(b, "\n");
        }
        (void)tsc_hz;
        return b->oom ? ST_NO_MEM : ST_OK;
}

void numa_verdict_counts(const struct numa_matrix *m, unsigned *slit_agree,
                         unsigned *slit_disagree, unsigned *hmat_agree, unsigned *hmat_disagree)
{
        *slit_agree = *slit_disagree = *hmat_agree = *hmat_disagree = 0;
        for (unsigned i = 0; i < m->n_nodes; i++)
                for (unsigned j = 0; j < m->n_nodes; j++) {
                        const struct numa_cell *x = &m->cell[i][j];
                        *slit_agree += x->slit == NUMA_AGREE;
                        *slit_disagree += x->slit == NUMA_DISAGREE;
                        *hmat_agree += x->hmat == NUMA_AGREE;
                        *hmat_disagree += x->hmat == NUMA_DISAGREE;
                }
}
