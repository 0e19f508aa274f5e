/** @file
 * Recorded CPUID text (see cpuid.h, cpuid_text_parse()): the register dumps people publish and
 * attach to bug reports, read into a struct cpuid_dump so that the decoder runs on them as on
 * the live CPU. The layouts read, one logical processor per block:
 *
 *  - `cpuid -r` (Debian package cpuid):  `CPU 0:` then
 *    `   0x00000004 0x01: eax=0x... ebx=0x... ecx=0x... edx=0x...`
 *  - AIDA64 / EVEREST register lists:    `CPUID 00000004: A-B-C-D [SL 01] [L1I: 32 KB]`,
 *    also written `CPUID 00000004  A-B-C-D` and `CPUID 00000004 :A-B-C-D`; without `[SL nn]`
 *    the sub-leaf is the leaf's position among the block's lines of that leaf (0, 1, ...).
 *    Blocks open with `------[ CPUID Registers / Logical CPU #n ]------`,
 *    `------[ Logical CPU #n ]------`, `CPUID Registers (CPU #n):`, `CPU#nnn AffMask: ...` or
 *    `Group: 0x00 Affinity mask: ...`; any other `------[ ... ]------` section ends a block.
 *    Without any header, a second line of leaf 0 opens the next block. An `[SL nn]` line
 *    repeated whole is read once.
 *  - older InstLatx64 lists: `CPUID 00000000: 00000001 68747541 444D4163 69746E65`.
 *
 * Everything else (decoded text, versions, MSR lists) is skipped. Portable: no libc.
 */
#include "boot/x86/cpuid_priv.h"

#include "boot/plat.h"

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\r';
}

static int hex_digit(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/** Up to 8 hex digits at *@p p into @p v; advances *@p p. False when there are none or more
 *  than 8 (@p exact8: exactly 8). */
static bool hex32(const char **p, const char *end, uint32_t *v, bool exact8)
{
        unsigned n = 0;

        *v = 0;
        while (*p < end && hex_digit(**p) >= 0) {
                if (++n > 8)
                        return false;
                *v = (*v << 4) | (uint32_t)hex_digit(**p);
                (*p)++;
        }
        return exact8 ? n == 8 : n > 0;
}

static const char *skip_space(const char *p, const char *end)
{
        while (p < end && is_space(*p))
                p++;
        return p;
}

static bool starts(const char *p, const char *end, const char *word)
{
        size_t n = strlen(word);

        return (size_t)(end - p) >= n && !memcmp(p, word, n);
}

/** True when [p, end) contains @p word. */
static bool contains(const char *p, const char *end, const char *word)
{
        for (; p < end; p++)
                if (starts(p, end, word))
                        return true;
        return false;
}

enum line_kind { LINE_OTHER, LINE_BLOCK, LINE_SECTION, LINE_REGS, LINE_BAD };

struct text_line {
        enum line_kind    kind;
        bool              has_sub;
        bool              sl_tag;   /* AIDA64 `[SL nn]`: a line repeated whole is skipped */
        uint32_t          leaf, sub;
        struct cpuid_regs r;
};

/* `   0x00000004 0x01: eax=0x1c004121 ebx=... ecx=... edx=...` and nothing after but a
 * `#` comment. */
static enum line_kind cpuid_r_line(const char *p, const char *end, struct text_line *l)
{
        static const char *const names[] = { "eax=0x", "ebx=0x", "ecx=0x", "edx=0x" };
        uint32_t                 v[4];

        p += 2;
        if (!hex32(&p, end, &l->leaf, false))
                return LINE_BAD;
        p = skip_space(p, end);
        if (!starts(p, end, "0x"))
                return LINE_BAD;
        p += 2;
        if (!hex32(&p, end, &l->sub, false) || p == end || *p++ != ':')
                return LINE_BAD;
        for (unsigned i = 0; i < 4; i++) {
                p = skip_space(p, end);
                if (!starts(p, end, names[i]))
                        return LINE_BAD;
                p += 6;
                if (!hex32(&p, end, &v[i], false))
                        return LINE_BAD;
        }
        p = skip_space(p, end);
        if (p < end && *p != '#')
                return LINE_BAD;
        l->has_sub = true;
        l->r       = (struct cpuid_regs){ v[0], v[1], v[2], v[3] };
        return LINE_REGS;
}

/* `CPUID 00000004: FC004121-02C0003F-0000003F-00000000 [SL 01] ...` and its variants. A line
 * starting with "CPUID" that is not of this form ("CPUID Revision : ...") is other text. */
static enum line_kind aida_line(const char *p, const char *end, struct text_line *l)
{
        uint32_t v[4];

        p = skip_space(p + 5, end);
        if (!hex32(&p, end, &l->leaf, true))
                return LINE_OTHER;
        p = skip_space(p, end);
        if (p < end && *p == ':')
                p = skip_space(p + 1, end);
        for (unsigned i = 0; i < 4; i++) {
                if (i && p < end && *p == '-')
                        p++;
                else if (i && (p == end || !is_space(*p)))
                        return LINE_OTHER;
                p = skip_space(p, end);
                if (!hex32(&p, end, &v[i], true))
                        return LINE_OTHER;
        }
        l->r       = (struct cpuid_regs){ v[0], v[1], v[2], v[3] };
        l->has_sub = false;
        p          = skip_space(p, end);
        if (starts(p, end, "[SL ")) {
                p += 4;
                if (!hex32(&p, end, &l->sub, false))
                        return LINE_BAD;
                l->has_sub = l->sl_tag = true;
        }
        return LINE_REGS;
}

static enum line_kind classify(const char *p, const char *end, struct text_line *l)
{
        p = skip_space(p, end);
        while (end > p && is_space(end[-1]))
                end--;
        if (starts(p, end, "0x"))
                return cpuid_r_line(p, end, l);
        if (starts(p, end, "CPUID Registers (CPU #") || starts(p, end, "CPU#") ||
            (starts(p, end, "Group:") && contains(p, end, "Affinity mask")))
                return LINE_BLOCK;
        if (starts(p, end, "CPU") && (starts(p + 3, end, ":") || starts(p + 3, end, " ")) &&
            end > p && end[-1] == ':')
                return LINE_BLOCK; /* cpuid -r: "CPU:" or "CPU 12:" */
        if (starts(p, end, "CPUID"))
                return aida_line(p, end, l);
        if (starts(p, end, "------[")) {
                if (contains(p, end, "Logical CPU #"))
                        return LINE_BLOCK;
                return LINE_SECTION;
        }
        return LINE_OTHER;
}

/** Sub-leaves of @p leaf already in @p d: the implicit sub-leaf of the next line. */
static uint32_t count_leaf(const struct cpuid_dump *d, uint32_t leaf)
{
        uint32_t n = 0;

        for (size_t i = 0; i < d->n; i++)
                if (d->leaves[i].leaf == leaf)
                        n++;
        return n;
}

static status_t add_line(struct cpuid_dump *d, const struct text_line *l)
{
        uint32_t          sub = l->has_sub ? l->sub : count_leaf(d, l->leaf);
        struct cpuid_regs old;

        if (cpuid_dump_get(d, l->leaf, sub, &old))
                return l->sl_tag && !memcmp(&old, &l->r, sizeof(old)) ? ST_OK : ST_BAD_DATA;
        if (d->n == CPUID_DUMP_MAX)
                return ST_BAD_DATA;
        d->leaves[d->n++] = (struct cpuid_leaf){ .leaf = l->leaf, .subleaf = sub, .r = l->r };
        return ST_OK;
}

status_t cpuid_text_parse(const char *text, size_t len, unsigned cpu, struct cpuid_dump *d,
                          unsigned *n_cpus)
{
        const char *end = text + len;
        int         block = -1;  /* index of the block being read; -1 before the first */
        bool        in_block = false, any_regs = false, leaf0 = false, headers = false;
        status_t    st = ST_OK;

        if (!text || !d)
                return ST_BAD_ARG;
        d->n = 0;
        for (const char *p = text; p < end && st == ST_OK;) {
                const char      *eol = p;
                struct text_line l   = { 0 };

                while (eol < end && *eol != '\n')
                        eol++;
                switch (classify(p, eol, &l)) {
                case LINE_BLOCK:
                        if (block < 0 || any_regs)
                                block++;
                        in_block = headers = true;
                        any_regs = leaf0 = false;
                        break;
                case LINE_SECTION:
                        in_block = false;
                        break;
                case LINE_REGS:
                        if (block < 0) { /* no header: the file is one block */
                                block    = 0;
                                in_block = true;
                        }
                        if (!headers && l.leaf == 0 && leaf0) { /* the next processor */
                                block++;
                                leaf0 = false;
                        }
                        if (in_block) {
                                any_regs = true;
                                leaf0 |= l.leaf == 0;
                                if ((unsigned)block == cpu)
                                        st = add_line(d, &l);
                        }
                        break;
                case LINE_BAD:
                        st = ST_BAD_DATA;
                        break;
                case LINE_OTHER:
                        break;
                }
                p = eol < end ? eol + 1 : end;
        }
        unsigned n = block < 0 ? 0 : (unsigned)block + (any_regs ? 1 : 0);

        if (n_cpus)
                *n_cpus = n;
        if (st == ST_OK && d->n == 0)
                st = n > 0 && cpu >= n ? ST_NOT_FOUND : ST_BAD_DATA;
        if (st != ST_OK)
                d->n = 0;
        return st;
}
