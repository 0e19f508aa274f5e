"""Remote memory and cache-to-cache buckets of a 1.3 latency table ("numa", "loaded_latency",
"c2c"; docs/latency-table.md), and classification by latency and by data source with the rules
of libpmucal's pmucal_numa_classify_ns() / pmucal_numa_classify_source_ns()
(host/libpmucal_numa_classify.c): same buckets, same fit ranges, same best fit.

    t = pmucal.load_latency_table(path); n = pmucal.load_numa(path)
    pmucal.classify_source(t, n, "dram-remote", 150.0)   # Match("DRAM-remote-1hop", "fits", ...)
"""
import math
from dataclasses import dataclass, field
from typing import List, Optional

from . import _json
from .errors import TableError, read_table_file, schema_version
from .table import MAJOR, SCHEMA_PREFIX, STAT_KEYS, Stat

SLACK = 1.5   # PMUCAL_FIT_SLACK
FITS, FASTER, SLOWER = "fits", "faster", "slower"
TOPOLOGIES = ("smt", "same-l3", "other-l3", "other-package")
KINDS = ("hit", "hitm", "write")


@dataclass
class DramLevel:
    name: str
    cls: int
    slit_distance: int
    n_cells: int
    ns: Optional[Stat]
    upper_ns: Optional[float]


@dataclass
class C2cClass:
    topology: str
    kind: str
    n_pairs: int
    tsc: Stat
    ns: Optional[Stat]


@dataclass
class Numa:
    dram: List[DramLevel] = field(default_factory=list)
    matrix_p50_ns: List[List[Optional[float]]] = field(default_factory=list)
    c2c: List[C2cClass] = field(default_factory=list)
    load_factor: float = 1.0


@dataclass
class Match:
    bucket: str
    fit: str        # "fits", "faster", "slower"
    lo_ns: float
    hi_ns: float
    p50_ns: float


def _fail(name, path, msg):
    raise TableError("schema", "%s: %s: %s" % (name, path, msg))


def _stat(name, o, path, nullable):
    if o is None and nullable:
        return None
    if not isinstance(o, dict):
        _fail(name, path, "expected an object")
    v = [o.get(k) for k in STAT_KEYS]
    if not all(_json.is_num(x) and 0 <= x <= 1e12 for x in v) or sorted(v) != v:
        _fail(name, path, "min <= p10 <= p50 <= p90, numbers in 0..1e12 expected")
    return Stat(*[float(x) for x in v])


def _load_factor(curves):
    f = 1.0
    for cv in curves:
        pts = cv.get("points", []) if isinstance(cv, dict) else []
        idle = [p["p50_ns"] for p in pts if p.get("delay") is None and p.get("measured")]
        for p in pts:
            if idle and idle[-1] > 0 and p.get("delay") is not None and p.get("measured"):
                f = max(f, p["p90_ns"] / idle[-1])
    return f


def loads_numa(data, name="<buffer>"):
    """The remote sections of the latency table in @data (absent sections: empty lists)."""
    root = _json.parse(data, name)
    v = schema_version(root.get("schema") if isinstance(root, dict) else None, SCHEMA_PREFIX)
    if v is None or v[0] != MAJOR:
        raise TableError("version", "%s: not a pmucal latency table of major version %d" % (name, MAJOR))
    n = Numa()
    numa = root.get("numa")
    if numa is not None:
        for i, d in enumerate(numa.get("dram_levels", []) if isinstance(numa, dict) else []):
            p = "numa.dram_levels[%d]" % i
            if not isinstance(d, dict) or not isinstance(d.get("name"), str):
                _fail(name, p, "expected an object with a name")
            n.dram.append(DramLevel(d["name"], d.get("class", 0), d.get("slit_distance", 0),
                                    d.get("n_cells", 0), _stat(name, d.get("ns"), p + ".ns", True),
                                    d.get("upper_ns")))
        n.matrix_p50_ns = [[x.get("p50_ns") if x.get("measured") else None for x in row]
                           for row in numa.get("matrix", [])]
    n.load_factor = _load_factor(root.get("loaded_latency") or [])
    c2c = root.get("c2c")
    for i, k in enumerate(c2c.get("classes", []) if isinstance(c2c, dict) else []):
        p = "c2c.classes[%d]" % i
        if not isinstance(k, dict) or k.get("topology") not in TOPOLOGIES or k.get("kind") not in KINDS:
            _fail(name, p, "unknown topology or kind")
        n.c2c.append(C2cClass(k["topology"], k["kind"], k.get("n_pairs", 0),
                              _stat(name, k.get("tsc"), p + ".tsc", False),
                              _stat(name, k.get("ns"), p + ".ns", True)))
    return n


def load_numa(path):
    """As loads_numa for the file @path. Raises TableError."""
    return loads_numa(read_table_file(path), path)


# ---- buckets ---------------------------------------------------------------------------------

@dataclass
class _Bucket:
    name: str
    kind: str                 # "level", "last", "dram", "c2c"
    p50: float
    lo: float
    hi: float
    upper: Optional[float] = None
    cls: int = 0
    topology: str = ""
    ckind: str = ""


def _buckets(t, n):
    if not t.levels or t.levels[0].ns is None:
        raise TableError("schema", "the table has no ns figures")
    out, below = [], 0.0
    for i, lv in enumerate(t.levels):
        last = i + 1 == len(t.levels)
        out.append(_Bucket(lv.name, "last" if last else "level", lv.ns.p50, below,
                           math.inf if last else lv.upper_ns, None if last else lv.upper_ns))
        below = lv.upper_ns or 0.0
    dram = [d for d in (n.dram if n else []) if d.ns is not None]
    for d in dram:
        out.append(_Bucket(d.name, "dram", d.ns.p50, d.ns.p10 / SLACK,
                           d.ns.p90 * SLACK * n.load_factor, d.upper_ns, d.cls))
    for k in (n.c2c if n else []):
        if k.ns is not None:
            out.append(_Bucket("c2c-%s-%s" % (k.topology, k.kind), "c2c", k.ns.p50,
                               k.ns.p10 / SLACK, k.ns.p90 * SLACK, topology=k.topology, ckind=k.kind))
    return out, bool(dram)


def _match(b, ns):
    if b.kind in ("level", "last"):
        fit = FASTER if (ns <= b.lo and b.lo > 0) else SLOWER if ns > b.hi else FITS
    else:
        fit = FASTER if ns < b.lo else SLOWER if ns > b.hi else FITS
    return Match(b.name, fit, b.lo, b.hi, b.p50)


def _check(ns):
    if ns is None or isinstance(ns, bool) or not math.isfinite(ns) or ns < 0:
        raise ValueError("latency must be a finite number >= 0")


def classify(t, n, ns):
    """The bucket of latency @ns: the cache levels by the table's bounds, then the DRAM levels
    by theirs (ordered by median), else the table's last level."""
    _check(ns)
    bs, _ = _buckets(t, n)
    for b in bs:
        if b.kind == "level" and ns <= b.upper:
            return _match(b, ns)
    dram = sorted((b for b in bs if b.kind == "dram"), key=lambda b: b.p50)
    for i, b in enumerate(dram):
        if i + 1 == len(dram) or (b.upper is not None and ns <= b.upper):
            return _match(b, ns)
    return _match(next(b for b in bs if b.kind == "last"), ns)


def _wants(b, src, dram_levels):
    if b.kind in ("level", "last"):
        return src == b.name or (b.kind == "last" and not dram_levels and src == "dram")
    if b.kind == "dram":
        return (src == b.name or (src in ("dram", "dram-local") and b.cls == 0) or
                (src.startswith("dram-") and src[5:] == b.name[5:]) or
                (src == "dram-remote" and b.cls > 0))
    if not src.startswith("c2c-") or "-" not in src[4:]:
        return False
    topo, kind = src[4:].rsplit("-", 1)
    if not topo or kind not in ("any", b.ckind):
        return False
    return (topo in ("any", b.topology) or (topo == "remote" and b.topology == "other-package") or
            (topo == "local" and b.topology != "other-package"))


def _distance(b, ns):
    if b.lo <= ns <= b.hi:
        return abs(math.log(ns / b.p50 if ns > 0 else 1e-9)) * 1e-6
    return math.log(b.lo / (ns if ns > 0 else 1e-9)) if ns < b.lo else math.log(ns / b.hi)


def classify_source(t, n, source, ns):
    """The bucket of data source @source (names as in docs/latency-table.md) and how @ns fits
    it; None when the table has no bucket for that source."""
    _check(ns)
    bs, dram_levels = _buckets(t, n)
    cand = [b for b in bs if _wants(b, source, dram_levels)]
    if not cand:
        return None
    return _match(min(cand, key=lambda b: _distance(b, ns)), ns)
