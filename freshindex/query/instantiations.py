"""The calls that run a constructor without naming it: ``C(...)`` for a
Python class's ``__init__`` (and its subclasses' that define none), ``new
Block(...)`` and ``Block(...)`` for a C++ constructor. query/references.py
lists them as the constructor's bound references."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from freshindex.query.view import RowView

Result = dict[str, Any]


# a class's subclasses followed this deep, and at most this many, when
# looking for the classes whose instantiation runs an inherited __init__
MAX_SUBCLASS_DEPTH = 8
MAX_SUBCLASSES = 200
CONSTRUCTORS = ("__init__", "__new__")


def instantiations(
    view: RowView, d: Result, link_row: Any, runs: str | None = None
) -> list[Result]:
    """The calls that run a Python constructor ``d`` (``C.__init__``, ``C.__new__``)
    without naming it: ``C(...)``, and ``Sub(...)`` for every subclass of C in
    the repository that does not define its own; for a C++ constructor
    (``Block::Block``), ``new Block(...)`` and ``Block(...)``. Each is a
    bound reference of ``d`` whose ``via`` says which class was instantiated
    and what it ran (``runs``; by default ``d``'s qualname)."""
    qualname = str(d["qualname"])
    if "." not in qualname:
        return []
    named: dict[str, list[Result]] = {}  # a class's references, fetched once

    def refs_of(cls: str) -> list[Result]:
        bare = cls.rsplit(".", 1)[-1]
        if bare not in named:
            named[bare] = view.refs(bare)
        return named[bare]

    if d.get("language") == "cpp":
        # C++ constructors are not inherited: the class's own instantiations
        classes = _constructed(view, d)
        todo = []
    elif d.get("name") in CONSTRUCTORS and d.get("language") == "python":
        classes = [(str(d["path"]), qualname.rsplit(".", 1)[0])]
        todo = list(classes)
    else:
        return []
    if todo:
        own = str(d["name"])
        classes += subclasses(
            refs_of,
            link_row,
            todo,
            # one that defines its own: its calls are not d's
            lambda sub: any(
                s["qualname"] == f"{sub[1]}.{own}" for s in view.rows_now("symbols", sub[0])
            ),
            view.prefetch_refs,
        )
    out = []
    for path, cls in classes:
        for r in refs_of(cls):
            if r["kind"] != "call":
                continue
            link_row(r)
            if r["binding"] == "bound" and (r.get("targetPath"), r["targetQualname"]) == (
                path,
                cls,
            ):
                out.append({**r, "via": f"instantiates {cls}, which runs {runs or qualname}"})
    return out


def subclasses(
    refs_of: Callable[[str], list[Result]],
    link_row: Callable[[Result], None],
    classes: list[tuple[str, str]],
    stop: Callable[[tuple[str, str]], bool] | None = None,
    prefetch: Callable[[list[str]], None] | None = None,
) -> list[tuple[str, str]]:
    """The classes of the repository that derive from any of ``classes``
    ((path, qualname) each), at any depth up to MAX_SUBCLASS_DEPTH and at
    most MAX_SUBCLASSES, found from the ``inherit`` rows that name them
    (``refs_of(bare name)``), linked; ``stop(sub)``: leave a subclass and
    those below it out; ``prefetch(names)``: read a level's names at once."""
    found: list[tuple[str, str]] = []
    seen = set(classes)
    todo = list(classes)
    depth = 0
    while todo and depth < MAX_SUBCLASS_DEPTH and len(found) < MAX_SUBCLASSES:
        depth += 1
        below = []
        if prefetch is not None:
            prefetch([cls.rsplit(".", 1)[-1] for _path, cls in todo])
        for path, cls in todo:
            for r in refs_of(cls.rsplit(".", 1)[-1]):
                if r["kind"] != "inherit":
                    continue
                link_row(r)
                if r["binding"] != "bound" or (r.get("targetPath"), r["targetQualname"]) != (
                    path,
                    cls,
                ):
                    continue
                sub = (str(r["path"]), str(r["caller"]))
                if sub in seen or (stop is not None and stop(sub)):
                    continue
                seen.add(sub)
                found.append(sub)
                below.append(sub)
        todo = below
    return found


def _constructed(view: RowView, d: Result) -> list[tuple[str, str]]:
    """The classes a C++ constructor ``d`` (``leveldb.Block.Block``) makes:
    each definition of ``leveldb.Block``, (path, qualname). ``new Block(x)``
    and ``Block(x)`` bind to the class, so they are its calls."""
    cls, _, name = str(d["qualname"]).rpartition(".")
    if not cls or cls.rsplit(".", 1)[-1] != name:
        return []
    return sorted(
        {
            (str(r["path"]), cls)
            for r in view.symbols_named(name)
            if r["qualname"] == cls and r["kind"] in ("class", "struct")
        }
    )
