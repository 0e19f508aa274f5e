/** @file Lookups over the generated event tables (see events.h). */
#include "pmu/events.h"

#include "boot/plat.h"

const struct pmu_event_table *pmu_events_for(enum cpu_vendor vendor, uint32_t family,
                                             uint32_t model)
{
        for (size_t i = 0; i < pmu_n_event_map; i++) {
                const struct pmu_map_row *r = &pmu_event_map[i];

                if (r->vendor != vendor)
                        continue;
                if (r->family >= 0 && (uint32_t)r->family != family)
                        continue;
                if (model < r->model_lo || model > r->model_hi)
                        continue;
                if (r->table >= pmu_n_event_tables)
                        return NULL;
                return &pmu_event_tables[r->table];
        }
        return NULL;
}

const struct pmu_event_table *pmu_events_table(const char *name)
{
        if (!name)
                return NULL;
        for (size_t i = 0; i < pmu_n_event_tables; i++)
                if (!strcmp(pmu_event_tables[i].name, name))
                        return &pmu_event_tables[i];
        return NULL;
}

const struct pmu_event_desc *pmu_event_find(const struct pmu_event_table *t, const char *name)
{
        if (!t || !name)
                return NULL;
        for (size_t i = 0; i < t->n_events; i++)
                if (!strcmp(t->events[i].name, name))
                        return &t->events[i];
        return NULL;
}

int pmu_alias_index(const char *alias)
{
        if (!alias)
                return -1;
        for (size_t i = 0; i < pmu_n_aliases; i++)
                if (!strcmp(pmu_alias_names[i], alias))
                        return (int)i;
        return -1;
}

status_t pmu_alias_resolve(const struct pmu_event_table *t, const char *alias,
                           const struct pmu_event_desc **out, const char **reason)
{
        static const char no_table[] = "no event table for this CPU";
        int idx;

        if (!alias || !out)
                return ST_BAD_ARG;
        *out = NULL;
        if (reason)
                *reason = "";
        if ((idx = pmu_alias_index(alias)) < 0)
                return ST_NOT_FOUND;
        if (!t) {
                if (reason)
                        *reason = no_table;
                return ST_UNSUPPORTED;
        }
        const struct pmu_alias_map *m = &t->aliases[idx];
        if (m->event < 0 || (size_t)m->event >= t->n_events) {
                if (reason)
                        *reason = m->reason ? m->reason : "not countable on this CPU";
                return ST_UNSUPPORTED;
        }
        *out = &t->events[m->event];
        return ST_OK;
}
