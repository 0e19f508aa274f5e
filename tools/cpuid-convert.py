#!/usr/bin/env python3
"""Convert an AIDA64 CPUID register dump (the InstLatx64 *_CPUID.txt files) to the text
format of `cpuid -r -1` (Debian package cpuid), which tests/cpuid_dump.c reads.

Only the first logical CPU block ("CPUID Registers / Logical CPU #0") is converted. AIDA64
writes one line per (leaf, sub-leaf):

    CPUID 00000004: FC004121-02C0003F-0000003F-00000000 [SL 00] [L1D: 48 KB]

registers in the order EAX-EBX-ECX-EDX, the sub-leaf in hex after "SL" (absent = 0).
Leaves AIDA64 did not print stay absent: nothing is invented.

The output carries no comments, so `cpuid -f FILE` (the real tool) can decode it too; record
provenance in tests/data/cpuid/README.md.

usage: tools/cpuid-convert.py INPUT > tests/data/cpuid/NAME.txt
"""
import argparse
import re
import sys

LINE = re.compile(r"^CPUID ([0-9A-Fa-f]{8}): ([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})-"
                  r"([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})(?:\s+\[SL ([0-9A-Fa-f]{2})\])?")
BLOCK = re.compile(r"^-+\[ CPUID Registers / Logical CPU #(\d+) \]-+")


def convert(lines):
    out, seen, in_block = [], set(), False
    for raw in lines:
        line = raw.rstrip("\r\n")
        b = BLOCK.match(line)
        if b:
            if in_block:
                break
            in_block = b.group(1) == "0"
            continue
        if not in_block:
            continue
        if line.startswith("------["):
            break
        m = LINE.match(line)
        if not m:
            continue
        leaf = int(m.group(1), 16)
        sub = int(m.group(6), 16) if m.group(6) else 0
        if (leaf, sub) in seen:
            raise ValueError("duplicate leaf 0x%08x sub-leaf 0x%02x" % (leaf, sub))
        seen.add((leaf, sub))
        a, b_, c, d = (int(m.group(i), 16) for i in range(2, 6))
        out.append((leaf, sub, a, b_, c, d))
    if not out:
        raise ValueError("no 'Logical CPU #0' CPUID block found")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input")
    args = ap.parse_args()
    with open(args.input, encoding="utf-8", errors="replace") as f:
        regs = convert(f)
    print("CPU:")
    for leaf, sub, a, b, c, d in regs:
        print("   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x"
              % (leaf, sub, a, b, c, d))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError) as e:
        print("cpuid-convert: %s" % e, file=sys.stderr)
        sys.exit(1)
