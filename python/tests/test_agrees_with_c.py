"""The Python reader against libpmucal, through build/host/pmucal-table, on the fixtures the C
tests use: tests/corpus/table/*.json, every document of tests/test_libpmucal.c (written out by
`test_libpmucal --dump-cases`, and of tests/test_libpmucal_units.c) and the tables tests/test_cli.sh derives from the corpus. Each
file must be accepted by both or rejected by both, by the latency and by the TLB loader, and
every accepted table must classify a set of latencies identically. Needs `make host unit`."""
import glob
import math
import os
import shutil
import subprocess
import tempfile

import pytest

import pmucal

ROOT = os.environ.get("PMUCAL_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build", "host")
CLI = os.environ.get("PMUCAL_TABLE", os.path.join(BUILD, "pmucal-table"))
# The C unit tests that dump their cases: from the build the unit stage runs (run-tests.sh
# names it in PMUCAL_UNIT_TESTS), else the plain one.
CTESTS = [os.path.join(os.environ.get("PMUCAL_UNIT_TESTS", os.path.join(BUILD, "tests")), n)
          for n in ("test_libpmucal", "test_libpmucal_units")]
CORPUS = os.path.join(ROOT, "tests", "corpus", "table")
WORK = tempfile.mkdtemp(prefix="pmucal-pytest-")

CLS = ('[{"class":"l1_hit","lat_mcyc":3000,"added_mcyc":0,"upper_added_mcyc":3000,"first_pages":4,"last_pages":64},'
       '{"class":"l2_hit","lat_mcyc":9000,"added_mcyc":6000,"upper_added_mcyc":16000,"first_pages":76,"last_pages":2048},'
       '{"class":"walk","lat_mcyc":29000,"added_mcyc":26000,"upper_added_mcyc":null,"first_pages":3444,"last_pages":8192}]')
TLBDOC = ('{"schema":"pmucal.tlb/1","units":"mcyc","curves":[{"side":"dtlb","page_bytes":4096,"pte":"near",'
          '"levels":[{"level":1,"entries":64}],"classes":' + CLS + '}]}')


def _write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def _cli_fixtures():
    """The documents tests/test_cli.sh makes from the corpus (same source, same edits)."""
    good = open(os.path.join(CORPUS, "zen4-kvm.json"), "rb").read()
    return [
        _write("cli-trunc.json", good[:700]),
        _write("cli-wrongtype.json", good.replace(b'"family": 25', b'"family": "25"', 1)),
        _write("cli-missing.json", good.replace(b'"p50": 9.869,', b"", 1)),
        _write("cli-binary.json", b"\x00\x01garbage"),
        _write("cli-tlb-table.json", TLBDOC),
        _write("cli-lat-with-tlb.json", '{"schema":"pmucal.latency-table/1","tlb":' + TLBDOC + "}"),
        _write("cli-tlb-v2.json", TLBDOC.replace("pmucal.tlb/1", "pmucal.tlb/2")),
        _write("cli-tlb-bad.json", TLBDOC.replace('"page_bytes":4096', '"page_bytes":"4k"')),
    ]


def _hostile_fixtures():
    """Documents where the two parsers used to part: \\u0000 in a string (jansson rejects it,
    json.loads took it), nesting of 1500 levels (jansson takes up to 2048; json.loads raised
    RecursionError) and of 3000, and the errors whose place Python's json cannot give (a
    duplicate key, a too big integer, an overflowing real, NaN)."""
    good = open(os.path.join(CORPUS, "zen4-kvm.json"), "rb").read()
    return [
        _write("hostile-nul.json", good.replace(b'"pmucal.latency-table/1', b'"pmucal.latency-table/1\\u0000', 1)),
        _write("hostile-nul-key.json", good.replace(b'"machine"', b'"mach\\u0000ine"', 1)),
        _write("hostile-nul-escaped.json", good.replace(b'"machine": {', b'"machine": {"x\\\\u0000": 1, ', 1)),
        _write("hostile-deep-1500.json", "[" * 1500 + "]" * 1500),
        _write("hostile-deep-obj-1500.json", '{"a":' * 1500 + "1" + "}" * 1500),
        _write("hostile-deep-2048.json", "[" * 2048 + "]" * 2048),
        _write("hostile-deep-2049.json", "[" * 2049 + "]" * 2049),
        _write("hostile-deep-3000.json", "[" * 3000 + "]" * 3000),
        _write("hostile-dup.json", good.replace(b'"machine": {', b'"machine": {\n  "vendor": "x",', 1)),
        _write("hostile-bigint.json", good.replace(b'"family": 25', b'"family": 99999999999999999999', 1)),
        _write("hostile-overflow.json", good.replace(b'"family": 25', b'"family": 1e999', 1)),
        _write("hostile-nan.json", good.replace(b'"family": 25', b'"family": NaN', 1)),
    ]


HOSTILE = _hostile_fixtures()


@pytest.mark.parametrize("path", HOSTILE, ids=[os.path.basename(p) for p in HOSTILE])
def test_syntax_errors_agree(path):
    """Both reject with the same kind; a syntax error has the same line:column and words in
    both (pmucal-table prints the backslash of \\u0000 escaped)."""
    p = run_cli("classify", path, "0")
    try:
        pmucal.load_latency_table(path)
        kind, msg = None, None
    except pmucal.TableError as e:
        kind, msg = e.kind, str(e)
    c_msg = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
    c_syntax = p.returncode == 1 and c_msg.startswith("pmucal-table: %s:" % path) and \
        c_msg[len("pmucal-table: %s:" % path):][:1].isdigit()
    assert (kind == "syntax") == c_syntax, (kind, msg, c_msg)
    if c_syntax:
        assert msg == c_msg[len("pmucal-table: "):].replace("\\\\", "\\"), (msg, c_msg)
    else:
        assert kind != "syntax" and (kind is None) == (p.returncode == 0), (kind, msg, c_msg)


def _c_cases():
    """{file: (loader, must load)} of the documents in tests/test_libpmucal.c."""
    out = os.path.join(WORK, "c-cases")
    os.makedirs(out)
    cases = {}
    for ctest in CTESTS:
        subprocess.run([ctest, "--dump-cases", out], check=True)
    for tsv in sorted(glob.glob(os.path.join(out, "cases*.tsv"))):
        for line in open(tsv):
            f, loader, ok, _name = line.rstrip("\n").split("\t", 3)
            cases[os.path.join(out, f)] = (loader, ok == "1")
    return cases


C_CASES = _c_cases()
FIXTURES = sorted(glob.glob(os.path.join(CORPUS, "*.json"))) + _cli_fixtures() + sorted(C_CASES) + HOSTILE


def teardown_module(_):
    shutil.rmtree(WORK, ignore_errors=True)


def _ids(paths):
    return [os.path.relpath(p, WORK) if p.startswith(WORK) else os.path.relpath(p, ROOT) for p in paths]


def run_cli(*args):
    return subprocess.run([CLI] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def c_loads_latency(path):
    """classify loads with the latency loader alone (check also accepts TLB tables, and
    rejects a latency table whose tlb member is bad); a loaded table classifies 0."""
    p = run_cli("classify", path, "0")
    assert p.returncode in (0, 1), p.stderr
    return p.returncode == 0


def c_loads_tlb(path):
    """classify-tlb exits 1 for a table it rejected and for a table without a 4 KiB dTLB curve;
    only the second says "no dtlb curve"."""
    p = run_cli("classify-tlb", path, "dtlb:4k", "0")
    return p.returncode == 0 or ": no dtlb curve for" in p.stderr


def py_loads(fn, path):
    try:
        fn(path)
        return True
    except pmucal.TableError:
        return False


def test_c_cases_were_written():
    assert len([f for f, (k, _) in C_CASES.items() if k == "latency"]) >= 40
    assert len([f for f, (k, _) in C_CASES.items() if k == "tlb"]) >= 20


@pytest.mark.parametrize("path", FIXTURES, ids=_ids(FIXTURES))
def test_latency_loader_agrees(path):
    c, py = c_loads_latency(path), py_loads(pmucal.load_latency_table, path)
    assert py == c, "pmucal-table check %s, the Python reader %s" % (
        "accepts" if c else "rejects", "accepts" if py else "rejects")
    if C_CASES.get(path, ("", None))[0] == "latency":
        assert py == C_CASES[path][1], "tests/test_libpmucal.c expects %s" % C_CASES[path][1]


@pytest.mark.parametrize("path", FIXTURES, ids=_ids(FIXTURES))
def test_tlb_loader_agrees(path):
    c, py = c_loads_tlb(path), py_loads(pmucal.load_tlb_table, path)
    assert py == c, "pmucal-table classify-tlb %s, the Python reader %s" % (
        "accepts" if c else "rejects", "accepts" if py else "rejects")
    if C_CASES.get(path, ("", None))[0] == "tlb":
        assert py == C_CASES[path][1], "tests/test_libpmucal.c expects %s" % C_CASES[path][1]


@pytest.mark.parametrize("path", FIXTURES, ids=_ids(FIXTURES))
def test_check_agrees(path):
    """pmucal-table check: a latency table (its remote sections, and its tlb member when it has
    one), else, when the file is not a latency table at all (kind), a TLB table."""
    try:
        pmucal.load_latency_table(path)
        pmucal.load_numa(path)
        lat = True
    except pmucal.TableError as e:
        lat = e.kind
    tlb = py_loads(pmucal.load_tlb_table, path)
    if lat is True:
        with open(path, "rb") as f:
            want = tlb if "tlb" in pmucal._json.parse(f.read(), path) else True
    else:
        want = lat == "kind" and tlb
    p = run_cli("check", path)
    assert (p.returncode == 0) == want, p.stdout + p.stderr
    if want:
        assert (" level" in p.stdout.splitlines()[0]) == (lat is True), p.stdout


def _samples(values):
    """Latencies around every figure of a table: the figure, the doubles either side of it."""
    out = {0.0, 0.5, 1e6}
    for v in values:
        if v is not None and v >= 0:
            out |= {v, math.nextafter(v, math.inf), math.nextafter(v, 0.0), v * 1.5}
    return sorted(out)


def _accepted(fn):
    return [p for p in FIXTURES if py_loads(fn, p)]


LAT_OK = _accepted(pmucal.load_latency_table)
TLB_OK = _accepted(pmucal.load_tlb_table)


def _tlb_label(t, cv, a):
    try:
        return t.classify(cv.side, cv.page_bytes, float(a))
    except pmucal.Error:
        return "?"


def test_enough_tables_to_classify():
    assert len(LAT_OK) >= 8 and len(TLB_OK) >= 5


SUFFIX = {"table": "", "tsc": "tsc", "core": "core", "ns": "ns"}


@pytest.mark.parametrize("path", LAT_OK, ids=_ids(LAT_OK))
def test_latency_classification_agrees(path):
    """Every unit the Python reader can classify in, around every figure and bound of the
    table in that unit (own or converted), gives the level pmucal-table classify gives."""
    t = pmucal.load_latency_table(path)
    args, want = [], []
    for unit, suffix in SUFFIX.items():
        try:
            upper, ceiling = t.bounds(unit)
        except pmucal.TableError as e:
            assert e.kind == "no_ratio"
            p = run_cli("classify", path, "1" + suffix)
            assert p.returncode != 0 and ("cannot convert" in p.stderr or "no core:TSC ratio" in p.stderr), p.stderr
            continue
        figs = list(upper) + ([ceiling] if ceiling is not None else [])
        for lv in t.levels:
            st = getattr(lv, pmucal.table.UNIT_KEY[unit])
            figs += [st.p10, st.p50, st.p90] if st is not None else []
        for v in _samples(figs):
            args.append(repr(v) + suffix)
            want.append("%s %s" % (args[-1], t.classify(v, unit).name))
    if t.has_ns:  # the 1.0 call agrees with classify()
        assert all(t.classify_ns(lv.ns.p50) is t.classify(lv.ns.p50, "ns") for lv in t.levels)
    p = run_cli("classify", path, *args)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == want


def test_own_bounds_differ_from_converted():
    """The units fixture classifies TSC ticks with its own bounds: 25 ticks is L2, where the
    cycle bound (30 core cycles) at the overall ratio 1.5 would make it DRAM; and so does C."""
    path = next(f for f, (k, ok) in C_CASES.items() if os.path.basename(f) == "units-00.json")
    t = pmucal.load_latency_table(path)
    assert t.classify(25.0, "tsc").name == "L2"
    assert t.convert(25.0, "tsc", "core") > t.levels[1].upper_cycles
    assert run_cli("classify", path, "25tsc").stdout.split() == ["25tsc", "L2"]


@pytest.mark.parametrize("path", TLB_OK, ids=_ids(TLB_OK))
def test_tlb_classification_agrees(path):
    t = pmucal.load_tlb_table(path)
    near = [cv for cv in t.curves if cv.pte == "near"]
    for cv in near:
        figs = [x for k in cv.classes for x in (k.added_cycles, k.upper_added_cycles, k.lat_cycles)]
        args = [repr(v) for v in _samples(figs)]
        p = run_cli("classify-tlb", path, "%s:%d" % (cv.side, cv.page_bytes), *args)
        assert p.returncode == 0, p.stderr
        assert p.stdout.splitlines() == ["%s %s" % (a, _tlb_label(t, cv, a))
                                         for a in args]
