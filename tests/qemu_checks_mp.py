"""QEMU case checks of the phases that use several processors and memory per node: the
processors table, cache to cache, the NUMA matrix and loaded latency, and their sections in
the latency table (used by tests/qemu_checks.py)."""
import json
import os
import re

from qemu_tap import opt, tap


def qemu_slit(nodes):
    """The SLIT run-qemu.sh publishes: 10 local, 20 + 10 per further hop, +1 beyond one."""
    return [[10 if a == b else 10 + 10 * abs(a - b) + (1 if abs(a - b) > 1 else 0)
             for b in range(nodes)] for a in range(nodes)]


def node_of_cpu(c, apic):
    """run-qemu.sh puts CPUs lo..hi on node n with lo = n*cpus/nodes."""
    if c.nodes == 0:
        return None
    return [n for n in range(c.nodes)
            if n * c.cpus // c.nodes <= apic < (n + 1) * c.cpus // c.nodes][0]


def check_numa_no_error(c):
    """Odd node descriptions are said in words: no ERROR and no FAIL line anywhere."""
    bad = [l for l in c.lines() if l.startswith(("ERROR:", "FAIL:"))]
    tap(not bad, "%s: no ERROR or FAIL line (%s)" % (c.name, bad[:2]))


def check_numa_cpu_node_without_memory(c):
    s = c.serial
    tap("INFO: numa: node 2: SRAT gives proximity domain 2 no enabled memory: no cells with "
        "memory on it" in s, "%s: node 2 (a processor, no memory) is INFO" % c.name)
    tap("INFO: numa: loaded latency: the processors of node 2 do not load" in s,
        "%s: loaded latency leaves node 2's processor out and says so" % c.name)
    for a, b in ((0, 1), (1, 0)):
        tap(re.search(r"^WARN: numa: node %d -> %d \(proximity domain %d -> %d\): SLIT says "
                      r"unreachable \(255\), yet the memory was read at \d+ ns" % (a, b, a, b),
                      s, re.M) is not None, "%s: SLIT 255 from %d to %d is a WARN" % (c.name, a, b))
    j = c.result_json("numa-matrix.json")
    if not tap(j is not None, "%s: numa-matrix.json parses" % c.name):
        return
    m = j["matrix"]
    tap(m[0][1].get("slit_unreachable") is True and m[1][0].get("slit_unreachable") is True
        and "slit_unreachable" not in m[0][2] and m[0][1]["measured"],
        "%s: cells 0->1 and 1->0 measured and marked slit_unreachable, 0->2 not" % c.name)
    tap([[x["measured"] for x in row] for row in m] ==
        [[True, True, False], [True, True, False], [True, True, False]],
        "%s: every processor read nodes 0 and 1, nobody node 2" % c.name)


def check_numa_lacking_memory(c):
    tap(re.search(r"^SKIP: numa: node 1: buffer of \d+ MiB: no free block .*: the machine lacks "
                  r"the memory there", c.serial, re.M) is not None,
        "%s: node 1 without room for the buffer is a SKIP with the reason" % c.name)


def check_numa_seventeen_nodes(c):
    tap("WARN: numa: SRAT names 17 proximity domains; the latency matrix covers 16 nodes: "
        "domains 0 to 15 are measured, domain 16 left out" in c.serial,
        "%s: the WARN names domain 16 as left out" % c.name)
    tap("WARN: numa: SLIT gives more than 7 distinct remote distances between the 16 measured "
        "nodes" in c.serial, "%s: too many distances for the classes is said as such" % c.name)
    j = c.result_json("numa-matrix.json")
    if tap(j is not None, "%s: numa-matrix.json parses" % c.name):
        tap(len(j["matrix"]) == 16 and [n["proximity_domain"] for n in j["nodes"]] ==
            list(range(16)), "%s: the matrix covers domains 0 to 15" % c.name)


def check_processors(c):
    p = c.result_json("processors.json")
    if not tap(p is not None and p.get("schema", "").startswith("pmucal.processors/1."),
               "%s: processors.json parses" % c.name):
        return
    inv = c.result_json("inventory.json") or {}
    madt = sorted(x["apic_id"] for x in inv.get("cpus", {}).get("list", []))
    taking = [x for x in p["processors"] if x["state"] in ("bsp", "parked")]
    tap(p["n_taking_part"] == c.cpus and len(taking) == c.cpus,
        "%s: every CPU takes part (%d of %d)" % (c.name, p["n_taking_part"], c.cpus))
    own = sorted(x["apic_id"] for x in taking)
    tap(all(x["apic_id"] == x["firmware_apic_id"] for x in taking) and own == madt
        and own == list(range(c.cpus)),
        "%s: the APIC IDs each CPU reports %s match MP services and the MADT %s"
        % (c.name, own, madt))
    if opt(c.args, "--arch", "x86_64") == "aarch64":
        # the per-processor fault fixups are x86-64's: said, not claimed
        tap(re.search(r"^SKIP: cpus: fault recovery on %d processors: not probed here" % c.cpus,
                      c.serial, re.M) is not None,
            "%s: the per-CPU fault probe SKIPs with its reason on AArch64" % c.name)
    else:
        m = re.search(r"^PASS: cpus: (\d+) of (\d+) processors recovered their own deliberate "
                      r"faults", c.serial, re.M)
        tap(m is not None and int(m.group(1)) == c.cpus,
            "%s: every CPU, APs included, recovered its own #UD and rdpmc fault (%s)"
            % (c.name, m.group(0) if m else "no PASS line"))
    bad = [(x["apic_id"], x["node"]) for x in taking if x["node"] != node_of_cpu(c, x["apic_id"])]
    tap(not bad, "%s: each CPU's node follows run-qemu.sh's split%s"
        % (c.name, "" if not bad else ": %s" % bad))


def check_c2c(c):
    j = c.result_json("c2c.json")
    if not tap(j is not None and j.get("schema") == "pmucal.c2c/1.3",
               "%s: c2c.json parses" % c.name):
        return
    pairs = j["c2c"]["pairs"]
    ordered = {(x["owner_apic_id"], x["reader_apic_id"]) for x in pairs}
    want = {(a, b) for a in range(c.cpus) for b in range(c.cpus) if a != b}
    tap(ordered == want, "%s: c2c measured every ordered pair (%d of %d)"
        % (c.name, len(ordered & want), len(want)))
    tap(all(x[k] and x[k]["p50_tsc"] > 0 for x in pairs
            for k in ("hit", "hitm", "write", "atomic", "pingpong")),
        "%s: c2c has hit, hitm, write, atomic and pingpong figures for every pair" % c.name)
    tap(j["method"]["emulated"] and re.search(r"^INFO: c2c: the CPU is emulated \(QEMU TCG\)",
                                              c.serial, re.M) is not None,
        "%s: c2c says the figures are the emulator's" % c.name)
    tap(re.search(r"^c2c: HITM ns, owner \(rows\)", c.serial, re.M) is not None and
        "FAIL: c2c" not in c.serial, "%s: c2c matrix on the console, no FAIL" % c.name)


def check_cpus_list(c):
    """cpus = 0, 2-3, 9 on four CPUs: APIC IDs 0, 2 and 3 take part, 1 does not, 9 is a WARN;
    processors.json, c2c.json and the console say so."""
    p = c.result_json("processors.json")
    if not tap(p is not None and re.match(r"pmucal\.processors/1\.[1-9]", p.get("schema", "")) and
               p.get("chosen") == "list", "%s: processors.json says cpus = list" % c.name):
        return
    taking = sorted(x["firmware_apic_id"] for x in p["processors"] if x["state"] in ("bsp", "parked"))
    tap(taking == [0, 2, 3] and p["n_taking_part"] == 3 and p["cpu_list"] == "0,2-3,9" and
        p["n_list_unmatched"] == 1,
        "%s: APIC IDs %s take part (0, 2, 3 asked), list %r, %s unmatched"
        % (c.name, taking, p["cpu_list"], p["n_list_unmatched"]))
    tap(re.search(r"^WARN: cpus: APIC ID 9 is listed but no processor has it", c.serial, re.M)
        is not None and re.search(r"^INFO: cpus: 3 of 4 processors take part \(cpus = list\)",
                                  c.serial, re.M) is not None,
        "%s: the console names who takes part and warns about APIC ID 9" % c.name)
    j = c.result_json("c2c.json")
    pairs = {(x["owner_apic_id"], x["reader_apic_id"]) for x in (j or {}).get("c2c", {}).get("pairs", [])}
    tap(pairs == {(a, b) for a in (0, 2, 3) for b in (0, 2, 3) if a != b},
        "%s: c2c measured the 6 ordered pairs of the listed CPUs only" % c.name)


def check_c2c_skipped(c):
    tap(re.search(r"^SKIP: c2c: (cpus = bsp: a transfer needs two processors|"
                  r"1 processor takes part: a transfer needs two)", c.serial, re.M) is not None,
        "%s: c2c skipped with its reason" % c.name)
    tap(c.results is None or not os.path.exists(os.path.join(c.results, "c2c.json")),
        "%s: no c2c.json" % c.name)


def check_numa(c):
    j = c.result_json("numa-matrix.json")
    if not tap(j is not None and j.get("schema") == "pmucal.numa/1.3",
               "%s: numa-matrix.json parses" % c.name):
        return
    nodes = max(c.nodes, 1)
    m = j["matrix"]
    cpu_nodes = {node_of_cpu(c, a) for a in range(c.cpus)} if c.nodes else {0}
    if "cpus = bsp" in c.serial:
        cpu_nodes = {0}
    want = [[i in cpu_nodes for _ in range(nodes)] for i in range(nodes)]
    got = [[x["measured"] for x in row] for row in m]
    tap(len(m) == nodes and got == want, "%s: numa matrix %dx%d, rows measured for CPU nodes %s"
        % (c.name, len(m), len(m[0]) if m else 0, sorted(cpu_nodes)))
    ok = all(x["p10_ns"] <= x["p50_ns"] <= x["p90_ns"] and x["p50_tsc"] > 0
             for row in m for x in row if x["measured"])
    tap(ok, "%s: every measured cell has p10 <= p50 <= p90 in ns and TSC ticks" % c.name)
    if c.nodes > 1:
        slit = qemu_slit(c.nodes)
        dists = sorted({slit[a][b] for a in range(nodes) for b in range(nodes)})
        cls = j["classes"]
        tap([k["slit_distance"] for k in cls] == dists and
            all(slit[a][b] == k["slit_distance"] for k in cls for a, b in k["pairs"]) and
            [k["level"] for k in cls] == ["DRAM-local"] + ["DRAM-remote-%dhop" % i
                                                             for i in range(1, len(dists))],
            "%s: distance classes %s follow run-qemu.sh's SLIT" % (c.name, dists))
        checked = [x for row in m for x in row if x["measured"]]
        tap(all(x["slit"] in ("agree", "DISAGREE") for x in checked),
            "%s: every measured cell compared with SLIT" % c.name)
    if "--hmat" in c.args:
        bad = [(x["cpu_node"], x["memory_node"], x["hmat_ns"]) for row in m for x in row
               if x["measured"] and (x["hmat_ns"] != 80 + 40 * abs(x["cpu_node"] - x["memory_node"])
                                     or x["hmat"] not in ("agree", "DISAGREE"))]
        tap(not bad, "%s: HMAT latencies echoed per cell (80+40/hop ns) and compared%s"
            % (c.name, "" if not bad else ": %s" % bad[:3]))
    tap(j["method"]["emulated"] and re.search(r"^INFO: numa: the CPU is emulated \(QEMU TCG\)",
                                              c.serial, re.M) is not None and
        "FAIL: numa" not in c.serial, "%s: numa says TCG memory is flat, no FAIL for it" % c.name)
    tap(re.search(r"^numa: idle latency p50 \(ns\)", c.serial, re.M) is not None,
        "%s: numa grid on the console" % c.name)
    curves = j.get("loaded_latency", [])
    if c.cpus < 2 or "cpus = bsp" in c.serial:
        tap(not curves and re.search(r"^SKIP: numa: loaded latency: ", c.serial, re.M)
            is not None, "%s: loaded latency skipped with its reason" % c.name)
        return
    per_node = [n for n in range(nodes) if sum(node_of_cpu(c, a) == n for a in range(c.cpus)) > 1] \
        if c.nodes else [0]
    want_curves = len(per_node) + (1 if nodes > 1 else 0)
    tap(len(curves) == want_curves and
        all(len(k["points"]) == 7 and all(p["measured"] for p in k["points"]) and
            k["points"][0]["delay"] is None and k["points"][-1]["delay"] == 0 and
            k["points"][-1]["bandwidth_gb_s"] > 0 for k in curves),
        "%s: %d loaded-latency curves (nodes with two CPUs %s, and every node), idle to full"
        % (c.name, len(curves), per_node))
    bw = j.get("bandwidth_matrix", [])
    tap(len(bw) == nodes and all(x["gb_s"] and x["gb_s"] > 0 for row in bw for x in row
                                 if x["cpu_node"] in cpu_nodes),
        "%s: bandwidth matrix %dx%d measured from every CPU node" % (c.name, len(bw), nodes))
    tap(re.search(r"^INFO: numa: loaded latency: the CPU is emulated", c.serial, re.M)
        is not None, "%s: loaded latency says the figures are the emulator's" % c.name)

# ---- aarch64 (run-qemu.sh --arch aarch64: virt + GICv3 + AAVMF) ----

def check_lattable_remote(c):
    """latency-table.json (1.5) carries what the NUMA and C2C phases measured: the same matrix
    as numa-matrix.json, one DRAM level per distance class, the curves, and the C2C classes
    pooling every pair of c2c.json (or no c2c section when C2C skipped)."""
    t = c.result_json("latency-table.json")
    numa = c.result_json("numa-matrix.json")
    if not tap(t is not None and t.get("schema") == "pmucal.latency-table/1.6" and "numa" in t,
               "%s: latency-table.json is 1.6 with a numa section" % c.name):
        return
    n = t["numa"]
    p50 = lambda m: [[x.get("p50_ns") for x in row] for row in m]
    tap(numa is not None and p50(n["matrix"]) == p50(numa["matrix"]) and
        n["n_nodes"] == len(numa["matrix"]),
        "%s: the table's matrix is numa-matrix.json's (%dx%d)" % (c.name, n["n_nodes"], n["n_nodes"]))
    lv = n["dram_levels"]
    tap([k["name"] for k in lv] == [k["level"] for k in numa["classes"]] and
        all((k["ns"] is None) == (k["n_cells"] == 0) for k in lv) and
        all(k["ns"]["p10"] <= k["ns"]["p50"] <= k["ns"]["p90"] for k in lv if k["ns"]) and
        sum(1 for k in lv if k["ns"] and k["upper_ns"] is None) == 1,
        "%s: DRAM levels %s, percentiles ordered, one slowest level without a bound"
        % (c.name, [k["name"] for k in lv]))
    tap(t.get("loaded_latency", []) == numa.get("loaded_latency", []),
        "%s: the table's loaded-latency curves are numa-matrix.json's (%d)"
        % (c.name, len(numa.get("loaded_latency", []))))
    j = c.result_json("c2c.json")
    if j is None:
        tap("c2c" not in t and re.search(r'^INFO: latency: latency-table.json: no "c2c" section',
                                         c.serial, re.M) is not None,
            "%s: no c2c section when c2c did not measure, and the console says so" % c.name)
    else:
        k = t.get("c2c", {})
        pooled = sum(x["n_pairs"] for x in k.get("classes", []) if x["kind"] == "hitm")
        tap(pooled == len(j["c2c"]["pairs"]) and k["method"]["emulated"] and
            len(k["cpus"]) == j["method"]["n_cpus"],
            "%s: the table's c2c classes pool all %d ordered pairs of c2c.json"
            % (c.name, len(j["c2c"]["pairs"])))
    # level sets: QEMU's vCPUs are alike (one socket), so one set covers every CPU taking part,
    # calibrated once on the BSP with the table's own levels
    ct = t.get("core_types") or {}
    sets = ct.get("sets", [])
    procs = (c.result_json("processors.json") or {}).get("processors", [])
    taking = sorted(x["apic_id"] for x in procs if x["state"] in ("bsp", "parked"))
    tap(ct.get("mode") == "auto" and len(sets) == 1 and sets[0]["bsp_set"] and taking and
        sets[0]["apic_ids"] == taking and sets[0]["levels"] == t["levels"] and
        re.search(r"^INFO: latency: level sets: every processor has the BSP's core type and "
                  r"cache geometry", c.serial, re.M) is not None,
        "%s: core_types: one level set covering the APIC IDs taking part %s, calibrated once on "
        "the BSP" % (c.name, sets[0]["apic_ids"] if sets else None))
    tap(re.search(r"^PASS: latency: latency-table.json: section \"numa\" present", c.serial, re.M)
        is not None and "FAIL: latency: latency-table.json: section" not in c.serial,
        "%s: the latency phase checks its sections (PASS lines)" % c.name)
