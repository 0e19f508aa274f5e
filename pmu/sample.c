/** @file Overflow sampling bookkeeping and analysis (see sample.h). */
#include "pmu/sample.h"

#include "boot/plat.h"
#include "lib/log.h"

status_t pmu_sample_arm(struct pmu_sampler *s)
{
        status_t st;

        if (!s || !s->ev || s->period == 0)
                return ST_BAD_ARG;
        if (s->period > pmu_width_mask(pmu_slot_width(s->slot)))
                return ST_BAD_ARG;
        s->n = 0;
        s->n_pmi = s->n_spurious = s->n_dropped = s->n_errors = 0;
        if ((st = pmu_program(s->slot, s->ev, s->flags | PMU_INT, -s->period)) != ST_OK)
                return st;
        st = pmu_ovf_clear(pmu_slot_bit(s->slot));
        if (st != ST_OK && st != ST_UNSUPPORTED)
                return st;
        return pmu_start(pmu_slot_bit(s->slot));
}

status_t pmu_sample_disarm(struct pmu_sampler *s)
{
        if (!s)
                return ST_BAD_ARG;
        return pmu_stop(pmu_slot_bit(s->slot));
}

void pmu_sample_on_pmi(struct pmu_sampler *s, const struct pmu_frame *f)
{
        uint64_t status = 0, bit, ctr = 0;

        if (!s || !f)
                return;
        bit = pmu_slot_bit(s->slot);
        s->n_pmi++;
        if (pmu_ovf_status(&status) != ST_OK)
                s->n_errors++;
        if (!(status & bit)) {
                s->n_spurious++;
        } else {
                if (pmu_read(s->slot, &ctr) != ST_OK)
                        s->n_errors++;
                if (s->buf && s->n < s->cap)
                        s->buf[s->n++] = (struct pmu_sample){ .rip = f->rip, .status = status,
                                                             .counter = ctr };
                else
                        s->n_dropped++;
                /* Re-arm before acking, so the counter never runs from a wrapped value with
                 * status clear. Linux intel/core.c acks GLOBAL_STATUS last. */
                if (pmu_write(s->slot, -s->period) != ST_OK)
                        s->n_errors++;
                if (pmu_ovf_clear(bit) != ST_OK)
                        s->n_errors++;
        }
        if (s->unmask)
                s->unmask(s->unmask_ctx);
}

bool pmu_sample_pmi_count_ok(uint64_t n_pmi, uint64_t total, uint64_t period)
{
        if (period == 0)
                return false;
        uint64_t want = total / period;
        return n_pmi + 1 >= want && n_pmi <= want + 1;
}

status_t pmu_skid_hist(const struct pmu_sample *s, size_t n, uint64_t known_rip,
                       uint32_t bucket_bytes, struct pmu_skid_hist *out)
{
        if (!out || (!s && n) || bucket_bytes == 0)
                return ST_BAD_ARG;
        memset(out, 0, sizeof(*out));
        out->bucket_bytes = bucket_bytes;
        for (size_t i = 0; i < n; i++) {
                out->n++;
                if (s[i].rip < known_rip) {
                        out->n_before++;
                        continue;
                }
                uint64_t d = s[i].rip - known_rip;
                if (d > out->max_bytes)
                        out->max_bytes = d;
                uint64_t b = d / bucket_bytes;
                if (b < PMU_SKID_BUCKETS)
                        out->bucket[b]++;
                else
                        out->n_beyond++;
        }
        return ST_OK;
}

status_t pmu_caliper_estimate(uint64_t n_samples, uint64_t period, uint64_t true_total,
                              uint64_t *estimate, int64_t *error_ppm)
{
        if (!estimate || !error_ppm || true_total == 0)
                return ST_BAD_ARG;
        if (period && n_samples > UINT64_MAX / period)
                return ST_BAD_ARG;
        uint64_t est  = n_samples * period;
        bool     neg  = est < true_total;
        uint64_t diff = neg ? true_total - est : est - true_total;
        uint64_t ppm;

        if (diff <= UINT64_MAX / 1000000)
                ppm = diff * 1000000 / true_total;
        else
                ppm = diff / (true_total / 1000000 ? true_total / 1000000 : 1);
        if (ppm > (uint64_t)INT64_MAX)
                ppm = (uint64_t)INT64_MAX;
        *estimate  = est;
        *error_ppm = neg ? -(int64_t)ppm : (int64_t)ppm;
        return ST_OK;
}

/* True when sample RIP @p rip belongs to symbol @p i (greatest addr <= rip). */
static bool owns(const struct pmu_sym *syms, size_t n_syms, size_t i, uint64_t rip)
{
        if (!syms[i].name || rip < syms[i].addr)
                return false;
        for (size_t j = 0; j < n_syms; j++)
                if (j != i && syms[j].name && syms[j].addr <= rip &&
                    (syms[j].addr > syms[i].addr || (syms[j].addr == syms[i].addr && j < i)))
                        return false;
        return true;
}

static bool before(const struct pmu_func_count *a, const struct pmu_func_count *b)
{
        return a->n > b->n || (a->n == b->n && a->addr < b->addr);
}

status_t pmu_sample_top(const struct pmu_sample *s, size_t n, const struct pmu_sym *syms,
                        size_t n_syms, struct pmu_func_count *out, size_t cap, size_t *n_out,
                        uint64_t *n_unknown)
{
        uint64_t known = 0;
        size_t   k     = 0;

        if ((!s && n) || (!syms && n_syms) || (!out && cap) || !n_out)
                return ST_BAD_ARG;
        for (size_t i = 0; i < n_syms; i++) {
                struct pmu_func_count c = { .name = syms[i].name, .addr = syms[i].addr };

                for (size_t j = 0; j < n; j++)
                        if (owns(syms, n_syms, i, s[j].rip))
                                c.n++;
                known += c.n;
                if (c.n == 0)
                        continue;
                /* insertion into the top-cap list */
                size_t pos = k;
                while (pos > 0 && before(&c, &out[pos - 1]))
                        pos--;
                if (pos >= cap)
                        continue;
                size_t last = k < cap ? k : cap - 1;
                for (size_t m = last; m > pos; m--)
                        out[m] = out[m - 1];
                out[pos] = c;
                if (k < cap)
                        k++;
        }
        *n_out = k;
        if (n_unknown)
                *n_unknown = n - known;
        return ST_OK;
}

void pmu_sample_print_top(const struct pmu_func_count *top, size_t n, uint64_t total)
{
        for (size_t i = 0; i < n; i++) {
                uint64_t pm = total ? top[i].n * 1000 / total : 0; /* per mille */
                log_info("%8llu %3llu.%llu%%  %s", (unsigned long long)top[i].n,
                         (unsigned long long)(pm / 10), (unsigned long long)(pm % 10), top[i].name);
        }
}

/* Why overflow sampling cannot work (pmu_sample_supported). */
static const char no_status_v1[] =
        "Intel architectural perfmon version 1 has no IA32_PERF_GLOBAL_STATUS: a PMI could be "
        "neither told from another NMI nor acknowledged, so every PMI would count as spurious";
static const char no_status_v2[] =
        "IA32_PERF_GLOBAL_CTRL/STATUS did not probe although CPUID.0AH reports version >= 2: "
        "no overflow status to tell a PMI from another NMI";

status_t pmu_sample_supported(const struct pmu_caps *c, const char **reason)
{
        if (!c || !reason)
                return ST_BAD_ARG;
        *reason = NULL;
        if (!c->available) {
                *reason = c->reason ? c->reason : "no usable core PMU";
                return ST_UNSUPPORTED;
        }
        if (c->kind == PMU_INTEL_ARCH && !c->has_global) {
                *reason = c->version < 2 ? no_status_v1 : no_status_v2;
                return ST_UNSUPPORTED;
        }
        return ST_OK;
}
