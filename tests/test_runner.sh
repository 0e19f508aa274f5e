#!/bin/bash
# tests/run-tests.sh itself, on a tree of its own: two shell tests, one passing and one failing
# with a diagnostic, and one that crashes after passing. The runner must end with its one line
# "N passed, N failed", exit non-zero, and repeat every failure, with its diagnostic, in a
# "== failed" section above that line (the end of a long CI log is what a reader sees).
# Usage: tests/test_runner.sh
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmucal-runner.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
TAP_PREFIX="runner: "
. tests/tap.sh

mkdir -p "$tmp/tests"
cp tests/run-tests.sh "$tmp/tests/"
cat >"$tmp/tests/test_good.sh" <<'EOF'
echo "ok 1 - good one"
echo "ok 2 - good two"
EOF
cat >"$tmp/tests/test_bad.sh" <<'EOF'
echo "ok 1 - bad first"
echo "not ok 2 - bad second"
echo "#   measured 562, expected 574"
echo "ok 3 - bad third"
EOF
cat >"$tmp/tests/test_crash.sh" <<'EOF'
echo "ok 1 - crash first"
exit 3
EOF
out=$(cd "$tmp" && ONLY=shell JOBS=2 bash tests/run-tests.sh 2>&1); rc=$?

t "$([ "$rc" -ne 0 ] && echo 0 || echo 1)" "a failure makes the runner exit non-zero (exit $rc)" "$out"
last=$(printf '%s\n' "$out" | tail -n 1)
t "$([ "$last" = "5 passed, 2 failed" ] && echo 0 || echo 1)" "the last line counts checks and failures ($last)" "$out"
recap=$(printf '%s\n' "$out" | sed -n '/^== failed$/,$p')
case $recap in
*"test_bad: not ok 2 - bad second"*) r=0 ;; *) r=1 ;;
esac
t "$r" "the failed section repeats the failing check" "$out"
case $recap in
*"measured 562, expected 574"*) r=0 ;; *) r=1 ;;
esac
t "$r" "the failed section carries the check's diagnostic" "$out"
case $recap in
*"test_crash: exited 3 after its tests passed"*) r=0 ;; *) r=1 ;;
esac
t "$r" "the failed section names a test that exited non-zero after passing" "$out"
case $recap in
*good*) r=1 ;; *) r=0 ;;
esac
t "$r" "the failed section names nothing that passed" "$out"

rm "$tmp/tests/test_bad.sh" "$tmp/tests/test_crash.sh"
out=$(cd "$tmp" && ONLY=shell JOBS=2 bash tests/run-tests.sh 2>&1); rc=$?
case $out in
*"== failed"*) r=1 ;; *) r=0 ;;
esac
t "$([ "$rc" -eq 0 ] && [ "$r" -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = "2 passed, 0 failed" ] && echo 0 || echo 1)" \
  "a clean run exits 0, ends with \"2 passed, 0 failed\" and has no failed section" "$out"
