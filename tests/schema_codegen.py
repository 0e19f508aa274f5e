"""docs/schemas compiled into plain Python checks: one function per object or array schema,
generated once per process, answering only "valid or not" (about 1 ms for a whole results
folder, where python3-jsonschema takes 0.1-1 s). A document they refuse is validated again by
jsonschema (tests/check_schemas.py) for the message and the JSON path, so the messages stay
those of the reference implementation; the generated checks must never accept what jsonschema
refuses (tests/schema_codegen_checks.py compares the two on mutated real files).

Only the keywords docs/schemas use are compiled (JSON Schema 2020-12 meaning): type, enum,
const, minimum, maximum, minLength, maxLength, pattern, items, minItems, maxItems,
properties, required, unevaluatedProperties: false (beside properties, as the strict check
adds it), $ref to a $defs entry or to another schema's $id. Any other keyword stops the
compilation (SchemaUnsupported), so a schema change cannot be checked more loosely unnoticed.
"""
import re

# keywords that assert nothing
ANNOTATIONS = {"description", "title", "$schema", "$id", "$defs", "$comment", "examples", "default",
               "x-pmucal-open-enum"}
_MISSING = object()


class SchemaUnsupported(Exception):
    """A schema uses a keyword (or a form of one) this compiler does not implement."""


def json_equal(a, b):
    """JSON equality as 2020-12 defines it for enum and const: true and 1 differ, 1 and 1.0
    do not; objects and arrays compare member by member."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return False


TYPE_TESTS = {
    # exact types: documents come from json.loads, which makes only these (and bool is not int)
    "object": "type({v}) is dict",
    "array": "type({v}) is list",
    "string": "type({v}) is str",
    "boolean": "type({v}) is bool",
    "null": "{v} is None",
    "number": "(type({v}) is int or type({v}) is float)",
    "integer": "(type({v}) is int or (type({v}) is float and {v}.is_integer()))",
}


class _Compiler:
    def __init__(self, docs):
        self.docs = docs            # {$id: schema}
        self.names = {}             # (id(schema node)) -> function name
        self.consts = {"_enum": self._enum, "_MISSING": _MISSING}
        self.src = []
        self.todo = []

    @staticmethod
    def _enum(v, values):
        return any(json_equal(v, e) for e in values)

    def const(self, obj):
        name = "C%d" % len(self.consts)
        self.consts[name] = obj
        return name

    def resolve(self, base, ref):
        if ref.startswith("#/$defs/"):
            return base, self.docs[base]["$defs"][ref[len("#/$defs/"):]]
        if ref in self.docs:
            return ref, self.docs[ref]
        raise SchemaUnsupported("$ref %r" % ref)

    def func(self, base, node):
        """The name of the function checking @node (compiled once)."""
        key = id(node)
        if key not in self.names:
            self.names[key] = "f%d" % len(self.names)
            self.todo.append((self.names[key], base, node))
        return self.names[key]

    def body(self, base, node, v, ind, depth):
        """Lines that return False when @v (a local name) fails @node."""
        if node is True or node == {}:
            return []
        if node is False:
            return [ind + "return False"]
        if not isinstance(node, dict):
            raise SchemaUnsupported("schema node %r" % (node,))
        out = []
        for k in node:
            if k not in ANNOTATIONS and k not in (
                    "type", "enum", "const", "minimum", "maximum", "minLength", "maxLength", "pattern", "items",
                    "minItems", "maxItems", "properties", "required", "unevaluatedProperties", "$ref"):
                raise SchemaUnsupported("keyword %r" % k)
        types = node.get("type")
        if types is not None:
            types = types if isinstance(types, list) else [types]
            if any(t not in TYPE_TESTS for t in types):
                raise SchemaUnsupported("type %r" % types)
            out.append(ind + "if not (%s): return False" % " or ".join(TYPE_TESTS[t].format(v=v) for t in types))
        only = set(types) if types is not None else None

        def guard(kinds, test):
            return test if only is not None and only <= kinds else None

        num = guard({"number", "integer"}, "True") or TYPE_TESTS["number"].format(v=v)
        s = guard({"string"}, "True") or TYPE_TESTS["string"].format(v=v)
        arr = guard({"array"}, "True") or TYPE_TESTS["array"].format(v=v)
        obj = guard({"object"}, "True") or TYPE_TESTS["object"].format(v=v)
        if "enum" in node:
            vals = node["enum"]
            if vals and all(isinstance(x, str) or x is None for x in vals):
                test = "(type(%s) is str and %s in %s)" % (v, v, self.const(frozenset(x for x in vals if x is not None)))
                if None in vals:
                    test = "(%s is None or %s)" % (v, test)
                out.append(ind + "if not %s: return False" % test)
            else:
                out.append(ind + "if not _enum(%s, %s): return False" % (v, self.const(list(vals))))
        if "const" in node:
            out.append(ind + "if not _enum(%s, %s): return False" % (v, self.const([node["const"]])))
        for kw, op in (("minimum", "<"), ("maximum", ">")):
            if kw in node:
                lim = node[kw]
                if isinstance(lim, bool) or not isinstance(lim, (int, float)):
                    raise SchemaUnsupported("%s %r" % (kw, lim))
                out.append(ind + "if %s and %s %s %r: return False" % (num, v, op, lim))
        if "minLength" in node:
            out.append(ind + "if %s and len(%s) < %d: return False" % (s, v, node["minLength"]))
        if "maxLength" in node:
            out.append(ind + "if %s and len(%s) > %d: return False" % (s, v, node["maxLength"]))
        if "pattern" in node:
            out.append(ind + "if %s and %s.search(%s) is None: return False" % (s, self.const(re.compile(node["pattern"])), v))
        if "minItems" in node:
            out.append(ind + "if %s and len(%s) < %d: return False" % (arr, v, node["minItems"]))
        if "maxItems" in node:
            out.append(ind + "if %s and len(%s) > %d: return False" % (arr, v, node["maxItems"]))
        if "items" in node:
            it = node["items"]
            if isinstance(it, list):
                raise SchemaUnsupported("items as a list")
            inner = self.inline_or_call(base, it, "e%d" % depth, ind + "        ", depth + 1)
            if inner:
                out.append(ind + "if %s:" % arr)
                out.append(ind + "    for e%d in %s:" % (depth, v))
                out += inner
        if "required" in node:
            out.append(ind + "if %s and not (%s.keys() >= %s): return False" % (obj, v, self.const(frozenset(node["required"]))))
        if "unevaluatedProperties" in node:
            if node["unevaluatedProperties"] is not False or "$ref" in node:
                raise SchemaUnsupported("unevaluatedProperties %r beside %s" % (node["unevaluatedProperties"], sorted(node)))
            props = frozenset(node.get("properties", {}))
            out.append(ind + "if %s and not (%s.keys() <= %s): return False" % (obj, v, self.const(props)))
        if "properties" in node:
            lines = []
            for name, sub in node["properties"].items():
                t = "p%d" % depth
                inner = self.inline_or_call(base, sub, t, ind + "        ", depth + 1)
                if inner:
                    lines.append(ind + "    %s = %s.get(%r, _MISSING)" % (t, v, name))
                    lines.append(ind + "    if %s is not _MISSING:" % t)
                    lines += inner
            if lines:
                out.append(ind + "if %s:" % obj)
                out += lines
        if "$ref" in node:
            rb, target = self.resolve(base, node["$ref"])
            out.append(ind + "if not %s(%s): return False" % (self.func(rb, target), v))
        return out

    def inline_or_call(self, base, node, v, ind, depth):
        """Scalar schemas inline; object and array schemas as a call of their own function
        (keeps the generated code's blocks shallow)."""
        if isinstance(node, dict) and ("properties" in node or "items" in node):
            return [ind + "if not %s(%s): return False" % (self.func(base, node), v)]
        return self.body(base, node, v, ind, depth)

    def run(self):
        while self.todo:
            name, base, node = self.todo.pop()
            self.src.append("def %s(v):" % name)
            self.src += self.body(base, node, "v", "    ", 0)
            self.src.append("    return True\n")
        ns = dict(self.consts)
        exec(compile("\n".join(self.src), "<docs/schemas compiled>", "exec"), ns)
        return ns


def compile_schemas(schemas):
    """{schema name: check(doc) -> bool} from {name: schema} (each schema with its $id;
    cross-schema $refs resolve among them)."""
    c = _Compiler({s["$id"]: s for s in schemas.values()})
    names = {n: c.func(s["$id"], s) for n, s in schemas.items()}
    ns = c.run()
    return {n: ns[f] for n, f in names.items()}


_NAME = re.compile(r"pmucal\.([a-z0-9-]+)/")


def check_doc(doc, checks):
    """True when @doc is valid against the schema its "schema" member names (the choice
    tests/check_schemas.py validate_doc makes)."""
    if not isinstance(doc, dict):
        return False
    name = doc.get("schema")
    m = _NAME.match(name) if isinstance(name, str) else None
    if not m or m.group(1) not in checks:
        return False
    return checks[m.group(1)](doc)
