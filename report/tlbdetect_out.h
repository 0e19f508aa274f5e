/** @file
 * TLB reports of the analysis' results (analysis/tlbdetect.h): the console report in the
 * spirit of HP Caliper's dtlb/itlb reports, the "tlb" JSON section of the latency table
 * (docs/tlb-table.md), tlb-curve.csv and the names they print.
 */
#ifndef PMUCAL_TLBDETECT_OUT_H
#define PMUCAL_TLBDETECT_OUT_H

#include "analysis/tlbdetect.h"
#include "report/json.h"
#include "report/rep.h"

/** Append the console report for @p n results to @p out: per side and page size the levels
 *  found with entries and CPUID verdict, and the latency per class; where a near-PTE and a
 *  spread-PTE curve of the same side and page size are both given, the walk's memory cost. */
status_t tlb_report_console(const struct tlb_result *r, size_t n, struct rep_buf *out);

/** Schema name and version of the TLB table (docs/schemas/tlb-table.schema.json); 1.1: null
 *  for a level's unknown CPUID figures; 1.2: the clock, and every figure in TSC ticks, core
 *  cycles and ns. */
#define TLB_TABLE_SCHEMA "pmucal.tlb/1.3"

/** Write the "tlb" object (schema TLB_TABLE_SCHEMA, docs/tlb-table.md) under @p key (NULL in
 *  an array or at top level) into @p w, its figures described by @p clk (NULL: no clock
 *  known: the core and ns figures are null). Errors are sticky in @p w. */
void tlb_json_write(struct json_w *w, const char *key, const struct tlb_result *r, size_t n,
                    const struct lat_clock_desc *clk);

/** Append every point of the @p n curves to @p out as tlb-curve.csv: a header line, then
 *  side,page_bytes,pte,n_pages,n_windows,min_mcyc,p10_mcyc,p50_mcyc,p90_mcyc,ctl_p50_mcyc. */
status_t tlb_curve_csv(const struct tlb_curve *c, size_t n, struct rep_buf *out);

/** "l1_hit", "l2_hit", "walk", "miss"; never NULL. */
const char *tlb_class_name(enum tlb_class cls);
/** "no_cpuid", "agree", "disagree"; never NULL. */
const char *tlb_verdict_name(enum tlb_verdict v);

#endif
