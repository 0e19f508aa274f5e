#!/bin/sh
# make bench-sampling (part of make bench): figures, not a pass/fail test.
#   - samples per second the harness can decode, per mechanism: host microbenchmark of the
#     IBS op/fetch, PEBS (format 3 and adaptive) and LBR decoders over synthetic records
#     (build/host/bench_sampling). Taking samples needs IBS/PEBS/LBR and a PMI, which this
#     machine (a KVM guest without a PMU; QEMU TCG for the firmware) does not have;
#   - the interrupt cost per sample: only on hardware. Give a results folder from a real run
#     (SAMPLING_RESULTS=DIR) and its sampling-validation.json figures are printed.
# Usage: tools/bench-sampling.sh [BENCH_SAMPLING_BIN] [N records]
set -u
bin=${1:-build/host/bench_sampling}
n=${2:-${BENCH_SAMPLING_N:-1000000}}
[ -x "$bin" ] || { echo "bench-sampling: $bin not built (make B=... $bin)"; exit 1; }
echo "bench-sampling: decode rate, $n synthetic records per mechanism (host, $(uname -m))"
"$bin" "$n"
res=${SAMPLING_RESULTS:-}
if [ -n "$res" ] && [ -f "$res/sampling-validation.json" ]; then
        echo "bench-sampling: figures from $res/sampling-validation.json:"
        python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
for f in v.get("figures", []):
    print("  %-10s %-28s %12d %s" % (f["mechanism"], f["name"], f["value"], f["unit"]))
if not v.get("figures"):
    print("  (none: every mechanism was skipped on that machine)")' "$res/sampling-validation.json"
else
        echo "bench-sampling: interrupt cost per sample: not measurable here (no IBS, PEBS or"
        echo "  LBR, and no PMI under QEMU TCG). On hardware the sampling phase prints"
        echo "  'INFO: sampling: lbr: interrupt cost per sample' and saves it in"
        echo "  sampling-validation.json; run SAMPLING_RESULTS=DIR make bench-sampling to show it."
fi
