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
from pathlib import Path
from typing import Any

from freshindex.query.answer import Answerer

# ~4 bytes per token for source code (a common heuristic for BPE tokenizers)
BYTES_PER_TOKEN = 4
CALLER_CONTEXT_LINES = 3


def _lines(workdir: str, path: str) -> list[str] | None:
    full = os.path.join(workdir, path)
    try:
        return Path(full).read_text(errors="replace").splitlines()
    except (OSError, UnicodeDecodeError):
        return None


def _is_test(path: str) -> bool:
    name = os.path.basename(path)
    return (
        "test" in path.split("/")[0].lower()
        or name.startswith("test_")
        or "_test." in name
        or ".test." in name
    )


def build(answerer: Answerer, target: str, budget_tokens: int) -> dict[str, Any]:
    workdir = answerer.repo.workdir or ""
    candidates: list[tuple[int, dict[str, Any]]] = []
    if os.path.isfile(os.path.join(workdir, target)):
        lines = _lines(workdir, target)
        if lines is not None:
            candidates.append(
                (0, {"role": "target", "path": target, "startLine": 1, "endLine": len(lines)})
            )
            names = [
                r["name"]
                for r in answerer.dump("symbols")
                if r["path"] == target and r.get("exported")
            ]
        else:
            names = []
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
        lines = _lines(workdir, item["path"])
        if lines is None:
            continue
        end = min(item["endLine"], len(lines))
        text = "\n".join(lines[item["startLine"] - 1 : end])
        if used + len(text) > budget:
            omitted += 1
            continue
        used += len(text)
        items.append(
            {**item, "endLine": end, "text": text, "tokens": len(text) // BYTES_PER_TOKEN + 1}
        )
    return {
        "items": items,
        "omitted": omitted,
        "budgetTokens": budget_tokens,
        "usedTokens": used // BYTES_PER_TOKEN,
    }
