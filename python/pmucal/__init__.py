"""Read the tables pmucal writes, without linking C.

    import pmucal
    t = pmucal.load_latency_table("latency-table.json")   # raises pmucal.TableError
    t.classify(37.5, "tsc").name                           # "L3" (or "beyond": pmucal.BEYOND)
    t.classify_batch([12.0, 37.5, -1], "ns")               # [1, 2, pmucal.LEVEL_INVALID]
    t.to_dicts()                                           # one dict per level
    tlb = pmucal.load_tlb_table("tlb-table.json")
    tlb.classify("dtlb", 4096, 23.0)                       # "walk" (a further walk: "walk2")
    t.core_set(16).levels                                  # 1.4: the levels of APIC ID 16's set
    n = pmucal.load_numa("latency-table.json")             # 1.3: DRAM by distance, C2C
    pmucal.classify_source(t, n, "c2c-remote-hitm", 180.0).bucket   # "c2c-other-package-hitm"
    c = pmucal.load_c2c_file("c2c.json")                    # the run's other files, too
    pmucal.load_numa_file("numa-matrix.json").matrix_p50_ns

Every error is a pmucal.Error (= TableError, a ValueError) whose kind names libpmucal's enum
pmucal_err for the same input: "range" for a NaN, infinite or negative latency, "no_ratio",
"unknown_source", "no_bucket", "arg", and the loaders' "io", "syntax", "kind", "version",
"schema". Nothing returns None for an error.

The loaders accept and reject exactly what libpmucal accepts and rejects (the repository's tests
compare them on the same fixtures); schema versions follow the one rule of every pmucal schema
(pmucal.schema_version).
"""
from .errors import Error, TableError, schema_version
from .table import BEYOND, LEVEL_BEYOND, LEVEL_INVALID, CoreSet, LatencyTable, Level, Stat, load_latency_table, loads_latency_table
from .tlb import TlbClass, TlbCurve, TlbTable, load_tlb_table, loads_tlb_table
from .numa import Match, Numa, classify, classify_source, load_numa, loads_numa
from .source import SourceError, source_ibs_op, source_perf_data_src
from .files import C2cFile, C2cFileClass, NumaFile, load_c2c_file, load_numa_file, loads_c2c_file, loads_numa_file

__version__ = "1.4.0"
__all__ = ["Error", "TableError", "LEVEL_BEYOND", "LEVEL_INVALID", "schema_version", "BEYOND", "CoreSet", "LatencyTable", "Level", "Stat", "load_latency_table",
           "loads_latency_table", "TlbClass", "TlbCurve", "TlbTable", "load_tlb_table",
           "loads_tlb_table", "Match", "Numa", "classify", "classify_source", "load_numa",
           "loads_numa", "SourceError", "source_ibs_op", "source_perf_data_src", "C2cFile",
           "C2cFileClass", "NumaFile", "load_c2c_file", "load_numa_file", "loads_c2c_file",
           "loads_numa_file"]
