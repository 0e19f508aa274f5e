#!/usr/bin/env python3
"""Check that every exported symbol carries its layer's and module's prefix.

Reads the global symbols each built object defines (nm), maps the object back to the source it
was built from (its path below the object folder given), and prints one line per symbol whose
name says another layer or no layer at all:

    names: <file>: <symbol>: <what is wrong> (<rule>)

The rules are the tables below (docs/architecture.md, "Names", shows them as a table): each
prefix belongs to one layer (top folder), and within it to the files it names; a few modules
may export only their own prefixes. A symbol with no prefix of the table is a violation too.
Exit status 1 if there is any, 0 if none, 2 on a usage error (an object folder that does not
exist, nm missing, no object at all).

    tools/check_names.py [--list] [--root DIR] OBJDIR...

OBJDIR is a folder of objects laid out like the tree (build/efi, build/aarch64/obj,
build/host/obj); an object whose source is no longer in the tree (--root, the repository by
default: a file moved or deleted since the last build) is left out. --list prints each
prefix with the number of symbols that carry it.
"""
import argparse
import collections
import fnmatch
import os
import subprocess
import sys

# ---- rules as data ------------------------------------------------------------------------

# Prefix (ending in "_") or whole name -> (the files that may define it, what it names). All of
# one entry's files lie in one top folder: a prefix says its layer. The longest prefix that fits
# a symbol decides; a whole name wins over any prefix.
OWNERS = {
    # lib/
    "lib_": (("lib/stats", "lib/fixq8"), "statistics: sort, percentiles; log2/exp2 in Q8"),
    "fmt_": (("lib/fmt",), "formatting"),
    "log_": (("lib/log",), "the lower layers' diagnostics"),
    "status_": (("lib/status",), "status codes"),
    # boot/: the platform interface and the CPU access of each architecture
    "plat_": (("boot/uefi/*", "boot/linux/*"), "the platform interface (boot/plat.h)"),
    "uefi_": (("boot/uefi/*",), "the UEFI platform's own"),
    "efi_main": (("boot/uefi/uefi_main",), "the UEFI entry point"),
    "linux_": (("boot/linux/*",), "the Linux platform's own"),
    "cpu_": (("boot/*",), "the CPU's description and access (boot/cpu_info.h, boot/cpu.h)"),
    "acpi_": (("boot/acpi*",), "ACPI tables"),
    "smbios_": (("boot/smbios",), "SMBIOS"),
    "mp_": (("boot/mp",), "the processors' bring-up through the platform"),
    "memrange_": (("boot/memrange",), "memory ranges"),
    "devpath_": (("boot/devpath_match",), "UEFI device paths"),
    "fat_": (("boot/fatfree",), "FAT free space"),
    "prefetch_": (("boot/*/prefetch",), "prefetcher control (boot/prefetch.h)"),
    "trap_": (("boot/*",), "exception vectors and probes"),
    "pmi_": (("boot/*",), "the PMU interrupt"),
    "spin_": (("boot/*/spin",), "spin-wait hints"),
    "x86_": (("boot/x86/*",), "x86-64 CPU features"),
    "cpuid_": (("boot/x86/cpuid*",), "CPUID"),
    "apic_": (("boot/x86/apic",), "the local APIC"),
    "msr_": (("boot/x86/*", "boot/linux/x86/*"), "MSR access"),
    "rdmsr_safe": (("boot/x86/msr_cpu", "boot/linux/x86/*"), "MSR access"),
    "wrmsr_safe": (("boot/x86/msr_cpu", "boot/linux/x86/*"), "MSR access"),
    "rdpmc_safe": (("boot/x86/msr_cpu", "boot/linux/x86/*"), "MSR access"),
    "arm64_": (("boot/arm64/idreg*",), "AArch64 ID registers"),
    "gic_": (("boot/arm64/gic*",), "the GIC"),
    "psci_": (("boot/arm64/psci*",), "PSCI"),
    "smp_": (("boot/arm64/smp*",), "SMP bring-up (PSCI CPU_ON) and nothing else"),
    # pmu/ (and the tables generated for it)
    "pmu_": (("pmu/*", "build/events_gen", "build/syms_gen"), "the PMU"),
    # bench/
    "bench_": (("bench/*",), "kernels, the chase buffer, the sweep"),
    # analysis/
    "lv_": (("analysis/levels*",), "cache level detection"),
    "tlbdet_": (("analysis/tlbdetect",), "TLB level detection"),
    # report/
    "rep_": (("report/*",), "the report API and the writers"),
    "json_": (("report/json*",), "the JSON writer and checker"),
    "inventory_": (("report/inventory*", "report/*/inventory*"), "the inventory's writers"),
    "c2c_": (("report/c2c",), "the C2C writers"),
    "numa_": (("report/numa*",), "the NUMA writers"),
    "loaded_": (("report/loaded",), "the loaded-latency writers"),
    "tlb_": (("report/tlbdetect_out",), "the TLB table's writers"),
    # app/
    "pmucal_main": (("app/pmucal",), "the program's entry (boot/plat.h)"),
    "app_": (("app/*",), "the program's shared parts"),
    "phase_": (("app/*",), "one phase's entry"),
    "config_": (("app/config*",), "the configuration"),
    "run_": (("app/results",), "the run's files"),
    "upload_": (("app/upload",), "the upload"),
    "gather_": (("app/*/gather",), "the inventory's gathering"),
    "lat_": (("app/latency*", "app/*/latency*"), "the latency phase"),
    "tlbcal_": (("app/tlb*",), "the TLB phase"),
    "val_": (("app/pmu_*", "app/arm64/validate"), "the PMU counting suite"),
    "samp_": (("app/*/sampling*",), "the sampling phase"),
    # host/
    "pmucal_": (("host/libpmucal*", "host/*/libpmucal*"), "libpmucal"),
    "host_": (("host/*",), "pmucal-host"),
    "cli_": (("host/*",), "pmucal-table and pmucal-host's command lines"),
    "cmd_": (("host/pmucal_table*",), "pmucal-table's subcommands"),
    "main": (("host/pmucal_host", "host/pmucal_table"), "the hosted programs' entry"),
}

# Modules that may export only these prefixes (or whole names).
MODULES = (
    ("app/*/sampling*", ("samp_", "phase_sampling"), "sampling code is named samp_"),
    ("boot/arm64/smp*", ("smp_",), "SMP bring-up exports smp_ only"),
)

# Symbols a file may export although no prefix fits: (name, file, why).
EXCEPTIONS = (
    ("memcmp", "boot/uefi/uefi_libc", "the C library calls the compiler emits"),
    ("memmove", "boot/uefi/uefi_libc", "the C library calls the compiler emits"),
    ("memcpy", "boot/uefi/uefi_libc", "the C library calls the compiler emits"),
    ("memset", "boot/uefi/uefi_libc", "the C library calls the compiler emits"),
    ("strcmp", "boot/uefi/uefi_libc", "the C library calls the compiler emits"),
    ("strlen", "boot/uefi/uefi_libc", "the C library calls the compiler emits"),
    ("strncmp", "boot/uefi/uefi_libc", "the C library calls the compiler emits"),
)

# nm's letters for a global definition (text, data, bss, read-only, common, weak).
DEFINED = set("TDBRCGSVWi")

# ---- the rules ----------------------------------------------------------------------------


def layer(glob):
    return glob.split("/", 1)[0]


def check_table():
    """The table's own rule: one entry's files lie in one layer."""
    bad = []
    for key, (globs, _) in sorted(OWNERS.items()):
        layers = sorted({layer(g) for g in globs if not g.startswith("build/")})
        if len(layers) != 1:
            bad.append("names: table: %s is given to %s (one prefix, one layer)"
                       % (key, ", ".join(layers)))
    return bad


def owner(sym):
    if sym in OWNERS:
        return sym
    best = None
    for key in OWNERS:
        if key.endswith("_") and sym.startswith(key) and (best is None or len(key) > len(best)):
            best = key
    return best


def fits(src, globs):
    return any(fnmatch.fnmatchcase(src, g) for g in globs)


def check_symbol(src, sym):
    """The violation line for @p sym defined by @p src (a path without extension), or None."""
    if any(sym == n and src == f for n, f, _ in EXCEPTIONS):
        return None
    key = owner(sym)
    if key is None:
        return "names: %s: %s: no layer's prefix (docs/architecture.md, Names)" % (src, sym)
    globs, what = OWNERS[key]
    if not fits(src, globs):
        return "names: %s: %s: %s is %s's (%s), not %s's" % (
            src, sym, key, ", ".join(globs), what, src)
    for glob, allowed, rule in MODULES:
        if fnmatch.fnmatchcase(src, glob) and not any(
                sym == a or (a.endswith("_") and sym.startswith(a)) for a in allowed):
            return "names: %s: %s: %s (%s)" % (src, sym, rule, ", ".join(allowed))
    return None


# ---- reading the objects ------------------------------------------------------------------

def built_from_tree(root, obj, objdir):
    """False for an object whose source (.c or .S) the tree no longer has; generated sources
    (build/...) are the build's own and always count."""
    src = os.path.splitext(os.path.relpath(obj, objdir))[0]
    return src.startswith("build" + os.sep) or any(
        os.path.isfile(os.path.join(root, src + ext)) for ext in (".c", ".S"))


def symbols(objdir, nm, root):
    """{(source path without extension, symbol)} of every .o below @p objdir."""
    objs = []
    for dirpath, dirnames, names in os.walk(objdir):
        dirnames.sort()
        objs += [os.path.join(dirpath, n) for n in sorted(names)
                 if n.endswith(".o") and built_from_tree(root, os.path.join(dirpath, n), objdir)]
    out = set()
    for i in range(0, len(objs), 200):
        part = objs[i:i + 200]
        r = subprocess.run([nm, "-g", "--defined-only", "-A"] + part, capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise RuntimeError("%s failed: %s" % (nm, r.stderr.strip()))
        for line in r.stdout.splitlines():
            f, _, rest = line.partition(":")
            parts = rest.split()
            if len(parts) < 2 or parts[-2] not in DEFINED:
                continue
            src = os.path.splitext(os.path.relpath(f, objdir))[0].replace(os.sep, "/")
            out.add((src, parts[-1]))
    return out, len(objs)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("objdirs", nargs="+", metavar="OBJDIR")
    ap.add_argument("--list", action="store_true", help="print each prefix's symbol count")
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"))
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the tree the objects were built from")
    args = ap.parse_args(argv)
    syms, n_objs = set(), 0
    for d in args.objdirs:
        if not os.path.isdir(d):
            ap.error("no such object folder: %s (build it first)" % d)
        try:
            s, n = symbols(d, args.nm, args.root)
        except (OSError, RuntimeError) as e:
            ap.error(str(e))
        syms |= s
        n_objs += n
    if not n_objs:
        ap.error("no object files below %s" % ", ".join(args.objdirs))
    out = check_table()
    out += sorted({line for src, sym in syms for line in [check_symbol(src, sym)] if line})
    if args.list:
        per = collections.Counter(owner(sym) or "(none)" for _, sym in syms)
        for key, n in sorted(per.items()):
            print("  %-14s %4d  %s" % (key, n, OWNERS[key][1] if key in OWNERS else ""))
    for line in out:
        print(line)
    print("names: %s (%d symbols, %d objects)" % (
        "%d violations" % len(out) if out else "ok", len(syms), n_objs),
        file=sys.stderr if out else sys.stdout)
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
