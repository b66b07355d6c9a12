"""What the C and C++ linker (query/link_c.py) reads in bulk from one
version and its overlay: the include graph, read once and kept for the next
answers from the same version, and the files with a prototype of a name.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import pyarrow.compute as pc
import pyarrow.dataset as ds
from cachetools import LRUCache

from freshindex.indexer import bind_c

if TYPE_CHECKING:
    from freshindex.catalog.reader import IndexVersion
    from freshindex.query.overlay import Overlay


class IncludeGraph:
    """Every C and C++ file's resolved includes, in order, and who includes
    a file: read once per version (and overlay), shared by every answer."""

    def __init__(self, forward: dict[str, list[str]]):
        self.forward = forward
        self._reverse: dict[str, list[str]] | None = None

    def includers(self, path: str) -> list[str]:
        """The first files (by path) that include ``path``."""
        if self._reverse is None:
            reverse: dict[str, set[str]] = {}
            for f, targets in self.forward.items():
                for t in targets:
                    reverse.setdefault(t, set()).add(f)
            self._reverse = {t: sorted(fs)[: bind_c.MAX_INCLUDERS] for t, fs in reverse.items()}
        return self._reverse.get(path, [])


# the include graph of the versions answered last (with the overlay it was
# read with): a warm service answers many queries from one version
_GRAPHS: LRUCache[str, tuple[Overlay | None, IncludeGraph]] = LRUCache(maxsize=4)
_GRAPHS_LOCK = threading.Lock()


class CRows:
    """What the C linker reads in bulk from one version and its overlay:
    the include graph and the files with a prototype of a name."""

    def __init__(self, version: IndexVersion, overlay: Overlay | None):
        self.version = version
        self.overlay = overlay
        # a bare name -> each qualname declared with it -> the files
        self._declared: dict[str, dict[str, frozenset[str]]] = {}

    def include_graph(self) -> IncludeGraph:
        """Every C and C++ file's resolved includes, in order, as the answer
        sees them: one read of the import rows instead of one per file, kept
        for the next answers from the same version and overlay."""
        key = self.version.manifest.versionId
        with _GRAPHS_LOCK:
            cached = _GRAPHS.get(key)
        if cached is not None and cached[0] is self.overlay:
            return cached[1]
        found = IncludeGraph(self._read_include_graph())
        with _GRAPHS_LOCK:
            _GRAPHS[key] = (self.overlay, found)
        return found

    def _read_include_graph(self) -> dict[str, list[str]]:
        t = self.version.select(
            "edges",
            (ds.field("kind") == "import")
            & ds.field("language").isin(list(bind_c.LANGUAGES))
            & ds.field("resolved_path").is_valid(),
            ["path", "resolved_path", "start_line", "start_col"],
        ).sort_by([("path", "ascending"), ("start_line", "ascending"), ("start_col", "ascending")])
        shadowed = self.overlay.shadowed if self.overlay is not None else set()
        graph: dict[str, list[str]] = {}
        for path, target in zip(t["path"].to_pylist(), t["resolved_path"].to_pylist(), strict=True):
            if path not in shadowed:
                graph.setdefault(path, []).append(target)
        if self.overlay is not None:
            for e in sorted(self.overlay.edges, key=lambda e: (e["start_line"], e["start_col"])):
                if (
                    e["kind"] == "import"
                    and e["resolved_path"]
                    and e["language"] in bind_c.LANGUAGES
                ):
                    graph.setdefault(str(e["path"]), []).append(str(e["resolved_path"]))
        return graph

    def declared_in(self, qualname: str) -> frozenset[str]:
        """The files with a prototype of ``qualname`` (``f``, or ``app.f`` in
        a C++ namespace), as the answer sees them. The rows of a bare name
        are read once: a C++ answer asks for it in many scopes (``a.b.ok``,
        ``a.ok``, ``ok``), and a common name has thousands of call rows."""
        bare = qualname.rsplit(".", 1)[-1]
        found = self._declared.get(bare)
        if found is None:
            found = self._declared[bare] = self._declarations(bare)
        return found.get(qualname, frozenset())

    def _declarations(self, bare: str) -> dict[str, frozenset[str]]:
        shadowed = self.overlay.shadowed if self.overlay is not None else set()
        t = self.version.lookup("edges", "target", bare)
        t = t.filter(pc.field("kind") == "declare")
        rows = t.select(["path", "target", "target_qualname"]).to_pylist()
        if self.overlay is not None:
            rows = [r for r in rows if r["path"] not in shadowed]
            rows += [
                e for e in self.overlay.edges if e["kind"] == "declare" and e["target"] == bare
            ]
        out: dict[str, set[str]] = {}
        for r in rows:
            out.setdefault(str(r["target_qualname"] or r["target"]), set()).add(str(r["path"]))
        return {q: frozenset(paths) for q, paths in out.items()}
