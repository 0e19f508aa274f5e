"""Data sources: the pmucal source name of a sample from what the hardware recorded, with the
rules of libpmucal's pmucal_source_perf_data_src() and pmucal_source_ibs_op()
(host/x86/libpmucal_source.c; docs/libpmucal.md, "Data sources").

    src = pmucal.source_perf_data_src(sample["data_src"])          # "dram-remote"
    src, lat = pmucal.source_ibs_op(d2, d3, family=0x19, model=0x11)
    pmucal.classify_source(t, n, src, lat, "core")

An encoding no bucket stands for (I/O, uncached, persistent or CXL memory, not available)
raises pmucal.Error of kind "unknown_source"; its .what says what it was.
"""
import math

from ._rules import SOURCES
from .errors import TableError

# union perf_mem_data_src, Linux include/uapi/linux/perf_event.h
_LVL, _SNOOP, _LVLNUM, _REMOTE, _SNOOPX, _HOPS = 5, 19, 33, 37, 38, 43
_L_HIT, _L_MISS, _L_L1, _L_LFB, _L_L2, _L_L3 = 0x02, 0x04, 0x08, 0x10, 0x20, 0x40
_L_LOC_RAM, _L_REM_RAM1, _L_REM_RAM2, _L_REM_CCE1, _L_REM_CCE2 = 0x80, 0x100, 0x200, 0x400, 0x800
_L_IO, _L_UNC = 0x1000, 0x2000
_N_L1, _N_L2, _N_L3, _N_L4, _N_L2_MHB, _N_MSC, _N_L0, _N_UNC = 1, 2, 3, 4, 5, 6, 7, 8
_N_CXL, _N_IO, _N_ANY_CACHE, _N_LFB, _N_RAM, _N_PMEM, _N_NA = 9, 10, 11, 12, 13, 14, 15

IBS_LAYOUTS = ("auto", "fam17h", "zen4")   # enum pmucal_ibs_layout


class SourceError(TableError):
    """kind "unknown_source"; .what is what the encoding said ("I/O", "uncached", ...)."""

    def __init__(self, what, message):
        super().__init__("unknown_source", message)
        self.what = what


def _f(v, shift, bits):
    return (v >> shift) & ((1 << bits) - 1)


def _c2c(remote, kind):
    return "c2c-%s-%s" % ("remote" if remote else "local", ("any", "hit", "hitm")[kind])


def _unknown(what, v):
    raise SourceError(what, "encoding 0x%x: %s, which no bucket stands for" % (v, what))


def _u64(v, what):
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 64:
        raise TableError("arg", "%s %r is not a 64-bit register value" % (what, v))
    return v


def source_perf_data_src(v):
    """The source of a perf_mem_data_src value (pmucal_source_perf_data_src)."""
    v = _u64(v, "perf_mem_data_src")
    lvl, snoop, num = _f(v, _LVL, 14), _f(v, _SNOOP, 5), _f(v, _LVLNUM, 4)
    snoopx, hops, rem = _f(v, _SNOOPX, 2), _f(v, _HOPS, 3), _f(v, _REMOTE, 1)
    remote = hops > 2 if hops else bool(rem)
    far = bool(rem) or hops >= 2
    kind = 2 if snoop & 0x10 else 1 if (snoop & 0x04) or (snoopx & 0x3) else 0
    if num == 0:
        if (lvl & _L_MISS) and not (lvl & _L_HIT):
            _unknown("a miss whose serving level is not recorded", v)
        if lvl & (_L_REM_CCE1 | _L_REM_CCE2):
            return _c2c(True, kind)
        num = (_N_L1 if lvl & _L_L1 else _N_LFB if lvl & _L_LFB else _N_L2 if lvl & _L_L2 else
               _N_L3 if lvl & _L_L3 else _N_RAM if lvl & _L_LOC_RAM else _N_IO if lvl & _L_IO else
               _N_UNC if lvl & _L_UNC else _N_NA)
        if lvl & (_L_REM_RAM1 | _L_REM_RAM2):
            num, far = _N_RAM, True
    how, level = SOURCES["perf_mem_lvl_num"][num]
    if how == "lfb":
        return "lfb"
    if how == "dram":
        return "dram-remote" if far else "dram-local"
    if how != "cache":
        _unknown(level, v)
    if num == _N_ANY_CACHE and hops == 1 and not kind:
        return "L3"
    if remote or hops >= 1:
        return _c2c(remote, kind)
    if kind and num not in (_N_L1, _N_L0, _N_L2):
        return _c2c(False, kind)
    return level


def _ext_layout(family, model):
    if family >= 0x1a:
        return True
    return family == 0x19 and (0x10 <= model <= 0x1f or 0x60 <= model <= 0x7f or 0xa0 <= model <= 0xaf)


def source_ibs_op(op_data2, op_data3, family, model, layout="auto"):
    """(source, DcMissLat in core cycles or NaN) of an IBS op sample from IbsOpData2 and
    IbsOpData3 on a CPU of @family / @model (pmucal_source_ibs_op). Raises SourceError
    ("unknown_source") for an encoding no bucket stands for, Error "arg" for a bad layout."""
    d2, d3 = _u64(op_data2, "IbsOpData2"), _u64(op_data3, "IbsOpData3")
    if layout not in IBS_LAYOUTS:
        raise TableError("arg", "IBS layout %r is not one of %s" % (layout, ", ".join(IBS_LAYOUTS)))
    ld, miss, rmt = bool(d3 & 1), bool(d3 & (1 << 7)), bool(d2 & (1 << 4))
    kind = 1 if d2 & (1 << 5) else 2
    ext = _ext_layout(family, model) if layout == "auto" else layout == "zen4"
    src = (d2 & 7) | (((d2 >> 6) & 3) << 3 if ext else 0)
    lat = float((d3 >> 32) & 0xffff) if ld and miss else math.nan

    def unknown(what):
        raise SourceError(what, "IbsOpData2 0x%x, IbsOpData3 0x%x: %s, which no bucket stands for"
                          % (d2, d3, what))
    if not ld and not d3 & 2:
        unknown("not a load or store")
    if d3 & (1 << 14):
        unknown("uncached")
    if not miss:
        return "L1", lat
    if family == 0x19 and model <= 0x0f and d3 & ((1 << 21) | (1 << 16)):
        unknown("unreliable (erratum 1293)")
    if d3 & (1 << 16):
        return "lfb", lat
    if not d3 & (1 << 20):
        return "L2", lat
    if not ld:
        unknown("a store that missed L2 (DataSrc is for loads)")
    how, level = SOURCES["ibs_data_src_zen4" if ext else "ibs_data_src_fam17h"][src]
    served = {"cache": level, "lfb": "lfb", "c2c-local": _c2c(False, kind),
              "c2c-far": _c2c(rmt, kind), "c2c-remote": _c2c(True, kind),
              "dram": "dram-remote" if rmt else "dram-local"}
    if how not in served:
        unknown(level)
    return served[how], lat
