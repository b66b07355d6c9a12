"""Kotlin receivers: the declared class of what a method is called on.

As in Java (indexer/bind_java.py): ``x.save()`` names ``Repo.save`` when
``x`` is a parameter ``x: Repo`` (``Repo?`` too), a ``val``/``var``
annotated ``Repo`` or initialised with a constructor call ``Repo(...)``, a
property of the enclosing class declared either way or in the primary
constructor (``class S(val repo: Repo)``), ``this.repo``, or ``Repo`` itself
(a companion's or object's function). One query of the nodes that declare
or call, in source order, with a stack of the open classes and functions.
Kotlin's grammar here names few fields, so positions are read by type.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer import chains
from freshindex.indexer.bind_java import JAVA_LANG, declared_class
from freshindex.indexer.languages import in_source_order, pattern_query, within_open

_PATTERNS = """
[(class_declaration) (object_declaration)] @class
[(function_declaration) (lambda_literal) (anonymous_function)] @scope
(property_declaration) @declare
(call_expression) @call
"""


def receiver_types(root: ts.Node, text: Callable[[ts.Node], str]) -> dict[int, tuple[str, str]]:
    """The start byte of each called function's name, and of one passed by
    reference (``repo::save``) -> (the receiver as written, the class it
    was declared with as written)."""
    out: dict[int, tuple[str, str]] = {}
    # (where it ends, the declarations in scope, the enclosing classes'
    # properties, the innermost class and its functions' names)
    stack: list[tuple[int, dict[str, str], dict[str, str], _Own]] = [
        (root.end_byte, {}, {}, ("", frozenset()))
    ]
    for node, kind in within_open(in_source_order("kotlin", _PATTERNS, root), stack):
        _end, scope, fields, own = stack[-1]
        if kind == "class":
            name = _child(node, "identifier") or _child(node, "type_identifier")
            own = (text(name) if name is not None else "", _functions(node, text))
            stack.append((node.end_byte, {}, {**fields, **_properties(node, text)}, own))
        elif kind == "scope":
            inner = {**scope}
            params = _child(node, "function_value_parameters")
            for p in params.named_children if params is not None else []:
                named = _named_typed(p, text) if p.type == "parameter" else None
                if named is not None:
                    inner[named[0]] = named[1]
            stack.append((node.end_byte, inner, fields, own))
        elif kind == "declare":
            declared = _declared(node, text)
            if declared is not None and not declared[1]:
                made = _returned(node, scope, fields, own, text)
                declared = (declared[0], made or "")
            if declared is not None:
                scope[declared[0]] = declared[1]
        else:
            callee = node.named_children[0] if node.named_child_count else None
            called = (
                [callee] if callee is not None and callee.type == "navigation_expression" else []
            )
            for navigation in (*called, *_references(node)):
                parts = navigation.named_children
                if len(parts) != 2 or parts[1].type != "identifier":
                    continue
                typed = _receiver(parts[0], scope, fields, text, own)
                if typed:
                    out[parts[1].start_byte] = (text(parts[0]), typed)
    return out


def _references(call: ts.Node) -> list[ts.Node]:
    """The call's arguments that pass a function by reference, `repo::save`
    or `Repo::parse` (which the grammar reads as navigations)."""
    arguments = _child(call, "value_arguments")
    out = []
    for argument in arguments.named_children if arguments is not None else []:
        value = argument.named_children[0] if argument.named_child_count == 1 else None
        if (
            value is not None
            and value.type == "navigation_expression"
            and any(c.type == "::" for c in value.children)
        ):
            out.append(value)
    return out


# a class's name and the names of the functions its body declares
_Own = tuple[str, frozenset[str]]


def _functions(cls: ts.Node, text: Callable[[ts.Node], str]) -> frozenset[str]:
    body = _child(cls, "class_body")
    members = body.named_children if body is not None else []
    found = [_child(m, "identifier") for m in members if m.type == "function_declaration"]
    return frozenset(text(n) for n in found if n is not None)


def _returned(
    declaration: ts.Node,
    scope: dict[str, str],
    fields: dict[str, str],
    own: _Own,
    text: Callable[[ts.Node], str],
) -> str | None:
    """What ``val r = open()`` or ``val r = Repo.open()`` holds, as a chain
    the linker walks over the function's return fact (extract.py): a
    function of this class (``Main.open()``), a top-level or imported one
    (``open()``), or one of what the receiver is (``Repo.open()``: a
    companion's or an object's, or a typed value's)."""
    value = next((c for c in declaration.named_children if c.type == "call_expression"), None)
    return _called(value, scope, fields, own, text) if value is not None else None


def _called(
    call: ts.Node,
    scope: dict[str, str],
    fields: dict[str, str],
    own: _Own,
    text: Callable[[ts.Node], str],
) -> str | None:
    """What a call gives, as a class name (``Repo()``, ``Retrofit.Builder()``:
    a constructor) or a chain over return facts (``open()``, ``r.child()``,
    ``Builder().url(u).build()`` step by step, chains.unwind)."""
    walked = chains.unwind(call, functools.partial(_method_call, text=text))
    if walked is None:
        return None
    start, methods = walked
    if start is None:
        return None
    base: str | None = None
    if start.type != "call_expression":
        base = _receiver(start, scope, fields, text, own)
    elif start.named_child_count:
        fn = start.named_children[0]
        if fn.type == "identifier":
            called = text(fn)
            if called[:1].isupper():
                base = called  # Repo(): a Repo
            elif called in _FACTORIES and called not in own[1]:
                base = _FACTORIES[called]  # mutableListOf(): a MutableList
            else:
                base = f"{own[0]}.{called}()" if called in own[1] else f"{called}()"
        elif fn.type == "navigation_expression" and fn.named_child_count == 2:
            obj, member = fn.named_children
            if _capitalised(obj, text) and _capitalised(member, text):
                base = f"{text(obj)}.{text(member)}"  # Retrofit.Builder(): a nested class's
    return chains.returned_by(base, *methods)


def _method_call(node: ts.Node, text: Callable[[ts.Node], str]) -> tuple[ts.Node, str] | None:
    """``r.child()`` of a chain: its receiver and method (chains.unwind);
    None for the chain's start (``Repo()``, ``open()``,
    ``Retrofit.Builder()``, or no call)."""
    if node.type != "call_expression" or not node.named_child_count:
        return None
    fn = node.named_children[0]
    if fn.type != "navigation_expression" or fn.named_child_count != 2:
        return None
    obj, member = fn.named_children
    if member.type != "identifier" or (_capitalised(obj, text) and _capitalised(member, text)):
        return None
    return obj, text(member)


def _capitalised(node: ts.Node, text: Callable[[ts.Node], str]) -> bool:
    """A name that reads as a class, by Kotlin's convention."""
    return node.type == "identifier" and text(node)[:1].isupper()


def _receiver(
    node: ts.Node,
    scope: dict[str, str],
    fields: dict[str, str],
    text: Callable[[ts.Node], str],
    own: _Own = ("", frozenset()),
) -> str | None:
    if node.type == "identifier":  # Repo.create(): a companion's or an object's
        return declared_class(text(node), scope, fields)
    if node.type == "navigation_expression" and node.named_child_count == 2:
        obj, prop = node.named_children
        if obj.type == "this_expression" and prop.type == "identifier":
            return fields.get(text(prop)) or None
    if node.type == "call_expression":  # Repo().save(), r.child().save()
        return _called(node, scope, fields, own, text)
    return None


def _properties(cls: ts.Node, text: Callable[[ts.Node], str]) -> dict[str, str]:
    """A class's properties: ``val``/``var`` constructor parameters and
    properties declared in its body."""
    out: dict[str, str] = {}
    constructor = _child(cls, "primary_constructor")
    params = _child(constructor, "class_parameters") if constructor is not None else None
    for p in params.named_children if params is not None else []:
        held = any(c.type in ("val", "var") for c in p.children)
        named = _named_typed(p, text) if p.type == "class_parameter" and held else None
        if named is not None:
            out[named[0]] = named[1]
    body = _child(cls, "class_body")
    for member in body.named_children if body is not None else []:
        if member.type == "property_declaration":
            declared = _declared(member, text)
            if declared is not None:
                out[declared[0]] = declared[1]
    return out


def _declared(node: ts.Node, text: Callable[[ts.Node], str]) -> tuple[str, str] | None:
    """(name, class or "") of ``val x: Repo = ...`` or ``val x = Repo(...)``."""
    variable = _child(node, "variable_declaration")
    if variable is None or not variable.named_child_count:
        return None
    name = variable.named_children[0]
    if name.type != "identifier":
        return None
    typed = class_name(variable.named_children[1], text) if variable.named_child_count > 1 else None
    if typed is None:
        value = next((c for c in node.named_children if c.type == "call_expression"), None)
        fn = value.named_children[0] if value is not None and value.named_child_count else None
        if fn is not None and fn.type == "identifier" and text(fn)[:1].isupper():
            typed = text(fn)  # Repo(...): a constructor, by Kotlin's naming convention
    return text(name), typed or ""


def _named_typed(param: ts.Node, text: Callable[[ts.Node], str]) -> tuple[str, str] | None:
    """(name, class or "") of a parameter, past its modifiers (``private val``)."""
    name = _child(param, "identifier")
    kind = next((c for c in param.named_children if c.type in TYPES), None)
    return (text(name), class_name(kind, text) or "") if name is not None else None


TYPES = ("user_type", "nullable_type")


def _child(node: ts.Node, kind: str) -> ts.Node | None:
    return next((c for c in node.named_children if c.type == kind), None)


def class_name(kind: ts.Node | None, text: Callable[[ts.Node], str]) -> str | None:
    """The class a type names (``Repo``, ``Repo?``, ``a.b.Repo``, ``List<Repo>``
    is a ``List``), as written; None for anything else."""
    if kind is not None and kind.type == "nullable_type" and kind.named_child_count:
        kind = kind.named_children[0]
    if kind is None or kind.type != "user_type":
        return None
    names = [text(c) for c in kind.named_children if c.type == "identifier"]
    return ".".join(names) if names else None


# a bare call of a function no rule of this file binds: a top-level function
# of the file's package, in another of its files (the linker looks in the
# folder's .kt files, as for Go)
PACKAGE_VIA = "a function of this file's package"
# the same call in a class with a base written here: a member the class
# inherits comes first, so the package's function only once every base is
# in the repository and none has it
AFTER_BASES_VIA = "a member of the class's bases, else a function of this file's package"
# the classes every Kotlin file sees without an import (kotlin.*,
# kotlin.collections.*, kotlin.text.*, kotlin.ranges.*, kotlin.sequences.*,
# and java.lang.* on the JVM) that a project rarely names again: not
# `Result`, `Enum`, `Lazy`, `Class` or `Process`. A declaration of the
# package comes first, in a file of any name (Kotlin does not tie a class to
# its file), so the linker looks for one before it calls these outside
# (query/link.py)
DEFAULT_CLASSES = frozenset(
    {
        "Any", "Unit", "Nothing", "Int", "Long", "Short", "Byte", "Double", "Float",
        "Boolean", "Char", "UInt", "ULong", "Array", "IntArray", "LongArray",
        "ByteArray", "CharArray", "ShortArray", "DoubleArray", "FloatArray",
        "BooleanArray", "String", "CharSequence", "Regex", "MatchResult", "Appendable",
        "List", "MutableList", "ArrayList", "Map", "MutableMap", "HashMap",
        "LinkedHashMap", "Set", "MutableSet", "HashSet", "LinkedHashSet", "Collection",
        "MutableCollection", "Iterable", "MutableIterable", "Iterator",
        "MutableIterator", "ListIterator", "Sequence", "IntRange", "LongRange",
        "CharRange", "Pair", "Triple", "Comparator", "ConcurrentModificationException",
        "NoSuchElementException", "NumberFormatException",
    }
) | (JAVA_LANG - {"Enum", "Record", "Process", "Class"})  # fmt: skip
# kotlin's functions that make one of them (`val xs = mutableListOf<User>()`)
_FACTORIES = {
    **dict.fromkeys(("listOf", "listOfNotNull", "emptyList"), "List"),
    "mutableListOf": "MutableList",
    "arrayListOf": "ArrayList",
    **dict.fromkeys(("mapOf", "emptyMap"), "Map"),
    "mutableMapOf": "MutableMap",
    "hashMapOf": "HashMap",
    "linkedMapOf": "LinkedHashMap",
    **dict.fromkeys(("setOf", "emptySet"), "Set"),
    "mutableSetOf": "MutableSet",
    "hashSetOf": "HashSet",
    "linkedSetOf": "LinkedHashSet",
    **dict.fromkeys(("buildString", "String"), "String"),
    **dict.fromkeys(("arrayOf", "emptyArray", "arrayOfNulls"), "Array"),
    "sequenceOf": "Sequence",
}
# kotlin's top-level functions a bare call names when the package has none
# of the name: those above, and the standard library's most called
DEFAULT_FUNCTIONS = frozenset(_FACTORIES) | frozenset(
    {
        "println", "print", "readLine", "require", "requireNotNull", "check",
        "checkNotNull", "error", "TODO", "repeat", "run", "with", "lazy", "maxOf",
        "minOf", "buildList", "buildMap", "buildSet", "synchronized", "assert",
        "emptySequence", "generateSequence", "runCatching",
    }
)  # fmt: skip
# a receiver's class that is one of those: looked for in the package, else kotlin's
DEFAULT_VIA = ", a class of the package or else kotlin's"


def is_default(qual: str, via: str) -> bool:
    """A claim in the file's package that names a class or function of
    kotlin's default imports, bare (`StringBuilder()`, `listOf(x)`) or as a
    receiver's class (`s.trim()`)."""
    if via == PACKAGE_VIA:
        return qual in DEFAULT_CLASSES or qual in DEFAULT_FUNCTIONS
    return via.endswith(DEFAULT_VIA)


_DECLARES = """
(parameter (identifier) @name)
(variable_declaration (identifier) @name)
(class_parameter (identifier) @name)
"""


def local_names(function: ts.Node, text: Callable[[ts.Node], str]) -> dict[str, int]:
    """The names a function declares for itself, each with the byte it is
    first declared at: its parameters, its `val`s and `var`s, its lambdas'
    parameters (`block()` of `block: () -> Unit` calls the parameter, not a
    package function; a `val` hides the name from where it stands)."""
    out: dict[str, int] = {}
    found = ts.QueryCursor(pattern_query("kotlin", _DECLARES)).captures(function)
    for name in found.get("name", []):
        key = text(name)
        out[key] = min(out.get(key, name.start_byte), name.start_byte)
    return out
