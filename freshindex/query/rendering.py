"""A context package as markdown: what the agent pastes as it is."""

from __future__ import annotations

from typing import Any


def markdown(doc: dict[str, Any]) -> str:
    """The package as markdown an agent can paste as it is."""
    fence = "```"
    out = [
        f"# Context: {', '.join(t['name'] for t in doc.get('targets', [])) or 'files'}",
        "",
        f"Index `{doc.get('indexCommit') or '-'}` ({doc.get('freshness')}), worktree tree "
        f"`{doc.get('worktreeTree')}`. {doc['usedTokens']} of {doc['budgetTokens']} tokens "
        f"({doc['tokenizer']}).",
        "",
    ]
    for item in doc["items"]:
        where = (
            f"{item['path']}:{item['startLine']}-{item['endLine']}"
            if item["form"] != "history"
            else item["path"]
        )
        blob = f" blob {str(item['blob'])[:12]}" if item.get("blob") else ""
        out += [
            f"## {item['tier']}: {item['name']} ({item['form']})",
            f"`{where}` · {item['origin']}{blob} · {item['why']}",
            "",
            fence,
            item["text"],
            fence,
            "",
        ]
    if doc["leftOut"]:
        out.append("## Left out")
        out += [f"- {g['tier']} {g['name']} ({g['path']}): {g['reason']}" for g in doc["leftOut"]]
    return "\n".join(out) + "\n"
