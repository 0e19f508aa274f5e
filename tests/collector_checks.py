#!/usr/bin/python3
"""The collector (tools/pmucal-collect, docs/collector.md) end to end, TAP on stdout: a real
collector process on a loopback port over SQLite and over a throw-away PostgreSQL (initdb in a
temporary folder, unix socket only), the runs built from a real QEMU results folder
(tests/data/collector/qemu-smoke, written by pmucal's own smoke case).

    collector_checks.py [--no-pg] [--no-browser]
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import collector_fleet  # noqa: E402
from pmucal_collect import runs as crun  # noqa: E402

COLLECT = os.path.join(ROOT, "tools", "pmucal-collect")
DATA = os.path.join(HERE, "data", "collector", "qemu-smoke")
n_tests = 0
n_failed = 0


def tap(ok, what, diag=None):
    global n_tests, n_failed
    n_tests += 1
    if not ok:
        n_failed += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n_tests, what), flush=True)
    if not ok and diag is not None:
        for line in str(diag).splitlines()[:20]:
            print("#   " + line)
    return ok


def skip(what, why):
    global n_tests
    n_tests += 1
    print("ok %d - %s # SKIP %s" % (n_tests, what, why), flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, db, tmp, env=None, workers=1, args=()):
        self.port = free_port()
        self.log = open(os.path.join(tmp, "serve-%d.log" % self.port), "w")
        e = dict(os.environ)
        e.update(env or {})
        self.p = subprocess.Popen([COLLECT, "serve", "--db", db, "--listen", "127.0.0.1:%d" % self.port,
                                   "--workers", str(workers)] + list(args), stdout=self.log, stderr=subprocess.STDOUT, env=e)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.p.poll() is not None:
                    break
                time.sleep(0.1)
        raise RuntimeError("collector did not start: " + open(self.log.name).read())

    def kill(self, sig=signal.SIGTERM):
        if self.p.poll() is None:
            self.p.send_signal(sig)
            self.p.wait(30)

    def request(self, method, path, body=None, headers=None, timeout=60):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        c.close()
        try:
            return r.status, json.loads(data)
        except ValueError:
            return r.status, data.decode("utf-8", "replace")


def multipart(files, run):
    b = "----pmucal%s" % uuid.uuid4().hex
    out = [b"--%s\r\nContent-Disposition: form-data; name=\"run\"\r\n\r\n%s\r\n" % (b.encode(), run.encode())]
    for n in sorted(files):
        out.append(b"--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
                   b"Content-Type: application/octet-stream\r\n\r\n" % (b.encode(), n.encode()))
        out.append(files[n] + b"\r\n")
    out.append(b"--%s--\r\n" % b.encode())
    return b"".join(out), {"Content-Type": "multipart/form-data; boundary=%s" % b}


def upload(srv, files, run, framed=False):
    if framed:
        return srv.request("POST", "/api/v1/runs", crun.encode_framed(files, run),
                           {"Content-Type": "application/x-pmucal-run"})
    body, h = multipart(files, run)
    return srv.request("POST", "/api/v1/runs", body, h)


def counts(db):
    from pmucal_collect import db as dbmod
    d = dbmod.open_db(db)
    try:
        return tuple(d.query("SELECT COUNT(*) FROM %s" % t)[0][0] for t in ("runs", "files", "figures", "machines"))
    finally:
        d.close()


def check_uploads(label, db, tmp, base):
    """Valid (both encodings), duplicate, schema-invalid, malformed, killed mid-upload,
    concurrent: on one database."""
    rng = random.Random(7)
    srv = Server(db, tmp)
    try:
        one = collector_fleet.machine_run(base, rng, str(uuid.UUID(int=1)))
        st, body = upload(srv, one, "20261128-072220-01")
        tap(st == 201 and body.get("status") == "stored", "%s: a valid multipart upload is stored (201)" % label, (st, body))
        first_id = body.get("id") if isinstance(body, dict) else None
        st, body = upload(srv, one, "20261128-072220-01")
        tap(st == 200 and body.get("status") == "duplicate" and body.get("id") == first_id,
            "%s: the same run again is a duplicate (200, same id)" % label, (st, body))
        st, body = upload(srv, one, "20261128-072220-01", framed=True)
        tap(st == 200 and body.get("id") == first_id,
            "%s: the same run in the framed encoding is the same run (200)" % label, (st, body))
        two = collector_fleet.machine_run(base, rng, str(uuid.UUID(int=2)))
        st, body = upload(srv, two, "20261128-072220-02", framed=True)
        tap(st == 201, "%s: a valid framed (application/x-pmucal-run) upload is stored (201)" % label, (st, body))
        before = counts(db)
        # schema-invalid: a level's median not a number
        bad = dict(two)
        t = json.loads(bad["latency-table.json"])
        t["levels"][1]["ns"]["p50"] = "fast"
        bad["latency-table.json"] = json.dumps(t).encode()
        bad["inventory.json"] = one["inventory.json"].replace(b'"uuid"', b'"uuid"')
        st, body = upload(srv, bad, "bad-schema")
        tap(st == 400 and body.get("file") == "latency-table.json" and body.get("path") == "$.levels[1].ns.p50",
            "%s: a schema-invalid upload gets 400 naming latency-table.json and $.levels[1].ns.p50" % label, (st, body))
        frame = crun.encode_framed(two, "cut")
        st, body = srv.request("POST", "/api/v1/runs", frame[:len(frame) // 2], {"Content-Type": "application/x-pmucal-run"})
        tap(st == 400 and "ends" in body.get("error", ""), "%s: a framed body cut short is rejected (400)" % label, (st, body))
        st, body = upload(srv, dict(two, **{"../x.json": b"{}"}), "evil", framed=True)
        tap(st == 400 and body.get("file") == "../x.json", "%s: a file name with .. is rejected" % label, (st, body))
        tap(counts(db) == before, "%s: nothing of the rejected uploads was stored" % label, (before, counts(db)))
        # a client that goes away mid-body
        body3, h = multipart(collector_fleet.machine_run(base, rng, str(uuid.UUID(int=3))), "gone")
        s = socket.create_connection(("127.0.0.1", srv.port))
        s.sendall(b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
                  % (h["Content-Type"].encode(), len(body3)) + body3[:len(body3) // 2])
        time.sleep(0.5)
        s.close()
        time.sleep(0.5)
        tap(counts(db) == before and srv.p.poll() is None,
            "%s: a client gone mid-upload leaves nothing and the collector serving" % label, (before, counts(db)))
    finally:
        srv.kill()
    # killed inside the store's transaction: the run is written, not committed
    marker = os.path.join(tmp, "in-transaction-%s" % label)
    srv = Server(db, tmp, env={"PMUCAL_COLLECT_FAULT": "pause-in-transaction:" + marker})
    three = collector_fleet.machine_run(base, rng, str(uuid.UUID(int=3)))
    pool = concurrent.futures.ThreadPoolExecutor(1)
    fut = pool.submit(lambda: upload(srv, three, "killed"))
    deadline = time.monotonic() + 60
    while not os.path.exists(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    in_tx = os.path.exists(marker)
    srv.kill(signal.SIGKILL)
    try:
        fut.result(30)
        got = "a reply"
    except Exception as e:
        got = type(e).__name__
    pool.shutdown()
    tap(in_tx and counts(db) == before, "%s: a collector killed (SIGKILL) inside the store's transaction leaves no partial run (%s)"
        % (label, got), (in_tx, before, counts(db)))
    srv = Server(db, tmp)
    try:
        st, body = upload(srv, three, "killed")
        tap(st == 201, "%s: after the restart the same run is stored anew (201, not a duplicate)" % label, (st, body))
        # concurrent: 12 distinct runs and 6 copies of one run at once
        many = [collector_fleet.machine_run(base, rng, str(uuid.UUID(int=100 + i))) for i in range(12)]
        same = collector_fleet.machine_run(base, rng, str(uuid.UUID(int=200)))
        before = counts(db)
        jobs = [(f, "c%02d" % i) for i, f in enumerate(many)] + [(same, "same")] * 6
        with concurrent.futures.ThreadPoolExecutor(9) as p:
            res = list(p.map(lambda j: upload(srv, j[0], j[1], framed=hash(j[1]) % 2 == 0), jobs))
        stored = [r for r in res[:12] if r[0] == 201]
        dup = [r for r in res[12:]]
        ids_same = {r[1].get("id") for r in dup if isinstance(r[1], dict)}
        after = counts(db)
        tap(len(stored) == 12 and sum(1 for r in dup if r[0] == 201) == 1 and sum(1 for r in dup if r[0] == 200) == 5
            and len(ids_same) == 1 and after[0] == before[0] + 13 and after[3] == before[3] + 13,
            "%s: 18 concurrent uploads (12 runs, one run 6 times): 13 runs stored, the repeated one once"
            % label, (res, before, after))
        n_files = sum(len(f) for f in many) + len(same)
        tap(after[1] == before[1] + n_files, "%s: every file of the concurrent runs stored (%d)" % (label, n_files),
            (before, after))
    finally:
        srv.kill()


def check_versions(tmp, base):
    """A later minor's files (docs/versioning.md): the collector reads them as a reader does
    (new members and open enum values pass), serve --strict (the check of pmucal's own files)
    refuses what the schemas do not document; a wrong type is refused by both."""
    later = dict(base)
    inv = json.loads(base["inventory.json"])
    inv["schema"] = "pmucal.inventory/1.99"
    inv["smbios"]["uuid"] = str(uuid.UUID(int=0x99))
    inv["a_later_section"] = {"figure": 1}
    later["inventory.json"] = json.dumps(inv).encode()
    with open(os.path.join(HERE, "corpus", "table", "next-minor.json"), "rb") as f:
        later["latency-table.json"] = f.read()
    wrong = dict(later)
    inv = json.loads(later["inventory.json"])
    inv["smbios"]["uuid"] = 99
    wrong["inventory.json"] = json.dumps(inv).encode()
    for strict in (False, True):
        rule = "serve --strict" if strict else "serve"
        srv = Server("sqlite:///" + os.path.join(tmp, "versions-%d.db" % strict), tmp,
                     args=["--strict"] if strict else [])
        try:
            st, body = upload(srv, later, "later-minor", framed=True)
            if strict:
                tap(st == 400 and body.get("file") == "inventory.json" and body.get("path") == "$",
                    "%s: a later minor's undocumented member is refused (400, inventory.json, $)" % rule, (st, body))
            else:
                tap(st == 201, "%s: a later minor's run (inventory 1.99 with a new section, latency-table 1.9 with"
                    " new members and enum values) is stored (201)" % rule, (st, body))
            st, body = upload(srv, wrong, "wrong-type", framed=True)
            tap(st == 400 and body.get("file") == "inventory.json" and body.get("path") == "$.smbios.uuid",
                "%s: a member of the wrong type is refused, later minor or not (400, $.smbios.uuid)" % rule, (st, body))
        finally:
            srv.kill()


def check_workers(db, tmp):
    """serve --workers 2: both processes answer, and stopping the first stops the other."""
    srv = Server(db, tmp, workers=2)
    st, _ = srv.request("GET", "/api/v1/runs")
    srv.kill()
    time.sleep(2)
    try:
        socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()
        gone = False
    except OSError:
        gone = True
    tap(st == 200 and gone, "serve --workers 2: answers, and no worker is left listening once it is stopped", st)


def check_ingest(db, tmp):
    """ingest: the real QEMU folder, then again (duplicate), and a folder with a bad file."""
    r = subprocess.run([COLLECT, "ingest", "--db", db, DATA], capture_output=True, text=True)
    tap(r.returncode == 0 and ": stored as run" in r.stdout, "ingest: the QEMU smoke results folder is stored", r.stdout + r.stderr)
    r = subprocess.run([COLLECT, "ingest", "--db", db, DATA], capture_output=True, text=True)
    tap(r.returncode == 0 and ": duplicate as run" in r.stdout, "ingest: the same folder again is a duplicate", r.stdout + r.stderr)
    bad = os.path.join(tmp, "bad-folder")
    shutil.copytree(DATA, bad)
    with open(os.path.join(bad, "tlb-table.json"), "w") as f:
        f.write('{"schema": "pmucal.tlb/1.2", "units": 3}')
    r = subprocess.run([COLLECT, "ingest", "--db", db, bad], capture_output=True, text=True)
    tap(r.returncode == 1 and "rejected" in r.stdout and "tlb-table.json" in r.stdout,
        "ingest: a folder with a schema-invalid tlb-table.json is rejected, naming it", r.stdout + r.stderr)
    r = subprocess.run([COLLECT, "runs", "--db", db, "--json"], capture_output=True, text=True)
    rows = json.loads(r.stdout) if r.returncode == 0 else []
    tap(len(rows) == 1 and rows[0]["files"] == len(os.listdir(DATA)) and rows[0]["memory_population"] == "1x2GiB@?",
        "runs --json: one run, every file, memory population from SMBIOS type 17 (QEMU's one 2 GiB DIMM)", r.stdout[:2000])


def build_fleet(db, tmp, base, n=14):
    """n machines x 2 runs ingested from folders; two planted outliers. Returns the planted
    machines' UUIDs and the latency tables of the machines' last runs."""
    root = tempfile.mkdtemp(prefix="fleet-", dir=tmp)
    planted, last_tables = {}, {}
    dirs = []
    for i, r, cause, files in collector_fleet.fleet(base, n, 2, 7, seed=3):
        d = os.path.join(root, "m%03d-r%d" % (i, r))
        os.makedirs(d)
        for name, b in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(b)
        u = json.loads(files["inventory.json"])["smbios"]["uuid"]
        if cause:
            planted[u] = cause
        last_tables[u] = json.loads(files["latency-table.json"])
        dirs.append(d)
    r = subprocess.run([COLLECT, "ingest", "--db", db] + dirs, capture_output=True, text=True)
    tap(r.returncode == 0 and r.stdout.count(": stored as run") == len(dirs),
        "fleet: %d runs of %d simulated machines ingested" % (len(dirs), n), r.stdout[-2000:] + r.stderr)
    return planted, last_tables


def check_outliers(db, planted, label):
    r = subprocess.run([COLLECT, "outliers", "--db", db, "--json"], capture_output=True, text=True)
    out = json.loads(r.stdout) if r.returncode == 0 else {"machines": []}
    found = {o["key"][len("uuid:"):]: o for o in out["machines"]}
    tap(set(found) == set(planted), "%s: outliers are exactly the %d planted machines (median +- 5 x 1.4826 MAD)"
        % (label, len(planted)), (sorted(found), sorted(planted)))
    for u, cause in sorted(planted.items()):
        o = found.get(u)
        dram = [f for f in (o or {}).get("figures", []) if f["figure"].startswith(("dram.", "numa.cell."))]
        want = "memory detail" if cause == "dimm" else "prefetchers off"
        tap(o is not None and dram and all(f["percent"] > 10 for f in dram)
            and any(c.startswith(want) for c in o["likely_cause"]),
            "%s: planted %s outlier: DRAM figures over +10 %%, likely cause names %r" % (label, cause, want),
            json.dumps(o, indent=1)[:1500])
    r = subprocess.run([COLLECT, "outliers", "--db", db], capture_output=True, text=True)
    tap(r.returncode == 0 and "likely cause" in r.stdout, "%s: outliers prints each with its likely cause" % label, r.stdout[:1500])


def check_reference(srv, tmp, tables, planted):
    st, ref = srv.request("GET", "/api/v1/reference?cpu=0x60fb1")
    ok = tap(st == 200 and isinstance(ref, dict) and ref.get("schema", "").startswith("pmucal.latency-table/"),
             "reference: GET /api/v1/reference?cpu=0x60fb1 serves a latency table", (st, str(ref)[:500]))
    if not ok:
        return
    l1 = statistics.median(t["levels"][0]["ns"]["p50"] for t in tables.values())
    tap(abs(ref["levels"][0]["ns"]["p50"] - l1) < 0.0015,
        "reference: L1 p50 is the median of the machines' L1 p50 (%.3f)" % l1, ref["levels"][0]["ns"])
    errs = crun.check_schemas.validate_doc(ref, crun.validators(True))
    tap(not errs, "reference: the table validates against docs/schemas strictly", errs)
    table_bin = os.environ.get("PMUCAL_TABLE") or os.path.join(ROOT, "build", "host", "pmucal-table")
    if not os.access(table_bin, os.X_OK):
        skip("reference: pmucal-table check accepts it", "%s not built" % table_bin)
        return
    p = os.path.join(tmp, "reference.json")
    with open(p, "w") as f:
        json.dump(ref, f)
    r = subprocess.run([table_bin, "check", p], capture_output=True, text=True)
    tap(r.returncode == 0, "reference: pmucal-table check accepts it", r.stdout + r.stderr)
    check_match(srv, tmp, table_bin, ref)


def check_match(srv, tmp, table_bin, ref):
    """pmucal-table match --collector: the collector's reference written and its path printed;
    no such type, nothing listening and a listener that never answers each said, exit 1."""
    url = "http://127.0.0.1:%d" % srv.port
    out = os.path.join(tmp, "matched.json")
    r = subprocess.run([table_bin, "match", "--collector", url, "--cpu", "0x60fb1", "-o", out],
                       capture_output=True, text=True, timeout=60)
    try:
        with open(out) as f:
            got = json.load(f)
    except (OSError, ValueError) as e:
        got = str(e)
    tap(r.returncode == 0 and r.stdout == out + "\n" and got == ref,
        "match --collector URL --cpu 0x60fb1: the collector's reference is written and its path printed",
        (r.returncode, r.stdout, r.stderr))
    r = subprocess.run([table_bin, "match", "--collector", url + "/", "--cpu", "0xdead", "-o", out],
                       capture_output=True, text=True, timeout=60)
    tap(r.returncode == 1 and r.stdout == "" and "HTTP 404" in r.stderr and "no machine type with CPU signature 0xdead"
        in r.stderr, "match --collector: a CPU signature the collector has no type of: exit 1, the collector's"
        " message", (r.returncode, r.stdout, r.stderr))
    port = free_port()
    t = time.monotonic()
    r = subprocess.run([table_bin, "match", "--collector", "http://127.0.0.1:%d" % port, "--cpu", "0x60fb1"],
                       capture_output=True, text=True, timeout=60)
    tap(r.returncode == 1 and r.stdout == "" and "cannot reach the collector at http://127.0.0.1:%d" % port in r.stderr
        and "Connection refused" in r.stderr, "match --collector: nothing listening: exit 1 at once (%.1f s), said"
        % (time.monotonic() - t), (r.returncode, r.stderr))
    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(4)  # accepts (the kernel completes the handshake) and never answers
    try:
        t = time.monotonic()
        r = subprocess.run([table_bin, "match", "--collector", "http://127.0.0.1:%d" % mute.getsockname()[1],
                            "--cpu", "0x60fb1", "--timeout", "2"], capture_output=True, text=True, timeout=60)
        secs = time.monotonic() - t
    finally:
        mute.close()
    tap(r.returncode == 1 and "no answer within 2 s" in r.stderr and 1.9 < secs < 10,
        "match --collector --timeout 2: a collector that accepts and never answers: exit 1 after %.1f s, said"
        % secs, (r.returncode, r.stderr))


def check_browser(srv, planted):
    try:
        from selenium import webdriver
        from selenium.webdriver.common.by import By
    except ImportError:
        skip("browser: the fleet page in headless Chromium", "python3-selenium missing")
        return
    drv_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not os.path.exists(drv_path):
        skip("browser: the fleet page in headless Chromium", "chromium-driver missing")
        return
    from selenium.webdriver.chrome.service import Service as ChromeService
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=ChromeService(drv_path), options=opts)
    try:
        base = "http://127.0.0.1:%d" % srv.port
        d.get(base + "/")
        tap(d.title == "pmucal fleet", "browser: the fleet page loads", d.title)
        rows = d.find_elements(By.CSS_SELECTOR, "#outliers tr.outlier")
        st, out = srv.request("GET", "/api/v1/outliers")
        worst = out["machines"][0]["key"] if out.get("machines") else None
        tap(len(rows) == len(planted) and worst and rows[0].text.startswith(worst)
            and d.find_element(By.TAG_NAME, "h2").text.startswith("Outliers"),
            "browser: the outliers come first, the worst first (%s)" % worst, [r.text for r in rows])
        rej = d.find_elements(By.CSS_SELECTOR, "#rejects tr.rejected")
        tap(any("rejected" in r.text and "latency-table.json" in r.text for r in rej),
            "browser: the rejected upload is listed as rejected, naming its file", [r.text for r in rej][:5])
        rows[0].find_element(By.TAG_NAME, "a").click()
        svgs = d.find_elements(By.CSS_SELECTOR, "svg.curve polyline")
        tap(d.title.startswith("machine ") and len(d.find_elements(By.CSS_SELECTOR, "h2.run")) == 2 and len(svgs) >= 2,
            "browser: the outlier's page shows its two runs with their curves as SVG", (d.title, len(svgs)))
        d.get(base + "/type/1")
        cells = d.find_elements(By.CSS_SELECTOR, "#reference tr")
        tap(d.title == "type 1" and len(cells) >= 2, "browser: the type's page shows its reference table", len(cells))
    finally:
        d.quit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--no-browser", action="store_true")
    a = ap.parse_args()
    base = collector_fleet.load_folder(DATA)
    tmp = tempfile.mkdtemp(prefix="pmucal-collector-")
    try:
        check_uploads("sqlite", "sqlite:///" + os.path.join(tmp, "up.db"), tmp, base)
        check_versions(tmp, base)
        check_ingest("sqlite:///" + os.path.join(tmp, "ingest.db"), tmp)
        check_workers("sqlite:///" + os.path.join(tmp, "workers.db"), tmp)
        fdb = "sqlite:///" + os.path.join(tmp, "fleet.db")
        planted, tables = build_fleet(fdb, tmp, base)
        check_outliers(fdb, planted, "sqlite fleet")
        srv = Server(fdb, tmp)
        try:
            # a rejected upload for the page to show
            bad = dict(base)
            t = json.loads(bad["latency-table.json"])
            t["levels"][0]["ns"]["p50"] = -1
            bad["latency-table.json"] = json.dumps(t).encode()
            st, _ = upload(srv, bad, "rejected-run")
            tap(st == 400, "fleet: a negative latency is rejected (400)", st)
            check_reference(srv, tmp, tables, planted)
            if a.no_browser:
                skip("browser", "--no-browser")
            else:
                check_browser(srv, planted)
        finally:
            srv.kill()
        if a.no_pg:
            skip("postgresql", "--no-pg")
        else:
            sys.path.insert(0, HERE)
            import collector_pg
            try:
                pg = collector_pg.TempPostgres()
            except Exception as e:
                tap(False, "postgresql: a throw-away server starts (initdb, pg_ctl)", e)
                pg = None
            if pg:
                try:
                    check_uploads("postgresql", pg.new_db("uploads"), tmp, base)
                    pdb = pg.new_db("fleet")
                    planted, _ = build_fleet(pdb, tmp, base)
                    check_outliers(pdb, planted, "postgresql fleet")
                finally:
                    pg.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % n_tests)
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main())
