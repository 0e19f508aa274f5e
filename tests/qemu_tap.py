"""The TAP counter and small helpers shared by the QEMU case checks (tests/qemu_checks*.py)."""
import os
import re

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


def diag(lines, limit=12):
    """TAP diagnostics under the line before: why a check failed, as the run printed it."""
    lines = list(lines)
    for l in lines[:limit]:
        print("#   " + l.rstrip()[:200], flush=True)
    if len(lines) > limit:
        print("#   ... %d more" % (len(lines) - limit), flush=True)


def schema_is(doc, name):
    """True when @doc's "schema" is pmucal.NAME/1 or /1.MINOR (the one version rule)."""
    return isinstance(doc, dict) and re.match(r"^pmucal\.%s/1(\.(0|[1-9][0-9]{0,8}))?$" % re.escape(name),
                                              str(doc.get("schema"))) is not None


def opt(args, name, default):
    """Value of run-qemu.sh option `name` in the case's args, as run-qemu.sh defaults it."""
    if name in args:
        i = args.index(name)
        return args[i + 1]
    return default


def why_status(c):
    """What the run printed that explains its exit status: FAIL and ERROR lines, else its
    last lines and run-qemu.sh's own verdict."""
    bad = [l for l in c.lines() if l.startswith(("FAIL: ", "ERROR: ", "FATAL: "))]
    return bad or (c.lines()[-5:] + c.runlog.strip().splitlines()[-2:])
