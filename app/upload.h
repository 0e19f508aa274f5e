/** @file
 * The upload of a run's results to the collector named in pmucal.cfg (docs/collector.md:
 * POST /api/v1/runs, the framed application/x-pmucal-run body).
 */
#ifndef PMUCAL_APP_UPLOAD_H
#define PMUCAL_APP_UPLOAD_H

#include "app/run.h"
#include "report/rep.h"

#define UPLOAD_TYPE "application/x-pmucal-run"

/** How often and how patiently: @p tries attempts at most, the first pause
 *  @p first_pause_us, doubled after each further failed try. */
struct upload_policy {
        unsigned tries;
        uint64_t first_pause_us;
};

/** The longest pause between two tries: the doubling stops there. */
#define UPLOAD_PAUSE_MAX_US 60000000u

/** The policy pmucal.cfg sets: upload_tries tries, upload_pause_ms after the first failed one
 *  (3 tries, 1 s then 2 s apart by default). */
struct upload_policy upload_policy_of(const struct pmucal_config *cfg);

enum upload_result {
        UPLOAD_STORED = 0, /* 201 stored, or 200 already stored */
        UPLOAD_REFUSED,    /* a 4xx: the collector said why; not retried */
        UPLOAD_FAILED,     /* unreachable or 5xx on every try */
        UPLOAD_NOT_SENT,   /* no HTTP client here, or out of memory building the body */
};

/** The framed body: "pmucal-run 1\n", "run NAME\n", a "name N LEN\n" frame per results file
 *  and one for report.txt (the console so far), "end\n". Appends to @p out. */
status_t upload_encode(const struct run *r, struct rep_buf *out);

/** POST the run to r->cfg.collector under @p pol, one console line per try and one for the
 *  outcome. Retries on an unreachable collector or a 5xx (or any other non-2xx, non-4xx
 *  answer), never on a 4xx. */
enum upload_result upload_run(const struct run *r, const struct upload_policy *pol);

#endif
