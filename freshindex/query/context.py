"""Context packages: what an agent should read about a target, within a budget.

As the reference article specifies:

1. **Targets**: a symbol (any form ``refs`` accepts), a file, or the
   changes in progress (``changed``: the worktree's uncommitted changes, plus
   the commits since ``since``), narrowed to the definitions the changed
   lines fall in.
2. **Expansion** over the reference graph by dependency distance, through
   *bound* references (query/link.py): callers, callees, tests that call or
   import the target, the configuration files of the target's package, and
   the last commit subjects touching the target's file (pygit2). A target
   with no bound callers gets its name-matched candidates, labelled so.
3. **Priority**: targets; public contracts (signatures and summaries of the
   exported definitions the target uses or is used by); high-risk callers
   (from another package, or exported themselves); implementations and tests
   by distance; configuration; history last. A body goes in when it fits,
   otherwise its summary (indexer/summary.py) stands in; what is left out is
   listed with the reason.
4. **Proof per fragment**: path, line span, the blob OID of the bytes it was
   cut from, and its origin (``index``, ``overlay``, ``source``). Text is
   read from the worktree now; a file whose bytes are not the ones its rows
   were computed from is re-parsed and the definition found again by name,
   or the fragment is dropped with the reason: never sliced from stale lines.

Tokens are counted by a pluggable counter (query/tokens.py); the default is
an estimate of 4 bytes a token, and the package says so.
"""

from __future__ import annotations

import os
from typing import Any

from freshindex.core.exceptions import BadInput
from freshindex.query.answer import Answerer
from freshindex.query.expansion import Walk
from freshindex.query.fragments import TIER_NAMES
from freshindex.query.guard import WorktreeGuard
from freshindex.query.packing import fill
from freshindex.query.rendering import markdown
from freshindex.query.targets import definitions, parse_target
from freshindex.query.tokens import DEFAULT_COUNTER, TokenCounter

__all__ = ["TIER_NAMES", "build", "markdown"]


def build(
    answerer: Answerer,
    target: str | None,
    budget_tokens: int,
    changed: bool = False,
    since: str | None = None,
    counter: TokenCounter = DEFAULT_COUNTER,
) -> dict[str, Any]:
    if budget_tokens < 1:
        raise BadInput("the budget must be at least one token")
    walk = Walk(answerer)
    files: list[str] = []
    if changed or since:
        targets, files = walk.changed_targets(since)
    elif target and _is_path(target, answerer.guard):
        rel = answerer.guard.relative(target)
        if not answerer.guard.path(rel).is_file():
            raise BadInput(f"{target!r} is not a file in the worktree")
        files = [rel]
        targets = walk.file_targets(rel)
    elif target:
        targets = [
            walk.node(d, 0, "target", "the definition asked for")
            for d in definitions(answerer, answerer.linker, target)
        ]
    else:
        raise BadInput("name a target: a symbol, a file, or --changed")
    candidates = walk.expand(targets, files)
    if changed or since:  # what the change breaks comes first
        candidates = walk.breakage() + candidates
    package = fill(answerer, candidates, budget_tokens, counter)
    return {
        "targets": [
            {"path": n.path, "name": n.qualname, "kind": n.kind, "symbolId": n.symbol_id}
            for n in targets
        ],
        "items": package.items,
        # every query answer has `results` (docs/contract.md): the items'
        # locations, without their text, so a body is delivered once
        "results": [{k: v for k, v in i.items() if k != "text"} for i in package.items],
        "leftOut": package.left_out,
        "omitted": len(package.left_out),
        "budgetTokens": budget_tokens,
        "usedTokens": package.used,
        "tokenizer": counter.name,
    }


def _is_path(target: str, guard: WorktreeGuard) -> bool:
    """Whether a target names a file rather than a symbol: symbol names never
    hold a slash, and a dotted name such as `.env` is a file's."""
    if parse_target(target) is not None:
        return False
    return (
        "/" in target
        or "\\" in target
        or target.startswith(".")
        or os.path.lexists(os.path.join(guard.root, target))
    )
