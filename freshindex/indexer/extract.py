"""Bytes of one file in, symbol and edge rows out. Pure: no git, no storage, no Prefect.

Over 400 lines as one concept: the one pass over a parse tree that every
language shares, with the per-language details that pass needs.

The extraction rules are the tree-sitter queries in ``indexer/queries``; this
module only applies the capture convention documented in ``python.scm``:
``@definition.<kind>``/``@reference.<kind>`` on the node, ``@name`` on the name,
``@module``/``@alias`` on imports, ``@scope`` for containers that are not symbols.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import tree_sitter as ts

from freshindex.indexer import (
    bind_c,
    bind_csharp,
    bind_go,
    bind_java,
    bind_kotlin,
    bind_php,
    bind_python,
    bind_ruby,
    bind_rust,
    chains,
    conditionals,
    flow_js,
    globals_of,
    macros_cpp,
    pointers_cpp,
    receivers_cpp,
    repairs_ts,
    rust_attributes,
    rust_paths,
    rust_uses,
    scope_cpp,
    shadows,
    this_js,
    ts_compat,
    types_go,
    values_c,
    vue,
)
from freshindex.indexer.guarded import innermost_around
from freshindex.indexer.kotlin_imports import kotlin_member
from freshindex.indexer.languages import pattern_query, ts_language, ts_query
from freshindex.indexer.resolve import Resolver
from freshindex.indexer.schema import Binding, EdgeKind, EdgeRow, edge_row, value_row
from freshindex.indexer.summary import summarize

# tree-sitter calls the parse progress callback about once per 100 parser
# operations. Measured on 800 files of CPython's stdlib: 0.005 calls per byte
# on average, 0.0126 at worst. The budget, factor x bytes / 100 (0.08 calls per
# byte at the default factor 8, six times the worst seen) plus a floor, only
# cuts off pathological inputs: runaway error recovery on adversarial bytes.
_PARSE_CALLS_FLOOR = 2_000


# Matches the tags query may hold in progress at once. The most any real
# file needed: 140 (three.js's GLTFLoader.js, Angular's testing.mjs), under
# 32 for 30,000 kernel and stdlib files. Query work is the tree's size times
# this at most: a Kotlin chain of 700 calls, under the nesting bound below,
# is refused in a fifth of a second.
QUERY_MATCH_LIMIT = 1024


# How deep a file's syntax may nest. A node's parent (and its previous
# sibling) is found by a walk down from the root, so each costs the node's
# depth, and a file nested N deep with a name at every level (`f(f(f(...)))`)
# cost N squared: minutes at N = 20,000. The deepest real file seen: 570
# (sympy's generated resolvent_lookup.py); 40 at the 99.9th percentile of
# 37,658 kernel, stdlib and npm files.
MAX_NESTING = 2000
# Deeper than this, a definition's comment is read only right above it, not
# above what wraps it on its line: each step up costs the depth again.
SHALLOW = 256


class ParseBudgetExceeded(Exception):
    """The file needed more parse or query work than its budget; it is skipped."""


@dataclass
class FileRows:
    """What one parsed file contributes: symbols and edges as column-ready tuples."""

    symbols: list[tuple] = field(default_factory=list)
    edges: list[EdgeRow] = field(default_factory=list)
    summaries: list[tuple] = field(default_factory=list)


@dataclass
class _Def:
    start: int
    end: int
    name: str
    kind: str  # "" for a pure scope (a Rust impl block)
    node: ts.Node
    name_node: ts.Node
    container: str = ""
    parent: _Def | None = None
    scope: str = ""  # C++: the scope written before the name (`Repo` of `Repo::save`)
    extends: str = ""  # Kotlin: the class an extension function extends (`fun Repo.f()`)

    @property
    def qualname(self) -> str:
        return f"{self.container}.{self.name}" if self.container else self.name


@functools.cache
def _capture_roles(language: str) -> dict[str, tuple[bool, str]]:
    """``@definition.K`` -> (True, K), ``@reference.K`` -> (False, K), of a
    language's tags query (Python's references come from its binder)."""
    query = ts_query(language)
    out = {}
    for i in range(query.capture_count):
        cap = query.capture_name(i)
        if cap.startswith("definition."):
            out[cap] = (True, cap[11:])
        elif cap.startswith("reference.") and language != "python":
            out[cap] = (False, cap[10:])
    return out


def symbol_id(path: str, qualname: str, kind: str, ordinal: int) -> str:
    """Stable id of a definition within a version: path, qualified name, kind and
    which occurrence of that triple it is. An incremental update carries ids
    across renames, so ids are compared only within an index, never rebuilt."""
    key = f"{path}\0{qualname}\0{kind}\0{ordinal}".encode()
    return hashlib.blake2b(key, digest_size=10).hexdigest()


def _first_branches(
    language: str, source: bytes, tree: ts.Tree, work_factor: int, every: bool = False
) -> ts.Tree:
    """The tree of ``source`` with its conditionals written inside a construct
    (``every``: all of them) read as their first branch
    (indexer/conditionals.py), if that has fewer errors than ``tree``; else
    ``tree``."""
    if every:
        spans = conditionals.every_first_branch(source)
    else:
        spans = conditionals.first_branches(source)
    if not spans:
        return tree
    other = parse(language, conditionals.blanked(source, spans), work_factor)
    fewer = conditionals.errors(language, other) < conditionals.errors(language, tree)
    return other if fewer else tree


def parse(language: str, data: bytes, work_factor: int = 8) -> ts.Tree:
    """Parse with a work bound: tree-sitter 0.26 has no timeout of its own, and
    takes a progress callback only with a read callback (for a bytes source it
    is ignored), so the source is handed over through one."""
    parser = ts.Parser(ts_language(language))
    limit = _PARSE_CALLS_FLOOR + work_factor * len(data) // 100
    calls = 0
    handed: list[bytes] = []
    # the tree keeps the callable as its source, and a query's text
    # predicates (`#eq?`, `#match?`) read each capture through it after the
    # parse: a 64 kB copy per capture made TSX's tags query 2.4 times slower
    size = 65536

    def progress(_offset: int, _has_error: bool) -> bool:
        nonlocal calls
        calls += 1
        return calls > limit  # True cancels the parse

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        chunk = data[offset : offset + size]
        if chunk and size == 65536:
            handed.append(chunk)
        return chunk

    try:
        tree = parser.parse(read, progress_callback=progress)
    except ValueError as err:  # py-tree-sitter reports a cancelled parse as "Parsing failed"
        raise ParseBudgetExceeded(f"parse needed more than {limit} steps") from err
    finally:
        ts_compat.release(handed)
        size = _TEXT_CHUNK
    if tree is None or calls > limit:
        raise ParseBudgetExceeded(f"parse needed more than {limit} steps")
    return tree


# what the source callable hands a text predicate at a time, once parsed
# (a name; a longer text is read in turn): 0.047 s against 0.078 for hono's
# TSX query, 0.041 parsed from bytes; the binding keeps no reference to these
_TEXT_CHUNK = 256


def _repaired_typescript(language: str, source: bytes, tree: ts.Tree, work_factor: int) -> ts.Tree:
    """The tree of ``source`` with what the grammar misreads rewritten
    (indexer/repairs_ts.py), where that parses with fewer errors."""
    fixed = repairs_ts.repaired(source)
    if fixed == source:
        return tree
    other = parse(language, fixed, work_factor)
    if not other.root_node.has_error:
        return other
    fewer = conditionals.errors(language, other) < conditionals.errors(language, tree)
    return other if fewer else tree


def nesting(root: ts.Node) -> int:
    """The depth of a tree along its heaviest path: from each node, the child
    holding the most nodes. A deep nest holds most of what is above it, so
    this finds it in depth x branching steps (34 us a file on average)."""
    depth, node = 0, root
    while node.child_count:
        node = max(node.children, key=lambda c: c.descendant_count)
        depth += 1
    return depth


def extract(
    path: str,
    language: str,
    data: bytes,
    resolve: Resolver | None = None,
    work_factor: int = 8,
    blob: str = "",
) -> FileRows:
    """Symbols, edges and summaries of one file (``blob``: its git OID, the
    summaries' key). Raises ParseBudgetExceeded on pathological input."""
    component = data if path.endswith(vue.EXTENSION) else None
    if component is not None:  # a Vue component: its script blocks, in place
        data = vue.script_only(data)
    # parsed without the macros C++'s grammar misreads; every name is read
    # from the bytes as written
    cpp_words = language == "cpp" and macros_cpp.may_have_classes(path, data)
    source = macros_cpp.without_macros(data, cpp_words) if language == "cpp" else data
    tree = parse(language, source, work_factor)
    if language in ("c", "cpp") and conditionals.swallowed(tree.root_node):
        tree = _first_branches(language, source, tree, work_factor)
    elif language == "csharp" and tree.root_node.has_error and b"#if" in source:
        tree = _first_branches(language, source, tree, work_factor, every=True)
    elif language in ("typescript", "tsx") and tree.root_node.has_error:
        tree = _repaired_typescript(language, source, tree, work_factor)
    if (depth := nesting(tree.root_node)) > MAX_NESTING:
        raise ParseBudgetExceeded(f"syntax nested {depth} deep, more than {MAX_NESTING}")
    query = ts_query(language)
    # No progress callback here: passing one (or a predicate hook) to
    # QueryCursor.matches segfaults in py-tree-sitter 0.26.1. Query work is
    # the tree's size times the matches held in progress at once, which
    # nesting raises: a pattern waits at each call of `c.m().m()...` for the
    # name after its receiver, so a 40,000-link chain took minutes. The
    # match limit bounds that; real files stay far below it.
    cursor = ts.QueryCursor(query, match_limit=QUERY_MATCH_LIMIT)
    matches = cursor.matches(tree.root_node)
    if cursor.did_exceed_match_limit:
        raise ParseBudgetExceeded(f"query held more than {QUERY_MATCH_LIMIT} matches in progress")

    def text(node: ts.Node) -> str:
        return data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    defs: dict[int, _Def] = {}
    scopes: dict[int, _Def] = {}
    refs: dict[
        tuple[int, str], tuple[ts.Node, str, str, str, ts.Node]
    ] = {}  # -> name node, kind, module, alias, the captured reference
    roles = _capture_roles(language)
    for _pattern, caps in matches:
        names = caps.get("name")
        if "scope" in caps and names:
            node = caps["scope"][0]
            # `namespace X;` (PHP, C#) names the container of the rest of the file
            end = len(data) if node.child_by_field_name("body") is None else node.end_byte
            name = text(names[0]).replace("\\", ".").replace("::", ".")
            scopes.setdefault(node.start_byte, _Def(node.start_byte, end, name, "", node, names[0]))
            continue
        for cap, nodes in caps.items():
            role = roles.get(cap)
            if role is None:
                continue
            is_definition, kind = role
            if is_definition and names:
                node, name_node = nodes[0], names[0]
                if node.type == "field_declaration" and data.startswith(
                    b"__", name_node.start_byte
                ):
                    continue  # `void *p[] __aligned(8);`: an attribute macro, read as a method
                name = text(name_node)
                if name_node.type == "simple_symbol":  # Ruby's `attr_reader :name`
                    name = name[1:]
                # first pattern wins: queries list specific patterns before general
                # ones; the general `field` one may match first (it ends sooner), so
                # any other kind replaces it: a class field holding a function is a
                # method (`handle = () => {}`), a static Java field a constant; and
                # a method replaces an object key's `property` (`{ run: () => 1 }`)
                had = defs.get(name_node.start_byte)
                if (
                    had is None
                    or (had.kind == "field" and kind != "field")
                    or (had.kind == "property" and kind == "method")
                ):
                    made = _Def(node.start_byte, node.end_byte, name, kind, node, name_node)
                    if node.type == "assignment_expression" and not _js_assigned(made, text):
                        continue
                    if node.type == "property_signature" and not _alias_member(node):
                        continue  # `f(x: {a: 1} | B)`: a parameter's type, no member
                    if language == "kotlin" and node.type == "function_declaration":
                        made.extends = _extended(node, text)  # fun Repo.saveAll(): Repo's
                    defs[name_node.start_byte] = made
            elif not is_definition:
                module = text(caps["module"][0]) if "module" in caps else ""
                if language == "ruby" and kind == "import":
                    if module not in RUBY_REQUIRES or not names:
                        continue
                    module = text(names[0])
                alias = text(caps["alias"][0]) if "alias" in caps else ""
                name_node = names[0] if names else nodes[0]
                if "_named" in caps and not _ruby_names_a_method(caps, text):
                    continue  # `has_many :posts`, `render json: ...`: symbols as data
                if kind == EdgeKind.DECLARE:
                    declared = bind_c.declared(nodes[0], name_node, text)
                    if declared is None:
                        continue
                    name_node = declared
                elif (
                    kind == EdgeKind.CALL
                    and nodes[0].type == "declaration"
                    and not bind_c.in_body(nodes[0])
                ):
                    continue  # a call misread as a declaration is one only in a body
                elif kind == EdgeKind.INHERIT and _type_parameter(nodes[0], text(name_node), text):
                    continue  # `type Named<T> = T & {...}`: T is no type of the repository
                elif (
                    kind == EdgeKind.CALL
                    and nodes[0].type == "macro_invocation"
                    and name_node != nodes[0].child_by_field_name("macro")
                    and not bind_rust.token_call(name_node, data)
                ):
                    continue  # a name in a macro's tokens not followed by `(`
                refs.setdefault(
                    (name_node.start_byte, kind), (name_node, kind, module, alias, nodes[0])
                )

    if language == "rust" and b"{" in data:  # `use a::{b::{c as d}}`: nested groups
        for name_node, module, alias, declaration in rust_uses.grouped_imports(
            tree.root_node, text
        ):
            refs.setdefault(
                (name_node.start_byte, EdgeKind.IMPORT),
                (name_node, EdgeKind.IMPORT, module, alias, declaration),
            )
    if language == "ruby":  # `include Helpers`: a base, not also a type reference
        for at, _kind in [k for k in refs if k[1] == EdgeKind.TYPE]:
            if (at, EdgeKind.INHERIT) in refs:
                del refs[(at, EdgeKind.TYPE)]
    ordered = sorted([*defs.values(), *scopes.values()], key=lambda d: (d.start, -d.end))
    if language == "cpp":
        for d in ordered:
            if d.kind in _SCOPED_KINDS:  # the kinds whose name a scope may be written on
                _written_scope(d, text)
    _assign_containers(ordered)
    if language == "python":
        ordered = _instance_attributes(ordered)
    if language in ("typescript", "tsx"):
        _parameter_properties(ordered)
    if language == "go":
        for d in ordered:
            if d.kind == "method" and d.node.type == "method_declaration":
                d.container = types_go.receiver_type_name(d.node, text)
            # an interface's method_elem keeps its interface as container

    rows = FileRows()
    ordinals: dict[tuple[str, str], int] = {}
    top_level: set[str] = set()
    # JS: a function whose prototype this file sets methods on is a class
    # (`new Repo()` makes a Repo), as a class declaration would be
    constructors = (
        {d.container for d in ordered if d.kind == "method" and d.scope}
        if language in _JS_LANGUAGES
        else set()
    )
    for d in ordered:
        if not d.kind:
            continue
        kind = d.kind
        if (
            kind == "function"
            and d.parent is not None
            and d.parent.kind
            in ("class", "struct", "interface", *CLASS_LIKE_SCOPES.get(language, ("",)))
        ):
            kind = "method"
        elif kind == "function" and d.parent is None and d.name in constructors:
            kind = "class"
        key = (d.qualname, kind)
        ordinal = ordinals.get(key, 0)
        ordinals[key] = ordinal + 1
        if not d.container:
            top_level.add(d.name)
        sid = symbol_id(path, d.qualname, kind, ordinal)
        signature, doc, decorators = summarize(language, d.node, text, data, depth > SHALLOW)
        rows.summaries.append(
            (
                path,
                blob,
                sid,
                d.qualname,
                kind,
                language,
                d.node.start_point[0] + 1,
                d.node.end_point[0] + 1,
                d.node.end_byte - d.node.start_byte,
                signature,
                doc,
                decorators,
            )
        )
        rows.symbols.append(
            (
                sid,
                path,
                d.name,
                d.container,
                d.qualname,
                kind,
                language,
                d.node.start_point[0] + 1,
                d.node.start_point[1],
                d.node.end_point[0] + 1,
                d.node.end_point[1],
                d.name_node.start_point[0] + 1,
                d.name_node.start_point[1],
                _exported(language, d, kind, text),
            )
        )

    if language == "python":
        sites = bind_python.bind(path, data, tree, resolve)
        rows.edges = _site_rows(path, language, data, sites, ordered)
    else:
        cpp = language == "cpp"
        found = scope_cpp.usings(tree, text) if cpp and b"using" in data else []
        receivers = receivers_cpp.Receivers(tree.language, text, tree.root_node) if cpp else None
        typed = _RECEIVERS[language](tree.root_node, text) if language in _RECEIVERS else None
        if language in bind_c.LANGUAGES:
            _c_values(language, refs, ordered, tree.root_node, source, text)
        rows.edges = _query_edges(
            path, language, refs, ordered, top_level, text, resolve, found, receivers, typed,
            tree.root_node,
        )  # fmt: skip
        if language in bind_c.LANGUAGES:
            rows.edges += _macro_calls(path, language, ordered, top_level, text)
        if receivers is not None and cpp_words:
            records = [(d.name_node, d.qualname) for d in ordered if d.kind in _RECORDS]
            methods = [
                (d.node, d.name_node, d.qualname, d.parent.name_node)
                for d in ordered
                if d.parent is not None and d.parent.kind in _RECORDS and d.kind in _CALLABLE
            ]
            rows.edges += receivers.member_facts(path, records, methods)
        if component is not None:
            rows.edges += _template_uses(path, language, component, top_level, rows.edges)
        if language in _JS_FAMILY:
            rows.edges += flow_js.rows(
                path, language, tree.root_node, rows.edges, top_level, text, resolve
            )
    return rows


def _c_values(
    language: str,
    refs: dict[tuple[int, str], tuple[ts.Node, str, str, str, ts.Node]],
    ordered: list[_Def],
    root: ts.Node,
    source: bytes,
    text: Callable[[ts.Node], str],
) -> None:
    """Adds to ``refs`` a ``use`` where a C or C++ file names one of the
    functions it defines or declares as a value (`request_irq(irq,
    drv_irq)`, `p->done = drv_done`; indexer/values_c.py)."""
    names = {d.name for d in ordered if d.kind == "function" and not d.container}
    if language == "c":  # C++'s grammar reads a constructor's `file_(file)` as a prototype
        names.update(text(r[0]) for (_at, kind), r in refs.items() if kind == EdgeKind.DECLARE)
    if not names:
        return
    known = {at for at, _kind in refs} | {d.name_node.start_byte for d in ordered}
    for node in values_c.value_uses(root, source, names, known):
        refs[(node.start_byte, EdgeKind.USE)] = (node, EdgeKind.USE, "", "", node.parent or node)


_JS_FAMILY = ("javascript", "typescript", "tsx")
# where a C# name is a value: `F(Parse)`, `e.Click += OnClick`, `Func<int> f = Compute`
_CSHARP_VALUES = frozenset({"argument", "assignment_expression", "variable_declarator"})
# languages whose receivers' declared types bind a method passed as a value
_TYPED_USES = ("java", "rust", "kotlin", "php")
# C++ definitions a query pattern may capture with a written scope
# (`void Repo::save()`, `class Regexp::ParseState {`)
_SCOPED_KINDS = frozenset({"method", "class", "struct"})
# C++ definitions whose members the linker reads (receivers_cpp.member_facts)
_RECORDS = ("class", "struct")
_CALLABLE = ("method", "function")


# the languages whose functions named as values (`this::run`, `::run`, C#'s
# method group `Select(Parse)`, Ruby's `before_action :run`) are uses bound
# as a bare call of the name would be (_this_class)
_REFERENCES = ("java", "kotlin", "csharp", "ruby")
# the vias of a bare name bound by the file's own rules (a top-level
# definition; an import: "imported from <module>")
_DEFINED_HERE = "defined in this file"
_REQUIRED = "what require({!r}) exports"


def _macro_calls(
    path: str,
    language: str,
    ordered: list[_Def],
    top_level: set[str],
    text: Callable[[ts.Node], str],
) -> list[EdgeRow]:
    """C and C++ calls in the bodies of this file's macros, called by the
    macro and bound like a bare call (indexer/bind_c.py)."""
    out = []
    for d in ordered:
        if d.kind not in ("macro", "constant") or d.node.type not in _MACROS:
            continue
        for name, start, end in bind_c.macro_calls(d.node, text):
            via = "defined in this file" if name in top_level else bind_c.INCLUDE_VIA
            out.append(
                edge_row(
                    path,
                    d.qualname,
                    name,
                    "",
                    EdgeKind.CALL,
                    language,
                    start,
                    end,
                    resolved=path,
                    qualname=name,
                    binding=Binding.BOUND,
                    via=via,
                )
            )
    return out


_MACROS = ("preproc_function_def", "preproc_def")


def _site_rows(
    path: str, language: str, data: bytes, sites: list[bind_python.Site], ordered: list[_Def]
) -> list[EdgeRow]:
    seen: set[tuple[int, str, str | None, str | None, str | None]] = set()
    unique = []
    # one row per place, kind and claim: a name that may hold two values
    # gives a row for each (indexer/flow_python.py)
    for site in sorted(
        sites,
        key=lambda s: (s.node.start_byte, s.kind, s.name or "", s.path or "", s.qualname or ""),
    ):
        key = (site.node.start_byte, site.kind, site.name, site.path, site.qualname)
        if key not in seen:
            seen.add(key)
            unique.append(site)
    enclosing = _enclosing(ordered, [s.node.start_byte for s in unique])
    out = []
    for site, source in zip(unique, enclosing, strict=True):
        n = site.node
        # sliced from the bytes: Node.text of a tree parsed from a read
        # callback calls it again, copying up to 64 kB per node
        raw = site.name or data[n.start_byte : n.end_byte].decode("utf-8", "replace")
        out.append(
            edge_row(
                path,
                site.holder or source,
                raw,
                site.module,
                site.kind,
                language,
                n.start_point,
                n.end_point,
                resolved=site.path,
                qualname=site.qualname,
                binding=site.binding,
                via=site.via,
                alias=site.alias or None,
            )
        )
    return out


# an import whose spec names a file or package, not a symbol in it
_MODULE_IMPORTS = ("go", "c", "cpp", "ruby", "rust")
_JS_LANGUAGES = ("javascript", "typescript", "tsx")


def _query_edges(
    path: str,
    language: str,
    refs: dict[tuple[int, str], tuple[ts.Node, str, str, str, ts.Node]],
    ordered: list[_Def],
    top_level: set[str],
    text: Callable[[ts.Node], str],
    resolve: Resolver | None,
    usings: list[scope_cpp.Using],
    receivers: receivers_cpp.Receivers | None,
    declared: dict[int, tuple[str, str]] | None = None,
    root: ts.Node | None = None,
) -> list[EdgeRow]:
    """Edges from the tags query's reference captures, bound by the rules one
    file can apply: a name its imports bind to a file of the repository, a
    name defined at the top of this file; everything else is a candidate.
    ``usings``: a C++ file's ``using`` lines, carried in its calls' claims;
    ``receivers``: a C++ file's declared variable types, for member calls;
    ``declared``: a Java or Rust file's receivers' declared types
    (bind_java.py, bind_rust.py);
    ``root``: the file's syntax tree, for Go's function results and struct fields."""
    # import bindings: local name -> (module, imported name)
    bindings: dict[str, tuple[str, str]] = {}
    ref_list = sorted(refs.values(), key=lambda r: (r[0].start_byte, r[1]))
    # JS/TS: `import * as z from "./m"`: local name -> the module
    namespaces: dict[str, str] = {}
    # CommonJS: `const m = require("./m")`, whose `m()` calls the module's
    # `module.exports` (its default)
    required: set[str] = set()
    # Rust: the names a `use` at the top of the file brings, when nothing in
    # the file defines the name too (a `use` in a function or a nested `mod`
    # is scoped to it, and an item of a nested `mod` may share its name)
    rust_items = _rust_top_uses(root, ordered) if language == "rust" else None
    overloaded: set[str] = set()  # Java: names two static imports bring
    for name_node, kind, module, alias, outer in ref_list:
        if kind == "import":
            name = _last_segment(language, text(name_node))
            # a Kotlin or PHP import names its module only in the whole path (`lib.Store`)
            spec = module or (text(name_node) if language in ("kotlin", "php") else "")
            if language == "csharp" and alias:
                continue  # `using Check = Acme.XAssert;`: read when linking, after the namespaces
            # Kotlin: `okhttp3.TestUtil.headerEntries` brings TestUtil.headerEntries
            brought = (spec, kotlin_member(spec) if language == "kotlin" else name)
            if language == "java" and bindings.get(alias or name, brought) != brought:
                # Java's `import static ...Truth.assertThat` beside `...Subject.assertThat`:
                # overloads, chosen by the arguments' types
                overloaded.add(alias or name)
            bindings[alias or name] = brought
            if rust_items is not None:
                rust_items.note(alias or name, name_node.start_byte)
            held = _parent(name_node, outer) if language in _JS_LANGUAGES else None
            # `import * as z from "./m"`; CommonJS's `const z = require("./m")`
            if held is not None and held.type in ("namespace_import", "variable_declarator"):
                namespaces[name] = spec
                if held.type == "variable_declarator":
                    required.add(name)
            elif held is not None and held.type == "import_clause":  # `import x from "./m"`
                bindings[alias or name] = (spec, flow_js.DEFAULT)

    go_imports = {local: spec for local, (spec, _name) in bindings.items()}
    visible = _visible(language, bindings, top_level, resolve, root, ordered, text)
    go_scopes = bind_go.GoScopes(text, root) if language == "go" else None
    edges = []
    enclosing_defs = _enclosing_defs(ordered, [r[0].start_byte for r in ref_list])
    enclosing = [d.qualname if d else "" for d in enclosing_defs]
    # C#: the types this file defines, by name (one each; none nested in a
    # type), asked for once per file
    file_types = functools.cache(lambda: _file_types(ordered))
    # the qualnames of a Java file's classes and interfaces, asked for once
    java_types = functools.cache(
        lambda: frozenset(d.qualname for d in ordered if d.kind in _JAVA_TYPES)
    )
    # the qualnames of functions declared inside functions (JS, Kotlin, C#, Rust)
    local_functions = functools.cache(
        lambda: frozenset(
            d.qualname
            for d in ordered
            if d.kind == "function" and d.parent is not None and d.parent.kind in _BODIES
        )
    )
    # (class, method) of each C# method this file defines, for method groups
    csharp_methods = functools.cache(
        lambda: frozenset(
            (d.parent.qualname, d.name)
            for d in ordered
            if d.parent is not None and d.kind == "method"
        )
    )
    csharp_names = functools.cache(lambda: frozenset(method for _cls, method in csharp_methods()))
    # (class, name) of each member this file defines, for Kotlin's bare calls;
    # in JS, of each method set on a constructor function's prototype
    members = functools.cache(
        lambda: (
            frozenset((d.container, d.name) for d in ordered if d.kind == "method" and d.scope)
            if language in _JS_LANGUAGES
            else frozenset((d.parent.qualname, d.name) for d in ordered if d.parent is not None)
        )
    )
    # Ruby: the classes and modules with a base or a mixin written here, whose
    # bare calls the linker may find in an ancestor
    based = functools.cache(
        lambda: frozenset(
            source
            for r, source in zip(ref_list, enclosing, strict=True)
            if r[1] == EdgeKind.INHERIT
        )
    )
    # Kotlin: the names each function declares, for its bare calls
    kotlin_locals = functools.cache(lambda node: bind_kotlin.local_names(node, text))
    # the file's classes (and interfaces, objects...), for a nested one named bare
    type_names = functools.cache(
        lambda: frozenset(d.qualname for d in ordered if d.kind in _TYPE_KINDS)
    )
    # the functions of a Rust file's nested modules, for their bare calls
    rust_functions = functools.cache(
        lambda: frozenset(d.qualname for d in ordered if d.kind == "function" and d.parent)
    )
    # JS/TS: the methods of each object literal, asked for by `this.m` in one
    object_methods = functools.cache(
        lambda: this_js.ObjectMethods(
            d for d in ordered if d.parent is None or d.parent.kind != "class"
        )
    )
    # asked for only by a Java call on `this` or a bare one, once per file
    anonymous = functools.cache(
        lambda: _anonymous_bodies(language, root) if root is not None else []
    )
    # JS/TS, Rust: the names each function declares, which hide the file's
    # (asked for only by a bare name bound to a top-level definition or an import)
    hiding = (
        functools.cache(
            lambda: shadows.Shadows(
                language,
                root,
                text,
                frozenset(d.name_node.start_byte for d in ordered),
                frozenset(top_level)
                | frozenset(bindings)
                | frozenset(namespaces)
                | globals_of.TEST_NAMES,
            )
        )
        if (language in _JS_LANGUAGES or language == "rust") and root is not None
        else None
    )
    for (name_node, kind, module, alias, outer), source, within in zip(
        ref_list, enclosing, enclosing_defs, strict=True
    ):
        raw = text(name_node)
        if name_node.type == "simple_symbol":  # Ruby's `before_action :find_user`
            raw = raw[1:]
        if (
            kind == EdgeKind.USE
            and language == "rust"
            and (
                (outer.type == "identifier" and raw not in top_level and raw not in bindings)
                or (
                    outer.type == "string_literal"
                    and not rust_attributes.serde_function(outer, text)
                )
                or (outer.type == "scoped_identifier" and raw[:1].isupper())
            )
        ):
            # `f(x)`: a name neither this file's item nor an import's, a local;
            # `f(Token::Star)`: an enum's variant (a predicate in the query cost more)
            continue
        if (
            kind == EdgeKind.USE
            and language == "csharp"
            and outer.type == "identifier"
            and raw not in csharp_names()
        ):
            continue  # `F(count)`: no method of this file has the name
        if kind == EdgeKind.USE and language == "kotlin" and raw == "class":
            continue  # `Repo::class`: a class literal
        if kind == EdgeKind.CALL and language == "cpp" and raw in _CPP_CASTS:
            continue  # `static_cast<int>(x)` reads as a template's call: a cast
        if kind == EdgeKind.CALL and language == "csharp" and raw == "nameof":
            continue  # `nameof(x)`: an operator that reads as a call
        php_function = None
        if language == "php" and (kind == EdgeKind.CALL or outer.type == "argument"):
            php_function = _php_function(kind, outer, visible, text)
            if php_function is None and kind == EdgeKind.USE:
                continue  # `__('Save')`: a string no callback is expected in
            if php_function is not None:
                raw = php_function[0].rsplit(".", 1)[-1]
        target = _last_segment(language, raw) if kind == "import" else raw
        resolved: str | None = None
        qualname: str | None = None
        binding, via = Binding.CANDIDATE, ""
        if kind == EdgeKind.IMPORT:
            module = module or raw
            resolved = resolve(language, path, module, target) if resolve else None
            if resolved:
                # `export * from "./x"` (a JS/TS barrel) and `import * as z` name the
                # module, as Python's `import *` and `import m` do
                whole = target == "*" or namespaces.get(target) == module
                # `use crate::store::Repo`: an item of store.rs, which the
                # linker follows through `pub use` re-exports
                item = language == "rust" and not rust_paths.module_file(resolved, target, module)
                qualname = "" if (language in _MODULE_IMPORTS and not item) or whole else target
                if language == "php":  # `use GuzzleHttp\Client;`: GuzzleHttp.Client there
                    qualname = _php_dotted(module)
                if language == "kotlin":  # `import okhttp3.HttpUrl.Companion.toHttpUrl`
                    qualname = kotlin_member(module)
                if not alias and bindings.get(target) == (module, flow_js.DEFAULT):
                    # the module's default: `import x from "./m"` is `import { default
                    # as x }`, filed under `default` so that `refs` of what ./m
                    # exports as default finds it
                    qualname, alias = flow_js.DEFAULT, target if target != flow_js.DEFAULT else ""
                    target = flow_js.DEFAULT
                binding, via = Binding.BOUND, f"import of {module}"
            elif language == "java" and (member := _java_static(path, module, target, resolve)):
                # `import static com.ex.Util.helper;`: the class's member
                resolved, qualname = member
                binding, via = Binding.BOUND, f"static import of {module}.{target}"
            elif language == "php" and bind_php.imports_function(name_node):
                # `use function App\helper;`: looked up as a call of it is
                resolved, binding = path, Binding.BOUND
                qualname, via = _php_dotted(module), bind_php.FUNCTION_VIA + module.lstrip("\\")
            elif not _relative_spec(language, module):
                binding, via = Binding.EXTERNAL, f"import of {module}, not in the repository"
        elif php_function is not None:  # looked up in the repository (query/link.py)
            resolved, binding = path, Binding.BOUND
            qualname, via = php_function
        elif kind == EdgeKind.DECLARE:  # read by the linker (indexer/bind_c.py)
            # in its namespace: `namespace app { int f(); }` declares app.f
            resolved, qualname = path, f"{source}.{target}" if source else target
            binding, via = Binding.BOUND, bind_c.DECLARED_VIA
        elif go_scopes is not None:
            go_claim = bind_go.claim(name_node, go_imports, go_scopes, text)
            if (
                kind == EdgeKind.USE
                and outer.type == "selector_expression"
                and not bind_go.names_member(go_claim)
            ):
                continue  # `r.URL` of an untyped local (or `v any`): what only inference knows
            # `mux.HandleFunc("/", s.handleIndex)` on the receiver `s *Server`:
            # a method value (or a field read) of its type, as `s.handleIndex()` is
            resolved, qualname, binding, via, module = _go_edge(
                path, target, module, go_claim, top_level, resolve
            )
        else:
            parent = _parent(name_node, outer)
            bare = _bare_name(name_node, parent)
            bound = bindings.get(target) if bare else None
            if bound is not None and rust_items is not None and target in top_level:
                # `use super::{find_cap_ref}` in `mod tests` brings the file's own
                # `fn find_cap_ref`: a call outside that mod is of it, not an import
                bound = None
            if language == "rust" and kind == EdgeKind.USE and outer.type == "scoped_identifier":
                # `.map(Repo::open)`: typed where it stands, as `Repo::open()` is
                impl = within.container if within is not None else ""
                passed = bind_rust.passed_type(outer, text, impl)
                if passed is not None and declared is not None:
                    declared[name_node.start_byte] = passed
            member = (
                _java_static(path, bound[0], bound[1], resolve)
                if bound is not None and language == "java" and target not in overloaded
                else None
            )
            if member is None and language == "java" and target in overloaded:
                bound = None  # which class's overload the arguments pick: a candidate
            if member is not None and bound is not None:  # helper() after `import static`
                module = bound[0]
                resolved, qualname = member
                binding, via = Binding.BOUND, f"static import of {bound[0]}.{bound[1]}"
            elif bound is not None:
                module = bound[0]
                resolved = resolve(language, path, bound[0], bound[1]) if resolve else None
                if resolved and (
                    language not in _MODULE_IMPORTS
                    # `use crate::store::make; make()`: an item of store.rs
                    or (
                        rust_items is not None
                        and target in rust_items.names
                        and not rust_paths.module_file(resolved, bound[1], bound[0])
                    )
                ):
                    qualname, binding = bound[1], Binding.BOUND
                    if language == "php":
                        qualname = _php_dotted(bound[0])
                    via = f"imported from {module}"
                    if target in required:  # filed under `default`, as an import of it
                        qualname, via = flow_js.DEFAULT, _REQUIRED.format(module)
                        alias, target = target, flow_js.DEFAULT
                elif not resolved and not _relative_spec(language, module):
                    binding, via = Binding.EXTERNAL, f"imported from {module}"
            elif (
                namespaces
                and kind in (EdgeKind.CALL, EdgeKind.USE, EdgeKind.INHERIT)
                and parent is not None
                and parent.type == "member_expression"
                and (obj := parent.child_by_field_name("object")) is not None
                and obj.type == "identifier"
                and (space := namespaces.get(text(obj))) is not None
            ):  # z.parse() after `import * as z from "./m"`: parse of the module
                module = space
                resolved = resolve(language, path, space, target) if resolve else None
                if resolved:
                    qualname, binding = target, Binding.BOUND
                    via = f"{text(obj)}.{target}: a member of module {space}"
                elif not _relative_spec(language, space):
                    binding, via = Binding.EXTERNAL, f"a member of module {space}"
            elif (
                kind == EdgeKind.INHERIT
                and parent is not None
                and parent.type == "member_expression"
                and (obj := parent.child_by_field_name("object")) is not None
                and (default_import := bindings.get(text(obj))) is not None
                and default_import[1] == flow_js.DEFAULT
                and not _relative_spec(language, default_import[0])
                and not (resolve and resolve(language, path, default_import[0], default_import[1]))
            ):  # `extends React.Component` after `import React from "react"`: a
                # package's class, so what the class leaves to it is the package's
                module = default_import[0]
                binding, via = Binding.EXTERNAL, f"a member of {text(obj)}, from {module}"
            elif (
                bare
                and kind == EdgeKind.CALL
                and language in _LOCAL_FUNCTIONS
                and (local := _declared_around(within, target, local_functions())) is not None
            ):  # `inner()` in the function that declares `inner`: before
                # a class's own method of that name, which it shadows
                resolved, qualname = path, local
                binding, via = Binding.BOUND, f"defined in {local.rpartition('.')[0]}"
            elif (
                language in _JS_LANGUAGES
                and kind in (EdgeKind.CALL, EdgeKind.USE)
                and within is not None
                and within.kind == "method"
                and (within.parent is None or within.parent.kind != "class")
                and parent is not None
                and parent.type == "member_expression"
                and _is_this(parent.child_by_field_name("object"))
                and (this_member := object_methods().member(within, target)) is not None
            ):  # `this.list()` in a method of `const api = {...}`, or of a Vue component
                resolved, qualname = path, this_member
                binding, via = Binding.BOUND, f"this.{target} in an object literal's method"
            elif (
                (
                    kind == EdgeKind.CALL
                    or (kind == EdgeKind.USE and language in _REFERENCES)
                    or (kind == EdgeKind.USE and outer.type == "member_expression")  # this.save
                )
                and language in _THIS_LANGUAGES
                and (
                    this := _this_class(
                        language,
                        name_node,
                        target,
                        parent,
                        within,
                        anonymous,
                        members,
                        based,
                        top_level,
                    )
                )
                # a bare C# name passed is a method group only where the class
                # has the method (`F(count)` passes a local, a parameter or a
                # field); `this.OnClick` is the class's member wherever it is
                # defined (a form's Designer.cs, the other part of a partial class)
                and (
                    kind == EdgeKind.CALL
                    or language != "csharp"
                    or this[1] == "this"
                    or (this[0], target) in csharp_methods()
                )
            ):
                cls, word = this
                resolved, qualname = path, f"{cls}.{target}"
                if language == "ruby" and target == "new" and not word:
                    qualname = cls  # `new(repo)` in a class method: Repo.new makes a Repo
                binding = Binding.BOUND
                # super.m(): the linker starts from the class's bases
                via = (
                    f"{word}.{target} in class {cls}" if word else IN_CLASS_VIA.format(target, cls)
                )
            elif (
                language == "rust"
                and bare
                and kind == EdgeKind.CALL
                and (local := _rust_module_item(within, target, rust_functions())) is not None
            ):  # `helper()` in `mod tests` beside its `fn helper`
                resolved, qualname = path, local
                binding, via = Binding.BOUND, f"defined in module {local.rpartition('.')[0]}"
            elif target in top_level and bare:
                resolved, qualname = path, target
                binding, via = Binding.BOUND, _DEFINED_HERE
            elif (
                language == "rust"
                and bare
                and target not in bindings
                and (std := globals_of.rust_prelude(target, parent)) is not None
            ):  # `assert_eq!(..)`, `Some(x)`: std's, as builtins are Python's
                binding, via = Binding.EXTERNAL, std
            elif (
                language == "java"
                and bare
                # a call's name is a type only in `new A()`
                and (kind != EdgeKind.CALL or name_node.type == "type_identifier")
                and target[:1].isupper()
                and (nested := _member_type(source, target, java_types())) is not None
            ):  # `class B extends A` beside `class A` in one outer class: Outer.A
                resolved, qualname = path, nested
                binding, via = Binding.BOUND, f"a member type of {nested.rpartition('.')[0]}"
            elif (
                kind == EdgeKind.CALL
                and language in ("java", "csharp")
                and parent is not None
                and parent.type in ("scoped_type_identifier", "qualified_name")
                and (
                    scoped := _scoped_type(
                        language, path, text(parent), within, visible, file_types
                    )
                )
                is not None
            ):  # `new Retrofit.Builder()`: a nested class, through its outer one
                resolved, qualname, binding = scoped
                via = f"new {chains.spelled(text(parent))}"
            elif (
                language == "csharp"
                and bare
                and (
                    kind in (EdgeKind.INHERIT, EdgeKind.TYPE)
                    or (parent is not None and parent.type == "object_creation_expression")
                )
                and (own := _csharp_type(target, within, file_types)) is not None
            ):  # `class R : B`, `new B()`: a type of this file's namespace, here or
                # in a sibling file (the linker looks in the folder's .cs files)
                resolved, (qualname, via) = path, own
                binding = Binding.BOUND
            elif (
                language in bind_c.LANGUAGES
                and kind in (EdgeKind.CALL, EdgeKind.USE)
                and bare
                and (
                    name_node.type == "identifier"
                    # `new Block(contents)`: the class, as `Block(contents)` names it;
                    # not C's variable `new` in a header (`f(old, new, size)`), which
                    # the grammar reads as `new size` around an error
                    or (
                        parent is not None
                        and parent.type == "new_expression"
                        and not parent.has_error
                        and not name_node.is_missing
                    )
                )
                and (
                    claim := bind_c.call_claim(
                        parent, raw, _claim_container(within, source, text), text
                    )
                )
            ):  # the linker follows this file's includes (indexer/bind_c.py)
                resolved, binding = path, Binding.BOUND
                qualname, via = claim
                if usings:  # C++ only: C's bound calls (most rows) skip the split
                    head = via.rpartition(": ")[2].split("::")[0] if ": " in via else raw
                    via = scope_cpp.with_usings(via, usings, name_node.start_byte, head)
            elif (
                language == "cpp"
                and kind == EdgeKind.INHERIT
                and (
                    claim := bind_c.call_claim(
                        parent, raw, _base_container(within, source, text), text
                    )
                )
            ):  # `class D : public Base` in a namespace: Base is looked up from the
                # scope around the class outward, through the includes, as a call's is
                resolved, binding = path, Binding.BOUND
                qualname, via = claim
                head = via.rpartition(": ")[2].split("::")[0] if ": " in via else raw
                via = scope_cpp.with_usings(via, usings, name_node.start_byte, head)
            elif (
                receivers is not None
                and kind == EdgeKind.CALL
                and parent is not None
                and parent.type == "field_expression"
                and (typed := receivers.receiver(parent))
            ):  # `r.save()` on `Repo& r`: Repo::save, looked up like a written scope;
                # `versions_->current()` on a field declared in a header: read there
                cls, fields = typed
                if cls.startswith("std::"):  # `std::string name_;`: never in the tree
                    binding, via = Binding.EXTERNAL, f"a member of {cls}, the standard library's"
                else:
                    container = _claim_container(within, source, text)
                    spelled = f"{cls.replace('::', '.')}.{target}"
                    resolved, binding = path, Binding.BOUND
                    qualname = f"{container}.{spelled}" if container else spelled
                    if fields:
                        arrow = pointers_cpp.written_arrow(parent, text)
                        via = bind_c.field_via(cls, fields, target, arrow)
                    else:
                        via = f"{bind_c.RECEIVER_VIA}: {cls}::{target}"
                    head = cls.split("::")[0]
                    via = scope_cpp.with_usings(via, usings, parent.start_byte, head)
            elif (
                language == "csharp"
                and declared is not None
                and kind == EdgeKind.CALL
                and (receiver := declared.get(name_node.start_byte)) is not None
                and (claimed := _csharp_type(receiver[1], within, file_types)) is not None
            ):  # `repo.Find()` on `Repository repo`: the type's, as `new Repository()` finds it;
                # `var r = Repository.Open()`: a chain over Open's return fact
                resolved, binding = path, Binding.BOUND
                qualname = f"{claimed[0]}.{target}"
                via = f"{claimed[1]}: {receiver[1]}.{target}"
                if chains.CALL in receiver[1]:
                    via = f"{chains.spelled(receiver[0])} holds what {_called(receiver[1])}"
            elif (
                language == "rust"
                and kind in (EdgeKind.CALL, EdgeKind.USE)
                and parent is not None
                and parent.type == "scoped_identifier"
                and (module_path := parent.child_by_field_name("path")) is not None
                and rust_paths.readable(module_path.type)
                and (
                    by_path := rust_paths.path_claim(
                        text(module_path),
                        target,
                        path,
                        bindings,
                        top_level,
                        _inline_modules(within),
                        resolve,
                    )
                )
                is not None
            ):  # `util::parse()`, `crate::store::open()`: a module's function
                resolved, qualname, binding, via = by_path
            elif (
                declared is not None
                and language in _TYPES
                # `repo::save` (Java), `Repo::open` (Rust) passed as a value: a
                # use, typed as the call is
                and (kind == EdgeKind.CALL or (kind == EdgeKind.USE and language in _TYPED_USES))
                and (receiver := declared.get(name_node.start_byte)) is not None
                and (
                    owner := _nested_owner(language, path, receiver[1], within, type_names, visible)
                    or _typed_owner(language, path, receiver[1], visible)
                )
            ):  # `repo.save()` on `Repo repo`: Repo.save, through Repo's bases if need be
                resolved, binding = owner[0], owner[2]
                qualname = f"{owner[1]}.{target}" if resolved else None
                if language == "kotlin" and not resolved and owner[2] == Binding.EXTERNAL:
                    # `c.dp()` on an android Context: outside, unless the repository
                    # has `fun Context.dp()`, which the linker looks for by this name
                    qualname = f"{owner[1]}.{target}"
                if language == "rust" and not resolved and owner[1].startswith(RUST_STD):
                    # `s.len()` on a `&str`: the language's, unless a trait of the
                    # repository gives the type the method (the linker asks)
                    qualname = f"{owner[1]}.{target}"
                if language == "ruby" and target == "new" and resolved:
                    qualname = owner[1]  # Repo.new makes a Repo: the class, as Repo() is
                written, cls = receiver
                written = chains.spelled(written)  # `self\n    .cmd`: one line
                word = "type" if language == "rust" else "class"
                via = f"{word} {cls}" if written == cls else f"{written} is a {cls}"
                if chains.CALL in cls:  # `let r = Repo::open()?`, `var r = Repo.open()`: a chain
                    via = f"{written} holds what {_called(cls)}"
                via += "" if resolved else f", imported from {owner[1]}"
                if (
                    language == "kotlin"
                    and resolved == path
                    and (head := owner[1].partition(".")[0]) in bind_kotlin.DEFAULT_CLASSES
                    and head not in top_level
                    and head not in bindings
                ):  # `s: String`: a class of the package named so, else kotlin's
                    via += bind_kotlin.DEFAULT_VIA
            elif (
                # Kotlin: a base, or `Repo()` (its constructor, or a function in Repo.kt)
                (
                    language == "java"
                    or (language == "kotlin" and (kind == EdgeKind.INHERIT or bare))
                )
                and target[:1].isupper()
                and resolve is not None
                and (found := _same_package(language, path, target, resolve, visible.namespace))
            ):  # a class of the same package needs no import: Foo.java (Foo.kt) beside this file
                resolved, qualname = found, target
                binding, via = Binding.BOUND, "a class of this file's package"
            elif (
                language == "java"
                and target[:1].isupper()
                and target not in bindings
                and target not in top_level
                and resolve is not None
                and (implicit := _jvm_implicit(language, path, target, target, visible)) is not None
            ):  # `new ArrayList<>()` under `import java.util.*;`, `new Thing()` of `import b.*;`
                resolved, qualname, binding = implicit
                via = f"import of {qualname}" if resolved is None else "a class of an `import .*`"
                qualname = target if resolved else None
            elif (
                language == "php"
                and bare
                and target[:1].isupper()
                and (owner := _php_class(path, target, visible)) is not None
            ):  # new Repo(): a class of this file's namespace, here or PSR-4's Repo.php
                resolved, qualname = owner[0], owner[1]
                binding, via = Binding.BOUND, "a class of this file's namespace"
                if resolved is None:  # `new DateTime()` in the global namespace: PHP's
                    qualname, binding, via = None, Binding.EXTERNAL, f"PHP's class {owner[1]}"
            elif language == "ruby" and kind == EdgeKind.INHERIT:
                # `class B < A`, `include Helpers`: the constant as a receiver's
                # is, in this file, then in the files it requires
                owner = _ruby_class(path, target.replace("::", "."), visible)
                if owner is not None and owner[0] is not None:
                    resolved, qualname, binding = owner
                    via = f"constant {target}"
            elif (
                language in _JS_FAMILY
                and kind == EdgeKind.CALL
                and (platform := globals_of.js_global(target, parent, bare, text)) is not None
                and platform[0] not in bindings
                and platform[0] not in top_level
                and platform[0] not in namespaces
                and not (
                    platform[0] in globals_of.TEST_NAMES
                    and hiding is not None
                    and hiding().hidden(platform[0], name_node.start_byte)
                )
            ):  # `JSON.parse()`, `new Date()`, `expect(x).toBe(1)`: the platform's
                binding, via = Binding.EXTERNAL, platform[1]
            elif (
                language == "kotlin"
                and kind == EdgeKind.CALL
                and parent is not None
                and parent.type == "call_expression"  # `helper()`, not `p.get()`
                and target not in bindings
                and (
                    based_on := _kotlin_package_call(
                        within, name_node, target, based, kotlin_locals
                    )
                )
                is not None
            ):  # `checkNull(x)` of Util.kt beside this file: the package's function
                # (in a class with a base, after the bases' members: the linker's)
                resolved, qualname = path, f"{based_on}.{target}" if based_on else target
                binding = Binding.BOUND
                via = bind_kotlin.AFTER_BASES_VIA if based_on else bind_kotlin.PACKAGE_VIA
        if (
            hiding is not None
            # a Rust local closure named like a function is rare; a parameter
            # passed on (`fn f(parse: bool) { g(parse) }`) is not
            and (kind == EdgeKind.USE or (kind == EdgeKind.CALL and language != "rust"))
            and via in (_DEFINED_HERE, f"imported from {module}", _REQUIRED.format(module))
            and hiding().hidden(raw, name_node.start_byte)
        ):  # `function (req) { handle(req) }` under a top-level `req`: the parameter
            resolved = qualname = None
            binding, via, target, alias = Binding.CANDIDATE, "", raw, ""
        if kind == EdgeKind.USE and (
            (binding != Binding.BOUND and not _flowed_member(language, outer, name_node))
            or (target in namespaces and target not in required)
            or via == bind_go.PREDECLARED_VIA
            or target == "_"
            or (language in bind_c.LANGUAGES and raw.upper() == raw)
        ):
            # a local's read names no definition (an outside one's is not
            # listed, as in Python); `import * as z`'s z is a module; Go's
            # `nil` and blank `_` name none; C's `THIS_MODULE`, `O_RDONLY` are
            # a macro's or an enumerator's value, not a function's
            continue
        if language == "csharp" and kind == EdgeKind.IMPORT and _global_using(outer):
            target = bind_csharp.GLOBAL_USING  # for every file of the project
        edges.append(
            edge_row(
                path,
                source,
                target,
                module,
                kind,
                language,
                name_node.start_point,
                name_node.end_point,
                resolved=resolved,
                qualname=qualname,
                binding=binding,
                via=via,
                alias=alias or None,
            )
        )
    if language == "ruby" and root is not None:
        edges += _ruby_bare_calls(path, root, ordered, top_level, text, members, based)
    if go_scopes is not None:  # what this file's functions return, for the package's other files
        edges += go_scopes.result_facts(path) + go_scopes.field_facts(path)
    if language == "rust" and root is not None:
        edges += _rust_returns(path, root, text, visible)
    if language in _RETURN_TYPES:
        edges += _type_facts(path, language, ordered, text, visible, file_types)
    if language == "csharp":  # what `static M(this T x)` extends, for `x.M()` anywhere
        methods = [(d.node, d.name_node, d.qualname) for d in ordered if d.kind == "method"]
        edges += bind_csharp.extensions(path, methods, text)
    for d in ordered:  # Kotlin's `fun Repo.saveAll()`, for `repo.saveAll()` in any file
        if d.extends:
            holder = f"{chains.EXTENDS}{d.extends.rsplit('.', 1)[-1]}"
            at, end = d.name_node.start_point, d.name_node.end_point
            edges.append(value_row(path, holder, language, at, end, path, d.qualname, "this"))
    return edges


def _ruby_bare_calls(
    path: str,
    root: ts.Node,
    ordered: list[_Def],
    top_level: set[str],
    text: Callable[[ts.Node], str],
    members: Callable[[], frozenset[tuple[str, str]]],
    based: Callable[[], frozenset[str]],
) -> list[EdgeRow]:
    """``helper`` alone in a Ruby method: a call (bind_ruby.vcalls), claimed
    as ``helper()`` is, and only where it binds: a method of the class (or
    module) around it, the linker looking in its ancestors when it has a
    base or a mixin, or a method at the top of this file. Any other bare
    name is not written: a name match on every local the rules misread
    would cost more than it finds."""
    found = bind_ruby.vcalls(root, text)
    out = []
    defs = _enclosing_defs(ordered, [n.start_byte for n in found])
    for node, within in zip(found, defs, strict=True):
        name = text(node)
        cls = within
        while cls is not None and cls.kind not in ("class", "module"):
            cls = cls.parent
        if cls is not None and name == "new":  # in a class method: makes the class
            qualname, via = cls.qualname, f"new in class {cls.qualname}"
        elif cls is not None and ((cls.qualname, name) in members() or cls.qualname in based()):
            qualname, via = f"{cls.qualname}.{name}", f"{name} in class {cls.qualname}"
        elif cls is None and name in top_level:
            qualname, via = name, "defined in this file"
        else:
            continue
        out.append(
            edge_row(
                path,
                within.qualname if within is not None else "",
                name,
                "",
                EdgeKind.CALL,
                "ruby",
                node.start_point,
                node.end_point,
                resolved=path,
                qualname=qualname,
                binding=Binding.BOUND,
                via=via,
            )
        )
    return out


def _type_facts(
    path: str,
    language: str,
    ordered: list[_Def],
    text: Callable[[ts.Node], str],
    seen: _Visible,
    file_types: Callable[[], dict[str, str]],
) -> list[EdgeRow]:
    """What this file's methods return when their declared return type is a
    class of the repository, as ``value`` rows (holder ``Repo.open()``): ``var
    r = Repo.open(); r.save()`` in any file reads them when linking. C#'s
    type is claimed in the namespace around the method, as a call's is.
    Java's and C#'s fields and properties likewise (holder ``Config.writeTo``):
    ``config.writeTo.sink()`` reads them."""
    out = []
    types = {x.qualname for x in ordered if x.kind in _TYPE_KINDS}
    member_type = _MEMBER_TYPES.get(language)
    for d in ordered:
        holder = f"{d.qualname}{chains.CALL}"
        if d.kind in ("field", "property") and member_type is not None:
            written = member_type(d.node, text)
            holder = d.qualname
        elif d.kind in ("method", "function"):
            written = _RETURN_TYPES[language](d.node, text)
        else:
            continue
        if written == "self":  # PHP's `: self`, `: static`: the method's class
            written = d.parent.name if d.parent is not None else None
        owner: _Owner | None = None
        if written and (nested := _enclosing_type(d, written, types)) is not None:
            owner = (path, nested, Binding.BOUND)
        elif written and language == "csharp":
            claimed = _csharp_type(written, d, file_types)
            owner = (path, claimed[0], Binding.BOUND) if claimed else None
        elif written:
            owner = _TYPES[language](path, written, seen)
        if owner is not None and owner[0] is not None:
            at, end = d.name_node.start_point, d.name_node.end_point
            via = f"returns {written}" if holder.endswith(chains.CALL) else f"is a {written}"
            out.append(value_row(path, holder, language, at, end, owner[0], owner[1], via))
    return out


_TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "object"})


def _nested_owner(
    language: str,
    path: str,
    written: str,
    within: _Def | None,
    types: Callable[[], frozenset[str]],
    seen: _Visible,
) -> _Owner | None:
    """A Java or Kotlin receiver's type named bare that is a class nested in
    one around the call (`LogRecorder` in `HttpLoggingInterceptorTest`):
    ``Outer.LogRecorder`` of this file, and a chain that starts at it
    (`LogRecorder.assertLogEqual()`). None for any other type."""
    if language not in ("java", "kotlin") or within is None:
        return None
    head, dot, rest = written.partition(".")
    if "(" in head or (rest and chains.CALL not in rest):
        return None
    nested = _enclosing_type(within, head, types())
    if nested is None or nested == head:
        return None
    if not dot:
        return (path, nested, Binding.BOUND)
    return _typed_owner(language, path, f"{nested}.{rest}", seen)


def _enclosing_type(d: _Def, written: str, types: set[str] | frozenset[str]) -> str | None:
    """The type a simple name written in ``d`` names when it is one of the
    classes around ``d`` or a type nested in one (``Builder`` in a method of
    ``Retrofit.Builder``, or of ``Retrofit``), innermost first."""
    if "." in written:
        return None
    outer = d.parent
    while outer is not None:
        if outer.kind in _TYPE_KINDS:
            if outer.name == written:
                return outer.qualname
            if f"{outer.qualname}.{written}" in types:
                return f"{outer.qualname}.{written}"
        outer = outer.parent
    return None


def _java_return(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    return bind_java.class_name(node.child_by_field_name("type"), text)


def _kotlin_return(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """``fun open(): Repo`` (``Repo?`` too): the type after the parameters;
    with none, ``fun open() = Repo(..)``: the class an expression body makes."""
    # the type after the parameters: one before the name is an extension's
    # receiver (`fun Repo.save()`), not what it returns
    after = False
    declared = None
    for c in node.named_children:
        if c.type == "function_value_parameters":
            after = True
        elif after and c.type in bind_kotlin.TYPES:
            declared = c
            break
    if declared is not None:
        return bind_kotlin.class_name(declared, text)
    body = next((c for c in node.named_children if c.type == "function_body"), None)
    if body is None or body.child_count < 2 or body.children[0].type != "=":
        return None  # a block body `{ ... }`: no return here
    made = body.named_children[0] if body.named_child_count == 1 else None
    if made is None or made.type != "call_expression" or not made.named_child_count:
        return None
    called = made.named_children[0]
    written = text(called) if called.type == "identifier" else ""
    return written if written[:1].isupper() else None  # Repo(..): a constructor, by convention


def _csharp_return(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """The declared return type; ``Task<Repo>`` (``ValueTask<Repo>``) as a
    Repo, what ``await`` gives, as TypeScript reads ``Promise<Repo>``."""
    return bind_csharp.type_name(
        bind_csharp.awaited(node.child_by_field_name("returns"), text), text
    )


def _php_return(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """``: Repo``, ``: ?Repo``; ``: self`` and ``: static`` as ``self``."""
    declared = node.child_by_field_name("return_type")
    words = text(declared).lstrip("?") if declared is not None else ""
    return "self" if words in ("self", "static") else bind_php.class_name(declared, text)


def _java_field_type(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    return bind_java.class_name(node.child_by_field_name("type"), text)


# a field's or property's declared type, as written, by language
_MEMBER_TYPES: dict[str, Callable[[ts.Node, Callable[[ts.Node], str]], str | None]] = {
    "java": _java_field_type,
    "csharp": bind_csharp.member_type,
}
# a method's declared return type, as written, by language
_RETURN_TYPES: dict[str, Callable[[ts.Node, Callable[[ts.Node], str]], str | None]] = {
    "java": _java_return,
    "kotlin": _kotlin_return,
    "csharp": _csharp_return,
    "php": _php_return,
}


def _typed_owner(language: str, path: str, written: str, seen: _Visible) -> _Owner | None:
    """``_TYPES``' answer for a receiver's type as written, or for what a
    call returns (``Repo.open()``, ``make().?``): the callee's type (or the
    function itself) found as a type is, its member and the call steps after
    it kept as a chain (indexer/chains.py); a callee outside the repository
    says nothing."""
    callee, paren, steps = written.partition("(")
    if not paren:
        return _TYPES[language](path, written, seen)
    head, dot, member = callee.rpartition(".")
    owner = _TYPES[language](path, head if dot else callee, seen)
    if owner is None or owner[0] is None:
        return None
    return owner[0], f"{owner[1]}.{member}({steps}" if dot else f"{owner[1]}({steps}", owner[2]


def _called(chain: str) -> str:
    """``Repo.open().?`` -> ``Repo.open() returns, unwrapped``: a chain's value in words."""
    unwrapped = chain.endswith(chains.UNWRAP)
    callee = chain.removesuffix("." + chains.UNWRAP).removesuffix(chains.CALL)
    return f"{callee}() returns" + (", unwrapped" if unwrapped else "")


def _rust_returns(
    path: str, root: ts.Node, text: Callable[[ts.Node], str], seen: _Visible
) -> list[EdgeRow]:
    """What this file's functions return, as ``value`` rows (holder
    ``Repo.open()``, or ``Repo.open().?`` unwrapped) that ``let r =
    Repo::open()?; r.save()`` in another file reads when linking."""
    out = []
    for holder, written, at in bind_rust.return_facts(root, text):
        owner = _rust_type(path, written, seen)
        if owner is not None and owner[0] is not None:
            via = f"returns {written.replace('.', '::')}"
            out.append(
                value_row(
                    path, holder, "rust", at.start_point, at.end_point, owner[0], owner[1], via
                )
            )
    return out


def _go_edge(
    path: str,
    target: str,
    module: str,
    claim: bind_go.Claim | None,
    top_level: set[str],
    resolve: Resolver | None,
) -> tuple[str | None, str | None, Binding, str, str]:
    """(resolved path, qualname, binding, via, module) of a Go reference
    (indexer/bind_go.py): the package is found when linking."""
    if claim is None:
        return None, None, Binding.CANDIDATE, "", module
    if claim.receiver_type and claim.package is not None:  # r.Save() on `r *store.Repo`
        spec, kind = claim.package, claim.receiver_type
        found = resolve("go", path, spec, kind) if resolve else None
        if found:
            via = f"{claim.qualifier}.{target}: a method of {kind}, package {spec}"
            if kind.endswith(bind_go.RETURNED):  # r := store.Open(): a chain in that package
                via = (
                    f"{claim.qualifier}.{target}: a method of what {kind} of package {spec} returns"
                )
            return found, f"{kind}.{target}", Binding.BOUND, via, spec
        what = f"what {kind} of package {spec} returns" if kind.endswith(bind_go.RETURNED) else ""
        return (
            None,
            None,
            Binding.EXTERNAL,
            f"{what or f'a {kind} of package {spec}'}, not in the repository",
            spec,
        )
    if claim.receiver_type:
        kind = claim.receiver_type
        whose = f"{claim.qualifier}'s declared type" if claim.declared else "the receiver's type"
        via = f"{claim.qualifier}.{target}: a method of {whose} {kind}"
        if kind.endswith(bind_go.RETURNED):  # r := NewRepo(): a chain the linker walks
            via = f"{claim.qualifier}.{target}: a method of what {kind} returns"
        if claim.field:  # c.engine.Run(): the field's type, where its struct is
            via = f"{claim.qualifier}.{target}: a method of what {kind} holds"
        return path, f"{kind}.{target}", Binding.BOUND, via, module
    if claim.package is not None:
        spec = claim.package
        found = resolve("go", path, spec, target) if resolve else None
        if found:
            return found, target, Binding.BOUND, f"{claim.qualifier}.{target}: package {spec}", spec
        return None, None, Binding.EXTERNAL, f"package {spec}, not in the repository", spec
    if target in top_level:
        return path, target, Binding.BOUND, "defined in this file", module
    if claim.predeclared:
        return path, target, Binding.BOUND, bind_go.PREDECLARED_VIA, module
    return path, target, Binding.BOUND, "a package-level name of this file's package", module


_MEMBER = ("member_expression", "selector_expression", "field_expression", "scoped_identifier")


def _parent(name_node: ts.Node, outer: ts.Node) -> ts.Node | None:
    """The parent of a reference's name, found under the node the query
    captured around it (``outer``: the call, `(call function: (member
    property: @name))`), at most two levels down. Node.parent walks down from
    the root, so asking it for every name nested N deep (`f(f(f(...)))`)
    cost N squared; it is the fallback only."""
    if outer != name_node:
        for child in outer.children:
            if child == name_node:
                return outer
            if child.start_byte <= name_node.start_byte < child.end_byte:
                for grandchild in child.children:
                    if grandchild == name_node:
                        return child
                break
    return name_node.parent


def _bare_name(name_node: ts.Node, parent: ts.Node | None) -> bool:
    """The name is not a member of something else (`obj.f`, `pkg.F`, `a::f`);
    ``parent``: its parent node. In a Rust macro's tokens, the token before
    the name says."""
    if parent is not None and parent.type == "token_tree":
        before = name_node.prev_sibling
        return before is None or before.type not in (".", "::")
    if parent is not None and parent.type == "method_invocation":  # Java's `Util.helper()`
        return parent.child_by_field_name("object") is None
    return parent is None or parent.type not in _MEMBER or parent.child(0) == name_node


_JAVA_TYPES = ("class", "interface", "enum")
_CPP_CASTS = frozenset({"static_cast", "dynamic_cast", "reinterpret_cast", "const_cast"})
# languages whose receivers' declared types bind member calls
_RECEIVERS = {
    "csharp": bind_csharp.receiver_types,
    "java": bind_java.receiver_types,
    "rust": bind_rust.receiver_types,
    "kotlin": bind_kotlin.receiver_types,
    "php": bind_php.receiver_types,
    "ruby": bind_ruby.receiver_types,
}
# where a call may name a method of its own class by its own rules
_THIS_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "java", "csharp", "kotlin", "ruby"})
# a member call's object that names the class's own methods (node type ->
# the word): this.m(), super.m(), C#'s base.M(), Kotlin's this/super
_SELF_WORDS = {
    "this": "this",
    "super": "super",
    "base": "base",
    "this_expression": "this",
    "self": "self",  # Ruby
    "super_expression": "super",
}
# C#'s kinds whose body a bare `M()` or `this.M()` is a method of
_CSHARP_TYPES = ("class", "struct", "interface")


# languages whose functions declare functions visible in their body only
# (Python's binder has its own scopes; a Go closure is a variable)
_LOCAL_FUNCTIONS = frozenset({"javascript", "typescript", "tsx", "kotlin", "csharp", "rust"})
_BODIES = ("function", "method", "constructor")


def _declared_around(within: _Def | None, name: str, nested: frozenset[str]) -> str | None:
    """The function ``name`` that a function holding the call, innermost
    first, declares in its body; None if none does. Only functions are
    looked in: a class's or an impl's members are not in scope by their
    bare name (``run()`` in a JS method is not ``this.run()``)."""
    d = within
    while d is not None:
        if d.kind in _BODIES and f"{d.qualname}.{name}" in nested:
            return f"{d.qualname}.{name}"
        d = d.parent
    return None


def _is_this(node: ts.Node | None) -> bool:
    return node is not None and node.type == "this"


def _this_class(
    language: str,
    name_node: ts.Node,
    name: str,
    parent: ts.Node | None,
    within: _Def | None,
    anonymous: Callable[[], list[tuple[int, int]]],
    members: Callable[[], frozenset[tuple[str, str]]],
    based: Callable[[], frozenset[str]] | None = None,
    top_level: set[str] | frozenset[str] = frozenset(),
) -> tuple[str, str] | None:
    """The class whose method a call names by its own rules: ``this.m()`` in
    a JS/TS class; ``m()`` or ``this.m()`` in Java (a bare call is always a
    method of the enclosing class, its bases, or an outer class);
    ``super.m()`` (C#: ``base.M()``), the method as the class's bases define
    it. The innermost class's qualname and the word before the name
    (``this``, ``super``, ``base``; "" for a bare call); the linker follows
    its bases, and a method of an outer class stays a candidate. None inside an anonymous class
    (``anonymous()``: the byte ranges of this file's anonymous class bodies;
    ``parent``: the name's parent node). No walk up the tree: a node's
    parent costs a walk down from the root, so walking up from every call of
    a long chain was cubic."""
    if parent is None:
        return None
    bare = False  # m() alone: a method of the enclosing class (Java, C#)
    if language in ("javascript", "typescript", "tsx"):
        if parent.type != "member_expression":
            return None
        kinds: tuple[str, ...] = ("class",)
        obj = parent.child_by_field_name("object")
    elif language == "java":
        kinds = _JAVA_TYPES
        if parent.type == "method_reference":  # this::handle, super::handle
            if parent.named_child_count != 2 or parent.named_children[1] != name_node:
                return None
            obj = parent.named_children[0]
        elif parent.type != "method_invocation" or parent.child_by_field_name("name") != name_node:
            return None
        else:
            obj = parent.child_by_field_name("object")
            bare = obj is None
    elif language == "kotlin":  # this.run(), super.run(); a bare run() below
        kinds = ("class", "object")
        if (parent.type == "call_expression" and parent.named_children[0] == name_node) or (
            parent.type == "callable_reference" and parent.named_children == [name_node]
        ):  # the class's own run(), if it defines one here; `::run` passed as a value
            bare, obj = True, None
        elif parent.type != "navigation_expression" or parent.named_children[-1] != name_node:
            return None
        else:
            obj = parent.named_children[0]
            if obj.type == "this_expression" and obj.named_child_count:
                return None  # this@Outer: the label's class, not the innermost
    elif language == "ruby":  # self.run, or run(...) the class defines here
        kinds = ("class", "module")
        if name_node.type == "simple_symbol":  # `before_action :run`: as a bare run
            bare, obj = True, None
        elif parent.type != "call" or parent.child_by_field_name("method") != name_node:
            return None
        else:
            obj = parent.child_by_field_name("receiver")
            bare = obj is None
    elif language == "csharp":
        kinds = _CSHARP_TYPES
        if parent.type == "invocation_expression":  # Save(): bare, the function itself
            if parent.child_by_field_name("function") != name_node:
                return None
            bare, obj = True, None
        elif parent.type in _CSHARP_VALUES:  # `xs.Select(Parse)`: a method group
            bare, obj = True, None
        elif parent.type == "member_access_expression":
            # `base` is a keyword the grammar names no field for
            obj = parent.child_by_field_name("expression") or parent.child(0)
        else:
            return None
    else:
        return None
    word = "" if bare else (_SELF_WORDS.get(obj.type) if obj is not None else None)
    if word is None:
        return None
    at = name_node.start_byte
    # the innermost class holding the call: up from the innermost definition
    # (a scan of the file's definitions per call was quadratic in a big file)
    innermost = within
    while innermost is not None and innermost.kind not in kinds:
        if language == "kotlin" and innermost.extends:
            # in `fun Repo.saveAll()`, `this.save()` and a bare `save()` are
            # Repo's members first; then an extension of this file of that
            # name (bound by name), and a bare one the class's around it
            if (innermost.extends, name) in members():
                return innermost.extends, word
            if not bare and name not in top_level:
                return innermost.extends, word
            if not bare:
                return None
        if language in _JS_LANGUAGES:  # code before classes: `function Repo() {...}`
            if innermost.kind == "method" and innermost.node.type == "assignment_expression":
                return innermost.container, word  # `this` in `Repo.prototype.save = function`
            if innermost.kind == "function" and (innermost.qualname, name) in members():
                return innermost.qualname, word  # in the constructor, of its own prototype
        innermost = innermost.parent
    if innermost is None:
        return None
    if any(innermost.start < start <= at < end for start, end in anonymous()):
        return None  # an anonymous class inside it: its own methods come first
    # a bare run() the class does not define: a base's, or a top-level one;
    # in Ruby, a class with a base or a mixin written here claims it, and the
    # linker looks in its ancestors (else a candidate)
    if (
        bare
        and language in ("kotlin", "ruby")
        and (innermost.qualname, name) not in members()
        and (language == "kotlin" or based is None or innermost.qualname not in based())
    ):
        return None
    return innermost.qualname, word


# a C# type claimed in the namespace around it; the linker looks in the
# folder's .cs files, then in the namespaces the file's `using` lines name
CSHARP_NAMESPACE_VIA = "a type of this file's namespace"
# a bare call in a class, claimed as the class's member: `Save() in class Repo`
IN_CLASS_VIA = "{}() in class {}"


def _scoped_type(
    language: str,
    path: str,
    written: str,
    within: _Def | None,
    seen: _Visible,
    file_types: Callable[[], dict[str, str]],
) -> _Owner | None:
    """The class a dotted name made with ``new`` names (``Retrofit.Builder``,
    ``a.b.Repo``): Java's as a receiver's type is found, C#'s outer type as
    a bare one is claimed and the rest kept after it."""
    dotted = "".join(written.split())
    if language == "java":
        found = _class_of("java", path, dotted, seen)
        if found is None and dotted[:1].islower() and seen.resolve is not None:
            return None, dotted, Binding.EXTERNAL  # java.util.ArrayList: no file of the tree
        return found
    head, _, rest = dotted.partition(".")
    claimed = _csharp_type(head, within, file_types) if rest else None
    return (path, f"{claimed[0]}.{rest}", Binding.BOUND) if claimed else None


def _global_using(directive: ts.Node) -> bool:
    """Whether a C# ``using`` directive is ``global using ...;``."""
    first = directive.child(0) if directive.type == "using_directive" else None
    return first is not None and first.type == "global"


def _csharp_type(
    name: str, within: _Def | None, file_types: Callable[[], dict[str, str]]
) -> tuple[str, str] | None:
    """The C# type a bare ``name`` claims and how: the one this file defines
    by that name, else the name in the namespace around the reference (the
    same namespace needs no ``using``; its other files, the namespaces
    around it and the file's usings, aliases too, are looked in when the
    index is read). None outside any namespace. What a method returns
    (``Repository.Open()``, bind_csharp.py) claims the type the same way,
    the call kept after it as a chain."""
    callee, paren, steps = name.partition("(")
    if paren:
        owner, _, method = callee.rpartition(".")
        if not owner:  # `Config().WriteTo`: an instance of the type, then its member
            claimed = _csharp_type(method, within, file_types)
            return (f"{claimed[0]}({steps}", claimed[1]) if claimed else None
        claimed = _csharp_type(owner, within, file_types)
        return (f"{claimed[0]}.{method}({steps}", claimed[1]) if claimed else None
    own = file_types().get(name)
    if own is not None:
        return own, "a type defined in this file"
    scope = within
    while scope is not None and scope.kind:
        scope = scope.parent
    if scope is None:
        return None
    return f"{scope.qualname}.{name}", CSHARP_NAMESPACE_VIA


def _file_types(ordered: list[_Def]) -> dict[str, str]:
    """A C# file's types outside any type (in namespaces), name -> qualname,
    for names the file defines once: a type of the same namespace needs no
    ``using``."""
    found: dict[str, list[str]] = {}
    for d in ordered:
        if d.kind in (*_CSHARP_TYPES, "enum") and (d.parent is None or not d.parent.kind):
            found.setdefault(d.name, []).append(d.qualname)
    return {name: qualnames[0] for name, qualnames in found.items() if len(qualnames) == 1}


def _anonymous_bodies(language: str, root: ts.Node) -> list[tuple[int, int]]:
    """The byte ranges of a Java file's anonymous class bodies (``new C() {...}``),
    a Kotlin file's object expressions (``object : C() {...}``) and lambdas
    with another receiver (``x.apply { run() }``, ``with(x) { .. }``,
    ``buildString { append(..) }``), where a bare call is first the
    receiver's member."""
    pattern = _ANONYMOUS.get(language)
    if pattern is None:
        return []
    out = []
    for _i, found in ts.QueryCursor(pattern_query(language, pattern)).matches(root):
        (body,) = found["body"]
        fn = found.get("fn")
        if fn is not None:  # a lambda: one with a receiver other than `this`
            receiver = found.get("receiver")
            name = (fn[0].text or b"").decode("utf-8", "replace")
            if name not in _RECEIVER_LAMBDAS.get(len(receiver) if receiver else 0, ()):
                continue
            if receiver and receiver[0].type == "this_expression":
                continue
        out.append((body.start_byte, body.end_byte))
    return out


_ANONYMOUS = {
    "java": "(object_creation_expression (class_body) @body)",
    "kotlin": """
(object_literal (class_body) @body)
(call_expression (navigation_expression (_) @receiver (identifier) @fn)
  (annotated_lambda (lambda_literal) @body))
(call_expression (call_expression (identifier) @fn
  (value_arguments . (value_argument (_) @receiver) .))
  (annotated_lambda (lambda_literal) @body))
(call_expression (identifier) @fn (annotated_lambda (lambda_literal) @body))
""",
}
# Kotlin's functions whose lambda runs with a receiver, by how many
# receivers the call writes: `x.apply {}`, `with(x) {}`; `buildString {}`
_RECEIVER_LAMBDAS = {
    1: ("apply", "run", "with"),
    0: ("buildList", "buildMap", "buildSet", "buildString"),
}


class _Visible(NamedTuple):
    """What a file's own rules see of a type name: its imports (local name
    -> (module, name)), its top-level definitions, the tree's resolver."""

    bindings: dict[str, tuple[str, str]]
    top_level: set[str]
    resolve: Resolver | None
    namespace: str = ""  # PHP: the file's namespace, dotted; Java, Kotlin: its package
    defined: frozenset[str] = frozenset()  # PHP: the qualnames this file defines
    # Ruby: a class or module's last name -> the qualnames of those defined here
    nested: dict[str, list[str]] | None = None
    # Java, Kotlin: the packages `import p.*` lines name (not `import static`)
    wildcards: tuple[str, ...] = ()


# (the file that defines a type, its qualname there, the binding)
_Owner = tuple[str | None, str, Binding]


def _rust_type(path: str, written: str, seen: _Visible) -> _Owner | None:
    """(its file, its qualname there, the binding) of a Rust type named as
    written: defined in this file, or brought by a ``use`` (one of a crate
    outside the repository: external); None when nothing says."""
    bindings, top_level, resolve = seen.bindings, seen.top_level, seen.resolve
    head, _, rest = written.partition(".")
    if head in top_level:
        return path, written, Binding.BOUND
    if head not in bindings:
        # `Vec`, `String`, `Option`, `str`, `u64`: the prelude's and the
        # language's own, which need no `use`
        return (None, f"{RUST_STD}{head}", Binding.EXTERNAL) if head in _RUST_PRELUDE else None
    module, name = bindings[head]
    found = resolve("rust", path, module, name) if resolve else None
    if found and rest and rust_paths.module_file(found, name, module):
        return found, rest, Binding.BOUND  # `use crate::store; store::Repo`: the module's file
    if found:
        return found, f"{name}.{rest}" if rest else name, Binding.BOUND
    if _relative_spec("rust", module):
        return None  # crate::, self::, super:: not found: a broken path, a candidate
    return None, f"{module}::{name}", Binding.EXTERNAL


RUST_STD = "std::prelude::"
# the types every Rust module sees without a `use`: the primitives and the
# standard prelude's
_RUST_PRELUDE = frozenset(
    {
        "str", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16",
        "i32", "i64", "i128", "isize", "f32", "f64", "String", "Vec", "Option", "Result",
        "Box",
    }
)  # fmt: skip


class _RustUses:
    """The local names the ``use`` lines at the top of a Rust file bring,
    less the names any definition of the file has (see ``_rust_top_uses``)."""

    def __init__(self, spans: list[tuple[int, int]], defined: set[str]):
        self._spans = spans  # in source order: looked up by bisection
        self._defined = defined
        self.names: set[str] = set()

    def note(self, local: str, at: int) -> None:
        i = bisect.bisect_right(self._spans, (at, sys.maxsize)) - 1
        if local not in self._defined and i >= 0 and at < self._spans[i][1]:
            self.names.add(local)


def _rust_top_uses(root: ts.Node | None, ordered: list[_Def]) -> _RustUses:
    top = root.named_children if root is not None else []
    spans = [(c.start_byte, c.end_byte) for c in top if c.type == "use_declaration"]
    return _RustUses(spans, {d.qualname.rsplit(".", 1)[-1] for d in ordered})


# Ruby methods whose symbol argument names a method of the class, called
# later: Rails' callbacks, `validate`, `helper_method`, `method(:x)`, `send(:x)`
RUBY_NAMING = re.compile(
    r"((before|after|around|skip_before|skip_after|skip_around|prepend_before|prepend_after"
    r"|prepend_around|append_before|append_after|append_around)_[a-z_]+|validate|helper_method"
    r"|method|public_method|send|public_send|__send__|try)"
)


def _ruby_names_a_method(caps: dict[str, list[ts.Node]], text: Callable[[ts.Node], str]) -> bool:
    """A symbol given to one of RUBY_NAMING's methods, directly or as its
    `if:` or `unless:` condition."""
    if not RUBY_NAMING.fullmatch(text(caps["_named"][0])):
        return False
    return "_condition" not in caps or text(caps["_condition"][0]) in ("if", "unless")


def _inline_modules(within: _Def | None) -> int:
    """How many `mod x { ... }` of the file are around a Rust reference."""
    count = 0
    while within is not None:
        count += within.kind == "module"
        within = within.parent
    return count


def _class_of(language: str, path: str, written: str, seen: _Visible) -> _Owner | None:
    """(its file, its qualname there, the binding) of a class named as
    written in a Java or Kotlin file: imported, defined here, in the same
    package (``Repo.java`` or ``Repo.kt`` beside the file), or, in Java,
    package-qualified (``a.b.Repo``); imported from outside the repository,
    (None, the import, external); None when nothing says."""
    bindings, top_level, resolve = seen.bindings, seen.top_level, seen.resolve
    head, _, rest = written.partition(".")
    if head in bindings:
        module, name = bindings[head]
        found = resolve(language, path, module, name) if resolve else None
        if found is None:
            spelled = module if module.endswith(f".{name}") else f"{module}.{name}"
            return None, spelled, Binding.EXTERNAL
        return found, f"{name}.{rest}" if rest else name, Binding.BOUND
    if head in top_level:
        return path, written, Binding.BOUND
    if resolve is None:
        return None
    if head[:1].isupper():
        found = _same_package(language, path, head, resolve, seen.namespace)
        if found:
            return found, written, Binding.BOUND
        return _jvm_implicit(language, path, head, written, seen)
    parts = written.split(".")
    first = next((i for i, part in enumerate(parts) if part[:1].isupper()), None)
    if language != "java" or not first:
        return None
    found = resolve("java", path, ".".join(parts[:first]), parts[first])
    return (found, ".".join(parts[first:]), Binding.BOUND) if found else None


# packages of the platform a wildcard import may name: never the repository's
_JAVA_PLATFORM = ("java.", "javax.", "jdk.", "sun.", "android.", "androidx.", "kotlin.")


def _jvm_implicit(
    language: str, path: str, head: str, written: str, seen: _Visible
) -> _Owner | None:
    """A Java (Kotlin) class name no import, definition or file of the
    package gives: the class of that name in a package an `import p.*`
    names (the repository's, or the platform's), else java.lang's; in
    Kotlin, first a class its default imports bring (claimed in the file:
    the linker looks in its package, then calls it kotlin's); None when
    nothing says (a wildcard of a library's package may hold it). A Java
    package of the project (its first two names are the file's package's:
    `org.jsoup.nodes` from `org.jsoup.parser`) holds a public class only in
    a file of its name, so one without that file does not hold it; a
    Kotlin one may hold it in any file."""
    if language == "kotlin" and head in bind_kotlin.DEFAULT_CLASSES:
        # the package's own class of the name first (the linker's), else kotlin's
        return path, written, Binding.BOUND
    own = seen.namespace.split(".")[:2] if language == "java" else []
    unknown = False
    for package in seen.wildcards:
        if seen.resolve is None:
            break
        if language == "java":
            found = seen.resolve("java", path, package, head)
        else:  # a folder of the package's: the linker reads its files
            found = seen.resolve("kotlin", path, f"{package}.{head}", head)
        if found:
            return found, written, Binding.BOUND
        ours = len(own) == 2 and package.split(".")[:2] == own
        unknown = unknown or not (ours or package.startswith(_JAVA_PLATFORM))
    if head in bind_java.JAVA_LANG and language == "java" and not unknown:
        return None, f"java.lang.{head}", Binding.EXTERNAL
    platform = [p for p in seen.wildcards if p.startswith(_JAVA_PLATFORM)]
    if platform and not unknown:
        return None, f"{platform[0]}.*", Binding.EXTERNAL
    return None


# PHP's own classes a program makes or is given most, in the global namespace
_PHP_CLASSES = frozenset(
    {
        "DateTime", "DateTimeImmutable", "DateTimeInterface", "DateTimeZone", "DateInterval",
        "ArrayObject", "ArrayIterator", "SplObjectStorage", "SplQueue", "SplStack",
        "Exception", "RuntimeException", "InvalidArgumentException", "LogicException",
        "Throwable", "PDO", "PDOStatement", "stdClass", "Closure", "Generator",
        "DOMDocument", "DOMElement", "DOMXPath", "SimpleXMLElement", "ReflectionClass",
        "ReflectionMethod", "ReflectionProperty", "ReflectionFunction", "SplFileInfo",
        "SplFileObject", "Iterator", "IteratorAggregate", "Countable", "ArrayAccess",
    }
)  # fmt: skip


def _php_class(path: str, written: str, seen: _Visible) -> _Owner | None:
    """(its file, its qualname there, the binding) of a class named as
    written in a PHP file (qualnames hold the namespace: ``App.Repo``):
    through a ``use`` (outside the repository: external), fully qualified
    (``\\Lib\\Store``), or in this file's namespace, defined here or in a file
    PSR-4's layout names; None when nothing says."""
    bindings, resolve, namespace = seen.bindings, seen.resolve, seen.namespace
    defined = seen.defined
    qualified = written.startswith("\\")
    spelled = written.lstrip("\\").replace("\\", ".")
    head, _, rest = spelled.partition(".")
    if not qualified and head in bindings:
        module, name = bindings[head]
        full = module.lstrip("\\").replace("\\", ".") + (f".{rest}" if rest else "")
        found = resolve("php", path, module, name) if resolve else None
        return (found, full, Binding.BOUND) if found else (None, full, Binding.EXTERNAL)
    full = spelled if qualified or not namespace else f"{namespace}.{spelled}"
    if full in defined:
        return path, full, Binding.BOUND
    last = full.rsplit(".", 1)[-1]
    found = resolve("php", path, full.replace(".", "\\"), last) if resolve else None
    if found and found.endswith(f"/{last}.php"):
        return found, full, Binding.BOUND
    if full in _PHP_CLASSES:  # `new \DateTime()`: PHP's own (a global name)
        return None, full, Binding.EXTERNAL
    return None


def _visible(
    language: str,
    bindings: dict[str, tuple[str, str]],
    top_level: set[str],
    resolve: Resolver | None,
    root: ts.Node | None,
    ordered: list[_Def],
    text: Callable[[ts.Node], str],
) -> _Visible:
    if language == "ruby":  # the classes and modules, for a constant named inside one
        nested: dict[str, list[str]] = {}
        for d in ordered:
            if d.kind in ("class", "module"):
                nested.setdefault(d.qualname.rsplit(".", 1)[-1], []).append(d.qualname)
        return _Visible(bindings, top_level, resolve, nested=nested)
    if language in ("java", "kotlin") and root is not None:  # its package, as declared
        header = next(
            (c for c in root.named_children if c.type in ("package_declaration", "package_header")),
            None,
        )
        spelled = header.named_children[0] if header is not None and header.named_children else None
        package = "".join(text(spelled).split()) if spelled is not None else ""
        wildcards = tuple(
            "".join(text(c.named_children[0]).split())
            for c in root.named_children
            if c.type in ("import_declaration", "import")  # Java's, Kotlin's
            and c.named_child_count
            and any(x.type in ("asterisk", "*") for x in c.children)
            and not any(x.type == "static" for x in c.children)
        )
        return _Visible(bindings, top_level, resolve, package, wildcards=wildcards)
    if language != "php" or root is None:
        return _Visible(bindings, top_level, resolve)
    declared = next((c for c in root.named_children if c.type == "namespace_definition"), None)
    name = declared.child_by_field_name("name") if declared is not None else None
    namespace = text(name).replace("\\", ".") if name is not None else ""
    return _Visible(bindings, top_level, resolve, namespace, frozenset(d.qualname for d in ordered))


# the file and qualname of a type a receiver was declared with, per language
def _ruby_class(path: str, written: str, seen: _Visible) -> _Owner | None:
    """A Ruby constant as written (``Repo``, ``Admin.User``): claimed in this
    file, where the linker looks for it and then in the files this one
    requires (a required file's constants are everywhere, as `import *`).
    ``Main`` written inside ``module App`` that defines ``App::Main`` here is
    that class (one such in the file; two would need the lexical scope)."""
    here = (seen.nested or {}).get(written, [])
    if len(here) == 1:  # `Main`, or `App::Main` itself
        return path, here[0], Binding.BOUND
    return path, written, Binding.BOUND


_TYPES: dict[str, Callable[[str, str, _Visible], _Owner | None]] = {
    "java": functools.partial(_class_of, "java"),
    "kotlin": functools.partial(_class_of, "kotlin"),
    "rust": _rust_type,
    "php": _php_class,
    "ruby": _ruby_class,
}


def _member_type(source: str, name: str, types: frozenset[str]) -> str | None:
    """A type ``name`` written in ``source`` (``Outer.B``, or a member of
    it) that is a member type of a class around it (``Outer.A``): the
    innermost such class's, as Java looks a simple type name up; None when
    none of them has one (a top-level name is looked up apart)."""
    scope = source
    while scope:
        found = f"{scope}.{name}"
        if found in types:
            return found
        scope = scope.rpartition(".")[0]
    return None


def _kotlin_package_call(
    within: _Def | None,
    at: ts.Node,
    name: str,
    based: Callable[[], frozenset[str]],
    locals_of: Callable[[ts.Node], dict[str, int]],
) -> str | None:
    """Whether a bare Kotlin call (``at``) may name a top-level function of
    the package: not a parameter or local declared before it in the
    functions around it. "" if so; the innermost class around it with a
    base written here, whose inherited members come first (the linker
    follows its bases, then the package); None if not."""
    d = within
    owner = ""
    while d is not None:
        if d.kind in ("class", "object", "interface") and d.qualname in based() and not owner:
            owner = d.qualname
        if (
            d.kind in ("function", "method")
            and locals_of(d.node).get(name, at.end_byte) < at.start_byte
        ):
            return None
        d = d.parent
    return owner


def _java_static(
    path: str, module: str, name: str, resolve: Resolver | None
) -> tuple[str, str] | None:
    """(file, qualname) of a Java class's member a static import names
    (``com.ex.Util`` and ``helper``: ``Util.helper`` in Util.java), when
    no file is the import's own path (``com/ex/Util/helper.java``)."""
    package, _, cls = module.rpartition(".")
    if resolve is None or not package or not cls[:1].isupper() or name[:1].isupper():
        return None
    if resolve("java", path, module, name):  # a class after all
        return None
    found = resolve("java", path, package, cls)
    return (found, f"{cls}.{name}") if found else None


def _template_uses(
    path: str, language: str, component: bytes, top_level: set[str], edges: list[EdgeRow]
) -> list[EdgeRow]:
    """A Vue component's template reading what its script defines at the
    top (``@click="save"``) or imports (``{{ pluralize(n) }}``): a ``use``
    of it, claimed as the definition or the import is (indexer/vue.py)."""
    imported = {
        e.alias or e.target: e
        for e in edges
        if e.kind == EdgeKind.IMPORT and e.binding == Binding.BOUND and e.target_qualname
    }
    out = []
    uses = vue.template_uses(component, top_level | set(imported))
    # each line's start byte, once: a count per use made 50,000 uses quadratic
    starts = [0, *(m.end() for m in re.finditer(rb"\n", component))] if uses else []
    for name, start, end in uses:
        line = bisect.bisect_right(starts, start) - 1
        col = start - starts[line]
        where = (line, col)
        via = f"{_DEFINED_HERE}, read by its template"
        resolved: str | None = path
        qualname: str | None = name
        module, target = "", name
        if name not in top_level:  # `import { pluralize } from "@/utils"`
            e = imported[name]
            resolved, qualname, module = e.resolved_path, e.target_qualname, e.module
            via, target = f"imported from {e.module}, read by the template", e.target
        out.append(
            edge_row(
                path,
                "",
                target,
                module,
                EdgeKind.USE,
                language,
                where,
                (line, col + end - start),
                resolved=resolved,
                qualname=qualname,
                binding=Binding.BOUND,
                via=via,
                alias=name if target != name else None,
            )
        )
    return out


def _flowed_member(language: str, outer: ts.Node, name_node: ts.Node) -> bool:
    """A JS/TS member used as a value on a name (`users.list` passed):
    flow_js.py decides what it names, and drops the row if nothing."""
    if language not in _JS_FAMILY or outer.type != "member_expression":
        return False
    obj = outer.child_by_field_name("object")
    return obj is not None and obj.type == "identifier" and obj != name_node


def _php_function(
    kind: str, outer: ts.Node, seen: _Visible, text: Callable[[ts.Node], str]
) -> tuple[str, str] | None:
    """(qualname, via) of a PHP function a call names (``helper()``,
    ``\\App\\helper()``) or a string passed where a callback is expected
    names (bind_php.py); None for anything else."""
    if kind == EdgeKind.CALL and outer.type == "function_call_expression":
        called = outer.child_by_field_name("function")
        if called is None or called.type not in ("name", "qualified_name", "relative_name"):
            return None
        return bind_php.function_claim(text(called), seen.namespace, seen.bindings)
    call = outer.parent.parent if kind == EdgeKind.USE and outer.parent is not None else None
    named = bind_php.callback_name(outer, call, text) if call is not None else None
    if named is None:
        return None
    return named.replace("\\", "."), bind_php.FUNCTION_VIA + named + bind_php.CALLBACK_VIA


def _php_dotted(spec: str) -> str:
    """``\\GuzzleHttp\\Client`` as the qualname its file gives the class:
    ``GuzzleHttp.Client`` (a file's namespace qualifies its names)."""
    return spec.lstrip("\\").replace("\\", ".")


def _rust_module_item(within: _Def | None, name: str, functions: frozenset[str]) -> str | None:
    """The ``fn name`` of the nearest ``mod`` around a call, if it has one:
    Rust looks a bare name up in the current module (an ``impl``'s methods
    need ``Self::``)."""
    d = within
    while d is not None and d.kind != "module":
        d = d.parent
    if d is None:
        return None
    found = f"{d.qualname}.{name}"
    return found if found in functions else None


def _same_package(
    language: str, path: str, name: str, resolve: Resolver, package: str = ""
) -> str | None:
    """``Name.java`` (``Name.kt``) beside a Java (Kotlin) file: a class of
    its package, which needs no import; else one of the declared ``package``
    under another source root (a test in src/test/java of a class in
    src/main/java), the nearest such file."""
    found = _beside(language, path, name, resolve)
    if found is not None or not package:
        return found
    if language == "java":
        found = resolve("java", path, package, name)
    else:
        found = resolve("kotlin", path, f"{package}.{name}", name)
    wanted = f"/{package.replace('.', '/')}/{name}"
    return found if found is not None and f"/{found}".endswith(_jvm_sources(wanted)) else None


def _beside(language: str, path: str, name: str, resolve: Resolver) -> str | None:
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    # a dotted spec: the folders below the last one whose name has a dot
    # (`jpype1-1.7.1/src/...`, an unpacked release), which the spec cannot spell
    below = folder.split("/")
    dotted = [i for i, part in enumerate(below) if "." in part]
    package = ".".join(below[dotted[-1] + 1 :] if dotted else below)
    if language == "java":
        found = resolve("java", path, package, name)
    else:
        found = resolve("kotlin", path, f"{package}.{name}" if package else name, name)
    stem = f"{folder}/{name}" if folder else name
    return found if found is not None and found in _jvm_sources(stem) else None


def _jvm_sources(stem: str) -> tuple[str, ...]:
    """A JVM class's file: Java and Kotlin share packages and call each other."""
    return (f"{stem}.java", f"{stem}.kt")


def _relative_spec(language: str, module: str) -> bool:
    """A spec that can only name a file of the repository: unresolved, it is
    a candidate (a broken path), not an outside dependency."""
    if language in ("javascript", "typescript", "tsx"):
        return module.startswith(".")
    if language in ("c", "cpp"):
        return not module.startswith("<")
    if language == "rust":
        return module.split("::")[0] in ("crate", "self", "super")
    return language == "ruby"


def _assign_containers(ordered: list[_Def]) -> None:
    """Set each definition's container from the definitions enclosing it.

    A sweep with a stack (O(n log n)), not a walk up node.parent: a 10,000-deep
    expression would make parent walks quadratic."""
    stack: list[_Def] = []
    for d in ordered:
        while stack and stack[-1].end <= d.start:
            stack.pop()
        # a macro knows no namespace: `#define CHECK(x)` in `namespace app {` is CHECK
        d.parent = stack[-1] if stack and d.node.type not in _MACROS else None
        outer = d.parent.qualname if d.parent else ""
        d.container = f"{outer}.{d.scope}" if outer and d.scope else outer or d.scope
        stack.append(d)


def _instance_attributes(ordered: list[_Def]) -> list[_Def]:
    """Python's ``self.cache = {}`` in a method is a field of the method's
    class, not of the method: the first such assignment of each name, where
    the class defines no attribute or method of that name itself."""

    def on_self(d: _Def) -> bool:  # the query matches these in a method's body only
        return d.kind == "field" and d.parent is not None and d.parent.kind == "function"

    seen = {d.qualname for d in ordered if not on_self(d)}
    out = []
    for d in ordered:
        if on_self(d):
            cls = d.parent.parent if d.parent is not None else None
            if cls is None or cls.kind != "class":
                continue
            d.parent, d.container = cls, cls.qualname
            if d.qualname in seen:
                continue
            seen.add(d.qualname)
        out.append(d)
    return out


def _parameter_properties(ordered: list[_Def]) -> None:
    """TypeScript's ``constructor(private repo: Repo)`` declares the field
    ``repo`` of the class, not of its constructor."""
    for d in ordered:
        if d.kind == "field" and d.node.type in ("required_parameter", "optional_parameter"):
            cls = d.parent.parent if d.parent is not None else None
            if cls is not None:
                d.parent, d.container = cls, cls.qualname


def _extended(function: ts.Node, text: Callable[[ts.Node], str]) -> str:
    """The class a Kotlin extension function extends (``fun Repo.saveAll()``,
    ``fun List<T>.second()``): the type written before its name; "" for
    any other function. Its name stays its own (a call ``x.saveAll()`` in
    the file binds to it by name, whatever ``x`` is); ``this`` in it is a
    Repo."""
    for c in function.named_children:
        if c.type == "identifier":  # the name: no receiver before it
            return ""
        if c.type in bind_kotlin.TYPES:
            return bind_kotlin.class_name(c, text) or ""
    return ""


def _js_assigned(d: _Def, text: Callable[[ts.Node], str]) -> bool:
    """Name a JS/TS definition made by assignment after the object it is
    set on: ``Repo.prototype.save = function`` is the method ``Repo.save``,
    ``app.listen = function`` the function ``app.listen``, and
    ``exports.run`` (or ``module.exports.run``) the module's own ``run``, as
    ``function run`` would be, so a ``require`` of the module binds to it.
    False for ``module.exports = function``: the module itself, no name."""
    left = d.node.child_by_field_name("left")
    held = left.child_by_field_name("object") if left is not None else None
    if held is None:
        return False
    owner = "".join(text(held).split())
    if owner in ("exports", "module.exports"):
        return True
    if owner == "module":
        return False
    if owner.endswith(".prototype"):
        owner, d.kind = owner.removesuffix(".prototype"), "method"
    d.scope = owner
    return True


def _written_scope(d: _Def, text: Callable[[ts.Node], str]) -> None:
    """A C++ definition named with its scope: ``void Repo::save()`` is a
    member of Repo, ``bool Regexp::ParseState::Push()`` of Regexp.ParseState,
    ``class Regexp::ParseState {`` is Regexp's; the scope joins the
    container (so what the class body holds is inside it too). A ``::`` the
    parser invented (``void __init setup(void)``, a C macro before the name)
    makes a plain function."""
    scope = d.name_node.parent
    if scope is None or scope.type != "qualified_identifier":
        return
    if bind_c.invented_scope(scope):
        if d.kind == "method":
            d.kind = "function"
        return
    parts = []
    while scope is not None and scope.type == "qualified_identifier":
        owner = scope.child_by_field_name("scope")
        if owner is not None and owner.type == "template_type":  # Walker<T>::Walk
            owner = owner.child_by_field_name("name")
        if owner is None:
            return
        parts.append(text(owner).replace("::", "."))
        scope = scope.parent
    d.scope = ".".join(reversed(parts))


# definitions that hold no code of their own: a call in `a = make()` at the
# top of a module runs in the module, not "in a"
_NOT_CALLERS = frozenset({"constant", "variable", "field"})


def _enclosing(ordered: list[_Def], offsets: list[int]) -> list[str]:
    """Qualname of the innermost definition containing each (sorted) byte
    offset: functions, classes and the like; not constants."""
    return [d.qualname if d else "" for d in _enclosing_defs(ordered, offsets)]


def _enclosing_defs(ordered: list[_Def], offsets: list[int]) -> list[_Def | None]:
    """The innermost definition containing each (sorted) byte offset, as
    _enclosing names it."""
    spans = [(d.start, d.end, d) for d in ordered if d.kind not in _NOT_CALLERS]
    return innermost_around(spans, offsets)


def _claim_container(d: _Def | None, source: str, text: Callable[[ts.Node], str]) -> str:
    """The scope a C or C++ call in ``d`` (named ``source``) looks names up
    from, innermost: the function's container; a namespace's or a class's
    body itself when no function holds the call (one the grammar could not
    read, say), so `riegeli::PtrDistance` is still found from inside
    `namespace riegeli`, and `get()` in a class's `operator*` is its own."""
    claimed = _claimed_from(d, text)
    if claimed is not None:
        return claimed.rsplit(".", 1)[0]
    if d is not None and (not d.kind or d.kind == "class" or _cpp_struct(d)):
        # a namespace's body; or a class's outside any method the parser
        # read (an operator, a default member initializer, a method a macro
        # hid), where C++ looks in the class first
        return d.qualname
    return source.rsplit(".", 1)[0] if "." in source else ""


def _base_container(d: _Def | None, source: str, text: Callable[[ts.Node], str]) -> str:
    """The scope a C++ base class (in ``d``, the class being defined, named
    ``source``) is looked up from: the one around the class."""
    if d is not None and d.kind:
        return source.rpartition(".")[0]
    return _claim_container(d, source, text)


def _cpp_struct(d: _Def) -> bool:
    """A struct that defines methods in its body: C++'s, which scopes names
    (a C struct's body holds none, and its calls, `__aligned(8)`, stay the
    file's)."""
    if d.kind != "struct" or (body := d.node.child_by_field_name("body")) is None:
        return False
    return any(c.type in ("function_definition", "template_declaration") for c in body.children)


def _claimed_from(d: _Def | None, text: Callable[[ts.Node], str]) -> str | None:
    """For a bare C++ call in ``d``: the source its claim is made from when
    that is not ``d`` itself. In a googletest TEST_F body, a method of the
    fixture: ``Put()`` in `TEST_F(DBTest, Empty)` looks up ``DBTest.Put``
    first, then outward as from any method of DBTest."""
    if d is None or d.name not in receivers_cpp.GTEST_FIXTURES:
        return None
    fixture = receivers_cpp.fixture(d.node, text)
    if fixture is None:
        return None
    spelled = text(fixture).replace("::", ".")
    return f"{d.container}.{spelled}.{d.name}" if d.container else f"{spelled}.{d.name}"


def _last_segment(language: str, spec: str) -> str:
    if language in ("c", "cpp", "ruby"):  # a path: "util/helpers.h", "models/base"
        return spec.rsplit("/", 1)[-1]
    if language == "php":  # App\Models\User, or a required path
        return spec.replace("\\", "/").rsplit("/", 1)[-1]
    for sep in ("::", "/", "."):
        if sep in spec:
            spec = spec.rsplit(sep, 1)[1]
    return spec


def _exported(language: str, d: _Def, kind: str, text: Callable[[ts.Node], str]) -> bool:
    name = d.name
    if language in ("c", "cpp", "csharp", "ruby", "php", "kotlin"):
        return _exported_by_modifier(language, d, kind, text)
    if language == "python":
        return not name.startswith("_") and not any(
            p.startswith("_") for p in d.container.split(".") if p
        )
    if language == "go":
        return name[:1].isupper()
    if language == "rust":
        return any(c.type == "visibility_modifier" for c in d.node.children)
    if language == "java":
        mods = next((c for c in d.node.children if c.type == "modifiers"), None)
        return mods is not None and any(c.type == "public" for c in mods.children)
    # javascript / typescript: an export statement up to three levels up;
    # a function set on an object (`exports.run =`, `app.listen =`) is
    # reachable by whoever holds the object
    if d.node.type == "assignment_expression":
        return not name.startswith("_")
    if d.parent is not None and d.parent.kind == "enum":  # a member: as its enum is
        return _exported(language, d.parent, "enum", text)
    if kind == "method":
        return not name.startswith("#") and not any(
            c.type == "accessibility_modifier" and text(c) in ("private", "protected")
            for c in d.node.children
        )
    node: ts.Node | None = d.node
    for _ in range(3):
        if node is None:
            break
        if node.type == "export_statement":
            return True
        node = node.parent
    return False


RUBY_REQUIRES = {"require", "require_relative", "load", "autoload"}
# what an unnamed @scope is in each language: a Rust impl block holds methods,
# a C++, C# or PHP namespace holds functions
CLASS_LIKE_SCOPES: dict[str, tuple[str, ...]] = {"cpp": (), "csharp": (), "php": ()}


def _exported_by_modifier(
    language: str, d: _Def, kind: str, text: Callable[[ts.Node], str]
) -> bool:
    """Each language's own rule: C/C++ a definition that is not ``static``
    (and a C++ member in a public section: ``class`` members start private,
    ``struct`` ones public); C# ``public``; Ruby a method not after a bare
    ``private``/``protected``; PHP and Kotlin anything not ``private``,
    ``protected`` (or Kotlin ``internal``)."""
    node = d.node
    words = {text(c) for c in node.children if c.type in ("storage_class_specifier", "modifier")}
    if language in ("c", "cpp"):
        # `static __always_inline __alloc_size(1) void *kmalloc(...)`: the
        # grammar ends a "declaration" at the unknown macro call, with a
        # missing `;`, and starts the definition after it; those words are
        # the definition's own
        head = node.prev_sibling if node.type == "function_definition" else None
        if head is not None and head.type == "declaration" and head.children[-1].is_missing:
            words |= {text(c) for c in head.children if c.type == "storage_class_specifier"}
        if "static" in words:
            return False
        if language == "cpp" and d.parent is not None and d.parent.kind in ("class", "struct"):
            section = "public" if d.parent.kind == "struct" else "private"
            sibling = node.prev_named_sibling
            while sibling is not None:
                if sibling.type == "access_specifier":
                    section = text(sibling).rstrip(":").strip()
                    break
                sibling = sibling.prev_named_sibling
            return section == "public"
        return True
    if language == "csharp":  # interface members are public without a modifier
        return "public" in words or (d.parent is not None and d.parent.kind == "interface")
    if language == "ruby":
        sibling = node.prev_named_sibling
        while sibling is not None:
            if sibling.type == "identifier" and text(sibling) in ("private", "protected"):
                return False
            if sibling.type == "identifier" and text(sibling) == "public":
                return True
            sibling = sibling.prev_named_sibling
        return not d.name.startswith("_")
    # php, kotlin: a visibility modifier among the node's children (or under `modifiers`)
    modifiers = [c for c in node.children if c.type in ("visibility_modifier", "modifiers")]
    seen = set()
    for m in modifiers:
        if m.type == "visibility_modifier":
            seen.add(text(m))
        seen.update(text(c) for c in m.children if c.type == "visibility_modifier")
    return not seen & {"private", "protected", "internal"}


def _alias_member(signature: ts.Node) -> bool:
    """Whether a TypeScript property signature the tags query defines is a
    member: one of an object type in a union is only where the union is a
    type alias's value (`type Result = {ok: true} | {ok: false}`), not a
    parameter's or a field's type (`f(x: {a: 1} | B)`)."""
    holder = signature.parent
    if holder is None or holder.type != "object_type":
        return True  # an interface's body
    around = holder.parent
    if around is None or around.type != "union_type":
        return True  # the other patterns anchor on the alias themselves
    while around is not None and around.type == "union_type":
        around = around.parent
    return around is not None and around.type == "type_alias_declaration"


def _type_parameter(node: ts.Node, name: str, text: Callable[[ts.Node], str]) -> bool:
    """Whether ``name`` in the intersection ``node`` of a TypeScript type
    alias is one of the alias's type parameters (``type W<T> = T & B``)."""
    alias = node.parent
    while alias is not None and alias.type == "intersection_type":
        alias = alias.parent
    if alias is None or alias.type != "type_alias_declaration":
        return False
    params = alias.child_by_field_name("type_parameters")
    if params is None:
        return False
    return any(
        (n := p.child_by_field_name("name")) is not None and text(n) == name
        for p in params.named_children
    )
