#!/usr/bin/env python3
"""Convert a recorded CPUID dump to the text format of `cpuid -r` (Debian package cpuid), or
cut a dump down to some of its processor blocks in its own layout.

Reads the layouts boot/x86/cpuid_text.c reads (the same rules, so that what this prints is
what pmucal decodes), one logical processor per block:

  cpuid -r           "CPU 0:" then "   0x00000004 0x01: eax=0x... ebx=0x... ecx=0x... edx=0x..."
  AIDA64 / EVEREST   "CPUID 00000004: FC004121-02C0003F-0000003F-00000000 [SL 01] [L1I: 32 KB]"
                     (also "CPUID 00000004  A-B-C-D", "CPUID 00000004 :A-B-C-D" and the older
                     "CPUID 00000000: 00000001 68747541 444D4163 69746E65"); without "[SL nn]"
                     the sub-leaf is the line's position among the block's lines of that leaf.
  block headers      "------[ CPUID Registers / Logical CPU #n ]------", "------[ Logical CPU
                     #n ]------", "CPUID Registers (CPU #n):", "CPU#nnn AffMask: ...",
                     "Group: 0x00 Affinity mask: ..."; any other "------[ ... ]------" section
                     ends a block; a file without headers starts a new block at each repeated
                     leaf 0.

Leaves the dump does not have stay absent: nothing is invented.

usage: tools/cpuid-convert.py [--cpu N] INPUT > NAME.txt      (cpuid -r text of block N)
       tools/cpuid-convert.py --list INPUT                     (the blocks and their CPUs)
       tools/cpuid-convert.py --keep-layout --cpu 0 --cpu 9 INPUT > NAME.txt
                                                               (blocks 0 and 9, lines as given)
"""
import argparse
import re
import sys

HEX8 = r"([0-9A-Fa-f]{8})"
AIDA = re.compile(r"^\s*CPUID\s+" + HEX8 + r"\s*:?\s*" + HEX8 + r"(?:-|\s+)" + HEX8 +
                  r"(?:-|\s+)" + HEX8 + r"(?:-|\s+)" + HEX8 + r"(?:\s+\[SL ([0-9A-Fa-f]+)\])?")
CPUID_R = re.compile(r"^\s*0x([0-9A-Fa-f]+)\s+0x([0-9A-Fa-f]+):\s*eax=0x([0-9A-Fa-f]+)\s+"
                     r"ebx=0x([0-9A-Fa-f]+)\s+ecx=0x([0-9A-Fa-f]+)\s+edx=0x([0-9A-Fa-f]+)"
                     r"\s*(#.*)?$")
HEADER = re.compile(r"^\s*(CPUID Registers \(CPU #|CPU#|CPU( \d+)?:\s*$|"
                    r"Group:.*Affinity mask|------\[.*Logical CPU #)")
SECTION = re.compile(r"^\s*------\[")


class Block:
    def __init__(self, first_line):
        self.first, self.last = first_line, first_line  # line indexes, inclusive
        self.regs = {}      # (leaf, sub) -> (eax, ebx, ecx, edx)
        self.order = []     # (leaf, sub) in file order


def blocks(lines):
    """Every processor block of @lines (a list of str) that holds registers."""
    out, cur, headers = [], None, False

    def close(end=None):
        if cur is not None and cur.regs:
            if end is not None and headers:
                cur.last = end  # the block's own decoded text up to the next header
            out.append(cur)

    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        if HEADER.match(line):
            close(i - 1)
            cur, headers = Block(i), True
            continue
        if SECTION.match(line):
            close(i - 1)
            cur = None
            continue
        m = CPUID_R.match(line)
        if m:
            leaf, sub = int(m.group(1), 16), int(m.group(2), 16)
            regs, tagged = tuple(int(m.group(k), 16) for k in range(3, 7)), False
        elif line.lstrip().startswith("0x"):
            raise ValueError("line %d: malformed cpuid -r line" % (i + 1))
        else:
            m = AIDA.match(line)
            if not m:
                continue
            leaf = int(m.group(1), 16)
            regs = tuple(int(m.group(k), 16) for k in range(2, 6))
            tagged = m.group(6) is not None
            sub = int(m.group(6), 16) if tagged else None
        if cur is None and not headers:
            cur = Block(i)
        if cur is None:
            continue
        if not headers and leaf == 0 and (0, 0) in cur.regs:
            close()
            cur = Block(i)
        if sub is None:
            sub = sum(1 for (l, _) in cur.order if l == leaf)
        if (leaf, sub) in cur.regs:
            if tagged and cur.regs[(leaf, sub)] == regs:
                continue
            raise ValueError("line %d: repeated leaf 0x%08x sub-leaf 0x%x" % (i + 1, leaf, sub))
        cur.regs[(leaf, sub)] = regs
        cur.order.append((leaf, sub))
        cur.last = i
    close(len(lines) - 1)
    return out


def core_type(b):
    """Intel CPUID.1AH:EAX[31:24] or AMD CPUID 80000026H.0:EBX[31:28], as text."""
    hybrid = b.regs.get((7, 0), (0, 0, 0, 0))[3] >> 15 & 1
    if hybrid and (0x1a, 0) in b.regs:
        return "core type 0x%02x" % (b.regs[(0x1a, 0)][0] >> 24)
    if (0x80000026, 0) in b.regs:
        return "core type %d" % (b.regs[(0x80000026, 0)][1] >> 28)
    return ""


def apic_id(b):
    for leaf in (0x1f, 0xb):
        if (leaf, 0) in b.regs and b.regs[(leaf, 0)][1] & 0xffff:
            return b.regs[(leaf, 0)][3]
    return b.regs.get((1, 0), (0, 0, 0, 0))[1] >> 24


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input")
    ap.add_argument("--cpu", type=int, action="append",
                    help="block index (0 = the first), default 0; repeat with --keep-layout")
    ap.add_argument("--list", action="store_true", help="list the blocks")
    ap.add_argument("--keep-layout", action="store_true",
                    help="print the chosen blocks' lines as they are in INPUT")
    args = ap.parse_args()
    with open(args.input, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    bl = blocks(lines)
    if not bl:
        raise ValueError("no CPUID registers found")
    if args.list:
        for n, b in enumerate(bl):
            print("%3d  lines %d-%d  APIC ID %u  %d leaves  %s"
                  % (n, b.first + 1, b.last + 1, apic_id(b), len(b.regs), core_type(b)))
        return 0
    cpus = args.cpu or [0]
    for c in cpus:
        if not 0 <= c < len(bl):
            raise ValueError("no block %d: the dump has %d" % (c, len(bl)))
    if args.keep_layout:
        for c in cpus:
            sys.stdout.write("".join(lines[bl[c].first:bl[c].last + 1]).rstrip("\n") + "\n\n")
        return 0
    for c in cpus:
        print("CPU %d:" % c if len(cpus) > 1 else "CPU:")
        for leaf, sub in bl[c].order:
            a, b, cx, d = bl[c].regs[(leaf, sub)]
            print("   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x"
                  % (leaf, sub, a, b, cx, d))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError) as e:
        print("cpuid-convert: %s" % e, file=sys.stderr)
        sys.exit(1)
