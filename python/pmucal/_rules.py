"""The rules the Python reader shares with libpmucal, read from rules.json beside this file:
the one source of both (tools/gen_rules.py writes libpmucal's host/libpmucal_rules.h from it).
Limits, enum values, clock units and the data-source decode tables."""
import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules.json"), "rb") as _f:
    RULES = json.loads(_f.read().decode("utf-8"))

LIMITS = RULES["limits"]
CLOCK_UNITS = RULES["clock_units"]
TLB_PAGE_BYTES = tuple(RULES["tlb_page_bytes"])
SOURCES = RULES["data_sources"]


def enum(name):
    """The values of enum @name this release knows, as a tuple."""
    return tuple(RULES["enums"][name]["values"])


def words(name):
    """"a, b or c": how a message names enum @name's values (libpmucal's *_WORDS)."""
    v = enum(name)
    return v[0] if len(v) == 1 else ", ".join(v[:-1]) + " or " + v[-1]
