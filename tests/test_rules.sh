#!/bin/sh
# The rules libpmucal and the Python reader share exist once, in python/pmucal/rules.json:
# host/libpmucal_rules.h must be what tools/gen_rules.py makes of it, and the public headers'
# constants must say what it says. Planted: a rules.json edited without regenerating fails the
# check, and so does a public constant that disagrees. TAP output.
cd "$(dirname "$0")/.." || exit 1
py=${PMUCAL_PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmucal-rules.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
t() { # NAME WANT_RC COMMAND...: the command exits WANT_RC
        name=$1 want=$2; shift 2
        n=$((n + 1))
        out=$("$@" 2>&1); rc=$?
        if [ "$rc" -eq "$want" ]; then echo "ok $n - $name"; else
                failed=$((failed + 1)); echo "not ok $n - $name (exit $rc, want $want)"
                echo "$out" | sed 's/^/# /'; fi
}
copy() { # a copy of what the generator reads and writes, under $tmp/$1
        mkdir -p "$tmp/$1/tools" "$tmp/$1/python/pmucal" "$tmp/$1/host/include/pmucal"
        cp tools/gen_rules.py "$tmp/$1/tools/"
        cp python/pmucal/rules.json "$tmp/$1/python/pmucal/"
        cp host/libpmucal_rules.h "$tmp/$1/host/"
        cp host/include/pmucal/*.h "$tmp/$1/host/include/pmucal/"
}
t "host/libpmucal_rules.h is generated from python/pmucal/rules.json" 0 "$py" tools/gen_rules.py --check
copy stale
sed -i 's/"no-cpuid"\]/"no-cpuid", "approx"]/' "$tmp/stale/python/pmucal/rules.json"
t "planted: rules.json edited, header not regenerated: check fails" 1 "$py" "$tmp/stale/tools/gen_rules.py" --check
t "planted: after regenerating, the check passes" 0 sh -c "'$py' '$tmp/stale/tools/gen_rules.py' && '$py' '$tmp/stale/tools/gen_rules.py' --check"
copy public
sed -i 's/#define PMUCAL_FIT_SLACK        1.5/#define PMUCAL_FIT_SLACK        1.6/' "$tmp/public/host/include/pmucal/numa.h"
t "planted: a public constant that disagrees with the rules fails the check" 1 "$py" "$tmp/public/tools/gen_rules.py" --check
# the Python reader reads the same file
t "Python reads rules.json: its limits and enums are the rules'" 0 "$py" -c '
import json, sys
sys.path.insert(0, "python")
import pmucal.tlb, pmucal.numa, pmucal.table, pmucal.source
r = json.load(open("python/pmucal/rules.json"))
assert pmucal.tlb.SIDES == tuple(r["enums"]["tlb_side"]["values"])
assert pmucal.numa.SLACK == r["limits"]["fit_slack"]
assert pmucal.table.MAX_LEVELS == r["limits"]["max_levels"]
assert pmucal.source.SOURCES["perf_mem_lvl_num"] == r["data_sources"]["perf_mem_lvl_num"]'
echo "1..$n"
[ "$failed" -eq 0 ]
