/** @file Base-2 logarithm and exponential in Q8 fixed point (see fixq8.h). */
#include "lib/fixq8.h"

/* 2^(b/256) in Q30 for b = 128, 64, ... 1. */
static const uint32_t exp2_frac_q30[8] = {
        1518500250, 1276901417, 1170923762, 1121280436,
        1097253708, 1085434106, 1079572136, 1076653033,
};

/* Squaring the Q31 mantissa eight times reads the fraction's bits off one by one: each
 * square that reaches 2 contributes a 1 and is halved. */
uint32_t lib_log2_q8(uint64_t v)
{
        uint32_t e, frac = 0;
        uint64_t m;

        if (v <= 1)
                return 0;
        e = 63 - (uint32_t)__builtin_clzll(v);
        m = e >= 31 ? v >> (e - 31) : v << (31 - e); /* [2^31, 2^32): mantissa in Q31 */
        for (unsigned b = 0; b < 8; b++) {
                m = (m * m) >> 31;
                frac <<= 1;
                if (m >= (1ull << 32)) {
                        m >>= 1;
                        frac |= 1;
                }
        }
        return e * 256 + frac;
}

uint64_t lib_exp2_q8(uint32_t x)
{
        uint64_t r = 1ull << 30;
        unsigned e = x >> 8;

        for (unsigned i = 0; i < 8; i++)
                if (x & (128u >> i))
                        r = (r * exp2_frac_q30[i]) >> 30;
        if (e >= 30)
                return e - 30 >= 33 ? UINT64_MAX : r << (e - 30);
        return (r + (1ull << (29 - e))) >> (30 - e);
}
