#!/bin/bash
# Tests for tests/unittests.py, the reader of tests/unittests.cfg (how each unit test links and
# how long it may run): `like` and `+=` give the make variables the table means, and each kind
# of fault in a table is refused with its section named, so that a wrong table stops the build
# instead of linking a test against the wrong doubles. Prints one TAP line per case. Run from
# the repository root.
set -u
PY=${PMUCAL_PYTHON:-python3}
TOOL=$PWD/tests/unittests.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_unittests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2"; }
t() { if [ "$1" -eq 0 ]; then ok "$2"; else not_ok "$2" "${3:-}"; fi; }

# has FILE LINE: FILE holds LINE, whole
has() { grep -qxF -- "$2" "$1"; }

# ---- the project's own table reads ----
out=$("$PY" "$TOOL" --make "$tmp/real.mk" 2>&1); rc=$?
t $rc "tests/unittests.cfg reads without a fault" "$out"

# ---- like, += and = ----
cat >"$tmp/good.cfg" <<'EOF'
[app]
msr = tests/fake_msr_none.c
extra = tests/fake_topology.c
wrap = sym_a
      sym_b

[fmt]
like = app
wrap += sym_c
extra = tests/fake_spin.c
timeout = 40

[stats]
like = fmt
msr = tests/fake_msr.c
EOF
out=$("$PY" "$TOOL" --cfg "$tmp/good.cfg" --make "$tmp/good.mk" 2>&1); rc=$?
t $rc "a good table reads" "$out"
rc=0
has "$tmp/good.mk" "TEST_LDFLAGS_app := -Wl,--wrap=sym_a -Wl,--wrap=sym_b" || rc=1
has "$tmp/good.mk" "TEST_MSR_fmt := tests/fake_msr_none.c" || rc=1
has "$tmp/good.mk" "TEST_LDFLAGS_fmt := -Wl,--wrap=sym_a -Wl,--wrap=sym_b -Wl,--wrap=sym_c" || rc=1
t $rc "like copies a section's keys and += adds to them (continuation lines too)" "$(cat "$tmp/good.mk")"
rc=0
has "$tmp/good.mk" "TEST_EXTRA_fmt := tests/fake_spin.c" || rc=1
has "$tmp/good.mk" "TEST_MSR_stats := tests/fake_msr.c" || rc=1
has "$tmp/good.mk" "TEST_EXTRA_stats := tests/fake_spin.c" || rc=1
t $rc "= replaces what like gave; like follows a chain" "$(cat "$tmp/good.mk")"
out=$("$PY" "$TOOL" --cfg "$tmp/good.cfg" --timeouts 2>&1)
[ "$out" = "$(printf 'fmt 40\nstats 40')" ]
t $? "--timeouts lists the tests with their own timeout, inherited ones too" "$out"

# ---- each fault refused, its section named, and no make file written ----
# fault NAME MESSAGE: the table on stdin fails with MESSAGE in its output
fault() {
	cat >"$tmp/bad.cfg"
	rm -f "$tmp/bad.mk"
	out=$("$PY" "$TOOL" --cfg "$tmp/bad.cfg" --make "$tmp/bad.mk" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && grep -qF -- "$2" <<<"$out" && [ ! -e "$tmp/bad.mk" ]
	t $? "$1 is refused" "exit $rc: $out"
}
fault "a section with no tests/test_<name>.c" "[no_such_test]: no tests/test_no_such_test.c" <<'EOF'
[no_such_test]
msr = tests/fake_msr.c
EOF
fault "an unknown key" "[fmt]: unknown key 'warp'" <<'EOF'
[fmt]
warp = sym_a
EOF
fault "a file that does not exist" "[fmt]: extra = tests/no_such_double.c: no such file" <<'EOF'
[fmt]
extra = tests/no_such_double.c
EOF
fault "like naming no section" "[fmt]: like = app names no section" <<'EOF'
[fmt]
like = app
EOF
fault "like going round" "goes round in a circle" <<'EOF'
[fmt]
like = stats
[stats]
like = fmt
EOF
fault "a timeout that is not a number of seconds" "[fmt]: timeout = 1m is not a whole number" <<'EOF'
[fmt]
timeout = 1m
EOF

echo "1..$n"
[ "$failed" -eq 0 ]
