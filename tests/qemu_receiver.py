"""A loopback stand-in for the collector's upload endpoint (docs/collector.md: POST
/api/v1/runs with the framed application/x-pmucal-run body), for the netboot QEMU cases: it
parses the framing strictly, answers 500 to the first `fail_first` uploads and 201 after, and
records every request it saw. Listens on 127.0.0.1 only; serves in a thread until stopped."""
import http.server
import json
import threading

NAMES_OK = ("inventory.json", "latency-table.json", "processors.json", "c2c.json",
            "numa-matrix.json", "tlb-table.json", "pmu-validation.json",
            "sampling-validation.json", "report.txt", "latency-curve.csv", "tlb-curve.csv",
            "cpuid.txt", "idregs.txt", "smbios.dat")


def parse_framed(body):
    """(run, {name: bytes}) from a framed body, or raise ValueError saying what is wrong."""
    lines = body.split(b"\n", 1)
    if lines[0] != b"pmucal-run 1" or len(lines) < 2:
        raise ValueError("no 'pmucal-run 1' header line")
    rest, run, files = lines[1], None, {}
    if rest.startswith(b"run "):
        line, rest = rest.split(b"\n", 1)
        run = line[4:].decode()
    while True:
        if rest == b"end\n":
            return run, files
        if not rest.startswith(b"name "):
            raise ValueError("expected a 'name' frame or 'end', got %r" % rest[:40])
        line, rest = rest.split(b"\n", 1)
        _, name, n = line.decode().split(" ")
        n = int(n)
        if len(rest) < n + 1 or rest[n:n + 1] != b"\n":
            raise ValueError("frame %s: %d bytes not followed by a newline" % (name, n))
        ok = name in NAMES_OK or (name.startswith("acpi-") and name.endswith(".dat"))
        if not ok or name in files:
            raise ValueError("frame name %r not allowed or repeated" % name)
        files[name] = rest[:n]
        rest = rest[n + 1:]


class Receiver:
    def __init__(self, fail_first=0):
        self.fail_first = fail_first
        self.requests = []  # (path, content-type, parsed files or error text)
        self.stored = None
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n) if 0 < n <= 64 << 20 else b""
                ctype = self.headers.get("Content-Type", "")
                try:
                    if self.path != "/api/v1/runs" or ctype != "application/x-pmucal-run":
                        raise ValueError("path %s, type %s" % (self.path, ctype))
                    run, files = parse_framed(body)
                    outer.requests.append((self.path, ctype, sorted(files)))
                except ValueError as e:
                    outer.requests.append((self.path, ctype, str(e)))
                    return self.answer(400, {"error": str(e), "file": None, "path": None})
                if len(outer.requests) <= outer.fail_first:
                    return self.answer(500, {"error": "database unavailable (test)"})
                outer.stored = (run, files)
                self.answer(201, {"id": 1, "run": run, "machine": 1, "status": "stored"})

            def answer(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.timeout = 1
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Mute:
    """A collector that accepts every connection and never answers: the connections are held
    open until stop(); `accepted` counts them."""

    def __init__(self):
        import socket
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held = []
        self.accepted = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            self.accepted += 1

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        import socket
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        for c in self.held:
            c.close()


def free_port():
    """A loopback port nothing listens on (bound, then closed): a collector that is down."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_collector(db, port):
    """tools/pmucal-collect serve --strict (pmucal's own files: nothing undocumented) on
    127.0.0.1:port over @db; returns once it accepts connections (at most 60 s), or raises."""
    import os
    import socket
    import subprocess
    import time
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.Popen([os.path.join(root, "tools", "pmucal-collect"), "serve", "--db", db,
                          "--listen", "127.0.0.1:%d" % port, "--strict"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    t0 = time.time()
    while time.time() - t0 < 60:
        if p.poll() is not None:
            raise RuntimeError("pmucal-collect serve ended with status %d" % p.returncode)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p
        except OSError:
            time.sleep(0.3)
    p.terminate()
    raise RuntimeError("pmucal-collect serve did not listen within 60 s")
