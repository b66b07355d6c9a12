"""C# receivers: the declared type of what a method is called on.

``repo.Find(id)`` names ``Repository.Find`` when ``repo`` is a parameter,
local, ``foreach`` or ``using`` variable, field or property declared
``Repository repo`` (``var repo = new Repository()`` too, and
``this.repo``). One query of the file in source order, with a stack of the
types and methods still open, as indexer/bind_java.py reads Java; a name
takes the type of its last declaration before the call. What the pass finds
is a type *name* as written; extract.py claims it in the namespace around
the call, and the linker looks for it in the file, the folder's other
``.cs`` files and the namespaces the ``using`` lines name
(freshindex/query/link.py).

A predefined type is System's (``string s``: ``String``, which no file of
the repository defines: external, unless an extension method of the
repository has the name). An array, a generic argument, ``var`` of
anything but ``new T()``, or an unknown type names no type: the call stays
a candidate. Generic arguments are dropped (``List<T>`` is a
``List``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer import chains
from freshindex.indexer.languages import in_source_order, within_open
from freshindex.indexer.schema import EdgeRow, value_row

# the target of a `global using` row: it applies to every file of the
# project, so the linker asks for these rows by this name (never a C# name)
GLOBAL_USING = "global using"
# what a generic extension method (`this T x`) extends
ANY_TYPE = "*"
# a name declared with no type this pass can name, hiding a field of that name
_UNKNOWN = ""
# what a call a `var` is made with holds, as a chain (``_returned``)
_Returned = Callable[[ts.Node], "str | None"]

_PATTERNS = """
[(class_declaration) (struct_declaration) (interface_declaration)
 (record_declaration)] @type
[(method_declaration) (constructor_declaration) (local_function_statement)
 (lambda_expression) (accessor_declaration)] @scope
[(local_declaration_statement) (using_statement) (foreach_statement)
 (catch_declaration)] @declare
(invocation_expression function: (member_access_expression)) @call
"""


def receiver_types(root: ts.Node, text: Callable[[ts.Node], str]) -> dict[int, tuple[str, str]]:
    """The start byte of each called member's name -> (the receiver as
    written, the type it was declared with as written: ``Repository``,
    ``Models.Repository``)."""
    out: dict[int, tuple[str, str]] = {}
    # (where it ends, the names declared in scope, the members of the
    # enclosing types, the innermost type's name)
    stack: list[tuple[int, dict[str, str], dict[str, str], str]] = [(root.end_byte, {}, {}, "")]
    for node, kind in within_open(in_source_order("csharp", _PATTERNS, root), stack):
        _end, scope, members, own = stack[-1]
        if kind == "type":
            inner = {**members, **_members(node.child_by_field_name("body"), text)}
            name = node.child_by_field_name("name")
            stack.append((node.end_byte, {}, inner, text(name) if name is not None else ""))
        elif kind == "scope":
            # a copy: a lambda sees what is in scope, what it declares stays inside
            local = {**scope}
            _parameters(node.child_by_field_name("parameters"), local, text)
            stack.append((node.end_byte, local, members, own))
        elif kind == "declare":
            returned = functools.partial(
                _returned, scope=scope, members=members, own=own, text=text
            )
            _declared_by(node, scope, text, returned)
        else:
            called = node.child_by_field_name("function")
            receiver = called.child_by_field_name("expression") if called is not None else None
            name = called.child_by_field_name("name") if called is not None else None
            typed = _receiver(receiver, scope, members, text, own) if receiver is not None else None
            if typed and name is not None:
                out[name.start_byte] = (text(receiver), typed)  # type: ignore[arg-type]
    return out


def _receiver(
    node: ts.Node,
    scope: dict[str, str],
    members: dict[str, str],
    text: Callable[[ts.Node], str],
    own: str = "",
) -> str | None:
    if node.type == "invocation_expression":  # repo.Child().Find(): what Child() returns
        return _returned(node, scope, members, own, text)
    if node.type == "identifier":
        written = text(node)
        if written in scope:
            return scope[written] or None
        if written in members:
            return members[written] or None
        # a capitalised name no variable or member has is a type, by C#'s
        # convention: JsonConvert.SerializeObject(), a static method
        return written if written[:1].isupper() else None
    if node.type == "generic_name" and node.named_child_count:  # Policy<T>.Handle(): a type's
        written = text(node.named_children[0])
        if written[:1].isupper() and written not in scope and written not in members:
            return written
        return None
    if node.type == "member_access_expression":  # this.repo.Find()
        obj, field = node.child_by_field_name("expression"), node.child_by_field_name("name")
        if obj is None or field is None or field.type != "identifier":
            return None
        if obj.type == "this":
            return members.get(text(field)) or None
        if obj.type == "identifier" and text(obj) not in scope and text(obj) not in members:
            return None  # `Models.Repository`, `Console.Out`: a namespace's or a type's
        # `config.WriteTo.Sink()`, `new Config().MinimumLevel.Is()`: the
        # member of what the receiver is, over its type fact (member_type)
        return chains.member_of(_receiver(obj, scope, members, text, own), text(field))
    if node.type == "object_creation_expression":  # new Repository().Find()
        return type_name(node.child_by_field_name("type"), text)
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _receiver(node.named_children[0], scope, members, text, own)
    if node.type == "await_expression" and node.named_child_count == 1:  # (await r.OpenAsync())
        return _receiver(node.named_children[0], scope, members, text, own)
    return None


def _returned(
    call: ts.Node,
    scope: dict[str, str],
    members: dict[str, str],
    own: str,
    text: Callable[[ts.Node], str],
) -> str | None:
    """What ``var r = Repository.Open()``, ``var r = Make()`` or ``var r =
    repo.Child()`` holds, as a chain the linker walks over the method's
    return fact (holder ``Repository.Open()``, written by extract.py): the
    type the method is called on (this type for an unqualified call; a
    capitalised name no variable has is a type, by C#'s convention), the
    method, ``()``; a chain of calls (``new Builder().Url(u).Build()``)
    step by step, up to ``chains.MAX_STEPS``."""
    walked = chains.unwind(call, functools.partial(_called, text=text))
    if walked is None:
        return None
    start, methods = walked
    if start is None:  # Make(): this type's
        base: str | None = own
    elif start.type in ("invocation_expression", "parenthesized_expression"):
        return None  # a call or a grouping this pass does not read
    else:
        base = _receiver(start, scope, members, text, own)
        written = text(start)
        if base is None and start.type == "identifier" and written[:1].isupper():
            base = None if written in scope or written in members else written
    return chains.returned_by(base, *methods)


def _called(node: ts.Node, text: Callable[[ts.Node], str]) -> tuple[ts.Node | None, str] | None:
    """A call of a chain: its receiver (None: ``Make()``, this type's) and
    method; parentheses around one are passed through (chains.unwind)."""
    if node.type == "parenthesized_expression":
        return (node.named_children[0], "") if node.named_child_count == 1 else None
    called = node.child_by_field_name("function") if node.type == "invocation_expression" else None
    if called is not None and called.type == "identifier":
        return None, text(called)
    if called is None or called.type != "member_access_expression":
        return None
    receiver, name = called.child_by_field_name("expression"), called.child_by_field_name("name")
    if receiver is None or name is None or name.type != "identifier":
        return None
    return receiver, text(name)


def member_type(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """The type a field or property definition is declared with, as written."""
    if node.type == "property_declaration":
        return type_name(node.child_by_field_name("type"), text)
    declaration = next((c for c in node.named_children if c.type == "variable_declaration"), None)
    if node.type != "field_declaration" or declaration is None:
        return None
    return type_name(declaration.child_by_field_name("type"), text)


def _members(body: ts.Node | None, text: Callable[[ts.Node], str]) -> dict[str, str]:
    """A type's fields and properties, by name."""
    out: dict[str, str] = {}
    for member in body.named_children if body is not None else []:
        if member.type == "field_declaration":
            declaration = next(
                (c for c in member.named_children if c.type == "variable_declaration"), None
            )
            if declaration is not None:
                _variables(declaration, out, text)
        elif member.type == "property_declaration":
            kind = type_name(member.child_by_field_name("type"), text, predefined=True)
            _declare(out, member.child_by_field_name("name"), kind, text)
    return out


def _declared_by(
    node: ts.Node,
    scope: dict[str, str],
    text: Callable[[ts.Node], str],
    returned: _Returned | None = None,
) -> None:
    """A local, ``using`` or ``foreach`` variable, or a caught exception."""
    if node.type == "foreach_statement":
        kind = type_name(node.child_by_field_name("type"), text, predefined=True)
        _declare(scope, node.child_by_field_name("left"), kind, text)
        return
    if node.type == "catch_declaration":
        kind = type_name(node.child_by_field_name("type"), text)
        _declare(scope, node.child_by_field_name("name"), kind, text)
        return
    declaration = next((c for c in node.named_children if c.type == "variable_declaration"), None)
    if declaration is not None:
        _variables(declaration, scope, text, returned)


def _variables(
    declaration: ts.Node,
    scope: dict[str, str],
    text: Callable[[ts.Node], str],
    returned: _Returned | None = None,
) -> None:
    kind = declaration.child_by_field_name("type")
    for d in declaration.named_children:
        if d.type == "variable_declarator":
            name = d.child_by_field_name("name")
            value = d.named_children[-1] if d.named_child_count > 1 else None
            _declare(scope, name, _type_of(kind, value, text, returned), text)


def _parameters(
    params: ts.Node | None, scope: dict[str, str], text: Callable[[ts.Node], str]
) -> None:
    if params is None:
        return
    if params.type in ("identifier", "implicit_parameter"):  # q => q.Find()
        scope[text(params)] = _UNKNOWN
        return
    for p in params.named_children:
        if p.type == "parameter":
            kind = type_name(p.child_by_field_name("type"), text, predefined=True)
            _declare(scope, p.child_by_field_name("name"), kind, text)
        elif p.type in ("identifier", "implicit_parameter"):
            scope[text(p)] = _UNKNOWN


def _declare(
    scope: dict[str, str], name: ts.Node | None, typed: str | None, text: Callable[[ts.Node], str]
) -> None:
    if name is not None and name.type == "identifier":
        scope[text(name)] = typed or _UNKNOWN


def _type_of(
    kind: ts.Node | None,
    value: ts.Node | None,
    text: Callable[[ts.Node], str],
    returned: _Returned | None = None,
) -> str | None:
    """What a declaration's type names; ``var r = new Repository()``: the
    created type; ``var r = Repository.Open()``: what the call returns (a
    chain, ``returned``); any other ``var``: none."""
    if value is not None and value.type == "await_expression" and value.named_child_count:
        value = value.named_children[0]  # var r = await repo.OpenAsync(): what the Task holds
    if kind is not None and kind.type == "implicit_type":
        if value is not None and value.type == "invocation_expression" and returned is not None:
            return returned(value)
        if value is None or value.type != "object_creation_expression":
            return None
        return type_name(value.child_by_field_name("type"), text)
    return type_name(kind, text, predefined=True)


_TASKS = ("Task", "ValueTask")


def awaited(kind: ts.Node | None, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """``Task<Repo>`` and ``ValueTask<Repo>``: the ``Repo`` node, what
    ``await`` gives; any other type node as it is."""
    if kind is None or kind.type != "generic_name" or kind.named_child_count != 2:
        return kind
    name, args = kind.named_children
    if text(name) not in _TASKS:
        return kind
    return args.named_children[0] if args.named_child_count == 1 else kind


def type_name(
    kind: ts.Node | None, text: Callable[[ts.Node], str], predefined: bool = False
) -> str | None:
    """The type a C# type node names, as written, without generic arguments;
    with ``predefined``, a predefined one by its System name (``string``:
    ``String``), as a receiver's; None for an array, a nullable value or a
    tuple, and otherwise a predefined type (no fact rows for every `int`)."""
    if kind is None:
        return None
    if kind.type == "generic_name" and kind.named_children:
        return type_name(kind.named_children[0], text)
    if kind.type == "nullable_type" and kind.named_children:  # Repository?
        return type_name(kind.named_children[0], text, predefined)
    if kind.type in ("identifier", "qualified_name"):
        return "".join(text(kind).split())
    if kind.type == "predefined_type" and predefined:  # `string s`: System.String's methods
        return _PREDEFINED.get(text(kind))
    return None


# C#'s keywords for the types of System
_PREDEFINED = {
    "string": "String", "object": "Object", "int": "Int32", "long": "Int64", "short": "Int16",
    "bool": "Boolean", "double": "Double", "float": "Single", "decimal": "Decimal",
    "char": "Char", "byte": "Byte", "uint": "UInt32", "ulong": "UInt64",
}  # fmt: skip


def extensions(
    path: str, methods: list[tuple[ts.Node, ts.Node, str]], text: Callable[[ts.Node], str]
) -> list[EdgeRow]:
    """A fact per extension method (``static R M(this T x, ...)``), of the
    ``methods`` (node, name node, qualname) of a file: holder ``extends T``
    (the type's name without generic arguments or namespace), the method
    itself as what it holds. The linker reads them for ``x.M()`` where
    ``x``'s type defines no ``M`` (query/link.py ``extension``); a
    predefined type by its System name (``this string s``: ``String``). A
    type parameter (``this T x``) or ``object`` extends anything: holder ``extends *``, which
    no type's name matches, so that the linker knows an ``x.M()`` on a type
    from outside the repository may still run it."""
    out = []
    for node, name_node, qualname in methods:
        parameters = node.child_by_field_name("parameters")
        if node.type != "method_declaration" or parameters is None:
            continue
        first = next((c for c in parameters.named_children if c.type == "parameter"), None)
        if first is None or not any(
            c.type == "modifier" and text(c) == "this" for c in first.children
        ):
            continue
        extended = type_name(first.child_by_field_name("type"), text, predefined=True)
        if extended in (None, "Object") or extended in _type_parameters(node, text):
            extended = ANY_TYPE
        simple = extended.rsplit(".", 1)[-1]
        at, end = name_node.start_point, name_node.end_point
        out.append(
            value_row(path, f"{chains.EXTENDS}{simple}", "csharp", at, end, path, qualname, "this")
        )
    return out


def _type_parameters(method: ts.Node, text: Callable[[ts.Node], str]) -> set[str]:
    found = method.child_by_field_name("type_parameters")
    return {text(c) for c in found.named_children} if found is not None else set()
