#!/usr/bin/python3
"""What MADT, SRAT and SLIT tables must decode to, from ACPICA's disassembler (`iasl -d`),
one fact a line in the form tests/acpi_canon.c prints pmucal's decode; and the comparison of
the two over a corpus.

    tools/acpi-iasl-expect.py FILE.dat...                  # expected lines, "== FILE" before each
    tools/acpi-iasl-expect.py --compare build/host/acpi_decode FILE.dat...
                                                           # counts: tables, lines agreeing, disagreements

Raw fields are iasl's. Where a line states meaning, the rule is written here, from its source:
 * MADT processors: an entry is a processor by the rules of Linux's acpi_parse_lapic() /
   acpi_parse_x2apic() (arch/x86/kernel/acpi/boot.c): not the invalid ID (0xFF; 0xFFFFFFFF);
   enabled, or online capable in a MADT of revision >= 5 (ACPI 6.3, which defined the bit);
   an x2APIC entry below ID 0xFF only when the table has no Local APIC entry. (Linux's
   acpi_is_processor_usable() also keeps the disabled entries of tables older than revision 5,
   to size its possible-CPU map; they are not processors here.)
 * SRAT node memory: enabled ranges that are neither hot-pluggable nor non-volatile
   ([ACPI-6.5] 5.2.16.2 Table 5.59: such ranges are not memory the node has at boot).
 * SRAT processor domain: Proximity Domain Low(8), plus High(24) from revision 2 (Linux srat.c).
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

FIELD = re.compile(r'^\[[0-9A-F]+h [0-9]+ +[0-9]+\] +(.+?) : (.*)$')


def subtables(dsl):
    """(revision, [(type, {field: value})]) of an iasl -d listing."""
    rev, subs, cur, last = None, [], None, None
    for line in dsl.splitlines():
        m = FIELD.match(line)
        if not m:
            cont = line.strip()
            if last is not None and cur is not None and re.fullmatch(r'([0-9A-F]{2} ?)+', cont):
                cur[last] += ' ' + cont
            continue
        name, val = m.group(1).strip(), m.group(2).strip()
        if name == 'Revision' and rev is None:
            rev = int(val, 16)
        if name == 'Subtable Type':
            cur = {}
            subs.append((int(val.split()[0], 16), cur))
            last = None
            continue
        if name.startswith('Locality') and name != 'Localities':
            cur = cur if cur is not None else {}
            if not subs or subs[-1][1] is not cur:
                subs.append((-1, cur))
        if cur is None:
            cur = {}
            subs.append((-2, cur))
        cur[name] = val
        last = name
    return rev, subs


def hexv(s):
    return int(s.split()[0], 16)


def expect_madt(rev, subs):
    out = []
    has_xapic = any(t == 0 for t, _ in subs)
    n = n_en = 0
    for t, f in subs:
        if t == 0:
            pid, uid, fl, x2 = hexv(f['Local Apic ID']), hexv(f['Processor ID']), \
                hexv(f['Flags (decoded below)']), 0
            if pid == 0xff:
                continue
        elif t == 9:
            pid, uid, fl, x2 = hexv(f['Processor x2Apic ID']), hexv(f['Processor UID']), \
                hexv(f['Flags (decoded below)']), 1
            if pid == 0xffffffff or (has_xapic and pid < 0xff):
                continue
        else:
            continue
        usable = bool(fl & 1) or (rev >= 5 and bool(fl & 2))
        if not usable:
            continue
        out.append('APIC processor id=0x%x uid=0x%x enabled=%d x2apic=%d' % (pid, uid, fl & 1, x2))
        n += 1
        n_en += fl & 1
    out.append('APIC processors %u enabled %u' % (n, n_en))
    return out


def expect_srat(rev, subs):
    cpus, mems, nodes = [], [], set()
    for t, f in subs:
        if t == 0:
            pd = hexv(f['Proximity Domain Low(8)'])
            if rev >= 2:
                pd |= hexv(f['Proximity Domain High(24)'].replace(' ', '')) << 8
            fl = hexv(f['Flags (decoded below)'])
            cpus.append('SRAT cpu apic=0x%x pd=%u enabled=%d' % (hexv(f['Apic ID']), pd, fl & 1))
        elif t == 2:
            pd, fl = hexv(f['Proximity Domain']), hexv(f['Flags (decoded below)'])
            cpus.append('SRAT cpu apic=0x%x pd=%u enabled=%d' % (hexv(f['Apic ID']), pd, fl & 1))
        elif t == 1:
            pd, fl = hexv(f['Proximity Domain']), hexv(f['Flags (decoded below)'])
            base, ln = hexv(f['Base Address']), hexv(f['Address Length'])
            mems.append((pd, base, ln, fl))
            if fl & 1:
                nodes.add(pd)
            continue
        else:
            continue
        if fl & 1:
            nodes.add(pd)
    out = cpus + ['SRAT mem pd=%u base=0x%x len=0x%x flags=0x%x' % m for m in mems]
    for pd in sorted(nodes):
        mem = sum(m[2] for m in mems if m[0] == pd and m[3] & 1 and not m[3] & 6)
        out.append('SRAT node pd=%u memory=0x%x' % (pd, mem))
    return out


def expect_slit(rev, subs):
    n, rows = None, []
    for t, f in subs:
        if 'Localities' in f:
            n = hexv(f['Localities'])
        for k, v in f.items():
            m = re.fullmatch(r'Locality +([0-9]+)', k)
            if m:
                rows.append((int(m.group(1)), [int(x, 16) for x in v.split()]))
    out = ['SLIT localities %u' % n]
    for i, r in sorted(rows):
        out.append('SLIT row %u: %s' % (i, ' '.join(str(x) for x in r)))
    return out


def expect(path):
    with open(path, 'rb') as fh:
        sig = fh.read(4).decode('latin1')
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(['iasl', '-p', os.path.join(tmp, 't'), '-d', os.path.abspath(path)],
                           cwd=tmp, capture_output=True, text=True)
        dsl_path = os.path.join(tmp, 't.dsl')
        if r.returncode != 0 or not os.path.exists(dsl_path):
            return None
        dsl = open(dsl_path, encoding='latin1').read()
    rev, subs = subtables(dsl)
    fn = {'APIC': expect_madt, 'SRAT': expect_srat, 'SLIT': expect_slit}.get(sig)
    return fn(rev, subs) if fn else None


def decoded(decoder, paths):
    out, cur = {}, None
    text = subprocess.run([decoder] + paths, capture_output=True, text=True, check=True).stdout
    for line in text.splitlines():
        if line.startswith('== '):
            cur = line[3:]
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def main(argv):
    if len(argv) > 2 and argv[1] == '--compare':
        decoder, paths = argv[2], argv[3:]
        got = decoded(decoder, paths)
        n_tab = n_parsed = agree = disagree = n_expect = 0
        bad = collections.Counter()
        for p in paths:
            want = expect(p)
            if want is None:
                continue
            n_tab += 1
            have = got.get(p, [])
            if not any(' rejected: ' in h for h in have):
                n_parsed += 1
            w, h = collections.Counter(want), collections.Counter(have)
            ok = sum((w & h).values())
            agree += ok
            n_expect += len(want)
            miss = list((w - h).elements()) + ['pmucal: ' + x for x in (h - w).elements()]
            disagree += len(miss)
            for x in miss[:3]:
                bad[p] += 1
                print('DISAGREE %s: %s' % (p, x))
        print('tables %u, parsed by pmucal %u; iasl lines %u, agreeing %u, disagreements %u '
              '(in %u tables)' % (n_tab, n_parsed, n_expect, agree, disagree, len(bad)))
        return 0 if disagree == 0 else 1
    for p in argv[1:]:
        want = expect(p)
        if want is not None:
            print('== %s' % p)
            print('\n'.join(want))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
