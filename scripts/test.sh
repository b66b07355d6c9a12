#!/usr/bin/env bash
# Install what the tests need into .venv, lint and type-check, and run the whole
# suite. The services the tests use (one `prefect server start`, moto's S3
# server, Dask schedulers and workers) are started by the test fixtures on
# 127.0.0.1 and stopped after.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[test]'
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
# two test processes (pytest-xdist): half the suite's wall is waiting (leases,
# killed processes, servers starting), and each process has its own Prefect
# API and S3 server (session fixtures)
exec .venv/bin/python -m pytest -n "${FRESHINDEX_TEST_PROCESSES:-2}" "$@"
