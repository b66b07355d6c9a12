"""Functions a Rust attribute names in a string.

serde's derive takes a function by its name in a string: ``#[serde(default
= "default_port")]`` calls ``default_port`` for a missing field, and
``serialize_with``, ``deserialize_with``, ``skip_serializing_if`` and
``getter`` name functions the same way. The grammar keeps an attribute's
arguments as tokens; the string stands after its key and ``=``. Only a bare
name is taken here (the file's item or an import's, as a value is):
``"Option::is_none"`` is a path that no claim reads yet, and ``with =
"module"`` names a module, not a function.
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter as ts

SERDE_FUNCTION_KEYS = frozenset(
    {"default", "serialize_with", "deserialize_with", "skip_serializing_if", "getter"}
)


def serde_function(string: ts.Node, text: Callable[[ts.Node], str]) -> bool:
    """Whether a string literal in an attribute's tokens is serde's name of
    a function (``default = "default_port"``), written as a bare name."""
    tokens = string.parent
    attribute = tokens.parent if tokens is not None else None
    head = attribute.named_children[0] if attribute is not None else None
    if head is None or head.type != "identifier" or text(head) != "serde":
        return False
    equals = string.prev_sibling
    key = equals.prev_sibling if equals is not None and equals.type == "=" else None
    if key is None or text(key) not in SERDE_FUNCTION_KEYS:
        return False
    return text(string).strip('"').isidentifier()
