"""C and C++ functions named as values rather than called.

A driver hands its functions to the kernel by name: ``request_irq(irq,
drv_irq, 0, name, dev)``, ``INIT_WORK(&w, drv_work)``, ``p->done =
drv_done``, ``module_init(drv_init)``, ``return drv_default;``. None of these
is a call, so without a row ``refs drv_irq`` would be an empty list while
the function runs on every interrupt.

Which names are functions is known in this file only for the functions it
defines and the prototypes it writes (what its includes declare is known
when the index is read). So rather than taking every identifier in an
argument list (a quarter of a million per 30 MB of kernel C, nearly all
locals), the file's bytes are searched for those names, and each occurrence
the query has not already made a row of (the definition, a call, a
designated initializer) is kept where the syntax tree reads it as a value:
an ``identifier`` that is not a declarator, a callee, a preprocessor word or
a member. Occurrences in comments and strings are no identifiers and drop
out there. The rows are claimed as calls are (indexer/bind_c.py), so a
``static`` function binds in its own file and a prototype's name through the
includes.

A parameter or local named like one of the file's functions (C allows it,
with a warning; C++ code does it all the time: fmt's ``arg`` and
``format``) hides it in the function that declares it: there the name is
no use. The declarations are found among the same occurrences.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

import tree_sitter as ts

# what continues a name (GCC takes `$` in one too), as the regex's `[\w$]`
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
# up to this many names the bytes are searched name by name (a fast find
# each); past it one pass of a regex over the bytes (the names as a trie),
# so a file of 50,000 functions costs its length once, not 50,000 times
_BY_NAME = 256
# longer names are left out: the regex nests a group per shared character
MAX_NAME = 128
# an identifier under these parents declares or is a part of a larger name
_NOT_VALUES = frozenset(
    {
        "function_declarator", "field_declaration", "qualified_identifier", "enumerator",
        "template_function", "labeled_statement", "goto_statement", "attribute",
        "macro_type_specifier", "concatenated_string",
    }
)  # fmt: skip


# where a name is declared as a parameter or a local
_DECLARATORS = frozenset(
    {
        "pointer_declarator", "array_declarator", "parenthesized_declarator",
        "reference_declarator", "parameter_declaration", "optional_parameter_declaration",
        "variadic_parameter_declaration", "declaration", "for_range_loop",
    }
)  # fmt: skip
# what a parameter or local is scoped to
_SCOPES = ("function_definition", "lambda_expression")


def value_uses(
    root: ts.Node, source: bytes, names: Collection[str], known: Collection[int]
) -> Iterator[ts.Node]:
    """The identifiers naming one of ``names`` as a value, in ``source`` (the
    bytes ``root`` was parsed from); ``known``: the start bytes that already
    have a row or are a definition's name, skipped without asking the tree."""
    wanted = [n.encode() for n in names if len(n) <= MAX_NAME]
    uses: list[ts.Node] = []
    hidden: set[tuple[bytes, int]] = set()  # (name, the function declaring it)
    for start, end in _occurrences(source, wanted):
        if start in known:
            continue
        node = root.named_descendant_for_byte_range(start, end)
        if node is None or node.type != "identifier":
            continue  # in a comment, a string
        if (node.start_byte, node.end_byte) != (start, end):
            continue  # a part of a longer token
        if _as_value(node):
            uses.append(node)
        elif _declares(node) and (scopes := _scopes(node)):
            hidden.add((source[start:end], scopes[0]))
    hiding = {name for name, _scope_at in hidden}
    for node in uses:
        name = source[node.start_byte : node.end_byte]
        if name not in hiding or not any((name, at) in hidden for at in _scopes(node)):
            yield node


def _declares(node: ts.Node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "init_declarator":
        return parent.child_by_field_name("declarator") == node
    return parent.type in _DECLARATORS


def _scopes(node: ts.Node) -> list[int]:
    """The starts of the functions and lambdas around ``node``, innermost
    first (a lambda sees its function's locals); none at the top of the
    file (a prototype's parameter, a global)."""
    out = []
    up = node.parent
    while up is not None:
        if up.type in _SCOPES:
            out.append(up.start_byte)
        up = up.parent
    return out


def _as_value(node: ts.Node) -> bool:
    parent = node.parent
    if parent is None or parent.type in _NOT_VALUES or parent.type in _DECLARATORS:
        return False
    if parent.type.startswith("preproc_"):
        return False
    if parent.type == "call_expression":
        return parent.child_by_field_name("function") != node
    if parent.type == "init_declarator":  # `irq_handler_t h = drv_irq;`, not `int drv_irq`
        return parent.child_by_field_name("declarator") != node
    return True


def _occurrences(source: bytes, names: list[bytes]) -> Iterator[tuple[int, int]]:
    """(start, end) of each whole-word occurrence of any of ``names``."""
    if len(names) > _BY_NAME:
        for m in re.finditer(rb"(?<![\w$])" + _trie(names) + rb"(?![\w$])", source):
            yield m.span()
        return
    for name in names:
        size = len(name)
        at = source.find(name)
        while at >= 0:
            after = at + size
            if (at == 0 or source[at - 1] not in _WORD) and (
                after == len(source) or source[after] not in _WORD
            ):
                yield at, after
            at = source.find(name, after)


def _trie(names: list[bytes]) -> bytes:
    """One regex matching exactly ``names``, shared prefixes factored out
    (``drv_(?:irq|open)``), so each position of the text tries a branch per
    character rather than every name."""
    tree: dict[int, dict] = {}  # type: ignore[type-arg]
    for name in names:
        node = tree
        for byte in name:
            node = node.setdefault(byte, {})
        node[-1] = {}  # a name ends here

    def pattern(node: dict) -> bytes:  # type: ignore[type-arg]
        ends = -1 in node
        branches = [re.escape(bytes([b])) + pattern(node[b]) for b in sorted(node) if b != -1]
        if not branches:
            return b""
        body = branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"
        return b"(?:" + body + b")?" if ends else body

    return pattern(tree)
