"""Linking an edge's claim to the definition it names, when the index is read.

An edge row carries what its own file's rules can say (indexer/bind_python.py):
a defining file and a qualified name in it, ``("pkg/models.py", "Model.save")``.
Whether that definition exists, and where it really lives, depends on other
files, so it is decided here, over the version being answered from (with its
overlay applied):

- the qualname is defined in the file: bound to it;
- the file imports its head (``from .base import Model`` in ``__init__.py``):
  followed to the file it came from, through any chain of re-exports and
  ``import *``;
- a class of the file has the head but not the member: the class's bases,
  themselves linked, in order (``super()`` starts there);
- a chain (indexer/chains.py), a claim that reaches its definition through
  values: walked step by step over the holders other files declare (what
  ``make`` returns, what a class's instances hold in ``client``), bounded in
  depth; a value that may be two things links to both;
- a C or C++ call the file does not define (indexer/bind_c.py): what the
  file's includes show, followed by query/link_c.py;
- a Go file's package-level name not in the file: the other files of its
  folder, which is its package (indexer/bind_go.py); a predeclared name
  (``len``) that the package does not declare is ``external``;
- a PHP function (indexer/bind_php.py): in any file of the repository;
- anything else: the claim is not provable, and the edge is served as a
  ``candidate``.

Linking at read time is what keeps an incremental update exact without
rewriting the world: a definition renamed or deleted, a re-export removed, a
base class moved, changes the answer of every edge that named it the moment
the version (or the overlay) holding the change is read, while the update
rewrote only the changed files' rows. GitHub's stack graphs do the same:
per-file partial paths, stitched at query time.

Over 400 lines as one concept: every rule that turns a stored claim into a
definition, each small, sharing one set of caches over one view.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from freshindex.indexer import (
    bind_c,
    bind_csharp,
    bind_kotlin,
    bind_php,
    bind_ruby,
    builtins_python,
    chains,
    languages,
    msbuild,
    scope_cpp,
)
from freshindex.indexer.bind_go import PREDECLARED_VIA
from freshindex.indexer.extract import CSHARP_NAMESPACE_VIA, IN_CLASS_VIA, RUST_STD
from freshindex.indexer.flow_js import DEFAULT, EXPORT_ALIAS
from freshindex.indexer.schema import EdgeKind
from freshindex.query.include_rows import IncludeGraph
from freshindex.query.link_c import IncludeLinker
from freshindex.query.ranking import is_test

Row = dict[str, Any]

# what a chain steps into for a member; `type` is a named type with
# methods (Go's `type errorMsgs []*Error`, whose `ByType()` gives one)
CLASS_KINDS = frozenset(
    {"class", "struct", "interface", "trait", "enum", "object", "module", "type"}
)
_RUBY = (".rb", ".rake")
_KOTLIN = (".kt", ".kts")
MAX_DEPTH = 12  # re-export and inheritance chains longer than this are not followed
# a chain's holders are followed this deep; a step keeps at most this many values
MAX_HOPS = 8
MAX_VALUES = 8
# a declared union is a type checker's, not a guess: TypeScript's `type
# ExcalidrawElement = A | B | ...` names ten members, each a possible value
MAX_UNION_MEMBERS = 32
# the rows of a file the linker reads: what it imports, inherits, holds, declares
LINKED = frozenset({"import", "inherit", EdgeKind.VALUE, EdgeKind.DECLARE})
# languages whose names a sibling file of the folder may define
_FOLDER_SCOPED = (".go", ".cs", ".kt")
VARIABLE_KINDS = frozenset({"constant", "variable", "field", "property"})
# what a step of a chain is at: a definition, an instance of a class, a module
_Value = tuple[str, str, "Row | None"]
# the steps of `with f() as x`: f().__enter__()
_ENTER = [chains.CALL, "__enter__", chains.CALL]
_AENTER = [chains.CALL, "__aenter__", chains.CALL]
# modules whose classes a Python class derives from for methods, not data
_ABSTRACT_BASES = frozenset({"typing", "typing_extensions", "collections.abc", "abc"})
# bases whose classes' attributes are members, not the values written
# (enum's Enum, IntEnum, StrEnum, Flag, IntFlag; Django's TextChoices)
_ENUM_BASES = ("Enum", "Flag", "Choices")


@dataclass(frozen=True)
class Link:
    binding: str  # bound | candidate | external
    via: str
    symbol: Row | None = None  # the definition, when bound to one
    path: str | None = None  # the file, when bound to a module or a definition
    # a value that may be several things: the definitions beside ``symbol``
    others: tuple[Row, ...] = ()


class Linker:
    """Links edges over one view of a version. ``symbols_of(path)`` and
    ``edges_of(path)`` give a file's rows as the answer sees it (overlay rows
    for a changed file, none for a deleted one); both are cached here."""

    def __init__(
        self,
        symbols_of: Callable[[str], list[Row]],
        edges_of: Callable[[str], list[Row]],
        files_in: Callable[[str], list[str]] | None = None,
        named: Callable[[str], list[Row]] | None = None,
        includers: Callable[[str], list[str]] | None = None,
        include_graph: Callable[[], IncludeGraph] | None = None,
        declared_in: Callable[[str], frozenset[str]] | None = None,
        global_usings: Callable[[], list[Row]] | None = None,
    ):
        """``files_in(folder)``: the files directly in a folder, for Go's
        packages (None: names are looked up in the claimed file only);
        ``named(name)``: every definition of a name, for C's linkage;
        ``includers(path)``: the files that include a file, for C files
        compiled only as part of another. For C at scale, read in bulk
        rather than file by file: ``include_graph()``, every C file's
        resolved includes in order; ``declared_in(name)``, the files with a
        prototype of the name (both None: read from each file's rows).
        ``global_usings()``: every C# ``global using`` row of the repository."""
        self._symbols_of = symbols_of
        self._edges_of = edges_of
        self._files_in = files_in
        self.c = IncludeLinker(self.defs, self.edges, named, includers, include_graph, declared_in)
        self._defs: dict[str, dict[str, Row]] = {}
        self._edges: dict[str, list[Row]] = {}
        self._packages: dict[tuple[str, str], list[str]] = {}
        self._held: dict[tuple[str, str], list[_Value]] = {}
        # a walk of held() was cut short by MAX_HOPS: what it found is not
        # all a shallower walk of the same holder would find, so it is kept
        # with the hop it was walked at (_cut_at) and walked again only from
        # nearer: a holder is walked at most MAX_HOPS times, never once per path
        self._cut = False
        self._cut_at: dict[tuple[str, str], int] = {}
        # why what a holder holds reaches outside the repository (_outside, as
        # its first walk set it), for the walks that read it from _held
        self._held_outside: dict[tuple[str, str], str] = {}
        self._mros: dict[tuple[str, str], list[Row]] = {}
        self._unknown_bases: dict[tuple[str, str], str] = {}
        self._bases_outside: dict[tuple[str, str, bool], list[str]] = {}
        self._c_links: dict[tuple[str, str, str, tuple[str, ...], bool], Link] = {}
        self._extensions: dict[tuple[tuple[str, ...], str], list[Row]] = {}
        self._usings: dict[str, list[Row]] = {}  # a C# file's using rows, aliases first
        self._global_usings = global_usings
        self._projects: dict[str, str] = {}  # folder -> the C# project folder it is in
        self._trail: dict[tuple[str, str], str] = {}  # a holder's first value, in words
        self._walked: list[str] = []  # the holders the last chain went through
        # why the last claim linked reaches outside the repository, in words:
        # a name imported from there (`from click.utils import echo` in a
        # package's __init__), a member of a class's base from there
        self._outside = ""

    def defs(self, path: str) -> dict[str, Row]:
        """qualname -> its first definition in the file, of those it means
        first where kinds share a name (``_rank``)."""
        found = self._defs.get(path)
        if found is None:
            found = {}
            rows = sorted(self._symbols_of(path), key=lambda r: (r["start_line"], r["start_col"]))
            for r in rows:
                had = found.get(r["qualname"])
                if had is None or _rank(r) < _rank(had):
                    found[r["qualname"]] = r
            self._defs[path] = found
        return found

    def edges(self, path: str) -> list[Row]:
        found = self._edges.get(path)
        if found is None:
            found = [e for e in self._edges_of(path) if e["kind"] in LINKED]
            self._edges[path] = found
        return found

    def link(
        self,
        claim: str,
        via: str,
        path: str | None,
        qual: str | None,
        called: bool = False,
        read: bool = False,
    ) -> Link:
        """What an edge's claim (its stored ``binding``, ``via``,
        ``resolved_path`` and ``target_qualname``) names in this view.
        ``called``: the row is a call of the value the chain ends at (filed
        under ``()``: ``app = Typer(); app()``), so an instance names its
        class's ``__call__``. ``read``: the row reads the name (a ``use``),
        so a variable it finds is what it names, not what the variable holds."""
        if claim == "external":
            cls, _, member = (qual or "").rpartition(".")
            if cls.startswith(RUST_STD) and self._rust_extended(cls[len(RUST_STD) :], member):
                words = f"{via}; a trait of the repository may give {member}"
                return Link("candidate", words)
            if cls and via.endswith(f", imported from {cls}"):  # `c.dp()`: `fun Context.dp()`?
                extended = self.extension(cls, member, via)
                if extended is not None:
                    return extended
            return Link("external", via)
        if claim != "bound" or not path or qual is None:
            return Link("candidate", via or "name match only")
        if qual == "":  # a module: the resolver found the file in the tree
            return Link("bound", via, None, path)
        if via.startswith(bind_c.INCLUDE_VIA):  # query/link_c.py
            base, usings = scope_cpp.split_usings(via)
            if base == bind_c.INCLUDE_VIA:
                return self.through_includes(path, qual, "", usings)
            if base.startswith(bind_c.FIELD_VIA):
                return self.through_includes(
                    path, qual, base[len(bind_c.FIELD_VIA) + 2 :], usings, fields=True
                )
            for marked in (bind_c.QUALIFIED_VIA, bind_c.RECEIVER_VIA):
                if base.startswith(marked):
                    written = base[len(marked) + 2 :]
                    return self.through_includes(path, qual, written, usings)
        if via.startswith(bind_php.FUNCTION_VIA):
            return self.php_function(path, qual, via)
        # super().m() (Python), super.m() (Java, JS/TS), base.M() (C#)
        is_super = via.startswith(("super()", "super.", "base."))
        self._outside = ""
        found = None if chains.is_chain(qual) else self.find(path, qual, skip_self=is_super)
        if found is None and via == bind_kotlin.AFTER_BASES_VIA:
            return self.after_bases(path, qual, via)
        if (
            found is not None
            and found["kind"] in VARIABLE_KINDS
            and not read
            and path.endswith(".java")
        ):
            # Java keeps fields and methods apart: `div.childNodes()` on an
            # Element, which has a field `childNodes`, calls Node's method
            found = self._inherited_method(found) or found
        # a variable (`handler = f` in a class body) is called for what it
        # holds: `cls.handler()` calls f; a read, or a call of a variable
        # that holds nothing known, names the variable itself
        variable = found is not None and found["kind"] in VARIABLE_KINDS and not read
        if (found is None or variable) and not is_super:
            reached = self.through_values(path, qual, called, read)
            if reached:
                first = reached[0]
                trail = "; ".join(self._walked[:3])
                return Link(
                    "bound",
                    f"{via}, then {trail}" if trail else via,
                    first,
                    first["path"],
                    tuple(reached[1:]),
                )
        if found is None and via.startswith(CSHARP_NAMESPACE_VIA):
            # `...namespace: Repository.Find`, or a type's own name
            tail = via.partition(": ")[2] or qual.rsplit(".", 1)[-1]
            found = self.through_namespaces(path, qual, tail)
            if found is not None:
                words = f"{via}, then {found['qualname']} in {found['path']}"
                return Link("bound", words, found, found["path"])
            if "." in tail and chains.CALL not in tail:  # `services.AddMediatR()`
                cls, _, member = tail.rpartition(".")
                extended = self.extension(cls, member, via, csharp=True)
                if extended is not None:
                    return extended
            written, _, member = tail.partition(".")
            if (
                written[:1].isupper()
                and not any(str(r["path"]).endswith(".cs") for r in self.c.named(written))
                and not (member and self._extensions_of((), member.split(".", 1)[0]))
            ):
                # `Assert.Equal(...)`, `new StringWriter()`: no C# file here
                # defines anything of the name, nor an extension method the
                # member could be, so an assembly's type
                return Link("external", f"{via}; no C# file of the repository defines {written}")
        owner, _, name = qual.rpartition(".") if path.endswith(".cs") else ("", "", "")
        if found is None and name and via == IN_CLASS_VIA.format(name, owner):
            # `PySet_New()` in a class of a file with `using static
            # Python.Runtime.Runtime;`: that type's member (a namespace's
            # using names no method)
            for e in self.csharp_usings(path):
                static = self._csharp_named(path, f"{e['module']}.{name}")
                if static is not None and not e.get("alias"):
                    words = f"{via}; {static['qualname']}, by using static {e['module']}"
                    return Link("bound", words, static, static["path"])
        if found is None and is_super:
            # super.onCreate() in a class of an SDK's, or of a class of the
            # repository that extends one (`ClusterEngine extends Server`,
            # whose base is node's EventEmitter)
            owner = qual.rpartition(".")[0]
            outside = next(
                (
                    base
                    for r in self.mro(path, owner, 0)
                    if (base := self._outside_base(r["path"], r["qualname"]))
                ),
                "",
            ) or self._outside_base(path, owner)
            if outside:
                return Link("external", f"{via}; {outside}, a base outside the repository")
        if found is None and path.endswith(_KOTLIN) and "." in qual and not chains.is_chain(qual):
            cls, _, member = qual.rpartition(".")  # `r.saveAll()`: `fun Repo.saveAll()`
            extended = self.extension(cls, member, via)
            if extended is not None:
                return extended
        if found is None and path.endswith(".rb") and qual.split(".")[0] in bind_ruby.CORE_CLASSES:
            return self.ruby_core(qual, via)
        if found is None and path.endswith(_KOTLIN) and bind_kotlin.is_default(qual, via):
            # `s.trim()` on `s: String`, `StringBuilder()`: no class or function
            # of the package has the name, so kotlin's own
            return Link("external", f"{via}; not in the package: kotlin's")
        if found is None:
            if via == PREDECLARED_VIA:
                return Link("external", f"{qual} is predeclared in Go")
            if self._outside:  # re-exported from, or inherited from, outside the repository
                return Link("external", f"{via}, then {self._outside}")
            if _awaited_then(path, qual):
                # `load().then(...)`: the function's return is held awaited (a
                # User); a value with no `then` of its own was the Promise
                return Link("external", f"{via}; {qual.rpartition('.')[2]} of the Promise")
            where = f"package {posixpath.dirname(path) or '.'}" if path.endswith(".go") else path
            return Link("candidate", f"{via}; {qual} not found in {where}")
        if found["path"] != path or found["qualname"] != qual:
            via = f"{via}, then {found['qualname']} in {found['path']}"
        return Link("bound", via, found, found["path"])

    def find(
        self,
        path: str,
        qual: str,
        skip_self: bool = False,
        depth: int = 0,
        seen: set[tuple[str, str]] | None = None,
    ) -> Row | None:
        """The definition ``qual`` names in ``path``, following re-exports and bases.
        ``seen``: the (path, qual) pairs this search has asked already. Files
        that import * from each other would otherwise be walked once per
        path through them: 3.9 s for four such files, exponential in more."""
        if depth > MAX_DEPTH:
            return None
        if seen is None:
            seen = set()
        elif (path, qual) in seen:
            return None
        seen.add((path, qual))
        defs = self.defs(path)
        if not skip_self and qual in defs:
            own = defs[qual]
            if own["kind"] == "module" and path.endswith(".rs"):
                # Rust keeps modules and values apart: `mod parse;` beside
                # `pub use parse::parse;` names the function for a call
                return self._rust_reexport(path, qual, depth, seen) or own
            return own
        if qual == DEFAULT and not skip_self:
            # `export default Button` (JS/TS): a value row names the definition;
            # read here so `export { default as Button } from` finds it too
            for e in self.edges(path):
                held, where = e.get("target_qualname"), e.get("resolved_path")
                plain = held and not chains.is_chain(held)
                if e["kind"] == "value" and e["source"] == DEFAULT and where and plain:
                    hit = self.find(where, str(held), False, depth + 1, seen)
                    if hit is not None:
                        return hit
        if path.endswith(_FOLDER_SCOPED) and not skip_self:
            # one Go package is one folder; a C# namespace's files (and a
            # partial class's parts) sit together by convention
            for other in self.package_of(path):
                hit = self.defs(other).get(qual)
                if hit is not None:
                    return hit
        parts = qual.split(".")
        # the longest prefix that is a class of this file: its member, or a base's
        for i in range(len(parts) - 1, 0, -1):
            owner = ".".join(parts[:i])
            row = defs.get(owner)
            if row is None:
                continue
            if row["kind"] not in CLASS_KINDS:
                return None
            member = ".".join(parts[i:])
            # the bases in Python's method resolution order (C3): in
            # `class D(B, C)` with `B(A)` and `C(A)`, C comes before A
            for base in self.mro(path, owner, depth)[1:]:
                hit = self.defs(base["path"]).get(f"{base['qualname']}.{member}")
                if hit is not None:
                    return hit
            return None
        if skip_self:
            return None
        # the head is not defined here: an import brought it (a re-export)
        head, rest = parts[0], parts[1:]
        stars = []
        outside_stars = []  # `export * from "@testing-library/react"`
        for e in self.edges(path):
            if e["kind"] == "value" and e["source"] == head and _exported_as(e, path):
                # `export { Hono as HonoBase }` (JS/TS): the file's own Hono
                real = ".".join([str(e["target_qualname"]), *rest])
                return self.find(path, real, False, depth + 1, seen)
            if e["kind"] != "import" or e.get("source"):
                continue
            target_path, target_qual = e.get("resolved_path"), e.get("target_qualname")
            # `import *`, and a Ruby `require`: every constant of the file
            if e["target"] == "*" or (target_qual == "" and path.endswith(_RUBY)):
                if target_path and e.get("binding") == "bound":
                    stars.append(target_path)
                elif e.get("binding") == "external" and e["target"] == "*":
                    outside_stars.append(str(e.get("module") or "?"))
                continue
            local = e.get("alias") or e["target"]
            if local == head and e.get("binding") == "external" and not rest:
                self._outside = f"imported from {e.get('module') or '?'}"
            if local != head or not target_path or target_qual is None:
                continue
            if target_qual == "":  # a module: the rest is inside it
                if not rest:
                    return None
                return self.find(target_path, ".".join(rest), False, depth + 1, seen)
            return self.find(target_path, ".".join([target_qual, *rest]), False, depth + 1, seen)
        if posixpath.basename(path) == "conftest.py":
            # pytest: a conftest's fixtures are those of the conftest.py
            # files above it too (indexer/fixtures_python.py)
            stars.extend(self.conftest_above(path)[:1])
        for star in stars:
            hit = self.find(star, qual, False, depth + 1, seen)
            if hit is not None:
                return hit
        sub = self.submodule(path, head)
        if sub is not None and rest:  # `pkg.cookies.Jar` with no import of cookies in pkg
            return self.find(sub, ".".join(rest), False, depth + 1, seen)
        if outside_stars and head not in self.defs(path):
            # a name the file neither defines nor imports by name, re-exported
            # from a package with everything else it has: that package's
            self._outside = f"imported from {' or '.join(outside_stars)}"
        return None

    def _rust_reexport(
        self, path: str, name: str, depth: int, seen: set[tuple[str, str]]
    ) -> Row | None:
        """The item a Rust file's ``use`` brings as ``name``, if one does."""
        for e in self.edges(path):
            if e["kind"] != "import" or e.get("source") or (e.get("alias") or e["target"]) != name:
                continue
            where, qual = e.get("resolved_path"), e.get("target_qualname")
            if where and qual:
                return self.find(where, str(qual), False, depth + 1, seen)
        return None

    def submodule(self, path: str, name: str) -> str | None:
        """A Python package's submodule as its attribute: ``cookies`` of
        pkg/__init__.py is pkg/cookies.py (or pkg/cookies/__init__.py), once
        anything imported it, which code that reads ``pkg.cookies`` relies on."""
        if posixpath.basename(path) != "__init__.py" or self._files_in is None:
            return None
        folder = posixpath.dirname(path)
        module = posixpath.join(folder, f"{name}.py")
        if module in self._files_in(folder):
            return module
        package = posixpath.join(folder, name, "__init__.py")
        return package if package in self._files_in(posixpath.join(folder, name)) else None

    def conftest_above(self, path: str) -> list[str]:
        """The nearest conftest.py with definitions in a folder above ``path``'s."""
        folder = posixpath.dirname(path)
        while folder:
            folder = posixpath.dirname(folder)
            above = posixpath.join(folder, "conftest.py")
            if self.defs(above):
                return [above]
        return []

    # -- C and C++: the include graph -------------------------------------------

    def through_includes(
        self,
        path: str,
        name: str,
        written: str = "",
        usings: tuple[str, ...] = (),
        fields: bool = False,
    ) -> Link:
        """The definition a C or C++ call sees (query/link_c.py); ``written``:
        the scope and name a C++ call spelled out (``detail::f``); ``usings``:
        the C++ ``using`` lines in force at the call (indexer/scope_cpp.py).
        ``fields``: ``written`` is a call through fields (bind_c.FIELD_VIA)."""
        key = (path, name, written, usings, fields)
        found = self._c_links.get(key)
        if found is None:
            follow = self.c.through_fields if fields else self.c.link
            binding, via, row, others = follow(path, name, written, usings)
            found = Link(binding, via, row, row["path"] if row else None, others)
            self._c_links[key] = found
        return found

    # -- chains: values through holders ---------------------------------------

    def through_values(
        self, path: str, chain: str, called: bool = False, read: bool = False
    ) -> list[Row]:
        """The definitions a chain ends at, walked over holders; [] if none.
        ``called``: an instance it ends at is called, its ``__call__``;
        ``read``: the member its last step names is the answer, not what the
        member holds or returns (`param.nargs` reads Parameter.nargs,
        whatever flows in; `t.connect` the property, whatever it returns)."""
        out: dict[str, Row] = {}
        self._walked = []
        for kind, where, row in self.evaluate(path, chain, 0, read):
            if kind == "instance" and called and row is not None:
                cls = row["qualname"]
                row, kind = self.find(where, f"{cls}.__call__"), "def"
                if row is not None:
                    self._walked.append(f"calling a {cls} runs {row['qualname']}")
            if kind == "def" and row is not None:
                out.setdefault(row["symbol_id"], row)
        return list(out.values())

    def evaluate(self, path: str, chain: str, hops: int, read: bool = False) -> list[_Value]:
        """What a chain may evaluate to; ``read``: its last step is read
        (through_values)."""
        tokens = chains.steps(chain) if chain else []
        if chain and not tokens:
            return []
        values: list[_Value] = [("module", path, None)]
        i = 0
        # the leading names at once: find() follows re-exports and bases
        names = []
        # (a name just before an element step is the holder it reads: kept)
        while (
            i < len(tokens)
            and tokens[i] != chains.CALL
            and not chains.is_contents(tokens[i])
            and not _contents_next(tokens, i)
        ):
            names.append(tokens[i])
            i += 1
        if names:
            row = self.find(path, ".".join(names))
            if row is None and path.endswith(".cs"):
                row = self._csharp_head(path, names)
            if row is not None:
                values = self.of_row(row, hops)
            else:
                i = 0
        while i < len(tokens):
            after: list[_Value] = []
            limit = MAX_UNION_MEMBERS if _unions(values, tokens[i]) else MAX_VALUES
            if tokens[i : i + 3] == _ENTER:  # `with f() as x`
                for v in values:
                    after.extend(self.entered(v, hops))
                i += 3
            elif _contents_next(tokens, i):  # `users.[]`, `open().?`
                for v in values:
                    after.extend(self.contents(v, tokens[i], tokens[i + 1], hops))
                i += 2
            elif (skip := _item_read_next(tokens, i)) and (
                got := [
                    x
                    for v in values
                    for x in self._declared_contents(v, tokens[i], chains.ITEM, hops)
                ]
            ):  # `by_name.get(k)`, `for u in by_name.values()`: an item, as `by_name[k]`
                # of a mapping so annotated (a class's own `get` is its method)
                after = got
                i += skip
            else:
                last = i == len(tokens) - 1
                for v in values:
                    field = self.field(v, tokens[i]) if read and last else None
                    after.extend([field] if field else self.step(v, tokens[i], hops))
                if (
                    all(kind == "builtin" for kind, _p, _r in after)  # none, or a str's
                    and not hops
                    and tokens[i] != chains.CALL
                    and (last or tokens[i + 1] == chains.CALL)
                ):
                    # the member a claim names, on classes that define no such
                    # member: a base's from outside, if one has such a base (an
                    # attribute on the way may be set by a subclass: not judged);
                    # a method called on the way too (`client.get().json()` on
                    # a TestClient of httpx's Client: what it returns is that
                    # outside code's), not an attribute (`self.stack.close()`:
                    # `stack` may be set in a method, never declared)
                    outside = self.inherited_from_outside(values, tokens[i], read and last, last)
                    self._outside = outside or self._outside
                i += 1
            values = _unique(after)
            if not values or len(values) > limit:
                return []
        return values

    def contents(self, value: _Value, before: str, token: str, hops: int) -> list[_Value]:
        """An element (``.[]``) or item (``.[i]``) of ``before`` (an attribute,
        a name, or ``()``: a call) of ``value``, read from the holder
        annotated as a container: ``C.users.[]``, ``USERS.[]``, ``f().[]``;
        a position (``.[1]``) from the holder of that position, else of an
        item (``xs[0]`` of ``xs: list[User]``). Where none is annotated, and
        ``before`` gives an instance of a Python class of the repository:
        what its special methods give (``for row in Table()``)."""
        declared = self._declared_contents(value, before, token, hops)
        if declared or token == chains.UNWRAP:
            return declared
        return [
            got
            for made in self.step(value, before, hops)
            for got in self._protocol_contents(made, token, hops)
        ]

    def _protocol_contents(self, value: _Value, token: str, hops: int) -> list[_Value]:
        """An element of a Python instance: what its class's ``__iter__``
        yields or is annotated to give (``-> Iterator[Row]``), else what
        ``__next__`` returns of the iterator ``__iter__`` returns (itself,
        often); an item or a position: what ``__getitem__`` returns."""
        kind, path, row = value
        if kind != "instance" or row is None or row["kind"] not in CLASS_KINDS:
            return []
        if row.get("language") != "python":
            return []
        method = "__iter__" if token == chains.ELEMENT else "__getitem__"
        found = self.find(path, f"{row['qualname']}.{method}")
        if found is None:
            return []
        returned = chains.holder_of_return(str(found["qualname"]))
        if method == "__getitem__":
            return self.held(found["path"], returned, hops + 1)
        elements = self.held(found["path"], f"{returned}.{chains.ELEMENT}", hops + 1)
        if elements:
            return elements
        out = []
        for k, where, iterator in self.held(found["path"], returned, hops + 1):
            if k == "instance" and iterator is not None and iterator["kind"] in CLASS_KINDS:
                step = self.find(where, f"{iterator['qualname']}.__next__")
                if step is not None:
                    out += self.held(
                        step["path"], chains.holder_of_return(step["qualname"]), hops + 1
                    )
        return _unique(out)

    def _declared_contents(self, value: _Value, before: str, token: str, hops: int) -> list[_Value]:
        kind, path, row = value
        steps = ["." + token]
        if token not in chains.CONTENTS:  # a position
            steps.append("." + chains.ITEM)

        def held(where: str, holder: str) -> list[_Value]:
            for step in steps:
                found = self.held(where, holder + step, hops)
                if found:
                    return found
            return []

        if before == chains.CALL:
            if kind == "def" and row is not None and row["kind"] not in CLASS_KINDS:
                return held(path, row["qualname"] + chains.CALL)
            return []
        if kind == "module":
            found = self.find(path, before)
            if found is not None:
                return held(found["path"], found["qualname"])
            return held(path, before)
        if row is None or row["kind"] not in CLASS_KINDS:
            return []
        for cls in [row, *self.lineage(path, row["qualname"])]:
            member = f"{cls['qualname']}.{before}"
            # an attribute annotated as a container, else a property whose
            # getter is (`-> list[Item]`): what reading it returns holds
            got = held(cls["path"], member) or held(cls["path"], member + chains.CALL)
            if got:
                return got
        return []

    def entered(self, value: _Value, hops: int) -> list[_Value]:
        """``value().__enter__()``: for a function that is a context manager
        (``@contextmanager``), what it yields; else step by step."""
        kind, path, row = value
        if kind == "def" and row is not None and row["kind"] not in CLASS_KINDS:
            yielded = self.held(path, chains.holder_of_enter(row["qualname"]), hops)
            if yielded:
                return yielded
        for enter in (_ENTER, _AENTER):  # `async with` reaches __aenter__
            out = [value]
            for token in enter:
                out = [after for v in out for after in self.step(v, token, hops)]
            if out:
                return out
        return []

    def field(self, value: _Value, token: str) -> _Value | None:
        """The member ``token`` names on the class or instance ``value`` (a
        field, a property, a method read without a call), None for anything
        else: a read names what it reads, not what reading it gives."""
        kind, path, row = value
        if kind not in ("def", "instance") or row is None or row["kind"] not in CLASS_KINDS:
            return None
        member = self.find(path, f"{row['qualname']}.{token}")
        return ("def", member["path"], member) if member is not None else None

    def of_row(self, row: Row, hops: int) -> list[_Value]:
        """A definition as a value; a variable is what it holds (itself where
        it holds no definition: _or_itself)."""
        if row["kind"] in VARIABLE_KINDS:
            return _or_itself(self.held(row["path"], row["qualname"], hops), row)
        return [("def", row["path"], row)]

    def step(self, value: _Value, token: str, hops: int) -> list[_Value]:
        kind, path, row = value
        if kind == "builtin":
            if token != chains.CALL:  # a method of it, read until it is called
                return [("builtin", f"{path}:{token}", None)]
            # `EventDict = MutableMapping[str, Any]` then `e: EventDict`; what
            # `URL.match(s)` gives, of `URL = re.compile(...)` in another file
            made = builtins_python.result_of(path)
            return [("builtin", made, None)] if made else []
        if token == chains.CALL:
            if kind != "def" or row is None:
                if kind == "instance" and row is not None:  # an instance's __call__
                    called = f"{row['qualname']}.{chains.CALLED_ITSELF}"
                    call = self.find(path, called)
                    if call is not None:
                        return self.held(call["path"], call["qualname"] + chains.CALL, hops)
                    # a TypeScript call signature: a return fact, no definition
                    return self.held(row["path"], called + chains.CALL, hops)
                return []
            if row["kind"] == "type" and (
                union := self.held(path, row["qualname"] + chains.CALL, hops, MAX_UNION_MEMBERS)
            ):  # TypeScript's `type Shape = Circle | Square`: one of those (flow_js.py)
                return union
            if row["kind"] in CLASS_KINDS:
                return [("instance", path, row)]
            return self.held(path, row["qualname"] + chains.CALL, hops)
        if kind == "module":
            found = self.find(path, token)
            if found is not None:
                return self.of_row(found, hops)
            held = self.held(path, token, hops)
            sub = self.submodule(path, token) if not held else None
            return [("module", sub, None)] if sub is not None else held
        if row is not None and row["kind"] not in CLASS_KINDS:
            # an attribute of a function or constant: only one a holder of
            # its own names (what React's `createContext<T>()` holds, flow_js.py)
            return self.held(path, f"{row['qualname']}.{token}", hops)
        if row is None:
            return []
        member = self.find(path, f"{row['qualname']}.{token}")
        if member is not None:
            # a property's value is what its getter returns; a field's, what it
            # holds (Go's `Context.Writer` is a ResponseWriter)
            if member["kind"] in VARIABLE_KINDS:
                return _or_itself(self.held(member["path"], member["qualname"], hops), member)
            if kind == "instance":
                # a getter that returns a field (`return self._expand`) gives
                # what the field holds, not the field: the read names the property
                held = [
                    v
                    for v in self.held(member["path"], member["qualname"], hops)
                    if v[0] != "def" or v[2] is None or v[2]["kind"] not in VARIABLE_KINDS
                ]
                if held:
                    return held
            return [("def", member["path"], member)]
        for cls in [row, *self.lineage(path, row["qualname"])]:
            held = self.held(cls["path"], f"{cls['qualname']}.{token}", hops)
            if held:
                return held
        return []

    def inherited_from_outside(
        self, values: list[_Value], member: str, read: bool = False, last: bool = True
    ) -> str:
        """Why ``member`` of these classes or instances, defined by none of
        them, is a base's outside the repository (``client.get()`` on a
        FlaskClient, werkzeug's ``Client.get``), in words; "" if none has such
        a base. ``read``: the member is read, not called, and the abstract
        bases of typing and collections.abc hold no data a read could reach
        (`self._dict` in a `Mapping[str, str]` is the class's own). A
        builtin value's method only as the ``last`` step: what
        ``self.cache.get(k)`` returns is an item, maybe the repository's."""
        for kind, path, row in values:
            if kind == "builtin" and last:  # `self.lines.append()`, `self.lines = []`
                if "." in path:  # `self.session = requests.Session()`
                    return f"{member} of {path}, outside the repository"
                return f"{member} of {path}, a builtin type"
            if row is None or row["kind"] not in CLASS_KINDS:
                continue
            for cls in [row, *self.lineage(path, row["qualname"])]:
                outside = self._outside_base(cls["path"], cls["qualname"], read)
                if outside:
                    where = f"a base of {cls['qualname']} outside the repository"
                    return f"{member} of {outside}, {where}"
        return ""

    def held(self, path: str, holder: str, hops: int, limit: int = MAX_VALUES) -> list[_Value]:
        """What a holder of ``path`` may hold: each of its value rows' chains;
        none when they are more than ``limit``."""
        key = (path, holder)
        if key in self._held and hops >= self._cut_at.get(key, 0):
            self._outside = self._outside or self._held_outside.get(key, "")
            self._cut = self._cut or key in self._cut_at
            return self._note(key, _at_most(self._held[key], limit))
        if hops >= MAX_HOPS:
            self._cut = True
            return []
        outer_cut, self._cut = self._cut, False
        outer_outside, self._outside = self._outside, ""
        self._held[key] = []  # a holder that holds itself (`def f(): return f()`)
        out: list[_Value] = []
        for e in self.edges(path):
            if e["kind"] != "value" or e["source"] != holder or not e.get("resolved_path"):
                continue
            where, held = str(e["resolved_path"]), e.get("target_qualname") or ""
            if held.startswith(chains.BUILTIN):  # `self.lines = []`: a list
                if not self._enum_member(path, holder):
                    out.append(("builtin", held[len(chains.BUILTIN) :], None))
                continue
            found = self.evaluate(where, held, hops + 1)
            if not found and where.endswith(".cs") and held and not chains.is_chain(held):
                # a C# type claimed in the namespace around the member that
                # holds or returns it: the file's usings name the others
                row = self.through_namespaces(where, held, held.rsplit(".", 1)[-1])
                found = self.of_row(row, hops + 1) if row is not None else []
            if found:
                self._trail.setdefault(key, e.get("via") or holder)
            out.extend(found)
        result = _at_most(_unique(out), MAX_UNION_MEMBERS)  # kept for any limit
        self._held[key] = result
        if self._cut:  # linked first from deep in a chain: walked again from nearer
            self._cut_at[key] = hops
        else:
            self._cut_at.pop(key, None)
            if self._outside:
                self._held_outside[key] = self._outside
        self._cut = self._cut or outer_cut
        self._outside = outer_outside or self._outside
        return self._note(key, _at_most(result, limit))

    def _enum_member(self, path: str, holder: str) -> bool:
        """Whether ``holder`` is an attribute of an enum class (``SLB = '"'``
        in a ``class StringType(Enum)``, or in a subclass of one): its value
        is a member, an instance of the class, not the literal it is given."""
        owner = holder.rpartition(".")[0]
        cls = self.find(path, owner) if owner and not chains.is_chain(owner) else None
        if cls is None or cls["kind"] not in CLASS_KINDS:
            return False
        return any(
            base.rpartition(".")[2].endswith(_ENUM_BASES)  # every base from outside, not the first
            for c in [cls, *self.lineage(path, owner)]
            for base in self._outside_bases(str(c["path"]), str(c["qualname"]))
        )

    def _note(self, key: tuple[str, str], values: list[_Value]) -> list[_Value]:
        words = self._trail.get(key)
        if values and words and words not in self._walked:
            self._walked.append(words)
        return values

    def _inherited_method(self, field: Row) -> Row | None:
        """The method of a field's name that its class inherits, if any."""
        owner, _, member = str(field["qualname"]).rpartition(".")
        for base in self.mro(str(field["path"]), owner, 0)[1:]:
            hit = self.defs(base["path"]).get(f"{base['qualname']}.{member}")
            if hit is not None and hit["kind"] in ("method", "function"):
                return hit
        return None

    def lineage(self, path: str, cls: str) -> list[Row]:
        """The bases of a class, in resolution order."""
        return self.mro(path, cls, 0)[1:]

    def mro(self, path: str, cls: str, depth: int) -> list[Row]:
        """The class and its bases linearised as Python does (C3), over the
        bases found in the repository; depth-first where C3 has no order (a
        base missing from the repository can make a consistent hierarchy
        look inconsistent)."""
        key = (path, cls)
        found = self._mros.get(key)
        if found is not None:
            return found
        own = self.defs(path).get(cls)
        if own is None:
            return []
        self._mros[key] = [own]  # a cycle (`class A(B)`, `class B(A)`) ends here
        if depth > MAX_DEPTH:
            return [own]
        heads = [
            self.mro(b["path"], b["qualname"], depth + 1) for b in self.bases(path, cls, depth)
        ]
        heads = [h for h in heads if h]
        merged = _c3([*[list(h) for h in heads], [h[0] for h in heads]])
        if merged is None:
            merged = []
            for h in heads:
                merged.extend(r for r in h if r not in merged)
        result = [own, *(r for r in merged if r is not own)]
        self._mros[key] = result
        return result

    def extension(self, cls: str, member: str, via: str, csharp: bool = False) -> Link | None:
        """``x.M()`` on an ``x`` of type ``cls`` that defines no ``M``: the C#
        extension method ``M(this cls x)`` (with ``csharp``, also ``this Icls
        x``: the interface C# names after the class that implements it), or
        the Kotlin extension function ``fun cls.M()``, of the repository, by
        the facts their files hold (holder chains.EXTENDS). Bound when they
        are all in one class or file (overloads); None when there is none."""
        simple = cls.rsplit(".", 1)[-1]
        names = (simple, f"I{simple}") if csharp else (simple,)
        key = (names, member)
        if key not in self._extensions:
            self._extensions[key] = self._extensions_of(names, member)
        found = self._extensions[key]
        if not found:
            return None
        owners = {(r["path"], r["qualname"].rpartition(".")[0]) for r in found}
        if len(owners) > 1:
            words = f"{via}; {len(owners)} places extend {simple} with {member}: not provable"
            return Link("candidate", words)
        first, *others = sorted(found, key=lambda r: (r["path"], r["start_line"]))
        where = first["qualname"].rpartition(".")[0] or first["path"]
        words = f"{via}; an extension of {simple}, in {where}"
        return Link("bound", words, first, first["path"], tuple(others))

    def ruby_core(self, qual: str, via: str) -> Link:
        """``arr.push(x)`` of ``arr = []``, ``Hash.new``: Ruby's own, unless
        files of the repository reopen the class with a method of the name
        (``class String; def squish``), wherever they are loaded from: that
        one if one file does, a candidate if several do."""
        cls, _, member = qual.partition(".")
        reopened = [
            r
            for r in self.c.named(member.rsplit(".", 1)[-1])
            if str(r["path"]).endswith(".rb") and r["qualname"] == qual
        ]
        if not reopened:
            return Link("external", f"{via}; {cls} is Ruby's")
        if len({r["path"] for r in reopened}) > 1:
            return Link("candidate", f"{via}; {len(reopened)} files reopen {cls} with it")
        first = reopened[0]
        return Link("bound", f"{via}, reopened in {first['path']}", first, first["path"])

    def _rust_extended(self, cls: str, member: str) -> bool:
        """Whether a Rust definition of the repository may give ``cls`` (a
        type of the language, ``str``, ``Vec``) the method ``member``: one
        of a trait, of an impl on ``cls`` itself, or one no type owns (an
        impl on a type the extractor does not name)."""
        for r in self.c.named(member):
            if not str(r["path"]).endswith(".rs") or r["name"] != member:
                continue
            owner = str(r["qualname"]).rpartition(".")[0]
            if not owner or owner == cls:
                return True
            trait = self.defs(str(r["path"])).get(owner)
            if trait is not None and trait["kind"] == "interface":
                return True
        return False

    def _extensions_of(self, names: tuple[str, ...], member: str) -> list[Row]:
        """The definitions named ``member`` that extend a type of one of
        these ``names`` (none: of any type), by their files' facts."""
        holders = {f"{chains.EXTENDS}{name}" for name in names}
        found = []
        for r in self.c.named(member):
            if r["kind"] not in ("method", "function") or r["name"] != member:
                continue
            if any(
                e["kind"] == EdgeKind.VALUE
                and (e["source"] in holders if names else e["source"].startswith(chains.EXTENDS))
                and e.get("target_qualname") == r["qualname"]
                for e in self.edges(r["path"])
            ):
                found.append(r)
        return found

    def through_namespaces(self, path: str, qual: str, tail: str) -> Row | None:
        """A C# type (``Repository``) or its member (``Repository.Find``)
        claimed in the file's namespace as ``qual`` and not in its folder:
        the namespace's definition anywhere in the repository (a namespace
        may span folders), else the namespaces around it, innermost first,
        else a namespace one of the file's ``using`` lines names, in the
        folder it resolves to or anywhere, or the type an alias names."""
        hit = self._csharp_named(path, qual)
        if hit is not None:
            return hit
        # the namespaces around it, innermost first, before any `using`:
        # `Acme.Json.Tests` sees `Acme.Json`'s types without one
        namespace = qual[: -len(tail) - 1] if tail and qual.endswith(f".{tail}") else ""
        head, dot, rest = tail.partition(".")  # the type, and its member
        parts = namespace.split(".") if namespace else []
        for k in range(len(parts) - 1, -1, -1):
            # ... out to the global namespace: serilog's `static class Guard`
            # in no namespace is every file's `Guard`
            outer = ".".join(parts[:k])
            spelled = f"{outer}.{head}" if outer else head
            found = self._csharp_named(path, spelled)
            if found is not None:  # the first namespace out that has the type
                if not rest:
                    return found
                # a partial class's member may be in any of its files (Polly's
                # `Policy` has twelve, in three folders), else a base's
                member = f"{spelled}{dot}{rest}"
                return self._csharp_named(path, member) or self.find(str(found["path"]), member)
        for e in self.csharp_usings(path):
            spelled = f"{e['module']}.{tail}"
            if e.get("alias"):  # `using Check = Acme.XAssert;`: Check.Same is XAssert.Same
                if e["alias"] != head:
                    continue
                spelled = f"{e['module']}{dot}{rest}"
            if e.get("resolved_path"):
                hit = self.find(str(e["resolved_path"]), spelled)
            hit = hit or self._csharp_named(path, spelled)
            if hit is not None:
                return hit
        return None

    def _csharp_head(self, path: str, names: list[str]) -> Row | None:
        """The type (or its member) a C# chain starts at, claimed in the
        namespace around it (``Serilog.Tests.LoggerConfiguration().WriteTo``):
        looked up as ``through_namespaces`` does, from the namespace of the
        file's types that ``names`` starts with (the innermost first)."""
        defs = self.defs(path)
        namespaces = {
            q.rpartition(".")[0] for q, r in defs.items() if r["kind"] in CLASS_KINDS
        } - set(defs)  # `Outer` of `Outer.Inner` is a type, no namespace
        qual = ".".join(names)
        for k in range(len(names) - 1, 0, -1):
            if ".".join(names[:k]) in namespaces:
                return self.through_namespaces(path, qual, ".".join(names[k:]))
        return None

    def csharp_usings(self, path: str) -> list[Row]:
        """A C# file's using rows, then the ``global using`` rows of its
        project's other files (C# 10: serilog's GlobalUsings.cs imports
        Serilog.Events for every file of src/Serilog), aliases first (C#
        reads a name's alias before the namespaces the usings import); read
        once a file."""
        found = self._usings.get(path)
        if found is None:
            rows = [
                e
                for e in self.edges(path)
                if e["kind"] == "import" and e.get("module") and str(e["path"]).endswith(".cs")
            ]
            if self._global_usings is not None:
                project = self._csharp_project(posixpath.dirname(path))
                rows += [
                    e
                    for e in self._global_usings()
                    if e["path"] != path
                    and (
                        msbuild.reaches(str(e["path"]), project or posixpath.dirname(path))
                        if msbuild.is_project_file(str(e["path"]))
                        else str(e["path"]).endswith(".cs")
                        and self._csharp_project(posixpath.dirname(str(e["path"]))) == project
                    )
                ]
            found = self._usings[path] = sorted(rows, key=lambda e: not e.get("alias"))
        return found

    def _csharp_project(self, folder: str) -> str:
        """The folder of the ``.csproj`` nearest above ``folder`` ("": none,
        the repository is one project)."""
        found = self._projects.get(folder)
        if found is None:
            files = self._files_in(folder) if self._files_in is not None else []
            if any(f.endswith(".csproj") for f in files):
                found = folder
            else:
                found = self._csharp_project(posixpath.dirname(folder)) if folder else ""
            self._projects[folder] = found
        return found

    def php_function(self, path: str, qual: str, via: str) -> Link:
        """A PHP function by its namespaced name (indexer/bind_php.py), else
        the global one of its last name where PHP falls back to it: defined
        anywhere in the repository (two files that each declare it under
        `if (!function_exists(...))`: the nearer one); defined nowhere, it
        is PHP's own or an extension's. Outside the tests, a function only
        tests define (tests/mock.php's `function add_filter()`) is not the
        one that runs."""
        fallback = via.partition(bind_php.ELSE_GLOBAL)[2]
        mocked = ""
        for wanted in (qual, fallback) if fallback else (qual,):
            rows = [
                r
                for r in self.c.named(wanted)
                if r["qualname"] == wanted
                and r["kind"] == "function"
                and r["path"].endswith(".php")
            ]
            running = rows if is_test(path) else [r for r in rows if not is_test(r["path"])]
            if running:
                found = _nearest(running, path)
                return Link(
                    "bound", f"{via}, then {wanted} in {found['path']}", found, found["path"]
                )
            mocked = mocked or (wanted if rows else "")
        if mocked:
            return Link("candidate", f"{via}; {mocked} is defined only by tests")
        return Link("external", f"{via}: no function of the repository has the name")

    def _csharp_named(self, path: str, qual: str) -> Row | None:
        """The C# definition whose qualified name is ``qual``, anywhere; the
        nearest to ``path`` if two projects define it."""
        rows = [
            r for r in self.c.named(qual) if r["qualname"] == qual and r["path"].endswith(".cs")
        ]
        return _nearest(rows, path) if rows else None

    def package_of(self, path: str) -> list[str]:
        """The other files of ``path``'s folder in its language (Go, C#),
        Go's test files last."""
        folder = posixpath.dirname(path)
        suffix = posixpath.splitext(path)[1]
        found = self._packages.get((folder, suffix))
        if found is None:
            files = self._files_in(folder) if self._files_in is not None else []
            found = sorted(
                (f for f in files if f.endswith(suffix)), key=lambda f: (f.endswith("_test.go"), f)
            )
            self._packages[(folder, suffix)] = found
        return [f for f in found if f != path]

    def after_bases(self, path: str, qual: str, via: str) -> Link:
        """A bare Kotlin call in a class with a base, which no class of its
        lineage defines (``qual``: the class and the name): the package's
        top-level function, once every base is known. A base outside the
        repository, or one not found, may have the member, which Kotlin
        would call first: then a candidate."""
        cls, _, name = qual.rpartition(".")
        for r in self.mro(path, cls, 0):
            unknown = self._unknown_base(r)
            if unknown:
                return Link(
                    "candidate", f"{via}; {unknown}, a base not in the index, may have {name}"
                )
        found = self.find(path, name)
        if found is None and bind_kotlin.is_default(name, bind_kotlin.PACKAGE_VIA):
            return Link("external", f"{via}; not in the package: kotlin's")
        if found is None:
            return Link("candidate", f"{via}; {name} not found in {posixpath.dirname(path) or '.'}")
        return Link("bound", f"{via}, in {found['path']}", found, found["path"])

    def _unknown_base(self, cls: Row) -> str:
        """The first base of ``cls`` written but not linked to a class of the
        repository (outside it, or an unresolved name); "" if none."""
        key = (cls["path"], cls["qualname"])
        if key not in self._unknown_bases:
            self._unknown_bases[key] = self._first_unknown_base(cls)
        return self._unknown_bases[key]

    def _first_unknown_base(self, cls: Row) -> str:
        for e in self.edges(cls["path"]):
            if e["kind"] != "inherit" or e.get("source") != cls["qualname"]:
                continue
            where, qual = e.get("resolved_path"), e.get("target_qualname") or ""
            if e.get("binding") != "bound" or not where or self.find(where, qual) is None:
                return str(e["target"])
        return ""

    def _outside_base(self, path: str, owner: str, read: bool = False) -> str:
        """The first base of class ``owner`` (of ``path``) that resolves
        outside the repository, as written; "" if none does. ``read``: not
        an abstract base that holds no data (_ABSTRACT_BASES)."""
        return next(iter(self._outside_bases(path, owner, read)), "")

    def _outside_bases(self, path: str, owner: str, read: bool = False) -> list[str]:
        """Every base of class ``owner`` that resolves outside the
        repository, as written, in order (``read``: as _outside_base).
        Kept per class: every holder walk asks (_enum_member), and a
        re-exported base costs a find()."""
        key = (path, owner, read)
        if key not in self._bases_outside:
            self._bases_outside[key] = self._walk_outside_bases(path, owner, read)
        return self._bases_outside[key]

    def _walk_outside_bases(self, path: str, owner: str, read: bool) -> list[str]:
        out = []
        for e in self.edges(path):
            if e["kind"] != "inherit" or e.get("source") != owner:
                continue
            if e["binding"] == "external":
                module = e.get("module")
            elif e["binding"] == "bound" and e.get("resolved_path"):
                # `class D(MutableMapping)` of `from .compat import MutableMapping`,
                # which compat.py imports from collections.abc
                module = self._reexported_from_outside(
                    str(e["resolved_path"]), str(e.get("target_qualname") or "")
                )
                if not module:
                    continue
            else:
                continue
            if not (read and module in _ABSTRACT_BASES):
                out.append(str(e["target"]))
        return out

    def _reexported_from_outside(self, path: str, qual: str) -> str:
        """The module outside the repository that ``path`` imports ``qual``
        from (a re-export), "" if it defines it or does not import it so.
        find() says so only as a side effect on _outside (kept as it was)."""
        saved, self._outside = self._outside, ""
        try:
            found = self.find(path, qual) if qual else None
            word = "imported from "
            return (
                self._outside[len(word) :]
                if found is None and self._outside.startswith(word)
                else ""
            )
        finally:
            self._outside = saved

    def bases(self, path: str, owner: str, depth: int) -> list[Row]:
        """The classes ``owner`` (a class of ``path``) derives from, linked;
        a C# partial class's from each of its parts in the folder."""
        parts = [path]
        if path.endswith(".cs"):
            parts += [f for f in self.package_of(path) if owner in self.defs(f)]
        out = []
        for e in (e for f in parts for e in self.edges(f)):
            if e["kind"] != "inherit" or e.get("source") != owner:
                continue
            if e.get("binding") != "bound" or not e.get("resolved_path"):
                continue
            base = self.find(e["resolved_path"], e.get("target_qualname") or "", False, depth + 1)
            if base is not None:
                out.append(base)
        return out


def table_linker(
    symbols: list[Row], edges: list[Row], files: Iterable[str] = (), usings: Iterable[Row] = ()
) -> Linker:
    """A linker over whole tables (dump): every file's rows grouped once;
    ``files``: the tree's other files (a C# project's ``.csproj``);
    ``usings``: the global using rows of its project files (indexer/msbuild.py)."""
    by_path: dict[str, list[Row]] = {}
    for s in symbols:
        by_path.setdefault(s["path"], []).append(s)
    edges_by_path: dict[str, list[Row]] = {}
    for e in edges:
        if e["kind"] in LINKED:
            edges_by_path.setdefault(e["path"], []).append(e)
    folders: dict[str, list[str]] = {}
    for p in dict.fromkeys([*by_path, *files]):
        folders.setdefault(posixpath.dirname(p), []).append(p)
    by_name: dict[str, list[Row]] = {}
    for s in symbols:
        by_name.setdefault(s["name"], []).append(s)
    includers: dict[str, list[str]] = {}
    for e in edges:
        if e["kind"] == "import" and e["resolved_path"] and e["language"] in bind_c.LANGUAGES:
            includers.setdefault(e["resolved_path"], []).append(e["path"])
    global_usings = [e for e in edges if e["target"] == bind_csharp.GLOBAL_USING] + list(usings)
    return Linker(
        lambda p: by_path.get(p, []),
        lambda p: edges_by_path.get(p, []),
        lambda folder: folders.get(folder, []),
        lambda name: by_name.get(name, []),
        lambda p: includers.get(p, []),
        global_usings=lambda: global_usings,
    )


def _contents_next(tokens: list[str], i: int) -> bool:
    """Whether the step after ``tokens[i]`` reads its contents (``.[]``,
    ``.[i]``, ``.?``): the two are read together."""
    return i + 1 < len(tokens) and chains.is_contents(tokens[i + 1])


# a promise's own methods, and the languages whose functions' returns the
# flow holds awaited (indexer/flow_js.py)
_PROMISE_METHODS = frozenset({"then", "catch", "finally"})
_AWAITED = frozenset({"javascript", "typescript", "tsx"})


def _awaited_then(path: str, chain: str) -> bool:
    """Whether ``chain`` calls ``then``/``catch``/``finally`` on what a JS or
    TS function returns (``load().then``), which no class of the repository
    the value may be defines: the call is the Promise's."""
    head, _, member = chain.rpartition(".")
    return (
        member in _PROMISE_METHODS
        and head.endswith(chains.CALL)
        and languages.language_for(path) in _AWAITED
    )


def _item_read_next(tokens: list[str], i: int) -> int:
    """How many tokens from ``tokens[i]`` read an item of it through a
    method (``by_name.get()``: 3, ``by_name.values().[]``: 4); 0 if none do."""
    if tokens[i + 1 : i + 2] and tokens[i + 1] in chains.ITEM_GETTERS:
        return 3 if tokens[i + 2 : i + 3] == [chains.CALL] else 0
    if tokens[i + 1 : i + 4] == [chains.ITEMS_VIEW, chains.CALL, chains.ELEMENT]:
        return 4
    return 0


def _at_most(values: list[_Value], limit: int) -> list[_Value]:
    """``values``, or none when they are more than ``limit``: a value that
    may be one of many names no definition worth binding to."""
    return values if len(values) <= limit else []


def _unions(values: list[_Value], token: str) -> bool:
    """Whether ``token`` instantiates type aliases only (``Shape()`` of
    ``type Shape = Circle | Square``): a declared union's members."""
    return token == chains.CALL and all(
        kind == "def" and row is not None and row["kind"] == "type" for kind, _path, row in values
    )


def _unique(values: list[_Value]) -> list[_Value]:
    seen: set[tuple[str, str, str]] = set()
    out = []
    for kind, path, row in values:
        key = (kind, path, row["symbol_id"] if row is not None else "")
        if key not in seen:
            seen.add(key)
            out.append((kind, path, row))
    return out


def _c3(sequences: list[list[Row]]) -> list[Row] | None:
    """C3 merge of base linearisations; None when they are inconsistent."""
    seqs = [list(s) for s in sequences if s]
    out: list[Row] = []
    while seqs:
        for seq in seqs:
            head = seq[0]
            if not any(head is r for s in seqs for r in s[1:]):
                break
        else:
            return None
        out.append(head)
        seqs = [s[1:] if s[0] is head else s for s in seqs]
        seqs = [s for s in seqs if s]
    return out


def _rank(row: Row) -> int:
    """Which of a file's definitions of one qualname its name means: a
    method before a field of its name (Java's `size` and `size()`, PHP's
    `$name` and `name()`), since only calls and bases are rows outside
    Python; a Rust function before the module of its name (`mod search;`
    beside `fn search`)."""
    return 1 if row["kind"] in VARIABLE_KINDS or row["kind"] == "module" else 0


def _exported_as(e: Row, path: str) -> bool:
    """A value row that gives another name to a definition of its own file
    (flow_js.EXPORT_ALIAS)."""
    return (
        e.get("resolved_path") == path
        and bool(e.get("target_qualname"))
        and str(e.get("via", "")).startswith(f"{EXPORT_ALIAS} {{ ")
    )


def _or_itself(held: list[_Value], variable: Row) -> list[_Value]:
    """What a variable (or field) stands for in a chain: the definitions it
    holds (`handler = f`: f); where it holds only instances (`self.cli =
    AppGroup()`), those for the steps after it and the variable itself for
    a chain that ends at it (`runner.app.cli` names the field cli)."""
    if any(kind == "def" for kind, _path, _row in held):
        return held
    return [*held, ("def", variable["path"], variable)]


def _nearest(rows: list[Row], path: str) -> Row:
    """Of definitions in several files, the one whose path shares the most
    of ``path``'s folders (the same project's)."""
    return max(rows, key=lambda r: (len(posixpath.commonprefix([r["path"], path])), r["path"]))
