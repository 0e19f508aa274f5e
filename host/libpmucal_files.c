/** @file libpmucal: c2c.json and numa-matrix.json (host/include/pmucal/files.h). */
#include "host/include/pmucal/files.h"
#include "host/libpmucal_priv.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CLASSES 1024u
#define MAX_NODES   1024u

/* A number member, NAN when null or absent; false (and failed) for another type. Figures of
 * these files may be any finite number (a pair's gap is not a latency). */
static bool num_or_nan(struct pmucal__ctx *c, json_t *o, const char *key, double *out)
{
        json_t *v = json_object_get(o, key);

        *out = NAN;
        if (!v || json_is_null(v))
                return true;
        if (!pmucal__get(c, o, key, JSON_REAL, true))
                return false;
        *out = json_number_value(v);
        return true;
}

/* A TSC figure @p fig: its unit-named member (fig_tsc_ticks, since c2c 1.3) where the file has
 * it, else the 1.x name (fig_tsc) of older files; same value, same rules as num_or_nan(). */
static bool tsc_or_nan(struct pmucal__ctx *c, json_t *o, const char *fig, double *out)
{
        char k[32];

        snprintf(k, sizeof(k), "%s_tsc_ticks", fig);
        if (!json_object_get(o, k))
                snprintf(k, sizeof(k), "%s_tsc", fig);
        return num_or_nan(c, o, k, out);
}

/* The schema string of @p root against "pmucal.@p kind/1". */
static bool version(struct pmucal__ctx *c, json_t *root, const char *prefix, unsigned *major,
                    unsigned *minor)
{
        json_t         *s = json_is_object(root) ? json_object_get(root, "schema") : NULL;
        char            msg[256];
        enum pmucal_err e;

        if (!json_is_string(s))
                return pmucal__fail(c, PMUCAL_E_KIND, "not a pmucal %s document (no schema string)",
                                    prefix);
        e = pmucal__schema_version(json_string_value(s), prefix, 1, minor, msg, sizeof(msg));
        if (e != PMUCAL_OK)
                return pmucal__fail(c, e, "%s", msg);
        *major = 1;
        return true;
}

static bool method(struct pmucal__ctx *c, json_t *root, bool *emulated, uint64_t *tsc_hz)
{
        json_t *m = pmucal__get_obj(c, root, "method", false), *hz;

        if (!m)
                return false;
        hz        = json_object_get(m, "tsc_hz");
        *emulated = json_is_true(json_object_get(m, "emulated"));
        *tsc_hz   = json_is_integer(hz) && json_integer_value(hz) > 0 ?
                            (uint64_t)json_integer_value(hz) : 0;
        return true;
}

static bool c2c_doc(struct pmucal__ctx *c, json_t *root, struct pmucal_c2c_file *f)
{
        json_t                  *c2c, *a, *pairs;

        if (!version(c, root, "pmucal.c2c/", &f->major, &f->minor) ||
            !method(c, root, &f->emulated, &f->tsc_hz))
                return false;
        if (!(c2c = pmucal__get_obj(c, root, "c2c", false)))
                return false;
        pmucal__at(c, "c2c");
        if (!(a = pmucal__get(c, c2c, "classes", JSON_ARRAY, false)))
                return false;
        if (json_array_size(a) > MAX_CLASSES)
                return pmucal__at(c, "c2c.classes"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "more than %u", MAX_CLASSES);
        pairs      = json_object_get(c2c, "pairs");
        f->n_pairs = json_is_array(pairs) ? json_array_size(pairs) : 0;
        f->n_classes = json_array_size(a);
        if (f->n_classes && !(f->classes = calloc(f->n_classes, sizeof(*f->classes))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t k = 0; k < f->n_classes; k++) {
                json_t                       *o = json_array_get(a, k);
                struct pmucal_c2c_file_class *x = &f->classes[k];
                uint64_t                      np;

                pmucal__at(c, "c2c.classes[%zu]", k);
                if (!pmucal__is_obj(c, o) ||
                    !pmucal__get_u64(c, o, "n_pairs", false, 1u << 24, &np))
                        return false;
                x->n_pairs = (unsigned)np;
                if (!pmucal__get_name(c, o, "topology", pmucal_rule_c2c_topology, PMUCAL_RULE_N_C2C_TOPOLOGY,
                              x->topology, sizeof(x->topology)) ||
                    !pmucal__get_name(c, o, "kind", pmucal_rule_c2c_file_kind, PMUCAL_RULE_N_C2C_FILE_KIND, x->kind,
                              sizeof(x->kind)) ||
                    !tsc_or_nan(c, o, "p50", &x->p50_tsc) ||
                    !tsc_or_nan(c, o, "min", &x->min_tsc) ||
                    !tsc_or_nan(c, o, "max", &x->max_tsc) ||
                    !num_or_nan(c, o, "p50_ns", &x->p50_ns))
                        return false;
        }
        return true;
}

static bool numa_doc(struct pmucal__ctx *c, json_t *root, struct pmucal_numa_file *f)
{
        json_t                  *nodes, *mx, *ll;
        size_t                   n;

        if (!version(c, root, "pmucal.numa/", &f->major, &f->minor) ||
            !method(c, root, &f->emulated, &f->tsc_hz))
                return false;
        if (!(nodes = pmucal__get(c, root, "nodes", JSON_ARRAY, false)) ||
            !(mx = pmucal__get(c, root, "matrix", JSON_ARRAY, false)))
                return false;
        if ((n = json_array_size(nodes)) > MAX_NODES)
                return pmucal__at(c, "nodes"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "more than %u nodes", MAX_NODES);
        if (json_array_size(mx) != n)
                return pmucal__at(c, "matrix"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu rows for %zu nodes",
                                    json_array_size(mx), n);
        f->n_nodes = (unsigned)n;
        if (n && (!(f->node_pd = calloc(n, sizeof(*f->node_pd))) ||
                  !(f->p50_ns = calloc(n * n, sizeof(*f->p50_ns))) ||
                  !(f->p10_ns = calloc(n * n, sizeof(*f->p10_ns))) ||
                  !(f->p90_ns = calloc(n * n, sizeof(*f->p90_ns)))))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                json_t  *nd = json_array_get(nodes, i), *row = json_array_get(mx, i);
                uint64_t pd;

                pmucal__at(c, "nodes[%zu]", i);
                if (!pmucal__is_obj(c, nd) ||
                    !pmucal__get_u64(c, nd, "proximity_domain", false, UINT32_MAX, &pd))
                        return false;
                f->node_pd[i] = (uint32_t)pd;
                pmucal__at(c, "matrix[%zu]", i);
                if (!json_is_array(row) || json_array_size(row) != n)
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "expected an array of %zu cells", n);
                for (size_t j = 0; j < n; j++) {
                        json_t *cell = json_array_get(row, j);

                        pmucal__at(c, "matrix[%zu][%zu]", i, j);
                        if (!pmucal__is_obj(c, cell))
                                return false;
                        if (!num_or_nan(c, cell, "p50_ns", &f->p50_ns[i * n + j]) ||
                            !num_or_nan(c, cell, "p10_ns", &f->p10_ns[i * n + j]) ||
                            !num_or_nan(c, cell, "p90_ns", &f->p90_ns[i * n + j]))
                                return false;
                        if (!json_is_true(json_object_get(cell, "measured")))
                                f->p50_ns[i * n + j] = f->p10_ns[i * n + j] =
                                        f->p90_ns[i * n + j] = NAN;
                }
        }
        ll = json_object_get(root, "loaded_latency");
        for (size_t k = 0; json_is_array(ll) && k < json_array_size(ll); k++) {
                json_t *o = json_array_get(ll, k);
                char    l[16];
                size_t  before = f->n_unknown;

                pmucal__at(c, "loaded_latency[%zu]", k);
                if (!pmucal__is_obj(c, o) || !pmucal__get_name(c, o, "loaded", pmucal_rule_loaded, PMUCAL_RULE_N_LOADED, l, sizeof(l)))
                        return false;
                f->n_curves += f->n_unknown == before; /* a curve of an unknown kind: left out */
        }
        return true;
}

void pmucal_c2c_file_free(struct pmucal_c2c_file *c)
{
        if (c)
                free(c->classes);
        free(c);
}

void pmucal_numa_file_free(struct pmucal_numa_file *n)
{
        if (n) {
                free(n->node_pd);
                free(n->p50_ns);
                free(n->p10_ns);
                free(n->p90_ns);
        }
        free(n);
}

static bool c2c_fill(struct pmucal__ctx *c, json_t *root, void *doc)
{
        return c2c_doc(c, root, doc);
}

static void c2c_free(void *doc)
{
        pmucal_c2c_file_free(doc);
}

static bool numa_fill(struct pmucal__ctx *c, json_t *root, void *doc)
{
        return numa_doc(c, root, doc);
}

static void numa_free(void *doc)
{
        pmucal_numa_file_free(doc);
}

static const struct pmucal__doc c2c_kind = {
        .size          = sizeof(struct pmucal_c2c_file),
        .pool          = PMUCAL__NONE,
        .n_unknown     = offsetof(struct pmucal_c2c_file, n_unknown),
        .unknown_first = offsetof(struct pmucal_c2c_file, unknown_first),
        .fill          = c2c_fill,
        .free          = c2c_free,
};

static const struct pmucal__doc numa_kind = {
        .size          = sizeof(struct pmucal_numa_file),
        .pool          = PMUCAL__NONE,
        .n_unknown     = offsetof(struct pmucal_numa_file, n_unknown),
        .unknown_first = offsetof(struct pmucal_numa_file, unknown_first),
        .fill          = numa_fill,
        .free          = numa_free,
};

enum pmucal_err pmucal_c2c_file_load_buf(const char *buf, size_t len, const char *name,
                                         struct pmucal_c2c_file **out, char *err, size_t errlen)
{
        return pmucal__load_doc(&c2c_kind, buf, len, name, out, err, errlen);
}

enum pmucal_err pmucal_numa_file_load_buf(const char *buf, size_t len, const char *name,
                                          struct pmucal_numa_file **out, char *err, size_t errlen)
{
        return pmucal__load_doc(&numa_kind, buf, len, name, out, err, errlen);
}

enum pmucal_err pmucal_c2c_file_load(const char *path, struct pmucal_c2c_file **out, char *err,
                                     size_t errlen)
{
        return pmucal__load_doc_path(&c2c_kind, path, out, err, errlen);
}

enum pmucal_err pmucal_numa_file_load(const char *path, struct pmucal_numa_file **out, char *err,
                                      size_t errlen)
{
        return pmucal__load_doc_path(&numa_kind, path, out, err, errlen);
}
