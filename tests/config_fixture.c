/** @file
 * Helpers shared by the pmucal.cfg parser tests (test_config*.c): the test's own map from key
 * names to fields, the documented defaults, and a check of a parsed config against them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/config_fixture.h"
const char *const cfg_all_keys[CFG_N_KEYS] = {
        "profile", "on_exit", "serial", "debug_exit", "prefetchers",
        "repetitions", "sweep_max_mib", "cpus", "results", "crash_test",
        "latency_pages", "level_sets", "collector", "upload_tries", "upload_pause_ms",
};

/* The test's own map from key names to fields (an oracle independent of the key table). */
uint32_t cfg_field(const struct pmucal_config *c, const char *key)
{
        if (!strcmp(key, "profile"))       return c->profile;
        if (!strcmp(key, "on_exit"))       return c->on_exit;
        if (!strcmp(key, "serial"))        return c->serial;
        if (!strcmp(key, "debug_exit"))    return c->debug_exit;
        if (!strcmp(key, "prefetchers"))   return c->prefetchers;
        if (!strcmp(key, "repetitions"))   return c->repetitions;
        if (!strcmp(key, "sweep_max_mib")) return c->sweep_max_mib;
        if (!strcmp(key, "cpus"))          return c->cpus;
        if (!strcmp(key, "results"))       return c->results;
        if (!strcmp(key, "crash_test"))    return c->crash_test;
        if (!strcmp(key, "latency_pages")) return c->latency_pages;
        if (!strcmp(key, "level_sets"))    return c->level_sets;
        if (!strcmp(key, "collector"))     return c->collector_set;
        if (!strcmp(key, "upload_tries"))  return c->upload_tries;
        if (!strcmp(key, "upload_pause_ms")) return c->upload_pause_ms;
        fail_msg("no such key %s", key);
        return 0;
}

/* The documented defaults. */
uint32_t cfg_default_of(const char *key)
{
        static const struct { const char *key; uint32_t v; } defs[] = {
                { "profile", CONFIG_PROFILE_QUICK }, { "on_exit", CONFIG_EXIT_RETURN },
                { "serial", 1 },                     { "debug_exit", CONFIG_AUTO },
                { "prefetchers", CONFIG_PREFETCH_OFF }, { "repetitions", 11 },
                { "sweep_max_mib", 0 },              { "cpus", CONFIG_CPUS_ALL },
                { "results", 1 },                    { "crash_test", 0 },
                { "latency_pages", CONFIG_PAGES_AUTO }, { "level_sets", CONFIG_SETS_AUTO },
                { "collector", 0 },                  { "upload_tries", 3 },
                { "upload_pause_ms", 1000 },
        };
        for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
                if (!strcmp(defs[i].key, key))
                        return defs[i].v;
        fail_msg("no default for %s", key);
        return 0;
}


/* cfg holds the defaults except @p set, and from_file names exactly the keys in @p set. */
void cfg_assert_settings(const struct pmucal_config *cfg, const struct cfg_kv *set, size_t n_set)
{
        for (size_t i = 0; i < CFG_N_KEYS; i++) {
                uint32_t want = cfg_default_of(cfg_all_keys[i]);
                bool     from = false;

                for (size_t j = 0; j < n_set; j++)
                        if (!strcmp(set[j].key, cfg_all_keys[i])) {
                                want = set[j].v;
                                from = true;
                        }
                if (cfg_field(cfg, cfg_all_keys[i]) != want)
                        fail_msg("%s = %u, want %u", cfg_all_keys[i], cfg_field(cfg, cfg_all_keys[i]), want);
                assert_int_equal(config_from_file(cfg, cfg_all_keys[i]), from);
        }
}
