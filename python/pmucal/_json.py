"""JSON parsing with libpmucal's rules (jansson with JSON_REJECT_DUPLICATES): duplicate keys,
NaN/Infinity, integers beyond 64-bit signed, reals that overflow, \\u0000 in a string, nesting
deeper than jansson's 2048 levels, invalid UTF-8, lone surrogates and a top level that is not
an object or array are syntax errors, each with line:column and jansson's words where jansson
names the place (the column of the token's last character, as jansson counts)."""
import json
import math
import re
import sys

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


MAX_DEPTH = 2048  # jansson's JSON_PARSER_MAX_DEPTH: the 2049th open bracket is an error

_TOKEN = re.compile(r'''
    (?P<ws>[ \t\n\r]+)
  | (?P<str>"(?:[^"\\\x00-\x1f]|\\.)*")
  | (?P<num>-?(?:0|[1-9][0-9]*)(?P<real>(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?))
  | (?P<word>-?[A-Za-z_][A-Za-z0-9_]*)
  | (?P<open>[\[{])
  | (?P<close>[\]}])
  | (?P<punct>[:,])
''', re.X)
_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")


def _where(text, end):
    """line:column of the character before offset @p end (jansson's place for a token)."""
    line = text.count("\n", 0, end - 1) + 1
    return line, end - 1 - text.rfind("\n", 0, end - 1)


def _scan(text, name):
    """The checks json.loads cannot place, in document order, with jansson's line:column and
    words; stops at the first thing it cannot tokenize (json.loads reports that)."""
    stack = []  # per open bracket: the set of keys of an object, None for an array
    key_next = False
    pos, n = 0, len(text)

    def fail(end, msg):
        line, col = _where(text, end)
        raise TableError("syntax", "%s:%d:%d: %s" % (name, line, col, msg))

    while pos < n:
        m = _TOKEN.match(text, pos)
        if not m:
            return
        kind, tok, end = m.lastgroup, m.group(), m.end()
        if kind == "real":
            kind = "num"
        if kind == "open":
            if len(stack) >= MAX_DEPTH:
                fail(end, "maximum parsing depth reached near '%s'" % tok)
            stack.append(set() if tok == "{" else None)
            key_next = tok == "{"
        elif kind == "close":
            if stack:
                stack.pop()
            key_next = False
        elif kind == "punct":
            key_next = tok == "," and bool(stack) and stack[-1] is not None
        elif kind == "str":
            is_key = key_next and bool(stack) and stack[-1] is not None
            if _NUL.search(tok):
                fail(end, "NUL byte in object key not supported near '%s'" % tok if is_key
                     else "\\u0000 is not allowed without JSON_ALLOW_NUL")
            if is_key:
                try:
                    key = json.loads(tok)
                except ValueError:
                    return
                if key in stack[-1]:
                    fail(end, "duplicate object key near '%s'" % tok)
                stack[-1].add(key)
            key_next = False
        elif kind == "num":
            if m.group("real"):
                if math.isinf(float(tok)):
                    fail(end, "real number overflow near '%s'" % tok)
            elif not INT_MIN <= int(tok) <= INT_MAX:
                fail(end, "too big integer near '%s'" % tok)
        elif kind == "word" and tok not in ("true", "false", "null"):
            fail(end, "invalid token near '%s'" % tok)
        pos = end


def parse(data, name):
    """The document in @data (bytes or str); TableError("syntax") when it is not valid JSON."""
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        _scan(text, name)
        # Nesting up to MAX_DEPTH is valid, as in libpmucal: room for it on the recursion
        # limit json's decoder counts against, for this call.
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + MAX_DEPTH + 64)
        try:
            doc = json.loads(text, object_pairs_hook=_no_dups, parse_int=_int,
                             parse_float=_float, parse_constant=_constant)
        finally:
            sys.setrecursionlimit(limit)
        _check_strings(doc)
    except TableError:
        raise
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
