/** @file Distance classes and the latency-matrix checks (see numa.h). */
#include "report/numa.h"

#include "lib/stats.h"

#define SLIT_LOCAL        10u
#define DEFAULT_REMOTE    20u   /* Linux's REMOTE_DISTANCE when there is no SLIT */

uint8_t numa_slit_distance(const struct acpi_slit *slit, const uint32_t *pd_of_node, unsigned i,
                           unsigned j)
{
        uint32_t a = pd_of_node ? pd_of_node[i] : i, b = pd_of_node ? pd_of_node[j] : j;

        if (!slit || a >= slit->n || b >= slit->n || a >= ACPI_SLIT_MAX || b >= ACPI_SLIT_MAX)
                return a == b ? SLIT_LOCAL : DEFAULT_REMOTE;
        return slit->dist[a][b];
}

static int class_index(const struct numa_classes *c, uint8_t d)
{
        for (unsigned k = 0; k < c->n_classes; k++)
                if (c->cls[k].distance == d)
                        return (int)k;
        return -1;
}

/* Insert distance @p d keeping cls[1..] ascending; class 0 stays local. */
static status_t add_class(struct numa_classes *c, uint8_t d)
{
        unsigned k;

        if (class_index(c, d) >= 0)
                return ST_OK;
        if (c->n_classes == NUMA_MAX_CLASSES)
                return ST_UNSUPPORTED;
        for (k = c->n_classes; k > 1 && c->cls[k - 1].distance > d; k--)
                c->cls[k] = c->cls[k - 1];
        c->cls[k] = (struct numa_class){ .distance = d };
        c->n_classes++;
        return ST_OK;
}

status_t numa_classes_from_slit(const struct acpi_slit *slit, unsigned n_nodes,
                                const uint32_t *pd_of_node, struct numa_classes *out)
{
        status_t st;

        if (!out)
                return ST_BAD_ARG;
        *out = (struct numa_classes){ 0 };
        if (slit && !n_nodes && !pd_of_node)
                n_nodes = slit->n;
        if (n_nodes == 0 || n_nodes > NUMA_MAX_NODES)
                return ST_BAD_ARG;
        out->n_nodes   = n_nodes;
        out->n_classes = 1;
        out->cls[0].distance = SLIT_LOCAL;
        for (unsigned i = 0; i < n_nodes; i++)
                for (unsigned j = 0; j < n_nodes; j++) {
                        uint8_t d = numa_slit_distance(slit, pd_of_node, i, j);

                        if (numa_slit_distance(slit, pd_of_node, j, i) != d)
                                out->asymmetric = true;
                        if (i == j)
                                continue;
                        if (d == NUMA_UNREACHABLE) {
                                out->n_unreachable++;
                                continue;
                        }
                        if ((st = add_class(out, d)) != ST_OK)
                                return st;
                }
        for (unsigned i = 0; i < n_nodes; i++)
                for (unsigned j = 0; j < n_nodes; j++) {
                        uint8_t d = numa_slit_distance(slit, pd_of_node, i, j);
                        int     k = i == j ? 0 : class_index(out, d);

                        if (k < 0 || (i != j && d == NUMA_UNREACHABLE))
                                continue;
                        struct numa_class *cl = &out->cls[k];
                        cl->pair_i[cl->n_pairs] = (uint8_t)i;
                        cl->pair_j[cl->n_pairs] = (uint8_t)j;
                        cl->n_pairs++;
                }
        return ST_OK;
}

int numa_class_of(const struct numa_classes *c, unsigned i, unsigned j)
{
        if (!c || i >= c->n_nodes || j >= c->n_nodes)
                return -1;
        for (unsigned k = 0; k < c->n_classes; k++)
                for (unsigned p = 0; p < c->cls[k].n_pairs; p++)
                        if (c->cls[k].pair_i[p] == i && c->cls[k].pair_j[p] == j)
                                return (int)k;
        return -1;
}

/* |measured - ref| <= ref x pct / 100, exact for any 64-bit values: an HMAT entry times its
 * base unit can be near 2^64 ps, where diff x 100 and ref x pct would wrap. */
static bool within(uint64_t measured, uint64_t ref, unsigned pct)
{
        uint64_t diff = measured > ref ? measured - ref : ref - measured;

        return (unsigned __int128)diff * 100 <= (unsigned __int128)ref * pct;
}

static void check_hmat(struct numa_cell *cell, const struct acpi_hmat *hmat, uint32_t ipd,
                       uint32_t tpd, unsigned pct)
{
        static const enum acpi_hmat_data_type order[] = { ACPI_HMAT_ACCESS_LATENCY,
                                                          ACPI_HMAT_READ_LATENCY };
        struct acpi_hmat_entry e;

        for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
                if (acpi_hmat_find(hmat, order[k], ipd, tpd, &e) != ST_OK ||
                    e.state != ACPI_HMAT_VALUE || !e.value)
                        continue;
                cell->hmat_ps = e.value;
                cell->hmat    = within(cell->p50_ps, e.value, pct) ? NUMA_AGREE : NUMA_DISAGREE;
                return;
        }
}

void numa_matrix_check(struct numa_matrix *m, const struct acpi_slit *slit,
                       const struct acpi_hmat *hmat, const uint32_t *pd_of_node,
                       const struct numa_tolerance *tol)
{
        for (unsigned i = 0; i < m->n_nodes; i++) {
                const struct numa_cell *local = &m->cell[i][i];

                for (unsigned j = 0; j < m->n_nodes; j++) {
                        struct numa_cell *c = &m->cell[i][j];

                        uint8_t d = numa_slit_distance(slit, pd_of_node, i, j);

                        c->slit = c->hmat = NUMA_NOT_CHECKED;
                        c->slit_unreachable = slit && i != j && d == NUMA_UNREACHABLE;
                        if (!c->measured)
                                continue;
                        if (hmat)
                                check_hmat(c, hmat, pd_of_node ? pd_of_node[i] : i,
                                           pd_of_node ? pd_of_node[j] : j, tol->hmat_pct);
                        if (!slit || !local->measured || !local->p50_ps ||
                            d == NUMA_UNREACHABLE)
                                continue;
                        c->ratio_milli      = (uint32_t)(c->p50_ps * 1000 / local->p50_ps);
                        c->slit_ratio_milli = d * 1000u / SLIT_LOCAL;
                        c->slit = within(c->ratio_milli, c->slit_ratio_milli, tol->slit_pct)
                                          ? NUMA_AGREE
                                          : NUMA_DISAGREE;
                }
        }
}

void numa_class_latencies(const struct numa_matrix *m, const struct numa_classes *c,
                          struct numa_class_latency *out)
{
        uint64_t v[NUMA_MAX_NODES * NUMA_MAX_NODES];

        for (unsigned k = 0; k < c->n_classes; k++) {
                const struct numa_class *cl = &c->cls[k];
                size_t                   n  = 0;

                for (unsigned p = 0; p < cl->n_pairs; p++) {
                        const struct numa_cell *x = &m->cell[cl->pair_i[p]][cl->pair_j[p]];

                        if (cl->pair_i[p] < m->n_nodes && cl->pair_j[p] < m->n_nodes &&
                            x->measured)
                                v[n++] = x->p50_ps;
                }
                out[k] = (struct numa_class_latency){ .distance = cl->distance,
                                                      .n_cells  = (unsigned)n };
                if (!n)
                        continue;
                lib_sort_u64(v, n);
                out[k].min_ps = v[0];
                out[k].max_ps = v[n - 1];
                out[k].p50_ps = lib_pct_nearest_rank(v, n, 50);
        }
}
