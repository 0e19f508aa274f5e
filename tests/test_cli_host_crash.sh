#!/bin/bash
# pmucal-host's results as one unit: a run killed (SIGKILL) at each rename it makes, or one
# that runs out of space, leaves --out exactly as the last whole run left it (never the new
# curve beside the old table, nor run 2's c2c.json beside run 1's table), and the next run
# removes what the killed one left (temporary files, its staging folder). The kill comes from
# an LD_PRELOAD shim (tests/kill_at_rename.c, built here). The runs use a 1 MiB quick sweep.
# TAP output. Run from the repository root; PMUCAL_HOST names another binary.
set -u
BIN=${PMUCAL_HOST:-build/host/pmucal-host}
BIN=$(realpath "$BIN" 2>/dev/null || echo "$BIN")
tmp=$(mktemp -d)
mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/tap.sh"
if [ ! -x "$BIN" ]; then
        echo "not ok 1 - $BIN not built (make host)"; echo "1..1"; exit 1
fi
shim=$tmp/kill_at_rename.so
if ! cc -shared -fPIC -O1 -o "$shim" tests/kill_at_rename.c -ldl 2>"$tmp/cc.txt"; then
        echo "not ok 1 - building the rename shim"; sed 's/^/# /' "$tmp/cc.txt"; echo "1..1"; exit 1
fi
cpu=$(( $(nproc) > 1 ? 1 : 0 ))
# The sanitized build wants its runtime first among the preloaded libraries; the shim only
# wraps rename, so the order does not matter here.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
run() { "$BIN" --quick --max-mib 1 --cpu $cpu --seed "$@"; }
sums() { (cd "$1" && find . -type f | sort | xargs -r md5sum); }

# Run 1, whole; a note of the user's beside it must survive every later run.
run 1 --out "$tmp/r" >"$tmp/run1.txt" 2>&1; rc=$?
echo "user's note" >"$tmp/r/notes.txt"
before=$(sums "$tmp/r")
t "$([ $rc -eq 0 ] && [ -s "$tmp/r/latency-table.json" ] && [ -s "$tmp/r/latency-curve.csv" ]; echo $?)" \
  "run 1 writes the curve and the table (exit $rc)" "$(cat "$tmp/run1.txt")"

# How many renames a whole run 2 makes (counted by the shim, no kill).
rm -f "$tmp/renames"
cp -a "$tmp/r" "$tmp/probe"
PMUCAL_RENAME_LOG=$tmp/renames LD_PRELOAD=$shim run 2 --out "$tmp/probe" >/dev/null 2>&1
total=$(wc -l <"$tmp/renames" 2>/dev/null || echo 0)
t "$([ "$total" -ge 2 ]; echo $?)" "a whole run renames $total times (curve, table, the swap)" \
  "$(cat "$tmp/renames" 2>/dev/null)"

for k in $(seq 1 "$total"); do
        LD_PRELOAD=$shim PMUCAL_KILL_AT_RENAME=$k run 2 --out "$tmp/r" >"$tmp/k.txt" 2>&1; rc=$?
        now=$(sums "$tmp/r")
        t "$([ $rc -eq 137 ] && [ "$now" = "$before" ]; echo $?)" \
          "killed at rename $k of $total (exit $rc): --out holds run 1's files, unchanged" \
          "$(diff <(echo "$before") <(echo "$now"); sed -n "${k}p" "$tmp/renames")"
done
left=$(ls -A "$tmp" | grep -E '^\.r\.new-' ; ls -A "$tmp/r" | grep -E '\.tmp-')
t "$([ -n "$left" ]; echo $?)" "the killed runs left their staging folder or temporaries (to clean)" "$(ls -laR "$tmp")"

# Run 3 (whole): replaces the files as a unit, keeps the note, removes the leftovers (and a
# temporary file an earlier version left in the folder itself).
echo partial >"$tmp/r/.latency-table.json.tmp-999999"
run 3 --out "$tmp/r" >"$tmp/run3.txt" 2>&1; rc=$?
left=$(ls -A "$tmp" | grep -E '^\.r\.(new|old)-' ; ls -A "$tmp/r" | grep -E '\.tmp-')
t "$([ $rc -eq 0 ] && [ -z "$left" ] && grep -q "removed .* a killed run left" "$tmp/run3.txt"; echo $?)" \
  "the next run removes what the killed ones left and says so (exit $rc; left: $left)" "$(cat "$tmp/run3.txt")"
t "$([ "$(cat "$tmp/r/notes.txt")" = "user's note" ] && [ "$(ls "$tmp/r" | tr '\n' ' ')" = "latency-curve.csv latency-table.json notes.txt " ]; echo $?)" \
  "run 3's folder: its curve and table and the note, nothing else" "$(ls -la "$tmp/r")"

# A full disk with --with-c2c: run 2 fails for want of space and changes nothing.
mnt="$tmp/small"; mkdir "$mnt"
if [ "$(nproc)" -lt 2 ]; then
        n=$((n + 1)); echo "ok $n - full disk with --with-c2c # SKIP needs two CPUs"
elif mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
        run 1 --with-c2c --out "$mnt/r" >"$tmp/c1.txt" 2>&1; rc1=$?
        before=$(sums "$mnt/r")
        avail=$(df -B1 --output=avail "$mnt" | tail -1)
        head -c $((avail > 6144 ? avail - 6144 : 0)) /dev/zero >"$mnt/filler" 2>/dev/null
        run 2 --with-c2c --out "$mnt/r" >"$tmp/c2.txt" 2>&1; rc=$?
        now=$(sums "$mnt/r")
        t "$([ $rc1 -eq 0 ] && [ -s "$mnt/r/c2c.json" ] && [ $rc -eq 1 ] && [ "$now" = "$before" ] &&
             [ -z "$(ls -A "$mnt" | grep -E '^\.r\.')" ] && grep -q "nothing in .* was changed" "$tmp/c2.txt"; echo $?)" \
          "full disk with --with-c2c: run 2 exits $rc (run 1: $rc1), run 1's files unchanged, no staging left" \
          "$(diff <(echo "$before") <(echo "$now")); ls -la "$mnt" "$mnt/r"; tail -5 "$tmp/c2.txt")"
else
        n=$((n + 1)); echo "ok $n - full disk with --with-c2c # SKIP cannot mount a tmpfs here (not root?)"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
