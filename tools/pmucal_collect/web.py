"""The collector's HTTP service (aiohttp): the upload API and the web pages."""
import asyncio
import concurrent.futures
import csv
import html
import io
import json
import math
import traceback
import urllib.parse

from aiohttp import web

from . import fleet, runs


def _json(obj, status=200):
    return web.json_response(obj, status=status, dumps=lambda o: json.dumps(o, indent=1))


class Service:
    def __init__(self, db, threads=4, strict=False):
        self.db = db
        self.strict = strict
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=threads)

    async def call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    # ---- upload -----------------------------------------------------------------------
    async def post_run(self, request):
        client = request.remote
        run_name = None
        try:
            if request.content_length is not None and request.content_length > runs.MAX_BODY:
                raise runs.Reject("body larger than %d bytes" % runs.MAX_BODY, status=413)
            ctype = request.content_type
            files = {}
            if ctype == "multipart/form-data":
                reader = await request.multipart()
                total = 0
                async for part in reader:
                    data = await part.read(decode=False)
                    total += len(data)
                    if total > runs.MAX_BODY:
                        raise runs.Reject("body larger than %d bytes" % runs.MAX_BODY, status=413)
                    if part.filename is None:
                        if part.name == "run":
                            run_name = data.decode("utf-8", "replace").strip()
                            continue
                        raise runs.Reject("form field %r is neither a file nor \"run\"" % part.name)
                    runs.check_name(part.filename)
                    if part.filename in files:
                        raise runs.Reject("file sent twice", part.filename)
                    files[part.filename] = bytes(data)
            elif ctype == "application/x-pmucal-run":
                body = await request.read()
                run_name, files = runs.parse_framed(body)
            else:
                raise runs.Reject("Content-Type must be multipart/form-data or application/x-pmucal-run", status=415)
            status, rid, mid = await self.call(runs.store, self.db, files, run_name, "upload", self.strict)
        except runs.Reject as rej:
            await self.call(runs.record_reject, self.db, client, run_name, rej)
            return _json(rej.body(), status=rej.status)
        except web.HTTPException:
            raise
        except (asyncio.IncompleteReadError, ConnectionError) as e:
            return _json({"error": "upload broken off: %s" % e, "file": None, "path": None}, status=400)
        except Exception as e:  # the database or the collector failed: nothing was stored
            traceback.print_exc()
            return _json({"error": "not stored: %s: %s" % (type(e).__name__, e), "file": None, "path": None},
                         status=500)
        return _json({"id": rid, "run": run_name, "machine": mid, "status": status},
                     status=201 if status == "stored" else 200)

    # ---- JSON reads ---------------------------------------------------------------------
    async def get_runs(self, request):
        return _json(await self.call(list_runs, self.db))

    async def get_outliers(self, request):
        k = float(request.query.get("k", fleet.K_DEFAULT))
        return _json(await self.call(fleet.outliers, self.db, k))

    async def get_reference(self, request):
        cpu = request.query.get("cpu")
        if not cpu:
            return _json({"error": "cpu= (the CPU signature, e.g. 0x60fb1) is required"}, status=400)
        tid = await self.call(fleet.find_type, self.db, cpu, request.query.get("memory"))
        if tid is None:
            return _json({"error": "no machine type with CPU signature %s" % cpu}, status=404)
        ref = await self.call(fleet.reference_table, self.db, tid)
        if ref is None:
            return _json({"error": "type %d has no latency table" % tid}, status=404)
        return _json(ref[0])

    # ---- pages ------------------------------------------------------------------------
    async def page_fleet(self, request):
        return _html(await self.call(render_fleet, self.db))

    async def page_machine(self, request):
        return _html(await self.call(render_machine, self.db, int(request.match_info["id"])))

    async def page_type(self, request):
        return _html(await self.call(render_type, self.db, int(request.match_info["id"])))


def _html(text):
    if text is None:
        raise web.HTTPNotFound()
    return web.Response(text=text, content_type="text/html", charset="utf-8")


def make_app(db, threads=4, strict=False):
    s = Service(db, threads, strict)
    app = web.Application(client_max_size=runs.MAX_BODY + (1 << 20))
    app.add_routes([web.post("/api/v1/runs", s.post_run), web.get("/api/v1/runs", s.get_runs),
                    web.get("/api/v1/outliers", s.get_outliers), web.get("/api/v1/reference", s.get_reference),
                    web.get("/", s.page_fleet), web.get("/machine/{id:[0-9]+}", s.page_machine),
                    web.get("/type/{id:[0-9]+}", s.page_type)])
    return app


def list_runs(db):
    rows = db.query("SELECT r.id, r.name, r.machine_id, m.key, r.received, r.source, r.content_hash,"
                    " t.cpu_signature, t.memory_population, (SELECT COUNT(*) FROM files f WHERE f.run_id = r.id)"
                    " FROM runs r JOIN machines m ON m.id = r.machine_id JOIN types t ON t.id = m.type_id ORDER BY r.id")
    return [{"id": r[0], "run": r[1], "machine": r[2], "machine_key": r[3], "received": r[4], "source": r[5],
             "hash": r[6], "cpu": r[7], "memory_population": r[8], "files": r[9]} for r in rows]


# ---- HTML ------------------------------------------------------------------------------------
E = html.escape
STYLE = ("<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}"
         "td,th{border:1px solid #bbb;padding:2px 6px;text-align:left}.outlier{background:#fdd}"
         ".rejected{background:#fec}</style>")


def _page(title, body):
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>%s</head><body>"
            "<p><a href='/'>fleet</a></p><h1>%s</h1>%s</body></html>" % (E(title), STYLE, E(title), body))


def render_fleet(db):
    out = fleet.outliers(db)
    types = fleet.fleet_types(db)
    b = ["<h2>Outliers (median &plusmn; %g &times; 1.4826 MAD)</h2>" % out["k"]]
    if out["machines"]:
        b.append("<table id='outliers'><tr><th>machine</th><th>type</th><th>worst figure</th>"
                 "<th>value</th><th>type median</th><th>likely cause</th></tr>")
        for o in out["machines"]:
            f = o["figures"][0]
            b.append("<tr class='outlier'><td><a href='/machine/%d'>%s</a></td><td><a href='/type/%d'>%s %s</a></td>"
                     "<td>%s</td><td>%.3f</td><td>%.3f</td><td>%s</td></tr>"
                     % (o["machine"], E(str(o["key"])), o["type"], E(str(o["cpu"])), E(str(o["memory_population"])),
                        E(f["figure"]), f["value"], f["median"], E("; ".join(o["likely_cause"]))))
        b.append("</table>")
    else:
        b.append("<p id='no-outliers'>none</p>")
    b.append("<h2>Machine types</h2><table id='types'><tr><th>type</th><th>CPU</th><th>memory</th>"
             "<th>machines</th><th>runs</th></tr>")
    for t in types:
        b.append("<tr><td><a href='/type/%d'>type %d</a></td><td>%s %s</td><td>%s</td><td>%d</td><td>%d</td></tr>"
                 % (t["id"], t["id"], E(str(t["cpu"])), E(str(t["brand"])), E(str(t["memory_population"])),
                    t["machines"], t["runs"]))
    b.append("</table><h2>Machines</h2><table id='machines'><tr><th>machine</th><th>type</th><th>runs</th></tr>")
    for mid, key, tid, n in db.query("SELECT m.id, m.key, m.type_id, COUNT(r.id) FROM machines m JOIN runs r"
                                     " ON r.machine_id = m.id GROUP BY m.id, m.key, m.type_id ORDER BY m.id LIMIT 500"):
        b.append("<tr><td><a href='/machine/%d'>%s</a></td><td>%d</td><td>%d</td></tr>" % (mid, E(key), tid, n))
    b.append("</table><h2>Rejected uploads</h2><table id='rejects'><tr><th>time</th><th>client</th><th>run</th>"
             "<th>error</th><th>file</th><th>path</th></tr>")
    for r in db.query("SELECT received, client, run, error, file, path FROM rejects ORDER BY id DESC LIMIT 50"):
        b.append("<tr class='rejected'><td>%s</td><td>%s</td><td>%s</td><td>rejected: %s</td><td>%s</td><td>%s</td></tr>"
                 % tuple(E(str(x)) if x is not None else "" for x in r))
    b.append("</table>")
    return _page("pmucal fleet", "".join(b))


def svg_curve(series, xlabel, ylabel, logx=True):
    """An SVG line chart of [(label, [(x, y)])]."""
    pts = [p for _, s in series for p in s if p[0] > 0 and p[1] is not None]
    if not pts:
        return "<p>no curve</p>"
    W, H, L, B = 640, 320, 60, 40
    fx = (lambda x: math.log2(x)) if logx else (lambda x: x)
    x0, x1 = min(fx(p[0]) for p in pts), max(fx(p[0]) for p in pts)
    y0, y1 = 0.0, max(p[1] for p in pts) * 1.05 or 1.0
    sx = lambda x: L + (fx(x) - x0) / ((x1 - x0) or 1) * (W - L - 10)
    sy = lambda y: H - B - (y - y0) / ((y1 - y0) or 1) * (H - B - 10)
    colors = ["#c00", "#06c", "#080", "#a60", "#808", "#088"]
    o = ["<svg xmlns='http://www.w3.org/2000/svg' class='curve' width='%d' height='%d'>" % (W, H),
         "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>" % (L, H - B, W - 10, H - B),
         "<line x1='%d' y1='10' x2='%d' y2='%d' stroke='black'/>" % (L, L, H - B),
         "<text x='%d' y='%d'>%s</text>" % (W // 2 - 60, H - 8, E(xlabel)),
         "<text x='4' y='20'>%s</text>" % E(ylabel),
         "<text x='4' y='%d'>%.1f</text>" % (sy(y1 / 1.05) + 4, y1 / 1.05)]
    for i, (label, s) in enumerate(series):
        s = [p for p in s if p[0] > 0 and p[1] is not None]
        if not s:
            continue
        c = colors[i % len(colors)]
        o.append("<polyline fill='none' stroke='%s' points='%s'/>" % (c, " ".join("%.1f,%.1f" % (sx(x), sy(y)) for x, y in s)))
        o.append("<text x='%d' y='%d' fill='%s'>%s</text>" % (L + 10, 24 + 14 * i, c, E(label)))
    o.append("</svg>")
    return "".join(o)


def _csv(content):
    return list(csv.DictReader(io.StringIO(bytes(content).decode("utf-8", "replace"))))


def _num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def render_machine(db, mid):
    m = db.query("SELECT key, key_source, uuid, serial, manufacturer, product, board, bios_vendor, bios_version,"
                 " cpu_signature, microcode, memory_population, memory_source, type_id FROM machines WHERE id = ?", (mid,))
    if not m:
        return None
    m = m[0]
    names = ["key", "identified by", "SMBIOS UUID", "serial", "manufacturer", "product", "board", "BIOS vendor",
             "BIOS version", "CPU signature", "microcode", "memory population", "memory from", "type"]
    b = ["<table id='identity'>"] + ["<tr><th>%s</th><td>%s</td></tr>" % (E(n), E(str(v))) for n, v in zip(names, m)]
    b.append("</table>")
    for rid, name, received, prefetchers, ucode, bios in db.query(
            "SELECT id, name, received, prefetchers, microcode, bios_version FROM runs WHERE machine_id = ? ORDER BY id", (mid,)):
        b.append("<h2 class='run'>run %d %s</h2><p>received %s; microcode %s; BIOS %s; prefetchers %s</p>"
                 % (rid, E(str(name)), E(received), E(str(ucode)), E(str(bios)), E(str(prefetchers))))
        files = dict(db.query("SELECT name, content FROM files WHERE run_id = ? AND name IN ('latency-curve.csv', 'tlb-curve.csv')", (rid,)))
        if "latency-curve.csv" in files:
            rows = _csv(files["latency-curve.csv"])
            b.append(svg_curve([("p50", [(_num(r.get("ws_bytes")), _num(r.get("p50_ns"))) for r in rows]),
                                ("p10", [(_num(r.get("ws_bytes")), _num(r.get("p10_mtick")) and _num(r.get("p10_mtick")) / 1000
                                          * (_num(r.get("p50_ns")) or 0) / (_num(r.get("p50_tsc_ticks")) or 1)) for r in rows])],
                               "working set (bytes, log2)", "latency ns"))
        if "tlb-curve.csv" in files:
            series = {}
            for r in _csv(files["tlb-curve.csv"]):
                series.setdefault("%s %s %s" % (r.get("side"), r.get("page_bytes"), r.get("pte")), []).append(
                    (_num(r.get("n_pages")), (_num(r.get("p50_mtick")) or 0) / 1000))
            b.append(svg_curve(sorted(series.items()), "pages (log2)", "TSC ticks"))
        figs = db.query("SELECT name, value FROM figures WHERE run_id = ? ORDER BY name", (rid,))
        b.append("<details><summary>figures</summary><table>%s</table></details>"
                 % "".join("<tr><td>%s</td><td>%.3f</td></tr>" % (E(n), v) for n, v in figs))
    return _page("machine %d" % mid, "".join(b))


def render_type(db, tid):
    t = db.query("SELECT cpu_signature, cpu_brand, memory_population FROM types WHERE id = ?", (tid,))
    if not t:
        return None
    cpu, brand, pop = t[0]
    b = ["<p>CPU %s (%s), memory %s</p>" % (E(str(cpu)), E(str(brand)), E(str(pop)))]
    ref = fleet.reference_table(db, tid)
    if ref:
        _, n, spread = ref
        b.append("<p>reference from %d machines: <a href='/api/v1/reference?cpu=%s&amp;memory=%s'>latency-table.json</a></p>"
                 % (n, E(urllib.parse.quote(str(cpu))), E(urllib.parse.quote(str(pop)))))
        b.append("<table id='reference'><tr><th>level</th><th>machines</th><th>median p50 ns</th>"
                 "<th>p10 across machines</th><th>p90 across machines</th><th>MAD ns</th></tr>")
        for r in spread:
            b.append("<tr><td>%s</td><td>%d</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td></tr>"
                     % (E(r["level"]), r["machines"], r["median_ns"], r["p10_ns"], r["p90_ns"], r["mad_ns"]))
        b.append("</table>")
    b.append("<h2>Machines</h2><ul>")
    for mid, key in db.query("SELECT id, key FROM machines WHERE type_id = ? ORDER BY id LIMIT 500", (tid,)):
        b.append("<li><a href='/machine/%d'>%s</a></li>" % (mid, E(key)))
    b.append("</ul>")
    return _page("type %d" % tid, "".join(b))
