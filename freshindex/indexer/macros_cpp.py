"""Macros the C++ grammar misreads, blanked with spaces before a C++ file
is parsed: every byte keeps its offset, and names are read from the file as
written (indexer/extract.py). Which ones, and why, is said above each
pattern; docs/languages.md tells what each gave back on real code.

A ``.h`` may be C: ``may_have_classes`` says whether it writes C++'s words,
and only a file that does gets more than its class macros blanked.
"""

from __future__ import annotations

import re

from freshindex.indexer import conditionals

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


# An export, inline or constexpr macro before a declaration, where one
# starts (a line's start, after specifiers or a one-line `template <...>`):
# `LEVELDB_EXPORT Status DestroyDB(...)`, fmt's `FMT_CONSTEXPR auto f()` and
# `FMT_EXPORT template <...> class S {`. The grammar reads the macro as a
# return type, `FMT_EXPORT class S {...}` as a function named S, and
# `FMT_CONSTEXPR Ctor(args) : a(x) {}` as a bit-field after which the class
# never closes (fmt's color.h lost its namespace from there to its end). A
# constructor is told by its class's name, which the file must write after
# `class` or `struct`.
_SPECIFIERS = rb"(?:(?:static|inline|explicit|virtual|friend|constexpr|extern)[ \t]+)*"
_DECLARATION_MACRO = re.compile(
    rb"^[ \t]*(?:template[ \t]*<[^;{}()\n]*>[ \t]*)?" + _SPECIFIERS
    + rb"([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])[ \t]+" + _SPECIFIERS
    + rb"(?:(?:const|unsigned|signed|struct|class|typename)[ \t]+)*"
    + rb"(?:(?=(?:template|class|struct|union|enum|namespace|typedef|using)\b)"
    + rb"|(~?[A-Za-z_]\w*)[ \t]*\("  # a constructor (or a destructor)
    + rb"|[A-Za-z_][\w:]*(?:<[^;(){}\n]*>)?(?:[ \t]*[*&]+[ \t]*|[ \t]+)(?:operator\b|~?[A-Za-z_]\w*[ \t]*\())",
    re.M,
)  # fmt: skip
_CLASS_NAME = re.compile(rb"\b(?:class|struct)[ \t]+(?:[A-Z][A-Z0-9_]*[ \t]+)?([A-Za-z_]\w*)")


def declaration_macros(data: bytes) -> list[tuple[int, int]]:
    """The spans of macros written before a declaration (``_DECLARATION_MACRO``):
    before ``type name(`` always, before ``Name(`` only if the file declares a
    class ``Name`` (else the macro may be the type of a call's result)."""
    out: list[tuple[int, int]] = []
    classes: set[bytes] | None = None
    for m in _DECLARATION_MACRO.finditer(data):
        called = m.group(2)
        if called is not None:
            if classes is None:
                classes = set(_CLASS_NAME.findall(data))
            if called.lstrip(b"~") not in classes:
                continue
        out.append(m.span(1))
    return out


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
        spans += declaration_macros(data)
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
