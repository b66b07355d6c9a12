"""``isinstance`` narrowing: where a test proves what class a name holds.

A type checker reads ``if isinstance(other, HTTPHeaderDict): other.iteritems()``
as a call of ``HTTPHeaderDict.iteritems``, whatever ``other`` held before.
The binder asks, for each ``isinstance`` call it walks, which byte spans the
test guards, and a name read inside one of them is an instance of the class
(indexer/bind_python.py, ``values``):

- ``if`` / ``elif`` with the test as the condition: the branch's block;
- a test ``and``-ed with others (``if a and isinstance(x, C):``): the same
  block, and every operand to its right (``isinstance(x, C) and x.m()``);
- ``assert isinstance(x, C)``: the rest of the block the assert is in.

Only a bare name and one class (a name or a dotted name) narrow: a tuple of
classes gives no one class, and ``not isinstance`` guards nothing here.

A ``match`` on a bare name narrows it the same way in the block of each
``case User(...):`` whose pattern is one class (not ``A() | B()``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter as ts

from freshindex.indexer.guarded import climb


@dataclass(frozen=True, slots=True)
class Narrowing:
    name: str
    cls: ts.Node  # the class expression, read in the scope of the test
    spans: tuple[tuple[int, int], ...]  # byte ranges where name is an instance of cls
    test: str = "isinstance"  # or "case": what proves it, for the row's via


def narrowing(call: ts.Node, text: Callable[[ts.Node], str]) -> Narrowing | None:
    """The spans an ``isinstance(name, Class)`` call guards; None when it
    guards none (its caller has checked that ``isinstance`` is the builtin)."""
    args = call.child_by_field_name("arguments")
    kids = args.named_children if args is not None else []
    if len(kids) != 2 or kids[0].type != "identifier":
        return None
    if kids[1].type not in ("identifier", "attribute"):
        return None
    node, parent, spans = climb(
        call, lambda n: n.type == "boolean_operator" and _operator(n, text) == "and"
    )
    if parent is None:
        return None
    if (
        parent.type in ("if_statement", "elif_clause")
        and parent.child_by_field_name("condition") == node
    ):
        body = parent.child_by_field_name("consequence")
        if body is not None:
            spans.append((body.start_byte, body.end_byte))
    elif parent.type == "assert_statement" and parent.named_children[:1] == [node]:
        block = parent.parent
        if block is not None:
            spans.append((parent.end_byte, block.end_byte))
    if not spans:
        return None
    return Narrowing(text(kids[0]), kids[1], tuple(spans))


def _operator(node: ts.Node, text: Callable[[ts.Node], str]) -> str:
    op = node.child_by_field_name("operator")
    return text(op) if op is not None else ""


def case_narrowings(match: ts.Node, text: Callable[[ts.Node], str]) -> list[Narrowing]:
    """``match x:`` then ``case User(...):``: ``x`` is a User in that case's block."""
    subject = match.child_by_field_name("subject") or (
        match.named_children[0] if match.named_children else None
    )
    body = match.child_by_field_name("body")
    if subject is None or subject.type != "identifier" or body is None:
        return []
    out = []
    for case in body.named_children:
        if case.type != "case_clause":
            continue
        patterns = [c for c in case.named_children if c.type == "case_pattern"]
        block = case.child_by_field_name("consequence") or next(
            (c for c in case.named_children if c.type == "block"), None
        )
        if len(patterns) != 1 or block is None or not patterns[0].named_children:
            continue
        pattern = patterns[0].named_children[0]
        if pattern.type != "class_pattern" or not pattern.named_children:
            continue
        name = pattern.named_children[0]  # dotted_name: `User`, `models.User`
        parts = name.named_children if name.type == "dotted_name" else [name]
        if len(parts) != 1 or parts[0].type != "identifier":
            continue  # a dotted class: not read here
        spans = ((block.start_byte, block.end_byte),)
        out.append(Narrowing(text(subject), parts[0], spans, "case"))
    return out
