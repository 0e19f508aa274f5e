#!/bin/bash
# Tests for tools/check_paths.py: a small git tree whose comments and docs name a moved file,
# another project's file, a file missing on purpose and files that exist; only the moved one
# may be reported, with its file and line. Then the real tree: no comment, doc or script names
# a file of the tree that is not there. Prints one TAP line per case. Run from the repository
# root.
set -u
TOOL=$PWD/tools/check_paths.py
PY=${PMUCAL_PYTHON:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_paths.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2"; }

t=$tmp/tree
mk() { mkdir -p "$(dirname "$t/$1")"; cat >"$t/$1"; }
mk boot/uefi/uefi_excl.c <<'EOF'
/** @file The x86-64 side of the firmware build. */
EOF
mk boot/uefi/uefi_arm64.c <<'EOF'
/** @file
 * The AArch64 side of the firmware build, counterpart of boot/uefi/uefi_excl.c.
 * memcpy comes from GNU-EFI's lib/init.c; the events follow Linux's
 * tools/perf/pmu-events/arch/arm64/common-and-microarch.json.
 */
EOF
mk lib/log.c <<'EOF'
/* A test opens tests/data/does-not-exist.txt to see the error. */
EOF
mk docs/architecture.md <<'EOF'
# Layers
The UEFI side is boot/uefi/uefi_arm64.c and boot/uefi/uefi_excl.c.
EOF
mk tests/data/notes.txt <<'EOF'
data may name boot/gone.c: it is not read
EOF
git -C "$t" init -q && git -C "$t" add -A

out=$("$PY" "$TOOL" --root "$t" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then ok "a tree whose paths all exist passes (another project's, a missing-on-purpose one and data left alone)"
else not_ok "a tree whose paths all exist passes (exit $rc)" "$out"; fi

git -C "$t" mv boot/uefi/uefi_excl.c boot/x86_excl.c
out=$("$PY" "$TOOL" --root "$t" 2>&1); rc=$?
want="paths: boot/uefi/uefi_arm64.c:2: names boot/uefi/uefi_excl.c, which is not in the tree
paths: docs/architecture.md:2: names boot/uefi/uefi_excl.c, which is not in the tree"
if [ "$rc" -eq 1 ] && [ "$out" = "$want" ]; then ok "a moved file is reported where a comment and a doc still name it"
else not_ok "a moved file is reported where a comment and a doc still name it (exit $rc)" "$out"; fi

out=$("$PY" "$TOOL" --root . 2>&1); rc=$?
if [ "$rc" -eq 0 ]; then ok "the real tree: every path a comment, doc or script names is in the tree"
else not_ok "the real tree: every path a comment, doc or script names is in the tree (exit $rc)" "$out"; fi

echo "1..$n"
[ "$failed" -eq 0 ]
