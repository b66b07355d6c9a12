"""C++ names a call sees beyond its scopes: ``using`` lines, found per file
as indexer/bind_c.py finds the calls; and the class macros blanked before a
C++ file is parsed.

Pure and per file: what a file says is carried on its own call rows (after
``; using`` in the via), and the linker (freshindex/query/link_c.py) reads
them there. The declared class of a receiver is indexer/receivers_cpp.py's.

Last, whether a ``.h`` struct is C++'s (``cpp_only``): a header may be C.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import NamedTuple

import tree_sitter as ts

from freshindex.indexer import conditionals

# what C++ `using` puts in sight of a call, after its via:
# "...; using namespace app::detail, lib::helper"
USING_MARK = "; using "
MAX_USINGS = 8
# a file's using lines read at most: each call scans them (a hostile file of
# 20,000 of them and as many calls must not cost minutes)
MAX_FILE_USINGS = 256


# `class LEVELDB_EXPORT Slice {`: a macro between the keyword and the name
# (export, visibility and lock annotations). tree-sitter reads the macro as
# the class and the rest as a function, so every method became a top-level
# function. Two identifiers there are valid C++ only if the first is such a
# macro; one pattern per keyword, each found by its literal prefix.
_MACRO_AFTER = rb"[ \t]+([A-Za-z_]\w*)[ \t]+(?!final\b)(?=[A-Za-z_]\w*(?!\w)\s*(?:[:{]|final\b))"
_MACROS = tuple(
    re.compile(keyword + _MACRO_AFTER) for keyword in (rb"class", rb"struct", rb"union")
)


def without_class_macros(data: bytes) -> bytes:
    """``data`` with each macro written between ``class``/``struct``/``union``
    and the name blanked with spaces: the same length, so every node's bytes
    and points stay those of the file as written."""
    return _blanked(data, class_macros(data))


# Clang's thread-safety annotations, written after a field's or a method's
# declarator (`Version* v_ GUARDED_BY(mu_);`, `void F() LOCKS_EXCLUDED(mu_);`)
# and often behind a project prefix (ABSL_GUARDED_BY, LEVELDB_...). The
# parser reads `GUARDED_BY(mu_)` as the declarator: the field loses its
# name, an inline method takes the macro's. Found by their literal names.
_LOCK_NAMES = (
    b"GUARDED_BY", b"LOCKS_REQUIRED", b"LOCKS_EXCLUDED", b"LOCK_RETURNED", b"LOCK_FUNCTION",
    b"ACQUIRED_AFTER", b"ACQUIRED_BEFORE", b"ASSERT_EXCLUSIVE_LOCK", b"ASSERT_SHARED_LOCK",
    b"NO_THREAD_SAFETY_ANALYSIS",
)  # fmt: skip
_LOCK_ANNOTATIONS = re.compile(b"|".join(_LOCK_NAMES))
_MACRO_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# an annotation's arguments are read this far at most
_MAX_ANNOTATION = 512


# Attribute macros: `Options& set(...) & ABSL_ATTRIBUTE_LIFETIME_BOUND {`,
# `ABSL_ATTRIBUTE_REINITIALIZES void Reset();`, `ABSL_MUST_USE_RESULT bool
# ok();` (any upper-case prefix: LLVM_NODISCARD, ...). They stand for
# attributes wherever they are written, and the grammar reads each as a type
# or a stray name: in riegeli, 72 of 421 files parsed with errors for them
# alone, some losing every definition after the first.
_ATTRIBUTE_WORDS = (b"_ATTRIBUTE_", b"MUST_USE_RESULT", b"NODISCARD", b"LIFETIME_BOUND")
_ATTRIBUTES = re.compile(
    rb"\b[A-Z][A-Z0-9]*_(?:ATTRIBUTE_[A-Z0-9_]+|MUST_USE_RESULT|NODISCARD|LIFETIME_BOUND)\b"
)


# A line that is one upper-case macro and nothing else, between
# declarations: `ABSL_POINTERS_DEFAULT_NONNULL` before `namespace riegeli {`
# (the namespace and everything in it were lost), Qt's `Q_OBJECT` at the top
# of a class body. It expands to declarations or pragmas, never to code a
# reference could be in.
_BARE_MACRO = re.compile(rb"^[ \t]*([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])[ \t]*\r?$", re.M)
# how far a bare macro's neighbouring lines are looked for
_NEIGHBOURS = 8


def without_macros(data: bytes, cpp_words: bool = True) -> bytes:
    """``data`` with the macros the C++ grammar misreads blanked with spaces
    (``without_class_macros``; and, in a file that writes C++'s words
    (``may_have_classes``), ``lock_annotations``, ``attribute_macros`` and
    ``bare_macro_lines``): the same length, so every node's bytes and points
    stay those of the file as written. A C header (most of the kernel's)
    is only scanned for class macros (`struct __packed foo {`)."""
    spans = class_macros(data)
    if cpp_words:
        spans += lock_annotations(data) + attribute_macros(data) + bare_macro_lines(data)
    return _blanked(data, spans)


def bare_macro_lines(data: bytes) -> list[tuple[int, int]]:
    """The spans of macros alone on their line where a declaration could
    start: after a line that ends one (``;``, ``{``, ``}``, ``:``) or a
    directive, and not before what would continue an expression or close an
    enum (the last enumerator has no comma)."""
    out = []
    for m in _BARE_MACRO.finditer(data):
        before = conditionals.near_line(data, m.start(), -1, _NEIGHBOURS)
        if before.endswith(b"\\") or not (
            before == b"" or before.startswith(b"#") or before[-1:] in b";{}:"
        ):
            continue
        after = conditionals.near_line(data, m.end(), 1, _NEIGHBOURS)
        if after[:1] in (b"}", b",", b")", b"=", b"&", b"|", b"+", b"-", b"?"):
            continue
        out.append(m.span(1))
    return out


def attribute_macros(data: bytes) -> list[tuple[int, int]]:
    """The spans of attribute macros (``_ATTRIBUTES``) and their
    parenthesised arguments, outside directives (``#define`` them, ``#if``)."""
    if not any(word in data for word in _ATTRIBUTE_WORDS):
        return []
    out: list[tuple[int, int]] = []
    for m in _ATTRIBUTES.finditer(data):
        start, end = m.span()
        line = data.rfind(b"\n", 0, start) + 1
        if data[line:start].lstrip().startswith(b"#"):
            continue
        after = end
        while after < len(data) and data[after] in b" \t":
            after += 1
        if data[after : after + 1] == b"(":  # ABSL_ATTRIBUTE_NONNULL(1)
            close = _closing(data, after)
            if close is None:
                continue
            end = close + 1
        out.append((start, end))
    return out


def _blanked(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out)


def class_macros(data: bytes) -> list[tuple[int, int]]:
    """Where ``without_class_macros`` blanks."""
    return [m.span(1) for pattern in _MACROS for m in pattern.finditer(data)]


def lock_annotations(data: bytes) -> list[tuple[int, int]]:
    """The spans of thread-safety annotations written after a declarator: a
    name of the family (with any upper-case prefix) after a space that
    follows a name, ``)`` or ``]`` on a line that is not a directive, and its
    parenthesised arguments."""
    if not any(name in data for name in _LOCK_NAMES):  # a scan each, faster than the pattern
        return []
    out: list[tuple[int, int]] = []
    for m in _LOCK_ANNOTATIONS.finditer(data):
        start = m.start()
        while start > 0 and data[start - 1] in _MACRO_CHARS:
            start -= 1
        end = m.end()
        while end < len(data) and data[end] in _MACRO_CHARS:
            end += 1
        before = start
        while before > 0 and data[before - 1] in b" \t":
            before -= 1
        if before == start or before == 0 or not _declarator_end(data[before - 1]):
            continue
        line = data.rfind(b"\n", 0, before) + 1
        if data[line:before].lstrip().startswith(b"#"):
            continue  # `#define GUARDED_BY(x) ...`
        after = end
        while after < len(data) and data[after] in b" \t":
            after += 1
        if data[after : after + 1] == b"(":
            close = _closing(data, after)
            if close is None:
                continue
            end = close + 1
        elif not data[start:end].endswith(b"NO_THREAD_SAFETY_ANALYSIS"):
            continue
        out.append((start, end))
    return out


def _declarator_end(byte: int) -> bool:
    return byte in _MACRO_CHARS or chr(byte).isalnum() or byte in b")]"


def _closing(data: bytes, at: int) -> int | None:
    """The ``)`` that closes the ``(`` at ``at``, within _MAX_ANNOTATION bytes."""
    depth = 0
    for i in range(at, min(len(data), at + _MAX_ANNOTATION)):
        if data[i] == 40:  # (
            depth += 1
        elif data[i] == 41:  # )
            depth -= 1
            if depth == 0:
                return i
        elif data[i] in b";{}":
            return None
    return None


class Using(NamedTuple):
    """A C++ ``using`` and the bytes it is in force over: from its end to the
    end of the block, namespace body or file that holds it. ``words``:
    ``namespace app::detail`` (a directive) or ``lib::helper`` (a
    declaration), qualified by the namespaces the ``using`` is written in."""

    start: int
    end: int
    words: str


@functools.cache
def _using_query(language: ts.Language) -> ts.Query:
    return ts.Query(language, "(using_declaration) @using")


def usings(tree: ts.Tree, text: Callable[[ts.Node], str]) -> list[Using]:
    """Every ``using namespace X;`` and ``using X::f;`` of a C++ file (not
    ``using T = ...``, an alias), in source order."""
    found = ts.QueryCursor(_using_query(tree.language)).captures(tree.root_node).get("using", [])
    found.sort(key=lambda n: n.start_byte)
    out: list[Using] = []
    for node in found[:MAX_FILE_USINGS]:
        name = next((c for c in node.named_children), None)
        holder = node.parent
        if name is None or holder is None:
            continue
        directive = any(c.type == "namespace" for c in node.children)
        if not directive and name.type != "qualified_identifier":
            continue  # `using f;` names nothing new
        written = "".join(text(name).split())  # `a ::\n b` is a::b
        if "<" in written or "," in written:  # `using Base<T, U>::f;`: a template's member
            continue
        enclosing = []
        up: ts.Node | None = holder
        while up is not None:
            if up.type == "namespace_definition":
                ns = up.child_by_field_name("name")
                if ns is not None:
                    enclosing.append(text(ns))
            up = up.parent
        # `using namespace detail;` inside namespace app: app::detail, else detail
        for spelled in dict.fromkeys(["::".join([*reversed(enclosing), written]), written]):
            words = f"namespace {spelled}" if directive else spelled
            out.append(Using(node.end_byte, holder.end_byte, words))
    return sorted(out, key=lambda u: (u.start, u.end))  # stable: app::detail before detail


def in_sight(found: list[Using], at: int, head: str) -> list[str]:
    """The ``using`` words in force at byte ``at`` for a call whose name (or
    written first scope) is ``head``: every directive, and the declarations
    of that name."""
    out = [
        u.words
        for u in found
        if u.start <= at < u.end
        and (u.words.startswith("namespace ") or u.words.rsplit("::", 1)[-1] == head)
    ]
    return list(dict.fromkeys(out))[:MAX_USINGS]


def with_usings(via: str, found: list[Using], at: int, head: str) -> str:
    """A call's via with the ``using`` words in force at byte ``at`` after it
    (``in_sight``); the via itself when there are none."""
    words = in_sight(found, at, head) if found else []
    return f"{via}{USING_MARK}{', '.join(words)}" if words else via


def split_usings(via: str) -> tuple[str, tuple[str, ...]]:
    """A stored via and the ``using`` words it carries (with_usings' inverse)."""
    base, mark, rest = via.partition(USING_MARK)
    return base, tuple(rest.split(", ")) if mark else ()


def using_names(names: list[str], written: str, found: tuple[str, ...]) -> list[str]:
    """The names a call looks up (``outward``'s, innermost first) with what
    its ``using`` lines add: a declaration of the name first (``using
    lib::helper`` makes ``helper`` mean ``lib.helper``), the nominated
    namespaces last (``using namespace app::detail``: ``app.detail.twice``).
    ``written``: the called name, with any scope it spelled out (``detail.f``)."""
    _head, _, rest = written.partition(".")
    first, last = [], []
    for words in found:
        if words.startswith("namespace "):
            last.append(f"{words[len('namespace ') :].replace('::', '.')}.{written}")
        else:
            declared = words.replace("::", ".")
            first.append(f"{declared}.{rest}" if rest else declared)
    return list(dict.fromkeys([*first, *names, *last]))


def cpp_only(owner: ts.Node, header: bool, text: Callable[[ts.Node], str]) -> bool:
    """Whether a class's fields are worth facts: every C++ class, and a
    struct or union of a C++ source; in a ``.h`` (C or C++) one that only
    C++ could write: with a base or a method, in a namespace, a class or a
    template. Never a C struct: the kernel's headers have hundreds of
    thousands of fields no member call reads."""
    holder = owner.parent
    if holder is None or holder.type == "class_specifier" or not header:
        return True
    body = holder.child_by_field_name("body")
    if any(c.type == "base_class_clause" for c in holder.children):
        return True
    if body is not None and any(
        c.type in ("function_definition", "template_declaration")
        or (c.type == "field_declaration" and _is_method(c, text))
        for c in body.named_children
    ):
        return True
    up = holder.parent
    for _ in range(MAX_SCOPES):
        if up is None:
            return False
        if up.type in _CPP_SCOPES:
            return True
        up = up.parent
    return False


# what only C++ nests a struct in; looked for this many levels up
_CPP_SCOPES = frozenset({"namespace_definition", "class_specifier", "template_declaration"})
MAX_SCOPES = 6


# may_have_classes: what a header that declares a C++ class or namespace
# has to write (`class`, `namespace`, `::`, `template`, `public`; a
# substring test: a regular expression over a 2 MB header costs more than
# the query it saves)


def may_have_classes(path: str, data: bytes) -> bool:
    """Whether a file may hold fields ``cpp_only`` keeps: any C++ source,
    a ``.h`` that writes one of C++'s words (most C headers write none, and
    their fields are not looked for)."""
    # `in` chained, not any() over a generator: called for every header
    return (
        not path.endswith(".h")
        or b"class" in data
        or b"namespace" in data
        or b"::" in data
        or b"template" in data
        or b"public" in data
    )


def _is_method(declaration: ts.Node, text: Callable[[ts.Node], str]) -> bool:
    """A member function's declaration: not C's pointer to a function
    (``int (*probe)(struct device *);``, whose name is in parentheses), nor
    an attribute macro the grammar reads as one (``u8 priv[] __aligned(8);``)."""
    declarator = declaration.child_by_field_name("declarator")
    for _ in range(8):
        if declarator is None or declarator.type == "function_declarator":
            break
        declarator = declarator.child_by_field_name("declarator")
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    if name is None or name.type not in ("field_identifier", "operator_name", "destructor_name"):
        return False
    return not text(name).startswith("__")
