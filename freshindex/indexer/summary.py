"""Summaries of definitions: what a context package shows when a body does not fit.

Per definition, data taken from the syntax tree, never prose written by a
model: its signature (the definition's text up to its body), the first
paragraph of its docstring or doc comment, its decorators or annotations,
its line span and size. Computed when the file is parsed and stored in the
``summaries`` table keyed by (blob OID, qualname), so a file whose bytes did
not change keeps its summaries across versions and updates without being
summarised again.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter as ts

SIGNATURE_MAX = 400  # bytes: a signature longer than this is cut, marked with "…"
DOC_MAX = 600

_BODY_FIELDS = ("body", "block", "class_body", "declaration_list", "field_declaration_list")
# grammars whose body is a child without a field name (Kotlin, C's compound statement)
_BODY_TYPES = frozenset(
    {
        "class_body",
        "function_body",
        "enum_class_body",
        "block",
        "compound_statement",
        "declaration_list",
        "field_declaration_list",
    }
)
_DECORATORS = ("decorator", "annotation", "marker_annotation", "attribute_list", "attribute")
_COMMENT_MARKS = re.compile(r"^\s*(///?|/\*\*?|\*/|\*|#+|--)\s?")


def summarize(
    language: str,
    node: ts.Node,
    text: Callable[[ts.Node], str],
    data: bytes,
    deep: bool = False,
) -> tuple[str, str, list[str]]:
    """(signature, first doc paragraph, decorators) of one definition node
    of the file ``data``. ``deep``: the file nests deeper than real code
    does; a comment is then read only right above the definition itself,
    not above what wraps it on its line."""
    held = node
    if node.type == "assignment_expression":  # JS `Repo.prototype.save = function (...) {`
        held = node.child_by_field_name("right") or node
    body = next(
        (b for f in _BODY_FIELDS if (b := held.child_by_field_name(f)) is not None), None
    ) or next((c for c in held.named_children if c.type in _BODY_TYPES), None)
    head = text(node) if body is None else _until(node, body, text, data)
    if node.type == "simple_symbol":  # Ruby's `attr_reader :name`: the line that defines it
        start = data.rfind(b"\n", 0, node.start_byte) + 1
        end = data.find(b"\n", node.end_byte)
        head = data[start : end if end >= 0 else len(data)].decode("utf-8", "replace")
    signature = _one_line(head)
    if len(signature) > SIGNATURE_MAX:
        signature = signature[: SIGNATURE_MAX - 1] + "…"
    doc = _python_doc(body, text) if language == "python" else _doc_comment(node, text, deep)
    decorators = _decorators(node, text, language == "python")
    return signature, _first_paragraph(doc)[:DOC_MAX], decorators


def _until(node: ts.Node, body: ts.Node, text: Callable[[ts.Node], str], data: bytes) -> str:
    """The definition's text up to its body, or up to a comment before the
    body (Python keeps a function's leading comments outside its block)."""
    end = body.start_byte
    for c in node.children:
        if c.start_byte >= end:
            break
        if c.type in _COMMENTS:
            end = c.start_byte
            break
    cut = end - node.start_byte
    head = data[node.start_byte : end].decode("utf-8", "replace")
    if "\ufffd" not in head:  # the body is not decoded at all
        return head
    # not UTF-8 before the body: the cut counted in bytes of the decoded
    # whole re-encoded, as summaries have always been cut
    return text(node).encode("utf-8")[:cut].decode("utf-8", "replace")


def _one_line(head: str) -> str:
    return " ".join(head.split()).rstrip(" {:=").strip()


def _python_doc(body: ts.Node | None, text: Callable[[ts.Node], str]) -> str:
    if body is None or not body.named_children:
        return ""
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_children:
        first = first.named_children[0]
    if first.type != "string":
        return ""
    raw = text(first)
    return raw.strip("rRbBuUfF").strip("\"'")


_COMMENTS = ("comment", "line_comment", "block_comment")
_ROOTS = ("module", "program", "source_file", "translation_unit", "compilation_unit")
# How many wrappers on a definition's line its comment may sit above (an
# export, a template, a decorator list); a bound, since each step up walks
# down from the root, and classes nested on one line would climb to it
_WRAPPERS = 4


def _doc_comment(node: ts.Node, text: Callable[[ts.Node], str], deep: bool = False) -> str:
    """The comment lines right above the definition, or above what wraps it
    on the same line (an export, a decorator list, Go's ``type`` keyword):
    ``///``, ``/** */``, ``#``, ``//``."""
    anchor = node
    parent = None if deep else anchor.parent  # found by a walk from the root
    climbed = _WRAPPERS if deep else 0
    while (
        climbed < _WRAPPERS
        and parent is not None
        and parent.type not in _ROOTS
        and parent.start_point[0] == anchor.start_point[0]
        and (anchor.prev_sibling is None or anchor.prev_sibling.type not in _COMMENTS)
    ):
        anchor, parent = parent, parent.parent
        climbed += 1
    if parent is not None and parent.type == "decorated_definition":
        anchor = parent
    lines: list[str] = []
    sibling = anchor.prev_sibling
    end_row = anchor.start_point[0]
    while sibling is not None and sibling.type in _COMMENTS:
        if sibling.end_point[0] < end_row - 1:
            break  # a blank line between: not this definition's comment
        lines[:0] = text(sibling).splitlines()
        end_row = sibling.start_point[0]
        sibling = sibling.prev_sibling
    return "\n".join(_COMMENT_MARKS.sub("", line).rstrip("*/ ").rstrip() for line in lines)


def _first_paragraph(doc: str) -> str:
    paragraph: list[str] = []
    for line in doc.strip().splitlines():
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    return " ".join(paragraph)


def _decorators(node: ts.Node, text: Callable[[ts.Node], str], python: bool) -> list[str]:
    out: list[str] = []
    parent = node.parent if python else None  # a walk from the root: only Python's wrap
    if parent is not None and parent.type == "decorated_definition":
        out += [text(c).strip() for c in parent.named_children if c.type == "decorator"]
    for c in node.children:
        if c.type in _DECORATORS:
            out.append(text(c).strip())
        elif c.type == "modifiers":
            out += [text(m).strip() for m in c.named_children if m.type in _DECORATORS]
    return out
