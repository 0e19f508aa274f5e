/** @file ACPI PPTT parser and per-processor lookups (see acpi_pptt.h). */
#include "boot/acpi_pptt.h"

#include <stdarg.h>

#include "lib/fmt.h"

/* Structure header: Type (1), Length (1), Reserved (2). [ACPI-6.5] §5.2.30 Table 5.155 */
#define SUB_HDR_LEN   4u
#define TYPE_NODE     0
#define NODE_LEN      20u /* Flags @4, Parent @8, ACPI Processor ID @12, #private @16 */
#define TYPE_CACHE    1
#define CACHE_LEN     24u /* Flags @4, Next level @8, Size @12, Sets @16, Assoc @20,
                           * Attributes @21, Line size @22; Cache ID @24 (revision 3) */
#define CACHE_ID_LEN  28u
#define MAX_DEPTH     32u /* parent or next-level chain longer than this is a loop */
#define DOMAIN_ID     0x80000000u

/* Little-endian fields (ACPI tables need not be aligned). */
static uint32_t rd32(const uint8_t *p)
{
        return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
               ((uint32_t)p[3] << 24);
}

/* Record where (@p off) and what (@p fmt) in @p d, if given; return @p st. */
PRINTF_FMT(4, 5)
static status_t fail(struct acpi_diag *d, status_t st, size_t off, const char *fmt, ...)
{
        va_list ap;

        if (!d)
                return st;
        d->offset = (uint32_t)off;
        va_start(ap, fmt);
        fmt_vsnprintf(d->what, sizeof(d->what), fmt, ap);
        va_end(ap);
        return st;
}

static status_t too_short(struct acpi_diag *d, const char *what, size_t off, size_t len,
                          size_t need)
{
        return fail(d, ST_BAD_DATA, off, "PPTT: %s entry of %zu bytes, needs %zu", what, len,
                    need);
}

static uint32_t table_len(const uint8_t *t)
{
        return rd32(t + 4);
}

/* True when a structure starts at @p off (walking from the first; O(n), used by the check). */
static bool starts_at(const uint8_t *t, size_t end, size_t off)
{
        for (size_t p = ACPI_HEADER_LEN; p + SUB_HDR_LEN <= end && t[p + 1]; p += t[p + 1])
                if (p == off)
                        return true;
        return false;
}

/* @p off names a structure of @p type (checked table). */
static bool is_type(const uint8_t *t, uint32_t off, unsigned type)
{
        return off >= ACPI_HEADER_LEN && off + SUB_HDR_LEN <= table_len(t) && t[off] == type;
}

static uint32_t node_flags(const uint8_t *t, uint32_t n)  { return rd32(t + n + 4); }
static uint32_t node_parent(const uint8_t *t, uint32_t n) { return rd32(t + n + 8); }
static uint32_t node_id(const uint8_t *t, uint32_t n)     { return rd32(t + n + 12); }
static uint32_t node_n_priv(const uint8_t *t, uint32_t n) { return rd32(t + n + 16); }

static uint32_t node_tag(const uint8_t *t, uint32_t n)
{
        return node_flags(t, n) & ACPI_PPTT_ID_VALID ? node_id(t, n) : n;
}

/* A reference to a structure: 0 (none) or the start of one of @p type inside the table. */
static status_t check_ref(const uint8_t *t, size_t end, size_t at, uint32_t ref, unsigned type,
                          const char *what, struct acpi_diag *d)
{
        if (!ref)
                return ST_OK;
        if (ref < ACPI_HEADER_LEN || ref >= end || !starts_at(t, end, ref))
                return fail(d, ST_BAD_DATA, at, "PPTT: %s 0x%x is not a structure of the table",
                            what, ref);
        if (t[ref] != type)
                return fail(d, ST_BAD_DATA, at, "PPTT: %s 0x%x is a structure of type %u, "
                            "not %u", what, ref, t[ref], type);
        return ST_OK;
}

static status_t check_node(const uint8_t *t, size_t end, size_t off, size_t len,
                           struct acpi_diag *d)
{
        if (len < NODE_LEN)
                return too_short(d, "processor hierarchy node", off, len, NODE_LEN);
        uint32_t n_priv = rd32(t + off + 16);
        if (n_priv > (len - NODE_LEN) / 4)
                return fail(d, ST_BAD_DATA, off + 16, "PPTT: processor hierarchy node of %zu "
                            "bytes lists %u private resources (room for %zu)", len, n_priv,
                            (len - NODE_LEN) / 4);
        status_t st = check_ref(t, end, off + 8, rd32(t + off + 8), TYPE_NODE, "parent", d);
        for (uint32_t i = 0; i < n_priv && st == ST_OK; i++) {
                uint32_t r = rd32(t + off + NODE_LEN + 4 * i);
                if (!r || r >= end || !starts_at(t, end, r))
                        st = fail(d, ST_BAD_DATA, off + NODE_LEN + 4 * i, "PPTT: private "
                                  "resource 0x%x is not a structure of the table", r);
        }
        return st;
}

static status_t check_cache(const uint8_t *t, size_t end, size_t off, size_t len,
                            uint8_t revision, struct acpi_diag *d)
{
        size_t need = revision >= 3 ? CACHE_ID_LEN : CACHE_LEN;

        if (len < need)
                return too_short(d, "cache type", off, len, need);
        return check_ref(t, end, off + 8, rd32(t + off + 8), TYPE_CACHE, "next level of cache",
                         d);
}

/* No parent or next-level chain loops (all references are known to be good). */
static status_t check_chains(const uint8_t *t, size_t off, struct acpi_diag *d)
{
        unsigned depth = 0;
        uint32_t p     = (uint32_t)off;
        bool     node  = t[off] == TYPE_NODE;

        while (p && depth++ <= MAX_DEPTH)
                p = node ? node_parent(t, p) : rd32(t + p + 8);
        if (p)
                return fail(d, ST_BAD_DATA, off, "PPTT: the %s chain from 0x%zx does not end "
                            "(a loop)", node ? "parent" : "next-level-of-cache", off);
        return ST_OK;
}

/* Linux's acpi_pptt_leaf_node(): the leaf flag (revision 2), else no node names it parent. */
static bool is_leaf(const uint8_t *t, uint32_t n)
{
        uint32_t end = table_len(t);

        if (t[8] >= 2 && node_flags(t, n) & ACPI_PPTT_IS_LEAF)
                return true;
        for (uint32_t p = ACPI_HEADER_LEN; p + SUB_HDR_LEN <= end && t[p + 1]; p += t[p + 1])
                if (t[p] == TYPE_NODE && p != n && node_parent(t, p) == n)
                        return false;
        return true;
}

static bool type_matches(uint8_t attributes, bool unified)
{
        unsigned type = (attributes & ACPI_PPTT_CACHE_TYPE_MASK) >> ACPI_PPTT_CACHE_TYPE_SHIFT;

        return unified ? type == ACPI_PPTT_CACHE_UNIFIED || type == ACPI_PPTT_CACHE_UNIFIED_ALT
                       : type == ACPI_PPTT_CACHE_DATA;
}

/* Linux's acpi_find_cache_level(): walk the chains of node @p n's private resources, levels
 * counted from *@p base; the data (else unified) cache of @p level is returned, and *@p base
 * raised to the deepest level seen. */
static uint32_t find_level(const uint8_t *t, uint32_t n, unsigned *base, unsigned level)
{
        unsigned deepest = *base;
        uint32_t data = 0, unified = 0;

        for (uint32_t i = 0; i < node_n_priv(t, n); i++) {
                uint32_t c     = rd32(t + n + NODE_LEN + 4 * i);
                unsigned local = *base;

                for (unsigned k = 0; is_type(t, c, TYPE_CACHE) && k <= MAX_DEPTH; k++) {
                        uint32_t flags = rd32(t + c + 4);
                        local++;
                        if (local == level && flags & ACPI_PPTT_CACHE_TYPE_VALID) {
                                if (type_matches(t[c + 21], false) && !data)
                                        data = c;
                                if (type_matches(t[c + 21], true) && !unified)
                                        unified = c;
                        }
                        c = rd32(t + c + 8);
                }
                if (local > deepest)
                        deepest = local;
        }
        *base = deepest;
        return data ? data : unified;
}

static uint8_t scope_of(const struct acpi_pptt_cpu *o, const uint8_t *t, uint32_t n,
                        uint32_t core_off, uint32_t cluster_off, uint32_t pkg_off)
{
        if (n == o->leaf_offset && o->is_thread)
                return ACPI_PPTT_SCOPE_THREAD;
        if (n == core_off)
                return ACPI_PPTT_SCOPE_CORE;
        if (n == cluster_off && o->has_cluster)
                return ACPI_PPTT_SCOPE_CLUSTER;
        if (n == pkg_off && node_flags(t, n) & ACPI_PPTT_PHYSICAL_PACKAGE)
                return ACPI_PPTT_SCOPE_PACKAGE;
        return ACPI_PPTT_SCOPE_OTHER;
}

static void find_caches(const uint8_t *t, struct acpi_pptt_cpu *o, uint32_t core_off,
                        uint32_t cluster_off, uint32_t pkg_off)
{
        for (unsigned level = 1; level <= ACPI_PPTT_MAX_LEVELS; level++) {
                unsigned base = 0;
                uint32_t n = o->leaf_offset, c = 0;

                for (unsigned k = 0; n && !c && k <= MAX_DEPTH; k++) {
                        c = find_level(t, n, &base, level);
                        if (!c)
                                n = node_parent(t, n);
                }
                if (!c)
                        continue;
                uint32_t flags = rd32(t + c + 4);
                bool     id    = t[8] >= 3 && flags & ACPI_PPTT_CACHE_ID_VALID;
                o->cache_offset[level - 1] = c;
                o->cache_domain[level - 1] = id ? DOMAIN_ID | (rd32(t + c + 24) & ~DOMAIN_ID) : n;
                o->cache_bytes[level - 1]  = flags & ACPI_PPTT_CACHE_SIZE_VALID ? rd32(t + c + 12)
                                                                                : 0;
                o->cache_scope[level - 1]  = scope_of(o, t, n, core_off, cluster_off, pkg_off);
                o->n_levels++;
                o->llc_level = (uint8_t)level;
        }
}

status_t acpi_pptt_check(const void *table, size_t avail, uint32_t *n_cpus,
                         struct acpi_diag *diag)
{
        const uint8_t     *t = table;
        struct acpi_header h;
        uint32_t           cpus = 0;
        status_t           st;

        if (n_cpus)
                *n_cpus = 0;
        if ((st = acpi_check_header(table, avail, "PPTT", ACPI_HEADER_LEN, &h, diag)) != ST_OK)
                return st;
        if (h.length >= DOMAIN_ID)
                return fail(diag, ST_BAD_DATA, 4, "PPTT: length %u", h.length);
        size_t end = h.length, off = ACPI_HEADER_LEN;
        while (end - off >= SUB_HDR_LEN) {
                size_t len = t[off + 1];
                if (len < SUB_HDR_LEN || len > end - off)
                        return fail(diag, ST_BAD_DATA, off + 1, "PPTT: structure type %u has "
                                    "length %zu (%zu left)", t[off], len, end - off);
                off += len;
        }
        for (off = ACPI_HEADER_LEN; end - off >= SUB_HDR_LEN; off += t[off + 1]) {
                size_t len = t[off + 1];
                if (t[off] == TYPE_NODE)
                        st = check_node(t, end, off, len, diag);
                else if (t[off] == TYPE_CACHE)
                        st = check_cache(t, end, off, len, h.revision, diag);
                if (st != ST_OK)
                        return st;
        }
        for (off = ACPI_HEADER_LEN; end - off >= SUB_HDR_LEN; off += t[off + 1]) {
                if (t[off] != TYPE_NODE && t[off] != TYPE_CACHE)
                        continue;
                if ((st = check_chains(t, off, diag)) != ST_OK)
                        return st;
                if (t[off] == TYPE_NODE && node_flags(t, (uint32_t)off) & ACPI_PPTT_ID_VALID &&
                    is_leaf(t, (uint32_t)off))
                        cpus++;
        }
        if (n_cpus)
                *n_cpus = cpus;
        return ST_OK;
}

status_t acpi_pptt_cpu(const void *table, uint32_t uid, struct acpi_pptt_cpu *out)
{
        const uint8_t *t = table;
        uint32_t       end, leaf = 0;

        if (!t || !out)
                return ST_BAD_ARG;
        *out = (struct acpi_pptt_cpu){ 0 };
        end  = table_len(t);
        for (uint32_t p = ACPI_HEADER_LEN; p + SUB_HDR_LEN <= end && t[p + 1] && !leaf;
             p += t[p + 1])
                if (t[p] == TYPE_NODE && node_flags(t, p) & ACPI_PPTT_ID_VALID &&
                    node_id(t, p) == uid && is_leaf(t, p))
                        leaf = p;
        if (!leaf)
                return ST_NOT_FOUND;
        out->leaf_offset = leaf;
        out->is_thread   = t[8] >= 2 && node_flags(t, leaf) & ACPI_PPTT_IS_THREAD;
        uint32_t core    = out->is_thread && node_parent(t, leaf) ? node_parent(t, leaf) : leaf;
        uint32_t pkg     = core;
        for (unsigned k = 0; k <= MAX_DEPTH; k++) {
                if (node_flags(t, pkg) & ACPI_PPTT_PHYSICAL_PACKAGE || !node_parent(t, pkg))
                        break;
                pkg = node_parent(t, pkg);
        }
        uint32_t cluster = node_parent(t, core) ? node_parent(t, core) : core;
        out->has_cluster = cluster != core && cluster != pkg &&
                           !(node_flags(t, core) & ACPI_PPTT_PHYSICAL_PACKAGE);
        out->thread  = out->is_thread ? node_tag(t, leaf) : 0;
        out->core    = node_tag(t, core);
        out->cluster = node_tag(t, out->has_cluster ? cluster : pkg);
        out->package = node_tag(t, pkg);
        find_caches(t, out, core, cluster, pkg);
        return ST_OK;
}

const char *acpi_pptt_scope_name(unsigned scope)
{
        static const char *const names[] = {
                [ACPI_PPTT_SCOPE_NONE] = "none", [ACPI_PPTT_SCOPE_THREAD] = "thread",
                [ACPI_PPTT_SCOPE_CORE] = "core", [ACPI_PPTT_SCOPE_CLUSTER] = "cluster",
                [ACPI_PPTT_SCOPE_PACKAGE] = "package", [ACPI_PPTT_SCOPE_OTHER] = "other",
        };

        return scope < ARRAY_SIZE(names) ? names[scope] : "none";
}
