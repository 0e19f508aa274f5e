"""The TLB table (tlb-table.json, or the "tlb" member of a latency table; schema
pmucal.tlb/1.x): loaded and validated with the rules of libpmucal's pmucal_tlb_load()
(host/libpmucal_tlb.c) and classified as pmucal_tlb_classify() does."""
import math
from dataclasses import asdict, dataclass, field
from typing import List, Optional

from . import _json
from ._rules import LIMITS, TLB_PAGE_BYTES, enum, words
from .errors import MAX_FILE, TableError, read_table_file, schema_version  # noqa: F401
from .table import _latency

SCHEMA_PREFIX = "pmucal.tlb/"
MAJOR = 1
MAX_CURVES = LIMITS["tlb_max_curves"]
MAX_LEVELS = LIMITS["tlb_max_levels"]
MAX_CLASSES = LIMITS["tlb_max_classes"]
SIDES = enum("tlb_side")
PTES = enum("tlb_pte")
CLASSES = enum("tlb_class")
PAGES = TLB_PAGE_BYTES


@dataclass
class TlbClass:
    name: str                 # "l1_hit", "l2_hit", "walk", "miss"
    lat_cycles: float         # median latency per access, data access included
    added_cycles: float       # over an L1 TLB hit
    upper_added_cycles: Optional[float]  # bucket bound (inclusive); None for the last class
    first_pages: int
    last_pages: int
    ordinal: int = 1          # 1 for the first class of its kind in the curve, 2 for the second walk...
    label: str = ""           # unique in the curve: the name, or "walk2", "walk3", ...


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
    clock: dict = field(default_factory=dict)  # the 1.2 clock object as read, {} without one

    def curve(self, side, page_bytes):
        """The curve used for classification for @side and @page_bytes (PTE layout "near");
        None when there is none."""
        for cv in self.curves:
            if cv.side == side and cv.page_bytes == page_bytes and cv.pte == "near" and cv.classes:
                return cv
        return None

    def classify(self, side, page_bytes, added_cycles):
        """Label of the class an added latency of @added_cycles (TSC ticks over an L1 TLB hit)
        belongs to: the first whose bound is >= it, else the last ("walk", or "walk2", "walk3"
        for a curve's further walk classes). Raises TableError "no_curve" for no such curve
        with classes, then "range" for NaN, an infinite or a negative latency, "arg" for what
        is not a number (as pmucal_tlb_classify)."""
        cv = self.curve(side, page_bytes)
        if not cv:
            raise TableError("no_curve", "no %s curve for %s-byte pages" % (side, page_bytes))
        added_cycles = _latency(added_cycles)
        for k in cv.classes:
            if k.upper_added_cycles is None or added_cycles <= k.upper_added_cycles:
                return k.label
        return cv.classes[-1].label

    def to_dicts(self):
        """One plain dict per class of every curve (side, page_bytes and pte included)."""
        return [dict(asdict(k), side=cv.side, page_bytes=cv.page_bytes, pte=cv.pte)
                for cv in self.curves for k in cv.classes]


def _fail(name, kind, path, msg):
    raise TableError(kind, "%s: %s%s%s" % (name, path, ": " if path else "", msg))


def _key(path, key):
    """The JSON path of member @key of the object at @path, as libpmucal writes it."""
    return "%s.%s" % (path, key) if path else key


def _cstr(v):
    """A JSON string as C's strcmp sees it: up to its first NUL."""
    return v.split("\0", 1)[0]


def _word(name, o, key, names, what, path):
    """A string member that is one of @names (exactly: no NUL inside)."""
    if key not in o:
        _fail(name, "schema", _key(path, key), "missing")
    v = o[key]
    if not isinstance(v, str):
        _fail(name, "schema", _key(path, key), "expected a string, got %s" % _json.type_name(v))
    if v not in names:
        _fail(name, "schema", _key(path, key), '"%s" is not %s' % (_cstr(v), what))
    return v


def _u64(name, o, key, path, nullable=False):
    if key not in o:
        _fail(name, "schema", _key(path, key), "missing")
    v = o[key]
    if nullable and v is None:
        return None
    if not _json.is_int(v):
        _fail(name, "schema", _key(path, key), "expected an integer%s, got %s"
              % (" or null" if nullable else "", _json.type_name(v)))
    if v < 0:
        _fail(name, "schema", _key(path, key), "%d is negative" % v)
    return v


def _load_class(name, e, p, k, n, cv):
    if not isinstance(e, dict):
        _fail(name, "schema", p, "expected an object")
    cls = _word(name, e, "class", CLASSES, words("tlb_class"), p)
    ordinal = 1
    for j, b in enumerate(cv.classes):
        if b.name == cls:
            if cls != "walk":
                _fail(name, "schema", p + ".class", 'a second "%s" (classes[%d]); only walk classes '
                      'may repeat' % (cls, j))
            ordinal += 1
    lat = _u64(name, e, "lat_mcyc", p) / 1000
    added = _u64(name, e, "added_mcyc", p) / 1000
    upper = _u64(name, e, "upper_added_mcyc", p, nullable=True)
    upper = None if upper is None else upper / 1000
    first, last = _u64(name, e, "first_pages", p), _u64(name, e, "last_pages", p)
    if k and added < cv.classes[-1].added_cycles:
        _fail(name, "schema", p, "added_mcyc below the class before it")
    if (upper is not None) != (k + 1 < n):
        _fail(name, "schema", p + ".upper_added_mcyc", "null exactly for the last class")
    if upper is not None and upper < added:
        _fail(name, "schema", p, "upper_added_mcyc below added_mcyc")
    label = "%s%d" % (cls, ordinal) if ordinal > 1 else cls
    return TlbClass(cls, lat, added, upper, first, last, ordinal, label)


def _load_curve(name, o, i, base):
    path = "%scurves[%d]" % (base, i)
    if not isinstance(o, dict):
        _fail(name, "schema", path, "expected an object")
    side = _word(name, o, "side", SIDES, words("tlb_side"), path)
    pte = _word(name, o, "pte", PTES, words("tlb_pte"), path)
    page = _u64(name, o, "page_bytes", path)
    if page not in PAGES:
        _fail(name, "schema", path + ".page_bytes", "%d is not 4 KiB, 2 MiB or 1 GiB" % page)
    lv, cl = o.get("levels"), o.get("classes")
    if not isinstance(lv, list) or not isinstance(cl, list):
        _fail(name, "schema", path, "levels and classes: expected two arrays")
    if len(lv) > MAX_LEVELS or len(cl) > MAX_CLASSES:
        _fail(name, "schema", path, "%d levels and %d classes (at most %d and %d)"
              % (len(lv), len(cl), MAX_LEVELS, MAX_CLASSES))
    cv = TlbCurve(side, page, pte)
    for k, e in enumerate(lv):
        p = "%s.levels[%d]" % (path, k)
        if not isinstance(e, dict):
            _fail(name, "schema", p, "expected an object")
        ent = _u64(name, e, "entries", p)
        prev = cv.level_entries[-1] if k else 0
        if not ent or (k and ent <= prev):
            _fail(name, "schema", p + ".entries", "%d is not above the level before it (%d)" % (ent, prev))
        cv.level_entries.append(ent)
    for k, e in enumerate(cl):
        cv.classes.append(_load_class(name, e, "%s.classes[%d]" % (path, k), k, len(cl), cv))
    return cv


def _load_clock(name, clk, base):
    """The 1.2 clock object: its figures must be TSC ticks; core_per_tsc positive or null."""
    path = base + "clock"
    if not isinstance(clk, dict):
        _fail(name, "schema", path, "expected an object")
    fig, r = clk.get("figures"), clk.get("core_per_tsc")
    if not isinstance(fig, str) or _cstr(fig) != "tsc_ticks":
        _fail(name, "schema", path + ".figures", "%s is not \"tsc_ticks\"" % (
            '"%s"' % _cstr(fig) if isinstance(fig, str) else "not a string" if "figures" in clk else "missing"))
    if r is not None and (not _json.is_num(r) or not 0 < r <= 1000):
        _fail(name, "schema", path + ".core_per_tsc", "expected a positive number or null")
    return dict(clk)


def _check_schema(name, tlb):
    s = tlb.get("schema")
    if not isinstance(s, str):
        _fail(name, "kind", "", "not a pmucal TLB table (schema missing)")
    if not s.startswith(SCHEMA_PREFIX):
        _fail(name, "kind", "", 'not a pmucal TLB table: schema "%s" is not %sMAJOR[.MINOR]' % (s, SCHEMA_PREFIX))
    v = schema_version(s, SCHEMA_PREFIX)
    if v is None:
        _fail(name, "version", "", 'schema "%s": the version is not MAJOR or MAJOR.MINOR (decimal, no '
              'leading zeros, at most 9 digits)' % s)
    if v[0] != MAJOR:
        _fail(name, "version", "", 'schema "%s": major version %d is not supported (this library reads %d)'
              % (s, v[0], MAJOR))
    return s, v


def loads_tlb_table(data, name="<buffer>"):
    """Load and validate a TLB table from @data (bytes or str): a pmucal.tlb document or a
    latency table with a "tlb" member. Raises TableError."""
    root = _json.parse(data, name)
    if not isinstance(root, dict):
        _fail(name, "kind", "", "not a pmucal TLB table (top level is not an object)")
    tlb, base = root, ""
    if "curves" not in root and "tlb" in root:
        tlb, base = root["tlb"], "tlb."
        if not isinstance(tlb, dict):
            _fail(name, "schema", "tlb", "expected an object")
    s, v = _check_schema(name, tlb)
    u = tlb.get("units")
    if not isinstance(u, str) or _cstr(u) != "mcyc":
        msg = ("missing" if "units" not in tlb else "not a string" if not isinstance(u, str)
               else '"%s" is not a known unit' % _cstr(u))
        _fail(name, "schema", base + "units", '%s (want "mcyc", milli-cycles)' % msg)
    clock = _load_clock(name, tlb["clock"], base) if "clock" in tlb else {}
    cv = tlb.get("curves")
    if not isinstance(cv, list):
        _fail(name, "schema", base + "curves", "missing or not an array")
    if len(cv) > MAX_CURVES:
        _fail(name, "schema", base + "curves", "more than %d" % MAX_CURVES)
    curves = []
    for i, o in enumerate(cv):
        a = _load_curve(name, o, i, base)
        for j, b in enumerate(curves):
            if (b.side, b.page_bytes, b.pte) == (a.side, a.page_bytes, a.pte):
                _fail(name, "schema", "%scurves[%d]" % (base, i), "a second %s curve for %d-byte pages, "
                      "PTEs %s (curves[%d] is the first)" % (a.side, a.page_bytes, a.pte, j))
        curves.append(a)
    return TlbTable(s, v[0], v[1], curves, clock)


def load_tlb_table(path):
    """Load and validate the TLB table in file @path. Raises TableError."""
    return loads_tlb_table(read_table_file(path), path)
