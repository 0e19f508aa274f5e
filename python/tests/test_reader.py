"""The Python reader on its own: loading, the one version rule, classification, dicts."""
import json
import math
import os

import pytest

import pmucal

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "corpus", "table")
GOOD = os.path.join(CORPUS, "zen4-kvm.json")

TLB = {"schema": "pmucal.tlb/1.1", "units": "mcyc", "curves": [
    {"side": "dtlb", "page_bytes": 4096, "pte": "line", "levels": [], "classes": []},
    {"side": "dtlb", "page_bytes": 4096, "pte": "near", "levels": [{"level": 1, "entries": 64}],
     "classes": [
         {"class": "l1_hit", "lat_mcyc": 3000, "added_mcyc": 0, "upper_added_mcyc": 3000, "first_pages": 4, "last_pages": 64},
         {"class": "l2_hit", "lat_mcyc": 9000, "added_mcyc": 6000, "upper_added_mcyc": 16000, "first_pages": 76, "last_pages": 2048},
         {"class": "walk", "lat_mcyc": 29000, "added_mcyc": 26000, "upper_added_mcyc": None, "first_pages": 3444, "last_pages": 8192}]}]}


def test_installed_package_is_imported():
    """Under `make test` the package comes from `pip install ./python`, not the source tree."""
    want = os.environ.get("PMUCAL_EXPECT_INSTALLED_UNDER")
    if want:
        assert os.path.realpath(pmucal.__file__).startswith(os.path.realpath(want)), pmucal.__file__


@pytest.mark.parametrize("s,want", [
    ("pmucal.tlb/1", (1, 0)), ("pmucal.tlb/1.0", (1, 0)), ("pmucal.tlb/1.12", (1, 12)),
    ("pmucal.tlb/0", (0, 0)), ("pmucal.tlb/2.3", (2, 3)),
    ("pmucal.tlb/", None), ("pmucal.tlb/1.", None), ("pmucal.tlb/01", None), ("pmucal.tlb/1.-1", None),
    ("pmucal.tlb/1x", None), ("pmucal.tlb/1.01", None), ("pmucal.tlb/1.1.1", None), ("pmucal.tlb/ 1", None),
    ("pmucal.tlb/+1", None), ("pmucal.tlb/1234567890", None), ("pmucal.tl/1", None), (None, None),
])
def test_schema_version(s, want):
    assert pmucal.schema_version(s, "pmucal.tlb/") == want


def test_load_and_classify_latency():
    t = pmucal.load_latency_table(GOOD)
    assert [lv.name for lv in t.levels] == ["L1", "L2", "L3", "DRAM"]
    assert (t.machine["family"], t.machine["model"]) == (25, 17)
    assert t.classify_cycles(2.8).name == "L1"
    bound = t.levels[0].upper_cycles
    assert t.classify_cycles(bound).name == "L1"            # bounds are inclusive
    assert t.classify_cycles(math.nextafter(bound, 1e9)).name == "L2"
    assert t.classify_cycles(1e9).name == "DRAM"
    assert t.classify_cycles(float("nan")) is None
    assert t.classify_ns(60).name == "DRAM"
    assert t.has_flag("cpuid_differs")


def test_to_dicts():
    rows = pmucal.load_latency_table(GOOD).to_dicts()
    assert len(rows) == 4 and rows[0]["name"] == "L1"
    assert rows[-1]["upper_cycles"] is None and rows[0]["upper_cycles"] > rows[0]["cycles_p50"]
    assert all(isinstance(r, dict) and "ns_p50" in r for r in rows)
    json.dumps(rows)  # plain data
    tlb = pmucal.loads_tlb_table(json.dumps(TLB))
    d = tlb.to_dicts()
    assert [r["name"] for r in d] == ["l1_hit", "l2_hit", "walk"]
    assert d[1] == {"name": "l2_hit", "lat_cycles": 9.0, "added_cycles": 6.0, "upper_added_cycles": 16.0,
                    "first_pages": 76, "last_pages": 2048, "side": "dtlb", "page_bytes": 4096, "pte": "near"}


def test_flat_table_has_no_ns():
    t = pmucal.load_latency_table(os.path.join(CORPUS, "flat-tcg.json"))
    assert [lv.name for lv in t.levels] == ["flat"] and not t.has_ns
    assert t.classify_ns(5) is None and t.classify_cycles(12).name == "flat"


@pytest.mark.parametrize("added,want", [(0, "l1_hit"), (3.0, "l1_hit"), (3.001, "l2_hit"), (16, "l2_hit"),
                                        (16.5, "walk"), (1e9, "walk"), (-1, None), (float("nan"), None)])
def test_tlb_classify(added, want):
    t = pmucal.loads_tlb_table(json.dumps(TLB))
    assert t.curve("dtlb", 4096).pte == "near"
    assert t.classify("dtlb", 4096, added) == want
    assert t.classify("itlb", 4096, 5) is None and t.classify("dtlb", 2097152, 5) is None


@pytest.mark.parametrize("doc,kind,text", [
    (b"", "syntax", "x:"), (b'{"a": 1, "a": 2}', "syntax", "duplicate"), (b"[1, 2]", "version", "top level"),
    (b'{"schema": NaN}', "syntax", "x"), (b'{"schema": 1e999}', "syntax", "overflow"),
    (b'{"schema": 99999999999999999999}', "syntax", "too big"), (b"\xff{}", "syntax", "x"),
    (b'{"schema": "pmucal.latency-table/2"}', "version", "major version 2 is not supported"),
    (b'{"schema": "pmucal.latency-table/1."}', "version", "not MAJOR or MAJOR.MINOR"),
    (b'{"schema": "pmucal.latency-table/1"}', "schema", "machine: missing"),
])
def test_latency_errors(doc, kind, text):
    with pytest.raises(pmucal.TableError) as e:
        pmucal.loads_latency_table(doc, "x")
    assert e.value.kind == kind and text in str(e.value), str(e.value)


def test_missing_file():
    with pytest.raises(pmucal.TableError) as e:
        pmucal.load_latency_table("/nonexistent/t.json")
    assert e.value.kind == "io" and "/nonexistent/t.json: cannot open" in str(e.value)
    with pytest.raises(pmucal.TableError) as e:
        pmucal.load_tlb_table("/nonexistent/t.json")
    assert e.value.kind == "io"


def test_tlb_section_of_latency_table():
    t = pmucal.loads_tlb_table(json.dumps({"schema": "pmucal.latency-table/1.1", "tlb": TLB}))
    assert t.classify("dtlb", 4096, 20) == "walk"
    with pytest.raises(pmucal.TableError) as e:
        pmucal.loads_tlb_table(json.dumps({"schema": "pmucal.latency-table/1", "tlb": 3}), "t")
    assert e.value.kind == "schema" and "tlb: expected an object" in str(e.value)
