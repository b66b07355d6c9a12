"""References of the definitions a target names (query/targets.py), grouped
by how they were bound.

``refs`` links every name-matched edge (query/link.py) and answers, per
definition, its ``bound`` references, then the ``candidates`` that could be it
(name-matched, not provable), never mixed: each row says its ``binding`` and
``via``. Edges bound to another definition of the same name are not shown for
this one; ``external`` rows (a builtin, a dependency's function) are listed
apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from freshindex.indexer.flow_js import DEFAULT
from freshindex.indexer.protocols_python import is_implicit
from freshindex.query import lookup
from freshindex.query.dispatch import dispatched, through_instance
from freshindex.query.freshness import Freshness
from freshindex.query.instantiations import CONSTRUCTORS, instantiations
from freshindex.query.structural import Structural
from freshindex.query.targets import definitions, parse_target, require_known

if TYPE_CHECKING:
    from freshindex.query.link import Linker
    from freshindex.query.view import RowView

Result = dict[str, Any]


def references(
    view: RowView, linker: Linker, target: str | None, symbol_id: str | None = None
) -> dict[str, Any]:
    """``refs``: the definitions the target names, and the references of
    each, bound first, then candidates, then external."""
    defs = definitions(view, linker, target, symbol_id, strict=False)
    method = lookup.split_name(target)[0] if target and not symbol_id else ""
    if method in CONSTRUCTORS and defs and all(d.get("kind") == "class" for d in defs):
        return _instantiations_only(view, linker, defs, method)  # C.__init__, none written
    names = sorted({str(d["name"]) for d in defs})
    if not names and target and parse_target(target) is None:
        names = [lookup.split_name(target)[0]]
    rows: list[Result] = []
    for name in names:
        rows.extend(view.refs(name))
    linking = view.freshness in (Freshness.EXACT, Freshness.OVERLAY, Freshness.STALE)
    # calls of a returned value (`make()()`, `@d(x)`): filed under no name;
    # kept below only if one links to a definition asked about
    returned = view.refs(lookup.RETURNED) if linking and defs else []
    if not defs and not rows:
        # nothing defines it and nothing names it: a typo, not "no callers".
        # A name with no definition left but references that still name it
        # (renamed or deleted under its callers) answers with those.
        if symbol_id:
            definitions(view, linker, None, symbol_id)  # raises with the id's message
        require_known(view, target, defs)
    by_id = {str(d["symbolId"]): d for d in defs}
    bound: dict[str, list[Result]] = {i: [] for i in by_id}
    # overloads, a property's setter, a def in both branches of an `if`: one
    # name in one file defined more than once; a reference names them all.
    # A stub (`m.pyi`, `m.d.ts`) declares the names of the module beside it
    # (`m.py`, `m.js`), so its definitions are one group with what the module's name is
    # (its own, or one it re-exports: attrs' __init__.pyi declares Converter,
    # which __init__.py imports from _make.py)
    same: dict[tuple[str, str], list[str]] = {}
    for d in defs:
        path, qual = str(d["path"]), str(d["qualname"])
        places = {(_stubbed(path), qual)}
        if _stubbed(path) != path and linking:
            real = linker.find(_stubbed(path), qual)
            if real is not None:
                places.add((str(real["path"]), str(real["qualname"])))
        for named_at in places:
            same.setdefault(named_at, []).append(str(d["symbolId"]))
    candidates: list[Result] = []
    external: list[Result] = []
    seen: set[tuple[str, int, int, str, str]] = set()
    # calls of the name whose own file's rules could not say what they call
    # (an unknown receiver, dynamic dispatch); not those that named a
    # definition now gone (dangling: they were followed)
    unfollowed = 0

    def link_row(r: Result) -> None:
        _link_row(linker, linking, r)

    # bound calls made on an instance: (row, its targets, the asked
    # definitions it is bound to), for the methods that override theirs
    calls: list[tuple[Result, list[tuple[str, str]], list[str]]] = []

    def place(r: Result, quiet: bool = False) -> None:
        nonlocal unfollowed
        # a name that may hold two values has a row for each at one place
        key = (r["path"], r["startLine"], r["startCol"], r["kind"], str(r["targetQualname"]))
        if key in seen:
            return
        seen.add(key)
        claimed, claimed_via = r.get("binding"), str(r.get("via") or "")
        claimed_at = (str(r.get("resolvedPath")), str(r.get("targetQualname")))
        link_row(r)
        if not quiet and r["kind"] == "call" and claimed == "candidate":
            unfollowed += 1
        targets = r.pop("alsoTargets", [])
        if r["binding"] == "bound":
            owners = [
                o
                for path, qual in [(str(r.get("targetPath")), str(r["targetQualname"])), *targets]
                for o in same.get((_stubbed(path), qual), [])
            ]
            for owner in owners:
                bound[owner].append(r)
            if linking and through_instance(r["kind"], claimed_via):
                reached = [(str(r.get("targetPath")), str(r["targetQualname"])), *targets]
                calls.append((r, reached, owners))
            if owners:
                # an import under another name: `from m import save as persist`
                alias = r.get("alias")
                if r["kind"] == "import" and alias and alias != r["name"]:
                    for other in view.edges_in(str(r["path"])):
                        if other["name"] == alias and other["kind"] != "import":
                            place(other)
        elif quiet:
            return  # a returned value's call that names none of the targets
        else:
            (external if r["binding"] == "external" else candidates).append(r)
            if linking and claimed == "bound" and through_instance(r["kind"], claimed_via):
                # `self.popitem()` in a class that leaves popitem to a base
                # outside the repository (MutableMapping's), or to none: a
                # subclass's own popitem runs when self is one of them
                calls.append((r, [claimed_at], []))

    for r in rows:
        # `for u in bag`: kept only where it reaches an asked __iter__, not
        # as a name match of every other (indexer/protocols_python.py)
        place(r, quiet=r["kind"] == "call" and is_implicit(str(r.get("via") or "")))
    for r in returned:
        place(r, quiet=True)
    if linking and any(_exported_as_default(linker, d) for d in defs):
        # `import x from "./m"` names what m exports as default, under any
        # local name: filed under `default` (indexer/extract.py); only those
        # that link to an asked definition are kept
        for r in view.refs(DEFAULT):
            place(r, quiet=True)
    if linking:
        # every constructor's class at once (`refs __init__`: hundreds)
        view.prefetch_refs(
            [
                str(d["qualname"]).rsplit(".", 2)[-2]
                for d in defs
                if d.get("name") in CONSTRUCTORS and "." in str(d["qualname"])
            ]
        )
        for d in defs:
            for r in instantiations(view, d, link_row):
                key = (r["path"], r["startLine"], r["startCol"], r["kind"], str(d["qualname"]))
                if key not in seen:
                    seen.add(key)
                    bound[str(d["symbolId"])].append(r)
    order = _order
    # a row bound to two definitions (a prototype with one definition per
    # configuration) is one reference; so is a site two values of a name
    # bind to the asked ones (`opts` given `options: Options` and `clone(options)`)
    for owner, rs in bound.items():
        bound[owner] = _once_per_site(rs)
    unique = {id(r): r for rs in bound.values() for r in rs}
    all_bound = sorted(_once_per_site(list(unique.values())), key=order)
    # calls of a method the asked ones override, each once, saying which
    dispatch: dict[str, list[Result]] = {i: [] for i in by_id}
    all_dispatch = []
    named: dict[str, list[Result]] = {}  # a class's references, fetched once

    def refs_of(name: str) -> list[Result]:
        if name not in named:
            named[name] = view.refs(name)
        return named[name]

    shapes = Structural(linker, view.refs)
    found = dispatched(
        shapes,
        refs_of,
        link_row,
        lambda path, qual: _signature(view, path, qual),
        calls,
        defs,
        view.prefetch_refs,
    ) if calls else {}  # fmt: skip
    for call, (row, runs) in found.items():
        for d in runs:
            dispatch[str(d["symbolId"])].append(row)
        if call not in unique:  # else listed as bound to an asked definition
            all_dispatch.append(row)
    all_dispatch.sort(key=order)
    # a call listed as dispatching is not also one of the name's others; nor
    # is another value of a name bound at the same place (`t: Timeout |
    # Default` then `t.as_dict()`: Default has none, Timeout's is bound)
    placed = {_site(r) for r in (*all_bound, *all_dispatch)}
    candidates = _once_per_site(
        [r for r in candidates if id(r) not in found and _site(r) not in placed]
    )
    external = _once_per_site([r for r in external if id(r) not in found])
    groups: list[dict[str, Any]] = [
        {
            "definition": d,
            "bound": sorted(bound[str(d["symbolId"])], key=order),
            "dispatch": sorted(dispatch[str(d["symbolId"])], key=order),
            "candidateCount": len(candidates),
        }
        for d in defs
    ]
    candidates.sort(key=order)
    external.sort(key=order)
    return {
        "definitions": defs,
        "groups": groups,
        "bound": all_bound,
        "dispatch": all_dispatch,
        "candidates": candidates,
        "external": external,
        "results": [*all_bound, *all_dispatch, *candidates, *external],
        "unfollowedCalls": unfollowed,
    }


def _signature(view: RowView, path: str, key: str) -> str:
    """The signature of the definition of ``path`` whose symbol id or
    qualname is ``key`` (the first), as the summaries table holds it; ""
    if none."""
    for s in view.rows_now("summaries", path):
        if key in (s["symbol_id"], s["qualname"]):
            return str(s.get("signature") or "")
    return ""


def _link_row(linker: Linker, linking: bool, r: Result) -> None:
    """Link one reference row in place: its binding, via and target."""
    claim = r.get("binding") or "candidate"
    if not linking:  # read from source now: nothing beyond one file can be proven
        r["binding"] = "external" if claim == "external" else "candidate"
        r["targetSymbolId"] = None
        return
    called = r["name"] == lookup.RETURNED
    read = r["kind"] == "use"
    link = linker.link(
        claim, r.get("via") or "", r["resolvedPath"], r["targetQualname"], called, read
    )
    r["binding"], r["via"] = link.binding, link.via
    r["targetSymbolId"] = link.symbol["symbol_id"] if link.symbol else None
    if link.symbol is not None:
        r["targetPath"] = link.symbol["path"]
        r["targetQualname"] = link.symbol["qualname"]
    # a value that may be several definitions: each is a target
    r["alsoTargets"] = [(o["path"], o["qualname"]) for o in link.others]


def _exported_as_default(linker: Linker, d: Result) -> bool:
    """Whether a JavaScript or TypeScript file exports ``d`` as its default
    (``export default d``, or a default function or class); read through
    the linker, which keeps the file's rows for the links that follow."""
    if d.get("language") not in ("javascript", "typescript", "tsx"):
        return False
    return any(
        e["kind"] == "value"
        and e["source"] == DEFAULT
        and e.get("target_qualname") == d["qualname"]
        for e in linker.edges(str(d["path"]))
    )


def _instantiations_only(
    view: RowView, linker: Linker, classes: list[Result], method: str
) -> dict[str, Any]:
    """``refs C.__init__`` (``method``) for classes with none in the
    repository: each class as a definition, and the calls that instantiate
    it or a subclass that defines none, bound; nothing is name-matched to them."""
    linking = view.freshness in (Freshness.EXACT, Freshness.OVERLAY, Freshness.STALE)
    groups: list[dict[str, Any]] = []
    bound: list[Result] = []
    for cls in classes:
        implicit = {**cls, "name": method, "qualname": f"{cls['qualname']}.{method}"}
        made = instantiations(
            view,
            implicit,
            lambda r: _link_row(linker, linking, r),
            runs=f"its implicit {method} (none in the repository)",
        ) if linking else []  # fmt: skip
        for r in made:
            r.pop("alsoTargets", None)
        groups.append({"definition": cls, "bound": sorted(made, key=_order), "candidateCount": 0})
        bound.extend(made)
    bound.sort(key=_order)
    return {
        "definitions": classes,
        "groups": groups,
        "bound": bound,
        "candidates": [],
        "external": [],
        "results": bound,
        "unfollowedCalls": 0,
    }


# a declaration file's suffix -> the suffix of the module it declares
_DECLARING = {".pyi": ".py", ".d.ts": ".js", ".d.mts": ".mjs", ".d.cts": ".cjs"}


def _stubbed(path: str) -> str:
    """The module a declaration file declares (a Python stub ``m.pyi`` ->
    ``m.py``; TypeScript's ``m.d.ts`` for hand-written JavaScript ->
    ``m.js``); any other path itself."""
    for suffix, module in _DECLARING.items():
        if path.endswith(suffix):
            return path[: -len(suffix)] + module
    return path


def _once_per_site(rows: list[Result]) -> list[Result]:
    """The first row of each site: a name that may hold several values (`x:
    A | B`) writes a row each, and a call none of them names is one name
    match, not one per value."""
    seen: set[tuple[str, int, int, str]] = set()
    out = []
    for r in rows:
        if _site(r) not in seen:
            seen.add(_site(r))
            out.append(r)
    return out


def _site(r: Result) -> tuple[str, int, int, str]:
    return (str(r["path"]), int(r["startLine"]), int(r["startCol"]), str(r["kind"]))


def _order(r: Result) -> tuple[str, int, int]:
    return (str(r["path"]), int(r["startLine"]), int(r["startCol"]))
