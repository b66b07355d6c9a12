"""Preprocessor conditionals the C, C++ and C# grammars cannot place.

tree-sitter parses ``#if``/``#else``/``#endif`` where a declaration or a
statement may stand, and nowhere else. Written inside a construct (a member
initializer list, an argument list, between a declarator and its ``;`` or
``{``) the directive splits it, and error recovery may swallow the rest of
the file: in leveldb's ``util/env_posix.cc`` a ``#if !defined(NDEBUG)`` in
``Limiter``'s initializer list made every later class a member of
``Limiter``. So is ``extern "C" {`` opened in one ``#ifdef __cplusplus`` and
closed in another.

``first_branches`` finds such conditionals from the text alone: the code
line before the ``#if`` ends as an unfinished construct does (``,`` ``(``
``:`` an operator), or the one after the ``#endif`` goes on with one
(``,`` ``)`` ``;`` ``{`` an operator). Blanking their directive lines and
every branch but the first reads the file as a compiler would with the
first branch taken. The extractor reparses that only when an error at the
top of a file swallowed a quarter of it (``swallowed``), and keeps the new
tree only with fewer errors (``errors``; indexer/extract.py), so a file that
parses is read as before and the other branches' definitions are not lost
where nothing was wrong.

C# files are read the same way with every conditional at its first branch
(``every_first_branch``), whenever one with a directive has an error: its
conditionals choose between a build's members, not statements of a macro,
and the other branches' members are lost only in a file that did not parse.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from freshindex.indexer.languages import pattern_query

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.M)
_OPENS = (b"if", b"ifdef", b"ifndef")
# a code line ending so is not finished: the directive after it is inside
_GOES_ON = (b",", b"(", b"[", b"=", b"&&", b"||", b"?", b"+", b"-", b"|", b"&", b"<<")
# a code line starting so continues the one before the directive
_CONTINUES = (
    b",", b")", b"]", b";", b"{", b"&&", b"||", b"?", b":", b"+", b"-", b"|", b"&", b".",
    b"<<", b"==", b"!=",
)  # fmt: skip
# a line ending in `:` that is a label, not a constructor's initializer list
_LABEL = re.compile(rb"^(?:case\b.*|[A-Za-z_]\w*)[ \t]*:$")
# `extern "C" {` or its `}` alone in a `#ifdef __cplusplus` group
_EXTERN_C = re.compile(rb'^(?:extern[ \t]+"C"[ \t]*\{|\})[ \t]*(?://.*|/\*.*\*/)?$')
_NOT_LINE_END = re.compile(rb"[^\r\n]")
# how many lines are passed over looking for the nearest code line
_NEAR = 12

Span = tuple[int, int]


def first_branches(data: bytes) -> list[Span]:
    """The spans to blank so that each conditional written inside a construct
    keeps only its first branch, without its directives; and the
    ``extern "C"`` braces of ``#ifdef __cplusplus`` groups."""
    if b"#" not in data:
        return []
    out: list[Span] = []
    for start, others, end in _groups(data):
        if _extern_c(data, start, others, end):
            out.append((start[1], end[0]))
        elif _inside_construct(data, start, end):
            out += [start, end]
            if others:
                out.append((others[0][0], end[0]))
    return out


def every_first_branch(data: bytes) -> list[Span]:
    """The spans to blank so that every conditional keeps only its first
    branch, without its directives: C#'s reading. Its grammar places
    ``#if`` where a member may stand, but not between a method's signature
    and its body (serilog's ``ILogger`` gives each method an ``=> ...``
    body under ``#if FEATURE_DEFAULT_INTERFACE`` and ``;`` after it), and
    there error recovery put every later member outside its interface."""
    if b"#" not in data:
        return []
    out: list[Span] = []
    for start, others, end in _groups(data):
        out += [start, end]
        if others:
            out.append((others[0][0], end[0]))
    return out


def blanked(data: bytes, spans: list[Span]) -> bytes:
    """``data`` with each span's bytes spaces, its line ends kept: the same
    length and lines, so every node's bytes and points are the file's."""
    out = bytearray(data)
    reach = 0  # nested groups' spans overlap: each byte is blanked once
    for start, end in sorted(spans):
        start = max(start, reach)
        if start < end:
            out[start:end] = _NOT_LINE_END.sub(b" ", data[start:end])
            reach = end
    return bytes(out)


def _groups(data: bytes) -> list[tuple[Span, list[Span], Span]]:
    """Each complete conditional: its opening line, its ``#elif``/``#else``
    lines, its ``#endif`` line (spans of whole lines, continuations included)."""
    stack: list[tuple[Span, list[Span]]] = []
    out = []
    reach = 0
    for m in _DIRECTIVE.finditer(data):
        if m.start() < reach:  # a line that continues the directive before it
            continue
        word, line = m.group(1), _line(data, m.start())
        reach = line[1]
        if word in _OPENS:
            stack.append((line, []))
        elif not stack:
            continue
        elif word == b"endif":
            start, others = stack.pop()
            out.append((start, others, line))
        else:
            stack[-1][1].append(line)
    return out


def _line(data: bytes, at: int) -> Span:
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    while end > 0 and data[max(0, end - 2) : end].rstrip(b"\r").endswith(b"\\"):  # continued
        end = data.find(b"\n", end + 1)
    return start, len(data) if end < 0 else end


def _inside_construct(data: bytes, start: Span, end: Span) -> bool:
    before = _code_line(data, start[0], -1)
    after = _code_line(data, end[1], 1)
    if before.endswith(_GOES_ON) or after.startswith(_CONTINUES):
        return True
    return before.endswith(b":") and not _LABEL.match(before)


def _extern_c(data: bytes, start: Span, others: list[Span], end: Span) -> bool:
    if others or b"__cplusplus" not in data[start[0] : start[1]]:
        return False
    return bool(_EXTERN_C.match(data[start[1] : end[0]].strip()))


def _code_line(data: bytes, at: int, step: int) -> bytes:
    """The nearest code line before (``step`` -1) or after (1) ``at``: not
    blank, a comment or a directive."""
    return near_line(data, at, step, _NEAR, (b"//", b"/*", b"*", b"#"))


def near_line(
    data: bytes, at: int, step: int, most: int, passed: tuple[bytes, ...] = (b"//", b"/*", b"*")
) -> bytes:
    """The nearest line before (``step`` -1) or after (1) the line holding
    ``at`` that is not blank and does not start with one of ``passed``
    (comments), stripped and without a trailing ``//`` comment; b"" if none
    within ``most`` lines."""
    for _ in range(most):
        if step < 0:
            end = data.rfind(b"\n", 0, at)
            if end < 0:
                return b""
            at = data.rfind(b"\n", 0, end) + 1
            line = data[at:end]
        else:
            begin = data.find(b"\n", at)
            if begin < 0:
                return b""
            at = data.find(b"\n", begin + 1)
            at = len(data) if at < 0 else at
            line = data[begin + 1 : at]
        line = line.strip()
        if line and not line.startswith(passed):
            return _without_comment(line)
    return b""


def _without_comment(line: bytes) -> bytes:
    """``line`` without a trailing ``//`` comment (`}  // namespace detail`);
    a ``//`` after an odd number of quotes is in a string, and stays."""
    cut = line.find(b"//")
    while cut >= 0 and line.count(b'"', 0, cut) % 2:
        cut = line.find(b"//", cut + 2)
    return line[:cut].rstrip() if cut >= 0 else line


# A file's error swallowed its rest when an ERROR node at the top (or in a
# top-level namespace or `extern "C"` block) holds this share of its lines,
# and at least _SWALLOWED_LINES. Smaller errors (the kernel's macros) lose a
# statement or a declaration and are left alone: a reparse costs a parse,
# and a first branch loses the calls in the directives it blanks.
_SWALLOWED_SHARE = 4
_SWALLOWED_LINES = 20
_OUTER_BLOCKS = ("namespace_definition", "linkage_specification")


def swallowed(root: ts.Node) -> bool:
    """Whether an error swallowed the rest of a file (``_SWALLOWED_SHARE``)."""
    if not root.has_error:
        return False
    least = max(_SWALLOWED_LINES, root.end_point[0] // _SWALLOWED_SHARE)
    nodes = list(root.children)
    for node in root.children:
        if node.type in _OUTER_BLOCKS and (body := node.child_by_field_name("body")):
            nodes += body.children
    return any(n.type == "ERROR" and n.end_point[0] - n.start_point[0] >= least for n in nodes)


def errors(language: str, tree: ts.Tree) -> int:
    """How many ERROR nodes ``tree`` has."""
    found = ts.QueryCursor(pattern_query(language, "(ERROR) @error")).captures(tree.root_node)
    return len(found.get("error", ()))
