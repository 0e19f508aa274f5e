"""JSON parsing with libpmucal's rules (jansson with JSON_REJECT_DUPLICATES): duplicate keys,
NaN/Infinity, integers beyond 64-bit signed, reals that overflow, invalid UTF-8, lone
surrogates and a top level that is not an object or array are syntax errors."""
import json
import math

from .errors import TableError

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1


def _no_dups(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError("duplicate object key %r" % k)
        out[k] = v
    return out


def _int(s):
    v = int(s)
    if v < INT_MIN or v > INT_MAX:
        raise ValueError("too big integer %s" % s)
    return v


def _float(s):
    v = float(s)
    if math.isinf(v):
        raise ValueError("real number overflow %s" % s)
    return v


def _constant(s):
    raise ValueError("invalid token %s" % s)


def _check_strings(v):
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("invalid Unicode in %r" % x[:40])
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)


def parse(data, name):
    """The document in @data (bytes or str); TableError("syntax") when it is not valid JSON."""
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        doc = json.loads(text, object_pairs_hook=_no_dups, parse_int=_int, parse_float=_float,
                         parse_constant=_constant)
        _check_strings(doc)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        line = getattr(e, "lineno", None)
        col = getattr(e, "colno", None)
        msg = getattr(e, "msg", None) or str(e)
        where = "%s:%d:%d" % (name, line, col) if line else name
        raise TableError("syntax", "%s: %s" % (where, msg)) from None
    if not isinstance(doc, (dict, list)):
        raise TableError("syntax", "%s: '[' or '{' expected" % name)
    return doc


def type_name(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float))) and not isinstance(v, bool)
