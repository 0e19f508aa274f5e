#!/usr/bin/env bash
# Boot pmucal under QEMU/OVMF (TCG: no usable KVM here) and exit with the harness's own status.
#
#   ./run-qemu.sh [options] [-- extra QEMU arguments]
#
#   --cpus N        vCPUs (default 4)
#   --nodes N       NUMA nodes, CPUs and memory split evenly; published as SRAT + SLIT
#                   (default 2; 0 = no -numa at all)
#   --hmat          also publish HMAT latencies and bandwidths (-machine hmat=on)
#   --mem MiB       memory (default 2048)
#   --cpu MODEL     QEMU -cpu model (default max)
#   --config FILE   copied to the boot volume as \pmucal\pmucal.cfg
#   --image IMG     boot (a copy of) this disk image instead, e.g. build/pmucal.img
#   --readonly      boot volume read-only (USB stick with the write-protect switch on)
#   --usb           attach the boot volume as a USB stick (usb-storage) instead of virtio-blk
#   --out DIR       copy the results folders, serial log and this script's log here
#   --timeout S     kill QEMU after S seconds and exit 124 (default 600)
#   --efi FILE      the application (default build/pmucal.efi)
#   --quiet         do not echo the console; it is still in the serial log
#   --              the rest goes to QEMU unchanged
#
# Exit status: the harness's status (0 ok, 1 a check failed, 2 all skipped, 3 results not
# saved, 4 crashed) from QEMU's isa-debug-exit ((status << 1) | 1); 124 timeout; 125 QEMU or
# this script failed; 126 the app returned to the firmware without a status.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cpus=4 nodes=2 hmat=0 mem=2048 cpu=max config="" image="" readonly=0 usb=0 out="" timeout_s=600
efi="$here/build/pmucal.efi" quiet=0
OVMF=${OVMF:-/usr/share/OVMF/OVMF_CODE_4M.fd}
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
QEMU=${QEMU:-qemu-system-x86_64}
extra=()

die() { echo "run-qemu: $*" >&2; exit 125; }
need_arg() { [ $# -ge 2 ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
        case "$1" in
        --cpus)     need_arg "$@"; cpus=$2; shift 2 ;;
        --nodes)    need_arg "$@"; nodes=$2; shift 2 ;;
        --hmat)     hmat=1; shift ;;
        --mem)      need_arg "$@"; mem=$2; shift 2 ;;
        --cpu)      need_arg "$@"; cpu=$2; shift 2 ;;
        --config)   need_arg "$@"; config=$2; shift 2 ;;
        --image)    need_arg "$@"; image=$2; shift 2 ;;
        --readonly) readonly=1; shift ;;
        --usb)      usb=1; shift ;;
        --out)      need_arg "$@"; out=$2; shift 2 ;;
        --timeout)  need_arg "$@"; timeout_s=$2; shift 2 ;;
        --efi)      need_arg "$@"; efi=$2; shift 2 ;;
        --quiet)    quiet=1; shift ;;
        --)         shift; extra=("$@"); break ;;
        -h|--help)  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *)          die "unknown option $1 (see --help)" ;;
        esac
done
for v in cpus nodes mem timeout_s; do
        [[ ${!v} =~ ^[0-9]+$ ]] || die "--${v%_s} wants a number, got '${!v}'"
done
[ "$cpus" -ge 1 ] || die "--cpus must be at least 1"
[ "$nodes" -le "$mem" ] || die "--mem too small for $nodes nodes"
[ -n "$config" ] && { [ -f "$config" ] || die "config $config not found"; }
for f in "$OVMF" "$OVMF_VARS"; do [ -f "$f" ] || die "$f missing (make deps installs ovmf)"; done
command -v "$QEMU" >/dev/null || die "$QEMU missing (make deps installs qemu-system-x86)"

mkdir -p "$here/build/run"
work=$(mktemp -d "$here/build/run/qemu.XXXXXX")
log="$work/run-qemu.log"
serial="$work/serial.log"
note() { echo "$*" >>"$log"; }
note "run-qemu $(date -u +%FT%TZ): $0 $*"

# ---- the boot disk ----
img="$work/disk.img"
if [ -n "$image" ]; then
        [ -f "$image" ] || die "image $image not found"
        cp --sparse=always "$image" "$img"
        if [ -n "$config" ]; then
                mcopy -o -i "$img@@1M" "$config" ::/pmucal/pmucal.cfg || die "cannot put config into $image"
        fi
else
        [ -f "$efi" ] || die "$efi not found: run make first"
        "$here/tools/mkimage.sh" "$img" "$efi" "$config" >>"$log"
fi
cp "$OVMF_VARS" "$work/vars.fd"

# ---- NUMA topology: CPUs and memory split evenly, distance 10 local / 20 + 10 per hop ----
numa=()
machine="q35"
if [ "$nodes" -gt 0 ]; then
        [ "$hmat" -eq 1 ] && machine="$machine,hmat=on"
        per_mem=$(( mem / nodes ))
        mem=$(( per_mem * nodes ))
        for ((n = 0; n < nodes; n++)); do
                lo=$(( n * cpus / nodes )); hi=$(( (n + 1) * cpus / nodes - 1 ))
                numa+=(-object "memory-backend-ram,id=m$n,size=${per_mem}M")
                spec="node,nodeid=$n,memdev=m$n"
                [ "$hi" -ge "$lo" ] && spec="$spec,cpus=$lo-$hi"
                if [ "$hmat" -eq 1 ]; then
                        # A node without CPUs takes node 0 as its initiator.
                        if [ "$hi" -ge "$lo" ]; then spec="$spec,initiator=$n"; else spec="$spec,initiator=0"; fi
                fi
                numa+=(-numa "$spec")
        done
        for ((a = 0; a < nodes; a++)); do
                for ((b = 0; b < nodes; b++)); do
                        [ "$a" -eq "$b" ] && continue
                        d=$(( a > b ? a - b : b - a ))
                        numa+=(-numa "dist,src=$a,dst=$b,val=$(( 10 + 10 * d + (d > 1 ? 1 : 0) ))")
                done
        done
        if [ "$hmat" -eq 1 ]; then
                # Latency ns: 80 local + 40 per hop; bandwidth: 20 GB/s local, halved per hop.
                for ((a = 0; a < nodes; a++)); do
                        lo=$(( a * cpus / nodes )); hi=$(( (a + 1) * cpus / nodes - 1 ))
                        [ "$hi" -ge "$lo" ] || continue
                        for ((b = 0; b < nodes; b++)); do
                                d=$(( a > b ? a - b : b - a ))
                                numa+=(-numa "hmat-lb,initiator=$a,target=$b,hierarchy=memory,data-type=access-latency,latency=$(( 80 + 40 * d ))")
                                numa+=(-numa "hmat-lb,initiator=$a,target=$b,hierarchy=memory,data-type=access-bandwidth,bandwidth=$(( 20480 >> d ))M")
                        done
                done
        fi
fi

ro=""
[ "$readonly" -eq 1 ] && ro=",readonly=on"
if [ "$usb" -eq 1 ]; then
        disk=(-drive "if=none,id=esp,format=raw,file=$img$ro" -device qemu-xhci -device usb-storage,drive=esp,bootindex=0)
else
        disk=(-drive "if=none,id=esp,format=raw,file=$img$ro" -device virtio-blk-pci,drive=esp,bootindex=0)
fi

# Several vCPUs spinning on 2 host cores crawl under multi-threaded TCG; one thread is faster.
accel=(-accel tcg,thread=single)
cmd=("$QEMU" -machine "$machine" "${accel[@]}" -cpu "$cpu" -smp "$cpus" -m "${mem}M"
     -drive "if=pflash,format=raw,unit=0,file=$OVMF,readonly=on"
     -drive "if=pflash,format=raw,unit=1,file=$work/vars.fd"
     "${disk[@]}" "${numa[@]}"
     -nic none -display none -vga none -no-reboot
     -chardev "file,id=ser0,path=$serial" -serial chardev:ser0
     -device isa-debug-exit,iobase=0xf4,iosize=0x04
     "${extra[@]}")
note "command: ${cmd[*]}"

start=$(date +%s.%N)
[ "$quiet" -eq 1 ] || { touch "$serial"; tail -n +1 -F "$serial" 2>/dev/null & tailer=$!; }
set +e
timeout --foreground -k 5 "$timeout_s" "${cmd[@]}" </dev/null >>"$log" 2>&1
qrc=$?
set -e
end=$(date +%s.%N)
[ "$quiet" -eq 1 ] || { sleep 0.3; kill "$tailer" 2>/dev/null; wait "$tailer" 2>/dev/null || true; }
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
        status=124
        msg="timed out after ${timeout_s}s (a crashed UEFI app leaves OVMF spinning)"
elif [ $(( qrc & 1 )) -eq 1 ] && grep -q '^SUMMARY:\|^FATAL:' "$serial" 2>/dev/null; then
        status=$(( qrc >> 1 ))
        msg="harness exited with status $status"
elif [ "$qrc" -eq 0 ]; then
        status=126
        msg="QEMU exited without a status from the harness (returned to firmware or shut down)"
else
        status=125
        msg="QEMU failed (exit $qrc): $(tail -n 3 "$log" | tr '\n' ' ')"
fi
note "result: qemu exit $qrc -> status $status after ${secs}s: $msg"

if [ -n "$out" ]; then
        mkdir -p "$out"
        cp "$serial" "$log" "$out/"
        if mdir -i "$img@@1M" ::/pmucal/results >/dev/null 2>&1; then
                mcopy -s -n -i "$img@@1M" "::/pmucal/results/*" "$out/" 2>>"$log" || true
        fi
fi
echo "run-qemu: $msg (${secs}s; log $log${out:+, results in $out})" >&2
exit "$status"
