/** @file libpmucal, remote-memory and cache-to-cache part: the loader of the "numa",
 * "loaded_latency" and "c2c" members of a latency table (see include/pmucal/numa.h). Every
 * field used is checked for presence, type and range; a bad one is reported with its JSON
 * path. Host only: libc and jansson. The classifier is in libpmucal_numa_classify.c. */
#include "host/include/pmucal/numa.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/libpmucal_priv.h"

#define MAX_C2C_CPUS 4096u
#define MAX_C2C_CLASSES 1024 /* any topology x any kind a later minor may name */
/* The most of each section a file may hold (the fixed arrays of struct pmucal_numa keep the
 * first ones for 1.3 programs): far beyond any machine, bounded so that a hostile n_nodes
 * cannot ask for gigabytes. */
#define MAX_NODES        1024u
#define MAX_DRAM_LEVELS  256u
#define MAX_CURVES       1024u
#define MAX_POINTS       4096u

static unsigned min_u(size_t a, unsigned b)
{
        return a < b ? (unsigned)a : b;
}

static bool load_matrix(struct pmucal__ctx *c, json_t *numa, struct pmucal_numa *n)
{
        json_t  *m = pmucal__get(c, numa, "matrix", JSON_ARRAY, false);
        uint64_t v;
        unsigned k;

        if (!m || !pmucal__get_u64(c, numa, "n_nodes", false, MAX_NODES, &v))
                return false;
        if (v == 0 || json_array_size(m) != v)
                return pmucal__at(c, "numa.matrix"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu rows for %" PRIu64 " nodes",
                                    json_array_size(m), v);
        k              = (unsigned)v;
        n->n_nodes_all = k;
        n->n_nodes     = min_u(k, PMUCAL_NUMA_MAX_NODES);
        if (!(n->node_pd_all = calloc(k, sizeof(*n->node_pd_all))) ||
            !(n->p50_ns_all = calloc((size_t)k * k, sizeof(*n->p50_ns_all))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (unsigned i = 0; i < k; i++) {
                json_t *row = json_array_get(m, i);
                pmucal__at(c, "numa.matrix[%u]", i);
                if (!json_is_array(row) || json_array_size(row) != k)
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array of %u cells", k);
                for (unsigned j = 0; j < k; j++) {
                        json_t *cell = json_array_get(row, j), *mv;
                        double *d    = &n->p50_ns_all[(size_t)i * k + j];
                        pmucal__at(c, "numa.matrix[%u][%u]", i, j);
                        if (!pmucal__is_obj(c, cell))
                                return false;
                        if (!(mv = pmucal__get(c, cell, "measured", JSON_TRUE, false)) ||
                            (j == 0 && !pmucal__get_u64(c, cell, "cpu_node", false, UINT32_MAX, &v)))
                                return false;
                        if (j == 0)
                                n->node_pd_all[i] = (uint32_t)v;
                        *d = NAN;
                        if (json_is_true(mv) && !pmucal__get_num(c, cell, "p50_ns", false, d))
                                return false;
                        if (i < n->n_nodes && j < n->n_nodes)
                                n->p50_ns[i][j] = *d;
                }
                if (i < n->n_nodes)
                        n->node_pd[i] = n->node_pd_all[i];
        }
        return true;
}

static bool load_dram_levels(struct pmucal__ctx *c, json_t *numa, struct pmucal_numa *n)
{
        json_t  *a = pmucal__get(c, numa, "dram_levels", JSON_ARRAY, false), *p, *u;
        uint64_t v;

        if (!a)
                return false;
        if (json_array_size(a) > MAX_DRAM_LEVELS)
                return pmucal__at(c, "numa.dram_levels"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "more than %u", MAX_DRAM_LEVELS);
        n->n_dram_all = json_array_size(a);
        n->n_dram     = min_u(n->n_dram_all, PMUCAL_NUMA_MAX_LEVELS);
        if (!(n->dram_all = calloc(n->n_dram_all + 1, sizeof(*n->dram_all))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t k = 0; k < n->n_dram_all; k++) {
                json_t                   *o = json_array_get(a, k);
                struct pmucal_dram_level *d = &n->dram_all[k];

                pmucal__at(c, "numa.dram_levels[%zu]", k);
                if (!pmucal__is_obj(c, o))
                        return false;
                if (!pmucal__get_str_buf(c, o, "name", d->name, sizeof(d->name)) ||
                    !pmucal__get_u64(c, o, "class", false, 255, &v))
                        return false;
                d->cls = (unsigned)v;
                if (!pmucal__get_u64(c, o, "slit_distance", false, 255, &v))
                        return false;
                d->slit_distance = (unsigned)v;
                if (!pmucal__get_u64(c, o, "n_cells", false, 1u << 20, &v))
                        return false;
                d->n_cells = (unsigned)v;
                if (!pmucal__get_stat_opt(c, o, "ns", &d->ns, &d->measured) ||
                    !(u = pmucal__get(c, o, "upper_ns", JSON_REAL, true)) ||
                    !(p = pmucal__get(c, o, "pairs", JSON_ARRAY, false)))
                        return false;
                if (strncmp(d->name, "DRAM-", 5))
                        return pmucal__push_key(c, "name"),
                               pmucal__fail(c, PMUCAL_E_SCHEMA, "\"%s\" is not DRAM-...", d->name);
                if (d->measured != (d->n_cells > 0))
                        return pmucal__push_key(c, "ns"),
                               pmucal__fail(c, PMUCAL_E_SCHEMA, "null exactly when n_cells is 0");
                d->has_upper = !json_is_null(u);
                d->upper_ns  = d->has_upper ? json_number_value(u) : 0;
                if (d->has_upper && (!isfinite(d->upper_ns) || d->upper_ns < d->ns.p50))
                        return pmucal__push_key(c, "upper_ns"),
                               pmucal__fail(c, PMUCAL_E_SCHEMA, "%g is below the level's p50 (%g)",
                                            d->upper_ns, d->ns.p50);
                d->n_pairs = json_array_size(p);
                if (k < n->n_dram)
                        n->dram[k] = *d;
        }
        return true;
}

static bool load_point(struct pmucal__ctx *c, json_t *o, struct pmucal_loaded_point *p)
{
        json_t *m, *d;

        if (!pmucal__is_obj(c, o))
                return false;
        if (!(m = pmucal__get(c, o, "measured", JSON_TRUE, false)) ||
            !(d = pmucal__get(c, o, "delay", JSON_INTEGER, true)))
                return false;
        p->measured = json_is_true(m);
        p->idle     = json_is_null(d);
        if (!p->measured)
                return true;
        return pmucal__get_num(c, o, "bandwidth_gb_s", false, &p->gb_s) &&
               pmucal__get_num(c, o, "p10_ns", false, &p->p10_ns) &&
               pmucal__get_num(c, o, "p50_ns", false, &p->p50_ns) &&
               pmucal__get_num(c, o, "p90_ns", false, &p->p90_ns);
}

/* L of the fit ranges: the largest p90 under load over the curve's idle p50. */
static void set_load_factor(struct pmucal_numa *n)
{
        n->load_factor = 1;
        for (size_t i = 0; i < n->n_curves_all; i++) {
                const struct pmucal_curve *cv   = &n->curves_all[i];
                double                     idle = 0;
                for (size_t k = 0; k < cv->n_points; k++)
                        if (cv->pt[k].idle && cv->pt[k].measured)
                                idle = cv->pt[k].p50_ns;
                for (size_t k = 0; idle > 0 && k < cv->n_points; k++)
                        if (!cv->pt[k].idle && cv->pt[k].measured &&
                            cv->pt[k].p90_ns / idle > n->load_factor)
                                n->load_factor = cv->pt[k].p90_ns / idle;
        }
}

/* The first curves of @p n, up to PMUCAL_LOADED_MAX_POINTS points each, into its fixed
 * curve[] (what a 1.3 program reads). */
static void fill_fixed_curves(struct pmucal_numa *n)
{
        n->n_curves = min_u(n->n_curves_all, PMUCAL_LOADED_MAX_CURVES);
        for (size_t i = 0; i < n->n_curves; i++) {
                const struct pmucal_curve  *a = &n->curves_all[i];
                struct pmucal_loaded_curve *f = &n->curve[i];

                f->all_nodes = a->all_nodes;
                f->node      = a->node;
                f->n_points  = min_u(a->n_points, PMUCAL_LOADED_MAX_POINTS);
                memcpy(f->pt, a->pt, f->n_points * sizeof(f->pt[0]));
        }
}

static bool load_loaded(struct pmucal__ctx *c, json_t *a, struct pmucal_numa *n)
{
        size_t                   n_points = 0, next = 0;

        pmucal__at(c, "loaded_latency");
        if (!json_is_array(a) || json_array_size(a) > MAX_CURVES)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array of at most %u curves",
                                    MAX_CURVES);
        for (size_t i = 0; i < json_array_size(a); i++) {
                json_t *pts = json_object_get(json_array_get(a, i), "points");
                n_points += json_is_array(pts) ? json_array_size(pts) : 0;
        }
        if (!(n->curves_all = calloc(json_array_size(a) + 1, sizeof(*n->curves_all))) ||
            !(n->points_all = calloc(n_points + 1, sizeof(*n->points_all))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < json_array_size(a); i++) {
                json_t                     *o = json_array_get(a, i), *pts, *node;
                struct pmucal_curve        *cv = &n->curves_all[n->n_curves_all];
                struct pmucal_loaded_point *pt = &n->points_all[next];
                int                         ld;

                pmucal__at(c, "loaded_latency[%zu]", i);
                if (!pmucal__is_obj(c, o))
                        return false;
                if ((ld = pmucal__get_enum(c, o, "loaded", pmucal_rule_loaded, PMUCAL_RULE_N_LOADED, "")) < 0 ||
                    !(node = pmucal__get(c, o, "node", JSON_INTEGER, true)) ||
                    !(pts = pmucal__get(c, o, "points", JSON_ARRAY, false)))
                        return false;
                if (ld == PMUCAL_RULE_N_LOADED)
                        continue; /* loaded in a way this reader cannot weigh: left out */
                cv->all_nodes = !strcmp(pmucal_rule_loaded[ld], "all nodes");
                cv->node = json_is_integer(node) ? (unsigned)json_integer_value(node) : 0;
                if (json_array_size(pts) > MAX_POINTS)
                        return pmucal__push_key(c, "points"),
                               pmucal__fail(c, PMUCAL_E_SCHEMA, "more than %u", MAX_POINTS);
                cv->n_points = json_array_size(pts);
                cv->pt       = pt;
                for (size_t k = 0; k < cv->n_points; k++) {
                        pmucal__at(c, "loaded_latency[%zu].points[%zu]", i, k);
                        if (!load_point(c, json_array_get(pts, k), &pt[k]))
                                return false;
                }
                next += cv->n_points;
                n->n_curves_all++;
        }
        fill_fixed_curves(n);
        set_load_factor(n);
        return true;
}

static bool load_c2c_classes(struct pmucal__ctx *c, json_t *c2c, struct pmucal_numa *n)
{
        json_t  *a = pmucal__get(c, c2c, "classes", JSON_ARRAY, false);
        uint64_t v;

        if (!a)
                return false;
        if (json_array_size(a) > MAX_C2C_CLASSES)
                return pmucal__at(c, "c2c.classes"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "more than %d", MAX_C2C_CLASSES);
        n->n_c2c_all = json_array_size(a);
        if (n->n_c2c_all && !(n->c2c_all = calloc(n->n_c2c_all, sizeof(*n->c2c_all))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t k = 0; k < n->n_c2c_all; k++) {
                json_t                  *o = json_array_get(a, k);
                struct pmucal_c2c_class *x = &n->c2c_all[k];

                pmucal__at(c, "c2c.classes[%zu]", k);
                if (!pmucal__is_obj(c, o) ||
                    !pmucal__get_name(c, o, "topology", pmucal_rule_c2c_topology, PMUCAL_RULE_N_C2C_TOPOLOGY,
                              x->topology, sizeof(x->topology)) ||
                    !pmucal__get_name(c, o, "kind", pmucal_rule_c2c_kind, PMUCAL_RULE_N_C2C_KIND, x->kind,
                              sizeof(x->kind)) ||
                    !pmucal__get_u64(c, o, "n_pairs", false, 1u << 24, &v) ||
                    !pmucal__get_stat(c, o, "tsc", &x->tsc) ||
                    !pmucal__get_stat_opt(c, o, "ns", &x->ns, &x->has_ns))
                        return false;
                x->n_pairs = (unsigned)v;
        }
        n->n_c2c = n->n_c2c_all < PMUCAL_C2C_MAX_CLASSES ? n->n_c2c_all : PMUCAL_C2C_MAX_CLASSES;
        memcpy(n->c2c, n->c2c_all, n->n_c2c * sizeof(n->c2c[0]));
        return true;
}

unsigned pmucal_numa_node_count(const struct pmucal_numa *n)
{
        return n && n->has_numa ? n->n_nodes_all : 0;
}

uint32_t pmucal_numa_node_pd(const struct pmucal_numa *n, unsigned i)
{
        return i < pmucal_numa_node_count(n) ? n->node_pd_all[i] : UINT32_MAX;
}

double pmucal_numa_matrix_ns(const struct pmucal_numa *n, unsigned from, unsigned to)
{
        unsigned k = pmucal_numa_node_count(n);

        return from < k && to < k ? n->p50_ns_all[(size_t)from * k + to] : NAN;
}

size_t pmucal_numa_dram_count(const struct pmucal_numa *n)
{
        return n && n->has_numa ? n->n_dram_all : 0;
}

const struct pmucal_dram_level *pmucal_numa_dram_level(const struct pmucal_numa *n, size_t i)
{
        return i < pmucal_numa_dram_count(n) ? &n->dram_all[i] : NULL;
}

size_t pmucal_numa_curve_count(const struct pmucal_numa *n)
{
        return n ? n->n_curves_all : 0;
}

const struct pmucal_curve *pmucal_numa_curve(const struct pmucal_numa *n, size_t i)
{
        return i < pmucal_numa_curve_count(n) ? &n->curves_all[i] : NULL;
}

size_t pmucal_numa_c2c_count(const struct pmucal_numa *n)
{
        return n ? n->n_c2c_all : 0;
}

const struct pmucal_c2c_class *pmucal_numa_c2c_class(const struct pmucal_numa *n, size_t i)
{
        return n && i < n->n_c2c_all ? &n->c2c_all[i] : NULL;
}

static bool load_c2c_matrix(struct pmucal__ctx *c, json_t *c2c, struct pmucal_numa *n)
{
        json_t *cpus = pmucal__get(c, c2c, "cpus", JSON_ARRAY, false), *mx, *hitm;
        size_t  m;
        uint64_t v;
        /* the unit-named member (latency table 1.6 on), else the 1.x name of older tables */
        const char *key = json_object_get(c2c, "matrix_p50_tsc_ticks") ? "matrix_p50_tsc_ticks"
                                                                       : "matrix_p50_tsc";

        if (!cpus || !(mx = pmucal__get(c, c2c, key, JSON_OBJECT, false)))
                return false;
        pmucal__at(c, "c2c.%s", key);
        if (!(hitm = pmucal__get(c, mx, "hitm", JSON_ARRAY, false)))
                return false;
        if ((m = json_array_size(cpus)) > MAX_C2C_CPUS || json_array_size(hitm) != m)
                return pmucal__push_key(c, "hitm"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu rows for %zu cpus",
                                    json_array_size(hitm), m);
        n->n_c2c_cpus   = m;
        n->c2c_apic     = calloc(m ? m : 1, sizeof(*n->c2c_apic));
        n->c2c_hitm_tsc = calloc(m ? m * m : 1, sizeof(*n->c2c_hitm_tsc));
        if (!n->c2c_apic || !n->c2c_hitm_tsc)
                return pmucal__fail(c, PMUCAL_E_NOMEM, "%zu cpus", m);
        for (size_t i = 0; i < m; i++) {
                json_t *row = json_array_get(hitm, i);
                pmucal__at(c, "c2c.cpus[%zu]", i);
                if (!pmucal__is_obj(c, json_array_get(cpus, i)) ||
                    !pmucal__get_u64(c, json_array_get(cpus, i), "apic_id", false, UINT32_MAX, &v))
                        return false;
                n->c2c_apic[i] = (uint32_t)v;
                pmucal__at(c, "c2c.%s.hitm[%zu]", key, i);
                if (!json_is_array(row) || json_array_size(row) != m)
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array of %zu", m);
                for (size_t j = 0; j < m; j++) {
                        json_t *x = json_array_get(row, j);
                        if (!json_is_null(x) && (!json_is_number(x) || json_number_value(x) < 0))
                                return pmucal__push_idx(c, j),
                                       pmucal__fail(c, PMUCAL_E_SCHEMA, "a number or null");
                        n->c2c_hitm_tsc[i * m + j] = json_is_null(x) ? NAN : json_number_value(x);
                }
        }
        return true;
}

static bool load_c2c(struct pmucal__ctx *c, json_t *c2c, struct pmucal_numa *n)
{
        json_t *meth, *hz;

        pmucal__at(c, "c2c");
        if (!pmucal__is_obj(c, c2c) || !(meth = pmucal__get_obj(c, c2c, "method", false)))
                return false;
        pmucal__at(c, "c2c.method");
        if (!(hz = pmucal__get(c, meth, "tsc_hz", JSON_INTEGER, true)) ||
            !pmucal__get_bool(c, meth, "emulated", &n->c2c_emulated))
                return false;
        n->c2c_tsc_hz   = json_is_integer(hz) && json_integer_value(hz) > 0 ?
                                  (uint64_t)json_integer_value(hz) : 0;
        pmucal__at(c, "c2c");
        n->has_c2c = load_c2c_classes(c, c2c, n) &&
                     (pmucal__at(c, "c2c"), load_c2c_matrix(c, c2c, n));
        return n->has_c2c;
}

static bool load_numa(struct pmucal__ctx *c, json_t *numa, struct pmucal_numa *n)
{
        json_t *meth;

        pmucal__at(c, "numa");
        if (!pmucal__is_obj(c, numa) || !(meth = pmucal__get_obj(c, numa, "method", false)))
                return false;
        pmucal__at(c, "numa.method");
        if (!pmucal__get_bool(c, meth, "emulated", &n->emulated))
                return false;
        pmucal__at(c, "numa");
        n->has_numa = load_matrix(c, numa, n) &&
                      (pmucal__at(c, "numa"), load_dram_levels(c, numa, n));
        return n->has_numa;
}

static bool load_sections(struct pmucal__ctx *c, json_t *root, struct pmucal_numa *n)
{
        json_t         *s = json_object_get(root, "schema"), *v;
        char            msg[256];
        enum pmucal_err e;

        n->load_factor = 1;
        if (!json_is_object(root) || !json_is_string(s))
                return pmucal__fail(c, PMUCAL_E_KIND, "not a pmucal latency table (no schema string)");
        e = pmucal__schema_version(json_string_value(s), PMUCAL_TABLE_SCHEMA_PREFIX,
                                   PMUCAL_TABLE_MAJOR, &n->minor, msg, sizeof(msg));
        if (e != PMUCAL_OK)
                return pmucal__fail(c, e, "%s", msg);
        n->major = PMUCAL_TABLE_MAJOR;
        if ((v = json_object_get(root, "numa")) && !load_numa(c, v, n))
                return false;
        if ((v = json_object_get(root, "loaded_latency")) && !load_loaded(c, v, n))
                return false;
        if ((v = json_object_get(root, "c2c")) && !load_c2c(c, v, n))
                return false;
        return true;
}

void pmucal_numa_free(struct pmucal_numa *n)
{
        if (!n)
                return;
        free(n->c2c_apic);
        free(n->c2c_hitm_tsc);
        free(n->c2c_all);
        free(n->node_pd_all);
        free(n->p50_ns_all);
        free(n->dram_all);
        free(n->curves_all);
        free(n->points_all);
        free(n);
}

static bool fill_doc(struct pmucal__ctx *c, json_t *root, void *doc)
{
        return load_sections(c, root, doc);
}

static void free_doc(void *doc)
{
        pmucal_numa_free(doc);
}

static const struct pmucal__doc numa_doc = {
        .size          = sizeof(struct pmucal_numa),
        .pool          = PMUCAL__NONE,
        .n_unknown     = offsetof(struct pmucal_numa, n_unknown),
        .unknown_first = offsetof(struct pmucal_numa, unknown_first),
        .fill          = fill_doc,
        .free          = free_doc,
};

enum pmucal_err pmucal_numa_load_buf(const char *buf, size_t len, const char *name,
                                     struct pmucal_numa **out, char *err, size_t errlen)
{
        return pmucal__load_doc(&numa_doc, buf, len, name, out, err, errlen);
}

enum pmucal_err pmucal_numa_load(const char *path, struct pmucal_numa **out, char *err,
                                 size_t errlen)
{
        return pmucal__load_doc_path(&numa_doc, path, out, err, errlen);
}
