#!/usr/bin/env python3
"""Boot each case of tests/qemu.cfg with run-qemu.sh and check what the harness printed and
saved against the topology the case asked QEMU for. Prints one TAP line per check."""
import argparse
import configparser
import json
import os
import re
import shlex
import concurrent.futures
import subprocess
import shutil
import sys
import tempfile

import check_schemas
import qemu_checks_arm64
import qemu_checks_mp
import qemu_tap
import qemu_volume
from qemu_tap import ROOT, opt, schema_is, tap

class Case:
    def __init__(self, name, sec, logs):
        self.name = name
        self.args = shlex.split(sec.get("args", ""))
        self.config = sec.get("config")
        self.image = sec.get("image")
        self.volume = sec.get("volume", "").split()
        self.status = sec.getint("status", 0)
        self.checks = sec.get("checks", "").split()
        self.timeout = sec.getint("timeout", 240)
        self.out = tempfile.mkdtemp(prefix="qemu-%s-" % name, dir=os.path.join(ROOT, "build"))
        self.logs = logs
        self.cpus = int(opt(self.args, "--cpus", "4"))
        self.nodes = int(opt(self.args, "--nodes", "2"))
        self.mem = int(opt(self.args, "--mem", "2048"))
        self.disk = None
        self.cluster = None

    def make_volume(self):
        """Build the boot image the `volume` tokens describe (tests/qemu_volume.py):
        free=N (N clusters left free), runs=S (folders 20200101-0000SS-01..99 for the first S
        seconds of 2020-01-01, as a frozen clock would name them), results-file (a file
        \\pmucal\\results), config-dir (a folder \\pmucal\\pmucal.cfg)."""
        img = os.path.join(self.out, "volume.img")
        tok = dict(t.split("=", 1) if "=" in t else (t, "") for t in self.volume)
        dirs, files, runs = [], {}, []
        if "runs" in tok:
            self.premade = int(tok["runs"])
            runs = ["20200101-0000%02d-%02d" % (s, k)
                    for s in range(self.premade) for k in range(1, 100)]
        if self.config:  # before the volume is filled, not by run-qemu.sh after
            files["pmucal/pmucal.cfg"] = open(os.path.join(ROOT, self.config), "rb").read()
        if "config-dir" in tok:
            dirs += ["pmucal/pmucal.cfg", "pmucal/pmucal.cfg/profile = full"]
        efi = os.path.join(ROOT, "build", "pmucal.efi")
        free = int(tok["free"]) if "free" in tok else None
        self.cluster = qemu_volume.make_image(img, efi, dirs=dirs, files=files, runs=runs,
                                              free_clusters=free)
        if "results-file" in tok:
            subprocess.run(["mrd", "-i", img + qemu_volume.ESP, "::/pmucal/results"], check=True)
            qemu_volume.put_file(img, "pmucal/results", b"not a folder\n")
        self.free_clusters = free
        return img

    def run(self):
        args, qemu_args = self.args, []
        if "--" in args:  # QEMU's own arguments go last
            i = args.index("--")
            args, qemu_args = args[:i], args[i:]
        cmd = [os.path.join(ROOT, "run-qemu.sh"), "--quiet", "--timeout", str(self.timeout),
               "--out", self.out] + args
        if self.config and not self.volume:
            cmd += ["--config", os.path.join(ROOT, self.config)]
        if self.volume:
            cmd += ["--image", self.make_volume(), "--keep-disk"]
            self.disk = os.path.join(self.out, "disk.img")
        elif self.image:
            cmd += ["--image", os.path.join(ROOT, self.image)]
        p = subprocess.run(cmd + qemu_args, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.rc = p.returncode
        self.runlog = p.stdout
        path = os.path.join(self.out, "serial.log")
        self.serial = open(path, errors="replace").read() if os.path.exists(path) else ""
        with open(os.path.join(self.logs, "qemu-%s.serial.log" % self.name), "w") as f:
            f.write(self.serial)
        runs = [d for d in os.listdir(self.out) if os.path.isdir(os.path.join(self.out, d))]
        self.results = os.path.join(self.out, runs[0]) if len(runs) == 1 else None
        m = re.search(r"\(([0-9.]+)s;", p.stdout)
        self.summary_line = "# %s: run-qemu exit %d in %ss: %s" % (
                self.name, self.rc, m.group(1) if m else "?", p.stdout.strip().splitlines()[-1:])

    def result_json(self, name):
        if not self.results:
            return None
        path = os.path.join(self.results, name)
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            print("# %s: %s: %s" % (self.name, name, e))
            return None

    def lines(self):
        return [l.rstrip("\r") for l in self.serial.splitlines()]


# ---- checks: each takes a Case and prints TAP lines through tap() ----

def checks_from_lines(lines):
    """(decided, need a PMU, other) counted from the verdict lines themselves: PASS and FAIL
    are decided here; a SKIP of the pmu or sampling phase needs a hardware PMU, any other is
    skipped for another reason; a collapsed "SKIP: pfx: N checks: why" counts N."""
    decided = hw = other = 0
    for l in lines:
        if l.startswith(("PASS: ", "FAIL: ")):
            decided += 1
        elif l.startswith("SKIP: "):
            m = re.search(r"(?:^SKIP|:) (\d+) checks: ", l)
            n = int(m.group(1)) if m else 1
            if l[6:].startswith(("pmu: ", "sampling: ")):
                hw += n
            else:
                other += n
    return decided, hw, other


def check_console(c):
    tap(c.rc == c.status, "%s: exit status %d (expected %d)" % (c.name, c.rc, c.status))
    tap(re.search(r"^SUMMARY: \d+ passed, \d+ failed, \d+ skipped", c.serial, re.M) is not None,
        "%s: console has the SUMMARY line" % c.name)
    m = re.search(r"^CHECKS: (\d+) decided here \(PASS/FAIL\), (\d+) need a hardware PMU "
                  r"\(SKIP\), (\d+) skipped for other reasons", c.serial, re.M)
    counted = checks_from_lines(c.lines())
    tap(m is not None and tuple(int(x) for x in m.groups()) == counted,
        "%s: CHECKS line %s agrees with the verdict lines (%d decided, %d need a PMU, %d other)"
        % ((c.name, m.groups() if m else "missing") + counted))
    tap("FATAL:" not in c.serial and "X64 Exception" not in c.serial and
        "Synchronous Exception" not in c.serial,
        "%s: no unexpected exception" % c.name)
    last = [l for l in c.lines() if l.strip()][-1:] or [""]
    tap(last[0].startswith("RESULTS"), "%s: last console line says where results went (%r)"
        % (c.name, last[0][:80]))


def check_selftest(c):
    for what in ("ud2 raises #UD: caught #UD", "non-canonical address raises #GP: caught #GP"):
        tap(re.search(r"^PASS: selftest: fault-recovery: .*" + re.escape(what), c.serial, re.M)
            is not None, "%s: selftest %s" % (c.name, what))
    # The CR4.LA57 probe runs only where the CPU has LA57 (-cpu max); elsewhere it must SKIP.
    tap(re.search(r"^(PASS: selftest: fault-recovery: toggling CR4.LA57 .*caught #GP|"
                  r"SKIP: selftest: fault-recovery: toggling CR4.LA57)", c.serial, re.M)
        is not None, "%s: selftest CR4.LA57 probe passed or skipped" % c.name)
    tap(re.search(r"rdmsr\(0xdeadbeef\)", c.serial) is not None and
        "harness carried on" in c.serial,
        "%s: nonexistent MSR read, harness carried on" % c.name)


def check_saved(c):
    tap(c.results is not None, "%s: one results folder copied out" % c.name)
    if not c.results:
        return
    files = set(os.listdir(c.results))
    for f in ("inventory.json", "report.txt", "cpuid.txt"):
        tap(f in files, "%s: %s saved" % (c.name, f))
    report = open(os.path.join(c.results, "report.txt"), errors="replace").read() \
        if "report.txt" in files else ""
    tap("SUMMARY:" in report and "RESULTS: saved to" in report,
        "%s: report.txt holds the console report" % c.name)


def check_inventory(c):
    inv = c.result_json("inventory.json")
    if not tap(schema_is(inv, "inventory"),
               "%s: inventory.json parses, schema pmucal.inventory/1.x" % c.name):
        return
    tap(inv["cpu"]["decode"] == "ok" and inv["cpu"]["vendor"] in ("AMD", "Intel"),
        "%s: CPU decoded (%s)" % (c.name, inv["cpu"].get("brand")))
    tap(inv["cpu"]["hypervisor_vendor"] == "TCGTCGTCGTCG", "%s: TCG hypervisor seen" % c.name)
    tap(inv["tsc"]["hz"] > 100_000_000, "%s: TSC rate known (%d Hz, %s)"
        % (c.name, inv["tsc"]["hz"], inv["tsc"]["source"]))
    tap(inv["memory_map"].get("ram_bytes", 0) > 0, "%s: memory map summarised" % c.name)
    sm = inv.get("smbios") or {}
    tap(sm.get("manufacturer") == "QEMU", "%s: SMBIOS system manufacturer QEMU" % c.name)


def check_inventory_on_console(c):
    for label in ("CPU         :", "Caches      :", "NUMA        :", "System      :"):
        tap(label in c.serial, "%s: console report has %r" % (c.name, label.strip()))


def check_topology(c):
    inv = c.result_json("inventory.json")
    if not inv:
        tap(False, "%s: topology: no inventory.json" % c.name)
        return
    cpus = inv["cpus"]
    tap(cpus["logical"] == c.cpus and cpus["enabled"] == c.cpus,
        "%s: %d logical CPUs (asked %d)" % (c.name, cpus["logical"], c.cpus))
    ids = sorted(x["apic_id"] for x in cpus["list"])
    tap(ids == list(range(c.cpus)), "%s: APIC IDs %s" % (c.name, ids))
    want_nodes = max(c.nodes, 1)
    tap(inv["numa"]["nodes"] == want_nodes, "%s: %d NUMA nodes (asked %d)"
        % (c.name, inv["numa"]["nodes"], want_nodes))
    if c.nodes == 0:
        tap(inv["firmware_tables"]["SRAT"]["state"] == "absent", "%s: no SRAT" % c.name)
        return
    # run-qemu.sh puts CPUs lo..hi on node n with lo = n*cpus/nodes.
    for node in inv["numa"]["node_list"]:
        k = node["node"]
        want = list(range(k * c.cpus // c.nodes, (k + 1) * c.cpus // c.nodes))
        tap(sorted(node["apic_ids"]) == want, "%s: node %d has APIC IDs %s (want %s)"
            % (c.name, k, sorted(node["apic_ids"]), want))
    mems = [node["memory_bytes"] for node in inv["numa"]["node_list"]]
    tap(len(mems) == c.nodes and all(m > 0 for m in mems), "%s: memory on every node %s"
        % (c.name, mems))
    want = [[10 if a == b else 10 + 10 * abs(a - b) + (1 if abs(a - b) > 1 else 0)
             for b in range(c.nodes)] for a in range(c.nodes)]
    tap(inv["numa"]["slit"] == want, "%s: SLIT %s" % (c.name, inv["numa"]["slit"]))


def check_hmat(c):
    """HMAT as run-qemu.sh publishes it: entries for every initiator (a node with CPUs) and
    every target, latency and bandwidth by hops; CPU-less nodes are targets only."""
    inv = c.result_json("inventory.json")
    hmat = (inv or {}).get("numa", {}).get("hmat") or []
    tap(len(hmat) > 0, "%s: HMAT decoded (%d entries)" % (c.name, len(hmat)))
    initiators = [n for n in range(c.nodes)
                  if (n + 1) * c.cpus // c.nodes > n * c.cpus // c.nodes]
    bad = []
    for e in hmat:
        d = abs(e["initiator"] - e["target"])
        if e["initiator"] not in initiators:
            bad.append(e)
        elif e["type"] == "access latency":
            if e.get("latency_ps") != (80 + 40 * d) * 1000:
                bad.append(e)
        elif e["type"] == "access bandwidth":
            if e.get("bandwidth_mb_s") != 20480 >> d:
                bad.append(e)
    tap(not bad and len(hmat) == 2 * len(initiators) * c.nodes,
        "%s: HMAT latencies (80+40/hop ns) and bandwidths (20480>>hop MB/s) from initiators %s"
        "%s" % (c.name, initiators, "" if not bad else ": %s" % bad[:2]))


def check_tables(c):
    for t in ("acpi-APIC.dat", "acpi-SRAT.dat", "acpi-SLIT.dat", "smbios.dat"):
        tap(c.results is not None and os.path.exists(os.path.join(c.results, t)),
            "%s: raw table %s kept" % (c.name, t))


def check_not_saved(c):
    tap(re.search(r"^RESULTS NOT SAVED: volume is write-protected", c.serial, re.M) is not None,
        "%s: says results were not saved and why" % c.name)
    tap(c.results is None, "%s: nothing written to the read-only volume" % c.name)


def check_config_diagnostics(c):
    for line, kind in ((4, "malformed"), (5, "unknown key"), (6, "bad value"), (8, "duplicate")):
        tap(re.search(r"^WARN: config: pmucal/pmucal.cfg:%d: %s" % (line, kind), c.serial,
                      re.M | re.I) is not None,
            "%s: line %d reported as %s" % (c.name, line, kind))
    tap(re.search(r"repetitions\s*=\s*13\s*\(from pmucal/pmucal.cfg\)", c.serial) is not None,
        "%s: a good line still applies (repetitions = 13)" % c.name)


def check_crashed(c):
    tap(c.rc == c.status, "%s: exit status %d (expected %d, not a timeout)" % (c.name, c.rc, c.status))
    tap(re.search(r"^FATAL: unexpected #UD at RIP 0x[0-9a-f]+ .*pmucal crashed", c.serial, re.M)
        is not None, "%s: the crash is reported with its RIP" % c.name)
    tap("SUMMARY:" not in c.serial, "%s: nothing ran after the crash" % c.name)


def _tlb_common(c):
    """The TLB phase ran with its own page tables and handed its files to the results folder,
    which is written after the firmware's CR3 is back (hc, issue 6)."""
    tap(re.search(r"^PASS: tlb: page tables: \d+ test pages walk to the intended frames",
                  c.serial, re.M) is not None, "%s: page-table self-check passed" % c.name)
    tap(re.search(r"^PASS: tlb: firmware CR3 restored after every window", c.serial, re.M)
        is not None, "%s: firmware CR3 restored" % c.name)
    tap(re.search(r"^PASS: tlb: every chase returned to its start", c.serial, re.M)
        is not None, "%s: chases closed" % c.name)
    tap(re.search(r"^FAIL: tlb", c.serial, re.M) is None, "%s: no TLB check failed" % c.name)
    files = set(os.listdir(c.results)) if c.results else set()
    tap({"tlb-table.json", "tlb-curve.csv", "report.txt"} <= files,
        "%s: tlb-table.json, tlb-curve.csv and report.txt saved after the CR3 restore" % c.name)
    t = c.result_json("tlb-table.json")
    tap(schema_is(t, "tlb") and len(t.get("curves", [])) > 0,
        "%s: tlb-table.json parses, schema pmucal.tlb/1.x, %d curves"
        % (c.name, len(t.get("curves", [])) if t else 0))
    # TCG has no PMU and no APERF/MPERF: no core clock, said why, no core figure at all
    ck = (t or {}).get("clock", {})
    tap(ck.get("figures") == "tsc_ticks" and ck.get("core_hz") is None and
        ck.get("core_per_tsc") is None and bool(ck.get("reason")) and
        all(k.get("lat_core_cycles") is None and k.get("lat_ns") is not None
            for x in (t or {}).get("curves", []) for k in x["classes"]),
        "%s: tlb-table.json clock: TSC ticks, ns, no core clock (%s)"
        % (c.name, ck.get("reason")))
    lat = c.result_json("latency-table.json")
    if lat is not None:
        tap(lat.get("tlb", {}).get("schema", "").startswith("pmucal.tlb/1.") and
            len(lat["tlb"].get("curves", [])) == len((t or {}).get("curves", [])),
            "%s: latency-table.json carries the TLB table as its tlb member" % c.name)
    return t


def check_tlb_1g(c):
    t = _tlb_common(c)
    tap(re.search(r"^INFO: tlb: dtlb: 1 GiB pages used \(\d+ points", c.serial, re.M)
        is not None, "%s: console says 1 GiB pages were used" % c.name)
    tap(t is not None and any(x["page_bytes"] == 1 << 30 and x["side"] == "dtlb" and
                              x["points"] > 0 for x in t.get("curves", [])),
        "%s: tlb-table.json has a dtlb curve with 1 GiB pages" % c.name)
    tap(t is not None and {x["page_bytes"] for x in t.get("curves", [])} >= {4096, 2 << 20},
        "%s: 4 KiB and 2 MiB curves measured too" % c.name)


def check_tlb_no_1g(c):
    t = _tlb_common(c)
    tap(re.search(r"^SKIP: tlb: dtlb 1 GiB pages: CPUID.80000001H:EDX\[26\] \(Page1GB\) is "
                  r"clear", c.serial, re.M) is not None,
        "%s: 1 GiB pages reported unsupported (SKIP with its reason)" % c.name)
    tap(t is not None and all(x["page_bytes"] != 1 << 30 for x in t.get("curves", [])),
        "%s: no 1 GiB curve in tlb-table.json" % c.name)


def check_pmu(c):
    """The pmu phase under TCG: pmu-validation.json saved and parses, every check SKIPs with a
    reason (no PMU), no FAIL line in the pmu phase, the NMI route self-test passes."""
    doc = c.result_json("pmu-validation.json")
    if not tap(schema_is(doc, "pmu-validation"),
               "%s: pmu-validation.json parses, schema pmucal.pmu-validation/1" % c.name):
        return
    checks = doc.get("checks", [])
    tap(len(checks) > 0 and all(k["verdict"] == "SKIP" and k.get("reason") for k in checks),
        "%s: all %d PMU checks SKIP with a reason under TCG" % (c.name, len(checks)))
    tap(doc.get("pmu_available") is False and doc.get("pmu_reason"),
        "%s: no PMU, and why (%s)" % (c.name, doc.get("pmu_reason")))
    tap(re.search(r"^FAIL: pmu:", c.serial, re.M) is None, "%s: no FAIL line in the pmu phase" % c.name)
    # one reason for every check: one line with the count (the details are in the JSON)
    skips = re.findall(r"^SKIP: pmu: pmu-validate: (?:(\d+) checks|[a-z0-9-]+): (.+)$", c.serial, re.M)
    tap(sum(int(n) if n else 1 for n, _ in skips) == len(checks) and
        all(len(r) > 10 for _, r in skips) and len(skips) < len(checks),
        "%s: the %d PMU checks SKIP on %d console line(s) with the reason and the count"
        % (c.name, len(checks), len(skips)))
    tap(re.search(r"^PASS: pmu: sampling: pmi-route: self-NMI", c.serial, re.M) is not None,
        "%s: PMI route (NMI through LVT PMC and the harness's IDT) self-test passed" % c.name)
    tap(re.search(r"^SKIP: pmu: sampling: overflow sampling: ", c.serial, re.M) is not None,
        "%s: overflow sampling SKIPs with the reason" % c.name)
    m = re.search(r"dtlb-misses-pagechase: 4 KiB test mapping ready, (\d+) pages walked", c.serial)
    tap(m is not None and int(m.group(1)) > 0 and
        re.search(r"^PASS: pmu: .*under the harness's page tables closed, firmware CR3 restored",
                  c.serial, re.M) is not None,
        "%s: dTLB check's own 4 KiB mapping built, walked (%s pages) and used with CR3 restored"
        % (c.name, m.group(1) if m else "?"))
    m = re.search(r"^INFO: pmu: suite took (\d+) ms", c.serial, re.M)
    tap(m is not None and int(m.group(1)) < 5000, "%s: the suite SKIPs quickly (%s ms)"
        % (c.name, m.group(1) if m else "?"))


def check_latency(c):
    """The latency phase (app/latency.c): table and curve saved and valid, levels table and plot
    on the console. TCG emulates no caches, but its loads reach the host's caches through the
    software TLB, so the curve need not be flat: either way the table must say what it saw."""
    t = c.result_json("latency-table.json")
    if not tap(schema_is(t, "latency-table"),
               "%s: latency-table.json parses, schema pmucal.latency-table/1.x" % c.name):
        return
    # Clock truth: TCG has no PMU and no APERF/MPERF, so no core clock: core_hz and every
    # core-cycle figure null and the reason given, not the TSC figure under another name.
    cc = t["method"].get("core_clock", {})
    tap(t["machine"].get("core_hz") is None and cc.get("source") is None and
        bool(cc.get("reason")) and t["method"].get("clock") == "tsc" and
        all(l.get("core_cycles") is None and l.get("tsc_ticks") and l.get("ns")
            for l in t["levels"]) and t["bucket_upper_bounds"].get("core_cycles") is None,
        "%s: no core clock under TCG: core figures null, reason %r" % (c.name, cc.get("reason")))
    tap(all(l["tsc_ticks"]["p50_lo"] <= l["tsc_ticks"]["p50"] <= l["tsc_ticks"]["p50_hi"]
            for l in t["levels"]) and
        all(l["capacity_interval_bytes"][0] <= l["capacity_bytes"] <= l["capacity_interval_bytes"][1]
            for l in t["levels"] if l.get("capacity_bytes")),
        "%s: every p50 and capacity lies in its interval" % c.name)
    path = os.path.join(c.results, "latency-table.json")
    tool = os.path.join(ROOT, "build", "host", "pmucal-table")
    if os.access(tool, os.X_OK):
        p = subprocess.run([tool, "check", path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        tap(p.returncode == 0, "%s: pmucal-table check accepts it (%s)"
            % (c.name, p.stdout.strip().splitlines()[-1:] or p.returncode))
    else:
        tap(False, "%s: pmucal-table check: %s not built (make host)" % (c.name, tool))
    flags = t.get("flags", [])
    names = [l["name"] for l in t.get("levels", [])]
    tap(t["machine"].get("hypervisor") is True and t["method"].get("page_tables") ==
        "firmware identity map", "%s: table says hypervisor and firmware identity map" % c.name)
    if "no_hierarchy" in flags:
        tap(names == ["flat"] and "NO CACHE HIERARCHY VISIBLE" in c.serial,
            "%s: flat curve: one level 'flat', flagged no_hierarchy, said on the console" % c.name)
    else:
        tap(len(names) > 1 and re.search(r"^INFO: latency: measured under a hypervisor \(TCGTCGTCGTCG\)",
                                         c.serial, re.M) is not None,
            "%s: levels %s seen under TCG, console says they are the emulator's" % (c.name, names))
    try:
        rows = open(os.path.join(c.results, "latency-curve.csv")).read().splitlines()
    except OSError:
        rows = []
    pts = [r for r in rows[1:] if re.match(r"^[0-9]+,", r)]
    tap(rows[:1] and rows[0].startswith("ws_bytes,n_windows,") and len(pts) >= 20 and
        len(pts) == t["method"]["points"],
        "%s: latency-curve.csv has %d points (>= 20, as many as the table says)" % (c.name, len(pts)))
    tap(re.search(r"^latency levels: \d+; ", c.serial, re.M) is not None and
        "latency per load in TSC ticks (log) by working set (log)" in c.serial and
        re.search(r"core clock unknown \(.+\): core cycles not given", c.serial) is not None and
        "(working set)" in c.serial, "%s: console has the levels table and the plot" % c.name)



def check_latency_4k(c):
    """latency_pages = 4k (hf, issue 4): under OVMF the buffer is 2 MiB-mapped, so the sweep
    ran under the harness's own page tables with 4 KiB pages; the table's method says so, the
    own mapping's self-check passed and the firmware's CR3 was back after every window."""
    t = c.result_json("latency-table.json")
    m = (t or {}).get("method", {})
    tap(m.get("page_bytes") == 4096 and m.get("page_tables") == "harness page tables",
        "%s: latency-table.json method: %s-byte pages, %s" % (c.name, m.get("page_bytes"),
                                                           m.get("page_tables")))
    tap(re.search(r"^INFO: latency: pages: 4k asked, 2m in the firmware's identity map: windows "
                  r"ran with 4k pages through the harness page tables", c.serial, re.M)
        is not None, "%s: console method line says 4k through the harness page tables" % c.name)
    s = re.search(r"^PASS: latency: own page tables: (\d+) of (\d+) pages of the buffer walk to "
                  r"themselves as 4 KiB pages", c.serial, re.M)
    tap(s is not None and s.group(1) == s.group(2) and int(s.group(1)) > 0,
        "%s: own mapping self-check passed (%s pages walked)" % (c.name, s.group(1) if s else "?"))
    r = re.search(r"^PASS: latency: firmware CR3 restored after every window \((\d+) windows, "
                  r"0 differed\)", c.serial, re.M)
    tap(r is not None and int(r.group(1)) > 0, "%s: firmware CR3 restored after every window (%s)"
        % (c.name, r.group(1) if r else "?"))
    tap(re.search(r"^FAIL: latency:", c.serial, re.M) is None, "%s: no latency check failed"
        % c.name)
    pts = m.get("points", 0)
    tap(schema_is(t, "latency-table") and pts >= 20,
        "%s: table valid with %d points" % (c.name, pts))


def check_sampling(c):
    """The sampling phase (app/sampling.c) under TCG: no IBS, PEBS or LBR, so every check of
    every mechanism SKIPs with a reason, none FAILs, and sampling-validation.json says so."""
    mechs = ("ibs-op", "ibs-fetch", "pebs", "lbr")
    tap(re.search(r"^FAIL: sampling:", c.serial, re.M) is None, "%s: no FAIL with prefix sampling"
        % c.name)
    skips = re.findall(r"^SKIP: sampling: ([a-z-]+): ([^:]+): (.*)$", c.serial, re.M)
    counted = lambda s: int(s[1].split()[0]) if re.match(r"^\d+ checks$", s[1]) else 1
    for m in mechs:
        mine = [s for s in skips if s[0] == m]
        tap(len(mine) > 0 and all(s[2].strip() for s in mine),
            "%s: every %s check SKIPs with a reason (%d lines for %d checks, e.g. %r)"
            % (c.name, m, len(mine), sum(counted(s) for s in mine),
               mine[0][2][:70] if mine else None))
    # one line per mechanism and reason: a QEMU run no longer prints a line per check
    tap(len(skips) <= 2 * len(mechs),
        "%s: SKIP lines collapsed per mechanism and reason (%d lines)" % (c.name, len(skips)))
    tap(re.search(r"^PASS: sampling: (ibs|pebs|lbr)", c.serial, re.M) is None,
        "%s: nothing claims to have sampled under TCG" % c.name)
    v = c.result_json("sampling-validation.json")
    if not tap(schema_is(v, "sampling-validation"),
               "%s: sampling-validation.json parses, schema pmucal.sampling-validation/1" % c.name):
        return
    checks = v.get("checks", [])
    tap(len(checks) == sum(counted(s) for s in skips) and v["summary"]["fail"] == 0 and
        all(k["verdict"] == "SKIP" and k["detail"] for k in checks) and
        {k["mechanism"] for k in checks} == set(mechs),
        "%s: sampling-validation.json: %d checks, all SKIP with a reason, every mechanism"
        % (c.name, len(checks)))


def check_files_match_schemas(c, validators):
    """Every JSON file of the results folder validates against its schema in docs/schemas/
    (strictly: nothing the schema does not define); a mismatch names the file and JSON path."""
    if not c.results:
        return
    for f in sorted(x for x in os.listdir(c.results) if x.endswith(".json")):
        errs = check_schemas.validate_file(os.path.join(c.results, f), validators)
        tap(not errs, "%s: %s validates against its schema in docs/schemas/%s"
            % (c.name, f, "" if not errs else " (%s)" % errs[0]))
        for e in errs:
            print("# " + e)


CHECKS = {name[6:]: fn for mod in (globals(), vars(qemu_checks_mp), vars(qemu_checks_arm64))
          for name, fn in mod.items() if name.startswith("check_") and callable(fn)}
CHECKS.update({name[6:]: (lambda c, fn=fn: fn(c, tap)) for name, fn in vars(qemu_volume).items()
               if name.startswith("check_")})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default=os.path.join(ROOT, "tests", "qemu.cfg"))
    ap.add_argument("--logs", default=os.path.join(ROOT, "build", "test-logs"))
    ap.add_argument("--only", help="run only these cases (names separated by spaces or commas)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("QEMU_JOBS", "2")),
                    help="cases booted at once (QEMU_JOBS; default 2)")
    a = ap.parse_args()
    only = set(re.split(r"[ ,]+", a.only.strip())) if a.only and a.only.strip() else None
    os.makedirs(a.logs, exist_ok=True)
    cfg = configparser.ConfigParser()
    cfg.read(a.cfg)
    validators = check_schemas.make_validators(check_schemas.load_schemas(), strict=True)
    cases = []
    for name in cfg.sections():
        if only and name not in only:
            continue
        c = Case(name, cfg[name], a.logs)
        unknown = [k for k in c.checks if k not in CHECKS]
        if tap(not unknown, "%s: case names only known checks %s" % (name, unknown or "")):
            cases.append(c)
    # Boot a.jobs cases at a time (each is its own QEMU with its own disk and folders); check
    # them one by one, in the table's order, as each finishes.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        runs = [pool.submit(c.run) for c in cases]
        for c, r in zip(cases, runs):
            r.result()
            print(c.summary_line)
            failed_before = qemu_tap.failed
            for k in c.checks:
                CHECKS[k](c)
            check_files_match_schemas(c, validators)
            if qemu_tap.failed == failed_before:  # keep what a failed case left, for a look
                shutil.rmtree(c.out, ignore_errors=True)
    print("1..%d" % qemu_tap.n)
    return 1 if qemu_tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
