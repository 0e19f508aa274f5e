#!/bin/sh
# make bench (PMU part): boots the harness with `profile = pmu` under QEMU and prints, from the
# serial log, the wall time of the full counting validation suite, of one overflow-sampling
# run, and the PMI round-trip cost. Figures, not a pass/fail test. Under TCG there is no PMU:
# the suite only SKIPs (its time is the cost of detecting that), no PMI can be raised, so the
# PMI round trip is not measurable; the self-NMI round trip through the same LVT/IDT route is
# printed instead and is an emulator figure, not a hardware one.
# Usage: tools/bench-pmu.sh [BUILD_DIR]
set -u
b=${1:-build}
efi="$b/pmucal.efi"
[ -f "$efi" ] || { echo "bench-pmu: $efi not built (make B=$b all)"; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/bench-pmu.XXXXXX")
cfg="$out/pmu.cfg"
printf 'profile = pmu\n' > "$cfg"
t0=$(date +%s%N)
./run-qemu.sh --efi "$efi" --quiet --timeout 300 --cpus 2 --nodes 1 --config "$cfg" --out "$out" \
        >"$out/run.txt" 2>&1
rc=$?
t1=$(date +%s%N)
log="$out/serial.log"
[ -f "$log" ] || { echo "bench-pmu: no serial log (run-qemu exit $rc)"; cat "$out/run.txt"; exit 1; }
echo "bench-pmu: QEMU boot with profile = pmu: exit $rc, $(( (t1 - t0) / 1000000 )) ms wall"
grep -m1 "^INFO: pmu: caps: " "$log" | sed 's/^INFO: pmu: /bench-pmu: /'
suite=$(sed -n 's/^INFO: pmu: suite took \([0-9]*\) ms.*/\1/p' "$log" | head -1)
samp=$(sed -n 's/^INFO: pmu: sampling took \([0-9]*\) ms.*/\1/p' "$log" | head -1)
echo "bench-pmu: full validation suite: ${suite:-?} ms"
echo "bench-pmu: one overflow-sampling run (route self-test, skid run, top-functions run): ${samp:-?} ms"
grep -E "^INFO: pmu: (PMI round trip|self-NMI round trip)" "$log" | sed 's/^INFO: pmu: /bench-pmu: /'
grep -E "^(PASS|FAIL|SKIP): pmu: " "$log" | awk '{ n[$1]++ } END { printf "bench-pmu: verdicts:"; for (k in n) printf " %s %d", k, n[k]; print "" }'
rm -rf "$out"
