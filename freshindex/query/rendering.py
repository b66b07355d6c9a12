"""A context package as markdown: what the agent pastes as it is.

The budget is kept in what is delivered: each item is counted as it is
rendered here (heading, location line and fenced text), so the items fill at
most the budget, and the package's own heading and its left-out list add at
most OVERHEAD_TOKENS more.
"""

from __future__ import annotations

from typing import Any

from freshindex.query.tokens import DEFAULT_COUNTER, TokenCounter

FENCE = "```"
# the package's heading and its left-out list, beyond the budget the items fill
OVERHEAD_TOKENS = 150
LEFT_OUT_TOKENS = 80  # of those, the left-out list; the rest is counted in leftOut
# (and the map tier's heading, ~10 tokens)


def item_markdown(item: dict[str, Any]) -> str:
    """One fragment as delivered: what the budget counts for it. A map entry
    is a list item: its path, why it ranks, and its signatures."""
    if item["form"] == "map":
        return f"- `{item['path']}` · {item['why']}\n{item['text']}\n"
    where = (
        f"{item['path']}:{item['startLine']}-{item['endLine']}"
        if item["form"] != "history"
        else item["path"]
    )
    blob = f" blob {str(item['blob'])[:12]}" if item.get("blob") else ""
    return "\n".join(
        [
            f"## {item['tier']}: {item['name']} ({item['form']})",
            f"`{where}` · {item['origin']}{blob} · {item['why']}",
            "",
            FENCE,
            item["text"],
            FENCE,
            "",
        ]
    )


def markdown(doc: dict[str, Any], counter: TokenCounter = DEFAULT_COUNTER) -> str:
    """The package as markdown an agent can paste as it is: at most its
    budget plus OVERHEAD_TOKENS tokens by ``counter``."""
    out = [
        f"# Context: {_short(', '.join(t['name'] for t in doc.get('targets', [])) or 'files')}",
        "",
        f"Index `{doc.get('indexCommit') or '-'}` ({doc.get('freshness')}), worktree tree "
        f"`{doc.get('worktreeTree')}`. {doc['usedTokens']} of {doc['budgetTokens']} tokens "
        f"({doc['tokenizer']}).",
        "",
    ]
    maps = [i for i in doc["items"] if i["form"] == "map"]
    out += [item_markdown(item) for item in doc["items"] if item["form"] != "map"]
    if maps:  # the map tier: one list of the files ranked for the target
        out += ["## map: files that matter to the target", ""]
        out += [item_markdown(item) for item in maps]
    left = doc["leftOut"]
    if left:
        lines = ["## Left out"]
        used = counter.count(lines[0])
        shown = 0
        for g in left:
            line = f"- {g['tier']} {_short(g['name'])} ({_short(g['path'])}): {g['reason']}"
            cost = counter.count(line)
            if used + cost > LEFT_OUT_TOKENS - 15:  # room for the line that says how many more
                break
            lines.append(line)
            used += cost
            shown += 1
        if shown < len(left):
            lines.append(f"- and {len(left) - shown} more (every one is in leftOut)")
        out += lines
    return "\n".join(out) + "\n"


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
