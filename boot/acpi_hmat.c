/** @file ACPI HMAT parser and lookups (see acpi.h). */
#include "boot/acpi.h"
#include "boot/acpi_priv.h"

#define HMAT_FIXED_LEN 40u /* + Reserved (4); §5.2.28 Table 5.141 */

/* HMAT structures (2-byte type, 2 reserved, 4-byte length). §5.2.28.3 - §5.2.28.5 */
#define HMAT_SUB_HDR_LEN  8u
#define HMAT_TYPE_DOMAIN  0
#define HMAT_DOMAIN_LEN   40u /* Flags @8, Initiator PD @12, Memory PD @16 */
#define HMAT_DOMAIN_INITIATOR_VALID BIT_ULL(0)
#define HMAT_DOMAIN_MEMORY_VALID    BIT_ULL(1) /* revision 1 only; reserved from 2 */
#define HMAT_REV1_RANGE_BASE 24u  /* revision 1: System Physical Address Range Base @24 */
#define HMAT_REV1_RANGE_LEN  32u  /*             and Length @32 */
#define HMAT_REV1_DIVISOR    10u  /* Linux hmat_normalize(): revision-1 values / 10 */
#define PS_PER_NS            1000u
#define HMAT_TYPE_LOCALITY 1
#define HMAT_LOCALITY_LEN 32u /* Flags @8, Data Type @9, #Init @12, #Target @16, Base @24 */
#define HMAT_HIERARCHY_MASK 0x0fu
#define HMAT_TYPE_CACHE   2
#define HMAT_CACHE_LEN    32u /* Memory PD @8, Size @16, Attributes @24, #SMBIOS @30 */
#define HMAT_ENTRY_NONE        0x0000u /* "not provided" */
#define HMAT_ENTRY_UNREACHABLE 0xffffu

/* Check the 8-byte header of the structure at @p off of a table of @p end bytes. A fragment
 * shorter than the header ends the walk (ST_OK, *len = 0, *trailing = its size), as in Linux. */
static status_t hmat_sub(const uint8_t *t, size_t off, size_t end, unsigned *type, size_t *len,
                         uint32_t *trailing, struct acpi_diag *d)
{
        if (end - off < HMAT_SUB_HDR_LEN) {
                *len      = 0;
                *trailing = (uint32_t)(end - off);
                fail(d, ST_OK, off, "HMAT: %zu stray byte(s) at the end, ignored", end - off);
                return ST_OK;
        }
        *type = rd16(t + off);
        *len  = rd32(t + off + 4);
        if (*len < HMAT_SUB_HDR_LEN || *len > end - off)
                return fail(d, ST_BAD_DATA, off + 4,
                            "HMAT: structure type %u has length %zu (%zu left)", *type, *len,
                            end - off);
        return ST_OK;
}

/* Decode one type 0 structure (Memory Proximity Domain Attributes). */
static status_t hmat_domain(struct acpi_hmat *h, const uint8_t *e, size_t off, size_t len,
                            struct acpi_diag *d)
{
        if (len < HMAT_DOMAIN_LEN)
                return too_short(d, "HMAT", "proximity domain", off, len, HMAT_DOMAIN_LEN);
        if (h->n_domains < ACPI_HMAT_MAX_DOMAINS) {
                struct acpi_hmat_domain *m = &h->domain[h->n_domains++];

                uint16_t flags = rd16(e + 8);

                m->initiator_valid = flags & HMAT_DOMAIN_INITIATOR_VALID;
                m->initiator_pd    = rd32(e + 12);
                m->memory_pd       = rd32(e + 16);
                m->memory_valid    = h->revision >= 2 || (flags & HMAT_DOMAIN_MEMORY_VALID);
                if (h->revision == 1) {
                        m->range_base = rd64(e + HMAT_REV1_RANGE_BASE);
                        m->range_len  = rd64(e + HMAT_REV1_RANGE_LEN);
                }
        } else {
                h->n_dropped++;
        }
        return ST_OK;
}

/* Decode one type 1 structure @p e of @p len bytes at @p off. */
static status_t hmat_locality(struct acpi_hmat *h, const uint8_t *e, size_t off, size_t len,
                              struct acpi_diag *d)
{
        uint8_t  hierarchy, type;
        uint64_t ni, nt, base, room;
        const uint8_t *inits, *targs, *vals;

        if (len < HMAT_LOCALITY_LEN)
                return too_short(d, "HMAT", "locality", off, len, HMAT_LOCALITY_LEN);
        hierarchy = e[8] & HMAT_HIERARCHY_MASK;
        type      = e[9];
        ni        = rd32(e + 12);
        nt        = rd32(e + 16);
        base      = rd64(e + 24);
        room      = len - HMAT_LOCALITY_LEN;

        /* Lists first: then ni, nt < 2^30 and 2 * ni * nt cannot overflow. */
        if (4 * ni + 4 * nt > room || 2 * ni * nt > room - 4 * ni - 4 * nt)
                return fail(d, ST_BAD_DATA, off + 12,
                            "HMAT: %llu initiators x %llu targets overflow the %zu-byte structure",
                            (unsigned long long)ni, (unsigned long long)nt, len);
        h->n_localities++;
        if (type >= ACPI_HMAT_DATA_TYPE_COUNT) {
                h->n_other++;
                return ST_OK;
        }
        inits = e + HMAT_LOCALITY_LEN;
        targs = inits + 4 * ni;
        vals  = targs + 4 * nt;
        for (uint64_t i = 0; i < ni; i++) {
                for (uint64_t j = 0; j < nt; j++) {
                        const uint8_t *v = vals + 2 * (i * nt + j);
                        uint16_t raw = rd16(v);
                        struct acpi_hmat_entry x = {
                                .initiator_pd = rd32(inits + 4 * i),
                                .target_pd    = rd32(targs + 4 * j),
                                .data_type    = type,
                                .hierarchy    = hierarchy,
                        };

                        if (raw == HMAT_ENTRY_NONE) {
                                x.state = ACPI_HMAT_NOT_PROVIDED;
                        } else if (raw == HMAT_ENTRY_UNREACHABLE) {
                                x.state = ACPI_HMAT_UNREACHABLE;
                        } else if (base == 0 || base > UINT64_MAX / raw) {
                                return fail(d, ST_BAD_DATA, off + 24,
                                            "HMAT: entry %u x base unit %llu is out of range",
                                            raw, (unsigned long long)base);
                        } else if (h->revision >= 2) {
                                /* ACPI 6.3+: base unit in ps (latency) or MB/s (bandwidth) */
                                x.value = raw * base;
                        } else if (raw * base < HMAT_REV1_DIVISOR) {
                                x.state = ACPI_HMAT_NOT_PROVIDED;
                        } else {
                                /* ACPI 6.2, as Linux's hmat_normalize() reads it: entry x
                                 * base / 10, rounded up, ns or MB/s */
                                uint64_t q = (raw * base - 1) / HMAT_REV1_DIVISOR + 1;

                                if (type <= ACPI_HMAT_WRITE_LATENCY && q > UINT64_MAX / PS_PER_NS)
                                        return fail(d, ST_BAD_DATA, off + 24,
                                                    "HMAT: entry %u x base unit %llu is out of "
                                                    "range", raw, (unsigned long long)base);
                                x.value = type <= ACPI_HMAT_WRITE_LATENCY ? q * PS_PER_NS : q;
                        }
                        if (h->n_entries < ACPI_HMAT_MAX_ENTRIES)
                                h->entry[h->n_entries++] = x;
                        else
                                h->n_dropped++;
                }
        }
        return ST_OK;
}

/* Decode one type 2 structure (Memory Side Cache Information). */
static status_t hmat_cache(struct acpi_hmat *h, const uint8_t *e, size_t off, size_t len,
                           struct acpi_diag *d)
{
        uint32_t attr;

        if (len < HMAT_CACHE_LEN || len - HMAT_CACHE_LEN < 2u * rd16(e + 30))
                return fail(d, ST_BAD_DATA, off + 30,
                            "HMAT: cache structure of %zu bytes lists %u handles", len,
                            len < HMAT_CACHE_LEN ? 0u : rd16(e + 30));
        if (h->n_caches == ACPI_HMAT_MAX_CACHES) {
                h->n_dropped++;
                return ST_OK;
        }
        attr = rd32(e + 24);    /* §5.2.28.5 Table 5.148 */
        h->cache[h->n_caches++] = (struct acpi_hmat_cache){
                .memory_pd        = rd32(e + 8),
                .size_bytes       = rd64(e + 16),
                .total_levels     = attr & 0xf,
                .level            = (attr >> 4) & 0xf,
                .associativity    = (attr >> 8) & 0xf,
                .write_policy     = (attr >> 12) & 0xf,
                .line_bytes       = (uint16_t)(attr >> 16),
                .n_smbios_handles = rd16(e + 30),
        };
        return ST_OK;
}

status_t acpi_parse_hmat(const void *table, size_t avail, struct acpi_hmat *out,
                         struct acpi_diag *diag)
{
        const uint8_t *t = table;
        struct acpi_header h;
        status_t st;

        if (!out)
                return fail(diag, ST_BAD_ARG, 0, "HMAT: no output");
        memset(out, 0, sizeof(*out));
        if ((st = acpi_check_header(table, avail, "HMAT", HMAT_FIXED_LEN, &h, diag)) != ST_OK)
                return st;
        /* Revision 1 is ACPI 6.2's layout, 2 that of ACPI 6.3 on; 0 was never defined. */
        if (h.revision < 1)
                return fail(diag, ST_UNSUPPORTED, 8, "HMAT: revision %u", h.revision);
        out->revision = h.revision;

        for (size_t off = HMAT_FIXED_LEN, len = 0; off < h.length; off += len) {
                const uint8_t *e = t + off;
                unsigned type = 0; /* set by hmat_sub(); GCC cannot see through fail() */

                if ((st = hmat_sub(t, off, h.length, &type, &len, &out->trailing_bytes,
                                   diag)) != ST_OK)
                        goto bad;
                if (!len)
                        break;
                switch (type) {
                case HMAT_TYPE_DOMAIN:
                        st = hmat_domain(out, e, off, len, diag);
                        break;
                case HMAT_TYPE_LOCALITY:
                        st = hmat_locality(out, e, off, len, diag);
                        break;
                case HMAT_TYPE_CACHE:
                        st = hmat_cache(out, e, off, len, diag);
                        break;
                default:
                        out->n_other++;
                        break;
                }
                if (st != ST_OK)
                        goto bad;
        }
        return ST_OK;
bad:
        memset(out, 0, sizeof(*out));
        return st;
}

status_t acpi_hmat_find(const struct acpi_hmat *h, enum acpi_hmat_data_type type,
                        uint32_t initiator_pd, uint32_t target_pd, struct acpi_hmat_entry *out)
{
        if (!h || !out)
                return ST_BAD_ARG;
        for (uint32_t i = 0; i < h->n_entries && i < ACPI_HMAT_MAX_ENTRIES; i++) {
                const struct acpi_hmat_entry *x = &h->entry[i];

                if (x->hierarchy == 0 && x->data_type == type &&
                    x->initiator_pd == initiator_pd && x->target_pd == target_pd) {
                        *out = *x;
                        return ST_OK;
                }
        }
        return ST_NOT_FOUND;
}

const char *acpi_hmat_type_name(unsigned type)
{
        static const char *const names[ACPI_HMAT_DATA_TYPE_COUNT] = {
                [ACPI_HMAT_ACCESS_LATENCY]   = "access latency",
                [ACPI_HMAT_READ_LATENCY]     = "read latency",
                [ACPI_HMAT_WRITE_LATENCY]    = "write latency",
                [ACPI_HMAT_ACCESS_BANDWIDTH] = "access bandwidth",
                [ACPI_HMAT_READ_BANDWIDTH]   = "read bandwidth",
                [ACPI_HMAT_WRITE_BANDWIDTH]  = "write bandwidth",
        };

        return type < ACPI_HMAT_DATA_TYPE_COUNT ? names[type] : "reserved";
}
