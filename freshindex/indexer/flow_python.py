"""What a Python name may hold: the value-flow half of the binder.

The binder (indexer/bind_python.py) walks a file once with Python's scopes and
records, without deciding anything yet, every place a value flows into a name:
assignments of every form, ``for`` targets, ``with ... as``, ``except ... as``,
walrus targets, parameters (their defaults, their annotations, and the
arguments of the calls this file makes to the function), items of literal
containers, and the holders other files can see: what a function returns,
what ``self.x`` is set to in any method, a class attribute, a module-level
name. When the walk is over, a name's values are evaluated lazily, so an
assignment further down the file still counts: the pass is flow-insensitive,
as a call graph must be, and a name assigned two different values gives a row
for each. A value the rules cannot follow gives nothing, and the reference
stays a candidate: never a guess.

A value is a *chain* rooted in a file (indexer/chains.py): ``("pkg/f.py",
"make().run")``. The binder cannot see other files, so a chain that leaves
the file is stored as such and walked by freshindex/query/link.py when the
index is read.

Bounds, so hostile input ends within the parse budget: a name is followed
through at most ``MAX_DEPTH`` other names, gives at most ``MAX_VALUES``
values (past that it is left a candidate: too many to be useful), and a chain
has at most ``chains.MAX_STEPS`` steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import tree_sitter as ts

from freshindex.indexer import chains

if TYPE_CHECKING:
    from freshindex.indexer.bind_python import _Name, _Scope

MAX_DEPTH = 8
MAX_VALUES = 8
# builtins that call the function they are given: map(f, xs) calls f
CALLING_BUILTINS = frozenset({"map", "filter"})
PROPERTIES = ("property", "cached_property", "functools.cached_property")


class Value(NamedTuple):
    """A chain rooted in a file, and how the name came to hold it."""

    path: str
    chain: str  # "" is the module ``path`` itself
    how: str


class Flow(NamedTuple):
    """One place a value flows into a name: an expression read in a scope,
    then a step (``enter``: what ``with`` binds; ``instance``: an annotation
    or ``except`` class, whose value is an instance; ``iter``: an element of
    a literal sequence), or a value known outright.

    How it reads in words (a row's ``via``) is made only when a row needs
    it (``ValueFlow.describe``): most flows never reach a row, and making
    every sentence eagerly cost a tenth of extraction."""

    node: ts.Node | None
    scope: _Scope | None
    label: str  # the name it flows into (`x`, `self.client`), or the whole sentence
    step: str = ""
    value: Value | None = None
    # from an annotation: where a name or holder has one, its other values
    # are not followed, as a type checker reads it (`self.t: Base = make()`)
    declared: bool = False
    words: str = ""  # where, when not the line: "default", "in Service.__init__"
    verbatim: bool = False  # ``label`` is the whole sentence


class ValueFlow:
    """The evaluation half, mixed into the binder; the binder supplies the
    scope rules (``lookup``) and what a type expression names (``symbol_of``)."""

    path: str
    # a name's values, once evaluated: (scope id, name) -> values
    memo: dict[tuple[int, str], list[Value]]
    text: Callable[[ts.Node], str]
    lookup: Callable[[_Scope, str], tuple[_Name | None, _Scope | None]]
    symbol_of: Callable[[ts.Node, _Scope], tuple[str, str, str] | None]
    method_scope: Callable[[_Scope], _Scope | None]

    def describe(self, flow: Flow) -> str:
        if flow.verbatim or flow.node is None:
            return flow.label
        return self.how(flow.label, flow.node, flow.words)

    def how(self, name: str, node: ts.Node, words: str = "") -> str:
        snippet = " ".join(self.text(node).split())
        if len(snippet) > 40:
            snippet = snippet[:37] + "..."
        return f"{name} = {snippet} ({words or f'line {node.start_point[0] + 1}'})"

    def values(self, node: ts.Node, scope: _Scope, depth: int = 0) -> list[Value]:
        """What an expression may evaluate to, as chains; [] when unknown."""
        if depth > MAX_DEPTH:
            return []
        t = node.type
        if t == "identifier":
            return self.name_values(self.text(node), scope, depth)
        if t == "attribute":
            obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
            if obj is None or attr is None:
                return []
            name = self.text(attr)
            return self.extend(self.values(obj, scope, depth + 1), lambda c: chains.attr(c, name))
        if t == "call":
            fn = node.child_by_field_name("function")
            if fn is None or (fn.type == "identifier" and self.text(fn) == "super"):
                return []
            return self.extend(self.values(fn, scope, depth + 1), chains.call)
        if t in ("parenthesized_expression", "await"):
            inner = node.named_children
            return self.values(inner[0], scope, depth + 1) if len(inner) == 1 else []
        if t == "conditional_expression":  # a if c else b
            kids = node.named_children
            if len(kids) != 3:
                return []
            return self.cap(
                self.values(kids[0], scope, depth + 1) + self.values(kids[2], scope, depth + 1)
            )
        if t == "boolean_operator":  # a or b
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                return []
            return self.cap(
                self.values(left, scope, depth + 1) + self.values(right, scope, depth + 1)
            )
        if t == "subscript":
            return self.item_values(node, scope, depth)
        return []

    def extend(self, found: list[Value], step: Callable[[str], str | None]) -> list[Value]:
        out = []
        for v in found:
            chain = step(v.chain)
            if chain is not None and chains.length(chain) <= chains.MAX_STEPS:
                out.append(Value(v.path, chain, v.how))
        return out

    def cap(self, found: list[Value]) -> list[Value]:
        unique = list(dict.fromkeys(found))
        return unique if len(unique) <= MAX_VALUES else []

    def name_values(self, name: str, scope: _Scope, depth: int) -> list[Value]:
        bound, where = self.lookup(scope, name)
        method = self.method_scope(scope)
        if (
            method is not None
            and method.cls is not None
            and where is method
            and name == method.receiver
        ):
            if method.is_classmethod:
                return [Value(self.path, method.cls, f"{name} is the class {method.cls}")]
            return [Value(self.path, method.cls + chains.CALL, f"{name} is a {method.cls}")]
        if bound is None or where is None:
            return []
        if bound.what == "def":
            return [Value(self.path, bound.qualname, "")]
        if bound.what == "import":
            return [Value(bound.path, bound.qualname, "")] if bound.path else []
        if bound.what == "module":
            return [Value(bound.path, "", "")] if bound.path else []
        key = (id(where), name)
        if key in self.memo:  # also ends a cycle (`a = b`, `b = a`): [] while in progress
            return self.memo[key]
        self.memo[key] = []
        out: list[Value] = []
        if bound.what == "typed" and bound.type_node is not None:
            typed = self.symbol_of(bound.type_node, bound.type_scope or where)
            if typed is not None:
                self.memo[key] = [
                    Value(typed[0], typed[1] + chains.CALL, f"{name} is a {typed[1]}")
                ]
                return self.memo[key]
        flows = where.flows.get(name, [])
        if len(flows) > MAX_VALUES:
            return []
        # an annotation that names a class is the name's type, as a type
        # checker reads it (`x: Base = make()`): its other values are not followed
        for group in ([f for f in flows if f.declared], [f for f in flows if not f.declared]):
            for flow in group:
                out.extend(
                    Value(v.path, v.chain, v.how or self.describe(flow))
                    for v in self.flow_values(flow, depth + 1)
                )
            if out:
                break
        self.memo[key] = self.cap(out)
        return self.memo[key]

    def flow_values(self, flow: Flow, depth: int) -> list[Value]:
        if flow.value is not None:
            return [flow.value]
        if flow.node is None or flow.scope is None or depth > MAX_DEPTH:
            return []
        if flow.step == "iter":  # for f in (a, b): an element of a literal sequence
            return self.elements(flow.node, flow.scope, depth)
        if flow.step == "instance":  # an annotation or an `except` class
            typed = self.symbol_of(flow.node, flow.scope)
            if typed is None:
                return []
            return [Value(typed[0], typed[1] + chains.CALL, "")]
        found = self.values(flow.node, flow.scope, depth)
        if flow.step == "enter":  # with X() as x: what X().__enter__() returns
            return self.extend(found, lambda c: chains.call(chains.attr(c, "__enter__")))
        return found

    def elements(self, node: ts.Node, scope: _Scope, depth: int) -> list[Value]:
        """Any element of a literal sequence, or of a name bound to one."""
        out: list[Value] = []
        if node.type in ("list", "tuple", "set"):
            for element in node.named_children:
                out.extend(self.values(element, scope, depth + 1))
        elif node.type == "identifier" and depth <= MAX_DEPTH:
            name = self.text(node)
            _bound, where = self.lookup(scope, name)
            flows = where.flows.get(name, []) if where is not None else []
            for flow in flows[: MAX_VALUES + 1]:
                if flow.node is not None and flow.scope is not None and not flow.step:
                    out.extend(self.elements(flow.node, flow.scope, depth + 1))
        return self.cap(out)

    def item_values(self, node: ts.Node, scope: _Scope, depth: int) -> list[Value]:
        """``d["k"]`` and ``xs[0]`` of a name bound to a literal container,
        or whose items were set with literal keys (``d["k"] = f``)."""
        base, key = node.child_by_field_name("value"), node.child_by_field_name("subscript")
        if base is None or key is None or base.type != "identifier":
            return []
        wanted = literal(key, self.text)
        if wanted is None:
            return []
        name = self.text(base)
        _bound, where = self.lookup(scope, name)
        if where is None:
            return []
        out: list[Value] = []
        for flow in where.items.get(name, {}).get(wanted, []):
            out.extend(self.flow_values(flow, depth + 1))
        for flow in where.flows.get(name, []):
            container = flow.node
            if container is None or flow.scope is None or flow.step:
                continue
            if container.type == "dictionary":
                for pair in container.named_children:
                    k, v = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                    if k is not None and v is not None and literal(k, self.text) == wanted:
                        out.extend(self.values(v, flow.scope, depth + 1))
            elif container.type in ("list", "tuple") and wanted.lstrip("-").isdigit():
                elements = container.named_children
                i = int(wanted)
                if -len(elements) <= i < len(elements):
                    out.extend(self.values(elements[i], flow.scope, depth + 1))
        return self.cap(out)


def literal(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """A literal key as one canonical string: ``"k"`` and ``'k'`` are the same."""
    if node.type == "integer":
        return text(node)
    if node.type == "unary_operator" and text(node).replace(" ", "").lstrip("-").isdigit():
        return text(node).replace(" ", "")  # xs[-1]
    if node.type == "string":
        parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
        if all(c.type == "string_content" for c in parts):
            return "s:" + "".join(text(c) for c in parts)
    return None


def last_name(chain: str) -> str:
    """The name a chain's reference row is filed under: its last attribute,
    or ``()`` when it ends in a call (the callee is a returned value, whose
    name only the linker learns)."""
    if chain.endswith(chains.CALL):
        return chains.CALL
    return chain.rsplit(".", 1)[-1]
