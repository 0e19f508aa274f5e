/** @file Loader for `cpuid -r` text dumps (see cpuid_dump.h). Host tests only. */
#include "tests/cpuid_dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cpuid_leaf *find(struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf)
{
        for (size_t i = 0; i < d->n; i++)
                if (d->leaves[i].leaf == leaf && d->leaves[i].subleaf == subleaf)
                        return &d->leaves[i];
        return NULL;
}

/** The whole file at @p path, NUL-terminated (malloc'd); NULL when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
        FILE  *f = fopen(path, "rb");
        char  *buf = NULL;
        size_t cap = 0, n = 0, got;

        if (!f)
                return NULL;
        do {
                if (n + 4096 + 1 > cap) {
                        char *nb = realloc(buf, cap = 2 * cap + 8192);
                        if (!nb) {
                                free(buf);
                                fclose(f);
                                return NULL;
                        }
                        buf = nb;
                }
                got = fread(buf + n, 1, 4096, f);
                n += got;
        } while (got > 0);
        fclose(f);
        buf[n] = '\0';
        *len   = n;
        return buf;
}

status_t cpuid_dump_load_cpu(const char *path, unsigned cpu, struct cpuid_dump *d,
                             unsigned *n_cpus)
{
        size_t   len;
        char    *text;
        status_t st;

        if (!path || !d)
                return ST_BAD_ARG;
        memset(d, 0, sizeof(*d));
        if (!(text = slurp(path, &len)))
                return ST_NOT_FOUND;
        st = cpuid_text_parse(text, len, cpu, d, n_cpus);
        free(text);
        return st;
}

status_t cpuid_dump_load(const char *path, struct cpuid_dump *d)
{
        return cpuid_dump_load_cpu(path, 0, d, NULL);
}

bool cpuid_dump_remove(struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf)
{
        struct cpuid_leaf *e = find(d, leaf, subleaf);

        if (!e)
                return false;
        *e = d->leaves[--d->n];
        return true;
}

status_t cpuid_dump_put(struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf,
                        struct cpuid_regs r)
{
        struct cpuid_leaf *e = find(d, leaf, subleaf);

        if (!e) {
                if (d->n == CPUID_DUMP_MAX)
                        return ST_NO_SPACE;
                e = &d->leaves[d->n++];
        }
        *e = (struct cpuid_leaf){ .leaf = leaf, .subleaf = subleaf, .r = r };
        return ST_OK;
}

struct cpuid_dump *cpuid_dump_new(const char *vendor, uint32_t max_leaf, uint32_t max_ext)
{
        struct cpuid_dump *d = calloc(1, sizeof(*d));
        uint32_t           w[3];

        if (!d)
                return NULL;
        memcpy(w, vendor, 12);
        cpuid_dump_put(d, 0, 0, (struct cpuid_regs){ max_leaf, w[0], w[2], w[1] });
        if (max_ext)
                cpuid_dump_put(d, 0x80000000, 0, (struct cpuid_regs){ max_ext, 0, 0, 0 });
        return d;
}

struct cpuid_dump *cpuid_dump_load_recorded(const char *file)
{
        char               path[256];
        struct cpuid_dump *d = malloc(sizeof(*d));

        snprintf(path, sizeof(path), "tests/data/cpuid/%s", file);
        if (d && cpuid_dump_load(path, d) != ST_OK) {
                free(d);
                d = NULL;
        }
        return d;
}

const struct cpu_cache *cpu_info_cache(const struct cpu_info *ci, uint8_t level,
                                       enum cpu_cache_type type)
{
        for (size_t i = 0; i < ci->n_caches; i++)
                if (ci->caches[i].level == level && ci->caches[i].type == type)
                        return &ci->caches[i];
        return NULL;
}
