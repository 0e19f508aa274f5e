#!/bin/sh
# pmucal-host --inventory (part of `make test`): the firmware's inventory phase on Linux.
#   1. this machine: exit 0, inventory.json validates against docs/schemas/, its CPU brand is
#      /proc/cpuinfo's "model name", report.txt holds the console's inventory;
#   2. recorded CPUID dumps of every layout the corpus holds (AIDA64 blocks with [SL] tags,
#      the bare headerless list, `cpuid -r`): each validates and names the processor the dump
#      itself names; --cpu N picks a block (the Lunar Lake dump's block 1 is a Skymont E-core:
#      the dump's own text gives it a 4 MB L2 and no 192 KB L1D); a --cpu past the dump's
#      blocks is a usage error (exit 2);
#   3. tools/cpuid-convert.py's `cpuid -r` text of a block decodes to the same inventory
#      caches and TLBs as the block itself (the converter and the decoder read alike);
#   4. --acpi-dir with acpixtract's file names (apic.dat, srat.dat, slit.dat, hmat.dat of the
#      QEMU 3-node fixture, tests/data/acpi/qemu72-q35-3node-hmat-*.dat): 3 MADT processors,
#      3 SRAT nodes.
# Output is TAP. Usage: tests/test_inventory_host.sh [PMUCAL_HOST]. Exit 0 pass, 1 fail.
set -u
bin=${1:-build/host/pmucal-host}
py=${PMUCAL_PYTHON:-python3}
n=0
fail=0
[ -x "$bin" ] || { echo "ok 1 - inventory-host # SKIP $bin not built (make host)"; echo "1..1"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # check EXIT-STATUS MESSAGE
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - inventory-host: $2"; else echo "not ok $n - inventory-host: $2"; fail=1; fi
}
valid() { "$py" tests/check_schemas.py "$1/inventory.json" > "$1.schema" 2>&1; }
field() { # field DIR PYTHON-EXPRESSION-OF-d
        "$py" -c 'import json, sys; d = json.load(open(sys.argv[1] + "/inventory.json")); print(eval(sys.argv[2]))' "$1" "$2"
}
real=tests/data/cpuid/real

# 1. this machine
"$bin" --inventory --out "$tmp/self" > "$tmp/self.txt" 2>&1
check $? "this machine: exit 0"
valid "$tmp/self"
check $? "this machine: inventory.json validates"
want=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1 | sed 's/ *$//')
got=$(field "$tmp/self" 'd["cpu"]["brand"]')
[ "$got" = "$want" ]
check $? "this machine: brand \"$got\" is /proc/cpuinfo's \"$want\""
grep -q "^== inventory ==" "$tmp/self/report.txt" && grep -q "^Caches" "$tmp/self/report.txt"
check $? "this machine: report.txt holds the inventory"

# 2. recorded dumps of each layout: file, --cpu, the brand the dump names
while read -r file cpu brand; do
        out="$tmp/dump-$(basename "$file" .txt)-$cpu"
        "$bin" --inventory --cpuid-dump "$file" --cpu "$cpu" --out "$out" > "$out.txt" 2>&1
        rc=$?
        valid "$out"
        v=$?
        got=$(field "$out" 'd["cpu"]["brand"]' 2>/dev/null)
        [ $rc -eq 0 ] && [ $v -eq 0 ] && [ "$got" = "$brand" ]
        check $? "$(basename "$file") block $cpu: exit $rc, validates, brand \"$got\""
done <<EOF2
$real/intel-ultra9-288v-lunarlake.txt 0 Intel(R) Core(TM) Ultra 9 288V
$real/amd-ryzen-ai9-hx370-zen5.txt 1 AMD Ryzen AI 9 HX 370 w/ Radeon 890M
$real/intel-nehalem-es.txt 0 Genuine Intel(R) CPU             000  @ 2>13GHz
$real/intel-atom-z3740-silvermont.txt 0 Intel(R) Atom(TM) CPU  Z3740  @ 1.33GHz
tests/data/cpuid/amd-epyc-genoa-kvm.txt 0 AMD EPYC
EOF2
e="$tmp/dump-intel-ultra9-288v-lunarlake-1"
"$bin" --inventory --cpuid-dump $real/intel-ultra9-288v-lunarlake.txt --cpu 1 --out "$e" > "$e.txt" 2>&1
l2=$(field "$e" '[c["size_bytes"] for c in d["caches"] if c["level"] == 2][0]')
unlisted=$(field "$e" 'len([c for c in d["caches"] if c["source"]])')
[ "$l2" = $((4096 * 1024)) ] && [ "$unlisted" = 0 ]
check $? "Lunar Lake block 1 (Skymont): L2 $l2 B (AIDA64: 4 MB), $unlisted caches CPUID omits"
p="$tmp/dump-intel-ultra9-288v-lunarlake-txt-0"
"$bin" --inventory --cpuid-dump $real/intel-ultra9-288v-lunarlake.txt --out "$p" > "$p.txt" 2>&1
unlisted=$(field "$p" '[c["size_bytes"] // 1024 for c in d["caches"] if c["source"]]')
[ "$unlisted" = "[192]" ] && grep -q "not in CPUID: 192 KB L1 data cache" "$p/report.txt"
check $? "Lunar Lake block 0 (Lion Cove): the 192 KB L1D leaf 4 omits is named ($unlisted)"
"$bin" --inventory --cpuid-dump $real/intel-ultra9-288v-lunarlake.txt --cpu 2 --out "$tmp/nope" > "$tmp/nope.txt" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "has 2 processor blocks" "$tmp/nope.txt"
check $? "--cpu 2 of a 2-block dump: usage error (exit $rc)"

# 3. the converter's cpuid -r text decodes as the block itself
"$py" tools/cpuid-convert.py --cpu 1 $real/intel-ultra9-288v-lunarlake.txt > "$tmp/conv.txt"
"$bin" --inventory --cpuid-dump "$tmp/conv.txt" --out "$tmp/conv" > "$tmp/conv.out" 2>&1
a=$(field "$e" '(d["caches"], d["tlbs"], d["pmu"])')
b=$(field "$tmp/conv" '(d["caches"], d["tlbs"], d["pmu"])')
[ -n "$a" ] && [ "$a" = "$b" ]
check $? "tools/cpuid-convert.py --cpu 1 gives the caches, TLBs and PMU of block 1"

# 4. recorded ACPI tables under acpixtract's names
mkdir -p "$tmp/acpi"
for t in apic srat slit hmat; do cp tests/data/acpi/qemu72-q35-3node-hmat-$t.dat "$tmp/acpi/$t.dat"; done
"$bin" --inventory --cpuid-dump tests/data/cpuid/amd-epyc-genoa-kvm.txt --acpi-dir "$tmp/acpi" \
        --out "$tmp/acpi-out" > "$tmp/acpi-out.txt" 2>&1
rc=$?
valid "$tmp/acpi-out"
v=$?
madt=$(field "$tmp/acpi-out" 'd["cpus"]["madt_processors"]')
nodes=$(field "$tmp/acpi-out" 'd["numa"]["nodes"]')
[ $rc -eq 0 ] && [ $v -eq 0 ] && [ "$madt" = 3 ] && [ "$nodes" = 3 ]
check $? "--acpi-dir (apic.dat, srat.dat, ...): exit $rc, validates, $madt MADT processors, $nodes nodes"

echo "1..$n"
exit $fail
