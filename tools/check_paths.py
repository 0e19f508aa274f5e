#!/usr/bin/env python3
"""Find the paths that the tree's comments and documents name but the tree no longer has.

A file that moves leaves its old path behind in comments ("see boot/uefi_excl.c"), docs and
scripts. This reads every tracked text file (sources, headers, scripts, build files, docs;
not the data under tests/data/ and tests/corpus/), takes each token that looks like a path of
this tree (a top folder of the tree, then a file name with a source or document ending) and
prints one line per token whose file is missing:

    paths: <file>:<line>: names <path>, which is not in the tree

A token whose folder does not exist in the tree is taken for another project's path (Linux's
tools/perf/..., kvm-unit-tests' lib/x86/...) and left alone, as are the names in FOREIGN and
the names that say they do not exist (a test of a missing file).
Exit status 1 if there is any, 0 if none.

    tools/check_paths.py [--root DIR]
"""
import argparse
import os
import re
import subprocess
import sys

TOP = ("analysis", "app", "bench", "boot", "docs", "host", "lib", "mk", "pmu", "python", "report",
       "tests", "tools")
ENDINGS = ("c", "h", "S", "inc", "py", "sh", "md", "mk", "cfg", "json", "gp", "txt")
TOKEN = re.compile(r"(?<![\w/.-])((?:%s)/[\w./-]*?\.(?:%s))(?![\w/-])"
                   % ("|".join(TOP), "|".join(ENDINGS)))
TEXT_ENDINGS = (".c", ".h", ".S", ".inc", ".py", ".sh", ".md", ".mk", ".cfg", ".gp", ".txt",
                ".in")
TEXT_NAMES = ("Makefile", "pmucal-collect", "run-qemu.sh", "README.md")
SKIP_DIRS = ("tests/data/", "tests/corpus/")
# Files that build trees of their own to test a tool on: their paths are of those trees.
SYNTHETIC = ("tests/test_layering.sh", "tests/test_unittests.sh", "tests/test_paths.sh",
             "tools/check_paths.py")
# Another project's files whose folder this tree has too: {path: whose}.
FOREIGN = {"lib/init.c": "GNU-EFI's libefi"}
# A name that says the file is missing on purpose (a test of what a missing file does).
MISSING_ON_PURPOSE = re.compile(r"does-not-exist|no[-_]such|nonexist")


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                         capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    a = ap.parse_args()
    files = tracked(a.root)
    have = set(files)
    dirs = {os.path.dirname(p) for p in files}
    for d in list(dirs):
        while d:
            d = os.path.dirname(d)
            dirs.add(d)
    n = 0
    for f in files:
        if f.startswith(SKIP_DIRS) or f in SYNTHETIC:
            continue
        if not (f.endswith(TEXT_ENDINGS) or os.path.basename(f) in TEXT_NAMES):
            continue
        try:
            with open(os.path.join(a.root, f), encoding="utf-8") as fh:
                lines = fh.readlines()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for i, line in enumerate(lines, 1):
            for m in TOKEN.finditer(line):
                p = m.group(1).rstrip(".")
                if p in have or p in FOREIGN or os.path.dirname(p) not in dirs:
                    continue
                if MISSING_ON_PURPOSE.search(os.path.basename(p)):
                    continue
                if os.path.exists(os.path.join(a.root, p)):   # generated, or untracked
                    continue
                print("paths: %s:%d: names %s, which is not in the tree" % (f, i, p))
                n += 1
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main())
