#!/bin/sh
# make bench-tlb: TLB calibration figures, not a pass/fail test.
#   - wall time of the hosted dTLB calibration (pmucal-host --tlb), quick and full;
#   - repeatability over two full hosted runs: L1 entries per page size, and the added
#     latency of each class (|a - b| / mean);
#   - the firmware's quick TLB phase under QEMU TCG, from the serial log ("TLB calibration
#     took N ms"), when B/pmucal.efi and QEMU are there.
# Usage: tools/bench-tlb.sh [BUILD_DIR]
set -u
B=${1:-build}
bin=$B/host/pmucal-host
[ -x "$bin" ] || { echo "bench-tlb: $bin not built (make host)"; exit 1; }
out=${BENCH_OUT:-$B/bench-tlb}
cpu=${PMUCAL_CPU:-$(( $(nproc) > 1 ? 1 : 0 ))}
mkdir -p "$out"
ms() { echo $(( ($2 - $1) / 1000000 )); }

t0=$(date +%s%N)
"$bin" --tlb --quick --cpu "$cpu" --out "$out/quick" >"$out/quick.txt" 2>&1 || { mkdir -p "$out/quick"; "$bin" --tlb --quick --cpu "$cpu" --out "$out/quick" >"$out/quick.txt" 2>&1; }
t1=$(date +%s%N)
echo "bench-tlb: hosted quick dTLB calibration: $(ms "$t0" "$t1") ms (CPU $cpu)"
for r in a b; do
        mkdir -p "$out/$r"
        t0=$(date +%s%N)
        "$bin" --tlb --full --cpu "$cpu" --out "$out/$r" >"$out/$r.txt" 2>&1 ||
                { echo "bench-tlb: full run $r failed:"; tail -5 "$out/$r.txt"; exit 1; }
        t1=$(date +%s%N)
        echo "bench-tlb: hosted full dTLB calibration, run $r: $(ms "$t0" "$t1") ms"
done
python3 - "$out/a/tlb-table.json" "$out/b/tlb-table.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def key(c): return (c["side"], c["page_bytes"], c["pte"])
cb = {key(c): c for c in b["curves"]}
for c in a["curves"]:
    d = cb.get(key(c))
    name = "%s %s %s" % (c["side"], {4096: "4 KiB", 2 << 20: "2 MiB", 1 << 30: "1 GiB"}[c["page_bytes"]], c["pte"])
    if not d:
        print("bench-tlb: %s: only in run a" % name); continue
    ea = [l["entries"] for l in c["levels"]]; eb = [l["entries"] for l in d["levels"]]
    print("bench-tlb: %s: entries a %s b %s (CPUID %s)" % (name, ea, eb, [l["cpuid_entries"] for l in c["levels"]]))
    for x, y in zip(c["classes"], d["classes"]):
        xa, ya = x["added_tsc_ticks"], y["added_tsc_ticks"]
        m = (xa + ya) / 2
        rel = abs(xa - ya) / m * 100 if m else 0
        print("bench-tlb:   %-7s added %7.2f / %7.2f TSC ticks (%5.1f %%)" % (x["class"], xa, ya, rel))
    if len(c["classes"]) != len(d["classes"]):
        print("bench-tlb:   classes differ: %d vs %d" % (len(c["classes"]), len(d["classes"])))
PY
if [ -f "$B/pmucal.efi" ] && command -v qemu-system-x86_64 >/dev/null; then
        ./run-qemu.sh --efi "$B/pmucal.efi" --cpus 1 --nodes 0 --quiet --timeout 120 \
                --out "$out/qemu" >"$out/qemu.txt" 2>&1
        line=$(grep -h "TLB calibration took" "$out/qemu/serial.log" 2>/dev/null | tr -d '\r')
        echo "bench-tlb: QEMU TCG quick TLB phase: ${line:-not found (see $out/qemu.txt)}"
fi
