#!/usr/bin/env bash
# make plot (tools/plot.sh, tools/plot_data.py): `make plot` right after `make run` draws the
# newest run: the Makefile's default RESULTS is build/run/results/, the folder of runs that
# `make run` fills (each run's folder beside serial.log and run-qemu.log), checked here with a
# copy of a real QEMU run (tests/data/collector/qemu-smoke) in a scratch build folder; drawing
# an older run does not make it the newest. The figures' content is checked from SVG
# (PLOT_FORMAT=svg) by tests/plot_svg.py: labels inside the frame, levels, capacities, bounds
# and TLB entries marked, loaded-latency points joined in injection order with their delays,
# the C2C colour scale, "emulated" where the files say so. Also: the titles, a c2c.json alone,
# a folder without results, an older tlb-curve.csv. TAP output; "ok # SKIP" without gnuplot.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
TAP_PREFIX="plot: "
. "$root/tests/tap.sh"
command -v gnuplot >/dev/null || { echo "ok 1 - plot # SKIP gnuplot not installed"; echo "1..1"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/build/run/results/20260101-000000-01" "$tmp/build/run/results/20260102-000000-01"
new=$tmp/build/run/results/20260102-000000-01
# a small table and curves of this writer's format (4 KiB pages, AMD 19h/11h, no core clock)
python3 - "$new" <<'PY'
import json, sys
d = sys.argv[1]
stat = lambda v: {"min": v, "p10": v, "p50": v, "p90": v, "p50_lo": v, "p50_hi": v}
t = {"schema": "pmucal.latency-table/1.2",
     "machine": {"vendor": "AuthenticAMD", "family": 25, "model": 17, "stepping": 1,
                 "brand": "AMD EPYC", "core_hz": None, "tsc_hz": 2000000000},
     "method": {"page_bytes": 4096, "windows": 11, "clock": "tsc", "max_ws_bytes": 1 << 20,
                "core_clock": {"source": None, "core_per_tsc": None, "reason": "no PMU"}},
     "levels": [{"name": "L1", "capacity_bytes": 32768, "cpuid_capacity_bytes": 32768,
                 "agreement": "agrees", "first_ws_bytes": 4096, "tsc_ticks": stat(3.0),
                 "cycles": stat(3.0)},
                {"name": "L2", "capacity_bytes": None, "cpuid_capacity_bytes": None,
                 "agreement": "no-cpuid", "first_ws_bytes": 65536, "tsc_ticks": stat(10.0),
                 "cycles": stat(10.0)}],
     "bucket_upper_bounds": {"tsc_ticks": [5.0], "cycles": [5.0]}, "flags": ["no_core_hz"]}
json.dump(t, open(d + "/latency-table.json", "w"))
with open(d + "/latency-curve.csv", "w") as f:
    f.write("ws_bytes,n_windows,n_disturbed,min_mtick,p10_mtick,p50_mtick,p90_mtick\n")
    ws = 4096
    while ws <= 1 << 20:
        v = 3000 if ws <= 32768 else 10000
        f.write("%d,11,0,%d,%d,%d,%d\n" % (ws, v, v, v, v))
        ws *= 2
with open(d + "/tlb-curve.csv", "w") as f:
    f.write("side,page_bytes,pte,n_pages,n_windows,min_mtick,p10_mtick,p50_mtick,p90_mtick,ctl_p50_mtick\n")
    for pb in (4096, 2 << 20):
        for n in (4, 8, 16, 32, 64, 128):
            v = 3000 if n <= 64 else 9000
            f.write("dtlb,%d,near,%d,11,%d,%d,%d,%d,0\n" % (pb, n, v, v, v, v))
PY
# the NUMA phase's loaded-latency curves (two nodes and every node) and a C2C pair matrix
python3 - "$new" <<'PY'
import json, sys
d = sys.argv[1]
def curve(kind, node, apic, base):
    pts = [{"delay": None, "n_loaders": 0, "measured": True, "bandwidth_gb_s": 0.0,
            "p10_ns": base - 2, "p50_ns": base, "p90_ns": base + 3}]
    # saturated at delay 0: less bandwidth than at delay 8, so the line turns back
    for i, (delay, gb) in enumerate(((2048, 0.5), (512, 2.0), (128, 8.0), (32, 20.0), (8, 35.0), (0, 30.0))):
        p50 = base + gb * gb / 10 + (60 if delay == 0 else 0)
        pts.append({"delay": delay, "n_loaders": 3, "measured": i != 2, "bandwidth_gb_s": gb,
                    "p10_ns": p50 - 3, "p50_ns": p50, "p90_ns": p50 + 8})
    # the file's order is not the injection order: the plot sorts by the delay
    pts = [pts[6], pts[1], pts[0], pts[4], pts[2], pts[5], pts[3]]
    return {"loaded": kind, "node": node, "chaser_apic_id": apic, "points": pts}
json.dump({"schema": "pmucal.numa/1.1", "method": {"emulated": False},
           "loaded_latency": [curve("node", 0, 0, 90.0), curve("node", 1, 4, 95.0),
                              curve("all", None, 0, 110.0)]},
          open(d + "/numa-matrix.json", "w"))
pairs = []
for o in (0, 2, 4):
    for r in (0, 2, 4):
        if o != r:
            ns = 20.0 if abs(o - r) == 2 else 110.0
            f = {"p10_ns": ns - 1, "p50_ns": ns, "p90_ns": ns + 2}
            pairs.append({"owner_apic_id": o, "reader_apic_id": r, "hit": f, "hitm": f, "write": f})
json.dump({"schema": "pmucal.c2c/1.1", "c2c": {"classes": [], "pairs": pairs}},
          open(d + "/c2c.json", "w"))
# the TLB levels of the 4 KiB curve: 64 entries, then walks
json.dump({"schema": "pmucal.tlb/1.2", "units": "mcyc",
           "clock": {"figures": "tsc_ticks", "tsc_hz": 2000000000, "core_hz": None, "core_per_tsc": None,
                     "core_source": None, "reason": "no PMU"},
           "curves": [{"side": "dtlb", "page_bytes": 4096, "pte": "near", "flags": [],
                       "levels": [{"level": 1, "entries": 64, "next_pages": 128, "cpuid_entries": 64,
                                   "cpuid_source": "0x80000005", "verdict": "agree"}], "classes": []},
                      {"side": "dtlb", "page_bytes": 2 << 20, "pte": "near", "flags": [], "levels": [],
                       "classes": []}]},
          open(d + "/tlb-table.json", "w"))
PY
touch -d '2026-01-01' "$tmp/build/run/results/20260101-000000-01"
out=$(cd "$tmp" && bash "$root/tools/plot.sh" 2>&1)
t $? "no RESULTS: exit 0 ($(echo "$out" | head -1))"
t "$([ -s "$new/latency-curve.png" ] && [ -s "$new/tlb-curve.png" ] && echo 0 || echo 1)" \
  "the newest folder got latency-curve.png and tlb-curve.png"
t "$([ -s "$new/loaded-latency.png" ] && [ -s "$new/c2c-heatmap.png" ] && echo 0 || echo 1)" \
  "the newest folder got loaded-latency.png and c2c-heatmap.png"
png() { [ "$(head -c 4 "$1" | tail -c 3)" = PNG ]; }
t "$(png "$new/loaded-latency.png" && png "$new/c2c-heatmap.png" && echo 0 || echo 1)" \
  "both are PNG images"
# C2C alone (pmucal-host --c2c's folder) is enough to draw; a NUMA file without curves
# (one CPU) draws nothing
only=$tmp/c2c-only
mkdir -p "$only" && cp "$new/c2c.json" "$only/"
(cd "$tmp" && bash "$root/tools/plot.sh" "$only" >/dev/null 2>&1)
t "$([ $? -eq 0 ] && [ -s "$only/c2c-heatmap.png" ] && echo 0 || echo 1)" "a c2c.json alone gives the heat map"
none=$tmp/numa-flat
mkdir -p "$none" && echo '{"schema": "pmucal.numa/1.0", "method": {}, "loaded_latency": []}' > "$none/numa-matrix.json"
(cd "$tmp" && bash "$root/tools/plot.sh" "$none" >/dev/null 2>&1)
t "$([ $? -ne 0 ] && [ ! -e "$none/loaded-latency.png" ] && echo 0 || echo 1)" \
  "numa-matrix.json without curves draws nothing (an error)"
t "$(echo "$out" | grep -q "newest results: build/run/results/20260102-000000-01" && echo 0 || echo 1)" \
  "says which folder it drew"
title=$(cd "$tmp" && PLOT_TITLE_ONLY=1 bash "$root/tools/plot.sh" "$new" 2>&1 | grep '^title: ' | sed 's/^title: //' | tr '\n' '|')
t "$(echo "$title" | grep -q "4 KiB pages" && echo "$title" | grep -q "19h/11h (25/17)" &&
     ! echo "$title" | grep -q "4096 pages" && echo 0 || echo 1)" "titles: $title"
(cd "$tmp" && bash "$root/tools/plot.sh" "$tmp/build/run/results/20260101-000000-01" >/dev/null 2>&1)
t "$([ $? -ne 0 ] && echo 0 || echo 1)" "a folder without results is an error"
# a tlb-curve.csv written before the _mtick column names (_mcyc, the same TSC milli-ticks)
old=$tmp/tlb-mcyc
mkdir -p "$old" && sed '1s/_mtick/_mcyc/g' "$new/tlb-curve.csv" > "$old/tlb-curve.csv"
(cd "$tmp" && bash "$root/tools/plot.sh" "$old" >/dev/null 2>&1)
t "$([ $? -eq 0 ] && head -1 "$old/tlb-curve.csv" | grep -q p50_mcyc && png "$old/tlb-curve.png" &&
     echo 0 || echo 1)" "a tlb-curve.csv with the older _mcyc column names is drawn too"

# `make plot` right after `make run`: the Makefile's default folder is build/run/results/, where
# make run copies each run's folder beside serial.log and run-qemu.log. The newest run is a real
# QEMU run's folder; the older one the small fixture above.
mk=$tmp/mk
runs=$mk/build/run/results
qrun=$runs/20261128-072222-01
old_run=$runs/20261128-060000-01
mkdir -p "$qrun" "$old_run"
cp "$root"/tests/data/collector/qemu-smoke/* "$qrun/"
cp "$new"/*.json "$new"/*.csv "$old_run/"
touch -d '2026-11-28 06:00' "$old_run"/*
echo "serial" > "$runs/serial.log"; echo "log" > "$runs/run-qemu.log"
mkplot() { make -s --no-print-directory -C "$root" plot B="$mk/build" PLOT_FORMAT=svg "$@" 2>&1; }
out=$(mkplot); rc=$?
t "$([ $rc -eq 0 ] && grep -q "newest results: $qrun" <<<"$out" && [ -s "$qrun/latency-curve.svg" ] &&
     [ ! -e "$old_run/latency-curve.svg" ] && echo 0 || echo 1)" \
  "make plot with the default RESULTS draws the newest run in build/run/results/ ($(head -1 <<<"$out"))"
svg() { # svg RUN LABEL: tests/plot_svg.py's checks as TAP lines
        local line
        while IFS= read -r line; do
                case $line in
                "ok - "*)     t 0 "$2: ${line#ok - }" ;;
                "not ok - "*) t 1 "$2: ${line#not ok - }" ;;
                *)            echo "$line" ;;
                esac
        done < <(python3 "$root/tests/plot_svg.py" "$1")
}
svg "$qrun" "QEMU run"
out=$(mkplot RESULTS="$old_run"); rc=$?
t "$([ $rc -eq 0 ] && [ -s "$old_run/loaded-latency.svg" ] && echo 0 || echo 1)" "make plot RESULTS=RUN draws that run"
svg "$old_run" "fixture"
out=$(mkplot)
t "$(grep -q "newest results: $qrun" <<<"$out" && echo 0 || echo 1)" \
  "drawing an older run does not make it the newest ($(head -1 <<<"$out"))"
echo "1..$n"
