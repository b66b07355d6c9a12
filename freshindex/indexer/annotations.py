"""What a Python annotation names, for the binder's value flow
(indexer/flow_python.py): the class of ``User``, ``Optional[User]``,
``User | None`` and a quoted forward reference ``"models.User"``, the
classes of a union (``Object | Alias``), and what
a container annotation holds (``list[User]``, ``dict[str, User]``,
``t.Sequence[User]``, ``tuple[User, ...]``), and what calling a
``Callable[..., User]`` gives. Read from the syntax tree
alone, as a type checker reads the annotation, without evaluating it."""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter as ts

# annotations that say nothing of a value's class
_ANY = frozenset({"Any", "object"})


def class_expr(annotation: ts.Node | None, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The class an annotation names: ``User``, ``models.User``,
    ``Optional[User]``, ``User | None``, a forward reference ``"User"``;
    None for anything else, ``Any`` and ``object`` included."""
    n = _optional_inner(annotation, text)
    if n is not None and n.type == "string":
        return n if forward_reference(n, text) is not None else None
    if n is not None and n.type in ("generic_type", "subscript"):
        n = _generic_class(n, text)
    if n is None or n.type not in ("identifier", "attribute"):
        return None
    # `x: Any` (`object`) says nothing of what x holds: x is read as if
    # unannotated, from what is assigned or passed to it
    return None if text(n).rpartition(".")[2] in _ANY else n


def union_classes(annotation: ts.Node | None, text: Callable[[ts.Node], str]) -> list[ts.Node]:
    """The classes a union of classes names (``Object | Alias``, ``Union[A,
    m.B]``, ``Optional[Union[A, B]]``, ``A | B | None``): a value of it is an
    instance of one of them. [] unless two or more members are each a
    class as ``class_expr`` reads one (a member that is no class, such as
    ``list[A] | B``, makes it no union of classes)."""
    members: list[ts.Node] = []
    todo = [annotation]
    while todo:
        n = todo.pop()
        if n is None:
            return []
        if n.type == "type" and n.named_child_count == 1:
            todo.append(n.named_children[0])
        elif n.type == "binary_operator":
            todo += [n.child_by_field_name("right"), n.child_by_field_name("left")]
        elif n.type == "union_type":
            todo += reversed(n.named_children)
        elif n.type == "generic_type" and text(n.named_children[0]) in ("Union", "Optional"):
            todo += reversed(n.named_children[-1].named_children)
        elif n.type != "none" and text(n) != "None":
            members.append(n)
    classes = [class_expr(m, text) for m in members]
    if len(classes) < 2 or any(c is None for c in classes):
        return []
    return [c for c in classes if c is not None]


def is_generic(annotation: ts.Node | None, text: Callable[[ts.Node], str]) -> bool:
    """Whether the class an annotation names is written generic (``Box[int]``):
    its head may be a type alias rather than a class (``Lifespan[Any]`` of
    ``Lifespan = Union[...]``), so it is one value beside the assigned ones,
    not the type that overrides them."""
    n = _optional_inner(annotation, text)
    return n is not None and n.type in ("generic_type", "subscript")


def _generic_class(n: ts.Node, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The class a generic annotation is an instance of (``MultiDict[str,
    str]``, ``ds.MultiDict[str, str]``: ``MultiDict``); None for a container
    (read by ``contained``) and for typing's forms that are no one class's
    instance (``Union[A, B]``, ``type[A]``, ``Callable[..., A]``)."""
    head = n.named_children[0] if n.type == "generic_type" else n.child_by_field_name("value")
    if head is None or head.type not in ("identifier", "attribute"):
        return None
    kind = text(head).rsplit(".", 1)[-1]
    return None if kind in ITERABLES or kind in MAPPINGS or kind in NOT_ONE_CLASS else head


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def forward_reference(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """The dotted name a quoted annotation holds (``"User"``, ``'models.User'``),
    None for anything else (``"list[User]"``, an f-string)."""
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    if len(parts) != 1 or parts[0].type != "string_content":
        return None
    inner = text(parts[0])
    return inner if _DOTTED.fullmatch(inner) else None


# generic containers, by what iterating and subscripting them gives
SEQUENCES = frozenset(
    {"list", "List", "Sequence", "MutableSequence", "tuple", "Tuple", "deque", "Deque"}
)
ITERABLES = SEQUENCES | {
    "set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet", "Collection",
    "Iterable", "Iterator", "Generator", "AsyncIterable", "AsyncIterator", "AsyncGenerator",
}  # fmt: skip
MAPPINGS = frozenset(
    {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict"}
)
# typing's generic forms whose value is not an instance of the form itself
NOT_ONE_CLASS = frozenset({
    "Union", "Optional", "Literal", "Type", "type", "Callable", "Annotated", "ClassVar",
    "Final", "TypeGuard", "TypeIs", "Required", "NotRequired", "ReadOnly", "Unpack",
    "Concatenate", "Awaitable", "Coroutine", "Generic", "Protocol",
})  # fmt: skip


def contained(
    annotation: ts.Node | None, text: Callable[[ts.Node], str], role: str = "element"
) -> ts.Node | None:
    """The class a container annotation holds: for ``role="element"`` what
    iterating gives (``list[User]``, ``t.Sequence[User]``,
    ``Optional[Iterable[User]]``, ``tuple[User, ...]``, a mapping's keys), for
    ``role="item"`` what subscripting gives (a sequence's elements, a
    mapping's values: ``dict[str, User]``), for ``role="result"`` what
    calling gives (``Callable[..., User]``); None for anything else."""
    kind, params = _form(_optional_inner(annotation, text), text)
    if not params:
        return None
    if role == "result":  # Callable[[A, B], User], Callable[..., User]: calling gives a User
        return class_expr(params[-1], text) if kind == "Callable" and len(params) == 2 else None
    # tuple[A, B] holds no one class; tuple[A, ...] and tuple[A] do
    if kind in ("tuple", "Tuple") and len(params) > 1 and text(params[-1]) != "...":
        return None
    if kind in MAPPINGS:
        if role == "item":
            return class_expr(params[1], text) if len(params) == 2 else None
        return class_expr(params[0], text)
    if kind in (SEQUENCES if role == "item" else ITERABLES):
        return class_expr(params[0], text)
    return None


def class_of_type(annotation: ts.Node | None, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The class a ``type[User]`` annotation (``Type[User]``,
    ``type[User] | None``) names: the value is that class itself, so calling
    it makes a User; None for anything else."""
    kind, params = _form(_optional_inner(annotation, text), text)
    return class_expr(params[0], text) if kind in ("type", "Type") and len(params) == 1 else None


def tuple_classes(
    annotation: ts.Node | None, text: Callable[[ts.Node], str]
) -> list[ts.Node | None]:
    """The class at each position of ``tuple[User, Group]`` (None where a
    position names no one class); [] for anything else (``tuple[User, ...]``
    holds Users at any position: ``contained``)."""
    kind, params = _form(_optional_inner(annotation, text), text)
    if kind not in ("tuple", "Tuple") or len(params) < 2 or text(params[-1]) == "...":
        return []
    return [class_expr(p, text) for p in params]


def _form(n: ts.Node | None, text: Callable[[ts.Node], str]) -> tuple[str, list[ts.Node]]:
    """A generic annotation's form and parameters (``t.Sequence[User]``:
    ``("Sequence", [User])``); ``("", [])`` for anything else."""
    head: ts.Node | None
    if n is None:
        return "", []
    if n.type == "generic_type":
        head, last = n.named_children[0], n.named_children[-1]
        params = last.named_children if last.type == "type_parameter" else []
    elif n.type == "subscript":  # t.Sequence[User]
        head = n.child_by_field_name("value")
        params = n.children_by_field_name("subscript")
    else:
        return "", []
    return (text(head).rsplit(".", 1)[-1] if head is not None else ""), params


def is_callable(annotation: ts.Node | None, text: Callable[[ts.Node], str]) -> bool:
    return contained(annotation, text, "result") is not None


def is_container(annotation: ts.Node | None, text: Callable[[ts.Node], str]) -> bool:
    return (
        contained(annotation, text) is not None or contained(annotation, text, "item") is not None
    )


# `Annotated[User, ...]`, `ClassVar[User]`, `Final[User]`: a User
_WRAPPERS = frozenset({"Annotated", "ClassVar", "Final"})
_WRAPPED = re.compile(r"(?:\w+\.)*(?:Annotated|ClassVar|Final)")


def _optional_inner(annotation: ts.Node | None, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """An annotation without its ``type`` wrapper, ``Optional[...]``, ``| None``,
    ``ClassVar[...]``, ``Final[...]`` or ``Annotated[..., metadata]``
    (FastAPI's ``Annotated[Session, Depends(get_session)]`` is a Session, as
    a type checker reads it)."""
    n = annotation
    while n is not None:
        if n.type == "type":
            n = n.named_children[0] if n.named_child_count == 1 else None
        elif n.type == "generic_type" and text(n.named_children[0]) == "Optional":
            params = n.named_children[-1]
            if params.named_child_count != 1:
                return None
            n = params.named_children[0]
        elif n.type == "generic_type" and text(n.named_children[0]) in _WRAPPERS:
            params = n.named_children[-1]
            n = params.named_children[0] if params.named_child_count else None
        elif n.type == "subscript" and _WRAPPED.fullmatch(text(n.named_children[0])):
            n = n.child_by_field_name("subscript")  # typing.Annotated[User, ...]: its first
        elif n.type == "union_type":  # list[X] | None (a generic's union is one of these)
            others = [c for c in n.named_children if text(c) != "None"]
            n = others[0] if len(others) == 1 else None
        elif n.type == "binary_operator":  # X | None
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if right is not None and right.type == "none":
                n = left
            elif left is not None and left.type == "none":
                n = right
            else:
                return None
        else:
            return n
    return None
