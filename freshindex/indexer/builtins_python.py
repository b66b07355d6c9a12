"""Receivers of a builtin type: ``"-".join(parts)``, ``names: list[str]``
then ``names.append(n)``, ``seen = {}`` then ``seen.get(k)``.

A method called on a value that can only be a str, bytes, list, dict, set,
tuple or number is that type's method: a call into the platform, as a call
of an imported library is (``external``), and not a candidate for every
method of the repository with the same name. ``get``, ``append``, ``items``
and ``join`` are among the names projects define most, so these calls were
most of the candidates a ``refs`` of such a method listed.

Only values the rules see whole count: a literal, a call of a builtin type
or function that makes one (unshadowed), a builtin method's result
(``s.strip()`` is a str), an annotation of a builtin type, and a local all
of whose bindings are those. A parameter without an annotation can be
given anything by another file's call, so it is never one.

The same holds for an instance of a class imported from outside the
repository (``s: Session``, ``t = requests.Session()``, ``q =
queue.Queue()``, ``logging.getLogger(name)``): its type is spelled with its
module (``requests.Session``), and its methods are that
library's (indexer/outside_python.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import tree_sitter as ts

from freshindex.indexer.outside_python import Lookup, outside_class, outside_made

if TYPE_CHECKING:
    from freshindex.indexer.flow_python import Flow
    from freshindex.indexer.scope_python import Scope

BUILTIN_TYPES = frozenset(
    {
        "str",
        "bytes",
        "bytearray",
        "int",
        "float",
        "complex",
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
    }
)
# typing's names for them
_TYPING = {
    "List": "list",
    "Dict": "dict",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Tuple": "tuple",
    "Text": "str",
    "DefaultDict": "dict",
    # the abstract ones a value is annotated with: their methods are the
    # platform's as a type checker reads them, whatever class implements them
    "Mapping": "dict",
    "MutableMapping": "dict",
    "Sequence": "list",
    "MutableSequence": "list",
}
_TYPING_MODULES = ("typing", "typing_extensions", "collections.abc")
_LITERALS = {
    "string": "str",
    "concatenated_string": "str",
    "integer": "int",
    "float": "float",
    "list": "list",
    "list_comprehension": "list",
    "dictionary": "dict",
    "dictionary_comprehension": "dict",
    "set": "set",
    "set_comprehension": "set",
    "tuple": "tuple",
    # a function's own `*args` and `**kwargs`
    "list_splat_pattern": "tuple",
    "dictionary_splat_pattern": "dict",
}
# builtin functions whose result is of a builtin type
_MADE = {
    **{t: t for t in BUILTIN_TYPES},
    **dict.fromkeys(("repr", "ascii", "chr", "format", "hex", "oct", "bin"), "str"),
    "sorted": "list",
}
_STR_TO_STR = [
    "capitalize",
    "casefold",
    "center",
    "expandtabs",
    "format",
    "format_map",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "removeprefix",
    "removesuffix",
    "replace",
    "rjust",
    "rstrip",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
]
# methods of a builtin type whose result is of a builtin type
_RESULTS: dict[str, dict[str, str]] = {
    "str": {
        **dict.fromkeys(_STR_TO_STR, "str"),
        **dict.fromkeys(("split", "rsplit", "splitlines"), "list"),
        "encode": "bytes",
    },
    "bytes": {
        **dict.fromkeys(_STR_TO_STR, "bytes"),
        **dict.fromkeys(("split", "rsplit", "splitlines"), "list"),
        "decode": "str",
        "hex": "str",
    },
    "list": {"copy": "list"},
    "dict": {"copy": "dict"},
    "set": {"copy": "set", "union": "set", "intersection": "set", "difference": "set"},
    "re.Pattern": {
        **dict.fromkeys(("match", "search", "fullmatch"), "re.Match"),
        "sub": "str",
        "split": "list",
        "findall": "list",
    },
}
MAX_DEPTH = 4


def builtin_type(
    node: ts.Node, scope: Scope, text: Callable[[ts.Node], str], lookup: Lookup, depth: int = 0
) -> str | None:
    """The builtin type every value of ``node`` has ("str", "list", ...; "str
    or bytes" when it may be either); None when it may be anything else."""
    if depth > MAX_DEPTH:
        return None
    t = node.type
    if t in _LITERALS:
        if t == "string" and text(node)[:2].lower() in ('b"', "b'", "rb", "br"):
            return "bytes"
        return _LITERALS[t]
    if t == "parenthesized_expression" and node.named_child_count == 1:
        return builtin_type(node.named_children[0], scope, text, lookup, depth + 1)
    if t == "boolean_operator":  # `re.match(a, s) or re.match(b, s)`: what both give
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        made = builtin_type(left, scope, text, lookup, depth + 1)
        return (
            made if made and made == builtin_type(right, scope, text, lookup, depth + 1) else None
        )
    if t == "binary_operator":  # "%s: %s" % args, "a" + b
        left = node.child_by_field_name("left")
        op = node.child_by_field_name("operator")
        if left is not None and op is not None and text(op) in ("%", "+"):
            made = builtin_type(left, scope, text, lookup, depth + 1)
            return made if made in ("str", "bytes") else None
        return None
    if t == "call":
        fn = node.child_by_field_name("function")
        if fn is not None and fn.type == "identifier":
            name = text(fn)
            if lookup(scope, name)[0] is None:
                return _MADE.get(name)
            return outside_made(fn, scope, text, lookup, node)
        if fn is not None and fn.type == "attribute":
            obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
            if obj is None or attr is None:
                return None
            made = builtin_type(obj, scope, text, lookup, depth + 1)
            if made is None and obj.type == "identifier":  # `requests.Session()`
                return outside_made(fn, scope, text, lookup, node)
            return _RESULTS.get(made or "", {}).get(text(attr))
        return None
    if t == "identifier":
        return _name_type(text(node), scope, text, lookup, depth)
    return None


def _name_type(
    name: str, scope: Scope, text: Callable[[ts.Node], str], lookup: Lookup, depth: int
) -> str | None:
    bound, where = lookup(scope, name)
    if bound is None or where is None:
        return None
    if bound.what == "typed":
        if bound.type_node is None:
            return None
        return annotated(bound.type_node, bound.type_scope or where, text, lookup)
    if bound.what not in ("local", "var"):
        return None
    flows = where.flows.get(name, [])
    if name in where.params and not any(f.declared for f in flows):
        return None  # other files' calls may pass it anything
    return flows_type(flows, text, lookup, depth)


def flows_type(
    flows: list[Flow], text: Callable[[ts.Node], str], lookup: Lookup, depth: int = 0
) -> str | None:
    """The builtin type every value a name or holder is given has: its
    annotations' if it has any (as a type checker reads it), else its
    values'; None if any may be something else."""
    declared = [f for f in flows if f.declared]
    found: set[str] = set()
    for flow in declared or flows:
        if flow.node is None or flow.scope is None or flow.value is not None:
            return None
        if flow.step == "" and flow.node.type == "subscript":
            # `EventDict = MutableMapping[str, Any]`: an alias of the type
            made = annotated(flow.node, flow.scope, text, lookup)
        elif flow.step == "":
            made = builtin_type(flow.node, flow.scope, text, lookup, depth + 1)
        elif flow.step in ("instance", "items"):
            made = annotated(flow.node, flow.scope, text, lookup)
        else:
            made = None
        if made is None:
            return None
        found.add(made)
    return " or ".join(sorted(found)) if found else None


def annotated(
    annotation: ts.Node, scope: Scope, text: Callable[[ts.Node], str], lookup: Lookup
) -> str | None:
    """The builtin type an annotation names: ``str``, ``Optional[str]``,
    ``list[User]``, ``dict[str, int] | None``, ``typing.List[int]``."""
    n: ts.Node | None = annotation
    while n is not None and n.type in (
        "type",
        "generic_type",
        "subscript",
        "binary_operator",
        "union_type",
    ):
        if n.type == "type":
            n = n.named_children[0] if n.named_child_count == 1 else None
        elif n.type == "union_type":  # list[X] | None
            others = [c for c in n.named_children if text(c) != "None"]
            n = others[0] if len(others) == 1 else None
        elif n.type == "binary_operator":  # X | None
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            n = left if right is not None and right.type == "none" else None
        elif text(n.named_children[0]).rpartition(".")[2] == "Optional":
            inner = n.named_children[-1].named_children
            n = inner[0] if len(inner) == 1 else None
        else:  # list[User]: a list
            n = n.named_children[0]
    if n is None or n.type not in ("identifier", "attribute"):
        return None
    written = text(n)
    module, _, name = written.rpartition(".")
    if not module and name in BUILTIN_TYPES:
        return name if lookup(scope, name)[0] is None else None
    if name not in _TYPING:
        return outside_class(n, scope, text, lookup)
    if module in _TYPING_MODULES:  # typing.List[int]
        return _TYPING[name]
    bound, _where = lookup(scope, name)  # from typing import List
    if (
        not module
        and bound is not None
        and bound.what == "import"
        and bound.module in _TYPING_MODULES
    ):
        return _TYPING[name]
    return None


def result_of(held: str) -> str | None:
    """What calling a builtin value the linker holds gives (query/link.py):
    a method of a builtin or outside type (``re.Pattern:match``) gives its
    result when _RESULTS knows it, else None; a type (an alias,
    ``EventDict()``) gives an instance of itself."""
    owner, sep, member = held.partition(":")
    if not sep:
        return held
    return _RESULTS.get(owner, {}).get(member)
