"""C and C++ calls, bound through the include graph when the index is read.

One file's rules cannot say which header declares ``kmalloc``: the file
includes ``<linux/slab.h>``, which includes more. So a bare call that the file
does not define itself is stored as a claim on the file (``resolved_path`` =
the calling file, ``target_qualname`` = the name) marked with ``INCLUDE_VIA``,
and its includes as ``import`` rows resolved to files of the tree
(indexer/resolve.py: quoted includes beside the file, then by suffix; angle
includes against include roots found by suffix, ``include/`` and
``arch/*/include/`` style). The linker (freshindex/query/link.py) then
follows the includes transitively, bounded, and binds the call to the first
definition it sees: a ``static inline`` function or a function-like macro in
a header is visible to every includer, as the compiler sees it. A function
declared in a header and defined in a ``.c`` file is bound to its one
definition with external linkage in the repository, as the linker binds it;
two or more such definitions (one per architecture) leave the call a
candidate. A ``static`` function binds within its own file, at extraction.

An edit rewrites only its own file's rows: who sees what is decided when the
index is read, so an update still equals a full build.
"""

from __future__ import annotations

import bisect
import json
import posixpath
import re
import shlex
from collections.abc import Callable, Collection, Iterable, Iterator

import tree_sitter as ts

INCLUDE_VIA = "through the includes of this file"
# a C++ call written with its scope (`detail::f()`), followed by the scope as
# written: looked up in the enclosing namespaces outward, with that scope
QUALIFIED_VIA = "through the includes of this file, as written"
DECLARED_VIA = "a prototype in this file"
# a C++ member call on a variable whose declared type is a class:
# "...: Repo::save", the type as written and the member
RECEIVER_VIA = "through the includes of this file, by the receiver's declared type"
# a C++ member call on a field another file declares (`versions_->current()`
# in db_impl.cc, `VersionSet* versions_;` in db_impl.h): "...: DBImpl::versions_,
# then current", the class the receiver starts from, the fields read in turn
# and the member, each field's type read from its class's `value` rows
FIELD_VIA = "through the includes of this file, by the declared types of fields"
_THEN = ", then "


def field_via(cls: str, fields: Collection[str], member: str, arrow: bool = False) -> str:
    """The via of a call through fields (``FIELD_VIA``); ``arrow``: the call
    is written ``->member`` (which a smart pointer's own members are not)."""
    called = f"->{member}" if arrow else member
    return f"{FIELD_VIA}: {cls}::{'.'.join(fields)}{_THEN}{called}"


def split_field_via(written: str) -> tuple[str, list[str], str, bool]:
    """``DBImpl::versions_.x, then current`` (a FIELD_VIA's words) ->
    (``DBImpl``, [``versions_``, ``x``], ``current``, False); ``then ->reset``
    gives ``reset``, True."""
    head, _, member = written.rpartition(_THEN)
    cls, _, fields = head.rpartition("::")
    arrow = member.startswith("->")
    return cls, fields.split("."), member.removeprefix("->"), arrow


# the include graph is followed this deep and this wide from a calling file
MAX_INCLUDE_DEPTH = 12
MAX_INCLUDED_FILES = 4000
# a file that sees no definition itself is read as its first includers see it
MAX_INCLUDERS = 8

LANGUAGES = ("c", "cpp")

# the compilation database, read from the root of the tree being indexed
COMPILE_DB = "compile_commands.json"
MAX_INCLUDE_ROOTS = 64
_INCLUDE_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter")

# a name followed by `(` in a macro's body, not after `.`, `->` or `##`
_CALL_IN_MACRO = re.compile(r"(?<![\w.>#])[ \t]*\b([A-Za-z_]\w*)\s*\(")
# words before `(` that are not calls
_NOT_CALLS = frozenset(
    {
        "if", "while", "for", "switch", "return", "sizeof", "typeof", "__typeof__",
        "__typeof", "_Alignof", "alignof", "__alignof__", "_Generic", "defined", "do",
        "__attribute__", "__attribute", "asm", "__asm__", "__asm", "_Static_assert",
        "static_assert", "__builtin_expect", "decltype", "case", "else",
    }
)  # fmt: skip


def invented_scope(name: ts.Node) -> bool:
    """``A::f`` whose ``::`` the parser invented: the C++ grammar reads a C
    macro between the type and the name (``void __init f(void)``,
    ``long __must_check g(...)``) as a scope, with the ``::`` missing."""
    colons = next((c for c in name.children if c.type == "::"), None)
    return colons is not None and colons.is_missing


def declared(declaration: ts.Node, name: ts.Node, text: Callable[[ts.Node], str]) -> ts.Node | None:
    """The name a prototype declares for its includers, or None: a ``static``
    prototype is a forward declaration of its own file's function, and
    ``A::f`` or a constructor in a class body a C++ member, which its class
    declares."""
    parent = declaration.parent
    if parent is not None and parent.type == "field_declaration_list":
        return None
    if in_body(declaration):  # a local prototype, or a macro the parser misread
        return None
    if any(
        c.type == "storage_class_specifier" and text(c) == "static" for c in declaration.children
    ):
        return None
    if name.type == "qualified_identifier":
        return name.child_by_field_name("name") if invented_scope(name) else None
    return name


def macro_calls(
    macro: ts.Node, text: Callable[[ts.Node], str]
) -> Iterator[tuple[str, tuple[int, int], tuple[int, int]]]:
    """The calls in a macro's body: tree-sitter leaves the body as text (it
    means something only where the macro expands), so they are found by
    their shape, ``name(``, leaving out keywords, member calls and the
    macro's own parameters. Yields (name, start, end) as 0-based points."""
    body = macro.child_by_field_name("value")
    if body is None:
        return
    params = macro.child_by_field_name("parameters")
    own = {text(c) for c in params.named_children} if params is not None else set()
    source = text(body)
    line, col = body.start_point
    starts = [0] + [i + 1 for i, ch in enumerate(source) if ch == "\n"]
    for m in _CALL_IN_MACRO.finditer(source):
        name = m.group(1)
        if name in _NOT_CALLS or name in own:
            continue
        at = m.start(1)
        row = bisect.bisect_right(starts, at) - 1
        first = col + at if row == 0 else at - starts[row]
        # columns are bytes elsewhere; a macro body is ASCII in practice
        yield name, (line + row, first), (line + row, first + len(name))


def in_body(node: ts.Node) -> bool:
    """Whether a node is inside a function's body."""
    up = node.parent
    while up is not None:
        if up.type == "compound_statement":
            return True
        up = up.parent
    return False


def include_roots(
    configured: Iterable[str], compile_db: bytes | None, paths: Collection[str]
) -> tuple[str, ...]:
    """The folders of the tree that angle includes are looked up in, in
    order: ``include_paths`` of freshindex.toml, then the ``-I``, ``-isystem``,
    ``-iquote`` and ``-idirafter`` folders of compile_commands.json that lie
    inside the repository (relative to the tree; "" is its top). A database
    that does not parse gives none: the roots found by suffix still apply."""
    roots = [r.strip("/") for r in configured]
    if compile_db:
        roots += _compile_db_roots(compile_db, paths)
    return tuple(dict.fromkeys(roots))[:MAX_INCLUDE_ROOTS]


def _compile_db_roots(data: bytes, paths: Collection[str]) -> list[str]:
    try:
        entries = json.loads(data)
    except (ValueError, RecursionError):
        return []
    if not isinstance(entries, list):
        return []
    top: str | None = None  # the repository's folder on the machine that wrote the file
    roots: dict[str, None] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        folder, file = entry.get("directory"), entry.get("file")
        if not isinstance(folder, str) or not isinstance(file, str):
            continue
        if top is None:
            top = _top_of(posixpath.normpath(posixpath.join(folder, file)), paths)
            if top is None:
                continue
        for flag in _include_dirs(entry):
            where = posixpath.normpath(posixpath.join(folder, flag))
            if where == top:
                roots.setdefault("", None)
            elif where.startswith(top.rstrip("/") + "/"):
                roots.setdefault(where[len(top.rstrip("/")) + 1 :], None)
        if len(roots) >= MAX_INCLUDE_ROOTS:
            break
    return list(roots)


def _top_of(file: str, paths: Collection[str]) -> str | None:
    """The folder that holds the repository, from one compiled file's
    absolute path: the prefix whose remainder is a path of the tree."""
    parts = file.split("/")
    for k in range(1, len(parts)):
        if "/".join(parts[k:]) in paths:
            return "/".join(parts[:k]) or "/"
    return None


def _include_dirs(entry: dict[str, object]) -> list[str]:
    args = entry.get("arguments")
    if not isinstance(args, list):
        command = entry.get("command")
        try:
            args = shlex.split(command) if isinstance(command, str) else []
        except ValueError:
            return []
    out = []
    words = [a for a in args if isinstance(a, str)]
    for i, word in enumerate(words):
        for flag in _INCLUDE_FLAGS:
            if word == flag:  # -I dir
                if i + 1 < len(words):
                    out.append(words[i + 1])
                break
            if word.startswith(flag):  # -Idir
                out.append(word[len(flag) :])
                break
    return out


def call_claim(
    parent: ts.Node | None, written: str, container: str, text: Callable[[ts.Node], str]
) -> tuple[str, str] | None:
    """The qualified name a C or C++ call claims, and how the linker looks
    it up; None for a call it cannot name (a template's member, a scope
    that is an expression).

    ``f()`` in a function of ``container`` (``app.Repo``, for
    ``app.Repo.save``) claims ``app.Repo.f``: the linker tries it and then
    each scope outward
    (``app.f``, ``f``), as C++ looks a name up from the inside out, which in
    C, where nothing is nested, is the name itself. ``detail::f()`` there
    claims ``app.Repo.detail.f`` with the written scope in the via
    (``...: detail::f``): the linker keeps ``detail.f`` and drops only the
    enclosing scopes (``app.detail.f``, ``detail.f``). ``written``: the
    called name as written, ``parent``: its parent node."""
    parts = [written]
    qualified = parent
    if qualified is not None and qualified.type == "template_function":
        qualified = qualified.parent  # `detail::make_arg<T>(v)`: the scope is around it
    while qualified is not None and qualified.type == "qualified_identifier":
        if invented_scope(qualified):  # a C macro before the name: not a scope
            break
        scope = qualified.child_by_field_name("scope")
        if scope is not None:
            if scope.type != "namespace_identifier" and scope.type != "type_identifier":
                return None
            parts.append(text(scope))
        qualified = qualified.parent
    spelled = ".".join(reversed(parts))
    qualname = f"{container}.{spelled}" if container else spelled
    if len(parts) > 1:
        return qualname, f"{QUALIFIED_VIA}: {'::'.join(reversed(parts))}"
    return qualname, INCLUDE_VIA


def outward(qualname: str, written: str = "") -> list[str]:
    """``a.b.f``, then ``a.f``, then ``f``: the scopes a C++ name is looked
    up in, innermost first; ``written``: the tail the call spelled out
    (``detail.f``), kept in every candidate."""
    name = written or qualname.rsplit(".", 1)[-1]
    scopes = qualname[: -len(name)].rstrip(".").split(".") if qualname != name else []
    return [".".join([*scopes[:k], name]) for k in range(len(scopes), -1, -1)]
