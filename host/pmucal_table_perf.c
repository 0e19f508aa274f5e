/** @file pmucal-table report's input: a line of `perf script` or `perf mem report -D` read
 *  into one sample (see host/pmucal_table_perf.h for the forms and where perf prints them).
 *  Every byte of a line is looked at about once: this runs for each of millions of samples. */
#define _GNU_SOURCE /* memmem */
#include "host/pmucal_table_perf.h"

#include <string.h>

struct tok {
        const char *p;
        size_t      n;
};

static bool blank(char c)
{
        return c == ' ' || c == '\t' || c == '\r';
}

/* A hex digit's value + 1 by character (0: not a digit): one load per digit. */
static const uint8_t hex_value1[256] = {
        ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,
        ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
        ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
        ['F'] = 16,
};

/* @p t as a hex number (an optional 0x, then 1..16 digits) into *@p v. */
static bool hex_of(struct tok t, uint64_t *v)
{
        size_t i = t.n > 2 && t.p[0] == '0' && (t.p[1] | 32) == 'x' ? 2 : 0;

        if (i == t.n || t.n - i > 16)
                return false;
        uint64_t x   = 0;
        unsigned bad = 0;
        for (; i < t.n; i++) {
                unsigned d = hex_value1[(unsigned char)t.p[i]];
                bad |= d == 0;
                x = x << 4 | (uint64_t)(d - 1);
        }
        *v = x;
        return !bad;
}

/* @p t as a 0x-number: the 0x is required. */
static bool hex0x_of(struct tok t, uint64_t *v)
{
        return t.n > 2 && t.p[0] == '0' && (t.p[1] | 32) == 'x' && hex_of(t, v);
}

/* @p t as a decimal (digits only) into *@p v. */
static bool dec_of(struct tok t, double *v)
{
        if (!t.n)
                return false;
        *v = 0;
        for (size_t i = 0; i < t.n; i++) {
                if (t.p[i] < '0' || t.p[i] > '9')
                        return false;
                *v = *v * 10 + (t.p[i] - '0');
        }
        return true;
}

/* The blank-separated token at or after *@p p (before @p end); *@p p moves past it. */
static struct tok next_blank(const char **p, const char *end)
{
        const char *b = *p, *e;

        while (b < end && blank(*b))
                b++;
        for (e = b; e < end && !blank(*e); e++)
                ;
        *p = e;
        return (struct tok){ b, (size_t)(e - b) };
}

/* The token at *@p p up to separator @p sep (' ': runs of blanks); *@p p moves past the
 * separator. */
static struct tok next_field(const char **p, const char *end, char sep)
{
        const char *b = *p, *e;

        if (sep == ' ')
                return next_blank(p, end);
        e  = memchr(b, sep, (size_t)(end - b));
        e  = e ? e : end;
        *p = e < end ? e + 1 : end;
        return (struct tok){ b, (size_t)(e - b) };
}

/* The rest of the line from @p p, blanks trimmed at both ends, as the symbol. */
static void rest_as_sym(const char *p, const char *end, struct perf_sample *s)
{
        while (p < end && blank(*p))
                p++;
        while (end > p && blank(end[-1]))
                end--;
        s->sym     = end > p ? p : NULL;
        s->sym_len = (size_t)(end - p);
}

/* The blank-separated token ending just before @p at (after @p lo). */
static struct tok token_before(const char *lo, const char *at)
{
        const char *e = at, *b;

        while (e > lo && blank(e[-1]))
                e--;
        for (b = e; b > lo && !blank(b[-1]); b--)
                ;
        return (struct tok){ b, (size_t)(e - b) };
}

/* A sample of perf script with data_src: @p op is its decoded text's "|OP". False when the
 * token before it is no data_src. */
static bool script_with_src(const struct perf_input *in, const char *line, const char *end,
                            const char *op, struct perf_sample *s)
{
        struct tok  d = token_before(line, op), a, t;
        const char *p, *last = op, *q = op;

        if (!hex_of(d, &s->data_src))
                return false;
        s->has_src = true;
        a          = token_before(line, d.p);
        s->has_addr = in->have_addr && a.n && hex_of(a, &s->addr);
        /* the decoded text's last part ("|BLK ...", "|LCK ..." before perf printed BLK); the
         * weight is the first decimal after it */
        while ((q = memchr(q + 1, '|', (size_t)(end - q - 1))) && end - q > 4) {
                if (q[1] == 'B' && q[2] == 'L' && q[3] == 'K') {
                        last = q;
                        break;
                }
                if (q[1] == 'L' && q[2] == 'C' && q[3] == 'K')
                        last = q;
        }
        for (p = last + 1; p < end;) {
                t = next_blank(&p, end);
                if (!t.n)
                        break;
                if (dec_of(t, &s->weight)) {
                        s->has_weight = true;
                        next_blank(&p, end); /* ip */
                        rest_as_sym(p, end, s);
                        break;
                }
        }
        return true;
}

/* A sample of perf script without data_src: the first "[addr] weight ip" from the left. */
static void script_without_src(const struct perf_input *in, const char *line, const char *end,
                               struct perf_sample *s)
{
        const char *p = line;
        struct tok  prev = { NULL, 0 }, cur = next_blank(&p, end);
        uint64_t    v;

        while (cur.n) {
                struct tok nx = next_blank(&p, end);
                if (!nx.n)
                        return;
                if ((!in->have_addr || (prev.n && hex_of(prev, &v))) && dec_of(cur, &s->weight) &&
                    hex_of(nx, &v)) {
                        s->has_weight = true;
                        s->has_addr   = in->have_addr && hex_of(prev, &s->addr);
                        rest_as_sym(p, end, s);
                        return;
                }
                prev = cur;
                cur  = nx;
        }
}

/* A perf mem -D header: its extra columns. */
static void mem_header(struct perf_input *in, const char *line, size_t len)
{
        in->form        = PERF_FORM_MEM_RAW;
        in->extra_known = true;
        in->n_extra     = (memmem(line, len, "PHYS ADDR", 9) != NULL) +
                          (memmem(line, len, "DATA PAGE SIZE", 14) != NULL);
}

/* perf mem -D's ADDR in the blank-separated form: "0x016" and the unpadded address, or (older
 * perf) "0x" and 16 digits. */
static bool mem_addr(const struct perf_input *in, struct tok t, uint64_t *v)
{
        if (in->sep == ' ' && t.n != 18 && t.n > 5 && !memcmp(t.p, "0x016", 5))
                return hex_of((struct tok){ t.p + 5, t.n - 5 }, v);
        return hex0x_of(t, v);
}

/* A sample of perf mem -D: PID TID IP ADDR [PHYS] [PAGE] WEIGHT DSRC DSO:SYMBOL. */
static void mem_sample(const struct perf_input *in, const char *line, const char *end,
                       struct perf_sample *s)
{
        const char *p = line, *colon;
        struct tok  t;
        double      d;
        uint64_t    v;
        unsigned    extra = 0;

        if (!dec_of(next_field(&p, end, in->sep), &d) || !dec_of(next_field(&p, end, in->sep), &d) ||
            !hex0x_of(next_field(&p, end, in->sep), &v))
                return;
        s->has_addr = mem_addr(in, next_field(&p, end, in->sep), &s->addr);
        for (;;) {
                t = next_field(&p, end, in->sep);
                if (!t.n && p >= end)
                        return;
                if (in->extra_known ? extra == in->n_extra : dec_of(t, &d))
                        break;
                if (++extra > 2)
                        return;
        }
        if (!dec_of(t, &s->weight))
                return;
        s->has_weight = true;
        s->has_src    = hex0x_of(next_field(&p, end, in->sep), &s->data_src);
        colon         = memchr(p, ':', (size_t)(end - p));
        rest_as_sym(colon ? colon + 1 : p, end, s);
}

/* The form of the first sample line @p line: perf mem -D when it opens with two decimals and
 * two 0x-numbers (its separator the character after the first decimal), else perf script. */
static void decide(struct perf_input *in, const char *line, const char *end)
{
        const char *p = line, *q;
        double      d;
        uint64_t    v;

        while (p < end && blank(*p))
                p++;
        for (q = p; q < end && *q >= '0' && *q <= '9'; q++)
                ;
        in->sep = q < end && !blank(*q) ? *q : ' ';
        if (in->form == PERF_FORM_MEM_RAW)
                return;
        in->form = PERF_FORM_SCRIPT;
        if (q == p || q == end)
                return;
        if (dec_of(next_field(&p, end, in->sep), &d) && dec_of(next_field(&p, end, in->sep), &d) &&
            hex0x_of(next_field(&p, end, in->sep), &v) && hex0x_of(next_field(&p, end, in->sep), &v))
                in->form = PERF_FORM_MEM_RAW;
}

enum perf_line cli_perf_line_parse(struct perf_input *in, const char *line, size_t len,
                               struct perf_sample *s)
{
        const char *end = line + len, *p = line, *op;

        *s = (struct perf_sample){ 0 };
        while (p < end && blank(*p))
                p++;
        if (p == end)
                return PERF_LINE_SKIP;
        if (*p == '#') {
                if (memmem(p, (size_t)(end - p), "PID, TID, IP, ADDR", 18))
                        mem_header(in, p, (size_t)(end - p));
                return PERF_LINE_SKIP;
        }
        if (in->form == PERF_FORM_UNKNOWN || (in->form == PERF_FORM_MEM_RAW && !in->sep))
                decide(in, p, end);
        if (in->form == PERF_FORM_MEM_RAW) {
                mem_sample(in, p, end, s);
                return PERF_LINE_SAMPLE;
        }
        /* the decoded data_src text starts at the line's first '|' */
        op = in->have_src ? memchr(p, '|', len - (size_t)(p - line)) : NULL;
        if (!op || end - op <= 3 || op[1] != 'O' || op[2] != 'P' ||
            !script_with_src(in, p, end, op, s))
                script_without_src(in, p, end, s);
        return PERF_LINE_SAMPLE;
}
