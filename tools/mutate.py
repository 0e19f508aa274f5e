#!/usr/bin/env python3
"""Mutation testing of the verdict, tolerance and detection code (make mutate).

Each mutant of tools/mutants.txt replaces one exact snippet of one source file (the snippet
must occur exactly once) by another. The mutants are applied one at a time to scratch copies
of the tree under build/mutate/ (never to the working tree), one copy per worker; each copy
keeps its own plain host unit-test build (make unit's flags), so a mutant costs one object,
the archive and the relinks of the test binaries that execute the mutated lines. Which those
are comes from one coverage run of every binary on the unmutated tree (a gcov build under
build/mutate/cov); a mutant of lines no test executes survives without being run, and one of
lines that are not code (a macro, a table row) runs every binary that contains the file (their
DWARF compilation units). The binaries run fastest first; the first that fails kills the
mutant. A binary that fails on the unmutated tree is left out of every run and named.

Per mutant: killed (and by which binary), survived, or one of the states that are not a
verdict on the tests: "stale" (its snippet no longer occurs exactly once: the code moved),
"no build" (the mutant does not compile). A mutant declared equivalent (an "=" line) is run
too: if a test kills it the declaration is wrong and it is reported.

Usage: tools/mutate.py [--jobs N] [--list tools/mutants.txt] [--only SUBSTRING] [--keep]
Exit status: 0 when every mutant was decided and the kill rate of the non-equivalent mutants
meets --target (default 90 %), 1 otherwise.
"""
import argparse
import collections
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "build", "mutate")
# make must keep the tests' objects (they are intermediates of the link rule) so that a
# mutant relinks instead of recompiling every test.
KEEP_MK = ".SECONDARY:\n"
# The slowest a binary may be before it counts as hung: the baseline's time times this, plus
# a constant for a busy machine; a binary that times out runs once more with RETRY_FACTOR
# times that before its timeout counts as a kill.
TIMEOUT_FACTOR = 5
TIMEOUT_SLACK_S = 20
RETRY_FACTOR = 4


class Mutant:
    def __init__(self, name, path, line):
        self.name, self.path, self.line = name, path, line
        self.orig = self.repl = None
        self.equivalent = None
        self.state, self.detail, self.secs = "pending", "", 0.0
        self.before = None   # --before: killed or survived by the tests of that commit


def unescape(s):
    return s.replace("\\n", "\n").replace("\\t", "\t")


def parse(list_path):
    """The list: '@ NAME FILE' opens a mutant, '- TEXT' is the original snippet, '+ TEXT' its
    replacement (empty for a deletion), '= WHY' declares it equivalent; '#' lines are
    comments. In TEXT, \\n and \\t stand for a newline and a tab."""
    mutants, cur, errors = [], None, []
    declared = {}
    with open(list_path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            tag, text = line[:1], line[2:] if len(line) > 1 else ""
            if tag == "%":
                parts = text.split()
                if len(parts) < 2:
                    errors.append("%s:%d: '%% FILE BINARY...' expected" % (list_path, n))
                else:
                    declared[parts[0]] = parts[1:]
                continue
            if tag == "@":
                parts = text.split()
                if len(parts) != 2:
                    errors.append("%s:%d: '@ NAME FILE' expected" % (list_path, n))
                    continue
                cur = Mutant(parts[0], parts[1], n)
                mutants.append(cur)
            elif cur is None:
                errors.append("%s:%d: line outside a mutant" % (list_path, n))
            elif tag == "-":
                cur.orig = unescape(text)
            elif tag == "+":
                cur.repl = unescape(text)
            elif tag == "=":
                cur.equivalent = text.strip()
            else:
                errors.append("%s:%d: unknown line %r" % (list_path, n, line))
    names = collections.Counter(m.name for m in mutants)
    errors += ["mutant name %s used %d times" % (k, v) for k, v in names.items() if v > 1]
    for m in mutants:
        if m.orig is None or m.repl is None:
            errors.append("%s:%d: mutant %s needs a '-' and a '+' line" % (list_path, m.line, m.name))
        elif m.orig == m.repl:
            errors.append("%s:%d: mutant %s changes nothing" % (list_path, m.line, m.name))
    return mutants, errors, declared


REV = None   # --rev: the tree is that commit's, not the working tree


def src_text(path):
    """The text of @p path in the tree under test (the working tree, or REV's)."""
    if REV:
        r = subprocess.run(["git", "-C", ROOT, "show", "%s:%s" % (REV, path)],
                           capture_output=True, text=True)
        return r.stdout if r.returncode == 0 else None
    p = os.path.join(ROOT, path)
    return open(p).read() if os.path.exists(p) else None


def tracked_files():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True,
                         capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def make_args(tree, targets):
    return ["make", "-C", tree, "--no-print-directory", "-s", "-f", "Makefile",
            "-f", os.path.join(WORK, "keep.mk"), "-j1"] + targets


def copy_tree(dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    if REV:
        os.makedirs(dst)
        arch = subprocess.Popen(["git", "-C", ROOT, "archive", REV], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", dst], stdin=arch.stdout, check=True)
        arch.wait()
        return
    for rel in tracked_files():
        src = os.path.join(ROOT, rel)
        if not os.path.lexists(src):
            continue
        d = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(src, d, follow_symlinks=False)


def stage_before(tree, rev, keep_mk):
    """Put the tests of commit @p rev that differ from @p tree's beside them, as
    tests/test_before_<name>.c with the same link set-up (variables in @p keep_mk); returns
    {binary: "same" | "changed" | "new" | "before"} for every tests/test_*.c."""
    kinds = {}
    for f in sorted(os.listdir(os.path.join(tree, "tests"))):
        if not (f.startswith("test_") and f.endswith(".c")) or f == "test_util.c":
            continue
        name = f[len("test_"):-2]
        r = subprocess.run(["git", "-C", ROOT, "show", "%s:tests/%s" % (rev, f)],
                           capture_output=True, text=True)
        now = open(os.path.join(tree, "tests", f)).read()
        if r.returncode:
            kinds["test_" + name] = "new"
        elif r.stdout == now:
            kinds["test_" + name] = "same"
        else:
            kinds["test_" + name] = "changed"
            with open(os.path.join(tree, "tests", "test_before_%s.c" % name), "w") as out:
                out.write(r.stdout)
            kinds["test_before_" + name] = "before"
            with open(keep_mk, "a") as mk:
                for v in ("MSR", "EXTRA", "LDFLAGS"):
                    mk.write("TEST_%s_before_%s = $(TEST_%s_%s)\n" % (v, name, v, name))
    return kinds


def test_bins(tree):
    d = os.path.join(tree, "build", "host", "tests")
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("test_"))


def units_of(binary):
    """The source files compiled into a binary: the names of its DWARF compilation units."""
    out = subprocess.run(["readelf", "--debug-dump=info", "--dwarf-depth=1", binary],
                         capture_output=True, text=True).stdout
    units = set()
    for line in out.splitlines():
        if "DW_AT_name" in line:
            name = line.rsplit(":", 1)[-1].strip()
            if name.endswith(".c") or name.endswith(".S"):
                units.add(os.path.normpath(name))
    return units


def includers(header):
    """The tracked C files that include @p header (by its path from the root)."""
    out = subprocess.run(["git", "-C", ROOT, "grep", "-l", "-F", '#include "%s"' % header] +
                         ([REV] if REV else []) + ["--", "*.c"],
                         capture_output=True, text=True).stdout
    if REV:
        out = "\n".join(l.split(":", 1)[-1] for l in out.split())
    return set(out.split())


def gcov_lines(tree, gcda):
    """{source: (executed lines, executable lines)} of one object's coverage data."""
    r = subprocess.run(["gcov", "-j", "-t", gcda], cwd=tree, capture_output=True, text=True)
    out, dec, i = {}, json.JSONDecoder(), 0
    text = r.stdout
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        try:
            doc, i = dec.raw_decode(text, i)
        except ValueError:
            break
        for f in doc.get("files", []):
            ex = {l["line_number"] for l in f["lines"] if l["count"] > 0}
            al = {l["line_number"] for l in f["lines"]}
            e0, a0 = out.get(f["file"], (set(), set()))
            out[f["file"]] = (e0 | ex, a0 | al)
    return out


def coverage(tree, sources, jobs):
    """Run every test binary of @p tree (a --coverage build), @p jobs at a time, each writing
    its coverage data under its own prefix: its exit status, its time and, for each file of
    @p sources it contains, the lines it executed."""
    obj = os.path.join(tree, "build", "test", "obj")
    strip = len(os.path.abspath(tree).strip("/").split("/"))
    res, lock, work = {}, threading.Lock(), queue.Queue()
    for b in test_bins(tree):
        work.put(b)

    def one(b):
        n = os.path.basename(b)
        pre = os.path.join(tree, "gcda", n)
        shutil.rmtree(pre, ignore_errors=True)
        env = dict(os.environ, GCOV_PREFIX=pre, GCOV_PREFIX_STRIP=str(strip))
        rc, secs = run_bin(tree, b, 900, env)
        lines = {}
        for src in sources:
            rel = os.path.join("build", "test", "obj", os.path.splitext(src)[0])
            gcda = os.path.join(pre, rel + ".gcda")
            if not os.path.exists(gcda):
                continue
            gcno = os.path.join(pre, rel + ".gcno")
            if not os.path.exists(gcno):
                os.symlink(os.path.join(tree, rel + ".gcno"), gcno)
            for f, v in gcov_lines(tree, gcda).items():
                if f == src:
                    lines[f] = v
        with lock:
            res[n] = (rc, secs, lines)

    def worker():
        while True:
            try:
                b = work.get_nowait()
            except queue.Empty:
                return
            one(b)

    ths = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    return res


def run_bin(tree, binary, timeout, env=None):
    t0 = time.monotonic()
    try:
        # cmocka aborts at a test's first failure: a killed mutant costs no more tests
        env = dict(env or os.environ, CMOCKA_TEST_ABORT="1")
        p = subprocess.run([binary], cwd=tree, stdout=subprocess.DEVNULL, env=env,
                           stderr=subprocess.DEVNULL, timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    return rc, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    ap.add_argument("--list", default=os.path.join(ROOT, "tools", "mutants.txt"))
    ap.add_argument("--only", default="", help="only mutants whose name or file contains this")
    ap.add_argument("--target", type=float, default=90.0)
    ap.add_argument("--keep", action="store_true", help="reuse build/mutate's copies as they are")
    ap.add_argument("--rev", default=None,
                    help="mutate and test this commit's tree (e.g. the tests before a change)")
    ap.add_argument("--before", default=None, metavar="REV",
                    help="also give the kill rate of commit REV's tests (run in the same pass: "
                         "its changed tests are built beside the current ones)")
    ap.add_argument("--work", default=None, help="scratch folder (default build/mutate)")
    ap.add_argument("--declared", action="store_true",
                    help="no coverage pass: run the binaries the list declares for each file "
                         "('%% FILE BINARY...'), each once unmutated first")
    ap.add_argument("--check", action="store_true",
                    help="only check that every snippet occurs exactly once, build nothing")
    a = ap.parse_args()

    global REV, WORK
    REV = a.rev
    if a.work:
        WORK = os.path.abspath(a.work)
    mutants, errors, declared = parse(a.list)
    if errors:
        print("\n".join("mutate: " + e for e in errors))
        return 1
    if a.only:  # comma-separated
        keys = a.only.split(",")
        mutants = [m for m in mutants if any(k in m.name or k in m.path for k in keys)]

    # Stale mutants are decided before anything is built: the snippet must occur once.
    for m in mutants:
        text = src_text(m.path)
        n = text.count(m.orig) if text is not None else -1
        if n != 1:
            m.state = "stale"
            m.detail = ("file missing" if n < 0 else
                        "snippet not found (code moved)" if n == 0 else
                        "snippet occurs %d times" % n)
    todo = [m for m in mutants if m.state == "pending"]
    if a.check:
        for m in mutants:
            if m.state == "stale":
                print("mutate: STALE: %s %s (%s, list line %d)" % (m.name, m.path, m.detail, m.line))
        print("mutate: %d mutants, %d stale" % (len(mutants), len(mutants) - len(todo)))
        return 1 if len(todo) != len(mutants) else 0

    t_start = time.monotonic()
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(WORK, "keep.mk"), "w") as f:
        f.write(KEEP_MK)
    trees = [os.path.join(WORK, "w%d" % i) for i in range(max(1, a.jobs))]
    kinds = {}

    # One copy built with every core, then duplicated for the other workers.
    if not (a.keep and all(os.path.isdir(t) for t in trees)):
        print("mutate: building the unit tests in %s" % trees[0], flush=True)
        copy_tree(trees[0])
        if a.before:
            kinds = stage_before(trees[0], a.before, os.path.join(WORK, "keep.mk"))
            # A test of REV that no longer builds against today's code is left out, and named.
            befores = sorted(n for n, k in kinds.items() if k == "before")
            subprocess.run(make_args(trees[0], ["-k", "-j%d" % max(1, a.jobs)] +
                                     ["build/host/tests/" + n for n in befores]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for n in befores:
                if not os.path.exists(os.path.join(trees[0], "build", "host", "tests", n)):
                    os.unlink(os.path.join(trees[0], "tests", n + ".c"))
                    del kinds[n]
                    print("mutate: %s's %s does not build today: left out of the before "
                          "figure" % (a.before, n.replace("test_before_", "test_")), flush=True)
        targets = ["unit"]
        if a.declared:  # only what will run
            targets = sorted({"build/host/tests/" + b for f in {m.path for m in todo}
                              for b in declared.get(f, [])
                              if os.path.exists(os.path.join(trees[0], "tests", b + ".c"))})
        r = subprocess.run(make_args(trees[0], ["-j%d" % max(1, a.jobs)] + targets),
                           stdout=subprocess.DEVNULL)
        if r.returncode:
            print("mutate: the unmutated tree does not build")
            return 1
        for t in trees[1:]:
            if os.path.exists(t):
                shutil.rmtree(t)
            shutil.copytree(trees[0], t, symlinks=True)
    else:
        # Reused copies: a run stopped while a mutant was applied left it in place.
        for t in trees:
            for path in sorted({m.path for m in mutants}):
                want, dst = src_text(path), os.path.join(t, path)
                if want is not None and os.path.exists(dst) and open(dst).read() != want:
                    with open(dst, "w") as f:
                        f.write(want)
                    print("mutate: %s restored in %s" % (path, t), flush=True)
        # and rebuilt: the baseline must not run binaries linked with the mutant
        for t in trees:
            subprocess.run(make_args(t, ["unit"] if not a.declared else sorted(
                {"build/host/tests/" + b for f in {m.path for m in todo}
                 for b in declared.get(f, [])
                 if os.path.exists(os.path.join(t, "tests", b + ".c"))})),
                stdout=subprocess.DEVNULL)
    t_built = time.monotonic()

    bins = test_bins(trees[0])
    names = [os.path.basename(b) for b in bins]
    units = {n: units_of(b) for n, b in zip(names, bins)}
    if a.declared:
        # The baseline: each declared binary once on the unmutated tree, timed.
        want = sorted({b for f in {m.path for m in todo} for b in declared.get(f, [])})
        cov, base_time, broken, executable = {}, {}, [], collections.defaultdict(set)
        missing = [b for b in want if b not in names]
        if missing:
            print("mutate: declared but not in this tree: %s" % ", ".join(missing), flush=True)
        for b in want:
            if b not in names:
                continue
            rc, secs = run_bin(trees[0], os.path.join(trees[0], "build/host/tests", b), 900)
            if rc != 0:
                broken.append("%s (exit %s)" % (b, rc))
            else:
                base_time[b] = secs
    else:
        # The baseline: every binary on the unmutated tree, alone, with coverage; a failing one is
        # left out of every run.
        cov_tree = os.path.join(WORK, "cov")
        if not (a.keep and os.path.isdir(cov_tree)):
            print("mutate: building the unit tests with coverage in %s" % cov_tree, flush=True)
            copy_tree(cov_tree)
            if a.before:
                for f in os.listdir(os.path.join(trees[0], "tests")):
                    if f.startswith("test_before_"):
                        shutil.copy2(os.path.join(trees[0], "tests", f),
                                     os.path.join(cov_tree, "tests", f))
            r = subprocess.run(make_args(cov_tree, ["-j%d" % max(1, a.jobs), "COV_FLAGS=--coverage",
                                                    "unit"]), stdout=subprocess.DEVNULL)
            if r.returncode:
                print("mutate: the unmutated tree does not build with coverage")
                return 1
        sources = sorted({m.path for m in todo if m.path.endswith(".c")} |
                         {f for m in todo if m.path.endswith(".h") for f in includers(m.path)})
        cov = coverage(cov_tree, sources, a.jobs)
        base_time, broken = {}, []
        executable = collections.defaultdict(set)
        for n, (rc, secs, lines) in cov.items():
            if rc != 0:
                broken.append("%s (exit %s)" % (n, rc))
                continue
            base_time[n] = secs
            for f, (_, al) in lines.items():
                executable[f] |= al
    t_base = time.monotonic()
    print("mutate: %d test binaries, %s %.0f s%s" % (
        len(names), "baseline run" if a.declared else "coverage run", t_base - t_built,
        "; failing unmutated, left out: " + ", ".join(broken) if broken else ""), flush=True)

    def tests_for(m):
        """The binaries to run on @p m, fastest first, and why."""
        if a.declared:
            rel = [b for b in declared.get(m.path, []) if b in base_time]
            return sorted(rel, key=lambda n: base_time[n]), (
                "%d declared binaries" % len(rel) if rel else "no declared binary for the file")
        text = src_text(m.path)
        first = text[:text.index(m.orig)].count("\n") + 1
        span = set(range(first, first + m.orig.count("\n") + 1))
        if m.path.endswith(".c") and span & executable[m.path]:
            rel = [n for n in base_time if span & cov[n][2].get(m.path, (set(), set()))[0]]
            why = "lines %d-%d executed by %d binaries" % (min(span), max(span), len(rel))
            if not rel:
                why = "no test executes lines %d-%d" % (min(span), max(span))
        elif m.path.endswith(".c"):
            # Not code (a table row, a macro): the binaries that ran any of the file's code.
            rel = [n for n in base_time if cov[n][2].get(m.path, (set(), set()))[0]]
            why = "not code: the %d binaries that run the file" % len(rel)
        else:
            srcs = {f for f in includers(m.path)}
            rel = [n for n in base_time
                   if any(cov[n][2].get(f, (set(), set()))[0] for f in srcs) or
                   (srcs & units[n] and not srcs & set(sources))]
            why = "not code: the %d binaries that run its includers" % len(rel)
        return sorted(rel, key=lambda n: base_time[n]), why

    free = queue.Queue()
    for t in trees:
        free.put(t)
    lock = threading.Lock()
    done = [0]

    def one(m):
        tree = free.get()
        try:
            src = os.path.join(tree, m.path)
            text = open(src).read()
            rel, why = tests_for(m)
            t0 = time.monotonic()
            if not rel:
                m.state, m.detail = "survived", why
            else:
                with open(src, "w") as f:
                    f.write(text.replace(m.orig, m.repl, 1))
                r = subprocess.run(make_args(tree, ["build/host/tests/" + n for n in rel]),
                                   capture_output=True, text=True)
                if r.returncode:
                    m.state = "no build"
                    m.detail = (r.stderr.strip().splitlines() or ["make failed"])[0][:160]
                else:
                    m.state, m.detail = "survived", why

                    def kill(group):
                        for n in group:
                            b = os.path.join(tree, "build/host/tests", n)
                            limit = base_time[n] * TIMEOUT_FACTOR + TIMEOUT_SLACK_S
                            rc, _ = run_bin(tree, b, limit)
                            if rc == "timeout":
                                # A busy machine (other jobs on the cores) slows every binary;
                                # a timeout is a verdict only if the binary also hangs with
                                # RETRY_FACTOR times the time.
                                rc, _ = run_bin(tree, b, limit * RETRY_FACTOR)
                            if rc != 0:
                                return "by %s%s" % (n, " (timeout)" if rc == "timeout" else "")
                        return None

                    if not kinds:
                        by = kill(rel)
                    else:
                        # tests unchanged since --before first: a kill there counts for both
                        by = kill([n for n in rel if kinds.get(n) == "same"])
                        m.before = "killed" if by else None
                        if not by:
                            old = kill([n for n in rel if kinds.get(n) == "before"])
                            m.before = "killed" if old else "survived"
                            by = kill([n for n in rel if kinds.get(n) in ("changed", "new")])
                    if by:
                        m.state, m.detail = "killed", by
                with open(src, "w") as f:
                    f.write(text)
            m.secs = time.monotonic() - t0
            with lock:
                done[0] += 1
                eq = " [declared equivalent]" if m.equivalent else ""
                bf = "" if m.before is None or m.before == m.state else " [before: %s]" % m.before
                print("mutate: [%3d/%d] %-8s %-36s %s %s%s%s (%.0f s)" % (
                    done[0], len(todo), m.state, m.name, m.path, m.detail, eq, bf, m.secs),
                    flush=True)
        finally:
            free.put(tree)

    # Files taken in turn, so that a run cut short has figures for every file.
    by_path = collections.OrderedDict()
    for m in todo:
        by_path.setdefault(m.path, []).append(m)
    threads, work = [], queue.Queue()
    for i in range(max((len(v) for v in by_path.values()), default=0)):
        for v in by_path.values():
            if i < len(v):
                work.put(v[i])

    def worker():
        while True:
            try:
                m = work.get_nowait()
            except queue.Empty:
                return
            one(m)

    for _ in trees:
        th = threading.Thread(target=worker)
        th.start()
        threads.append(th)
    for th in threads:
        th.join()
    t_end = time.monotonic()

    return summary(mutants, a, t_end - t_start, t_built - t_start, t_end - t_base, len(trees))


def summary(mutants, a, total_s, build_s, run_s, jobs):
    print()
    stale = [m for m in mutants if m.state == "stale"]
    nobuild = [m for m in mutants if m.state == "no build"]
    judged = [m for m in mutants if m.state in ("killed", "survived")]
    killed = [m for m in judged if m.state == "killed"]
    survived = [m for m in judged if m.state == "survived"]
    equiv = [m for m in survived if m.equivalent]
    wrong_equiv = [m for m in killed if m.equivalent]
    real = [m for m in judged if not m.equivalent or m.state == "killed"]

    by_file = collections.OrderedDict()
    for m in sorted(judged, key=lambda m: m.path):
        k, s = by_file.get(m.path, (0, 0))
        by_file[m.path] = (k + (m.state == "killed"), s + (m.state == "survived"))
    print("mutate: kill rate by file (killed/run):")
    for p, (k, s) in by_file.items():
        print("mutate:   %-32s %3d/%-3d %5.1f %%" % (p, k, k + s, 100.0 * k / (k + s)))
    for m in survived:
        why = ("equivalent: " + m.equivalent) if m.equivalent else m.detail
        print("mutate: %s %s %s (%s, list line %d)" % (
            "equivalent" if m.equivalent else "SURVIVED", m.name, m.path, why, m.line))
    for m in wrong_equiv:
        print("mutate: declared equivalent but killed: %s %s %s" % (m.name, m.path, m.detail))
    for m in stale + nobuild:
        print("mutate: %s: %s %s (%s, list line %d)" % (m.state.upper(), m.name, m.path,
                                                        m.detail, m.line))
    if any(m.before for m in judged):
        print("mutate: kill rate by file with the tests of %s (before) and now (after):" % a.before)
        for p, (k, s_) in by_file.items():
            fb = [m for m in judged if m.path == p]
            kb = sum(1 for m in fb if m.before == "killed")
            print("mutate:   %-32s before %3d/%-3d %5.1f %%   after %3d/%-3d %5.1f %%" % (
                p, kb, len(fb), 100.0 * kb / len(fb), k, k + s_, 100.0 * k / (k + s_)))
        nb = sum(1 for m in judged if m.before == "killed")
        print("mutate: before: %d of %d killed (%.1f %%) by the tests of %s" % (
            nb, len(judged), 100.0 * nb / len(judged) if judged else 0.0, a.before))
    rate = 100.0 * len(killed) / len(real) if real else 0.0
    print("mutate: %d mutants: %d killed, %d survived (%d declared equivalent), %d stale, "
          "%d do not build" % (len(mutants), len(killed), len(survived), len(equiv), len(stale),
                               len(nobuild)))
    print("mutate: kill rate %.1f %% (%d of %d, equivalent mutants left out); %.1f %% of all "
          "%d run; target %.0f %%" % (rate, len(killed), len(real),
                                      100.0 * len(killed) / len(judged) if judged else 0.0,
                                      len(judged), a.target))
    print("mutate: wall time %.0f s (build %.0f s, baseline and mutants %.0f s) on %d workers"
          % (total_s, build_s, run_s, jobs))
    ok = not stale and not nobuild and not wrong_equiv and rate >= a.target
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
