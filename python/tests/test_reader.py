"""The Python reader on its own: loading, the one version rule, classification, dicts."""
import copy
import json
import math
import os

import pytest

import pmucal


def _kind(fn):
    """The kind of the pmucal.Error @fn raises (None when it returns)."""
    try:
        fn()
    except pmucal.Error as e:
        return e.kind
    return None

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
    assert t.classify(2.8, "table").name == "L1"
    bound = t.levels[0].upper_cycles
    assert t.classify(bound, "table").name == "L1"            # bounds are inclusive
    assert t.classify(math.nextafter(bound, 1e9), "table").name == "L2"
    assert t.classify(1e9, "table").name == "DRAM"
    assert _kind(lambda: t.classify(float("nan"), "table")) == "range"
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
                    "first_pages": 76, "last_pages": 2048, "ordinal": 1, "label": "l2_hit",
                    "side": "dtlb", "page_bytes": 4096, "pte": "near"}


def test_flat_table_has_no_ns():
    t = pmucal.load_latency_table(os.path.join(CORPUS, "flat-tcg.json"))
    assert [lv.name for lv in t.levels] == ["flat"] and not t.has_ns
    assert t.classify_ns(5).name == "flat" and t.classify(12, "table").name == "flat"


@pytest.mark.parametrize("added,want", [(0, "l1_hit"), (3.0, "l1_hit"), (3.001, "l2_hit"), (16, "l2_hit"),
                                        (16.5, "walk"), (1e9, "walk"), (-1, "range"), (float("nan"), "range")])
def test_tlb_classify(added, want):
    t = pmucal.loads_tlb_table(json.dumps(TLB))
    assert t.curve("dtlb", 4096).pte == "near"
    if want == "range":
        assert _kind(lambda: t.classify("dtlb", 4096, added)) == "range"
    else:
        assert t.classify("dtlb", 4096, added) == want
    assert _kind(lambda: t.classify("itlb", 4096, 5)) == "no_curve"
    assert _kind(lambda: t.classify("dtlb", 2097152, 5)) == "no_curve"
    assert _kind(lambda: t.classify("dtlb", 4096, -1)) == "range"


@pytest.mark.parametrize("doc,kind,text", [
    (b"", "syntax", "x:"), (b'{"a": 1, "a": 2}', "syntax", "duplicate"), (b"[1, 2]", "kind", "top level"),
    (b'{"schema": NaN}', "syntax", "x"), (b'{"schema": 1e999}', "syntax", "overflow"),
    (b'{"schema": 99999999999999999999}', "syntax", "too big"), (b"\xff{}", "syntax", "x"),
    (b'{"schema": "pmucal.latency-table/2"}', "version", "major version 2 is not supported"),
    (b'{"schema": "pmucal.latency-table/1."}', "version", "not MAJOR or MAJOR.MINOR"),
    (b'{"schema": "pmucal.latency-table/1"}', "schema", "machine: missing"),
    (b'{"schema": "pmucal.tlb/1"}', "kind", "not a pmucal latency table"), (b"{}", "kind", "no \"schema\""),
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


def test_file_over_the_limit(tmp_path):
    """Every loader refuses a file over 16 MiB as "io", as libpmucal does (not a JSON error)."""
    from pmucal import numa, tlb
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (16 << 20) + b"{}")
    for load in (pmucal.load_latency_table, tlb.load_tlb_table, numa.load_numa):
        with pytest.raises(pmucal.TableError) as e:
            load(str(big))
        assert e.value.kind == "io" and "larger than 16777216 bytes" in str(e.value), str(e.value)


def test_tlb_section_of_latency_table():
    t = pmucal.loads_tlb_table(json.dumps({"schema": "pmucal.latency-table/1.1", "tlb": TLB}))
    assert t.classify("dtlb", 4096, 20) == "walk"
    with pytest.raises(pmucal.TableError) as e:
        pmucal.loads_tlb_table(json.dumps({"schema": "pmucal.latency-table/1", "tlb": 3}), "t")
    assert e.value.kind == "schema" and "tlb: expected an object" in str(e.value)


def _good():
    with open(GOOD) as f:
        return json.load(f)


def test_long_level_name_is_kept_whole():
    d = _good()
    d["levels"][0]["name"] = "a-level-name-of-over-sixteen-bytes"
    t = pmucal.loads_latency_table(json.dumps(d))
    assert t.levels[0].name == "a-level-name-of-over-sixteen-bytes"
    d["levels"][0]["name"] = "x" * 65537
    with pytest.raises(pmucal.TableError) as e:
        pmucal.loads_latency_table(json.dumps(d))
    assert e.value.kind == "schema" and "levels[0].name" in str(e.value)


def _edit_levels(d, i, key, value):
    d["levels"][i][key] = value
    return d


@pytest.mark.parametrize("edit,text", [
    (lambda d: _edit_levels(d, 2, "name", "L1"), 'levels[2].name: "L1" is also the name of levels[0]'),
    (lambda d: _edit_levels(d, 1, "capacity_bytes", 1024), "levels[1].capacity_bytes: 1024 is not above levels[0]'s"),
    (lambda d: _edit_levels(d, 0, "capacity_bytes", 0), "0: an unknown value is written null"),
    (lambda d: _edit_levels(d, 0, "cpuid_level", 0), "levels[0].cpuid_level: 0: an unknown value"),
    (lambda d: dict(d, machine=dict(d["machine"], microcode="")), "machine.microcode"),
    (lambda d: dict(d, flags=["x"] * 257), "257 flags"),
])
def test_latency_checks_of_meaning(edit, text):
    with pytest.raises(pmucal.TableError) as e:
        pmucal.loads_latency_table(json.dumps(edit(_good())), "t")
    assert e.value.kind == "schema" and text in str(e.value), str(e.value)


def test_beyond_the_last_level_when_it_is_not_dram():
    t = pmucal.load_latency_table(os.path.join(CORPUS, "flat-tcg.json"))
    assert t.has_flag("no_dram") or t.has_flag("no_hierarchy")
    ceiling = 1.3 * t.levels[-1].cycles.p90
    assert t.levels[-1].ceiling_cycles == ceiling
    assert t.classify(ceiling, "table").name == "flat"
    assert t.classify(math.nextafter(ceiling, 1e9), "table") is pmucal.BEYOND
    assert pmucal.BEYOND.name == "beyond"
    g = pmucal.load_latency_table(GOOD)  # its last level is DRAM: nothing is beyond it
    assert g.levels[-1].ceiling_cycles is None and g.classify(1e12, "table").name == "DRAM"


def test_beyond_the_last_level_when_the_buffer_was_reduced():
    """Schema 1.5: a sweep buffer smaller than planned (flag buffer_reduced) ends the table
    where the buffer did, so its last level gets the ceiling of one that is not DRAM."""
    d = _good()
    d["flags"] = list(d["flags"]) + ["buffer_reduced"]
    t = pmucal.loads_latency_table(json.dumps(d), "t")
    ceiling = 1.3 * t.levels[-1].cycles.p90
    assert t.levels[-1].ceiling_cycles == ceiling
    assert t.classify(math.nextafter(ceiling, 1e9), "table") is pmucal.BEYOND


def _walks():
    d = json.loads(json.dumps(TLB))
    cl = d["curves"][1]["classes"]
    cl[2]["upper_added_mcyc"] = 40000
    cl.append(dict(cl[2], added_mcyc=50000, upper_added_mcyc=90000))
    cl.append(dict(cl[2], added_mcyc=100000, upper_added_mcyc=None))
    return d


def test_walk_classes_are_labelled_walk_walk2_walk3():
    t = pmucal.loads_tlb_table(json.dumps(_walks()))
    assert [k.label for k in t.curve("dtlb", 4096).classes] == ["l1_hit", "l2_hit", "walk", "walk2", "walk3"]
    assert [t.classify("dtlb", 4096, v) for v in (20, 45, 200)] == ["walk", "walk2", "walk3"]


def _tlb_edit(fn):
    d = json.loads(json.dumps(TLB))
    fn(d)
    return d


@pytest.mark.parametrize("edit,text", [
    (lambda d: d.update(units="cyc"), 'units: "cyc" is not a known unit'),
    (lambda d: d.pop("units"), "units: missing"),
    (lambda d: d["curves"].append(d["curves"][1]), "curves[2]: a second dtlb curve for 4096-byte pages, PTEs near"),
    (lambda d: d["curves"][1]["classes"].insert(1, dict(d["curves"][1]["classes"][0])),
     'classes[1].class: a second "l1_hit"'),
    (lambda d: d["curves"][1]["levels"].append({"level": 2, "entries": 64}), "levels[1].entries: 64 is not above"),
    (lambda d: d["curves"][1]["levels"].__setitem__(0, {"level": 1, "entries": 0}), "levels[0].entries: 0"),
    (lambda d: d.update(clock={"figures": "core_cycles"}), 'clock.figures: "core_cycles" is not "tsc_ticks"'),
    (lambda d: d.update(clock={"figures": "tsc_ticks", "core_per_tsc": 0}), "clock.core_per_tsc"),
])
def test_tlb_checks_of_meaning(edit, text):
    with pytest.raises(pmucal.TableError) as e:
        pmucal.loads_tlb_table(json.dumps(_tlb_edit(edit)), "t")
    assert e.value.kind == "schema" and text in str(e.value), str(e.value)


def test_tlb_clock_object_is_accepted():
    t = pmucal.loads_tlb_table(json.dumps(_tlb_edit(lambda d: d.update(
        schema="pmucal.tlb/1.2", clock={"figures": "tsc_ticks", "core_per_tsc": 1.5, "tsc_hz": 1000000000}))))
    assert t.clock["core_per_tsc"] == 1.5 and t.classify("dtlb", 4096, 20) == "walk"


def test_core_sets():
    """1.4 core_types: the level sets, the set of an APIC ID, and the errors libpmucal gives."""
    path = os.path.join(CORPUS, "core-sets.json")
    t = pmucal.load_latency_table(path)
    assert t.minor == 4 and len(t.core_sets) == 2
    p, e = t.core_sets
    assert p.bsp_set and p.core_type == "core" and p.apic_ids == [0, 2]
    assert e.core_type == "atom" and e.apic_ids == [16, 17] and e.measured_on_apic_id == 16
    assert e.cache_bytes[1] == 4 << 20 and len(e.levels) == 4
    assert abs(e.levels[1].cycles.p50 - 18) < 0.5 and abs(p.levels[1].cycles.p50 - 14) < 0.5
    assert t.core_set(17) is e and t.core_set(2) is p and t.core_set(99) is None
    # a set's figures by unit come from the same loader as the table's
    assert e.levels[1].tsc_ticks is not None and e.levels[1].upper_tsc == e.levels[1].upper_cycles
    assert e.levels[1].core_cycles is None
    doc = json.load(open(path))
    for edit, msg in ((lambda s: s.__setitem__("apic_ids", [18, 17]), "not ascending"),
                      (lambda s: s.__setitem__("apic_ids", [2, 17]), "2 is also in set 0"),
                      (lambda s: s.__setitem__("measured", False), "not measured")):
        d = copy.deepcopy(doc)
        edit(d["core_types"]["sets"][1])
        with pytest.raises(pmucal.TableError) as ex:
            pmucal.loads_latency_table(json.dumps(d), "t.json")
        assert msg in str(ex.value) and "core_types.sets[1]" in str(ex.value)


def test_table_open_enums():
    """A level's agreement and a level set's core_type of a later minor read as "unknown",
    listed in Table.unknown as libpmucal's unknown_first names them; not a string is an error."""
    doc = json.load(open(os.path.join(CORPUS, "core-sets.json")))
    doc["levels"][0]["agreement"] = "within-a-way"
    doc["core_types"]["sets"][1]["core_type"] = "lp-e"
    t = pmucal.loads_latency_table(json.dumps(doc), "t.json")
    assert t.levels[0].agreement == "unknown" and t.levels[1].agreement != "unknown"
    assert t.core_sets[1].core_type == "unknown" and t.core_sets[0].core_type == "core"
    assert t.unknown == ['levels[0].agreement: "within-a-way"', 'core_types.sets[1].core_type: "lp-e"']
    doc["levels"][0]["agreement"] = 3
    with pytest.raises(pmucal.TableError) as ex:
        pmucal.loads_latency_table(json.dumps(doc), "t.json")
    assert ex.value.kind == "schema" and "levels[0].agreement: expected a string" in str(ex.value)
