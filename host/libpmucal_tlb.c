/** @file libpmucal, TLB part: the pmucal.tlb/1 loader and the TLB-miss classifier (see
 * include/pmucal/tlb.h). Host only: libc and jansson. Every field is checked for presence,
 * type and range; a bad one is reported with its JSON path. */
#include "host/include/pmucal/tlb.h"
#include "host/libpmucal_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CURVES 64

struct tctx {
        const char     *name;
        const char     *base;  /* "tlb." inside a latency table, else "" */
        char           *err;
        size_t          errlen;
        char            path[128];
        enum pmucal_err e;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct tctx *c, enum pmucal_err e, const char *fmt, ...)
{
        va_list ap;
        int     k;

        if (c->e != PMUCAL_OK)
                return 0;
        c->e = e;
        if (!c->err || !c->errlen)
                return 0;
        k = snprintf(c->err, c->errlen, "%s: %s%s", c->name, c->path, c->path[0] ? ": " : "");
        if (k >= 0 && (size_t)k < c->errlen) {
                va_start(ap, fmt);
                vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
                va_end(ap);
        }
        return 0;
}

/* Set the JSON path to prefix + ".key" (for messages). */
static void at(struct tctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void at(struct tctx *c, const char *fmt, ...)
{
        va_list ap;

        int k = snprintf(c->path, sizeof(c->path), "%s", c->base ? c->base : "");
        va_start(ap, fmt);
        vsnprintf(c->path + k, sizeof(c->path) - (size_t)k, fmt, ap);
        va_end(ap);
}

static int get_str(struct tctx *c, json_t *o, const char *key, char *dst, size_t cap)
{
        json_t *v = json_object_get(o, key);

        if (!v)
                return fail(c, PMUCAL_E_SCHEMA, "%s: missing", key);
        if (!json_is_string(v) || json_string_length(v) >= cap ||
            strlen(json_string_value(v)) != json_string_length(v))
                return fail(c, PMUCAL_E_SCHEMA, "%s: expected a string of at most %zu bytes", key,
                            cap - 1);
        memcpy(dst, json_string_value(v), json_string_length(v) + 1);
        return 1;
}

/* Non-negative integer; null allowed (-> *has = 0) when @p has is given. */
static int get_u64(struct tctx *c, json_t *o, const char *key, uint64_t *out, int *has)
{
        json_t *v = json_object_get(o, key);

        *out = 0;
        if (has)
                *has = 0;
        if (!v)
                return fail(c, PMUCAL_E_SCHEMA, "%s: missing", key);
        if (has && json_is_null(v))
                return 1;
        if (!json_is_integer(v) || json_integer_value(v) < 0)
                return fail(c, PMUCAL_E_SCHEMA, "%s: expected a non-negative integer%s", key,
                            has ? " or null" : "");
        *out = (uint64_t)json_integer_value(v);
        if (has)
                *has = 1;
        return 1;
}

static int one_of(const char *s, const char *const *names)
{
        for (; *names; names++)
                if (!strcmp(s, *names))
                        return 1;
        return 0;
}

static int load_curve(struct tctx *c, json_t *o, size_t i, struct pmucal_tlb_curve *cv)
{
        static const char *const sides[]   = { "dtlb", "itlb", NULL };
        static const char *const ptes[]    = { "near", "line", "page", NULL };
        static const char *const classes[] = { "l1_hit", "l2_hit", "walk", "miss", NULL };
        json_t *lv, *cl, *e;
        uint64_t v;

        at(c, "curves[%zu]", i);
        if (!json_is_object(o))
                return fail(c, PMUCAL_E_SCHEMA, "expected an object");
        if (!get_str(c, o, "side", cv->side, sizeof(cv->side)) ||
            !get_str(c, o, "pte", cv->pte, sizeof(cv->pte)) ||
            !get_u64(c, o, "page_bytes", &cv->page_bytes, NULL))
                return 0;
        if (!one_of(cv->side, sides))
                return fail(c, PMUCAL_E_SCHEMA, "side: \"%s\" is not dtlb or itlb", cv->side);
        if (!one_of(cv->pte, ptes))
                return fail(c, PMUCAL_E_SCHEMA, "pte: \"%s\" is not near, line or page", cv->pte);
        if (cv->page_bytes != 4096 && cv->page_bytes != 2097152 && cv->page_bytes != 1073741824)
                return fail(c, PMUCAL_E_SCHEMA, "page_bytes: %" PRIu64 " is not 4 KiB, 2 MiB or 1 GiB",
                            cv->page_bytes);
        lv = json_object_get(o, "levels");
        cl = json_object_get(o, "classes");
        if (!json_is_array(lv) || !json_is_array(cl))
                return fail(c, PMUCAL_E_SCHEMA, "levels and classes: expected two arrays");
        if (json_array_size(lv) > PMUCAL_TLB_MAX_CLASSES ||
            json_array_size(cl) > PMUCAL_TLB_MAX_CLASSES)
                return fail(c, PMUCAL_E_SCHEMA, "more than %d levels or classes",
                            PMUCAL_TLB_MAX_CLASSES);
        for (size_t k = 0; k < json_array_size(lv); k++) {
                at(c, "curves[%zu].levels[%zu]", i, k);
                e = json_array_get(lv, k);
                if (!json_is_object(e))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                if (!get_u64(c, e, "entries", &cv->level_entries[k], NULL))
                        return 0;
                if (!cv->level_entries[k] || (k && cv->level_entries[k] <= cv->level_entries[k - 1]))
                        return fail(c, PMUCAL_E_SCHEMA, "entries: %" PRIu64 " is not above the level "
                                    "before it (%" PRIu64 ")", cv->level_entries[k],
                                    k ? cv->level_entries[k - 1] : 0);
                cv->n_levels++;
        }
        for (size_t k = 0; k < json_array_size(cl); k++) {
                struct pmucal_tlb_class *x = &cv->classes[k];
                int has;

                at(c, "curves[%zu].classes[%zu]", i, k);
                e = json_array_get(cl, k);
                if (!json_is_object(e))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
                if (!get_str(c, e, "class", x->name, sizeof(x->name)))
                        return 0;
                if (!one_of(x->name, classes))
                        return fail(c, PMUCAL_E_SCHEMA, "class: unknown class \"%s\"", x->name);
                for (size_t j = 0; j < k && strcmp(x->name, "walk"); j++)
                        if (!strcmp(cv->classes[j].name, x->name))
                                return fail(c, PMUCAL_E_SCHEMA, "class: a second \"%s\" (classes[%zu]); "
                                            "only walk classes may repeat", x->name, j);
                if (!get_u64(c, e, "lat_mcyc", &v, NULL))
                        return 0;
                x->lat_cycles = (double)v / 1000;
                if (!get_u64(c, e, "added_mcyc", &v, NULL))
                        return 0;
                x->added_cycles = (double)v / 1000;
                if (!get_u64(c, e, "upper_added_mcyc", &v, &has))
                        return 0;
                x->has_upper          = has;
                x->upper_added_cycles = (double)v / 1000;
                if (!get_u64(c, e, "first_pages", &x->first_pages, NULL) ||
                    !get_u64(c, e, "last_pages", &x->last_pages, NULL))
                        return 0;
                if (k && x->added_cycles < cv->classes[k - 1].added_cycles)
                        return fail(c, PMUCAL_E_SCHEMA, "added_mcyc below the class before it");
                if (has != (k + 1 < json_array_size(cl)))
                        return fail(c, PMUCAL_E_SCHEMA,
                                    "upper_added_mcyc: null exactly for the last class");
                if (has && (x->upper_added_cycles < x->added_cycles))
                        return fail(c, PMUCAL_E_SCHEMA, "upper_added_mcyc below added_mcyc");
                cv->n_classes++;
        }
        return 1;
}

static int load_root(struct tctx *c, json_t *root, struct pmucal_tlb *t)
{
        json_t         *tlb = root, *cv, *u;
        const char     *s;
        char            msg[256];
        unsigned        minor;
        enum pmucal_err e;

        if (!json_object_get(root, "curves") && json_object_get(root, "tlb")) {
                tlb = json_object_get(root, "tlb"); /* the section of a latency table */
                at(c, "tlb");
                c->base = "tlb.";
                if (!json_is_object(tlb))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
        }
        s = json_string_value(json_object_get(tlb, "schema"));
        if (!s)
                return fail(c, PMUCAL_E_KIND, "not a pmucal TLB table (schema missing)");
        if ((e = pmucal__schema_version(s, PMUCAL_TLB_SCHEMA_PREFIX, PMUCAL_TLB_MAJOR, &minor, msg,
                                        sizeof(msg))) != PMUCAL_OK)
                return fail(c, e, "%s%s", e == PMUCAL_E_KIND ? "not a pmucal TLB table: " : "", msg);
        u = json_object_get(tlb, "units");
        if (!json_is_string(u) || strcmp(json_string_value(u), "mcyc")) {
                at(c, "units");
                if (!u)
                        return fail(c, PMUCAL_E_SCHEMA, "missing (want \"mcyc\", milli-cycles)");
                if (!json_is_string(u))
                        return fail(c, PMUCAL_E_SCHEMA, "not a string (want \"mcyc\", milli-cycles)");
                return fail(c, PMUCAL_E_SCHEMA, "\"%s\" is not a known unit (want \"mcyc\", "
                            "milli-cycles)", json_string_value(u));
        }
        snprintf(t->schema, sizeof(t->schema), "%s", s);
        cv = json_object_get(tlb, "curves");
        if (!json_is_array(cv))
                return at(c, "curves"), fail(c, PMUCAL_E_SCHEMA, "missing or not an array");
        if (json_array_size(cv) > MAX_CURVES)
                return at(c, "curves"), fail(c, PMUCAL_E_SCHEMA, "more than %d", MAX_CURVES);
        t->curves = calloc(json_array_size(cv) + 1, sizeof(*t->curves));
        if (!t->curves)
                return fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < json_array_size(cv); i++) {
                if (!load_curve(c, json_array_get(cv, i), i, &t->curves[i]))
                        return 0;
                for (size_t j = 0; j < i; j++)
                        if (!strcmp(t->curves[j].side, t->curves[i].side) &&
                            t->curves[j].page_bytes == t->curves[i].page_bytes &&
                            !strcmp(t->curves[j].pte, t->curves[i].pte)) {
                                at(c, "curves[%zu]", i);
                                return fail(c, PMUCAL_E_SCHEMA, "a second %s curve for %" PRIu64
                                            "-byte pages, PTEs %s (curves[%zu] is the first)",
                                            t->curves[i].side, t->curves[i].page_bytes,
                                            t->curves[i].pte, j);
                        }
                t->n_curves++;
        }
        return 1;
}

static enum pmucal_err finish_root(struct tctx *c, json_t *root, json_error_t *je,
                                   struct pmucal_tlb **out)
{
        struct pmucal_tlb *t;

        if (!root) {
                if (c->err && c->errlen)
                        snprintf(c->err, c->errlen, "%s:%d:%d: %s", c->name, je->line, je->column,
                                 je->text);
                return PMUCAL_E_SYNTAX;
        }
        if (!json_is_object(root)) {
                json_decref(root);
                fail(c, PMUCAL_E_KIND, "not a pmucal TLB table (top level is not an object)");
                return c->e;
        }
        if (!(t = calloc(1, sizeof(*t)))) {
                json_decref(root);
                fail(c, PMUCAL_E_NOMEM, "out of memory");
                return c->e;
        }
        load_root(c, root, t);
        json_decref(root);
        if (c->e != PMUCAL_OK) {
                pmucal_tlb_free(t);
                return c->e;
        }
        *out = t;
        return PMUCAL_OK;
}

static enum pmucal_err finish(struct tctx *c, json_t *root, json_error_t *je,
                              struct pmucal_tlb **out)
{
        enum pmucal_err e = finish_root(c, root, je, out);

        pmucal__escape_msg(c->err, c->errlen);
        return e;
}

enum pmucal_err pmucal_tlb_load_buf(const char *buf, size_t len, const char *name,
                                    struct pmucal_tlb **out, char *err, size_t errlen)
{
        struct tctx  c = { .name = name ? name : "<buffer>", .err = err, .errlen = errlen };
        json_error_t je;

        if (err && errlen)
                err[0] = '\0';
        if (!out || (!buf && len))
                return PMUCAL_E_ARG;
        *out = NULL;
        return finish(&c, json_loadb(buf ? buf : "", len, JSON_REJECT_DUPLICATES, &je), &je, out);
}

enum pmucal_err pmucal_tlb_load(const char *path, struct pmucal_tlb **out, char *err,
                                size_t errlen)
{
        char            tmp[1], *buf;
        size_t          n;
        enum pmucal_err e;

        if (err && errlen)
                err[0] = '\0';
        if (!path || !out)
                return PMUCAL_E_ARG;
        *out = NULL;
        if ((e = pmucal__read_file(path, &buf, &n, err && errlen ? err : tmp,
                                   err && errlen ? errlen : sizeof(tmp))) != PMUCAL_OK) {
                pmucal__escape_msg(err, errlen);
                return e;
        }
        e = pmucal_tlb_load_buf(buf, n, path, out, err, errlen);
        free(buf);
        return e;
}

void pmucal_tlb_free(struct pmucal_tlb *t)
{
        if (t)
                free(t->curves);
        free(t);
}

const struct pmucal_tlb_curve *pmucal_tlb_curve(const struct pmucal_tlb *t, const char *side,
                                                uint64_t page_bytes)
{
        if (!t || !side)
                return NULL;
        for (size_t i = 0; i < t->n_curves; i++)
                if (!strcmp(t->curves[i].side, side) && t->curves[i].page_bytes == page_bytes &&
                    !strcmp(t->curves[i].pte, "near"))
                        return &t->curves[i];
        return NULL;
}

const struct pmucal_tlb_class *pmucal_tlb_classify(const struct pmucal_tlb *t, const char *side,
                                                   uint64_t page_bytes, double added_cycles)
{
        const struct pmucal_tlb_curve *cv = pmucal_tlb_curve(t, side, page_bytes);

        if (!cv || !cv->n_classes || isnan(added_cycles) || added_cycles < 0)
                return NULL;
        for (size_t k = 0; k < cv->n_classes; k++)
                if (!cv->classes[k].has_upper || added_cycles <= cv->classes[k].upper_added_cycles)
                        return &cv->classes[k];
        return &cv->classes[cv->n_classes - 1];
}
