"""C++ names a call sees beyond its scopes: ``using`` lines and the declared
class of a receiver, found per file as indexer/bind_c.py finds the calls.

Pure and per file: what a file says is carried on its own call rows (after
``; using`` in the via, or as the receiver's type in the claim), and the
linker (freshindex/query/link_c.py) reads them there.
"""

from __future__ import annotations

import bisect
import functools
import re
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


# `class LEVELDB_EXPORT Slice {`: a macro between the keyword and the name
# (export, visibility and lock annotations). tree-sitter reads the macro as
# the class and the rest as a function, so every method became a top-level
# function. Two identifiers there are valid C++ only if the first is such a
# macro; one pattern per keyword, each found by its literal prefix.
_MACRO_AFTER = rb"[ \t]+([A-Za-z_]\w*)[ \t]+(?!final\b)(?=[A-Za-z_]\w*(?!\w)\s*(?:[:{]|final\b))"
_MACROS = tuple(
    re.compile(keyword + _MACRO_AFTER) for keyword in (rb"class", rb"struct", rb"union")
)


def without_class_macros(data: bytes) -> bytes:
    """``data`` with each macro written between ``class``/``struct``/``union``
    and the name blanked with spaces: the same length, so every node's bytes
    and points stay those of the file as written."""
    spans = [m.span(1) for pattern in _MACROS for m in pattern.finditer(data)]
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out)


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


_FIELDS = """
(class_specifier name: (type_identifier) @class body: (field_declaration_list
  (field_declaration type: (_) @type declarator: (_) @declarator)))
(struct_specifier name: (type_identifier) @class body: (field_declaration_list
  (field_declaration type: (_) @type declarator: (_) @declarator)))
"""


@functools.cache
def _fields_query(language: ts.Language) -> ts.Query:
    return ts.Query(language, _FIELDS)


class Receivers:
    """The declared class of a C++ function's parameters and locals, for
    ``r.save()`` and ``p->save()``: ``Repo& r``, ``const app::Repo* p``,
    ``Repo local;``, ``for (Repo& e : v)``; in a method, of its class's
    fields declared in this file (``versions_->current()``,
    ``this->db_->Get()``) and of ``this`` (``this->flush()``). A type that is
    a template (``std::vector<Repo>``), ``auto`` or a builtin names no class
    here."""

    def __init__(
        self, language: ts.Language, text: Callable[[ts.Node], str], root: ts.Node | None = None
    ):
        self.language = language
        self.query = _declared_query(language)
        self.text = text
        self.root = root
        # per function (its start byte): name -> [(declared at, type)], in order
        self._tables: dict[int, dict[str, list[tuple[int, str]]]] = {}
        # class name -> field -> its type as written, for this file's classes
        self._fields: dict[str, dict[str, str]] | None = None

    def type_of(self, member: ts.Node) -> str | None:
        """The class a ``field_expression``'s object was declared with last
        before it, in the function that holds it, as written (``app::Repo``):
        a local or parameter first, else a field of the method's class."""
        obj = member.child_by_field_name("argument")
        if obj is None or obj.type not in ("identifier", "this", "field_expression"):
            return None
        field = None
        if obj.type == "field_expression":  # this->db_
            this = obj.child_by_field_name("argument")
            name = obj.child_by_field_name("field")
            if this is None or this.type != "this" or name is None:
                return None
            field = self.text(name)
        function = member.parent
        while function is not None and function.type != "function_definition":
            function = function.parent
        if function is None:
            return None
        if obj.type == "identifier":
            table = self._tables.get(function.start_byte)
            if table is None:
                table = self._tables[function.start_byte] = self._declared(function)
            declared = table.get(self.text(obj), [])
            # the last declaration before the call (a function may redeclare a
            # name in many blocks: a search, not a scan)
            k = bisect.bisect_left(declared, (member.start_byte, ""))
            if k:
                return declared[k - 1][1]
            field = self.text(obj)
        owner = self._method_class(function)
        if owner is None:
            return None
        if field is None:  # this->flush()
            return owner
        return self.fields().get(owner.rpartition("::")[2], {}).get(field)

    def fields(self) -> dict[str, dict[str, str]]:
        """Class name -> field -> type as written, over this file's classes and
        structs; a field two same-named classes give two types is dropped."""
        if self._fields is not None:
            return self._fields
        self._fields = {}
        if self.root is None:
            return self._fields
        clash: set[tuple[str, str]] = set()
        for _pattern, caps in ts.QueryCursor(_fields_query(self.language)).matches(self.root):
            kind, declarator = caps["type"][0], caps["declarator"][0]
            written = self.text(kind)
            if kind.type not in ("type_identifier", "qualified_identifier") or "<" in written:
                continue
            name = _declared_name(declarator, "field_identifier")
            if name is None:
                continue
            cls, field = self.text(caps["class"][0]), self.text(name)
            known = self._fields.setdefault(cls, {})
            if known.get(field, written) != written:
                clash.add((cls, field))
            known[field] = written
        for cls, field in clash:
            del self._fields[cls][field]
        return self._fields

    def _method_class(self, function: ts.Node) -> str | None:
        """The class a function definition is a method of: ``Repo`` of
        ``void app::Repo::save()``, or the class whose body holds it."""
        declarator = function.child_by_field_name("declarator")
        for _ in range(8):  # `Repo* Repo::make()`, `Repo& Repo::get()`
            if declarator is None or declarator.type == "function_declarator":
                break
            declarator = declarator.child_by_field_name("declarator")
        named = declarator.child_by_field_name("declarator") if declarator is not None else None
        scope = None
        while named is not None and named.type == "qualified_identifier":
            scope, named = named.child_by_field_name("scope"), named.child_by_field_name("name")
        if scope is not None:
            written = self.text(scope)
            return written if scope.type in ("namespace_identifier", "type_identifier") else None
        body = function.parent
        owner = body.parent if body is not None and body.type == "field_declaration_list" else None
        if owner is None or owner.type not in ("class_specifier", "struct_specifier"):
            return None
        name = owner.child_by_field_name("name")
        return self.text(name) if name is not None and name.type == "type_identifier" else None

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


def _declared_name(declarator: ts.Node, kind: str = "identifier") -> ts.Node | None:
    """The identifier a declarator declares (``*p``, ``&r``, ``x = 1``); None
    for a function's declarator (a prototype), an array or anything else.
    ``kind``: the identifier's node type (``field_identifier`` in a class)."""
    node: ts.Node | None = declarator
    for _ in range(8):
        if node is None or node.type == kind:
            return node
        if node.type not in ("pointer_declarator", "reference_declarator", "init_declarator"):
            return None
        inner = node.child_by_field_name("declarator")
        if inner is None and node.named_children:  # `&r`: no field name
            inner = node.named_children[-1]
        node = inner
    return None
