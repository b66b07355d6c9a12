"""Which grammar parses which file, and the versions that go into every manifest.

Grammars come from the per-language wheels (tree-sitter-python, …), never from
tree-sitter-language-pack, which downloads grammars at run time and fails
offline. Each language's extraction rules are package data in
``indexer/queries/<query>.scm``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tree_sitter as ts

QUERY_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    module: str  # the grammar wheel's import name
    factory: str  # the function in it that returns the language pointer
    distribution: str  # the wheel's name, whose version goes into the manifest
    query: str  # indexer/queries/<query>.scm; "a+b": a.scm, then b.scm
    extensions: tuple[str, ...]


LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            "python",
            "tree_sitter_python",
            "language",
            "tree-sitter-python",
            "python",
            (".py", ".pyi"),
        ),
        LanguageSpec(
            "javascript",
            "tree_sitter_javascript",
            "language",
            "tree-sitter-javascript",
            "javascript+ecmascript+jsx",
            (".js", ".jsx", ".mjs", ".cjs"),
        ),
        LanguageSpec(
            "typescript",
            "tree_sitter_typescript",
            "language_typescript",
            "tree-sitter-typescript",
            "typescript+ecmascript",
            (".ts", ".mts", ".cts", ".vue"),  # a .vue file's script blocks (indexer/vue.py)
        ),
        LanguageSpec(
            "tsx",
            "tree_sitter_typescript",
            "language_tsx",
            "tree-sitter-typescript",
            "typescript+ecmascript+jsx",
            (".tsx",),
        ),
        LanguageSpec("go", "tree_sitter_go", "language", "tree-sitter-go", "go", (".go",)),
        LanguageSpec("rust", "tree_sitter_rust", "language", "tree-sitter-rust", "rust", (".rs",)),
        LanguageSpec(
            "java", "tree_sitter_java", "language", "tree-sitter-java", "java", (".java",)
        ),
        LanguageSpec("c", "tree_sitter_c", "language", "tree-sitter-c", "c", (".c",)),
        # `.h` is C++: the C++ grammar parses C headers (their declarations are
        # C++ too), while the C grammar fails on every class or namespace in a
        # C++ header. documents.language records the choice.
        LanguageSpec(
            "cpp",
            "tree_sitter_cpp",
            "language",
            "tree-sitter-cpp",
            "cpp",
            (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".h", ".inl"),
        ),
        LanguageSpec(
            "csharp", "tree_sitter_c_sharp", "language", "tree-sitter-c-sharp", "csharp", (".cs",)
        ),
        LanguageSpec(
            "ruby", "tree_sitter_ruby", "language", "tree-sitter-ruby", "ruby", (".rb", ".rake")
        ),
        LanguageSpec("php", "tree_sitter_php", "language_php", "tree-sitter-php", "php", (".php",)),
        LanguageSpec(
            "kotlin",
            "tree_sitter_kotlin",
            "language",
            "tree-sitter-kotlin",
            "kotlin",
            (".kt", ".kts"),
        ),
    )
}

_BY_EXTENSION = {ext: spec.name for spec in LANGUAGES.values() for ext in spec.extensions}


# the languages whose binder writes a row for each read of a name (`use`,
# indexer/bind_python.py); the others record calls, imports and bases only,
# so a list of a variable's references there leaves its reads out
READS_RECORDED = frozenset({"python"})
# the languages that write a row where a function is used as a value rather
# than called (a callback passed, `{ onClick: save }`, `Handler: list`,
# Java's and Kotlin's `Repo::parse`);
# elsewhere a function pointer or method reference is no row, so a function
# with no bound reference there may still be used
VALUES_RECORDED = frozenset({"python", "javascript", "typescript", "tsx", "go", "java", "kotlin"})
# C and C++ record a function used as a value in the file that defines or
# declares it (indexer/values_c.py): whole for a `static` function of a
# source file, which no other file can name
C_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl")


def language_for(path: str) -> str | None:
    """The language name for a path, by extension; None when no grammar handles it.
    The extension is PurePosixPath's suffix, found without building a path
    object (this runs once per file of every build)."""
    name = path.rstrip("/").rpartition("/")[2]
    dot = name.rfind(".")
    return _BY_EXTENSION.get(name[dot:].lower()) if 0 < dot < len(name) - 1 else None


@functools.cache
def ts_language(name: str) -> ts.Language:
    spec = LANGUAGES[name]
    module = importlib.import_module(spec.module)
    return ts.Language(getattr(module, spec.factory)())


@functools.cache
def ts_query(name: str) -> ts.Query:
    spec = LANGUAGES[name]
    text = "\n".join((QUERY_DIR / f"{part}.scm").read_text() for part in spec.query.split("+"))
    return ts.Query(ts_language(name), text)


@functools.cache
def pattern_query(name: str, patterns: str) -> ts.Query:
    return ts.Query(ts_language(name), patterns)


def in_source_order(name: str, patterns: str, root: ts.Node) -> list[tuple[ts.Node, str]]:
    """The captures of a query over ``root`` as (node, capture name), in
    source order, a node before the nodes it holds: the order a walk with a
    stack of open scopes reads them in (indexer/bind_java.py)."""
    found = ts.QueryCursor(pattern_query(name, patterns)).captures(root)
    return sorted(
        ((n, capture) for capture, nodes in found.items() for n in nodes),
        key=lambda item: (item[0].start_byte, -item[0].end_byte),
    )


def within_open(
    captures: list[tuple[ts.Node, str]], stack: list[Any]
) -> Iterator[tuple[ts.Node, str]]:
    """``captures`` in source order, with ``stack`` (frames whose first item
    is the byte their scope ends at, the file's frame at the bottom) popped
    of every scope that ended before each capture: ``stack[-1]`` is then the
    innermost scope holding it."""
    for node, kind in captures:
        while len(stack) > 1 and node.start_byte >= stack[-1][0]:
            stack.pop()
        yield node, kind


def grammar_versions(languages: list[str] | None = None) -> dict[str, str]:
    """language -> grammar package version, for the manifest's ``grammars`` field."""
    out: dict[str, str] = {}
    for name in sorted(languages or LANGUAGES):
        spec = LANGUAGES[name]
        out[name] = f"{spec.distribution}=={_installed(spec.distribution)}"
    out["tree-sitter"] = _installed("tree-sitter")
    return out


@functools.cache
def _installed(distribution: str) -> str:
    """A distribution's version, read once per process: the grammars this
    process parses with are the ones it loaded, whatever is installed later
    (every answer of a service compares them with its version's; reading the
    metadata each time was a third of a warm status)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - broken install
        return "unknown"


@functools.cache
def indexer_digest() -> str:
    """sha256 over the indexer's own code and queries.

    Rows depend on exactly these files; a change in any of them makes an
    existing index ``stale`` with reason ``indexer changed``.
    """
    root = Path(__file__).parent
    h = hashlib.sha256()
    for path in sorted([*root.glob("*.py"), *QUERY_DIR.glob("*.scm")]):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return "sha256:" + h.hexdigest()
