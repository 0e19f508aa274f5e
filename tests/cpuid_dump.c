/** @file Loader for `cpuid -r` text dumps (see cpuid_dump.h). Host tests only. */
#include "tests/cpuid_dump.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool blank_or_comment(const char *s)
{
        while (isspace((unsigned char)*s))
                s++;
        return *s == '\0' || *s == '#';
}

/** "CPU:" or "CPU 12:" (after optional spaces). */
static bool cpu_header(const char *s)
{
        while (isspace((unsigned char)*s))
                s++;
        return !strncmp(s, "CPU", 3) && (s[3] == ':' || s[3] == ' ');
}

static struct cpuid_leaf *find(struct cpuid_dump *d, uint32_t leaf, uint32_t subleaf)
{
        for (size_t i = 0; i < d->n; i++)
                if (d->leaves[i].leaf == leaf && d->leaves[i].subleaf == subleaf)
                        return &d->leaves[i];
        return NULL;
}

status_t cpuid_dump_load(const char *path, struct cpuid_dump *d)
{
        char     line[256];
        unsigned n_headers = 0;
        status_t st        = ST_OK;
        FILE    *f;

        if (!path || !d)
                return ST_BAD_ARG;
        memset(d, 0, sizeof(*d));
        if (!(f = fopen(path, "r")))
                return ST_NOT_FOUND;
        while (st == ST_OK && fgets(line, sizeof(line), f)) {
                uint32_t leaf, sub, a, b, c, dx;
                int      used = 0;

                if (blank_or_comment(line))
                        continue;
                if (cpu_header(line)) {
                        if (++n_headers > 1)
                                break;
                        continue;
                }
                if (sscanf(line, " 0x%" SCNx32 " 0x%" SCNx32 ": eax=0x%" SCNx32 " ebx=0x%" SCNx32
                                 " ecx=0x%" SCNx32 " edx=0x%" SCNx32 "%n",
                           &leaf, &sub, &a, &b, &c, &dx, &used) != 6 ||
                    !blank_or_comment(line + used))
                        st = ST_BAD_DATA;
                else if (find(d, leaf, sub) || d->n == CPUID_DUMP_MAX)
                        st = ST_BAD_DATA;
                else
                        d->leaves[d->n++] = (struct cpuid_leaf){
                                .leaf = leaf, .subleaf = sub,
                                .r = { .eax = a, .ebx = b, .ecx = c, .edx = dx } };
        }
        fclose(f);
        if (st == ST_OK && d->n == 0)
                st = ST_BAD_DATA;
        if (st != ST_OK)
                d->n = 0;
        return st;
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
