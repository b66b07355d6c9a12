"""What a TypeScript annotation names, for the JS/TS value flow
(indexer/flow_js.py): the class of ``C``, ``C | null``, ``C | undefined``,
``Promise<C>`` (what ``await`` gives), and what an array annotation holds
(``C[]``, ``Array<C>``, ``ReadonlyArray<C>``, ``Set<C>``), and the classes
of a union of them (``A | B``). Read from the syntax tree alone, as the type
checker reads the annotation; anything else (a union with a literal or an
object type, generics of generics) names no class."""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter as ts


def named_class(
    node: ts.Node | None, text: Callable[[ts.Node], str], awaited: bool = False
) -> ts.Node | None:
    """The class a TypeScript annotation names (``: C``), or None; with
    ``awaited``, also the ``C`` of ``Promise<C>`` (what ``await`` gives)."""
    if node is None or node.type != "type_annotation" or node.named_child_count != 1:
        return None
    return _class_of(node.named_children[0], text, awaited)


def union_classes(
    node: ts.Node | None, text: Callable[[ts.Node], str], awaited: bool = False
) -> list[ts.Node]:
    """The classes a union annotation names (``: A | B``, ``A | B | null``),
    each as ``named_class`` reads one (with ``awaited``, ``Response |
    Promise<Response>`` is one class); [] unless every member but ``null``
    and ``undefined`` names a class."""
    if node is None or node.type != "type_annotation" or node.named_child_count != 1:
        return []
    return union_members(node.named_children[0], text, awaited)


def union_members(
    union: ts.Node, text: Callable[[ts.Node], str], awaited: bool = False
) -> list[ts.Node]:
    """The classes of a union type itself (``A | B``, the value of ``type
    Shape = Circle | Square``), as union_classes reads an annotation's."""
    if union.type != "union_type":
        return []
    members: list[ts.Node] = []
    todo = [union]
    while todo:  # `A | B | C` is `(A | B) | C`
        n = todo.pop()
        if n.type == "union_type":
            todo.extend(reversed(n.named_children))
        elif not _is_nothing(n):
            members.append(n)
    found = [_class_of(m, text, awaited) for m in members]
    named = list({text(c): c for c in found if c is not None}.values())
    return named if None not in found and len(found) > 1 else []


def classes(
    annotation: ts.Node | None, text: Callable[[ts.Node], str], awaited: bool = False
) -> list[ts.Node]:
    """The class an annotation names (with ``awaited``, a return's
    ``Promise<C>`` read as ``C``), or each class of a union (``a: A | B``):
    a value of any of them."""
    named = named_class(annotation, text, awaited)
    return [named] if named is not None else union_classes(annotation, text, awaited)


def type_classes(node: ts.Node, text: Callable[[ts.Node], str]) -> list[ts.Node]:
    """The class a type itself names (a type argument, not an annotation:
    ``createContext<AppState | null>``), or each class of a union."""
    named = _class_of(node, text, False)
    return [named] if named is not None else union_members(node, text)


def function_returns(node: ts.Node | None, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The class a member's function type returns: ``get: (url: string) =>
    Response`` (a ``type_annotation`` holding a ``function_type``), with
    ``Promise<C>`` read as ``C``, as an awaited return is; or None."""
    if node is None or node.type != "type_annotation" or node.named_child_count != 1:
        return None
    function = node.named_children[0]
    returned = function.child_by_field_name("return_type")
    if function.type != "function_type" or returned is None:
        return None
    return _class_of(returned, text, True)


def _class_of(node: ts.Node, text: Callable[[ts.Node], str], awaited: bool) -> ts.Node | None:
    inner = _without_null(node)
    if awaited:
        inner = _argument_of(inner, _PROMISES, text) or inner
    if inner.type == "generic_type" and (name := inner.child_by_field_name("name")) is not None:
        inner = name  # `Repo<T>`: a Repo (a type outside the repository types nothing)
    if inner.type == "lookup_type" and lookup_parts(inner, text) is not None:
        return inner  # `AppState["zoom"]`: the type of a member
    # `T.User` of `import * as T`, `React.PointerEvent<E>` of a package
    return inner if inner.type in _NAMES else None


def lookup_parts(node: ts.Node, text: Callable[[ts.Node], str]) -> tuple[ts.Node, list[str]] | None:
    """An indexed access type (``AppState["zoom"]``, ``Props["a"]["b"]``):
    the type it indexes and the member names, outermost first; None for
    any other key (a union of keys, ``number``, a type parameter)."""
    keys: list[str] = []
    while node.type == "lookup_type" and node.named_child_count == 2:
        node, key = node.named_children
        literal = (
            key.named_children[0] if key.type == "literal_type" and key.named_child_count else None
        )
        name = text(literal)[1:-1] if literal is not None and literal.type == "string" else ""
        if not _MEMBER_NAME.fullmatch(name):
            return None
        keys.append(name)
    return (node, keys[::-1]) if keys and node.type in _NAMES else None


_NOTHING = frozenset({"null", "undefined"})
_MEMBER_NAME = re.compile(r"[A-Za-z_$][\w$]*")
# what names a type: `User`, and `T.User` of `import * as T` (or a package's)
_NAMES = ("type_identifier", "nested_type_identifier")
_PROMISES = frozenset({"Promise", "PromiseLike"})
# generic types whose second type argument is what `get(k)` and `[k]` give
_MAPPINGS = frozenset({"Map", "ReadonlyMap", "WeakMap", "Record"})
# generic types whose `for ... of` gives their one type argument
_ITERABLES = frozenset(
    {"Array", "ReadonlyArray", "Set", "ReadonlySet", "Iterable", "IterableIterator"}
)


def _without_null(node: ts.Node) -> ts.Node:
    """``C | null``, ``C | undefined``: ``C``; ``readonly C[]``: ``C[]``."""
    if node.type == "readonly_type" and node.named_child_count == 1:
        return node.named_children[0]
    if node.type != "union_type" or node.named_child_count != 2:
        return node
    kept = [c for c in node.named_children if not _is_nothing(c)]
    return kept[0] if len(kept) == 1 else node


def _is_nothing(node: ts.Node) -> bool:
    return (
        node.type == "literal_type"
        and node.named_child_count == 1
        and node.named_children[0].type in _NOTHING
    )


def element_class(node: ts.Node | None, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The class an array annotation holds (``C[]``, ``Array<C>``,
    ``ReadonlyArray<C>``, ``Set<C>``), or None."""
    if node is None or node.type != "type_annotation" or node.named_child_count != 1:
        return None
    inner: ts.Node | None = _without_null(node.named_children[0])
    if inner is not None and inner.type == "array_type" and inner.named_child_count == 1:
        inner = inner.named_children[0]
    elif inner is not None:
        inner = _argument_of(inner, _ITERABLES, text)
    return inner if inner is not None and inner.type in _NAMES else None


def value_class(node: ts.Node | None, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The class a mapping annotation holds as its values (``Map<K, C>``,
    ``ReadonlyMap``, ``WeakMap``, ``Record<K, C>``, ``{ [k: string]: C }``),
    or None: what ``m.get(k)``, ``r[k]``, ``m.values()`` give."""
    if node is None or node.type != "type_annotation" or node.named_child_count != 1:
        return None
    inner = _without_null(node.named_children[0])
    if inner.type == "generic_type":
        name, args = inner.child_by_field_name("name"), inner.child_by_field_name("type_arguments")
        if name is None or text(name) not in _MAPPINGS or args is None:
            return None
        if args.named_child_count != 2:
            return None
        value = _without_null(args.named_children[1])
    elif inner.type == "object_type" and inner.named_child_count == 1:
        signature = inner.named_children[0]  # `{ [key: string]: C }`
        typed = (
            signature.child_by_field_name("type") if signature.type == "index_signature" else None
        )
        if typed is None or typed.named_child_count != 1:
            return None
        value = _without_null(typed.named_children[0])
    else:
        return None
    return value if value.type == "type_identifier" else None


def promised_class(node: ts.Node | None, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The class ``Promise<C>`` (or ``PromiseLike<C>``) resolves to, or None:
    what a ``.then()`` callback is given."""
    if node is None or node.type != "type_annotation" or node.named_child_count != 1:
        return None
    promised = _argument_of(_without_null(node.named_children[0]), _PROMISES, text)
    return promised if promised is not None and promised.type == "type_identifier" else None


def _argument_of(
    node: ts.Node, names: frozenset[str], text: Callable[[ts.Node], str]
) -> ts.Node | None:
    """The one type argument of ``Name<X>`` for a ``Name`` in ``names``."""
    if node.type != "generic_type":
        return None
    name, args = node.child_by_field_name("name"), node.child_by_field_name("type_arguments")
    if name is None or text(name) not in names or args is None or args.named_child_count != 1:
        return None
    return args.named_children[0]
