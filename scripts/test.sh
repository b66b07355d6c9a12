#!/usr/bin/env bash
# Install what the tests need into .venv, lint, type-check, build the docs,
# and run the whole suite. The services the integration tests use (one
# `prefect server start`, moto's S3 server, Dask schedulers and workers) are
# started by their fixtures on 127.0.0.1 and stopped after.
#
#   ./scripts/test.sh            everything, as CI runs it
#   ./scripts/test.sh --fast     lint, types and tests/unit only: no services
#   ./scripts/test.sh ARGS...    everything, with ARGS passed to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
fast=0
if [ "${1:-}" = "--fast" ]; then fast=1; shift; fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[test]'
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
if [ "$fast" = 1 ]; then
    exec .venv/bin/python -m pytest -n "${FRESHINDEX_TEST_PROCESSES:-3}" tests/unit "$@"
fi
# the documentation site: a broken link or a missing benchmark table fails
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet
# three test processes (pytest-xdist) on two cores: most of the suite's wall
# is waiting (leases, killed processes, servers starting), and each process
# has its own Prefect API and S3 server (session fixtures). Measured on a
# 2-core machine, 2026-12-07: pytest used 113 % CPU on three processes, and
# took 11:11 against 12:40-15:53 on two
exec .venv/bin/python -m pytest -n "${FRESHINDEX_TEST_PROCESSES:-3}" "$@"
