"""Ruby receivers: the class a method is called on, where the code says it.

Ruby declares no types, but two forms name the class plainly: a call on a
constant (`Repo.open`, `Admin::User.find`, `Repo.new`) and a call on a
local assigned `Repo.new` earlier in the same method (`r = Repo.new;
r.save`). One query of the nodes that scope, assign or call, in source
order, with a stack of the open methods; a local takes its last
assignment before the call, and one assigned anything else is unknown.
What the pass finds is a constant as written; extract.py claims it, and
the linker looks for it in the file and the files it requires
(query/link.py). A call on anything else stays a candidate.
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer.languages import in_source_order, within_open

_PATTERNS = """
[(method) (singleton_method) (block) (do_block) (lambda)] @scope
(assignment left: (identifier)) @declare
(call receiver: [(constant) (scope_resolution) (identifier)]) @call
"""


def receiver_types(root: ts.Node, text: Callable[[ts.Node], str]) -> dict[int, tuple[str, str]]:
    """The start byte of each called method's name -> (the receiver as
    written, the class it names as written, dotted: ``Admin.User``)."""
    out: dict[int, tuple[str, str]] = {}
    # (where it ends, the locals assigned `Const.new` so far: "" for anything else)
    stack: list[tuple[int, dict[str, str]]] = [(root.end_byte, {})]
    for node, kind in within_open(in_source_order("ruby", _PATTERNS, root), stack):
        scope = stack[-1][1]
        if kind == "scope":
            # a block sees the method's locals; a method starts afresh
            inner = {} if node.type in ("method", "singleton_method") else {**scope}
            stack.append((node.end_byte, inner))
        elif kind == "declare":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier":
                scope[text(left)] = (_made(right, text) if right is not None else None) or ""
        else:
            receiver, method = (
                node.child_by_field_name("receiver"),
                node.child_by_field_name("method"),
            )
            if receiver is None or method is None or method.type != "identifier":
                continue
            typed = constant(receiver, text)
            if typed is None and receiver.type == "identifier":
                typed = scope.get(text(receiver)) or None
            if typed:
                out[method.start_byte] = (text(receiver), typed)
    return out


def _made(value: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """``Repo.new(...)``: the class it makes."""
    if value.type != "call":
        return None
    receiver, method = value.child_by_field_name("receiver"), value.child_by_field_name("method")
    if receiver is None or method is None or text(method) != "new":
        return None
    return constant(receiver, text)


def constant(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """A constant as a dotted name (``Repo``, ``Admin::User`` as ``Admin.User``);
    None for anything else (``::Repo`` too: the top level, spelled apart)."""
    if node.type == "constant":
        return text(node)
    if node.type == "scope_resolution":
        scope, name = node.child_by_field_name("scope"), node.child_by_field_name("name")
        head = constant(scope, text) if scope is not None else None
        return f"{head}.{text(name)}" if head and name is not None else None
    return None
