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

struct fctx {
        const char     *name;
        char           *err;
        size_t          errlen;
        const char     *path;
        enum pmucal_err e;
        size_t         *n_unknown;
        char           *unknown_first;  /* 160 bytes */
        char            path_buf[64];
};

__attribute__((format(printf, 3, 4)))
static bool fail(struct fctx *c, enum pmucal_err e, const char *fmt, ...)
{
        va_list ap;

        if (c->e != PMUCAL_OK)
                return false;
        c->e = e;
        va_start(ap, fmt);
        pmucal__format_err(c->err, c->errlen, c->name, c->path, fmt, ap);
        va_end(ap);
        return false;
}

/* A number member, NAN when null or absent; false (and failed) for another type. */
static bool num_or_nan(struct fctx *c, json_t *o, const char *key, double *out)
{
        json_t *v = json_object_get(o, key);

        *out = NAN;
        if (!v || json_is_null(v))
                return true;
        if (!json_is_number(v))
                return fail(c, PMUCAL_E_SCHEMA, "%s: expected a number or null", key);
        *out = json_number_value(v);
        return true;
}

/* Enum member @p key: one of @p known, else PMUCAL_UNKNOWN, counted and the first named. */
static bool get_enum(struct fctx *c, json_t *o, const char *key, const char *const *known,
                     size_t n_known, char *dst, size_t cap)
{
        json_t     *v = json_object_get(o, key);
        const char *s;

        if (!json_is_string(v))
                return fail(c, PMUCAL_E_SCHEMA, "%s: expected a string", key);
        s = json_string_value(v);
        for (size_t q = 0; q < n_known; q++)
                if (!strcmp(s, known[q])) {
                        snprintf(dst, cap, "%s", s);
                        return true;
                }
        if (!(*c->n_unknown)++ &&
            snprintf(c->unknown_first, 160, "%s.%s: \"%s\"", c->path, key, s) >= 160)
                memcpy(c->unknown_first + 156, "...", 4); /* cut to fit, said so */
        if (dst)
                snprintf(dst, cap, "%s", PMUCAL_UNKNOWN);
        return true;
}

/* The schema string of @p root against "pmucal.@p kind/1". */
static bool version(struct fctx *c, json_t *root, const char *prefix, unsigned *major,
                    unsigned *minor)
{
        json_t         *s = json_is_object(root) ? json_object_get(root, "schema") : NULL;
        char            msg[256];
        enum pmucal_err e;

        if (!json_is_string(s))
                return fail(c, PMUCAL_E_KIND, "not a pmucal %s document (no schema string)", prefix);
        e = pmucal__schema_version(json_string_value(s), prefix, 1, minor, msg, sizeof(msg));
        if (e != PMUCAL_OK)
                return fail(c, e, "%s", msg);
        *major = 1;
        return true;
}

static bool method(struct fctx *c, json_t *root, bool *emulated, uint64_t *tsc_hz)
{
        json_t *m = json_object_get(root, "method"), *hz;

        c->path = "method";
        if (!json_is_object(m))
                return fail(c, PMUCAL_E_SCHEMA, "expected an object");
        hz        = json_object_get(m, "tsc_hz");
        *emulated = json_is_true(json_object_get(m, "emulated"));
        *tsc_hz   = json_is_integer(hz) && json_integer_value(hz) > 0 ?
                            (uint64_t)json_integer_value(hz) : 0;
        return true;
}

static bool c2c_doc(struct fctx *c, json_t *root, struct pmucal_c2c_file *f)
{
        static const char *const topo[] = { "smt", "same-module", "same-cluster", "same-l3",
                                            "other-l3", "same-package", "other-package" };
        static const char *const kind[] = { "hit", "hitm", "write", "atomic", "pingpong" };
        json_t                  *c2c, *a, *pairs;

        if (!version(c, root, "pmucal.c2c/", &f->major, &f->minor) ||
            !method(c, root, &f->emulated, &f->tsc_hz))
                return false;
        c->path = "c2c";
        c2c     = json_object_get(root, "c2c");
        if (!json_is_object(c2c) || !json_is_array(a = json_object_get(c2c, "classes")))
                return fail(c, PMUCAL_E_SCHEMA, "expected an object with a classes array");
        if (json_array_size(a) > MAX_CLASSES)
                return fail(c, PMUCAL_E_SCHEMA, "classes: more than %u", MAX_CLASSES);
        pairs      = json_object_get(c2c, "pairs");
        f->n_pairs = json_is_array(pairs) ? json_array_size(pairs) : 0;
        f->n_classes = json_array_size(a);
        if (f->n_classes && !(f->classes = calloc(f->n_classes, sizeof(*f->classes))))
                return fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t k = 0; k < f->n_classes; k++) {
                json_t                       *o = json_array_get(a, k), *np;
                struct pmucal_c2c_file_class *x = &f->classes[k];

                snprintf(c->path_buf, sizeof(c->path_buf), "c2c.classes[%zu]", k);
                c->path = c->path_buf;
                if (!json_is_object(o))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                np = json_object_get(o, "n_pairs");
                if (!json_is_integer(np) || json_integer_value(np) < 0 ||
                    json_integer_value(np) > (1 << 24))
                        return fail(c, PMUCAL_E_SCHEMA, "n_pairs: expected an integer 0..2^24");
                x->n_pairs = (unsigned)json_integer_value(np);
                if (!get_enum(c, o, "topology", topo, sizeof(topo) / sizeof(topo[0]),
                              x->topology, sizeof(x->topology)) ||
                    !get_enum(c, o, "kind", kind, sizeof(kind) / sizeof(kind[0]), x->kind,
                              sizeof(x->kind)) ||
                    !num_or_nan(c, o, "p50_tsc", &x->p50_tsc) ||
                    !num_or_nan(c, o, "min_tsc", &x->min_tsc) ||
                    !num_or_nan(c, o, "max_tsc", &x->max_tsc) ||
                    !num_or_nan(c, o, "p50_ns", &x->p50_ns))
                        return false;
        }
        return true;
}

static bool numa_doc(struct fctx *c, json_t *root, struct pmucal_numa_file *f)
{
        static const char *const loaded[] = { "node", "all nodes" };
        json_t                  *nodes, *mx, *ll;
        size_t                   n;

        if (!version(c, root, "pmucal.numa/", &f->major, &f->minor) ||
            !method(c, root, &f->emulated, &f->tsc_hz))
                return false;
        c->path = "nodes";
        nodes   = json_object_get(root, "nodes");
        mx      = json_object_get(root, "matrix");
        if (!json_is_array(nodes) || (n = json_array_size(nodes)) > MAX_NODES)
                return fail(c, PMUCAL_E_SCHEMA, "expected an array of at most %u nodes", MAX_NODES);
        c->path = "matrix";
        if (!json_is_array(mx) || json_array_size(mx) != n)
                return fail(c, PMUCAL_E_SCHEMA, "expected %zu rows, one per node", n);
        f->n_nodes = (unsigned)n;
        if (n && (!(f->node_pd = calloc(n, sizeof(*f->node_pd))) ||
                  !(f->p50_ns = calloc(n * n, sizeof(*f->p50_ns)))))
                return fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                json_t *nd = json_array_get(nodes, i), *pd = json_object_get(nd, "proximity_domain");
                json_t *row = json_array_get(mx, i);

                snprintf(c->path_buf, sizeof(c->path_buf), "nodes[%zu]", i);
                c->path = c->path_buf;
                if (!json_is_integer(pd) || json_integer_value(pd) < 0 ||
                    json_integer_value(pd) > UINT32_MAX)
                        return fail(c, PMUCAL_E_SCHEMA, "proximity_domain: expected an integer");
                f->node_pd[i] = (uint32_t)json_integer_value(pd);
                snprintf(c->path_buf, sizeof(c->path_buf), "matrix[%zu]", i);
                if (!json_is_array(row) || json_array_size(row) != n)
                        return fail(c, PMUCAL_E_SCHEMA, "expected %zu cells", n);
                for (size_t j = 0; j < n; j++) {
                        json_t *cell = json_array_get(row, j);

                        snprintf(c->path_buf, sizeof(c->path_buf), "matrix[%zu][%zu]", i, j);
                        if (!json_is_object(cell))
                                return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                        if (!num_or_nan(c, cell, "p50_ns", &f->p50_ns[i * n + j]))
                                return false;
                        if (!json_is_true(json_object_get(cell, "measured")))
                                f->p50_ns[i * n + j] = NAN;
                }
        }
        ll = json_object_get(root, "loaded_latency");
        for (size_t k = 0; json_is_array(ll) && k < json_array_size(ll); k++) {
                json_t *o = json_array_get(ll, k);
                char    l[16];
                size_t  before = f->n_unknown;

                snprintf(c->path_buf, sizeof(c->path_buf), "loaded_latency[%zu]", k);
                c->path = c->path_buf;
                if (!json_is_object(o))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                if (!get_enum(c, o, "loaded", loaded, 2, l, sizeof(l)))
                        return false;
                f->n_curves += f->n_unknown == before; /* a curve of an unknown kind: left out */
        }
        return true;
}

typedef bool (*doc_fn)(struct fctx *c, json_t *root, void *f);

static enum pmucal_err load_doc(const char *buf, size_t len, const char *name, void **out,
                                size_t size, doc_fn fn, void (*free_fn)(void *), char *err,
                                size_t errlen)
{
        struct fctx  c = { .name = name ? name : "(buffer)", .err = err, .errlen = errlen };
        json_error_t je;
        json_t      *root;
        void        *f;

        if (err && errlen)
                err[0] = '\0';
        if (!out || !buf)
                return PMUCAL_E_ARG;
        *out = NULL;
        if (!(root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je))) {
                fail(&c, PMUCAL_E_SYNTAX, "%d:%d: %s", je.line, je.column, je.text);
        } else if (!(f = calloc(1, size))) {
                c.e = PMUCAL_E_NOMEM;
        } else {
                if (!fn(&c, root, f)) {
                        free_fn(f);
                        f = NULL;
                }
                *out = f;
        }
        json_decref(root);
        if (c.e != PMUCAL_OK && err && errlen)
                pmucal__escape_msg(err, errlen);
        return c.e;
}

static bool c2c_fn(struct fctx *c, json_t *root, void *f)
{
        struct pmucal_c2c_file *x = f;

        c->n_unknown     = &x->n_unknown;
        c->unknown_first = x->unknown_first;
        return c2c_doc(c, root, x);
}

static bool numa_fn(struct fctx *c, json_t *root, void *f)
{
        struct pmucal_numa_file *x = f;

        c->n_unknown     = &x->n_unknown;
        c->unknown_first = x->unknown_first;
        return numa_doc(c, root, x);
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
        }
        free(n);
}

static void c2c_free(void *f)
{
        pmucal_c2c_file_free(f);
}

static void numa_free(void *f)
{
        pmucal_numa_file_free(f);
}

enum pmucal_err pmucal_c2c_file_load_buf(const char *buf, size_t len, const char *name,
                                         struct pmucal_c2c_file **out, char *err, size_t errlen)
{
        return load_doc(buf, len, name, (void **)out, sizeof(**out), c2c_fn, c2c_free, err,
                        errlen);
}

enum pmucal_err pmucal_numa_file_load_buf(const char *buf, size_t len, const char *name,
                                          struct pmucal_numa_file **out, char *err, size_t errlen)
{
        return load_doc(buf, len, name, (void **)out, sizeof(**out), numa_fn, numa_free, err,
                        errlen);
}

static enum pmucal_err c2c_buf(const char *buf, size_t len, const char *name, void *out,
                               char *err, size_t errlen)
{
        return pmucal_c2c_file_load_buf(buf, len, name, out, err, errlen);
}

static enum pmucal_err numa_buf(const char *buf, size_t len, const char *name, void *out,
                                char *err, size_t errlen)
{
        return pmucal_numa_file_load_buf(buf, len, name, out, err, errlen);
}

enum pmucal_err pmucal_c2c_file_load(const char *path, struct pmucal_c2c_file **out, char *err,
                                     size_t errlen)
{
        if (out)
                *out = NULL;
        return pmucal__load_path(path, out, c2c_buf, err, errlen);
}

enum pmucal_err pmucal_numa_file_load(const char *path, struct pmucal_numa_file **out, char *err,
                                      size_t errlen)
{
        if (out)
                *out = NULL;
        return pmucal__load_path(path, out, numa_buf, err, errlen);
}
