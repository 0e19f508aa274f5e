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
        if [ "$rc" -eq "$want_rc" ] && { [ "${want_re:0:1}" = "=" ] && [ "$out" = "${want_re:1}" ] ||
                                         [ "${want_re:0:1}" != "=" ] && grep -qE -- "$want_re" <<<"$out"; }; then
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
case_ "classify-tlb other major"      1 "schema \"pmucal.tlb/2\": major version 2 is not supported \(this library reads 1\)" classify-tlb "$tmp/tlb-v2.json" 4k 3
case_ "classify-tlb malformed"        1 "curves\[0\]: page_bytes: expected a non-negative integer" classify-tlb "$tmp/tlb-bad.json" 4k 3
case_ "classify-tlb latency table without tlb" 1 "not a pmucal TLB table" classify-tlb "$good" 4k 3
case_ "classify-tlb bad page size"    2 "page size \"3k\""             classify-tlb "$tmp/tlb-table.json" 3k 3
case_ "classify-tlb bad latency"      2 "latency \"fast\""             classify-tlb "$tmp/tlb-table.json" 4k fast


# One version rule for every schema (docs/versioning.md): same major accepted, any minor,
# unknown keys ignored; malformed versions rejected; a version quoted as given.
echo "${tlbdoc/pmucal.tlb\/1/pmucal.tlb/1.3}" | sed 's/"units"/"later":{"x":1},"units"/' > "$tmp/tlb-v1.3.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/1."|' "$good" > "$tmp/v1dot.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/01"|' "$good" > "$tmp/v01.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/1.-1"|' "$good" > "$tmp/v1m1.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/1x"|' "$good" > "$tmp/v1x.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/4294967297"|' "$good" > "$tmp/vbig.json"
case_ "version: tlb/1.3 with unknown keys is read" 0 "^2 l1_hit$"           classify-tlb "$tmp/tlb-v1.3.json" 4k 2
case_ "version: tlb/1.3 checks"       0 "tlb-v1.3.json: ok, pmucal.tlb/1.3, 1 curve" check "$tmp/tlb-v1.3.json"
case_ "version: 1. rejected"          1 "\"pmucal.latency-table/1.\": the version is not MAJOR or MAJOR.MINOR" check "$tmp/v1dot.json"
case_ "version: 01 rejected"          1 "the version is not"            check "$tmp/v01.json"
case_ "version: 1.-1 rejected"        1 "the version is not"            check "$tmp/v1m1.json"
case_ "version: 1x rejected"          1 "the version is not"            classify "$tmp/v1x.json" 5
case_ "version: 4294967297 as given"  1 "schema \"pmucal.latency-table/4294967297\": the version is not MAJOR" check "$tmp/vbig.json"

# check checks meaning: names, order, null for unknown, the tlb member, units, classes.
sed '0,/"name": "L2"/s//"name": "L1"/' "$good" > "$tmp/dupname.json"
sed 's/"capacity_bytes": 977280/"capacity_bytes": 20000/' "$good" > "$tmp/caporder.json"
sed 's/"core_hz": [0-9]*/"core_hz": 0/' "$good" > "$tmp/corehz0.json"
sed 's/"flags": \[/"tlb": {"schema": "pmucal.tlb\/1", "units": "mcyc", "curves": [{"side": "xtlb"}]}, "flags": [/' "$good" > "$tmp/badtlbmember.json"
sed 's/"flags": \[/"tlb": '"${tlbdoc//\//\\/}"', "flags": [/' "$good" > "$tmp/goodtlbmember.json"
echo "${tlbdoc/\"mcyc\"/\"cycles\"}" > "$tmp/tlb-units.json"
echo "${tlbdoc/\"class\":\"walk\"/\"class\":\"l2_hit\"}" > "$tmp/tlb-dupclass.json"
grep -q '"capacity_bytes": 977280' "$good" || echo "# fixture changed: capacity case is void"
case_ "meaning: duplicate level names" 1 "levels\[1\].name: \"L1\" is also the name of levels\[0\]" check "$tmp/dupname.json"
case_ "meaning: capacities out of order" 1 "levels\[1\].capacity_bytes: 20000 is not above levels\[0\]'s" check "$tmp/caporder.json"
case_ "meaning: core_hz 0 is not null" 1 "machine.core_hz: 0: an unknown value is written null" check "$tmp/corehz0.json"
case_ "meaning: a bad tlb member fails check" 1 "badtlbmember.json: tlb.curves\[0\]: pte: missing" check "$tmp/badtlbmember.json"
case_ "meaning: a good tlb member passes" 0 "ok, tlb member pmucal.tlb/1, 1 curve" check "$tmp/goodtlbmember.json"
case_ "meaning: unknown TLB units"     1 "units: \"cycles\" is not a known unit" check "$tmp/tlb-units.json"
case_ "meaning: duplicate TLB class"   1 "a second \"l2_hit\""            classify-tlb "$tmp/tlb-dupclass.json" 4k 1

# One size limit for every subcommand.
{ printf '{"schema":"pmucal.tlb/1","units":"mcyc","pad":"'; head -c $((17 << 20)) /dev/zero | tr '\0' x; printf '","curves":[]}'; } > "$tmp/huge.json"
case_ "size: check refuses 17 MiB"     1 "huge.json: file too large"     check "$tmp/huge.json"
case_ "size: classify-tlb refuses 17 MiB" 1 "huge.json: file too large"  classify-tlb "$tmp/huge.json" 4k 1
case_ "size: classify refuses 17 MiB"  1 "huge.json: file too large"     classify "$tmp/huge.json" 1
rm -f "$tmp/huge.json"

# Text from a file is escaped: a level name with a newline and a terminal escape.
sed '0,/"name": "L1"/s//"name": "L1\\n\\u001b[2J"/' "$good" > "$tmp/ctrl.json"
out=$("$BIN" check "$tmp/ctrl.json" 2>&1; "$BIN" show "$tmp/ctrl.json" 2>&1; "$BIN" classify "$tmp/ctrl.json" 1 2>&1)
n=$((n + 1))
if ! grep -q $'\x1b' <<<"$out" && grep -qF 'L1\n\x1b[2J L2' <<<"$out" && grep -qF '1 L1\n\x1b[2J' <<<"$out"; then
        echo "ok $n - escape: a level name with control characters is printed escaped"
else
        failed=$((failed + 1)); echo "not ok $n - escape: a level name with control characters is printed escaped"
        cat -v <<<"$out" | sed 's/^/# /'
fi
printf '{"schema": "pmucal.latency-table/1\\u001b]0;pwned\\u0007"}' > "$tmp/ctrlschema.json"
out=$("$BIN" check "$tmp/ctrlschema.json" 2>&1)
n=$((n + 1))
if ! grep -q $'[\x1b\x07]' <<<"$out" && grep -qF '1\x1b]0;pwned\x07' <<<"$out"; then
        echo "ok $n - escape: a schema with control characters is quoted escaped in the error"
else
        failed=$((failed + 1)); echo "not ok $n - escape: schema with control characters"; cat -v <<<"$out" | sed 's/^/# /'
fi

echo "1..$n"
[ "$failed" -eq 0 ]
