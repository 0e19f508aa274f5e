"""The latency table (latency-table.json, schema pmucal.latency-table/1.x): loaded and validated
with the rules of libpmucal's pmucal_table_load() (host/libpmucal.c, host/libpmucal_units.c), so
that the same files are accepted and rejected, and classified the same way as
pmucal_table_classify(): a latency in TSC ticks, core cycles or ns against the table's own
bounds in that unit, the cycle bounds converted with the table's overall ratio only where a
level lacks that unit."""
import math
from dataclasses import asdict, dataclass, field
from typing import List, Optional

from ._rules import CLOCK_UNITS, LIMITS
from .errors import MAX_FILE, TableError, schema_version  # noqa: F401 (MAX_FILE: re-exported)

SCHEMA_PREFIX = "pmucal.latency-table/"
MAJOR = 1
MAX_LEVELS = LIMITS["max_levels"]
MAX_FLAGS = LIMITS["max_flags"]
MAX_STRING = LIMITS["max_string_bytes"]  # bytes; a longer string is an error, never cut
CEILING_FACTOR = LIMITS["ceiling_factor"]   # the last level's ceiling: this times its p90
MAX_CORE_PER_TSC = LIMITS["max_core_per_tsc"]   # PMUCAL_MAX_CORE_PER_TSC
CORE_RATIO_OVERRIDE = "override"         # core_ratio_source of a ratio the caller set
STAT_KEYS = ("min", "p10", "p50", "p90")
UNITS = ("table", "tsc", "core", "ns")    # what classify() takes, as enum pmucal_unit
# the member of each unit in a level and in bucket_upper_bounds, and the Level attributes
UNIT_KEY = {"table": "cycles", "tsc": "tsc_ticks", "core": "core_cycles", "ns": "ns"}
_UPPER = {"table": "upper_cycles", "tsc": "upper_tsc", "core": "upper_core", "ns": "upper_ns"}
_FIGS = {"table": "cycles", "tsc": "tsc_ticks", "core": "core_cycles", "ns": "ns"}


@dataclass
class Stat:
    min: float
    p10: float
    p50: float
    p90: float
    p50_lo: Optional[float] = None       # the p50's 95 % interval; None when not given
    p50_hi: Optional[float] = None


@dataclass
class Level:
    name: str
    capacity_bytes: Optional[int]        # None: the last level, or unknown
    cpuid_capacity_bytes: Optional[int]  # None: no corresponding CPUID cache
    cpuid_level: Optional[int]
    agreement: str                       # "agrees", "smaller", "larger", "no-cpuid"
    cycles: Stat
    ns: Optional[Stat] = None            # None when the table has no ns figures
    upper_cycles: Optional[float] = None  # bucket bound (inclusive); None for the last level
    upper_ns: Optional[float] = None
    ceiling_cycles: Optional[float] = None  # the last level when it is not DRAM: above is BEYOND
    ceiling_ns: Optional[float] = None
    tsc_ticks: Optional[Stat] = None     # 1.2: the figures in TSC ticks (None: not given, or
    core_cycles: Optional[Stat] = None   # the table gives no bounds in that unit), core cycles
    upper_tsc: Optional[float] = None    # the table's own bounds in those units
    upper_core: Optional[float] = None


class _Beyond:
    """What a latency above the last level's ceiling classifies as (PMUCAL_LEVEL_BEYOND): the
    last level is not DRAM (flags no_dram, no_hierarchy, buffer_reduced) and the latency is over
    CEILING_FACTOR x its p90. Its name is "beyond", as pmucal-table classify prints it."""
    name = "beyond"

    def __repr__(self):
        return "pmucal.BEYOND"


BEYOND = _Beyond()
LEVEL_BEYOND = -1    # PMUCAL_LEVEL_BEYOND, in classify_batch's results
LEVEL_INVALID = -2   # PMUCAL_LEVEL_INVALID
_NO_CORE = (": no core:TSC ratio; give the core clock the samples ran at "
            "(LatencyTable.set_core_ratio)")


def _latency(v):
    """@v as C's double: TableError "arg" for what is not a number, "range" for NaN, infinite
    or negative."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TableError("arg", "latency %r is not a number" % (v,))
    v = float(v)
    if not math.isfinite(v) or v < 0:
        raise TableError("range", "latency %r is not a finite non-negative number" % v)
    return v


@dataclass
class CoreSet:
    """A level set (1.4 "core_types"): processors of one core type / cache geometry (or one LLC
    domain) and the levels measured on one of them."""
    core_type: Optional[str]
    cache_bytes: List[int]
    apic_ids: List[int]
    llc_domains: List[int]
    measured_on_apic_id: int
    bsp_set: bool
    measured: bool
    why_not_measured: Optional[str]
    levels: List[Level]


@dataclass
class LatencyTable:
    schema: str
    major: int
    minor: int
    machine: dict
    method: dict
    levels: List[Level]
    flags: List[str] = field(default_factory=list)
    core_sets: list = field(default_factory=list)   # CoreSet, 1.4 "core_types"
    # the core:TSC ratio and where it comes from (libpmucal 1.2's pmucal_table fields)
    core_per_tsc: Optional[float] = None   # None: the table has none
    core_ratio_source: Optional[str] = None
    core_ratio_estimated: bool = False     # a dependent-add chain's estimate, not a counter
    core_per_tsc_min: float = 0.0          # its spread (0: not given)
    core_per_tsc_max: float = 0.0
    core_ratio_override: bool = False      # set by set_core_ratio
    # open-enum values of a later minor read as "unknown" (a level's agreement, a level set's
    # core_type): 'path.member: "value"' each, as libpmucal's n_unknown and unknown_first
    unknown: List[str] = field(default_factory=list)

    def set_core_ratio(self, core_per_tsc):
        """Use @core_per_tsc core cycles per TSC tick (the core clock the samples ran at over
        the table's TSC rate) for every core-cycle figure (pmucal_table_set_core_ratio): core
        bounds become the TSC bounds times it. Raises Error "range" unless 0 < it <=
        MAX_CORE_PER_TSC, "no_ratio" when the table has no TSC rate."""
        if isinstance(core_per_tsc, bool) or not isinstance(core_per_tsc, (int, float)) or \
                not math.isfinite(core_per_tsc) or not 0 < core_per_tsc <= MAX_CORE_PER_TSC:
            raise TableError("range", "core:TSC ratio %r is not in (0, %g]" % (core_per_tsc, MAX_CORE_PER_TSC))
        if not self.machine.get("tsc_hz"):
            raise TableError("no_ratio", "the table has no TSC rate to relate core cycles to")
        r = float(core_per_tsc)
        self.core_per_tsc, self.core_per_tsc_min, self.core_per_tsc_max = r, r, r
        self.core_ratio_source, self.core_ratio_estimated = CORE_RATIO_OVERRIDE, False
        self.core_ratio_override = True

    def set_core_ghz(self, ghz):
        """set_core_ratio for a core clock of @ghz GHz (pmucal-table --core-ghz)."""
        if isinstance(ghz, bool) or not isinstance(ghz, (int, float)) or not math.isfinite(ghz) or \
                not 0 < ghz <= 1000:
            raise TableError("arg", "core clock %r GHz is not in (0, 1000]" % (ghz,))
        self.set_core_ratio(ghz * 1e9 / float(self.machine.get("tsc_hz") or 1))

    def core_set(self, apic_id):
        """The level set covering processor @apic_id (1.4), or None (the table's levels apply)."""
        for s in self.core_sets:
            if apic_id in s.apic_ids:
                return s
        return None

    @property
    def has_ns(self):
        return bool(self.levels) and self.levels[0].ns is not None

    def has_flag(self, name):
        return name in self.flags

    def _rate(self, unit):
        """Ticks per second of @unit as the table knows them (libpmucal's rules); 0 unknown."""
        if unit == "table":
            unit = self.cycles_unit
        tsc, core = self.machine.get("tsc_hz"), self.machine.get("core_hz")
        if unit == "ns":
            return 1e9
        if unit == "tsc":
            return float(tsc or 0)
        if unit == "core" and self.core_per_tsc and tsc:
            return float(tsc) * self.core_per_tsc
        if unit == "core" and self.core_per_tsc and core:
            return float(core)
        return 0.0

    @property
    def cycles_unit(self):
        """The unit of the cycles figures: "tsc", "core", or "table" for a clock not known."""
        return CLOCK_UNITS.get(
            self.method.get("clock"), "table")

    def convert(self, v, frm, to):
        """@v from unit @frm to @to with what the table says (pmucal_table_convert). Raises
        TableError "no_ratio" when it cannot (no core:TSC ratio, or no TSC rate), "arg" for
        a unit not in UNITS."""
        if frm not in UNITS or to not in UNITS:
            raise TableError("arg", "unit %r or %r is not one of %s" % (frm, to, ", ".join(UNITS)))
        if frm == "table" and self.cycles_unit != "table":
            frm = self.cycles_unit
        if to == "table" and self.cycles_unit != "table":
            to = self.cycles_unit
        if frm == to:
            return v
        a, b = self._rate(frm), self._rate(to)
        if not a > 0 or not b > 0:
            raise TableError("no_ratio", "this table cannot convert %s to %s%s" % (
                frm, to, _NO_CORE if "core" in (frm, to) else ""))
        return v / a * b

    def bounds(self, unit):
        """(upper bounds, ceiling or None) a latency in @unit is compared with: each level's own
        bound in @unit where the table gives it, else its cycle bound converted with the
        table's overall ratio. Raises TableError "no_ratio" when a bound cannot be converted."""
        if unit not in UNITS:
            raise TableError("arg", "unit %r is not one of %s" % (unit, ", ".join(UNITS)))
        if unit == "core" and self.core_ratio_override:
            upper, ceiling = self.bounds("tsc")
            return ([b * self.core_per_tsc for b in upper],
                    ceiling * self.core_per_tsc if ceiling is not None else None)
        upper = []
        for lv in self.levels[:-1]:
            b = getattr(lv, _UPPER[unit])
            if b is None:
                b = self.convert(lv.upper_cycles, "table", unit)
            upper.append(b)
        last = self.levels[-1]
        if last.ceiling_cycles is None:
            return upper, None
        own = getattr(last, _FIGS[unit])
        ceiling = CEILING_FACTOR * own.p90 if own is not None else \
            self.convert(last.ceiling_cycles, "table", unit)
        return upper, ceiling

    def classify(self, latency, unit):
        """The level a load latency in @unit ("tsc", "core", "ns", or "table": the table's own
        clock, method.clock) belongs to, as pmucal_table_classify: a Level, or BEYOND above the
        last level's ceiling. Raises TableError "no_ratio" when the table cannot give bounds in
        @unit, then "range" for NaN, infinite or negative, "arg" for what is not a number."""
        upper, ceiling = self.bounds(unit)
        return self._level(upper, ceiling, _latency(latency))

    def _level(self, upper, ceiling, v):
        for lv, b in zip(self.levels, upper):
            if v <= b:
                return lv
        if ceiling is not None and v > ceiling:
            return BEYOND
        return self.levels[-1]

    def classify_ns(self, ns):
        """classify(@ns, "ns")."""
        return self.classify(ns, "ns")

    def classify_batch(self, latencies, unit):
        """pmucal_table_classify_batch: one int per latency, a level index, LEVEL_BEYOND (-1)
        or LEVEL_INVALID (-2: NaN, infinite, negative or not a number). Raises TableError only
        for the unit ("arg", "no_ratio")."""
        upper, ceiling = self.bounds(unit)
        last = len(self.levels) - 1
        out = []
        for v in latencies:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                out.append(LEVEL_INVALID)
                continue
            for i, b in enumerate(upper):
                if v <= b:
                    out.append(i)
                    break
            else:
                out.append(LEVEL_BEYOND if ceiling is not None and v > ceiling else last)
        return out

    def to_dicts(self):
        """One plain dict per level, fastest first (cycles and ns flattened: cycles_p50, ...)."""
        out = []
        for lv in self.levels:
            d = asdict(lv)
            for unit in ("cycles", "ns", "tsc_ticks", "core_cycles"):
                st = d.pop(unit)
                for k in STAT_KEYS + ("p50_lo", "p50_hi"):
                    d["%s_%s" % (unit, k)] = st[k] if st else None
            out.append(d)
        return out


# The loader lives in table_load.py; its two entry points are this module's too.
from .table_load import load_latency_table, loads_latency_table  # noqa: E402,F401
