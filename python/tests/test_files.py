"""c2c.json and numa-matrix.json in Python (pmucal.load_c2c_file, pmucal.load_numa_file): a QEMU
run's files (tests/data/collector/qemu-smoke) read with the figures they hold, a later minor
read with its new values as "unknown", and accept / reject as `pmucal-table check` does
(libpmucal's pmucal_c2c_file_load / pmucal_numa_file_load) on the same variants."""
import json
import os
import subprocess

import pytest

import pmucal

ROOT = os.environ.get("PMUCAL_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("PMUCAL_TABLE", os.path.join(ROOT, "build", "host", "pmucal-table"))
RUN = os.path.join(ROOT, "tests", "data", "collector", "qemu-smoke")
C2C, NUMA = os.path.join(RUN, "c2c.json"), os.path.join(RUN, "numa-matrix.json")


def test_c2c_file():
    c = pmucal.load_c2c_file(C2C)
    assert (c.major, c.minor, c.emulated, c.tsc_hz, c.n_pairs) == (1, 2, True, 2669908200, 12)
    assert [k.kind for k in c.classes] == ["hit", "hitm", "write", "atomic", "pingpong"]
    assert (c.classes[4].p50_tsc, c.classes[4].min_tsc, c.classes[4].p50_ns) == (762.312, 751.75, 285.519)
    assert c.unknown == []


def test_numa_file():
    n = pmucal.load_numa_file(NUMA)
    assert (n.major, n.minor, n.proximity_domains, n.n_curves) == (1, 0, [0, 1], 3)
    assert n.matrix_p50_ns[0][0] == 150.369


def test_c2c_file_tsc_ticks():
    """c2c 1.3 writes each _tsc figure also as _tsc_ticks (same value); the reader takes
    _tsc_ticks where a file has it (here other figures than the _tsc ones, so that the member
    read shows) and the _tsc name in older files (the 1.2 run: p50_tsc 762.312)."""
    doc = json.loads(open(C2C).read())
    doc["schema"] = "pmucal.c2c/1.3"
    k = doc["c2c"]["classes"][4]
    k.update({"p50_tsc_ticks": 700.5, "min_tsc_ticks": 690.25, "max_tsc_ticks": None})
    c = pmucal.loads_c2c_file(json.dumps(doc))
    assert (c.major, c.minor) == (1, 3)
    assert (c.classes[4].p50_tsc, c.classes[4].min_tsc, c.classes[4].max_tsc) == (700.5, 690.25, None)
    assert c.classes[3].p50_tsc == doc["c2c"]["classes"][3]["p50_tsc"]
    old = pmucal.load_c2c_file(C2C)
    assert (old.minor, old.classes[4].p50_tsc, old.classes[4].max_tsc) == (2, 762.312, 804.812)


def _variants(tmp_path):
    c2c, numa = open(C2C).read(), open(NUMA).read()
    out = {
        "c2c-next": c2c.replace('"kind": "pingpong"', '"kind": "exchange", "new": [1]')
                       .replace("pmucal.c2c/1.2", "pmucal.c2c/1.9"),
        "c2c-v2": c2c.replace("pmucal.c2c/1.2", "pmucal.c2c/2.0"),
        "c2c-bad-pairs": c2c.replace('"n_pairs": 12', '"n_pairs": "12"', 1),
        "numa-next": numa.replace('"loaded": "node"', '"loaded": "socket"', 1),
        "numa-rows": numa.replace('"proximity_domain": 1', '"proximity_domain": -1', 1),
        "numa-v01": numa.replace("pmucal.numa/1.0", "pmucal.numa/01"),
    }
    paths = {}
    for k, v in out.items():
        p = tmp_path / (k + ".json")
        p.write_text(v)
        paths[k] = str(p)
    return paths


def test_later_minor(tmp_path):
    p = _variants(tmp_path)
    c = pmucal.load_c2c_file(p["c2c-next"])
    assert c.classes[4].kind == "unknown" and c.unknown == ['c2c.classes[4].kind: "exchange"']
    n = pmucal.load_numa_file(p["numa-next"])
    assert n.n_curves == 2 and n.unknown == ['loaded_latency[0].loaded: "socket"']


@pytest.mark.parametrize("name,kind", [("c2c-v2", "version"), ("c2c-bad-pairs", "schema"),
                                       ("numa-rows", "schema"), ("numa-v01", "version")])
def test_rejected(tmp_path, name, kind):
    p = _variants(tmp_path)[name]
    load = pmucal.load_c2c_file if name.startswith("c2c") else pmucal.load_numa_file
    with pytest.raises(pmucal.TableError) as e:
        load(p)
    assert e.value.kind == kind


def test_other_document_is_kind():
    with pytest.raises(pmucal.TableError) as e:
        pmucal.load_c2c_file(NUMA)
    assert e.value.kind == "kind"
    with pytest.raises(pmucal.TableError) as e:
        pmucal.load_numa_file(os.path.join(ROOT, "tests", "corpus", "table", "numa-c2c.json"))
    assert e.value.kind == "kind"


@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="pmucal-table not built (make host)")
def test_agrees_with_check(tmp_path):
    for name, path in list(_variants(tmp_path).items()) + [("c2c", C2C), ("numa", NUMA)]:
        load = pmucal.load_c2c_file if name.startswith("c2c") else pmucal.load_numa_file
        try:
            load(path)
            py = True
        except pmucal.TableError:
            py = False
        r = subprocess.run([CLI, "check", path], capture_output=True, text=True)
        assert (r.returncode == 0) == py, (name, r.stdout, r.stderr)
        if py:
            u = len(load(path).unknown)
            assert ("read as unknown" in r.stdout) == (u > 0), (name, r.stdout)
