#!/bin/bash
# pmucal-host under an address-space limit (ulimit -v) too small for the sweep buffer it
# plans: the buffer is halved until one can be had, and the run says so and why (a WARN line
# with both sizes and the limit) and flags the table (method.buffer_reduced with the planned
# and used sizes, flag buffer_reduced), instead of a silently shorter sweep whose last level
# reads as if it were the last one there is. Uses the plain build: a sanitized one reserves
# more address space than any limit allows. TAP output. Run from the repository root;
# PMUCAL_HOST_PLAIN names another binary.
set -u
BIN=${PMUCAL_HOST_PLAIN:-build/host/pmucal-host}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
if [ ! -x "$BIN" ]; then
        echo "not ok 1 - $BIN not built (make host)"; echo "1..1"; exit 1
fi
if nm "$BIN" 2>/dev/null | grep -q __asan_init; then
        echo "ok 1 - address-space limit # SKIP $BIN is a sanitized build"; echo "1..1"; exit 0
fi
cpu=$(( $(nproc) > 1 ? 1 : 0 ))
PY=${PMUCAL_PYTHON:-python3}

# 32 MiB planned (--max-mib 32); the limit leaves room for the program and about 20 MiB more:
# the 32 MiB buffer cannot be had, 16 MiB can.
limit=$(( 24 * 1024 ))
out=$( (ulimit -v $limit; "$BIN" --out "$tmp/r" --cpu $cpu --full --reps 11 --max-mib 32) 2>&1); rc=$?
warn=$(grep -E "^WARN: latency: plan: the sweep buffer is 16 MiB, not the 32 MiB planned \(allocation failed under the address-space limit \(ulimit -v\) of " <<<"$out")
t "$([ $rc -eq 0 ] && [ -n "$warn" ]; echo $?)" \
  "ulimit -v $limit KiB: exit $rc, a WARN line gives both sizes and the limit" "$(grep -E 'WARN|ERROR' <<<"$out")"
"$PY" - "$tmp/r/latency-table.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["method"].get("buffer_reduced")
assert d["schema"] == "pmucal.latency-table/1.6", d["schema"]
assert b and b["planned_bytes"] == 32 << 20 and b["bytes"] == 16 << 20, b
assert "ulimit -v" in b["reason"], b
assert "buffer_reduced" in d["flags"], d["flags"]
assert d["method"]["max_ws_bytes"] <= 16 << 20, d["method"]["max_ws_bytes"]
PY
t $? "the table is flagged: method.buffer_reduced (32 MiB planned, 16 MiB used, why) and flag buffer_reduced"

# Without the limit nothing is flagged.
out=$("$BIN" --out "$tmp/u" --cpu $cpu --quick --max-mib 1 2>&1); rc=$?
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit("buffer_reduced" in d["method"] or "buffer_reduced" in d["flags"])' \
        "$tmp/u/latency-table.json"
t "$([ $? -eq 0 ] && [ $rc -eq 0 ] && ! grep -q "sweep buffer is" <<<"$out"; echo $?)" \
  "no limit: no warning, no flag (exit $rc)"
echo "1..$n"
[ "$failed" -eq 0 ]
