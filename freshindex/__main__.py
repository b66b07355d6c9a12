"""``python -m freshindex``: the command line, with no console script on PATH
(what an agent host's MCP configuration runs: an absolute interpreter path)."""

from freshindex.cli import run

run()
