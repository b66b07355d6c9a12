"""C++ names a call sees beyond its scopes: ``using`` lines and the declared
class of a receiver, found per file as indexer/bind_c.py finds the calls.

Pure and per file: what a file says is carried on its own call rows (after
``; using`` in the via, or as the receiver's type in the claim), and the
linker (freshindex/query/link_c.py) reads them there.
"""

from __future__ import annotations

import bisect
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


_DECLARED_NAMES = """
(parameter_declaration type: (_) @type declarator: (_) @declarator)
(optional_parameter_declaration type: (_) @type declarator: (_) @declarator)
(declaration type: (_) @type declarator: (_) @declarator)
(for_range_loop type: (_) @type declarator: (_) @declarator)
"""


@functools.cache
def _declared_query(language: ts.Language) -> ts.Query:
    return ts.Query(language, _DECLARED_NAMES)


class Receivers:
    """The declared class of a C++ function's parameters and locals, for
    ``r.save()`` and ``p->save()``: ``Repo& r``, ``const app::Repo* p``,
    ``Repo local;``, ``for (Repo& e : v)``. A type that is a template
    (``std::vector<Repo>``), ``auto`` or a builtin names no class here."""

    def __init__(self, language: ts.Language, text: Callable[[ts.Node], str]):
        self.query = _declared_query(language)
        self.text = text
        # per function (its start byte): name -> [(declared at, type)], in order
        self._tables: dict[int, dict[str, list[tuple[int, str]]]] = {}

    def type_of(self, member: ts.Node) -> str | None:
        """The class a ``field_expression``'s object was declared with last
        before it, in the function that holds it, as written (``app::Repo``)."""
        obj = member.child_by_field_name("argument")
        if obj is None or obj.type != "identifier":
            return None
        function = member.parent
        while function is not None and function.type != "function_definition":
            function = function.parent
        if function is None:
            return None
        table = self._tables.get(function.start_byte)
        if table is None:
            table = self._tables[function.start_byte] = self._declared(function)
        declared = table.get(self.text(obj))
        if not declared:
            return None
        # the last declaration before the call (a function may redeclare a name
        # in many blocks: a search, not a scan)
        k = bisect.bisect_left(declared, (member.start_byte, ""))
        return declared[k - 1][1] if k else None

    def _declared(self, function: ts.Node) -> dict[str, list[tuple[int, str]]]:
        cursor = ts.QueryCursor(self.query)
        table: dict[str, list[tuple[int, str]]] = {}
        for _pattern, caps in cursor.matches(function):
            kind, declarator = caps["type"][0], caps["declarator"][0]
            if kind.type not in ("type_identifier", "qualified_identifier"):
                continue
            written = self.text(kind)
            if "<" in written:  # a template's argument is not the receiver's class
                continue
            name = _declared_name(declarator)
            if name is not None:
                table.setdefault(self.text(name), []).append((declarator.start_byte, written))
        for entries in table.values():
            entries.sort()
        return table


def _declared_name(declarator: ts.Node) -> ts.Node | None:
    """The identifier a declarator declares (``*p``, ``&r``, ``x = 1``); None
    for a function's declarator (a prototype), an array or anything else."""
    node: ts.Node | None = declarator
    for _ in range(8):
        if node is None or node.type == "identifier":
            return node
        if node.type not in ("pointer_declarator", "reference_declarator", "init_declarator"):
            return None
        inner = node.child_by_field_name("declarator")
        if inner is None and node.named_children:  # `&r`: no field name
            inner = node.named_children[-1]
        node = inner
    return None
