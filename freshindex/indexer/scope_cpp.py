"""C++ names a call sees beyond its scopes: ``using`` lines, found per file
as indexer/bind_c.py finds the calls.

Pure and per file: what a file says is carried on its own call rows (after
``; using`` in the via), and the linker (freshindex/query/link_c.py) reads
them there. The declared class of a receiver is indexer/receivers_cpp.py's.

Last, whether a ``.h`` struct is C++'s (``cpp_only``): a header may be C.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import tree_sitter as ts

# what C++ `using` puts in sight of a call, after its via:
# "...; using namespace app::detail, lib::helper"
USING_MARK = "; using "
MAX_USINGS = 8
# a file's using lines read at most: each call scans them (a hostile file of
# 20,000 of them and as many calls must not cost minutes)
MAX_FILE_USINGS = 256


class Using(NamedTuple):
    """A C++ ``using`` and the bytes it is in force over: from its end to the
    end of the block, namespace body or file that holds it. ``words``:
    ``namespace app::detail`` (a directive) or ``lib::helper`` (a
    declaration), qualified by the namespaces the ``using`` is written in."""

    start: int
    end: int
    words: str


@functools.cache
def _using_query(language: ts.Language) -> ts.Query:
    return ts.Query(language, "(using_declaration) @using")


def usings(tree: ts.Tree, text: Callable[[ts.Node], str]) -> list[Using]:
    """Every ``using namespace X;`` and ``using X::f;`` of a C++ file (not
    ``using T = ...``, an alias), in source order."""
    found = ts.QueryCursor(_using_query(tree.language)).captures(tree.root_node).get("using", [])
    found.sort(key=lambda n: n.start_byte)
    out: list[Using] = []
    for node in found[:MAX_FILE_USINGS]:
        name = next((c for c in node.named_children), None)
        holder = node.parent
        if name is None or holder is None:
            continue
        directive = any(c.type == "namespace" for c in node.children)
        if not directive and name.type != "qualified_identifier":
            continue  # `using f;` names nothing new
        written = "".join(text(name).split())  # `a ::\n b` is a::b
        if "<" in written or "," in written:  # `using Base<T, U>::f;`: a template's member
            continue
        enclosing = []
        up: ts.Node | None = holder
        while up is not None:
            if up.type == "namespace_definition":
                ns = up.child_by_field_name("name")
                if ns is not None:
                    enclosing.append(text(ns))
            up = up.parent
        # `using namespace detail;` inside namespace app: app::detail, else detail
        for spelled in dict.fromkeys(["::".join([*reversed(enclosing), written]), written]):
            words = f"namespace {spelled}" if directive else spelled
            out.append(Using(node.end_byte, holder.end_byte, words))
    return sorted(out, key=lambda u: (u.start, u.end))  # stable: app::detail before detail


def in_sight(found: list[Using], at: int, head: str) -> list[str]:
    """The ``using`` words in force at byte ``at`` for a call whose name (or
    written first scope) is ``head``: every directive, and the declarations
    of that name."""
    out = [
        u.words
        for u in found
        if u.start <= at < u.end
        and (u.words.startswith("namespace ") or u.words.rsplit("::", 1)[-1] == head)
    ]
    return list(dict.fromkeys(out))[:MAX_USINGS]


def with_usings(via: str, found: list[Using], at: int, head: str) -> str:
    """A call's via with the ``using`` words in force at byte ``at`` after it
    (``in_sight``); the via itself when there are none."""
    words = in_sight(found, at, head) if found else []
    return f"{via}{USING_MARK}{', '.join(words)}" if words else via


def split_usings(via: str) -> tuple[str, tuple[str, ...]]:
    """A stored via and the ``using`` words it carries (with_usings' inverse)."""
    base, mark, rest = via.partition(USING_MARK)
    return base, tuple(rest.split(", ")) if mark else ()


def using_names(names: list[str], written: str, found: tuple[str, ...]) -> list[str]:
    """The names a call looks up (``outward``'s, innermost first) with what
    its ``using`` lines add: a declaration of the name first (``using
    lib::helper`` makes ``helper`` mean ``lib.helper``), the nominated
    namespaces last (``using namespace app::detail``: ``app.detail.twice``).
    ``written``: the called name, with any scope it spelled out (``detail.f``)."""
    _head, _, rest = written.partition(".")
    first, last = [], []
    for words in found:
        if words.startswith("namespace "):
            last.append(f"{words[len('namespace ') :].replace('::', '.')}.{written}")
        else:
            declared = words.replace("::", ".")
            first.append(f"{declared}.{rest}" if rest else declared)
    return list(dict.fromkeys([*first, *names, *last]))


def cpp_only(owner: ts.Node, header: bool, text: Callable[[ts.Node], str]) -> bool:
    """Whether a class's fields are worth facts: every C++ class, and a
    struct or union of a C++ source; in a ``.h`` (C or C++) one that only
    C++ could write: with a base or a method, in a namespace, a class or a
    template. Never a C struct: the kernel's headers have hundreds of
    thousands of fields no member call reads."""
    holder = owner.parent
    if holder is None or holder.type == "class_specifier" or not header:
        return True
    body = holder.child_by_field_name("body")
    if any(c.type == "base_class_clause" for c in holder.children):
        return True
    if body is not None and any(
        c.type in ("function_definition", "template_declaration")
        or (c.type == "field_declaration" and _is_method(c, text))
        for c in body.named_children
    ):
        return True
    up = holder.parent
    for _ in range(MAX_SCOPES):
        if up is None:
            return False
        if up.type in _CPP_SCOPES:
            return True
        up = up.parent
    return False


# what only C++ nests a struct in; looked for this many levels up
_CPP_SCOPES = frozenset({"namespace_definition", "class_specifier", "template_declaration"})
MAX_SCOPES = 6


def _is_method(declaration: ts.Node, text: Callable[[ts.Node], str]) -> bool:
    """A member function's declaration: not C's pointer to a function
    (``int (*probe)(struct device *);``, whose name is in parentheses), nor
    an attribute macro the grammar reads as one (``u8 priv[] __aligned(8);``)."""
    declarator = declaration.child_by_field_name("declarator")
    for _ in range(8):
        if declarator is None or declarator.type == "function_declarator":
            break
        declarator = declarator.child_by_field_name("declarator")
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    if name is None or name.type not in ("field_identifier", "operator_name", "destructor_name"):
        return False
    return not text(name).startswith("__")
