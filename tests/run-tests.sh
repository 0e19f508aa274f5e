#!/usr/bin/env bash
# Run everything `make test` runs and end with one line "N passed, N failed":
#   1. host unit tests (cmocka, TAP output), one binary per module;
#   2. shell tests tests/test_*.sh (TAP output);
#   3. each fuzzer for a bounded time over a copy of its corpus;
#   4. the QEMU smoke boots in tests/qemu.cfg, checked by tests/qemu_checks.py (every JSON file
#      each boot saves is validated against docs/schemas/ by tests/check_schemas.py);
#   5. asan: the unit tests and the CLI cases (tests/test_cli*.sh) again, built under
#      $B/asan with AddressSanitizer + UndefinedBehaviorSanitizer (make test-asan-build).
# A crashed or hung binary counts as a failure. Details go to build/test-logs/.
# ONLY=stage[,stage...] runs some stages: unit, shell, fuzz, qemu, asan.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
logs=$B/test-logs
rm -rf "$logs"; mkdir -p "$logs"
pass=0 fail=0
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
ONLY=${ONLY:-}          # e.g. ONLY=unit or ONLY=qemu to run one stage
QEMU_ONLY=${QEMU_ONLY:-} # e.g. QEMU_ONLY="smoke volume-full-0": only these tests/qemu.cfg cases
# Debian's python3 (python3-jsonschema, python3-pytest come from `make deps`), not whichever
# python3 comes first in PATH; the shell tests get it as PMUCAL_PYTHON.
PMUCAL_PYTHON=${PMUCAL_PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
export PMUCAL_PYTHON

count_tap() { # file -> adds to pass/fail; returns number of test lines
        local f=$1 p q
        p=$(grep -cE '^ok( |$)' "$f" || true)
        q=$(grep -cE '^not ok( |$)' "$f" || true)
        pass=$((pass + p)); fail=$((fail + q))
        grep -E '^not ok' "$f" | sed "s|^|  $(basename "$f" .log): |"
        return $(( p + q > 0 ? 0 : 1 ))
}

stage() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

# Run one TAP-printing command; a non-zero exit with no failing line, or no test line at
# all, is one more failure (a crash, a hang, an assertion that never printed).
run_tap() { # name log command...
        local name=$1 log=$2; shift 2
        "$@" >"$log" 2>&1
        local rc=$? n
        n=$(grep -cE '^(ok|not ok)( |$)' "$log")
        count_tap "$log" >/dev/null
        grep -E '^not ok' "$log" | sed "s|^|  $name: |"
        if [ "$n" -eq 0 ]; then
                echo "  $name: no test lines (exit $rc): counted as a failure"; fail=$((fail + 1))
        elif [ $rc -ne 0 ] && ! grep -q '^not ok' "$log"; then
                echo "  $name: exited $rc after its tests passed: counted as a failure"; fail=$((fail + 1))
        fi
        printf '  %-28s %3d ok, %d not ok\n' "$name" "$(grep -cE '^ok( |$)' "$log")" "$(grep -cE '^not ok( |$)' "$log")"
}

if stage unit; then
        echo "== host unit tests"
        for t in $B/host/tests/test_*; do
                [ -x "$t" ] || continue
                CMOCKA_MESSAGE_OUTPUT=TAP run_tap "$(basename "$t")" "$logs/$(basename "$t").log" timeout 120 "$t"
        done
fi

if stage shell; then
        echo "== shell tests"
        for t in tests/test_*.sh; do
                [ -f "$t" ] || continue
                run_tap "$(basename "$t" .sh)" "$logs/$(basename "$t" .sh).log" timeout 300 bash "$t"
        done
fi

if stage fuzz; then
        echo "== fuzzers (${FUZZ_SECONDS}s each)"
        for f in $B/fuzz/fuzz_*; do
                [ -x "$f" ] || continue
                name=${f##*/fuzz_}
                work=$B/fuzz/corpus_$name
                mkdir -p "$work"
                log=$logs/fuzz_$name.log
                # New inputs go to the scratch corpus in build/, never into tests/corpus/.
                if timeout $((FUZZ_SECONDS + 60)) "$f" -max_total_time="$FUZZ_SECONDS" \
                        -artifact_prefix="$work/" "$work" "tests/corpus/$name" >"$log" 2>&1; then
                        pass=$((pass + 1)); echo "  fuzz_$name: ok ($(grep -o 'Done [0-9]* runs' "$log"))"
                else
                        fail=$((fail + 1)); echo "  fuzz_$name: FAILED (see $log)"
                fi
        done
fi

if stage asan; then
        echo "== AddressSanitizer + UndefinedBehaviorSanitizer ($B/asan)"
        A=$B/asan
        mkdir -p "$logs/asan"
        if [ ! -d "$A/host/tests" ]; then
                echo "  $A not built (make test-asan-build): counted as a failure"; fail=$((fail + 1))
        fi
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
        export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
        for t in "$A"/host/tests/test_*; do
                [ -x "$t" ] || continue
                CMOCKA_MESSAGE_OUTPUT=TAP run_tap "asan $(basename "$t")" "$logs/asan/$(basename "$t").log" timeout 300 "$t"
        done
        for t in tests/test_cli*.sh; do
                PMUCAL_TABLE=$A/host/pmucal-table PMUCAL_HOST=$A/host/pmucal-host \
                        run_tap "asan $(basename "$t" .sh)" "$logs/asan/$(basename "$t" .sh).log" timeout 300 bash "$t"
        done
        # A sanitizer report is a failure even where the test swallowed the exit status.
        if grep -lE '^(==[0-9]+==ERROR|SUMMARY: (Address|Undefined|Leak)Sanitizer)|runtime error:' "$logs"/asan/*.log 2>/dev/null; then
                echo "  sanitizer reports in the logs above: counted as a failure"; fail=$((fail + 1))
        fi
fi

if stage qemu; then
        echo "== QEMU smoke boots (tests/qemu.cfg)"
        run_tap qemu "$logs/qemu.log" "$PMUCAL_PYTHON" tests/qemu_checks.py --cfg tests/qemu.cfg --logs "$logs" \
                ${QEMU_ONLY:+--only "$QEMU_ONLY"}
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
