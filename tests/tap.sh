# The shell tests' TAP lines, sourced by each (bash): t STATUS NAME [OUTPUT] prints "ok N - NAME"
# when STATUS is 0, else "not ok N - NAME" and OUTPUT, if given, as "# " lines under it (where
# tests/run-tests.sh looks for the reason). TAP_PREFIX, if set before sourcing, goes before
# every name ("oracle: "). n counts the checks, failed the failures: a test ends with
#   echo "1..$n"; [ "$failed" -eq 0 ]
n=0 failed=0
t() {
        n=$((n + 1))
        if [ "$1" -eq 0 ] 2>/dev/null; then
                echo "ok $n - ${TAP_PREFIX:-}$2"
        else
                failed=$((failed + 1))
                echo "not ok $n - ${TAP_PREFIX:-}$2"
                if [ -n "${3:-}" ]; then printf '%s\n' "$3" | sed 's/^/# /'; fi
        fi
        return 0
}
