"""Python's implicit calls: the special methods its syntax runs without naming them.

``for u in users`` runs ``users.__iter__()``, ``with pool as p`` runs
``pool.__enter__()`` and ``pool.__exit__()``, ``cache[k]`` runs
``cache.__getitem__(k)``, ``a + b`` runs ``a.__add__(b)`` and ``len(bag)``
runs ``bag.__len__()``. Asked what calls ``Bag.__iter__`` (what a change to
it can break), an answer without the loops over a ``Bag`` says "nothing",
which the code does not prove.

So where the value such a construct works on is an instance the binder's
value flow can follow (``b: Bag``, ``b = Bag()``, ``self.bag`` set to one, a
function's return), the construct is a call of that special method through
the value: a row filed under the method's name whose chain is the value's
(``Bag().__iter__``), linked when the index is read like ``b.__iter__()``
would be, base classes and overriding subclasses included. A value the flow
cannot follow gives no row: every loop of the repository as a name match of
each ``__iter__`` would bury the ones that matter. A class itself (``for c
in Color``) is left out too: its metaclass's method runs, not the class's.

The rows' via ends with IMPLICITLY, and ``refs`` keeps one only where it
links to a definition asked about (freshindex/query/references.py): a
``Bag`` that leaves ``__eq__`` to ``object`` makes ``a == b`` no candidate
of every other class's ``__eq__``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat

import tree_sitter as ts

from freshindex.indexer import chains
from freshindex.indexer.flow_python import Value
from freshindex.indexer.scope_python import BOUND, Name, Scope, Site

# the end of an implicit call's via, as the binder writes it
IMPLICITLY = " implicitly"

# binary operators: the left operand's method (the reflected `__radd__` of
# the right one runs only when the left's gives up, which the rows cannot see)
BINARY = {
    "+": "__add__",
    "-": "__sub__",
    "*": "__mul__",
    "@": "__matmul__",
    "/": "__truediv__",
    "//": "__floordiv__",
    "%": "__mod__",
    "**": "__pow__",
    "<<": "__lshift__",
    ">>": "__rshift__",
    "&": "__and__",
    "|": "__or__",
    "^": "__xor__",
}
UNARY = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}
# comparisons: the left operand's; `in` and `not in`: the right one's
COMPARISONS = {
    "==": "__eq__",
    "!=": "__ne__",
    "<": "__lt__",
    "<=": "__le__",
    ">": "__gt__",
    ">=": "__ge__",
}
CONTAINS = ("in", "not in")
# builtins that call a special method of their first argument
SPECIAL_BUILTINS = {
    "len": "__len__",
    "iter": "__iter__",
    "next": "__next__",
    "reversed": "__reversed__",
    "hash": "__hash__",
    "abs": "__abs__",
    "bool": "__bool__",
    "repr": "__repr__",
    "str": "__str__",
    "format": "__format__",
    "aiter": "__aiter__",
    "anext": "__anext__",
}
LONGEST_BUILTIN = max(map(len, SPECIAL_BUILTINS))
# the operands worth a value: a name, an attribute, a call, a subscript
# (`-1`, `"a" + s` and `[x] * n` hold no instance of the repository's)
OPERANDS = frozenset({"identifier", "attribute", "call", "subscript"})


# the nodes ImplicitCalls.protocol() reads (the binder's walk sends them)
SYNTAX_NODES = frozenset(
    {
        "subscript",
        "comparison_operator",
        "binary_operator",
        "unary_operator",
        "delete_statement",
        "with_statement",
    }
)


@dataclass(frozen=True, slots=True)
class Implicit:
    """A construct's implicit call, kept until the file's names are all bound:
    the expression whose value it is made on, the method (or a method of
    what one returns, ``__iter__().__next__``), the construct in words, and
    the builtin that makes it (its name must not be the file's)."""

    node: ts.Node
    scope: Scope
    method: str
    construct: str
    builtin: str


Todo = list[tuple[ts.Node, Scope]]


class ImplicitCalls:
    """The half of the binder that finds implicit calls, mixed into it; the
    binder supplies the walk's scopes, names and values."""

    implicit: list[Implicit]
    sites: list[Site]
    text: Callable[[ts.Node], str]
    lookup: Callable[[Scope, str], tuple[Name | None, Scope | None]]
    values: Callable[..., list[Value]]

    def implicit_call(
        self, node: ts.Node | None, scope: Scope, method: str, construct: str, builtin: str = ""
    ) -> None:
        if node is not None and node.type in OPERANDS:
            self.implicit.append(Implicit(node, scope, method, construct, builtin))

    def iterates(self, loop: ts.Node, iterable: ts.Node, scope: Scope, construct: str) -> None:
        """``for x in xs`` (a statement or a comprehension's clause)."""
        words = f"async {construct.split()[-1]}" if is_async(loop) else construct
        first, then = ("__aiter__", "__anext__") if is_async(loop) else ("__iter__", "__next__")
        self.implicit_call(iterable, scope, first, words)
        # then each step: the __next__ of what __iter__ returned (itself, often)
        self.implicit_call(iterable, scope, f"{first}{chains.CALL}.{then}", words)

    def builtin_call(self, call: ts.Node, fn: ts.Node, scope: Scope, method: str) -> None:
        """``len(bag)``: the first argument's ``__len__``."""
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_child_count else None
        name = self.text(fn)
        self.implicit_call(first, scope, method, f"{name}()", builtin=name)

    def protocol(self, node: ts.Node, scope: Scope, todo: Todo) -> None:
        """One node of SYNTAX_NODES: its implicit calls, then its children as the
        walk reads any node's."""
        t = node.type
        children = node.named_children
        if t == "subscript":
            self.implicit_call(
                node.child_by_field_name("value"), scope, "__getitem__", "subscripting"
            )
        elif t == "comparison_operator":
            for i, op in enumerate(node.children_by_field_name("operators")[: len(children) - 1]):
                o = op.type
                if o in CONTAINS:
                    self.implicit_call(children[i + 1], scope, "__contains__", f"`{o}`")
                elif o in COMPARISONS:
                    self.implicit_call(children[i], scope, COMPARISONS[o], f"`{o}`")
                if o == "!=":  # object's __ne__ asks __eq__: a class rarely has both
                    self.implicit_call(children[i], scope, "__eq__", "`!=` (object's __ne__)")
        elif t == "binary_operator":  # `a + b`: a's
            self.operator(node, scope, BINARY, "left", "`{}`")
        elif t == "unary_operator":  # `-a`
            self.operator(node, scope, UNARY, "argument", "unary `{}`")
        elif t == "delete_statement":  # `del d[k]`: d.__delitem__, reads d and k
            targets = [
                n
                for c in children
                for n in (c.named_children if c.type == "expression_list" else [c])
            ]
            children = []
            for n in targets:
                if n.type == "subscript":
                    self.implicit_call(n.child_by_field_name("value"), scope, "__delitem__", "del")
                    children.extend(n.named_children)
                else:
                    children.append(n)
        elif t == "with_statement":
            words = "async with" if is_async(node) else "with"
            enter, leave = (
                ("__aenter__", "__aexit__") if words == "async with" else ("__enter__", "__exit__")
            )
            for clause in children:
                for item in clause.named_children if clause.type == "with_clause" else ():
                    value = item.child_by_field_name("value")
                    if value is not None and value.type == "as_pattern" and value.named_child_count:
                        value = value.named_children[0]
                    self.implicit_call(value, scope, enter, words)
                    self.implicit_call(value, scope, leave, words)
        todo.extend(zip(reversed(children), repeat(scope)))

    def operator(
        self, node: ts.Node, scope: Scope, methods: dict[str, str], operand: str, words: str
    ) -> None:
        """An operator's method (``methods[op]``) on its ``operand`` field."""
        op = node.child_by_field_name("operator")
        method = methods.get(op.type) if op is not None else None
        if op is not None and method is not None:
            words = words.format(op.type)
            self.implicit_call(node.child_by_field_name(operand), scope, method, words)

    def implicit_sites(self, i: Implicit) -> None:
        """A row per instance the value may be, once the file's names are bound."""
        if i.builtin and self.lookup(i.scope, i.builtin)[0] is not None:
            return  # a function of the file's own of a builtin's name
        # a method, or a method of what one returns (`__iter__().__next__`)
        *calls, method = i.method.split(f"{chains.CALL}.")
        for v in self.values(i.node, i.scope):
            if chains.CALL not in v.chain:
                continue  # the module, a class or a function itself
            chain = v.chain
            for step in calls:
                chain = chains.attr(chain, step) + chains.CALL
            chain = chains.attr(chain, method)
            if not chain or chains.length(chain) > chains.MAX_STEPS:
                continue
            self.sites.append(
                Site(
                    i.node,
                    "call",
                    path=v.path,
                    qualname=chain,
                    binding=BOUND,
                    via=via(
                        v.how or f"through {chains.one_line(self.text(i.node))}",
                        i.construct,
                        method,
                    ),
                    name=method,
                )
            )


def is_async(node: ts.Node) -> bool:
    """``async for``, ``async with``: the statement's first token."""
    first = node.child(0)
    return first is not None and first.type == "async"


def via(how: str, construct: str, method: str) -> str:
    """``b is a Bag; a for loop calls __iter__ implicitly``."""
    return f"{how}; {construct} calls {method}{IMPLICITLY}"


def is_implicit(via_text: str) -> bool:
    return via_text.endswith(IMPLICITLY)
