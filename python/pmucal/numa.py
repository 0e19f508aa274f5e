"""Remote memory and cache-to-cache buckets of a 1.3 latency table ("numa", "loaded_latency",
"c2c"; docs/latency-table.md), and classification by latency and by data source with the rules
of libpmucal's pmucal_numa_classify_ns() / pmucal_numa_classify_source_ns()
(host/libpmucal_numa_classify.c): same buckets, same fit ranges, same best fit.

    t = pmucal.load_latency_table(path); n = pmucal.load_numa(path)
    pmucal.classify_source(t, n, "dram-remote", 150.0)          # Match("DRAM-remote-1hop", "fits", ...)
    pmucal.classify(t, n, 450.0, "core").bucket                 # 150 ns at 3 GHz
"""
import math
import re
from dataclasses import dataclass, field
from typing import List, Optional

from . import _json
from ._rules import LIMITS, enum
from .errors import TableError, read_table_file, schema_version
from .table import MAJOR, SCHEMA_PREFIX, STAT_KEYS, UNITS, Stat, _latency

SLACK = LIMITS["fit_slack"]   # PMUCAL_FIT_SLACK
FITS, FASTER, SLOWER = "fits", "faster", "slower"
TOPOLOGIES = enum("c2c_topology")
KINDS = enum("c2c_kind")
LOADED = enum("loaded")
UNKNOWN = "unknown"   # PMUCAL_UNKNOWN: an enum value of a later minor version


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
    # What a later minor added that this reader does not know, as libpmucal's n_unknown and
    # unknown_first: 'path.member: "value"' of each enum value read as "unknown" (a C2C class
    # of it is no bucket, a loaded-latency curve of it counts in no load factor).
    unknown: List[str] = field(default_factory=list)


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
    """The remote sections of the latency table in @data (absent sections: empty lists).
    Raises TableError with libpmucal's kinds: "kind" for another document (a numa-matrix.json,
    a TLB table), "version" for a malformed version or another major."""
    root = _json.parse(data, name)
    s = root.get("schema") if isinstance(root, dict) else None
    if not isinstance(s, str):
        raise TableError("kind", "%s: not a pmucal latency table (no schema string)" % name)
    if not s.startswith(SCHEMA_PREFIX):
        raise TableError("kind", '%s: not a pmucal latency table: schema "%s" is not %sMAJOR[.MINOR]'
                         % (name, s, SCHEMA_PREFIX))
    v = schema_version(s, SCHEMA_PREFIX)
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
    curves = []
    for i, cv in enumerate(root.get("loaded_latency") or []):
        ld = cv.get("loaded") if isinstance(cv, dict) else None
        if isinstance(ld, str) and ld not in LOADED:
            n.unknown.append('loaded_latency[%d].loaded: "%s"' % (i, ld))
        else:
            curves.append(cv)
    n.load_factor = _load_factor(curves)
    c2c = root.get("c2c")
    for i, k in enumerate(c2c.get("classes", []) if isinstance(c2c, dict) else []):
        p = "c2c.classes[%d]" % i
        if (not isinstance(k, dict) or not isinstance(k.get("topology"), str) or
                not isinstance(k.get("kind"), str)):
            _fail(name, p, "expected an object with a topology and a kind")
        topo, kind = k["topology"], k["kind"]
        if topo not in TOPOLOGIES:
            n.unknown.append('%s.topology: "%s"' % (p, topo))
            topo = UNKNOWN
        if kind not in KINDS:
            n.unknown.append('%s.kind: "%s"' % (p, kind))
            kind = UNKNOWN
        n.c2c.append(C2cClass(topo, kind, k.get("n_pairs", 0),
                              _stat(name, k.get("tsc"), p + ".tsc", False),
                              _stat(name, k.get("ns"), p + ".ns", True)))
    return n


def load_numa(path):
    """As loads_numa for the file @path. Raises TableError."""
    return loads_numa(read_table_file(path), path)


# ---- buckets ----------------------------------------------------------------------------------

BEYOND_BUCKET = "beyond"   # PMUCAL_BUCKET_BEYOND
_TOPOS = TOPOLOGIES + ("local", "remote", "any")
_KINDS = ("hit", "hitm", "write", "any")
_HOP = re.compile(r"remote-[1-9][0-9]?hop")


@dataclass
class _Bucket:
    name: str
    kind: str                 # "level", "last", "dram", "c2c", "lfb"
    p50: float
    lo: float
    hi: float
    upper: Optional[float] = None
    cls: int = 0
    topology: str = ""
    ckind: str = ""


class _Buckets:
    def __init__(self, t, n):
        upper, ceiling = t.bounds("ns")           # pmucal_table_classify's bounds in ns
        self.ceiling = ceiling
        self.b, below = [], 0.0
        for i, lv in enumerate(t.levels):
            last = i + 1 == len(t.levels)
            p50 = lv.ns.p50 if lv.ns is not None else t.convert(lv.cycles.p50, "table", "ns")
            hi = (ceiling if ceiling is not None else math.inf) if last else upper[i]
            self.b.append(_Bucket(lv.name, "last" if last else "level", p50, below, hi,
                                  None if last else upper[i]))
            below = 0.0 if last else upper[i]
        self.n_levels = len(self.b)
        self.dram_levels = self.c2c = False
        for d in (n.dram if n else []):
            if d.ns is not None:
                self.b.append(_Bucket(d.name, "dram", d.ns.p50, d.ns.p10 / SLACK,
                                      d.ns.p90 * SLACK * n.load_factor, d.upper_ns, d.cls))
                self.dram_levels = True
        for k in (n.c2c if n else []):
            if k.ns is not None and UNKNOWN not in (k.topology, k.kind):   # a later minor's: no bucket
                self.b.append(_Bucket("c2c-%s-%s" % (k.topology, k.kind), "c2c", k.ns.p50,
                                      k.ns.p10 / SLACK, k.ns.p90 * SLACK, topology=k.topology,
                                      ckind=k.kind))
                self.c2c = True
        hi = self.b[self.n_levels - 1].hi
        for x in self.b[self.n_levels:]:
            if x.kind == "dram" and x.hi > hi:
                hi = x.hi
        self.b.append(_Bucket("LFB", "lfb", math.nan, 0.0, hi))


def _match(b, ns):
    if b.kind in ("level", "last"):
        fit = FASTER if (ns <= b.lo and b.lo > 0) else SLOWER if ns > b.hi else FITS
    else:
        fit = FASTER if ns < b.lo else SLOWER if ns > b.hi else FITS
    return Match(b.name, fit, b.lo, b.hi, b.p50)


def _by_latency(s, ns):
    for b in s.b[:s.n_levels - 1]:
        if ns <= b.upper:
            return _match(b, ns)
    last = s.b[s.n_levels - 1]
    if s.ceiling is not None and ns <= s.ceiling:
        return _match(last, ns)
    dram = sorted((b for b in s.b if b.kind == "dram"), key=lambda b: b.p50)
    for i, b in enumerate(dram):
        if i + 1 == len(dram) or (b.upper is not None and ns <= b.upper):
            return _match(b, ns)
    m = _match(last, ns)
    if s.ceiling is not None:
        m.bucket, m.fit = BEYOND_BUCKET, SLOWER
    return m


def _to_ns(t, latency, unit):
    if unit not in UNITS:
        raise TableError("arg", "unit %r is not one of %s" % (unit, ", ".join(UNITS)))
    v = _latency(latency)
    # a latency that overflows on the way to ns is out of range, as in C
    return v if unit == "ns" else _latency(t.convert(v, unit, "ns"))


def classify(t, n, latency, unit="ns"):
    """The bucket of a latency in @unit ("ns", "tsc", "core", or "table": the table's own
    clock) by latency alone, as pmucal_numa_classify(): the cache levels by the table's bounds
    (the last one up to its ceiling when it is a cache), then the DRAM levels by theirs; without
    DRAM levels the last level, or "beyond" above a cache's ceiling. Raises TableError."""
    ns = _to_ns(t, latency, unit)
    return _by_latency(_Buckets(t, n), ns)


def _parse_source(t, src):
    """("level" | "lfb" | "dram" | "c2c", topology, kind) of source name @src, or TableError
    "unknown_source" (pmucal_numa_classify_source_ns's vocabulary)."""
    if not isinstance(src, str):
        raise TableError("arg", "source %r is not a string" % (src,))
    if any(src == lv.name for lv in t.levels) or re.fullmatch(r"L[1-9]|DRAM|flat", src):
        return "level", "", ""
    if src == "lfb":
        return "lfb", "", ""
    if src in ("dram", "dram-local", "DRAM-local", "dram-remote") or \
            (src[:5] in ("dram-", "DRAM-") and _HOP.fullmatch(src[5:])):
        return "dram", "", ""
    if src.startswith("c2c-") and "-" in src[4:]:
        topo, kind = src[4:].rsplit("-", 1)
        if topo in _TOPOS and kind in _KINDS:
            return "c2c", topo, kind
    raise TableError("unknown_source", "unknown data source %r" % src)


def _wants(b, src, k):
    kind, topo, ckind = k
    if kind == "level":
        return b.kind in ("level", "last") and src == b.name
    if kind == "lfb":
        return b.kind == "lfb"
    if kind == "dram":
        return b.kind == "dram" and (
            src == b.name or (src in ("dram", "dram-local", "DRAM-local") and b.cls == 0) or
            (src.startswith("dram-") and src[5:] == b.name[5:]) or
            (src == "dram-remote" and b.cls > 0))
    if b.kind != "c2c" or ckind not in ("any", b.ckind):
        return False
    return (topo in ("any", b.topology) or (topo == "remote" and b.topology == "other-package") or
            (topo == "local" and b.topology != "other-package"))


def _distance(b, ns):
    if b.lo <= ns <= b.hi:
        return 0.0 if math.isnan(b.p50) else abs(math.log(ns / b.p50 if ns > 0 else 1e-9)) * 1e-6
    return math.log(b.lo / (ns if ns > 0 else 1e-9)) if ns < b.lo else math.log(ns / b.hi)


def classify_source(t, n, source, latency, unit="ns"):
    """The bucket of data source @source (names as in docs/latency-table.md; "lfb" for a fill /
    miss buffer hit) and how the latency fits it, as pmucal_numa_classify_source(). A source
    whose section the table lacks (DRAM sources without DRAM levels, C2C sources without C2C
    classes) is sorted by latency alone. Raises TableError "unknown_source", "no_bucket",
    "range", "no_ratio", "arg" in C's order."""
    k = _parse_source(t, source)
    ns = _to_ns(t, latency, unit)
    s = _Buckets(t, n)
    if (k[0] == "dram" and not s.dram_levels) or (k[0] == "c2c" and not s.c2c):
        return _by_latency(s, ns)
    best, best_d = None, math.inf
    for b in s.b:
        if _wants(b, source, k):
            d = _distance(b, ns)
            if best is None or d < best_d:
                best, best_d = b, d
    if best is None:
        raise TableError("no_bucket", "this table has no bucket for data source %r" % source)
    return _match(best, ns)
