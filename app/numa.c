/** @file
 * The NUMA latency-matrix phase: for every node i that has a processor taking part and every
 * node j whose memory could hold a buffer, a processor of node i chases a random chain laid
 * through a DRAM-sized buffer placed on node j (app/numa_mem.h), through the MP mailbox
 * (bench/chase_job.h: the same kernel and windows as the latency sweep). Every cell gets
 * p10/p50/p90; the node pairs are grouped into distance classes from SLIT with a level name
 * each ("DRAM-remote-1hop", ...); measured ratios are held against SLIT and absolute figures
 * against HMAT (report/numa.h), every DISAGREE flagged. Prints an MLC-style grid and writes
 * numa-matrix.json.
 *
 * Under an emulator (QEMU TCG) every memory access costs the same wherever it goes, so the
 * SLIT and HMAT comparisons are reported as INFO and nothing fails for them.
 */
#include "app/run.h"

#include "app/cpus.h"
#include "app/numa_priv.h"
#include "bench/chase_buf.h"
#include "bench/kernel_load.h"
#include "bench/measure.h"
#include "lib/fmt.h"
#include "lib/stats.h"
#include "report/inventory.h"
#include "report/json.h"
#include "report/lattable.h"
#include "report/lattable_numa.h"
#include "report/numa_out.h"

#define NUMA_FILE        "numa-matrix.json"
#define WS_MIN           (64 * MiB)
#define WS_MAX           (1 * GiB)
#define WS_CACHE_FACTOR  4u               /* working set = 4 x the largest cache */
#define WS_EMULATED      (8 * MiB)        /* QEMU TCG models no cache to overflow */
#define WINDOW_US        400u
#define WINDOW_US_EMULATED 50u            /* under -icount a load is 1 ns of virtual time but
                                           * ~1 us of the host's: shorter windows, same figure */
#define CHAIN_SEED       0x6e756d61
#define CELL_TRIES       3u               /* chases of a cell whose windows were all disturbed */
#define TOL_SLIT_PCT     25u
#define TOL_HMAT_PCT     25u


static struct numa_run        state;
static struct bench_chase_job job;
static struct lat_numa_in     result;   /* what the latency table gets (r->numa_result) */

static uint64_t working_set(const struct inventory *inv, bool emulated)
{
        uint64_t big = 0, ws;

        /* An emulated CPU's loads cost the same at any size; a smaller buffer only saves the
         * emulator's time in zeroing it and laying the chain. */
        if (emulated)
                return WS_EMULATED;

        for (size_t i = 0; inv && i < inv->cpu.n_caches; i++)
                if (inv->cpu.caches[i].size_bytes > big)
                        big = inv->cpu.caches[i].size_bytes;
        ws = big * WS_CACHE_FACTOR;
        ws = ws < WS_MIN ? WS_MIN : ws > WS_MAX ? WS_MAX : ws;
        return (ws + 2 * MiB - 1) & ~(uint64_t)(2 * MiB - 1);
}

/* More proximity domains than the matrix covers: say which it covers and which it leaves out. */
static void say_nodes_left_out(const struct acpi_srat *srat)
{
        char     list[ACPI_MAX_NODES * 11 + 1];
        size_t   at = 0;

        for (uint32_t k = NUMA_MAX_NODES; k < srat->n_nodes && at < sizeof(list) - 12; k++)
                at += fmt_snprintf(list + at, sizeof(list) - at, "%s%u",
                                   k == NUMA_MAX_NODES ? "" : ", ", srat->node[k]);
        rep_warn("SRAT names %u proximity domains; the latency matrix covers %u nodes: domains "
                 "%u to %u are measured, domain%s %s left out (no cells, no classes)",
                 srat->n_nodes, NUMA_MAX_NODES, srat->node[0], srat->node[NUMA_MAX_NODES - 1],
                 srat->n_nodes - NUMA_MAX_NODES == 1 ? "" : "s", list);
}

/* Without SRAT, the nodes of a platform that places memory by node itself (hosted: Linux's,
 * plat_node_info) and its distance table as the SLIT; one node where it has none. */
static void platform_nodes(struct numa_run *s)
{
        static struct acpi_slit slit;
        uint8_t                 row[NUMA_MAX_NODES];
        unsigned                n = 0;

        if (plat_node_info(0, NULL, NULL, 0, &n) != ST_OK || !n)
                return;
        s->n_nodes = n < NUMA_MAX_NODES ? n : NUMA_MAX_NODES;
        slit       = (struct acpi_slit){ 0 };
        bool have  = true;
        for (unsigned k = 0; k < s->n_nodes; k++) {
                plat_node_info(k, &s->pd[k], row, s->n_nodes, NULL);
                have = have && s->pd[k] < ACPI_SLIT_MAX;
        }
        for (unsigned i = 0; i < s->n_nodes && have; i++) {
                plat_node_info(i, NULL, row, s->n_nodes, NULL);
                for (unsigned j = 0; j < s->n_nodes; j++) {
                        have = have && row[j];
                        slit.dist[s->pd[i]][s->pd[j]] = row[j];
                }
        }
        if (!have || s->n_nodes < 2)
                return;
        for (unsigned k = 0; k < s->n_nodes; k++)
                slit.n = s->pd[k] + 1 > slit.n ? s->pd[k] + 1 : slit.n;
        s->slit = &slit;
}

/* Nodes: SRAT's proximity domains in ascending order (one node without SRAT); the first
 * processor taking part in each measures from it. */
static void choose_nodes(struct numa_run *s, const struct inventory *inv)
{
        const struct app_cpus *cs = app_cpus_get();

        s->n_nodes = 1;
        s->pd[0]   = 0;
        s->slit    = inv ? inv->slit : NULL;
        if (!(inv && inv->srat && inv->srat->n_nodes))
                platform_nodes(s);
        else if (inv && inv->srat && inv->srat->n_nodes) {
                s->n_nodes = inv->srat->n_nodes < NUMA_MAX_NODES ? inv->srat->n_nodes
                                                                 : NUMA_MAX_NODES;
                for (unsigned k = 0; k < s->n_nodes; k++)
                        s->pd[k] = inv->srat->node[k];
                if (inv->srat->n_nodes > NUMA_MAX_NODES)
                        say_nodes_left_out(inv->srat);
        }
        for (unsigned k = 0; k < s->n_nodes; k++) {
                s->cpu[k] = -1;
                for (unsigned i = 0; i < cs->n && s->cpu[k] < 0; i++) {
                        const struct app_cpu *c = &cs->cpu[i];
                        bool here = s->n_nodes == 1 || (c->node >= 0 && (uint32_t)c->node == s->pd[k]);
                        if (here && (c->state == MP_BSP || c->state == MP_PARKED))
                                s->cpu[k] = (int)i;
                }
        }
}

/* A buffer on every node, each with its own chain. Returns how many were placed. */
static unsigned place_buffers(struct numa_run *s, const struct inventory *inv)
{
        unsigned n = 0;

        for (unsigned k = 0; k < s->n_nodes; k++) {
                struct numa_place         *pl = &s->place[k];
                struct bench_chase_buf     cb;
                struct bench_chase_buf_cfg cc = {
                        .bytes = s->ws,
                        .chain = { .layout = BENCH_LAYOUT_RANDOM, .seed = CHAIN_SEED ^ k } };

                s->chain[k] = NULL;
                if (app_numa_place_pages(inv ? inv->srat : NULL, s->pd[k], s->ws, s->page,
                                         pl) != ST_OK)
                        continue;
                cc.mem = pl->p; /* the node's block: the placement keeps and frees it */
                if (bench_chase_buf_create(&cb, &cc) != ST_OK) {
                        app_numa_unplace(pl);
                        pl->st = ST_BAD_ARG;
                        continue;
                }
                s->chain[k] = cb.start;
                n++;
        }
        return n;
}

static status_t measure_cell(struct numa_run *s, unsigned i, unsigned j)
{
        struct numa_cell *c = &s->m.cell[i][j];
        status_t          st;

        *c = (struct numa_cell){ 0 };
        /* a cell whose every window was disturbed is tried again, as the TLB points are */
        st = ST_DISTURBED;
        for (unsigned t = 0; t < CELL_TRIES && st == ST_DISTURBED; t++)
                st = app_numa_chase(s, (unsigned)s->cpu[i], s->chain[j], &job, &c->p10_ps,
                                &c->p50_ps, &c->p90_ps);
        c->measured = st == ST_OK;
        return st;
}

static unsigned measure_matrix(struct numa_run *s, unsigned *n_tried)
{
        unsigned failed = 0;

        memset(&s->m, 0, sizeof(s->m));
        s->m.n_nodes = s->n_nodes;
        *n_tried     = 0;
        for (unsigned i = 0; i < s->n_nodes; i++)
                for (unsigned j = 0; j < s->n_nodes; j++) {
                        if (s->cpu[i] < 0 || !s->chain[j])
                                continue;
                        (*n_tried)++;
                        status_t st = measure_cell(s, i, j);
                        if (st == ST_DISTURBED) {
                                s->n_disturbed++;
                                rep_info("CPU %d on node %u, memory on node %u: left out, every "
                                         "window disturbed", s->cpu[i], s->pd[i], s->pd[j]);
                        } else if (st != ST_OK) {
                                failed++;
                                rep_err(st, "CPU %d on node %u, memory on node %u", s->cpu[i],
                                        s->pd[i], s->pd[j]);
                        }
                }
        return failed;
}

static void report_placement(const struct numa_run *s)
{
        const struct app_cpus *cs = app_cpus_get();

        for (unsigned k = 0; k < s->n_nodes; k++) {
                const struct numa_place *pl = &s->place[k];
                if (s->cpu[k] >= 0)
                        rep_printf("numa: node %u (proximity domain %u): CPU %d (APIC ID %u); ", k,
                                   s->pd[k], s->cpu[k], cs->cpu[s->cpu[k]].fw_apic);
                else
                        rep_printf("numa: node %u (proximity domain %u): no processor taking "
                                   "part; ", k, s->pd[k]);
                if (pl->st == ST_OK)
                        rep_printf("buffer at 0x%llx (%llu MiB, %u pages checked)\n",
                                   (unsigned long long)pl->phys,
                                   (unsigned long long)(s->ws / MiB), pl->n_pages_checked);
                else
                        rep_printf("no buffer: %s\n", pl->why);
                if (pl->overlap_bytes)
                        rep_warn("SRAT: %llu MiB of proximity domain %u's memory ranges are "
                                 "also in proximity domain %u's: which node those addresses "
                                 "are on is ambiguous, so no buffer is placed there",
                                 (unsigned long long)(pl->overlap_bytes / MiB), s->pd[k],
                                 pl->overlap_pd);
                if (pl->absent_bytes)
                        rep_info("SRAT: proximity domain %u has %llu MiB of hot-pluggable or "
                                 "non-volatile ranges: not its memory at boot, no buffer there",
                                 s->pd[k], (unsigned long long)(pl->absent_bytes / MiB));
        }
}

/* A node without memory in SRAT (processors only, or only ranges that are not there at boot
 * or are ambiguous) is INFO; one whose ranges lack a free block of the buffer's size (memory
 * the machine does not have, SRAT ranges beyond the real RAM) a SKIP of its cells; any other
 * failed placement (a page outside the node) a FAIL. */
static void check_placement(const struct numa_run *s)
{
        for (unsigned k = 0; k < s->n_nodes; k++) {
                const struct numa_place *pl = &s->place[k];
                if (pl->st == ST_OK)
                        continue;
                if (pl->memoryless || pl->overlap_bytes)
                        rep_info("node %u: %s: no cells with memory on it", k, pl->why);
                else if (pl->lacking)
                        rep_skip(REP_SKIP_ENV, "node %u: buffer of %llu MiB: %s: the machine "
                                 "lacks the memory there, so no cells with memory on it", k,
                                 (unsigned long long)(s->ws / MiB), pl->why);
                else
                        rep_check(false, "node %u: buffer of %llu MiB placed on the node: %s", k,
                                  (unsigned long long)(s->ws / MiB), pl->why);
        }
}

/* Pairs SLIT calls unreachable (255) between measured nodes: said, never a silent null. */
static void say_unreachable(const struct numa_run *s)
{
        for (unsigned i = 0; i < s->m.n_nodes; i++)
                for (unsigned j = 0; j < s->m.n_nodes; j++) {
                        const struct numa_cell *c = &s->m.cell[i][j];
                        if (!c->slit_unreachable)
                                continue;
                        if (c->measured)
                                rep_warn("node %u -> %u (proximity domain %u -> %u): SLIT says "
                                         "unreachable (255), yet the memory was read at %llu ns: "
                                         "no SLIT ratio to compare", i, j, s->pd[i], s->pd[j],
                                         (unsigned long long)(c->p50_ps / 1000));
                        else
                                rep_info("node %u -> %u (proximity domain %u -> %u): SLIT says "
                                         "unreachable (255); not measured", i, j, s->pd[i],
                                         s->pd[j]);
                }
}

static void check_verdicts(const struct numa_run *s, const struct inventory *inv, bool emulated)
{
        struct numa_class_latency lat[NUMA_MAX_CLASSES];
        unsigned sa, sd, ha, hd;

        numa_verdict_counts(&s->m, &sa, &sd, &ha, &hd);
        say_unreachable(s);
        if (!s->slit)
                rep_info("no SLIT: distance classes assume one remote distance (20)");
        else if (!inv->slit)
                rep_info("no SLIT: distances from %s's node table", plat_info()->name);
        if (!inv->hmat)
                rep_info("no HMAT: absolute latencies not compared");
        if (emulated) {
                rep_info("the CPU is emulated (QEMU TCG): all memory costs the same wherever it "
                         "is, so the matrix is flat; SLIT ratios %u agree / %u DISAGREE, HMAT "
                         "latencies %u agree / %u DISAGREE (the emulator's figures)", sa, sd, ha,
                         hd);
                return;
        }
        for (unsigned i = 0; i < s->m.n_nodes; i++)
                for (unsigned j = 0; j < s->m.n_nodes; j++) {
                        const struct numa_cell *c = &s->m.cell[i][j];
                        if (c->slit == NUMA_DISAGREE)
                                rep_warn("node %u -> %u: DISAGREE with SLIT: ratio %u.%03u "
                                         "measured, %u.%03u in SLIT", i, j,
                                         c->ratio_milli / 1000, c->ratio_milli % 1000,
                                         c->slit_ratio_milli / 1000, c->slit_ratio_milli % 1000);
                        if (c->hmat == NUMA_DISAGREE)
                                rep_warn("node %u -> %u: DISAGREE with HMAT: %llu ns measured, "
                                         "%llu ns in HMAT", i, j,
                                         (unsigned long long)(c->p50_ps / 1000),
                                         (unsigned long long)(c->hmat_ps / 1000));
                }
        rep_info("SLIT ratios: %u agree, %u DISAGREE; HMAT latencies: %u agree, %u DISAGREE "
                 "(tolerance %u%% / %u%%)", sa, sd, ha, hd, TOL_SLIT_PCT, TOL_HMAT_PCT);
        numa_class_latencies(&s->m, &s->cls, lat);
        /* Flagged, not failed: the firmware's node description may be fiction (a single
         * memory controller split into nodes), which is what the flag is for. */
        for (unsigned k = 1; k < s->cls.n_classes; k++)
                if (lat[k].n_cells && lat[0].n_cells && lat[k].p50_ps * 100 < lat[0].p50_ps * 95)
                        rep_warn("remote class %u (SLIT %u) is faster than local memory: %llu ns "
                                 "against %llu ns", k, s->cls.cls[k].distance,
                                 (unsigned long long)(lat[k].p50_ps / 1000),
                                 (unsigned long long)(lat[0].p50_ps / 1000));
}

/* The time of the run in UTC for method.date; NULL without a clock. */
static const char *run_date(char *buf, size_t n)
{
        struct plat_time t;

        return plat_wallclock(&t) == ST_OK && rep_lat_date_utc(&t, buf, n) ? buf : NULL;
}

static uint64_t page_bytes(enum plat_page_kind k)
{
        return k == PLAT_PAGE_1G ? GiB : k == PLAT_PAGE_2M ? 2 * MiB : 4 * KiB;
}

/* How the buffers were put on their nodes: "srat" (pages at physical addresses inside the
 * node's SRAT ranges, each checked), the platform's node binding ("mbind": hosted), or
 * "none" (one node, wherever the platform gave pages). */
static const char *placement_word(const struct numa_run *s, const struct inventory *inv)
{
        if (inv && inv->srat && inv->srat->n_nodes)
                return "srat";
        for (unsigned k = 0; k < s->n_nodes; k++)
                if (s->place[k].by_node && plat_info()->node_placement)
                        return plat_info()->node_placement;
        return "none";
}

static status_t write_json(struct run *r, const struct numa_run *s, bool emulated)
{
        const struct app_cpus *cs = app_cpus_get();
        struct rep_buf         b  = { 0 };
        struct json_w          w;
        char                   date[24];
        status_t               st;

        json_init(&w, &b);
        json_obj_begin(&w, NULL);
        json_str(&w, "schema", "pmucal.numa/1.3");
        json_obj_begin(&w, "method");
        json_str(&w, "clock", bench_load_clock_name());
        json_u64(&w, "tsc_hz", s->clock.tsc_hz);
        json_str(&w, "date", run_date(date, sizeof(date)));
        json_u64(&w, "working_set_bytes", s->ws);
        json_u64(&w, "page_bytes", page_bytes(s->page));
        json_str(&w, "placement", placement_word(s, r->inv));
        json_str(&w, "layout", "random");
        json_u64(&w, "windows", s->windows);
        json_u64(&w, "slit_tolerance_pct", TOL_SLIT_PCT);
        json_u64(&w, "hmat_tolerance_pct", TOL_HMAT_PCT);
        json_bool(&w, "emulated", emulated);
        json_obj_end(&w);
        json_arr_begin(&w, "nodes");
        for (unsigned k = 0; k < s->n_nodes; k++) {
                json_obj_begin(&w, NULL);
                json_u64(&w, "node", k);
                json_u64(&w, "proximity_domain", s->pd[k]);
                if (s->cpu[k] >= 0)
                        json_u64(&w, "cpu_apic_id", cs->cpu[s->cpu[k]].fw_apic);
                else
                        json_null(&w, "cpu_apic_id");
                json_u64(&w, "pages_checked", s->place[k].st == ST_OK
                                                       ? s->place[k].n_pages_checked : 0);
                if (s->place[k].st == ST_OK) {
                        json_hex(&w, "buffer_phys", s->place[k].phys);
                        json_null(&w, "placement_error");
                } else {
                        json_null(&w, "buffer_phys");
                        json_str(&w, "placement_error", s->place[k].why);
                }
                json_obj_end(&w);
        }
        json_arr_end(&w);
        numa_json(&w, &s->m, &s->cls, s->pd, s->clock.tsc_hz);
        loaded_json(&w, s->curve, s->n_curves, &s->bw, s->pd);
        json_obj_end(&w);
        if ((st = json_finish(&w)) != ST_OK) {
                rep_buf_free(&b);
                return rep_err(st, "formatting %s", NUMA_FILE);
        }
        return run_add_file(r, NUMA_FILE, &b);
}

static void print_matrix(const struct numa_run *s)
{
        struct rep_buf b = { 0 };

        if (numa_text(&b, &s->m, &s->cls, s->clock.tsc_hz) == ST_OK && b.p)
                rep_printf("%s", b.p);
        rep_buf_free(&b);
}

/* What a part of the phase cost: the chase windows and loads since the counters were last
 * cleared, and the wall time since @p t0 (bench_load_now). make bench (tools/bench-numa.sh)
 * reads it. */
static void cost_line(struct numa_run *s, const char *what, unsigned n_items, uint64_t t0)
{
        uint64_t ms = (bench_load_now() - t0) * 1000 / s->clock.tsc_hz;

        rep_info("cost: %s: %u %s, %llu chase windows, %llu loads, %llu ms", what, n_items,
                 !strcmp(what, "matrix") ? "cells" : "curves", (unsigned long long)s->n_windows,
                 (unsigned long long)s->n_loads, (unsigned long long)ms);
        s->n_windows = s->n_loads = 0;
}

/* The matrix, classes and curves go into latency-table.json too (the latency phase writes
 * it): the run keeps pointers into this phase's state, which lives as long as the run. */
static void hand_to_run(struct run *r, const struct numa_run *s, bool emulated,
                        unsigned n_measured)
{
        if (!n_measured)
                return;
        result = (struct lat_numa_in){ .m = &s->m, .cls = &s->cls, .pd = s->pd,
                                       .ws_bytes = s->ws, .windows = s->windows,
                                       .tsc_hz = s->clock.tsc_hz, .emulated = emulated,
                                       .curve = s->curve, .n_curves = s->n_curves,
                                       .bw = &s->bw };
        r->numa_result = &result;
}

status_t phase_numa(struct run *r)
{
        struct numa_run *s        = &state;
        bool             emulated = app_cpus_emulated(r);
        unsigned         n_tried, failed;
        status_t         st;

        if (!r->inv || !r->inv->tsc_hz) {
                rep_skip(REP_SKIP_ENV, "no TSC frequency from the inventory: latencies cannot be "
                         "given in ns");
                return ST_OK;
        }
        memset(s, 0, sizeof(*s));
        s->ws      = r->cfg.numa_ws_mib ? (uint64_t)r->cfg.numa_ws_mib * MiB
                                            : working_set(r->inv, emulated);
        s->page    = lat_dram_page(r);
        s->window_us = emulated ? WINDOW_US_EMULATED : WINDOW_US;
        s->windows = r->cfg.repetitions < BENCH_JOB_MAX_WINDOWS ? r->cfg.repetitions
                                                                : BENCH_JOB_MAX_WINDOWS;
        s->clock   = (struct bench_clock){ .kind = LAT_CLOCK_TSC, .tsc_hz = r->inv->tsc_hz,
                                           .core_hz = r->inv->tsc_hz };
        bench_guard_init(&s->guard, &r->inv->cpu);
        if ((st = app_cpus_park(r)) != ST_OK)
                return st;
        choose_nodes(s, r->inv);
        if ((st = numa_classes_from_slit(s->slit, s->n_nodes, s->pd, &s->cls)) != ST_OK) {
                if (st == ST_UNSUPPORTED)
                        rep_warn("SLIT gives more than %u distinct remote distances between the "
                                 "%u measured nodes: the classes take one remote distance (20) "
                                 "instead; the cells are still held against SLIT's own values",
                                 NUMA_MAX_CLASSES - 1, s->n_nodes);
                else
                        rep_warn("SLIT: %s: distance classes assume one remote distance",
                                 status_str(st));
                numa_classes_from_slit(NULL, s->n_nodes, s->pd, &s->cls);
        }
        rep_info("%u node%s%s, %llu MiB random chase per cell on %s pages (the latency "
                 "sweep's DRAM pages)%s, %u windows per cell", s->n_nodes,
                 s->n_nodes == 1 ? "" : "s", r->inv->srat ? ""
                 : s->slit || s->n_nodes > 1 ? " (no SRAT: the platform's nodes)"
                                             : " (no SRAT: one node)",
                 (unsigned long long)(s->ws / MiB), bench_page_name(s->page),
                 emulated ? " (emulated CPU: no cache to overflow)" : "", s->windows);
        place_buffers(s, r->inv);
        uint64_t t0 = bench_load_now();
        failed = measure_matrix(s, &n_tried);
        cost_line(s, "matrix", n_tried, t0);
        report_placement(s);
        numa_matrix_check(&s->m, s->slit, r->inv->hmat, s->pd,
                          &(struct numa_tolerance){ TOL_SLIT_PCT, TOL_HMAT_PCT });
        print_matrix(s);
        check_placement(s);
        if (n_tried && !failed && s->n_disturbed == n_tried)
                rep_skip(REP_SKIP_ENV, "every one of %u cells left out: every window disturbed",
                         n_tried);
        else if (!n_tried)
                rep_skip(REP_SKIP_ENV, "no cell to measure: no node with a processor taking part "
                         "has memory that could hold a %llu MiB buffer (see the nodes above)",
                         (unsigned long long)(s->ws / MiB));
        else
                rep_check(n_tried > 0 && failed == 0,
                          "%u of %u cells measured (%u node%s, p10/p50/p90 each; %u left out "
                          "as disturbed)", n_tried - failed - s->n_disturbed, n_tried,
                          s->n_nodes, s->n_nodes == 1 ? "" : "s", s->n_disturbed);
        if (s->n_nodes == 1)
                rep_info("one node: the matrix is 1 x 1 (local DRAM only)");
        check_verdicts(s, r->inv, emulated);

        uint64_t w0 = s->n_windows, l0 = s->n_loads;
        t0 = bench_load_now();
        app_numa_loaded(s, r, emulated);
        s->n_windows -= w0;
        s->n_loads -= l0;
        cost_line(s, "loaded latency and bandwidth", (unsigned)s->n_curves, t0);
        app_cpus_release();
        for (unsigned k = 0; k < s->n_nodes; k++)
                app_numa_unplace(&s->place[k]);
        app_numa_loaded_free(s);
        hand_to_run(r, s, emulated, n_tried - failed);
        return write_json(r, s, emulated);
}
