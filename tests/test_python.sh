#!/bin/sh
# The Python reader (python/, package pmucal), as a user gets it: `pip install ./python` into a
# plain venv (`python3 -m venv`, Debian's python3-venv) with no package index and no links, so
# that a build needing anything from the network fails here; the package then imports and reads
# a table outside the source tree; `pip install -e` too. Then `pip install ./python` into a venv
# that sees the system's pytest, and its pytest suite (python/tests: the reader alone, and
# against libpmucal through build/host/pmucal-table on the C tests' fixtures), each pytest case
# turned into one TAP line for tests/run-tests.sh.
# Needs `make host unit` (pmucal-table, test_libpmucal). Usage: tests/test_python.sh
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
# Debian's python3 (pytest, setuptools and wheel from `make deps`), as tests/run-tests.sh picks it.
py=${PMUCAL_PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmucal-py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
say() { n=$((n + 1)); echo "$1 $n - $2"; }

# A copy of python/ is built, so that the build leaves nothing in the source tree. pip sees no
# index, no find-links and no configuration: what it cannot build offline fails.
cp -r python "$tmp/src"
offline() { env PIP_NO_INDEX=1 PIP_FIND_LINKS= PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"; }
table=$root/tests/corpus/table/zen4-kvm.json
for how in plain editable; do
        v=$tmp/venv-$how
        arg=$tmp/src; [ $how = editable ] && arg="-e $tmp/src"
        # shellcheck disable=SC2086
        if "$py" -m venv "$v" >"$tmp/$how.log" 2>&1 &&
           offline "$v/bin/pip" install $arg >>"$tmp/$how.log" 2>&1 &&
           out=$(cd "$tmp" && "$v/bin/python" -c 'import sys, pmucal
t = pmucal.load_latency_table(sys.argv[1])
print(pmucal.__version__, t.classify(15, "tsc").name, pmucal.__file__)' "$table" 2>&1) &&
           [ "${out%% *}" = "$(sed -n 's/^version = "\(.*\)"/\1/p' python/pyproject.toml)" ] &&
           case $out in *" L2 "*) true ;; *) false ;; esac; then
                say ok "$([ $how = plain ] && echo "pip install ./python" || echo "pip install -e ./python") in a plain venv, offline: imports and classifies ($out)"
        else
                say "not ok" "pip install ./python ($how) in a plain venv, offline"
                sed 's/^/# /' "$tmp/$how.log"; echo "# ${out:-}"
        fi
done
if "$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1 &&
   offline "$tmp/venv/bin/python" -m pip install --quiet "$tmp/src" >"$tmp/pip.log" 2>&1; then
        say ok "pip install ./python into a venv with the system's pytest"
else
        say "not ok" "pip install ./python into a venv with the system's pytest"
        sed 's/^/# /' "$tmp/venv.log" "$tmp/pip.log"
        echo "1..$n"; exit 1
fi

cd "$tmp" || exit 1
PMUCAL_ROOT=$root PMUCAL_EXPECT_INSTALLED_UNDER=$tmp/venv \
        "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider --junitxml="$tmp/junit.xml" \
        "$root/python/tests" >"$tmp/pytest.log" 2>&1
rc=$?
"$py" - "$tmp/junit.xml" "$n" <<'PY'
import sys
import xml.etree.ElementTree as ET
n = int(sys.argv[2])
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    n += 1
    name = "pytest: %s::%s" % (case.get("classname", "").rsplit(".", 1)[-1], case.get("name"))
    bad = case.find("failure") if case.find("failure") is not None else case.find("error")
    if bad is not None:
        print("not ok %d - %s" % (n, name))
        for line in (bad.get("message") or "").splitlines()[:5]:
            print("# " + line)
    elif case.find("skipped") is not None:
        print("ok %d - %s # SKIP %s" % (n, name, case.find("skipped").get("message", "")))
    else:
        print("ok %d - %s" % (n, name))
print("1..%d" % n)
PY
[ $rc -eq 0 ] || { echo "# pytest exited $rc:"; tail -20 "$tmp/pytest.log" | sed 's/^/# /'; }
exit $rc
