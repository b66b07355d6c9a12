"""Filling a context package within its budget: each candidate's text read
from the worktree now and checked against the blob its rows came from, a
body when it fits and its summary when it does not, and what was left out
with the reason."""

from __future__ import annotations

from typing import Any

import pygit2

from freshindex.indexer.document import SNIFF_BYTES, TAIL_BYTES, classify
from freshindex.indexer.extract import ParseBudgetExceeded, extract
from freshindex.query.answer import Answerer
from freshindex.query.fragments import (
    MAP,
    MAP_SHARE,
    TARGET,
    TIER_NAMES,
    Candidate,
    Package,
)
from freshindex.query.guard import WorktreeGuard
from freshindex.query.rendering import item_markdown
from freshindex.query.tokens import TokenCounter


def fill(
    answerer: Answerer, candidates: list[Candidate], budget_tokens: int, counter: TokenCounter
) -> Package:
    package = Package()
    files: dict[str, tuple[list[str], str, bytes] | None] = {}
    placed: set[tuple[str, str]] = set()
    # the targets first; then the map takes up to its share of the budget,
    # so the name-level view of the neighbourhood is never crowded out by
    # bodies; then the other tiers in order; what they leave goes to the
    # rest of the map's entries, in rank order
    order = sorted(
        enumerate(candidates),
        key=lambda ic: (_fill_order(ic[1]), ic[1].distance, ic[0]),
    )
    deferred: list[Candidate] = []
    map_used = 0
    # files other tiers may give a fragment of: their map entries wait
    covered = {c.path for c in candidates if c.tier != MAP}
    for _i, c in order:
        if c.tier == MAP:
            share_left = map_used < MAP_SHARE * budget_tokens and c.path not in covered
            if share_left and _map_entry(answerer, package, c, budget_tokens, counter):
                map_used += int(package.items[-1].get("tokens", 0))
            else:
                deferred.append(c)
            continue
        key = (c.path, f"{c.name}:{c.form}:{c.start_line}")
        if key in placed:
            continue
        placed.add(key)
        if c.path not in files:
            files[c.path] = _read(answerer.guard, c.path)
        read = files[c.path]
        if c.form == "history":  # about the file whose bytes these are
            blob_now = read[1] if read else None
            _place(package, c, c.text or "", 0, 0, blob_now, budget_tokens, counter, "history")
            continue
        if read is None:
            package.left_out.append(
                _gone(c, "the file cannot be read now (deleted, refused or unreadable)")
            )
            continue
        lines, blob, data = read
        span = _anchor(answerer, c, blob, data)
        if isinstance(span, str):
            package.left_out.append(_gone(c, span))
            continue
        start, end = span[0], min(span[1], len(lines))
        if c.form == "summary":
            text = _summary_text(answerer, c)
            _place(package, c, text, start, end, blob, budget_tokens, counter, "summary")
            continue
        body = "\n".join(lines[start - 1 : end])
        form = "body" if c.node else "lines"
        # a definition whose body does not fit is given its summary instead
        fallback = c.node is not None
        fitted = _place(package, c, body, start, end, blob, budget_tokens, counter, form, fallback)
        if not fitted and fallback:
            text = _summary_text(answerer, c)
            _place(
                package,
                c,
                text,
                start,
                end,
                blob,
                budget_tokens,
                counter,
                "summary",
                note="its body did not fit",
            )
    for c in deferred:
        _map_entry(answerer, package, c, budget_tokens, counter)
    # delivered in tier order, whatever order the budget was spent in
    rank = {name: i for i, name in enumerate(TIER_NAMES)}
    package.items.sort(key=lambda item: rank[str(item["tier"])])
    return package


def _fill_order(c: Candidate) -> int:
    if c.role == "breaks":  # a reference the change leaves dangling: with the targets
        return 0
    return {TARGET: 0, MAP: 1}.get(c.tier, 2 + c.tier)


def _map_entry(
    answerer: Answerer, package: Package, c: Candidate, budget: int, counter: TokenCounter
) -> bool:
    """Place a map entry unless its file is in the package already."""
    if c.path in package.paths():
        return False
    blob = _row_blob(answerer, c.path)
    text = c.text or ""
    return _place(
        package, c, text, c.start_line, c.end_line, blob, budget, counter, "map", quiet=True
    )


def _place(
    package: Package,
    c: Candidate,
    text: str,
    start: int,
    end: int,
    blob: str | None,
    budget: int,
    counter: TokenCounter,
    form: str,
    quiet: bool = False,
    note: str = "",
) -> bool:
    """Place a fragment if it fits; else list it as left out (unless
    ``quiet``: the caller tries a smaller form). Whether it was placed."""
    last = text.rsplit("\n", 1)[-1] if form in ("body", "lines") else ""
    item: dict[str, Any] = {
        # a target definition keeps the role name it always had
        "role": "definition" if c.role == "target" and c.node is not None else c.role,
        # the contract's result fields (docs/contract.md), so `results` is the items
        "kind": c.node.kind if c.node is not None else c.role,
        "startCol": 0,
        "endCol": len(last.encode("utf-8")),
        "tier": TIER_NAMES[c.tier],
        "distance": c.distance,
        "path": c.path,
        "startLine": start,
        "endLine": end,
        "name": c.name,
        "why": c.why + (f"; summary: {note}" if note else ""),
        "form": form,
        "origin": c.origin if form != "history" else "source",
        "blob": blob,
        "text": text,
    }
    # counted as delivered: its heading and location line too, not the text alone
    tokens = counter.count(item_markdown(item))
    if package.used + tokens > budget:
        if not quiet:
            package.left_out.append(_gone(c, "over budget"))
        return False
    package.used += tokens
    item["tokens"] = tokens
    if c.node is not None:
        item["symbolId"] = c.node.symbol_id
    package.items.append(item)
    return True


def _gone(c: Candidate, reason: str) -> dict[str, Any]:
    return {
        "role": c.role,
        "tier": TIER_NAMES[c.tier],
        "path": c.path,
        "name": c.name,
        "reason": reason,
    }


def _read(guard: WorktreeGuard, path: str) -> tuple[list[str], str, bytes] | None:
    """The file's lines as they are now, its blob OID and bytes; None when
    it may not be read (query/guard.py) or cannot be."""
    if guard.refusal(path) is not None:
        return None
    try:
        data = guard.path(path).read_bytes()
    except OSError:
        return None
    return data.decode("utf-8", errors="replace").splitlines(), str(pygit2.hash(data)), data


def _anchor(answerer: Answerer, c: Candidate, blob_now: str, data: bytes) -> tuple[int, int] | str:
    """The span to cut, checked against the bytes read now: the span the
    rows give when the file is the one they were computed from, else the
    definition found again in the file as it is now; a reason when neither."""
    if c.origin == "source":
        return (max(1, c.start_line), c.end_line)
    expected = _row_blob(answerer, c.path)
    if expected == blob_now:
        return (c.start_line, c.end_line)
    if c.node is None:
        return (
            "the file changed since this answer was computed, and a line has no name to find again"
        )
    language, reason = classify(
        c.path, 0o100644, len(data), data[:SNIFF_BYTES], answerer.config, data[-TAIL_BYTES:]
    )
    if reason is not None or language is None:
        return f"the file changed and is no longer indexed ({reason})"
    try:
        rows = extract(c.path, language, data, None, answerer.config.max_parse_work_factor)
    except ParseBudgetExceeded:
        return "the file changed and no longer parses within budget"
    again = [r for r in rows.symbols if r[4] == c.node.qualname and r[5] == c.node.kind]
    if not again:
        return f"the file changed and no longer defines {c.node.qualname}"
    r = min(again, key=lambda r: abs(r[7] - c.start_line))
    return (int(r[7]), int(r[9]))


def _row_blob(answerer: Answerer, path: str) -> str | None:
    if answerer.overlay is not None and path in answerer.overlay.shadowed:
        return next(
            (str(d.get("blob")) for d in answerer.overlay.documents if d["path"] == path), None
        )
    return answerer.version.blobs([path]).get(path)


def _summary_text(answerer: Answerer, c: Candidate) -> str:
    """The signature, first doc paragraph and decorators of a definition, from
    the summaries table (or the overlay's, for a changed file)."""
    node = c.node
    assert node is not None
    rows = [
        s for s in answerer.rows_now("summaries", node.path) if s["symbol_id"] == node.symbol_id
    ]
    if not rows:
        rows = [
            s for s in answerer.rows_now("summaries", node.path) if s["qualname"] == node.qualname
        ]
    if not rows:
        return f"{node.kind} {node.qualname} [lines {node.start_line}-{node.end_line}]"
    s = rows[0]
    lines = [*s["decorators"], s["signature"]]
    if s["doc"]:
        lines.append(f"    {s['doc']}")
    lines.append(f"    [{s['end_line'] - s['start_line'] + 1} lines, {s['bytes']} bytes]")
    return "\n".join(lines)
