"""``instanceof`` narrowing in JavaScript and TypeScript, as narrow_python.py
does for ``isinstance``: ``if (err instanceof HTTPError) { err.response }``
reads ``err`` as an HTTPError inside the branch, whatever it was declared.

The spans a test guards (indexer/flow_js.py reads a name inside one as an
instance of the class):

- ``if (x instanceof C)``: the branch (its block or single statement);
- a test ``&&``-ed with others: the same, and every operand to its right
  (``x instanceof C && x.m()``);
- ``x instanceof C ? x.m() : ...``: the consequence.

Only a bare name and a class named by one identifier narrow; ``!(x
instanceof C)`` guards nothing here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter as ts

from freshindex.indexer.guarded import climb

# what the consequence of a condition is: an if's branch, a ternary's value
_GUARDS = frozenset({"if_statement", "ternary_expression"})


@dataclass(frozen=True, slots=True)
class Narrowing:
    name: str
    cls: ts.Node
    spans: tuple[tuple[int, int], ...]


def narrowing(test: ts.Node, text: Callable[[ts.Node], str]) -> Narrowing | None:
    """The spans a ``binary_expression`` of ``instanceof`` guards; None when
    it is not one such or guards none."""
    op = test.child_by_field_name("operator")
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    if op is None or op.type != "instanceof" or left is None or right is None:
        return None
    if left.type != "identifier" or right.type != "identifier":
        return None
    node, parent, spans = climb(
        test, lambda n: n.type == "binary_expression" and _operator(n) == "&&"
    )
    if parent is None:
        return None
    guarded = None
    if parent.type in _GUARDS and parent.child_by_field_name("condition") == node:
        guarded = parent.child_by_field_name("consequence")
    if guarded is not None:
        spans.append((guarded.start_byte, guarded.end_byte))
    if not spans:
        return None
    return Narrowing(text(left), right, tuple(spans))


def _operator(node: ts.Node) -> str:
    op = node.child_by_field_name("operator")
    return op.type if op is not None else ""
