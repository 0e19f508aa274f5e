#!/usr/bin/env python3
"""Generate build/events_gen.c from pmu/events/*.json and pmu/events/mapfile.csv.

Usage: gen_events.py <events-dir> <output.c>

Each JSON file is one vendor-uarch table: an object with Vendor, Uarch, Source, Version,
Events (perf pmu-events objects: EventName, EventCode, UMask, CounterMask, Invert,
EdgeDetect, Counter (the general counters allowed, enforced by pmu_program), BriefDescription;
plus ArchEventBit for Intel architectural events) and Aliases
(every portable alias maps to an EventName or to {"Unsupported": "<reason>"}).

mapfile.csv follows perf's header (Family-model,Version,Filename,EventType). Family-model is
<vendor>-<family, decimal, or *>-<model, hex: one value, lo..hi, or *>; the first matching row
wins. For vendor ARM (Arm PMUv3 common events, PMCEID0/1 say per CPU which exist) the
family is the MIDR_EL1 implementer and the model the part number. Any malformed input or duplicate name fails the build with file and reason.
"""
import csv
import json
import os
import re
import sys

ALIASES = ["cycles", "insts", "branches", "br-misses", "l1d-misses", "l2-misses",
           "llc-misses", "dtlb-misses", "itlb-misses"]
ALIAS_MAX = 16  # PMU_ALIAS_MAX in pmu/events.h
VENDORS = {"GenuineIntel": "VEN_INTEL", "AuthenticAMD": "VEN_AMD", "HygonGenuine": "VEN_HYGON",
           "ARM": "VEN_ARM"}
# Widest EventCode per vendor: Intel 8 bits, AMD 12, Arm PMUv3 16 (common events 0x4000..).
CODE_MAX = {"GenuineIntel": 0xff, "ARM": 0xffff}
KNOWN_FIELDS = {"EventName", "EventCode", "UMask", "CounterMask", "Invert", "EdgeDetect",
                "BriefDescription", "PublicDescription", "ArchEventBit", "SampleAfterValue",
                "Counter", "Unit", "PEBS", "Data_LA"}
NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")


class GenError(Exception):
    pass


def fail(where, msg):
    raise GenError(f"{where}: {msg}")


def num(where, v, lo, hi, what):
    if isinstance(v, int):
        n = v
    elif isinstance(v, str):
        try:
            n = int(v, 0)
        except ValueError:
            fail(where, f"{what} {v!r} is not a number")
    else:
        fail(where, f"{what} {v!r} is not a number")
    if not lo <= n <= hi:
        fail(where, f"{what} {v!r} outside [{lo:#x}, {hi:#x}]")
    return n


def cstr(s):
    out = []
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= o < 0x7f:
            out.append(ch)
        else:
            out.append("?")
    return '"' + "".join(out) + '"'


def counter_mask(where, value, fixed):
    """perf's "Counter": the general counters that can count the event ("0,1,2,3"), as a bit
    mask; 0 when absent (any counter). Fixed-counter events name their fixed counter."""
    if value is None:
        return 0
    if not isinstance(value, str) or not value.strip():
        fail(where, f"bad Counter {value!r}")
    if fixed:
        if not value.lower().startswith("fixed counter"):
            fail(where, f"fixed-counter event with Counter {value!r}")
        return 0
    mask = 0
    for part in value.split(","):
        n = num(where, part.strip(), 0, 31, "Counter")
        mask |= 1 << n
    return mask


def load_table(path):
    where = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(where, f"cannot parse JSON: {e}")
    if not isinstance(doc, dict):
        fail(where, "top level must be an object with Vendor/Uarch/Source/Version/Events/Aliases")
    for key in ("Vendor", "Uarch", "Source", "Version", "Events", "Aliases"):
        if key not in doc:
            fail(where, f"missing {key}")
    if doc["Vendor"] not in VENDORS:
        fail(where, f"unknown Vendor {doc['Vendor']!r}")
    amd = doc["Vendor"] != "GenuineIntel"
    events, names = [], {}
    if not isinstance(doc["Events"], list) or not doc["Events"]:
        fail(where, "Events must be a non-empty list")
    for i, ev in enumerate(doc["Events"]):
        w = f"{where}: Events[{i}]"
        if not isinstance(ev, dict):
            fail(w, "not an object")
        for k in ev:
            if k not in KNOWN_FIELDS:
                fail(w, f"unknown field {k!r}")
        name = ev.get("EventName")
        if not isinstance(name, str) or not NAME_RE.match(name):
            fail(w, f"bad EventName {name!r}")
        w = f"{where}: {name}"
        if name.lower() in names:
            fail(w, f"duplicate EventName (also Events[{names[name.lower()]}])")
        names[name.lower()] = i
        code = num(w, ev.get("EventCode", "0"), 0, CODE_MAX.get(doc["Vendor"], 0xfff), "EventCode")
        umask = num(w, ev.get("UMask", "0"), 0, 0xff, "UMask")
        cmask = num(w, ev.get("CounterMask", "0"), 0, 0xff, "CounterMask")
        inv = num(w, ev.get("Invert", "0"), 0, 1, "Invert")
        edge = num(w, ev.get("EdgeDetect", "0"), 0, 1, "EdgeDetect")
        arch = num(w, ev.get("ArchEventBit", -1), -1, 31, "ArchEventBit")
        fixed = -1
        if not amd and "EventCode" not in ev:
            if not 1 <= umask <= 4:
                fail(w, "no EventCode: expected a fixed-counter pseudo-encoding (UMask 1..4)")
            fixed = umask - 1
        if amd and "EventCode" not in ev:
            fail(w, "missing EventCode")
        counters = counter_mask(w, ev.get("Counter"), fixed >= 0)
        brief = ev.get("BriefDescription", "")
        if not isinstance(brief, str):
            fail(w, "BriefDescription must be a string")
        events.append(dict(name=name, code=code, umask=umask, cmask=cmask, inv=inv, edge=edge,
                           fixed=fixed, arch=arch, counters=counters, brief=brief))
    aliases = doc["Aliases"]
    if not isinstance(aliases, dict):
        fail(where, "Aliases must be an object")
    for a in aliases:
        if a not in ALIASES:
            fail(where, f"unknown alias {a!r} (known: {', '.join(ALIASES)})")
    amap = []
    for a in ALIASES:
        if a not in aliases:
            fail(where, f"alias {a!r} missing: map it to an event or to {{\"Unsupported\": reason}}")
        v = aliases[a]
        if isinstance(v, str):
            if v.lower() not in names:
                fail(where, f"alias {a!r} names unknown event {v!r}")
            amap.append((names[v.lower()], None))
        elif isinstance(v, dict) and set(v) == {"Unsupported"} and isinstance(v["Unsupported"], str) \
                and v["Unsupported"]:
            amap.append((-1, v["Unsupported"]))
        else:
            fail(where, f"alias {a!r}: expected an EventName or {{\"Unsupported\": reason}}")
    for k in ("Source", "Version"):
        if not isinstance(doc[k], str) or not doc[k]:
            fail(where, f"{k} must be a non-empty string")
    return dict(file=os.path.splitext(where)[0], vendor=VENDORS[doc["Vendor"]],
                source=doc["Source"], version=doc["Version"], events=events, aliases=amap)


def parse_map(path, tables):
    where = os.path.basename(path)
    rows = []
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = list(csv.reader(f))
    except OSError as e:
        fail(where, str(e))
    if not reader or reader[0] != ["Family-model", "Version", "Filename", "EventType"]:
        fail(where, "header must be Family-model,Version,Filename,EventType")
    for ln, row in enumerate(reader[1:], start=2):
        w = f"{where}:{ln}"
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 4:
            fail(w, f"expected 4 columns, got {len(row)}")
        fm, version, fname, etype = (c.strip() for c in row)
        parts = fm.split("-")
        if len(parts) != 3 or parts[0] not in VENDORS:
            fail(w, f"bad Family-model {fm!r}")
        fam = -1 if parts[1] == "*" else num(w, parts[1] if parts[1].isdigit() else "x", 0, 0x1ff,
                                             "family (decimal)")
        m = parts[2]
        if m == "*":
            lo, hi = 0, 0xffffffff
        elif ".." in m:
            a, b = m.split("..", 1)
            lo, hi = num(w, "0x" + a, 0, 0xfff, "model"), num(w, "0x" + b, 0, 0xfff, "model")
            if lo > hi:
                fail(w, f"model range {m!r} is empty")
        else:
            lo = hi = num(w, "0x" + m, 0, 0xfff, "model")
        if fname not in tables:
            fail(w, f"Filename {fname!r} has no pmu/events/{fname}.json")
        if VENDORS[parts[0]] != tables[fname]["vendor"]:
            fail(w, f"row vendor {parts[0]} does not match {fname}.json")
        if etype != "core":
            fail(w, f"EventType {etype!r}: only 'core' is supported")
        rows.append(dict(vendor=VENDORS[parts[0]], family=fam, lo=lo, hi=hi, version=version,
                         table=fname))
    if not rows:
        fail(where, "no rows")
    return rows


def emit(tables, order, rows):
    out = ["/* Generated by pmu/gen_events.py from pmu/events/. Do not edit. */",
           '#include "pmu/events.h"', ""]
    out.append("const char *const pmu_alias_names[] = {")
    out += [f"        {cstr(a)}," for a in ALIASES]
    out += ["};", f"const size_t pmu_n_aliases = {len(ALIASES)};", ""]
    for name in order:
        t = tables[name]
        ident = "ev_" + re.sub(r"[^A-Za-z0-9]", "_", name)
        t["ident"] = ident
        out.append(f"static const struct pmu_event_desc {ident}[] = {{")
        for e in t["events"]:
            out.append(f"        {{ .name = {cstr(e['name'])}, .code = {e['code']:#x}, "
                       f".umask = {e['umask']:#x}, .cmask = {e['cmask']:#x}, "
                       f".inv = {'true' if e['inv'] else 'false'}, "
                       f".edge = {'true' if e['edge'] else 'false'}, .fixed = {e['fixed']}, "
                       f".arch_bit = {e['arch']}, .gp_mask = {e['counters']:#x}, "
                       f".brief = {cstr(e['brief'])} }},")
        out += ["};", ""]
    out.append("const struct pmu_event_table pmu_event_tables[] = {")
    for name in order:
        t = tables[name]
        out.append(f"        {{ .name = {cstr(name)}, .vendor = {t['vendor']},")
        out.append(f"          .source = {cstr(t['source'])},")
        out.append(f"          .version = {cstr(t['version'])},")
        out.append(f"          .events = {t['ident']}, .n_events = {len(t['events'])},")
        out.append("          .aliases = {")
        for i, (ev, reason) in enumerate(t["aliases"]):
            r = "NULL" if reason is None else cstr(reason)
            out.append(f"                  [{i}] = {{ .event = {ev}, .reason = {r} }}, /* {ALIASES[i]} */")
        for i in range(len(ALIASES), ALIAS_MAX):
            out.append(f"                  [{i}] = {{ .event = -1, .reason = NULL }},")
        out.append("          } },")
    out += ["};", f"const size_t pmu_n_event_tables = {len(order)};", ""]
    out.append("const struct pmu_map_row pmu_event_map[] = {")
    for r in rows:
        out.append(f"        {{ .vendor = {r['vendor']}, .family = {r['family']}, "
                   f".model_lo = {r['lo']:#x}, .model_hi = {r['hi']:#x}, "
                   f".version = {cstr(r['version'])}, .table = {order.index(r['table'])} }},")
    out += ["};", f"const size_t pmu_n_event_map = {len(rows)};", ""]
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2]
    try:
        if len(ALIASES) > ALIAS_MAX:
            fail("gen_events.py", "more aliases than PMU_ALIAS_MAX")
        files = sorted(f for f in os.listdir(src) if f.endswith(".json"))
        if not files:
            fail(src, "no *.json event tables")
        tables = {}
        for f in files:
            t = load_table(os.path.join(src, f))
            tables[t["file"]] = t
        rows = parse_map(os.path.join(src, "mapfile.csv"), tables)
        text = emit(tables, sorted(tables), rows)
    except GenError as e:
        print(f"gen_events.py: error: {e}", file=sys.stderr)
        return 1
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
