/** @file Intel LBR formats, decoding and cycles per basic block (see lbr.h). */
#include "pmu/x86/lbr.h"

/* ---- constants -------------------------------------------------------------------------- */

/* PMU_LBR_F_* -> MSR_LBR_SELECT bit (suppresses) and IA32_LBR_CTL bit (enables). */
static const struct {
        unsigned flag;
        uint64_t select_bit;
        uint64_t arch_bit;
} lbr_filter_map[] = {
        { PMU_LBR_F_KERNEL,     LBR_SELECT_KERNEL,     ARCH_LBR_CTL_OS },
        { PMU_LBR_F_USER,       LBR_SELECT_USER,       ARCH_LBR_CTL_USR },
        { PMU_LBR_F_JCC,        LBR_SELECT_JCC,        ARCH_LBR_CTL_JCC },
        { PMU_LBR_F_REL_CALL,   LBR_SELECT_REL_CALL,   ARCH_LBR_CTL_REL_CALL },
        { PMU_LBR_F_IND_CALL,   LBR_SELECT_IND_CALL,   ARCH_LBR_CTL_IND_CALL },
        { PMU_LBR_F_RETURN,     LBR_SELECT_RETURN,     ARCH_LBR_CTL_RETURN },
        { PMU_LBR_F_IND_JMP,    LBR_SELECT_IND_JMP,    ARCH_LBR_CTL_IND_JMP },
        { PMU_LBR_F_REL_JMP,    LBR_SELECT_REL_JMP,    ARCH_LBR_CTL_REL_JMP },
        { PMU_LBR_F_OTHER,      LBR_SELECT_FAR,        ARCH_LBR_CTL_OTHER_BRANCH },
};

/* ---- private helpers -------------------------------------------------------------------- */

/* Sign-extend @p v from bit (63 - @p skip), dropping the top @p skip flag bits (lbr.c). */
static uint64_t sext_skip(uint64_t v, unsigned skip)
{
        return skip ? (uint64_t)((int64_t)(v << skip) >> skip) : v;
}

static bool is_pow2(unsigned v)
{
        return v && !(v & (v - 1));
}

/* ---- public functions ------------------------------------------------------------------- */

status_t pmu_lbr_fmt_legacy(uint64_t perf_capabilities, unsigned nr, struct pmu_lbr_fmt *out)
{
        uint8_t f = (uint8_t)(perf_capabilities & 0x3f);

        if (!out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (!is_pow2(nr) || nr > 64)
                return ST_BAD_ARG;
        if (f > LBR_FORMAT_MAX_KNOWN)
                return ST_UNSUPPORTED;
        out->legacy_fmt = f;
        out->depth = nr;
        out->has_mispred = f >= LBR_FORMAT_EIP_FLAGS;
        out->has_cycles = f == LBR_FORMAT_INFO || f == LBR_FORMAT_TIME || f == LBR_FORMAT_INFO2;
        return ST_OK;
}

status_t pmu_lbr_fmt_arch(uint32_t eax, uint32_t ecx, unsigned want_depth,
                          struct pmu_lbr_fmt *out)
{
        uint32_t mask = eax & ARCH_LBR_DEPTH_MASK;

        if (!out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (!mask)
                return ST_UNSUPPORTED;
        if (want_depth == 0) {
                unsigned hi = 31 - (unsigned)__builtin_clz(mask);

                out->depth = 8 * (hi + 1);   /* Linux: fls(depth_mask) * 8 */
        } else {
                if (want_depth % 8 || want_depth > 64 || !(mask & (1u << (want_depth / 8 - 1))))
                        return ST_BAD_ARG;
                out->depth = want_depth;
        }
        out->arch = true;
        out->has_mispred = (ecx & ARCH_LBR_ECX_MISPRED) != 0;
        out->has_cycles = (ecx & ARCH_LBR_ECX_TIMED) != 0;
        out->has_br_type = (ecx & ARCH_LBR_ECX_BR_TYPE) != 0;
        return ST_OK;
}

status_t pmu_lbr_decode(const struct pmu_lbr_fmt *fmt, uint64_t from, uint64_t to, uint64_t info,
                        struct lbr_entry *out)
{
        if (!fmt || !out)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        if (fmt->arch) {
                out->from = from;
                out->to = to;
                out->mispred_valid = fmt->has_mispred;
                out->mispred = fmt->has_mispred && (info & LBR_INFO_MISPRED);
                out->cycles_valid = fmt->has_cycles && (info & LBR_INFO_CYC_CNT_VALID);
                out->cycles = out->cycles_valid ? (uint16_t)(info & LBR_INFO_CYCLES) : 0;
                if (fmt->has_br_type)
                        out->br_type = (uint8_t)((info & LBR_INFO_BR_TYPE) >>
                                                 LBR_INFO_BR_TYPE_SHIFT);
                out->in_tx = (info & LBR_INFO_IN_TX) != 0;   /* [SDM-3B] IA32_LBR_x_INFO */
                out->abort = (info & LBR_INFO_ABORT) != 0;
                return ST_OK;
        }
        switch (fmt->legacy_fmt) {
        case LBR_FORMAT_32:
                out->from = from & 0xffffffffull;
                out->to = from >> 32;
                break;
        case LBR_FORMAT_LIP:
        case LBR_FORMAT_EIP:
                out->from = from;
                out->to = to;
                break;
        case LBR_FORMAT_EIP_FLAGS:
        case LBR_FORMAT_TIME:
                out->mispred_valid = true;
                out->mispred = (from & LBR_FROM_FLAG_MISPRED) != 0;
                out->from = sext_skip(from, 1);
                out->to = to;
                if (fmt->legacy_fmt == LBR_FORMAT_TIME) {
                        out->cycles = (uint16_t)(to >> LBR_TO_CYCLES_SHIFT);
                        out->cycles_valid = out->cycles != 0;
                        out->to = sext_skip(to, 16);
                }
                break;
        case LBR_FORMAT_EIP_FLAGS2:
                out->mispred_valid = true;
                out->mispred = (from & LBR_FROM_FLAG_MISPRED) != 0;
                out->in_tx = (from & LBR_FROM_FLAG_IN_TX) != 0;
                out->abort = (from & LBR_FROM_FLAG_ABORT) != 0;
                out->from = sext_skip(from, 3);
                out->to = to;
                break;
        case LBR_FORMAT_INFO:
        case LBR_FORMAT_INFO2:
                /* FROM holds the address alone; flags and cycles are in MSR_LBR_INFO_x. A
                 * zero count means none was recorded (Linux reports it as "no cycles"). */
                out->from = from;
                out->to = to;
                out->mispred_valid = true;
                out->mispred = (info & LBR_INFO_MISPRED) != 0;
                if (fmt->legacy_fmt == LBR_FORMAT_INFO) {
                        out->in_tx = (info & LBR_INFO_IN_TX) != 0;
                        out->abort = (info & LBR_INFO_ABORT) != 0;
                }
                out->cycles = (uint16_t)(info & LBR_INFO_CYCLES);
                out->cycles_valid = out->cycles != 0;
                break;
        default:
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}

status_t pmu_lbr_stack(const struct pmu_lbr_fmt *fmt, const uint64_t *from, const uint64_t *to,
                       const uint64_t *info, uint64_t tos, struct lbr_entry *out, unsigned *n)
{
        bool needs_info;
        status_t st;

        if (!fmt || !from || !out || !n || fmt->depth == 0)
                return ST_BAD_ARG;
        needs_info = fmt->arch || fmt->legacy_fmt == LBR_FORMAT_INFO ||
                     fmt->legacy_fmt == LBR_FORMAT_INFO2;
        if ((!to && fmt->legacy_fmt != LBR_FORMAT_32) || (needs_info && !info && fmt->has_cycles))
                return ST_BAD_ARG;
        *n = 0;
        for (unsigned i = 0; i < fmt->depth; i++) {
                unsigned idx = fmt->arch ? i : (unsigned)((tos - i) & (fmt->depth - 1));
                uint64_t t = to ? to[idx] : 0;

                if (from[idx] == 0 && t == 0)
                        break;
                if ((st = pmu_lbr_decode(fmt, from[idx], t, info ? info[idx] : 0,
                                         &out[*n])) != ST_OK)
                        return st;
                (*n)++;
        }
        return ST_OK;
}

uint64_t pmu_lbr_select_value(unsigned flags)
{
        uint64_t v = 0;

        for (size_t i = 0; i < ARRAY_SIZE(lbr_filter_map); i++)
                if (!(flags & lbr_filter_map[i].flag))
                        v |= lbr_filter_map[i].select_bit;
        if (flags & PMU_LBR_F_CALL_STACK)
                v |= LBR_SELECT_CALL_STACK;
        return v & LBR_SELECT_MASK;
}

uint64_t pmu_lbr_arch_ctl_value(unsigned flags, uint32_t cpuid_1c_ebx)
{
        uint64_t v = ARCH_LBR_CTL_LBREN, ok = ARCH_LBR_CTL_LBREN;

        /* [SDM-3B] IA32_LBR_CTL: OS/USR need CPUID.1CH:EBX[0], the branch filters EBX[1],
         * CALL_STACK EBX[2] (Linux intel_pmu_arch_lbr_init: lbr_ctl_mask) */
        if (cpuid_1c_ebx & ARCH_LBR_EBX_CPL_FILTER)
                ok |= ARCH_LBR_CTL_OS | ARCH_LBR_CTL_USR;
        if (cpuid_1c_ebx & ARCH_LBR_EBX_BR_FILTER)
                ok |= ARCH_LBR_CTL_MASK & ~(ARCH_LBR_CTL_LBREN | ARCH_LBR_CTL_OS |
                                            ARCH_LBR_CTL_USR | ARCH_LBR_CTL_CALL_STACK);
        if (cpuid_1c_ebx & ARCH_LBR_EBX_CALL_STACK)
                ok |= ARCH_LBR_CTL_CALL_STACK;
        for (size_t i = 0; i < ARRAY_SIZE(lbr_filter_map); i++)
                if (flags & lbr_filter_map[i].flag)
                        v |= lbr_filter_map[i].arch_bit;
        if (flags & PMU_LBR_F_CALL_STACK)
                v |= ARCH_LBR_CTL_CALL_STACK;
        return v & ok;
}

uint64_t pmu_lbr_debugctl_value(const struct pmu_lbr_fmt *fmt, uint64_t cur, bool call_stack)
{
        uint64_t v = cur & ~(DEBUGCTLMSR_LBR | DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);

        if (fmt && !fmt->arch)
                v |= DEBUGCTLMSR_LBR;
        if (!call_stack)
                v |= DEBUGCTLMSR_FREEZE_LBRS_ON_PMI;
        return v;
}

status_t pmu_lbr_blocks(const struct lbr_entry *e, unsigned n, struct lbr_block *out,
                        unsigned max, unsigned *n_out, unsigned *n_skipped)
{
        unsigned skipped = 0;

        if ((!e && n) || !n_out || (!out && max))
                return ST_BAD_ARG;
        *n_out = 0;
        for (unsigned i = 0; i + 1 < n; i++) {
                uint64_t start = e[i + 1].to, end = e[i].from;

                if (!e[i].cycles_valid || start > end) {
                        skipped++;
                        continue;
                }
                if (*n_out == max) {
                        if (n_skipped)
                                *n_skipped = skipped;
                        return ST_NO_SPACE;
                }
                out[*n_out] = (struct lbr_block){ .start = start, .end = end,
                                                  .cycles = e[i].cycles };
                (*n_out)++;
        }
        if (n_skipped)
                *n_skipped = skipped;
        return ST_OK;
}

status_t pmu_lbr_block_accumulate(struct lbr_block_stat *st, size_t *n_st, size_t max,
                                  const struct lbr_block *b, size_t n)
{
        status_t ret = ST_OK;

        if (!st || !n_st || (!b && n) || *n_st > max)
                return ST_BAD_ARG;
        for (size_t i = 0; i < n; i++) {
                size_t j;

                for (j = 0; j < *n_st; j++)
                        if (st[j].start == b[i].start && st[j].end == b[i].end)
                                break;
                if (j == *n_st) {
                        if (*n_st == max) {
                                ret = ST_NO_SPACE;
                                continue;
                        }
                        st[j] = (struct lbr_block_stat){ .start = b[i].start, .end = b[i].end,
                                                         .min_cycles = UINT32_MAX };
                        (*n_st)++;
                }
                st[j].n++;
                st[j].sum_cycles += b[i].cycles;
                if (b[i].cycles < st[j].min_cycles)
                        st[j].min_cycles = b[i].cycles;
                if (b[i].cycles > st[j].max_cycles)
                        st[j].max_cycles = b[i].cycles;
        }
        return ret;
}

uint64_t pmu_lbr_block_mean_mcyc(const struct lbr_block_stat *s)
{
        if (!s || s->n == 0)
                return 0;
        return (s->sum_cycles * 1000 + s->n / 2) / s->n;
}
