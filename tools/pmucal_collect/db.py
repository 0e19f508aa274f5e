"""Database access for the collector: SQLite (default) or PostgreSQL, one small dialect layer,
and the versioned schema migrations (table schema_migrations)."""
import io
import os
import sqlite3
import struct
import threading
import time
import urllib.parse

# Each migration: (version, [statements]); "{id}" is the auto-increment primary key and
# "{blob}" the binary type of the dialect; a statement given as (dialect, sql) runs on that
# dialect only ("pg" or "sqlite"). Never edit a landed migration: add the next.
MIGRATIONS = [
    (1, [
        """CREATE TABLE types (
             id {id}, key TEXT NOT NULL UNIQUE, cpu_vendor TEXT, cpu_signature TEXT,
             cpu_brand TEXT, memory_population TEXT)""",
        """CREATE TABLE machines (
             id {id}, key TEXT NOT NULL UNIQUE, key_source TEXT NOT NULL,
             type_id INTEGER NOT NULL REFERENCES types(id),
             uuid TEXT, serial TEXT, manufacturer TEXT, product TEXT, board TEXT,
             bios_vendor TEXT, bios_version TEXT, cpu_signature TEXT, microcode TEXT,
             memory_population TEXT, memory_source TEXT, latest_run_id INTEGER,
             first_seen TEXT NOT NULL)""",
        """CREATE TABLE runs (
             id {id}, machine_id INTEGER NOT NULL REFERENCES machines(id), name TEXT,
             content_hash TEXT NOT NULL UNIQUE, received TEXT NOT NULL, source TEXT NOT NULL,
             bios_version TEXT, microcode TEXT, prefetchers TEXT, memory_detail TEXT,
             pmucal_version TEXT, run_date TEXT)""",
        "CREATE INDEX runs_machine ON runs(machine_id)",
        """CREATE TABLE files (
             run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
             sha256 TEXT NOT NULL, size INTEGER NOT NULL, content {blob} NOT NULL,
             PRIMARY KEY (run_id, name))""",
        """CREATE TABLE figures (
             run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,
             value DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, name))""",
        """CREATE TABLE rejects (
             id {id}, received TEXT NOT NULL, client TEXT, run TEXT, error TEXT NOT NULL,
             file TEXT, path TEXT)""",
    ]),
    (2, [
        # results files are stored as they came: on PostgreSQL without TOAST compression,
        # which took half of the server's time of an upload (pglz over ~110 KB a run)
        ("pg", "ALTER TABLE files ALTER COLUMN content SET STORAGE EXTERNAL"),
    ]),
]


class Db:
    """A connection factory for one database URL: sqlite:///path or postgresql://..."""

    def __init__(self, url):
        self.url = url
        u = urllib.parse.urlsplit(url)
        if u.scheme == "sqlite":
            self.kind = "sqlite"
            self.path = u.path if u.netloc == "" else "/" + u.netloc + u.path
            if url.startswith("sqlite:///"):
                self.path = url[len("sqlite://"):]
            if not self.path or self.path == "/":
                raise SystemExit("pmucal-collect: %s: sqlite URL needs a path (sqlite:///path.db)" % url)
        elif u.scheme in ("postgresql", "postgres"):
            self.kind = "pg"
            import psycopg2  # python3-psycopg2
            import psycopg2.pool
            self._pg = psycopg2
            self._pool = None
            self._pool_lock = threading.Lock()
        else:
            raise SystemExit("pmucal-collect: %s: the database URL must be sqlite:///... or postgresql://..." % url)
        self._local = threading.local()

    # -- connections -------------------------------------------------------------------
    def connect(self):
        """This thread's connection (one per thread, kept)."""
        c = getattr(self._local, "conn", None)
        if c is not None:
            return c
        if self.kind == "sqlite":
            c = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA synchronous=NORMAL")
            c.execute("PRAGMA foreign_keys=ON")
        else:
            c = self._pg.connect(self.url)
        self._local.conn = c
        return c

    def close(self):
        c = getattr(self._local, "conn", None)
        if c is not None:
            c.close()
            self._local.conn = None

    def q(self, sql):
        """@sql written with ? placeholders, in this dialect."""
        return sql if self.kind == "sqlite" else sql.replace("?", "%s")

    def begin(self, c):
        if self.kind == "sqlite":
            c.execute("BEGIN IMMEDIATE")

    def commit(self, c):
        if self.kind == "sqlite":
            c.execute("COMMIT")
        else:
            c.commit()

    def rollback(self, c):
        try:
            if self.kind == "sqlite":
                if c.in_transaction:
                    c.execute("ROLLBACK")
            else:
                c.rollback()
        except Exception:
            pass

    def is_unique_violation(self, e):
        if self.kind == "sqlite":
            return isinstance(e, sqlite3.IntegrityError) and "UNIQUE" in str(e)
        return isinstance(e, self._pg.IntegrityError) and getattr(e, "pgcode", None) == "23505"

    def insert_id(self, cur, sql, args):
        """Run an INSERT and return the new row's id."""
        if self.kind == "sqlite":
            cur.execute(sql, args)
            return cur.lastrowid
        cur.execute(self.q(sql) + " RETURNING id", args)
        return cur.fetchone()[0]

    def insert_rows(self, cur, table, cols, rows):
        """INSERT @rows (tuples in the order of @cols) into @table: one statement on
        PostgreSQL (a multi-row VALUES list: one round trip, not one per row)."""
        if self.kind == "sqlite":
            cur.executemany("INSERT INTO %s (%s) VALUES (%s)" % (table, ", ".join(cols), ", ".join("?" * len(cols))), rows)
        elif rows:
            from psycopg2.extras import execute_values
            execute_values(cur, "INSERT INTO %s (%s) VALUES %%s" % (table, ", ".join(cols)), rows, page_size=1000)

    def insert_files(self, cur, rows):
        """INSERT the (run_id, name, sha256, size, content) @rows into files. On PostgreSQL
        with COPY in its binary format: the content goes as it is, where a bytea literal
        in an INSERT doubles it into hex text for the server to parse back."""
        if self.kind == "sqlite":
            return self.insert_rows(cur, "files", ("run_id", "name", "sha256", "size", "content"), rows)
        out = [b"PGCOPY\n\xff\r\n\0", struct.pack("!ii", 0, 0)]
        for run_id, name, sha, size, content in rows:
            n, h = name.encode(), sha.encode()
            out.append(struct.pack("!hii", 5, 4, run_id))
            out.append(struct.pack("!i", len(n)) + n + struct.pack("!i", len(h)) + h)
            out.append(struct.pack("!iii", 4, size, len(content)))
            out.append(bytes(content))
        out.append(struct.pack("!h", -1))
        cur.copy_expert("COPY files (run_id, name, sha256, size, content) FROM STDIN WITH (FORMAT binary)",
                        io.BytesIO(b"".join(out)))

    def query(self, sql, args=()):
        """All rows of a read-only query, in its own short transaction."""
        c = self.connect()
        cur = c.cursor()
        try:
            cur.execute(self.q(sql), args)
            rows = cur.fetchall()
        finally:
            if self.kind == "pg":
                c.rollback()
        return rows

    # -- migrations ----------------------------------------------------------------------
    def migrate(self):
        """Apply the migrations not yet recorded in schema_migrations; returns the version."""
        c = self.connect()
        cur = c.cursor()
        idt = "INTEGER PRIMARY KEY AUTOINCREMENT" if self.kind == "sqlite" else "BIGSERIAL PRIMARY KEY"
        blob = "BLOB" if self.kind == "sqlite" else "BYTEA"
        self.begin(c)
        try:
            if self.kind == "pg":
                # one migrator at a time, whichever process starts first
                cur.execute("SELECT pg_advisory_xact_lock(764227)")
            cur.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)")
            cur.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
            have = cur.fetchone()[0]
            for version, stmts in MIGRATIONS:
                if version <= have:
                    continue
                for s in stmts:
                    if isinstance(s, tuple):
                        if s[0] != self.kind:
                            continue
                        s = s[1]
                    cur.execute(s.replace("{id}", idt).replace("{blob}", blob))
                cur.execute(self.q("INSERT INTO schema_migrations (version, applied) VALUES (?, ?)"),
                            (version, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
                have = version
            self.commit(c)
        except BaseException:
            self.rollback(c)
            raise
        return have


def open_db(url):
    if "://" not in url:  # a bare path is an SQLite file
        url = "sqlite:///" + os.path.abspath(url)
    db = Db(url)
    db.migrate()
    return db
