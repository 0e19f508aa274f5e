/** @file latency-table.json (see lattable.h and docs/latency-table.md): every latency in TSC
 *  ticks, core cycles and ns, the clock each is in named, core figures null with the reason
 *  where no core clock was readable. */
#include "report/lattable.h"
#include "report/lattable_sets.h"

#include "lib/fmt.h"

/* One unit of the table: which member, and which figures of a level / bound it takes. */
enum unit { U_TICKS, U_CORE, U_NS, U_LEGACY, U__COUNT };

static const char *const unit_keys[U__COUNT] = {
        [U_TICKS] = "tsc_ticks", [U_CORE] = "core_cycles", [U_NS] = "ns", [U_LEGACY] = "cycles",
};

/* The legacy `cycles` member: core cycles where a core clock was read, else what the curve
 * was measured in (TSC ticks), as schema 1.0 defined it: in the clock method.clock names. */
static bool legacy_is_core(const struct lat_levels *l)
{
        return l->has_core;
}

static bool unit_known(const struct lat_levels *l, enum unit u)
{
        switch (u) {
        case U_TICKS: return l->has_ticks;
        case U_CORE: return l->has_core;
        case U_NS: return l->has_ps;
        default: return true;
        }
}

static const struct lat_stat *level_stat(const struct lat_levels *l, const struct lat_level *v,
                                         enum unit u)
{
        switch (u) {
        case U_TICKS: return &v->lat_tick;
        case U_CORE: return &v->lat_core;
        case U_NS: return &v->lat_ps;
        default: return legacy_is_core(l) ? &v->lat_core : &v->lat_mcyc;
        }
}

static uint64_t bound_of(const struct lat_levels *l, size_t k, enum unit u)
{
        switch (u) {
        case U_TICKS: return l->bound_tick[k];
        case U_CORE: return l->bound_core[k];
        case U_NS: return l->bound_ps[k];
        default: return legacy_is_core(l) ? l->bound_core[k] : l->bound_mcyc[k];
        }
}

/* {min, p10, p50, p90, p50_lo, p50_hi}: milli-units and ps both give 3 decimals. */
static void json_stat(struct json_w *w, const char *key, const struct lat_stat *s)
{
        json_obj_begin(w, key);
        json_fixed(w, "min", (int64_t)s->min, 3);
        json_fixed(w, "p10", (int64_t)s->p10, 3);
        json_fixed(w, "p50", (int64_t)s->p50, 3);
        json_fixed(w, "p90", (int64_t)s->p90, 3);
        if (s->p50_hi) {
                json_fixed(w, "p50_lo", (int64_t)s->p50_lo, 3);
                json_fixed(w, "p50_hi", (int64_t)s->p50_hi, 3);
        } else {
                json_null(w, "p50_lo");
                json_null(w, "p50_hi");
        }
        json_obj_end(w);
}

static void ratio_or_null(struct json_w *w, const char *key, uint32_t ppm)
{
        if (ppm)
                json_fixed(w, key, (int64_t)ppm, 6);
        else
                json_null(w, key);
}

/* The name schema 1.0 gave the clock of `cycles`. */
static const char *legacy_clock(const struct lat_table_meta *m, const struct lat_curve *c,
                                const struct lat_levels *l)
{
        if (!legacy_is_core(l))
                return c->clock == LAT_CLOCK_TSC && m->timer_name ? m->timer_name
                                                                  : rep_lat_clock_name(c->clock);
        if (c->clock != LAT_CLOCK_TSC)
                return rep_lat_clock_name(c->clock);
        return c->core_source && !strcmp(c->core_source, "APERF/MPERF")
               ? rep_lat_clock_name(LAT_CLOCK_TSC_APERF) : rep_lat_clock_name(LAT_CLOCK_PMU_CYCLES);
}

static void write_machine(struct json_w *w, const struct lat_table_meta *m,
                          const struct lat_curve *c)
{
        json_obj_begin(w, "machine");
        json_str_or_null(w, "vendor", m->vendor);
        json_u64(w, "family", m->family);
        json_u64(w, "model", m->model);
        json_u64(w, "stepping", m->stepping);
        json_str_or_null(w, "brand", m->brand);
        if (m->microcode_valid)
                json_hex(w, "microcode", m->microcode);
        else
                json_null(w, "microcode");
        json_u64_or_null(w, "core_hz", c->core_hz);
        json_u64_or_null(w, "tsc_hz", m->tsc_hz);
        json_str_or_null(w, "smbios_manufacturer", m->smbios_manufacturer);
        json_str_or_null(w, "smbios_product", m->smbios_product);
        json_u64_or_null(w, "nodes", m->n_nodes);
        json_bool(w, "hypervisor", m->hypervisor);
        json_obj_end(w);
}

/* method.core_clock: where the core:TSC ratio came from and what it was, or why not. */
static void write_core_clock(struct json_w *w, const struct lat_curve *c,
                             const struct lat_levels *l)
{
        bool core_curve = c->clock != LAT_CLOCK_TSC;

        json_obj_begin(w, "core_clock");
        json_str_or_null(w, "source", core_curve ? rep_lat_clock_name(c->clock) : c->core_source);
        ratio_or_null(w, "core_per_tsc", c->core_ppm);
        ratio_or_null(w, "core_per_tsc_min", c->core_ppm_lo);
        ratio_or_null(w, "core_per_tsc_max", c->core_ppm_hi);
        if (l->has_core)
                json_null(w, "reason");
        else
                json_str(w, "reason", c->core_why ? c->core_why : "no core clock source");
        if (!c->core_ppm && c->est_ppm) { /* 1.5: no counter, an estimate */
                json_obj_begin(w, "estimate");
                json_str(w, "method", c->est_method ? c->est_method : "estimate");
                ratio_or_null(w, "core_per_tsc", c->est_ppm);
                ratio_or_null(w, "core_per_tsc_min", c->est_ppm_lo);
                ratio_or_null(w, "core_per_tsc_max", c->est_ppm_hi);
                json_obj_end(w);
        }
        json_obj_end(w);
}

static void write_method(struct json_w *w, const struct lat_table_meta *m,
                         const struct lat_curve *c, const struct lat_levels *l)
{
        json_obj_begin(w, "method");
        json_str_or_null(w, "kernel", m->kernel);
        json_str_or_null(w, "layout", m->layout);
        json_u64_or_null(w, "page_bytes", m->page_bytes);
        if (m->page_tables)
                json_str(w, "page_tables", m->page_tables);
        json_u64(w, "windows", m->n_windows);
        json_u64_or_null(w, "max_windows", m->max_windows);
        json_u64_or_null(w, "passes", m->passes);
        if (m->ci_permille)
                json_fixed(w, "median_ci_target", (int64_t)m->ci_permille, 3);
        else
                json_null(w, "median_ci_target");
        json_u64(w, "points_settled", m->n_settled);
        json_u64(w, "points_remeasured", m->n_remeasured);
        json_u64_or_null(w, "loads_per_window", m->loads_per_window);
        if (m->buffer_planned_bytes) {
                json_obj_begin(w, "buffer_reduced");
                json_u64(w, "planned_bytes", m->buffer_planned_bytes);
                json_u64(w, "bytes", m->buffer_bytes);
                json_str_or_null(w, "reason", m->buffer_why);
                json_obj_end(w);
        }
        json_str(w, "clock", legacy_clock(m, c, l));
        write_core_clock(w, c, l);
        json_str_or_null(w, "prefetchers", m->prefetchers);
        json_str_or_null(w, "pmucal_version", m->pmucal_version);
        json_str_or_null(w, "platform", m->platform);
        json_str_or_null(w, "date", m->date);
        json_str_or_null(w, "date_zone", m->date ? m->date_zone : NULL);
        json_u64(w, "points", c->n);
        json_u64(w, "min_ws_bytes", c->n ? c->pts[0].ws_bytes : 0);
        json_u64(w, "max_ws_bytes", c->n ? c->pts[c->n - 1].ws_bytes : 0);
        json_obj_end(w);
}

static void write_level(struct json_w *w, const struct lat_levels *l, const struct lat_level *v)
{
        json_obj_begin(w, NULL);
        json_str(w, "name", v->name);
        json_u64_or_null(w, "capacity_bytes", v->capacity_bytes);
        if (v->capacity_bytes && v->capacity_hi_bytes) {
                json_arr_begin(w, "capacity_interval_bytes");
                json_u64(w, NULL, v->capacity_lo_bytes);
                json_u64(w, NULL, v->capacity_hi_bytes);
                json_arr_end(w);
        } else {
                json_null(w, "capacity_interval_bytes");
        }
        json_u64_or_null(w, "cpuid_capacity_bytes", v->cpuid_capacity_bytes);
        json_u64_or_null(w, "cpuid_level", v->cpuid_level);
        json_str(w, "agreement", lv_agree_name(v->agreement));
        json_u64(w, "first_ws_bytes", v->ws_lo_bytes);
        json_u64(w, "last_ws_bytes", v->ws_hi_bytes);
        for (enum unit u = U_TICKS; u < U__COUNT; u++)
                if (unit_known(l, u))
                        json_stat(w, unit_keys[u], level_stat(l, v, u));
                else
                        json_null(w, unit_keys[u]);
        ratio_or_null(w, "core_per_tsc", l->has_core && l->has_ticks ? v->core_ppm : 0);
        json_obj_end(w);
}

static void write_bounds(struct json_w *w, const struct lat_levels *l)
{
        json_obj_begin(w, "bucket_upper_bounds");
        for (enum unit u = U_TICKS; u < U__COUNT; u++) {
                if (!unit_known(l, u)) {
                        json_null(w, unit_keys[u]);
                        continue;
                }
                json_arr_begin(w, unit_keys[u]);
                for (size_t k = 0; k + 1 < l->n; k++)
                        json_fixed(w, NULL, (int64_t)bound_of(l, k, u), 3);
                json_arr_end(w);
        }
        json_obj_end(w);
}

void rep_lat_json_levels(struct json_w *w, const struct lat_levels *l)
{
        json_arr_begin(w, "levels");
        for (size_t k = 0; k < l->n; k++)
                write_level(w, l, &l->lv[k]);
        json_arr_end(w);
        write_bounds(w, l);
}

status_t rep_lat_json(struct rep_buf *out, const struct lat_table_meta *m,
                      const struct lat_curve *c, const struct lat_levels *l,
                      const struct lat_json_section *extra, size_t n_extra)
{
        struct json_w w;

        if (!out || !m || !c || !l || l->n == 0 || l->n > LAT_MAX_LEVELS || (n_extra && !extra))
                return ST_BAD_ARG;
        json_init(&w, out);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", LAT_TABLE_SCHEMA);
        write_machine(&w, m, c);
        write_method(&w, m, c, l);

        rep_lat_json_levels(&w, l);

        json_arr_begin(&w, "flags");
        for (unsigned b = 0; b < 64; b++)
                if ((l->flags & BIT_ULL(b)) && lv_flag_name(BIT_ULL(b)))
                        json_str(&w, NULL, lv_flag_name(BIT_ULL(b)));
        if (m->buffer_planned_bytes)
                json_str(&w, NULL, "buffer_reduced");
        json_arr_end(&w);

        json_obj_begin(&w, "noise");
        json_fixed(&w, "point_octaves", (int64_t)l->noise_q8 * 1000 / 256, 3);
        json_fixed(&w, "window_spread_octaves", (int64_t)l->spread_q8 * 1000 / 256, 3);
        json_obj_end(&w);

        for (size_t i = 0; i < n_extra; i++)
                if (extra[i].write)
                        extra[i].write(&w, extra[i].ctx);
        json_obj_end(&w);
        return json_finish(&w);
}
