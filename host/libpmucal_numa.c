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

struct nctx {
        const char     *name;
        char           *err;
        size_t          errlen;
        char            path[160];
        enum pmucal_err e;
};

__attribute__((format(printf, 3, 4)))
static bool fail(struct nctx *c, enum pmucal_err e, const char *fmt, ...)
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

static void at(struct nctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void at(struct nctx *c, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(c->path, sizeof(c->path), fmt, ap);
        va_end(ap);
}

static json_t *get(struct nctx *c, json_t *o, const char *key, json_type type, bool nullable)
{
        json_t *v = json_object_get(o, key);

        if (!v)
                return fail(c, PMUCAL_E_SCHEMA, "%s: missing", key), NULL;
        if (nullable && json_is_null(v))
                return v;
        if (json_typeof(v) != type && !(type == JSON_REAL && json_is_integer(v)) &&
            !(type == JSON_TRUE && json_is_boolean(v)))
                return fail(c, PMUCAL_E_SCHEMA, "%s: wrong type", key), NULL;
        return v;
}

static bool get_num(struct nctx *c, json_t *o, const char *key, double *out)
{
        json_t *v = get(c, o, key, JSON_REAL, false);

        if (!v)
                return false;
        *out = json_number_value(v);
        if (!isfinite(*out) || *out < 0 || *out > 1e12)
                return fail(c, PMUCAL_E_SCHEMA, "%s: %g out of range 0..1e12", key, *out);
        return true;
}

static bool get_uint(struct nctx *c, json_t *o, const char *key, uint64_t max, uint64_t *out)
{
        json_t *v = get(c, o, key, JSON_INTEGER, false);

        if (!v)
                return false;
        if (json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
                return fail(c, PMUCAL_E_SCHEMA, "%s: out of range 0..%" PRIu64, key, max);
        *out = (uint64_t)json_integer_value(v);
        return true;
}

static bool get_str(struct nctx *c, json_t *o, const char *key, char *dst, size_t cap)
{
        json_t *v = get(c, o, key, JSON_STRING, false);

        if (!v)
                return false;
        if (json_string_length(v) >= cap || strlen(json_string_value(v)) != json_string_length(v))
                return fail(c, PMUCAL_E_SCHEMA, "%s: string too long (max %zu bytes)", key, cap - 1);
        memcpy(dst, json_string_value(v), json_string_length(v) + 1);
        return true;
}

/* {min, p10, p50, p90}, ascending; *has = false for null when @p has is given. */
static bool get_stat(struct nctx *c, json_t *o, const char *key, struct pmucal_stat *s, bool *has)
{
        json_t *v = get(c, o, key, JSON_OBJECT, has != NULL);

        if (has)
                *has = v && !json_is_null(v);
        if (!v || json_is_null(v))
                return v != NULL;
        if (!get_num(c, v, "min", &s->min) || !get_num(c, v, "p10", &s->p10) ||
            !get_num(c, v, "p50", &s->p50) || !get_num(c, v, "p90", &s->p90))
                return false;
        if (!(s->min <= s->p10 && s->p10 <= s->p50 && s->p50 <= s->p90))
                return fail(c, PMUCAL_E_SCHEMA, "%s: min <= p10 <= p50 <= p90 expected", key);
        return true;
}

static bool load_matrix(struct nctx *c, json_t *numa, struct pmucal_numa *n)
{
        json_t  *m = get(c, numa, "matrix", JSON_ARRAY, false);
        uint64_t v;

        if (!m || !get_uint(c, numa, "n_nodes", PMUCAL_NUMA_MAX_NODES, &v))
                return false;
        if (v == 0 || json_array_size(m) != v)
                return fail(c, PMUCAL_E_SCHEMA, "matrix: %zu rows for %" PRIu64 " nodes",
                            json_array_size(m), v);
        n->n_nodes = (unsigned)v;
        for (unsigned i = 0; i < n->n_nodes; i++) {
                json_t *row = json_array_get(m, i);
                at(c, "numa.matrix[%u]", i);
                if (!json_is_array(row) || json_array_size(row) != n->n_nodes)
                        return fail(c, PMUCAL_E_SCHEMA, "expected an array of %u cells", n->n_nodes);
                for (unsigned j = 0; j < n->n_nodes; j++) {
                        json_t *cell = json_array_get(row, j), *mv;
                        at(c, "numa.matrix[%u][%u]", i, j);
                        if (!json_is_object(cell))
                                return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                        if (!(mv = get(c, cell, "measured", JSON_TRUE, false)) ||
                            (j == 0 && !get_uint(c, cell, "cpu_node", UINT32_MAX, &v)))
                                return false;
                        if (j == 0)
                                n->node_pd[i] = (uint32_t)v;
                        n->p50_ns[i][j] = NAN;
                        if (json_is_true(mv) && !get_num(c, cell, "p50_ns", &n->p50_ns[i][j]))
                                return false;
                }
        }
        return true;
}

static bool load_dram_levels(struct nctx *c, json_t *numa, struct pmucal_numa *n)
{
        json_t  *a = get(c, numa, "dram_levels", JSON_ARRAY, false), *p, *u;
        uint64_t v;

        if (!a)
                return false;
        if (json_array_size(a) > PMUCAL_NUMA_MAX_LEVELS)
                return fail(c, PMUCAL_E_SCHEMA, "dram_levels: more than %d", PMUCAL_NUMA_MAX_LEVELS);
        n->n_dram = json_array_size(a);
        for (size_t k = 0; k < n->n_dram; k++) {
                json_t                   *o = json_array_get(a, k);
                struct pmucal_dram_level *d = &n->dram[k];

                at(c, "numa.dram_levels[%zu]", k);
                if (!json_is_object(o))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                if (!get_str(c, o, "name", d->name, sizeof(d->name)) ||
                    !get_uint(c, o, "class", 255, &v))
                        return false;
                d->cls = (unsigned)v;
                if (!get_uint(c, o, "slit_distance", 255, &v))
                        return false;
                d->slit_distance = (unsigned)v;
                if (!get_uint(c, o, "n_cells", 1u << 20, &v))
                        return false;
                d->n_cells = (unsigned)v;
                if (!get_stat(c, o, "ns", &d->ns, &d->measured) ||
                    !(u = get(c, o, "upper_ns", JSON_REAL, true)) ||
                    !(p = get(c, o, "pairs", JSON_ARRAY, false)))
                        return false;
                if (strncmp(d->name, "DRAM-", 5))
                        return fail(c, PMUCAL_E_SCHEMA, "name: \"%s\" is not DRAM-...", d->name);
                if (d->measured != (d->n_cells > 0))
                        return fail(c, PMUCAL_E_SCHEMA, "ns: null exactly when n_cells is 0");
                d->has_upper = !json_is_null(u);
                d->upper_ns  = d->has_upper ? json_number_value(u) : 0;
                if (d->has_upper && (!isfinite(d->upper_ns) || d->upper_ns < d->ns.p50))
                        return fail(c, PMUCAL_E_SCHEMA, "upper_ns: below the level's p50");
                d->n_pairs = json_array_size(p);
        }
        return true;
}

static bool load_point(struct nctx *c, json_t *o, struct pmucal_loaded_point *p)
{
        json_t *m, *d;

        if (!json_is_object(o))
                return fail(c, PMUCAL_E_SCHEMA, "expected an object");
        if (!(m = get(c, o, "measured", JSON_TRUE, false)) ||
            !(d = get(c, o, "delay", JSON_INTEGER, true)))
                return false;
        p->measured = json_is_true(m);
        p->idle     = json_is_null(d);
        if (!p->measured)
                return true;
        return get_num(c, o, "bandwidth_gb_s", &p->gb_s) && get_num(c, o, "p10_ns", &p->p10_ns) &&
               get_num(c, o, "p50_ns", &p->p50_ns) && get_num(c, o, "p90_ns", &p->p90_ns);
}

/* L of the fit ranges: the largest p90 under load over the curve's idle p50. */
static void set_load_factor(struct pmucal_numa *n)
{
        n->load_factor = 1;
        for (size_t i = 0; i < n->n_curves; i++) {
                const struct pmucal_loaded_curve *cv = &n->curve[i];
                double idle = 0;
                for (size_t k = 0; k < cv->n_points; k++)
                        if (cv->pt[k].idle && cv->pt[k].measured)
                                idle = cv->pt[k].p50_ns;
                for (size_t k = 0; idle > 0 && k < cv->n_points; k++)
                        if (!cv->pt[k].idle && cv->pt[k].measured &&
                            cv->pt[k].p90_ns / idle > n->load_factor)
                                n->load_factor = cv->pt[k].p90_ns / idle;
        }
}

/* An enum value of a later minor: "unknown" in @p dst, counted, the first one named. */
static void unknown_value(struct nctx *c, struct pmucal_numa *n, const char *member,
                          const char *value, char *dst, size_t cap)
{
        size_t cap_u = sizeof(n->unknown_first);

        if (!n->n_unknown++ && snprintf(n->unknown_first, cap_u, "%s.%s: \"%s\"", c->path, member,
                                        value) >= (int)cap_u)
                memcpy(n->unknown_first + cap_u - 4, "...", 4); /* cut to fit, said so */
        if (dst)
                snprintf(dst, cap, "%s", PMUCAL_UNKNOWN);
}

/* Enum member @p key of @p o into @p dst (@p cap bytes): one of @p known, or PMUCAL_UNKNOWN
 * for a string this reader does not know (of any length). */
static bool get_enum(struct nctx *c, struct pmucal_numa *n, json_t *o, const char *key,
                     const char *const *known, size_t n_known, char *dst, size_t cap)
{
        json_t     *v = get(c, o, key, JSON_STRING, false);
        const char *s;

        if (!v)
                return false;
        s = json_string_value(v);
        for (size_t q = 0; q < n_known; q++)
                if (!strcmp(s, known[q])) {
                        snprintf(dst, cap, "%s", s);
                        return true;
                }
        unknown_value(c, n, key, s, dst, cap);
        return true;
}

static bool load_loaded(struct nctx *c, json_t *a, struct pmucal_numa *n)
{
        at(c, "loaded_latency");
        if (!json_is_array(a) || json_array_size(a) > PMUCAL_LOADED_MAX_CURVES)
                return fail(c, PMUCAL_E_SCHEMA, "expected an array of at most %d curves",
                            PMUCAL_LOADED_MAX_CURVES);
        n->n_curves = 0;
        for (size_t i = 0; i < json_array_size(a); i++) {
                json_t                     *o = json_array_get(a, i), *pts, *node, *ld;
                struct pmucal_loaded_curve *cv = &n->curve[n->n_curves];
                const char                 *loaded;

                at(c, "loaded_latency[%zu]", i);
                if (!json_is_object(o))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                if (!(ld = get(c, o, "loaded", JSON_STRING, false)) ||
                    !(node = get(c, o, "node", JSON_INTEGER, true)) ||
                    !(pts = get(c, o, "points", JSON_ARRAY, false)))
                        return false;
                loaded        = json_string_value(ld);
                cv->all_nodes = !strcmp(loaded, "all nodes");
                if (!cv->all_nodes && strcmp(loaded, "node")) {
                        unknown_value(c, n, "loaded", loaded, NULL, 0);
                        continue; /* loaded in a way this reader cannot weigh: left out */
                }
                cv->node = json_is_integer(node) ? (unsigned)json_integer_value(node) : 0;
                if (json_array_size(pts) > PMUCAL_LOADED_MAX_POINTS)
                        return fail(c, PMUCAL_E_SCHEMA, "points: more than %d",
                                    PMUCAL_LOADED_MAX_POINTS);
                cv->n_points = json_array_size(pts);
                for (size_t k = 0; k < cv->n_points; k++) {
                        at(c, "loaded_latency[%zu].points[%zu]", i, k);
                        if (!load_point(c, json_array_get(pts, k), &cv->pt[k]))
                                return false;
                }
                n->n_curves++;
        }
        set_load_factor(n);
        return true;
}

static bool load_c2c_classes(struct nctx *c, json_t *c2c, struct pmucal_numa *n)
{
        static const char *const topo[] = { "smt", "same-module", "same-cluster", "same-l3",
                                            "other-l3", "same-package", "other-package" };
        static const char *const kind[] = { "hit", "hitm", "write" };
        json_t  *a = get(c, c2c, "classes", JSON_ARRAY, false);
        uint64_t v;

        if (!a)
                return false;
        if (json_array_size(a) > MAX_C2C_CLASSES)
                return fail(c, PMUCAL_E_SCHEMA, "classes: more than %d", MAX_C2C_CLASSES);
        n->n_c2c_all = json_array_size(a);
        if (n->n_c2c_all && !(n->c2c_all = calloc(n->n_c2c_all, sizeof(*n->c2c_all))))
                return fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t k = 0; k < n->n_c2c_all; k++) {
                json_t                  *o = json_array_get(a, k);
                struct pmucal_c2c_class *x = &n->c2c_all[k];

                at(c, "c2c.classes[%zu]", k);
                if (!json_is_object(o))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                if (!get_enum(c, n, o, "topology", topo, sizeof(topo) / sizeof(topo[0]),
                              x->topology, sizeof(x->topology)) ||
                    !get_enum(c, n, o, "kind", kind, sizeof(kind) / sizeof(kind[0]), x->kind,
                              sizeof(x->kind)) ||
                    !get_uint(c, o, "n_pairs", 1u << 24, &v) ||
                    !get_stat(c, o, "tsc", &x->tsc, NULL) || !get_stat(c, o, "ns", &x->ns, &x->has_ns))
                        return false;
                x->n_pairs = (unsigned)v;
        }
        n->n_c2c = n->n_c2c_all < PMUCAL_C2C_MAX_CLASSES ? n->n_c2c_all : PMUCAL_C2C_MAX_CLASSES;
        memcpy(n->c2c, n->c2c_all, n->n_c2c * sizeof(n->c2c[0]));
        return true;
}

size_t pmucal_numa_c2c_count(const struct pmucal_numa *n)
{
        return n ? n->n_c2c_all : 0;
}

const struct pmucal_c2c_class *pmucal_numa_c2c_class(const struct pmucal_numa *n, size_t i)
{
        return n && i < n->n_c2c_all ? &n->c2c_all[i] : NULL;
}

static bool load_c2c_matrix(struct nctx *c, json_t *c2c, struct pmucal_numa *n)
{
        json_t *cpus = get(c, c2c, "cpus", JSON_ARRAY, false), *mx, *hitm;
        size_t  m;
        uint64_t v;

        if (!cpus || !(mx = get(c, c2c, "matrix_p50_tsc", JSON_OBJECT, false)))
                return false;
        at(c, "c2c.matrix_p50_tsc");
        if (!(hitm = get(c, mx, "hitm", JSON_ARRAY, false)))
                return false;
        if ((m = json_array_size(cpus)) > MAX_C2C_CPUS || json_array_size(hitm) != m)
                return fail(c, PMUCAL_E_SCHEMA, "hitm: %zu rows for %zu cpus",
                            json_array_size(hitm), m);
        n->n_c2c_cpus   = m;
        n->c2c_apic     = calloc(m ? m : 1, sizeof(*n->c2c_apic));
        n->c2c_hitm_tsc = calloc(m ? m * m : 1, sizeof(*n->c2c_hitm_tsc));
        if (!n->c2c_apic || !n->c2c_hitm_tsc)
                return fail(c, PMUCAL_E_NOMEM, "%zu cpus", m);
        for (size_t i = 0; i < m; i++) {
                json_t *row = json_array_get(hitm, i);
                at(c, "c2c.cpus[%zu]", i);
                if (!json_is_object(json_array_get(cpus, i)))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                if (!get_uint(c, json_array_get(cpus, i), "apic_id", UINT32_MAX, &v))
                        return false;
                n->c2c_apic[i] = (uint32_t)v;
                at(c, "c2c.matrix_p50_tsc.hitm[%zu]", i);
                if (!json_is_array(row) || json_array_size(row) != m)
                        return fail(c, PMUCAL_E_SCHEMA, "expected an array of %zu", m);
                for (size_t j = 0; j < m; j++) {
                        json_t *x = json_array_get(row, j);
                        if (!json_is_null(x) && (!json_is_number(x) || json_number_value(x) < 0))
                                return fail(c, PMUCAL_E_SCHEMA, "[%zu]: a number or null", j);
                        n->c2c_hitm_tsc[i * m + j] = json_is_null(x) ? NAN : json_number_value(x);
                }
        }
        return true;
}

static bool load_c2c(struct nctx *c, json_t *c2c, struct pmucal_numa *n)
{
        json_t *meth, *hz, *em;

        at(c, "c2c");
        if (!json_is_object(c2c))
                return fail(c, PMUCAL_E_SCHEMA, "expected an object");
        if (!(meth = get(c, c2c, "method", JSON_OBJECT, false)))
                return false;
        at(c, "c2c.method");
        if (!(hz = get(c, meth, "tsc_hz", JSON_INTEGER, true)) ||
            !(em = get(c, meth, "emulated", JSON_TRUE, false)))
                return false;
        n->c2c_tsc_hz   = json_is_integer(hz) && json_integer_value(hz) > 0 ?
                                  (uint64_t)json_integer_value(hz) : 0;
        n->c2c_emulated = json_is_true(em);
        at(c, "c2c");
        n->has_c2c = load_c2c_classes(c, c2c, n) && (at(c, "c2c"), load_c2c_matrix(c, c2c, n));
        return n->has_c2c;
}

static bool load_numa(struct nctx *c, json_t *numa, struct pmucal_numa *n)
{
        json_t *meth, *em;

        at(c, "numa");
        if (!json_is_object(numa))
                return fail(c, PMUCAL_E_SCHEMA, "expected an object");
        if (!(meth = get(c, numa, "method", JSON_OBJECT, false)))
                return false;
        at(c, "numa.method");
        if (!(em = get(c, meth, "emulated", JSON_TRUE, false)))
                return false;
        n->emulated = json_is_true(em);
        at(c, "numa");
        n->has_numa = load_matrix(c, numa, n) && (at(c, "numa"), load_dram_levels(c, numa, n));
        return n->has_numa;
}

static bool load_doc(struct nctx *c, json_t *root, struct pmucal_numa *n)
{
        json_t         *s = json_object_get(root, "schema"), *v;
        char            msg[256];
        enum pmucal_err e;

        n->load_factor = 1;
        if (!json_is_object(root) || !json_is_string(s))
                return fail(c, PMUCAL_E_KIND, "not a pmucal latency table (no schema string)");
        e = pmucal__schema_version(json_string_value(s), PMUCAL_TABLE_SCHEMA_PREFIX,
                                   PMUCAL_TABLE_MAJOR, &n->minor, msg, sizeof(msg));
        if (e != PMUCAL_OK)
                return fail(c, e, "%s", msg);
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
        free(n);
}

enum pmucal_err pmucal_numa_load_buf(const char *buf, size_t len, const char *name,
                                     struct pmucal_numa **out, char *err, size_t errlen)
{
        struct nctx  c = { .name = name ? name : "(buffer)", .err = err, .errlen = errlen };
        json_error_t je;
        json_t      *root;
        struct pmucal_numa *n;

        if (err && errlen)
                err[0] = '\0';
        if (!out || !buf)
                return PMUCAL_E_ARG;
        *out = NULL;
        if (!(root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je))) {
                fail(&c, PMUCAL_E_SYNTAX, "%d:%d: %s", je.line, je.column, je.text);
                if (err && errlen)
                        pmucal__escape_msg(err, errlen);
                return c.e;
        }
        if (!(n = calloc(1, sizeof(*n)))) {
                json_decref(root);
                return PMUCAL_E_NOMEM;
        }
        if (!load_doc(&c, root, n)) {
                pmucal_numa_free(n);
                n = NULL;
        }
        json_decref(root);
        *out = n;
        if (!n && err && errlen)
                pmucal__escape_msg(err, errlen);
        return n ? PMUCAL_OK : c.e;
}

/* pmucal__load_path's loader: pmucal_numa_load_buf with a typed out. */
static enum pmucal_err load_buf(const char *buf, size_t len, const char *name, void *out,
                                char *err, size_t errlen)
{
        return pmucal_numa_load_buf(buf, len, name, out, err, errlen);
}

enum pmucal_err pmucal_numa_load(const char *path, struct pmucal_numa **out, char *err,
                                 size_t errlen)
{
        if (out)
                *out = NULL;
        return pmucal__load_path(path, out, load_buf, err, errlen);
}
