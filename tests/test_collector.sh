#!/usr/bin/env bash
# The collector end to end (tests/collector_checks.py): uploads over SQLite and a throw-away
# PostgreSQL, duplicates, schema-invalid and broken uploads, a collector killed inside its
# transaction, concurrent uploads, ingest of a real QEMU results folder, outliers of a simulated
# fleet, the reference table, and the web page in headless Chromium. TAP on stdout.
set -u
cd "$(dirname "$0")/.."
exec "${PMUCAL_PYTHON:-/usr/bin/python3}" tests/collector_checks.py "$@"
