"""aider's own RepoMap, run offline in its own virtualenv, as the peer of the
context benchmark (bench_context.py); never imported by freshindex.

Run by bench_context.py with the aider venv's Python (aider-chat from PyPI,
installed under ~/.cache/freshindex/aider-venv): reads a JSON request on
stdin, prints the files its map names and the tokens it counted. Tokens are
counted with the same 4-bytes estimate freshindex uses, so both sides are
held to the same budget by the same measure; no model is contacted.
"""

from __future__ import annotations

import json
import sys


class _Model:
    """What RepoMap asks of a model: a token count."""

    name = "offline-estimate"

    def token_count(self, text: str) -> int:
        return len(text.encode("utf-8")) // 4


class _Quiet:
    """What RepoMap asks of aider's InputOutput: reading files, and messages."""

    def read_text(self, fname: str, silent: bool = False) -> str | None:
        try:
            with open(fname, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return None

    def tool_output(self, *args: object, **kw: object) -> None:
        pass

    tool_warning = tool_error = tool_output


def main() -> None:
    from aider.repomap import RepoMap

    req = json.loads(sys.stdin.read())
    root = req["root"]
    rm = RepoMap(map_tokens=req["budget"], root=root, main_model=_Model(), io=_Quiet())
    chat = [f"{root}/{req['target']}"]
    others = [f"{root}/{p}" for p in req["files"] if p != req["target"]]
    text = rm.get_repo_map(chat, others) or ""
    named = set()
    for line in text.splitlines():
        if line and not line[0].isspace() and line[0] not in "│⋮|" and line.endswith(":"):
            named.add(line[:-1])
    print(json.dumps({"files": sorted(named), "tokens": _Model().token_count(text)}))


if __name__ == "__main__":
    main()
