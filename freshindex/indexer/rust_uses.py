"""The names a Rust ``use`` brings through nested groups.

The tags query (queries/rust.scm) reads ``use a::b::c;``, ``use a::b::c as
d;`` and ``use a::b::{c, d};``. Groups nest, and ripgrep's flag module
re-exports a tree of them in one declaration::

    pub(crate) use crate::flags::{
        doc::{help::{generate_long as generate_help_long}, version},
        parse::parse,
    };

Each leaf is an import of its name from the path the groups around it
spell (``crate::flags::doc::help``), with its alias. ``self`` (the module
itself) and ``*`` are left to the rules that read them elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import tree_sitter as ts

from freshindex.indexer.languages import pattern_query

# (the imported name, the path of its module, its alias or "", the declaration)
Leaf = tuple[ts.Node, str, str, ts.Node]

_GROUPED = "(use_declaration argument: (scoped_use_list) @argument) @use"


def grouped_imports(root: ts.Node, text: Callable[[ts.Node], str]) -> Iterator[Leaf]:
    """Every name a ``use`` with a group brings, nested or not, in source
    order (a stack, not recursion: groups may nest as deep as a file likes)."""
    found = ts.QueryCursor(pattern_query("rust", _GROUPED)).matches(root)
    for _pattern, caps in found:
        declaration = caps["use"][0]
        todo: list[tuple[ts.Node, tuple[str, ...], str]] = [(caps["argument"][0], (), "")]
        while todo:
            node, prefix, alias = todo.pop()
            kind = node.type
            if kind == "scoped_use_list":
                path, group = node.child_by_field_name("path"), node.child_by_field_name("list")
                inner = (*prefix, text(path)) if path is not None else prefix
                items = group.named_children if group is not None else []
                todo += [(item, inner, "") for item in reversed(items)]
            elif kind == "use_as_clause":
                path, named = node.child_by_field_name("path"), node.child_by_field_name("alias")
                if path is not None and named is not None:
                    todo.append((path, prefix, text(named)))
            elif kind == "scoped_identifier":
                path, name = node.child_by_field_name("path"), node.child_by_field_name("name")
                if path is not None and name is not None and name.type == "identifier":
                    yield name, "::".join([*prefix, text(path)]), alias, declaration
            elif kind == "identifier" and prefix:
                yield node, "::".join(prefix), alias, declaration
