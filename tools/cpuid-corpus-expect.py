#!/usr/bin/env python3
"""Print the cache rows of tests/data/cpuid/real/expect.tsv from the dumps' own decoded text.

AIDA64 ends each processor block of its CPUID dump with its own decoding of the caches:

    L0+L1    Data Cache: 48+192 KB, 12-way Associative, 64-byte Line
    L2 Unified Cache:     1 MB, 16-way Associative, 64-byte Line

This turns those lines into expectation rows (file, block, field, value, source) so that
pmucal's decoder is held against AIDA64's, not against itself. Blocks are numbered as
tools/cpuid-convert.py --list numbers them. The rows for published figures (TLB sizes, PMU
counters, hybrid flags, topology) are written by hand below the generated ones.

usage: tools/cpuid-corpus-expect.py tests/data/cpuid/real/*.txt
"""
import importlib.util
import os
import re
import sys

spec = importlib.util.spec_from_file_location(
    "cpuid_convert", os.path.join(os.path.dirname(__file__), "cpuid-convert.py"))
conv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conv)

LINE = re.compile(r"^\s*L(\d)(?:\+L(\d))?\s+(Data|Instr\.|Unified)\s+Cache:\s+(\d+)(?:\+(\d+))?\s+"
                  r"(KB|MB),\s+(\d+)-way")
NAME = {"Data": "d", "Instr.": "i", "Unified": ""}


def rows(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    base = os.path.basename(path)
    for n, b in enumerate(conv.blocks(lines)):
        seen = set()
        for line in lines[b.first:b.last + 1]:
            m = LINE.match(line)
            if not m:
                continue
            lvl, lvl2, kind, size, size2, unit, ways = m.groups()
            mult = 1024 if unit == "MB" else 1
            # "L0+L1 Data Cache: 48+192 KB": leaf 4's L1D is the 48 KB L0; the 192 KB L1 is the
            # cache leaf 4 does not list
            level = 1 if lvl2 else int(lvl)
            key = "l%d%s" % (level, NAME[kind])
            if key in seen:
                continue
            seen.add(key)
            src = "AIDA64: " + " ".join(line.split())
            yield (base, n, key + ".kib", int(size) * mult, src)
            yield (base, n, key + ".ways", int(ways), src)
            if size2:
                yield (base, n, "l1d_unlisted.kib", int(size2) * mult, src)


def main():
    for path in sorted(sys.argv[1:]):
        for r in rows(path):
            print("%s\t%d\t%s\t%s\t%s" % r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
