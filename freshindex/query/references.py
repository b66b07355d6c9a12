"""Queries that name a definition, and references grouped by how they were bound.

A target is one of:
- a bare name (``save``): every definition of that name;
- a qualified name (``Model.save``, ``pkg.models.Model.save``): the
  definitions whose qualified name, or module path and qualified name, end
  with it, including through a package's re-exports (``django.db.models.Model``
  names ``django/db/models/base.py``'s class when ``__init__`` imports it);
- ``path:line``: the innermost definition at that line of the file as it is now;
- a symbol id (``--id``).

``refs`` links every name-matched edge (query/link.py) and answers, per
definition, its ``bound`` references, then the ``candidates`` that could be it
(name-matched, not provable), never mixed: each row says its ``binding`` and
``via``. Edges bound to another definition of the same name are not shown for
this one; ``external`` rows (a builtin, a dependency's function) are listed
apart.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from freshindex.core.exceptions import BadInput
from freshindex.query import lookup
from freshindex.query.freshness import Freshness

if TYPE_CHECKING:
    from freshindex.query.answer import Answerer

Result = dict[str, Any]

_PATH_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")


def parse_target(target: str) -> tuple[str, int] | None:
    """``path:line`` -> (path, line); anything else is a name."""
    m = _PATH_LINE.match(target.strip())
    if m is None or ("/" not in m["path"] and "." not in m["path"]):
        return None
    return m["path"], int(m["line"])


def definitions(
    answerer: Answerer, target: str | None, symbol_id: str | None = None
) -> list[Result]:
    """The definitions a target names, as ``defs`` results."""
    if symbol_id:
        return _by_id(answerer, symbol_id)
    if not target or not target.strip():
        raise BadInput("name a definition: NAME, Qualified.name, path:line or --id SYMBOL_ID")
    at = parse_target(target)
    if at is not None:
        path = answerer.guard.relative(at[0])
        here = answerer.symbol_at(path, at[1])
        if here is None:
            raise BadInput(f"no definition at {target} in the worktree as it is now")
        origin = "overlay" if answerer.overlay and path in answerer.overlay.shadowed else "index"
        return [lookup.symbol_result(here, origin)]
    found = answerer.defs(target)
    bare, qualified = lookup.split_name(target)
    if found or not qualified or answerer.freshness == Freshness.PARTIAL:
        return found
    return _by_module_path(answerer, bare, qualified)


def _by_id(answerer: Answerer, symbol_id: str) -> list[Result]:
    shadowed = answerer.overlay.shadowed if answerer.overlay else set()
    rows = answerer.version.lookup("symbols", "symbol_id", symbol_id).to_pylist()
    out = [lookup.symbol_result(r, "index") for r in rows if r["path"] not in shadowed]
    if answerer.overlay is not None:
        out += [
            lookup.symbol_result(s, "overlay")
            for s in answerer.overlay.symbols
            if s["symbol_id"] == symbol_id
        ]
    return out


def _module_of(path: str) -> str:
    """``src/pkg/models/__init__.py`` -> ``src.pkg.models``."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    return stem.replace("/", ".")


def _by_module_path(answerer: Answerer, bare: str, qualified: str) -> list[Result]:
    """``pkg.models.Model.save``: a module path, then a qualified name in it.
    The definition's own module ends with the module part, or a package that
    ends with it re-exports the definition (checked by linking, not guessed)."""
    out = []
    for d in answerer.defs(bare):
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
            hit = answerer.linker.find(init, qualified[len(module) + 1 :])
            if hit is not None and hit["symbol_id"] == d["symbolId"]:
                out.append(d)
            break
    return out


def references(
    answerer: Answerer, target: str | None, symbol_id: str | None = None
) -> dict[str, Any]:
    """``refs``: the definitions the target names, and the references of
    each, bound first, then candidates, then external."""
    defs = definitions(answerer, target, symbol_id)
    names = sorted({str(d["name"]) for d in defs})
    if not names and target and parse_target(target) is None:
        names = [lookup.split_name(target)[0]]
    rows: list[Result] = []
    for name in names:
        rows.extend(answerer.refs(name))
    by_id = {str(d["symbolId"]): d for d in defs}
    bound: dict[str, list[Result]] = {i: [] for i in by_id}
    # overloads, a property's setter, a def in both branches of an `if`: one
    # name in one file defined more than once; a reference names them all
    same: dict[tuple[str, str], list[str]] = {}
    for d in defs:
        same.setdefault((str(d["path"]), str(d["qualname"])), []).append(str(d["symbolId"]))
    candidates: list[Result] = []
    external: list[Result] = []
    linking = answerer.freshness in (Freshness.EXACT, Freshness.OVERLAY, Freshness.STALE)
    seen: set[tuple[str, int, int, str]] = set()

    def place(r: Result) -> None:
        key = (r["path"], r["startLine"], r["startCol"], r["kind"])
        if key in seen:
            return
        seen.add(key)
        claim = r.get("binding") or "candidate"
        if not linking:  # read from source now: nothing beyond one file can be proven
            r["binding"] = "external" if claim == "external" else "candidate"
            r["targetSymbolId"] = None
        else:
            link = answerer.linker.link(
                claim, r.get("via") or "", r["resolvedPath"], r["targetQualname"]
            )
            r["binding"], r["via"] = link.binding, link.via
            r["targetSymbolId"] = link.symbol["symbol_id"] if link.symbol else None
            if link.symbol is not None:
                r["targetPath"] = link.symbol["path"]
                r["targetQualname"] = link.symbol["qualname"]
        if r["binding"] == "bound":
            owners = same.get((str(r.get("targetPath")), str(r["targetQualname"])), [])
            for owner in owners:
                bound[owner].append(r)
            if owners:
                # an import under another name: `from m import save as persist`
                alias = r.get("alias")
                if r["kind"] == "import" and alias and alias != r["name"]:
                    for other in answerer.edges_in(str(r["path"])):
                        if other["name"] == alias and other["kind"] != "import":
                            place(other)
        elif r["binding"] == "external":
            external.append(r)
        else:
            candidates.append(r)

    for r in rows:
        place(r)
    order = _order
    groups: list[dict[str, Any]] = [
        {
            "definition": d,
            "bound": sorted(bound[str(d["symbolId"])], key=order),
            "candidateCount": len(candidates),
        }
        for d in defs
    ]
    all_bound = sorted((r for rs in bound.values() for r in rs), key=order)
    candidates.sort(key=order)
    external.sort(key=order)
    return {
        "definitions": defs,
        "groups": groups,
        "bound": all_bound,
        "candidates": candidates,
        "external": external,
        "results": [*all_bound, *candidates, *external],
    }


def _order(r: Result) -> tuple[str, int, int]:
    return (str(r["path"]), int(r["startLine"]), int(r["startCol"]))
