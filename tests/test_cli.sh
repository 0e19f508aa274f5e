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
# match compares tables with the machine it runs on: the fitting table is the good one made
# this machine's (vendor, family, model and stepping as match itself reads them), so the cases
# below hold on any host; the other-model table differs from it in the model alone.
here=$("$BIN" match "$tmp/empty" 2>&1 | sed -nE 's/^this machine: ([A-Za-z]+) family\/model [0-9a-f]+h\/[0-9a-f]+h \(([0-9]+)\/([0-9]+)\) stepping ([0-9]+),.*/\1 \2 \3 \4/p')
read -r here_vendor here_family here_model here_stepping <<<"$here"
fit=$tmp/fit.json
sed -e "s/\"vendor\": \"AuthenticAMD\"/\"vendor\": \"$here_vendor\"/" -e "s/\"family\": 25,/\"family\": $here_family,/" \
    -e "s/\"model\": 17,/\"model\": $here_model,/" -e "s/\"stepping\": 1,/\"stepping\": $here_stepping,/" "$good" >"$fit"
cp "$fit" "$tmp/dir/sub/latency-table.json"
sed "s/\"model\": $here_model,/\"model\": $((here_model + 1)),/" "$fit" >"$tmp/dir/other-model.json"
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
case_ "show a good table"             0 "level L3 .*CPUID L3 32 MiB, smaller" show "$good"
case_ "show prints flags"             0 "flags: +cpuid_differs"        show "$good"
case_ "show a bad table"              1 "trunc.json:"                  show "$tmp/trunc.json"
case_ "classify cycles"               0 $'=2.8 L1\n15 L2\n37 L3\n1000 DRAM' classify "$good" 2.8 15 37 1000
case_ "classify on a bound is inclusive" 0 "^5.306 L1$"                classify "$good" 5.306
case_ "classify ns"                   0 $'=1ns L1\n60ns DRAM'         classify "$good" 1ns 60ns
case_ "classify ns with the TSC rate"  0 "^5ns flat$"                   classify $CORPUS/flat-tcg.json 5ns
case_ "classify core cycles on a TSC table" 1 "60core: core cycles: this table has no core:TSC ratio.*--core-ghz" classify "$good" 60core
numa=$CORPUS/numa-c2c.json
sed 's/"n_nodes": 4/"n_nodes": 5/' "$numa" >"$tmp/numa-rows.json"
case_ "show prints the NUMA matrix"   0 "^ +2 +228\.8 +224\.4 +100\.0 +154\.5$" show "$numa"
case_ "show prints the DRAM levels"   0 "level DRAM-remote-2hop +SLIT 22, 8 cell\(s\)" show "$numa"
case_ "show prints the C2C classes"   0 "c2c other-package hitm +4 pair\(s\) tsc p50 353\.000" show "$numa"
sets=$CORPUS/core-sets.json
case_ "show prints the level sets"    0 "^set 1: +core type atom, caches 32 KiB / 4 MiB / 36 MiB; APIC IDs 16,17; 1 LLC domain; measured on APIC ID 16: L1 2\.000 ns, L2 9\.000 ns" show "$sets"
case_ "show names the BSP's set"      0 "^set 0: +core type core, .*APIC IDs 0,2; .*the BSP's levels, APIC ID 0:" show "$sets"
case_ "show a bad numa section names its path" 1 "numa-rows.json: numa.matrix: 4 rows for 5 nodes" show "$tmp/numa-rows.json"
case_ "classify-source remote DRAM"   0 $'=150ns DRAM-remote-1hop fits (96.900..471.015 ns, p50 153.000)\n30ns DRAM-remote-1hop FASTER than the bucket (96.900..471.015 ns, p50 153.000)' classify-source "$numa" dram-remote 150ns 30ns
case_ "classify-source remote HITM in cycles" 0 "^540 c2c-other-package-hitm fits" classify-source "$numa" c2c-remote-hitm 540
case_ "classify-source without a c2c section: by latency" 0 "^180ns DRAM fits" classify-source "$good" c2c-remote-hitm 180ns
case_ "classify-source dram-local without numa" 0 "^80ns DRAM fits" classify-source "$good" dram-local 80ns
case_ "classify-source unknown source: exit 2" 2 "unknown data source" classify-source "$numa" dram-lcoal 80ns
case_ "classify-source no such bucket: exit 4" 4 "has no bucket for that source" classify-source "$numa" c2c-smt-hitm 80ns
case_ "classify-source L3 on a quick-profile table" 0 "^16ns L3 fits" classify-source $CORPUS/quick-numa.json L3 16ns
case_ "classify-source DRAM on a table without DRAM: exit 4" 4 "no bucket" classify-source $CORPUS/quick-numa.json DRAM 100ns
# data sources from their encodings: perf_mem_data_src (mem_op LOAD, mem_lvl HIT|REM_RAM1,
# mem_lvl_num RAM, mem_remote: 0x2 | 0x102 << 5 | 0xd << 33 | 1 << 37) and IBS op registers
# (IbsOpData2 DataSrc 3 = DRAM | RmtNode; IbsOpData3 LdOp | DcMiss | L2Miss, DcMissLat 450)
case_ "classify-source --perf-data-src remote DRAM" 0 "^450core DRAM-remote-1hop fits .*\(source dram-remote\)" classify-source "$numa" --perf-data-src 0x2000002042 450core
case_ "classify-source --perf-data-src I/O: exit 4" 4 "I/O, which no bucket stands for" classify-source "$numa" --perf-data-src 0x1400020042 100ns
case_ "classify-source --perf-data-src not hex: usage" 2 "not a hexadecimal" classify-source "$numa" --perf-data-src 0xZZ 100ns
case_ "classify-source --ibs-op-data DcMissLat" 0 "^450core DRAM-remote-1hop fits .*\(source dram-remote\)" classify-source "$numa" --ibs-op-data2 0x13 --ibs-op-data3 0x1c200100081
case_ "classify-source --ibs-op-data L1 hit has no DcMissLat" 2 "no IBS DcMissLat" classify-source "$numa" --ibs-op-data2 0 --ibs-op-data3 0x1
case_ "classify-source core cycles need a ratio" 1 "--core-ghz" classify-source "$good" dram 300core
case_ "classify-source --core-ghz" 0 "^300core DRAM fits" classify-source --core-ghz 2.596178 "$good" dram 300core
# A later minor (next-minor.json: 1.9 with new members, a new C2C topology and kind, a curve
# loaded a new way) is read by this one: check and show name what they read as unknown.
next=$CORPUS/next-minor.json
case_ "check a later minor: ok, unknown values noted" 0 'note: 3 value\(s\) of a later schema minor read as unknown, first loaded_latency\[1\]\.loaded: "remote nodes"' check "$next"
case_ "show a later minor: its new C2C topology as unknown" 0 "^c2c unknown +hitm +2 pair\(s\) tsc p50 950\.000" show "$next"
case_ "show a later minor: the curve it cannot weigh left out" 0 "loaded: +1 curve\(s\); loaded p90 / idle p50 up to 1\.80" show "$next"
case_ "classify-source on a later minor" 0 "^540 c2c-other-package-hitm fits" classify-source "$next" c2c-remote-hitm 540
case_ "check a bad numa section fails, as show does" 1 "numa-rows.json: numa.matrix: 4 rows for 5 nodes" check "$tmp/numa-rows.json"
# The run's other files (a QEMU run's c2c.json and numa-matrix.json, tests/data/collector/):
# check and show read them, figures as the files give them; a later minor's new kind is noted.
run=tests/data/collector/qemu-smoke
case_ "check c2c.json"                0 "c2c.json: ok, pmucal.c2c/1.2, 5 class\(es\)" check $run/c2c.json
case_ "show c2c.json: the pingpong class" 0 "^c2c same-package +pingpong +12 pair\(s\) p50_tsc 762\.312 \(min_tsc 751\.750, max_tsc 804\.812\) p50_ns 285\.519" show $run/c2c.json
case_ "check numa-matrix.json"        0 "numa-matrix.json: ok, pmucal.numa/1.0, 2 node\(s\)" check $run/numa-matrix.json
case_ "show numa-matrix.json: the matrix" 0 "^ +1 +211\.1 +211\.0$" show $run/numa-matrix.json
# diff of two c2c.json or two numa-matrix.json: a class or cell moved beyond the runs' spread
# when each run's median lies outside the other's spread (c2c: the pairs' min..max; numa: the
# cell's p10..p90). B is the QEMU run with the pingpong class 1000 TSC ticks slower (its whole
# spread moved) and node 1's local cell 50 ns slower; the hit class's median alone moved to
# 12 (inside A's 9..12.312: within the spread).
python3 - "$run" "$tmp" <<'PY'
import json, sys
run, tmp = sys.argv[1:]
c = json.load(open(run + "/c2c.json"))
for k in c["c2c"]["classes"]:
    if k["kind"] == "pingpong":
        k["p50_tsc"] += 1000; k["min_tsc"] += 1000; k["max_tsc"] += 1000
    if k["kind"] == "hit":
        k["p50_tsc"] = 12.0
json.dump(c, open(tmp + "/c2c-b.json", "w"))
n = json.load(open(run + "/numa-matrix.json"))
for key in ("p10_ns", "p50_ns", "p90_ns"):
    n["matrix"][1][1][key] += 50
json.dump(n, open(tmp + "/numa-b.json", "w"))
PY
case_ "diff c2c.json with itself" 0 "^0 class\(es\) moved beyond the runs' spread$" diff $run/c2c.json $run/c2c.json
case_ "diff c2c.json: a class beyond the spread" 3 "^same-package pingpong +762\.312 +1762\.312 +\+131\.2% .* BEYOND SPREAD$" diff $run/c2c.json "$tmp/c2c-b.json"
case_ "diff c2c.json: a median inside the other's spread" 3 "^same-package hit +9\.304 +12\.000 .* within spread$" diff $run/c2c.json "$tmp/c2c-b.json"
case_ "diff c2c.json: the count" 3 "^1 class\(es\) moved beyond the runs' spread$" diff $run/c2c.json "$tmp/c2c-b.json"
case_ "diff numa-matrix.json with itself" 0 "^0 cell\(s\) moved beyond the runs' spread$" diff $run/numa-matrix.json $run/numa-matrix.json
case_ "diff numa-matrix.json: a cell beyond the spread" 3 "^1 -> 1 +211\.038 +261\.038 .* BEYOND SPREAD$" diff $run/numa-matrix.json "$tmp/numa-b.json"
case_ "diff numa-matrix.json: the others within" 3 "^1 -> 0 +211\.079 +211\.079 .* within spread$" diff $run/numa-matrix.json "$tmp/numa-b.json"
case_ "diff c2c.json and numa-matrix.json: not the same kind" 1 "not the same kind of file" diff $run/c2c.json $run/numa-matrix.json
case_ "diff a table and c2c.json: not the same kind" 1 "not the same kind of file" diff "$good" $run/c2c.json
sed 's/"kind": "pingpong"/"kind": "exchange", "new_member": [1]/; s|pmucal.c2c/1.2|pmucal.c2c/1.9|' $run/c2c.json >"$tmp/c2c-next.json"
case_ "check c2c.json of a later minor: the new kind noted" 0 'note: 1 value\(s\) of a later schema minor read as unknown, first c2c.classes\[4\].kind: "exchange"' check "$tmp/c2c-next.json"
# c2c 1.3 writes each _tsc figure also as _tsc_ticks (same value); the reader takes _tsc_ticks
# where a file has it (here figures other than the _tsc ones, so that the member read shows)
# and _tsc in older files (the 1.2 run above: p50_tsc 762.312).
sed 's|pmucal.c2c/1.2|pmucal.c2c/1.3|; s|"max_tsc": 804.812,|"max_tsc": 804.812, "p50_tsc_ticks": 700.500, "min_tsc_ticks": 690.250, "max_tsc_ticks": 710.125,|' $run/c2c.json >"$tmp/c2c-13.json"
case_ "show c2c.json 1.3: the _tsc_ticks figures" 0 "^c2c same-package +pingpong +12 pair\(s\) p50_tsc 700\.500 \(min_tsc 690\.250, max_tsc 710\.125\) p50_ns 285\.519" show "$tmp/c2c-13.json"
sed 's|pmucal.numa/1.0|pmucal.numa/2.0|' $run/numa-matrix.json >"$tmp/numa-v2.json"
case_ "check numa-matrix.json of major 2: rejected" 1 "major version 2 is not supported" check "$tmp/numa-v2.json"
case_ "show --json carries the DRAM levels" 0 '"name": "DRAM-remote-2hop"' show --json "$numa"
case_ "show --json carries the loaded-latency curves" 0 '"load_factor": 1\.8' show --json "$numa"
case_ "show --json carries the C2C classes" 0 '"topology": "other-package"' show --json "$numa"
case_ "show --json of a later minor counts its unknown values" 0 '"count": 3' show --json "$next"
case_ "show --json without the sections: null" 0 '"c2c": null' show --json "$good"
case_ "show --csv carries the NUMA matrix" 0 "^2,1,224\.400$" show --csv "$numa"
case_ "show --csv carries the DRAM levels" 0 "^DRAM-remote-2hop,22,8,211\.090,211\.090,224\.400,260\.480,$" show --csv "$numa"
case_ "show --csv carries the C2C classes" 0 "^other-package,hitm,4,347\.000,347\.000,353\.000,365\.000,173\.500,173\.500,176\.500,182\.500$" show --csv "$numa"
case_ "classify-source bad latency"   2 "is not a number"             classify-source "$numa" dram 12x
case_ "classify flat table"           0 "^12 flat$"                    classify $CORPUS/flat-tcg.json 12
case_ "classify bad latency is usage" 2 "latency \"12us\": not a number with an optional unit suffix" classify "$good" 12us
case_ "classify negative is usage"    2 "latency \"-5\": a negative latency" classify "$good" -5
# -0.0 is zero to the library (pmucal_table_classify classifies it): the CLI takes it too.
case_ "classify -0.0 as the library does" 0 "^-0\.0 L1$"                 classify "$good" -0.0
case_ "classify -0 as the library does"   0 "^-0 L1$"                     classify "$good" -0
case_ "classify bad table"            1 "version2.json"                classify $CORPUS/version2.json 5
case_ "match picks the fitting table" 0 "^$tmp/dir/sub/latency-table.json$" match "$tmp/dir"
case_ "match says why"                0 "vendor/family/model match, stepping matches" match "$tmp/dir"
case_ "match skips other models"      0 "skip .*other-model.json: different CPU" match "$tmp/dir"
case_ "match skips broken tables"     0 "skip .*broken.json: .*broken.json:[0-9]+:" match "$tmp/dir"
case_ "match with no table"           1 "no table in .* fits this machine" match "$tmp/empty"
case_ "match missing dir is usage"    2 "cannot open directory"        match "$tmp/nope"
case_ "no command"                    2 "usage:"
case_ "unknown command"               2 "unknown command"              frobnicate x
case_ "check without file"            2 "wrong number of arguments"    check
case_ "classify without latency"      2 "wrong number of arguments"    classify "$good"
case_ "version"                       0 "^pmucal-table \(pmucal .*\), libpmucal 1\.[0-9]+\.[0-9]+$" --version
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
case_ "classify-tlb malformed"        1 "curves\[0\].page_bytes: expected an integer, got a string" classify-tlb "$tmp/tlb-bad.json" 4k 3
case_ "classify-tlb latency table without tlb" 1 "not a pmucal TLB table" classify-tlb "$good" 4k 3
case_ "classify-tlb bad page size"    2 "page size \"3k\""             classify-tlb "$tmp/tlb-table.json" 3k 3
case_ "classify-tlb bad latency"      2 "latency \"fast\""             classify-tlb "$tmp/tlb-table.json" 4k fast


# One version rule for every schema (docs/versioning.md): same major accepted, any minor,
# unknown keys ignored; malformed versions rejected; a version quoted as given.
echo "${tlbdoc/pmucal.tlb\/1/pmucal.tlb/1.9}" | sed 's/"units"/"later":{"x":1},"units"/' > "$tmp/tlb-v1.9.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/1."|' "$good" > "$tmp/v1dot.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/01"|' "$good" > "$tmp/v01.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/1.-1"|' "$good" > "$tmp/v1m1.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/1x"|' "$good" > "$tmp/v1x.json"
sed 's|"pmucal.latency-table/1"|"pmucal.latency-table/4294967297"|' "$good" > "$tmp/vbig.json"
case_ "version: tlb/1.9 with unknown keys is read" 0 "^2 l1_hit$"           classify-tlb "$tmp/tlb-v1.9.json" 4k 2
case_ "version: tlb/1.9 checks"       0 "tlb-v1.9.json: ok, pmucal.tlb/1.9, 1 curve" check "$tmp/tlb-v1.9.json"
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
case_ "meaning: a bad tlb member fails check" 1 "badtlbmember.json: tlb.curves\[0\].side: \"xtlb\" is not dtlb or itlb" check "$tmp/badtlbmember.json"
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

# stdout alone: out_ NAME WANT_RC WANT_STDOUT(exact) [STDIN_FILE] ARGS...; stderr kept in $err.
out_() {
        local name=$1 want_rc=$2 want=$3 in=$4 rc out
        shift 4
        n=$((n + 1))
        out=$("$BIN" "$@" <"$in" 2>"$tmp/stderr"); rc=$?; err=$(cat "$tmp/stderr")
        if [ "$rc" -eq "$want_rc" ] && [ "$out" = "$want" ]; then echo "ok $n - $name"; else
                failed=$((failed + 1)); echo "not ok $n - $name (exit $rc, want $want_rc)"
                diff <(echo "$want") <(echo "$out") | sed 's/^/# /'; sed 's/^/# stderr: /' <<<"$err"
        fi
}
check_err() { # NAME REGEX: the stderr of the last out_ matches
        n=$((n + 1))
        if grep -qE -- "$2" <<<"$err"; then echo "ok $n - $1"; else
                failed=$((failed + 1)); echo "not ok $n - $1"; sed 's/^/# stderr: /' <<<"$err"; fi
}

# classify -: one latency per line from stdin, a unit suffix each; one output line per input
# line, in order ("-" for a line without a latency, a bad one named on stderr with its
# number); exit 3 when any was bad.
printf '2.8\n15\nbad\n37tsc\n# a comment\n\n1000\n-5\n60core\n1e3\n 12.5ns \r\n9.869' > "$tmp/lat.txt"
out_ "classify - streams stdin, one line per line"       3 "2.8 L1
15 L2
bad -
37tsc L3
-
-
1000 DRAM
-5 -
60core -
1e3 DRAM
12.5ns L3
9.869 L2" "$tmp/lat.txt" classify "$good" -
check_err "classify - names bad lines"  '<stdin>:3: "bad": not a number'
check_err "classify - negative line"    '<stdin>:8: "-5": a negative latency'
check_err "classify - core without ratio" '<stdin>:9: "60core": core cycles: this table has no core:TSC ratio .*--core-ghz'
check_err "classify - counts them"      '3 of 12 lines were not latencies'
printf 'nan\ninf\n-0.5\n1e999\n2e308ns\nNaNtsc\n' > "$tmp/hostile.txt"
out_ "classify - hostile numbers keep their lines" 3 $'nan -\ninf -\n-0.5 -\n1e999 -\n2e308ns -\nNaNtsc -' "$tmp/hostile.txt" classify "$good" -
check_err "classify - NaN has its message"      '<stdin>:1: "nan": NaN is not a latency'
check_err "classify - inf has its message"      '<stdin>:2: "inf": an infinite latency'
check_err "classify - negative has its message" '<stdin>:3: "-0.5": a negative latency'
check_err "classify - huge has its message"     '<stdin>:4: "1e999": too large'
check_err "classify - huge with a unit"         '<stdin>:5: "2e308ns": too large'
check_err "classify - NaN with a unit"          '<stdin>:6: "NaNtsc": NaN is not a latency'
# a unit the table cannot serve fails before stdin is read, with the fix
out_ "classify --unit core without a ratio fails at once" 1 "" <(seq 1 3) classify --unit core "$good" -
check_err "classify --unit core says how to fix it" 'no core:TSC ratio.*--core-ghz GHZ'
out_ "classify --core-ghz gives the ratio" 0 $'10 L1\n40 L2\n100 L3' <(printf '10\n40\n100\n') classify --unit core --core-ghz 5.192356 "$good" -
out_ "classify --core-ghz bad is usage" 2 "" /dev/null classify --unit core --core-ghz fast "$good" 5
# perf script lines: the latency is a field of each line
printf '  prog 1234 [000] 1.5: 24 mem-loads 7ffd00 main\n  prog 1234 [000] 1.6: 310 mem-loads 7ffd40 main\nshort line\n' > "$tmp/perf.txt"
out_ "classify --field picks the perf script weight" 3 $'24 L3\n310 DRAM\n-' "$tmp/perf.txt" classify --unit tsc --field 5 "$good" -
check_err "classify --field names a short line" '<stdin>:3: .*has no such field'
# from a pipe the answer to each line comes before the next line is written
n=$((n + 1))
coproc CLS { "$BIN" classify "$good" - 2>/dev/null; }
echo 15 >&"${CLS[1]}"
if IFS= read -r -t 10 line <&"${CLS[0]}" && [ "$line" = "15 L2" ]; then echo "ok $n - classify - flushes per line from a pipe"
else failed=$((failed + 1)); echo "not ok $n - classify - flushes per line from a pipe (got \"${line:-nothing}\")"; fi
exec {CLS[1]}>&-
wait "$CLS_PID" 2>/dev/null
printf '2.8\n4ns\n' > "$tmp/ok.txt"
out_ "classify - all good exits 0"    0 $'2.8 L1\n4ns L2' "$tmp/ok.txt" classify "$good" -
out_ "classify --unit ns"             0 $'2.8 L2\n4ns L2' "$tmp/ok.txt" classify --unit ns "$good" -
out_ "classify --unit bad is usage"   2 "" "$tmp/ok.txt" classify --unit ms "$good" -
sed 's/"cpuid_differs"/"no_dram"/' "$good" > "$tmp/nodram.json"
out_ "classify beyond the last level" 0 $'500 DRAM\n1200 beyond' /dev/null classify "$tmp/nodram.json" 500 1200
out_ "classify-tlb - labels"          0 $'0 l1_hit\n3.5 l2_hit\n40 walk' <(printf '0\n3.5\n40\n') classify-tlb "$tmp/tlb-table.json" 4k -

# report: a dcache report from perf script lines (-F ip,sym,addr,weight,data_src, as perf
# prints them: addr, data_src and its decoded text, weight, ip, sym). Synthesized against
# numa-c2c.json (core 3 GHz; bounds L1 2.518 ns = 7.55 cycles, L2 8.904 ns = 26.7, L3 to
# DRAM; DRAM-local p50 100 ns = 300 cycles, 1hop 153 ns = 459): 100 L1 hits of 5 cycles, 50
# L2 hits of 20, 30 L3 hits of 50, 20 local DRAM of 300, 10 remote DRAM of 460, and 5 loads
# marked local DRAM that took 5 cycles (the source disagrees with the latency's bucket).
python3 - "$tmp/perf.txt" <<'PY'
import sys
rows = [(100, 0x200000142, "L1 hit", 5, "walk_list"), (50, 0x400000442, "L2 hit", 20, "hash_lookup"),
        (30, 0x600000842, "L3 hit", 50, "hash_lookup"), (20, 0x1a00001042, "Local RAM hit", 300, "scan"),
        (10, 0x3a00002042, "Remote RAM (1 hop) hit", 460, "scan"), (5, 0x1a00001042, "Local RAM hit", 5, "odd")]
with open(sys.argv[1], "w") as f:
    f.write("# perf script -F ip,sym,addr,weight,data_src\n")
    for n, ds, lvl, w, sym in rows:
        for i in range(n):
            f.write("%16x %16x |OP LOAD|LVL %s|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A %16d %x %s\n"
                    % (0x10000000 + 64 * (i % 4) + w * 4096, ds, lvl, w, 0x5574a000 + w, sym))
PY
case_ "report: samples per bucket" 0 "^L2 +50 +23\.3%$" report "$numa" "$tmp/perf.txt"
case_ "report: every bucket counted" 0 "^report: 215 samples, 215 sorted by latency \(core\)" report "$numa" "$tmp/perf.txt"
case_ "report: remote DRAM by distance" 0 "^DRAM-remote-1hop +10 " report "$numa" "$tmp/perf.txt"
case_ "report: top symbols and addresses" 0 "^top L1: walk_list 100 odd 5 \| addr 0x10005000 27 " report "$numa" "$tmp/perf.txt"
case_ "report: a source that disagrees with its latency" 0 "source dram-local +latency bucket L1 +faster +5 " report "$numa" "$tmp/perf.txt"
n=$((n + 1))
if "$BIN" report --json --total 215000 --rate 100 "$numa" - < "$tmp/perf.txt" | python3 -c '
import json, sys
r = json.load(sys.stdin)
b = {x["bucket"]: x["samples"] for x in r["buckets"]}
assert b == {"L1": 105, "L2": 50, "L3": 30, "DRAM-local": 20, "DRAM-remote-1hop": 10}, b
assert r["scale"] == 10.0, r["scale"]            # 215000 / (215 x 100)
assert r["disagreements"] == 5 and r["disagree"][0]["source"] == "dram-local", r["disagree"]'; then
        echo "ok $n - report --json: buckets, scale, disagreements"
else failed=$((failed + 1)); echo "not ok $n - report --json: buckets, scale, disagreements"; fi
awk '!/^#/ { print $1, $(NF-2), $(NF-1), $NF }' "$tmp/perf.txt" > "$tmp/perf-nods.txt"
case_ "report without data_src (--fields)" 0 "^L3 +30 " report --fields ip,sym,addr,weight "$numa" "$tmp/perf-nods.txt"
# Symbols as perf prints C++ and unresolved ones, blanks inside: the whole rest of the line
# after ip is the symbol, with data_src and without it.
python3 - "$tmp/perf-sp.txt" <<'PY'
import sys
syms = [(7, "operator new(unsigned long)"), (3, "std::vector<int, std::allocator<int> >::push_back(int const&)"),
        (2, "[unknown]")]
with open(sys.argv[1], "w") as f:
    for n, sym in syms:
        for i in range(n):
            f.write("%16x %16x |OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A %16d %x %s\n"
                    % (0x10000000 + 64 * i, 0x200000142, 5, 0x5574a000, sym))
PY
case_ "report: symbols with blanks" 0 "^top L1: operator new\(unsigned long\) 7 std::vector<int, std::allocator<int> >::push_back\(int const&\) 3 \[unknown\] 2 \|" report "$numa" "$tmp/perf-sp.txt"
python3 - "$tmp/perf-sp.txt" "$tmp/perf-sp-nods.txt" <<'PY'
import re, sys
with open(sys.argv[2], "w") as f:
    for line in open(sys.argv[1]):
        m = re.match(r"\s*(\S+)\s+\S+ \|OP.*?\|BLK\s+N/A\s+(\d+) (\S+) (.*)$", line)
        f.write("%s %s %s %s\n" % m.groups())
PY
case_ "report without data_src: symbols with blanks" 0 "^top L1: operator new\(unsigned long\) 7 std::vector<int, std::allocator<int> >::push_back\(int const&\) 3 \[unknown\] 2 \|" report --fields ip,sym,addr,weight "$numa" "$tmp/perf-sp-nods.txt"

# perf mem report -D: the samples of perf.txt as dump_raw_samples (tools/perf/builtin-mem.c)
# prints them: blank-separated with ADDR in its "0x016%" PRIx64 format, and with -x , and the
# PHYS ADDR and DATA PAGE SIZE columns (--phys-data, --data-page-size). The same buckets,
# addresses and disagreements as the perf script form.
python3 - "$tmp/perf.txt" "$tmp/mem-raw.txt" "$tmp/mem-raw-x.txt" <<'PY'
import re, sys
raw = open(sys.argv[2], "w")
rawx = open(sys.argv[3], "w")
raw.write("# PID, TID, IP, ADDR, LOCAL WEIGHT, DSRC, SYMBOL\n")
rawx.write("# PID, TID, IP, ADDR, PHYS ADDR, DATA PAGE SIZE, LOCAL WEIGHT, DSRC, SYMBOL\n")
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    m = re.match(r"\s*(\S+)\s+(\S+) \|OP.*?\|BLK\s+N/A\s+(\d+) (\S+) (.*)$", line)
    addr, ds, w, ip, sym = int(m[1], 16), int(m[2], 16), int(m[3]), int(m[4], 16), m[5]
    raw.write("%5d %5d 0x%016x 0x016%x %5u 0x%06x %s:%s\n" % (4242, 4243, ip, addr, w, ds, "/usr/bin/bench", sym))
    rawx.write("%d,%d,0x%x,0x%x,0x%016x,%s,%u,0x%x,%s:%s\n"
               % (4242, 4243, ip, addr, addr + 0x40000000, "4K", w, ds, "/usr/bin/bench", sym))
PY
for f in mem-raw mem-raw-x; do
        case_ "report: perf mem -D ($f) counts every bucket" 0 "^report: 215 samples, 215 sorted by latency \(core\)" report "$numa" "$tmp/$f.txt"
        case_ "report: perf mem -D ($f) samples per bucket" 0 "^L2 +50 +23\.3%$" report "$numa" "$tmp/$f.txt"
        case_ "report: perf mem -D ($f) top symbols and addresses" 0 "^top L1: walk_list 100 odd 5 \| addr 0x10005000 27 " report "$numa" "$tmp/$f.txt"
        case_ "report: perf mem -D ($f) source disagrees" 0 "source dram-local +latency bucket L1 +faster +5 " report "$numa" "$tmp/$f.txt"
done
grep -v '^#' "$tmp/mem-raw.txt" > "$tmp/mem-raw-nohdr.txt"
case_ "report: perf mem -D without its header" 0 "^top L1: walk_list 100 odd 5 \| addr 0x10005000 27 " report "$numa" "$tmp/mem-raw-nohdr.txt"
case_ "report: core cycles need a ratio" 1 "no ratio for them.*--core-ghz" report "$good" "$tmp/perf.txt"
case_ "report --core-ghz" 0 "^report: 215 samples" report --core-ghz 2.6 "$good" "$tmp/perf.txt"

# show --json / --csv for latency and TLB tables.
"$BIN" show --json "$good" > "$tmp/show.json"; rc=$?
n=$((n + 1)); if [ $rc -eq 0 ] && python3 -c 'import json,sys; t=json.load(open(sys.argv[1]));
assert [l["name"] for l in t["levels"]] == ["L1","L2","L3","DRAM"]; assert t["levels"][3]["upper_cycles"] is None
assert t["units"]["cycles"] == "tsc" and t["machine"]["nodes"] is None' "$tmp/show.json"; then
        echo "ok $n - show --json: levels, null for unknown, the unit"; else failed=$((failed + 1)); echo "not ok $n - show --json"; fi
"$BIN" show --json "$sets" > "$tmp/showsets.json"; rc=$?
n=$((n + 1)); if [ $rc -eq 0 ] && python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); s=t["core_sets"]
assert [(x["core_type"], x["apic_ids"], x["bsp_set"]) for x in s] == [("core", [0, 2], True), ("atom", [16, 17], False)]
assert [l["name"] for l in s[1]["levels"]] == ["L1","L2","L3","DRAM"] and abs(s[1]["levels"][1]["cycles"]["p50"] - 18) < 0.5' "$tmp/showsets.json" &&
   python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["core_sets"] == []' "$tmp/show.json"; then
        echo "ok $n - show --json: the level sets (1.4), [] for an older table"; else failed=$((failed + 1)); echo "not ok $n - show --json level sets"; fi
"$BIN" show --json "$tmp/tlb-table.json" > "$tmp/showtlb.json"; rc=$?
n=$((n + 1)); if [ $rc -eq 0 ] && python3 -c 'import json,sys; t=json.load(open(sys.argv[1]));
assert [c["label"] for c in t["curves"][0]["classes"]] == ["l1_hit","l2_hit","walk"]; assert t["clock"] == "tsc"' "$tmp/showtlb.json"; then
        echo "ok $n - show --json of a TLB table"; else failed=$((failed + 1)); echo "not ok $n - show --json of a TLB table"; fi
case_ "show --csv latency rows"       0 "^3,DRAM,,,no-cpuid,344.409,350.647,403.338,462.868," show --csv "$good"
case_ "show --csv latency header"     0 "^level,name,capacity_bytes,cpuid_capacity_bytes,agreement,min_tsc_ticks,p10_tsc_ticks,p50_tsc_ticks,p90_tsc_ticks,min_ns,p10_ns,p50_ns,p90_ns,upper_tsc_ticks,upper_ns$" show --csv "$good"
case_ "show --csv TLB header"         0 "^side,page_bytes,pte,class,kind,ordinal,lat_tsc_ticks,added_tsc_ticks,upper_added_tsc_ticks,first_pages,last_pages$" show --csv "$tmp/tlb-table.json"
case_ "show names the ratio's source" 0 "^clock: +pmu-core-cycles: figures in core cycles; core:TSC ratio 1.500, from pmu-core-cycles$" show "$numa"
case_ "show names the clock's unit"   0 "^clock: +tsc: figures in TSC ticks; no core:TSC ratio \(core cycles need --core-ghz\)$" show "$good"
case_ "show --csv TLB rows"           0 "^dtlb,4096,near,walk,walk,1,29.000,26.000,,3444,8192$" show --csv "$tmp/tlb-table.json"
case_ "show a TLB table"              0 "class l2_hit .*bucket <= \+16.000" show "$tmp/tlb-table.json"
case_ "show --xml is usage"           2 "show: wrong arguments"        show --xml "$good"

# diff: level by level, beyond the runs' own spread or not.
sed 's/"min": 33.464/"min": 59.0/; s/"p10": 35.525/"p10": 60.1/; s/"p50": 38.741/"p50": 62.2/; s/"p90": 41.445/"p90": 65.3/' "$good" > "$tmp/moved.json"
case_ "diff of a table with itself"   0 "0 levels moved beyond the runs' spread" diff "$good" "$good"
case_ "diff of two runs"              0 "L3 +38.741 +34.713 +-10.4%.*within spread" diff "$good" $CORPUS/zen4-kvm-h5.json
case_ "diff: a level that moved"      3 "L3 +38.741 +62.200 +\+60.6%.*BEYOND SPREAD" diff "$good" "$tmp/moved.json"
case_ "diff: levels that differ"      3 "flat +only in B" diff "$good" $CORPUS/flat-tcg.json
case_ "diff: one file is usage"       2 "wrong number of arguments" diff "$good"
# diff of TLB tables: entries against each run's [entries, next_pages), class costs against
# the larger of the runs' smallest counted step (step_mcyc).
walks=$CORPUS/tlb-walks.json
sed 's/"max_pages": 32768,/"max_pages": 32768, "noise_mcyc": 200, "step_mcyc": 1500,/' $walks > "$tmp/tlbA.json"
sed 's/"entries": 64, "next_pages": 76/"entries": 80, "next_pages": 96/; s/"entries": 2048, "next_pages": 2436/"entries": 2200, "next_pages": 2600/; s/"added_mcyc": 26000/"added_mcyc": 29000/; s/"added_mcyc": 37000/"added_mcyc": 38000/' "$tmp/tlbA.json" > "$tmp/tlbB.json"
case_ "diff: a TLB table with itself"  0 "0 TLB figures moved beyond the runs' spread" diff "$tmp/tlbA.json" "$tmp/tlbA.json"
case_ "diff: TLB entries that moved"   3 "L1 entries +64 +80 +\+25.0% +\[64, 76\) +\[80, 96\) +BEYOND SPREAD" diff "$tmp/tlbA.json" "$tmp/tlbB.json"
case_ "diff: TLB entries within"       3 "L2 entries +2048 +2200 +\+7.4% +\[2048, 2436\) +\[2200, 2600\) +within spread" diff "$tmp/tlbA.json" "$tmp/tlbB.json"
case_ "diff: a walk that moved"        3 "walk added +26.000 +29.000 +\+11.5% +step 1.500 +step 1.500 +BEYOND SPREAD" diff "$tmp/tlbA.json" "$tmp/tlbB.json"
case_ "diff: a second walk within"     3 "walk2 added +37.000 +38.000 +\+2.7% .*within spread" diff "$tmp/tlbA.json" "$tmp/tlbB.json"
case_ "diff: TLB count"                3 "^2 TLB figures moved beyond" diff "$tmp/tlbA.json" "$tmp/tlbB.json"
case_ "diff: TLB without steps"        0 "l2_hit added .*spread unknown" diff $walks $walks
case_ "diff: TLB curve in one only"    3 "itlb 2 MiB pages, PTEs line: only in A" diff $walks $CORPUS/with-tlb.json
case_ "diff: latency and tlb members"  0 "^0 TLB figures moved" diff $CORPUS/with-tlb.json $CORPUS/with-tlb.json
case_ "diff: latency against TLB"      1 "not the same kind of table" diff "$good" "$tmp/tlbA.json"

# match: only the answer on stdout; equal scores go to the newest run.
mkdir -p "$tmp/tie/a" "$tmp/tie/b" "$tmp/tie/0"
sed 's/"date": null/"date": "2026-01-01T00:00:00Z"/' "$fit" > "$tmp/tie/a/latency-table.json"
sed 's/"date": null/"date": "2026-06-01T00:00:00Z"/' "$fit" > "$tmp/tie/b/latency-table.json"
cp "$fit" "$tmp/tie/0/latency-table.json"
out_ "match: the newest of equal tables" 0 "$tmp/tie/b/latency-table.json" /dev/null match "$tmp/tie"
check_err "match: diagnostics on stderr" "cand .*/tie/a/latency-table.json: .*date 2026-01-01"
out_ "match: nothing on stdout when none fits" 1 "" /dev/null match "$tmp/empty"

# Standard output on a full disk (/dev/full): every command that prints says it could not
# write and exits 1, never 0 with an empty file.
full_() { # full_ NAME ARGS...
        local name=$1 rc err
        shift
        n=$((n + 1))
        err=$("$BIN" "$@" 2>&1 >/dev/full); rc=$?
        if [ "$rc" -eq 1 ] && grep -qE "^pmucal-table: writing standard output: .*the output is incomplete" <<<"$err"; then
                echo "ok $n - stdout on a full disk: $name (exit $rc, says so)"
        else
                failed=$((failed + 1))
                echo "not ok $n - stdout on a full disk: $name (exit $rc, want 1 and a message)"
                sed 's/^/# /' <<<"$err"
        fi
}
full_ "show --json" show --json "$good"
full_ "show --csv" show --csv "$good"
full_ "show" show "$good"
full_ "check" check "$good"
full_ "classify" classify "$good" 5ns 80ns
full_ "classify -" classify "$good" - <<<"5ns"
full_ "diff" diff "$good" "$good"
full_ "--help" --help
full_ "--version" --version

echo "1..$n"
[ "$failed" -eq 0 ]
