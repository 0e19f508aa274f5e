/** @file The configuration keys of pmucal.cfg as one table (name, field, type, default, allowed
 *  values), the accessors of a key's field, and the effective settings printed and written as
 *  JSON (see config.h; the parser is config.c). */
#include "app/config.h"
#include "app/config_priv.h"

#include "lib/base.h"
#include "lib/fmt.h"
#include "report/json.h"
#include "report/rep.h"

static const char *const profile_names[] = {
        [CONFIG_PROFILE_QUICK]    = "quick",
        [CONFIG_PROFILE_FULL]     = "full",
        [CONFIG_PROFILE_PMU]      = "pmu",
        [CONFIG_PROFILE_SAMPLING] = "sampling",
        [CONFIG_PROFILE_TLB]      = "tlb",
};
static const char *const on_exit_names[] = {
        [CONFIG_EXIT_RETURN]   = "return",
        [CONFIG_EXIT_SHUTDOWN] = "shutdown",
        [CONFIG_EXIT_REBOOT]   = "reboot",
};
static const char *const auto_names[] = {
        [CONFIG_AUTO] = "auto",
        [CONFIG_ON]   = "on",
        [CONFIG_OFF]  = "off",
};
static const char *const prefetch_names[] = {
        [CONFIG_PREFETCH_KEEP] = "keep",
        [CONFIG_PREFETCH_OFF]  = "off",
};
static const char *const cpus_names[] = {
        [CONFIG_CPUS_ALL] = "all",
        [CONFIG_CPUS_BSP] = "bsp",
};
static const char *const pages_names[] = {
        [CONFIG_PAGES_AUTO] = "auto",
        [CONFIG_PAGES_4K]   = "4k",
        [CONFIG_PAGES_2M]   = "2m",
};

static const char *const sets_names[] = {
        [CONFIG_SETS_AUTO]    = "auto",
        [CONFIG_SETS_DOMAINS] = "domains",
        [CONFIG_SETS_OFF]     = "off",
};

#define FIELD(f) .offset = offsetof(struct pmucal_config, f), \
                 .size   = sizeof(((struct pmucal_config *)0)->f)
#define NAMES(a) .names = (a), .n_names = ARRAY_SIZE(a)

const struct key_desc config_keys[] = {
        { .name = "profile", .type = KT_ENUM, FIELD(profile), NAMES(profile_names),
          .def = CONFIG_PROFILE_QUICK },
        { .name = "on_exit", .type = KT_ENUM, FIELD(on_exit), NAMES(on_exit_names),
          .def = CONFIG_EXIT_RETURN },
        { .name = "serial", .type = KT_BOOL, FIELD(serial), .def = 1 },
        { .name = "debug_exit", .type = KT_ENUM, FIELD(debug_exit), NAMES(auto_names),
          .def = CONFIG_AUTO },
        { .name = "prefetchers", .type = KT_ENUM, FIELD(prefetchers), NAMES(prefetch_names),
          .def = CONFIG_PREFETCH_OFF },
        { .name = "repetitions", .type = KT_UINT, FIELD(repetitions), .min = 11, .max = 1001,
          .def = 11 },
        { .name = "sweep_max_mib", .type = KT_UINT, FIELD(sweep_max_mib), .min = 0,
          .max = 1048576, .zero_name = "auto", .def = 0 },
        { .name = "cpus", .type = KT_CPUS, FIELD(cpus), NAMES(cpus_names),
          .def = CONFIG_CPUS_ALL },
        { .name = "results", .type = KT_BOOL, FIELD(results), .def = 1 },
        { .name = "crash_test", .type = KT_BOOL, FIELD(crash_test), .def = 0 },
        { .name = "latency_pages", .type = KT_ENUM, FIELD(latency_pages), NAMES(pages_names),
          .def = CONFIG_PAGES_AUTO },
        { .name = "level_sets", .type = KT_ENUM, FIELD(level_sets), NAMES(sets_names),
          .def = CONFIG_SETS_AUTO },
        { .name = "collector", .type = KT_URL, FIELD(collector_set), .def = 0 },
        { .name = "upload_tries", .type = KT_UINT, FIELD(upload_tries), .min = 1, .max = 10,
          .def = 3 },
        { .name = "upload_pause_ms", .type = KT_UINT, FIELD(upload_pause_ms), .min = 0,
          .max = 60000, .def = 1000 },
};

_Static_assert(ARRAY_SIZE(config_keys) <= CONFIG_MAX_KEYS, "pmucal_config.from_file has one bit per key");

const size_t config_n_rows = ARRAY_SIZE(config_keys);

void config_key_store(struct pmucal_config *cfg, const struct key_desc *k, uint32_t v)
{
        char    *p  = (char *)cfg + k->offset;
        uint8_t  u8 = (uint8_t)v;
        uint16_t u16 = (uint16_t)v;
        uint64_t u64 = v;

        switch (k->size) {
        case 1: memcpy(p, &u8, 1); break;
        case 2: memcpy(p, &u16, 2); break;
        case 8: memcpy(p, &u64, 8); break;
        default: memcpy(p, &v, 4); break;
        }
}

uint32_t config_key_load(const struct pmucal_config *cfg, const struct key_desc *k)
{
        const char *p = (const char *)cfg + k->offset;
        uint8_t     u8;
        uint16_t    u16;
        uint32_t    u32;
        uint64_t    u64;

        switch (k->size) {
        case 1: memcpy(&u8, p, 1); return u8;
        case 2: memcpy(&u16, p, 2); return u16;
        case 8: memcpy(&u64, p, 8); return (uint32_t)u64;
        default: memcpy(&u32, p, 4); return u32;
        }
}

/* The value of @p k in @p cfg as text (points into a table or into @p buf). */
const char *config_key_text(const struct pmucal_config *cfg, const struct key_desc *k,
                            char *buf, size_t cap)
{
        uint32_t v = config_key_load(cfg, k);

        switch (k->type) {
        case KT_CPUS:
                if (v == CONFIG_CPUS_LIST)
                        return config_cpus_text(&cfg->cpu_list, buf, cap);
                return v < k->n_names && k->names[v] ? k->names[v] : "?";
        case KT_ENUM:
                return v < k->n_names && k->names[v] ? k->names[v] : "?";
        case KT_BOOL:
                return v ? "on" : "off";
        case KT_URL:
                return v ? cfg->collector : "off";
        case KT_UINT:
                if (v == 0 && k->zero_name)
                        return k->zero_name;
                fmt_snprintf(buf, cap, "%u", v);
                return buf;
        }
        return "?";
}

/* ---- public functions ------------------------------------------------------------------ */

void config_defaults(struct pmucal_config *cfg)
{
        memset(cfg, 0, sizeof(*cfg));
        for (size_t i = 0; i < config_n_rows; i++)
                config_key_store(cfg, &config_keys[i], config_keys[i].def);
}

size_t config_n_keys(void)
{
        return config_n_rows;
}

void config_print(const struct pmucal_config *cfg)
{
        char buf[CONFIG_MAX_LINE];

        for (size_t i = 0; i < config_n_rows; i++)
                rep_printf("config: %-13s = %-8s (%s)\n", config_keys[i].name,
                           config_key_text(cfg, &config_keys[i], buf, sizeof(buf)),
                           cfg->from_file & (1u << i) ? "from " CONFIG_PATH : "default");
}

void config_to_json(struct json_w *w, const char *key, const struct pmucal_config *cfg)
{
        char buf[CONFIG_MAX_LINE];

        json_obj_begin(w, key);
        for (size_t i = 0; i < config_n_rows; i++) {
                const struct key_desc *k = &config_keys[i];

                if (k->type == KT_UINT)
                        json_u64(w, k->name, config_key_load(cfg, k));
                else if (k->type == KT_BOOL)
                        json_bool(w, k->name, config_key_load(cfg, k) != 0);
                else
                        json_str(w, k->name, config_key_text(cfg, k, buf, sizeof(buf)));
        }
        json_arr_begin(w, "from_file");
        for (size_t i = 0; i < config_n_rows; i++)
                if (cfg->from_file & (1u << i))
                        json_str(w, NULL, config_keys[i].name);
        json_arr_end(w);
        json_obj_end(w);
}
