#!/bin/sh
# make plot RESULTS=DIR: draw DIR/latency-curve.csv with the levels, capacities and bucket bounds
# of DIR/latency-table.json into DIR/latency-curve.png (gnuplot, from gnuplot-nox).
set -eu
dir=${1:?usage: tools/plot.sh RESULTS_DIR}
csv=$dir/latency-curve.csv
json=$dir/latency-table.json
png=$dir/latency-curve.png
for f in "$csv" "$json"; do
        [ -r "$f" ] || { echo "plot: $f: not found (run pmucal or pmucal-host first)" >&2; exit 1; }
done
command -v gnuplot >/dev/null || { echo "plot: gnuplot not installed (make deps)" >&2; exit 1; }
marks=$(mktemp)
trap 'rm -f "$marks"' EXIT
python3 - "$json" "$marks" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
lv, b = t["levels"], t["bucket_upper_bounds"]["cycles"]
with open(sys.argv[2], "w") as f:
    for i, l in enumerate(lv):
        p50 = l["cycles"]["p50"]
        f.write('set label "%s %.1f cyc" at first %d, first %g offset 0.5,0.6 tc rgb "#006600" noenhanced\n'
                % (l["name"], p50, l["first_ws_bytes"], p50))
        if l.get("capacity_bytes"):
            c = l["capacity_bytes"]
            f.write('set arrow from first %d, graph 0 to first %d, graph 1 nohead dt 3 lc rgb "#cc0000"\n' % (c, c))
            cp = l.get("cpuid_capacity_bytes")
            extra = " (CPUID %s, %s)" % (cp, l["agreement"]) if cp else ""
            f.write('set label "%s cap %d%s" at first %d, graph 0.97 rotate by 90 right offset -0.7,0 tc rgb "#cc0000" noenhanced\n'
                    % (l["name"], c, extra, c))
    for i, v in enumerate(b):
        f.write('set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lc rgb "#888888"\n' % (v, v))
        f.write('set label "bound %s|%s %.2f" at graph 0.99, first %g right offset 0,0.6 tc rgb "#555555" noenhanced\n'
                % (lv[i]["name"], lv[i + 1]["name"], v, v))
    tics, ws = [], 4096
    while ws <= max(4096, t["method"].get("max_ws_bytes") or 0) * 4:
        for div, u in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
            if ws >= div:
                tics.append('"%d%s" %d' % (ws // div, u, ws)); break
        ws *= 4
    f.write("set xtics (%s)\n" % ", ".join(tics))
    if t.get("flags"):
        f.write('set label "flags: %s" at graph 0.01, graph 0.03 tc rgb "#aa5500" noenhanced\n' % " ".join(t["flags"]))
m = t["machine"]
print("%s family 0x%x model 0x%x, clock %s, %s pages" % (m.get("brand") or m.get("vendor"), m["family"], m["model"],
      t["method"]["clock"], t["method"].get("page_bytes")), file=open(sys.argv[2] + ".title", "w"))
PY
title=$(cat "$marks.title"); rm -f "$marks.title"
gnuplot -e "csv='$csv'; out='$png'; marks='$marks'; title_text='latency curve: $title'" \
        "$(dirname "$0")/latency-curve.gp"
echo "plot: wrote $png"
