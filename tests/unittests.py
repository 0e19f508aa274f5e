#!/usr/bin/env python3
"""Read tests/unittests.cfg, the table of the host unit tests' link settings and run limits.

    tests/unittests.py --make OUT     write the make variables TEST_MSR_<name>,
                                      TEST_EXTRA_<name>, TEST_LDFLAGS_<name> (mk/tests.mk
                                      includes OUT)
    tests/unittests.py --timeouts     print "name seconds" for every test with its own timeout

The table is checked first: a section names an existing tests/test_<name>.c, only known keys,
`like` names another section (no loop), every file exists. Exit status 1 with one line per
fault ("tests/unittests.cfg: [name]: ..."), 2 on a usage error.
"""
import argparse
import configparser
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CFG = "tests/unittests.cfg"
KEYS = ("like", "msr", "extra", "wrap", "timeout")
FILE_KEYS = ("msr", "extra")


def load(path):
    """{name: {key: [words]}} with `like` and `+=` resolved, and the list of faults."""
    cp = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    cp.optionxform = str
    cp.read(path)
    raw, faults = {}, []
    for name in cp.sections():
        sec = {}
        for key, val in cp[name].items():
            add = key.endswith("+")
            k = key.rstrip("+").strip()
            if k not in KEYS:
                faults.append("[%s]: unknown key %r (known: %s)" % (name, k, " ".join(KEYS)))
                continue
            sec[k] = (add, val.split())
        raw[name] = sec
        if not os.path.exists(os.path.join(ROOT, "tests", "test_%s.c" % name)):
            faults.append("[%s]: no tests/test_%s.c" % (name, name))

    resolved = {}

    def resolve(name, seen):
        if name in resolved:
            return resolved[name]
        if name in seen:
            faults.append("[%s]: `like` goes round in a circle (%s)" % (name, " -> ".join(seen)))
            return {}
        sec = raw[name]
        out = {}
        if "like" in sec:
            base = sec["like"][1]
            if len(base) != 1 or base[0] not in raw:
                faults.append("[%s]: like = %s names no section" % (name, " ".join(base)))
            else:
                out = {k: list(v) for k, v in resolve(base[0], seen + [name]).items()}
        for k, (add, words) in sec.items():
            if k == "like":
                continue
            out[k] = out.get(k, []) + words if add else words
        resolved[name] = out
        return out

    for name in raw:
        sec = resolve(name, [])
        for k in FILE_KEYS:
            for f in sec.get(k, []):
                if not os.path.exists(os.path.join(ROOT, f)):
                    faults.append("[%s]: %s = %s: no such file" % (name, k, f))
        t = sec.get("timeout", ["300"])
        if len(t) != 1 or not t[0].isdigit() or int(t[0]) == 0:
            faults.append("[%s]: timeout = %s is not a whole number of seconds"
                          % (name, " ".join(t)))
    return resolved, faults


def make_text(tests):
    lines = ["# Made from %s by tests/unittests.py: edit the table, not this file." % CFG]
    for name, sec in tests.items():
        if sec.get("msr"):
            lines.append("TEST_MSR_%s := %s" % (name, " ".join(sec["msr"])))
        if sec.get("extra"):
            lines.append("TEST_EXTRA_%s := %s" % (name, " ".join(sec["extra"])))
        if sec.get("wrap"):
            lines.append("TEST_LDFLAGS_%s := %s"
                         % (name, " ".join("-Wl,--wrap=" + s for s in sec["wrap"])))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cfg", default=os.path.join(ROOT, CFG))
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--make", metavar="OUT")
    g.add_argument("--timeouts", action="store_true")
    a = ap.parse_args()
    tests, faults = load(a.cfg)
    for f in faults:
        print("%s: %s" % (CFG, f), file=sys.stderr)
    if faults:
        return 1
    if a.timeouts:
        for name, sec in tests.items():
            if "timeout" in sec:
                print(name, sec["timeout"][0])
        return 0
    tmp = a.make + ".tmp"
    os.makedirs(os.path.dirname(os.path.abspath(a.make)), exist_ok=True)
    with open(tmp, "w") as f:
        f.write(make_text(tests))
    os.replace(tmp, a.make)
    return 0


if __name__ == "__main__":
    sys.exit(main())
