#!/bin/sh
# The JSON Schemas of docs/schemas/ (part of `make test`): each is valid JSON Schema 2020-12,
# applies the one version rule, reports mismatches with their JSON paths, and the field tables
# of docs/inventory.md, docs/latency-table.md and docs/tlb-table.md are the ones generated from
# them (tests/check_schemas.py --write-docs). TAP output. The files a QEMU run and a hosted run
# write are validated in tests/qemu_checks.py, tests/test_hosted.sh and tests/test_hosted_tlb.sh.
cd "$(dirname "$0")/.." || exit 1
exec "${PMUCAL_PYTHON:-python3}" tests/check_schemas.py --self-test
