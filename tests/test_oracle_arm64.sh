#!/usr/bin/env bash
# The AArch64 kernels' counts against an oracle that is not pmucal's: each kernel of
# bench/arm64/ (the firmware's own objects, in the static program
# tests/oracle_kernels_arm64.c) runs under qemu-user at two lengths with one instruction per
# translation block and the exec trace unchained (-singlestep -d in_asm,exec,nochain), so that the trace has one line per
# executed instruction, and QEMU's disassembly of each block names that instruction. Over the
# kernel's symbols it counts instructions, branches (every B, BL, BR, BLR, RET, B.cond,
# CBZ/CBNZ, TBZ/TBNZ: what PMUv3's BR_RETIRED counts) and loads (LD* mnemonics: what
# LD_RETIRED counts); the difference of the two lengths, divided by the difference in length,
# is what one iteration executes. It must equal what the kernels' headers claim, compiled for
# AArch64 (oracle_kernels --claims: BENCH_LOOP_INSNS_PER_ITER, BENCH_PATTERN_INSNS_*_BYTE,
# BENCH_CHASE_INSNS_PER_ITER ...), the numbers app/arm64/validate.c and the shared suite
# expect on a PMUv3. Where the harness takes an iteration to run in an address range (the skid
# loop's body, in which validate.c expects the sampled PCs), every instruction of an
# iteration must lie in it.
# qemu-user rather than the firmware under qemu-system's -icount: no firmware boot (a
# second, not minutes, under TCG), the count attributed to each kernel by address, and loads
# and branches, which QEMU's PMUv3 does not count, classed from the instruction stream.
# TAP output; qemu-user comes from `make deps` (installed here if missing; SKIP only when it
# cannot be installed).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
B=${B:-build}
py=${PMUCAL_PYTHON:-python3}
qemu=${QEMU_AARCH64:-qemu-aarch64}
TAP_PREFIX="oracle-arm64: "
. tests/tap.sh
if ! command -v "$qemu" >/dev/null; then
        if ! why=$(tools/install-deps.sh qemu-user 2>&1); then
                echo "ok 1 - oracle-arm64: the AArch64 kernels' counts # SKIP $qemu missing and" \
                     "qemu-user could not be installed: $(tail -1 <<<"$why")"
                echo "1..1"; exit 0
        fi
        if ! command -v "$qemu" >/dev/null; then
                t 1 "$qemu in PATH once qemu-user is installed"
                echo "1..$n"; exit 1
        fi
fi
out=$(make -s --no-print-directory B="$B" "$B/aarch64/oracle_kernels" 2>&1)
t $? "build $B/aarch64/oracle_kernels" "$out"
bin=$B/aarch64/oracle_kernels
[ -x "$bin" ] || { echo "1..$n"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
claims=$("$qemu" "$bin" --claims)
t $? "oracle_kernels --claims ran under $qemu" "$claims"

# Instructions, branches and loads executed under the symbols in $2 (comma separated), and the
# instructions among them in the address range $3 (0xLO:0xHI; - for none), from the trace
# $1; fails when a translation block held more than one instruction (the exec lines would
# then count blocks, not instructions).
counts() { # log symbols range
        "$py" - "$1" "$2" "$3" <<'PY'
import re, sys
path, syms = sys.argv[1], set(sys.argv[2].split(","))
lo, hi = (int(x, 16) for x in sys.argv[3].split(":")) if sys.argv[3] != "-" else (0, 0)
insn = re.compile(r"^0x([0-9a-f]+):\s+[0-9a-f]{8}\s+(\S+)")
trace = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] (\S+)")
branch = re.compile(r"^(b|bl|br|blr|ret|cbz|cbnz|tbz|tbnz|b\.\w+)$")
mnem, block, i, b, d, r = {}, None, 0, 0, 0, 0
for line in open(path):
    if line.startswith("IN:"):
        block = 0
        continue
    m = insn.match(line)
    if m and block is not None:
        block += 1
        if block > 1:
            sys.exit("a translation block of more than one instruction at 0x" + m.group(1))
        mnem[int(m.group(1), 16)] = m.group(2)
        continue
    m = trace.match(line)
    if m:
        block = None
        if m.group(2) in syms:
            pc = int(m.group(1), 16)
            if pc not in mnem:
                sys.exit("no disassembly for 0x%x" % pc)
            i += 1
            b += bool(branch.match(mnem[pc]))
            d += mnem[pc].startswith("ld")
            r += lo <= pc < hi
print(i, b, d, r)
PY
}

# Lengths: two, far enough apart that one iteration's counts are whole numbers.
while read -r name insns branches loads syms range; do
        case $name in skid) n1=4 n2=12 ;; *) n1=200 n2=1000 ;; esac
        ok=1
        for len in $n1 $n2; do
                "$qemu" -singlestep -d in_asm,exec,nochain -D "$tmp/$name.$len.trace" \
                        "$bin" "$name" "$len" >"$tmp/$name.$len.log" 2>&1 || ok=0
        done
        if [ $ok = 0 ]; then
                t 1 "$name: ran under $qemu" "$(tail -5 "$tmp/$name.$n2.log")"
                continue
        fi
        c1=$(counts "$tmp/$name.$n1.trace" "$syms" "$range" 2>&1) &&
                c2=$(counts "$tmp/$name.$n2.trace" "$syms" "$range" 2>&1) || {
                t 1 "$name: trace read" "$c1 ${c2:-}"
                continue
        }
        read -r i1 b1 d1 r1 <<<"$c1"
        read -r i2 b2 d2 r2 <<<"$c2"
        d=$((n2 - n1))
        per() { # kind got want
                [ $(($2 % d)) = 0 ] && [ $(($2 / d)) = "$3" ]
                t $? "$name: $1 per iteration: qemu-user $2 / $d = $(($2 / d)), header $3"
        }
        # every count must have seen the kernel run: a symbol missing from the trace is 0 = 0
        [ "$i1" -gt 0 ] && [ "$i2" -gt "$i1" ]
        t $? "$name: the trace runs through $syms ($i1, then $i2 instructions)"
        per instructions $((i2 - i1)) "$insns"
        per branches $((b2 - b1)) "$branches"
        per loads $((d2 - d1)) "$loads"
        [ "$range" = - ] || per "instructions in [${range%:*}, ${range#*:})" $((r2 - r1)) "$insns"
done <<<"$claims"
echo "1..$n"
