"""Go references: what one file's rules can claim about ``pkg.F`` and ``F``.

Go resolves names by package, and a package is a folder: ``store.Open()``
names ``Open`` in whichever file of the imported package's folder defines
it, and a bare ``helper()`` names a package-level ``helper`` in any file of
this file's own folder. One file cannot know which file that is (nor
should it: an edit to a sibling would have to rewrite this file's rows), so
the claim is (a file of the package, the name), and the linker looks the
name up across the package's files when the index is read
(freshindex/query/link.py, ``package_files``).

A method's receiver has a known type: ``func (c *Command) Run() { c.Flags() }``
names ``Command.Flags``, in any file of the package (or, through an
embedded struct of a ``Command`` declared in the same file, the embedded
type's method).

What stays a candidate, never a guess:
- a name declared inside the enclosing function (a parameter, ``:=``,
  ``var``, ``range``, a type switch's alias): ``f := load; f()`` names no
  package-level ``f``, and a local that shadows an import's name hides the
  package (``store := db.Store(); store.Open()``);
- a member of anything that is not an imported package (``s.Save()``: the
  receiver's type would take inference);
- a package whose import path is not a folder of the repository:
  ``external``; so are the predeclared names (``len``, ``error``, ``int``...)
  unless the package declares its own (``func max`` in a sibling file): that
  is decided when linking too, the claim says "predeclared".

Pure and per file, like the rest of the indexer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter as ts

PREDECLARED = frozenset(
    {
        # functions
        "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len",
        "make", "max", "min", "new", "panic", "print", "println", "real", "recover",
        # types (a conversion is a call)
        "any", "bool", "byte", "comparable", "complex64", "complex128", "error",
        "float32", "float64", "int", "int8", "int16", "int32", "int64", "rune",
        "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
        # constants
        "true", "false", "iota", "nil",
    }
)  # fmt: skip

# the claim of a predeclared name: the linker makes it external unless the
# package declares the name itself
PREDECLARED_VIA = "predeclared in Go, unless its package declares it"

_FUNCTIONS = ("function_declaration", "method_declaration")
# node types whose `name` children declare names in the function's scope
_NAMED_DECLARATIONS = (
    "parameter_declaration",
    "variadic_parameter_declaration",
    "var_spec",
    "const_spec",
)
# node types whose `left` (or `alias`) expression list declares names
_LEFT_DECLARATIONS = {
    "short_var_declaration": "left",
    "range_clause": "left",
    "receive_statement": "left",
    "type_switch_statement": "alias",
}


@dataclass(frozen=True)
class Claim:
    """What a Go reference names: ``package`` is the import path of the
    package for ``pkg.F`` (None: this file's own package)."""

    package: str | None
    qualifier: str = ""  # the import's local name in pkg.F, or the receiver's name
    predeclared: bool = False  # a predeclared name: external unless the package has one
    receiver_type: str = ""  # a member of the method's receiver: its type's name


@dataclass(frozen=True)
class _Function:
    declared: frozenset[str]  # names declared in it, the receiver excluded
    receiver: tuple[str, str] | None  # a method's (receiver name, its type's name)


class GoScopes:
    """Names declared inside each function of one file, computed once per function."""

    def __init__(self, text: Callable[[ts.Node], str]):
        self._text = text
        self._functions: dict[int, _Function] = {}

    def shadowed(self, node: ts.Node, name: str) -> bool:
        """Whether ``name`` is declared in the function holding ``node``
        (anywhere in it, closures included: conservative), its receiver too."""
        f = self._function(node)
        return f is not None and (
            name in f.declared or (f.receiver is not None and f.receiver[0] == name)
        )

    def receiver_type(self, node: ts.Node, name: str) -> str | None:
        """The type of the receiver ``name`` names where ``node`` is, if it does."""
        f = self._function(node)
        if f is None or f.receiver is None or f.receiver[0] != name or name in f.declared:
            return None
        return f.receiver[1]

    def _function(self, node: ts.Node) -> _Function | None:
        outer = None
        walk = node.parent
        while walk is not None:
            if walk.type in _FUNCTIONS or walk.type == "func_literal":
                outer = walk
            walk = walk.parent
        if outer is None:
            return None
        found = self._functions.get(outer.start_byte)
        if found is None:
            found = self._functions[outer.start_byte] = self._collect(outer)
        return found

    def _collect(self, function: ts.Node) -> _Function:
        names: set[str] = set()
        receiver = None
        stack = [function]
        if function.type == "method_declaration":
            node = function.child_by_field_name("receiver")
            receiver = _receiver(node, self._text) if node is not None else None
            stack = [c for c in function.named_children if c != node]
        while stack:
            node = stack.pop()
            if node.type in _NAMED_DECLARATIONS:
                names.update(self._text(n) for n in node.children_by_field_name("name"))
            elif node.type in _LEFT_DECLARATIONS:
                left = node.child_by_field_name(_LEFT_DECLARATIONS[node.type])
                if left is not None:
                    names.update(
                        self._text(n) for n in _identifiers(left) if n.type == "identifier"
                    )
            stack.extend(node.named_children)
        return _Function(frozenset(names), receiver)


def receiver_type_name(method: ts.Node, text: Callable[[ts.Node], str]) -> str:
    """A method declaration's receiver type (``T`` of ``(s *T)``, ``(T)``,
    ``(s T[K])``): its container."""
    node = method.child_by_field_name("receiver")
    found = _receiver(node, text) if node is not None else None
    return found[1] if found else ""


def _receiver(params: ts.Node, text: Callable[[ts.Node], str]) -> tuple[str, str] | None:
    """(name, type name) of a receiver parameter list; name "" when unnamed."""
    for decl in params.named_children:
        if decl.type != "parameter_declaration":
            continue
        names = decl.children_by_field_name("name")
        todo = [decl.child_by_field_name("type")]
        while todo:
            n = todo.pop(0)
            if n is None:
                continue
            if n.type == "type_identifier":
                return (text(names[0]) if names else ""), text(n)
            todo.extend(n.named_children)
    return None


def _identifiers(node: ts.Node) -> list[ts.Node]:
    if node.type == "identifier":
        return [node]
    return [c for c in node.named_children if c.type == "identifier"]


def claim(
    name_node: ts.Node,
    imports: dict[str, str],
    scopes: GoScopes,
    text: Callable[[ts.Node], str],
) -> Claim | None:
    """A Claim for a reference this file's rules can bind, None for a
    candidate. ``imports``: local package name -> import path."""
    parent = name_node.parent
    name = text(name_node)
    if parent is not None and parent.type in ("selector_expression", "qualified_type"):
        field = "field" if parent.type == "selector_expression" else "name"
        if parent.child_by_field_name(field) != name_node:
            return _bare(name_node, name, scopes)  # the operand itself: `x` of `x.f`
        operand = parent.child_by_field_name(
            "operand" if parent.type == "selector_expression" else "package"
        )
        if operand is None or operand.type not in ("identifier", "package_identifier"):
            return None  # a member of an expression: its type would take inference
        local = text(operand)
        receiver = scopes.receiver_type(operand, local) if parent.type != "qualified_type" else None
        if receiver:
            return Claim(None, local, receiver_type=receiver)
        if local not in imports or scopes.shadowed(operand, local):
            return None  # a variable's member, or a local hiding the package
        return Claim(imports[local], local)
    return _bare(name_node, name, scopes)


def _bare(name_node: ts.Node, name: str, scopes: GoScopes) -> Claim | None:
    if scopes.shadowed(name_node, name):
        return None
    return Claim(None, predeclared=name in PREDECLARED)
