#!/usr/bin/env python3
"""A profiler's samples into a pmucal table's buckets, as HP Caliper's dcache report sorted
them: each sample's data source from what the hardware recorded (a PEBS / perf mem
perf_mem_data_src, or an AMD IBS op's IbsOpData2 / IbsOpData3), its latency in core cycles
(the perf weight, or the op's DcMissLat), sorted by source and by latency alone, then a count
per bucket. Written from python/README.md and docs/libpmucal.md ("Units and clocks",
"Buckets", "Data sources"); docs/examples/profiler-samples.c does the same in C and prints the
same lines.

    python3 profiler_samples.py latency-table.json [--core-ghz G] [SAMPLES|-] < samples.txt

SAMPLES (default stdin) has one sample a line (docs/examples/samples.txt): `perf DATA_SRC
CYCLES`, `ibs OP_DATA2 OP_DATA3` or `ibs-zen4 OP_DATA2 OP_DATA3` (the Zen 4/5 DataSrc layout
whatever the table's CPU), values in hex as perf script prints them; `#` starts a comment.
--core-ghz G: the core clock the samples ran at, for a table without a core:TSC ratio of its
own (a firmware run under QEMU has none). Exit status: 0, 1 when the table does not load or
cannot take core cycles, 2 for a usage error."""
import math
import sys

import pmucal


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: %s TABLE [--core-ghz G] [SAMPLES|-]\n" % argv[0])
        return 2
    try:
        t = pmucal.load_latency_table(argv[1])
        n = pmucal.load_numa(argv[1])
    except pmucal.Error as e:
        sys.stderr.write("%s\n" % e)
        return 1
    a = 2
    if a + 1 < len(argv) and argv[a] == "--core-ghz":
        try:
            t.set_core_ghz(float(argv[a + 1]))  # GHz x 1e9 / tsc_hz core cycles per TSC tick
        except (pmucal.Error, ValueError) as e:
            sys.stderr.write("--core-ghz %s: %s\n" % (argv[a + 1], e))
            return 1
        a += 2
    src_file = sys.stdin if a >= len(argv) or argv[a] == "-" else open(argv[a])
    if t.core_per_tsc is None:
        sys.stderr.write("%s: no core:TSC ratio for core-cycle samples; give --core-ghz G\n" % argv[1])
        return 1
    print("table %s: core:TSC ratio %.4f (%s%s)" % (argv[1], t.core_per_tsc,
                                                  "estimated by " if t.core_ratio_estimated else "",
                                                  t.core_ratio_source))
    counts, n_samples = {}, 0
    for line in src_file:
        line = line.rstrip("\r\n")
        if not line or line.startswith("#"):
            continue
        f = line.split()
        try:
            if len(f) >= 3 and f[0] == "perf":
                v, lat = int(f[1], 16), float(f[2])
                get = (lambda v=v: pmucal.source_perf_data_src(v))
            elif len(f) >= 3 and f[0] in ("ibs", "ibs-zen4"):
                d2, d3 = int(f[1], 16), int(f[2], 16)
                layout = "zen4" if f[0] == "ibs-zen4" else "auto"
                get = (lambda d2=d2, d3=d3, layout=layout: pmucal.source_ibs_op(
                    d2, d3, t.machine["family"], t.machine["model"], layout))
            else:
                raise ValueError(line)
        except ValueError:
            print("%s: not a sample" % line)
            continue
        n_samples += 1
        try:
            if f[0] == "perf":
                src = get()
            else:
                src, lat = get()
        except pmucal.SourceError as e:
            print("%s: source unknown (%s)" % (line, e.what))
            counts["(unknown source)"] = counts.get("(unknown source)", 0) + 1
            continue
        except pmucal.Error as e:
            print("%s: %s" % (line, e.kind))
            continue
        if math.isnan(lat):
            print("%s: source %s, no latency (the op did not miss)" % (line, src))
            counts[src] = counts.get(src, 0) + 1
            continue
        out = "%s: source %s, %g core cycles: " % (line, src, lat)
        try:
            m = pmucal.classify_source(t, n, src, lat, "core")
            out += "%s %s (%.3f..%.3f ns)" % (m.bucket, m.fit, m.lo_ns, m.hi_ns)
            counts[m.bucket] = counts.get(m.bucket, 0) + 1
        except pmucal.Error as e:
            out += e.kind
            counts["(no bucket)"] = counts.get("(no bucket)", 0) + 1
        try:
            out += "; by latency: %s" % pmucal.classify(t, n, lat, "core").bucket
        except pmucal.Error as e:
            out += "; by latency: %s" % e.kind
        print(out)
    print("%d samples" % n_samples)
    for bucket, k in counts.items():
        print("  %-28s %d" % (bucket, k))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
