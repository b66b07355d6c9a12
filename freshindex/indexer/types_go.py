"""Go types as written: the named type a declaration, a result or a receiver
names (indexer/bind_go.py reads them to type a function's locals)."""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter as ts

# a named type as written: (the package's local name, "" for this package; the type)
TypeName = tuple[str, str]


def first_result(result: ts.Node | None) -> ts.Node | None:
    """The first result's type of ``(*Repo, error)``; the result itself if single."""
    if result is None or result.type != "parameter_list":
        return result
    first = next((p for p in result.named_children if p.type == "parameter_declaration"), None)
    return first.child_by_field_name("type") if first is not None else None


def named_type(node: ts.Node | None, text: Callable[[ts.Node], str]) -> TypeName | None:
    """``Repo``, ``*Repo``, ``store.DB``, ``*store.DB`` as (package, type);
    None for any other type (slices, maps, interfaces written inline...)."""
    if node is not None and node.type == "pointer_type" and node.named_child_count == 1:
        node = node.named_children[0]
    if node is None:
        return None
    if node.type == "type_identifier":
        return ("", text(node))
    if node.type == "qualified_type":
        pkg, name = node.child_by_field_name("package"), node.child_by_field_name("name")
        if pkg is not None and name is not None:
            return (text(pkg), text(name))
    return None


def receiver_type_name(method: ts.Node, text: Callable[[ts.Node], str]) -> str:
    """A method declaration's receiver type (``T`` of ``(s *T)``, ``(T)``,
    ``(s T[K])``): its container."""
    node = method.child_by_field_name("receiver")
    found = receiver(node, text) if node is not None else None
    return found[1] if found else ""


def receiver(params: ts.Node, text: Callable[[ts.Node], str]) -> tuple[str, str] | None:
    """(name, type name) of a receiver parameter list; name "" when unnamed."""
    for decl in params.named_children:
        if decl.type != "parameter_declaration":
            continue
        names = decl.children_by_field_name("name")
        todo = [decl.child_by_field_name("type")]
        while todo:
            n = todo.pop(0)
            if n is None:
                continue
            if n.type == "type_identifier":
                return (text(names[0]) if names else ""), text(n)
            todo.extend(n.named_children)
    return None


def struct_fields(
    declaration: ts.Node, text: Callable[[ts.Node], str]
) -> dict[str, dict[str, tuple[TypeName, ts.Node]]]:
    """struct -> its fields with a named type -> (the type, the field's
    name), for each struct of a ``type ( X struct {...} )`` declaration."""
    out: dict[str, dict[str, tuple[TypeName, ts.Node]]] = {}
    for spec in declaration.named_children:
        body = spec.child_by_field_name("type") if spec.type == "type_spec" else None
        name = spec.child_by_field_name("name")
        if body is None or name is None or body.type != "struct_type":
            continue
        fields = out.setdefault(text(name), {})
        for listing in body.named_children:
            for field in listing.named_children:
                kind = named_type(field.child_by_field_name("type"), text)
                for n in field.children_by_field_name("name") if kind else []:
                    fields[text(n)] = (kind, n)  # type: ignore[assignment]
    return out
