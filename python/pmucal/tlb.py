"""The TLB table (tlb-table.json, or the "tlb" member of a latency table; schema
pmucal.tlb/1.x): loaded and validated with the rules of libpmucal's pmucal_tlb_load()
(host/libpmucal_tlb.c) and classified as pmucal_tlb_classify() does."""
import math
from dataclasses import asdict, dataclass, field
from typing import List, Optional

from . import _json
from .errors import TableError, schema_version

SCHEMA_PREFIX = "pmucal.tlb/"
MAJOR = 1
MAX_CURVES = 64
MAX_CLASSES = 8
SIDES = ("dtlb", "itlb")
PTES = ("near", "line", "page")
CLASSES = ("l1_hit", "l2_hit", "walk", "miss")
PAGES = (4096, 2097152, 1073741824)


@dataclass
class TlbClass:
    name: str                 # "l1_hit", "l2_hit", "walk", "miss"
    lat_cycles: float         # median latency per access, data access included
    added_cycles: float       # over an L1 TLB hit
    upper_added_cycles: Optional[float]  # bucket bound (inclusive); None for the last class
    first_pages: int
    last_pages: int


@dataclass
class TlbCurve:
    side: str
    page_bytes: int
    pte: str
    level_entries: List[int] = field(default_factory=list)
    classes: List[TlbClass] = field(default_factory=list)


@dataclass
class TlbTable:
    schema: str
    major: int
    minor: int
    curves: List[TlbCurve]

    def curve(self, side, page_bytes):
        """The curve used for classification for @side and @page_bytes (PTE layout "near");
        None when there is none."""
        for cv in self.curves:
            if cv.side == side and cv.page_bytes == page_bytes and cv.pte == "near":
                return cv
        return None

    def classify(self, side, page_bytes, added_cycles):
        """Name of the class an added latency of @added_cycles (cycles over an L1 TLB hit)
        belongs to: the first whose bound is >= it, else the last. None for no such curve, no
        classes, NaN or a negative latency (as pmucal_tlb_classify)."""
        cv = self.curve(side, page_bytes)
        if (not cv or not cv.classes or added_cycles is None or math.isnan(added_cycles) or
                added_cycles < 0):
            return None
        for k in cv.classes:
            if k.upper_added_cycles is None or added_cycles <= k.upper_added_cycles:
                return k.name
        return cv.classes[-1].name

    def to_dicts(self):
        """One plain dict per class of every curve (side, page_bytes and pte included)."""
        return [dict(asdict(k), side=cv.side, page_bytes=cv.page_bytes, pte=cv.pte)
                for cv in self.curves for k in cv.classes]


def _fail(name, kind, path, msg):
    raise TableError(kind, "%s: %s%s%s" % (name, path, ": " if path else "", msg))


def _str(name, o, key, cap, path):
    if key not in o:
        _fail(name, "schema", path, "%s: missing" % key)
    v = o[key]
    if not isinstance(v, str) or len(v.encode("utf-8")) >= cap or "\0" in v:
        _fail(name, "schema", path, "%s: expected a string of at most %d bytes" % (key, cap - 1))
    return v


def _u64(name, o, key, path, nullable=False):
    if key not in o:
        _fail(name, "schema", path, "%s: missing" % key)
    v = o[key]
    if nullable and v is None:
        return None
    if not _json.is_int(v) or v < 0:
        _fail(name, "schema", path, "%s: expected a non-negative integer%s" % (key, " or null" if nullable else ""))
    return v


def _load_curve(name, o, i):
    path = "curves[%d]" % i
    if not isinstance(o, dict):
        _fail(name, "schema", path, "expected an object")
    side, pte = _str(name, o, "side", 8, path), _str(name, o, "pte", 8, path)
    page = _u64(name, o, "page_bytes", path)
    if side not in SIDES:
        _fail(name, "schema", path, 'side: "%s" is not dtlb or itlb' % side)
    if pte not in PTES:
        _fail(name, "schema", path, 'pte: "%s" is not near, line or page' % pte)
    if page not in PAGES:
        _fail(name, "schema", path, "page_bytes: %d is not 4 KiB, 2 MiB or 1 GiB" % page)
    lv, cl = o.get("levels"), o.get("classes")
    if not isinstance(lv, list) or not isinstance(cl, list):
        _fail(name, "schema", path, "levels and classes: expected two arrays")
    if len(lv) > MAX_CLASSES or len(cl) > MAX_CLASSES:
        _fail(name, "schema", path, "more than %d levels or classes" % MAX_CLASSES)
    cv = TlbCurve(side, page, pte)
    for k, e in enumerate(lv):
        p = "%s.levels[%d]" % (path, k)
        if not isinstance(e, dict):
            _fail(name, "schema", p, "expected an object")
        cv.level_entries.append(_u64(name, e, "entries", p))
    for k, e in enumerate(cl):
        p = "%s.classes[%d]" % (path, k)
        if not isinstance(e, dict):
            _fail(name, "schema", p, "expected an object")
        cls = _str(name, e, "class", 16, p)
        if cls not in CLASSES:
            _fail(name, "schema", p, 'class: unknown class "%s"' % cls)
        lat = _u64(name, e, "lat_mcyc", p) / 1000
        added = _u64(name, e, "added_mcyc", p) / 1000
        upper = _u64(name, e, "upper_added_mcyc", p, nullable=True)
        upper = None if upper is None else upper / 1000
        first, last = _u64(name, e, "first_pages", p), _u64(name, e, "last_pages", p)
        if k and added < cv.classes[-1].added_cycles:
            _fail(name, "schema", p, "added_mcyc below the class before it")
        if (upper is not None) != (k + 1 < len(cl)):
            _fail(name, "schema", p, "upper_added_mcyc: null exactly for the last class")
        if upper is not None and upper < added:
            _fail(name, "schema", p, "upper_added_mcyc below added_mcyc")
        cv.classes.append(TlbClass(cls, lat, added, upper, first, last))
    return cv


def loads_tlb_table(data, name="<buffer>"):
    """Load and validate a TLB table from @data (bytes or str): a pmucal.tlb document or a
    latency table with a "tlb" member. Raises TableError."""
    root = _json.parse(data, name)
    if not isinstance(root, dict):
        _fail(name, "version", "", "not a pmucal TLB table (top level is not an object)")
    tlb = root
    if "curves" not in root and "tlb" in root:
        tlb = root["tlb"]
        if not isinstance(tlb, dict):
            _fail(name, "schema", "tlb", "expected an object")
    s = tlb.get("schema")
    if not isinstance(s, str) or not s.startswith(SCHEMA_PREFIX):
        _fail(name, "version", "", "not a pmucal TLB table (schema %s)" % ('"%s"' % s if isinstance(s, str) else "missing"))
    v = schema_version(s, SCHEMA_PREFIX)
    if v is None or v[0] != MAJOR:
        _fail(name, "version", "", 'schema "%s": this library reads %s%d' % (s, SCHEMA_PREFIX, MAJOR))
    cv = tlb.get("curves")
    if not isinstance(cv, list):
        _fail(name, "schema", "", "curves: missing or not an array")
    if len(cv) > MAX_CURVES:
        _fail(name, "schema", "", "curves: more than %d" % MAX_CURVES)
    return TlbTable(s, v[0], v[1], [_load_curve(name, o, i) for i, o in enumerate(cv)])


def load_tlb_table(path):
    """Load and validate the TLB table in file @path. Raises TableError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TableError("io", "%s: cannot open: %s" % (path, e.strerror or e)) from None
    return loads_tlb_table(data, path)
