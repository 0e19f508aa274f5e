#!/bin/sh
# make plot [RESULTS=DIR] [PLOT_FORMAT=svg]: draw a results folder's figures with gnuplot
# (gnuplot-nox): latency-curve.csv with the levels, capacities and bucket bounds of
# latency-table.json into latency-curve.png; tlb-curve.csv with the TLB levels and their entries
# into tlb-curve.png; the loaded-latency curves of numa-matrix.json (latency against the
# bandwidth the loaders achieved, points joined in injection order and labelled with the
# loaders' delay) into loaded-latency.png; the HITM pair matrix of c2c.json as a heat map into
# c2c-heatmap.png. tools/plot_data.py writes the gnuplot scripts.
#
# DIR is a results folder, or a folder of them: `make run` copies each run's folder into
# build/run/results/ beside its serial.log, and without DIR (or with that folder) the newest run
# in it is drawn: the one whose results files were written last (drawing a figure into an older
# folder does not make it the newest). Figures are TSC ticks or ns, as the files say.
set -eu
here=$(dirname "$0")
fmt=${PLOT_FORMAT:-png}
case $fmt in png|svg) ;; *) echo "plot: PLOT_FORMAT is png or svg, not '$fmt'" >&2; exit 1 ;; esac
dir=${1:-build/run/results}
dir=${dir%/}
[ -d "$dir" ] || { echo "plot: no folder $dir (make run first, or RESULTS=DIR)" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "plot: gnuplot not installed (make deps)" >&2; exit 1; }

has_results() {
        [ -r "$1/latency-curve.csv" ] || [ -r "$1/tlb-curve.csv" ] || [ -r "$1/numa-matrix.json" ] ||
                [ -r "$1/c2c.json" ]
}
if ! has_results "$dir"; then
        # a folder of runs: the newest run by the time its data files were written
        run=$(python3 - "$dir" <<'PY'
import os, sys
top, best = sys.argv[1], None
for e in os.scandir(top):
    if not e.is_dir():
        continue
    data = [f for f in os.scandir(e.path) if f.is_file() and f.name.endswith((".json", ".csv"))]
    if not any(f.name in ("latency-curve.csv", "tlb-curve.csv", "numa-matrix.json", "c2c.json")
               for f in data):
        continue
    key = (max(f.stat().st_mtime for f in data), e.name)
    if best is None or key > best[0]:
        best = (key, e.path)
print(best[1] if best else "")
PY
)
        [ -n "$run" ] || { echo "plot: no results in $dir or in a folder under it (make run first, or RESULTS=DIR)" >&2; exit 1; }
        dir=$run
        echo "plot: newest results: $dir"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
drew=0
for kind in latency tlb loaded c2c; do
        python3 "$here/plot_data.py" "$kind" "$dir" "$tmp" "$fmt" > "$tmp/$kind.gp"
        [ -s "$tmp/$kind.gp" ] || continue
        gnuplot "$tmp/$kind.gp"
        out=$(sed -n 's/^set output "\(.*\)"$/\1/p' "$tmp/$kind.gp")
        echo "plot: wrote $out"
        drew=1
done
[ "$drew" = 1 ] || { echo "plot: $dir has none of latency-curve.csv + latency-table.json, tlb-curve.csv, numa-matrix.json with curves, c2c.json" >&2; exit 1; }
