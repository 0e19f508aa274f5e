#!/bin/bash
# The profiler examples of the docs: docs/examples/profiler-samples.c, built against an
# installed libpmucal with `pkg-config --cflags --libs pmucal` as docs/libpmucal.md says, and
# docs/examples/profiler_samples.py with the pmucal package, sort the core-cycle samples of
# docs/examples/samples.txt (PEBS perf_mem_data_src values, IBS IbsOpData2/IbsOpData3 pairs in
# both DataSrc layouts) against three tables: a quick-profile QEMU run's
# (tests/data/collector/qemu-smoke, the firmware's estimated core:TSC ratio), a hosted one
# (tests/data/tables/hosted-quick.json, pmucal-host --quick: no DRAM level, no numa section,
# the dependent-add chain's ratio) and a 4-node one (tests/corpus/table/numa-c2c.json: DRAM by
# distance and C2C classes, a counter's ratio of 1.5 at 2 GHz TSC). C and Python must print the
# same lines, bucket for bucket; a few lines are checked against what the mechanism gives (450
# core cycles at 1.5 per 2 GHz tick are 150 ns: the 4-node table's one-hop remote DRAM). TAP
# output; run from the repository root (make test: shell stage).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_PREFIX="examples: "
. "$(dirname "$0")/tap.sh"
py=${PMUCAL_PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
samples=docs/examples/samples.txt
n_samples=$(grep -cvE '^(#|$)' "$samples")

out=$(make -s --no-print-directory install PREFIX="$tmp/prefix" 2>&1); rc=$?
t $rc "make install PREFIX=..." "$out"
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
out=$(cc -std=c11 -Wall -Wextra -Werror docs/examples/profiler-samples.c \
      $(pkg-config --cflags --libs pmucal) -o "$tmp/profiler-samples" 2>&1); rc=$?
t $rc "profiler-samples.c builds with pkg-config --cflags --libs pmucal" "$out"

both() { # both NAME TABLE [ARGS...]: both examples, their outputs and status in $tmp/NAME.{c,py}
        local name=$1 table=$2; shift 2
        env LD_LIBRARY_PATH= "$tmp/profiler-samples" "$table" "$@" "$samples" >"$tmp/$name.c" 2>&1
        echo "exit $?" >>"$tmp/$name.c"
        PYTHONPATH=python "$py" docs/examples/profiler_samples.py "$table" "$@" "$samples" >"$tmp/$name.py" 2>&1
        echo "exit $?" >>"$tmp/$name.py"
}
run() { # run NAME TABLE [ARGS...]: both, and they agree on every sample
        local name=$1 d
        both "$@"
        d=$(diff "$tmp/$name.c" "$tmp/$name.py")
        t "$([ -z "$d" ] && [ "$(grep -c ': source \|: not a sample' "$tmp/$name.c")" -eq "$n_samples" ] &&
             grep -q '^exit 0$' "$tmp/$name.c"; echo $?)" \
          "$name: C and Python print the same line for each of the $n_samples samples and the same counts" \
          "${d:-$(cat "$tmp/$name.c")}"
}
has() { # has NAME LINE-REGEX WHAT
        t "$(grep -qE "$2" "$tmp/$1.c"; echo $?)" "$1: $3" "$(grep -E "${2%%:*}" "$tmp/$1.c" | head -3)"
}

run qemu tests/data/collector/qemu-smoke/latency-table.json
has qemu '^table .*: core:TSC ratio [0-9.]+ \(estimated by dependent-add chain\)$' \
    "the QEMU run's table carries the firmware's estimated core:TSC ratio"
has qemu '^perf 0x2000002042 450: source dram-remote, .*: DRAM-remote-1hop ' \
    "PEBS remote DRAM (REM_RAM1 + remote) goes to the 2-node run's remote DRAM"
run qemu-ghz tests/data/collector/qemu-smoke/latency-table.json --core-ghz 3.0
has qemu-ghz '^table .*: core:TSC ratio [0-9.]+ \(override\)$' "--core-ghz overrides the table's ratio in both"

run hosted tests/data/tables/hosted-quick.json
has hosted '^table .*: core:TSC ratio 1\.5730 \(estimated by dependent-add chain\)$' \
    "the hosted table's ratio is the add chain's estimate (1.573 in the file)"
has hosted '^perf 0x1a00201042 300: source dram-local, 300 core cycles: beyond .*; by latency: beyond$' \
    "DRAM on a table without DRAM level or numa: sorted by latency (the fallback rule), beyond the L3's ceiling"
has hosted '^perf 0x600100842 45: source L3, 45 core cycles: L3 fits ' "an L3 hit of 45 cycles fits its L3"

run 4-node tests/corpus/table/numa-c2c.json
has 4-node '^perf 0x2000002042 450: source dram-remote, 450 core cycles: DRAM-remote-1hop fits .*; by latency: DRAM-remote-1hop$' \
    "450 core cycles (150 ns) of remote DRAM: DRAM-remote-1hop, by source and by latency"
has 4-node '^perf 0x183a00000002 600: source dram-remote, 600 core cycles: DRAM-remote-2hop fits ' \
    "600 core cycles (200 ns) from another socket (mem_hops 3): DRAM-remote-2hop"
has 4-node '^perf 0x2000808042 400: source c2c-remote-hitm, 400 core cycles: c2c-other-package-hitm fits ' \
    "a remote HITM (REM_CCE1 + snoop HITM): the other package's HITM class"
has 4-node '^ibs 0x13 0x1d600100081: source dram-remote, 470 core cycles: DRAM-remote-1hop ' \
    "IBS DataSrc 3 with RmtNode, DcMissLat 470: remote DRAM"
has 4-node '^ibs-zen4 0x22 0x6e00100081: source c2c-local-hit, 110 core cycles: c2c-same-l3-hit ' \
    "IBS Zen 4 DataSrc 2 (near CCX) in O state: a clean cache-to-cache hit"
has 4-node '^perf 0x200100142 300: source L1, 300 core cycles: L1 slower ' \
    "an L1 hit of 300 cycles: slower than its source explains"
has 4-node '^ibs 0x7 0x38400100081: source unknown \(I/O\)$' "IBS DataSrc 7: I/O, no bucket"

# A table that cannot take core cycles is refused before any sample, the same way by both.
no_ratio=$tmp/no-ratio.json
"$py" - tests/data/tables/hosted-quick.json "$no_ratio" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["method"]["core_clock"].pop("estimate", None)
json.dump(t, open(sys.argv[2], "w"))
PY
both no-ratio "$no_ratio"
t "$(grep -q 'no core:TSC ratio for core-cycle samples; give --core-ghz G' "$tmp/no-ratio.c" &&
     grep -q '^exit 1$' "$tmp/no-ratio.c" && cmp -s "$tmp/no-ratio.c" "$tmp/no-ratio.py"; echo $?)" \
  "no ratio: both refuse with the fix (--core-ghz), exit 1" "$(cat "$tmp/no-ratio.c" "$tmp/no-ratio.py")"

echo "1..$n"
[ "$failed" -eq 0 ]
