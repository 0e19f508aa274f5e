/** @file A check for the writers' unit-named TSC members: in JSON text, every member
 * "X_tsc" (a number, null or an array) is followed by "X_tsc_ticks" holding the same text
 * (c2c 1.3, numa 1.3, latency-table 1.6: docs/versioning.md, "Unit names"). Header-only, for
 * the writers' unit tests. */
#ifndef PMUCAL_TESTS_TSC_TICKS_CHECK_H
#define PMUCAL_TESTS_TSC_TICKS_CHECK_H

#include <stdio.h>
#include <string.h>

/* Length of the JSON value at @p v: an array up to its matching ']', an object up to its '}',
 * else up to the next ',', '}', ']' or newline. */
static size_t tsc_ticks_value_len(const char *v)
{
        const char *p = v;

        if (*p == '[' || *p == '{') {
                int depth = 0;
                do {
                        if (*p == '[' || *p == '{')
                                depth++;
                        else if (*p == ']' || *p == '}')
                                depth--;
                        p++;
                } while (*p && depth);
                return (size_t)(p - v);
        }
        while (*p && !strchr(",}]\n", *p))
                p++;
        return (size_t)(p - v);
}

/* How many "X_tsc" members (core_per_tsc, a ratio, aside) of @p json have their "X_tsc_ticks" twin right after with the same
 * value; -1 (and the member named on stderr) at the first one that has not. */
static int tsc_ticks_pairs(const char *json)
{
        const char *p = json;
        int         n = 0;

        while ((p = strstr(p, "_tsc\": "))) {
                const char *name = p, *v = p + strlen("_tsc\": "), *q;
                size_t      len  = tsc_ticks_value_len(v), nlen;

                while (name > json && name[-1] != '"')
                        name--;
                nlen = (size_t)(p - name);
                q    = v + len;
                if (nlen == strlen("core_per") && !strncmp(name, "core_per", nlen)) {
                        p = v;          /* core_per_tsc: a ratio, no TSC figure */
                        continue;
                }
                while (*q == ',' || *q == ' ' || *q == '\n')
                        q++;
                if (*q != '"' || strncmp(q + 1, name, nlen) != 0 ||
                    strncmp(q + 1 + nlen, "_tsc_ticks\": ", strlen("_tsc_ticks\": ")) != 0 ||
                    tsc_ticks_value_len(q + 1 + nlen + strlen("_tsc_ticks\": ")) != len ||
                    strncmp(q + 1 + nlen + strlen("_tsc_ticks\": "), v, len) != 0) {
                        fprintf(stderr, "%.*s_tsc: no %.*s_tsc_ticks of the same value after it\n",
                                (int)nlen, name, (int)nlen, name);
                        return -1;
                }
                n++;
                p = v;
        }
        return n;
}

#endif
