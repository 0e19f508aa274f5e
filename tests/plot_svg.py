#!/usr/bin/env python3
"""Checks of `make plot`'s figures drawn as SVG (PLOT_FORMAT=svg) against the results files
they were drawn from, for tests/test_plot.sh:

    plot_svg.py RUN_DIR

Each check prints "ok - ..." or "not ok - ..." (the shell numbers them). What is checked, from
gnuplot's SVG: the frame (the closed black rectangle of the border); every label placed on the
plot (coloured text: levels, capacities, bounds, TLB entries, delays) lies inside the frame,
its extent estimated from its anchor, rotation and length; each level of latency-table.json,
each capacity and bucket bound is labelled; each TLB level is marked at its entries' x (mapped
through the axis' tic labels); each loaded-latency curve's line visits its measured points in
injection order (unloaded, then the loaders' delay from longest to shortest) at the pixels
their bandwidth and p50 map to; the delay labels sit beside a point with that delay; the C2C
heat map gives pairs within 5 % of the fastest one a pale colour and pairs twice as slow a dark
one; "emulated" is in a title exactly when the file's method says so."""
import json
import math
import os
import re
import sys

CHAR_W = 0.6  # sans glyph advance per font size, generous: an estimate, not a measure
results = []


def check(ok, what, why=""):
    results.append((bool(ok), what, why))


def rgb(s):
    m = re.match(r"rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)", s or "")
    if m:
        return tuple(int(v) for v in m.groups())
    if s and s.startswith("#") and len(s) == 7:
        return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))
    return (0, 0, 0) if s in ("black", "currentColor") else None


class Svg:
    def __init__(self, path):
        self.path = path
        src = open(path).read()
        self.frame = None
        for d in re.findall(r"<path stroke='black'\s+d='(M[^']*Z)\s*'", src):
            pts = [tuple(float(v) for v in p.split(",")) for p in re.findall(r"[\d.]+,[\d.]+", d)]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            box = (min(xs), min(ys), max(xs), max(ys))
            if self.frame is None or (box[2] - box[0]) * (box[3] - box[1]) > \
                    (self.frame[2] - self.frame[0]) * (self.frame[3] - self.frame[1]):
                self.frame = box
        self.texts = []
        for m in re.finditer(r'<g transform="translate\(([\d.-]+),([\d.-]+)\)(?: rotate\(([\d.-]+)\))?"'
                             r'[^>]*fill="([^"]*)"[^>]*font-size="([\d.]+)"[^>]*text-anchor="(\w+)">\s*'
                             r'<text>(.*?)</text>', src, re.S):
            x, y, rot, fill, fs, anchor, body = m.groups()
            text = re.sub(r"<[^>]+>", "", body)
            text = text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            self.texts.append({"text": text.strip(), "x": float(x), "y": float(y),
                               "rot": float(rot or 0), "fill": rgb(fill), "fs": float(fs),
                               "anchor": anchor})
        self.title_text = " ".join(t["text"] for t in self.texts if self.frame and t["y"] < self.frame[1])
        self.groups = {}
        for m in re.finditer(r'<g id="gnuplot_plot_\d+" ><title>(.*?)</title>(.*?)(?=<g id="gnuplot_plot_|\Z)',
                             src, re.S):
            self.groups[m.group(1)] = m.group(2)
        self.boxes = re.findall(r"<polygon fill = '(rgb\([^)]*\))' points = '([^']*)'", src)

    def labels(self):
        """The text placed on the plot: coloured, so neither tics, axis names, key nor title."""
        return [t for t in self.texts if t["fill"] not in (None, (0, 0, 0))]

    def corners(self, t):
        w = CHAR_W * t["fs"] * len(t["text"])
        a = math.radians(t["rot"])
        dx, dy = math.cos(a), math.sin(a)
        k = {"start": 0.0, "middle": 0.5, "end": 1.0}[t["anchor"]]
        sx, sy = t["x"] - k * w * dx, t["y"] - k * w * dy
        ex, ey = sx + w * dx, sy + w * dy
        px, py = dy * t["fs"] * 0.8, -dx * t["fs"] * 0.8  # the glyphs' height above the baseline
        return [(sx, sy), (ex, ey), (sx + px, sy + py), (ex + px, ey + py)]

    def inside(self, t, slack=1.0):
        x0, y0, x1, y1 = self.frame
        return all(x0 - slack <= x <= x1 + slack and y0 - slack <= y <= y1 + slack for x, y in self.corners(t))

    def axis(self, which, log):
        """value -> pixel from two numeric tic labels of the x (below the frame) or y axis."""
        x0, y0, x1, y1 = self.frame
        tics = []
        for t in self.texts:
            if t["fill"] != (0, 0, 0) or t["rot"]:
                continue
            try:
                v = float(t["text"])
            except ValueError:
                continue
            if which == "x" and t["y"] > y1 and t["anchor"] == "middle":
                tics.append((v, t["x"]))
            elif which == "y" and t["x"] < x0 and t["anchor"] == "end":
                tics.append((v, t["y"] - 3.25))  # gnuplot sets the baseline a third of 10 pt low
        tics = sorted({v: p for v, p in tics if not log or v > 0}.items())
        (va, pa), (vb, pb) = tics[0], tics[-1]
        f = math.log if log else (lambda v: v)
        return lambda v: pa + (f(v) - f(va)) * (pb - pa) / (f(vb) - f(va))


def polyline(body):
    """The longest run of joined segments of a plot's path: the curve's line."""
    best = []
    for d in re.findall(r"d='([^']*)'", body):
        for sub in re.split(r"M", d):
            pts = [tuple(float(v) for v in p.split(",")) for p in re.findall(r"-?[\d.]+,-?[\d.]+", sub)]
            if len(pts) > len(best):
                best = pts
    return best


def all_inside(svg, name):
    bad = [t["text"] for t in svg.labels() if not svg.inside(t)]
    check(svg.frame and svg.labels() and not bad,
          "%s: all %d labels inside the frame" % (name, len(svg.labels())), "outside: %s" % bad)


def latency(d):
    svg = Svg(os.path.join(d, "latency-curve.svg"))
    t = json.load(open(os.path.join(d, "latency-table.json")))
    all_inside(svg, "latency curve")
    texts = [x["text"] for x in svg.labels()]
    for lv in t["levels"]:
        check(any(s.startswith(lv["name"] + " ") and "TSC ticks" in s for s in texts),
              "latency curve: level %s labelled with its p50" % lv["name"], texts)
        if lv.get("capacity_bytes"):
            check(any(s.startswith("%s capacity" % lv["name"]) for s in texts),
                  "latency curve: %s capacity marked" % lv["name"], texts)
    bounds = (t["bucket_upper_bounds"].get("tsc_ticks") or t["bucket_upper_bounds"]["cycles"])
    n = min(len(bounds), len(t["levels"]) - 1)
    check(sum(s.startswith("bound ") for s in texts) == n, "latency curve: %d bucket bounds labelled" % n, texts)


def tlb(d):
    svg = Svg(os.path.join(d, "tlb-curve.svg"))
    path = os.path.join(d, "tlb-table.json")
    tab = json.load(open(path)) if os.path.exists(path) else \
        json.load(open(os.path.join(d, "latency-table.json"))).get("tlb") or {}
    all_inside(svg, "TLB curves")
    xmap = svg.axis("x", True)
    marked = 0
    for c in tab.get("curves") or []:
        for lv in c.get("levels") or []:
            if not lv.get("entries"):
                continue
            want = "L%d TLB: %d entries" % (lv["level"], lv["entries"])
            hits = [x for x in svg.labels() if want in x["text"] and x["text"].startswith(c["side"])]
            at = xmap(lv["entries"])
            check(any(abs(x["x"] - at) < 15 for x in hits),
                  "TLB curves: %s %d-byte pages: '%s' marked at x %.0f" % (c["side"], c["page_bytes"], want, at),
                  [(x["text"], x["x"]) for x in hits])
            marked += 1
    check(marked > 0, "TLB curves: the table has TLB levels to mark (%d)" % marked)


def injection(p):
    return (0, 0) if p.get("delay") is None else (1, -p["delay"])


def loaded(d):
    svg = Svg(os.path.join(d, "loaded-latency.svg"))
    m = json.load(open(os.path.join(d, "numa-matrix.json")))
    all_inside(svg, "loaded latency")
    xmap, ymap = svg.axis("x", False), svg.axis("y", False)
    points = []
    for c in m.get("loaded_latency") or []:
        pts = sorted((p for p in c["points"] if p.get("measured") and p.get("p50_ns") is not None), key=injection)
        if not pts:
            continue
        who = "node %d loaded" % c["node"] if c["loaded"] == "node" else \
            "every node loaded" if c["loaded"] in ("all", "all nodes") else "loaded: %s" % c["loaded"]
        name = [k for k in svg.groups if k == "%s, chase on APIC ID %d" % (who, c["chaser_apic_id"])]
        line = polyline(svg.groups[name[0]]) if name else []
        want = [(xmap(p["bandwidth_gb_s"] or 0), ymap(p["p50_ns"])) for p in pts]
        line = line[-len(want):] if len(line) >= len(want) else line
        ok = len(line) == len(want) and all(abs(a[0] - b[0]) < 1.5 and abs(a[1] - b[1]) < 1.5
                                            for a, b in zip(line, want))
        check(ok, "loaded latency: %s: the line joins its %d points in injection order"
              % (name[0] if name else c["loaded"], len(want)), "line %s want %s" % (line, want))
        points += [(p, w) for p, w in zip(pts, want)]
    labels = [x for x in svg.labels() if x["text"] == "unloaded" or x["text"].startswith("delay ")]
    far = []
    for x in labels:
        delay = None if x["text"] == "unloaded" else int(x["text"].split()[1])
        if not any(p.get("delay") == delay and abs(x["x"] - w[0]) < 12 and abs(x["y"] - w[1]) < 16
                   for p, w in points):
            far.append(x["text"])
    check(labels and not far, "loaded latency: %d delay labels, each beside a point with that delay" % len(labels),
          "not beside one: %s" % far)
    emu = bool((m.get("method") or {}).get("emulated"))
    check(("emulated" in svg.title_text) == emu, "loaded latency: 'emulated' in the title: %s" % emu,
          svg.title_text)


def c2c(d):
    svg = Svg(os.path.join(d, "c2c-heatmap.svg"))
    doc = json.load(open(os.path.join(d, "c2c.json")))
    ns = [p["hitm"]["p50_ns"] for p in doc["c2c"]["pairs"] if p.get("hitm") and p["hitm"].get("p50_ns") is not None]
    lo = min(ns)
    cells = [x for x in svg.texts if svg.frame and svg.inside(x) and re.fullmatch(r"[\d.]+", x["text"])]
    fills = {}
    for fill, path in svg.boxes:
        pts = [tuple(float(v) for v in p.split(",")) for p in re.findall(r"[\d.]+,[\d.]+", path)]
        if pts:
            cx = sum(p[0] for p in pts) / len(pts)
            cy = sum(p[1] for p in pts) / len(pts)
            fills[(round(cx), round(cy))] = rgb(fill)
    pale, dark, wrong = 0, 0, []
    for cell in cells:
        v = float(cell["text"])
        near = min(fills.items(), key=lambda kv: abs(kv[0][0] - cell["x"]) + abs(kv[0][1] - cell["y"]),
                   default=(None, None))[1]
        if near is None:
            continue
        if v <= lo * 1.05 + 0.05:
            pale += 1
            if any(abs(a - b) > 40 for a, b in zip(near, (0xff, 0xff, 0xcc))):
                wrong.append((v, near))
        elif v >= lo * 2:
            dark += 1
            if near[0] > 0xa0 or near[1] > 0x40:
                wrong.append((v, near))
    check(cells and (pale or dark) and not wrong,
          "C2C heat map: %d pairs within 5 %% of the fastest pale, %d at twice it or more dark" % (pale, dark),
          "wrong colours (ns, rgb): %s" % wrong)
    emu = bool((doc.get("method") or {}).get("emulated"))
    check(("emulated" in svg.title_text) == emu, "C2C heat map: 'emulated' in the title: %s" % emu,
          svg.title_text)


def main(d):
    for name, fn, need in (("latency", latency, "latency-curve.svg"), ("tlb", tlb, "tlb-curve.svg"),
                           ("loaded", loaded, "loaded-latency.svg"), ("c2c", c2c, "c2c-heatmap.svg")):
        if not os.path.exists(os.path.join(d, need)):
            check(False, "%s drawn" % need)
            continue
        try:
            fn(d)
        except Exception as e:  # a figure the checks cannot read is a failure, said
            check(False, "%s: readable (%s: %s)" % (need, type(e).__name__, e))
    for ok, what, why in results:
        print("%s - %s" % ("ok" if ok else "not ok", what))
        if not ok and why:
            print("#   %s" % str(why)[:600])
    return 0 if all(r[0] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
