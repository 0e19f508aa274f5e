"""The hosted run against the firmware's (tests/qemu_checks.py check "hosted_keys"): pmucal-host
runs the same phases on Linux as pmucal.efi under QEMU, so every file both write has the same
schema version and the same members. The check runs pmucal-host beside the case's results
folder and compares, file by file, the schema string and the key paths of each JSON file (every
member at every depth, arrays taken as the union of their elements) and the column header of
each CSV file. A top-level section is compared when both files carry it; one that only the
firmware's carries must be the output of a phase the hosted run does not do (HOSTED_LACKS), and
the hosted file carries nothing the firmware's lacks."""
import csv
import json
import os
import subprocess
import tempfile

from qemu_tap import ROOT, diag, tap

# The hosted run: quick like the case's profile, small, on the first CPU; the remote sections
# of the table come from its --with-* runs, tlb-table.json and tlb-curve.csv from --with-tlb.
HOSTED_ARGS = ["--quick", "--max-mib", "1", "--cpu", "0", "--with-c2c", "--with-numa",
               "--with-tlb"]

# Files both runs must write, so that the comparison cannot pass by leaving one out.
BOTH_WRITE = ["latency-table.json", "latency-curve.csv", "tlb-table.json", "tlb-curve.csv"]

# Sections of the firmware's latency table whose phase pmucal-host does not run in the latency
# mode, and why (processors.json is none of its runs').
HOSTED_LACKS = {
    "latency-table.json": {
        "core_types": "level sets measured on the other processors the processors phase parks",
    },
}


def one_node(doc, numa_key):
    """True when @doc's NUMA matrix (under @numa_key, or at the top) is 1 x 1."""
    m = (doc.get(numa_key) if numa_key else doc) or {}
    return len(m.get("matrix") or []) == 1


# Members written only where the data has them (docs/numa.md: a cell's ratio and SLIT ratio
# exist when it was compared with SLIT, i.e. for a remote cell), each with when the hosted file
# may lack them: this machine may have one node.
CONDITIONAL = {
    "latency-table.json": {
        "/numa/matrix[][]/ratio": lambda host: one_node(host, "numa"),
        "/numa/matrix[][]/slit_ratio": lambda host: one_node(host, "numa"),
    },
    "numa-matrix.json": {
        "/matrix[][]/ratio": lambda host: one_node(host, None),
        "/matrix[][]/slit_ratio": lambda host: one_node(host, None),
    },
}


def key_paths(x, p=""):
    """Every member's path in @x ("/method/clock"), array elements merged ("/levels[]/name")."""
    out = set()
    if isinstance(x, dict):
        for k, v in x.items():
            out.add(p + "/" + k)
            out |= key_paths(v, p + "/" + k)
    elif isinstance(x, list):
        for v in x:
            out |= key_paths(v, p + "[]")
    return out


def array_paths(x, p=""):
    """The paths of @x's arrays ("/curves[]/levels") and, of those, the ones with an element
    somewhere (an array path names every array at that place, elements merged)."""
    every, filled = set(), set()
    if isinstance(x, dict):
        for k, v in x.items():
            e, f = array_paths(v, p + "/" + k)
            every |= e
            filled |= f
    elif isinstance(x, list):
        every.add(p)
        if x:
            filled.add(p)
        for v in x:
            e, f = array_paths(v, p + "[]")
            every |= e
            filled |= f
    return every, filled


def unseen(paths, other):
    """Of @paths, those under an array that is empty wherever it occurs in @other: its elements'
    members cannot be compared (a hosted TLB curve with no level found has levels [])."""
    every, filled = array_paths(other)
    empty = every - filled
    return {p for p in paths if any(p.startswith(a + "[]/") for a in empty)}


def csv_header(path):
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if row and not row[0].startswith("#"):
                return row
    return None


def compare_json(name, fw_path, host_path):
    """Differences between the two JSON files, as lines; empty when they agree."""
    with open(fw_path) as f:
        fw = json.load(f)
    with open(host_path) as f:
        host = json.load(f)
    why = []
    if fw.get("schema") != host.get("schema"):
        why.append("schema: firmware %r, hosted %r" % (fw.get("schema"), host.get("schema")))
    lacks = HOSTED_LACKS.get(name, {})
    for k in sorted(set(fw) | set(host)):
        if k not in host:
            if k not in lacks:
                why.append("/%s: only in the firmware's file" % k)
            continue
        if k not in fw:
            why.append("/%s: only in the hosted file" % k)
            continue
        a, b = key_paths(fw[k], "/" + k), key_paths(host[k], "/" + k)
        cond = CONDITIONAL.get(name, {})
        a = {p for p in a if not (p in cond and p not in b and cond[p](host))}
        a -= unseen(a, {k: host[k]})
        b -= unseen(b, {k: fw[k]})
        why += ["%s: only in the firmware's file" % p for p in sorted(a - b)]
        why += ["%s: only in the hosted file" % p for p in sorted(b - a)]
    return why


def check_hosted_keys(c):
    """pmucal-host writes the files the firmware wrote with the same schemas and members."""
    host = os.environ.get("PMUCAL_HOST_PLAIN", os.path.join(ROOT, "build", "host", "pmucal-host"))
    if not c.results:
        tap(False, "%s: hosted run compared (no results folder to compare with)" % c.name)
        return
    if not os.access(host, os.X_OK):
        tap(False, "%s: hosted run compared (%s not built: make host)" % (c.name, host))
        return
    out = tempfile.mkdtemp(prefix="hosted-", dir=c.out)
    p = subprocess.run([host] + HOSTED_ARGS + ["--out", out], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    with open(os.path.join(c.logs, "qemu-%s.hosted.log" % c.name), "w") as f:
        f.write(p.stdout)
    if not tap(p.returncode == 0, "%s: pmucal-host %s exits 0 (%d)"
               % (c.name, " ".join(HOSTED_ARGS), p.returncode)):
        diag(p.stdout.splitlines()[-12:])
        return
    both = sorted(set(os.listdir(out)) & set(os.listdir(c.results)))
    tap(all(f in both for f in BOTH_WRITE),
        "%s: hosted and firmware runs both wrote %s (%s at least)"
        % (c.name, ", ".join(both) or "nothing", ", ".join(BOTH_WRITE)))
    for name in both:
        fw_path, host_path = os.path.join(c.results, name), os.path.join(out, name)
        if name.endswith(".json"):
            why = compare_json(name, fw_path, host_path)
            what = "same schema and members"
        elif name.endswith(".csv"):
            a, b = csv_header(fw_path), csv_header(host_path)
            why = [] if a == b else ["header: firmware %s, hosted %s" % (a, b)]
            what = "same columns"
        else:
            continue
        lacking = sorted(k for k in HOSTED_LACKS.get(name, {}) if k not in json.load(
            open(host_path))) if name.endswith(".json") else []
        if tap(not why, "%s: %s: hosted and firmware files have the %s%s" % (
                c.name, name, what, " (the firmware's alone carries %s: phases the hosted "
                "latency run does not do)" % ", ".join(lacking) if lacking else "")):
            continue
        diag(why)
