#!/usr/bin/env bash
# Run everything `make test` runs and end with one line "N passed, N failed":
#   unit   host unit tests (cmocka, TAP output), one binary per module (tests/unittests.cfg
#          says how each links and how long it may run), built under $B/asan
#          with AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer
#          (make test-asan-build); SANITIZE=0 runs the plain build in $B/host/tests (make unit);
#   shell  tests/test_*.sh (TAP output); the CLI cases (tests/test_cli*.sh) drive the
#          sanitized pmucal-table and pmucal-host; the hosted measurements
#          (tests/test_hosted*.sh) run first and alone, on a quiet machine;
#   fuzz   each fuzzer for FUZZ_SECONDS over a copy of its corpus;
#   qemu   the boots in tests/qemu.cfg, checked by tests/qemu_checks.py (every JSON file each
#          boot saves is validated against docs/schemas/ by tests/check_schemas.py), booted
#          QEMU_JOBS at a time.
# unit, shell and fuzz share one pool of JOBS processes (default: one per CPU); their lines are
# printed in a fixed order once the pool is done. A crashed or hung binary counts as a failure;
# a sanitizer report in a unit or CLI log is one more. Details go to $B/test-logs/.
# ONLY=stage[,stage...] runs some stages (asan = unit and the CLI cases, sanitized).
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
logs=$B/test-logs
rm -rf "$logs"; mkdir -p "$logs/shell" "$logs/unit"
pass=0 fail=0 skip=0
failures=()             # one line per failure, repeated above the last line
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SANITIZE=${SANITIZE:-1}
ONLY=${ONLY:-}          # e.g. ONLY=unit or ONLY=qemu to run one stage
QEMU_ONLY=${QEMU_ONLY:-} # e.g. QEMU_ONLY="smoke volume-full-0": only these tests/qemu.cfg cases
# Debian's python3 (python3-jsonschema, python3-pytest come from `make deps`), not whichever
# python3 comes first in PATH; the shell tests get it as PMUCAL_PYTHON.
PMUCAL_PYTHON=${PMUCAL_PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
export PMUCAL_PYTHON
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99

stage() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
only_cli=0
if [ -n "$ONLY" ] && [[ ",$ONLY," == *",asan,"* ]]; then
        SANITIZE=1; ONLY="$ONLY,unit"; stage shell || only_cli=1; ONLY="$ONLY,shell"
fi
if [ "$SANITIZE" -eq 1 ]; then U=$B/asan; else U=$B; fi
# the unit tests the shell tests may drive (an absolute path: pytest runs elsewhere)
export PMUCAL_UNIT_TESTS=$([[ $U == /* ]] || printf %s "$PWD/")$U/host/tests

# ---- the pool: launch KIND NAME LOG COMMAND... runs COMMAND in the background (at most
# JOBS at once), its output in LOG and its exit status in LOG.rc; report() reads them back.
queue=()
launch() {
        local kind=$1 name=$2 log=$3; shift 3
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n 2>/dev/null || true; done
        ( "$@" >"$log" 2>&1; echo $? >"$log.rc" ) &
        queue+=("$kind|$name|$log")
}

failed() { # one failure that is not a TAP "not ok" line: printed, counted, recalled at the end
        echo "  $1"; failures+=("$1"); fail=$((fail + 1))
}

# A TAP log: a non-zero exit with no failing line, or no test line at all, is one more
# failure (a crash, a hang, an assertion that never printed).
report_tap() { # name log
        local name=$1 log=$2 rc n p q s why
        rc=$(cat "$log.rc" 2>/dev/null || echo 255)
        n=$(grep -cE '^(ok|not ok)( |$)' "$log")
        p=$(grep -cE '^ok( |$)' "$log"); q=$(grep -cE '^not ok( |$)' "$log")
        s=$(grep -cE '^ok( .*)? # SKIP' "$log")
        pass=$((pass + p - s)); fail=$((fail + q)); skip=$((skip + s))
        # a not-ok line and the TAP diagnostics ("# ...") right under it, which say why
        why=$(awk -v n="$name" '/^not ok/ { print n ": " $0; d = 1; next }
                                d && /^#   / { print n ":   " $0; next } { d = 0 }' "$log")
        if [ -n "$why" ]; then
                sed 's/^/  /' <<<"$why"
                while IFS= read -r l; do failures+=("$l"); done <<<"$why"
        fi
        if [ "$n" -eq 0 ]; then
                failed "$name: no test lines (exit $rc): counted as a failure"
        elif [ "$rc" -ne 0 ] && [ "$q" -eq 0 ]; then
                failed "$name: exited $rc after its tests passed: counted as a failure"
        fi
        if [ "$s" -gt 0 ]; then
                printf '  %-28s %3d ok, %d not ok, %d skipped\n' "$name" "$((p - s))" "$q" "$s"
        else
                printf '  %-28s %3d ok, %d not ok\n' "$name" "$p" "$q"
        fi
}

report_fuzz() { # name log
        local name=$1 log=$2 rc
        rc=$(cat "$log.rc" 2>/dev/null || echo 255)
        if [ "$rc" -eq 0 ]; then
                pass=$((pass + 1)); echo "  $name: ok ($(grep -o 'Done [0-9]* runs' "$log"))"
        else
                failed "$name: FAILED (see $log)"
        fi
}

report() { # print the pool's results, a heading per kind, in launch order
        local e kind name log last=""
        wait
        for e in "${queue[@]}"; do
                IFS='|' read -r kind name log <<<"$e"
                if [ "$kind" != "$last" ]; then
                        case $kind in
                        unit) echo "== host unit tests ($U/host/tests$([ "$SANITIZE" -eq 1 ] && echo ': AddressSanitizer + UndefinedBehaviorSanitizer'))" ;;
                        shell) echo "== shell tests" ;;
                        fuzz) echo "== fuzzers (${FUZZ_SECONDS}s each)" ;;
                        esac
                        last=$kind
                fi
                if [ "$kind" = fuzz ]; then report_fuzz "$name" "$log"; else report_tap "$name" "$log"; fi
        done
        queue=()
}

cli_env() { # the CLI cases run the binaries of the unit stage's build
        PMUCAL_TABLE=$U/host/pmucal-table PMUCAL_HOST=$U/host/pmucal-host "$@"
}

# ---- the hosted measurements, alone: their windows must not share a core with the pool ----
if stage shell && [ "$only_cli" -eq 0 ]; then
        for t in tests/test_hosted*.sh; do
                [ -f "$t" ] || continue
                n=$(basename "$t" .sh)
                launch shell "$n" "$logs/shell/$n.log" timeout 300 bash "$t"
                wait
        done
fi

# ---- the pool: the shell tests, the fuzzers, then the unit tests ----
if stage shell; then
        for t in tests/test_*.sh; do
                n=$(basename "$t" .sh)
                case $n in test_hosted*) continue ;; esac
                case $n in test_cli*) ;; *) [ "$only_cli" -eq 1 ] && continue ;; esac
                case $n in
                test_cli*) launch shell "$n" "$logs/shell/$n.log" cli_env timeout 300 bash "$t" ;;
                *)         launch shell "$n" "$logs/shell/$n.log" timeout 300 bash "$t" ;;
                esac
        done
fi

if stage fuzz; then
        for f in $B/fuzz/fuzz_*; do
                [ -x "$f" ] || continue
                name=${f##*/fuzz_}
                work=$B/fuzz/corpus_$name
                mkdir -p "$work"
                # New inputs go to the scratch corpus in build/, never into tests/corpus/.
                launch fuzz "fuzz_$name" "$logs/fuzz_$name.log" timeout $((FUZZ_SECONDS + 60)) \
                        "$f" -max_total_time="$FUZZ_SECONDS" -artifact_prefix="$work/" "$work" "tests/corpus/$name"
        done
fi

if stage unit; then
        if [ ! -d "$U/host/tests" ]; then
                failed "$U/host/tests not built ($([ "$SANITIZE" -eq 1 ] && echo make test-asan-build || echo make unit)): counted as a failure"
        fi
        # how long each may run: tests/unittests.cfg (300 s unless its section says)
        declare -A unit_timeout=()
        if ! tmo=$("$PMUCAL_PYTHON" tests/unittests.py --timeouts); then
                failed "tests/unittests.cfg does not read: counted as a failure"
        fi
        while read -r n s; do [ -n "$n" ] && unit_timeout[test_$n]=$s; done <<<"${tmo:-}"
        for t in "$U"/host/tests/test_*; do
                [ -x "$t" ] || continue
                n=$(basename "$t")
                launch unit "$n" "$logs/unit/$n.log" env CMOCKA_MESSAGE_OUTPUT=TAP \
                        timeout "${unit_timeout[$n]:-300}" "$t"
        done
fi

report

# A sanitizer report is a failure even where the test swallowed the exit status.
if [ "$SANITIZE" -eq 1 ] && grep -lE '^(==[0-9]+==ERROR|SUMMARY: (Address|Undefined|Leak)Sanitizer)|runtime error:' \
        "$logs"/unit/*.log "$logs"/shell/test_cli*.log 2>/dev/null; then
        failed "sanitizer reports in the logs above: counted as a failure"
fi

if stage qemu; then
        echo "== QEMU boots (tests/qemu.cfg)"
        log=$logs/qemu.log
        "$PMUCAL_PYTHON" tests/qemu_checks.py --cfg tests/qemu.cfg --logs "$logs" \
                ${QEMU_ONLY:+--only "$QEMU_ONLY"} >"$log" 2>&1
        echo $? >"$log.rc"
        report_tap qemu "$log"
fi

# The failures once more, where the end of a long log shows them (details in $logs/).
if [ "${#failures[@]}" -gt 0 ]; then
        echo "== failed"
        printf '  %s\n' "${failures[@]}"
fi

# A TAP "ok ... # SKIP" (a check this machine cannot decide) is counted as skipped.
if [ "$skip" -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ "$fail" -eq 0 ]
