/** @file Tests of the freestanding printf (lib/fmt.c), with libc's snprintf as the oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>

#include <cmocka.h>

#include "lib/fmt.h"

/* How the one argument of a case is passed. */
enum arg {
        A_NONE, A_INT, A_UINT, A_LONG, A_ULONG, A_LLONG, A_ULLONG, A_SIZE, A_PTRDIFF, A_INTMAX,
        A_STR, A_PTR, A_W_INT,   /* '*' width, then an int */
        A_P_INT,                 /* '*' precision, then an int */
        A_WP_STR,                /* '*' width, '*' precision, then a string */
};

struct fcase {
        const char        *fmt;
        enum arg           arg;
        long long          i;   /* signed argument */
        unsigned long long u;   /* unsigned argument */
        const char        *s;
        int                w, p;
};

#define I(f, v)   { f, A_INT, (v), 0, NULL, 0, 0 }
#define U(f, v)   { f, A_UINT, 0, (v), NULL, 0, 0 }
#define L(f, v)   { f, A_LONG, (v), 0, NULL, 0, 0 }
#define UL(f, v)  { f, A_ULONG, 0, (v), NULL, 0, 0 }
#define LL(f, v)  { f, A_LLONG, (v), 0, NULL, 0, 0 }
#define ULL(f, v) { f, A_ULLONG, 0, (v), NULL, 0, 0 }
#define S(f, v)   { f, A_STR, 0, 0, (v), 0, 0 }

static const struct fcase cases[] = {
        { "plain text", A_NONE, 0, 0, NULL, 0, 0 },
        { "", A_NONE, 0, 0, NULL, 0, 0 },
        { "100%% sure %%", A_NONE, 0, 0, NULL, 0, 0 },
        I("%d", 0), I("%d", 1), I("%d", -1), I("%d", INT_MAX), I("%d", INT_MIN), I("%i", -42),
        I("%5d", 42), I("%-5d|", 42), I("%05d", 42), I("%05d", -42), I("%+d", 42), I("%+d", -42),
        I("% d", 42), I("% d", -42), I("%+ d", 42), I("%+05d", 42), I("% 05d", 7), I("%-05d|", 42),
        I("%.3d", 7), I("%.3d", -7), I("%8.3d", -7), I("%-8.3d|", 7), I("%08.3d", 7),
        I("%.0d", 0), I("%5.0d", 0), I("%+.0d", 0), I("%.0d", 3), I("%1d", 12345),
        I("%x", 255), I("%X", 255), I("%#x", 255), I("%#X", 255), I("%#x", 0), I("%#.0x", 0),
        I("%#8x", 255), I("%#08x", 255), I("%#-8x|", 255), I("%#.4x", 255), I("%o", 8),
        I("%#o", 8), I("%#o", 0), I("%#.5o", 8), I("%#.0o", 0), I("%#5o", 8),
        U("%u", 0), U("%u", UINT_MAX), U("%+u", 5), U("% u", 5), U("%+x", 5), U("%x", UINT_MAX),
        I("%hd", 70000), I("%hd", -70000), I("%hhd", 200), I("%hhd", -129), I("%hu", -1),
        I("%hhx", 0x1ff), I("%hhu", 256 + 7), I("%hx", 0x12345),
        L("%ld", LONG_MIN), L("%li", LONG_MAX), UL("%lu", ULONG_MAX), UL("%lx", 0xdeadbeefcafeul),
        LL("%lld", LLONG_MIN), LL("%lld", LLONG_MAX), LL("%20lld", -5), LL("%-+20lld|", 5),
        ULL("%llu", ULLONG_MAX), ULL("%llx", ULLONG_MAX), ULL("%#llX", 0xabcdefull), ULL("%llo", ULLONG_MAX),
        { "%zu", A_SIZE, 0, SIZE_MAX, NULL, 0, 0 }, { "%zx", A_SIZE, 0, 4096, NULL, 0, 0 },
        { "%zd", A_PTRDIFF, -5, 0, NULL, 0, 0 }, { "%td", A_PTRDIFF, PTRDIFF_MIN, 0, NULL, 0, 0 },
        { "%jd", A_INTMAX, INTMAX_MIN, 0, NULL, 0, 0 }, { "%ju", A_INTMAX, -1, 0, NULL, 0, 0 },
        I("%c", 'A'), I("%5c", 'A'), I("%-5c|", 'A'), I("[%c]", 0), I("[%3c]", 0), I("[%-3c]", 0),
        I("%c", 0xe9),
        S("%s", "hello"), S("%s", ""), S("%10s|", "hello"), S("%-10s|", "hello"), S("%.2s", "hello"),
        S("%10.2s|", "hello"), S("%.0s|", "hello"), S("%.10s", "hello"), S("%2s", "hello"),
        S("%s and %%", "x"), S("%s", "caf\xc3\xa9 \xff"),
        { "%*d|", A_W_INT, 42, 0, NULL, 6, 0 }, { "%*d|", A_W_INT, 42, 0, NULL, -6, 0 },
        { "%-*d|", A_W_INT, 42, 0, NULL, 6, 0 }, { "%0*d|", A_W_INT, -42, 0, NULL, 6, 0 },
        { "%.*d|", A_P_INT, 42, 0, NULL, 0, 5 }, { "%.*d|", A_P_INT, 42, 0, NULL, 0, -1 },
        { "%.*d|", A_P_INT, 0, 0, NULL, 0, 0 }, { "%08.*d|", A_P_INT, 42, 0, NULL, 0, -3 },
        { "%*.*s|", A_WP_STR, 0, 0, "hello", 8, 3 }, { "%*.*s|", A_WP_STR, 0, 0, "hello", -8, 3 },
        { "%*.*s|", A_WP_STR, 0, 0, "hello", 0, -1 },
        { "%p", A_PTR, 0, 0x1000, NULL, 0, 0 }, { "%p", A_PTR, 0, 0x7ffdeadbeef0, NULL, 0, 0 },
        { "%18p|", A_PTR, 0, 0xabc, NULL, 0, 0 }, { "%-18p|", A_PTR, 0, 0xabc, NULL, 0, 0 },
};

static int run(char *buf, size_t n, const struct fcase *c, bool libc)
{
#define CALL(...) (libc ? snprintf(buf, n, c->fmt, __VA_ARGS__) : fmt_snprintf(buf, n, c->fmt, __VA_ARGS__))
        switch (c->arg) {
        case A_NONE:    return libc ? snprintf(buf, n, c->fmt, 0) : fmt_snprintf(buf, n, c->fmt, 0);
        case A_INT:     return CALL((int)c->i);
        case A_UINT:    return CALL((unsigned)c->u);
        case A_LONG:    return CALL((long)c->i);
        case A_ULONG:   return CALL((unsigned long)c->u);
        case A_LLONG:   return CALL((long long)c->i);
        case A_ULLONG:  return CALL((unsigned long long)c->u);
        case A_SIZE:    return CALL((size_t)c->u);
        case A_PTRDIFF: return CALL((ptrdiff_t)c->i);
        case A_INTMAX:  return CALL((intmax_t)c->i);
        case A_STR:     return CALL(c->s);
        case A_PTR:     return CALL((void *)(uintptr_t)c->u);
        case A_W_INT:   return CALL(c->w, (int)c->i);
        case A_P_INT:   return CALL(c->p, (int)c->i);
        case A_WP_STR:  return CALL(c->w, c->p, c->s);
        }
#undef CALL
        return -1;
}

static void test_against_libc(void **state)
{
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char want[256], got[256];
                int  nw, ng;

                memset(got, 0x55, sizeof(got));
                nw = run(want, sizeof(want), &cases[i], true);
                ng = run(got, sizeof(got), &cases[i], false);
                if (nw != ng || memcmp(want, got, (size_t)nw + 1) != 0)
                        fail_msg("case %zu \"%s\": got %d \"%s\", libc %d \"%s\"", i, cases[i].fmt,
                                 ng, got, nw, want);
        }
}

/* Truncation: every capacity from 0 to the full length + 1 keeps the return value, writes a
 * prefix and a NUL, and touches nothing past the capacity. */
static void test_truncation(void **state)
{
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char want[256];
                int  nw = run(want, sizeof(want), &cases[i], true);

                assert_int_equal(run(NULL, 0, &cases[i], false), nw);
                for (size_t n = 0; n <= (size_t)nw + 1; n++) {
                        char got[258];

                        memset(got, 0x55, sizeof(got));
                        assert_int_equal(run(got, n, &cases[i], false), nw);
                        if (n) {
                                size_t k = n - 1 < (size_t)nw ? n - 1 : (size_t)nw;
                                assert_memory_equal(got, want, k);
                                assert_int_equal(got[k], '\0');
                        }
                        for (size_t j = n; j < sizeof(got); j++)
                                if ((unsigned char)got[j] != 0x55)
                                        fail_msg("case %zu \"%s\", n %zu: byte %zu written", i,
                                                 cases[i].fmt, n, j);
                }
        }
}

/* What libc leaves undefined; pmucal's own rules. */
static void test_own_rules(void **state)
{
        char buf[64];
        const char *volatile null = NULL; /* hidden from -Wformat-overflow */
        static const char unterminated[3] = { 'a', 'b', 'c' };

        assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%s", null), 6);
        assert_string_equal(buf, "(null)");
        assert_int_equal(fmt_snprintf(buf, sizeof(buf), "[%8s]", null), 10);
        assert_string_equal(buf, "[  (null)]");
        assert_int_equal(fmt_snprintf(buf, sizeof(buf), "[%-8s]", null), 10);
        assert_string_equal(buf, "[(null)  ]");
        /* With a precision the string need not be NUL-terminated. */
        assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%.*s", 3, unterminated), 3);
        assert_string_equal(buf, "abc");
        /* Unknown conversions show up as written; a lone '%' at the end prints nothing. */
        const char *fmt_unknown = "a%yb", *fmt_lone = "ab%";
        assert_int_equal(fmt_snprintf(buf, sizeof(buf), fmt_unknown, 0), 4);
        assert_string_equal(buf, "a%yb");
        assert_int_equal(fmt_snprintf(buf, sizeof(buf), fmt_lone, 0), 2);
        assert_string_equal(buf, "ab");
        /* Long output: the return value keeps counting. */
        assert_int_equal(fmt_snprintf(buf, 4, "%0300d", 1), 300);
        assert_string_equal(buf, "000");
}

static const struct {
        int64_t     v;
        unsigned    decimals;
        const char *want;
} fixed[] = {
        { 1234, 3, "1.234" },     { -1234, 3, "-1.234" },  { 5, 3, "0.005" },
        { -5, 3, "-0.005" },      { 0, 2, "0.00" },        { 42, 0, "42" },
        { -42, 0, "-42" },        { 0, 0, "0" },           { 1000, 3, "1.000" },
        { INT64_MIN, 0, "-9223372036854775808" },          { INT64_MIN, 3, "-9223372036854775.808" },
        { INT64_MAX, 19, "0.9223372036854775807" },        { -1, 19, "-0.0000000000000000001" },
        { 7, 20, "0.00000000000000000007" },               { INT64_MAX, 21, "0.009223372036854775807" },
};

static void test_fixed(void **state)
{
        for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
                char buf[64];

                memset(buf, 0x55, sizeof(buf));
                assert_ptr_equal(fmt_fixed(buf, sizeof(buf), fixed[i].v, fixed[i].decimals), buf);
                if (strcmp(buf, fixed[i].want))
                        fail_msg("fixed(%lld, %u) = \"%s\", want \"%s\"", (long long)fixed[i].v,
                                 fixed[i].decimals, buf, fixed[i].want);
        }
        char small[4];
        assert_string_equal(fmt_fixed(small, sizeof(small), 1234, 3), "1.2");
}

/* The one rule for sizes: bytes below 1 KiB, whole units when whole, else one decimal. */
static void test_size(void **state)
{
        static const struct {
                uint64_t    v;
                const char *want;
        } sizes[] = {
                { 0, "0 B" },
                { 1023, "1023 B" },
                { 1024, "1 KiB" },
                { 27008, "26.4 KiB" },           /* 26.375 rounds up */
                { 31539, "30.8 KiB" },
                { 32768, "32 KiB" },
                { 1048575, "1024.0 KiB" },       /* not a whole MiB: stays KiB with a decimal */
                { 1048576, "1 MiB" },
                { 11 * 1048576 / 10, "1.1 MiB" },
                { 3ull << 30, "3 GiB" },
                { 5ull << 40, "5 TiB" },
                { 4096ull << 40, "4096 TiB" },
                { UINT64_MAX, "16777216.0 TiB" },
        };
        char buf[32], small[5];
        (void)state;
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
                assert_string_equal(fmt_size(buf, sizeof(buf), sizes[i].v), sizes[i].want);
        assert_string_equal(fmt_size(small, sizeof(small), 32768), "32 K");
}

static void test_family_model(void **state)
{
        char buf[32];
        (void)state;
        assert_string_equal(fmt_family_model(buf, sizeof(buf), 0x19, 0x11), "19h/11h (25/17)");
        assert_string_equal(fmt_family_model(buf, sizeof(buf), 6, 0x8f), "6h/8fh (6/143)");
        assert_string_equal(fmt_family_model(buf, sizeof(buf), 0xf, 0x6b), "fh/6bh (15/107)");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_against_libc),
                cmocka_unit_test(test_truncation),
                cmocka_unit_test(test_own_rules),
                cmocka_unit_test(test_fixed),
                cmocka_unit_test(test_size),
                cmocka_unit_test(test_family_model),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
