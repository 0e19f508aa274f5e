"""Fleet analysis: machine types, reference tables, outliers by median +- k*MAD, drift."""
import json
import statistics
import time

K_DEFAULT = 5.0
MAD_NORMAL = 1.4826     # MAD x 1.4826 estimates the standard deviation of normal data
REL_FLOOR = 0.01        # the spread is at least 1 % of the median
MIN_MACHINES = 5        # a type with fewer machines has no outliers


def _median(xs):
    return statistics.median(xs)


_COLUMN_SQL = {
    False: " FROM machines m JOIN figures f ON f.run_id = m.latest_run_id",
    True: " FROM (SELECT machine_id, MIN(id) AS first FROM runs GROUP BY machine_id HAVING COUNT(*) > 1) x"
          " JOIN machines m ON m.id = x.machine_id JOIN figures f ON f.run_id = x.first",
}


def _figure_columns(db, first):
    """{(type id, figure): {machine id: value}} of each machine's latest run, or (@first) of
    the first run of each machine with more than one. PostgreSQL sends one text row per
    (type, figure) (string_agg: 21 rows for a 10,000-machine type instead of 210,000;
    float8 prints as its shortest exact text, so the values read back unchanged); SQLite,
    in the same process, gives the rows themselves."""
    out = {}
    if db.kind == "pg":
        for tid, name, text in db.query("SELECT m.type_id, f.name, string_agg(CAST(m.id AS TEXT) || ' '"
                                        " || CAST(f.value AS TEXT), ' ')" + _COLUMN_SQL[first] + " GROUP BY 1, 2"):
            w = text.split(" ")
            out[(tid, name)] = dict(zip(map(int, w[0::2]), map(float, w[1::2])))
        return out
    for tid, mid, name, v in db.query("SELECT m.type_id, m.id, f.name, f.value" + _COLUMN_SQL[first]):
        out.setdefault((tid, name), {})[mid] = v
    return out


def _spread(xs):
    """(median, robust spread, n) of the values @xs."""
    m = _median(xs)
    mad = _median([abs(x - m) for x in xs])
    return m, max(MAD_NORMAL * mad, REL_FLOOR * abs(m)), len(xs)


def _majority(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(counts.items(), key=lambda kv: (kv[1], str(kv[0])))[0] if counts else None


def outliers(db, k=K_DEFAULT):
    """{"k", "machines": [...], "drift": [...], "seconds"}: every machine with a figure
    outside its type's median +- k x spread, with the properties in which it differs from
    its type's majority (the likely cause), worst first; and each machine's figures that
    moved between its first and its latest run by more than k spreads of its type."""
    t0 = time.monotonic()
    k = float(k)
    latest_cols = _figure_columns(db, first=False)
    spread, out_rows = _spreads_and_outs(latest_cols, k)
    props = {}
    for row in db.query("SELECT m.id, m.key, m.type_id, m.memory_population, m.microcode, m.bios_version,"
                        " r.prefetchers, r.memory_detail FROM machines m JOIN runs r ON r.id = m.latest_run_id"):
        props[row[0]] = {"key": row[1], "type_id": row[2], "memory population": row[3], "microcode": row[4],
                         "BIOS version": row[5], "prefetchers": row[6], "memory detail": row[7]}
    types = {r[0]: {"cpu": r[1], "memory_population": r[2]}
             for r in db.query("SELECT id, cpu_signature, memory_population FROM types")}
    causes_of = ("memory detail", "microcode", "BIOS version", "prefetchers")
    major = {}
    members = {}
    for p in props.values():
        members.setdefault(p["type_id"], []).append(p)
    for tid, ms in members.items():
        major[tid] = {c: _majority([x[c] for x in ms]) for c in causes_of}
    by_machine = {}
    for mid, tid, name, v, m, s in out_rows:
        by_machine.setdefault((mid, tid), []).append(
            {"figure": name, "value": v, "median": m, "spread": s, "score": (v - m) / s,
             "percent": 100.0 * (v - m) / m if m else None})
    found = []
    for (mid, tid), bad in by_machine.items():
        bad.sort(key=lambda b: -abs(b["score"]))
        p = props.get(mid, {})
        maj = major.get(tid, {})
        causes = ["%s %s (type's majority: %s)" % (c, p.get(c), maj.get(c)) for c in causes_of if p.get(c) != maj.get(c)]
        found.append({"machine": mid, "key": p.get("key"), "type": tid, "cpu": types[tid]["cpu"],
                      "memory_population": types[tid]["memory_population"], "figures": bad,
                      "worst": abs(bad[0]["score"]),
                      "likely_cause": causes or ["no property differs from the type's majority"]})
    found.sort(key=lambda o: (-o["worst"], o["machine"]))
    drift = []
    for (tid, name), firsts in sorted(_figure_columns(db, first=True).items()):
        latest = latest_cols.get((tid, name), {})
        s = spread.get((tid, name))
        for mid, first in sorted(firsts.items()):
            v = latest.get(mid)
            if v is None:
                continue
            sp = s if s is not None else max(REL_FLOOR * abs(first), 1e-9)
            if abs(v - first) > k * sp:
                drift.append({"machine": mid, "key": props.get(mid, {}).get("key"), "figure": name,
                              "first": first, "latest": v, "spread": sp})
    return {"k": k, "mad_factor": MAD_NORMAL, "floor": REL_FLOOR, "min_machines": MIN_MACHINES,
            "machines": found, "drift": drift, "seconds": time.monotonic() - t0}


def _spreads_and_outs(cols, k):
    """({(type, figure): spread}, [(machine, type, figure, value, median, spread)] out) from
    _figure_columns' latest values: one pass over each (type, figure) column."""
    machines = {}
    for (tid, _), vals in cols.items():
        machines.setdefault(tid, set()).update(vals)
    spread, outs = {}, []
    for (tid, name), vals in sorted(cols.items()):
        if len(machines[tid]) < MIN_MACHINES or len(vals) < MIN_MACHINES:
            continue
        m, s, _ = _spread(list(vals.values()))
        spread[(tid, name)] = s
        lim = k * s
        outs += [(mid, tid, name, v, m, s) for mid, v in vals.items() if abs(v - m) > lim]
    return spread, outs


def fleet_types(db):
    """[{id, cpu, brand, memory_population, machines, runs}] for the fleet page."""
    rows = db.query("SELECT t.id, t.cpu_signature, t.cpu_brand, t.memory_population, COUNT(DISTINCT m.id), COUNT(r.id)"
                    " FROM types t LEFT JOIN machines m ON m.type_id = t.id LEFT JOIN runs r ON r.machine_id = m.id"
                    " GROUP BY t.id, t.cpu_signature, t.cpu_brand, t.memory_population ORDER BY t.id")
    return [{"id": r[0], "cpu": r[1], "brand": r[2], "memory_population": r[3], "machines": r[4], "runs": r[5]}
            for r in rows]


def find_type(db, cpu, memory=None):
    rows = db.query("SELECT id, memory_population FROM types WHERE cpu_signature = ? ORDER BY id", (cpu,))
    if memory is not None:
        rows = [r for r in rows if r[1] == memory]
    if not rows:
        return None
    if len(rows) == 1:
        return rows[0][0]
    # several memory populations: the one with most machines
    best = None
    for tid, _ in rows:
        n = db.query("SELECT COUNT(*) FROM machines WHERE type_id = ?", (tid,))[0][0]
        if best is None or n > best[1]:
            best = (tid, n)
    return best[0]


def reference_table(db, type_id):
    """An ordinary pmucal.latency-table document for the type: the latest table of the
    machine nearest the type's median, with every level's figures replaced by the median
    over the type's machines, and the spread across machines under "fleet"."""
    rows = db.query("SELECT m.id, f.content FROM machines m JOIN files f ON f.run_id = m.latest_run_id"
                    " WHERE m.type_id = ? AND f.name = 'latency-table.json' ORDER BY m.id", (type_id,))
    tables = [json.loads(bytes(c).decode()) for _, c in rows]
    if not tables:
        return None
    names = [lv["name"] for lv in tables[0].get("levels", [])]
    same = [t for t in tables if [lv["name"] for lv in t.get("levels", [])] == names]
    base = json.loads(json.dumps(same[0]))
    for i, lv in enumerate(base.get("levels", [])):
        for unit in ("ns", "tsc_ticks", "cycles", "core_cycles"):
            if not isinstance(lv.get(unit), dict):
                continue
            for q in list(lv[unit]):
                xs = [t["levels"][i][unit][q] for t in same
                      if isinstance(t["levels"][i].get(unit), dict) and isinstance(t["levels"][i][unit].get(q), (int, float))]
                if xs:
                    lv[unit][q] = round(_median(xs), 3)
        for q in ("capacity_bytes",):
            xs = [t["levels"][i].get(q) for t in same if isinstance(t["levels"][i].get(q), int)]
            if xs:
                lv[q] = int(_median(xs))
        # keep the order the table's rules require: p10 <= p50 <= p90 and min <= p10, lo <= p50 <= hi
        for unit in ("ns", "tsc_ticks", "cycles", "core_cycles"):
            st = lv.get(unit)
            if isinstance(st, dict):
                order = [q for q in ("min", "p10", "p50", "p90") if isinstance(st.get(q), (int, float))]
                vals = sorted(st[q] for q in order)
                for q, v in zip(order, vals):
                    st[q] = v
                if isinstance(st.get("p50_lo"), (int, float)):
                    st["p50_lo"] = min(st["p50_lo"], st["p50"])
                if isinstance(st.get("p50_hi"), (int, float)):
                    st["p50_hi"] = max(st["p50_hi"], st["p50"])
    return base, len(same), _level_spread(same, names)


def _level_spread(tables, names):
    """[{level, machines, p50_ns median, p10/p90 across machines}] for the page."""
    out = []
    for i, n in enumerate(names):
        xs = sorted(t["levels"][i]["ns"]["p50"] for t in tables
                    if isinstance(t["levels"][i].get("ns"), dict) and isinstance(t["levels"][i]["ns"].get("p50"), (int, float)))
        if not xs:
            continue
        q = lambda f: xs[min(len(xs) - 1, int(f * (len(xs) - 1) + 0.5))]
        m = _median(xs)
        out.append({"level": n, "machines": len(xs), "median_ns": m, "p10_ns": q(0.1), "p90_ns": q(0.9),
                    "mad_ns": _median([abs(x - m) for x in xs])})
    return out
