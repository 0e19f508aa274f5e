#!/usr/bin/env python3
"""Boot each case of tests/qemu.cfg with run-qemu.sh and check what the harness printed and
saved against the topology the case asked QEMU for. Prints one TAP line per check."""
import argparse
import configparser
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
n = 0
failed = 0


def tap(ok, what):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what), flush=True)
    return ok


def opt(args, name, default):
    """Value of run-qemu.sh option `name` in the case's args, as run-qemu.sh defaults it."""
    if name in args:
        i = args.index(name)
        return args[i + 1]
    return default


class Case:
    def __init__(self, name, sec, logs):
        self.name = name
        self.args = shlex.split(sec.get("args", ""))
        self.config = sec.get("config")
        self.image = sec.get("image")
        self.status = sec.getint("status", 0)
        self.checks = sec.get("checks", "").split()
        self.timeout = sec.getint("timeout", 240)
        self.out = tempfile.mkdtemp(prefix="qemu-%s-" % name, dir=os.path.join(ROOT, "build"))
        self.logs = logs
        self.cpus = int(opt(self.args, "--cpus", "4"))
        self.nodes = int(opt(self.args, "--nodes", "2"))

    def run(self):
        cmd = [os.path.join(ROOT, "run-qemu.sh"), "--quiet", "--timeout", str(self.timeout),
               "--out", self.out] + self.args
        if self.config:
            cmd += ["--config", os.path.join(ROOT, self.config)]
        if self.image:
            cmd += ["--image", os.path.join(ROOT, self.image)]
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        self.rc = p.returncode
        self.runlog = p.stdout
        path = os.path.join(self.out, "serial.log")
        self.serial = open(path, errors="replace").read() if os.path.exists(path) else ""
        with open(os.path.join(self.logs, "qemu-%s.serial.log" % self.name), "w") as f:
            f.write(self.serial)
        runs = [d for d in os.listdir(self.out) if os.path.isdir(os.path.join(self.out, d))]
        self.results = os.path.join(self.out, runs[0]) if len(runs) == 1 else None
        m = re.search(r"after ([0-9.]+)s", p.stdout)
        print("# %s: run-qemu exit %d in %ss: %s" % (self.name, self.rc, m.group(1) if m else "?",
                                                     p.stdout.strip().splitlines()[-1:]))

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

def check_console(c):
    tap(c.rc == c.status, "%s: exit status %d (expected %d)" % (c.name, c.rc, c.status))
    tap(re.search(r"^SUMMARY: \d+ passed, \d+ failed, \d+ skipped", c.serial, re.M) is not None,
        "%s: console has the SUMMARY line" % c.name)
    tap("FATAL:" not in c.serial and "X64 Exception" not in c.serial,
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
    if not tap(inv is not None and inv.get("schema") == "pmucal.inventory/1",
               "%s: inventory.json parses, schema pmucal.inventory/1" % c.name):
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
    inv = c.result_json("inventory.json")
    hmat = (inv or {}).get("numa", {}).get("hmat") or []
    tap(len(hmat) > 0, "%s: HMAT decoded (%d entries)" % (c.name, len(hmat)))
    bad = []
    for e in hmat:
        d = abs(e["initiator"] - e["target"])
        if e["type"] == "access latency":
            if e.get("latency_ps") != (80 + 40 * d) * 1000:
                bad.append(e)
        elif e["type"] == "access bandwidth":
            if e.get("bandwidth_mb_s") != 20480 >> d:
                bad.append(e)
    tap(not bad and len(hmat) == 2 * c.nodes * c.nodes,
        "%s: HMAT latencies (80+40/hop ns) and bandwidths (20480>>hop MB/s) as asked%s"
        % (c.name, "" if not bad else ": %s" % bad[:2]))


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


CHECKS = {name[6:]: fn for name, fn in globals().items() if name.startswith("check_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default=os.path.join(ROOT, "tests", "qemu.cfg"))
    ap.add_argument("--logs", default=os.path.join(ROOT, "build", "test-logs"))
    ap.add_argument("--only", help="run only this case")
    a = ap.parse_args()
    os.makedirs(a.logs, exist_ok=True)
    cfg = configparser.ConfigParser()
    cfg.read(a.cfg)
    for name in cfg.sections():
        if a.only and name != a.only:
            continue
        c = Case(name, cfg[name], a.logs)
        unknown = [k for k in c.checks if k not in CHECKS]
        if not tap(not unknown, "%s: case names only known checks %s" % (name, unknown or "")):
            continue
        c.run()
        for k in c.checks:
            CHECKS[k](c)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
