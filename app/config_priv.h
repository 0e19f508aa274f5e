/** @file
 * Internal to app/config*.c: the table of configuration keys (config_keys.c) that the parser
 * (config.c) reads values into and the printers read them from.
 */
#ifndef PMUCAL_CONFIG_PRIV_H
#define PMUCAL_CONFIG_PRIV_H

#include "app/config.h"

enum key_type {
        KT_ENUM, /* one of names[]; the field holds the index */
        KT_BOOL, /* on|off (also true|false, yes|no, 1|0) */
        KT_UINT, /* decimal integer in min..max */
        KT_URL,  /* off, or http://HOST[:PORT][/PATH] (pmucal_config.collector); the field
                  * holds 1 when a URL is set */
        KT_CPUS, /* one of names[], or a list of APIC IDs and ranges (pmucal_config.cpu_list,
                  * the field then holds CONFIG_CPUS_LIST) */
};

/** One configuration key: its name, where its value lives in struct pmucal_config and what
 *  it may hold. The row's index is its bit in pmucal_config.from_file. */
struct key_desc {
        const char        *name;
        enum key_type      type;
        size_t             offset;    /* of the field in struct pmucal_config */
        size_t             size;      /* of the field: 1, 2, 4 or 8 bytes */
        uint32_t           def;       /* default (enum index, 0/1 or the integer) */
        const char *const *names;     /* KT_ENUM: names[v] is value v */
        size_t             n_names;
        uint32_t           min, max;  /* KT_UINT */
        const char        *zero_name; /* KT_UINT: a word that also means 0 ("auto") */
};

/** Keys at most: pmucal_config.from_file has one bit per key. */
#define CONFIG_MAX_KEYS 32

/** Every key, in table order; a row's index is its bit in pmucal_config.from_file. */
extern const struct key_desc config_keys[];
extern const size_t          config_n_rows;

/** Store @p v into @p cfg's field for key @p k (1, 2, 4 or 8 bytes wide). */
void config_key_store(struct pmucal_config *cfg, const struct key_desc *k, uint32_t v);
/** The value of key @p k in @p cfg. */
uint32_t config_key_load(const struct pmucal_config *cfg, const struct key_desc *k);
/** The value of @p k in @p cfg as text (a table's string, or written into @p buf). */
const char *config_key_text(const struct pmucal_config *cfg, const struct key_desc *k,
                            char *buf, size_t cap);

#endif
