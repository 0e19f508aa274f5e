/** @file Loaded-latency curves and the bandwidth matrix as JSON and text (see loaded.h). */
#include "report/loaded.h"

#define PLOT_ROWS 10u
#define PLOT_COLS 48u
#define PLOT_MAX_COLS 96u

static void json_point(struct json_w *w, const struct loaded_point *p)
{
        json_obj_begin(w, NULL);
        if (p->delay == LOADED_IDLE)
                json_null(w, "delay");
        else
                json_u64(w, "delay", p->delay);
        json_u64(w, "n_loaders", p->n_loaders);
        json_bool(w, "measured", p->measured);
        if (p->measured) {
                json_fixed(w, "bandwidth_gb_s", (int64_t)p->bw_mb_s, 3);
                json_fixed(w, "p10_ns", (int64_t)p->p10_ps, 3);
                json_fixed(w, "p50_ns", (int64_t)p->p50_ps, 3);
                json_fixed(w, "p90_ns", (int64_t)p->p90_ps, 3);
        }
        json_obj_end(w);
}

void loaded_json(struct json_w *w, const struct loaded_curve *c, size_t n,
                 const struct bw_matrix *bw, const uint32_t *pd)
{
        json_arr_begin(w, "loaded_latency");
        for (size_t i = 0; i < n; i++) {
                json_obj_begin(w, NULL);
                if (c[i].node < 0)
                        json_str(w, "loaded", "all nodes");
                else
                        json_str(w, "loaded", "node");
                if (c[i].node < 0)
                        json_null(w, "node");
                else
                        json_u64(w, "node", pd ? pd[c[i].node] : (unsigned)c[i].node);
                json_u64(w, "chaser_apic_id", c[i].chaser_apic);
                json_arr_begin(w, "points");
                for (unsigned k = 0; k < c[i].n_points; k++)
                        json_point(w, &c[i].pt[k]);
                json_arr_end(w);
                json_obj_end(w);
        }
        json_arr_end(w);
        json_arr_begin(w, "bandwidth_matrix");
        for (unsigned i = 0; bw && i < bw->n_nodes; i++) {
                json_arr_begin(w, NULL);
                for (unsigned j = 0; j < bw->n_nodes; j++) {
                        json_obj_begin(w, NULL);
                        json_u64(w, "cpu_node", pd ? pd[i] : i);
                        json_u64(w, "memory_node", pd ? pd[j] : j);
                        json_u64(w, "n_readers", bw->n_readers[i]);
                        if (bw->measured[i][j])
                                json_fixed(w, "gb_s", (int64_t)bw->mb_s[i][j], 3);
                        else
                                json_null(w, "gb_s");
                        json_obj_end(w);
                }
                json_arr_end(w);
        }
        json_arr_end(w);
}

static void fixed(struct rep_buf *b, uint64_t milli, unsigned width)
{
        uint64_t tenths = (milli + 50) / 100;
        char     t[24];

        fmt_snprintf(t, sizeof(t), "%llu.%llu", (unsigned long long)(tenths / 10),
                     (unsigned long long)(tenths % 10));
        rep_buf_printf(b, " %*s", (int)width, t);
}

status_t loaded_plot(struct rep_buf *b, const struct loaded_curve *c, unsigned rows,
                     unsigned cols)
{
        char     grid[PLOT_ROWS][PLOT_MAX_COLS + 1];
        uint64_t bw_max = 0, lo = UINT64_MAX, hi = 0;

        if (rows > PLOT_ROWS)
                rows = PLOT_ROWS;
        if (cols > PLOT_MAX_COLS)
                cols = PLOT_MAX_COLS;
        if (rows < 2 || cols < 2)
                return ST_BAD_ARG;
        for (unsigned k = 0; k < c->n_points; k++) {
                const struct loaded_point *p = &c->pt[k];
                if (!p->measured)
                        continue;
                bw_max = p->bw_mb_s > bw_max ? p->bw_mb_s : bw_max;
                lo     = p->p50_ps < lo ? p->p50_ps : lo;
                hi     = p->p50_ps > hi ? p->p50_ps : hi;
        }
        if (!hi)
                return ST_OK;
        if (hi == lo)
                hi = lo + 1;
        for (unsigned r = 0; r < rows; r++) {
                memset(grid[r], ' ', cols);
                grid[r][cols] = 0;
        }
        for (unsigned k = 0; k < c->n_points; k++) {
                const struct loaded_point *p = &c->pt[k];
                if (!p->measured)
                        continue;
                unsigned x = bw_max ? (unsigned)(p->bw_mb_s * (cols - 1) / bw_max) : 0;
                unsigned y = (unsigned)((p->p50_ps - lo) * (rows - 1) / (hi - lo));
                grid[rows - 1 - y][x] = (char)('0' + k % 10);
        }
        for (unsigned r = 0; r < rows; r++) {
                if (r == 0)
                        fixed(b, hi, 8);
                else if (r == rows - 1)
                        fixed(b, lo, 8);
                else
                        rep_buf_printf(b, " %8s", "");
                rep_buf_printf(b, " |%s\n", grid[r]);
        }
        rep_buf_printf(b, " %8s +", "ns");
        for (unsigned k = 0; k < cols; k++)
                rep_buf_printf(b, "-");
        rep_buf_printf(b, "\n %8s  0", "");
        rep_buf_printf(b, "%*s", (int)cols - 1, "");
        fixed(b, bw_max, 0);
        rep_buf_printf(b, " GB/s\n");
        return b->oom ? ST_NO_MEM : ST_OK;
}

static void text_curve(struct rep_buf *b, const struct loaded_curve *c)
{
        if (c->node < 0)
                rep_buf_printf(b, "loaded: every node loaded, chase on APIC ID %u\n", c->chaser_apic);
        else
                rep_buf_printf(b, "loaded: node %d loaded, chase on APIC ID %u\n", c->node,
                               c->chaser_apic);
        rep_buf_printf(b, "loaded: %2s %8s %7s %9s %9s %9s %9s\n", "#", "delay", "loaders",
                       "GB/s", "p10 ns", "p50 ns", "p90 ns");
        for (unsigned k = 0; k < c->n_points; k++) {
                const struct loaded_point *p = &c->pt[k];
                rep_buf_printf(b, "loaded: %2u ", k);
                if (p->delay == LOADED_IDLE)
                        rep_buf_printf(b, "%8s", "idle");
                else
                        rep_buf_printf(b, "%8u", p->delay);
                rep_buf_printf(b, " %7u", p->n_loaders);
                if (!p->measured) {
                        rep_buf_printf(b, "  not measured\n");
                        continue;
                }
                fixed(b, p->bw_mb_s, 9);
                fixed(b, p->p10_ps, 9);
                fixed(b, p->p50_ps, 9);
                fixed(b, p->p90_ps, 9);
                rep_buf_printf(b, "\n");
        }
        loaded_plot(b, c, PLOT_ROWS, PLOT_COLS);
}

status_t loaded_text(struct rep_buf *b, const struct loaded_curve *c, size_t n,
                     const struct bw_matrix *bw)
{
        for (size_t i = 0; i < n; i++)
                text_curve(b, &c[i]);
        if (!bw || !bw->n_nodes)
                return b->oom ? ST_NO_MEM : ST_OK;
        rep_buf_printf(b, "bandwidth: read GB/s, CPU node (rows, all its processors) -> memory "
                          "node (columns)\n%-15s", "bandwidth:");
        for (unsigned j = 0; j < bw->n_nodes; j++)
                rep_buf_printf(b, " %8u", j);
        rep_buf_printf(b, "\n");
        for (unsigned i = 0; i < bw->n_nodes; i++) {
                rep_buf_printf(b, "bandwidth: %4u", i);
                for (unsigned j = 0; j < bw->n_nodes; j++)
                        if (bw->measured[i][j])
                                fixed(b, bw->mb_s[i][j], 8);
                        else
                                rep_buf_printf(b, " %8s", "-");
                rep_buf_printf(b, "\n");
        }
        return b->oom ? ST_NO_MEM : ST_OK;
}
