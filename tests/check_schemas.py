#!/usr/bin/env python3
"""Validate pmucal's JSON outputs against docs/schemas/*.schema.json (JSON Schema 2020-12) and
keep the field tables of docs/*.md generated from those schemas.

    check_schemas.py [--tap] [--lax] FILE|DIR...   validate each *.json (a DIR: every *.json in it)
    check_schemas.py --docs                         exit 1 when a docs page's field table is stale
    check_schemas.py --write-docs                   regenerate the field tables in docs/*.md
    check_schemas.py --self-test                    TAP: the schemas, the version rule, the docs

A file is validated against the schema its "schema" member names ("pmucal.tlb/1.1" ->
docs/schemas/tlb-table.schema.json, by the schema's $id). By default the check is strict: a
member the schema does not define is an error too (pmucal's own writers must write only what
is documented); --lax applies the schemas as a reader would (unknown members ignored). Each
mismatch is printed as FILE: JSON-PATH: message. Needs python3-jsonschema (Debian 12: 4.10).
"""
import copy
import glob
import json
import os
import re
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_DIR = os.path.join(ROOT, "docs", "schemas")
ID_BASE = "https://schemas.pmucal.invalid/"
# docs page -> schema file whose field table it carries
DOC_PAGES = {"inventory.md": "inventory.schema.json",
             "latency-table.md": "latency-table.schema.json",
             "tlb-table.md": "tlb-table.schema.json"}
BEGIN = "<!-- fields: generated from docs/schemas/%s by tests/check_schemas.py --write-docs -->"
END = "<!-- fields: end -->"
# The published schemas are open where a minor version may add (docs/versioning.md): no closed
# objects, and an enum that may grow lists its values under this annotation, not "enum".
OPEN_ENUM = "x-pmucal-open-enum"
COMBINATORS = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")


def load_schemas():
    """{schema name ("tlb"): (file name, schema)} for every docs/schemas/*.schema.json."""
    out = {}
    for path in sorted(glob.glob(os.path.join(SCHEMA_DIR, "*.schema.json"))):
        with open(path) as f:
            s = json.load(f)
        m = re.match(re.escape(ID_BASE) + r"([a-z0-9-]+)/([0-9]+)$", s.get("$id", ""))
        if not m:
            raise SystemExit("%s: $id %r does not name the schema and its major version"
                             % (path, s.get("$id")))
        out[m.group(1)] = (os.path.basename(path), s)
    return out


def strict_copy(schema):
    """A copy in which every object schema that lists properties (outside combinators) also
    sets unevaluatedProperties: false, so that undocumented members are reported, and every
    open enum (OPEN_ENUM: the values known to this release of an enum a later minor may extend)
    is closed to those values."""
    s = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if "properties" in node and "unevaluatedProperties" not in node:
                node["unevaluatedProperties"] = False
            if OPEN_ENUM in node:
                node["enum"] = node[OPEN_ENUM]
            for k, v in node.items():
                if k not in COMBINATORS:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(s)
    return s


def make_validators(schemas, strict):
    """{name: validator}; cross-file $refs resolve among the schemas, never over a network."""
    docs = {s["$id"]: (strict_copy(s) if strict else s) for _, s in schemas.values()}
    cls = jsonschema.Draft202012Validator
    try:  # jsonschema >= 4.18
        import referencing
        import referencing.jsonschema
        reg = referencing.Registry().with_resources(
            (i, referencing.Resource.from_contents(d, default_specification=referencing.jsonschema.DRAFT202012))
            for i, d in docs.items())
        return {n: cls(docs[s["$id"]], registry=reg) for n, (_, s) in schemas.items()}
    except ImportError:  # Debian 12's 4.10
        return {n: cls(docs[s["$id"]], resolver=jsonschema.RefResolver(s["$id"], docs[s["$id"]], store=docs))
                for n, (_, s) in schemas.items()}


def json_path(parts):
    out = "$"
    for p in parts:
        out += "[%d]" % p if isinstance(p, int) else "." + str(p)
    return out


def leaf_errors(err):
    """The most specific errors under @err (a failed $ref or combinator names its causes)."""
    if not err.context:
        return [err]
    out = []
    for e in err.context:
        out += leaf_errors(e)
    return out


def validate_doc(doc, validators):
    """List of (json path, message) for @doc against the schema its "schema" member names."""
    if not isinstance(doc, dict):
        return [("$", "top level is not an object")]
    name = doc.get("schema")
    m = re.match(r"pmucal\.([a-z0-9-]+)/", name) if isinstance(name, str) else None
    if not m or m.group(1) not in validators:
        return [("$.schema", "%r names no schema in docs/schemas/" % (name,))]
    leaves = []
    for e in validators[m.group(1)].iter_errors(doc):
        leaves += leaf_errors(e)
    paths = [tuple(e.absolute_path) for e in leaves if e.validator != "unevaluatedProperties"]
    errs = []
    for e in leaves:
        p = tuple(e.absolute_path)
        # a member whose value failed counts as unevaluated too: say only why it failed
        if e.validator == "unevaluatedProperties" and any(q[:len(p)] == p and len(q) > len(p) for q in paths):
            continue
        errs.append((json_path(p), e.message))
    return sorted(set(errs), key=lambda x: x[0])


def validate_file(path, validators):
    """List of "FILE: PATH: message" lines; empty when @path validates."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return ["%s: %s" % (path, e)]
    return ["%s: %s: %s" % (path, p, msg) for p, msg in validate_doc(doc, validators)]


# ---- docs pages -------------------------------------------------------------------------------

def type_text(s, schemas):
    if "$ref" in s:
        ref = s["$ref"]
        if ref.startswith("#/$defs/"):
            return None  # expanded by the caller
        name = ref[len(ID_BASE):].split("/")[0]
        return "object: schema `pmucal.%s`, docs/%s" % (name, schemas[name][0].replace(".schema.json", ".md"))
    t = s.get("type", "any")
    t = t if isinstance(t, list) else [t]
    text = "\\|".join(t)
    if "const" in s:
        text += " `%s`" % json.dumps(s["const"])
    elif "enum" in s:
        text += ": " + ", ".join("`%s`" % json.dumps(v) for v in s["enum"] if v is not None)
    elif OPEN_ENUM in s:
        text += ": " + ", ".join("`%s`" % json.dumps(v) for v in s[OPEN_ENUM] if v is not None)
        text += " (open)"
    if "array" in t and isinstance(s.get("items"), dict) and "type" in s["items"]:
        it = s["items"]["type"]
        text = text.replace("array", "array of %s" % ("\\|".join(it) if isinstance(it, list) else it), 1)
    return text


def field_rows(s, root, schemas, prefix=""):
    """(path, type, meaning) for every property of object schema @s, depth first."""
    rows = []
    req = set(s.get("required", []))
    for key, p in s.get("properties", {}).items():
        path = prefix + key
        target = p
        if "$ref" in p and p["$ref"].startswith("#/$defs/"):
            target = dict(root["$defs"][p["$ref"][len("#/$defs/"):]], description=p.get("description", ""))
        t = type_text(target, schemas)
        if key not in req:
            t += " (optional)"
        rows.append((path, t, target.get("description", "").replace("|", "\\|")))
        types = target.get("type", [])
        types = types if isinstance(types, list) else [types]
        if "object" in types:
            rows += field_rows(target, root, schemas, path + ".")
        elif "array" in types:
            # arrays of arrays (matrices): the innermost items' members, as path[][].member
            it, suffix = target.get("items"), "[]"
            while isinstance(it, dict) and it.get("type") == "array" and isinstance(it.get("items"), dict):
                it, suffix = it["items"], suffix + "[]"
            if isinstance(it, dict) and it.get("$ref", "").startswith("#/$defs/"):
                it = root["$defs"][it["$ref"][len("#/$defs/"):]]
            if isinstance(it, dict) and "properties" in it:
                rows += field_rows(it, root, schemas, path + suffix + ".")
    return rows


def field_table(file, schemas):
    root = next(s for f, s in schemas.values() if f == file)
    lines = [BEGIN % file, "", "| field | type | meaning |", "|---|---|---|"]
    lines += ["| `%s` | %s | %s |" % r for r in field_rows(root, root, schemas)]
    return "\n".join(lines + ["", END])


def docs_pages(schemas, write):
    """Stale pages (and rewrite them when @write)."""
    stale = []
    for page, file in DOC_PAGES.items():
        path = os.path.join(ROOT, "docs", page)
        text = open(path).read()
        b, e = text.find(BEGIN % file), text.find(END)
        if b < 0 or e < b:
            stale.append("%s: no generated field table (markers %r ... %r)" % (path, BEGIN % file, END))
            continue
        new = text[:b] + field_table(file, schemas) + text[e + len(END):]
        if new != text:
            stale.append("%s: field table differs from docs/schemas/%s (run tests/check_schemas.py "
                         "--write-docs)" % (path, file))
            if write:
                open(path, "w").write(new)
    return stale


def self_test(schemas):
    """TAP lines: each schema is valid 2020-12 and documents every property, applies the one
    version rule, reports a mismatch with its JSON path; every docs page is up to date."""
    n, bad = 0, 0

    def tap(ok, what):
        nonlocal n, bad
        n += 1
        bad += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))

    good, wrong = ["1", "1.0", "1.1", "1.12"], ["", "1.", "01", "1.-1", "1x", "2", "1.01", "1.1.1", " 1", "+1"]
    for name, (file, s) in sorted(schemas.items()):
        try:
            jsonschema.Draft202012Validator.check_schema(s)
            tap(True, "%s is a valid JSON Schema 2020-12" % file)
        except jsonschema.SchemaError as e:
            tap(False, "%s is a valid JSON Schema 2020-12: %s" % (file, e.message))
        undoc = [p for p, _, d in field_rows(s, s, schemas) if not d]
        tap(not undoc, "%s: every field has a description %s" % (file, undoc or ""))
        v = jsonschema.Draft202012Validator(s["properties"]["schema"])
        acc = [x for x in good + wrong if v.is_valid("pmucal.%s/%s" % (name, x))]
        tap(acc == good, "%s: version rule: accepts %s, rejects %s (accepted: %s)"
            % (file, good, wrong, acc))
    validators = make_validators(schemas, True)
    lax = make_validators(schemas, False)
    with open(os.path.join(ROOT, "tests", "corpus", "table", "zen4-kvm.json")) as f:
        doc = json.load(f)
    tap(validate_doc(doc, lax) == [], "a recorded latency table (1.0) validates as a reader reads it")
    with open(os.path.join(ROOT, "tests", "corpus", "table", "numa-c2c.json")) as f:
        d12 = json.load(f)
    tap(validate_doc(d12, validators) == [],
        "a 1.3 table with numa, loaded_latency and c2c validates strictly: %s" % validate_doc(d12, validators))
    d12["numa"]["dram_levels"][1]["upper_ns"] = "192"
    d12["c2c"]["classes"][0]["topology"] = "same-socket"
    tap([p for p, _ in validate_doc(d12, validators)] == ["$.c2c.classes[0].topology",
                                                          "$.numa.dram_levels[1].upper_ns"],
        "a bad DRAM level and a bad C2C class are reported with their paths")
    with open(os.path.join(ROOT, "tests", "corpus", "table", "next-minor.json")) as f:
        nxt = json.load(f)
    errs = sorted(p for p, _ in validate_doc(nxt, validators))
    tap(validate_doc(nxt, lax) == [] and
        {"$.c2c.classes[6].topology", "$.c2c.classes[7].kind", "$.loaded_latency[1].loaded",
         "$.method", "$.c2c.method", "$.numa.dram_levels[0]"} <= set(errs),
        "a later minor's table (new members, new enum values) validates against the published "
        "schema, and the strict check names what it adds: %s" % errs)
    closed = [n for _, (n, sc) in sorted(schemas.items())
              if '"additionalProperties": false' in json.dumps(sc)]
    tap(not closed, "no published schema closes an object a minor may extend: %s" % closed)
    doc["machine"]["family"] = "25"
    doc["levels"][1]["cycles"]["p50"] = -1
    errs = dict(validate_doc(doc, lax))
    tap(set(errs) == {"$.machine.family", "$.levels[1].cycles.p50"},
        "mismatches are reported with their JSON paths: %s" % errs)
    doc = json.loads(json.dumps({"schema": "pmucal.tlb/1.1", "units": "mcyc", "curves": [], "new": 1}))
    tap(validate_doc(doc, lax) == [] and [p for p, _ in validate_doc(doc, validators)] == ["$"],
        "an unknown member is ignored by readers, reported by the strict check of pmucal's own files")
    for s in docs_pages(schemas, False) or ["docs/%s: up to date" % p for p in DOC_PAGES]:
        tap(s.endswith("up to date"), s)
    print("1..%d" % n)
    return 1 if bad else 0


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    flags = set(a for a in argv if a.startswith("--"))
    schemas = load_schemas()
    if "--self-test" in flags:
        return self_test(schemas)
    if "--write-docs" in flags or "--docs" in flags:
        stale = docs_pages(schemas, "--write-docs" in flags)
        for s in stale:
            print(s)
        return 1 if stale and "--docs" in flags else 0
    validators = make_validators(schemas, strict="--lax" not in flags)
    files = []
    for a in args:
        files += sorted(glob.glob(os.path.join(a, "*.json"))) if os.path.isdir(a) else [a]
    bad = 0
    for i, f in enumerate(files, 1):
        errs = validate_file(f, validators)
        bad += bool(errs)
        if "--tap" in flags:
            print("%s %d - %s validates against its schema" % ("not ok" if errs else "ok", i, f))
            for e in errs:
                print("# " + e)
        else:
            for e in errs:
                print(e)
    if "--tap" in flags:
        print("1..%d" % len(files))
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
