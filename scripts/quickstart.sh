#!/usr/bin/env bash
# Install freshindex into .venv, build an index of this repository on the
# embedded defaults (local file store in .git/freshindex, a local Dask cluster,
# one local Prefect API), and answer one query. Needs only Python 3.11 and git.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
if [ ! -x .venv/bin/python ]; then
    say "creating .venv with $("$PY" --version 2>&1)"
    "$PY" -m venv .venv
fi
say "installing freshindex and its pinned dependencies into .venv (a minute or two the first time)"
.venv/bin/python -m pip install --disable-pip-version-check --progress-bar off -c constraints.txt -e . \
    | grep -E '^(Collecting|Successfully installed)' | sed -u 's/^/    /' >&2 || true
.venv/bin/python -c 'import freshindex' # the install above succeeded or this fails loudly
export PREFECT_SERVER_ANALYTICS_ENABLED=false
say "building the index of $(pwd)"
.venv/bin/freshindex build "$@"
say "freshindex status"
.venv/bin/freshindex status
say "freshindex defs build_flow"
.venv/bin/freshindex defs build_flow
say "freshindex refs build_flow"
.venv/bin/freshindex refs build_flow
cat >&2 <<MSG

To run freshindex yourself, put it on PATH:
    export PATH="$(pwd)/.venv/bin:\$PATH"     # or: source .venv/bin/activate
Then, from any repository:  freshindex build && freshindex refs NAME
Agents: freshindex mcp --print-config prints the MCP configuration for this repository.
MSG
