#!/usr/bin/env bash
# Boot pmucal under QEMU (TCG: no usable KVM here) with OVMF (x86-64) or AAVMF (aarch64) and
# exit with the harness's own status.
#
#   ./run-qemu.sh [options] [-- extra QEMU arguments]
#
#   --arch A        x86_64 (default; q35 + OVMF) or aarch64 (virt with GICv3 + AAVMF)
#   --icount        -icount shift=0: one instruction per virtual nanosecond, so that QEMU's
#                   Arm PMU counts retired instructions (exactly) and runs are repeatable
#   --cpus N        vCPUs (default 4)
#   --nodes N       NUMA nodes, CPUs and memory split evenly; published as SRAT + SLIT
#                   (default 2; 0 = no -numa at all). More nodes than CPUs leaves some
#                   nodes with memory only.
#   --hmat          also publish HMAT latencies and bandwidths (-machine hmat=on); a node
#                   without CPUs takes the nearest node with CPUs as its initiator
#   --mem MiB       memory (default 2048; at least 1)
#   --cpu MODEL     QEMU -cpu model (default max)
#   --config FILE   copied to the boot volume as \pmucal\pmucal.cfg
#   --image IMG     boot (a copy of) this disk image instead, e.g. build/pmucal.img: a GPT or
#                   MBR disk whose first partition is the FAT volume, or a bare FAT volume
#   --readonly      boot volume read-only (USB stick with the write-protect switch on)
#   --usb           attach the boot volume as a USB stick (usb-storage) instead of virtio-blk
#   --out DIR       copy this run's results folder, the serial log and this script's log
#                   here; the work folder under build/run/ is removed after a good copy
#   --keep-disk     with --out: move the disk image QEMU used there too (disk.img)
#   --timeout S     stop QEMU after S seconds (default 600; at least 1: a run that never
#                   ends is not an option, since a crashed firmware spins forever)
#   --efi FILE      the application (default build/pmucal.efi, aarch64:
#                   build/aarch64/pmucal.efi)
#   --secure-boot   boot Debian's Secure Boot firmware whose PK, KEK and db hold the
#                   "snakeoil" test key (OVMF_CODE_4M.snakeoil.fd with SMM, or
#                   AAVMF_CODE.snakeoil.fd): an image signed with that key runs with Secure
#                   Boot on (`make signed-snakeoil` makes build/sb/pmucal.snakeoil.efi); an
#                   unsigned or altered one is refused by the firmware, and this script
#                   stops QEMU at once and says so (status 125)
#   --netboot       no disk at all: boot the application over QEMU's user network (slirp)
#                   with OVMF's own PXE (IPv4, TFTP): a virtio-net NIC without iPXE's option
#                   ROM, DHCP and TFTP from QEMU, served from a folder holding the application
#                   as pmucal.efi and --config (if given) as pmucal.cfg beside it
#   --http-boot     with --netboot: OVMF's HTTP boot instead: the folder is served by a
#                   loopback HTTP server (python3 -m http.server on 127.0.0.1) and DHCP names
#                   http://10.0.2.2:PORT/pmucal.efi; OVMF's PXE entries fail first, then its
#                   "UEFI HTTPv4" entry loads the image
#   --collector URL appended to pmucal.cfg as `collector = URL` (the served one with
#                   --netboot; else the boot volume's, and the machine gets a virtio-net NIC
#                   on QEMU's user network beside its disk); the guest reaches the host's
#                   loopback as 10.0.2.2
#   --extra-nic restricted
#                   with --netboot: a second virtio-net NIC ahead of the boot one, on its own
#                   user network with restrict=on (DHCP answers, but it cannot reach the
#                   host's 10.0.2.2) and first in the boot order, so OVMF connects it first
#                   and lists its network services first; its PXEv4 and HTTP boots fail (no
#                   boot file; PXEv6 is turned off by fw_cfg opt/org.tianocore/IPv6PXESupport)
#                   and the image boots from the other NIC (about 3 minutes more under TCG)
#   --quiet         do not echo the console; it is still in the serial log
#   --              the rest goes to QEMU unchanged
#
# Exit status: the harness's status (0 ok, 1 a check failed, 2 all skipped, 3 results not
# saved, 4 crashed) from QEMU's exit code (status << 1) | 1, which the harness sets through
# isa-debug-exit (x86-64) or Arm semihosting SYS_EXIT_EXTENDED (aarch64: the virt machine has
# no isa-debug-exit); 124 timeout; 125 QEMU,
# the firmware or this script failed (the app never ran); 126 the app ran but gave no status
# (it finished without exiting QEMU, which is then stopped, or it stopped mid-run).
# The closing line says which: the firmware never started, the app never started, the app
# finished but did not exit QEMU, the app hung mid-run (with the last line it printed), or
# the harness's own status.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
given=$(printf ' %q' "$@")
cpus=4 nodes=2 hmat=0 mem=2048 cpu=max config="" image="" readonly=0 usb=0 out="" timeout_s=600
efi="" quiet=0 keep_disk=0 arch=x86_64 icount=0 secure_boot=0 netboot=0 collector="" http_boot=0 extra_nic=""
GRACE_S=3 # how long a finished app may take to exit QEMU before it is stopped
PROGRESS_QUIET_S=80 # a sweep silent this long at the timeout is taken as hung, not as working
extra=()

die() { echo "run-qemu: $*" >&2; exit 125; }
need_arg() { [ $# -ge 2 ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
        case "$1" in
        --arch)      need_arg "$@"; arch=$2; shift 2 ;;
        --icount)    icount=1; shift ;;
        --cpus)      need_arg "$@"; cpus=$2; shift 2 ;;
        --nodes)     need_arg "$@"; nodes=$2; shift 2 ;;
        --hmat)      hmat=1; shift ;;
        --mem)       need_arg "$@"; mem=$2; shift 2 ;;
        --cpu)       need_arg "$@"; cpu=$2; shift 2 ;;
        --config)    need_arg "$@"; config=$2; shift 2 ;;
        --image)     need_arg "$@"; image=$2; shift 2 ;;
        --readonly)  readonly=1; shift ;;
        --usb)       usb=1; shift ;;
        --out)       need_arg "$@"; out=$2; shift 2 ;;
        --keep-disk) keep_disk=1; shift ;;
        --timeout)   need_arg "$@"; timeout_s=$2; shift 2 ;;
        --efi)       need_arg "$@"; efi=$2; shift 2 ;;
        --quiet)     quiet=1; shift ;;
        --secure-boot) secure_boot=1; shift ;;
        --netboot)   netboot=1; shift ;;
        --http-boot) http_boot=1; shift ;;
        --collector) need_arg "$@"; collector=$2; shift 2 ;;
        --extra-nic) need_arg "$@"; extra_nic=$2; shift 2 ;;
        --)          shift; extra=("$@"); break ;;
        -h|--help)   sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *)           die "unknown option $1 (see --help)" ;;
        esac
done
for v in cpus nodes mem timeout_s; do
        [[ ${!v} =~ ^[0-9]+$ ]] || die "--${v%_s} wants a number, got '${!v}'"
done
[ "$cpus" -ge 1 ] || die "--cpus must be at least 1"
[ "$mem" -ge 1 ] || die "--mem must be at least 1 (MiB)"
[ "$timeout_s" -ge 1 ] || die "--timeout must be at least 1 (seconds; there is no 'no limit')"
[ "$nodes" -le "$mem" ] || die "--mem too small for $nodes nodes"
if [ -n "$config" ]; then
        [ -d "$config" ] && die "--config $config is a directory, not a file (give the file, e.g. $config/pmucal.cfg)"
        [ -f "$config" ] || die "config $config not found"
fi
if [ -n "$out" ]; then # before anything boots: a run's results must have somewhere to go
        [ -e "$out" ] && [ ! -d "$out" ] && die "--out $out exists and is not a directory (--out names a folder)"
        mkdir -p "$out" 2>/dev/null || die "--out $out: cannot create the folder"
        [ -w "$out" ] || die "--out $out: the folder is not writable"
fi
if [ -n "$image" ]; then
        [ -d "$image" ] && die "--image $image is a directory, not a disk image"
        [ -f "$image" ] || die "image $image not found"
fi
[ "$keep_disk" -eq 0 ] || [ -n "$out" ] || die "--keep-disk needs --out DIR"
[ "$http_boot" -eq 0 ] || [ "$netboot" -eq 1 ] || die "--http-boot needs --netboot"
[ -z "$extra_nic" ] || [ "$extra_nic" = restricted ] ||
        die "--extra-nic knows only 'restricted', got '$extra_nic'"
[ -z "$extra_nic" ] || [ "$netboot" -eq 1 ] || die "--extra-nic needs --netboot"
[ -z "$collector" ] || [[ $collector =~ ^http://[^/[:space:]]+(/[^[:space:]]*)?$ ]] ||
        die "--collector wants http://HOST[:PORT], got '$collector'"
if [ "$netboot" -eq 1 ]; then
        [ -z "$image" ] || die "--netboot boots no disk: it does not go with --image"
        [ "$usb" -eq 0 ] && [ "$readonly" -eq 0 ] && [ "$keep_disk" -eq 0 ] ||
                die "--netboot boots no disk: it does not go with --usb, --readonly or --keep-disk"
        [ "$arch" = x86_64 ] || die "--netboot is x86_64 only (OVMF's PXE over virtio-net)"
fi
case "$arch" in
x86_64)
        if [ "$secure_boot" -eq 1 ]; then
                OVMF=${OVMF_SB:-/usr/share/OVMF/OVMF_CODE_4M.snakeoil.fd}
                OVMF_VARS=${OVMF_SB_VARS:-/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd}
        fi
        OVMF=${OVMF:-/usr/share/OVMF/OVMF_CODE_4M.fd}
        OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
        QEMU=${QEMU:-qemu-system-x86_64}
        [ -n "$efi" ] || efi="$here/build/pmucal.efi"
        qemu_pkg=qemu-system-x86 fw_pkg=ovmf ;;
aarch64)
        if [ "$secure_boot" -eq 1 ]; then
                OVMF=${AAVMF_SB:-/usr/share/AAVMF/AAVMF_CODE.snakeoil.fd}
                OVMF_VARS=${AAVMF_SB_VARS:-/usr/share/AAVMF/AAVMF_VARS.snakeoil.fd}
        else
                OVMF=${AAVMF:-/usr/share/AAVMF/AAVMF_CODE.fd}
                OVMF_VARS=${AAVMF_VARS:-/usr/share/AAVMF/AAVMF_VARS.fd}
        fi
        QEMU=${QEMU_AARCH64:-qemu-system-aarch64}
        [ -n "$efi" ] || efi="$here/build/aarch64/pmucal.efi"
        qemu_pkg=qemu-system-arm fw_pkg=qemu-efi-aarch64 ;;
*)      die "--arch wants x86_64 or aarch64, got '$arch'" ;;
esac
for f in "$OVMF" "$OVMF_VARS"; do [ -f "$f" ] || die "$f missing (make deps installs $fw_pkg)"; done
# The application must be a PE/COFF image ("MZ", then "PE\0\0" where offset 0x3c points):
# anything else is named here, not by the tools that would trip over it later.
if [ -n "$efi" ] && [ -z "$image" ] && [ -e "$efi" ]; then
        [ -d "$efi" ] && die "--efi $efi is a directory, not a UEFI application"
        sig=$(head -c 2 "$efi" | od -An -c | tr -d ' ') || true
        pe=$(od -An -tu4 -j 60 -N 4 "$efi" 2>/dev/null | tr -d ' ') || true
        pesig=""
        [ -n "$pe" ] && [ "$pe" -lt 65536 ] && { pesig=$(head -c $((pe + 4)) "$efi" | tail -c 4 | od -An -c | tr -d ' ') || true; }
        [ "$sig" = MZ ] && [ "$pesig" = 'PE\0\0' ] ||
                die "--efi $efi is not a UEFI application (no PE/COFF 'MZ'/'PE' header; build/pmucal.efi is one)"
fi
command -v "$QEMU" >/dev/null || die "$QEMU missing (make deps installs $qemu_pkg)"

# AAVMF and pmucal are AArch64 code: a CPU model without AArch64 (cortex-a15, cortex-a7, ...)
# would run them as A32 and print nothing until the timeout. Ask QEMU before booting: on the
# virt machine a CPU with AArch64 comes out of reset in it, and its monitor then shows
# PSTATE; an AArch32-only one shows R00..R15 and CPSR.
if [ "$arch" = aarch64 ] && [ "$cpu" != max ] && [ "$cpu" != host ]; then
        regs=$(printf 'info registers\nquit\n' |
               timeout 20 "$QEMU" -machine virt -cpu "$cpu" -S -display none -nodefaults \
                       -monitor stdio 2>&1) || true
        if grep -q 'R00=' <<<"$regs" && ! grep -q 'PSTATE=' <<<"$regs"; then
                die "-cpu $cpu has no AArch64 state (QEMU starts it in AArch32): AAVMF and" \
                    "pmucal are 64-bit code and would run to the timeout printing nothing;" \
                    "pick an AArch64 model (max, cortex-a57, cortex-a72, neoverse-n1, ...)"
        fi
        grep -qi 'unable to find\|invalid\|not supported' <<<"$regs" &&
                die "-cpu $cpu: $(grep -i -m1 'unable to find\|invalid\|not supported' <<<"$regs" |
                                  sed 's/^(qemu) //')"
fi

mkdir -p "$here/build/run"
work=$(mktemp -d "$here/build/run/qemu.XXXXXX")
log="$work/run-qemu.log"
serial="$work/serial.log"
resets="$work/qemu-resets.log"
note() { echo "$*" >>"$log"; }
note "run-qemu $(date -u +%FT%TZ): $0$given"

# The FAT volume of a disk image as mtools names it: the image itself when it starts with a
# FAT boot sector, else its first partition (GPT or MBR).
fat_of() {
        local start
        if mdir -i "$1" ::/ >/dev/null 2>&1; then echo "$1"; return; fi
        start=$(partx -g -o START -n 1 "$1" 2>/dev/null | tr -d ' ') || true
        [ -n "$start" ] || return 1
        echo "$1@@$(( start * 512 ))"
}

# ---- the boot disk ----
img="$work/disk.img"
vol=""
if [ "$netboot" -eq 0 ] && [ -n "$collector" ]; then
        # the boot volume's config with the collector added
        { [ -n "$config" ] && cat "$config" && echo
          echo "collector = $collector"; } >"$work/pmucal.cfg"
        config="$work/pmucal.cfg"
fi
if [ "$netboot" -eq 1 ]; then
        # The served folder: the application and its config beside it, nothing else.
        [ -f "$efi" ] || die "$efi not found: run make first"
        mkdir -p "$work/tftp"
        cp "$efi" "$work/tftp/pmucal.efi"
        if [ -n "$config" ]; then
                cp "$config" "$work/tftp/pmucal.cfg"
        fi
        if [ -n "$collector" ]; then
                { [ -f "$work/tftp/pmucal.cfg" ] && cat "$work/tftp/pmucal.cfg" && echo
                  echo "collector = $collector"; } >"$work/tftp/pmucal.cfg.new"
                mv "$work/tftp/pmucal.cfg.new" "$work/tftp/pmucal.cfg"
        fi
        note "netboot: serving $(ls "$work/tftp" | tr '\n' ' ')from $work/tftp"
elif [ -n "$image" ]; then
        cp --sparse=always "$image" "$img"
        vol=$(fat_of "$img") || die "$image has no FAT volume (bare, or as its first partition)"
        if [ -n "$config" ]; then
                mmd -i "$vol" ::/pmucal 2>/dev/null || true
                mcopy -o -i "$vol" "$config" ::/pmucal/pmucal.cfg || die "cannot put config into $image"
        fi
else
        [ -f "$efi" ] || die "$efi not found: run make first"
        "$here/tools/mkimage.sh" "$img" "$efi" "$config" >>"$log"
        vol="$img@@1M"
fi
cp "$OVMF_VARS" "$work/vars.fd"

# ---- NUMA topology: CPUs and memory split evenly, distance 10 local / 20 + 10 per hop ----
node_lo() { echo $(( $1 * cpus / nodes )); }
node_hi() { echo $(( ($1 + 1) * cpus / nodes - 1 )); }
has_cpus() { [ "$(node_hi "$1")" -ge "$(node_lo "$1")" ]; }
# QEMU wants every node's HMAT initiator to be a node with CPUs: the node itself, else the
# nearest one that has some (the lower on a tie).
initiator_of() {
        local n=$1 d
        for ((d = 0; d < nodes; d++)); do
                if [ $(( n - d )) -ge 0 ] && has_cpus $(( n - d )); then echo $(( n - d )); return; fi
                if [ $(( n + d )) -lt "$nodes" ] && has_cpus $(( n + d )); then echo $(( n + d )); return; fi
        done
}
numa=()
machine="q35"
# OVMF's Secure Boot build keeps its variables behind SMM: the flash is writable only from it.
sb_args=()
if [ "$secure_boot" -eq 1 ] && [ "$arch" = x86_64 ]; then
        machine="q35,smm=on"
        sb_args=(-global driver=cfi.pflash01,property=secure,value=on)
fi
# virt: GICv3, whose system-register CPU interface the harness routes the PMU PPI through.
[ "$arch" = aarch64 ] && machine="virt,gic-version=3"
if [ "$nodes" -gt 0 ]; then
        [ "$hmat" -eq 1 ] && machine="$machine,hmat=on"
        per_mem=$(( mem / nodes ))
        mem=$(( per_mem * nodes ))
        for ((n = 0; n < nodes; n++)); do
                numa+=(-object "memory-backend-ram,id=m$n,size=${per_mem}M")
                spec="node,nodeid=$n,memdev=m$n"
                has_cpus "$n" && spec="$spec,cpus=$(node_lo "$n")-$(node_hi "$n")"
                [ "$hmat" -eq 1 ] && spec="$spec,initiator=$(initiator_of "$n")"
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
                # Only nodes with CPUs are initiators.
                for ((a = 0; a < nodes; a++)); do
                        has_cpus "$a" || continue
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
nic=(-nic none)
if [ "$netboot" -eq 1 ]; then
        # romfile= (empty): no iPXE option ROM, so OVMF's VirtioNetDxe, SNP and PXE base code
        # (IPv4) load the application; QEMU's slirp answers DHCP with the boot file name and
        # serves it over TFTP.
        disk=()
        bootfile=pmucal.efi
        if [ "$http_boot" -eq 1 ]; then
                command -v python3 >/dev/null || die "--http-boot needs python3 (its http.server)"
                http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
                python3 -m http.server --bind 127.0.0.1 --directory "$work/tftp" "$http_port" \
                        >>"$work/http.log" 2>&1 &
                http_pid=$!
                trap 'kill "$http_pid" 2>/dev/null || true' EXIT
                bootfile="http://10.0.2.2:$http_port/pmucal.efi"
                note "netboot: HTTP boot from $bootfile (server pid $http_pid)"
        fi
        nic=()
        boot_index=0
        if [ "$extra_nic" = restricted ]; then
                nic=(-netdev "user,id=n1,restrict=on,ipv6=off"
                     -device "virtio-net-pci,netdev=n1,romfile=,bootindex=0"
                     -fw_cfg name=opt/org.tianocore/IPv6PXESupport,string=n)
                boot_index=1
        fi
        nic+=(-netdev "user,id=n0,tftp=$work/tftp,bootfile=$bootfile,ipv6=off"
              -device "virtio-net-pci,netdev=n0,romfile=,bootindex=$boot_index")
elif [ "$usb" -eq 1 ]; then
        disk=(-drive "if=none,id=esp,format=raw,file=$img$ro" -device qemu-xhci -device usb-storage,drive=esp,bootindex=0)
elif [ -n "$collector" ]; then
        # a NIC beside the disk for the upload; no option ROM and no boot index: the disk boots
        disk=(-drive "if=none,id=esp,format=raw,file=$img$ro" -device virtio-blk-pci,drive=esp,bootindex=0)
        nic=(-netdev "user,id=n0,ipv6=off" -device "virtio-net-pci,netdev=n0,romfile=")
else
        disk=(-drive "if=none,id=esp,format=raw,file=$img$ro" -device virtio-blk-pci,drive=esp,bootindex=0)
fi

# Several vCPUs spinning on 2 host cores crawl under multi-threaded TCG; one thread is faster.
# -d cpu_reset logs a triple fault (a firmware that cannot start on this CPU model).
accel=(-accel tcg,thread=single)
[ "$icount" -eq 1 ] && accel+=(-icount shift=0)
if [ "$arch" = aarch64 ]; then
        status_dev=(-semihosting-config enable=on,target=native)
        vga=()
else
        status_dev=(-device isa-debug-exit,iobase=0xf4,iosize=0x04)
        vga=(-vga none)
fi
cmd=("$QEMU" -machine "$machine" "${accel[@]}" -cpu "$cpu" -smp "$cpus" -m "${mem}M"
     -drive "if=pflash,format=raw,unit=0,file=$OVMF,readonly=on"
     -drive "if=pflash,format=raw,unit=1,file=$work/vars.fd"
     "${disk[@]}" "${numa[@]}"
     "${nic[@]}" -display none "${vga[@]}" -no-reboot
     -chardev "file,id=ser0,path=$serial" -serial chardev:ser0
     "${status_dev[@]}" "${sb_args[@]}"
     -d cpu_reset -D "$resets"
     "${extra[@]}")
note "command: ${cmd[*]}"

# ---- run, and stop QEMU once the app has finished but not left ----
# The serial log without the firmware's escape sequences and CRs.
text() { sed 's/\x1b\[[0-9;=]*[A-Za-z]//g; s/\r//g' "$serial" 2>/dev/null; }
finished() { grep -q '^FATAL:' "$serial" 2>/dev/null || fw_exception >/dev/null ||
             { grep -q '^SUMMARY:' "$serial" 2>/dev/null && grep -q '^RESULTS' "$serial"; }; }
# The firmware's boot manager would not run the image: edk2's BdsDxe prints "failed to load
# BootNNNN ...: Access Denied" when Secure Boot rejects a signature (or finds none), then
# "No bootable option" once it has tried the rest.
refusal() { text | grep -m1 -E '^BdsDxe: failed to (load|start) Boot[0-9A-F]{4} .*: (Access Denied|Security Violation)'; }
refused() { [ -n "$(refusal)" ] && text | grep -q 'No bootable option or device was found'; }
# The firmware's own exception dump (edk2 CpuExceptionHandlerLib on x86, DefaultExceptionHandler
# on Arm): after it the firmware spins forever, so the run is over; prints its first line.
fw_exception() { grep -a -m1 -E '^!!!! (X64|IA32) Exception Type|^(Synchronous|IRQ|FIQ|SError) Exception at 0x' \
                      "$serial" 2>/dev/null | tr -d '\r' | cut -c1-100; }

start=$(date +%s.%N)
touch "$serial"
[ "$quiet" -eq 1 ] || { tail -n +1 -F "$serial" 2>/dev/null & tailer=$!; }
set +e
timeout --foreground -k 5 "$timeout_s" "${cmd[@]}" </dev/null >>"$log" 2>&1 &
qpid=$!
done_at="" stopped=0
while kill -0 "$qpid" 2>/dev/null; do
        if [ -z "$done_at" ] && { finished || refused; }; then done_at=$SECONDS; fi
        if [ -n "$done_at" ] && [ $(( SECONDS - done_at )) -ge "$GRACE_S" ]; then
                stopped=1
                kill -TERM "$qpid" 2>/dev/null
                break
        fi
        sleep 0.5
done
wait "$qpid"
qrc=$?
set -e
end=$(date +%s.%N)
if [ "$quiet" -eq 0 ]; then
        sleep 0.3; kill "$tailer" 2>/dev/null; wait "$tailer" 2>/dev/null || true
        # A VM stopped mid-line leaves the copied serial output without its newline: the
        # closing line below must still start a line of its own.
        if [ -n "$(tail -c 1 "$serial" 2>/dev/null)" ]; then echo; fi
fi
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

# ---- what happened ----
last=$(text | grep -v '^[[:space:]]*$' | tail -n 1 | cut -c1-120 || true)
app_started=0 # (grep -q on a pipe would end it early: a SIGPIPE that pipefail counts)
grep -q '^pmucal ' < <(text) && app_started=1
exc=$(fw_exception || true)
if [ "$app_started" -eq 0 ] && [ -n "$(refusal)" ]; then
        status=125
        sb_state="Secure Boot firmware"
        [ "$secure_boot" -eq 1 ] || sb_state="the firmware"
        msg="the firmware refused the image: $sb_state would not run it ('$(refusal | cut -c1-140)'): it is unsigned, altered after signing, or signed by a key not in the firmware's db"
elif [ "$stopped" -eq 1 ] && [ -n "$exc" ] && ! grep -q '^FATAL:' "$serial"; then
        if [ "$app_started" -eq 1 ]; then
                status=4
                msg="the app crashed into the firmware's exception handler ('$exc'; the last line it printed: '$last'): stopped it"
        else
                status=125
                msg="the firmware crashed before the app started ('$exc'): stopped it"
                [ "$mem" -lt 128 ] && msg="$msg; --mem $mem MiB is likely too little memory for the firmware (give 128 or more)"
        fi
elif [ "$stopped" -eq 1 ] && grep -q '^FATAL:' "$serial"; then
        status=4
        msg="the app crashed ('$(grep -m1 '^FATAL:' "$serial" | tr -d '\r' | cut -c1-100)') and did not exit QEMU: stopped it"
elif [ "$stopped" -eq 1 ]; then
        status=126
        msg="the app finished ('$(grep '^SUMMARY:' "$serial" | tail -n 1 | tr -d '\r')', RESULTS line printed) but did not exit QEMU (debug_exit = off?): stopped it ${GRACE_S}s later"
elif [ $(( qrc & 1 )) -eq 1 ] && grep -q '^SUMMARY:\|^FATAL:' "$serial"; then
        status=$(( qrc >> 1 ))
        msg="harness exited with status $status"
elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
        status=124
        quiet_s=$(( ${end%.*} - $(stat -c %Y "$serial") ))
        # The sweep prints its progress line after the first point visit that ends 30 s or more
        # after the last line: 30 s plus one visit (a few seconds under TCG, more on a loaded
        # host; 35-40 s apart were seen on an idle 2-core host). Quiet for up to twice that is
        # still working.
        if [ "$app_started" -eq 1 ] && [ "$quiet_s" -le "$PROGRESS_QUIET_S" ] &&
           grep -qE "^INFO: latency: (progress: point|measuring [0-9]+ working sets)" <<<"$last"; then
                msg="timed out after ${timeout_s}s while the app was still working (its last line, a progress line of the sweep, came ${quiet_s}s before the end; there is one about every 30 s, and silence up to ${PROGRESS_QUIET_S} s is still taken as work): give a longer --timeout or ask for a smaller sweep (sweep_max_mib, profile); the last line it printed: '$last'"
        elif [ "$app_started" -eq 1 ]; then
                msg="timed out after ${timeout_s}s: the app hung mid-run (or needs a longer --timeout); the last line it printed: '$last'"
        elif [ -s "$serial" ]; then
                msg="timed out after ${timeout_s}s: the app never started (only firmware output on the serial port, the last: '$last')"
        else
                hint="too short a --timeout?"
                [ "$mem" -lt 256 ] && hint="--mem $mem MiB may be too little for the firmware"
                msg="timed out after ${timeout_s}s: the app never started (empty serial log: the firmware printed nothing; $hint)"
        fi
elif [ "$qrc" -eq 0 ] && [ "$app_started" -eq 1 ]; then
        status=126
        if grep -q '^SUMMARY:' "$serial"; then
                msg="the app finished but QEMU shut down or reset without its status (debug_exit = off?)"
        else
                msg="the app stopped mid-run without a status (QEMU shut down or reset); the last line it printed: '$last'"
        fi
elif [ "$qrc" -eq 0 ] && [ ! -s "$serial" ]; then
        status=125
        if grep -q 'Triple fault' "$resets" 2>/dev/null; then
                msg="the firmware never started: the CPU triple-faulted before any output (can -cpu $cpu run the 64-bit firmware? it needs long mode)"
        else
                msg="the firmware never started: QEMU ended before any serial output"
        fi
elif [ "$qrc" -eq 0 ]; then
        status=125
        msg="the app never started: QEMU ended after firmware output only (the last: '$last')"
else
        status=125
        msg="QEMU failed (exit $qrc): $(grep -v '^command: \|^run-qemu \|^mkimage: ' "$log" | tail -n 3 | tr '\n' ' ')"
fi
note "result: qemu exit $qrc -> status $status after ${secs}s: $msg"

# ---- results out of the image: only the folder this run says it saved ----
where="log $log"
if [ -n "$out" ]; then
        mkdir -p "$out"
        copy_ok=1
        run=$(text | sed -n 's/^RESULTS: saved to \\pmucal\\results\\\([^\\]*\)\\.*/\1/p' | tail -n 1)
        if [ -n "$run" ] && [ -n "$vol" ]; then
                if mcopy -s -n -i "$vol" "::/pmucal/results/$run" "$out/" 2>>"$log" &&
                   [ -f "$out/$run/report.txt" ]; then
                        note "copied \\pmucal\\results\\$run\\ to $out/$run"
                        where="results in $out/$run"
                else
                        copy_ok=0
                        note "could not copy \\pmucal\\results\\$run\\ out of the image"
                        where="results NOT copied (see $out/run-qemu.log)"
                fi
        fi
        if [ "$keep_disk" -eq 1 ]; then
                mv "$img" "$out/disk.img"
                note "disk image kept as $out/disk.img"
        fi
        cp "$serial" "$out/"
        cp "$log" "$out/"
        if [ "$copy_ok" -eq 1 ]; then
                rm -rf "$work"
                where="log $out/run-qemu.log${run:+, results in $out/$run}"
        else
                where="$where; work folder kept: $work"
        fi
fi
echo "run-qemu: $msg (${secs}s; $where)" >&2
exit "$status"
