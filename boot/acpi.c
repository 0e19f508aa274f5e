/** @file ACPI header check and MADT / SRAT / SLIT parsers (see acpi.h; HMAT: acpi_hmat.c). */
#include "boot/acpi.h"
#include "boot/acpi_priv.h"

/* Fixed parts of the tables, header included. [ACPI-6.5] */
#define MADT_FIXED_LEN 44u /* + Local Interrupt Controller Address, Flags; §5.2.12 Table 5.19 */
#define SRAT_FIXED_LEN 48u /* + Table Revision (4), Reserved (8); §5.2.16 Table 5.56 */
#define SLIT_FIXED_LEN 44u /* + Number of System Localities (8); §5.2.17 Table 5.62 */

/* Tables longer than this are rejected before the checksum loop walks them: a corrupt
 * length taken from firmware memory must not send us reading gigabytes. The largest real
 * tables (DSDTs, SLITs of big machines) are a few hundred KiB. */
#define ACPI_MAX_TABLE_LEN (16u * 1024u * 1024u)

/* MADT sub-structures (1-byte type, 1-byte length). §5.2.12.2, §5.2.12.12 */
#define MADT_TYPE_LOCAL_APIC    0
#define MADT_LOCAL_APIC_LEN     8u  /* ACPI Processor ID @2, APIC ID @3, Flags @4 */
#define MADT_TYPE_LOCAL_X2APIC  9
#define MADT_LOCAL_X2APIC_LEN   16u /* x2APIC ID @4, Flags @8, ACPI Processor UID @12 */
#define MADT_TYPE_GICC          0x0b /* Arm GIC CPU interface, §5.2.12.14 */
#define MADT_GICC_LEN           76u /* UID @8, Flags @12, MPIDR @68 (ACPI 5.1 length) */
#define MADT_GICC_ONLINE_CAPABLE BIT_ULL(3) /* GICC flags: 0 enabled, 3 online capable */

/* SRAT sub-structures. §5.2.16.1 - §5.2.16.3 */
#define SRAT_TYPE_CPU     0
#define SRAT_CPU_LEN      16u /* PD[7:0] @2, APIC ID @3, Flags @4, PD[31:8] @9..11 */
#define SRAT_TYPE_MEM     1
#define SRAT_MEM_LEN      40u /* PD @2, Base @8, Length @16, Flags @28 */
#define SRAT_TYPE_X2APIC  2
#define SRAT_X2APIC_LEN   24u /* PD @4, x2APIC ID @8, Flags @12 */
#define SRAT_TYPE_GICC    3
#define SRAT_GICC_LEN     18u /* PD @2, ACPI Processor UID @6, Flags @10 (§5.2.16.4) */
#define SRAT_CPU_ENABLED  BIT_ULL(0)

#define SLIT_LOCAL_DISTANCE 10u /* §5.2.17: the diagonal is normalised to 10 */

/* ---- helpers ---------------------------------------------------------------------------- */

/* Copy @p n bytes of a header string, non-printable bytes as '?'. */
static void copy_id(char *dst, const uint8_t *src, size_t n)
{
        for (size_t i = 0; i < n; i++)
                dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
        dst[n] = '\0';
}

/* Insert @p pd into the sorted set @p set of @p *n; false when it is full. */
static bool add_node(uint32_t *set, uint32_t *n, uint32_t pd)
{
        uint32_t i = 0;

        while (i < *n && set[i] < pd)
                i++;
        if (i < *n && set[i] == pd)
                return true;
        if (*n == ACPI_MAX_NODES)
                return false;
        memmove(&set[i + 1], &set[i], (*n - i) * sizeof(set[0]));
        set[i] = pd;
        (*n)++;
        return true;
}

/* Bounds-check the MADT/SRAT-style sub-structure (1-byte type, 1-byte length) at @p off
 * of a table of @p end bytes. A fragment too short for the 2-byte header ends the walk
 * (ST_OK, *len = 0, *trailing = its size, @p d says where) as Linux's
 * acpi_parse_entries_array() ends it; anything else malformed is ST_BAD_DATA. */
static status_t sub8(const uint8_t *t, size_t off, size_t end, const char *sig,
                     unsigned *type, size_t *len, uint32_t *trailing, struct acpi_diag *d)
{
        if (end - off < 2) {
                *len      = 0;
                *trailing = (uint32_t)(end - off);
                fail(d, ST_OK, off, "%s: %zu stray byte(s) after the last entry, ignored", sig,
                     end - off);
                return ST_OK;
        }
        *type = t[off];
        *len  = t[off + 1];
        if (*len < 2)
                return fail(d, ST_BAD_DATA, off + 1, "%s: entry type %u has length %zu", sig,
                            *type, *len);
        if (*len > end - off)
                return fail(d, ST_BAD_DATA, off + 1,
                            "%s: entry type %u (length %zu) runs past the end (%zu left)", sig,
                            *type, *len, end - off);
        return ST_OK;
}

/* ---- public functions ------------------------------------------------------------------- */

bool acpi_built_by_qemu(const struct acpi_header *h)
{
        return h && !memcmp(h->oem_id, "BOCHS ", 6) && !memcmp(h->oem_table_id, "BXPC", 4);
}

status_t acpi_check_header(const void *table, size_t avail, const char *sig, size_t min_len,
                           struct acpi_header *out, struct acpi_diag *diag)
{
        const uint8_t *t = table;
        char     name[5];
        uint32_t len;
        uint8_t  sum = 0;

        if (diag) {
                diag->offset  = 0;
                diag->what[0] = '\0';
        }
        if (out)
                memset(out, 0, sizeof(*out));
        if (!t)
                return fail(diag, ST_BAD_ARG, 0, "%s: no table", sig ? sig : "ACPI");
        if (min_len < ACPI_HEADER_LEN)
                min_len = ACPI_HEADER_LEN;
        if (sig)
                copy_id(name, (const uint8_t *)sig, 4);
        else if (avail >= 4)
                copy_id(name, t, 4);
        else
                copy_id(name, (const uint8_t *)"ACPI", 4);

        if (avail < ACPI_HEADER_LEN)
                return fail(diag, ST_BAD_DATA, 0, "%s: %zu bytes, the header needs %u", name,
                            avail, ACPI_HEADER_LEN);
        if (sig && memcmp(t, sig, 4) != 0) {
                char got[5];

                copy_id(got, t, 4);
                return fail(diag, ST_BAD_DATA, 0, "%s: signature is \"%s\"", name, got);
        }
        len = rd32(t + 4);
        if (len < min_len)
                return fail(diag, ST_BAD_DATA, 4, "%s: length %u is below the %zu-byte fixed part",
                            name, len, min_len);
        if (len > avail || len > ACPI_MAX_TABLE_LEN)
                return fail(diag, ST_BAD_DATA, 4, "%s: length %u exceeds the %zu bytes available",
                            name, len, avail > ACPI_MAX_TABLE_LEN ? (size_t)ACPI_MAX_TABLE_LEN : avail);
        for (uint32_t i = 0; i < len; i++)
                sum = (uint8_t)(sum + t[i]);
        if (sum != 0)       /* §5.2.6: the entire table, checksum included, sums to zero */
                return fail(diag, ST_BAD_DATA, 9, "%s: bad checksum (bytes sum to 0x%02x)", name,
                            sum);
        if (out) {
                copy_id(out->signature, t, 4);
                out->length   = len;
                out->revision = t[8];
                copy_id(out->oem_id, t + 10, 6);
                copy_id(out->oem_table_id, t + 16, 8);
                out->oem_revision = rd32(t + 24);
        }
        return ST_OK;
}

#define MADT_XAPIC_ID_INVALID  0xffu        /* Linux acpi_parse_lapic(): "Ignore invalid ID" */
#define MADT_X2APIC_ID_INVALID 0xffffffffu  /* Linux acpi_parse_x2apic() */

/* Keep one processor entry of @p m whose flags are @p flags (ACPI_MADT_* layout), unless it
 * is a placeholder: the invalid ID @p invalid, or neither enabled nor online capable (the bit
 * exists from MADT revision 5). Before revision 5 a disabled entry cannot say that it may come
 * online: firmware lists the processors a board could take; Linux's acpi_is_processor_usable()
 * keeps such entries only to size its possible-CPU map, and they are not processors here. */
static void madt_add(struct acpi_madt *m, uint32_t apic_id, uint32_t uid, uint32_t flags,
                     bool x2apic, uint32_t invalid)
{
        bool oc_defined = m->revision >= ACPI_MADT_REV_ONLINE_CAPABLE;
        bool enabled    = flags & ACPI_MADT_ENABLED;
        bool online_cap = oc_defined && (flags & ACPI_MADT_ONLINE_CAPABLE);
        struct acpi_cpu *c;

        m->n_entries++;
        if (apic_id == invalid || (!enabled && !online_cap)) {
                m->n_placeholders++;
                if (apic_id == invalid && enabled)
                        m->n_invalid_enabled++;
                return;
        }
        if (m->n_cpus == ACPI_MAX_CPUS) {
                m->n_dropped++;
                return;
        }
        c = &m->cpu[m->n_cpus++];
        c->apic_id        = apic_id;
        c->acpi_uid       = uid;
        c->enabled        = enabled;
        c->online_capable = !enabled && online_cap;
        c->x2apic         = x2apic;
        if (c->enabled)
                m->n_enabled++;
}

/* True when the MADT @p t of @p end bytes has a Processor Local APIC entry: then x2APIC
 * entries below ID 0xFF describe processors the xAPIC entries already give ([ACPI-6.5]
 * §5.2.12.12: x2APIC structures are for IDs of 255 and above; Linux acpi_parse_x2apic()
 * skips them when has_lapic_cpus). Malformed entries end the scan; the main walk reports them. */
static bool madt_has_xapic(const uint8_t *t, size_t end)
{
        for (size_t off = MADT_FIXED_LEN; end - off >= 2 && t[off + 1] >= 2 &&
                                          t[off + 1] <= end - off;
             off += t[off + 1])
                if (t[off] == MADT_TYPE_LOCAL_APIC)
                        return true;
        return false;
}

status_t acpi_parse_madt(const void *table, size_t avail, struct acpi_madt *out,
                         struct acpi_diag *diag)
{
        const uint8_t *t = table;
        struct acpi_header h;
        status_t st;

        if (!out)
                return fail(diag, ST_BAD_ARG, 0, "APIC: no output");
        memset(out, 0, sizeof(*out));
        if ((st = acpi_check_header(table, avail, "APIC", MADT_FIXED_LEN, &h, diag)) != ST_OK)
                return st;
        out->revision   = h.revision;
        out->lapic_addr = rd32(t + 36);
        out->flags      = rd32(t + 40);
        bool has_xapic  = madt_has_xapic(t, h.length);

        for (size_t off = MADT_FIXED_LEN, len = 0; off < h.length; off += len) {
                const uint8_t *e = t + off;
                unsigned type = 0;

                if ((st = sub8(t, off, h.length, "APIC", &type, &len, &out->trailing_bytes,
                               diag)) != ST_OK)
                        goto bad;
                if (!len)
                        break;
                if (type == MADT_TYPE_LOCAL_APIC) {
                        if (len < MADT_LOCAL_APIC_LEN) {
                                st = too_short(diag, "APIC", "Local APIC", off, len,
                                               MADT_LOCAL_APIC_LEN);
                                goto bad;
                        }
                        madt_add(out, e[3], e[2], rd32(e + 4), false, MADT_XAPIC_ID_INVALID);
                } else if (type == MADT_TYPE_LOCAL_X2APIC) {
                        if (len < MADT_LOCAL_X2APIC_LEN) {
                                st = too_short(diag, "APIC", "Local x2APIC", off, len,
                                               MADT_LOCAL_X2APIC_LEN);
                                goto bad;
                        }
                        uint32_t id = rd32(e + 4);
                        if (has_xapic && id < MADT_XAPIC_ID_INVALID) {
                                out->n_entries++;
                                out->n_x2apic_dup++;
                                continue;
                        }
                        madt_add(out, id, rd32(e + 12), rd32(e + 8), true,
                                 MADT_X2APIC_ID_INVALID);
                } else if (type == MADT_TYPE_GICC) {
                        if (len < MADT_GICC_LEN) {
                                st = too_short(diag, "APIC", "GICC", off, len, MADT_GICC_LEN);
                                goto bad;
                        }
                        /* The processor's ID is its MPIDR_EL1 affinity, packed
                         * Aff3.Aff2.Aff1.Aff0 as UEFI's MP services and boot/topology.h
                         * name it; "online capable" is bit 3 here, not bit 1. */
                        uint64_t mpidr = rd64(e + 68);
                        uint32_t id    = (uint32_t)((mpidr >> 32 & 0xff) << 24 | (mpidr & 0xffffff));
                        uint32_t gf    = rd32(e + 12);
                        madt_add(out, id, rd32(e + 8),
                                 (gf & ACPI_MADT_ENABLED) |
                                         (gf & MADT_GICC_ONLINE_CAPABLE ? ACPI_MADT_ONLINE_CAPABLE : 0),
                                 false, MADT_X2APIC_ID_INVALID);
                } else {
                        out->n_other++;
                }
        }
        if (out->n_invalid_enabled && diag && !diag->what[0])
                fail(diag, ST_OK, 0, "APIC: %u enabled entr%s with the invalid ID, not counted "
                     "as processors", out->n_invalid_enabled,
                     out->n_invalid_enabled == 1 ? "y" : "ies");
        return ST_OK;
bad:
        memset(out, 0, sizeof(*out));
        return st;
}

static void srat_add_cpu(struct acpi_srat *s, uint32_t apic_id, uint32_t node, uint32_t flags,
                         bool x2apic, bool by_uid)
{
        struct acpi_srat_cpu *c;

        if (s->n_cpus == ACPI_MAX_CPUS) {
                s->n_dropped++;
                return;
        }
        c = &s->cpu[s->n_cpus++];
        c->apic_id = apic_id;
        c->node    = node;
        c->enabled = flags & SRAT_CPU_ENABLED;
        c->x2apic  = x2apic;
        c->by_uid  = by_uid;
}

/* Count @p node among the proximity domains when its entry (at @p off) is enabled. */
static status_t srat_node(struct acpi_srat *s, uint32_t node, bool enabled, size_t off,
                          struct acpi_diag *d)
{
        if (enabled && !add_node(s->node, &s->n_nodes, node))
                return fail(d, ST_UNSUPPORTED, off, "SRAT: more than %u proximity domains",
                            ACPI_MAX_NODES);
        return ST_OK;
}

/* Processor Local APIC/SAPIC Affinity @p e (@p len bytes at @p off); table @p revision. */
static status_t srat_cpu_affinity(struct acpi_srat *s, uint8_t revision, const uint8_t *e,
                                  size_t off, size_t len, struct acpi_diag *d)
{
        uint32_t node, flags;

        if (len < SRAT_CPU_LEN)
                return too_short(d, "SRAT", "processor affinity", off, len, SRAT_CPU_LEN);
        /* Proximity Domain [7:0] @2 and [31:8] @9..11. Revision 1 tables
         * (ACPI 2.0) had 8-bit domains and reserved the high bytes;
         * Linux srat.c also assembles them only from revision 2 on. */
        node = e[2];
        if (revision >= 2)
                node |= ((uint32_t)e[9] << 8) | ((uint32_t)e[10] << 16) | ((uint32_t)e[11] << 24);
        flags = rd32(e + 4);
        srat_add_cpu(s, e[3], node, flags, false, false);
        return srat_node(s, node, flags & SRAT_CPU_ENABLED, off, d);
}

/* Processor Local x2APIC Affinity @p e (@p len bytes at @p off). */
static status_t srat_x2apic_affinity(struct acpi_srat *s, const uint8_t *e, size_t off,
                                     size_t len, struct acpi_diag *d)
{
        uint32_t node, flags;

        if (len < SRAT_X2APIC_LEN)
                return too_short(d, "SRAT", "x2APIC affinity", off, len, SRAT_X2APIC_LEN);
        node  = rd32(e + 4);
        flags = rd32(e + 12);
        srat_add_cpu(s, rd32(e + 8), node, flags, true, false);
        return srat_node(s, node, flags & SRAT_CPU_ENABLED, off, d);
}

/* GICC Affinity @p e (@p len bytes at @p off): names the processor by its ACPI UID, which
 * acpi_srat_resolve_uids turns into the MADT's processor ID. */
static status_t srat_gicc_affinity(struct acpi_srat *s, const uint8_t *e, size_t off,
                                   size_t len, struct acpi_diag *d)
{
        uint32_t node, flags;

        if (len < SRAT_GICC_LEN)
                return too_short(d, "SRAT", "GICC affinity", off, len, SRAT_GICC_LEN);
        node  = rd32(e + 2);
        flags = rd32(e + 10);
        srat_add_cpu(s, rd32(e + 6), node, flags, false, true);
        return srat_node(s, node, flags & SRAT_CPU_ENABLED, off, d);
}

/* Memory Affinity @p e (@p len bytes at @p off). */
static status_t srat_mem_affinity(struct acpi_srat *s, const uint8_t *e, size_t off, size_t len,
                                  struct acpi_diag *d)
{
        uint64_t base, bytes;
        uint32_t node, flags;

        if (len < SRAT_MEM_LEN)
                return too_short(d, "SRAT", "memory affinity", off, len, SRAT_MEM_LEN);
        node  = rd32(e + 2);
        base  = rd64(e + 8);
        bytes = rd64(e + 16);
        flags = rd32(e + 28);
        if (bytes > UINT64_MAX - base)
                return fail(d, ST_BAD_DATA, off + 16,
                            "SRAT: memory range 0x%llx + 0x%llx wraps around",
                            (unsigned long long)base, (unsigned long long)bytes);
        if (s->n_mem < ACPI_MAX_MEM_RANGES) {
                struct acpi_srat_mem *m = &s->mem[s->n_mem++];

                m->base  = base;
                m->len   = bytes;
                m->node  = node;
                m->flags = flags;
        } else {
                s->n_dropped++;
        }
        return srat_node(s, node, flags & ACPI_SRAT_MEM_ENABLED, off, d);
}

status_t acpi_parse_srat(const void *table, size_t avail, struct acpi_srat *out,
                         struct acpi_diag *diag)
{
        const uint8_t *t = table;
        struct acpi_header h;
        status_t st;

        if (!out)
                return fail(diag, ST_BAD_ARG, 0, "SRAT: no output");
        memset(out, 0, sizeof(*out));
        if ((st = acpi_check_header(table, avail, "SRAT", SRAT_FIXED_LEN, &h, diag)) != ST_OK)
                return st;

        for (size_t off = SRAT_FIXED_LEN, len = 0; off < h.length; off += len) {
                const uint8_t *e = t + off;
                unsigned type = 0;

                if ((st = sub8(t, off, h.length, "SRAT", &type, &len, &out->trailing_bytes,
                               diag)) != ST_OK)
                        goto bad;
                if (!len)
                        break;
                switch (type) {
                case SRAT_TYPE_CPU:
                        st = srat_cpu_affinity(out, h.revision, e, off, len, diag);
                        break;
                case SRAT_TYPE_X2APIC:
                        st = srat_x2apic_affinity(out, e, off, len, diag);
                        break;
                case SRAT_TYPE_GICC:
                        st = srat_gicc_affinity(out, e, off, len, diag);
                        break;
                case SRAT_TYPE_MEM:
                        st = srat_mem_affinity(out, e, off, len, diag);
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

status_t acpi_parse_slit(const void *table, size_t avail, struct acpi_slit *out,
                         struct acpi_diag *diag)
{
        const uint8_t *t = table;
        struct acpi_header h;
        uint64_t n, room;
        status_t st;

        if (!out)
                return fail(diag, ST_BAD_ARG, 0, "SLIT: no output");
        memset(out, 0, sizeof(*out));
        if ((st = acpi_check_header(table, avail, "SLIT", SLIT_FIXED_LEN, &h, diag)) != ST_OK)
                return st;
        n    = rd64(t + 36);
        room = h.length - SLIT_FIXED_LEN;
        if (n == 0)
                return fail(diag, ST_BAD_DATA, 36, "SLIT: 0 localities");
        /* n <= room < 2^32 first, so that n * n cannot overflow. */
        if (n > room || n * n > room)
                return fail(diag, ST_BAD_DATA, 36,
                            "SLIT: %llu localities need %llu x %llu bytes, table has %llu",
                            (unsigned long long)n, (unsigned long long)n,
                            (unsigned long long)n, (unsigned long long)room);
        if (n > ACPI_SLIT_MAX)
                return fail(diag, ST_UNSUPPORTED, 36, "SLIT: %llu localities (at most %u)",
                            (unsigned long long)n, ACPI_SLIT_MAX);

        for (uint32_t i = 0; i < n; i++) {
                for (uint32_t j = 0; j < n; j++) {
                        size_t  off = SLIT_FIXED_LEN + (size_t)i * n + j;
                        uint8_t d   = t[off];

                        if ((i == j && d != SLIT_LOCAL_DISTANCE) ||
                            (i != j && d <= SLIT_LOCAL_DISTANCE)) {
                                memset(out, 0, sizeof(*out));
                                return fail(diag, ST_BAD_DATA, off,
                                            "SLIT: distance %u -> %u is %u", i, j, d);
                        }
                        out->dist[i][j] = d;
                }
        }
        out->n = (uint32_t)n;
        return ST_OK;
}

bool acpi_srat_mem_present(const struct acpi_srat_mem *m)
{
        return m && (m->flags & ACPI_SRAT_MEM_ENABLED) &&
               !(m->flags & (ACPI_SRAT_MEM_HOT_PLUGGABLE | ACPI_SRAT_MEM_NON_VOLATILE));
}

void acpi_srat_resolve_uids(struct acpi_srat *srat, const struct acpi_madt *madt)
{
        if (!srat || !madt)
                return;
        for (uint32_t i = 0; i < srat->n_cpus; i++) {
                struct acpi_srat_cpu *c = &srat->cpu[i];
                if (!c->by_uid)
                        continue;
                for (uint32_t j = 0; j < madt->n_cpus; j++)
                        if (madt->cpu[j].acpi_uid == c->apic_id) {
                                c->apic_id = madt->cpu[j].apic_id;
                                c->by_uid  = false;
                                break;
                        }
        }
}
