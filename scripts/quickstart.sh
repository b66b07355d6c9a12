#!/usr/bin/env bash
# Install freshindex into .venv, build an index of this repository on the
# embedded defaults (local file store in .git/freshindex, a local Dask cluster,
# one local Prefect API), and answer one query. Needs only Python 3.11 and git.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e .
export PREFECT_SERVER_ANALYTICS_ENABLED=false
.venv/bin/freshindex build "$@"
.venv/bin/freshindex status
.venv/bin/freshindex defs build_flow
.venv/bin/freshindex refs build_flow
