"""C and C++ calls bound through the include graph, when the index is read.

A call the file does not define is stored as a claim on the file
(indexer/bind_c.py); here it is followed through the file's includes, over
the view the Linker (query/link.py) reads: the first file of the include
closure that defines the name or declares it with a prototype gives the
binding, a prototype standing for every definition of the name with
external linkage; a file that sees neither is read as its includers see it;
failing that, the one definition with external linkage in the repository.

A C++ member call through a field another file declares is followed field
by field (``through_fields``): the class as the calling file sees it, the
field's declared type from that class's ``value`` rows (or a base's), and so
on to the member. The bulk reads are query/include_rows.py's.

Over 400 lines as one concept: one lookup of a name through the include
graph, and the C++ ways a name reaches further (scopes outward, bases,
fields, a namespace a macro opens), which all walk the same closure and
share its caches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from freshindex.indexer import bind_c, pointers_cpp, receivers_cpp, scope_cpp
from freshindex.indexer.schema import EdgeKind
from freshindex.query.include_rows import IncludeGraph

Row = dict[str, Any]
# a member is looked for this many classes up its bases, in at most this
# many bases of each class
MAX_BASE_DEPTH = 4
MAX_BASES = 8
_CLASSES = ("class", "struct")
# (binding, via, the definition, the other definitions of its group)
Found = tuple[str, str, "Row | None", tuple[Row, ...]]


class IncludeLinker:
    """One view's include graph and the C definitions and prototypes in it.
    ``defs(path)`` and ``edges(path)`` read one file's rows (the Linker's,
    cached); the other callables are described at Linker."""

    def __init__(
        self,
        defs: Callable[[str], dict[str, Row]],
        edges: Callable[[str], list[Row]],
        named: Callable[[str], list[Row]] | None,
        includers: Callable[[str], list[str]] | None,
        include_graph: Callable[[], IncludeGraph] | None,
        declared_in: Callable[[str], frozenset[str]] | None,
    ):
        self.defs = defs
        self.edges = edges
        self._named = named
        self._includers = includers
        self._include_graph = include_graph
        self._graph: IncludeGraph | None = None
        self._declared_in = declared_in
        self._facts: dict[str, tuple[Callable[[str], Row | None], Callable[[str], bool]]] = {}
        self._by_name: dict[str, list[Row]] = {}
        self._declared: dict[str, frozenset[str]] = {}
        self._parents: dict[str, list[str]] = {}
        self._namespace_macros: dict[tuple[str, str], str | None] = {}

    def include_closure(self, path: str) -> Iterator[str]:
        """The file and every file it includes, transitively, nearest first
        (bounded: MAX_INCLUDE_DEPTH levels, MAX_INCLUDED_FILES files), made
        as it is read: a lookup stops at the first file that has the name,
        a few levels down, instead of walking the whole closure (hundreds
        of headers for a kernel file; thousands of calling files a query)."""
        yield path
        seen = {path}
        frontier = [path]
        for _depth in range(bind_c.MAX_INCLUDE_DEPTH):
            following = []
            for f in frontier:
                for target in self.includes(f):
                    if target in seen:
                        continue
                    if len(seen) >= bind_c.MAX_INCLUDED_FILES:
                        return
                    seen.add(target)
                    following.append(target)
                    yield target
            frontier = following
            if not frontier:
                return

    def includes(self, path: str) -> list[str]:
        """The files a C file's includes resolve to, in order."""
        if self._include_graph is not None:
            if self._graph is None:
                self._graph = self._include_graph()
            return self._graph.forward.get(path, [])
        return [
            e["resolved_path"]
            for e in self.edges(path)
            if e["kind"] == "import" and e.get("resolved_path")
        ]

    def includers(self, path: str) -> list[str]:
        """The first files (by path) that include ``path``."""
        if self._include_graph is not None:
            if self._graph is None:
                self._graph = self._include_graph()
            return self._graph.includers(path)
        found = self._parents.get(path)
        if found is None:
            every = self._includers(path) if self._includers is not None else []
            found = self._parents[path] = sorted(every)[: bind_c.MAX_INCLUDERS]
        return found

    def named(self, qualname: str) -> list[Row]:
        """Every definition whose name is the last part of ``qualname``."""
        name = qualname.rsplit(".", 1)[-1]
        found = self._by_name.get(name)
        if found is None:
            found = self._by_name[name] = self._named(name) if self._named is not None else []
        return found

    def declares(self, path: str) -> frozenset[str]:
        """The names a file's prototypes declare, qualified by their namespaces."""
        found = self._declared.get(path)
        if found is None:
            found = self._declared[path] = frozenset(
                e["target_qualname"] or e["target"]
                for e in self.edges(path)
                if e["kind"] == EdgeKind.DECLARE
            )
        return found

    def _c_facts(self, name: str) -> tuple[Callable[[str], Row | None], Callable[[str], bool]]:
        """Whether a file defines ``name`` (its first definition) and whether
        it declares it: from every definition of the name and the files
        that declare it when those can be asked for, else file by file."""
        found = self._facts.get(name)
        if found is None:
            found = self._facts[name] = self._c_facts_of(name)
        return found

    def _c_facts_of(self, name: str) -> tuple[Callable[[str], Row | None], Callable[[str], bool]]:
        declaring = self._declaring(name)
        if self._named is None:
            return (lambda f: self.defs(f).get(name)), declaring
        first: dict[str, Row] = {}
        for r in sorted(self.named(name), key=lambda r: (r["start_line"], r["start_col"])):
            if r["qualname"] == name:
                first.setdefault(r["path"], r)
        return first.get, declaring

    def _declaring(self, name: str) -> Callable[[str], bool]:
        """Whether a file has a prototype of ``name`` (qualified by its
        namespaces in C++)."""
        if self._declared_in is None:
            return lambda f: name in self.declares(f)
        return self._declared_in(name).__contains__

    def with_linkage(self, name: str) -> list[Row]:
        """The C and C++ definitions of ``name`` with external linkage."""
        return [
            r
            for r in self.named(name)
            if r["qualname"] == name
            and r.get("exported")
            and r["kind"] in ("function", "macro")
            and r["language"] in bind_c.LANGUAGES
        ]

    def link(
        self, path: str, qualname: str, written: str = "", usings: tuple[str, ...] = ()
    ) -> Found:
        """The definition a call in ``path`` claiming ``qualname`` sees: in
        each scope outward (C++; one name in C), the first one through the
        file's includes (breadth first: the nearest header), then through
        its includers' includes, else the one definition with external
        linkage in the repository. ``written``: the scope and name a C++
        call spelled out (``detail::f``), kept in every scope tried;
        ``usings``: the ``using`` lines in force, which add names to try
        (scope_cpp.using_names)."""
        spelled = written.replace("::", ".")
        names = bind_c.outward(qualname, spelled)
        if usings:
            names = scope_cpp.using_names(names, spelled or qualname.rsplit(".", 1)[-1], usings)
        for name in names:
            found = self._visible(path, path, name)
            if found is not None:
                return found
        # a file not compiled alone (a header that relies on what its includer
        # included first, a .c file included by another): what an includer sees
        for parent in self.includers(path):
            for name in names:
                found = self._visible(parent, path, name, f"as included by {parent}, ")
                if found is not None:
                    return found
        # a member a class inherits: a C++ name with a scope (`Repo.save`, or
        # `format_specs.type` claimed at the top level); C's have none
        for name in names if "." in names[0] else ():
            found = self._inherited(path, name, 0, set())
            if found is not None:
                return found
        if "." in names[0]:
            found = self._through_namespace_macro(path, names)
            if found is not None:
                return found
        for name in names:
            linked = self.with_linkage(name)
            files = {r["path"] for r in linked}
            if len(files) == 1:
                hit = min(linked, key=lambda r: (r["start_line"], r["start_col"]))
                words = f"the one definition with external linkage, in {hit['path']}"
                return ("bound", f"{bind_c.INCLUDE_VIA}: {words}", hit, ())
            if files:
                words = f"{len(files)} definitions with external linkage: not provable"
                return ("candidate", words, None, ())
        if spelled.lstrip(".").partition(".")[0] == "std":  # std::sort, ::std::move
            return ("external", f"{written}: the standard library's", None, ())
        return ("candidate", f"{qualname} is not defined in the repository", None, ())

    def _through_namespace_macro(self, path: str, names: list[str]) -> Found | None:
        """``fmt::format`` where ``fmt`` is opened by a macro
        (``#define FMT_BEGIN_NAMESPACE namespace fmt {``): the parser never
        saw the namespace, so its definitions are named without it. Each
        name whose first scope is such a namespace, as a macro the file
        sees defines it (``_namespace_macro``), is tried without that scope."""
        for name in names:
            scope, _, rest = name.partition(".")
            macro = self._namespace_macro(path, scope) if scope and rest else None
            if macro is None:
                continue
            found = self._visible(path, path, rest)
            if found is not None and found[0] == "bound":
                words = f"{found[1]}; {scope}:: is the namespace {macro} opens"
                return ("bound", words, found[2], found[3])
        return None

    def _namespace_macro(self, path: str, scope: str) -> str | None:
        """A macro in ``path``'s include closure that stands for opening the
        namespace ``scope``, by its name: NAMESPACE in it and the scope as
        one of its words (FMT_BEGIN_NAMESPACE for fmt,
        NLOHMANN_JSON_NAMESPACE_BEGIN for nlohmann). None if none."""
        key = (path, scope)
        if key not in self._namespace_macros:
            word = scope.upper()
            self._namespace_macros[key] = next(
                (
                    r["name"]
                    for f in self.include_closure(path)
                    for r in self.defs(f).values()
                    if r["kind"] in ("macro", "constant")  # `#define X ...`: a constant
                    and "NAMESPACE" in r["name"]
                    and word in r["name"].split("_")
                ),
                None,
            )
        return self._namespace_macros[key]

    def through_fields(
        self, path: str, qualname: str, written: str, usings: tuple[str, ...] = ()
    ) -> Found:
        """A C++ member call through fields another file declares
        (bind_c.FIELD_VIA): ``versions_->current()`` in a method of DBImpl is
        DBImpl as this file sees it, the type its field ``versions_`` is
        declared with (a ``value`` row of DBImpl's file, or of a base's),
        that class, and its member ``current``."""
        start, fields, member, arrow = bind_c.split_field_via(written)
        spelled = start.replace("::", ".")
        scope = qualname[: -len(f"{spelled}.{member}")].rstrip(".")
        cls = self._class(path, f"{scope}.{spelled}" if scope else spelled, spelled, usings)
        trail = []
        steps = tuple(fields)
        while steps:
            if cls is None:
                break
            field, steps = steps[0], steps[1:]
            typed = self._field_type(path, cls, field, 0, set())
            what = "a member" if field.endswith(receivers_cpp.CALLED) else "a field"
            if typed is None:
                words = f"{field} is not {what} of {cls['qualname']} that the includes show"
                return ("candidate", words, None, ())
            holder, declared = typed
            spelled_type = declared.replace(".", "::")
            verb = "returns" if what == "a member" else "is"
            trail.append(f"{field} {verb} a {spelled_type} ({holder['path']})")
            # std::unique_ptr<Repo>: Repo through `->`, the pointer's own members
            spelled_type, steps = pointers_cpp.through_pointer(spelled_type, steps, member, arrow)
            declared = spelled_type.replace("::", ".")
            if declared.startswith("std."):  # std::string: never in the tree
                words = f"{'; '.join(trail)}: a member of {spelled_type}, the standard library's"
                return ("external", words, None, ())
            # a type named in a class body is looked up from inside the class
            cls = self._class(path, f"{holder['qualname']}.{declared}", declared, ())
        if cls is None:
            return ("candidate", f"{written}: the class is not in the repository", None, ())
        name = f"{cls['qualname']}.{member}"
        found = None
        for root in dict.fromkeys([path, cls["path"]]):
            found = self._visible(root, path, name)
            if found is not None:
                break
        if found is None:
            found = self._inherited(path, name, 0, set())
        if found is None or found[0] != "bound":
            return ("candidate", f"{name} is not defined in the repository", None, ())
        how = found[1].partition(": ")[2]
        return ("bound", f"{bind_c.INCLUDE_VIA}: {'; '.join(trail)}; {how}", found[2], found[3])

    def _class(self, path: str, qualname: str, written: str, usings: tuple[str, ...]) -> Row | None:
        """The class or struct ``qualname`` names from ``path``: in each scope
        outward, the first one its includes (or its includers') show; else the
        one class of that name in the repository."""
        names = bind_c.outward(qualname, written)
        if usings:
            names = scope_cpp.using_names(names, written, usings)
        for root in [path, *self.includers(path)]:
            for name in names:
                found = self._visible(root, path, name)
                if found is not None and found[2] is not None and found[2]["kind"] in _CLASSES:
                    return found[2]
        for name in names:
            rows = [r for r in self.named(name) if r["qualname"] == name and r["kind"] in _CLASSES]
            if len({r["path"] for r in rows}) == 1:
                return min(rows, key=lambda r: (r["start_line"], r["start_col"]))
        return None

    def _field_type(
        self, path: str, cls: Row, field: str, depth: int, seen: set[str]
    ) -> tuple[Row, str] | None:
        """The class that declares ``field`` (``cls`` or a base, MAX_BASE_DEPTH
        up) and the field's type as written there, ``::`` read as ``.``; for
        ``f()``, what the member ``f`` returns."""
        holder = f"{cls['qualname']}.{field}"
        rows = self.edges(cls["path"])
        for e in rows:
            if e["kind"] == EdgeKind.VALUE and e["source"] == holder and e["target_qualname"]:
                return cls, str(e["target_qualname"])
        if depth >= MAX_BASE_DEPTH or cls["symbol_id"] in seen:
            return None
        seen.add(cls["symbol_id"])
        for found in self.bases_of(path, cls):
            typed = self._field_type(path, found, field, depth + 1, seen)
            if typed is not None:
                return typed
        return None

    def bases_of(self, path: str, cls: Row) -> Iterator[Row]:
        """The classes ``cls`` derives from (its ``inherit`` rows, at most
        MAX_BASES), each as ``path`` sees it: in the class's scope, then at
        the top; one at a time, so a caller that finds what it needs in the
        first looks no further."""
        scope = cls["qualname"].rpartition(".")[0]
        written = [
            str(e["target"]).replace("::", ".")
            for e in self.edges(cls["path"])
            if e["kind"] == EdgeKind.INHERIT and e["source"] == cls["qualname"]
        ]
        for base in written[:MAX_BASES]:
            found = self._class(path, f"{scope}.{base}" if scope else base, base, ())
            if found is not None:
                yield found

    def class_of(self, path: str, qualname: str) -> Row | None:
        """The class or struct ``qualname`` that ``path`` sees (``Impl`` for
        a method ``Impl::run`` defined out of its class, in a .cc file)."""
        return self._class(path, qualname, qualname, ())

    def _inherited(self, path: str, name: str, depth: int, seen: set[str]) -> Found | None:
        """``Owner.member`` as a member ``Owner`` inherits: ``target()`` in a
        method of ``class SpecialEnv : public EnvWrapper`` is
        ``EnvWrapper::target``. The class is the one ``path`` sees through its
        includes; its bases are its ``inherit`` rows, tried as written
        beside it and then at the top, MAX_BASE_DEPTH classes up."""
        owner, _, member = name.rpartition(".")
        if not owner or depth >= MAX_BASE_DEPTH or owner in seen:
            return None
        seen.add(owner)
        found = self._visible(path, path, owner)
        cls = found[2] if found is not None else None
        if cls is None or cls["kind"] not in ("class", "struct"):
            return None
        scope = owner.rpartition(".")[0]
        bases = [
            e["target"]
            for e in self.edges(cls["path"])
            if e["kind"] == EdgeKind.INHERIT and e["source"] == owner
        ]
        for base in bases[:MAX_BASES]:
            for qualified in dict.fromkeys([f"{scope}.{base}" if scope else base, base]):
                hit = self._visible(path, path, f"{qualified}.{member}")
                if hit is None:
                    hit = self._inherited(path, f"{qualified}.{member}", depth + 1, seen)
                if hit is not None and hit[0] == "bound":
                    how = hit[1].partition(": ")[2]
                    words = f"{bind_c.INCLUDE_VIA}: inherited from {base} by {owner}, {how}"
                    return ("bound", words, hit[2], hit[3])
        return None

    def _visible(self, root: str, path: str, name: str, context: str = "") -> Found | None:
        """The definitions of ``name`` the first file of ``root``'s include
        closure that has one shows (``path`` is the calling file); None if
        no file does."""
        defining, declaring = self._c_facts(name)
        for f in self.include_closure(root):
            hit = defining(f)
            declared = declaring(f)
            if hit is None and not declared:
                continue
            where = "this file" if f == path else f
            # a prototype and the functions it declares are one group: every
            # definition with external linkage (one per configuration, say)
            found = [hit] if hit is not None else []
            if declared:
                mine = hit["symbol_id"] if hit is not None else None
                found += sorted(
                    (
                        r
                        for r in self.with_linkage(name)
                        if r["kind"] == "function" and r["symbol_id"] != mine
                    ),
                    key=lambda r: (r["path"], r["start_line"]),
                )
            if not found:  # memcpy in glibc: written in assembly, or in a library
                words = f"{context}declared in {where}; defined outside the C and C++ sources"
                return ("external", words, None, ())
            first = found[0]
            if first is hit:
                how = "defined in this file" if f == path else f"visible through {f}"
            else:
                how = f"declared in {where}, defined in {first['path']}"
                if len(found) > 1:
                    how += f" and {len(found) - 1} other place(s)"
            return ("bound", f"{bind_c.INCLUDE_VIA}: {context}{how}", first, tuple(found[1:]))
        return None
