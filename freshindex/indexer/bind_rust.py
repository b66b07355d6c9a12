"""Rust receivers: the declared type of what a method is called on.

Rust declares most of what a method call needs: ``self`` in an ``impl``
block is its type, a parameter is written ``p: &Repo``, a ``let`` may be
annotated (``let r: Repo = ...``), and a struct declares its fields. So
``r.save()`` names ``Repo.save`` when ``r`` is ``self``, a parameter, a
``let`` annotated or made with ``Repo { .. }`` or ``Repo::new()`` (an
associated function of this file declared ``-> Self`` or ``-> Repo``), or
``self.repo`` of a field declared ``repo: Repo``; ``Repo::open()`` names
``Repo.open``. One query of the nodes that declare or call, in source
order, with a stack of the open ``impl`` blocks and functions; a name takes
its last declaration before the call. What the walk finds is a type *name*
as written; extract.py resolves it as a ``use`` or a definition of the file.

A reference, ``Box``, ``Rc`` or ``Arc`` around a type is the type
(auto-deref); ``dyn Shape``, ``impl Shape`` and a type parameter bound by
one trait (``<T: Shape>``, ``where T: Shape``) are the trait; any other
generic is its own type (``Vec<Repo>`` is a ``Vec``: the language's, as
``&str`` is, external), and an untyped name leaves the call a candidate.

Over 400 lines as one concept: the one walk that types a receiver, with
the declarations, return types and chains it reads along the way.
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer import chains
from freshindex.indexer.languages import in_source_order, within_open

_PATTERNS = """
(impl_item) @impl
(function_item) @function
(let_declaration) @let
(call_expression) @call
(macro_invocation (token_tree (identifier) @token . (token_tree)))
(macro_invocation (token_tree (token_tree (identifier) @token . (token_tree))))
(macro_invocation (token_tree (token_tree (token_tree (identifier) @token . (token_tree)))))
"""
# smart pointers a method call sees through
_DEREF = frozenset({"Box", "Rc", "Arc"})
# the step of a chain for what `?`, `.unwrap()` or `.expect()` gives of a
# Result or an Option (indexer/chains.py)
UNWRAPPED = "." + chains.UNWRAP
_UNWRAPS = frozenset({"unwrap", "expect"})
_WRAPPERS = frozenset({"Result", "Option"})
_CONSTRUCTORS = frozenset({"new", "default", "with_capacity"})  # make their type, by convention


def receiver_types(root: ts.Node, text: Callable[[ts.Node], str]) -> dict[int, tuple[str, str]]:
    """The start byte of each called method's (or associated function's)
    name -> (the receiver as written, its type's name as written)."""
    fields, returns = _declared(root, text)
    out: dict[int, tuple[str, str]] = {}
    # (where it ends, the declarations in scope, the impl block's type)
    stack: list[tuple[int, dict[str, str], str]] = [(root.end_byte, {}, "")]
    for node, kind in within_open(in_source_order("rust", _PATTERNS, root), stack):
        _end, scope, own = stack[-1]
        if kind == "impl":
            stack.append(
                (node.end_byte, {}, type_name(node.child_by_field_name("type"), text) or "")
            )
        elif kind == "function":
            inner = {"self": own} if own else {}
            bounds = _bounds(node, text)
            params = node.child_by_field_name("parameters")
            for p in params.named_children if params is not None else []:
                pattern = p.child_by_field_name("pattern")
                if p.type == "parameter" and pattern is not None and pattern.type == "identifier":
                    declared = type_name(p.child_by_field_name("type"), text, own) or ""
                    inner[text(pattern)] = bounds.get(declared, declared)
            stack.append((node.end_byte, inner, own))
        elif kind == "let":
            pattern = node.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier":
                typed = type_name(node.child_by_field_name("type"), text, own)
                value = node.child_by_field_name("value")
                made = _made(value, text, own, returns, scope, fields) if value else None
                if made is None and value is not None and value.type == "call_expression":
                    made = _chain(value, text, own, returns, scope, fields)  # B::new().port(2)
                scope[text(pattern)] = typed or made or ""
        elif kind == "token":  # `assert!(r.ok())` (the calls extract.py keeps)
            found = _token_receiver(node, scope, fields, text, stack[-1][2])
            if found is not None and found[1]:
                out[node.start_byte] = (text(found[0]), found[1])
        else:
            fn = node.child_by_field_name("function")
            if fn is None:
                continue
            if fn.type == "field_expression":  # r.save()
                receiver, name = fn.child_by_field_name("value"), fn.child_by_field_name("field")
                typed = (
                    _receiver(receiver, scope, fields, text, own, returns)
                    if receiver is not None
                    else None
                )
            elif fn.type == "scoped_identifier":  # Repo::open()
                receiver, name = fn.child_by_field_name("path"), fn.child_by_field_name("name")
                typed = _path_type(receiver, text, own) if receiver is not None else None
            else:
                continue
            if typed and name is not None and receiver is not None:
                out[name.start_byte] = (text(receiver), typed)
    return out


def token_call(name: ts.Node, data: bytes) -> bool:
    """Whether a name among a macro's tokens is called: its next token is a
    parenthesised token tree (`make(...)`, not `format!(...)` or `a[0]`)."""
    after = name.next_sibling
    return after is not None and after.type == "token_tree" and data[after.start_byte] == 40


def _token_receiver(
    name: ts.Node,
    scope: dict[str, str],
    fields: dict[str, dict[str, str]],
    text: Callable[[ts.Node], str],
    own: str,
) -> tuple[ts.Node, str | None] | None:
    """A method or associated function called among a macro's tokens: the
    receiver token and its type (``s.get(..)`` on a typed ``s``, ``Repo::new(..)``)."""
    before = name.prev_sibling
    if before is None or before.type not in (".", "::"):
        return None
    receiver = before.prev_sibling
    if receiver is None or receiver.type not in ("identifier", "self"):
        return None
    if before.type == ".":
        return receiver, _receiver(receiver, scope, fields, text)
    return receiver, _path_type(receiver, text, own)


def _receiver(
    node: ts.Node,
    scope: dict[str, str],
    fields: dict[str, dict[str, str]],
    text: Callable[[ts.Node], str],
    own: str = "",
    returns: dict[str, tuple[str, bool]] | None = None,
) -> str | None:
    if node.type == "call_expression" and returns is not None:  # Builder::new().port(1)
        return _chain(node, text, own, returns, scope, fields)
    if node.type in ("identifier", "self"):
        return scope.get(text(node)) or None
    if node.type == "field_expression":  # self.repo.save()
        value, field = node.child_by_field_name("value"), node.child_by_field_name("field")
        owner = _receiver(value, scope, fields, text) if value is not None else None
        return fields.get(owner or "", {}).get(text(field)) if field is not None else None
    if node.type in ("parenthesized_expression", "reference_expression") and node.named_child_count:
        return _receiver(node.named_children[-1], scope, fields, text)
    return None


def passed_type(
    scoped: ts.Node, text: Callable[[ts.Node], str], own: str
) -> tuple[str, str] | None:
    """``.map(Repo::open)``: (the path as written, its type's name as
    written), as for ``Repo::open()``; ``own``: the impl's, for ``Self::``."""
    path = scoped.child_by_field_name("path")
    typed = _path_type(path, text, own) if path is not None else None
    return (text(path), typed) if path is not None and typed else None


def _path_type(path: ts.Node, text: Callable[[ts.Node], str], own: str) -> str | None:
    """The type of ``Repo::`` (``Self::`` in an impl block); a module path
    (``db::open()``) is not a type: lower case by Rust's convention."""
    written = text(path)
    if written == "Self":
        return own or None
    last = written.rsplit("::", 1)[-1]
    return (
        written.replace("::", ".")
        if path.type in ("identifier", "scoped_identifier") and last[:1].isupper()
        else None
    )


def _made(
    value: ts.Node,
    text: Callable[[ts.Node], str],
    own: str,
    returns: dict[str, tuple[str, bool]],
    scope: dict[str, str],
    fields: dict[str, dict[str, str]],
) -> str | None:
    """The type a ``let``'s value is made as: ``Repo { .. }``, or what a call
    returns: ``Repo::new()`` of an associated function this file declares
    returning ``Self`` or ``Repo``; otherwise a chain the linker walks over
    the callee's return facts (``Repo.open()``, ``make()``, ``Repo.open().?``
    for ``Repo::open()?`` or ``.unwrap()`` of a ``Result``/``Option``)."""
    if value.type == "struct_expression":
        return type_name(value.child_by_field_name("name"), text, own)
    unwrapped = ""
    if value.type == "try_expression" and value.named_child_count == 1:  # open()?
        value, unwrapped = value.named_children[0], UNWRAPPED
    elif value.type == "call_expression":  # open().unwrap(), open().expect("...")
        fn = value.child_by_field_name("function")
        field = fn.child_by_field_name("field") if fn is not None else None
        inner = fn.child_by_field_name("value") if fn is not None else None
        if field is not None and inner is not None and text(field) in _UNWRAPS:
            value, unwrapped = inner, UNWRAPPED
    if value.type != "call_expression":
        return None
    fn = value.child_by_field_name("function")
    called = None
    if fn is not None and fn.type == "scoped_identifier":  # Repo::open()
        path, name = fn.child_by_field_name("path"), fn.child_by_field_name("name")
        owner = _path_type(path, text, own) if path is not None else None
        called = f"{owner}.{text(name)}" if owner and name is not None else None
    elif fn is not None and fn.type == "identifier":  # make()
        called = text(fn)
    elif fn is not None and fn.type == "field_expression":  # repo.session()
        receiver, name = fn.child_by_field_name("value"), fn.child_by_field_name("field")
        typed = _receiver(receiver, scope, fields, text) if receiver is not None else None
        called = f"{typed}.{text(name)}" if typed and name is not None else None
    if called is None:
        return None
    if called in returns:
        made, wrapped = returns[called]
        return made if wrapped == bool(unwrapped) else None
    owner, _, function = called.rpartition(".")
    if owner and function in _CONSTRUCTORS and not unwrapped:  # HashMap::new(): a HashMap
        return owner
    chain = f"{called}(){unwrapped}"
    return chain if chains.length(chain) <= chains.MAX_STEPS else None


def _chain(
    call: ts.Node,
    text: Callable[[ts.Node], str],
    own: str,
    returns: dict[str, tuple[str, bool]],
    scope: dict[str, str],
    fields: dict[str, dict[str, str]],
) -> str | None:
    """What a chain of calls gives (``Builder::new().port(1).build()``): its
    first call as a ``let`` reads it, then each method through the file's
    return types or as a chain the linker walks (chains.unwind)."""

    def method(node: ts.Node) -> tuple[ts.Node, str] | None:
        fn = node.child_by_field_name("function")
        inner = fn.child_by_field_name("value") if fn is not None else None
        field = fn.child_by_field_name("field") if fn is not None else None
        if (
            fn is None
            or fn.type != "field_expression"
            or inner is None
            or field is None
            or inner.type != "call_expression"
            or text(field) in _UNWRAPS  # open().unwrap(): a start _made reads
        ):
            return None
        return inner, text(field)

    walked = chains.unwind(call, method)
    if walked is None:
        return None
    node, methods = walked
    if node is None:
        return None
    typed = _made(node, text, own, returns, scope, fields)
    for name in methods:
        if not typed:
            return None
        called = f"{typed}.{name}"
        if called in returns:
            made, wrapped = returns[called]
            typed = made if not wrapped else None
        else:
            typed = f"{called}()" if chains.length(called) < chains.MAX_STEPS else None
    return typed or None


def _declared(
    root: ts.Node, text: Callable[[ts.Node], str]
) -> tuple[dict[str, dict[str, str]], dict[str, tuple[str, bool]]]:
    """The file's struct fields (struct -> field -> type) and what its
    functions return (``Repo.new`` -> (``Repo``, False); a ``Result`` or an
    ``Option`` of ``Repo``: (``Repo``, True))."""
    fields: dict[str, dict[str, str]] = {}
    returns: dict[str, tuple[str, bool]] = {}
    for top in root.named_children:
        if top.type == "struct_item":
            name, body = top.child_by_field_name("name"), top.child_by_field_name("body")
            if name is None or body is None or body.type != "field_declaration_list":
                continue
            own = fields.setdefault(text(name), {})
            for f in body.named_children:
                field, kind = (
                    f.child_by_field_name("name"),
                    type_name(f.child_by_field_name("type"), text),
                )
                if f.type == "field_declaration" and field is not None and kind:
                    own[text(field)] = kind
    for holder, (made, wrapped), _name in returned(root, text):
        returns[holder] = (made, wrapped)
    return fields, returns


def returned(
    root: ts.Node, text: Callable[[ts.Node], str]
) -> list[tuple[str, tuple[str, bool], ts.Node]]:
    """What each function at the top of the file or in an ``impl`` block
    returns, when that is a named type: (``Repo.open``, (type as written,
    whether a ``Result`` or an ``Option`` wraps it), the function's name)."""
    out = []
    for top in root.named_children:
        owner, items = "", [top]
        if top.type == "impl_item":
            owner = type_name(top.child_by_field_name("type"), text) or ""
            body = top.child_by_field_name("body")
            items = body.named_children if owner and body is not None else []
        for item in items:
            name = item.child_by_field_name("name")
            if item.type != "function_item" or name is None:
                continue
            made = _returned_type(item.child_by_field_name("return_type"), text, owner)
            if made is not None:
                out.append((f"{owner}.{text(name)}" if owner else text(name), made, name))
    return out


def return_facts(root: ts.Node, text: Callable[[ts.Node], str]) -> list[tuple[str, str, ts.Node]]:
    """(holder, type as written, where) of each function's return: the holder
    is ``Repo.open()``, or ``Repo.open().?`` for a ``Result``/``Option`` of it."""
    return [
        (f"{holder}(){UNWRAPPED if wrapped else ''}", made, name)
        for holder, (made, wrapped), name in returned(root, text)
    ]


def _returned_type(
    node: ts.Node | None, text: Callable[[ts.Node], str], own: str
) -> tuple[str, bool] | None:
    """(named type, wrapped) of a return type: ``Repo``, ``Self``, or
    ``Result<Repo, E>``/``Option<Repo>``/``io::Result<Repo>`` (wrapped)."""
    if node is not None and node.type == "generic_type":
        head, args = node.child_by_field_name("type"), node.child_by_field_name("type_arguments")
        if head is not None and text(head).rsplit("::", 1)[-1] in _WRAPPERS:
            first = args.named_children[0] if args is not None and args.named_children else None
            inner = type_name(first, text, own)
            return (inner, True) if inner else None
    made = type_name(node, text, own)
    return (made, False) if made else None


def _bounds(function: ts.Node, text: Callable[[ts.Node], str]) -> dict[str, str]:
    """A generic function's type parameters bound by one trait each
    (``<T: Shape>``, ``where T: Shape``) -> that trait: a method called on a
    ``T`` is the trait's. A parameter with two bounds (``T: Shape + Clone``)
    could be either's, and is left out."""
    out: dict[str, str] = {}
    declared = function.child_by_field_name("type_parameters")
    pairs = [
        (p.child_by_field_name("name"), p.child_by_field_name("bounds"))
        for p in (declared.named_children if declared is not None else [])
        if p.type == "type_parameter"
    ]
    for c in function.named_children:
        if c.type == "where_clause":
            pairs += [
                (w.child_by_field_name("left"), w.child_by_field_name("bounds"))
                for w in c.named_children
                if w.type == "where_predicate"
            ]
    for name, bounds in pairs:
        traits = [b for b in bounds.named_children if b.type != "lifetime"] if bounds else []
        if name is not None and len(traits) == 1:
            trait = type_name(traits[0], text)
            if trait:
                out[text(name)] = trait
    return out


def type_name(node: ts.Node | None, text: Callable[[ts.Node], str], own: str = "") -> str | None:
    """The named type a type expression is, through ``&``, ``&mut``, ``Box``,
    ``Rc`` and ``Arc`` (``Self`` is ``own``); a trait object or ``impl
    Trait`` is the trait; None for anything else."""
    while node is not None:
        if node.type == "reference_type":
            node = node.child_by_field_name("type")
        elif node.type in ("dynamic_type", "abstract_type"):  # &dyn Shape, impl Shape
            node = node.child_by_field_name("trait")
        elif node.type == "generic_type":
            head = node.child_by_field_name("type")
            args = node.child_by_field_name("type_arguments")
            if (
                head is not None
                and text(head) in _DEREF
                and args is not None
                and args.named_child_count == 1
            ):
                node = args.named_children[0]
            else:
                node = head  # Repo<T>: Repo's methods
        elif node.type == "type_identifier":
            written = text(node)
            return (own or None) if written == "Self" else written
        elif node.type == "scoped_type_identifier":
            return text(node).replace("::", ".")
        elif node.type == "primitive_type":  # s: &str, n: u64
            return text(node)
        else:
            return None
    return None
