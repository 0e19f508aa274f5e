#!/bin/bash
# run-qemu.sh's own behaviour: argument errors (no boot), and the closing line and status for
# each way a boot can go wrong: the firmware never starts (a CPU without long mode), the app
# never starts (a timeout before it, too little memory), the app is stopped mid-run (the last
# line it printed is named; the VM is paused through QMP once the app runs), the app finishes
# but does not exit QEMU (stopped at once, not at the timeout); with that last boot, --out
# from a bare FAT image, the log's record of the options, the work folder's removal. Boots are
# short (profile = pmu, 1 CPU). One TAP line per check.
set -u
cd "$(dirname "$0")/.."
RQ=./run-qemu.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_runqemu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { # COND-EXIT-CODE NAME
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2"; fi
}

# rq NAME WANT_RC WANT_RE ARGS...: run run-qemu.sh, check its status and that its closing
# line matches the extended regex WANT_RE; the output is kept in $out, the seconds in $secs.
rq() {
        local name=$1 want_rc=$2 want_re=$3 rc t0
        shift 3
        t0=$SECONDS
        out=$("$RQ" --quiet "$@" 2>&1); rc=$?
        secs=$((SECONDS - t0))
        [ "$rc" -eq "$want_rc" ] && grep -qE -- "$want_re" <<<"$out"
        ok $? "$name (exit $rc, want $want_rc; ${secs}s)"
        [ "$rc" -eq "$want_rc" ] && grep -qE -- "$want_re" <<<"$out" || sed 's/^/# /' <<<"$out"
}

[ -f build/pmucal.efi ] || make -s all >"$tmp/build.log" 2>&1 ||
        { echo "not ok 1 - make all"; sed 's/^/# /' "$tmp/build.log"; exit 1; }
printf 'profile = pmu\ndebug_exit = off\n' >"$tmp/noexit.cfg"
printf 'profile = full\n' >"$tmp/full.cfg"
small=(--cpus 1 --nodes 0)

# A run that stops making progress mid-run: once the app has printed its inventory heading,
# the VM is paused through QEMU's monitor (QMP), as a hang leaves it (no output, no exit), and
# the timeout names the last line printed. The timeout only has to outlast the boot: 120 s, as a
# boot under TCG on a loaded 2-core machine took longer than 25 s to reach the inventory, and
# once 92 s when `make test`'s pool shared the cores. The paused VM takes no CPU: the other
# boots, and the long sweep below, run while it waits out its timeout.
qmp_stop() { # socket: pause the VM
        "$PMUCAL_PYTHON" - "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
for cmd in ("qmp_capabilities", "stop"):
    f.write(json.dumps({"execute": cmd}) + "\n")
    f.flush()
    f.readline()
PY
}
pause_at_inventory() { # serial lines on stdin, passed on; pause the VM at "== inventory"
        local line paused=0
        while IFS= read -r line; do
                printf '%s\n' "$line"
                if [ "$paused" -eq 0 ] && [[ $line == "== inventory"* ]]; then
                        qmp_stop "$tmp/qmp.sock" && paused=1
                fi
        done
}
PMUCAL_PYTHON=${PMUCAL_PYTHON:-python3}
hang_t0=$SECONDS
# started first and checked last: it waits out its timeout while the other boots run
( "$RQ" "${small[@]}" --config "$tmp/full.cfg" --timeout 120 \
        -- -qmp "unix:$tmp/qmp.sock,server=on,wait=off" 2>&1 | pause_at_inventory
  echo "status ${PIPESTATUS[0]}" ) >"$tmp/hang.out" &
hang_pid=$!

# ---- arguments: refused before anything boots ----
mkdir "$tmp/adir"
rq "--timeout 0 refused" 125 "--timeout must be at least 1" --timeout 0
rq "--mem 0 refused" 125 "--mem must be at least 1" --mem 0
rq "--image DIR says it is a directory" 125 "--image $tmp/adir is a directory" --image "$tmp/adir"
rq "--keep-disk without --out refused" 125 "--keep-disk needs --out" --keep-disk
rq "--config DIR says it is a directory" 125 "--config $tmp/adir is a directory, not a file" --config "$tmp/adir"
echo "a file" >"$tmp/afile"
rq "--out FILE refused before booting" 125 "--out $tmp/afile exists and is not a directory" --out "$tmp/afile" "${small[@]}"
[ "$secs" -lt 5 ] && [ "$(cat "$tmp/afile")" = "a file" ]
ok $? "--out FILE: refused at once (${secs}s), the file untouched"
rq "--efi of a text file named as not an application" 125 "--efi /etc/hostname is not a UEFI application" --efi /etc/hostname "${small[@]}"
grep -q "od:" <<<"$out"; [ $? -ne 0 ]; ok $? "--efi of a text file: no raw od error"
tools/mkimage.sh "$tmp/x.img" /etc/hostname >"$tmp/mk.txt" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "is not a UEFI application" "$tmp/mk.txt" && ! grep -q "od:" "$tmp/mk.txt"
ok $? "mkimage.sh with a text file for the application says so (exit $rc)"

# ---- boots that go wrong, each named for what happened ----
rq "--cpu n270: the firmware never started" 125 "the firmware never started: the CPU triple-faulted" \
        "${small[@]}" --cpu n270 --timeout 60
grep -q "returned to firmware" <<<"$out"; [ $? -ne 0 ]; ok $? "--cpu n270: not 'returned to firmware'"
if command -v "${QEMU_AARCH64:-qemu-system-aarch64}" >/dev/null; then
        # A 32-bit-only Arm model: named at once, not after a silent timeout.
        rq "--arch aarch64 --cpu cortex-a15: no AArch64, said before booting" 125 \
                "-cpu cortex-a15 has no AArch64 state" --arch aarch64 --cpu cortex-a15 --timeout 400
        [ "$secs" -lt 30 ]; ok $? "--cpu cortex-a15: diagnosed in ${secs}s, not at the 400 s timeout"
fi
rq "--timeout 1: the app never started" 124 "timed out after 1s: the app never started" \
        "${small[@]}" --timeout 1
rq "--mem 16: the app never started" 124 "timed out after 3s: the app never started .*--mem 16 MiB" \
        "${small[@]}" --mem 16 --timeout 3
# A VM stopped mid-line (a hang, or the pause below) leaves the serial output without its last
# newline; the closing line still starts a line of its own, where a reader (and the checks
# below) look for it. A stand-in for QEMU writes that serial log and waits for the timeout.
cat >"$tmp/midline-qemu" <<'EOF'
#!/bin/bash
for a in "$@"; do case $a in file,id=ser0,path=*) ser=${a#file,id=ser0,path=} ;; esac; done
printf 'BdsDxe: starting Boot0001\r\npmucal (a stand-in)\r\n== inventory ==\r\nINFO: inventory: half a li' >>"$ser"
exec sleep 600
EOF
chmod +x "$tmp/midline-qemu"
out=$(QEMU=$tmp/midline-qemu "$RQ" "${small[@]}" --timeout 3 2>&1); rc=$?
[ "$rc" -eq 124 ] &&
        grep -qE "^run-qemu: timed out after 3s: the app hung mid-run .*the last line it printed: 'INFO: inventory: half a li'" <<<"$out"
r=$?
ok $r "a VM stopped mid-line: the closing line starts its own line (exit $rc)"
[ $r -eq 0 ] || sed 's/^/# /' <<<"$out"

# --mem 32: OVMF dies of a #GP while it starts; the dump is seen and the boot stopped at
# once, with the memory named, not run to the timeout.
rq "--mem 32: the firmware crashed, stopped early, memory named" 125 \
        "the firmware crashed before the app started \('!!!! X64 Exception Type - 0D.*--mem 32 MiB is likely too little memory" \
        "${small[@]}" --mem 32 --timeout 120
[ "$secs" -lt 60 ]; ok $? "--mem 32: stopped long before the 120 s timeout (${secs}s)"

# ---- a run that finishes without exiting QEMU, from a bare (unpartitioned) FAT image with
# --out: stopped at once; the results copied; the log; the work folder ----
img=$tmp/bare.img
mkfs.vfat -n PMUCAL -C "$img" 34816 >/dev/null &&
        mmd -i "$img" ::/EFI ::/EFI/BOOT && mcopy -i "$img" build/pmucal.efi ::/EFI/BOOT/BOOTX64.EFI
ok $? "bare FAT image made"
rq "debug_exit = off: finished, did not exit QEMU, stopped" 126 \
        "the app finished \('SUMMARY: .*RESULTS line printed\) but did not exit QEMU" \
        "${small[@]}" --image "$img" --config "$tmp/noexit.cfg" --out "$tmp/o" --timeout 200
[ "$secs" -lt 100 ]; ok $? "debug_exit = off: QEMU stopped long before the 200 s timeout (${secs}s)"
run=$(sed -n "s|.*results in $tmp/o/\([^)]*\)).*|\1|p" <<<"$out")
[ -n "$run" ] && [ -f "$tmp/o/$run/report.txt" ] && [ -f "$tmp/o/$run/inventory.json" ]
ok $? "--out: the results it names ($run) were copied"
head -n 1 "$tmp/o/run-qemu.log" | grep -qF -- "--cpus 1 --nodes 0 --image $img --config $tmp/noexit.cfg --out $tmp/o --timeout 200"
ok $? "run-qemu.log records the options as given"
work=$(sed -n 's|.*unit=1,file=\([^ ]*\)/vars\.fd.*|\1|p' "$tmp/o/run-qemu.log" | head -n 1)
[ -n "$work" ] && [ ! -e "$work" ] && ! grep -q "build/run/qemu\." <<<"$out"
ok $? "the work folder under build/run/ is gone after the copy (${work:-not named in the log})"

# A sweep far larger than the machine (sweep_max_mib = 1 TiB, profile = full): it says what it
# measures before it starts and where it is about every 30 s, and the timeout reads as "still
# working", not as a hang. Booted once the others are done, while the paused VM above waits:
# a loaded machine slows the sweep's points. 1536 MiB, so that the sweep (up to half the
# memory, 72 working sets, five passes) cannot end within the 120 s even on a fast machine:
# on an idle 2-core host here it had run 287 s and was in its fourth pass; at 512 MiB it
# finished in 77.5 s. 120 s leaves a loaded boot (up to ~60 s) room for a progress line.
printf 'profile = full\nsweep_max_mib = 1048576\n' >"$tmp/huge.cfg"
( "$RQ" "${small[@]}" --mem 1536 --config "$tmp/huge.cfg" --timeout 120 --out "$tmp/huge" --quiet 2>&1
  echo "status $?" ) >"$tmp/huge.out" &
huge_pid=$!

wait "$hang_pid"
secs=$((SECONDS - hang_t0))
out=$(cat "$tmp/hang.out")
rc=$(sed -n 's/^status //p' <<<"$out" | tail -n 1)
closing=$(grep '^run-qemu: ' <<<"$out" | tail -n 1)
[ "$rc" = 124 ] && grep -qE "timed out after 120s: the app hung mid-run .*the last line it printed: '.+'" <<<"$closing"
r=$?
ok $r "a run stopped mid-run names the last line it printed (exit $rc, want 124; ${secs}s)"
[ $r -eq 0 ] || sed 's/^/# /' <<<"$closing"

wait "$huge_pid"
out=$(cat "$tmp/huge.out")
rc=$(sed -n 's/^status //p' <<<"$out" | tail -n 1)
grep -qE "timed out after 120s while the app was still working .*INFO: latency: progress: point [0-9]+ of [0-9]+ .*s so far" <<<"$out" && [ "$rc" = 124 ]
r=$?
ok $r "sweep_max_mib = 1 TiB at 1536 MiB: the timeout says the sweep was still working (exit $rc)"
[ $r -eq 0 ] || sed 's/^/# /' <<<"$out"
grep -qE "^INFO: latency: measuring [0-9]+ working sets from [0-9]+ to [0-9]+ bytes \(1099511627776 asked" "$tmp/huge/serial.log"
ok $? "sweep_max_mib = 1 TiB: the range it measures is said before the first point"

echo "1..$n"
[ "$failed" -eq 0 ]
