/** @file Level sets per core type and cache domain (see lattable_sets.h). */
#include "report/lattable_sets.h"

#include "lib/fmt.h"

#define CORE_TYPE_ATOM 0x20 /* CPUID.1AH:EAX[31:24] [SDM-2A] */
#define CORE_TYPE_CORE 0x40

static bool same_geometry(const struct lat_set *s, const struct cpu_topology *t)
{
        for (unsigned k = 0; k < TOPO_CACHE_LEVELS; k++)
                if (s->cache_bytes[k] != t->cache_bytes[k])
                        return false;
        return s->hybrid == t->hybrid && s->core_type == t->core_type;
}

/* Insert @p v into the ascending @p a of *@p n unless it is there. */
static void insert_sorted(uint32_t *a, unsigned *n, uint32_t v)
{
        unsigned i = 0;

        while (i < *n && a[i] < v)
                i++;
        if (i < *n && a[i] == v)
                return;
        memmove(&a[i + 1], &a[i], (*n - i) * sizeof(*a));
        a[i] = v;
        (*n)++;
}

static struct lat_set *find_set(struct lat_sets *o, const struct cpu_topology *t)
{
        for (size_t i = 0; i < o->n; i++)
                if (same_geometry(&o->set[i], t) &&
                    (o->mode != LAT_SETS_DOMAINS || o->set[i].domains[0] == t->llc_domain))
                        return &o->set[i];
        return NULL;
}

static void add_cpu(struct lat_sets *o, const struct lat_set_cpu *c)
{
        struct lat_set *s = find_set(o, &c->topo);

        if (!s) {
                if (o->n == LAT_SETS_MAX) {
                        o->n_left_out++;
                        return;
                }
                s  = &o->set[o->n++];
                *s = (struct lat_set){ .hybrid = c->topo.hybrid, .core_type = c->topo.core_type,
                                       .measure_idx = c->idx, .measure_apic = c->topo.apic_id,
                                       .is_bsp_set = c->is_bsp };
                memcpy(s->cache_bytes, c->topo.cache_bytes, sizeof(s->cache_bytes));
        }
        if (s->n_cpus < LAT_SETS_MAX_CPUS)
                insert_sorted(s->apic_ids, &s->n_cpus, c->topo.apic_id);
        insert_sorted(s->domains, &s->n_domains, c->topo.llc_domain);
        o->n_cpus++;
}

status_t rep_lat_sets_group(const struct lat_set_cpu *cpus, size_t n, enum lat_sets_mode mode,
                        struct lat_sets *out)
{
        if (!out || (n && !cpus) || n > LAT_SETS_MAX_CPUS)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        out->mode = mode;
        for (size_t i = 0; i < n; i++) /* the BSP first: its set is set 0 */
                if (cpus[i].is_bsp)
                        add_cpu(out, &cpus[i]);
        for (size_t i = 0; i < n; i++)
                if (!cpus[i].is_bsp)
                        add_cpu(out, &cpus[i]);
        return ST_OK;
}

const char *rep_lat_core_type_name(const struct lat_set *s)
{
        if (!s->hybrid)
                return NULL;
        return s->core_type == CORE_TYPE_CORE ? "core" : s->core_type == CORE_TYPE_ATOM ? "atom"
                                                                                       : "other";
}

static unsigned n_cache_levels(const struct lat_set *s)
{
        unsigned n = TOPO_CACHE_LEVELS;

        while (n && !s->cache_bytes[n - 1])
                n--;
        return n;
}

static void json_set(struct json_w *w, const struct lat_set *s)
{
        json_obj_begin(w, NULL);
        json_str_or_null(w, "core_type", rep_lat_core_type_name(s));
        if (s->hybrid && s->core_type)
                json_u64(w, "core_type_id", s->core_type);
        else
                json_null(w, "core_type_id");
        json_arr_begin(w, "cache_bytes");
        for (unsigned k = 0; k < n_cache_levels(s); k++)
                if (s->cache_bytes[k])
                        json_u64(w, NULL, s->cache_bytes[k]);
                else
                        json_null(w, NULL);
        json_arr_end(w);
        json_arr_begin(w, "apic_ids");
        for (unsigned i = 0; i < s->n_cpus; i++)
                json_u64(w, NULL, s->apic_ids[i]);
        json_arr_end(w);
        json_arr_begin(w, "llc_domains");
        for (unsigned i = 0; i < s->n_domains; i++)
                json_u64(w, NULL, s->domains[i]);
        json_arr_end(w);
        json_u64(w, "measured_on_apic_id", s->measure_apic);
        json_bool(w, "bsp_set", s->is_bsp_set);
        json_bool(w, "measured", s->measured);
        json_str_or_null(w, "why_not_measured", s->measured ? NULL : s->why_not);
        if (s->measured) {
                rep_lat_json_levels(w, &s->lv);
        } else {
                json_null(w, "levels");
                json_null(w, "bucket_upper_bounds");
        }
        json_obj_end(w);
}

void rep_lat_sets_json(struct json_w *w, void *ctx)
{
        const struct lat_sets *o = ctx;

        json_obj_begin(w, "core_types");
        json_str(w, "mode", o->mode == LAT_SETS_DOMAINS ? "domains" : "auto");
        json_u64(w, "n_processors", o->n_cpus);
        json_u64(w, "n_left_out", o->n_left_out);
        json_arr_begin(w, "sets");
        for (size_t i = 0; i < o->n; i++)
                json_set(w, &o->set[i]);
        json_arr_end(w);
        json_obj_end(w);
}

/* "0-3,8,10-11" from the ascending @p a. */
static void ranges(struct rep_buf *out, const uint32_t *a, unsigned n)
{
        for (unsigned i = 0; i < n;) {
                unsigned j = i;
                while (j + 1 < n && a[j + 1] == a[j] + 1)
                        j++;
                if (j == i)
                        rep_buf_printf(out, "%s%u", i ? "," : "", a[i]);
                else
                        rep_buf_printf(out, "%s%u-%u", i ? "," : "", a[i], a[j]);
                i = j + 1;
        }
}

static void text_set(struct rep_buf *out, size_t i, const struct lat_set *s)
{
        const char *type = rep_lat_core_type_name(s);
        char        a[24];

        rep_buf_printf(out, "  set %zu: core type %s, caches", i, type ? type : "-");
        for (unsigned k = 0; k < n_cache_levels(s); k++)
                rep_buf_printf(out, "%s%s", k ? "/" : " ",
                               s->cache_bytes[k] ? fmt_size(a, sizeof(a), s->cache_bytes[k]) : "-");
        if (!n_cache_levels(s))
                rep_buf_printf(out, " none reported");
        rep_buf_printf(out, "; %u processor%s (APIC IDs ", s->n_cpus, s->n_cpus == 1 ? "" : "s");
        ranges(out, s->apic_ids, s->n_cpus);
        rep_buf_printf(out, "), %u LLC domain%s", s->n_domains, s->n_domains == 1 ? "" : "s");
        if (s->n_domains > 1)
                rep_buf_printf(out, " alike, calibrated once");
        if (s->is_bsp_set)
                rep_buf_printf(out, ": the BSP's levels (the table's)");
        else if (s->measured)
                rep_buf_printf(out, ": measured on APIC ID %u", s->measure_apic);
        else
                rep_buf_printf(out, ": not measured (%s)", s->why_not ? s->why_not : "?");
        for (size_t k = 0; s->measured && k < s->lv.n; k++) {
                const struct lat_level *v = &s->lv.lv[k];
                uint64_t                ps = s->lv.has_ps ? v->lat_ps.p50 : 0;
                rep_buf_printf(out, "%s%s %s %s", k ? ", " : "; ", v->name,
                               fmt_fixed(a, sizeof(a), (int64_t)(ps ? ps : v->lat_mcyc.p50), ps ? 3 : 3),
                               ps ? "ns" : "ticks");
        }
        rep_buf_printf(out, "\n");
}

status_t rep_lat_sets_text(struct rep_buf *out, const struct lat_sets *s)
{
        if (!out || !s)
                return ST_BAD_ARG;
        rep_buf_printf(out, "level sets (%s): %u processors in %zu set%s\n",
                       s->mode == LAT_SETS_DOMAINS ? "one per LLC domain"
                                                   : "by core type and cache geometry",
                       s->n_cpus, s->n, s->n == 1 ? "" : "s");
        for (size_t i = 0; i < s->n; i++)
                text_set(out, i, &s->set[i]);
        return out->oom ? ST_NO_MEM : ST_OK;
}
