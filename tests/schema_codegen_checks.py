#!/usr/bin/python3
"""The compiled schema checks (tests/schema_codegen.py) against python3-jsonschema as the
oracle, TAP on stdout: real pmucal files (a QEMU results folder, the table corpus) and
mutants of them (a value replaced by one of another type or out of range, a member removed or
added, an array emptied or grown) must get the same verdict from both, under the strict rule
and under the readers' (open) rule; a keyword the compiler does not know stops it.

    schema_codegen_checks.py [N]     N mutants per rule (default 400)
"""
import copy
import glob
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_schemas  # noqa: E402
import schema_codegen  # noqa: E402

n_tests = n_failed = 0
REPLACEMENTS = ["x", "", -1, -1.5, 0, 1.5, 1 << 40, 1e300, None, True, False, [], {}, "a" * 300,
                "pmucal.tlb/2", "0x", "-", float("nan")]


def tap(ok, what, diag=None):
    global n_tests, n_failed
    n_tests += 1
    n_failed += not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", n_tests, what), flush=True)
    if not ok and diag:
        for line in str(diag).splitlines()[:20]:
            print("#   " + line)
    return ok


def nodes(doc, path=()):
    """Every (path, value) of @doc, the root included."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from nodes(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from nodes(v, path + (i,))


def mutate(doc, rng):
    """A deep copy of @doc with one change, and the change said."""
    d = copy.deepcopy(doc)
    all_nodes = list(nodes(d))
    path, v = all_nodes[rng.randrange(len(all_nodes))]
    parent = d
    for p in path[:-1]:
        parent = parent[p]
    kinds = ["replace"]
    if isinstance(v, dict):
        kinds += ["add", "add"] + (["drop", "drop"] if v else [])
    if isinstance(v, list):
        kinds += ["empty", "grow"] if v else []
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        kinds += ["scale", "negate"]
    kind = rng.choice(kinds)
    if kind == "add":
        v["undocumented_%d" % rng.randrange(10)] = rng.choice(REPLACEMENTS)
    elif kind == "drop":
        del v[rng.choice(sorted(v))]
    elif kind == "empty":
        v.clear()
    elif kind == "grow":
        v.extend(copy.deepcopy(v[-1:]) * rng.choice((1, 70)))
    else:
        new = {"scale": lambda: v * rng.choice((1000, 1e-3, 1 << 33)), "negate": lambda: -v - 1,
               "replace": lambda: rng.choice(REPLACEMENTS)}[kind]()
        if not path:
            return new, "the document replaced by %r" % (new,)
        parent[path[-1]] = new
    return d, "%s at %s" % (kind, check_schemas.json_path(path))


def main(argv):
    n_mut = int(argv[0]) if argv else 400
    schemas = check_schemas.load_schemas()
    files = sorted(glob.glob(os.path.join(HERE, "data", "collector", "qemu-smoke", "*.json")))
    files += sorted(glob.glob(os.path.join(HERE, "corpus", "table", "*.json")))
    docs = []
    for f in files:
        try:
            with open(f) as fh:
                docs.append((os.path.relpath(f, HERE), json.load(fh)))
        except ValueError:
            pass  # the corpus' broken files are the readers' test, not this one
    for strict in (True, False):
        rule = "strict" if strict else "open"
        t = time.monotonic()
        checks = schema_codegen.compile_schemas(
            {n: (check_schemas.strict_copy(s) if strict else s) for n, (_, s) in schemas.items()})
        t = time.monotonic() - t
        oracle = check_schemas.make_validators(schemas, strict)
        tap(set(checks) == set(schemas), "%s: every schema compiles (%.2f s): %s" % (rule, t, sorted(checks)))
        differ = [(name, schema_codegen.check_doc(d, checks)) for name, d in docs
                  if schema_codegen.check_doc(d, checks) != (check_schemas.validate_doc(d, oracle) == [])]
        n_valid = sum(1 for _, d in docs if schema_codegen.check_doc(d, checks))
        tap(not differ and n_valid >= 8, "%s: %d real files, %d valid: the same verdicts as jsonschema"
            % (rule, len(docs), n_valid), differ)
        rng = random.Random(26 + strict)
        differ, refused, t_fast, t_ref = [], 0, 0.0, 0.0
        for _ in range(n_mut):
            name, base = docs[rng.randrange(len(docs))]
            m, what = mutate(base, rng)
            t0 = time.perf_counter()
            fast = schema_codegen.check_doc(m, checks)
            t1 = time.perf_counter()
            ref = check_schemas.validate_doc(m, oracle) == []
            t_ref += time.perf_counter() - t1
            t_fast += t1 - t0
            refused += not ref
            if fast != ref:
                differ.append("%s: %s: compiled %s, jsonschema %s" % (name, what, fast, ref))
        tap(not differ and refused >= n_mut // 5,
            "%s: %d mutants (%d refused by jsonschema): the same verdicts (compiled %.1f ms, jsonschema %.1f ms a file)"
            % (rule, n_mut, refused, 1000 * t_fast / n_mut, 1000 * t_ref / n_mut), "\n".join(differ))
    for bad in ({"oneOf": [{"type": "string"}]}, {"type": "string", "format": "date"},
                {"properties": {"a": {"$ref": "#/$defs/none"}}, "$defs": {}},
                {"properties": {"a": {}}, "unevaluatedProperties": {"type": "string"}}):
        try:
            schema_codegen.compile_schemas({"x": dict(bad, **{"$id": "https://schemas.pmucal.invalid/x/1"})})
            stopped = False
        except (schema_codegen.SchemaUnsupported, KeyError):
            stopped = True
        tap(stopped, "a schema the compiler does not implement stops it: %s" % json.dumps(bad))
    print("1..%d" % n_tests)
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
