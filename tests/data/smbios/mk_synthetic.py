#!/usr/bin/env python3
"""Write synthetic-3.4.bin, an SMBIOS 3.4 structure table for tests/test_smbios.c.

Run by hand (`python3 mk_synthetic.py`); the Makefile does not, the .bin is committed.
Layouts from [SMBIOS-3.6] §7.1 (type 0), §7.2 (type 1), §7.3 (type 2), §7.5 (type 4),
§7.18 (type 17), §7.45 (type 127). What the test expects is written next to each field.
"""
import struct
import uuid


def structure(stype, handle, body, strings):
    """Formatted area (header + body) followed by the string set."""
    hdr = struct.pack("<BBH", stype, 4 + len(body), handle)
    if strings:
        tail = b"".join(s + b"\0" for s in strings) + b"\0"
    else:
        tail = b"\0\0"
    return hdr + body + tail


def type4(handle, socket_s, manuf_s, version_s, max_mhz, cur_mhz, status, cc, ce, tc,
          cc2=None, ce2=None, tc2=None):
    body = struct.pack("<BBBB8sBBHHHBBHHHBBB", socket_s, 3, 0xB3, manuf_s, b"\0" * 8,
                       version_s, 0, 100, max_mhz, cur_mhz, status, 1, 0xFFFF, 0xFFFF,
                       0xFFFF, 0, 0, 0)
    body += struct.pack("<BBBHH", cc, ce, tc, 0x00FC, 0xB3)        # up to 0x2A (2.6)
    if cc2 is not None:
        body += struct.pack("<HHH", cc2, ce2, tc2)                 # up to 0x30 (3.0)
    return body


def type17(handle, size, ext=0, short=False):
    body = struct.pack("<HHHHHBBBBBHH", 0x1000, 0xFFFE, 72, 64, size, 0x09, 0, 1, 2,
                       0x1A, 0x0080, 3200)
    if short:                     # 2.1-2.2 layout: ends at 0x15 (drop the speed word)
        return body[:0x15 - 4]
    body += struct.pack("<BBBBBI", 3, 4, 0, 5, 2, ext)              # up to 0x20 (2.7)
    body += b"\0" * (0x54 - 4 - len(body))                          # 3.2+ length 0x54
    return body


out = b""
# Type 0: vendor, version, date.
out += structure(0, 0x0000,
                 struct.pack("<BBHBBQHBBBBH", 1, 2, 0xE800, 3, 0xFF, 0x08, 0, 1, 2, 0xFF,
                             0xFF, 0),
                 [b"pmucal BIOS Inc.", b"1.2.3", b"11/23/2026"])
# Type 1: product name with trailing spaces (trimmed); UUID 00112233-4455-6677-8899-
# aabbccddeeff stored with its first three fields little-endian (2.6+).
u = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")
out += structure(1, 0x0001, struct.pack("<BBBB16sBBB", 1, 2, 3, 4, u.bytes_le, 6, 0, 0),
                 [b"ACME", b"Test Machine   ", b"v1", b"SN123"])
# Type 2: version holds a BEL byte (replaced by '?').
out += structure(2, 0x0002, struct.pack("<BBBBBBBHBB", 1, 2, 3, 0, 0, 1, 0, 0x0003, 0x0A, 0),
                 [b"ACME Boards", b"MB-1", b"Rev\x07A"])
# Type 4, 3.0 layout: 300 cores (288 enabled), 600 threads via the count-2 fields.
out += structure(4, 0x0004, type4(4, 1, 2, 3, 4000, 3000, 0x41, 0xFF, 0xFF, 0xFF,
                                  300, 288, 600),
                 [b"CPU0", b"GenuineTest", b"Test CPU @ 3.0GHz"])
# Type 4, 2.6 layout, empty socket: no strings, status 0 (unpopulated).
out += structure(4, 0x0005, type4(5, 1, 0, 0, 4000, 0, 0x00, 0, 0, 0), [b"CPU1"])
# Type 17: empty, 16 GiB, 64 GiB via Extended Size, 512 KiB (KB granularity, 2.1
# layout), unknown size.
out += structure(17, 0x0011, type17(0x11, 0), [b"DIMM0", b"BANK 0"])
out += structure(17, 0x0012, type17(0x12, 0x4000), [b"DIMM1", b"BANK 1"])
out += structure(17, 0x0013, type17(0x13, 0x7FFF, ext=0x10000), [b"DIMM2", b"BANK 2"])
out += structure(17, 0x0014, type17(0x14, 0x8000 | 512, short=True), [b"DIMM3", b"BANK 3"])
out += structure(17, 0x0015, type17(0x15, 0xFFFF), [b"DIMM4", b"BANK 4"])
# End of table; the type 17 after it must not be counted.
out += structure(127, 0x007F, b"", [])
out += structure(17, 0x0016, type17(0x16, 0x4000), [b"GHOST", b"BANK 9"])

open("synthetic-3.4.bin", "wb").write(out)
print("synthetic-3.4.bin: %d bytes" % len(out))
