#!/bin/bash
# CLI tests for build/host/pmucal-table: good and bad tables, exit codes (0 ok, 1 bad table or
# no match, 2 usage) and messages. Prints one TAP line per case. Run from the repository root.
set -u
BIN=${PMUCAL_TABLE:-build/host/pmucal-table}
CORPUS=tests/corpus/table
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

if [ ! -x "$BIN" ]; then
        make -s "$BIN" >"$tmp/build.log" 2>&1
fi
if [ ! -x "$BIN" ]; then
        echo "not ok 1 - build $BIN"; sed 's/^/# /' "$tmp/build.log"; exit 1
fi

# case NAME WANT_RC WANT ARGS... : run, check the exit code and that stdout+stderr match the
# extended regex WANT (per line), or equal the text after '=' when WANT starts with '='.
case_() {
        local name=$1 want_rc=$2 want_re=$3 rc out
        shift 3
        n=$((n + 1))
        out=$("$BIN" "$@" 2>&1); rc=$?
        if [ "$rc" -eq "$want_rc" ] && { { [ "${want_re:0:1}" = "=" ] && [ "$out" = "${want_re:1}" ]; } ||
                                         { [ "${want_re:0:1}" != "=" ] && grep -qE -- "$want_re" <<<"$out"; }; }; then
                echo "ok $n - $name"
        else
                failed=$((failed + 1))
                echo "not ok $n - $name (exit $rc, want $want_rc; output does not match /$want_re/)"
                sed 's/^/# /' <<<"$out"
        fi
}

good=$CORPUS/zen4-kvm.json
head -c 700 "$good" >"$tmp/trunc.json"
sed 's/"family": 25/"family": "25"/' "$good" >"$tmp/wrongtype.json"
sed 's/"p50": 9.869,//' "$good" >"$tmp/missing.json"
printf '\x00\x01garbage' >"$tmp/binary.json"
mkdir -p "$tmp/dir/sub" "$tmp/empty"
cp "$good" "$tmp/dir/sub/latency-table.json"
sed 's/"model": 17/"model": 999/' "$good" >"$tmp/dir/other-model.json"
cp "$tmp/trunc.json" "$tmp/dir/broken.json"

case_ "check a good table"            0 "ok, pmucal.latency-table/1, 4 levels: L1 L2 L3 DRAM" check "$good"
case_ "check a flat (TCG) table"      0 "1 level: flat"                check $CORPUS/flat-tcg.json
case_ "check accepts unknown fields"  0 "latency-table/1.1"            check $CORPUS/with-tlb.json
case_ "check truncated: file:line:col" 1 "trunc.json:[0-9]+:[0-9]+: "  check "$tmp/trunc.json"
case_ "check wrong version"           1 "major version 2 is not supported \(this library reads 1\)" check $CORPUS/version2.json
case_ "check wrong type names path"   1 "wrongtype.json: machine.family: expected an integer, got a string" check "$tmp/wrongtype.json"
case_ "check missing field names path" 1 "missing.json: levels\[1\].cycles.p50: missing" check "$tmp/missing.json"
case_ "check binary garbage"          1 "binary.json:1:"               check "$tmp/binary.json"
case_ "check missing file"            1 "nonexistent.json: cannot open" check "$tmp/nonexistent.json"
case_ "show a good table"             0 "level L3 .*CPUID L3 33554432 B, smaller" show "$good"
case_ "show prints flags"             0 "flags: +cpuid_differs"        show "$good"
case_ "show a bad table"              1 "trunc.json:"                  show "$tmp/trunc.json"
case_ "classify cycles"               0 $'=2.8 L1\n15 L2\n37 L3\n1000 DRAM' classify "$good" 2.8 15 37 1000
case_ "classify on a bound is inclusive" 0 "^5.306 L1$"                classify "$good" 5.306
case_ "classify ns"                   0 $'=1ns L1\n60ns DRAM'         classify "$good" 1ns 60ns
case_ "classify ns without core clock" 1 "no ns figures"               classify $CORPUS/flat-tcg.json 5ns
numa=$CORPUS/numa-c2c.json
sed 's/"n_nodes": 4/"n_nodes": 5/' "$numa" >"$tmp/numa-rows.json"
case_ "show prints the NUMA matrix"   0 "^ +2 +228\.8 +224\.4 +100\.0 +154\.5$" show "$numa"
case_ "show prints the DRAM levels"   0 "level DRAM-remote-2hop +SLIT 22, 8 cell\(s\)" show "$numa"
case_ "show prints the C2C classes"   0 "c2c other-package hitm +4 pair\(s\) tsc p50 353\.000" show "$numa"
case_ "show a bad numa section names its path" 1 "numa-rows.json: numa: matrix: 4 rows for 5 nodes" show "$tmp/numa-rows.json"
case_ "classify-source remote DRAM"   0 $'=150ns DRAM-remote-1hop fits (96.900..471.015 ns, p50 153.000)\n30ns DRAM-remote-1hop FASTER than the bucket (96.900..471.015 ns, p50 153.000)' classify-source "$numa" dram-remote 150ns 30ns
case_ "classify-source remote HITM in cycles" 0 "^540 c2c-other-package-hitm fits" classify-source "$numa" c2c-remote-hitm 540
case_ "classify-source without a c2c section" 2 "no bucket for that source" classify-source "$good" c2c-remote-hitm 180ns
case_ "classify-source bad latency"   2 "is not a number"             classify-source "$numa" dram 12x
case_ "classify flat table"           0 "^12 flat$"                    classify $CORPUS/flat-tcg.json 12
case_ "classify bad latency is usage" 2 "latency \"12us\" is not a number" classify "$good" 12us
case_ "classify negative is usage"    2 "is not a number"              classify "$good" -5
case_ "classify bad table"            1 "version2.json"                classify $CORPUS/version2.json 5
case_ "match picks the fitting table" 0 "match: .*/sub/latency-table.json" match "$tmp/dir"
case_ "match says why"                0 "vendor/family/model match, stepping matches" match "$tmp/dir"
case_ "match skips other models"      0 "skip .*other-model.json: different CPU" match "$tmp/dir"
case_ "match skips broken tables"     0 "skip .*broken.json: .*broken.json:[0-9]+:" match "$tmp/dir"
case_ "match with no table"           1 "no table in .* fits this machine" match "$tmp/empty"
case_ "match missing dir is usage"    2 "cannot open directory"        match "$tmp/nope"
case_ "no command"                    2 "usage:"
case_ "unknown command"               2 "unknown command"              frobnicate x
case_ "check without file"            2 "wrong number of arguments"    check
case_ "classify without latency"      2 "wrong number of arguments"    classify "$good"
case_ "help"                          0 "usage:"                       --help

# classify-tlb (TLB section, pmucal.tlb/1): a standalone tlb-table.json and the same section
# inside a latency table; malformed sections give a clear error naming the field.
cls='[{"class":"l1_hit","lat_mcyc":3000,"added_mcyc":0,"upper_added_mcyc":3000,"first_pages":4,"last_pages":64},{"class":"l2_hit","lat_mcyc":9000,"added_mcyc":6000,"upper_added_mcyc":16000,"first_pages":76,"last_pages":2048},{"class":"walk","lat_mcyc":29000,"added_mcyc":26000,"upper_added_mcyc":null,"first_pages":3444,"last_pages":8192}]'
tlbdoc='{"schema":"pmucal.tlb/1","units":"mcyc","curves":[{"side":"dtlb","page_bytes":4096,"pte":"near","levels":[{"level":1,"entries":64}],"classes":'"$cls"'}]}'
echo "$tlbdoc" > "$tmp/tlb-table.json"
echo '{"schema":"pmucal.latency-table/1","tlb":'"$tlbdoc"'}' > "$tmp/lat-with-tlb.json"
echo "${tlbdoc/pmucal.tlb\/1/pmucal.tlb/2}" > "$tmp/tlb-v2.json"
echo "${tlbdoc/\"page_bytes\":4096/\"page_bytes\":\"4k\"}" > "$tmp/tlb-bad.json"
case_ "classify-tlb buckets"          0 "=0 l1_hit
3.5 l2_hit
40 walk" classify-tlb "$tmp/tlb-table.json" 4k 0 3.5 40
case_ "classify-tlb in a latency table" 0 "^20 walk$" classify-tlb "$tmp/lat-with-tlb.json" dtlb:4096 20
case_ "classify-tlb no such curve"    1 "no itlb curve for itlb:4k"    classify-tlb "$tmp/tlb-table.json" itlb:4k 3
case_ "classify-tlb other major"      1 "schema \"pmucal.tlb/2\": this library reads pmucal.tlb/1" classify-tlb "$tmp/tlb-v2.json" 4k 3
case_ "classify-tlb malformed"        1 "curves\[0\]: page_bytes: expected a non-negative integer" classify-tlb "$tmp/tlb-bad.json" 4k 3
case_ "classify-tlb latency table without tlb" 1 "not a pmucal TLB table" classify-tlb "$good" 4k 3
case_ "classify-tlb bad page size"    2 "page size \"3k\""             classify-tlb "$tmp/tlb-table.json" 3k 3
case_ "classify-tlb bad latency"      2 "latency \"fast\""             classify-tlb "$tmp/tlb-table.json" 4k fast

echo "1..$n"
[ "$failed" -eq 0 ]
