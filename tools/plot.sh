#!/bin/sh
# make plot [RESULTS=DIR]: draw DIR/latency-curve.csv with the levels, capacities and bucket
# bounds of DIR/latency-table.json into DIR/latency-curve.png, DIR/tlb-curve.csv into
# DIR/tlb-curve.png, the loaded-latency curves of DIR/numa-matrix.json (latency against the
# bandwidth the loaders achieved, one line per node and one with every node loaded) into
# DIR/loaded-latency.png, and the HITM pair matrix of DIR/c2c.json as a heat map into
# DIR/c2c-heatmap.png (gnuplot, from gnuplot-nox). Without DIR: the newest results folder under
# build/run/results/ (where `make run` puts them). Figures are TSC ticks or ns, as the files say.
set -eu
dir=${1:-}
if [ -z "$dir" ]; then
        dir=$(ls -dt build/run/results/*/ 2>/dev/null | head -1)
        [ -n "$dir" ] || { echo "plot: no results under build/run/results/ (make run first, or RESULTS=DIR)" >&2; exit 1; }
        dir=${dir%/}
        echo "plot: newest results: $dir"
fi
command -v gnuplot >/dev/null || { echo "plot: gnuplot not installed (make deps)" >&2; exit 1; }
here=$(dirname "$0")
drew=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The title's words: brand, family/model by the one rule, page size as a size.
title() { # title JSON WHAT [MACHINE-JSON]
        python3 - "$1" "$2" "${3:-$1}" <<'PY'
import json, os, sys
t = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[3])).get("machine", {}) if os.path.exists(sys.argv[3]) else {}
def size(b):
    if b is None: return "?"
    for d, u in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= d:
            return ("%d %s" % (b // d, u)) if b % d == 0 else ("%.1f %s" % (b / d, u))
    return "%d B" % b
who = m.get("brand") or m.get("vendor") or "?"
if "family" in m:
    who += ", family/model %xh/%xh (%d/%d)" % (m["family"], m["model"], m["family"], m["model"])
meth = t.get("method", {})
cc = meth.get("core_clock") or t.get("clock") or (t.get("tlb") or {}).get("clock") or {}
if "core_source" in cc:
    cc = dict(cc, source=cc["core_source"])
clock = "TSC ticks" + ("; %.3f core cycles per tick (%s)" % (cc["core_per_tsc"], cc["source"])
                       if cc.get("core_per_tsc") else "; core clock unknown")
if sys.argv[2] == "latency":
    print("latency curve: %s; %s pages; %s" % (who, size(meth.get("page_bytes")), clock))
else:
    print("TLB curves: %s; %s" % (who, clock))
PY
}

if [ -r "$dir/latency-curve.csv" ] && [ -r "$dir/latency-table.json" ]; then
        marks=$tmp/marks
        python3 - "$dir/latency-table.json" "$marks" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
lv, bo = t["levels"], t["bucket_upper_bounds"]
b = bo.get("tsc_ticks") or bo["cycles"]
def p50(l): return (l.get("tsc_ticks") or l["cycles"])["p50"]
def size(v):
    for d, u in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if v >= d:
            return ("%d %s" % (v // d, u)) if v % d == 0 else ("%.1f %s" % (v / d, u))
    return "%d B" % v
with open(sys.argv[2], "w") as f:
    for i, l in enumerate(lv):
        f.write('set label "%s %.1f TSC ticks" at first %d, first %g offset 0.5,0.6 tc rgb "#006600" noenhanced\n'
                % (l["name"], p50(l), l["first_ws_bytes"], p50(l)))
        if l.get("capacity_bytes"):
            c = l["capacity_bytes"]
            f.write('set arrow from first %d, graph 0 to first %d, graph 1 nohead dt 3 lc rgb "#cc0000"\n' % (c, c))
            cp = l.get("cpuid_capacity_bytes")
            extra = " (CPUID %s, %s)" % (size(cp), l["agreement"]) if cp else ""
            f.write('set label "%s capacity %s%s" at first %d, graph 0.97 rotate by 90 right offset -0.7,0 tc rgb "#cc0000" noenhanced\n'
                    % (l["name"], size(c), extra, c))
    for i, v in enumerate(b):
        f.write('set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lc rgb "#888888"\n' % (v, v))
        f.write('set label "bound %s|%s %.2f" at graph 0.99, first %g right offset 0,0.6 tc rgb "#555555" noenhanced\n'
                % (lv[i]["name"], lv[i + 1]["name"], v, v))
    tics, ws = [], 4096
    while ws <= max(4096, t["method"].get("max_ws_bytes") or 0) * 4:
        tics.append('"%s" %d' % (size(ws).replace(" ", ""), ws))
        ws *= 4
    f.write("set xtics (%s)\n" % ", ".join(tics))
    if t.get("flags"):
        f.write('set label "flags: %s" at graph 0.01, graph 0.03 tc rgb "#aa5500" noenhanced\n' % " ".join(t["flags"]))
PY
        t=$(title "$dir/latency-table.json" latency)
        [ -z "${PLOT_TITLE_ONLY:-}" ] || echo "title: $t"
        gnuplot -e "csv='$dir/latency-curve.csv'; out='$dir/latency-curve.png'; marks='$marks'; title_text='$t'" \
                "$here/latency-curve.gp"
        echo "plot: wrote $dir/latency-curve.png"
        drew=1
fi

if [ -r "$dir/tlb-curve.csv" ]; then
        # one data file per curve (side, page size, PTE layout), then one line each
        python3 - "$dir/tlb-curve.csv" "$tmp" > "$tmp/series" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
head, rows = rows[0], rows[1:]
ix = {k: i for i, k in enumerate(head)}
for q in ("p10", "p50", "p90"):  # files written before the _mtick names say _mcyc
    ix.setdefault(q + "_mtick", ix.get(q + "_mcyc"))
curves = {}
for r in rows:
    curves.setdefault((r[ix["side"]], int(r[ix["page_bytes"]]), r[ix["pte"]]), []).append(r)
size = lambda b: "1 GiB" if b == 1 << 30 else "2 MiB" if b == 2 << 20 else "%d KiB" % (b // 1024)
for k, (key, pts) in enumerate(sorted(curves.items())):
    with open("%s/tlb%d.dat" % (sys.argv[2], k), "w") as f:
        for r in pts:
            f.write("%s %g %g %g\n" % (r[ix["n_pages"]], int(r[ix["p50_mtick"]]) / 1000,
                                       int(r[ix["p10_mtick"]]) / 1000, int(r[ix["p90_mtick"]]) / 1000))
    print("%s/tlb%d.dat\t%s %s pages, PTE %s" % (sys.argv[2], k, key[0], size(key[1]), key[2]))
PY
        json=$dir/tlb-table.json
        [ -r "$json" ] || json=$dir/latency-table.json
        t=$( [ -r "$json" ] && title "$json" tlb "$dir/latency-table.json" || echo "TLB curves")
        [ -z "${PLOT_TITLE_ONLY:-}" ] || echo "title: $t"
        plot=""
        while IFS="$(printf '\t')" read -r f name; do
                plot="$plot${plot:+, }'$f' using 1:2:3:4 with yerrorlines pt 7 ps 0.4 title '$name'"
        done < "$tmp/series"
        if [ -n "$plot" ]; then
                gnuplot <<GP
set terminal pngcairo size 1100,700 font "sans,10"
set output "$dir/tlb-curve.png"
set title "$t" noenhanced
set key top left noenhanced
set xlabel "pages touched (log scale)"
set ylabel "latency per access (TSC ticks, log scale)"
set logscale x 2
set logscale y 10
set grid xtics ytics lc rgb "#dddddd"
plot $plot
GP
                echo "plot: wrote $dir/tlb-curve.png"
                drew=1
        fi
fi
if [ -r "$dir/numa-matrix.json" ]; then
        # one data file per curve: GB/s, p50, p10, p90 (ns) of each measured point
        python3 - "$dir/numa-matrix.json" "$tmp" > "$tmp/loaded" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k, c in enumerate(d.get("loaded_latency") or []):
    pts = [p for p in c["points"] if p["measured"] and p.get("p50_ns") is not None]
    if not pts:
        continue
    with open("%s/loaded%d.dat" % (sys.argv[2], k), "w") as f:
        for p in pts:
            f.write("%g %g %g %g\n" % (p["bandwidth_gb_s"] or 0, p["p50_ns"], p["p10_ns"], p["p90_ns"]))
    who = "every node loaded" if c["loaded"] != "node" else "node %d loaded" % c["node"]
    print("%s/loaded%d.dat\t%s, chase on APIC ID %d" % (sys.argv[2], k, who, c["chaser_apic_id"]))
PY
        plot=""
        while IFS="$(printf '\t')" read -r f name; do
                plot="$plot${plot:+, }'$f' using 1:2:3:4 with yerrorlines pt 7 ps 0.6 title '$name'"
        done < "$tmp/loaded"
        if [ -n "$plot" ]; then
                emu=$(python3 -c 'import json,sys; print(" (emulated: the emulator'"'"'s figures)" if json.load(open(sys.argv[1]))["method"].get("emulated") else "")' "$dir/numa-matrix.json")
                gnuplot <<GP
set terminal pngcairo size 1000,650 font "sans,10"
set output "$dir/loaded-latency.png"
set title "loaded latency: chase p50 (p10..p90) against the loaders' read bandwidth$emu" noenhanced
set key top left noenhanced
set xlabel "read bandwidth achieved by the loaders (GB/s)"
set ylabel "chase latency per load (ns)"
set grid xtics ytics lc rgb "#dddddd"
set yrange [0:*]
plot $plot
GP
                echo "plot: wrote $dir/loaded-latency.png"
                drew=1
        fi
fi

if [ -r "$dir/c2c.json" ]; then
        # the HITM p50 matrix, owner (rows) x reader (columns), as x y ns triples by index
        python3 - "$dir/c2c.json" "$tmp/c2c.dat" > "$tmp/c2c.tics" <<'PY'
import json, sys
pairs = json.load(open(sys.argv[1]))["c2c"]["pairs"]
ids = sorted({p["owner_apic_id"] for p in pairs} | {p["reader_apic_id"] for p in pairs})
ix = {a: i for i, a in enumerate(ids)}
ns = {(p["owner_apic_id"], p["reader_apic_id"]): p["hitm"]["p50_ns"] for p in pairs
      if p.get("hitm") and p["hitm"].get("p50_ns") is not None}
with open(sys.argv[2], "w") as f:
    for o in ids:
        for r in ids:
            v = ns.get((o, r))
            if v is not None:
                f.write("%d %d %g\n" % (ix[r], ix[o], v))
print(", ".join('"%d" %d' % (a, i) for i, a in enumerate(ids)))
print(len(ids))
PY
        tics=$(sed -n 1p "$tmp/c2c.tics")
        n=$(sed -n 2p "$tmp/c2c.tics")
        if [ "${n:-0}" -ge 2 ]; then
                gnuplot <<GP
set terminal pngcairo size 800,700 font "sans,10"
set output "$dir/c2c-heatmap.png"
set title "cache to cache: HITM p50 (ns), owner (rows) -> reader (columns); blank: same CPU" noenhanced
set xlabel "reader APIC ID"
set ylabel "owner APIC ID"
set xtics ($tics)
set ytics ($tics)
set xrange [-0.5:$n-0.5]
set yrange [$n-0.5:-0.5]
set cblabel "ns"
set palette defined (0 "#ffffcc", 1 "#fd8d3c", 2 "#800026")
set style fill solid 1.0 noborder
plot "$tmp/c2c.dat" using 1:2:(0.5):(0.5):3 with boxxyerror fc palette notitle, \
     "$tmp/c2c.dat" using 1:2:(sprintf("%.1f", \$3)) with labels font "sans,8" notitle
GP
                echo "plot: wrote $dir/c2c-heatmap.png"
                drew=1
        fi
fi
[ "$drew" = 1 ] || { echo "plot: $dir has none of latency-curve.csv + latency-table.json, tlb-curve.csv, numa-matrix.json with curves, c2c.json" >&2; exit 1; }
