"""One behaviour in C and Python: the Python reader and libpmucal (driven through
`test_libpmucal_numa --diff`, a unit test binary of `make unit`) given the same generated
tables, latencies, data sources, core:TSC ratios and PEBS / IBS encodings must give the same
answers, errors included: the level, the bucket with its fit and range (bit for bit), the
error kind. The tables are the corpus (tests/corpus/table) and variants made from it with a
fixed seed: latencies scaled, the last level made a cache (no_dram), sections dropped, the
core clock given as a counter's ratio or an add-chain estimate or dropped, the TSC rate
changed, and hostile edits (a wrong type, a negative or missing figure) that both must reject
alike."""
import copy
import glob
import json
import math
import os
import random
import shutil
import subprocess
import tempfile

import pytest

import pmucal

ROOT = os.environ.get("PMUCAL_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(os.environ.get("PMUCAL_UNIT_TESTS", os.path.join(ROOT, "build", "host", "tests")),
                      "test_libpmucal_numa")
CORPUS = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "corpus", "table", "*.json")))
N_TABLES = 1000          # generated tables, besides the corpus
N_PER_TABLE = 100        # inputs per table: 10^5 in all
N_ENCODINGS = 50000      # PEBS data_src values, and as many IBS register pairs
UNITS = ("table", "tsc", "core", "ns")
SOURCES = ("L1", "L2", "L3", "L4", "DRAM", "flat", "lfb", "dram", "dram-local", "DRAM-local",
           "dram-remote", "DRAM-remote-1hop", "dram-remote-2hop", "DRAM-remote-3hop",
           "c2c-any-any", "c2c-local-hitm", "c2c-remote-hit", "c2c-same-l3-write",
           "c2c-other-package-hitm", "c2c-smt-hit", "c2c-same-module-hit", "c2c-same-package-any",
           "dram-lcoal", "l3", "c2c-near-hit",
           "DRAM-remote-0hop", "c2c-", "L10")
FIGS = ("min", "p10", "p50", "p90", "p50_lo", "p50_hi")


def _scale_stat(o, f):
    if isinstance(o, dict):
        for k in FIGS:
            if isinstance(o.get(k), (int, float)) and not isinstance(o.get(k), bool):
                o[k] = round(o[k] * f, 6)


def _scale_levels(d, f):
    for lv in d.get("levels", []):
        for unit in ("tsc_ticks", "core_cycles", "ns", "cycles"):
            _scale_stat(lv.get(unit), f)
    bo = d.get("bucket_upper_bounds", {})
    for unit, b in bo.items():
        if isinstance(b, list):
            bo[unit] = [round(x * f, 6) for x in b]


def _scale_numa(d, g):
    for lv in (d.get("numa") or {}).get("dram_levels", []):
        _scale_stat(lv.get("ns"), g)
        _scale_stat(lv.get("tsc"), g)
        if isinstance(lv.get("upper_ns"), (int, float)):
            lv["upper_ns"] = round(lv["upper_ns"] * g, 6)
    for k in (d.get("c2c") or {}).get("classes", []):
        _scale_stat(k.get("ns"), g)
        _scale_stat(k.get("tsc"), g)


def _variant(base, rng):
    d = copy.deepcopy(base)
    _scale_levels(d, math.exp(rng.uniform(-1.5, 1.5)))
    if "numa" in d or "c2c" in d:
        _scale_numa(d, math.exp(rng.uniform(-0.7, 0.7)))
    r = rng.random()
    if r < 0.3 and isinstance(d.get("flags"), list) and "no_dram" not in d["flags"]:
        d["flags"].append("no_dram")                      # the last level a cache
    for sec in ("numa", "c2c", "loaded_latency"):
        if sec in d and rng.random() < 0.25:
            del d[sec]
    m = d.get("method", {})
    r = rng.random()
    if r < 0.25:
        m["core_clock"] = {"source": None, "core_per_tsc": None, "reason": "none",
                           "estimate": {"method": "dependent-add chain",
                                        "core_per_tsc": round(rng.uniform(0.3, 5), 4),
                                        "core_per_tsc_min": 0.3, "core_per_tsc_max": 5}}
    elif r < 0.4:
        m["core_clock"] = {"source": "perf_event cycles", "core_per_tsc": round(rng.uniform(0.3, 5), 4)}
    elif r < 0.5:
        m.pop("core_clock", None)
    if rng.random() < 0.2 and isinstance(d.get("machine"), dict):
        d["machine"]["tsc_hz"] = rng.choice([None, 1000000000, 3000000000, 1])
    if rng.random() < 0.08:                                # hostile: both must reject alike
        lv = rng.choice(d.get("levels") or [{}])
        edit = rng.randrange(4)
        if edit == 0 and "ns" in lv:
            lv["ns"] = "fast"
        elif edit == 1:
            lv.pop("name", None)
        elif edit == 2 and isinstance(lv.get("cycles"), dict):
            lv["cycles"]["p50"] = -1
        else:
            d["schema"] = rng.choice(["pmucal.latency-table/01", "pmucal.numa/1.1", 5])
    return d


def _latencies(t, rng):
    """Latencies near the table's own bounds and medians (in each unit Python can give) and
    across the range, with hostile ones."""
    vals = []
    for unit in UNITS:
        try:
            upper, ceiling = t.bounds(unit)
        except pmucal.Error:
            upper, ceiling = [], None
        for b in upper + ([ceiling] if ceiling is not None else []):
            vals += [(unit, b), (unit, math.nextafter(b, math.inf)), (unit, b * rng.uniform(0.8, 1.25))]
    vals = rng.sample(vals, min(len(vals), N_PER_TABLE // 3))
    hostile = ["-1", "nan", "inf", "-inf", "0", "-0.0", "1e308"]
    while len(vals) < N_PER_TABLE:
        unit = rng.choice(UNITS + ("cycles",))
        vals.append((unit, rng.choice(hostile) if rng.random() < 0.05 else math.exp(rng.uniform(-3, 8))))
    return vals


def _fmt(v):
    return v if isinstance(v, str) else repr(float(v))


def _match_line(fn):
    try:
        m = fn()
    except pmucal.Error as e:
        return "E %s" % e.kind
    return "%s %s %r %r %r" % (m.bucket, m.fit, m.lo_ns, m.hi_ns, m.p50_ns)


def _py_answer(state, cmd):
    """What the Python reader answers to one driver command (the format of diff_main)."""
    op, *a = cmd.split()
    if op == "T":
        try:
            state["t"], state["n"] = None, None
            state["t"] = pmucal.load_latency_table(a[0])
            state["n"] = pmucal.load_numa(a[0])
            return "ok"
        except pmucal.Error as e:
            state["t"] = None
            return e.kind
    t, n = state.get("t"), state.get("n")
    if op == "C":
        v = float(a[1])
        try:
            lv = t.classify(v, a[0])
            lvl = "-1" if lv is pmucal.BEYOND else str(t.levels.index(lv))
        except pmucal.Error as e:
            lvl = "E %s" % e.kind
        return "%s | %s" % (lvl, _match_line(lambda: pmucal.classify(t, n, v, a[0])))
    if op == "S":
        return _match_line(lambda: pmucal.classify_source(t, n, a[0], float(a[2]), a[1]))
    if op == "R":
        try:
            t.set_core_ratio(float(a[0]))
            return "ok"
        except pmucal.Error as e:
            return e.kind
    if op == "P":
        try:
            return pmucal.source_perf_data_src(int(a[0], 16))
        except pmucal.SourceError as e:
            return "E unknown_source %s" % e.what
    if op == "I":
        try:
            src, lat = pmucal.source_ibs_op(int(a[0], 16), int(a[1], 16), int(a[2], 0), int(a[3], 0))
            return "%s %r" % (src, lat)
        except pmucal.SourceError as e:
            return "E unknown_source %s" % e.what
    raise AssertionError(cmd)


def _same(c, p):
    """Answers equal, numbers compared as doubles (C prints %.17g, Python repr)."""
    if c == p:
        return True
    cs, ps = c.split(), p.split()
    if len(cs) != len(ps):
        return False
    for x, y in zip(cs, ps):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if not (fx == fy or (math.isnan(fx) and math.isnan(fy))):
            return False
    return True


def _commands(work, rng):
    cmds, tables = [], 0
    bases = []
    for path in CORPUS:
        try:
            bases.append(json.load(open(path)))
        except ValueError:
            pass
    for i in range(len(CORPUS) + N_TABLES):
        if i < len(CORPUS):
            path = CORPUS[i]
        else:
            path = os.path.join(work, "t%d.json" % i)
            with open(path, "w") as f:
                json.dump(_variant(rng.choice(bases), rng), f)
        tables += 1
        cmds.append(("T %s" % path, None))
        try:
            t = pmucal.load_latency_table(path)
        except pmucal.Error:
            continue
        for unit, v in _latencies(t, rng):
            if rng.random() < 0.3:
                cmds.append(("S %s %s %s" % (rng.choice(SOURCES), unit, _fmt(v)), None))
            else:
                cmds.append(("C %s %s" % (unit, _fmt(v)), None))
        if rng.random() < 0.2:
            cmds.append(("R %s" % rng.choice(["2.5", "0", "-1", "nan", "1e9", "0.75"]), None))
            for unit, v in _latencies(t, rng)[:10]:
                cmds.append(("C %s %s" % (unit, _fmt(v)), None))
    for _ in range(N_ENCODINGS):
        v = rng.getrandbits(46)
        if rng.random() < 0.5:   # the fields the mapping reads, one value each, the rest clear
            v = (1 << 1 | rng.choice([0, 2, 4, 0x402, 0x1002]) << 5 | rng.getrandbits(14) << 5 |
                 rng.choice([0, 4, 8, 16, 2]) << 19 | rng.randrange(16) << 33 |
                 rng.randrange(2) << 37 | rng.randrange(4) << 38 | rng.randrange(5) << 43)
        cmds.append(("P %x" % v, None))
        d2 = rng.getrandbits(8)
        d3 = rng.getrandbits(64) if rng.random() < 0.5 else (
            rng.choice([1, 2, 3]) | rng.getrandbits(1) << 7 | rng.getrandbits(1) << 14 |
            rng.getrandbits(1) << 16 | rng.getrandbits(1) << 20 | rng.getrandbits(1) << 21 |
            rng.getrandbits(16) << 32)
        fam, model = rng.choice([(0x17, 0x31), (0x19, 0x01), (0x19, 0x21), (0x19, 0x11),
                                 (0x19, 0x61), (0x19, 0xa0), (0x1a, 0x02), (0x1a, 0x44)])
        cmds.append(("I %x %x %#x %#x" % (d2, d3, fam, model), None))
    return [c for c, _ in cmds], tables


@pytest.mark.skipif(not os.access(DRIVER, os.X_OK), reason="test_libpmucal_numa not built (make unit)")
def test_c_and_python_agree():
    work = tempfile.mkdtemp(prefix="pmucal-diff-")
    try:
        cmds, tables = _commands(work, random.Random(25))
        r = subprocess.run([DRIVER, "--diff"], input="\n".join(cmds) + "\n", capture_output=True,
                           text=True, check=True)
        c_out = r.stdout.splitlines()
        assert len(c_out) == len(cmds), r.stderr[-2000:]
        state, bad, inputs = {}, [], 0
        for cmd, c in zip(cmds, c_out):
            p = _py_answer(state, cmd)
            inputs += cmd[0] != "T"
            if not _same(c, p):
                bad.append("%s\n    C:      %s\n    Python: %s" % (cmd, c, p))
        assert tables + inputs >= 10 ** 5
        assert not bad, "%d of %d answers differ, the first:\n%s" % (len(bad), len(cmds), "\n".join(bad[:8]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
