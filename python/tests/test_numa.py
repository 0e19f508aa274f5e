"""The remote-memory and cache-to-cache buckets in Python: the 1.2 corpus table read, and
classification by latency and by data source agreeing with libpmucal (through
build/host/pmucal-table classify-source) on a grid of sources and latencies."""
import os
import re
import subprocess

import pytest

import pmucal
from pmucal import numa

ROOT = os.environ.get("PMUCAL_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("PMUCAL_TABLE", os.path.join(ROOT, "build", "host", "pmucal-table"))
TABLE = os.path.join(ROOT, "tests", "corpus", "table", "numa-c2c.json")
OLD = os.path.join(ROOT, "tests", "corpus", "table", "zen4-kvm.json")
SOURCES = ["dram", "dram-local", "dram-remote", "dram-remote-1hop", "DRAM-remote-2hop", "L1", "L2",
           "L3", "DRAM", "c2c-remote-hitm", "c2c-local-hit", "c2c-any-any", "c2c-same-l3-write",
           "c2c-smt-hit", "c2c-remote-", "L4"]
LATENCIES = [0.5, 3.0, 16.0, 40.0, 99.0, 126.0, 150.0, 191.0, 230.0, 480.0, 5000.0]


def test_reads_the_sections():
    n = numa.load_numa(TABLE)
    assert [d.name for d in n.dram] == ["DRAM-local", "DRAM-remote-1hop", "DRAM-remote-2hop"]
    assert n.dram[2].upper_ns is None and n.dram[0].upper_ns > n.dram[0].ns.p50
    assert len(n.matrix_p50_ns) == 4 and n.matrix_p50_ns[2][2] == 100.0
    assert abs(n.load_factor - 1.8) < 1e-9
    assert {(k.topology, k.kind) for k in n.c2c} == {(t, k) for t in ("same-l3", "other-package")
                                                      for k in ("hit", "hitm", "write")}
    # the old reader reads the same file (unknown members ignored)
    assert [lv.name for lv in pmucal.load_latency_table(TABLE).levels] == ["L1", "L2", "L3", "DRAM"]


def test_without_sections():
    t, n = pmucal.load_latency_table(OLD), numa.load_numa(OLD)
    assert n.dram == [] and n.c2c == [] and n.load_factor == 1.0
    # the one fallback rule: a source whose section the table lacks goes by latency alone
    assert numa.classify_source(t, n, "c2c-remote-hitm", 100.0).bucket == "DRAM"
    assert numa.classify_source(t, n, "dram-local", 100.0).bucket == "DRAM"
    assert numa.classify_source(t, n, "dram", 100.0).bucket == "DRAM"


def test_bad_sections():
    doc = open(TABLE).read().replace('"kind": "hitm"', '"kind": 7', 1)
    with pytest.raises(pmucal.TableError, match=r"c2c.classes\[1\]: expected an object with a topology"):
        numa.loads_numa(doc, "t.json")
    with pytest.raises(pmucal.TableError, match="major version 1"):
        numa.loads_numa(open(TABLE).read().replace("latency-table/1.3", "latency-table/2.0"))


@pytest.mark.parametrize("ns,want", [(1.0, "L1"), (100.0, "DRAM-local"), (152.0, "DRAM-remote-1hop"),
                                     (225.0, "DRAM-remote-2hop")])
def test_classify_by_latency(ns, want):
    t, n = pmucal.load_latency_table(TABLE), numa.load_numa(TABLE)
    assert numa.classify(t, n, ns).bucket == want


QUICK = os.path.join(ROOT, "tests", "corpus", "table", "quick-numa.json")


@pytest.mark.parametrize("ns,want", [(16.75, "L3"), (22.5, "L3"), (22.6, "DRAM-local"),
                                     (153.0, "DRAM-remote-1hop")])
def test_quick_profile_keeps_caches(ns, want):
    """A table whose last level is a cache (no_dram) keeps it; DRAM levels come after it."""
    t, n = pmucal.load_latency_table(QUICK), numa.load_numa(QUICK)
    assert numa.classify(t, n, ns).bucket == want


@pytest.mark.parametrize("call,kind", [
    (lambda t, n: numa.classify(t, n, -1), "range"),
    (lambda t, n: numa.classify(t, n, float("inf")), "range"),
    (lambda t, n: numa.classify(t, n, 1, "cycles"), "arg"),
    (lambda t, n: numa.classify_source(t, n, "dram-lcoal", 1), "unknown_source"),
    (lambda t, n: numa.classify_source(t, n, "c2c-smt-hitm", 1), "no_bucket"),
    (lambda t, n: numa.classify_source(t, n, "L4", 1), "no_bucket"),
    (lambda t, n: t.classify_ns(-1), "range"),
    (lambda t, n: t.classify_ns(float("inf")), "range"),
    (lambda t, n: t.classify(-1, "tsc"), "range"),
    (lambda t, n: t.classify(1, "cycles"), "arg"),
])
def test_errors_are_raised(call, kind):
    t, n = pmucal.load_latency_table(TABLE), numa.load_numa(TABLE)
    with pytest.raises(pmucal.Error) as e:
        call(t, n)
    assert e.value.kind == kind


def test_no_ratio_is_raised():
    t = pmucal.load_latency_table(OLD)
    with pytest.raises(pmucal.Error) as e:
        t.convert(100, "core", "ns")
    assert e.value.kind == "no_ratio"


def test_load_numa_of_another_kind():
    doc = '{"schema": "pmucal.numa/1.1", "nodes": []}'
    with pytest.raises(pmucal.Error) as e:
        numa.loads_numa(doc, "numa-matrix.json")
    assert e.value.kind == "kind"


def test_batch():
    t = pmucal.load_latency_table(OLD)
    got = t.classify_batch([1.0, 60.0, -1, float("nan"), 5], "ns")
    assert got == [0, 3, pmucal.LEVEL_INVALID, pmucal.LEVEL_INVALID, t.levels.index(t.classify_ns(5))]


def _cli(source, lats):
    r = subprocess.run([CLI, "classify-source", TABLE, source] + ["%gns" % v for v in lats],
                       capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"(\S+)ns (\S+) (fits|FASTER|SLOWER)", line)
        out[float(m.group(1))] = (m.group(2), m.group(3).lower())
    return r.returncode, out


@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="pmucal-table not built (make host)")
@pytest.mark.parametrize("source", SOURCES)
def test_classify_source_agrees_with_c(source):
    t, n = pmucal.load_latency_table(TABLE), numa.load_numa(TABLE)
    rc, c = _cli(source, LATENCIES)
    try:
        py = {v: numa.classify_source(t, n, source, v) for v in LATENCIES}
    except pmucal.Error as e:
        assert (e.kind, rc, c) == ({2: "unknown_source", 4: "no_bucket"}.get(rc), rc, {})
        return
    assert rc == 0
    assert {v: (m.bucket, m.fit) for v, m in py.items()} == c


def test_core_ratio_sources():
    """A counter's ratio, an add-chain estimate, a caller's override (as libpmucal 1.2)."""
    t = pmucal.load_latency_table(TABLE)
    assert (t.core_per_tsc, t.core_ratio_source, t.core_ratio_estimated) == (1.5, "pmu-core-cycles", False)
    doc = open(OLD).read().replace('"method": {', '"method": {"core_clock": {"source": null, '
                                   '"core_per_tsc": null, "estimate": {"method": "dependent-add chain", '
                                   '"core_per_tsc": 1.5, "core_per_tsc_min": 1.25, "core_per_tsc_max": 2}},', 1)
    e = pmucal.loads_latency_table(doc, "est.json")
    assert (e.core_per_tsc, e.core_ratio_source, e.core_ratio_estimated) == (1.5, "dependent-add chain", True)
    assert abs(e.convert(150, "core", "tsc") - 100) < 1e-9
    assert [e.classify(v, "core").name for v in (7.95, 7.97)] == ["L1", "L2"]   # 5.306 x 1.5
    o = pmucal.load_latency_table(OLD)
    with pytest.raises(pmucal.Error) as x:
        o.classify(10, "core")
    assert x.value.kind == "no_ratio"
    with pytest.raises(pmucal.Error) as x:
        o.set_core_ratio(0)
    assert x.value.kind == "range"
    o.set_core_ratio(2.0)
    assert o.core_ratio_source == "override"
    assert [o.classify(v, "core").name for v in (10.6, 10.7)] == ["L1", "L2"]   # 5.306 x 2
    t.set_core_ghz(4.0)                                                        # 4 GHz / 2 GHz TSC
    assert t.classify(10.0, "core").name == "L1"                               # 5.037 x 2


NEXT = os.path.join(ROOT, "tests", "corpus", "table", "next-minor.json")


def test_later_minor():
    """next-minor.json (1.9: new members at every depth, a C2C class of a new topology, one of a
    new kind, a curve loaded a new way) is read: the new values as "unknown", reported, in no
    bucket and no load factor (1.8 as numa-c2c.json, not the unknown curve's 10x)."""
    t, n = pmucal.load_latency_table(NEXT), numa.load_numa(NEXT)
    assert [lv.name for lv in t.levels] == ["L1", "L2", "L3", "DRAM"]
    assert len(n.dram) == 3 and len(n.c2c) == 8
    assert (n.c2c[6].topology, n.c2c[6].kind) == ("unknown", "hitm")
    assert (n.c2c[7].topology, n.c2c[7].kind) == ("same-l3", "unknown")
    assert n.unknown == ['loaded_latency[1].loaded: "remote nodes"',
                         'c2c.classes[6].topology: "other-socket-via-cxl"',
                         'c2c.classes[7].kind: "atomic"']
    assert abs(n.load_factor - 1.8) < 1e-9
    assert numa.classify_source(t, n, "c2c-remote-hitm", 176.5).bucket == "c2c-other-package-hitm"
    m = numa.classify_source(t, n, "c2c-any-hitm", 475.0)   # the unknown class's median
    assert (m.bucket, m.fit) == ("c2c-other-package-hitm", numa.SLOWER)
    assert numa.classify(t, n, 152.0).bucket == "DRAM-remote-1hop"
