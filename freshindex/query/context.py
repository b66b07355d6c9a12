"""Context packages: what an agent should read about a target, within a token budget.

Candidates come from the same freshness-checked answers as ``defs``/``refs``
(index plus overlays), and their text is read from the worktree as it is
now, so every line number and snippet belongs to the current version.
Priority (reference article): the target's definitions first, then public
callers, then other callers, then tests, each by distance; an item that does
not fit the remaining budget is left out and counted.
"""

from __future__ import annotations

import os
from typing import Any

import pygit2

from freshindex.core.exceptions import BadInput
from freshindex.query.answer import Answerer
from freshindex.query.guard import WorktreeGuard

# ~4 bytes per token for source code (a common heuristic for BPE tokenizers)
BYTES_PER_TOKEN = 4
CALLER_CONTEXT_LINES = 3


def _lines(guard: WorktreeGuard, path: str) -> tuple[list[str], str] | None:
    """The file's lines as they are now and its blob OID, or None when it may
    not be read (query/guard.py) or cannot be."""
    if guard.refusal(path) is not None:
        return None
    try:
        data = guard.path(path).read_bytes()
    except OSError:
        return None
    return data.decode("utf-8", errors="replace").splitlines(), str(pygit2.hash(data))


def _is_path(target: str, guard: WorktreeGuard) -> bool:
    """Whether a target names a file rather than a symbol: symbol names never
    hold a slash, and a dotted name such as `.env` is a file's."""
    return (
        "/" in target
        or "\\" in target
        or target.startswith(".")
        or os.path.lexists(os.path.join(guard.root, target))
    )


def _is_test(path: str) -> bool:
    name = os.path.basename(path)
    return (
        "test" in path.split("/")[0].lower()
        or name.startswith("test_")
        or "_test." in name
        or ".test." in name
    )


def build(answerer: Answerer, target: str, budget_tokens: int) -> dict[str, Any]:
    guard = answerer.guard
    candidates: list[tuple[int, dict[str, Any]]] = []
    if _is_path(target, guard):
        # refused with one line: absolute, '..', a symlink out, a secret
        rel = guard.relative(target)
        if not guard.path(rel).is_file():
            raise BadInput(f"{target!r} is not a file in the worktree")
        read = _lines(guard, rel)
        lines = read[0] if read else []
        candidates.append(
            (
                0,
                {
                    "role": "target",
                    "path": rel,
                    "startLine": 1,
                    "endLine": len(lines),
                    "origin": "source",
                },
            )
        )
        names = [
            r["name"] for r in answerer.dump("symbols") if r["path"] == rel and r.get("exported")
        ]
    else:
        names = [target]
    for name in names:
        for d in answerer.defs(name):
            candidates.append(
                (
                    0,
                    {
                        "role": "definition",
                        "path": d["path"],
                        "startLine": d["startLine"],
                        "endLine": d["endLine"],
                        "name": d["qualname"],
                        "origin": d["origin"],
                    },
                )
            )
        for r in answerer.refs(name):
            if r["kind"] == "import":
                continue
            role, rank = (
                ("test", 3) if _is_test(r["path"]) else ("caller", 1 if r.get("caller") else 2)
            )
            candidates.append(
                (
                    rank,
                    {
                        "role": role,
                        "path": r["path"],
                        "startLine": max(1, r["startLine"] - CALLER_CONTEXT_LINES),
                        "endLine": r["startLine"] + CALLER_CONTEXT_LINES,
                        "name": r.get("caller") or "",
                        "origin": r["origin"],
                    },
                )
            )
    budget = budget_tokens * BYTES_PER_TOKEN
    used = 0
    items: list[dict[str, Any]] = []
    omitted = 0
    seen: set[tuple[str, int, int]] = set()
    for _rank, item in sorted(candidates, key=lambda c: (c[0], c[1]["path"], c[1]["startLine"])):
        key = (item["path"], item["startLine"], item["endLine"])
        if key in seen:
            continue
        seen.add(key)
        read = _lines(guard, item["path"])
        if read is None:
            continue
        source, blob = read
        end = min(item["endLine"], len(source))
        text = "\n".join(source[item["startLine"] - 1 : end])
        if used + len(text) > budget:
            omitted += 1
            continue
        used += len(text)
        items.append(
            {
                **item,
                "endLine": end,
                "blob": blob,
                "text": text,
                "tokens": len(text) // BYTES_PER_TOKEN + 1,
            }
        )
    return {
        "items": items,
        "omitted": omitted,
        "budgetTokens": budget_tokens,
        "usedTokens": used // BYTES_PER_TOKEN,
    }
