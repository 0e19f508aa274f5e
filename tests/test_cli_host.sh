#!/bin/bash
# CLI tests for build/host/pmucal-host: argument parsing (usage errors exit 2 and name the
# option and its range; --tlb and --c2c in any position; --help lists every option), the default output
# folder (a new dated folder, said on the console), the lock on the output folder (a second
# run into a busy folder is refused) and whole-file writes on a full disk (a 16 KiB tmpfs:
# no 0-byte or partial table is left). The runs that measure use a 1 MiB quick sweep (about
# a second). TAP output. Run from the repository root; PMUCAL_HOST names another binary.
set -u
BIN=${PMUCAL_HOST:-build/host/pmucal-host}
BIN=$(realpath "$BIN" 2>/dev/null || echo "$BIN")
tmp=$(mktemp -d)
mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

if [ ! -x "$BIN" ]; then
        echo "not ok 1 - $BIN not built (make host)"; echo "1..1"; exit 1
fi
cpu=$(( $(nproc) > 1 ? 1 : 0 ))

. "$(dirname "$0")/tap.sh"

# usage NAME REGEX ARGS...: exit 2, nothing on stdout, stderr matches REGEX.
usage() {
        local name=$1 re=$2 rc out err
        shift 2
        out=$(cd "$tmp" && "$BIN" "$@" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err")
        [ $rc -eq 2 ] && [ -z "$out" ] && grep -qE -- "$re" <<<"$err"
        t $? "usage: $name (exit $rc)" "$out$err"
}

max=$(( $(getconf _NPROCESSORS_CONF) - 1 ))
usage "--cpu abc"            "--cpu: \"abc\" is not a whole number in 0\.\.$max"    --cpu abc
usage "--cpu -1"             "--cpu: \"-1\" is not a whole number in 0\.\.$max"     --cpu -1
usage "--cpu past the last"  "--cpu: \"$((max + 1))\" is not a whole number in 0\.\.$max" --cpu $((max + 1))
usage "--cpu 1x"             "--cpu: \"1x\""                                        --cpu 1x
usage "--reps 0"             "--reps: \"0\" is not a whole number in 11\.\.1001"   --reps 0
usage "--reps 10"            "--reps: \"10\" is not a whole number in 11\.\.1001"  --reps 10
usage "--reps 1002"          "--reps: \"1002\" is not a whole number in 11\.\.1001" --reps 1002
usage "--reps 5000"          "--reps: \"5000\" is not a whole number in 11\.\.1001" --reps 5000
usage "--reps abc"           "--reps: \"abc\""                                      --reps abc
usage "--reps empty"         "--reps: \"\""                                         --reps ""
usage "--reps +11"           "--reps: \"\+11\""                                     --reps +11
usage "--max-mib -1"         "--max-mib: \"-1\" is not a whole number in 0\.\.1048576" --max-mib -1
usage "--seed overflow"      "--seed: \"18446744073709551616\" is not a whole number" --seed 18446744073709551616
usage "--seed 0x"            "--seed: \"0x\""                                       --seed 0x
usage "missing value"        "--out needs a value"                                  --quick --out
usage "unknown option"       "unknown option '--frob'"                              --frob
usage "stray argument"       "unknown argument 'extra'"                             extra
usage "--layout bad"         "--layout: \"spiral\" is not random, groups or stride" --layout spiral
usage "--page both w/o --tlb" "--page: \"both\" is not 4k or 2m"                   --page both
usage "--tlb last sees --page both as valid, 3k not" "--page: \"3k\" is not 4k, 2m or both" --page 3k --tlb
usage "--tlb in the middle"  "--reps is not an option of --tlb \(it is for the latency sweep\)" --quick --tlb --reps 11
usage "--tlb first"          "--layout is not an option of --tlb"                   --tlb --layout random
usage "--with-tlb w/ --tlb"  "--with-tlb is not an option of --tlb \(it is for the latency sweep\)" --tlb --with-tlb
usage "--c2c last"           "--cpu is not an option of --c2c"                      --cpu 0 --c2c
usage "--rounds without --c2c" "--rounds is not an option of the latency sweep \(it is for --c2c\)" --rounds 20
usage "--c2c --rounds 10"    "--rounds: \"10\" is not a whole number in 11\.\.1000" --c2c --rounds 10
usage "--c2c --rounds 1001"  "--rounds: \"1001\" is not a whole number in 11\.\.1000" --rounds 1001 --c2c
usage "--tlb and --c2c"      "--tlb, --c2c, --numa and --inventory are separate runs" --tlb --quick --c2c
usage "--c2c and --numa"     "--tlb, --c2c, --numa and --inventory are separate runs" --numa --c2c
usage "--ws-mib without --numa" "--ws-mib is not an option of the latency sweep \(it is for --numa\)" --ws-mib 8
usage "--inventory and --numa" "--tlb, --c2c, --numa and --inventory are separate runs" --inventory --numa
usage "--cpuid-dump without --inventory" "--cpuid-dump is not an option of the latency sweep \(it is for --inventory\)" --cpuid-dump x.txt
usage "--cpu past this machine" "--cpu: \"4096\" is not a whole number in 0\.\." --inventory --cpu 4096
usage "--tlb checks --cpu"   "--cpu: \"x\""                                         --page 4k --cpu x --tlb
usage "no run before a usage error" "--reps: \"1\""                                 --out "$tmp/never" --reps 1
t "$([ ! -e "$tmp/never" ]; echo $?)" "a usage error creates no output folder"

help=$("$BIN" --help 2>&1); rc=$?
missing=""
for o in --tlb --c2c --numa --out --cpu --quick --full --page --layout --reps --max-mib --prefetch --seed --with-c2c --with-numa --with-tlb --rounds --ws-mib --windows --load-ms --help; do
        grep -q -- "^  $o" <<<"$help" || missing="$missing $o"
done
t "$([ $rc -eq 0 ] && [ -z "$missing" ]; echo $?)" "--help exits 0 and lists every option${missing:+ (missing:$missing)}" "$help"
t "$([ "$("$BIN" -h)" = "$help" ]; echo $?)" "-h is --help"

# No --out: a new dated folder in the current directory, said on the console; a second run
# in the same second gets its own folder.
mkdir "$tmp/cwd"
out1=$(cd "$tmp/cwd" && "$BIN" --quick --max-mib 1 --cpu $cpu 2>&1); rc1=$?
out2=$(cd "$tmp/cwd" && "$BIN" --quick --max-mib 1 --cpu $cpu 2>&1); rc2=$?
d1=$(sed -n 's/.*no --out given: the results go to the new folder //p' <<<"$out1")
d2=$(sed -n 's/.*no --out given: the results go to the new folder //p' <<<"$out2")
t "$([ $rc1 -eq 0 ] && [[ "$d1" =~ ^pmucal-[0-9]{8}T[0-9]{6}Z ]] && [ -s "$tmp/cwd/$d1/latency-table.json" ] &&
     [ -s "$tmp/cwd/$d1/latency-curve.csv" ]; echo $?)" "no --out: a new folder ($d1) named on the console holds the results" "$out1"
t "$([ $rc2 -eq 0 ] && [ -n "$d2" ] && [ "$d1" != "$d2" ] && [ -s "$tmp/cwd/$d2/latency-table.json" ]; echo $?)" \
  "no --out twice: a second new folder ($d2)" "$out2"
t "$([ ! -e "$tmp/cwd/latency-table.json" ] && [ -z "$(ls -A "$tmp/cwd/$d1" | grep -v '^latency-')" ]; echo $?)" \
  "nothing written into the current directory itself, no temporary files left" "$(ls -laR "$tmp/cwd")"

# One allowed CPU: --c2c has nothing to measure and says so (the SKIP line used to be held
# and never printed).
if command -v taskset >/dev/null; then
        out=$(taskset -c 0 "$BIN" --c2c --out "$tmp/c2c1" 2>&1); rc=$?
        t "$([ $rc -eq 0 ] && grep -q "^SKIP: c2c: 1 processor takes part: a transfer needs two" <<<"$out"; echo $?)" \
          "taskset -c 0 --c2c: prints its SKIP line (exit $rc)" "$out"
else
        n=$((n + 1)); echo "ok $n - taskset -c 0 --c2c # SKIP no taskset"
fi

# A read-only --out that exists: refused before the sweep (it used to be found after it).
ro="$tmp/ro"; mkdir "$ro"
if mount -t tmpfs -o size=1m tmpfs "$ro" 2>/dev/null && mkdir "$ro/r" && mount -o remount,ro "$ro"; then
        out=$("$BIN" --out "$ro/r" --full --max-mib 64 --cpu $cpu 2>&1); rc=$?
        umount "$ro"
        t "$([ $rc -eq 1 ] && grep -q "cannot use $ro/r as the results folder: Read-only file system" <<<"$out" &&
             ! grep -q "latency" <<<"$out"; echo $?)" "a read-only --out is refused before measuring (exit $rc)" "$out"
else
        umount "$ro" 2>/dev/null
        n=$((n + 1)); echo "ok $n - read-only --out # SKIP cannot mount a read-only tmpfs here (not root?)"
fi

# Standard output on a full disk: the run says it could not write and exits 1.
err=$("$BIN" --out "$tmp/devfull" --quick --max-mib 1 --cpu $cpu 2>&1 >/dev/full); rc=$?
t "$([ $rc -eq 1 ] && grep -q "^pmucal-host: writing standard output: " <<<"$err"; echo $?)" \
  "stdout on /dev/full: exit $rc, says so" "$err"

# The lock: while another process holds DIR, a run into DIR is refused before measuring.
mkdir "$tmp/busy"
flock "$tmp/busy" -c "touch '$tmp/held'; while [ ! -e '$tmp/release' ]; do sleep 0.1; done" &
holder=$!
for _ in $(seq 50); do [ -e "$tmp/held" ] && break; sleep 0.1; done
out=$("$BIN" --out "$tmp/busy" --quick --max-mib 1 --cpu $cpu 2>&1); rc=$?
touch "$tmp/release"; wait $holder
t "$([ $rc -eq 1 ] && grep -q "is in use by another pmucal-host run" <<<"$out" && [ -z "$(ls -A "$tmp/busy")" ]; echo $?)" \
  "a locked --out is refused (exit $rc) and left untouched" "$out"
"$BIN" --out "$tmp/busy" --full --reps 101 --max-mib 4 --cpu $cpu >"$tmp/busy.txt" 2>&1 &
run=$! held=1 ino=$(stat -c %i "$tmp/busy")
# /proc/locks: "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF" (reading it takes no lock)
while kill -0 $run 2>/dev/null; do
        awk -v p=$run -v i=":$ino" '$2 == "FLOCK" && $4 == "WRITE" && $5 == p && substr($6, length($6) - length(i) + 1) == i { f = 1 } END { exit !f }' /proc/locks && { held=0; break; }
        sleep 0.02
done
wait $run
t $held "the folder is locked while a run measures and writes into it" "$(cat "$tmp/busy.txt")"

# A full disk: a 16 KiB tmpfs with a 12 KiB file in it. The curve fits, the table does not,
# or neither: whatever is left is whole (no 0-byte file, no temporary file), the run exits 1
# and says "no space".
mnt="$tmp/small"; mkdir "$mnt"
if mount -t tmpfs -o size=16k tmpfs "$mnt" 2>/dev/null; then
        head -c 12288 /dev/zero >"$mnt/filler"
        out=$("$BIN" --out "$mnt/r" --quick --max-mib 1 --cpu $cpu 2>&1); rc=$?
        empty=$(find "$mnt/r" -type f -size 0 2>/dev/null); tmps=$(ls -A "$mnt/r" 2>/dev/null | grep '\.tmp-')
        t "$([ $rc -eq 1 ] && grep -qi "volume is full" <<<"$out" && [ -z "$empty" ] && [ -z "$tmps" ]; echo $?)" \
          "full disk: exit $rc, says so, no empty or temporary file (left: $(ls "$mnt/r" 2>/dev/null | tr '\n' ' '))" "$out"
        if [ -e "$mnt/r/latency-table.json" ]; then
                python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$mnt/r/latency-table.json"
                t $? "full disk: the table that is there parses"
        fi
        # An earlier complete table survives a failed rewrite.
        rm -f "$mnt/filler"; rm -rf "$mnt/r"
        "$BIN" --out "$mnt/r" --quick --max-mib 1 --cpu $cpu >/dev/null 2>&1
        before=$(md5sum <"$mnt/r/latency-table.json")
        avail=$(df -B1 --output=avail "$mnt" | tail -1)
        head -c $((avail > 1024 ? avail - 1024 : 0)) /dev/zero >"$mnt/filler" 2>/dev/null
        "$BIN" --out "$mnt/r" --quick --max-mib 1 --cpu $cpu >/dev/null 2>&1; rc=$?
        t "$([ $rc -eq 1 ] && [ "$(md5sum <"$mnt/r/latency-table.json")" = "$before" ]; echo $?)" \
          "full disk: the previous latency-table.json is kept whole (exit $rc)"
else
        n=$((n + 1)); echo "ok $n - full disk # SKIP cannot mount a tmpfs here (not root?)"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
