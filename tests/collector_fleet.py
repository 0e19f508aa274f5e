"""A simulated fleet built from one real results folder (the collector's tests and make
bench-fleet): each machine a copy with its own SMBIOS UUID and every compared figure scaled by
its own noise; planted outliers have DRAM latency 15-25 % higher, with the cause a machine of a
real fleet would have (a wrong DIMM population in smbios.dat's type 17 records, or the
prefetchers disabled)."""
import json
import random
import struct
import uuid as uuidmod


def load_folder(path):
    import os
    return {n: open(os.path.join(path, n), "rb").read() for n in sorted(os.listdir(path))
            if os.path.isfile(os.path.join(path, n))}


def _scale_stat(st, f):
    if isinstance(st, dict):
        for q, v in st.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                st[q] = round(v * f, 3)


def _smbios_dimm_slot(raw):
    """@raw with each populated type 17 record's device locator string's last character
    changed (the same DIMMs in other slots: a population that leaves channels empty)."""
    b = bytearray(raw)
    pos = 0
    while pos + 4 <= len(b):
        typ, length = b[pos], b[pos + 1]
        if length < 4 or pos + length > len(b):
            break
        end = b.find(b"\0\0", pos + length)
        if typ == 17 and length > 0x10 and end > 0:
            size = struct.unpack_from("<H", b, pos + 0x0C)[0]
            li = b[pos + 0x10]
            strs = bytes(b[pos + length:end]).split(b"\0")
            if size not in (0, 0xFFFF) and 0 < li <= len(strs) and strs[li - 1]:
                off = pos + length + sum(len(x) + 1 for x in strs[:li - 1]) + len(strs[li - 1]) - 1
                b[off] = ord("7") if b[off] != ord("7") else ord("6")
        if end < 0 or typ == 127:
            break
        pos = end + 2
    return bytes(b)


def machine_run(base, rng, machine_uuid, noise=0.005, dram_factor=1.0, prefetchers=None, wrong_slots=False):
    """{name: bytes}: one run of one simulated machine from the real folder @base."""
    files = dict(base)
    inv = json.loads(base["inventory.json"])
    inv["smbios"]["uuid"] = machine_uuid
    files["inventory.json"] = json.dumps(inv, indent=1).encode()
    n = lambda: 1.0 + rng.gauss(0.0, noise)
    t = json.loads(base["latency-table.json"])
    for lv in t.get("levels") or []:
        f = n()
        for unit in ("ns", "tsc_ticks", "cycles"):
            _scale_stat(lv.get(unit), f)
    dram = {}
    numa = t.get("numa") or {}
    for d in numa.get("dram_levels") or []:
        f = n() * dram_factor
        dram[d.get("class")] = f
        _scale_stat(d.get("ns"), f)
        _scale_stat(d.get("tsc"), f)
        if isinstance(d.get("upper_ns"), (int, float)):
            d["upper_ns"] = round(d["upper_ns"] * f, 3)
    for cl in (t.get("c2c") or {}).get("classes") or []:
        f = n()
        _scale_stat(cl.get("ns"), f)
        _scale_stat(cl.get("tsc"), f)
    for row in t.get("bandwidth_matrix") or []:
        for cell in row:
            if isinstance(cell, dict) and isinstance(cell.get("gb_s"), (int, float)):
                cell["gb_s"] = round(cell["gb_s"] * n() / dram_factor, 3)
    if prefetchers is not None:
        t["method"]["prefetchers"] = prefetchers
    files["latency-table.json"] = json.dumps(t, indent=1).encode()
    if "numa-matrix.json" in base:
        nm = json.loads(base["numa-matrix.json"])
        for row in nm.get("matrix") or []:
            for cell in row:
                if isinstance(cell, dict):
                    f = n() * dram_factor
                    for q in ("p10_ns", "p50_ns", "p90_ns", "p10_tsc", "p50_tsc", "p90_tsc"):
                        if isinstance(cell.get(q), (int, float)):
                            cell[q] = round(cell[q] * f, 3)
        files["numa-matrix.json"] = json.dumps(nm, indent=1).encode()
    if "tlb-table.json" in base:
        tl = json.loads(base["tlb-table.json"])
        for cu in tl.get("curves") or []:
            for cl in cu.get("classes") or []:
                if isinstance(cl.get("lat_ns"), (int, float)):
                    cl["lat_ns"] = round(cl["lat_ns"] * n(), 3)
        files["tlb-table.json"] = json.dumps(tl, indent=1).encode()
    if wrong_slots and "smbios.dat" in base:
        files["smbios.dat"] = _smbios_dimm_slot(base["smbios.dat"])
    return files


def fleet(base, n_machines, runs_per_machine, outlier_every, seed=1):
    """Yields (machine index, run index, planted cause or None, files)."""
    rng = random.Random(seed)
    for i in range(n_machines):
        u = str(uuidmod.UUID(int=rng.getrandbits(128), version=4))
        planted = None
        if outlier_every and i % outlier_every == outlier_every // 2:
            planted = "dimm" if (i // outlier_every) % 2 == 0 else "prefetch"
        for r in range(runs_per_machine):
            if planted == "dimm":
                files = machine_run(base, rng, u, dram_factor=1.15 + 0.10 * rng.random(), wrong_slots=True)
            elif planted == "prefetch":
                files = machine_run(base, rng, u, dram_factor=1.15 + 0.10 * rng.random(), prefetchers="off")
            else:
                files = machine_run(base, rng, u)
            yield i, r, planted, files
