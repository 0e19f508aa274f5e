"""QEMU case checks of the AArch64 boots: inventory, saved files, the fault self-test and the
PMUv3 validation suite under -icount (used by tests/qemu_checks.py)."""
import json
import os
import re

from qemu_tap import tap


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
    for what in (r"UDF #0 \(undefined instruction\): caught ESR_EL1.EC 0x00",
                 r"load from an unmapped address: caught ESR_EL1.EC 0x25",
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


def check_psci_arm64(c):
    """AAVMF has no MP services: the processors are the MADT's GICC entries, started with PSCI
    CPU_ON over HVC (QEMU virt without EL2/EL3), each parked AP reports its own MPIDR, C2C
    runs on the pair with the AArch64 clock, and every AP goes back with CPU_OFF (a join that
    fails prints a WARN)."""
    m = re.search(r"^CPUs        : (\d+) logical, (\d+) enabled \(PSCI (\d+)\.(\d+) CPU_ON over HVC, "
                  r"processors from the MADT\)", c.serial, re.M)
    tap(m is not None and int(m.group(1)) == c.cpus and (int(m.group(3)), int(m.group(4))) >= (0, 2),
        "%s: %d processors listed from the MADT and started with PSCI CPU_ON over HVC (%s)"
        % (c.name, c.cpus, m.group(0) if m else "no such line"))
    p = c.result_json("processors.json") or {}
    own = sorted((x["index"], x.get("apic_id"), x.get("topology_source"))
                 for x in p.get("processors", []) if x["state"] in ("bsp", "parked"))
    tap(own == [(i, i, "MPIDR_EL1") for i in range(c.cpus)],
        "%s: every processor described itself from its own MPIDR_EL1 %s" % (c.name, own))
    j = c.result_json("c2c.json") or {}
    meth = j.get("method", {})
    tap(meth.get("clock") == "cntvct" and meth.get("topology_source") == "each CPU's own MPIDR_EL1",
        "%s: c2c timed with CNTVCT_EL0, pairs from each CPU's MPIDR (%s, %s)"
        % (c.name, meth.get("clock"), meth.get("topology_source")))
    stuck = re.findall(r"^WARN: .*(?:did not return to the platform|did not power off|never parked|"
                       r"could not be started|left out of the run).*$", c.serial, re.M)
    tap(not stuck, "%s: every AP parked, answered and went back to the firmware%s"
        % (c.name, "" if not stuck else ": %s" % stuck))


def check_crashed_arm64(c):
    tap(c.rc == c.status, "%s: exit status %d (expected %d, not a timeout)" % (c.name, c.rc, c.status))
    tap(re.search(r"^FATAL: unexpected synchronous exception at PC 0x[0-9a-f]+: ESR_EL1 "
                  r"0x[0-9a-f]+ \(EC 0x0\)", c.serial, re.M) is not None,
        "%s: the crash is reported with its PC and exception class" % c.name)
    tap("SUMMARY:" not in c.serial, "%s: nothing ran after the crash" % c.name)
