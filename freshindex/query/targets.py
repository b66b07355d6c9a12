"""What a target names: the definitions ``defs``, ``refs`` and ``context`` answer about.

A target is one of:
- a bare name (``save``): every definition of that name;
- a qualified name (``Model.save``, ``pkg.models.Model.save``): the
  definitions whose qualified name, or module path and qualified name, end
  with it, including through a package's re-exports (``django.db.models.Model``
  names ``django/db/models/base.py``'s class when ``__init__`` imports it);
- ``path:line``: the innermost definition at that line of the file as it is now;
- a symbol id (``--id``).

A target that names nothing is an error (UnknownTarget) when the answer can
prove it, never an empty list that would read as "nothing calls it".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from freshindex.core.exceptions import BadInput, UnknownTarget
from freshindex.query import lookup
from freshindex.query.freshness import Freshness
from freshindex.query.instantiations import CONSTRUCTORS

if TYPE_CHECKING:
    from freshindex.query.link import Linker
    from freshindex.query.view import RowView

Result = dict[str, Any]

_PATH_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")


def parse_target(target: str) -> tuple[str, int] | None:
    """``path:line`` -> (path, line); anything else is a name."""
    m = _PATH_LINE.match(target.strip())
    if m is None or ("/" not in m["path"] and "." not in m["path"]):
        return None
    return m["path"], int(m["line"])


def definitions(
    view: RowView,
    linker: Linker,
    target: str | None,
    symbol_id: str | None = None,
    strict: bool = True,
) -> list[Result]:
    """The definitions a target names, as ``defs`` results. ``strict``: none
    is an error (UnknownTarget) when the answer can prove it."""
    if symbol_id:
        by_id = view.by_id(symbol_id)
        if strict and not by_id and view.freshness in (Freshness.EXACT, Freshness.OVERLAY):
            raise UnknownTarget(f"no definition with id {symbol_id!r} in this repository")
        return by_id
    if not target or not target.strip():
        raise BadInput("name a definition: NAME, Qualified.name, path:line or --id SYMBOL_ID")
    at = parse_target(target)
    if at is not None:
        path = view.guard.relative(at[0])
        here = view.symbol_at(path, at[1])
        if here is None:
            raise BadInput(f"no definition at {target} in the worktree as it is now")
        if view.freshness not in (Freshness.EXACT, Freshness.OVERLAY):
            origin = "source"  # read from the file now: a partial answer's own reading
        elif view.overlay and path in view.overlay.shadowed:
            origin = "overlay"
        else:
            origin = "index"
        return [lookup.symbol_result(here, origin)]
    found = view.defs(target)
    bare, qualified = lookup.split_name(target)
    if not found and qualified and view.freshness != Freshness.PARTIAL:
        found = _by_module_path(view, linker, bare, qualified)
    if not found and bare in CONSTRUCTORS and qualified:
        inherited, classes = _implicit_constructor(view, linker, target)
        found = inherited or classes
    if strict:
        require_known(view, target, found)
    return found


def _module_of(path: str) -> str:
    """``src/pkg/models/__init__.py`` -> ``src.pkg.models``."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    return stem.replace("/", ".")


def _by_module_path(view: RowView, linker: Linker, bare: str, qualified: str) -> list[Result]:
    """``pkg.models.Model.save``: a module path, then a qualified name in it.
    The definition's own module ends with the module part, or a package that
    ends with it re-exports the definition (checked by linking, not guessed)."""
    out = []
    for d in view.defs(bare):
        qual = str(d["qualname"])
        if not qualified.endswith("." + qual):
            continue
        module = qualified[: -len(qual) - 1]
        own = _module_of(str(d["path"]))
        if own == module or own.endswith("." + module):
            out.append(d)
            continue
        # a package above the definition's module that may re-export it
        parts = own.split(".")
        for k in range(len(parts) - 1, 0, -1):
            package = ".".join(parts[:k])
            if package != module and not package.endswith("." + module):
                continue
            init = "/".join(parts[:k]) + "/__init__.py"
            hit = linker.find(init, qualified[len(module) + 1 :])
            if hit is not None and hit["symbol_id"] == d["symbolId"]:
                out.append(d)
            break
    return out


def _implicit_constructor(
    view: RowView, linker: Linker, target: str
) -> tuple[list[Result], list[Result]]:
    """``C.__init__`` where the class C defines none: the ``__init__`` a base
    of the repository defines (what runs), as ([that definition], []); or,
    when no base in the repository has one (``object``'s, a dataclass's),
    ([], [C]): ``defs`` answers with the class and ``refs`` with its
    instantiations. ([], []) when C is no class of the repository."""
    method, qualified = lookup.split_name(target)
    if method not in CONSTRUCTORS or not qualified:
        return [], []
    owner = qualified.rsplit(".", 1)[0]
    classes = [
        d
        for d in definitions(view, linker, owner, strict=False)
        if d.get("kind") == "class" and d.get("language") == "python"
    ]
    inherited: dict[str, Result] = {}
    for c in classes:
        row = linker.find(str(c["path"]), f"{c['qualname']}.{method}")
        if row is not None:
            found = view.by_id(str(row["symbol_id"]))
            inherited.update({str(d["symbolId"]): d for d in found})
    if inherited:
        return list(inherited.values()), []
    return [], classes


def require_known(view: RowView, target: str | None, found: list[Result]) -> None:
    """Raise UnknownTarget when an exact or overlay answer finds no definition
    for ``target``: the index can prove there is none, and an empty list
    would read as "nothing calls it". A partial or stale answer cannot prove
    absence; it stays a (marked incomplete) empty list."""
    if found or not target or view.freshness not in (Freshness.EXACT, Freshness.OVERLAY):
        return
    near = view.nearest_names(target)
    hint = f"; nearest: {', '.join(near)}" if near else ""
    raise UnknownTarget(f"no definition named {target!r} in this repository{hint}")
