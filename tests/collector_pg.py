"""A throw-away PostgreSQL server for the collector's tests and bench: initdb and pg_ctl
(Debian's postgresql package) in a temporary folder, listening only on a unix socket in that
folder (no TCP at all). Run as root, the server runs as the postgres user (initdb refuses root)."""
import glob
import os
import pwd
import shutil
import subprocess
import tempfile


def pg_bin():
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    return None


class TempPostgres:
    def __init__(self, extra_conf=""):
        self.bin = pg_bin()
        if not self.bin:
            raise RuntimeError("no initdb (Debian package postgresql)")
        self.dir = tempfile.mkdtemp(prefix="pmucal-pg-")
        self.data = os.path.join(self.dir, "data")
        self.user = None
        if os.getuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            os.chmod(self.dir, 0o755)
            self.user = "postgres"
        self.role = self.user or pwd.getpwuid(os.getuid()).pw_name
        self._run([os.path.join(self.bin, "initdb"), "-D", self.data, "-A", "trust", "-U", self.role,
                   "--no-sync", "-E", "UTF8"])
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("listen_addresses = ''\nunix_socket_directories = '%s'\nfsync = off\n"
                    "synchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n%s\n"
                    % (self.dir, extra_conf))
        self._run([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-l", os.path.join(self.dir, "log"),
                   "-w", "-t", "120", "start"])
        self.url = "postgresql:///postgres?host=%s&user=%s" % (self.dir, self.role)

    def _run(self, cmd):
        if self.user:
            cmd = ["runuser", "-u", self.user, "--"] + cmd
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def new_db(self, name):
        """URL of a new empty database @name."""
        import psycopg2
        c = psycopg2.connect(self.url)
        c.autocommit = True
        c.cursor().execute("CREATE DATABASE %s" % name)
        c.close()
        return "postgresql:///%s?host=%s&user=%s" % (name, self.dir, self.role)

    def stop(self):
        try:
            self._run([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
