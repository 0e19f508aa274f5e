/** @file libpmucal, TLB part: the pmucal.tlb/1 loader (see host/include/pmucal/tlb.h; the
 * classifier is host/libpmucal_tlb_classify.c). Host only: libc and jansson. Every field is
 * checked for presence, type, range and meaning; a bad one is reported with its JSON path.
 * Strings and arrays live in the table's pool. */
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

#define MAX_CURVES  PMUCAL_RULE_TLB_MAX_CURVES
#define MAX_LEVELS  PMUCAL_RULE_TLB_MAX_LEVELS
#define MAX_CLASSES PMUCAL_RULE_TLB_MAX_CLASSES

/* The table and the pool that owns everything it points to. */
struct tlb_priv {
        struct pmucal_tlb    pub;
        struct pmucal__pool *pool;
};

/* Non-negative integer; null allowed (-> *has = 0) when @p has is given. */
static int get_u64(struct pmucal__ctx *c, json_t *o, const char *key, uint64_t *out, int *has)
{
        json_t *v = pmucal__get(c, o, key, JSON_INTEGER, has != NULL);

        *out = 0;
        if (has)
                *has = 0;
        if (!v)
                return 0;
        if (json_is_null(v))
                return 1;
        if (json_integer_value(v) < 0)
                return pmucal__push_key(c, key),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "%" JSON_INTEGER_FORMAT " is negative",
                                    json_integer_value(v));
        *out = (uint64_t)json_integer_value(v);
        if (has)
                *has = 1;
        return 1;
}

/* the enums' values in the order of enum pmucal_tlb_side, _pte and _kind */
#define side_names  pmucal_rule_tlb_side
#define pte_names   pmucal_rule_tlb_pte
#define class_names pmucal_rule_tlb_class

/* An integer member of an object, 0 when absent or not a positive integer. */
static uint64_t opt_u64(json_t *o, const char *key)
{
        json_t *v = json_object_get(o, key);
        return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static int load_levels(struct pmucal__ctx *c, json_t *lv, size_t i, struct pmucal_tlb_curve *cv,
                       struct pmucal_tlb_spread *sp)
{
        uint64_t *ent = pmucal__pool_alloc(c->pool, (json_array_size(lv) + 1) * sizeof(*ent));
        uint64_t *nxt = pmucal__pool_alloc(c->pool, (json_array_size(lv) + 1) * sizeof(*nxt));

        if (!ent || !nxt)
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t k = 0; k < json_array_size(lv); k++) {
                json_t *e = json_array_get(lv, k);
                pmucal__at(c, "curves[%zu].levels[%zu]", i, k);
                if (!pmucal__is_obj(c, e))
                        return 0;
                if (!get_u64(c, e, "entries", &ent[k], NULL))
                        return 0;
                if (!ent[k] || (k && ent[k] <= ent[k - 1]))
                        return pmucal__push_key(c, "entries"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "%" PRIu64 " is not above the level "
                                    "before it (%" PRIu64 ")", ent[k], k ? ent[k - 1] : 0);
                nxt[k] = opt_u64(e, "next_pages");
        }
        sp->level_next_pages = nxt;
        cv->level_entries = ent;
        cv->n_levels      = json_array_size(lv);
        return 1;
}

/* Class @p k of curve @p i; the classes before it are loaded. */
static int load_class(struct pmucal__ctx *c, json_t *e, size_t i, size_t k, size_t n,
                      struct pmucal_tlb_curve *cv)
{
        struct pmucal_tlb_class *x = &cv->classes[k];
        char                     label[16];
        uint64_t                 v;
        int                      has, kind;

        pmucal__at(c, "curves[%zu].classes[%zu]", i, k);
        if (!pmucal__is_obj(c, e))
                return 0;
        if ((kind = pmucal__get_enum(c, e, "class", class_names, PMUCAL_RULE_N_TLB_CLASS,
                                     PMUCAL_RULE_TLB_CLASS_WORDS)) < 0)
                return 0;
        x->kind    = (enum pmucal_tlb_kind)kind;
        x->name    = class_names[kind];
        x->ordinal = 1;
        for (size_t j = 0; j < k; j++)
                if (cv->classes[j].kind == x->kind) {
                        if (x->kind != PMUCAL_TLB_WALK)
                                return pmucal__push_key(c, "class"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "a second \"%s\" (classes[%zu]); "
                                            "only walk classes may repeat", x->name, j);
                        x->ordinal++;
                }
        snprintf(label, sizeof(label), x->ordinal > 1 ? "%s%u" : "%s", x->name, x->ordinal);
        if (!(x->label = pmucal__pool_strdup(c->pool, label)))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
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
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "added_mcyc below the class before it");
        if (has != (k + 1 < n))
                return pmucal__push_key(c, "upper_added_mcyc"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "null exactly for the last class");
        if (has && (x->upper_added_cycles < x->added_cycles))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "upper_added_mcyc below added_mcyc");
        return 1;
}

static bool page_size_known(uint64_t bytes)
{
        for (size_t i = 0; i < PMUCAL_RULE_N_TLB_PAGE_BYTES; i++)
                if (bytes == pmucal_rule_tlb_page_bytes[i])
                        return true;
        return false;
}

static int load_curve(struct pmucal__ctx *c, json_t *o, size_t i, struct pmucal_tlb_curve *cv,
                      struct pmucal_tlb_spread *sp)
{
        json_t *lv, *cl;
        int     side, pte;

        pmucal__at(c, "curves[%zu]", i);
        if (!pmucal__is_obj(c, o))
                return 0;
        if ((side = pmucal__get_enum(c, o, "side", side_names, PMUCAL_RULE_N_TLB_SIDE,
                                     PMUCAL_RULE_TLB_SIDE_WORDS)) < 0 ||
            (pte = pmucal__get_enum(c, o, "pte", pte_names, PMUCAL_RULE_N_TLB_PTE,
                                    PMUCAL_RULE_TLB_PTE_WORDS)) < 0 ||
            !get_u64(c, o, "page_bytes", &cv->page_bytes, NULL))
                return 0;
        cv->side      = (enum pmucal_tlb_side)side;
        cv->side_name = side_names[side];
        cv->pte       = (enum pmucal_tlb_pte)pte;
        cv->pte_name  = pte_names[pte];
        if (!page_size_known(cv->page_bytes))
                return pmucal__push_key(c, "page_bytes"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "%" PRIu64 " is not 4 KiB, 2 MiB or 1 GiB",
                            cv->page_bytes);
        lv = json_object_get(o, "levels");
        cl = json_object_get(o, "classes");
        if (!json_is_array(lv) || !json_is_array(cl))
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "levels and classes: expected two arrays");
        if (json_array_size(lv) > MAX_LEVELS || json_array_size(cl) > MAX_CLASSES)
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "%zu levels and %zu classes (at most %u and %u)",
                            json_array_size(lv), json_array_size(cl), MAX_LEVELS, MAX_CLASSES);
        if (!load_levels(c, lv, i, cv, sp))
                return 0;
        sp->noise_cycles = (double)opt_u64(o, "noise_mcyc") / 1000;
        sp->step_cycles  = (double)opt_u64(o, "step_mcyc") / 1000;
        cv->classes = pmucal__pool_alloc(c->pool, (json_array_size(cl) + 1) * sizeof(*cv->classes));
        if (!cv->classes)
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        for (size_t k = 0; k < json_array_size(cl); k++, cv->n_classes++)
                if (!load_class(c, json_array_get(cl, k), i, k, json_array_size(cl), cv))
                        return 0;
        return 1;
}

/* The 1.2 clock object: its figures must be TSC ticks; its rates and measured ratio. */
static int load_clock_member(struct pmucal__ctx *c, json_t *clk, struct pmucal_tlb *t)
{
        json_t *fig = json_object_get(clk, "figures"), *r = json_object_get(clk, "core_per_tsc");

        pmucal__at(c, "clock");
        if (!pmucal__is_obj(c, clk))
                return 0;
        if (!json_is_string(fig) || strcmp(json_string_value(fig), "tsc_ticks"))
                return pmucal__push_key(c, "figures"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "%s%s%s is not \"tsc_ticks\"",
                            json_is_string(fig) ? "\"" : "",
                            json_is_string(fig) ? json_string_value(fig) : fig ? "not a string" : "missing",
                            json_is_string(fig) ? "\"" : "");
        if (r && !json_is_null(r) && (!json_is_number(r) || !(json_number_value(r) > 0) ||
                                      json_number_value(r) > 1000))
                return pmucal__push_key(c, "core_per_tsc"),
                       pmucal__fail(c, PMUCAL_E_SCHEMA, "expected a positive number or null");
        t->clock_stated = true;
        t->tsc_hz       = opt_u64(clk, "tsc_hz");
        if (json_is_number(r) && t->tsc_hz) {
                t->has_core_ratio = true;
                t->core_per_tsc   = json_number_value(r);
                t->core_hz        = opt_u64(clk, "core_hz");
                if (!t->core_hz)
                        t->core_hz = (uint64_t)((double)t->tsc_hz * t->core_per_tsc + 0.5);
        }
        return 1;
}

/* The figures are TSC ticks: every writer times the TLB windows with the TSC (the *_mcyc
 * members are TSC milli-ticks; 1.2 says so in clock.figures). The rates come from the
 * document's clock object (1.2), else from the enclosing latency table: its tsc_hz, and its
 * core_hz where its method.clock measured the core clock. */
static int load_clock(struct pmucal__ctx *c, json_t *root, json_t *tlb, struct pmucal_tlb *t)
{
        json_t *clk = json_object_get(tlb, "clock"), *method = json_object_get(root, "method"),
               *machine = json_object_get(root, "machine");

        if (!(t->clock = pmucal__pool_strdup(c->pool, "tsc")))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        t->cycles_unit = PMUCAL_UNIT_TSC;
        if (clk)
                return load_clock_member(c, clk, t);
        if (tlb == root)
                return 1;
        t->tsc_hz = opt_u64(machine, "tsc_hz");
        if (json_is_string(json_object_get(method, "clock")) &&
            pmucal__clock_unit(json_string_value(json_object_get(method, "clock"))) ==
                    PMUCAL_UNIT_CORE &&
            t->tsc_hz && (t->core_hz = opt_u64(machine, "core_hz"))) {
                t->has_core_ratio = true;
                t->core_per_tsc   = (double)t->core_hz / (double)t->tsc_hz;
        }
        return 1;
}

static int load_root(struct pmucal__ctx *c, json_t *root, struct pmucal_tlb *t)
{
        struct pmucal_tlb_spread *sp;
        json_t         *tlb = root, *cv, *u;
        const char     *s;
        char            msg[256];
        enum pmucal_err e;

        if (!json_object_get(root, "curves") && json_object_get(root, "tlb")) {
                tlb = json_object_get(root, "tlb"); /* the section of a latency table */
                pmucal__at(c, "tlb");
                c->root = strlen(c->path); /* the section's paths start "tlb." */
                if (!pmucal__is_obj(c, tlb))
                        return 0;
        }
        s = json_string_value(json_object_get(tlb, "schema"));
        if (!s)
                return pmucal__fail(c, PMUCAL_E_KIND, "not a pmucal TLB table (schema missing)");
        if ((e = pmucal__schema_version(s, PMUCAL_TLB_SCHEMA_PREFIX, PMUCAL_TLB_MAJOR, &t->minor,
                                        msg, sizeof(msg))) != PMUCAL_OK)
                return pmucal__fail(c, e, "%s%s", e == PMUCAL_E_KIND ? "not a pmucal TLB table: " : "", msg);
        t->major = PMUCAL_TLB_MAJOR;
        u        = json_object_get(tlb, "units");
        if (!json_is_string(u) || strcmp(json_string_value(u), "mcyc")) {
                pmucal__at(c, "units");
                if (!u)
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "missing (want \"mcyc\", milli-cycles)");
                if (!json_is_string(u))
                        return pmucal__fail(c, PMUCAL_E_SCHEMA, "not a string (want \"mcyc\", milli-cycles)");
                return pmucal__fail(c, PMUCAL_E_SCHEMA, "\"%s\" is not a known unit (want \"mcyc\", "
                            "milli-cycles)", json_string_value(u));
        }
        if (!(t->schema = pmucal__pool_strdup(c->pool, s)))
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        if (!load_clock(c, root, tlb, t))
                return 0;
        cv = json_object_get(tlb, "curves");
        if (!json_is_array(cv))
                return pmucal__at(c, "curves"), pmucal__fail(c, PMUCAL_E_SCHEMA, "missing or not an array");
        if (json_array_size(cv) > MAX_CURVES)
                return pmucal__at(c, "curves"), pmucal__fail(c, PMUCAL_E_SCHEMA, "more than %u", MAX_CURVES);
        t->curves = pmucal__pool_alloc(c->pool, (json_array_size(cv) + 1) * sizeof(*t->curves));
        sp        = pmucal__pool_alloc(c->pool, (json_array_size(cv) + 1) * sizeof(*sp));
        if (!t->curves || !sp)
                return pmucal__fail(c, PMUCAL_E_NOMEM, "out of memory");
        t->spread = sp;
        for (size_t i = 0; i < json_array_size(cv); i++) {
                struct pmucal_tlb_curve *a = &t->curves[i];
                if (!load_curve(c, json_array_get(cv, i), i, a, &sp[i]))
                        return 0;
                for (size_t j = 0; j < i; j++)
                        if (t->curves[j].side == a->side && t->curves[j].page_bytes == a->page_bytes &&
                            t->curves[j].pte == a->pte) {
                                pmucal__at(c, "curves[%zu]", i);
                                return pmucal__fail(c, PMUCAL_E_SCHEMA, "a second %s curve for %" PRIu64
                                            "-byte pages, PTEs %s (curves[%zu] is the first)",
                                            a->side_name, a->page_bytes, a->pte_name, j);
                        }
                t->n_curves++;
        }
        return 1;
}

/* The table from @p root into @p doc, a new struct tlb_priv. */
static bool load_doc(struct pmucal__ctx *c, json_t *root, void *doc)
{
        if (!json_is_object(root))
                return pmucal__fail(c, PMUCAL_E_KIND,
                                    "not a pmucal TLB table (top level is not an object)");
        return load_root(c, root, &((struct tlb_priv *)doc)->pub);
}

static void free_doc(void *doc)
{
        pmucal_tlb_free(doc);
}

static const struct pmucal__doc tlb_doc = {
        .size          = sizeof(struct tlb_priv),
        .pool          = offsetof(struct tlb_priv, pool),
        .n_unknown     = PMUCAL__NONE,
        .unknown_first = PMUCAL__NONE,
        .fill          = load_doc,
        .free          = free_doc,
};

enum pmucal_err pmucal_tlb_load_buf(const char *buf, size_t len, const char *name,
                                    struct pmucal_tlb **out, char *err, size_t errlen)
{
        return pmucal__load_doc(&tlb_doc, buf, len, name, out, err, errlen);
}

enum pmucal_err pmucal_tlb_load(const char *path, struct pmucal_tlb **out, char *err,
                                size_t errlen)
{
        return pmucal__load_doc_path(&tlb_doc, path, out, err, errlen);
}

void pmucal_tlb_free(struct pmucal_tlb *t)
{
        struct tlb_priv *p = (struct tlb_priv *)t; /* pub is its first member */

        if (!p)
                return;
        pmucal__pool_free(p->pool);
        free(p);
}
