/** @file libpmucal, TLB part: the pmucal.tlb/1.x loader and the TLB-miss classifier (see
 * include/pmucal/tlb.h). Host only: libc and jansson. Every field is checked for presence,
 * type and range; a bad one is reported with its JSON path. */
#include "host/include/pmucal/tlb.h"

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

        va_start(ap, fmt);
        vsnprintf(c->path, sizeof(c->path), fmt, ap);
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
        json_t     *tlb = root, *cv;
        const char *s;
        long        major;

        if (!json_object_get(root, "curves") && json_object_get(root, "tlb")) {
                tlb = json_object_get(root, "tlb"); /* the section of a latency table */
                at(c, "tlb");
                if (!json_is_object(tlb))
                        return fail(c, PMUCAL_E_SCHEMA, "expected an object");
        }
        s = json_string_value(json_object_get(tlb, "schema"));
        if (!s || strncmp(s, PMUCAL_TLB_SCHEMA_PREFIX, strlen(PMUCAL_TLB_SCHEMA_PREFIX)))
                return fail(c, PMUCAL_E_VERSION, "not a pmucal TLB table (schema %s%s%s)",
                            s ? "\"" : "", s ? s : "missing", s ? "\"" : "");
        if (pmucal_schema_version(s, PMUCAL_TLB_SCHEMA_PREFIX, &major, NULL) ||
            major != PMUCAL_TLB_MAJOR)
                return fail(c, PMUCAL_E_VERSION, "schema \"%s\": this library reads %s%d", s,
                            PMUCAL_TLB_SCHEMA_PREFIX, PMUCAL_TLB_MAJOR);
        snprintf(t->schema, sizeof(t->schema), "%s", s);
        cv = json_object_get(tlb, "curves");
        if (!json_is_array(cv))
                return fail(c, PMUCAL_E_SCHEMA, "curves: missing or not an array");
        if (json_array_size(cv) > MAX_CURVES)
                return fail(c, PMUCAL_E_SCHEMA, "curves: more than %d", MAX_CURVES);
        t->curves = calloc(json_array_size(cv) + 1, sizeof(*t->curves));
        if (!t->curves)
                return fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < json_array_size(cv); i++) {
                if (!load_curve(c, json_array_get(cv, i), i, &t->curves[i]))
                        return 0;
                t->n_curves++;
        }
        return 1;
}

static enum pmucal_err finish(struct tctx *c, json_t *root, json_error_t *je,
                              struct pmucal_tlb **out)
{
        struct pmucal_tlb *t;

        if (!root) {
                if (c->err && c->errlen)
                        snprintf(c->err, c->errlen, "%s:%d:%d: %s", c->name, je->line, je->column,
                                 je->text);
                return je->line < 0 && je->position == 0 && strstr(je->text, "unable to open")
                               ? PMUCAL_E_IO
                               : PMUCAL_E_SYNTAX;
        }
        if (!json_is_object(root)) {
                json_decref(root);
                fail(c, PMUCAL_E_VERSION, "not a pmucal TLB table (top level is not an object)");
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
        struct tctx  c = { .name = path, .err = err, .errlen = errlen };
        json_error_t je;
        FILE        *f;

        if (err && errlen)
                err[0] = '\0';
        if (!path || !out)
                return PMUCAL_E_ARG;
        *out = NULL;
        if (!(f = fopen(path, "rb"))) {
                fail(&c, PMUCAL_E_IO, "cannot open: %s", strerror(errno));
                return c.e;
        }
        json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
        fclose(f);
        return finish(&c, root, &je, out);
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
