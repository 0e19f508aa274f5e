#!/bin/sh
# The compiled schema checks the collector validates uploads with (tests/schema_codegen.py)
# against python3-jsonschema as the oracle: the same verdict on real pmucal files and on 400
# mutants of them per rule (strict and open), and a schema keyword the compiler does not
# implement stops it. TAP output.
cd "$(dirname "$0")/.." || exit 1
exec "${PMUCAL_PYTHON:-/usr/bin/python3}" tests/schema_codegen_checks.py
