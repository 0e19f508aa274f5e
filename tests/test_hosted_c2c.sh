#!/bin/sh
# Hosted cache-to-cache run on this machine (part of `make test`): pmucal-host --c2c between
# every ordered pair of the CPUs it may use, then
#   1. c2c.json is valid JSON of schema pmucal.c2c/1 with n*(n-1) pairs, each with hit,
#      hitm, write, atomic and pingpong figures, p10 <= p50 <= p90 and every figure a real
#      latency (0.5 ns .. 10 us: above an L1 hit, below anything that is not a cache
#      transfer), taken in 3 passes; a kind whose every window was left out says why
#      (not concurrent, or faster than the reader's own hit); no kept figure of a class that
#      shares no L2 is below the reader's own hit (floor_tsc); each pair names the prefetcher
#      setting it was taken with; each class has its passes' medians and their spread;
#   2. the per-class table covers every pair, and c2c.json validates against docs/schemas/;
#   3. usage errors: no --out, --rounds out of range -> exit 2;
#   4. pmucal-host --quick --with-c2c: latency-table.json (1.3) carries a "c2c" section whose
#      classes cover every measured ordered pair and whose HITM matrix has one figure per
#      ordered pair, null on the diagonal; it validates, and libpmucal reads it back.
# TAP output; a machine with one CPU gives one "ok # SKIP" line.
set -u
bin=${1:-build/host/pmucal-host}
n=0 fail=0
skip() { echo "ok 1 - hosted c2c # SKIP $1"; echo "1..1"; exit 0; }
[ -x "$bin" ] || skip "$bin not built (make host)"
[ "$(nproc)" -ge 2 ] || skip "one CPU"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - hosted c2c: $2"; else echo "not ok $n - hosted c2c: $2"; fail=1; fi
}

"$bin" --c2c --out "$tmp" --rounds 101 >"$tmp/log" 2>&1
check $? "pmucal-host --c2c exits 0"
python3 - "$tmp/c2c.json" "$(nproc)" >"$tmp/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["schema"] == "pmucal.c2c/1.3", d["schema"]
m = d["method"]
assert m["passes"] == 3 and m["floor"] in ("own L2 hit", "own L1 hit"), m
pairs = d["c2c"]["pairs"]
assert len(pairs) == n * (n - 1), (len(pairs), n)
kinds = ("hit", "hitm", "write", "atomic", "pingpong")
kept = left = 0
for p in pairs:
    assert p["owner_cpu"] != p["reader_cpu"]
    assert p["prefetchers"] in ("off", "on", "unsupported", "failed", "mixed"), p
    assert p["floor_tsc"] and p["floor_tsc"] > 0, p
    shares_l2 = p["topology"] in ("smt", "same-module", "same-cluster")
    for k in kinds:
        f = p[k]
        assert f["n_rounds"] == 3 * 34, (k, f)
        out = f["n_not_concurrent"] + f["n_below_floor"]
        left += out
        if f["p50_tsc"] is None:
            assert out == f["n_rounds"], (k, f)   # nothing kept: every window accounted for
            continue
        kept += 1
        assert f["p10_tsc"] <= f["p50_tsc"] <= f["p90_tsc"], (k, f)
        assert 0.5 <= f["p50_ns"] <= 10000, (k, f)
        assert shares_l2 or f["p10_tsc"] >= p["floor_tsc"], ("below the floor", k, f, p["floor_tsc"])
        assert 1 <= len(f["passes_p50_tsc"]) <= 3, f
print("pairs ok: %d figures kept, %d windows left out" % (kept, left))
covered = sum(c["n_pairs"] for c in d["c2c"]["classes"] if c["kind"] == "hitm")
known = sum(1 for p in pairs if p["topology"] is not None and p["hitm"]["p50_tsc"] is not None)
assert covered == known, (covered, known)
for c in d["c2c"]["classes"]:
    ps = [x for x in c["passes_p50_tsc"] if x is not None]
    assert ps and abs(c["spread_tsc"] - (max(ps) - min(ps))) < 0.002, c
assert {c["kind"] for c in d["c2c"]["classes"]} <= set(kinds)
print("classes ok")
PY
check $? "c2c.json: every ordered pair and kind (ping-pong too), real latencies, nothing below the reader's own hit, passes and spread ($(tr '\n' ' ' <"$tmp/py"))"
errs=$("${PMUCAL_PYTHON:-python3}" tests/check_schemas.py "$tmp/c2c.json" 2>&1)
check $? "c2c.json validates against docs/schemas/c2c.schema.json${errs:+ ($errs)}"
grep -q 'owner (rows)' "$tmp/log"
check $? "console shows the class table and the HITM matrix"
"$bin" --c2c --out >/dev/null 2>&1
[ $? -eq 2 ]; check $? "--c2c --out without a folder is a usage error (exit 2)"
"$bin" --c2c --out "$tmp" --rounds 5 >/dev/null 2>&1
[ $? -eq 2 ]; check $? "--rounds 5 is a usage error (exit 2)"
mkdir -p "$tmp/t"
"$bin" --quick --out "$tmp/t" --with-c2c >"$tmp/tlog" 2>&1
check $? "pmucal-host --quick --with-c2c exits 0"
python3 - "$tmp/t/latency-table.json" "$(nproc)" >"$tmp/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["schema"] == "pmucal.latency-table/1.6", d["schema"]
c = d["c2c"]
# the firmware's c2c phase: on x86 each processor's own CPUID places it
assert c["method"]["n_cpus"] == n and c["method"]["topology_source"] == "each CPU's own CPUID", c["method"]
assert len(c["cpus"]) == n, c["cpus"]
m = c["matrix_p50_tsc"]["hitm"]
cells = [m[i][j] for i in range(n) for j in range(n) if i != j]
assert all(v is not None and v > 0 for v in cells), m
assert all(m[i][i] is None for i in range(n)), m
pooled = sum(k["n_pairs"] for k in c["classes"] if k["kind"] == "hitm")
known = sum(1 for i in range(n) for j in range(n) if c["pair_topology"][i][j] is not None)
assert pooled == known, (pooled, known)
for k in c["classes"]:
    s = k["ns"]
    assert s["min"] <= s["p10"] <= s["p50"] <= s["p90"], k
print("c2c section ok: %d cpus, %d classes" % (n, len(c["classes"])))
PY
check $? "latency-table.json has the c2c section ($(tr '\n' ' ' <"$tmp/py"))"
errs=$("${PMUCAL_PYTHON:-python3}" tests/check_schemas.py "$tmp/t/latency-table.json" 2>&1)
check $? "the 1.3 table validates against docs/schemas/latency-table.schema.json${errs:+ ($errs)}"
echo "1..$n"
exit $fail
