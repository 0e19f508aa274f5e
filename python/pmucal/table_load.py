"""The loader of latency-table.json: pmucal_table_load()'s rules (host/libpmucal.c,
host/libpmucal_units.c, host/libpmucal_sets.c) in Python, so that the same files are accepted
and rejected with the same kind of error. The table it returns is pmucal.table's."""
import math

from . import _json
from ._rules import enum
from .errors import TableError, read_table_file, schema_version
from .table import (CEILING_FACTOR, MAJOR, MAX_CORE_PER_TSC, MAX_FLAGS, MAX_LEVELS, MAX_STRING,
                    SCHEMA_PREFIX, STAT_KEYS, UNIT_KEY, _FIGS, _UPPER, CoreSet, LatencyTable,
                    Level, Stat)

UNKNOWN = "unknown"   # PMUCAL_UNKNOWN: an open-enum value of a later minor version


class _Ctx:
    def __init__(self, name):
        self.name = name
        self.unknown = []   # 'path.member: "value"' of each open-enum value read as "unknown"

    def fail(self, kind, path, msg):
        raise TableError(kind, "%s: %s: %s" % (self.name, path, msg) if path else "%s: %s" % (self.name, msg))


def _join(path, key):
    return "%s.%s" % (path, key) if path else key


def _member(c, obj, key, path, optional):
    if key not in obj:
        if not optional:
            c.fail("schema", _join(path, key), "missing")
        return None, False
    return obj[key], True


def _get_obj(c, obj, key, path):
    v, _ = _member(c, obj, key, path, False)
    if not isinstance(v, dict):
        c.fail("schema", _join(path, key), "expected an object, got %s" % _json.type_name(v))
    return v


def _get_str(c, obj, key, path, nullable):
    v, present = _member(c, obj, key, path, nullable)
    if not present or (nullable and v is None):
        return None
    if not isinstance(v, str):
        c.fail("schema", _join(path, key), "expected a string%s, got %s"
               % (" or null" if nullable else "", _json.type_name(v)))
    if len(v.encode("utf-8", "surrogatepass")) > MAX_STRING or "\0" in v:
        c.fail("schema", _join(path, key), "string longer than %d bytes or with a NUL in it" % MAX_STRING)
    return v


AGREEMENTS = enum("agreement")
CORE_TYPES = enum("core_type")


def _get_open_enum(c, obj, key, path, known, nullable):
    """A string member of an enum a later minor may grow (docs/versioning.md): one of @known,
    else "unknown", recorded in c.unknown as libpmucal's unknown_first names it."""
    v = _get_str(c, obj, key, path, nullable)
    if v is None or v in known:
        return v
    c.unknown.append('%s: "%s"' % (_join(path, key), v))
    return UNKNOWN


def _get_u64(c, obj, key, path, nullable, maximum):
    v, present = _member(c, obj, key, path, nullable)
    if not present or (nullable and v is None):
        return None
    if not _json.is_int(v):
        c.fail("schema", _join(path, key), "expected an integer%s, got %s"
               % (" or null" if nullable else "", _json.type_name(v)))
    if v < 0 or v > maximum:
        c.fail("schema", _join(path, key), "%d out of range 0..%d" % (v, maximum))
    if v == 0 and nullable:
        c.fail("schema", _join(path, key), "0: an unknown value is written null, not 0")
    return v


def _check_num(c, v, path):
    if not _json.is_num(v):
        c.fail("schema", path, "expected a number, got %s" % _json.type_name(v))
    d = float(v)
    if not math.isfinite(d) or d < 0 or d > 1e12:
        c.fail("schema", path, "%g out of range 0..1e12" % d)
    return d


def _get_stat(c, obj, key, path):
    o = _get_obj(c, obj, key, path)
    p = _join(path, key)
    vals = []
    for i, k in enumerate(STAT_KEYS):
        m, _ = _member(c, o, k, p, False)
        vals.append(_check_num(c, m, _join(p, k)))
        if i and vals[i] < vals[i - 1]:
            c.fail("schema", _join(p, k), "%g is below %s (%g)" % (vals[i], STAT_KEYS[i - 1], vals[i - 1]))
    return Stat(*vals)


def _load_interval(c, obj, key, path, st):
    """p50_lo and p50_hi of figure object @key: numbers, or null/absent (no interval)."""
    o = obj[key]
    got = [None, None]
    for i, k in enumerate(("p50_lo", "p50_hi")):
        if o.get(k) is not None:
            got[i] = _check_num(c, o[k], _join(_join(path, key), k))
    if None not in got:
        st.p50_lo, st.p50_hi = got


def _check_schema(c, root):
    s = root.get("schema")
    if not isinstance(s, str):
        c.fail("kind", None, 'not a pmucal latency table (no "schema" string)')
    if not s.startswith(SCHEMA_PREFIX):
        c.fail("kind", None, 'not a pmucal latency table: schema "%s" is not %sMAJOR[.MINOR]'
               % (s, SCHEMA_PREFIX))
    v = schema_version(s, SCHEMA_PREFIX)
    if v is None:
        c.fail("version", None, 'schema "%s": the version is not MAJOR or MAJOR.MINOR '
               '(decimal, no leading zeros, at most 9 digits)' % s)
    if v[0] != MAJOR:
        c.fail("version", None, 'schema "%s": major version %d is not supported (this library '
               'reads %d)' % (s, v[0], MAJOR))
    return s, v


def _load_machine(c, root):
    m = _get_obj(c, root, "machine", "")
    p = "machine"
    out = {
        "vendor": _get_str(c, m, "vendor", p, True),
        "family": _get_u64(c, m, "family", p, False, 0xffff),
        "model": _get_u64(c, m, "model", p, False, 0xffff),
        "stepping": _get_u64(c, m, "stepping", p, False, 0xff),
        "brand": _get_str(c, m, "brand", p, True),
        "microcode": _get_str(c, m, "microcode", p, True),
        "core_hz": _get_u64(c, m, "core_hz", p, True, (1 << 64) - 1),
        "tsc_hz": _get_u64(c, m, "tsc_hz", p, True, (1 << 64) - 1),
        "smbios_manufacturer": _get_str(c, m, "smbios_manufacturer", p, True),
        "smbios_product": _get_str(c, m, "smbios_product", p, True),
        "nodes": _get_u64(c, m, "nodes", p, True, 65536),
    }
    mc = out["microcode"]
    if mc is not None:
        hexpart = mc[2:]
        if (not mc.startswith("0x") or not hexpart or
                any(ch not in "0123456789abcdefABCDEF" for ch in hexpart) or int(hexpart, 16) >= 1 << 64):
            c.fail("schema", "machine.microcode", '"%s" is not a hex number "0x..."' % mc)
        out["microcode"] = int(hexpart, 16)
    else:
        out["microcode"] = None
    out["hypervisor"] = m.get("hypervisor") if isinstance(m.get("hypervisor"), bool) else None
    return out


def _load_method(c, root):
    m = _get_obj(c, root, "method", "")
    p = "method"
    out = {
        "kernel": _get_str(c, m, "kernel", p, True),
        "layout": _get_str(c, m, "layout", p, True),
        "page_bytes": _get_u64(c, m, "page_bytes", p, True, 1 << 40),
        "windows": _get_u64(c, m, "windows", p, False, 1 << 20),
        "clock": _get_str(c, m, "clock", p, False),
        "prefetchers": _get_str(c, m, "prefetchers", p, True),
        "pmucal_version": _get_str(c, m, "pmucal_version", p, True),
        "platform": _get_str(c, m, "platform", p, True),
        "date": _get_str(c, m, "date", p, True),
    }
    for k in ("date_zone", "page_tables"):  # informative, not checked
        v = m.get(k)
        out[k] = v if isinstance(v, str) else None
    return out


def _load_level(c, o, path):
    if not isinstance(o, dict):
        c.fail("schema", path, "expected an object, got %s" % _json.type_name(o))
    name = _get_str(c, o, "name", path, False)
    cap = _get_u64(c, o, "capacity_bytes", path, True, (1 << 64) - 1)
    ccap = _get_u64(c, o, "cpuid_capacity_bytes", path, True, (1 << 64) - 1)
    clvl = _get_u64(c, o, "cpuid_level", path, True, 15)
    agree = _get_open_enum(c, o, "agreement", path, AGREEMENTS, False)
    cycles = _get_stat(c, o, "cycles", path)
    if not name:
        c.fail("schema", _join(path, "name"), "empty")
    ns = None
    if o.get("ns") is not None:
        ns = _get_stat(c, o, "ns", path)
    lv = Level(name, cap, ccap, clvl, agree, cycles, ns)
    _load_interval(c, o, "cycles", path, cycles)
    for key in ("tsc_ticks", "core_cycles", "ns"):
        if o.get(key) is None:
            continue
        if key != "ns":
            setattr(lv, key, _get_stat(c, o, key, path))
        _load_interval(c, o, key, path, getattr(lv, key))
    return lv


def _load_bounds(c, arr, levels, unit, path):
    """bucket_upper_bounds.<unit>: len(levels) - 1 numbers, when every level has that unit.
    cycles and ns bounds lie between the medians of the two levels they separate; tsc_ticks
    and core_cycles bounds at or above the median of the level below and not below the
    previous bound (libpmucal_units.c)."""
    figs, upper = _FIGS[unit], _UPPER[unit]
    want = len(levels) - 1
    if any(getattr(lv, figs) is None for lv in levels):
        c.fail("schema", path, "%s bounds but not every level has %s" % (UNIT_KEY[unit], UNIT_KEY[unit]))
    if not isinstance(arr, list):
        c.fail("schema", path, "expected an array, got %s" % _json.type_name(arr))
    if len(arr) != want:
        c.fail("schema", path, "%d bounds for %d levels (want %d)" % (len(arr), len(levels), want))
    for i in range(want):
        a, b = levels[i], levels[i + 1]
        lo, hi = getattr(a, figs).p50, getattr(b, figs).p50
        p = "%s[%d]" % (path, i)
        v = _check_num(c, arr[i], p)
        if unit in ("table", "ns"):
            if v < lo or v >= hi:
                c.fail("schema", p, "%g is not between the medians of %s (%g) and %s (%g)"
                       % (v, a.name, lo, b.name, hi))
        else:
            if v < lo:
                c.fail("schema", p, "%g is below the median of %s (%g)" % (v, a.name, lo))
            if i and v < getattr(levels[i - 1], upper):
                c.fail("schema", p, "%g is below the previous bound (%g)" % (v, getattr(levels[i - 1], upper)))
        setattr(a, upper, v)


def _check_order(c, before, lv, path):
    """Level @lv against the levels @before it: a name of its own, a median and a capacity
    above the previous level's (capacities compared where both are known)."""
    for j, a in enumerate(before):
        if a.name == lv.name:
            c.fail("schema", _join(path, "name"), '"%s" is also the name of levels[%d]' % (lv.name, j))
    if before and lv.cycles.p50 <= before[-1].cycles.p50:
        c.fail("schema", _join(path, "cycles.p50"), "%g is not above the previous level's %g"
               % (lv.cycles.p50, before[-1].cycles.p50))
    if lv.capacity_bytes is not None:
        for j in range(len(before) - 1, -1, -1):
            cap = before[j].capacity_bytes
            if cap is not None:
                if lv.capacity_bytes <= cap:
                    c.fail("schema", _join(path, "capacity_bytes"), "%d is not above levels[%d]'s %d"
                           % (lv.capacity_bytes, j, cap))
                break


def _load_levels(c, root, path=""):
    arr, _ = _member(c, root, "levels", path, False)
    lp = _join(path, "levels")
    if not isinstance(arr, list):
        c.fail("schema", lp, "expected an array, got %s" % _json.type_name(arr))
    if not 1 <= len(arr) <= MAX_LEVELS:
        c.fail("schema", lp, "%d levels (want 1..%d)" % (len(arr), MAX_LEVELS))
    levels = []
    for i, o in enumerate(arr):
        lv = _load_level(c, o, "%s[%d]" % (lp, i))
        _check_order(c, levels, lv, "%s[%d]" % (lp, i))
        levels.append(lv)
    bp = _join(path, "bucket_upper_bounds")
    bo = _get_obj(c, root, "bucket_upper_bounds", path)
    b, _ = _member(c, bo, "cycles", bp, False)
    _load_bounds(c, b, levels, "table", bp + ".cycles")
    for unit in ("ns", "tsc", "core"):
        b = bo.get(UNIT_KEY[unit])
        if b is not None:
            _load_bounds(c, b, levels, unit, bp + "." + UNIT_KEY[unit])
        else:  # no bounds in this unit: its figures are not used to classify
            for lv in levels:
                setattr(lv, _FIGS[unit], None)
    return levels


def _int_array(c, o, key, path, nullable, maximum, cap, ascending):
    arr, _ = _member(c, o, key, path, False)
    p = _join(path, key)
    if not isinstance(arr, list):
        c.fail("schema", p, "expected an array, got %s" % _json.type_name(arr))
    if len(arr) > cap:
        c.fail("schema", p, "%d entries (at most %d)" % (len(arr), cap))
    out = []
    for i, v in enumerate(arr):
        if nullable and v is None:
            out.append(0)
            continue
        if not _json.is_int(v) or v < 0 or v > maximum:
            c.fail("schema", "%s[%d]" % (p, i), "expected an integer 0..%d" % maximum)
        if ascending and out and v <= out[-1]:
            c.fail("schema", "%s[%d]" % (p, i), "not ascending")
        out.append(v)
    return out


def _get_bool(c, o, key, path):
    v, _ = _member(c, o, key, path, False)
    if not isinstance(v, bool):
        c.fail("schema", _join(path, key), "expected a boolean, got %s" % _json.type_name(v))
    return v


def _load_core_sets(c, root):
    """1.4 "core_types": the level sets, as host/libpmucal_sets.c reads them."""
    ct = root.get("core_types")
    if ct is None:
        return []
    if not isinstance(ct, dict):
        c.fail("schema", "core_types", "expected an object, got %s" % _json.type_name(ct))
    arr, _ = _member(c, ct, "sets", "core_types", False)
    if not isinstance(arr, list):
        c.fail("schema", "core_types.sets", "expected an array, got %s" % _json.type_name(arr))
    if len(arr) > 64:
        c.fail("schema", "core_types.sets", "%d sets (at most 64)" % len(arr))
    sets = []
    for i, o in enumerate(arr):
        p = "core_types.sets[%d]" % i
        if not isinstance(o, dict):
            c.fail("schema", p, "expected an object, got %s" % _json.type_name(o))
        core_type = _get_open_enum(c, o, "core_type", p, CORE_TYPES, True)
        cache = _int_array(c, o, "cache_bytes", p, True, 2 ** 64 - 1, 8, False)
        ids = _int_array(c, o, "apic_ids", p, False, 2 ** 32 - 1, 4096, True)
        doms = _int_array(c, o, "llc_domains", p, False, 2 ** 32 - 1, 4096, True)
        on = _get_u64(c, o, "measured_on_apic_id", p, False, 2 ** 32 - 1)
        bsp = _get_bool(c, o, "bsp_set", p)
        measured = _get_bool(c, o, "measured", p)
        why = _get_str(c, o, "why_not_measured", p, True)
        if not ids:
            c.fail("schema", p, "apic_ids: a set covers no processor")
        levels = []
        if measured:
            levels = _load_levels(c, o, p)
        elif why is None:
            c.fail("schema", p + ".why_not_measured", "null, but the set was not measured")
        for j, other in enumerate(sets):
            dup = [a for a in ids if a in other.apic_ids]
            if dup:
                c.fail("schema", p, "apic_ids: %d is also in set %d" % (dup[0], j))
        sets.append(CoreSet(core_type, cache, ids, doms, on, bsp, measured, why, levels))
    return sets


def _load_flags(c, root):
    arr, _ = _member(c, root, "flags", "", False)
    if not isinstance(arr, list):
        c.fail("schema", "flags", "expected an array, got %s" % _json.type_name(arr))
    if len(arr) > MAX_FLAGS:
        c.fail("schema", "flags", "%d flags (at most %d)" % (len(arr), MAX_FLAGS))
    for i, v in enumerate(arr):
        if not isinstance(v, str):
            c.fail("schema", "flags[%d]" % i, "expected a string, got %s" % _json.type_name(v))
    return list(arr)


def loads_latency_table(data, name="<buffer>"):
    """Load and validate a latency table from @data (bytes or str); @name names it in messages.
    Raises TableError."""
    c = _Ctx(name)
    root = _json.parse(data, name)
    if not isinstance(root, dict):
        c.fail("kind", None, "not a pmucal latency table (top level is %s)" % _json.type_name(root))
    schema, (major, minor) = _check_schema(c, root)
    machine = _load_machine(c, root)
    method = _load_method(c, root)
    levels = _load_levels(c, root)
    flags = _load_flags(c, root)
    core_sets = _load_core_sets(c, root)
    if "no_dram" in flags or "no_hierarchy" in flags or "buffer_reduced" in flags:
        last = levels[-1]
        last.ceiling_cycles = CEILING_FACTOR * last.cycles.p90
        if last.ns is not None:
            last.ceiling_ns = CEILING_FACTOR * last.ns.p90
    t = LatencyTable(schema, major, minor, machine, method, levels, flags, core_sets)
    t.unknown = c.unknown
    _load_core_clock(t, root)
    return t


def _ratio_of(o, key):
    """A ratio member read leniently, as libpmucal does: a number in (0, MAX_CORE_PER_TSC], else
    not given (0)."""
    v = o.get(key) if isinstance(o, dict) else None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return 0.0
    v = float(v)
    return v if math.isfinite(v) and 0 < v <= MAX_CORE_PER_TSC else 0.0


def _str_of(o, key):
    v = o.get(key) if isinstance(o, dict) else None
    return v.split("\0", 1)[0] if isinstance(v, str) else None


def _load_core_clock(t, root):
    """The core:TSC ratio and its source (host/libpmucal_clock.c's rules, first found): a
    core-clock table's core_hz / tsc_hz, method.core_clock.core_per_tsc (a counter), or
    method.core_clock.estimate (schema 1.5: a dependent-add chain, estimated)."""
    tsc, core = t.machine.get("tsc_hz"), t.machine.get("core_hz")
    if t.cycles_unit == "core" and core and tsc:
        t.core_per_tsc, t.core_ratio_source = float(core) / float(tsc), t.method.get("clock")
    cc = root.get("method", {}).get("core_clock")
    if not isinstance(cc, dict):
        return
    r = _ratio_of(cc, "core_per_tsc")
    if r > 0:
        t.core_per_tsc = r
        t.core_per_tsc_min, t.core_per_tsc_max = _ratio_of(cc, "core_per_tsc_min"), _ratio_of(cc, "core_per_tsc_max")
        t.core_ratio_source = _str_of(cc, "source") or t.method.get("clock")
        return
    est = cc.get("estimate")
    if t.core_per_tsc is not None or not isinstance(est, dict) or _ratio_of(est, "core_per_tsc") <= 0:
        return
    t.core_per_tsc, t.core_ratio_estimated = _ratio_of(est, "core_per_tsc"), True
    t.core_per_tsc_min, t.core_per_tsc_max = _ratio_of(est, "core_per_tsc_min"), _ratio_of(est, "core_per_tsc_max")
    t.core_ratio_source = _str_of(est, "method") or "estimate"


def load_latency_table(path):
    """Load and validate the latency table in file @path. Raises TableError."""
    return loads_latency_table(read_table_file(path), path)
