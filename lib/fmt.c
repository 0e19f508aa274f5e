/** @file Freestanding vsnprintf (see fmt.h). */
#include "lib/fmt.h"

#include <stdbool.h>

struct out {
        char  *buf;
        size_t cap;
        size_t len;
};

static void put(struct out *o, char c)
{
        if (o->len + 1 < o->cap)
                o->buf[o->len] = c;
        o->len++;
}

static void pad(struct out *o, char c, int count)
{
        while (count-- > 0)
                put(o, c);
}

struct spec {
        bool left, zero, plus, space, alt;
        int  width;     /* -1: none */
        int  precision; /* -1: none */
};

static void emit_str(struct out *o, const struct spec *sp, const char *s)
{
        int len = 0;

        if (!s)
                s = "(null)";
        /* Test the precision first: with one, s need not be NUL-terminated ("%.*s"). */
        while ((sp->precision < 0 || len < sp->precision) && s[len])
                len++;
        if (!sp->left)
                pad(o, ' ', sp->width - len);
        for (int i = 0; i < len; i++)
                put(o, s[i]);
        if (sp->left)
                pad(o, ' ', sp->width - len);
}

/* alt_octal: C's '#' with 'o', which raises the precision just enough for a leading 0. */
static void emit_num(struct out *o, const struct spec *sp, uint64_t v, bool neg, unsigned base,
                     bool upper, const char *prefix, bool alt_octal)
{
        const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
        char        tmp[24];
        int         n = 0;
        int         plen = 0;
        char        sign = 0;

        if (v == 0 && sp->precision == 0) {
                n = 0;
        } else {
                do {
                        tmp[n++] = digits[v % base];
                        v /= base;
                } while (v);
        }
        if (neg)
                sign = '-';
        else if (sp->plus)
                sign = '+';
        else if (sp->space)
                sign = ' ';
        if (prefix)
                while (prefix[plen])
                        plen++;

        int zeros = sp->precision > n ? sp->precision - n : 0;
        if (alt_octal && zeros == 0 && (n == 0 || tmp[n - 1] != '0'))
                zeros = 1;
        int total = n + zeros + plen + (sign ? 1 : 0);
        int fill  = sp->width > total ? sp->width - total : 0;

        if (sp->zero && !sp->left && sp->precision < 0) {
                zeros += fill;
                fill = 0;
        }
        if (!sp->left)
                pad(o, ' ', fill);
        if (sign)
                put(o, sign);
        for (int i = 0; i < plen; i++)
                put(o, prefix[i]);
        pad(o, '0', zeros);
        while (n)
                put(o, tmp[--n]);
        if (sp->left)
                pad(o, ' ', fill);
}

/* The flags, width and precision of one conversion; returns the first character after them.
 * Arguments come through a pointer so that the caller's va_list advances with ours. */
static const char *parse_spec(const char *p, va_list *ap, struct spec *sp)
{
        for (;; p++) {
                if (*p == '-')
                        sp->left = true;
                else if (*p == '0')
                        sp->zero = true;
                else if (*p == '+')
                        sp->plus = true;
                else if (*p == ' ')
                        sp->space = true;
                else if (*p == '#')
                        sp->alt = true;
                else
                        break;
        }
        if (*p == '*') {
                sp->width = va_arg(*ap, int);
                if (sp->width < 0) {
                        sp->left  = true;
                        sp->width = -sp->width;
                }
                p++;
        } else {
                while (*p >= '0' && *p <= '9') {
                        sp->width = (sp->width < 0 ? 0 : sp->width) * 10 + (*p - '0');
                        p++;
                }
        }
        if (*p == '.') {
                p++;
                sp->precision = 0;
                if (*p == '*') {
                        sp->precision = va_arg(*ap, int);
                        p++;
                } else {
                        while (*p >= '0' && *p <= '9')
                                sp->precision = sp->precision * 10 + (*p++ - '0');
                }
        }
        return p;
}

/* Length modifiers, as parse_length() reads them. */
enum lmod { LMOD_CHAR = -2, LMOD_SHORT = -1, LMOD_INT = 0, LMOD_LONG, LMOD_LLONG, LMOD_SIZE };

/* The length modifier at @p p into @p lmod; returns the conversion character after it. */
static const char *parse_length(const char *p, enum lmod *lmod)
{
        *lmod = LMOD_INT;
        for (;; p++) {
                if (*p == 'l')
                        *lmod = *lmod == LMOD_LONG ? LMOD_LLONG : LMOD_LONG;
                else if (*p == 'h')
                        *lmod = *lmod == LMOD_SHORT ? LMOD_CHAR : LMOD_SHORT;
                else if (*p == 'z' || *p == 'j' || *p == 't')
                        *lmod = LMOD_SIZE;
                else
                        break;
        }
        return p;
}

static int64_t arg_signed(va_list *ap, enum lmod lmod)
{
        switch (lmod) {
        case LMOD_LONG:  return va_arg(*ap, long);
        case LMOD_LLONG: return va_arg(*ap, long long);
        case LMOD_SIZE:  return va_arg(*ap, int64_t);
        case LMOD_SHORT: return (short)va_arg(*ap, int);
        case LMOD_CHAR:  return (signed char)va_arg(*ap, int);
        default:         return va_arg(*ap, int);
        }
}

static uint64_t arg_unsigned(va_list *ap, enum lmod lmod)
{
        switch (lmod) {
        case LMOD_LONG:  return va_arg(*ap, unsigned long);
        case LMOD_LLONG: return va_arg(*ap, unsigned long long);
        case LMOD_SIZE:  return va_arg(*ap, uint64_t);
        case LMOD_SHORT: return (unsigned short)va_arg(*ap, unsigned);
        case LMOD_CHAR:  return (unsigned char)va_arg(*ap, unsigned);
        default:         return va_arg(*ap, unsigned);
        }
}

/* %u %x %X %o: conv is the conversion character. */
static void emit_unsigned(struct out *o, struct spec *sp, char conv, uint64_t v)
{
        unsigned    base = conv == 'u' ? 10 : conv == 'o' ? 8 : 16;
        const char *pre  = NULL;

        if (sp->alt && v && base == 16)
                pre = conv == 'X' ? "0X" : "0x";
        sp->plus = sp->space = false; /* signs are for signed conversions */
        emit_num(o, sp, v, false, base, conv == 'X', pre, sp->alt && base == 8);
}

static void emit_char(struct out *o, const struct spec *sp, char c)
{
        char        s[2] = { c, 0 };
        struct spec cs   = *sp;

        cs.precision = 1;
        if (!s[0]) { /* %c of NUL still emits one byte */
                if (!cs.left)
                        pad(o, ' ', cs.width - 1);
                put(o, 0);
                if (cs.left)
                        pad(o, ' ', cs.width - 1);
        } else {
                emit_str(o, &cs, s);
        }
}

/* One conversion at @p p; returns the position of its last character. */
static const char *convert(struct out *o, struct spec *sp, enum lmod lmod, const char *p,
                           va_list *ap)
{
        switch (*p) {
        case 'd':
        case 'i': {
                int64_t  v   = arg_signed(ap, lmod);
                uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
                emit_num(o, sp, mag, v < 0, 10, false, NULL, false);
                break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o':
                emit_unsigned(o, sp, *p, arg_unsigned(ap, lmod));
                break;
        case 'p': {
                uintptr_t v = (uintptr_t)va_arg(*ap, void *);
                sp->plus = sp->space = false;
                emit_num(o, sp, v, false, 16, false, "0x", false);
                break;
        }
        case 'c':
                emit_char(o, sp, (char)va_arg(*ap, int));
                break;
        case 's':
                emit_str(o, sp, va_arg(*ap, const char *));
                break;
        case '%':
                put(o, '%');
                break;
        case '\0':
                p--; /* lone '%' at the end: print nothing more */
                break;
        default: /* unknown conversion: print it as is, so the mistake shows */
                put(o, '%');
                put(o, *p);
                break;
        }
        return p;
}

int fmt_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
        struct out o = { .buf = buf, .cap = cap, .len = 0 };
        va_list    args;

        /* A copy we can pass by address: a va_list parameter may be an array that decayed. */
        va_copy(args, ap);
        for (const char *p = fmt; *p; p++) {
                if (*p != '%') {
                        put(&o, *p);
                        continue;
                }
                struct spec sp = { .width = -1, .precision = -1 };
                enum lmod   lmod;

                p = parse_spec(p + 1, &args, &sp);
                p = parse_length(p, &lmod);
                p = convert(&o, &sp, lmod, p, &args);
        }
        va_end(args);
        if (cap)
                buf[o.len < cap ? o.len : cap - 1] = '\0';
        return (int)o.len;
}

int fmt_snprintf(char *buf, size_t n, const char *fmt, ...)
{
        va_list ap;
        int     r;

        va_start(ap, fmt);
        r = fmt_vsnprintf(buf, n, fmt, ap);
        va_end(ap);
        return r;
}

char *fmt_fixed(char *buf, size_t n, int64_t v, unsigned decimals)
{
        uint64_t scale = 1;
        uint64_t mag   = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

        /* 10^20 does not fit in 64 bits; with 20 or more decimals every value is below 1. */
        if (decimals >= 20) {
                fmt_snprintf(buf, n, "%s0.%0*llu", v < 0 ? "-" : "", (int)decimals,
                             (unsigned long long)mag);
                return buf;
        }
        for (unsigned i = 0; i < decimals; i++)
                scale *= 10;
        if (decimals == 0)
                fmt_snprintf(buf, n, "%s%llu", v < 0 ? "-" : "", (unsigned long long)mag);
        else
                fmt_snprintf(buf, n, "%s%llu.%0*llu", v < 0 ? "-" : "",
                             (unsigned long long)(mag / scale), (int)decimals,
                             (unsigned long long)(mag % scale));
        return buf;
}

char *fmt_size(char *buf, size_t n, uint64_t v)
{
        static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
        uint64_t                 div    = 1024;
        unsigned                 u      = 0;
        char                     num[32];

        if (v < 1024) {
                fmt_snprintf(buf, n, "%llu B", (unsigned long long)v);
                return buf;
        }
        while (u + 1 < sizeof(unit) / sizeof(unit[0]) && v / 1024 >= div) {
                div *= 1024;
                u++;
        }
        if (v % div == 0)
                fmt_snprintf(buf, n, "%llu %s", (unsigned long long)(v / div), unit[u]);
        else
                fmt_snprintf(buf, n, "%s %s",
                             fmt_fixed(num, sizeof(num),
                                       (int64_t)((unsigned __int128)v * 10 / div +
                                                 ((unsigned __int128)v * 10 % div >= div / 2)), 1),
                             unit[u]);
        return buf;
}

char *fmt_family_model(char *buf, size_t n, uint32_t family, uint32_t model)
{
        fmt_snprintf(buf, n, "%xh/%xh (%u/%u)", family, model, family, model);
        return buf;
}
