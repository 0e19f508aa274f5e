/** @file Table documents for the loader tests (see table_cases.h). */
#include "tests/table_cases.h"

#include <stdlib.h>
#include <string.h>

char *table_case_doc(const char *base, const char *from, const char *to, size_t *len)
{
        const char *at = strstr(base, from);
        size_t      pre, fl = strlen(from), tl = strlen(to);
        char       *d;

        if (!at || !(d = malloc(strlen(base) + tl + 1)))
                return NULL;
        pre = (size_t)(at - base);
        memcpy(d, base, pre);
        memcpy(d + pre, to, tl);
        strcpy(d + pre + tl, at + fl);
        *len = strlen(d);
        return d;
}

int table_cases_dump(const char *dir, const char *tsv, const struct table_case_set *sets,
                     size_t n_sets)
{
        char  path[512];
        FILE *idx, *f;
        int   bad = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, tsv);
        if (!(idx = fopen(path, "w")))
                return perror(path), 1;
        for (size_t s = 0; s < n_sets && !bad; s++)
                for (size_t i = 0; i < sets[s].n && !bad; i++) {
                        const char *name;
                        size_t      len;
                        bool        ok;
                        char       *doc = sets[s].make(i, &len, &ok, &name);

                        snprintf(path, sizeof(path), "%s/%s-%02zu.json", dir, sets[s].prefix, i);
                        if (!doc || !(f = fopen(path, "wb")) || fwrite(doc, 1, len, f) != len ||
                            fclose(f))
                                bad = (perror(path), 1);
                        else
                                fprintf(idx, "%s-%02zu.json\t%s\t%d\t%s\n", sets[s].prefix, i,
                                        sets[s].loader, ok, name);
                        free(doc);
                }
        return fclose(idx) || bad ? 1 : 0;
}
