"""The declared class of a C++ member call's receiver, found per file as
indexer/bind_c.py finds the calls, and the declared class of each field of
the file's classes (``value`` rows).

``r.save()`` on ``Repo& r`` claims ``Repo::save`` (bind_c.RECEIVER_VIA).
``versions_->current()`` in ``DBImpl::Get``, where ``versions_`` is declared
in db_impl.h, claims ``DBImpl::versions_, then current`` (bind_c.FIELD_VIA):
the linker (freshindex/query/link_c.py) reads the field's type from the
header's ``value`` row when the index is read, so an edit to the header
re-links its callers without parsing them again.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from typing import NamedTuple

import tree_sitter as ts

from freshindex.indexer import pointers_cpp, scope_cpp
from freshindex.indexer.schema import EdgeRow, value_row

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
(union_specifier name: (type_identifier) @class body: (field_declaration_list
  (field_declaration type: (_) @type declarator: (_) @declarator)))
"""

_RECORD_TYPES = ("struct_specifier", "class_specifier", "union_specifier")
# a type written as a name (`Repo`, `app::Repo`, `std::unique_ptr<Repo>`)
_NAMED_TYPES = ("type_identifier", "qualified_identifier", "template_type")
# a step of a receiver that calls a member: `current()` of `versions_->current()->Ref()`
CALLED = "()"
# `auto` locals followed through their initializers at most this deep
MAX_AUTO = 3
# a receiver read through at most this many fields and calls (`r->rep.filter->Add()`)
MAX_FIELDS = 4

# googletest's test macros whose first argument is the fixture class: the
# body is a method of a class derived from it (TEST_F(DBTest, Empty) {...})
GTEST_FIXTURES = frozenset({"TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"})


class Field(NamedTuple):
    """A field of a class declared in this file: ``VersionSet* versions_;``
    in ``class DBImpl``. ``written``: its type as written (``VersionSet``)."""

    owner: ts.Node  # the class's name
    name: ts.Node
    written: str


def fixture(function: ts.Node, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The fixture class of a googletest ``TEST_F(Fixture, Name) {...}``
    (its first argument, as the parser reads it: a parameter's type); None
    for any other function."""
    declarator = function.child_by_field_name("declarator")
    if declarator is None or declarator.type != "function_declarator":
        return None
    name = declarator.child_by_field_name("declarator")
    if name is None or name.type != "identifier" or text(name) not in GTEST_FIXTURES:
        return None
    parameters = declarator.child_by_field_name("parameters")
    first = parameters.named_children[0] if parameters and parameters.named_children else None
    written = first.child_by_field_name("type") if first is not None else None
    if written is None or written.type not in ("type_identifier", "qualified_identifier"):
        return None
    return written


@functools.cache
def _fields_query(language: ts.Language) -> ts.Query:
    return ts.Query(language, _FIELDS)


class Receivers:
    """The declared class of a C++ function's parameters and locals, for
    ``r.save()`` and ``p->save()``: ``Repo& r``, ``const app::Repo* p``,
    ``Repo local;``, ``for (Repo& e : v)``; in a method (or a googletest
    TEST_F body: its fixture's), of its class's fields and of ``this``
    (``versions_->current()``, ``this->db_->Get()``, ``this->flush()``).
    A type that is a template (``std::vector<Repo>``), ``auto`` or a builtin
    names no class here."""

    def __init__(
        self, language: ts.Language, text: Callable[[ts.Node], str], root: ts.Node | None = None
    ):
        self.language = language
        self.query = _declared_query(language)
        self.text = text
        self.root = root
        # per function (its start byte): name -> [(declared at, type)], in order
        self._tables: dict[int, dict[str, list[tuple[int, str]]]] = {}
        # an `auto` local's initializer, by where it is declared
        self._inits: dict[int, ts.Node] = {}
        # class name -> field -> its type as written, for this file's classes
        self._fields: dict[str, dict[str, str]] | None = None
        self._declared_fields: list[Field] | None = None

    def receiver(self, member: ts.Node) -> tuple[str, tuple[str, ...]] | None:
        """The class a ``field_expression``'s object starts from, as written
        (``app::Repo``), and the steps taken from it that this file does not
        resolve: fields read (``versions_``) and members called
        (``current()``). It starts from a local or parameter declared last
        before the call (an ``auto`` one: from what initialised it), else
        the method's class (a field, or a member called bare:
        ``current()->Ref()``), else a class written before a call
        (``Env::Default()->NewFile()``). ``(DBImpl, ("versions_",))`` for
        ``versions_->current()`` in ``DBImpl::Get`` when ``versions_`` is
        declared in db_impl.h; ``("VersionSet", ())`` once it is known
        here."""
        found = self._value(member.child_by_field_name("argument"), member, 0)
        if found is None:
            return None
        name = member.child_by_field_name("field")
        called = self.text(name) if name is not None else ""
        arrow = pointers_cpp.written_arrow(member, self.text)
        cls, steps = pointers_cpp.through_pointer(*found, called, arrow)
        while steps and not steps[0].endswith(CALLED):  # fields this file declares
            typed = self.fields().get(cls.rpartition("::")[2], {}).get(steps[0])
            if typed is None:
                break
            cls, steps = pointers_cpp.through_pointer(typed, steps[1:], called, arrow)
        return cls, steps

    def _value(
        self, obj: ts.Node | None, at: ts.Node, depth: int
    ) -> tuple[str, tuple[str, ...]] | None:
        """``receiver``'s reading of an expression ``obj`` written at ``at``:
        the class it starts from and the steps from there."""
        steps: list[str] = []  # innermost last, until reversed
        written: str | None = None  # `Env` of `Env::Default()->...`
        while obj is not None and obj.type in ("field_expression", "call_expression"):
            if len(steps) >= MAX_FIELDS:
                return None
            if obj.type == "field_expression":
                name = obj.child_by_field_name("field")
                if name is None or name.type != "field_identifier":
                    return None
                steps.append(self.text(name))
                obj = obj.child_by_field_name("argument")
                continue
            called = obj.child_by_field_name("function")
            if called is not None and called.type == "field_expression":  # x.f()->g()
                name = called.child_by_field_name("field")
                if name is None or name.type != "field_identifier":
                    return None
                steps.append(self.text(name) + CALLED)
                obj = called.child_by_field_name("argument")
            elif called is not None and called.type == "identifier":  # f()->g() in a method
                steps.append(self.text(called) + CALLED)
                obj = None
            elif called is not None and called.type == "qualified_identifier":
                scope, name = (
                    called.child_by_field_name("scope"),
                    called.child_by_field_name("name"),
                )
                if scope is None or name is None:
                    return None
                made = pointers_cpp.made(name, self.text) if not steps else None
                if made is not None:  # std::make_unique<Repo>(...)
                    return made, ()
                if name.type != "identifier":
                    return None
                if scope.type not in ("namespace_identifier", "type_identifier"):
                    return None
                steps.append(self.text(name) + CALLED)
                written, obj = self.text(scope), None
            else:
                return None
        if obj is not None and obj.type == "new_expression":  # (new Repo(...))->save()
            kind = obj.child_by_field_name("type")
            if kind is None or kind.type not in ("type_identifier", "qualified_identifier"):
                return None
            written, obj = self.text(kind), None
        if obj is not None and obj.type not in ("identifier", "this"):
            return None
        steps.reverse()
        if written is not None:
            return written, tuple(steps)
        function = at.parent
        while function is not None and function.type != "function_definition":
            function = function.parent
        if function is None:
            return None
        if obj is not None and obj.type == "identifier":
            table = self._tables.get(function.start_byte)
            if table is None:
                table = self._tables[function.start_byte] = self._declared(function)
            declared = table.get(self.text(obj), [])
            # the last declaration before the call (a function may redeclare a
            # name in many blocks: a search, not a scan)
            k = bisect.bisect_left(declared, (at.start_byte, ""))
            if k:
                start, cls = declared[k - 1]
                if cls:
                    return cls, tuple(steps)
                init = self._inits.get(start)  # `auto v = versions_->current();`
                if init is None or depth >= MAX_AUTO:
                    return None  # a type that names no class here
                found = self._value(init, init, depth + 1)
                return (found[0], (*found[1], *steps)) if found is not None else None
            steps.insert(0, self.text(obj))
        owner = self._method_class(function)
        return (owner, tuple(steps)) if owner is not None else None

    def declared_fields(self) -> list[Field]:
        """Every field of this file's classes, structs and unions whose type
        is a class as written (not a template, a builtin or a pointer to a
        function), in source order."""
        if self._declared_fields is not None:
            return self._declared_fields
        self._declared_fields = []
        if self.root is None:
            return self._declared_fields
        for _pattern, caps in ts.QueryCursor(_fields_query(self.language)).matches(self.root):
            kind: ts.Node | None = caps["type"][0]
            declarator = caps["declarator"][0]
            if kind is not None and kind.type in _RECORD_TYPES:
                # `struct Holder {...} holder_;`, `struct stat st_;`: the named one
                kind = kind.child_by_field_name("name")
            if kind is None or kind.type not in _NAMED_TYPES:
                continue
            written = "".join(self.text(kind).split())
            if "<" in written and pointers_cpp.pointee(written) is None:
                continue
            name = _declared_name(declarator, "field_identifier")
            if name is not None:
                self._declared_fields.append(Field(caps["class"][0], name, written))
        return self._declared_fields

    def member_facts(
        self,
        path: str,
        records: list[tuple[ts.Node, str]],
        methods: list[tuple[ts.Node, ts.Node, str, ts.Node]],
    ) -> list[EdgeRow]:
        """What the members of this file's C++ classes hold, as ``value``
        rows the linker reads for calls through them from other files (no
        answer lists them): each field's declared class (holder
        ``leveldb.DBImpl.versions_``, ``target_qualname`` ``VersionSet``) and
        each method's returned class (holder ``leveldb.VersionSet.current()``,
        ``Version``), as written, ``::`` read as ``.``; a pointer or reference
        is the class it points to. ``records``: each class or struct of the
        file, its name node and its qualname; ``methods``: each function its
        body declares or defines, its node, name node, qualname and its
        class's name node."""
        header = path.endswith(".h")
        classes = {
            name.start_byte: qualname
            for name, qualname in records
            if scope_cpp.cpp_only(name, header, self.text)
        }
        if not classes:  # a C header's structs: nothing looked for
            return []
        out = []
        for f in self.declared_fields():
            owner = classes.get(f.owner.start_byte)
            if owner is not None:
                holder = f"{owner}.{self.text(f.name)}"
                out.append(self._fact(path, holder, f.name, f.written, "a field declared as"))
        for node, name, qualname, owner_name in methods:
            kind = node.child_by_field_name("type")
            if owner_name.start_byte not in classes or kind is None:
                continue
            if kind.type in _NAMED_TYPES:
                written = "".join(self.text(kind).split())
                if "<" not in written or pointers_cpp.pointee(written) is not None:
                    out.append(self._fact(path, f"{qualname}{CALLED}", name, written, "returns"))
        return out

    def _fact(self, path: str, holder: str, at: ts.Node, written: str, words: str) -> EdgeRow:
        dotted = written.replace("::", ".")
        return value_row(
            path, holder, "cpp", at.start_point, at.end_point, path, dotted, f"{words} {written}"
        )

    def fields(self) -> dict[str, dict[str, str]]:
        """Class name -> field -> type as written, over this file's classes and
        structs; a field two same-named classes give two types is dropped."""
        if self._fields is not None:
            return self._fields
        self._fields = {}
        clash: set[tuple[str, str]] = set()
        for f in self.declared_fields():
            cls, field = self.text(f.owner), self.text(f.name)
            known = self._fields.setdefault(cls, {})
            if known.get(field, f.written) != f.written:
                clash.add((cls, field))
            known[field] = f.written
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
        test = fixture(function, self.text)
        if test is not None:
            return "".join(self.text(test).split())
        body = function.parent
        owner = body.parent if body is not None and body.type == "field_declaration_list" else None
        if owner is None or owner.type not in ("class_specifier", "struct_specifier"):
            return None
        name = owner.child_by_field_name("name")
        return self.text(name) if name is not None and name.type == "type_identifier" else None

    def _declared(self, function: ts.Node) -> dict[str, list[tuple[int, str]]]:
        """Name -> [(declared at, its class as written, "" for none)]; an
        ``auto`` one's initializer is kept in ``_inits``."""
        cursor = ts.QueryCursor(self.query)
        table: dict[str, list[tuple[int, str]]] = {}
        for _pattern, caps in cursor.matches(function):
            kind, declarator = caps["type"][0], caps["declarator"][0]
            written = "".join(self.text(kind).split())
            # a template's argument is not the receiver's class (a smart
            # pointer's is, through `->`); a name declared with such a type
            # is still a local, never a field
            if kind.type not in _NAMED_TYPES or (
                "<" in written and pointers_cpp.pointee(written) is None
            ):
                written = ""
            name = _declared_name(declarator)
            if name is not None:
                table.setdefault(self.text(name), []).append((declarator.start_byte, written))
                if (
                    kind.type == "placeholder_type_specifier"
                    and declarator.type == "init_declarator"
                ):
                    value = declarator.child_by_field_name("value")
                    if value is not None:
                        self._inits[declarator.start_byte] = value
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
