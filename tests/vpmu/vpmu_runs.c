/** @file
 * The virtual PMU's ops in runs: between the points where something can happen (a counter
 * wraps, PEBS writes the record it armed, IBS sets or takes its tag) retiring an op only adds
 * to counts, so a run of such ops is added at once (the count fault's carry adds up the same)
 * and the op at such a point retires alone (vp_retire_op, vpmu_core.c). Every op alone is the
 * reference the runs must match (vpmu_set_op_runs, tests/test_vpmu_ops.c). See vpmu.h.
 */
#include "tests/vpmu/vpmu_priv.h"

/* A run being taken: the counters the ops' events reach and how far each can go. */
struct op_run {
        unsigned n;                 /* counters a per-op event reaches */
        uint8_t  c[VP_N_CTR], ev[VP_N_CTR];
        uint64_t left[VP_N_CTR];    /* events each can take before the point */
        uint64_t got[VP_N_CTR];     /* events taken, not yet added */
        uint64_t ibs_left, ibs_got; /* likewise the IBS op counter (UINT64_MAX: ops do nothing) */
};

static bool per_op_event(enum vpmu_ev ev)
{
        return ev == VE_OPS || (ev >= VE_LOADS && ev <= VE_LDLAT);
}

/* Events counter @p c takes before it wraps: the count fault's carry included. */
static uint64_t run_room(unsigned c, enum vpmu_ev ev)
{
        uint64_t r = vp_ctr_room(c);
        uint64_t frac = c >= VP_MAX_GP ? vp.ffrac[c - VP_MAX_GP] : vp.frac[c];
        int64_t  ppm = 1000000 + (int64_t)vp.f.count_ppm;

        if (!vp.f.count_ppm || vp.f.count_kind != ev)
                return r - 1;
        if (ppm <= 0)
                return 0;
        /* the largest k with (k x ppm + frac) / 10^6 < r */
        return (uint64_t)(((__uint128_t)r * 1000000 - frac - 1) / (uint64_t)ppm);
}

static void run_begin(struct op_run *r)
{
        const uint8_t *act_ev = vp_active_events();

        r->n = 0;
        r->ibs_left = vp_ibs_op_room();
        r->ibs_got = 0;
        for (unsigned c = 0; c < VP_N_CTR; c++) {
                enum vpmu_ev ev = act_ev[c];
                bool         armed = c < VP_MAX_GP && (vp.pebs_armed & (1u << c));

                if (ev >= VE__COUNT || !per_op_event(ev) || (!armed && vp_ctr_dead(c)))
                        continue;
                r->c[r->n] = (uint8_t)c;
                r->ev[r->n] = (uint8_t)ev;
                r->left[r->n] = armed ? 0 : run_room(c, ev);
                r->got[r->n++] = 0;
        }
}

/* Take up to @p m ops with the per-op counts @p cnt into the run; returns how many fit. */
static uint64_t run_take(struct op_run *r, const uint64_t cnt[VE__COUNT], uint64_t m)
{
        uint64_t k = m;

        if (r->ibs_left != UINT64_MAX && r->ibs_left - r->ibs_got < k)
                k = r->ibs_left - r->ibs_got;
        for (unsigned j = 0; j < r->n; j++)
                if (cnt[r->ev[j]] && r->left[j] - r->got[j] < k)
                        k = r->left[j] - r->got[j];
        for (unsigned j = 0; j < r->n; j++)
                r->got[j] += cnt[r->ev[j]] ? k : 0;
        if (r->ibs_left != UINT64_MAX)
                r->ibs_got += k;
        return k;
}

/* Add what the run took (no counter wraps, IBS does not reach its tag). */
static void run_flush(struct op_run *r, const struct vpmu_step *s)
{
        for (unsigned j = 0; j < r->n; j++) {
                if (r->got[j] && !vp_ctr_dead(r->c[j]))
                        vp_ctr_add(r->c[j], r->ev[j], r->got[j]);
                r->got[j] = 0;
        }
        if (r->ibs_got)
                vp_ibs_op_count(r->ibs_got, NULL, s);
        r->ibs_got = 0;
}

static bool ops_alone; /* vpmu_set_op_runs(false): every op alone, the reference */

void vpmu_set_op_runs(bool on)
{
        ops_alone = !on;
}

/* The step's ops: in runs, each op where something can happen alone. */
void vp_retire_ops(const struct vpmu_step *s)
{
        uint64_t      n = s->n[VE_OPS], cnt[VE__COUNT];
        struct op_run r;

        if (ops_alone) {
                for (uint64_t i = 0; i < n; i++) {
                        struct vpmu_op op;

                        s->op_at(s->ctx, i, &op);
                        vp_retire_op(&op, s);
                }
                return;
        }
        run_begin(&r);
        for (uint64_t i = 0; i < n;) {
                struct vpmu_op op;
                uint64_t       m = 1, k;

                s->op_at(s->ctx, i, &op);
                if (s->op_alike) {
                        m = s->op_alike(s->ctx, i, n - i);
                        m = m < 1 ? 1 : m > n - i ? n - i : m;
                }
                vp_op_counts(&op, cnt);
                k = run_take(&r, cnt, m);
                i += k;
                if (k == m)
                        continue;
                if (k)
                        s->op_at(s->ctx, i, &op);
                run_flush(&r, s);
                vp_retire_op(&op, s);
                i++;
                run_begin(&r);
        }
        run_flush(&r, s);
}
