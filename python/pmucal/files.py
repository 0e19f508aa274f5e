"""The run's other files, as libpmucal's pmucal_c2c_file_load() / pmucal_numa_file_load() read
them (host/libpmucal_files.c): c2c.json ("pmucal.c2c/1") and numa-matrix.json ("pmucal.numa/1").
Any minor of major 1; members this reader does not know are ignored; an enum value it does not
know (a class's topology or kind, a curve's "loaded") reads as "unknown" and is listed in
`unknown` ('path.member: "value"'). Figures carry their clock in their name (_tsc, _ns); the TSC
figures are read from the unit-named members (p50_tsc_ticks, c2c 1.3 on) where a file has them,
from the 1.x names (p50_tsc) in older files; None where the file has null or leaves a figure out.

    c = pmucal.load_c2c_file("c2c.json");          c.classes[0].p50_tsc
    n = pmucal.load_numa_file("numa-matrix.json"); n.matrix_p50_ns[0][1]
"""
from dataclasses import dataclass, field
from typing import List, Optional

from . import _json
from ._rules import enum
from .errors import TableError, read_table_file, schema_version

UNKNOWN = "unknown"
C2C_TOPOLOGIES = enum("c2c_topology")
C2C_KINDS = enum("c2c_file_kind")
LOADED = enum("loaded")


@dataclass
class C2cFileClass:
    topology: str
    kind: str
    n_pairs: int
    p50_tsc: Optional[float]
    min_tsc: Optional[float]
    max_tsc: Optional[float]
    p50_ns: Optional[float]


@dataclass
class C2cFile:
    major: int
    minor: int
    emulated: bool
    tsc_hz: int
    classes: List[C2cFileClass] = field(default_factory=list)
    n_pairs: int = 0
    unknown: List[str] = field(default_factory=list)


@dataclass
class NumaFile:
    major: int
    minor: int
    emulated: bool
    tsc_hz: int
    proximity_domains: List[int] = field(default_factory=list)
    matrix_p50_ns: List[List[Optional[float]]] = field(default_factory=list)
    n_curves: int = 0
    unknown: List[str] = field(default_factory=list)


def _fail(name, path, msg):
    raise TableError("schema", "%s: %s: %s" % (name, path, msg))


def _root(data, name, what):
    root = _json.parse(data, name)
    s = root.get("schema") if isinstance(root, dict) else None
    prefix = "pmucal.%s/" % what
    if not isinstance(s, str) or not s.startswith(prefix):
        raise TableError("kind", "%s: not a pmucal %s document" % (name, prefix))
    v = schema_version(s, prefix)
    if v is None or v[0] != 1:
        raise TableError("version", '%s: schema "%s": major version 1 is the one read' % (name, s))
    m = root.get("method")
    if not isinstance(m, dict):
        _fail(name, "method", "expected an object")
    hz = m.get("tsc_hz")
    hz = hz if isinstance(hz, int) and not isinstance(hz, bool) and hz > 0 else 0
    return root, v, m.get("emulated") is True, hz


def _num(name, path, o, key):
    v = o.get(key)
    if v is None:
        return None
    if not _json.is_num(v):
        _fail(name, path, "%s: expected a number or null" % key)
    return float(v)


def _tsc(name, path, o, fig):
    """A TSC figure: its unit-named member (fig_tsc_ticks, since c2c 1.3) where the file has it,
    else the 1.x name (fig_tsc) of older files."""
    key = fig + "_tsc_ticks"
    return _num(name, path, o, key if key in o else fig + "_tsc")


def _enum(name, path, o, key, known, unknown):
    v = o.get(key)
    if not isinstance(v, str):
        _fail(name, path, "%s: expected a string" % key)
    if v in known:
        return v
    unknown.append('%s.%s: "%s"' % (path, key, v))
    return UNKNOWN


def loads_c2c_file(data, name="<buffer>"):
    """The c2c.json document in @data. Raises TableError ("kind" for another document)."""
    root, v, emulated, hz = _root(data, name, "c2c")
    f = C2cFile(v[0], v[1], emulated, hz)
    c2c = root.get("c2c")
    if not isinstance(c2c, dict) or not isinstance(c2c.get("classes"), list):
        _fail(name, "c2c", "expected an object with a classes array")
    pairs = c2c.get("pairs")
    f.n_pairs = len(pairs) if isinstance(pairs, list) else 0
    for i, k in enumerate(c2c["classes"]):
        p = "c2c.classes[%d]" % i
        if not isinstance(k, dict):
            _fail(name, p, "expected an object")
        n = k.get("n_pairs")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 1 << 24:
            _fail(name, p, "n_pairs: expected an integer 0..2^24")
        topo = _enum(name, p, k, "topology", C2C_TOPOLOGIES, f.unknown)
        kind = _enum(name, p, k, "kind", C2C_KINDS, f.unknown)
        f.classes.append(C2cFileClass(topo, kind, n, _tsc(name, p, k, "p50"),
                                      _tsc(name, p, k, "min"), _tsc(name, p, k, "max"),
                                      _num(name, p, k, "p50_ns")))
    return f


def loads_numa_file(data, name="<buffer>"):
    """The numa-matrix.json document in @data. Raises TableError ("kind" for another document)."""
    root, v, emulated, hz = _root(data, name, "numa")
    f = NumaFile(v[0], v[1], emulated, hz)
    nodes, mx = root.get("nodes"), root.get("matrix")
    if not isinstance(nodes, list):
        _fail(name, "nodes", "expected an array")
    if not isinstance(mx, list) or len(mx) != len(nodes):
        _fail(name, "matrix", "expected %d rows, one per node" % len(nodes))
    for i, nd in enumerate(nodes):
        pd = nd.get("proximity_domain") if isinstance(nd, dict) else None
        if not isinstance(pd, int) or isinstance(pd, bool) or not 0 <= pd <= 0xFFFFFFFF:
            _fail(name, "nodes[%d]" % i, "proximity_domain: expected an integer")
        f.proximity_domains.append(pd)
        row = mx[i]
        if not isinstance(row, list) or len(row) != len(nodes):
            _fail(name, "matrix[%d]" % i, "expected %d cells" % len(nodes))
        out = []
        for j, cell in enumerate(row):
            p = "matrix[%d][%d]" % (i, j)
            if not isinstance(cell, dict):
                _fail(name, p, "expected an object")
            x = _num(name, p, cell, "p50_ns")
            out.append(x if cell.get("measured") is True else None)
        f.matrix_p50_ns.append(out)
    ll = root.get("loaded_latency")
    for i, cv in enumerate(ll if isinstance(ll, list) else []):
        p = "loaded_latency[%d]" % i
        if not isinstance(cv, dict):
            _fail(name, p, "expected an object")
        if _enum(name, p, cv, "loaded", LOADED, f.unknown) != UNKNOWN:
            f.n_curves += 1
    return f


def load_c2c_file(path):
    """As loads_c2c_file for the file @path. Raises TableError."""
    return loads_c2c_file(read_table_file(path), path)


def load_numa_file(path):
    """As loads_numa_file for the file @path. Raises TableError."""
    return loads_numa_file(read_table_file(path), path)
