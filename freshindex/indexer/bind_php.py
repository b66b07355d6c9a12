"""PHP receivers: the declared class of what a method is called on.

As in Java (indexer/bind_java.py): ``$r->save()`` names ``Repo::save`` when
``$r`` is a parameter typed ``Repo`` (``?Repo`` too), a variable assigned
``new Repo(...)`` (in a closure, one its ``use (...)`` takes from the
function around it), ``$this`` (the enclosing class), or ``$this->repo`` of a
property typed ``Repo`` (declared, or promoted from the constructor:
``private Repo $repo``); ``Repo::open()`` and ``self::``/``static::``
name the class's static method. One query of the nodes that declare or
call, in source order, with a stack of the open classes and functions. The
class is a name as written (``Repo``, ``\\Lib\\Store``); extract.py
resolves it through ``use``, this file's namespace or PSR-4's layout.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer import chains
from freshindex.indexer.languages import in_source_order, within_open

_PATTERNS = """
[(class_declaration) (trait_declaration)] @class
[(method_declaration) (function_definition) (anonymous_function)] @scope
(assignment_expression) @declare
[(member_call_expression) (scoped_call_expression)] @call
(array_creation_expression
  . (array_element_initializer [(class_constant_access_expression) (variable_name)])
  . (array_element_initializer (string (string_content)))
  .) @callable
"""
_OWN = ("self", "static")


def receiver_types(root: ts.Node, text: Callable[[ts.Node], str]) -> dict[int, tuple[str, str]]:
    """The start byte of each called method's name, and of one a callable
    array names -> (the receiver as written, the class it was declared
    with as written)."""
    out: dict[int, tuple[str, str]] = {}
    # (where it ends, the variables in scope, the properties, the class)
    stack: list[tuple[int, dict[str, str], dict[str, str], str]] = [(root.end_byte, {}, {}, "")]
    for node, kind in within_open(in_source_order("php", _PATTERNS, root), stack):
        _end, scope, fields, own = stack[-1]
        if kind == "class":
            name = node.child_by_field_name("name")
            stack.append((node.end_byte, {}, _properties(node, text), text(name) if name else ""))
        elif kind == "scope":
            inner = {"$this": own} if own else {}
            params = node.child_by_field_name("parameters")
            for p in params.named_children if params is not None else []:
                name = p.child_by_field_name("name")
                if name is not None and p.type in (
                    "simple_parameter",
                    "property_promotion_parameter",
                ):
                    inner[text(name)] = class_name(p.child_by_field_name("type"), text) or ""
            for used in _used(node):  # function () use ($repo, &$log): the outer ones
                inner[text(used)] = scope.get(text(used), "")
            stack.append((node.end_byte, inner, fields, own))
        elif kind == "declare":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "variable_name" and right is not None:
                made = (
                    right.named_children[0]
                    if right.type == "object_creation_expression" and right.named_child_count
                    else None
                )
                held = class_name(made, text) or _returned(right, scope, fields, own, text)
                scope[text(left)] = held or ""
        elif kind == "callable":  # [$this, 'format'], [UserController::class, 'index']
            found = _callable(node, scope, fields, own, text)
            if found is not None:
                out[found[0].start_byte] = found[1]
        else:
            name = node.child_by_field_name("name")
            if node.type == "member_call_expression":
                receiver = node.child_by_field_name("object")
                typed = None
                if receiver is not None and receiver.type in _CALLS:  # $r->child()->save()
                    typed = _returned(receiver, scope, fields, own, text)
                elif receiver is not None:
                    typed = _receiver(receiver, scope, fields, text)
            else:  # Repo::open(), self::open()
                receiver = node.child_by_field_name("scope")
                written = text(receiver) if receiver is not None else ""
                typed = own if written in _OWN else class_name(receiver, text)
            if typed and name is not None and receiver is not None:
                out[name.start_byte] = (text(receiver), typed)
    return out


def _callable(
    array: ts.Node,
    scope: dict[str, str],
    fields: dict[str, str],
    own: str,
    text: Callable[[ts.Node], str],
) -> tuple[ts.Node, tuple[str, str]] | None:
    """A method named as a callable array (a route's `[UserController::class,
    'index']`, `array_map([$this, 'format'], ...)`): the method's name node
    and (the receiver as written, its class as written)."""
    first = array.named_children[0].named_children[0]
    method = array.named_children[1].named_children[0].named_children[0]
    if first.type == "variable_name":
        typed = _receiver(first, scope, fields, text)
    else:  # Repo::class, self::class
        parts = first.named_children
        if len(parts) != 2 or text(parts[1]) != "class":
            return None
        written = text(parts[0])
        typed = own if written in _OWN else class_name(parts[0], text)
    return (method, (text(first), typed)) if typed else None


def _used(function: ts.Node) -> list[ts.Node]:
    """The variables a closure's ``use (...)`` clause takes from the scope
    around it (by value or ``&`` by reference)."""
    clause = next(
        (c for c in function.named_children if c.type == "anonymous_function_use_clause"), None
    )
    if clause is None:
        return []
    out = []
    for c in clause.named_children:
        held = c.named_children[0] if c.type == "by_ref" and c.named_child_count else c
        if held.type == "variable_name":
            out.append(held)
    return out


def _returned(
    call: ts.Node,
    scope: dict[str, str],
    fields: dict[str, str],
    own: str,
    text: Callable[[ts.Node], str],
) -> str | None:
    """What ``$r = Repo::open()``, ``$r = $repo->child()`` or ``$r = make()``
    holds, or the receiver ``$repo->child()`` of a call, as a chain the
    linker walks over the method's return fact (holder ``App.Repo.open()``,
    written by extract.py); a chain of calls step by step, up to
    ``chains.MAX_STEPS``."""
    walked = chains.unwind(call, functools.partial(_method_call, text=text))
    if walked is None:
        return None
    start, methods = walked
    if start is None:
        return None
    if start.type in _CALLS:  # Repo::open(), make(): the chain's first call
        typed = _first_call(start, own, text)
    else:
        typed = _receiver(start, scope, fields, text)
    return chains.returned_by(typed, *methods)


def _method_call(node: ts.Node, text: Callable[[ts.Node], str]) -> tuple[ts.Node, str] | None:
    """``$r->child()`` of a chain: its receiver and method (chains.unwind)."""
    if node.type != "member_call_expression":
        return None
    receiver, name = node.child_by_field_name("object"), node.child_by_field_name("name")
    if receiver is None or name is None or name.type != "name":
        return None
    return receiver, text(name)


_CALLS = ("member_call_expression", "scoped_call_expression", "function_call_expression")


def _first_call(call: ts.Node, own: str, text: Callable[[ts.Node], str]) -> str | None:
    """What ``Repo::open()`` or ``make()`` returns, as a chain."""
    if call.type == "function_call_expression":
        called = call.child_by_field_name("function")
        return f"{text(called)}()" if called is not None and called.type == "name" else None
    name = call.child_by_field_name("name")
    if call.type != "scoped_call_expression" or name is None or name.type != "name":
        return None
    receiver = call.child_by_field_name("scope")
    written = text(receiver) if receiver is not None else ""
    typed = own if written in _OWN else class_name(receiver, text)
    return chains.returned_by(typed, text(name))


def _receiver(
    node: ts.Node, scope: dict[str, str], fields: dict[str, str], text: Callable[[ts.Node], str]
) -> str | None:
    if node.type == "variable_name":
        return scope.get(text(node)) or None
    if node.type == "member_access_expression":  # $this->repo->save()
        obj, name = node.child_by_field_name("object"), node.child_by_field_name("name")
        if obj is not None and text(obj) == "$this" and name is not None:
            return fields.get(text(name)) or None
    if (
        node.type == "parenthesized_expression" and node.named_child_count == 1
    ):  # (new Repo())->save()
        inner = node.named_children[0]
        if inner.type == "object_creation_expression" and inner.named_child_count:
            return class_name(inner.named_children[0], text)
    return None


def _properties(cls: ts.Node, text: Callable[[ts.Node], str]) -> dict[str, str]:
    """A class's typed properties (``private Repo $repo;``) and the ones its
    constructor promotes (``private Repo $repo`` as a parameter), by name
    without ``$``, as ``$this->repo`` reads them."""
    out: dict[str, str] = {}
    body = cls.child_by_field_name("body")
    for member in body.named_children if body is not None else []:
        if member.type == "property_declaration":
            typed = class_name(member.child_by_field_name("type"), text)
            for element in member.named_children:
                name = (
                    element.child_by_field_name("name")
                    if element.type == "property_element"
                    else None
                )
                if name is not None:
                    out[text(name).lstrip("$")] = typed or ""
        elif member.type == "method_declaration":
            params = member.child_by_field_name("parameters")
            for p in params.named_children if params is not None else []:
                name = p.child_by_field_name("name")
                if p.type == "property_promotion_parameter" and name is not None:
                    out[text(name).lstrip("$")] = (
                        class_name(p.child_by_field_name("type"), text) or ""
                    )
    return out


def class_name(kind: ts.Node | None, text: Callable[[ts.Node], str]) -> str | None:
    """The class a type or a ``new`` names as written (``Repo``,
    ``Lib\\Store``, ``?Repo`` as ``Repo``); None for a builtin type, a union
    or anything else."""
    if kind is not None and kind.type == "optional_type" and kind.named_child_count == 1:
        kind = kind.named_children[0]
    if kind is not None and kind.type == "named_type" and kind.named_child_count == 1:
        kind = kind.named_children[0]
    if kind is None or kind.type not in ("name", "qualified_name"):
        return None
    written = text(kind)
    return None if written in _OWN or written == "parent" else written


# A function call's claim. PHP looks an unqualified `helper()` up in the
# file's namespace first and then in the global one, and a function may be
# defined in any file the program loaded, so the claim names the function
# and query/link.py looks it up in the whole repository when the index is
# read: not defined there, it is PHP's own or an extension's.
FUNCTION_VIA = "PHP function "
ELSE_GLOBAL = ", else global "
CALLBACK_VIA = ", named as a callback"
# the functions that take another function's name in a string, and which
# argument it is: `add_action('init', 'my_init')`, `usort($xs, 'cmp')`
CALLBACK_ARGUMENTS = {
    "array_map": 0, "call_user_func": 0, "call_user_func_array": 0, "is_callable": 0,
    "function_exists": 0, "register_shutdown_function": 0, "spl_autoload_register": 0,
    "set_error_handler": 0, "set_exception_handler": 0, "forward_static_call": 0,
    "array_filter": 1, "array_walk": 1, "array_walk_recursive": 1, "array_reduce": 1,
    "usort": 1, "uasort": 1, "uksort": 1, "preg_replace_callback": 1, "iterator_apply": 1,
    "add_action": 1, "add_filter": 1, "remove_action": 1, "remove_filter": 1,
    "has_action": 1, "has_filter": 1, "add_shortcode": 1,
    "register_activation_hook": 1, "register_deactivation_hook": 1,
}  # fmt: skip


def function_claim(
    written: str, namespace: str, imports: dict[str, tuple[str, str]]
) -> tuple[str, str]:
    """(qualname, via) of a function as a call writes it (``helper``,
    ``Util\\helper``, ``\\App\\helper``, ``namespace\\helper``) in a file of
    ``namespace`` (dotted): through a ``use`` of its name or of its first
    part, else in the namespace, falling back to the global function for
    an unqualified name as PHP does."""
    here = namespace.replace(".", "\\")
    head, sep, rest = written.partition("\\")
    fallback = ""
    if not head:  # \App\helper: fully qualified
        full = rest
    elif head == "namespace" and sep:  # namespace\helper: this namespace's
        full = f"{here}\\{rest}" if here else rest
    elif head in imports:  # `use function App\helper;`, `use App\Util;` before `Util\f()`
        full = imports[head][0].lstrip("\\") + (f"\\{rest}" if sep else "")
    elif here:
        full, fallback = f"{here}\\{written}", "" if sep else written
    else:
        full = written
    via = FUNCTION_VIA + full + (ELSE_GLOBAL + fallback if fallback else "")
    return full.replace("\\", "."), via


def callback_name(argument: ts.Node, call: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """The function a string names where a callable-taking function expects
    one (``add_action('init', 'my_init')``: ``my_init``), as PHP reads the
    string: a fully qualified name; None for any other string."""
    called = call.child_by_field_name("function")
    position = CALLBACK_ARGUMENTS.get(text(called)) if called is not None else None
    args = argument.parent
    if position is None or args is None or args.named_child_count <= position:
        return None
    if args.named_children[position] != argument:
        return None
    string = argument.named_children[0] if argument.named_child_count == 1 else None
    parts = string.named_children if string is not None and string.type == "string" else []
    if len(parts) != 1 or parts[0].type != "string_content":
        return None
    name = text(parts[0]).replace("\\\\", "\\").lstrip("\\")
    return name if _FUNCTION_NAME.fullmatch(name) else None


_FUNCTION_NAME = re.compile(r"[^\W\d]\w*(?:\\[^\W\d]\w*)*")


def imports_function(name: ts.Node) -> bool:
    """Whether a ``use`` clause's name is under ``use function`` (the word
    sits in the clause, or in the declaration of a group ``{a, b}``)."""
    node: ts.Node | None = name
    while node is not None:
        if node.type in ("namespace_use_clause", "namespace_use_declaration") and any(
            c.type == "function" for c in node.children
        ):
            return True
        if node.type == "namespace_use_declaration":
            return False
        node = node.parent
    return False
