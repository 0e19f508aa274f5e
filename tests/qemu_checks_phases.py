"""QEMU case checks of the measuring phases on x86-64: the TLB tables and their page-table
self-check, the PMU validation profile, the latency table (default and 4 KiB pages) and the
sampling phase (used by tests/qemu_checks.py)."""
import os
import re
import subprocess

from qemu_tap import ROOT, schema_is, tap


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
    # ... but an estimate of the ratio from the dependent-add chain, before and after the
    # sweep, its mean between the two runs; a reader takes it as the table's ratio, estimated.
    est = cc.get("estimate") or {}
    lo, hi, r = est.get("core_per_tsc_min"), est.get("core_per_tsc_max"), est.get("core_per_tsc")
    tap(est.get("method") == "dependent-add chain" and all(isinstance(x, (int, float)) for x in (lo, hi, r))
        and 0 < lo <= r <= hi and re.search(r"core clock check \(dependent adds.*the table's "
                                           r"method\.core_clock\.estimate\): [0-9.]+ core cycles "
                                           r"per TSC tick before the sweep, [0-9.]+ after",
                                           c.serial) is not None,
        "%s: the core:TSC ratio estimated by the add chain: %r (%r..%r)" % (c.name, r, lo, hi))
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
    """The sampling phase (app/x86/sampling.c) under TCG: no IBS, PEBS or LBR, so every check of
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
