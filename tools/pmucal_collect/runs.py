"""One run: its files checked (names, JSON against docs/schemas), the machine it came from,
the figures the fleet analysis compares, and the all-or-nothing store (docs/collector.md)."""
import hashlib
import json
import os
import re
import struct
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import check_schemas  # noqa: E402  (the validator of tests/check_schemas.py, reused)
import schema_codegen  # noqa: E402  (the same schemas compiled into plain Python checks)

KNOWN = {"inventory.json", "latency-table.json", "processors.json", "c2c.json",
         "numa-matrix.json", "tlb-table.json", "pmu-validation.json",
         "sampling-validation.json", "report.txt", "latency-curve.csv", "tlb-curve.csv",
         "cpuid.txt", "idregs.txt", "smbios.dat"}
ACPI_NAME = re.compile(r"^acpi-[A-Za-z0-9_]{4}(-[0-9]+)?\.dat$")
REQUIRED = ("inventory.json",)
MAX_BODY = 64 << 20

_schemas = None
_compiled = {}
_type_ids = {}      # {(database URL, type key): id} of the types this process saw committed
_local = threading.local()


def _load():
    global _schemas
    if _schemas is None:
        _schemas = check_schemas.load_schemas()
    return _schemas


def validators(strict):
    """This thread's jsonschema validators (@strict: the rule of pmucal's own files, else the
    readers' open rule): jsonschema's $ref resolver keeps a scope stack, so one validator set
    must not be shared by threads validating at once."""
    v = getattr(_local, "validators", None)
    if v is None:
        v = _local.validators = {}
    if strict not in v:
        v[strict] = check_schemas.make_validators(_load(), strict=strict)
    return v[strict]


def compiled(strict):
    """The schemas compiled once per process (tests/schema_codegen.py): plain functions with
    no state, shared by every thread."""
    if strict not in _compiled:
        _compiled[strict] = schema_codegen.compile_schemas(
            {n: (check_schemas.strict_copy(s) if strict else s) for n, (_, s) in _load().items()})
    return _compiled[strict]


class Reject(Exception):
    """An upload refused: HTTP 400 with {"error", "file", "path"}."""

    def __init__(self, error, file=None, path=None, status=400):
        super().__init__(error)
        self.error, self.file, self.path, self.status = error, file, path, status

    def body(self):
        return {"error": self.error, "file": self.file, "path": self.path}


def known_name(name):
    return name in KNOWN or bool(ACPI_NAME.match(name))


# ---- the framed body (application/x-pmucal-run) -------------------------------------------

def parse_framed(body):
    """(run name or None, {name: bytes}) from a framed body; Reject when malformed."""
    if not body.startswith(b"pmucal-run 1\n"):
        raise Reject('framed body does not start with "pmucal-run 1"')
    pos = len(b"pmucal-run 1\n")
    run, files = None, {}
    while True:
        nl = body.find(b"\n", pos)
        if nl < 0:
            raise Reject('framed body ends before "end"')
        line = body[pos:nl].decode("ascii", "replace")
        pos = nl + 1
        if line == "end":
            if pos != len(body):
                raise Reject("framed body has %d bytes after \"end\"" % (len(body) - pos))
            return run, files
        f = line.split(" ")
        if f[0] == "run" and len(f) == 2 and run is None:
            run = f[1]
            continue
        if f[0] != "name" or len(f) != 3 or not f[2].isdigit():
            raise Reject("framed body: bad frame header %r" % line[:80])
        name, n = f[1], int(f[2])
        check_name(name)
        if name in files:
            raise Reject("file sent twice", name)
        if pos + n + 1 > len(body):
            raise Reject("framed body ends inside the file (%d bytes announced)" % n, name)
        if body[pos + n:pos + n + 1] != b"\n":
            raise Reject("framed body: file not followed by a newline", name)
        files[name] = body[pos:pos + n]
        pos += n + 1


def encode_framed(files, run=None):
    out = [b"pmucal-run 1\n"]
    if run:
        out.append(b"run %s\n" % run.encode())
    for name in sorted(files):
        out.append(b"name %s %d\n" % (name.encode(), len(files[name])))
        out.append(files[name])
        out.append(b"\n")
    out.append(b"end\n")
    return b"".join(out)


def check_name(name):
    if not name or "/" in name or "\\" in name or ".." in name or name.startswith("."):
        raise Reject("file name not allowed", name)
    if not known_name(name):
        raise Reject("not a pmucal results file", name)


def check_run_name(run):
    if run is not None and not re.match(r"^[A-Za-z0-9._-]{1,128}$", run):
        raise Reject("run name not allowed: %r" % run[:80])


# ---- validation and reduction --------------------------------------------------------------

def validate(files, strict=False):
    """{name: parsed JSON} after every JSON file validated; Reject naming the first failure.
    The open rule (@strict false) is the readers' of docs/versioning.md: a later minor's
    members and open enum values pass; @strict also refuses what the schemas do not document.
    The compiled checks decide; a file they refuse goes through jsonschema, whose first error
    names the JSON path."""
    for r in REQUIRED:
        if r not in files:
            raise Reject("the run has no %s" % r, r)
    docs = {}
    fast = compiled(strict)
    for name in sorted(files):
        check_name(name)
        if not name.endswith(".json"):
            continue
        try:
            doc = json.loads(files[name].decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise Reject("not JSON: %s" % e, name, "$")
        if not schema_codegen.check_doc(doc, fast):
            errs = check_schemas.validate_doc(doc, validators(strict))
            if errs:
                path, msg = errs[0]
                raise Reject("schema: %s" % msg, name, path)
        docs[name] = doc
    return docs


def content_hash(files):
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return h.hexdigest()


def smbios_type17(raw):
    """[(size_mib, speed_mts, locator)] of the populated type 17 records of a raw SMBIOS
    structure table (SMBIOS 3.x, 7.18), or None when @raw holds no type 17 record."""
    out, pos, seen = [], 0, False
    strs_all = []
    while pos + 4 <= len(raw):
        typ, length = raw[pos], raw[pos + 1]
        if length < 4 or pos + length > len(raw):
            break
        fmt = raw[pos:pos + length]
        end = raw.find(b"\0\0", pos + length)
        if end < 0:
            break
        strs = raw[pos + length:end].split(b"\0")
        strs_all.append(strs)
        if typ == 17 and length >= 0x15:
            seen = True
            size = struct.unpack_from("<H", fmt, 0x0C)[0]
            if size == 0x7FFF and length >= 0x20:
                size = struct.unpack_from("<I", fmt, 0x1C)[0]
            elif size not in (0, 0xFFFF) and size & 0x8000:
                size = (size & 0x7FFF) // 1024  # KiB granularity
            speed = struct.unpack_from("<H", fmt, 0x15)[0] if length >= 0x17 else 0
            li = fmt[0x10]
            loc = strs[li - 1].decode("ascii", "replace") if 0 < li <= len(strs) else ""
            if size not in (0, 0xFFFF):
                out.append((size, speed, loc))
        if typ == 127:
            break
        pos = end + 2
    return out if seen else None


def smbios_serial(raw):
    """The type 1 serial number string of a raw SMBIOS table, or None."""
    pos = 0
    while pos + 4 <= len(raw):
        typ, length = raw[pos], raw[pos + 1]
        if length < 4 or pos + length > len(raw):
            return None
        end = raw.find(b"\0\0", pos + length)
        if end < 0:
            return None
        if typ == 1 and length >= 8:
            strs = raw[pos + length:end].split(b"\0")
            i = raw[pos + 7]
            s = strs[i - 1].decode("ascii", "replace").strip() if 0 < i <= len(strs) else ""
            return s or None
        pos = end + 2
    return None


def memory_population(inv, smbios_raw):
    """(population text, source, detail) of the machine's memory."""
    dimms = smbios_type17(smbios_raw) if smbios_raw else None
    if dimms:
        groups = {}
        for size, speed, _ in dimms:
            groups[(size, speed)] = groups.get((size, speed), 0) + 1
        pop = "+".join("%dx%s@%s" % (n, ("%dGiB" % (s // 1024)) if s % 1024 == 0 else "%dMiB" % s, sp or "?")
                       for (s, sp), n in sorted(groups.items()))
        detail = ", ".join("%s %dMiB@%s" % (loc or "?", s, sp or "?") for s, sp, loc in dimms)
        return pop, "smbios type 17", detail
    sm = inv.get("smbios") or {}
    if sm.get("memory_populated") is not None:
        pop = "%s devices, %s bytes" % (sm.get("memory_populated"), sm.get("memory_bytes"))
        return pop, "inventory (no type 17)", pop
    mem = sum(n.get("memory_bytes") or 0 for n in ((inv.get("numa") or {}).get("node_list") or []))
    pop = "unknown population, %d bytes in SRAT" % mem if mem else "unknown"
    return pop, "no SMBIOS memory devices", pop


def identity(docs, files):
    """The machine's identity and type, from the inventory and smbios.dat."""
    inv = docs["inventory.json"]
    sm = inv.get("smbios") or {}
    cpu = inv.get("cpu") or {}
    raw = files.get("smbios.dat")
    pop, pop_src, detail = memory_population(inv, raw)
    serial = smbios_serial(raw) if raw else None
    ident = {
        "uuid": sm.get("uuid"), "serial": serial, "manufacturer": sm.get("manufacturer"),
        "product": sm.get("product"),
        "board": " ".join(x for x in (sm.get("board_manufacturer"), sm.get("board_product")) if x) or None,
        "bios_vendor": sm.get("bios_vendor"), "bios_version": sm.get("bios_version"),
        "cpu_vendor": cpu.get("vendor") or cpu.get("vendor_string") or inv.get("arch"),
        "cpu_signature": cpu.get("signature") or "%s-%s-%s" % (cpu.get("family"), cpu.get("model"), cpu.get("stepping")),
        "cpu_brand": cpu.get("brand"), "microcode": cpu.get("microcode"),
        "memory_population": pop, "memory_source": pop_src, "memory_detail": detail,
    }
    if ident["uuid"]:
        ident["key"], ident["key_source"] = "uuid:" + ident["uuid"].lower(), "smbios uuid"
    elif serial and serial.lower() not in ("0", "none", "default string", "to be filled by o.e.m."):
        ident["key"], ident["key_source"] = "serial:%s:%s" % (ident["product"], serial), "smbios serial"
    else:
        apics = [c.get("apic_id") for c in ((inv.get("cpus") or {}).get("list") or [])[:4] if isinstance(c, dict)]
        h = hashlib.sha256(json.dumps([ident["manufacturer"], ident["product"], ident["board"],
                                       ident["cpu_signature"], pop, apics]).encode()).hexdigest()[:16]
        ident["key"], ident["key_source"] = "hash:" + h, "no UUID or serial: hash of product, board, CPU, memory"
    ident["type_key"] = json.dumps([ident["cpu_vendor"], ident["cpu_signature"], ident["cpu_brand"], pop])
    return ident


def _p50(stat):
    return stat.get("p50") if isinstance(stat, dict) else None


def figures(docs):
    """{figure name: value} compared across the fleet (docs/collector.md, Fleet analysis)."""
    out = {}

    def put(name, v):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v:
            out[name] = float(v)

    t = docs.get("latency-table.json")
    if t:
        for lv in t.get("levels") or []:
            v = _p50(lv.get("ns"))
            put("level.%s.p50_ns" % lv.get("name"), v)
            if str(lv.get("name", "")).upper().startswith("DRAM"):
                put("dram.%s.p50_ns" % lv.get("name"), v)
        numa = t.get("numa") or {}
        for d in numa.get("dram_levels") or []:
            put("dram.%s.p50_ns" % d.get("name"), _p50(d.get("ns")))
        for row in t.get("bandwidth_matrix") or []:
            for cell in row or []:
                if isinstance(cell, dict):
                    put("bw.%s.%s.gb_s" % (cell.get("cpu_node"), cell.get("memory_node")), cell.get("gb_s"))
        c2c = t.get("c2c") or {}
        for cl in c2c.get("classes") or []:
            put("c2c.%s.%s.p50_ns" % (cl.get("topology"), cl.get("kind")), _p50(cl.get("ns")))
    nm = docs.get("numa-matrix.json")
    if nm:
        for row in nm.get("matrix") or []:
            for cell in row if isinstance(row, list) else []:
                if isinstance(cell, dict) and "cpu_node" in cell:
                    put("numa.cell.%s.%s.p50_ns" % (cell.get("cpu_node"), cell.get("memory_node")), cell.get("p50_ns"))
    tl = docs.get("tlb-table.json")
    if tl:
        for cu in tl.get("curves") or []:
            for cl in cu.get("classes") or []:
                put("tlb.%s.%s.%s.lat_ns" % (cu.get("side"), cu.get("page_bytes"), cl.get("class")), cl.get("lat_ns"))
    return out


def run_facts(docs):
    t = docs.get("latency-table.json") or {}
    m = t.get("method") or {}
    return {"prefetchers": m.get("prefetchers"), "pmucal_version": m.get("pmucal_version"),
            "run_date": m.get("date")}


# ---- store ---------------------------------------------------------------------------------

def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def store(db, files, run_name, source, strict=False):
    """Validate (validate()'s @strict) and store one run, all or nothing. Returns (status, id,
    machine id) where status is "stored" or "duplicate"; raises Reject for an upload refused."""
    check_run_name(run_name)
    if not files:
        raise Reject("the upload carries no files")
    docs = validate(files, strict)
    ident = identity(docs, files)
    figs = figures(docs)
    facts = run_facts(docs)
    h = content_hash(files)
    c = db.connect()
    for attempt in range(5):
        cur = c.cursor()
        db.begin(c)
        try:
            cur.execute(db.q("SELECT id, machine_id FROM runs WHERE content_hash = ?"), (h,))
            row = cur.fetchone()
            if row:
                db.rollback(c)
                return "duplicate", row[0], row[1]
            type_id = _type_ids.get((db.url, ident["type_key"]))
            if type_id is None:
                type_id = _upsert(db, cur, "types", ident["type_key"],
                                  {"cpu_vendor": ident["cpu_vendor"], "cpu_signature": ident["cpu_signature"],
                                   "cpu_brand": ident["cpu_brand"], "memory_population": ident["memory_population"]})
            mcols = {k: ident[k] for k in ("key_source", "uuid", "serial", "manufacturer", "product", "board",
                                           "bios_vendor", "bios_version", "cpu_signature", "microcode",
                                           "memory_population", "memory_source")}
            mcols["type_id"] = type_id
            mcols["first_seen"] = now()
            mid = _upsert(db, cur, "machines", ident["key"], mcols)
            rid = db.insert_id(cur, "INSERT INTO runs (machine_id, name, content_hash, received, source, bios_version,"
                               " microcode, prefetchers, memory_detail, pmucal_version, run_date)"
                               " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               (mid, run_name, h, now(), source, ident["bios_version"], ident["microcode"],
                                facts["prefetchers"], ident["memory_detail"], facts["pmucal_version"],
                                facts["run_date"]))
            db.insert_files(cur, [(rid, n, hashlib.sha256(b).hexdigest(), len(b), b) for n, b in sorted(files.items())])
            db.insert_rows(cur, "figures", ("run_id", "name", "value"), [(rid, n, v) for n, v in sorted(figs.items())])
            # the machine's latest properties are those of its newest run
            cur.execute(db.q("UPDATE machines SET latest_run_id = ?, bios_version = ?, microcode = ?,"
                             " memory_population = ?, type_id = ? WHERE id = ?"),
                        (rid, ident["bios_version"], ident["microcode"], ident["memory_population"], type_id, mid))
            _fault_point()
            db.commit(c)
            _type_ids[(db.url, ident["type_key"])] = type_id  # committed: types are never deleted
            return "stored", rid, mid
        except Exception as e:
            db.rollback(c)
            if db.is_unique_violation(e) and attempt < 4:
                continue  # a concurrent upload made the same type, machine or run: look again
            raise


def _fault_point():
    """PMUCAL_COLLECT_FAULT=pause-in-transaction:FILE (the tests' fault injection): with the
    run written but not committed, create FILE and wait, so that a test can kill the
    collector inside the transaction."""
    f = os.environ.get("PMUCAL_COLLECT_FAULT", "")
    if f.startswith("pause-in-transaction:"):
        with open(f.split(":", 1)[1], "w") as m:
            m.write("%d\n" % os.getpid())
        time.sleep(120)


def _upsert(db, cur, table, key, cols):
    cur.execute(db.q("SELECT id FROM %s WHERE key = ?" % table), (key,))
    row = cur.fetchone()
    if row:
        return row[0]
    names = ["key"] + list(cols)
    if db.kind == "pg":
        # ON CONFLICT keeps the transaction alive when a concurrent upload inserted it first
        cur.execute("INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (key) DO NOTHING RETURNING id"
                    % (table, ", ".join(names), ", ".join(["%s"] * len(names))), [key] + list(cols.values()))
        row = cur.fetchone()
        if row:
            return row[0]
        cur.execute("SELECT id FROM %s WHERE key = %%s" % table, (key,))
        return cur.fetchone()[0]
    return db.insert_id(cur, "INSERT INTO %s (%s) VALUES (%s)" % (table, ", ".join(names), ", ".join("?" * len(names))),
                        [key] + list(cols.values()))


def record_reject(db, client, run, rej):
    c = db.connect()
    try:
        db.begin(c)
        c.cursor().execute(db.q("INSERT INTO rejects (received, client, run, error, file, path) VALUES (?, ?, ?, ?, ?, ?)"),
                           (now(), client, run, rej.error[:500], rej.file, rej.path))
        db.commit(c)
    except Exception:
        db.rollback(c)


def read_folder(path):
    """{name: bytes} of a results folder's pmucal files, and the names left out."""
    files, skipped = {}, []
    for name in sorted(os.listdir(path)):
        p = os.path.join(path, name)
        if not os.path.isfile(p):
            continue
        if known_name(name):
            with open(p, "rb") as f:
                files[name] = f.read()
        else:
            skipped.append(name)
    return files, skipped
