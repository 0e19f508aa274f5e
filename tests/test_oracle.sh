#!/usr/bin/env bash
# The kernels' counts against an oracle that is not pmucal's: each x86-64 kernel (bench/, with
# its pinned flags) runs under valgrind's cachegrind at two lengths, which counts the
# instructions (Ir), conditional branches (Bc) and data reads (Dr) every function executes;
# the difference over the kernel's symbols, divided by the difference in length, is what one
# iteration retires. It must equal what the kernels' headers claim (oracle_kernels --claims:
# BENCH_LOOP_INSNS_PER_ITER, BENCH_PATTERN_INSNS_*_BYTE, BENCH_CHASE_INSNS_PER_ITER ...), the
# numbers the harness's expectations and the virtual PMU's workloads are built from.
# TAP output; valgrind comes from `make deps`.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
B=${B:-build}
py=${PMUCAL_PYTHON:-python3}
TAP_PREFIX="oracle: "
. tests/tap.sh
if ! command -v valgrind >/dev/null; then
        t 1 "valgrind installed (make deps)"
        echo "1..$n"; exit 1
fi
out=$(make -s --no-print-directory B="$B" "$B/host/oracle_kernels" 2>&1)
t $? "build $B/host/oracle_kernels" "$out"
bin=$B/host/oracle_kernels
[ -x "$bin" ] || { echo "1..$n"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The per-function totals of events Ir, Bc, Dr over the symbols in $2 (comma separated).
counts() { # outfile symbols
        "$py" - "$1" "$2" <<'PY'
import sys
path, syms = sys.argv[1], set(sys.argv[2].split(","))
ev, fn, tot = None, None, {}
for line in open(path):
    if line.startswith("events:"):
        ev = line.split()[1:]
    elif line.startswith("fn="):
        fn = line[3:].strip()
    elif fn in syms and line[:1].isdigit():
        v = [int(x) for x in line.split()[1:]]
        for e, x in zip(ev, v):
            tot[e] = tot.get(e, 0) + x
print(tot.get("Ir", 0), tot.get("Bc", 0), tot.get("Dr", 0))
PY
}

# Lengths: two, far enough apart that one iteration's counts are whole numbers.
while read -r name insns branches loads syms; do
        case $name in skid) n1=4 n2=12 ;; *) n1=1000 n2=5000 ;; esac
        ok=1
        for len in $n1 $n2; do
                valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \
                        --cachegrind-out-file="$tmp/$name.$len" "$bin" "$name" "$len" \
                        >"$tmp/$name.$len.log" 2>&1 || ok=0
        done
        if [ $ok = 0 ]; then
                t 1 "$name: valgrind ran" "$(tail -5 "$tmp/$name.$n2.log")"
                continue
        fi
        read -r i1 b1 d1 <<<"$(counts "$tmp/$name.$n1" "$syms")"
        read -r i2 b2 d2 <<<"$(counts "$tmp/$name.$n2" "$syms")"
        d=$((n2 - n1))
        per() { # kind got want
                [ $(($2 % d)) = 0 ] && [ $(($2 / d)) = "$3" ]
                t $? "$name: $1 per iteration: valgrind $2 / $d = $(($2 / d)), header $3"
        }
        per instructions $((i2 - i1)) "$insns"
        per "conditional branches" $((b2 - b1)) "$branches"
        per loads $((d2 - d1)) "$loads"
done < <("$bin" --claims)
echo "1..$n"
