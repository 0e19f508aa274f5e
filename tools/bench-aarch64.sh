#!/bin/sh
# make bench (aarch64 part): boots build/aarch64/pmucal.efi under qemu-system-aarch64 with
# -icount shift=0 and prints
#   - boot-to-exit wall time of the smoke run (quick profile, 2 CPUs, 2 nodes) and of the
#     validation run (profile = pmu, 1 CPU);
#   - the smoke run at EL1 and at EL2 (-machine virtualization=on: UEFI at EL2, as Arm
#     servers boot) side by side: wall time, checks decided (PASS + FAIL lines), and every
#     measured count of the two;
#   - the validation suite's time as the harness measures it on the generic timer (virtual
#     time under -icount: one instruction per nanosecond, not host time);
#   - counting exactness: the measured value of every counting check over N validation runs
#     (default 10), and whether all runs agree.
# Figures, not a pass/fail test.
# Usage: tools/bench-aarch64.sh [BUILD_DIR] [RUNS]
set -u
b=${1:-build}
runs=${2:-10}
efi="$b/aarch64/pmucal.efi"
[ -f "$efi" ] || { echo "bench-aarch64: $efi not built (make ARCH=aarch64)"; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/bench-aarch64.XXXXXX")
printf 'profile = pmu\n' > "$out/pmu.cfg"

boot() { # name args... -> prints "name: exit rc, N ms wall"; serial log in $out/name.log
        name=$1; shift
        t0=$(date +%s%N)
        ./run-qemu.sh --arch aarch64 --icount --efi "$efi" --quiet --timeout 300 \
                --out "$out/$name" "$@" >"$out/$name.txt" 2>&1
        rc=$?
        t1=$(date +%s%N)
        cp "$out/$name/serial.log" "$out/$name.log" 2>/dev/null
        echo $(( (t1 - t0) / 1000000 )) > "$out/$name.ms"
        echo "bench-aarch64: $name: exit $rc, $(( (t1 - t0) / 1000000 )) ms boot-to-exit wall"
}

boot smoke --cpus 2 --nodes 2 --mem 1024
boot smoke-el2 --cpus 2 --nodes 2 --mem 1024 -- -machine virtualization=on
# EL1 and EL2 side by side: "name=value" of every measured count, checks decided.
counts() { sed -n 's/^[A-Z]*: \(.*\) measured=\([0-9]*\) .*/\1=\2/p' "$1" 2>/dev/null | tr -d '\r'; }
decided() { grep -cE '^(PASS|FAIL): ' "$1" 2>/dev/null; }
printf 'bench-aarch64: smoke at EL1 and EL2 (--icount, 2 CPUs, 2 nodes):\n'
printf 'bench-aarch64:   %-44s %14s %14s\n' "" EL1 EL2 \
        "wall ms (boot to exit)" "$(cat "$out/smoke.ms")" "$(cat "$out/smoke-el2.ms")" \
        "checks decided" "$(decided "$out/smoke.log")" "$(decided "$out/smoke-el2.log")"
counts "$out/smoke.log" > "$out/el1.counts"
counts "$out/smoke-el2.log" > "$out/el2.counts"
while IFS='=' read -r k v; do
        w=$(sed -n "s/^$(printf '%s' "$k" | sed 's/[][\.*^$/]/\\&/g')=//p" "$out/el2.counts" | head -n 1)
        printf 'bench-aarch64:   %-44s %14s %14s%s\n' "${k#pmu: }" "$v" "${w:--}" \
                "$([ "$v" = "$w" ] || echo "  (differs)")"
done < "$out/el1.counts"
boot validation --cpus 1 --nodes 0 --mem 512 --config "$out/pmu.cfg"
sed -n 's/^INFO: pmu: suite took \(.*\)/bench-aarch64: validation suite took \1/p' \
        "$out/validation.log" | head -1
grep -E "^(PASS|FAIL|SKIP): pmu: " "$out/validation.log" |
        awk '{ n[$1]++ } END { printf "bench-aarch64: verdicts:"; for (k in n) printf " %s %d", k, n[k]; print "" }'

# Exactness: the "name measured=N" pairs of every run, one line per run.
: > "$out/measured.txt"
i=1
while [ "$i" -le "$runs" ]; do
        ./run-qemu.sh --arch aarch64 --icount --efi "$efi" --quiet --timeout 300 \
                --out "$out/r$i" --cpus 1 --nodes 0 --mem 512 --config "$out/pmu.cfg" \
                >/dev/null 2>&1
        sed -n 's/^[A-Z]*: pmu: [a-z-]*: \([a-z0-9-]*\) measured=\([0-9]*\) .*/\1=\2/p' \
                "$out/r$i/serial.log" | tr '\n' ' ' >> "$out/measured.txt"
        echo >> "$out/measured.txt"
        i=$((i + 1))
done
distinct=$(sort -u "$out/measured.txt" | wc -l)
echo "bench-aarch64: counting over $runs validation runs: $distinct distinct result line(s)" \
        "($( [ "$distinct" -eq 1 ] && echo "all identical" || echo "runs differ"))"
head -1 "$out/measured.txt" | tr ' ' '\n' | sed '/^$/d; s/^/bench-aarch64:   /'
rm -rf "$out"
