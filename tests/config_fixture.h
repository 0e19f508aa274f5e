/** @file
 * Helpers shared by the pmucal.cfg parser tests (test_config*.c); see config_fixture.c.
 */
#ifndef PMUCAL_TESTS_CONFIG_FIXTURE_H
#define PMUCAL_TESTS_CONFIG_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/config.h"

#define CFG_N_KEYS 15

/** Every key of pmucal.cfg. */
extern const char *const cfg_all_keys[CFG_N_KEYS];

struct cfg_kv {
        const char *key;
        uint32_t    v;
};

/** Field of @p c named @p key (the test's own map, independent of the key table). */
uint32_t cfg_field(const struct pmucal_config *c, const char *key);
/** The documented default of @p key. */
uint32_t cfg_default_of(const char *key);
/** @p cfg holds the defaults except @p set, and from_file names exactly the keys in @p set. */
void cfg_assert_settings(const struct pmucal_config *cfg, const struct cfg_kv *set, size_t n_set);

#endif
