#!/usr/bin/env python3
"""The gnuplot scripts of `make plot` (tools/plot.sh), one per figure of a results folder.

    plot_data.py KIND DIR TMP FORMAT

KIND is latency (latency-curve.csv with the levels, capacities and bucket bounds of
latency-table.json), tlb (tlb-curve.csv with the TLB levels and their entries of tlb-table.json
or of the latency table's tlb member), loaded (numa-matrix.json's loaded-latency curves) or c2c
(c2c.json's HITM pair matrix). The script goes to stdout, its data files to TMP; FORMAT (png or
svg) picks the terminal and the output file DIR/<figure>.FORMAT. Nothing on stdout: nothing to
draw. With PLOT_TITLE_ONLY set in the environment the title also goes to stderr as "title: ...".

Every label is placed inside the frame: the ranges are set from the data with room for the
labels, a label right of the middle is right-aligned, and a mark beyond the drawn range is said
in words at the frame's edge instead of being drawn outside it."""
import csv
import json
import math
import os
import sys

SIZES = {"latency": (1100, 700), "tlb": (1100, 700), "loaded": (1000, 650), "c2c": (800, 700)}
FILES = {"latency": "latency-curve", "tlb": "tlb-curve", "loaded": "loaded-latency",
         "c2c": "c2c-heatmap"}


def size(b):
    """A byte count as a size: 4 KiB, 2.6 MiB."""
    if b is None:
        return "?"
    for d, u in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= d:
            return ("%d %s" % (b // d, u)) if b % d == 0 else ("%.1f %s" % (b / d, u))
    return "%d B" % b


def q(s):
    """A gnuplot double-quoted string."""
    return '"%s"' % str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def load(path):
    with open(path) as f:
        return json.load(f)


def terminal(kind, fmt, out):
    w, h = SIZES[kind]
    term = "svg size %d,%d dynamic font \"sans,10\"" % (w, h) if fmt == "svg" else \
        "pngcairo size %d,%d font \"sans,10\"" % (w, h)
    return ["set terminal " + term, "set output " + q(out)]


def title_of(table_path, what, machine_path=None):
    """The title's words: brand, family/model by the one rule, page size as a size, clock."""
    t = load(table_path) if table_path and os.path.exists(table_path) else {}
    mp = machine_path or table_path
    m = load(mp).get("machine", {}) if mp and os.path.exists(mp) else {}
    who = m.get("brand") or m.get("vendor") or "?"
    if "family" in m:
        who += ", family/model %xh/%xh (%d/%d)" % (m["family"], m["model"], m["family"], m["model"])
    meth = t.get("method", {})
    cc = meth.get("core_clock") or t.get("clock") or (t.get("tlb") or {}).get("clock") or {}
    if "core_source" in cc:
        cc = dict(cc, source=cc["core_source"])
    clock = "TSC ticks" + ("; %.3f core cycles per tick (%s)" % (cc["core_per_tsc"], cc["source"])
                           if cc.get("core_per_tsc") else "; core clock unknown")
    if what == "latency":
        return "latency curve: %s; %s pages; %s" % (who, size(meth.get("page_bytes")), clock)
    return "TLB curves: %s; %s" % (who, clock)


def csv_rows(path):
    with open(path) as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    head = rows[0]
    ix = {k: i for i, k in enumerate(head)}
    for k in list(ix):  # files written before the _mtick names say _mcyc
        if k.endswith("_mcyc"):
            ix.setdefault(k[:-5] + "_mtick", ix[k])
    return ix, [r for r in rows[1:] if r]


def frac_log(x, lo, hi):
    """Where x sits between lo and hi on a log axis, 0..1."""
    return (math.log(x) - math.log(lo)) / (math.log(hi) - math.log(lo)) if hi > lo else 0.5


def side_label(frac):
    """Alignment and offset of a label at a point: right-aligned right of the middle."""
    return "right offset -0.5,0.6" if frac > 0.55 else "left offset 0.5,0.6"


def edge_notes(notes, cmds, color):
    """Marks beyond the drawn range, said at the frame's right edge, top down."""
    for i, text in enumerate(notes):
        cmds.append('set label %s at graph 0.99, graph %.3f right tc rgb "%s" noenhanced'
                    % (q(text), 0.80 - 0.045 * i, color))


def latency(d, tmp):
    csv_path, tab_path = os.path.join(d, "latency-curve.csv"), os.path.join(d, "latency-table.json")
    if not (os.path.exists(csv_path) and os.path.exists(tab_path)):
        return None, None
    t = load(tab_path)
    ix, rows = csv_rows(csv_path)
    pts = sorted((int(r[ix["ws_bytes"]]), int(r[ix["p50_mtick"]]) / 1000,
                  int(r[ix["p10_mtick"]]) / 1000, int(r[ix["p90_mtick"]]) / 1000)
                 for r in rows if r[ix["p50_mtick"]])
    if not pts:
        return None, None
    dat = os.path.join(tmp, "latency.dat")
    with open(dat, "w") as f:
        for p in pts:
            f.write("%d %g %g %g\n" % p)
    lv, bo = t["levels"], t["bucket_upper_bounds"]
    bounds = bo.get("tsc_ticks") or bo.get("cycles") or []

    def p50(level):
        return (level.get("tsc_ticks") or level["cycles"])["p50"]
    xlo, xhi = pts[0][0] / 2 ** 0.2, pts[-1][0] * 2 ** 0.2
    ys = [p[2] for p in pts] + [p[3] for p in pts] + [p50(v) for v in lv] + list(bounds)
    ys = [y for y in ys if y and y > 0]
    ylo, yhi = min(ys) / 1.5, max(ys) * 1.8
    cmds = ["set datafile separator whitespace", "set key top left noenhanced",
            "set xlabel \"working set (bytes, log scale)\"",
            "set ylabel \"latency per load (TSC ticks, log scale)\"",
            "set logscale x 2", "set logscale y 10",
            "set grid xtics ytics lc rgb \"#dddddd\"",
            "set xrange [%g:%g]" % (xlo, xhi), "set yrange [%g:%g]" % (ylo, yhi)]
    notes = []
    for level in lv:
        x = min(max(level["first_ws_bytes"], pts[0][0]), pts[-1][0])
        cmds.append('set label %s at first %d, first %g %s tc rgb "#006600" noenhanced'
                    % (q("%s %.1f TSC ticks" % (level["name"], p50(level))), x, p50(level),
                       side_label(frac_log(x, xlo, xhi))))
        c = level.get("capacity_bytes")
        if not c:
            continue
        cp = level.get("cpuid_capacity_bytes")
        extra = " (CPUID %s, %s)" % (size(cp), level["agreement"]) if cp else ""
        text = "%s capacity %s%s" % (level["name"], size(c), extra)
        if xlo < c < xhi:
            cmds.append('set arrow from first %d, graph 0 to first %d, graph 1 nohead dt 3 lc rgb "#cc0000"'
                        % (c, c))
            cmds.append('set label %s at first %d, graph 0.97 rotate by 90 right offset -0.7,0 tc rgb "#cc0000" noenhanced'
                        % (q(text), c))
        else:
            notes.append(text + ": beyond the sweep (%s..%s)" % (size(pts[0][0]), size(pts[-1][0])))
    edge_notes(notes, cmds, "#cc0000")
    for i, v in enumerate(bounds):
        if i + 1 >= len(lv):
            break
        cmds.append('set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lc rgb "#888888"'
                    % (v, v))
        cmds.append('set label %s at graph 0.99, first %g right offset 0,0.6 tc rgb "#555555" noenhanced'
                    % (q("bound %s|%s %.2f" % (lv[i]["name"], lv[i + 1]["name"], v)), v))
    tics, ws = [], 4096
    while ws <= xhi:
        if ws >= xlo:
            tics.append('"%s" %d' % (size(ws).replace(" ", ""), ws))
        ws *= 4
    if tics:
        cmds.append("set xtics (%s)" % ", ".join(tics))
    if t.get("flags"):
        cmds.append('set label %s at graph 0.01, graph 0.03 tc rgb "#aa5500" noenhanced'
                    % q("flags: " + " ".join(t["flags"])))
    cmds.append("plot %s using 1:2:3:4 with yerrorbars lc rgb \"#9999cc\" pt 0 title \"p10..p90\", "
                "%s using 1:2 with linespoints lc rgb \"#000088\" pt 7 ps 0.5 lw 1.5 title \"p50\""
                % (q(dat), q(dat)))
    return cmds, title_of(tab_path, "latency")


def tlb(d, tmp):
    csv_path = os.path.join(d, "tlb-curve.csv")
    if not os.path.exists(csv_path):
        return None, None
    ix, rows = csv_rows(csv_path)
    curves = {}
    for r in rows:
        curves.setdefault((r[ix["side"]], int(r[ix["page_bytes"]]), r[ix["pte"]]), []).append(r)
    if not curves:
        return None, None
    jpath = os.path.join(d, "tlb-table.json")
    if not os.path.exists(jpath):
        jpath = os.path.join(d, "latency-table.json")
    tab = load(jpath) if os.path.exists(jpath) else {}
    tab = tab.get("tlb") or tab if "curves" not in tab else tab
    levels = {(c["side"], c["page_bytes"], c["pte"]): c.get("levels") or []
              for c in (tab.get("curves") or [])}
    xs = [int(r[ix["n_pages"]]) for pts in curves.values() for r in pts]
    ys = [int(r[ix[k]]) / 1000 for pts in curves.values() for r in pts
          for k in ("p10_mtick", "p90_mtick")]
    ys = [y for y in ys if y > 0]
    xlo, xhi = min(xs) / 2 ** 0.2, max(xs) * 2 ** 0.2
    # the key below the frame: the TLB levels are marked by labels that run down from its top
    cmds = ["set key below horizontal noenhanced", "set xlabel \"pages touched (log scale)\"",
            "set ylabel \"latency per access (TSC ticks, log scale)\"",
            "set logscale x 2", "set logscale y 10", "set grid xtics ytics lc rgb \"#dddddd\"",
            "set xrange [%g:%g]" % (xlo, xhi),
            "set yrange [%g:%g]" % (min(ys) / 1.5, max(ys) * 1.8)]
    plot, notes = [], []
    for k, (key, pts) in enumerate(sorted(curves.items())):
        dat = os.path.join(tmp, "tlb%d.dat" % k)
        with open(dat, "w") as f:
            for r in pts:
                f.write("%s %g %g %g\n" % (r[ix["n_pages"]], int(r[ix["p50_mtick"]]) / 1000,
                                           int(r[ix["p10_mtick"]]) / 1000, int(r[ix["p90_mtick"]]) / 1000))
        name = "%s %s pages, PTE %s" % (key[0], size(key[1]), key[2])
        plot.append("%s using 1:2:3:4 with yerrorlines lt %d pt 7 ps 0.4 title %s" % (q(dat), k + 1, q(name)))
        for lvl in levels.get(key, []):
            e = lvl.get("entries")
            if not e:
                continue
            cp = lvl.get("cpuid_entries")
            text = "%s %s L%s TLB: %d entries%s" % (key[0], size(key[1]), lvl.get("level", "?"), e,
                                                  " (CPUID %d, %s)" % (cp, lvl.get("verdict")) if cp else "")
            if xlo < e < xhi:
                cmds.append("set arrow from first %g, graph 0 to first %g, graph 1 nohead dt 3 lt %d"
                            % (e, e, k + 1))
                cmds.append("set label %s at first %g, graph 0.97 rotate by 90 right offset -0.7,0 tc lt %d noenhanced"
                            % (q(text), e, k + 1))
            else:
                notes.append(text + ": beyond the pages drawn")
    edge_notes(notes, cmds, "#555555")
    cmds.append("plot " + ", ".join(plot))
    title = title_of(jpath, "tlb", os.path.join(d, "latency-table.json")) if os.path.exists(jpath) \
        else "TLB curves"
    return cmds, title


def injection_order(p):
    """Unloaded first, then by the loaders' delay, longest first: the order they were injected."""
    return (0, 0) if p.get("delay") is None else (1, -p["delay"])


def loaded(d, tmp):
    path = os.path.join(d, "numa-matrix.json")
    if not os.path.exists(path):
        return None, None
    m = load(path)
    series = []
    for k, c in enumerate(m.get("loaded_latency") or []):
        pts = sorted((p for p in c["points"] if p.get("measured") and p.get("p50_ns") is not None),
                     key=injection_order)
        if not pts:
            continue
        if c.get("loaded") == "node":
            who = "node %d loaded" % c["node"]
        elif c.get("loaded") in ("all", "all nodes"):
            who = "every node loaded"
        else:
            who = "loaded: %s" % c.get("loaded")
        series.append((k, pts, "%s, chase on APIC ID %d" % (who, c["chaser_apic_id"])))
    if not series:
        return None, None
    bw = [p["bandwidth_gb_s"] or 0 for _, pts, _ in series for p in pts]
    ys = [p.get("p90_ns") or p["p50_ns"] for _, pts, _ in series for p in pts]
    xhi = max(bw) * 1.15 if max(bw) > 0 else 1.0
    yhi = max(ys) * 1.2
    cmds = ["set key top left noenhanced",
            "set xlabel \"read bandwidth achieved by the loaders (GB/s)\"",
            "set ylabel \"chase latency per load (ns)\"",
            "set grid xtics ytics lc rgb \"#dddddd\"",
            "set xrange [0:%g]" % xhi, "set yrange [0:%g]" % yhi]
    plot, placed = [], []
    w, h = SIZES["loaded"]
    for n, (k, pts, name) in enumerate(series):
        dat = os.path.join(tmp, "loaded%d.dat" % k)
        with open(dat, "w") as f:
            for p in pts:
                f.write("%g %g %g %g\n" % (p["bandwidth_gb_s"] or 0, p["p50_ns"],
                                           p.get("p10_ns") or p["p50_ns"], p.get("p90_ns") or p["p50_ns"]))
                # each point's delay beside it, unless it would cover a label already placed
                text = "unloaded" if p.get("delay") is None else "delay %d" % p["delay"]
                x, y = p["bandwidth_gb_s"] or 0, p["p50_ns"]
                right = x > 0.7 * xhi
                bw, bh = (len(text) * 5.5 + 6) / (w - 80), 14.0 / (h - 90)
                x0 = x / xhi - bw if right else x / xhi
                box = (x0, y / yhi, x0 + bw, y / yhi + bh)
                if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
                    continue
                placed.append(box)
                cmds.append("set label %s at first %g, first %g %s font \",8\" tc lt %d noenhanced"
                            % (q(text), x, y, "right offset -0.5,0.5" if right else "left offset 0.5,0.5", n + 1))
        plot.append("%s using 1:2:3:4 with yerrorlines lt %d pt 7 ps 0.6 title %s" % (q(dat), n + 1, q(name)))
    emu = "; emulated: the emulator's figures, not a machine's" if (m.get("method") or {}).get("emulated") else ""
    cmds.append("plot " + ", ".join(plot))
    return cmds, ("loaded latency: chase p50 (p10..p90) against the loaders' read bandwidth\n"
                  "points joined in injection order, labelled with the loaders' delay" + emu)


def c2c(d, tmp):
    path = os.path.join(d, "c2c.json")
    if not os.path.exists(path):
        return None, None
    doc = load(path)
    pairs = doc["c2c"]["pairs"]
    ids = sorted({p["owner_apic_id"] for p in pairs} | {p["reader_apic_id"] for p in pairs})
    if len(ids) < 2:
        return None, None
    ix = {a: i for i, a in enumerate(ids)}
    ns = {(p["owner_apic_id"], p["reader_apic_id"]): p["hitm"]["p50_ns"] for p in pairs
          if p.get("hitm") and p["hitm"].get("p50_ns") is not None}
    dat = os.path.join(tmp, "c2c.dat")
    with open(dat, "w") as f:
        for o in ids:
            for r in ids:
                v = ns.get((o, r))
                if v is not None:
                    f.write("%d %d %g\n" % (ix[r], ix[o], v))
    # The colour says how much slower than the fastest pair: pale at the fastest, dark red at
    # twice it or more, so that pairs a fraction of a percent apart share one colour.
    lo = min(ns.values()) if ns else 0.0
    hi = max(max(ns.values()) if ns else 1.0, 2 * lo, lo + 1e-9)
    tics = ", ".join('"%d" %d' % (a, i) for i, a in enumerate(ids))
    n = len(ids)
    emu = "\nemulated: the emulator's figures, not a machine's" if (doc.get("method") or {}).get("emulated") else ""
    cmds = ["set xlabel \"reader APIC ID\"", "set ylabel \"owner APIC ID\"",
            "set xtics (%s)" % tics, "set ytics (%s)" % tics,
            "set xrange [-0.5:%g]" % (n - 0.5), "set yrange [%g:-0.5]" % (n - 0.5),
            "set cbrange [%g:%g]" % (lo, hi),
            "set cblabel \"HITM p50 (ns): the fastest pair pale, twice it or more dark\" noenhanced",
            "set palette defined (0 \"#ffffcc\", 1 \"#fd8d3c\", 2 \"#800026\")",
            "set style fill solid 1.0 noborder",
            "plot %s using 1:2:(0.5):(0.5):3 with boxxyerror fc palette notitle, "
            "%s using 1:2:(sprintf(\"%%.1f\", $3)) with labels font \"sans,8\" notitle" % (q(dat), q(dat))]
    return cmds, "cache to cache: HITM p50 (ns), owner (rows) -> reader (columns); blank: same CPU" + emu


KINDS = {"latency": latency, "tlb": tlb, "loaded": loaded, "c2c": c2c}


def main(argv):
    if len(argv) != 5 or argv[1] not in KINDS or argv[4] not in ("png", "svg"):
        sys.stderr.write("usage: plot_data.py latency|tlb|loaded|c2c DIR TMP png|svg\n")
        return 2
    kind, d, tmp, fmt = argv[1:]
    cmds, title = KINDS[kind](d, tmp)
    if cmds is None:
        return 0
    if os.environ.get("PLOT_TITLE_ONLY"):
        sys.stderr.write("title: %s\n" % title)
    out = os.path.join(d, "%s.%s" % (FILES[kind], fmt))
    sys.stdout.write("\n".join(terminal(kind, fmt, out) + ["set title %s noenhanced" % q(title)] + cmds) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
