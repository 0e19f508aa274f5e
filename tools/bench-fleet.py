#!/usr/bin/python3
"""make bench-fleet: a simulated fleet uploaded to the collector over loopback into a
throw-away PostgreSQL, then the outlier report over the whole fleet.

Phase 1 (uploads): FLEET_UPLOAD_MACHINES (default 1000) machines x FLEET_RUNS runs, built from the real
QEMU results folder tests/data/collector/qemu-smoke with noise (tests/collector_fleet.py), 1 %
planted outliers (+15-25 % DRAM latency: DIMMs in the wrong slots, or the prefetchers off).
Each of FLEET_CLIENTS client processes builds its share first (the simulation is not the
collector's work; about 110 KB a run held in memory), then all upload at once, whole runs,
one connection each, to `pmucal-collect serve --workers FLEET_WORKERS`, which validates every
JSON file against docs/schemas and stores the run; prints uploads/s, the p50/p99 upload
latency and the load average (the machine is shared: other work changes the figure).
Phase 2 (analysis at scale): FLEET_MACHINES (default 10000) machines x FLEET_RUNS runs whose figures (those
pmucal-collect extracts from the same real folder, with the same noise and planted outliers)
are written straight into the database in bulk; prints the outlier query's time and the
planted outliers found and missed, clean machines flagged. Targets (docs/collector.md):
>= 200 uploads/s, outliers of 10,000 machines < 2 s, every planted outlier found, no clean
machine flagged; a missed target makes the exit status 1.
"""
import http.client
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, HERE)
import collector_fleet  # noqa: E402
import collector_pg  # noqa: E402
from pmucal_collect import db as dbmod, fleet, runs  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "collector", "qemu-smoke")
env = lambda k, d: int(os.environ.get(k, d))


def client(port, index, n_clients, n_machines, n_runs, seed, ready, start, results):
    """One client process: its share of the fleet built first (the simulation is not the
    collector's work), then, once every client is ready, uploaded one run at a time, a new
    connection each, as machines of a rack would."""
    base = collector_fleet.load_folder(DATA)
    bodies = [runs.encode_framed(files, "m%05d-r%d" % (i, r))
              for i, r, cause, files in collector_fleet.fleet(base, n_machines, n_runs, 100, seed=seed)
              if i % n_clients == index]
    ready.release()
    start.wait()
    lat, bad = [], 0
    for body in bodies:
        t = time.monotonic()
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        c.request("POST", "/api/v1/runs", body, {"Content-Type": "application/x-pmucal-run"})
        resp = c.getresponse()
        resp.read()
        c.close()
        lat.append(time.monotonic() - t)
        if resp.status not in (200, 201):
            bad += 1
    results.put((lat, bad))


def cpu_seconds(root):
    """User + system CPU seconds of process @root and its children, so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            st = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
        except (OSError, ValueError):
            continue
        if int(pid) == root or int(st[1]) == root:
            total += int(st[11]) + int(st[12])
    return total / tick


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))] if xs else float("nan")


def phase_uploads(pg, n_machines, n_runs, n_clients, n_workers):
    url = pg.new_db("uploads")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    log = open(os.path.join(pg.dir, "serve.log"), "w")
    srv = subprocess.Popen([os.path.join(HERE, "pmucal-collect"), "serve", "--db", url, "--listen",
                            "127.0.0.1:%d" % port, "--workers", str(n_workers)], stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        ready, start, results = multiprocessing.Semaphore(0), multiprocessing.Event(), multiprocessing.Queue()
        procs = [multiprocessing.Process(target=client, args=(port, k, n_clients, n_machines, n_runs, 11,
                                                                ready, start, results), daemon=True)
                 for k in range(n_clients)]
        for p in procs:
            p.start()
        for _ in procs:
            ready.acquire()
        load = os.getloadavg()
        with open(os.path.join(pg.data, "postmaster.pid")) as f:
            postmaster = int(f.readline())
        cpu0 = cpu_seconds(srv.pid), cpu_seconds(postmaster)
        t0 = time.monotonic()
        start.set()
        res = [results.get() for _ in procs]
        wall = time.monotonic() - t0
        cpu = cpu_seconds(srv.pid) - cpu0[0], cpu_seconds(postmaster) - cpu0[1]
        for p in procs:
            p.join()
    finally:
        srv.terminate()
        srv.wait(30)
    lat = [x for r in res for x in r[0]]
    bad = sum(r[1] for r in res)
    d = dbmod.open_db(url)
    stored = d.query("SELECT COUNT(*) FROM runs")[0][0]
    d.close()
    print("uploads: %d machines x %d runs by %d clients to %d collector processes: %d uploads in %.1f s = %.1f uploads/s;"
          " latency p50 %.1f ms, p99 %.1f ms; %d stored, %d refused; load average %.2f %.2f %.2f at the start,"
          " %.2f %.2f %.2f at the end"
          % ((n_machines, n_runs, n_clients, n_workers, len(lat), wall, len(lat) / wall,
             1000 * pct(lat, 50), 1000 * pct(lat, 99), stored, bad) + tuple(load) + tuple(os.getloadavg())))
    print("uploads: CPU a run: the collector %.2f ms, PostgreSQL %.2f ms" % (1000 * cpu[0] / len(lat), 1000 * cpu[1] / len(lat)))
    return len(lat) / wall, stored == len(lat) and bad == 0


def phase_analysis(pg, n_machines, n_runs):
    url = pg.new_db("fleet")
    d = dbmod.open_db(url)
    base = collector_fleet.load_folder(DATA)
    docs = runs.validate(base)
    figs0 = runs.figures(docs)
    ident = runs.identity(docs, base)
    rng = random.Random(5)
    c = d.connect()
    cur = c.cursor()
    cur.execute("INSERT INTO types (key, cpu_vendor, cpu_signature, cpu_brand, memory_population) VALUES (%s,%s,%s,%s,%s) RETURNING id",
                (ident["type_key"], ident["cpu_vendor"], ident["cpu_signature"], ident["cpu_brand"], ident["memory_population"]))
    tid = cur.fetchone()[0]
    planted = set()
    mach, rn, fig = [], [], []
    rid = 0
    for i in range(n_machines):
        cause = None
        if i % 100 == 50:
            cause = "dimm" if (i // 100) % 2 == 0 else "prefetch"
            planted.add(i + 1)
        mach.append((i + 1, "uuid:%s" % uuid.UUID(int=rng.getrandbits(128)), "smbios uuid", tid, ident["bios_version"],
                     ident["microcode"], ident["memory_population"], "smbios type 17", rid + n_runs))
        for r in range(n_runs):
            rid += 1
            detail = ident["memory_detail"] if cause != "dimm" else ident["memory_detail"].replace("DIMM 0", "DIMM 7")
            rn.append((rid, i + 1, "m%05d-r%d" % (i, r), "%064x" % rid, "2026-11-28T00:00:00Z", "bench",
                       ident["bios_version"], ident["microcode"], "off" if cause == "prefetch" else "unchanged", detail))
            f = 1.15 + 0.10 * rng.random() if cause else 1.0
            for n, v in figs0.items():
                k = f if n.startswith(("dram.", "numa.cell.")) else (1 / f if n.startswith("bw.") else 1.0)
                fig.append((rid, n, v * k * (1 + rng.gauss(0, 0.005))))
    from psycopg2.extras import execute_values
    t0 = time.monotonic()
    execute_values(cur, "INSERT INTO machines (id, key, key_source, type_id, bios_version, microcode, memory_population,"
                   " memory_source, latest_run_id, first_seen) VALUES %s",
                   [m + ("2026-11-28T00:00:00Z",) for m in mach], page_size=2000)
    execute_values(cur, "INSERT INTO runs (id, machine_id, name, content_hash, received, source, bios_version, microcode,"
                   " prefetchers, memory_detail) VALUES %s", rn, page_size=2000)
    execute_values(cur, "INSERT INTO figures (run_id, name, value) VALUES %s", fig, page_size=5000)
    c.commit()
    cur.execute("ANALYZE")
    c.commit()
    print("analysis: %d machines x %d runs, %d figures written in bulk in %.1f s"
          % (n_machines, n_runs, len(fig), time.monotonic() - t0))
    t = time.monotonic()
    if os.environ.get("FLEET_PROFILE"):
        import cProfile
        cProfile.runctx("fleet.outliers(d)", globals(), locals(), sort="cumtime")
    out = fleet.outliers(d)
    secs = time.monotonic() - t
    found = {o["machine"] for o in out["machines"]}
    missed = planted - found
    clean = found - planted
    causes_ok = all(any(("memory detail" in x) or ("prefetchers off" in x) for x in o["likely_cause"])
                    for o in out["machines"] if o["machine"] in planted)
    print("outlier report: %.2f s for %d machines; planted %d, found %d, missed %d, clean machines flagged %d;"
          " every planted outlier's likely cause named: %s; drifting figures %d (of clean machines %d)"
          % (secs, n_machines, len(planted), len(planted & found), len(missed), len(clean),
             "yes" if causes_ok else "no", len(out["drift"]), sum(1 for x in out["drift"] if x["machine"] not in planted)))
    d.close()
    return secs, not missed and not clean and causes_ok


def main():
    n_up = env("FLEET_UPLOAD_MACHINES", 1000)
    n_all = env("FLEET_MACHINES", 10000)
    n_runs = env("FLEET_RUNS", 3)
    pg = collector_pg.TempPostgres()
    try:
        rate, up_ok = (phase_uploads(pg, n_up, n_runs, env("FLEET_CLIENTS", 4), env("FLEET_WORKERS", 2))
                       if n_up > 0 else (0.0, True))
        secs, an_ok = phase_analysis(pg, n_all, n_runs)
    finally:
        pg.stop()
    ok = True
    for met, what in ((rate >= 200, "uploads/s >= 200"), (secs < 2.0, "outlier report < 2 s"),
                      (up_ok, "every upload stored"), (an_ok, "every planted outlier found, no clean machine flagged")):
        print("target %s: %s" % (what, "met" if met else "MISSED"))
        ok = ok and met
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
