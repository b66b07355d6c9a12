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
- a Go file's package-level name not in the file: the other files of its
  folder, which is its package (indexer/bind_go.py); a predeclared name
  (``len``) that the package does not declare is ``external``;
- anything else: the claim is not provable, and the edge is served as a
  ``candidate``.

Linking at read time is what keeps an incremental update exact without
rewriting the world: a definition renamed or deleted, a re-export removed, a
base class moved, changes the answer of every edge that named it the moment
the version (or the overlay) holding the change is read, while the update
rewrote only the changed files' rows. GitHub's stack graphs do the same:
per-file partial paths, stitched at query time.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from freshindex.indexer.bind_go import PREDECLARED_VIA

Row = dict[str, Any]

CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "object", "module"})
MAX_DEPTH = 12  # re-export and inheritance chains longer than this are not followed


@dataclass(frozen=True)
class Link:
    binding: str  # bound | candidate | external
    via: str
    symbol: Row | None = None  # the definition, when bound to one
    path: str | None = None  # the file, when bound to a module or a definition


class Linker:
    """Links edges over one view of a version. ``symbols_of(path)`` and
    ``edges_of(path)`` give a file's rows as the answer sees it (overlay rows
    for a changed file, none for a deleted one); both are cached here."""

    def __init__(
        self,
        symbols_of: Callable[[str], list[Row]],
        edges_of: Callable[[str], list[Row]],
        files_in: Callable[[str], list[str]] | None = None,
    ):
        """``files_in(folder)``: the files directly in a folder, for Go's
        packages (None: names are looked up in the claimed file only)."""
        self._symbols_of = symbols_of
        self._edges_of = edges_of
        self._files_in = files_in
        self._defs: dict[str, dict[str, Row]] = {}
        self._edges: dict[str, list[Row]] = {}
        self._packages: dict[str, list[str]] = {}

    def defs(self, path: str) -> dict[str, Row]:
        """qualname -> its first definition in the file."""
        found = self._defs.get(path)
        if found is None:
            found = {}
            rows = sorted(self._symbols_of(path), key=lambda r: (r["start_line"], r["start_col"]))
            for r in rows:
                found.setdefault(r["qualname"], r)
            self._defs[path] = found
        return found

    def edges(self, path: str) -> list[Row]:
        found = self._edges.get(path)
        if found is None:
            found = [e for e in self._edges_of(path) if e["kind"] in ("import", "inherit")]
            self._edges[path] = found
        return found

    def link(self, claim: str, via: str, path: str | None, qual: str | None) -> Link:
        """What an edge's claim (its stored ``binding``, ``via``,
        ``resolved_path`` and ``target_qualname``) names in this view."""
        if claim == "external":
            return Link("external", via)
        if claim != "bound" or not path or qual is None:
            return Link("candidate", via or "name match only")
        if qual == "":  # a module: the resolver found the file in the tree
            return Link("bound", via, None, path)
        found = self.find(path, qual, skip_self=via.startswith("super()"))
        if found is None:
            if via == PREDECLARED_VIA:
                return Link("external", f"{qual} is predeclared in Go")
            where = f"package {posixpath.dirname(path) or '.'}" if path.endswith(".go") else path
            return Link("candidate", f"{via}; {qual} not found in {where}")
        if found["path"] != path or found["qualname"] != qual:
            via = f"{via}, then {found['qualname']} in {found['path']}"
        return Link("bound", via, found, found["path"])

    def find(self, path: str, qual: str, skip_self: bool = False, depth: int = 0) -> Row | None:
        """The definition ``qual`` names in ``path``, following re-exports and bases."""
        if depth > MAX_DEPTH:
            return None
        defs = self.defs(path)
        if not skip_self and qual in defs:
            return defs[qual]
        if path.endswith(".go") and not skip_self:
            for other in self.package_of(path):  # one Go package is one folder
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
            for base in self.bases(path, owner, depth):
                hit = self.find(base["path"], f"{base['qualname']}.{member}", False, depth + 1)
                if hit is not None:
                    return hit
            return None
        if skip_self:
            return None
        # the head is not defined here: an import brought it (a re-export)
        head, rest = parts[0], parts[1:]
        stars = []
        for e in self.edges(path):
            if e["kind"] != "import" or e.get("source"):
                continue
            target_path, target_qual = e.get("resolved_path"), e.get("target_qualname")
            if e["target"] == "*":
                if target_path and e.get("binding") == "bound":
                    stars.append(target_path)
                continue
            local = e.get("alias") or e["target"]
            if local != head or not target_path or target_qual is None:
                continue
            if target_qual == "":  # a module: the rest is inside it
                return self.find(target_path, ".".join(rest), False, depth + 1) if rest else None
            return self.find(target_path, ".".join([target_qual, *rest]), False, depth + 1)
        for star in stars:
            hit = self.find(star, qual, False, depth + 1)
            if hit is not None:
                return hit
        return None

    def package_of(self, path: str) -> list[str]:
        """The other Go files of ``path``'s folder, test files last."""
        folder = posixpath.dirname(path)
        found = self._packages.get(folder)
        if found is None:
            files = self._files_in(folder) if self._files_in is not None else []
            found = sorted(
                (f for f in files if f.endswith(".go")), key=lambda f: (f.endswith("_test.go"), f)
            )
            self._packages[folder] = found
        return [f for f in found if f != path]

    def bases(self, path: str, owner: str, depth: int) -> list[Row]:
        """The classes ``owner`` (a class of ``path``) derives from, linked."""
        out = []
        for e in self.edges(path):
            if e["kind"] != "inherit" or e.get("source") != owner:
                continue
            if e.get("binding") != "bound" or not e.get("resolved_path"):
                continue
            base = self.find(e["resolved_path"], e.get("target_qualname") or "", False, depth + 1)
            if base is not None:
                out.append(base)
        return out


def table_linker(symbols: list[Row], edges: list[Row]) -> Linker:
    """A linker over whole tables (dump): every file's rows grouped once."""
    by_path: dict[str, list[Row]] = {}
    for s in symbols:
        by_path.setdefault(s["path"], []).append(s)
    edges_by_path: dict[str, list[Row]] = {}
    for e in edges:
        if e["kind"] in ("import", "inherit"):
            edges_by_path.setdefault(e["path"], []).append(e)
    folders: dict[str, list[str]] = {}
    for p in by_path:
        folders.setdefault(posixpath.dirname(p), []).append(p)
    return Linker(
        lambda p: by_path.get(p, []),
        lambda p: edges_by_path.get(p, []),
        lambda folder: folders.get(folder, []),
    )
