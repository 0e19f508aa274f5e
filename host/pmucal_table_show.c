/** @file pmucal-table check and show: validate a latency or TLB table (a latency table's tlb
 *  member too), and print what the library read from it as text, JSON (--json: the loaded
 *  values, null for unknown, derived bounds included) or CSV (--csv: one row per level or
 *  TLB class, '#' lines naming the file and the clock). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "host/include/pmucal/numa.h"
#include "host/pmucal_table.h"
#include "lib/fmt.h"

enum fmt { F_TEXT, F_JSON, F_CSV };

static int check_tlb(const char *path, const char *what)
{
        struct pmucal_tlb *k = cli_load_tlb(path);
        size_t             n = 0;

        if (!k)
                return EXIT_BAD;
        for (size_t i = 0; i < k->n_curves; i++)
                n += k->curves[i].n_classes;
        printf("%s: ok, %s%s, %zu curve%s, %zu classes\n", cli_esc(path), what, cli_esc(k->schema),
               k->n_curves, k->n_curves == 1 ? "" : "s", n);
        pmucal_tlb_free(k);
        return 0;
}

int cmd_check(const char *path)
{
        struct pmucal_table *t;
        struct pmucal_numa  *nm;
        char                 err[512];
        enum pmucal_err      e = pmucal_table_load(path, &t, err, sizeof(err));
        int                  rc;

        if (e == PMUCAL_E_KIND && (rc = cli_other_file(path, false)) >= 0)
                return rc;
        if (e == PMUCAL_E_KIND)
                return check_tlb(path, "");
        if (e != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return EXIT_BAD;
        }
        printf("%s: ok, %s, %zu level%s:", cli_esc(path), cli_esc(t->schema), t->n_levels,
               t->n_levels == 1 ? "" : "s");
        for (size_t i = 0; i < t->n_levels; i++)
                printf(" %s", cli_esc(t->levels[i].name));
        printf("\n");
        if (t->n_unknown)
                printf("%s: note: %zu value(s) of a later schema minor read as unknown, first %s\n",
                       cli_esc(path), t->n_unknown, cli_esc(t->unknown_first));
        rc = t->has_tlb ? check_tlb(path, "tlb member ") : 0;
        pmucal_table_free(t);
        if (pmucal_numa_load(path, &nm, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err); /* the library escaped it */
                return EXIT_BAD;
        }
        if (nm->n_unknown)
                printf("%s: note: %zu value(s) of a later schema minor read as unknown, first %s\n",
                       cli_esc(path), nm->n_unknown, cli_esc(nm->unknown_first));
        pmucal_numa_free(nm);
        return rc ? EXIT_BAD : 0;
}

/* ---- text ------------------------------------------------------------------------------- */

static void print_stat(const char *unit, const struct pmucal_stat *s)
{
        printf(" %s p50 %.3f (p10 %.3f, p90 %.3f, min %.3f)", unit, s->p50, s->p10, s->p90, s->min);
}

/* One line per level set: what it covers, where it was measured, its levels' medians. */
static void show_core_set(size_t i, const struct pmucal_core_set *s, const char *u)
{
        char sz[32];

        printf("set %zu:    core type %s, caches", i, s->core_type ? cli_esc(s->core_type) : "-");
        for (size_t k = 0; k < s->n_cache_levels; k++)
                printf("%s%s", k ? " / " : " ", fmt_size(sz, sizeof(sz), s->cache_bytes[k]));
        printf("%s; APIC IDs", s->n_cache_levels ? "" : " none reported");
        for (size_t k = 0; k < s->n_apic_ids; k++)
                printf("%s%u", k ? "," : " ", s->apic_ids[k]);
        printf("; %zu LLC domain%s%s", s->n_llc_domains, s->n_llc_domains == 1 ? "" : "s",
               s->n_llc_domains > 1 ? " (alike, calibrated once)" : "");
        if (!s->measured) {
                printf("; not measured: %s\n", cli_esc(s->why_not_measured));
                return;
        }
        printf("; %s APIC ID %u:", s->bsp_set ? "the BSP's levels," : "measured on",
               s->measured_on_apic_id);
        for (size_t k = 0; k < s->n_levels; k++)
                printf("%s %s %.3f %s", k ? "," : "", cli_esc(s->levels[k].name),
                       s->levels[k].has_ns ? s->levels[k].ns.p50 : s->levels[k].cycles.p50,
                       s->levels[k].has_ns ? "ns" : u);
        printf("\n");
}

static void show_table_text(const char *path, const struct pmucal_table *t)
{
        const char *u = pmucal_unit_name(t->cycles_unit);

        printf("table:    %s (%s)\n", cli_esc(path), cli_esc(t->schema));
        printf("machine:  %s family/model %xh/%xh (%u/%u) stepping %u, brand %s\n",
               cli_str(t->vendor), t->family, t->model, t->family, t->model, t->stepping,
               cli_str(t->brand));
        if (t->has_microcode)
                printf("          microcode 0x%llx\n", (unsigned long long)t->microcode);
        if (t->core_hz)
                printf("          core %.3f GHz, ", t->core_hz / 1e9);
        else
                printf("          core clock unknown, ");
        printf("TSC %.3f GHz, ", t->tsc_hz / 1e9);
        if (t->smbios_manufacturer || t->smbios_product)
                printf("SMBIOS %s %s, ", cli_str(t->smbios_manufacturer), cli_str(t->smbios_product));
        else
                printf("SMBIOS unknown, ");
        if (t->nodes)
                printf("%u node(s)\n", t->nodes);
        else
                printf("nodes unknown\n");
        printf("method:   %s, layout %s, %llu-byte pages, %u windows, prefetchers %s, pmucal %s, "
               "date %s\n", cli_str(t->kernel), cli_str(t->layout),
               (unsigned long long)t->page_bytes, t->windows, cli_str(t->prefetchers),
               cli_str(t->pmucal_version), cli_str(t->date));
        printf("clock:    %s: figures in %s", cli_esc(t->clock),
               t->cycles_unit == PMUCAL_UNIT_TSC ? "TSC ticks"
               : t->cycles_unit == PMUCAL_UNIT_CORE ? "core cycles" : "in a clock this library does not know");
        if (t->has_core_ratio) {
                printf("; core:TSC ratio %.3f", t->core_per_tsc);
                if (t->core_per_tsc_min > 0 && t->core_per_tsc_max > 0)
                        printf(" (%.3f..%.3f)", t->core_per_tsc_min, t->core_per_tsc_max);
                printf(", %s %s\n", t->core_ratio_estimated ? "estimated by" : "from",
                       cli_str(t->core_ratio_source));
        } else {
                printf("; no core:TSC ratio (core cycles need --core-ghz)\n");
        }
        for (size_t i = 0; i < t->n_levels; i++) {
                const struct pmucal_level *l = &t->levels[i];
                char sz[2][32];

                printf("level %-5s", cli_esc(l->name));
                if (l->capacity_bytes)
                        printf(" capacity %s", fmt_size(sz[0], sizeof(sz[0]), l->capacity_bytes));
                if (l->cpuid_capacity_bytes)
                        printf(" (CPUID L%u %s, %s)", l->cpuid_level,
                               fmt_size(sz[1], sizeof(sz[1]), l->cpuid_capacity_bytes),
                               cli_esc(l->agreement));
                print_stat(u, &l->cycles);
                if (l->has_ns)
                        print_stat("ns", &l->ns);
                if (l->has_upper)
                        printf(" bucket <= %.3f %s", l->upper_cycles, u);
                if (l->has_ceiling)
                        printf(" ceiling %.3f %s", l->ceiling_cycles, u);
                printf("\n");
        }
        printf("flags:   ");
        for (size_t i = 0; i < t->n_flags; i++)
                printf(" %s", cli_esc(t->flags[i]));
        printf("%s\n", t->n_flags ? "" : " none");
        for (size_t i = 0; i < t->n_core_sets; i++)
                show_core_set(i, &t->core_sets[i], u);
}

static void show_tlb_text(const char *path, const struct pmucal_tlb *k)
{
        printf("table:    %s (%s)\n", cli_esc(path), cli_esc(k->schema));
        printf("clock:    %s%s\n", cli_esc(k->clock),
               k->clock_stated ? "" : " (not stated: pmucal.tlb/1 writers time with the TSC)");
        for (size_t i = 0; i < k->n_curves; i++) {
                const struct pmucal_tlb_curve *c = &k->curves[i];
                printf("curve %s, %llu-byte pages, PTEs %s:", c->side_name,
                       (unsigned long long)c->page_bytes, c->pte_name);
                for (size_t j = 0; j < c->n_levels; j++)
                        printf(" L%zu %llu entries%s", j + 1, (unsigned long long)c->level_entries[j],
                               j + 1 < c->n_levels ? "," : "");
                printf("\n");
                for (size_t j = 0; j < c->n_classes; j++) {
                        const struct pmucal_tlb_class *x = &c->classes[j];
                        printf("  class %-7s %.3f per access, +%.3f over an L1 hit, pages %llu..%llu",
                               x->label, x->lat_cycles, x->added_cycles,
                               (unsigned long long)x->first_pages, (unsigned long long)x->last_pages);
                        if (x->has_upper)
                                printf(", bucket <= +%.3f", x->upper_added_cycles);
                        printf("\n");
                }
        }
}

/* ---- JSON ------------------------------------------------------------------------------- */

/* JSON null. Not jansson's json_null(): report/json.c, in the same link, defines a function
 * of that name for pmucal's own writer, and an archive member could win. */
static json_t *jnull(void)
{
        return json_pack("n");
}

static json_t *jstr(const char *s)
{
        return s ? json_string(s) : jnull();
}

static json_t *ju64(uint64_t v)
{
        return v ? json_integer((json_int_t)v) : jnull();
}

static json_t *jstat(const struct pmucal_stat *s)
{
        return json_pack("{s:f,s:f,s:f,s:f}", "min", s->min, "p10", s->p10, "p50", s->p50, "p90",
                         s->p90);
}

/* The level sets (1.4) with each set's level medians; [] for an older table. */
static json_t *core_sets_json(const struct pmucal_table *t)
{
        json_t *a = json_array();

        for (size_t i = 0; i < t->n_core_sets; i++) {
                const struct pmucal_core_set *s = &t->core_sets[i];
                json_t *ids = json_array(), *lv = json_array();
                for (size_t k = 0; k < s->n_apic_ids; k++)
                        json_array_append_new(ids, json_integer(s->apic_ids[k]));
                for (size_t k = 0; k < s->n_levels; k++)
                        json_array_append_new(lv, json_pack("{s:o,s:o,s:o}", "name",
                                                            jstr(s->levels[k].name), "cycles",
                                                            jstat(&s->levels[k].cycles), "ns",
                                                            s->levels[k].has_ns
                                                                    ? jstat(&s->levels[k].ns)
                                                                    : jnull()));
                json_array_append_new(a, json_pack("{s:o,s:o,s:I,s:b,s:b,s:o,s:o}", "core_type",
                                                   jstr(s->core_type), "apic_ids", ids,
                                                   "measured_on_apic_id",
                                                   (json_int_t)s->measured_on_apic_id, "bsp_set",
                                                   s->bsp_set, "measured", s->measured,
                                                   "why_not_measured", jstr(s->why_not_measured),
                                                   "levels", lv));
        }
        return a;
}

static json_t *table_json(const struct pmucal_table *t)
{
        json_t *lv = json_array(), *fl = json_array();

        for (size_t i = 0; i < t->n_levels; i++) {
                const struct pmucal_level *l = &t->levels[i];
                json_array_append_new(lv, json_pack(
                        "{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "name", jstr(l->name),
                        "capacity_bytes", ju64(l->capacity_bytes), "cpuid_capacity_bytes",
                        ju64(l->cpuid_capacity_bytes), "cpuid_level", ju64(l->cpuid_level),
                        "agreement", jstr(l->agreement), "cycles", jstat(&l->cycles), "ns",
                        l->has_ns ? jstat(&l->ns) : jnull(), "upper_cycles",
                        l->has_upper ? json_real(l->upper_cycles) : jnull(), "upper_ns",
                        l->has_upper && l->has_ns ? json_real(l->upper_ns) : jnull(),
                        "ceiling_cycles", l->has_ceiling ? json_real(l->ceiling_cycles) : jnull(),
                        "ceiling_ns", l->has_ceiling && l->has_ns ? json_real(l->ceiling_ns) : jnull()));
        }
        for (size_t i = 0; i < t->n_flags; i++)
                json_array_append_new(fl, json_string(t->flags[i]));
        return json_pack(
                "{s:o,s:{s:o,s:i,s:i,s:i,s:o,s:o,s:o,s:o,s:o,s:o},s:{s:o,s:o,s:o,s:i,s:o,s:o,s:o,s:o},"
                "s:{s:s,s:b,s:o,s:o,s:b},s:o,s:o,s:o}",
                "schema", jstr(t->schema), "machine", "vendor", jstr(t->vendor), "family", t->family,
                "model", t->model, "stepping", t->stepping, "brand", jstr(t->brand), "core_hz",
                ju64(t->core_hz), "tsc_hz", ju64(t->tsc_hz), "smbios_manufacturer",
                jstr(t->smbios_manufacturer), "smbios_product", jstr(t->smbios_product), "nodes",
                ju64(t->nodes), "method", "kernel", jstr(t->kernel), "layout", jstr(t->layout),
                "page_bytes", ju64(t->page_bytes), "windows", t->windows, "clock", jstr(t->clock),
                "prefetchers", jstr(t->prefetchers), "pmucal_version", jstr(t->pmucal_version), "date",
                jstr(t->date), "units", "cycles", pmucal_unit_name(t->cycles_unit), "core_ratio_measured",
                t->has_core_ratio && !t->core_ratio_estimated, "core_per_tsc",
                t->has_core_ratio ? json_real(t->core_per_tsc) : jnull(), "core_ratio_source",
                jstr(t->core_ratio_source), "core_ratio_estimated", t->core_ratio_estimated,
                "levels", lv, "flags", fl, "core_sets", core_sets_json(t));
}

static json_t *tlb_json(const struct pmucal_tlb *k)
{
        json_t *cs = json_array();

        for (size_t i = 0; i < k->n_curves; i++) {
                const struct pmucal_tlb_curve *c  = &k->curves[i];
                json_t                        *lv = json_array(), *cl = json_array();
                for (size_t j = 0; j < c->n_levels; j++)
                        json_array_append_new(lv, json_integer((json_int_t)c->level_entries[j]));
                for (size_t j = 0; j < c->n_classes; j++) {
                        const struct pmucal_tlb_class *x = &c->classes[j];
                        json_array_append_new(cl, json_pack(
                                "{s:s,s:s,s:i,s:f,s:f,s:o,s:I,s:I}", "label", x->label, "kind", x->name,
                                "ordinal", x->ordinal, "lat_cycles", x->lat_cycles, "added_cycles",
                                x->added_cycles, "upper_added_cycles",
                                x->has_upper ? json_real(x->upper_added_cycles) : jnull(),
                                "first_pages", (json_int_t)x->first_pages, "last_pages",
                                (json_int_t)x->last_pages));
                }
                json_array_append_new(cs, json_pack("{s:s,s:I,s:s,s:o,s:o}", "side", c->side_name,
                                                    "page_bytes", (json_int_t)c->page_bytes, "pte",
                                                    c->pte_name, "level_entries", lv, "classes", cl));
        }
        return json_pack("{s:o,s:o,s:b,s:o}", "schema", jstr(k->schema), "clock", jstr(k->clock),
                         "clock_stated", k->clock_stated, "curves", cs);
}

/* ---- CSV -------------------------------------------------------------------------------- */

/* A CSV field: escaped, and quoted when it holds a comma or a quote; empty for null. */
static void csv_str(const char *s, const char *sep)
{
        const char *e = s ? cli_esc(s) : "";

        if (strpbrk(e, ",\"")) {
                putchar('"');
                for (; *e; e++)
                        printf(*e == '"' ? "\"\"" : "%c", *e);
                putchar('"');
        } else {
                fputs(e, stdout);
        }
        fputs(sep, stdout);
}

static void csv_num(bool has, double v, const char *sep)
{
        if (has)
                printf("%.3f", v);
        fputs(sep, stdout);
}

/* The column suffix of figures in @p u, as the JSON members name them (tsc_ticks, core_cycles);
 * "cycles" for a clock this library does not know. */
static const char *unit_col(enum pmucal_unit u)
{
        return u == PMUCAL_UNIT_TSC ? "tsc_ticks" : u == PMUCAL_UNIT_CORE ? "core_cycles" : "cycles";
}

static void show_table_csv(const char *path, const struct pmucal_table *t)
{
        const char *u = unit_col(t->cycles_unit);

        printf("# pmucal-table show --csv %s: %s, figures in %s and ns (clock %s)\n", cli_esc(path),
               cli_esc(t->schema), u, cli_esc(t->clock));
        printf("level,name,capacity_bytes,cpuid_capacity_bytes,agreement,min_%s,p10_%s,p50_%s,"
               "p90_%s,min_ns,p10_ns,p50_ns,p90_ns,upper_%s,upper_ns\n", u, u, u, u, u);
        for (size_t i = 0; i < t->n_levels; i++) {
                const struct pmucal_level *l = &t->levels[i];
                printf("%zu,", i);
                csv_str(l->name, ",");
                l->capacity_bytes ? printf("%llu,", (unsigned long long)l->capacity_bytes) : printf(",");
                l->cpuid_capacity_bytes ? printf("%llu,", (unsigned long long)l->cpuid_capacity_bytes)
                                        : printf(",");
                csv_str(l->agreement, ",");
                printf("%.3f,%.3f,%.3f,%.3f,", l->cycles.min, l->cycles.p10, l->cycles.p50, l->cycles.p90);
                csv_num(l->has_ns, l->ns.min, ",");
                csv_num(l->has_ns, l->ns.p10, ",");
                csv_num(l->has_ns, l->ns.p50, ",");
                csv_num(l->has_ns, l->ns.p90, ",");
                csv_num(l->has_upper, l->upper_cycles, ",");
                csv_num(l->has_upper && l->has_ns, l->upper_ns, "\n");
        }
}

static void show_tlb_csv(const char *path, const struct pmucal_tlb *k)
{
        const char *u = unit_col(k->cycles_unit);

        printf("# pmucal-table show --csv %s: %s, figures in %s (clock %s)\n", cli_esc(path),
               cli_esc(k->schema), u, cli_esc(k->clock));
        printf("side,page_bytes,pte,class,kind,ordinal,lat_%s,added_%s,upper_added_%s,"
               "first_pages,last_pages\n", u, u, u);
        for (size_t i = 0; i < k->n_curves; i++)
                for (size_t j = 0; j < k->curves[i].n_classes; j++) {
                        const struct pmucal_tlb_curve *c = &k->curves[i];
                        const struct pmucal_tlb_class *x = &c->classes[j];
                        printf("%s,%llu,%s,%s,%s,%u,%.3f,%.3f,", c->side_name,
                               (unsigned long long)c->page_bytes, c->pte_name, x->label, x->name,
                               x->ordinal, x->lat_cycles, x->added_cycles);
                        csv_num(x->has_upper, x->upper_added_cycles, ",");
                        printf("%llu,%llu\n", (unsigned long long)x->first_pages,
                               (unsigned long long)x->last_pages);
                }
}

/* The levels' unknown values added to show --json's "unknown_values" (which counts the remote
 * sections'); the first named is the levels' first. */
static void add_unknown(json_t *j, const struct pmucal_table *t)
{
        json_t    *u = json_object_get(j, "unknown_values");
        json_int_t n = json_integer_value(json_object_get(u, "count"));

        if (!json_is_object(u))
                return;
        json_object_set_new(u, "count", json_integer(n + (json_int_t)t->n_unknown));
        json_object_set_new(u, "first", json_string(t->unknown_first));
}

int cmd_show(int argc, char **argv)
{
        enum fmt             f = F_TEXT;
        struct pmucal_table *t;
        struct pmucal_tlb   *k = NULL;
        char                 err[512];
        enum pmucal_err      e;
        int                  rc;

        if (argc == 2 && (!strcmp(argv[0], "--json") || !strcmp(argv[0], "--csv"))) {
                f = argv[0][2] == 'j' ? F_JSON : F_CSV;
                argv++, argc--;
        }
        if (argc != 1 || argv[0][0] == '-') {
                fprintf(stderr, "pmucal-table: show: wrong arguments ([--json|--csv] FILE)\n");
                return EXIT_USAGE;
        }
        e = pmucal_table_load(argv[0], &t, err, sizeof(err));
        if (e == PMUCAL_E_KIND && f == F_TEXT && (rc = cli_other_file(argv[0], true)) >= 0)
                return rc;
        if (e == PMUCAL_E_KIND && !(k = cli_load_tlb(argv[0])))
                return EXIT_BAD;
        if (e != PMUCAL_OK && e != PMUCAL_E_KIND) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return EXIT_BAD;
        }
        if (f == F_JSON) {
                json_t *j = k ? tlb_json(k) : table_json(t);
                json_t *r = k || !j ? NULL : cli_remote_json(argv[0]);
                if (!k && j && (!r || json_object_update(j, r))) {
                        json_decref(j);
                        j = NULL;
                }
                if (j && t && t->n_unknown)
                        add_unknown(j, t);
                json_decref(r);
                if (!j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                                        JSON_REAL_PRECISION(10))) {
                        fprintf(stderr, "pmucal-table: %s: cannot write it as JSON\n", cli_esc(argv[0]));
                        e = PMUCAL_E_NOMEM;
                }
                putchar('\n');
                json_decref(j);
        } else if (f == F_CSV) {
                k ? show_tlb_csv(argv[0], k) : show_table_csv(argv[0], t);
                if (!k && cli_remote_csv(argv[0]))
                        e = PMUCAL_E_NOMEM; /* said why; exit EXIT_BAD below */
        } else {
                k ? show_tlb_text(argv[0], k) : show_table_text(argv[0], t);
                if (t && t->n_unknown)
                        printf("note:     %zu value(s) of a later schema minor read as unknown, "
                               "first %s\n", t->n_unknown, cli_esc(t->unknown_first));
        }
        pmucal_table_free(t);
        pmucal_tlb_free(k);
        if (e == PMUCAL_E_NOMEM)
                return EXIT_BAD;
        return f == F_TEXT && !k ? cli_show_remote(argv[0]) : 0;
}
