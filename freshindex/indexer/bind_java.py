"""Java receivers: the declared class of what a method is called on.

Java declares every variable with its type, so ``c.save()`` names
``C.save`` when ``c`` is a parameter, local, loop variable, resource or
field declared ``C c`` (``var c = new C()`` too), ``this.c.save()`` when
the field is, and ``C.create()`` when ``C`` is a class rather than a
variable. One query of the file, in source order, with the declarations of
each method and the fields of each class: a name takes the type of its
last declaration before the call (blocks are not scoped apart, as a
method's locals may not shadow each other in Java). What the pass finds is
a class *name* as written; extract.py resolves it the way it resolves a
class reference (this file, an import, the same package) and the linker
follows bases from there.

A type that is a primitive, an array or unknown names no class: the call
stays a candidate. Generic arguments are dropped (``List<C>`` is a ``List``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer import chains
from freshindex.indexer.languages import in_source_order, within_open

# a name declared without a class, shadowing a field of that name
_UNKNOWN = ""


_PATTERNS = """
[(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)] @class
[(method_declaration) (constructor_declaration) (compact_constructor_declaration)
 (lambda_expression)] @scope
[(local_variable_declaration) (enhanced_for_statement) (resource)
 (catch_formal_parameter)] @declare
(method_invocation) @call
(method_reference) @reference
"""


# java.lang's classes, which every Java file sees without an import
JAVA_LANG = frozenset(
    {
        "Object", "String", "StringBuilder", "StringBuffer", "CharSequence", "Integer",
        "Long", "Short", "Byte", "Double", "Float", "Boolean", "Character", "Number",
        "Math", "StrictMath", "System", "Thread", "Runtime", "Class", "ClassLoader",
        "Enum", "Record", "Iterable", "Comparable", "Runnable", "AutoCloseable",
        "Throwable", "Exception", "RuntimeException", "Error", "IllegalArgumentException",
        "IllegalStateException", "NullPointerException", "UnsupportedOperationException",
        "IndexOutOfBoundsException", "ArithmeticException", "ClassCastException",
        "InterruptedException", "CloneNotSupportedException", "StackTraceElement",
        "ThreadLocal", "Process", "ProcessBuilder", "Void",
    }
)  # fmt: skip


def receiver_types(root: ts.Node, text: Callable[[ts.Node], str]) -> dict[int, tuple[str, str]]:
    """The start byte of each called method's name -> (the receiver as
    written, the class it was declared with as written: ``Repo``,
    ``a.b.Repo``, ``Outer.Inner``).

    A query hands over only the nodes that declare or call, in source order
    (a walk of every node in Python cost as much as the rest of a Java
    file's extraction); a stack of the classes and methods still open gives
    each its scope."""
    out: dict[int, tuple[str, str]] = {}
    # (where it ends, the declarations in scope, the fields of the enclosing
    # classes, the innermost class's name)
    stack: list[tuple[int, dict[str, str], dict[str, str], str]] = [(root.end_byte, {}, {}, "")]
    for node, kind in within_open(in_source_order("java", _PATTERNS, root), stack):
        _end, scope, fields, own = stack[-1]
        if kind == "class":
            fields = {**fields, **_fields(node, node.child_by_field_name("body"), text)}
            name = node.child_by_field_name("name")
            stack.append((node.end_byte, {}, fields, text(name) if name is not None else ""))
        elif kind == "scope":
            # a copy: what an anonymous class's method or a lambda captures
            # stays visible, what it declares stays inside
            inner = {**scope}
            _parameters(node, inner, text)
            stack.append((node.end_byte, inner, fields, own))
        elif kind == "declare":
            returned = functools.partial(_returned, scope=scope, fields=fields, own=own, text=text)
            _declared_by(node, scope, text, returned)
        else:
            if kind == "reference":  # repo::save, Repo::parse, List<T>::size
                receiver, name = _referenced(node)
            else:
                receiver, name = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("name"),
                )
            typed = _receiver(receiver, scope, fields, text, own) if receiver is not None else None
            if typed and name is not None:
                out[name.start_byte] = (text(receiver), typed)  # type: ignore[arg-type]
    return out


def _referenced(node: ts.Node) -> tuple[ts.Node | None, ts.Node | None]:
    """A method reference's receiver and method: ``repo::save``; none for
    ``Repo::new`` (a use of the class itself) or ``this::save`` (the class's
    own, which extract.py binds as it binds ``this.save()``)."""
    if node.named_child_count != 2 or node.named_children[1].type != "identifier":
        return None, None
    receiver, name = node.named_children
    return (receiver, name) if receiver.type not in ("this", "super") else (None, None)


def _declared_by(
    node: ts.Node,
    scope: dict[str, str],
    text: Callable[[ts.Node], str],
    returned: Callable[[ts.Node], str | None],
) -> None:
    """A local declaration, a loop variable, a resource or a catch parameter."""
    kind = node.child_by_field_name("type")
    if node.type == "local_variable_declaration":
        for d in node.children_by_field_name("declarator"):
            name, value = d.child_by_field_name("name"), d.child_by_field_name("value")
            _declare(scope, name, kind, value, text, returned)
        return
    if node.type == "catch_formal_parameter":  # catch (E e): one class, not E1 | E2
        caught = next((c for c in node.named_children if c.type == "catch_type"), None)
        kind = caught.named_children[0] if caught and caught.named_child_count == 1 else None
    name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    _declare(scope, name, kind, value, text, returned)


def _returned(
    call: ts.Node,
    scope: dict[str, str],
    fields: dict[str, str],
    own: str,
    text: Callable[[ts.Node], str],
) -> str | None:
    """What ``var r = Repo.open()``, ``var r = make()`` or ``var r =
    repo.child()`` holds, or the receiver ``repo.child()`` of a call, as a
    chain the linker walks over the method's return fact (holder
    ``Repo.open()``, written by extract.py): the class the method is called
    on (this class for an unqualified call), the method, ``()``; a chain of
    calls (``new Builder().url(u).build()``) step by step, up to
    ``chains.MAX_STEPS``."""
    walked = chains.unwind(call, functools.partial(_called, text=text))
    if walked is None:
        return None
    start, methods = walked
    if start is not None and start.type == "method_invocation":
        return None  # a call the grammar gave no name
    owner = own if start is None else _receiver(start, scope, fields, text, own)
    return chains.returned_by(owner, *methods)


def _called(node: ts.Node, text: Callable[[ts.Node], str]) -> tuple[ts.Node | None, str] | None:
    """A call of a chain: its receiver (None: ``make()``, this class's) and
    method; parentheses around one are passed through (chains.unwind)."""
    if node.type == "parenthesized_expression":
        return (node.named_children[0], "") if node.named_child_count == 1 else None
    name = node.child_by_field_name("name") if node.type == "method_invocation" else None
    return (node.child_by_field_name("object"), text(name)) if name is not None else None


def _receiver(
    node: ts.Node,
    scope: dict[str, str],
    fields: dict[str, str],
    text: Callable[[ts.Node], str],
    own: str = "",
) -> str | None:
    if node.type == "method_invocation":  # a.child().save(): what child() returns
        return _returned(node, scope, fields, own, text)
    if node.type == "identifier":
        return declared_class(text(node), scope, fields)
    if node.type == "field_access":
        obj, field = node.child_by_field_name("object"), node.child_by_field_name("field")
        if obj is None or field is None or field.type != "identifier":
            return None
        if obj.type == "this":
            return fields.get(text(field)) or None
        if obj.type == "identifier" and text(obj) not in scope and text(obj) not in fields:
            return None  # `Config.DEFAULT`, `System.out`: a class's or a package's
        # `config.levels.set()`, `new Config().levels.set()`: the field of what
        # the receiver is, over its type fact (extract.py)
        return chains.member_of(_receiver(obj, scope, fields, text, own), text(field))
    if node.type == "object_creation_expression":  # new Repo().save()
        return class_name(node.child_by_field_name("type"), text)
    if node.type in ("generic_type", "type_identifier"):  # List<T>::size
        return class_name(node, text)
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _receiver(node.named_children[0], scope, fields, text, own)
    return None


def declared_class(name: str, scope: dict[str, str], fields: dict[str, str]) -> str | None:
    """The class a name was declared with (a local or parameter first, then
    a field); a name declared with no class gives None, and an undeclared
    capitalised name is a class itself (``Repo.create()``: Java's and
    Kotlin's naming convention)."""
    if name in scope:
        return scope[name] or None
    if name in fields:
        return fields[name] or None
    return name if name[:1].isupper() else None


def _fields(
    class_node: ts.Node, body: ts.Node | None, text: Callable[[ts.Node], str]
) -> dict[str, str]:
    """A class's fields and a record's components, by name."""
    out: dict[str, str] = {}
    if class_node.type == "record_declaration":
        _parameters(class_node, out, text)
    for member in body.named_children if body is not None else []:
        if member.type in ("field_declaration", "constant_declaration"):
            kind = member.child_by_field_name("type")
            for d in member.children_by_field_name("declarator"):
                _declare(
                    out, d.child_by_field_name("name"), kind, d.child_by_field_name("value"), text
                )
    return out


def _parameters(node: ts.Node, scope: dict[str, str], text: Callable[[ts.Node], str]) -> None:
    params = node.child_by_field_name("parameters")
    if params is not None and params.type == "identifier":  # x -> x.save()
        scope[text(params)] = _UNKNOWN
        return
    for p in params.named_children if params is not None else []:
        if p.type == "formal_parameter":
            _declare(
                scope, p.child_by_field_name("name"), p.child_by_field_name("type"), None, text
            )
        elif p.type == "identifier":  # an inferred lambda parameter: shadows a field
            scope[text(p)] = _UNKNOWN
        elif p.type == "spread_parameter":  # C... more: an array
            declarator = next(
                (c for c in p.named_children if c.type == "variable_declarator"), None
            )
            name = declarator.child_by_field_name("name") if declarator is not None else None
            if name is not None:
                scope[text(name)] = _UNKNOWN


def _declare(
    scope: dict[str, str],
    name: ts.Node | None,
    kind: ts.Node | None,
    value: ts.Node | None,
    text: Callable[[ts.Node], str],
    returned: Callable[[ts.Node], str | None] | None = None,
) -> None:
    if name is None or name.type != "identifier":
        return
    declared = class_name(kind, text)
    if declared == "var":  # var c = new C(), var c = C.open()
        if value is not None and value.type == "object_creation_expression":
            declared = class_name(value.child_by_field_name("type"), text)
        elif value is not None and value.type == "method_invocation" and returned is not None:
            declared = returned(value)
        else:
            declared = None
    scope[text(name)] = declared or _UNKNOWN


def class_name(kind: ts.Node | None, text: Callable[[ts.Node], str]) -> str | None:
    """The class a type names, as written, without generic arguments."""
    if kind is None:
        return None
    if kind.type == "generic_type" and kind.named_children:
        return class_name(kind.named_children[0], text)
    if kind.type in ("type_identifier", "scoped_type_identifier"):
        return "".join(text(kind).split())
    return None
