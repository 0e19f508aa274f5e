/** @file
 * The sampling phase's verdict log and its JSON form, sampling-validation.json (see
 * app/x86/sampling.h). Schema pmucal.sampling-validation/1:
 *   { "schema", "levels_source",
 *     "summary": { "pass", "fail", "skip", "lost" },
 *     "checks": [ { "mechanism", "check", "verdict", "measured", "expected", "lo", "hi",
 *                   "unit", "detail" } ],
 *     "figures": [ { "mechanism", "name", "value", "unit" } ] }
 */
#include "app/x86/sampling.h"

#include "lib/fmt.h"
#include "report/json.h"

void samp_log_check(struct samp_log *lg, const char *mech, const char *name,
                    const struct rep_verdict *v)
{
        if (!lg || !v)
                return;
        switch (v->v) {
        case REP_V_SKIP:
                rep_push(mech); /* a run of one reason collapses per mechanism */
                rep_skip(v->skip, "%s: %s", name, v->why[0] ? v->why : "no reason given");
                rep_pop();
                break;
        default:
                rep_check(v->v == REP_V_PASS, "%s: %s: measured %lld %s, expected %lld "
                          "(accepted %lld..%lld): %s", mech, name, (long long)v->measured,
                          v->unit ? v->unit : "", (long long)v->expected, (long long)v->lo,
                          (long long)v->hi, v->why);
                break;
        }
        if (lg->n_checks == SAMP_MAX_CHECKS) {
                lg->n_lost++;
                return;
        }
        struct samp_check *c = &lg->checks[lg->n_checks++];
        c->mech = mech;
        fmt_snprintf(c->name, sizeof(c->name), "%s", name);
        c->v = *v;
}

void samp_log_skip(struct samp_log *lg, enum rep_skip_kind kind, const char *mech,
                   const char *name, const char *why)
{
        struct rep_verdict v = { .v = REP_V_SKIP, .skip = kind, .unit = "" };

        fmt_snprintf(v.why, sizeof(v.why), "%s", why ? why : "");
        samp_log_check(lg, mech, name, &v);
}

void samp_log_figure(struct samp_log *lg, const char *mech, const char *name, uint64_t value,
                     const char *unit)
{
        if (!lg)
                return;
        rep_info("%s: %s: %llu %s", mech, name, (unsigned long long)value, unit ? unit : "");
        if (lg->n_figs == SAMP_MAX_FIGURES)
                return;
        struct samp_figure *f = &lg->figs[lg->n_figs++];
        f->mech = mech;
        fmt_snprintf(f->name, sizeof(f->name), "%s", name);
        f->value = value;
        f->unit = unit;
}

status_t samp_json_write(const struct samp_log *lg, struct rep_buf *out)
{
        struct json_w w;
        uint64_t n[3] = { 0 };

        if (!lg || !out)
                return ST_BAD_ARG;
        for (size_t i = 0; i < lg->n_checks; i++)
                if ((unsigned)lg->checks[i].v.v < 3)
                        n[lg->checks[i].v.v]++;
        json_init(&w, out);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.sampling-validation/1");
        json_str(&w, "levels_source", lg->levels_source);
        json_obj_begin(&w, "summary");
        json_u64(&w, "pass", n[REP_V_PASS]);
        json_u64(&w, "fail", n[REP_V_FAIL]);
        json_u64(&w, "skip", n[REP_V_SKIP]);
        json_u64(&w, "lost", lg->n_lost);
        json_obj_end(&w);
        json_arr_begin(&w, "checks");
        for (size_t i = 0; i < lg->n_checks; i++) {
                const struct samp_check *c = &lg->checks[i];

                json_obj_begin(&w, NULL);
                json_str(&w, "mechanism", c->mech);
                json_str(&w, "check", c->name);
                json_str(&w, "verdict", rep_verdict_name(c->v.v));
                if (c->v.v != REP_V_SKIP) {
                        json_i64(&w, "measured", c->v.measured);
                        json_i64(&w, "expected", c->v.expected);
                        json_i64(&w, "lo", c->v.lo);
                        json_i64(&w, "hi", c->v.hi);
                        json_str(&w, "unit", c->v.unit);
                }
                json_str(&w, "detail", c->v.why);
                json_obj_end(&w);
        }
        json_arr_end(&w);
        json_arr_begin(&w, "figures");
        for (size_t i = 0; i < lg->n_figs; i++) {
                json_obj_begin(&w, NULL);
                json_str(&w, "mechanism", lg->figs[i].mech);
                json_str(&w, "name", lg->figs[i].name);
                json_u64(&w, "value", lg->figs[i].value);
                json_str(&w, "unit", lg->figs[i].unit);
                json_obj_end(&w);
        }
        json_arr_end(&w);
        json_obj_end(&w);
        return json_finish(&w);
}
