#!/usr/bin/env python3
"""Enforce pmucal's one-way layering from the code itself.

Reads every .c/.h/.S/.inc under the layer folders, resolves each #include to a file of the
tree (same folder first, then the -I directories, like the compiler), and prints one line per
violation:

    layering: <kind>: <file>:<line>: <what> (<rule>)

Kinds: upward (an include of a higher folder), arch (one architecture's folder including
another's, or shared code including an architecture's folder other than through its layer's
one interface header, ARCH_INTERFACES), circle (between folders, or between modules: x.c + x.h in one folder, a header
without a .c belonging to the .c that defines what it declares; module loops are looked for
without the upward includes, which are reported already), uefi (a UEFI
header, type or file outside boot/uefi/), hosted (a libc/host header in a freestanding layer),
hardware (MSR/PMC/CPUID/APIC access outside boot/ and pmu/), verdict (PASS/FAIL policy below
app/). Exit status 1 if there is any, 0 if none, 2 on a usage error.

    tools/check_layering.py [--root DIR] [--graph] [--quiet]

--graph also prints the folder-level include graph (include lines per folder pair, upward
edges marked) and the file count per folder, to compare the tree before and after a change.
The rules are the tables below: a new folder or architecture is one line.
"""
import argparse
import bisect
import collections
import os
import re
import sys

# ---- rules as data ------------------------------------------------------------------------

# Folders bottom to top: a file may include its own folder and the folders below it.
FLOORS = {"lib": 0, "boot": 1, "pmu": 2, "bench": 3, "analysis": 4, "report": 5, "app": 6,
          "host": 7, "tests": 8}
# Architecture subfolders (boot/x86, pmu/arm64, ...): part of their top folder, but one
# architecture never includes another's.
ARCHES = ("x86", "arm64")
# Shared code (a file in no architecture's folder) reaches an architecture's folder only through
# its layer's one interface header, and that header only into its own layer's architecture
# folders. Layers without an entry have none: their shared files include no architecture's
# file at all.
ARCH_INTERFACES = {"boot": "boot/arch.h", "pmu": "pmu/pmu.h", "bench": "bench/ownpt.h",
                   "host": "host/arch.h"}
# Folders the rule leaves out: the tests test both architectures.
ARCH_RULE_EXEMPT = ("tests",)
SOURCE_EXTS = (".c", ".h", ".S", ".inc")
ASM_EXTS = (".S", ".inc")
# Where quoted includes are looked for after the including file's own folder (-I order);
# "" is the repository root. Angle includes are looked for here too.
INCLUDE_DIRS = ("", "host/include", "report/include")
# A header x_priv.h belongs to module x (x.c + x.h) when that module exists, and so does
# every x_<part>.c that includes it: one module split into files along its seams.
PRIVATE_SUFFIXES = ("_priv",)

# UEFI: only these folders may include UEFI headers, use UEFI names or be included.
UEFI_DIRS = ("boot/uefi",)
UEFI_HEADER_RE = re.compile(r"^(?:efi/)?efi\w*\.h$|^(?:Uefi|PiDxe)\.h$|^(?:Library|Protocol|Guid)/",
                            re.IGNORECASE)
UEFI_TOKENS = ("CHAR16", "EFI_STATUS", "EFI_HANDLE", "UINTN", "INTN", "EFI_SYSTEM_TABLE",
               "EFI_BOOT_SERVICES", "EFI_RUNTIME_SERVICES", "EFI_GUID", "uefi_call_wrapper",
               "gBS", "gST", "gRT", "gImageHandle", "InitializeLib")

# Freestanding layers may include only these system headers; the exceptions are hosted code.
FREESTANDING_DIRS = ("lib", "boot", "pmu", "bench", "analysis", "report", "app")
HOSTED_EXCEPTIONS = ("boot/linux",)
FREESTANDING_HEADERS = ("stdint.h", "stddef.h", "stdbool.h", "stdarg.h", "limits.h")

# Hardware access: allowed only in these folders (tests/ holds the fakes of the accessors).
HARDWARE_DIRS = ("boot", "pmu", "tests")
# Instructions looked for in inline asm strings and .S/.inc code. rdtsc/lfence are not listed:
# they are the timed kernels' clock in bench/.
HW_INSTRUCTIONS = (
    ("rdmsr", r"\brdmsr\b"),
    ("wrmsr", r"\bwrmsr\b"),
    ("wrmsrns", r"\bwrmsrns\b"),
    ("rdpmc", r"\brdpmc\b"),
    ("cpuid", r"\bcpuid\b"),
    ("mrs/msr of a PMU/ID system register",
     r"\b(?:mrs\s+[^,;\"]+,\s*|msr\s+)(?:pm\w+|id_\w+|midr_el1|mpidr_el1|revidr_el1|"
     r"s3_\d_c\d+_c\d+_\d)\b"),
)
HW_CALLS = ("rdmsr_safe", "wrmsr_safe", "rdpmc_safe", "rdmsr", "wrmsr", "rdpmc", "cpuid_raw",
            "apic_read", "apic_write")

# Verdict policy: these folders may not call the verdict API nor print PASS/FAIL lines.
VERDICT_FREE_DIRS = ("lib", "boot", "pmu", "bench", "analysis")
VERDICT_CALLS = ("rep_check", "rep_skip", "rep_pass", "rep_fail", "rep_info")
VERDICT_STRINGS = ("PASS:", "FAIL:")

# ---- reading a file -----------------------------------------------------------------------

C_LEX = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)
CPP_DIRECTIVES = ("include", "define", "undef", "if", "ifdef", "ifndef", "elif", "else",
                  "endif", "error", "warning", "pragma", "line")
ASM_LEX = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|^[ \t]*#(?![ \t]*(?:%s)\b)[^\n]*"
                     % "|".join(CPP_DIRECTIVES), re.DOTALL | re.MULTILINE)
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]*)[>"]', re.MULTILINE)
ASM_STMT_RE = re.compile(r"\b(?:__asm__|__asm|asm)\b")
ASM_QUALIFIERS_RE = re.compile(r"^(?:\s|volatile\b|__volatile__\b|goto\b|inline\b)*$")


def blank(s):
    return re.sub(r"[^\n]", " ", s)


class Source:
    """One file: its text with comments blanked (nocomm), with comments and string literals
    blanked (code), its string literals [(offset, body)], and offset -> line."""

    def __init__(self, root, rel):
        self.rel = rel
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        self.asm = rel.endswith(ASM_EXTS)
        nocomm, code, self.strings = [], [], []
        pos = 0
        for m in (ASM_LEX if self.asm else C_LEX).finditer(text):
            tok = m.group(0)
            nocomm.append(text[pos:m.start()])
            code.append(text[pos:m.start()])
            if tok[0] in "\"'":
                nocomm.append(tok)
                code.append(tok[0] + blank(tok[1:-1]) + tok[-1])
                if tok[0] == '"':
                    self.strings.append((m.start() + 1, tok[1:-1]))
            else:
                nocomm.append(blank(tok))
                code.append(blank(tok))
            pos = m.end()
        nocomm.append(text[pos:])
        code.append(text[pos:])
        self.nocomm, self.code = "".join(nocomm), "".join(code)
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset):
        return bisect.bisect_right(self.starts, offset)

    def asm_strings(self):
        """String literals inside asm statements, and all of the code of a .S/.inc file."""
        if self.asm:
            return [(0, self.code)]
        out = []
        for m in ASM_STMT_RE.finditer(self.code):
            start = self.code.find("(", m.end())
            if start < 0 or not ASM_QUALIFIERS_RE.match(self.code[m.end():start]):
                continue
            depth, end = 0, start
            for end in range(start, len(self.code)):
                depth += {"(": 1, ")": -1}.get(self.code[end], 0)
                if depth == 0:
                    break
            out += [(o, s) for o, s in self.strings if start < o < end]
        return out


# ---- the tree and its include graph -------------------------------------------------------

def folder(rel):
    return rel.split("/", 1)[0]


def arch(rel):
    return next((p for p in rel.split("/")[1:-1] if p in ARCHES), None)


def under(rel, dirs):
    return any(rel == d or rel.startswith(d + "/") for d in dirs)


def scan(root):
    files = []
    for top in FLOORS:
        for dirpath, dirnames, names in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for n in sorted(names):
                if n.endswith(SOURCE_EXTS):
                    files.append(os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/"))
    return files


def resolve(root, src, kind, name, known):
    """The tree file an include names, or None for a system (or missing) header."""
    cands = [os.path.join(os.path.dirname(src), name)] if kind == '"' else []
    cands += [os.path.join(d, name) for d in INCLUDE_DIRS]
    for c in cands:
        rel = os.path.normpath(c).replace(os.sep, "/")
        if rel in known or (not rel.startswith("..") and os.path.isfile(os.path.join(root, rel))):
            return rel
    return None


Include = collections.namedtuple("Include", "src line kind name target")


def includes_of(root, s, known):
    out = []
    for m in INCLUDE_RE.finditer(s.nocomm):
        kind, name = m.group(1), m.group(2).strip()
        out.append(Include(s.rel, s.line(m.start()), kind, name, resolve(root, s.rel, kind, name, known)))
    return out


# ---- the rules ----------------------------------------------------------------------------

def v(out, kind, src, line, what, rule):
    out.append((kind, src, line, "layering: %s: %s:%d: %s (%s)" % (kind, src, line, what, rule)))


def below(f):
    return ", ".join(d for d, n in sorted(FLOORS.items(), key=lambda x: x[1]) if n <= FLOORS[f])


def upward(fs, ft):
    return fs in FLOORS and ft in FLOORS and FLOORS[ft] > FLOORS[fs]


def check_include(inc, out):
    src, tgt = inc.src, inc.target
    spelled = "%s%s%s" % (inc.kind, inc.name, ">" if inc.kind == "<" else '"')
    in_uefi = under(src, UEFI_DIRS)
    if tgt is None:
        base = inc.name
        if UEFI_HEADER_RE.search(base) and not in_uefi:
            v(out, "uefi", src, inc.line, "includes %s" % spelled,
              "UEFI headers only in %s/" % ", ".join(UEFI_DIRS))
        elif (folder(src) in FREESTANDING_DIRS and not under(src, HOSTED_EXCEPTIONS)
              and base not in FREESTANDING_HEADERS and not (in_uefi and UEFI_HEADER_RE.search(base))):
            v(out, "hosted", src, inc.line, "includes %s" % spelled,
              "freestanding %s/ may include only <%s>" % (folder(src), ">, <".join(FREESTANDING_HEADERS)))
        return
    if under(tgt, UEFI_DIRS) and not in_uefi:
        v(out, "uefi", src, inc.line, "includes %s (%s)" % (spelled, tgt),
          "UEFI files are included only from %s/" % ", ".join(UEFI_DIRS))
    fs, ft = folder(src), folder(tgt)
    if upward(fs, ft):
        v(out, "upward", src, inc.line, "includes %s (%s/ is above %s/)" % (tgt, ft, fs),
          "%s/ may include only %s" % (fs, below(fs)))
    a_s, a_t = arch(src), arch(tgt)
    if a_s and a_t and a_s != a_t:
        v(out, "arch", src, inc.line, "includes %s (%s code in %s code)" % (tgt, a_t, a_s),
          "one architecture's folder never includes another's")
    elif a_t and not a_s and fs not in ARCH_RULE_EXEMPT and \
            (ARCH_INTERFACES.get(fs) != src or ft != fs):
        v(out, "arch", src, inc.line, "includes %s (%s code in shared code)" % (tgt, a_t),
          "shared code reaches an architecture's folder only through its layer's interface "
          "header: %s" % ", ".join(sorted(ARCH_INTERFACES.values())))


def check_tokens(s, out):
    rel, top = s.rel, folder(s.rel)
    if not under(rel, UEFI_DIRS):
        for m in re.finditer(r"\b(%s)\b" % "|".join(UEFI_TOKENS), s.code):
            v(out, "uefi", rel, s.line(m.start()), "uses %s" % m.group(1),
              "UEFI names only in %s/" % ", ".join(UEFI_DIRS))
    if top not in HARDWARE_DIRS:
        rule = "hardware access only in %s/" % "/, ".join(HARDWARE_DIRS)
        for off, body in s.asm_strings():
            for name, pat in HW_INSTRUCTIONS:
                for m in re.finditer(pat, body, re.IGNORECASE):
                    v(out, "hardware", rel, s.line(off + m.start()), "%s instruction" % name, rule)
        for m in re.finditer(r"\b(%s)\s*\(" % "|".join(HW_CALLS), s.code):
            v(out, "hardware", rel, s.line(m.start()), "calls %s()" % m.group(1), rule)
    if top in VERDICT_FREE_DIRS:
        rule = "only app/ decides PASS/FAIL/SKIP; %s/ return results" % "/, ".join(VERDICT_FREE_DIRS)
        for m in re.finditer(r"\b(%s)\s*\(" % "|".join(VERDICT_CALLS), s.code):
            v(out, "verdict", rel, s.line(m.start()), "calls %s()" % m.group(1), rule)
        for off, body in s.strings:
            for word in VERDICT_STRINGS:
                if word in body:
                    v(out, "verdict", rel, s.line(off), 'prints "%s"' % word, rule)


PROTO_RE = re.compile(r"^(?!static\b|typedef\b)[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{}]*\)\s*;", re.MULTILINE)
EXTERN_RE = re.compile(r"^extern\b[^;(]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*;", re.MULTILINE)


def header_owners(sources):
    """Module of each file that is not its own: x_priv.h, and every x_<part>.c that includes
    it, belong to module x when x.c or x.h exists (one module split along its seams, sharing
    a private header: cpuid.c, cpuid_cache.c, cpuid_dump.c); any other header with no x.c
    beside it belongs to the one .c file of its folder that defines what it declares, else
    to itself."""
    owners, by_dir = {}, collections.defaultdict(list)
    for rel, s in sources.items():
        if rel.endswith(".c"):
            by_dir[os.path.dirname(rel)].append(s)
    for rel, s in sources.items():
        stem, ext = os.path.splitext(rel)
        for suf in PRIVATE_SUFFIXES:
            base = stem[:-len(suf)]
            if ext == ".h" and stem.endswith(suf) and (base + ".c" in sources or
                                                       base + ".h" in sources):
                owners[rel] = base
                for c, cs in sources.items():
                    if (c.startswith(base + "_") and c.endswith(".c") and
                            re.search(r'#\s*include\s*"([^"]*/)?%s"' % re.escape(os.path.basename(rel)),
                                      cs.nocomm)):
                        owners[c] = base
    for rel, s in sources.items():
        stem, ext = os.path.splitext(rel)
        if ext != ".h" or stem + ".c" in sources or rel in owners:
            continue
        names = set(PROTO_RE.findall(s.code)) | set(EXTERN_RE.findall(s.code))
        found = set()
        for c in by_dir.get(os.path.dirname(rel), []):
            for n in names:
                if re.search(r"^(?!static\b|extern\b)[A-Za-z_][^;{}()]*\b%s\s*(?:\([^;{}]*\)\s*\{|"
                             r"(?:\[[^\]]*\])?\s*=)" % re.escape(n), c.code, re.MULTILINE):
                    found.add(os.path.splitext(c.rel)[0])
                    break
        if len(found) == 1:
            owners[rel] = found.pop()
    return owners


def module_of(rel, owners):
    return owners.get(rel, os.path.splitext(rel)[0])


def sccs(graph):
    """Strongly connected components of {node: {succ: site}} (Tarjan, iterative)."""
    index, low, onstack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); onstack.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1
                    stack.append(nxt); onstack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, {})))))
                elif nxt in onstack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop(); onstack.discard(n); comp.append(n)
                    if n == node:
                        break
                out.append(sorted(comp))
    return out


def shortest_loop(graph, start, members):
    """A shortest cycle through @p start within @p members, as a node list (first == last)."""
    prev, queue = {start: None}, [start]
    for node in queue:
        for nxt in sorted(graph.get(node, {})):
            if nxt == start:
                path = [start]
                while node is not None:
                    path.append(node)
                    node = prev[node]
                return path[::-1]
            if nxt in members and nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    return [start, start]


def check_circles(incs, sources, out):
    folders, modules, owners = {}, {}, header_owners(sources)
    for inc in incs:
        if inc.target is None:
            continue
        fs, ft = folder(inc.src), folder(inc.target)
        if fs != ft:
            folders.setdefault(fs, {}).setdefault(ft, inc)
        ms, mt = module_of(inc.src, owners), module_of(inc.target, owners)
        if ms != mt and not upward(fs, ft):
            modules.setdefault(ms, {}).setdefault(mt, inc)
    for graph, what in ((folders, "folders"), (modules, "modules")):
        for comp in sccs(graph):
            covered = set()
            for start in comp if len(comp) > 1 else []:
                if start in covered:
                    continue
                loop = shortest_loop(graph, start, set(comp))
                covered.update(loop if what == "modules" else comp)
                up = [i for i, (a, b) in enumerate(zip(loop, loop[1:])) if upward(a, b)]
                if up:  # start at the upward include that closes the loop
                    loop = loop[up[0]:-1] + loop[:up[0] + 1]
                sites = [graph[a][b] for a, b in zip(loop, loop[1:])]
                knot = "" if len(loop) - 1 == len(comp) or what == "modules" else \
                    " (%d folders in the knot: %s)" % (len(comp), ", ".join(comp))
                v(out, "circle", sites[0].src, sites[0].line, "%s loop %s via %s%s" % (
                    what[:-1], " -> ".join(loop),
                    ", ".join("%s:%d (%s)" % (s.src, s.line, s.target) for s in sites), knot),
                  "no circles between %s" % what)


# ---- output -------------------------------------------------------------------------------

def print_graph(files, incs):
    per = collections.Counter(folder(f) for f in files)
    print("files: " + ", ".join("%s %d" % (d, per[d]) for d in FLOORS))
    edges = collections.Counter((folder(i.src), folder(i.target)) for i in incs
                                if i.target and folder(i.src) != folder(i.target))
    up = [e for e in edges if upward(*e)]
    order = {d: n for n, d in enumerate(FLOORS)}
    inner = sum(1 for a, b in edges if "tests" not in (a, b))
    print("folder include graph (include lines per pair; %d pairs, %d without tests/; %d upward):"
          % (len(edges), inner, len(up)))
    for (a, b), n in sorted(edges.items(), key=lambda e: (order.get(e[0][0], 99), order.get(e[0][1], 99))):
        print("  %-7s -> %-7s %4d%s" % (a, b, n, "  UPWARD" if (a, b) in up else ""))
    unresolved = sum(1 for i in incs if i.target is None and i.kind == '"')
    print("system includes: %d, quoted includes not in the tree: %d"
          % (sum(1 for i in incs if i.target is None) - unresolved, unresolved))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--graph", action="store_true", help="print the folder-level include graph")
    ap.add_argument("--quiet", action="store_true", help="print violations only")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.root):
        ap.error("no such folder: %s" % args.root)
    files = scan(args.root)
    known = set(files)
    out, incs, sources = [], [], {}
    for rel in files:
        s = sources[rel] = Source(args.root, rel)
        mine = includes_of(args.root, s, known)
        incs += mine
        for inc in mine:
            check_include(inc, out)
        check_tokens(s, out)
    check_circles(incs, sources, out)
    if args.graph:
        print_graph(files, incs)
    for _, _, _, text in sorted(set(out), key=lambda x: (x[1], x[2], x[0], x[3])):
        print(text)
    if not args.quiet:
        kinds = collections.Counter(k for k, _, _, _ in set(out))
        summary = ", ".join("%s %d" % kv for kv in sorted(kinds.items()))
        print("layering: %s (%d files, %d includes)" % (
            "%d violations: %s" % (sum(kinds.values()), summary) if out else "ok", len(files), len(incs)),
            file=sys.stderr if out else sys.stdout)
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
