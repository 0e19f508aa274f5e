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
import qemu_checks_hosted
import qemu_checks_mp
import qemu_checks_phases
import qemu_receiver
import qemu_tap
import qemu_volume
from qemu_tap import ROOT, diag, opt, schema_is, tap, why_status

sys.path.insert(0, os.path.join(ROOT, "tools"))
from pmucal_collect import db as collector_db  # noqa: E402
from pmucal_collect import runs as collector_runs  # noqa: E402

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
        self.collector = sec.get("collector")  # receiver (fail-first=N), down, mute, pmucal-collect
        self.receiver = None
        self.out = tempfile.mkdtemp(prefix="qemu-%s-" % name, dir=os.path.join(ROOT, "build"))
        self.logs = logs
        self.cpus = int(opt(self.args, "--cpus", "4"))
        self.nodes = int(opt(self.args, "--nodes", "2"))
        self.mem = int(opt(self.args, "--mem", "2048"))
        self.disk = None
        self.cluster = None
        self.hint = None
        self.fsck_before = None
        self.second = None

    def make_volume(self):
        """Build the boot image the `volume` tokens describe (tests/qemu_volume.py):
        free=N (N clusters left free), runs=S (folders 20200101-0000SS-01..99 for the first S
        seconds of 2020-01-01, as a frozen clock would name them), results-file (a file
        \\pmucal\\results), config-dir (a folder \\pmucal\\pmucal.cfg), size=MiB (the image;
        40 and up is FAT32), hint=N (FAT32 FSInfo free count set to N after filling)."""
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
                                              free_clusters=free,
                                              size_mib=int(tok.get("size", 34)))
        self.hint = None
        if "hint" in tok:
            self.hint = int(tok["hint"])
            qemu_volume.set_free_hint(img, self.hint)
        self.fsck_before = None
        if "results-free" in tok:
            qemu_volume.mark_free_fat16(img, "pmucal/results")
            self.fsck_before = qemu_volume.fsck(img)[1]
        if "config-second-esp" in tok:
            # a second disk whose ESP holds \pmucal\pmucal.cfg and nothing to boot
            self.second = os.path.join(self.out, "second.img")
            qemu_volume.make_image(self.second, efi,
                                   files={"pmucal/pmucal.cfg": b"profile = pmu\n"})
            subprocess.run(["mdel", "-i", self.second + qemu_volume.ESP, "::/EFI/BOOT/BOOTX64.EFI"],
                           check=True)
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
            if self.second:
                # In the boot order after the boot disk, so that the firmware connects it (as
                # a second stick in a machine's boot menu): pmucal connects no device itself.
                qemu_args = (qemu_args or ["--"]) + [
                    "-drive", "file=%s,format=raw,if=none,id=second" % self.second,
                    "-device", "virtio-blk-pci,drive=second,bootindex=1"]
        elif self.image:
            cmd += ["--image", os.path.join(ROOT, self.image)]
        if self.collector:
            tok = dict(t.partition("=")[::2] for t in self.collector.split())
            if "down" in tok:
                port = qemu_receiver.free_port()
            elif "mute" in tok:
                self.receiver = qemu_receiver.Mute().start()
                port = self.receiver.port
            elif "pmucal-collect" in tok:
                port = qemu_receiver.free_port()
                self.collect_db = "sqlite:///" + os.path.join(self.out, "collect.db")
                self.collect_proc = qemu_receiver.start_collector(self.collect_db, port)
            else:
                self.receiver = qemu_receiver.Receiver(int(tok.get("fail-first") or 0)).start()
                port = self.receiver.port
            cmd += ["--collector", "http://10.0.2.2:%d" % port]
        try:
            p = subprocess.run(cmd + qemu_args, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        finally:
            if self.receiver:
                self.receiver.stop()
            if getattr(self, "collect_proc", None):
                self.collect_proc.terminate()
                self.collect_proc.wait(timeout=20)
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

SKIP_KINDS = ("needs a hardware PMU", "needs a feature", "environment")


def skip_kind(line):
    """The kind a SKIP line ends with ("... [needs a hardware PMU]"), or None."""
    m = re.search(r" \[([a-z ]+|needs a hardware PMU)\]$", line)
    return m.group(1) if m and m.group(1) in SKIP_KINDS else None


def checks_from_lines(lines):
    """(decided, need a PMU, need a feature, environment, untagged) counted from the verdict
    lines themselves: PASS and FAIL are decided here; each SKIP line carries its kind at its
    end, chosen where the SKIP was decided; a collapsed "SKIP: pfx: N checks: why" counts N."""
    decided, by, untagged = 0, dict.fromkeys(SKIP_KINDS, 0), 0
    for l in lines:
        if l.startswith(("PASS: ", "FAIL: ")):
            decided += 1
        elif l.startswith("SKIP: "):
            m = re.search(r"(?:^SKIP|:) (\d+) checks: ", l)
            n = int(m.group(1)) if m else 1
            k = skip_kind(l)
            if k is None:
                untagged += n
            else:
                by[k] += n
    return (decided,) + tuple(by[k] for k in SKIP_KINDS) + (untagged,)


def pmu_skips_not_pmu(c):
    """SKIP lines of the pmu and sampling phases of an x86-64 TCG boot (QEMU's TCG CPU has no
    PMU) whose kind is not "needs a hardware PMU": a reason given the wrong kind."""
    if "aarch64" in c.args:
        return []
    return [l for l in c.lines() if l.startswith(("SKIP: pmu: ", "SKIP: sampling: "))
            and skip_kind(l) != "needs a hardware PMU"]


def check_console(c):
    if not tap(c.rc == c.status, "%s: exit status %d (expected %d)" % (c.name, c.rc, c.status)):
        diag(why_status(c))
    tap(re.search(r"^SUMMARY: \d+ passed, \d+ failed, \d+ skipped", c.serial, re.M) is not None,
        "%s: console has the SUMMARY line" % c.name)
    m = re.search(r"^CHECKS: (\d+) decided here \(PASS/FAIL\), (\d+) need a hardware PMU "
                  r"\(SKIP\), (\d+) need a feature this machine lacks \(SKIP\), (\d+) skipped "
                  r"for the environment \(SKIP\)", c.serial, re.M)
    counted = checks_from_lines(c.lines())
    tap(m is not None and tuple(int(x) for x in m.groups()) + (0,) == counted,
        "%s: CHECKS line %s agrees with the kinds the verdict lines carry (%d decided, %d need "
        "a PMU, %d need a feature, %d environment, %d SKIPs without a kind)"
        % ((c.name, m.groups() if m else "missing") + counted))
    wrong = pmu_skips_not_pmu(c)
    tap(not wrong, "%s: under TCG every SKIP of the pmu and sampling phases needs a hardware "
        "PMU (%d do not%s)" % (c.name, len(wrong), ", e.g. %r" % wrong[0][:120] if wrong else ""))
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


def check_netboot(c):
    """Loaded by the firmware's PXE (TFTP) with no disk at all, and the config beside the image
    on the server read: the case's config asks for a profile that is not the default."""
    tap(re.search(r"^\s*NBP file downloaded successfully", c.serial, re.M) is not None,
        "%s: the firmware loaded the image over PXE (TFTP)" % c.name)
    tap(re.search(r"^INFO: config: no volume: loaded over the network from "
                  r"tftp://10\.0\.2\.2/pmucal\.efi", c.serial, re.M) is not None,
        "%s: pmucal says it came over the network and from where" % c.name)
    want = re.search(r"^profile\s*=\s*(\S+)", open(os.path.join(ROOT, c.config)).read(), re.M).group(1)
    tap(re.search(r"^config: profile\s*=\s*%s\s*\(from " % re.escape(want), c.serial, re.M)
        is not None, "%s: profile = %s read from pmucal.cfg on the boot server" % (c.name, want))


def check_http_boot(c):
    """Loaded by the firmware's HTTP boot from a loopback HTTP server, and the config beside
    the image read with an HTTP GET."""
    tap(re.search(r"^>>Start HTTP Boot over IPv4", c.serial, re.M) is not None,
        "%s: the firmware's HTTP boot loaded the image" % c.name)
    tap(re.search(r"^INFO: config: no volume: loaded over the network from "
                  r"http://10\.0\.2\.2:\d+/pmucal\.efi", c.serial, re.M) is not None,
        "%s: pmucal says it came over HTTP and from which URL" % c.name)
    want = re.search(r"^profile\s*=\s*(\S+)", open(os.path.join(ROOT, c.config)).read(), re.M).group(1)
    tap(re.search(r"^config: profile\s*=\s*%s\s*\(from " % re.escape(want), c.serial, re.M)
        is not None, "%s: profile = %s read from pmucal.cfg beside the image's URL" % (c.name, want))


def check_netboot_not_kept(c):
    """No volume and no collector: every results file is named as not kept, the RESULTS line
    says why, and nothing claims to be saved."""
    lost = re.findall(r"^INFO: results: not kept: (\S+)", c.serial, re.M)
    for f in ("inventory.json", "cpuid.txt", "smbios.dat", "report.txt"):
        tap(f in lost, "%s: %s named as not kept" % (c.name, f))
    tap(re.search(r"^RESULTS NOT SAVED: no volume to write to \(pmucal was loaded over the "
                  r"network from tftp://\S+\) and no collector to upload to", c.serial, re.M)
        is not None, "%s: the RESULTS line says no volume and no collector" % c.name)
    tap(re.search(r"^RESULTS: saved", c.serial, re.M) is None and c.results is None,
        "%s: nothing claims to be saved" % c.name)


def check_uploaded(c):
    """The run arrived at the loopback receiver in the framing of docs/collector.md, with the
    files the console named, and the console says where it went."""
    rx = c.receiver
    tap(rx is not None and rx.stored is not None, "%s: the receiver stored an upload" % c.name)
    if not rx or not rx.stored:
        diag("requests seen: %r" % (rx.requests if rx else None))
        return
    run, files = rx.stored
    m = re.search(r"^INFO: run: (\S+)", c.serial, re.M)
    tap(m is not None and run == m.group(1), "%s: the upload names the run %s" % (c.name, run))
    for f in ("inventory.json", "cpuid.txt", "smbios.dat", "report.txt"):
        tap(f in files, "%s: %s uploaded" % (c.name, f))
    inv = json.loads(files.get("inventory.json", b"{}").decode() or "{}")
    tap(str(inv.get("schema", "")).startswith("pmucal.inventory/"),
        "%s: the uploaded inventory.json is the inventory (schema %s)" % (c.name, inv.get("schema")))
    rep = files.get("report.txt", b"").decode(errors="replace")
    tap("SUMMARY:" in rep and rep.strip() and rep in c.serial.replace("\r", ""),
        "%s: the uploaded report.txt is the console text up to the summary" % c.name)
    tap(re.search(r"^INFO: upload: stored by the collector at http://10\.0\.2\.2:\d+/api/v1/runs "
                  r"\(HTTP 201, try \d of 3", c.serial, re.M) is not None,
        "%s: the console says the collector stored it" % c.name)
    tap(re.search(r"^RESULTS: uploaded to http://10\.0\.2\.2:\d+", c.serial, re.M) is not None
        and "not kept:" not in c.serial, "%s: RESULTS says uploaded, nothing 'not kept'" % c.name)


def check_collected(c):
    """The real collector (pmucal-collect serve over SQLite) stored the run the console named,
    with its files, as an upload."""
    out = subprocess.run([os.path.join(ROOT, "tools", "pmucal-collect"), "runs", "--db",
                          c.collect_db, "--json"], stdout=subprocess.PIPE, text=True, timeout=60)
    rows = json.loads(out.stdout or "[]") if out.returncode == 0 else []
    m = re.search(r"^INFO: run: (\S+)", c.serial, re.M)
    tap(m is not None and [r["run"] for r in rows] == [m.group(1)],
        "%s: the collector's database holds the one run %s (%s)"
        % (c.name, m.group(1) if m else "?", [r.get("run") for r in rows]))
    tap(rows and rows[0]["files"] >= 5,
        "%s: with its files (%s)" % (c.name, rows[0]["files"] if rows else None))
    tap(re.search(r"^INFO: upload: stored by the collector at \S+ \(HTTP 201, try 1 of 3.*"
                  r"\"status\": \"stored\"", c.serial, re.M) is not None,
        "%s: the console shows the collector's 201 reply" % c.name)


def check_upload_retried(c):
    """The receiver answered 500 to the first upload: pmucal said so, waited and sent it again."""
    rx = c.receiver
    tap(rx is not None and len(rx.requests) == 2,
        "%s: two uploads reached the receiver (%d)" % (c.name, len(rx.requests) if rx else 0))
    tap(re.search(r"^INFO: upload: try 1 of 3: the collector at \S+ answered HTTP 500: "
                  r"\{\"error\": \"database unavailable", c.serial, re.M) is not None,
        "%s: the console says the first try got a 500 and the collector's message" % c.name)
    tap(re.search(r"\(HTTP 201, try 2 of 3", c.serial) is not None,
        "%s: stored on the second try" % c.name)


def check_upload_unreachable(c):
    """No collector listening: three tries, each said, then one line that it was unreachable,
    and the files named as not kept."""
    tries = re.findall(r"^INFO: upload: try (\d) of 3: the collector at http://10\.0\.2\.2:\d+"
                       r"/api/v1/runs could not be reached", c.serial, re.M)
    tap(tries == ["1", "2", "3"], "%s: three tries, each said (%s)" % (c.name, tries))
    tap(re.search(r"^WARN: upload: the collector at \S+ was unreachable after 3 tries", c.serial,
                  re.M) is not None, "%s: unreachable after 3 tries" % c.name)
    tap(re.search(r"^RESULTS NOT SAVED: no volume to write to .* and the upload to the "
                  r"collector failed", c.serial, re.M) is not None,
        "%s: the RESULTS line says no volume and the upload failed" % c.name)
    lost = re.findall(r"^INFO: results: not kept: (\S+)", c.serial, re.M)
    tap("inventory.json" in lost and "report.txt" in lost,
        "%s: the files are named as not kept" % c.name)


def check_upload_mute(c):
    """A collector that accepts the connection and never answers, with upload_tries = 2 and
    upload_pause_ms = 500 in pmucal.cfg: each try reached it and timed out, was said, the pause
    between them is the configured one, and the run is on the volume all the same."""
    rx = c.receiver
    tap(rx is not None and getattr(rx, "accepted", 0) == 2,
        "%s: both tries connected to the collector (%s connections)" % (c.name, getattr(rx, "accepted", None)))
    tries = re.findall(r"^INFO: upload: try (\d) of 2: the collector at http://10\.0\.2\.2:\d+"
                       r"/api/v1/runs could not be reached \(timed out\)", c.serial, re.M)
    tap(tries == ["1", "2"], "%s: two tries, each said to have timed out (%s)" % (c.name, tries))
    tap(re.search(r"^INFO: upload: trying again in 500 ms", c.serial, re.M) is not None
        and "trying again in 1000 ms" not in c.serial,
        "%s: one pause, upload_pause_ms = 500 from pmucal.cfg" % c.name)
    tap(re.search(r"^WARN: upload: the collector at \S+ was unreachable after 2 tries", c.serial,
                  re.M) is not None, "%s: unreachable after 2 tries, said" % c.name)
    tap(re.search(r"^RESULTS: saved to ", c.serial, re.M) is not None and "not kept:" not in c.serial,
        "%s: nothing lost: the run saved to the volume, no file 'not kept'" % c.name)


def check_volume_and_collector(c):
    """A disk boot with a collector: the run is both on the volume and in the collector, and
    the database holds the same inventory.json as the volume."""
    tap(re.search(r"^RESULTS: saved to ", c.serial, re.M) is not None
        and re.search(r"^INFO: upload: stored by the collector at ", c.serial, re.M) is not None,
        "%s: the console says stored by the collector and saved to the volume" % c.name)
    if not c.results or not getattr(c, "collect_db", None):
        tap(False, "%s: a results folder and a collector database to compare" % c.name)
        return
    d = collector_db.open_db(c.collect_db)
    try:
        rows = d.query("SELECT content FROM files WHERE name = 'inventory.json'")
    finally:
        d.close()
    with open(os.path.join(c.results, "inventory.json"), "rb") as f:
        on_volume = f.read()
    tap(len(rows) == 1 and bytes(rows[0][0]) == on_volume,
        "%s: the collector's inventory.json is the volume's, byte for byte" % c.name)


def check_config_diagnostics(c):
    for line, kind in ((4, "malformed"), (5, "unknown key"), (6, "bad value"), (8, "duplicate")):
        tap(re.search(r"^WARN: config: pmucal/pmucal.cfg:%d: %s" % (line, kind), c.serial,
                      re.M | re.I) is not None,
            "%s: line %d reported as %s" % (c.name, line, kind))
    tap(re.search(r"repetitions\s*=\s*13\s*\(from pmucal/pmucal.cfg\)", c.serial) is not None,
        "%s: a good line still applies (repetitions = 13)" % c.name)


def check_crashed(c):
    if not tap(c.rc == c.status, "%s: exit status %d (expected %d, not a timeout)"
               % (c.name, c.rc, c.status)):
        diag(why_status(c))
    tap(re.search(r"^FATAL: unexpected #UD at RIP 0x[0-9a-f]+ .*pmucal crashed", c.serial, re.M)
        is not None, "%s: the crash is reported with its RIP" % c.name)
    tap("SUMMARY:" not in c.serial, "%s: nothing ran after the crash" % c.name)


def secure_boot_recorded(c, want):
    inv = c.result_json("inventory.json") or {}
    words = {"on": "on (SecureBoot = 1", "off": "off (SecureBoot = 0", "setup_mode": "off, setup mode"}
    tap(inv.get("secure_boot") in want, "%s: inventory.json secure_boot is %r (expected one of %s)"
        % (c.name, inv.get("secure_boot"), sorted(want)))
    tap(any(re.search(r"^Secure Boot : " + re.escape(words[w]), c.serial, re.M) for w in want),
        "%s: the console names the Secure Boot state" % c.name)


def check_secure_boot_on(c):
    """Debian's Secure Boot firmware with the snakeoil key in db ran the image signed with it,
    and pmucal recorded that Secure Boot was on."""
    secure_boot_recorded(c, {"on"})


def check_secure_boot_off(c):
    """The plain firmware: Secure Boot off (OVMF_VARS_4M.fd enrols no platform key, so it is
    in setup mode)."""
    secure_boot_recorded(c, {"off", "setup_mode"})


def check_secure_boot_refused(c):
    """The firmware would not run the image: run-qemu.sh says so at once (not a timeout),
    with the firmware's own words, and pmucal never printed a line."""
    if not tap(c.rc == c.status, "%s: exit status %d (expected %d)" % (c.name, c.rc, c.status)):
        diag(why_status(c))
    tap("the firmware refused the image" in c.runlog and "Access Denied" in c.runlog,
        "%s: run-qemu.sh says the firmware refused the image (%s)"
        % (c.name, c.runlog.strip().splitlines()[-1:]))
    tap(re.search(r"^pmucal ", c.serial, re.M) is None, "%s: pmucal never ran" % c.name)
    m = re.search(r"\(([0-9.]+)s;", c.runlog)
    tap(m is not None and float(m.group(1)) < c.timeout / 2,
        "%s: stopped once the firmware gave up (%ss of a %ds timeout)"
        % (c.name, m.group(1) if m else "?", c.timeout))


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


def check_collector_ingest(c, db):
    """The results folder ingests into the collector (tools/pmucal-collect's store: every
    file validated by the strict rule of pmucal's own files, then stored in one transaction),
    as a folder from a stick would."""
    if not c.results:
        return
    files, skipped = collector_runs.read_folder(c.results)
    try:
        status, rid, _ = collector_runs.store(db, files, os.path.basename(c.results), "ingest", strict=True)
        tap(status == "stored" and not skipped, "%s: results folder ingests into the collector (run %d%s)"
            % (c.name, rid, "; not kept: " + ", ".join(skipped) if skipped else ""))
    except collector_runs.Reject as rej:
        tap(False, "%s: results folder ingests into the collector (rejected: %s, %s %s)"
            % (c.name, rej.error, rej.file, rej.path))


CHECKS = {name[6:]: fn for mod in (globals(), vars(qemu_checks_mp), vars(qemu_checks_phases),
                                    vars(qemu_checks_arm64), vars(qemu_checks_hosted))
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
    collect_path = os.path.abspath(os.path.join(a.logs, "collector.db"))
    for x in (collect_path, collect_path + "-wal", collect_path + "-shm"):
        if os.path.exists(x):
            os.remove(x)
    collect_db = collector_db.open_db("sqlite:///" + collect_path)
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
            check_collector_ingest(c, collect_db)
            if qemu_tap.failed == failed_before:  # keep what a failed case left, for a look
                shutil.rmtree(c.out, ignore_errors=True)
    print("1..%d" % qemu_tap.n)
    return 1 if qemu_tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
