/** @file SMBIOS structure-table walker (see smbios.h). */
#include "boot/smbios.h"

#include <stdarg.h>

#include "lib/fmt.h"
#include "boot/plat.h"

/* Structure header: Type @0, Length @1, Handle @2. [SMBIOS-3.6] §6.1.2 */
#define SMB_HDR_LEN   4u
#define SMB_TYPE_BIOS   0
#define SMB_TYPE_SYSTEM 1
#define SMB_TYPE_BOARD  2
#define SMB_TYPE_CPU    4
#define SMB_TYPE_MEMDEV 17
#define SMB_TYPE_END    127

/* Type 0, §7.1: string numbers. */
#define T0_VENDOR   0x04
#define T0_VERSION  0x05
#define T0_DATE     0x08
/* Type 1, §7.2 (UUID since 2.1). */
#define T1_MANUF    0x04
#define T1_PRODUCT  0x05
#define T1_VERSION  0x06
#define T1_UUID     0x08
/* Type 2, §7.3. */
#define T2_MANUF    0x04
#define T2_PRODUCT  0x05
#define T2_VERSION  0x06
/* Type 4, §7.5. */
#define T4_SOCKET   0x04
#define T4_MANUF    0x07
#define T4_VERSION  0x10
#define T4_MAX_SPEED 0x14        /* WORD, MHz */
#define T4_CUR_SPEED 0x16        /* WORD, MHz */
#define T4_STATUS   0x18
#define T4_STATUS_POPULATED 0x40 /* bit 6: CPU Socket Populated */
#define T4_CORES    0x23         /* BYTE, 2.5+ */
#define T4_CORES_EN 0x24
#define T4_THREADS  0x25
#define T4_CORES2   0x2a         /* WORD, 3.0+: used when the byte field is 0xFF */
#define T4_CORES_EN2 0x2c
#define T4_THREADS2 0x2e
#define T4_USE_COUNT2 0xff
/* Type 17, §7.18.5: Size WORD: 0 = empty, 0xFFFF = unknown, 0x7FFF = see Extended Size;
 * bit 15 set = KiB units, clear = MiB. Extended Size DWORD (2.7+), bits 30:0 in MiB. */
#define T17_SIZE     0x0c
#define T17_EXT_SIZE 0x1c
#define T17_SIZE_EMPTY   0x0000u
#define T17_SIZE_UNKNOWN 0xffffu
#define T17_SIZE_USE_EXT 0x7fffu
#define T17_SIZE_KIB     0x8000u
#define T17_EXT_MASK     0x7fffffffu

/* One structure being decoded: formatted area @p p (@p len bytes) and its string set
 * [@p str, @p str_end). */
struct smb_struct {
        const uint8_t *p;
        size_t         len;
        const uint8_t *str;
        const uint8_t *str_end;
};

/* ---- helpers ---------------------------------------------------------------------------- */

static uint16_t rd16(const uint8_t *p)
{
        return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t rd32(const uint8_t *p)
{
        return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
               ((uint32_t)p[3] << 24);
}

PRINTF_FMT(3, 4)
static status_t fail(struct smbios_diag *d, size_t off, const char *fmt, ...)
{
        va_list ap;

        if (!d)
                return ST_BAD_DATA;
        d->offset = (uint32_t)off;
        va_start(ap, fmt);
        fmt_vsnprintf(d->what, sizeof(d->what), fmt, ap);
        va_end(ap);
        return ST_BAD_DATA;
}

/* Field @p off of @p s exists when the formatted area covers @p width bytes there. */
static bool has(const struct smb_struct *s, size_t off, size_t width)
{
        return s->len >= off + width;
}

static unsigned byte_at(const struct smb_struct *s, size_t off)
{
        return has(s, off, 1) ? s->p[off] : 0;
}

static unsigned word_at(const struct smb_struct *s, size_t off)
{
        return has(s, off, 2) ? rd16(s->p + off) : 0;
}

/* Copy string number @p idx_off names into @p dst (SMBIOS_STR_LEN bytes). */
static void get_str(const struct smb_struct *s, size_t idx_off, char *dst)
{
        unsigned       idx = byte_at(s, idx_off);
        const uint8_t *q   = s->str;
        size_t         n   = 0;

        dst[0] = '\0';
        if (idx == 0)
                return;
        /* Skip idx - 1 strings; the set's terminating double NUL is an empty string. */
        while (--idx > 0) {
                if (q >= s->str_end || *q == '\0')
                        return;
                while (q < s->str_end && *q != '\0')
                        q++;
                q++;
        }
        while (q < s->str_end && *q != '\0' && n < SMBIOS_STR_LEN - 1) {
                dst[n++] = (*q >= 0x20 && *q < 0x7f) ? (char)*q : '?';
                q++;
        }
        while (n > 0 && dst[n - 1] == ' ')
                n--;
        dst[n] = '\0';
}

static void decode_uuid(struct smbios_info *o, const uint8_t *u)
{
        static const uint8_t le_order[16] = { 3, 2, 1, 0, 5, 4, 7, 6,
                                              8, 9, 10, 11, 12, 13, 14, 15 };
        bool le = o->major > 2 || (o->major == 2 && o->minor >= 6);
        bool all00 = true, allff = true;
        char *p = o->sys_uuid_str;

        memcpy(o->sys_uuid, u, 16);
        for (unsigned i = 0; i < 16; i++) {
                all00 &= u[i] == 0x00;
                allff &= u[i] == 0xff;
        }
        /* §7.2.1: all 0xFF = not present, all 0x00 = present but not set. */
        if (all00 || allff)
                return;
        o->has_uuid = true;
        for (unsigned i = 0; i < 16; i++) {
                p += fmt_snprintf(p, 3, "%02x", u[le ? le_order[i] : i]);
                if (i == 3 || i == 5 || i == 7 || i == 9)
                        *p++ = '-';
        }
        *p = '\0';
}

static void decode_cpu(struct smbios_info *o, const struct smb_struct *s)
{
        struct smbios_cpu *c;
        unsigned v;

        if (o->n_cpus == SMBIOS_MAX_CPUS) {
                o->n_cpus_dropped++;
                return;
        }
        c = &o->cpu[o->n_cpus++];
        get_str(s, T4_SOCKET, c->socket);
        get_str(s, T4_MANUF, c->manufacturer);
        get_str(s, T4_VERSION, c->version);
        c->max_speed_mhz = (uint16_t)word_at(s, T4_MAX_SPEED);
        c->cur_speed_mhz = (uint16_t)word_at(s, T4_CUR_SPEED);
        c->populated     = byte_at(s, T4_STATUS) & T4_STATUS_POPULATED;
        /* §7.5: Core Count 2 etc. hold the count when the byte field is 0xFF. */
        v = byte_at(s, T4_CORES);
        c->n_cores = (uint16_t)(v == T4_USE_COUNT2 && has(s, T4_CORES2, 2) ?
                                word_at(s, T4_CORES2) : v);
        v = byte_at(s, T4_CORES_EN);
        c->n_cores_enabled = (uint16_t)(v == T4_USE_COUNT2 && has(s, T4_CORES_EN2, 2) ?
                                        word_at(s, T4_CORES_EN2) : v);
        v = byte_at(s, T4_THREADS);
        c->n_threads = (uint16_t)(v == T4_USE_COUNT2 && has(s, T4_THREADS2, 2) ?
                                  word_at(s, T4_THREADS2) : v);
}

static void decode_memdev(struct smbios_info *o, const struct smb_struct *s)
{
        unsigned size;

        o->n_mem_devices++;
        if (!has(s, T17_SIZE, 2))
                return;
        size = word_at(s, T17_SIZE);
        if (size == T17_SIZE_EMPTY)
                return;
        o->n_mem_populated++;
        if (size == T17_SIZE_UNKNOWN)
                o->n_mem_unknown_size++;
        else if (size == T17_SIZE_USE_EXT && has(s, T17_EXT_SIZE, 4))
                o->mem_total_bytes += (uint64_t)(rd32(s->p + T17_EXT_SIZE) & T17_EXT_MASK) * MiB;
        else if (size & T17_SIZE_KIB)
                o->mem_total_bytes += (uint64_t)(size & ~T17_SIZE_KIB) * KiB;
        else
                o->mem_total_bytes += (uint64_t)size * MiB;
}

static void decode(struct smbios_info *o, unsigned type, const struct smb_struct *s)
{
        switch (type) {
        case SMB_TYPE_BIOS:
                if (o->has_bios)
                        break;
                o->has_bios = true;
                get_str(s, T0_VENDOR, o->bios_vendor);
                get_str(s, T0_VERSION, o->bios_version);
                get_str(s, T0_DATE, o->bios_date);
                break;
        case SMB_TYPE_SYSTEM:
                if (o->has_system)
                        break;
                o->has_system = true;
                get_str(s, T1_MANUF, o->sys_manufacturer);
                get_str(s, T1_PRODUCT, o->sys_product);
                get_str(s, T1_VERSION, o->sys_version);
                if (has(s, T1_UUID, 16))
                        decode_uuid(o, s->p + T1_UUID);
                break;
        case SMB_TYPE_BOARD:
                if (o->has_board)
                        break;
                o->has_board = true;
                get_str(s, T2_MANUF, o->board_manufacturer);
                get_str(s, T2_PRODUCT, o->board_product);
                get_str(s, T2_VERSION, o->board_version);
                break;
        case SMB_TYPE_CPU:
                decode_cpu(o, s);
                break;
        case SMB_TYPE_MEMDEV:
                decode_memdev(o, s);
                break;
        default:
                break;
        }
}

/* ---- public functions ------------------------------------------------------------------- */

status_t smbios_parse(const void *table, size_t len, unsigned major, unsigned minor,
                      struct smbios_info *out, struct smbios_diag *diag)
{
        const uint8_t *t = table;
        size_t off = 0;

        if (diag) {
                diag->offset  = 0;
                diag->what[0] = '\0';
        }
        if (!out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        out->major = major;
        out->minor = minor;
        if (!t)
                return ST_BAD_ARG;

        while (off < len) {
                struct smb_struct s;
                unsigned type;
                size_t   end;

                if (len - off < SMB_HDR_LEN)
                        return fail(diag, off, "SMBIOS: %zu stray byte(s) at the end",
                                    len - off);
                type  = t[off];
                s.p   = t + off;
                s.len = t[off + 1];
                if (s.len < SMB_HDR_LEN)
                        return fail(diag, off, "SMBIOS: type %u structure has length %zu", type,
                                    s.len);
                if (s.len > len - off)
                        return fail(diag, off,
                                    "SMBIOS: type %u structure (length %zu) runs past the end",
                                    type, s.len);
                /* The string set ends at the first double NUL after the formatted area. */
                end = off + s.len;
                while (end + 1 < len && (t[end] != 0 || t[end + 1] != 0))
                        end++;
                if (end + 1 >= len)
                        return fail(diag, off,
                                    "SMBIOS: type %u structure's strings are not terminated",
                                    type);
                s.str     = t + off + s.len;
                s.str_end = t + end;
                decode(out, type, &s);
                out->n_structs++;
                off = end + 2;
                if (type == SMB_TYPE_END) {
                        out->saw_end = true;
                        break;
                }
        }
        return ST_OK;
}
