/** @file The value of config key `cpus` when it lists processors: APIC IDs and ranges
 * ("0,2,4-7"), parsed, printed back and looked up (see config.h). */
#include "app/config.h"

#include "lib/fmt.h"

/* Decimal number at @p s[*i..n), at most 32 bits; advances *i. */
static bool number(const char *s, size_t n, size_t *i, uint32_t *out)
{
        uint64_t v = 0;
        size_t   start = *i;

        while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
                v = v * 10 + (uint64_t)(s[*i] - '0');
                if (v > UINT32_MAX)
                        return false;
                (*i)++;
        }
        *out = (uint32_t)v;
        return *i > start;
}

static void skip_ws(const char *s, size_t n, size_t *i)
{
        while (*i < n && (s[*i] == ' ' || s[*i] == '\t'))
                (*i)++;
}

/* The list at @p s[0..n): into @p out (NULL: only counted); the number of items, or 0 when
 * it is not a list (or, with @p out, has more than CONFIG_CPUS_MAX_RANGES items). */
static unsigned parse_list(const char *s, size_t n, struct config_cpu_list *out)
{
        size_t   i     = 0;
        unsigned items = 0;

        if (out)
                out->n = 0;
        for (;;) {
                uint32_t lo, hi;

                skip_ws(s, n, &i);
                if (!number(s, n, &i, &lo))
                        return false;
                hi = lo;
                skip_ws(s, n, &i);
                if (i < n && s[i] == '-') {
                        i++;
                        skip_ws(s, n, &i);
                        if (!number(s, n, &i, &hi) || hi < lo)
                                return 0;
                        skip_ws(s, n, &i);
                }
                if (out && out->n == CONFIG_CPUS_MAX_RANGES)
                        return 0;
                if (out) {
                        out->lo[out->n] = lo;
                        out->hi[out->n] = hi;
                        out->n++;
                }
                items++;
                if (i == n)
                        return items;
                if (s[i++] != ',')
                        return 0;
        }
}

bool config_cpus_parse(const char *s, size_t n, struct config_cpu_list *out)
{
        return parse_list(s, n, out) != 0;
}

unsigned config_cpus_count(const char *s, size_t n)
{
        return parse_list(s, n, NULL);
}

bool config_cpus_has(const struct config_cpu_list *l, uint32_t apic_id)
{
        for (unsigned k = 0; l && k < l->n; k++)
                if (apic_id >= l->lo[k] && apic_id <= l->hi[k])
                        return true;
        return false;
}

const char *config_cpus_text(const struct config_cpu_list *l, char *buf, size_t cap)
{
        size_t len = 0;

        if (cap)
                buf[0] = '\0';
        for (unsigned k = 0; l && k < l->n && len < cap; k++) {
                if (l->lo[k] == l->hi[k])
                        len += (size_t)fmt_snprintf(buf + len, cap - len, "%s%u", k ? "," : "",
                                                    l->lo[k]);
                else
                        len += (size_t)fmt_snprintf(buf + len, cap - len, "%s%u-%u", k ? "," : "",
                                                    l->lo[k], l->hi[k]);
        }
        return buf;
}
