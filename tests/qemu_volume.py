"""Boot volumes for the QEMU cases in tests/qemu.cfg: a real FAT disk image (tools/mkimage.sh,
GPT with the ESP at 1 MiB) filled so that exactly N clusters stay free, with folders made
beforehand; after the run, `fsck.vfat -n` of the ESP and the checks of what is on it. Uses
mtools only (no root)."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ESP = "@@1M"  # tools/mkimage.sh puts the ESP at sector 2048


def _run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           check=True, **kw).stdout


def cluster_bytes(img):
    """Bytes per cluster of the ESP, from minfo's boot sector dump."""
    info = _run(["minfo", "-i", img + ESP])
    sector = int(re.search(r"^sector size: (\d+) bytes", info, re.M).group(1))
    per = int(re.search(r"^cluster size: (\d+) sectors", info, re.M).group(1))
    return sector * per


def free_bytes(img):
    """Free bytes of the ESP as mdir counts them (free clusters x cluster size)."""
    out = _run(["mdir", "-i", img + ESP, "::/"])
    m = re.search(r"^\s*([\d ]+) bytes free", out, re.M)
    return int(m.group(1).replace(" ", ""))


def make_dirs(img, paths):
    """Create folders (volume paths like pmucal/results/X, parents first), many per mmd call."""
    paths = ["::/" + p for p in paths]
    for i in range(0, len(paths), 500):
        _run(["mmd", "-i", img + ESP] + paths[i:i + 500])


def _u16(b, o):
    return int.from_bytes(b[o:o + 2], "little")


def _lfn_entries(name, checksum):
    """The long-name entries for @p name, in the order they precede the 8.3 entry."""
    units = name.encode("utf-16-le")
    chars = [units[i:i + 2] for i in range(0, len(units), 2)] + [b"\0\0"]
    n = (len(chars) + 12) // 13
    chars += [b"\xff\xff"] * (13 * n - len(chars))
    out = []
    for seq in range(n, 0, -1):
        c = chars[13 * (seq - 1):13 * seq]
        e = bytes([seq | (0x40 if seq == n else 0)]) + b"".join(c[0:5]) + bytes([0x0f, 0, checksum])
        e += b"".join(c[5:11]) + b"\0\0" + b"".join(c[11:13])
        out.append(e)
    return out


def _short_entry(name83, attr, cluster):
    date = ((2020 - 1980) << 9) | (1 << 5) | 1  # 2020-01-01
    e = name83 + bytes([attr, 0, 0]) + b"\0\0" + date.to_bytes(2, "little") * 2 + b"\0\0"
    return e + b"\0\0" + date.to_bytes(2, "little") + cluster.to_bytes(2, "little") + b"\0" * 4


def make_dirs_fat16(img, parent, names):
    """Make empty folders @p names inside the folder @p parent (two levels below the root, as
    pmucal/results) of a FAT16 ESP by writing the directory entries and FAT directly: mmd
    takes minutes for thousands of long names (its search for free 8.3 aliases). Each folder
    gets a long name and the 8.3 alias Rnnnnnnn. fsck.vfat checks the result in every case
    that uses it."""
    with open(img, "r+b") as f:
        f.seek(1 << 20)
        bs = f.read(512)
        bps, spc, rsv, nfats, nroot, spf = (_u16(bs, 11), bs[13], _u16(bs, 14), bs[16],
                                            _u16(bs, 17), _u16(bs, 22))
        if not spf or not nroot:
            raise RuntimeError("%s: not FAT16" % img)
        cl = bps * spc
        fat_at = (1 << 20) + rsv * bps
        root_at = fat_at + nfats * spf * bps
        data_at = root_at + (nroot * 32 + bps - 1) // bps * bps
        f.seek(fat_at)
        fat = bytearray(f.read(spf * bps))

        def at(c):
            return data_at + (c - 2) * cl

        def chain(c):
            out = []
            while 2 <= c < 0xfff8:
                out.append(c)
                c = _u16(fat, 2 * c)
            return out

        free = (i for i in range(2, len(fat) // 2) if _u16(fat, 2 * i) == 0)

        def alloc(prev=None):
            c = next(free)
            fat[2 * c:2 * c + 2] = b"\xff\xff"
            if prev:
                fat[2 * prev:2 * prev + 2] = c.to_bytes(2, "little")
            f.seek(at(c))
            f.write(b"\0" * cl)
            return c

        def lookup(data, name83):
            for o in range(0, len(data), 32):
                if data[o:o + 11] == name83 and data[o + 11] & 0x10:
                    return _u16(data, o + 26)
            raise RuntimeError("%s: no folder %r" % (img, name83))

        f.seek(root_at)
        c = lookup(f.read(nroot * 32), parent.split("/")[0].upper().ljust(11).encode())
        f.seek(at(c))
        c = lookup(f.read(cl * len(chain(c))), parent.split("/")[1].upper().ljust(11).encode())
        clusters = chain(c)
        f.seek(at(clusters[0]))
        data = f.read(cl * len(clusters))
        used = next(o for o in range(0, len(data), 32) if data[o] == 0)
        entries = []
        for k, name in enumerate(names):
            sub = alloc()
            f.seek(at(sub))
            f.write(_short_entry(b".".ljust(11), 0x10, sub) + _short_entry(b"..".ljust(11), 0x10, c))
            alias = b"R%07d   " % k
            s = 0
            for ch in alias:
                s = (((s & 1) << 7) + (s >> 1) + ch) & 0xff
            entries += _lfn_entries(name, s) + [_short_entry(alias, 0x10, sub)]
        blob = b"".join(entries)
        while used + len(blob) + 32 > cl * len(clusters):
            clusters.append(alloc(clusters[-1]))
        for b in range(0, len(blob), 32):
            o = used + b
            f.seek(at(clusters[o // cl]) + o % cl)
            f.write(blob[b:b + 32])
        for k in range(nfats):
            f.seek(fat_at + k * spf * bps)
            f.write(fat)


def mark_free_fat16(img, path):
    """Mark the first cluster of folder @p path (two levels below the root, as pmucal/results)
    of a FAT16 ESP free in every FAT, as a damaged volume can have it: the directory entry
    still points there. Returns the cluster."""
    with open(img, "r+b") as f:
        f.seek(1 << 20)
        bs = f.read(512)
        bps, spc, rsv, nfats, nroot, spf = (_u16(bs, 11), bs[13], _u16(bs, 14), bs[16],
                                            _u16(bs, 17), _u16(bs, 22))
        if not spf or not nroot:
            raise RuntimeError("%s: not FAT16" % img)
        fat_at = (1 << 20) + rsv * bps
        root_at = fat_at + nfats * spf * bps
        data_at = root_at + (nroot * 32 + bps - 1) // bps * bps

        def lookup(data, name83):
            for o in range(0, len(data), 32):
                if data[o:o + 11] == name83 and data[o + 11] & 0x10:
                    return _u16(data, o + 26)
            raise RuntimeError("%s: no folder %r" % (img, name83))

        f.seek(root_at)
        c = lookup(f.read(nroot * 32), path.split("/")[0].upper().ljust(11).encode())
        f.seek(data_at + (c - 2) * bps * spc)
        c = lookup(f.read(bps * spc), path.split("/")[1].upper().ljust(11).encode())
        for k in range(nfats):
            f.seek(fat_at + k * spf * bps + 2 * c)
            f.write(b"\0\0")
        return c


def put_file(img, path, data):
    """Write @p data (bytes) to volume path @p path, replacing it."""
    tmp = img + ".put"
    with open(tmp, "wb") as f:
        f.write(data)
    try:
        _run(["mcopy", "-o", "-i", img + ESP, tmp, "::/" + path])
    finally:
        os.unlink(tmp)


def set_free_hint(img, free):
    """Set the FAT32 FSInfo free-cluster count of the ESP to @p free (a stale hint, as another
    system can leave it: the FAT itself is unchanged). Returns the hint it replaced."""
    with open(img, "r+b") as f:
        f.seek(1 << 20)
        bs = f.read(512)
        if _u16(bs, 22) or not _u16(bs, 48):
            raise RuntimeError("%s: not FAT32 with an FSInfo sector" % img)
        at = (1 << 20) + _u16(bs, 48) * _u16(bs, 11)
        f.seek(at)
        fsi = f.read(512)
        if fsi[0:4] != b"RRaA" or fsi[484:488] != b"rrAa":
            raise RuntimeError("%s: FSInfo signatures missing" % img)
        f.seek(at + 488)
        f.write(free.to_bytes(4, "little"))
        return int.from_bytes(fsi[488:492], "little")


def fill(img, free_clusters):
    """Fill the ESP with filler files until exactly @p free_clusters clusters are free. Each
    filler file is a whole number of clusters; on FAT32 a new root-directory entry can take a
    cluster of its own, hence the loop."""
    cl = cluster_bytes(img)
    for k in range(8):
        have = free_bytes(img) // cl
        if have == free_clusters:
            return cl
        if have < free_clusters:
            raise RuntimeError("cannot leave %d clusters free (%d left)" % (free_clusters, have))
        tmp = img + ".fill"
        with open(tmp, "wb") as f:
            f.truncate((have - free_clusters) * cl)
        try:
            _run(["mcopy", "-i", img + ESP, tmp, "::/filler%d.bin" % k])
        finally:
            os.unlink(tmp)
    raise RuntimeError("could not fill %s to %d free clusters" % (img, free_clusters))


def make_image(path, efi, size_mib=34, free_clusters=None, dirs=(), files=None, runs=()):
    """A bootable image at @p path with @p dirs made, @p runs made in pmucal/results,
    @p files ({path: bytes}) written, then (if given) filled to @p free_clusters free
    clusters. Returns the cluster size."""
    _run([os.path.join(ROOT, "tools", "mkimage.sh"), path, efi, "", str(size_mib)])
    if dirs:
        make_dirs(path, dirs)
    if runs:
        make_dirs_fat16(path, "pmucal/results", runs)
    for p, data in (files or {}).items():
        put_file(path, p, data)
    cl = cluster_bytes(path)
    if free_clusters is not None:
        fill(path, free_clusters)
    return cl


def fsck(img):
    """`fsck.vfat -n` of the ESP: (clean, output). The ESP is copied out first, since fsck.vfat
    has no offset option."""
    esp = img + ".esp"
    with open(img, "rb") as src, open(esp, "wb") as dst:
        src.seek(1 << 20)
        while True:
            b = src.read(1 << 20)
            if not b:
                break
            dst.write(b)
    try:
        p = subprocess.run(["fsck.vfat", "-n", esp], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    finally:
        os.unlink(esp)
    # fsck.vfat -n exits 0 when clean, 1 when it found (and would fix) errors.
    bad = p.returncode != 0 or re.search(r"(?i)\b(fix|delet|corrupt|invalid|lost)", p.stdout)
    return not bad, p.stdout


def listing(img, path):
    """Names in volume folder @p path (mdir -b), or None if it does not exist."""
    p = subprocess.run(["mdir", "-b", "-i", img + ESP, "::/" + path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        return None
    return [os.path.basename(l.rstrip("/")) for l in p.stdout.splitlines() if l.strip()]


# ---- checks of the disk image QEMU used (qemu.cfg cases with a `volume` key): each takes the
# case and tests/qemu_checks.py's tap() ----

def check_fsck(c, tap):
    if not tap(c.disk is not None and os.path.exists(c.disk), "%s: disk image kept" % c.name):
        return
    clean, out = fsck(c.disk)
    what = "clean"
    if c.fsck_before is not None:
        # Damage the case planted: the run must leave it as it was, no worse.
        def problems(text):
            return [l for l in text.splitlines()[1:] if not re.search(r"\d+ files, \d+/\d+ clusters$", l)]
        clean = problems(out) == problems(c.fsck_before)
        what = "as damaged as before the run, no more"
    elif c.hint is not None:
        # The stale FSInfo hint the case planted is the one complaint allowed, and only
        # unchanged: every other line must be as on a clean volume.
        planted = re.compile(r"^Free cluster summary wrong \(%d vs\. really \d+\)\n"
                             r"\s*Auto-correcting\.\n" % c.hint, re.M)
        rest = planted.sub("", out, count=1)
        clean = rest != out and not re.search(r"(?i)\b(fix|delet|corrupt|invalid|lost|wrong)",
                                              rest)
        what = "clean but for the planted FSInfo hint (%d, unchanged)" % c.hint
    tap(clean, "%s: fsck.vfat -n finds the volume %s" % (c.name, what))
    if not clean:
        print("\n".join("# " + l for l in out.splitlines()))


def check_volume_full(c, tap):
    """Not saved for want of space: one line with the free and needed bytes, nothing created."""
    m = re.search(r"^RESULTS NOT SAVED: volume is full \((\d+) bytes free, (\d+) needed\)",
                  c.serial, re.M)
    want = c.free_clusters * c.cluster
    tap(m is not None and int(m.group(1)) == want and int(m.group(2)) > want,
        "%s: one line says the volume is full (%s bytes free, want %d; %s needed)"
        % (c.name, m.group(1) if m else "?", want, m.group(2) if m else "?"))
    tap(len(re.findall(r"^RESULTS", c.serial, re.M)) == 1 and "ERROR: writing" not in c.serial,
        "%s: no write was tried, a single RESULTS line" % c.name)
    tap(c.disk and listing(c.disk, "pmucal/results") == [],
        "%s: \\pmucal\\results is still empty" % c.name)


def check_stale_hint(c, tap):
    """The FSInfo hint says the volume has room, the FAT says not: the FAT's count is the one
    the full-volume line gives, and a warning names both figures."""
    m = re.search(r"^WARN: results: the volume's free-space figure \((\d+) bytes, the FAT32 "
                  r"FSInfo hint\) is more than its FAT has free \((\d+) bytes\)", c.serial, re.M)
    tap(m is not None and int(m.group(1)) == c.hint * c.cluster
        and int(m.group(2)) == c.free_clusters * c.cluster,
        "%s: a warning gives the hint (%s bytes, want %d) and the FAT's count (%s, want %d)"
        % (c.name, m.group(1) if m else "?", c.hint * c.cluster, m.group(2) if m else "?",
           c.free_clusters * c.cluster))


def check_results_damaged(c, tap):
    """\pmucal\results whose cluster the FAT marks free: the firmware calls the volume
    corrupted; the RESULTS line says the file system is damaged and what to do."""
    tap(re.search(r"^RESULTS NOT SAVED: the volume's file system is damaged \(the firmware "
                  r"reports it corrupted\); check and repair it with fsck\.vfat or chkdsk",
                  c.serial, re.M) is not None,
        "%s: the RESULTS line says the file system is damaged, and what to do" % c.name)
    tap("RESULTS NOT SAVED: malformed data" not in c.serial,
        "%s: not 'malformed data'" % c.name)


def check_config_second_esp(c, tap):
    """The boot volume has no config, a second ESP has one: the boot volume is named and the
    other config pointed at (the defaults apply)."""
    tap(re.search(r"^INFO: config: boot volume \S+", c.serial, re.M) is not None,
        "%s: names the boot volume" % c.name)
    tap(re.search(r"^WARN: config: another volume holds pmucal/pmucal\.cfg \(\S+\); only "
                  r"the boot volume's would be read", c.serial, re.M) is not None,
        "%s: says another volume holds a config" % c.name)


def check_run_name(c, tap):
    """With -01..-99 taken for every second the frozen clock can show, the run takes -100 and
    leaves the others alone."""
    m = re.search(r"^RESULTS: saved to \\pmucal\\results\\(20200101-0000(\d\d)-(\d+))\\",
                  c.serial, re.M)
    tap(m is not None and int(m.group(2)) < c.premade and m.group(3) == "100",
        "%s: run named %s (-100 of a second with -01..-99 taken)"
        % (c.name, m.group(1) if m else None))
    names = listing(c.disk, "pmucal/results") if c.disk else None
    tap(names is not None and len(names) == 99 * c.premade + 1,
        "%s: %s folders in \\pmucal\\results (%d made before + 1)"
        % (c.name, len(names) if names else None, 99 * c.premade))
    if m:
        old = "pmucal/results/%s-99" % m.group(1)[:-4]
        tap(listing(c.disk, old) == [], "%s: %s still empty" % (c.name, old))


def check_results_file(c, tap):
    tap(re.search(r"^RESULTS NOT SAVED: \\pmucal\\results is a file, not a folder", c.serial,
                  re.M) is not None, "%s: says \\pmucal\\results is a file" % c.name)
    p = subprocess.run(["mtype", "-i", c.disk + ESP, "::/pmucal/results"],
                       stdout=subprocess.PIPE, text=True) if c.disk else None
    tap(p is not None and p.stdout == "not a folder\n", "%s: the file is untouched" % c.name)


def check_config_dir(c, tap):
    tap(re.search(r"^WARN: config: pmucal/pmucal.cfg is a folder, not a file: using the "
                  r"defaults", c.serial, re.M) is not None,
        "%s: says pmucal.cfg is a folder" % c.name)
    tap(re.search(r"^WARN: config: pmucal/pmucal.cfg:", c.serial, re.M) is None and
        re.search(r"profile\s+= quick\s+\(default\)", c.serial) is not None,
        "%s: its entries are not parsed as config lines; defaults apply" % c.name)
