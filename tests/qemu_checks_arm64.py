"""QEMU case checks of the AArch64 boots: inventory, saved files, the fault self-test, the
PMUv3 validation suite under -icount, and the latency and TLB calibrations timed with the
generic timer (used by tests/qemu_checks.py)."""
import json
import os
import re
import shutil
import subprocess
import tempfile

from qemu_tap import ROOT, diag, schema_is, tap, why_status

# Under -icount shift=0 QEMU retires one instruction per ns of virtual time, its cycle counter
# runs at 1 GHz of that time and the generic timer at CNTFRQ (62.5 MHz on virt). The chase
# retires 34 instructions per 32 loads (bench/arm64/kernel_chase.c), so its figure is the
# emulator's: 34/32 core cycles per load, whatever the working set (TCG models no caches).
ICOUNT_CORE_HZ = 1000000000
CHASE_CYC_PER_LOAD = 34 / 32


def check_inventory_arm64(c):
    """inventory.json from the AArch64 build: arch, the PMUv3 from the ID registers, and the
    topology QEMU was asked for as the MADT (GICC) and SRAT (GICC affinity) give it."""
    inv = c.result_json("inventory.json")
    if not tap(inv is not None and re.match(r"pmucal\.inventory/1(\.\d+)?$", inv.get("schema", ""))
               and inv.get("arch") == "aarch64",
               "%s: inventory.json parses, schema pmucal.inventory/1.x, arch aarch64" % c.name):
        return
    a = inv.get("arm64") or {}
    tap(a.get("pmuver", 0) >= 1 and a.get("event_counters", 0) >= 1,
        "%s: PMUv3 found (%s, %s event counters)" % (c.name, a.get("pmu"),
                                                     a.get("event_counters")))
    tap(a.get("spe") == 0 and a.get("brbe") == 0, "%s: QEMU has neither SPE nor BRBE" % c.name)
    tap(inv["tsc"]["source"] == "cntfrq" and inv["tsc"]["hz"] > 0,
        "%s: generic timer frequency %d Hz" % (c.name, inv["tsc"]["hz"]))
    tap(inv["cpus"]["madt_enabled"] == c.cpus, "%s: MADT GICC: %d enabled processors (asked %d)"
        % (c.name, inv["cpus"]["madt_enabled"], c.cpus))
    want_nodes = max(c.nodes, 1)
    tap(inv["numa"]["nodes"] == want_nodes, "%s: %d NUMA nodes (asked %d)"
        % (c.name, inv["numa"]["nodes"], want_nodes))
    for node in inv["numa"]["node_list"] if c.nodes else []:
        k = node["node"]
        want = list(range(k * c.cpus // c.nodes, (k + 1) * c.cpus // c.nodes))
        tap(sorted(node["apic_ids"]) == want, "%s: node %d has processors %s (want %s)"
            % (c.name, k, sorted(node["apic_ids"]), want))


def check_saved_arm64(c):
    tap(c.results is not None, "%s: one results folder copied out" % c.name)
    if not c.results:
        return
    files = set(os.listdir(c.results))
    for f in ("inventory.json", "report.txt", "idregs.txt"):
        tap(f in files, "%s: %s saved" % (c.name, f))


def check_selftest_arm64(c):
    for what in (r"UDF #0 \(undefined instruction\): caught ESR_EL[12].EC 0x00",
                 r"load from an unmapped address: caught ESR_EL[12].EC 0x25",
                 r"PMSIDR_EL1 \(feature absent\) reported unsupported",
                 r"harness carried on after \d+ deliberate faults"):
        tap(re.search(r"^PASS: selftest: fault-recovery: " + what, c.serial, re.M) is not None,
            "%s: selftest %s" % (c.name, re.sub(r"\\(.)", r"\1", what).replace("d+", "N")))


# Counting checks decided by QEMU's PMU under -icount: name -> the measured value must equal
# the expected one (tolerance 0), or lie within the tolerance the line states.
ARM64_EXACT = ("insts-loop", "el-filter-el1-only", "el-filter-el0-only", "sw-incr",
               "counter-disabled", "skid-deterministic")
ARM64_WITHIN = ("cycles-vs-timer", "pmi-count", "caliper-scale")


def check_pmu_arm64(c):
    """The validation suite on QEMU's counting PMU: every PASS line a real counter decided,
    measured = expected for the exact ones, within tolerance for the rest."""
    got = {}
    for m in re.finditer(r"^(PASS|FAIL): pmu: (?:pmu-validate|sampling): ([\w-]+) measured=(\d+) "
                         r"expected=(\d+) tolerance=(\d+)", c.serial, re.M):
        got[m.group(2)] = (m.group(1), int(m.group(3)), int(m.group(4)), int(m.group(5)))
    for name in ARM64_EXACT:
        v = got.get(name)
        tap(v is not None and v[0] == "PASS" and v[1] == v[2] and v[3] == 0,
            "%s: %s measured = expected (%s)" % (c.name, name, v))
    for name in ARM64_WITHIN:
        v = got.get(name)
        tap(v is not None and v[0] == "PASS" and abs(v[1] - v[2]) <= v[3],
            "%s: %s within its tolerance (%s)" % (c.name, name, v))
    tap(re.search(r"^PASS: pmu: sampling: skid-in-kernel: (\d+) of \1 ", c.serial, re.M)
        is not None, "%s: every sampled PC inside the skid kernel" % c.name)
    for what in ("spe: ID_AA64DFR0_EL1.PMSVer = 0", "brbe: ID_AA64DFR0_EL1.BRBE = 0"):
        tap(re.search(r"^SKIP: pmu: sampling: " + re.escape(what), c.serial, re.M) is not None,
            "%s: %s SKIPs with its reason" % (c.name, what.split(":")[0]))
    tap(re.search(r"^SKIP: pmu: aliases: branches: BR_RETIRED \(0x0021\) not implemented", c.serial,
                  re.M) is not None,
        "%s: an alias PMCEID lacks is a SKIP with the reason" % c.name)
    # One suite and one sampling run, the shared ones of x86-64 through pmu/pmu.h on the
    # PMUv3 (pmu/arm64/pmu_common.c): insts-loop is the shared row (above), checks the PMUv3
    # cannot decide SKIP with the reason, and the PMI route is tested once.
    tap(len(re.findall(r"^(?:PASS|FAIL): pmu: (?:\w+: )*pmu-validate: insts-loop ", c.serial,
                       re.M)) == 1,
        "%s: insts-loop decided once, by the one suite" % c.name)
    tap(re.search(r"^SKIP: pmu: pmu-validate: cycles-vs-tsc: no APERF/MPERF on AArch64",
                  c.serial, re.M) is not None,
        "%s: shared suite: cycles-vs-tsc SKIPs with the reason" % c.name)
    tap(len(re.findall(r"^PASS: pmu: sampling: pmi-route: self-NMI through the PMI route "
                       r".* reached the handler 1 time", c.serial, re.M)) == 1 and
        len(re.findall(r"^\w+: pmu: (?:\w+: )*sampling: pmi-route", c.serial, re.M)) == 1 and
        re.search(r"^SKIP: pmu: sampling: skid: PMCEID0_EL0/PMCEID1_EL0 say", c.serial,
                  re.M) is not None,
        "%s: one overflow-sampling run: the PMI route reached the handler, tested once; the "
        "branches skid run SKIPs (QEMU implements no BR_RETIRED)" % c.name)
    v = c.result_json("pmu-validation.json")
    verdicts = {x.get("check"): x.get("verdict") for x in (v or {}).get("checks", [])}
    tap(schema_is(v, "pmu-validation") and v.get("event_table") == "arm-common" and
        verdicts.get("insts-loop") == "PASS" and "FAIL" not in verdicts.values(),
        "%s: pmu-validation.json from the one suite: arm-common events, insts-loop PASS, "
        "no FAIL (%s)" % (c.name, verdicts))


def check_psci_arm64(c):
    """AAVMF has no MP services: the processors are the MADT's GICC entries, started with PSCI
    CPU_ON over HVC (QEMU virt without EL2/EL3; over SMC with virtualization=on, where HVC
    belongs to EL2), each parked AP reports its own MPIDR, C2C runs on the pair with the
    AArch64 clock, and every AP goes back with CPU_OFF (a join that fails prints a WARN)."""
    conduit = "SMC" if _at_el2(c) else "HVC"
    m = re.search(r"^CPUs        : (\d+) logical, (\d+) enabled \(PSCI (\d+)\.(\d+) CPU_ON over %s, "
                  r"processors from the MADT\)" % conduit, c.serial, re.M)
    tap(m is not None and int(m.group(1)) == c.cpus and (int(m.group(3)), int(m.group(4))) >= (0, 2),
        "%s: %d processors listed from the MADT and started with PSCI CPU_ON over %s (%s)"
        % (c.name, c.cpus, conduit, m.group(0) if m else "no such line"))
    p = c.result_json("processors.json") or {}
    own = sorted((x["index"], x.get("apic_id"), x.get("topology_source"))
                 for x in p.get("processors", []) if x["state"] in ("bsp", "parked"))
    tap(own == [(i, i, "PPTT") for i in range(c.cpus)] and
        re.search(r"^PASS: cpus: %d of %d processors report the MPIDR affinity the MADT \(PSCI\) "
                  r"gives them" % (c.cpus, c.cpus), c.serial, re.M) is not None,
        "%s: every processor reported its own MPIDR_EL1 as the MADT says, its topology from "
        "QEMU's PPTT %s"
        % (c.name, own))
    j = c.result_json("c2c.json") or {}
    meth = j.get("method", {})
    tap(meth.get("clock") == "cntvct" and meth.get("topology_source") == "the firmware's PPTT",
        "%s: c2c timed with CNTVCT_EL0, pairs classed by the PPTT (%s, %s)"
        % (c.name, meth.get("clock"), meth.get("topology_source")))
    stuck = re.findall(r"^WARN: .*(?:did not return to the platform|did not power off|never parked|"
                       r"could not be started|left out of the run).*$", c.serial, re.M)
    tap(not stuck, "%s: every AP parked, answered and went back to the firmware%s"
        % (c.name, "" if not stuck else ": %s" % stuck))


# QEMU's virt machine puts RAM at 1 GiB; run-qemu.sh splits it evenly between the nodes.
VIRT_RAM_BASE = 0x40000000


def check_numa_arm64(c):
    """The NUMA phase on AArch64: each node's chase buffer lies inside that node's memory
    (placed through SRAT's ranges and the UEFI memory map, every page checked), is chased by
    that node's own CPU, and the figures are in generic-timer ticks."""
    j = c.result_json("numa-matrix.json") or {}
    inv = c.result_json("inventory.json") or {}
    meth = j.get("method", {})
    tap(meth.get("clock") == "cntvct" and meth.get("tsc_hz") == inv.get("tsc", {}).get("hz"),
        "%s: numa timed with CNTVCT_EL0 at CNTFRQ (%s, %s Hz)"
        % (c.name, meth.get("clock"), meth.get("tsc_hz")))
    per_node = c.mem * 2**20 // max(c.nodes, 1)
    nodes = j.get("nodes", [])
    bad = []
    for n in nodes:
        k, phys = n["node"], int(n["buffer_phys"] or "0", 16)
        lo = VIRT_RAM_BASE + k * per_node
        if not (lo <= phys and phys + meth.get("working_set_bytes", 0) <= lo + per_node) or \
                n["cpu_apic_id"] != k * c.cpus // max(c.nodes, 1):
            bad.append((k, hex(phys), n["cpu_apic_id"]))
    tap(len(nodes) == max(c.nodes, 1) and not bad,
        "%s: every node's buffer inside its own memory, chased by its own CPU%s"
        % (c.name, "" if not bad else ": %s" % bad))


def check_crashed_arm64(c):
    if not tap(c.rc == c.status, "%s: exit status %d (expected %d, not a timeout)"
               % (c.name, c.rc, c.status)):
        diag(why_status(c))
    tap(re.search(r"^FATAL: unexpected synchronous exception at PC 0x[0-9a-f]+: ESR_EL1 "
                  r"0x[0-9a-f]+ \(EC 0x0\)", c.serial, re.M) is not None,
        "%s: the crash is reported with its PC and exception class" % c.name)
    tap("SUMMARY:" not in c.serial, "%s: nothing ran after the crash" % c.name)


def _core_clock_ok(c, hz, ratio, source):
    """The core clock under -icount: PMCCNTR_EL0 against CNTVCT_EL0, 1 GHz of virtual time."""
    tsc_hz = (c.result_json("inventory.json") or {}).get("tsc", {}).get("hz")
    return (ratio is not None and hz is not None and tsc_hz and
            abs(hz - ICOUNT_CORE_HZ) <= ICOUNT_CORE_HZ // 50 and
            abs(ratio - ICOUNT_CORE_HZ / tsc_hz) <= ICOUNT_CORE_HZ / tsc_hz / 50 and
            "PMCCNTR_EL0" in (source or "") and "CNTVCT_EL0" in (source or ""))


def check_latency_arm64(c):
    """The latency phase on AArch64: windows timed with the generic timer, core cycles from the
    PMU's cycle counter (non-null under -icount), the table valid and read back by
    pmucal-table, and the chase's figure the emulator's exact one."""
    t = c.result_json("latency-table.json")
    if not tap(schema_is(t, "latency-table"),
               "%s: latency-table.json parses, schema pmucal.latency-table/1.x" % c.name):
        return
    m, cc = t["method"], t["method"].get("core_clock", {})
    tap(_core_clock_ok(c, t["machine"].get("core_hz"), cc.get("core_per_tsc"), cc.get("source"))
        and t["machine"].get("tsc_hz") == (c.result_json("inventory.json") or {}).get("tsc", {})
        .get("hz"),
        "%s: core clock PMCCNTR_EL0 against CNTVCT_EL0: %s Hz, %s cycles per tick (%s)"
        % (c.name, t["machine"].get("core_hz"), cc.get("core_per_tsc"), cc.get("source")))
    tap(all(l.get("core_cycles") and l.get("tsc_ticks") and l.get("ns") for l in t["levels"]),
        "%s: every level has core-cycle, tick and ns figures (none null)" % c.name)
    p50 = [l["core_cycles"]["p50"] for l in t["levels"] if l.get("core_cycles")]
    tap(p50 and all(abs(v - CHASE_CYC_PER_LOAD) <= CHASE_CYC_PER_LOAD * 0.03 for v in p50),
        "%s: chase p50 %s core cycles per load = 34/32 (the emulator's: one instruction per "
        "cycle under -icount), within 3 %%" % (c.name, p50))
    tap(m.get("page_tables") == "firmware identity map" and m.get("prefetchers") == "unchanged",
        "%s: firmware identity map, prefetchers unchanged (no AArch64 control)" % c.name)
    # QEMU's -cpu max has MIDR implementer 0x00 (software): the table says the figures are
    # an emulator's, as the x86-64 table does under TCG.
    tap(t["machine"].get("hypervisor") is True and "NO CACHE HIERARCHY VISIBLE" in c.serial,
        "%s: table says hypervisor (emulator), flat curve said on the console" % c.name)
    tap(re.search(r"^INFO: latency: clock: windows timed in CNTVCT_EL0 ticks \(\d+ Hz\); core "
                  r"clock from PMU cycle counter PMCCNTR_EL0", c.serial, re.M) is not None and
        re.search(r"^INFO: latency: windows: interrupts masked", c.serial, re.M) is not None,
        "%s: console names the generic timer and the cycle counter, interrupts masked" % c.name)
    tap(re.search(r"^FAIL: latency", c.serial, re.M) is None, "%s: no latency check failed" % c.name)
    try:
        rows = open(os.path.join(c.results, "latency-curve.csv")).read().splitlines()
    except (OSError, TypeError):
        rows = []
    pts = [r for r in rows[1:] if re.match(r"^[0-9]+,", r)]
    tap(len(pts) >= 20 and len(pts) == m.get("points"),
        "%s: latency-curve.csv has %d points (>= 20, as many as the table says)" % (c.name, len(pts)))
    tool = os.path.join(ROOT, "build", "host", "pmucal-table")
    if os.access(tool, os.X_OK):
        p = subprocess.run([tool, "check", os.path.join(c.results, "latency-table.json")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        tap(p.returncode == 0, "%s: pmucal-table check accepts it (%s)"
            % (c.name, p.stdout.strip().splitlines()[-1:] or p.returncode))
    else:
        tap(False, "%s: pmucal-table check: %s not built (make host)" % (c.name, tool))


def check_tlb_arm64(c):
    """The TLB phase on AArch64, on the firmware's identity map: the 4 KiB dTLB sweep measured,
    what the map cannot give SKIPped with its reason, the table valid with a core clock."""
    t = c.result_json("tlb-table.json")
    if not tap(schema_is(t, "tlb"), "%s: tlb-table.json parses, schema pmucal.tlb/1.x" % c.name):
        return
    curves = t.get("curves", [])
    tap(any(x["side"] == "dtlb" and x["page_bytes"] == 4096 and x["points"] >= 8 for x in curves),
        "%s: a dtlb curve with 4 KiB pages (%s)" % (c.name,
                                                    [(x["side"], x["page_bytes"], x["points"])
                                                     for x in curves]))
    ck = t.get("clock", {})
    tap(ck.get("figures") == "tsc_ticks" and
        _core_clock_ok(c, ck.get("core_hz"), ck.get("core_per_tsc"), ck.get("core_source")) and
        all(k.get("lat_core_cycles") is not None for x in curves for k in x["classes"]),
        "%s: tlb-table.json clock: generic-timer ticks with core cycles from PMCCNTR_EL0 (%s)"
        % (c.name, ck.get("core_per_tsc")))
    for what in (r"itlb 4 KiB near: the iTLB jump chain is x86-64 machine code",
                 r"dtlb 1 GiB near: 1 GiB pages: "):
        tap(re.search(r"^SKIP: tlb: " + what, c.serial, re.M) is not None,
            "%s: %s SKIPs with its reason" % (c.name, what.split(":")[0]))
    tap(re.search(r"^FAIL: tlb", c.serial, re.M) is None, "%s: no TLB check failed" % c.name)
    lat = c.result_json("latency-table.json")
    tap(lat is not None and lat.get("tlb", {}).get("schema", "").startswith("pmucal.tlb/1.") and
        len(lat["tlb"].get("curves", [])) == len(curves),
        "%s: latency-table.json carries the TLB table as its tlb member" % c.name)


# ---- UEFI at EL2 (QEMU -machine virtualization=on) against the same boot at EL1 ----
EL2_ARGS = ["-machine", "virtualization=on"]
# Serial logs of EL1 boots in this session, by their run-qemu.sh arguments (check_remember_arm64).
EL1_SERIALS = {}


def _at_el2(c):
    return any(EL2_ARGS == c.args[i:i + 2] for i in range(len(c.args)))


def _el1_args(c):
    """The case's arguments without the EL2 switch (and without a "--" left empty)."""
    a = list(c.args)
    for i in range(len(a) - 1):
        if a[i:i + 2] == EL2_ARGS:
            del a[i:i + 2]
            break
    return a[:-1] if a and a[-1] == "--" else a


def check_remember_arm64(c):
    """Keep this EL1 boot's serial log for an EL2 case with the same arguments."""
    EL1_SERIALS[tuple(c.args)] = c.serial
    tap(re.search(r"^INFO: inventory: arm64: running at EL1\r?$", c.serial, re.M) is not None,
        "%s: the console says the harness runs at EL1" % c.name)


def _el1_serial(c):
    """The EL1 twin of EL2 case c: from this session, else booted here with c's arguments."""
    args = _el1_args(c)
    if tuple(args) in EL1_SERIALS:
        return EL1_SERIALS[tuple(args)], "this session's case with the same arguments"
    out = tempfile.mkdtemp(prefix="qemu-%s-el1-" % c.name, dir=os.path.join(ROOT, "build"))
    try:
        subprocess.run([os.path.join(ROOT, "run-qemu.sh"), "--quiet", "--timeout", str(c.timeout),
                        "--out", out] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(out, "serial.log"), errors="replace") as f:
            return f.read(), "booted for this check"
    except OSError:
        return "", "the EL1 boot left no serial log"
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _verdicts(serial):
    """(PASS/FAIL lines decided, {check name: measured value})."""
    lines = [l.rstrip("\r") for l in serial.splitlines()]
    decided = sum(1 for l in lines if l.startswith(("PASS: ", "FAIL: ")))
    measured = {}
    for l in lines:
        m = re.match(r"^(?:PASS|FAIL): ([\w: -]+?) measured=(\d+) ", l)
        if m:
            measured[m.group(1)] = int(m.group(2))
    return decided, measured


def check_el2_arm64(c):
    """UEFI at EL2 as Arm servers boot it: the inventory and the console say EL2, every
    processor (the PSCI-started one too) runs at EL2, nothing SKIPs for the exception level,
    and against the same boot at EL1 at least as many checks are decided, with every count
    measured identical (-icount makes both runs retire the same instructions)."""
    inv = c.result_json("inventory.json") or {}
    tap((inv.get("arm64") or {}).get("current_el") == 2 and
        re.search(r"^INFO: inventory: arm64: running at EL2 ", c.serial, re.M) is not None,
        "%s: inventory arm64.current_el = 2 and the console says EL2 (%s)"
        % (c.name, (inv.get("arm64") or {}).get("current_el")))
    tap(re.search(r"^PASS: cpus: %d of %d processors run at EL2, the boot processor's"
                  % (c.cpus, c.cpus), c.serial, re.M) is not None and
        len(re.findall(r"^INFO: cpus: processor \d+ \(MPIDR affinity 0x[0-9a-f]+\) runs at EL2\r?$",
                       c.serial, re.M)) == c.cpus,
        "%s: each of the %d processors (PSCI-started ones too) reports EL2" % (c.name, c.cpus))
    el_skips = re.findall(r"^SKIP: .*(?:exception level|not running at EL|EL1 only).*$",
                          c.serial, re.M)
    tap(not el_skips, "%s: nothing SKIPs for the exception level%s"
        % (c.name, "" if not el_skips else ": %s" % el_skips[:3]))
    tap(re.search(r"^PASS: selftest: fault-recovery: UDF #0 .*caught ESR_EL2\.EC 0x00", c.serial,
                  re.M) is not None,
        "%s: fault recovery through the harness's VBAR_EL2 vectors" % c.name)
    serial1, how = _el1_serial(c)
    d1, m1 = _verdicts(serial1)
    d2, m2 = _verdicts(c.serial)
    tap(d1 > 0 and d2 >= d1, "%s: %d checks decided at EL2, %d at EL1 (%s)" % (c.name, d2, d1, how))
    diff = {k: (m1[k], m2.get(k)) for k in m1 if m2.get(k) != m1[k]}
    tap(m1 and not diff, "%s: the %d measured counts of the EL1 boot are identical at EL2%s"
        % (c.name, len(m1), "" if not diff else ": %s" % diff))


def check_no_icount_arm64(c):
    """QEMU without -icount: the harness says so from its own measurement (INST_RETIRED does
    not count), the clock checks are decided as the bounds that still hold, what depends on
    instruction-exact time SKIPs with the reason, nothing FAILs, and no line claims -icount."""
    tap(re.search(r"^INFO: pmu: pmu-validate: QEMU without -icount: INST_RETIRED does not count",
                  c.serial, re.M) is not None,
        "%s: the harness found -icount off by measurement" % c.name)
    tap(re.search(r"^PASS: pmu: pmu-validate: cycles-vs-timer: \d+ cycles counted inside a span of "
                  r"\d+ timer ticks, at most \d+ \(QEMU without -icount", c.serial, re.M) is not None,
        "%s: cycles-vs-timer decided as the bound of the nested spans" % c.name)
    tap(re.search(r"^PASS: pmu: sampling: pmi-count: \d+ PMIs, at most \d+", c.serial, re.M)
        is not None and
        re.search(r"^SKIP: pmu: sampling: pmi-count, caliper-scale, skid-in-kernel: QEMU without "
                  r"-icount raises the overflow interrupt from a host timer", c.serial, re.M)
        is not None,
        "%s: pmi-count bounded, the rest of sampling SKIPs with the reason" % c.name)
    claims = [l for l in c.serial.splitlines()
              if re.search(r"under -icount|QEMU -icount|with -icount", l)]
    tap(not claims, "%s: no line says -icount is on%s"
        % (c.name, "" if not claims else ": %s" % claims[:2]))
    tap(re.search(r"^FAIL:", c.serial, re.M) is None and c.rc == 0,
        "%s: nothing FAILs, exit %d" % (c.name, c.rc))


def _smp(c):
    """The -smp topology of the case's QEMU arguments: {"sockets": 2, "clusters": 2, ...}."""
    args = c.args[c.args.index("--") + 1:] if "--" in c.args else []
    spec = args[args.index("-smp") + 1] if "-smp" in args else ""
    out = {"sockets": 1, "clusters": 1, "cores": 1, "threads": 1}
    for part in spec.split(",")[1:]:
        k, _, v = part.partition("=")
        out[k] = int(v)
    return out


def check_pptt_topology_arm64(c):
    """QEMU's PPTT for the case's -smp sockets/clusters/cores (virt numbers every vCPU's MPIDR
    Aff0 0..N-1 whatever the topology, so only the PPTT can say it): every processor's package
    and cluster follow -smp, the PPTT describes no caches (QEMU 7.2) so there is no LLC domain,
    and every c2c pair is classed by it: same-cluster, same-package (no L3 described) or
    other-package; each pair has a ping-pong figure beside HIT/HITM (the files are validated
    against docs/schemas for every case)."""
    smp = _smp(c)
    per_cluster = smp["cores"] * smp["threads"]
    per_socket = per_cluster * smp["clusters"]
    p = c.result_json("processors.json") or {}
    procs = {x["index"]: x for x in p.get("processors", []) if x.get("apic_id") is not None}
    tap(sorted(procs) == list(range(c.cpus)) and
        all(x.get("topology_source") == "PPTT" and x.get("cluster_kind") == "cluster"
            for x in procs.values()),
        "%s: all %d processors take their topology from the PPTT, in clusters" % (c.name, c.cpus))
    bad = [(a, b) for a in procs for b in procs
           if (procs[a]["package"] == procs[b]["package"]) != (a // per_socket == b // per_socket)
           or (procs[a]["cluster"] == procs[b]["cluster"]) != (a // per_cluster == b // per_cluster)
           or (procs[a]["core"] == procs[b]["core"]) != (a == b)]
    tap(procs and not bad, "%s: packages of %d and clusters of %d processors, as -smp %s "
        "asked%s" % (c.name, per_socket, per_cluster, smp, "" if not bad else ": %s" % bad[:4]))
    tap(all(x["llc_level"] == 0 for x in procs.values()) and
        re.search(r"^INFO: cpus: topology: the PPTT describes no caches", c.serial, re.M),
        "%s: QEMU 7.2's PPTT has no cache structures: no last-level-cache domain" % c.name)
    tap(not re.search(r"^WARN: cpus: topology:", c.serial, re.M),
        "%s: no MPIDR fallback WARN (the PPTT was used)" % c.name)
    j = c.result_json("c2c.json") or {}
    pairs = j.get("c2c", {}).get("pairs", [])

    def want(a, b):
        if a // per_socket != b // per_socket:
            return "other-package"
        return "same-cluster" if a // per_cluster == b // per_cluster else "same-package"
    wrong = [(x["owner_cpu"], x["reader_cpu"], x["topology"]) for x in pairs
             if x["topology"] != want(x["owner_cpu"], x["reader_cpu"])]
    tap(len(pairs) == c.cpus * (c.cpus - 1) and not wrong and
        j.get("method", {}).get("topology_source") == "the firmware's PPTT",
        "%s: %d c2c pairs classed by the PPTT%s" % (c.name, len(pairs),
                                                   "" if not wrong else ": %s" % wrong[:4]))
    tap(all((x.get("pingpong") or {}).get("p50_tsc") for x in pairs) and
        {k["topology"] for k in j.get("c2c", {}).get("classes", [])} ==
        {"same-cluster", "same-package", "other-package"},
        "%s: every pair has a ping-pong figure; the classes are same-cluster, same-package, "
        "other-package" % c.name)
