"""pmucal-collect's command line (docs/collector.md)."""
import argparse
import atexit
import json
import os
import sys

from . import db as dbmod
from . import fleet, runs


def cmd_serve(a):
    from aiohttp import web
    from . import web as webmod
    host, _, port = a.listen.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    d = dbmod.open_db(a.db)
    d.close()
    if a.workers > 1:
        # several processes on one port (SO_REUSEPORT): the kernel spreads the connections.
        # Each worker dies with the first process (PR_SET_PDEATHSIG), which stops them on exit.
        children = []
        for _ in range(a.workers - 1):
            pid = os.fork()
            if pid == 0:
                _die_with_parent()
                children = None
                break
            children.append(pid)
        if children:
            atexit.register(_stop_children, children)
    print("pmucal-collect: serving %s on http://%s:%s/ (pid %d)" % (d.url, host, port, os.getpid()), flush=True)
    app = webmod.make_app(dbmod.Db(d.url), threads=a.threads, strict=a.strict)
    web.run_app(app, host=host, port=int(port), reuse_port=a.workers > 1, print=None,
                access_log=None, handle_signals=True)
    return 0


def _die_with_parent():
    import ctypes
    import signal
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() == 1:
        os._exit(0)


def _stop_children(children):
    import signal
    for pid in children:
        try:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
        except OSError:
            pass


def cmd_ingest(a):
    d = dbmod.open_db(a.db)
    rc = 0
    for path in a.dirs:
        try:
            files, skipped = runs.read_folder(path)
            status, rid, mid = runs.store(d, files, os.path.basename(os.path.normpath(path)), "ingest", a.strict)
            print("%s: %s as run %d (machine %d)%s" % (path, status, rid, mid,
                  "; not kept: " + ", ".join(skipped) if skipped else ""))
        except runs.Reject as rej:
            runs.record_reject(d, "ingest", os.path.basename(os.path.normpath(path)), rej)
            print("%s: rejected: %s (file %s, path %s)" % (path, rej.error, rej.file, rej.path))
            rc = 1
        except OSError as e:
            print("%s: %s" % (path, e))
            rc = 1
    return rc


def cmd_runs(a):
    from .web import list_runs
    rows = list_runs(dbmod.open_db(a.db))
    if a.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print("%5d %-22s machine %-4d %-30s %-10s %s %s files=%d" % (
                r["id"], r["run"], r["machine"], r["machine_key"][:30], r["cpu"], r["received"], r["source"], r["files"]))
        print("%d runs" % len(rows))
    return 0


def cmd_outliers(a):
    out = fleet.outliers(dbmod.open_db(a.db), a.k)
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print("outliers: median +- %g x %g x MAD (spread floored at %g %% of the median); %.3f s"
          % (out["k"], out["mad_factor"], 100 * out["floor"], out["seconds"]))
    for o in out["machines"]:
        f = o["figures"][0]
        print("machine %d %s (type %d, %s %s): %s = %.3f, type median %.3f (%+.1f %%, %.1f spreads); %d figures out; likely cause: %s"
              % (o["machine"], o["key"], o["type"], o["cpu"], o["memory_population"], f["figure"], f["value"],
                 f["median"], f["percent"] or 0, f["score"], len(o["figures"]), "; ".join(o["likely_cause"])))
    for dr in out["drift"]:
        print("drift: machine %d %s: %s %.3f -> %.3f" % (dr["machine"], dr["key"], dr["figure"], dr["first"], dr["latest"]))
    print("%d outlier machines, %d drifting figures" % (len(out["machines"]), len(out["drift"])))
    return 0


def cmd_reference(a):
    d = dbmod.open_db(a.db)
    tid = fleet.find_type(d, a.cpu, a.memory)
    if tid is None:
        print("pmucal-collect: no machine type with CPU signature %s" % a.cpu, file=sys.stderr)
        return 1
    ref = fleet.reference_table(d, tid)
    if ref is None:
        print("pmucal-collect: type %d has no latency table" % tid, file=sys.stderr)
        return 1
    text = json.dumps(ref[0], indent=1) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
        print("%s: reference of type %d from %d machines" % (a.output, tid, ref[1]))
    else:
        sys.stdout.write(text)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="pmucal-collect", description="collect pmucal runs into a database (docs/collector.md)")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="the HTTP service")
    s.add_argument("--listen", default="127.0.0.1:8760")
    s.add_argument("--workers", type=int, default=1, help="server processes sharing the port")
    s.add_argument("--threads", type=int, default=4, help="database threads per process")
    i = sub.add_parser("ingest", help="store results folders")
    i.add_argument("dirs", nargs="+")
    r = sub.add_parser("runs", help="list the stored runs")
    r.add_argument("--json", action="store_true")
    o = sub.add_parser("outliers", help="machines outside their type's spread, and drift")
    o.add_argument("--json", action="store_true")
    o.add_argument("--k", type=float, default=fleet.K_DEFAULT)
    f = sub.add_parser("reference", help="a machine type's reference latency table")
    f.add_argument("--cpu", required=True)
    f.add_argument("--memory")
    f.add_argument("-o", "--output")
    for x in (s, i):
        x.add_argument("--strict", action="store_true",
                       help="refuse members and enum values the schemas do not document (the check of"
                            " pmucal's own files in its tests); without it a later minor's files are accepted")
    for x in (s, i, r, o, f):
        x.add_argument("--db", default="sqlite:///pmucal-collect.db", help="sqlite:///path.db or postgresql://...")
    a = p.parse_args(argv)
    return {"serve": cmd_serve, "ingest": cmd_ingest, "runs": cmd_runs, "outliers": cmd_outliers,
            "reference": cmd_reference}[a.cmd](a)
