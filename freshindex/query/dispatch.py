"""Calls that may run an overriding method without naming it.

``b.run()`` on a receiver declared as ``Base`` binds to ``Base.run``: that is
the method the code names, and ``refs Base.run`` lists it. At run time the
call executes ``Impl.run`` whenever the receiver is an ``Impl`` that
overrides it, and so does ``self.run()`` in a method of ``Base``. Asked what
calls ``Impl.run`` (what a change to it can break), an answer without them
would read as "only the callers that name Impl", which the code does not
prove. So ``refs Impl.run`` lists them apart from its bound references, as
its ``dispatch`` rows: calls bound to the same method of any class ``Impl``
derives from (as far up as the linker follows bases), made through an
instance or ``self``. A call that names the base's method itself runs the
base's and is left out: ``super().run()``, ``Base.run(self)``, ``Base::Run()``.

Go has no bases but structural interfaces: a method of a type is listed
with the calls bound to the same method of every interface of the
repository the type satisfies (``r.Run()`` on a ``Runner``); so is a
Python method with the calls of a ``typing.Protocol``'s method its class
satisfies (query/structural.py).

The walk starts from the calls, not from the definitions asked about: for
each method some call is bound to, the subclasses of its class (from the
``inherit`` rows that name it, query/instantiations.py), so a bare name
with hundreds of definitions costs what its calls' classes cost. C++
classes, whose ``inherit`` rows are followed through the include graph
instead, are walked up from the asked method.

Constructors are not dispatched (a subclass's constructor runs only when the
subclass is made, query/instantiations.py), nor Python's private
``__names`` (mangled per class).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from freshindex.indexer import bind_c
from freshindex.query import structural
from freshindex.query.instantiations import subclasses

if TYPE_CHECKING:
    from freshindex.query.link import Linker

Row = dict[str, Any]
# (path, qualname) of a definition
At = tuple[str, str]

# the bases followed up from a C++ class, at most
MAX_ANCESTORS = 32
OVERRIDES, IMPLEMENTS = "overrides", "implements"
_CLASS_KINDS = ("class", "struct", "interface", "trait", "object", "enum")
_C_FAMILY = ("c", "cpp")
# languages whose static methods are written `static` (not dispatched); a
# Python @staticmethod called on an instance is looked up on its class
_STATIC_LANGUAGES = ("java", "csharp", "typescript", "tsx", "javascript", "php", "cpp")
# C#'s [Attribute(...)] and Java's @Annotation(...) before a signature
_ATTRIBUTES = re.compile(r"\[[^\]]*\]|@[\w.]+(\([^)]*\))?")
_CONSTRUCTORS = ("__init__", "__new__", "constructor", "init")
# how a call that names the base's method itself says so (its via as the
# file's rules claimed it, before linking)
_EXPLICIT = (
    "super",  # super().run(), super.run()
    "base.",  # C#'s base.Run()
    "defined in this module",  # Base.run(self) in Base's module
    "defined in an enclosing scope",
    "imported from",  # Base.run(self), Base imported
    bind_c.QUALIFIED_VIA,  # Base::Run()
)


def dispatched(
    shapes: structural.Structural,
    refs_of: Callable[[str], list[Row]],
    link_row: Callable[[Row], None],
    signature: Callable[[str, str], str],
    calls: list[tuple[Row, list[At], list[str]]],
    defs: list[Row],
    prefetch: Callable[[list[str]], None] | None = None,
) -> dict[int, tuple[Row, list[Row]]]:
    """The calls of ``calls`` (each: a linked row made on an instance, the
    methods it is bound to, the ids of the asked definitions among them)
    that may run a definition of ``defs`` through a method it overrides:
    id(row) -> (a copy of the row whose via says what it may run, those
    definitions). ``prefetch(names)``: read many names' references at once."""
    targets = {t for _r, ts, _o in calls for t in ts}
    over = overriders(shapes, refs_of, link_row, signature, targets, defs, prefetch)
    out = {}
    for r, reached, owners in calls:
        runs: list[Row] = []
        verb = OVERRIDES
        for t in reached:
            if t in over:
                found, verb = over[t]
                runs += [d for d in found if str(d["symbolId"]) not in owners and d not in runs]
        if runs:
            out[id(r)] = ({**r, "via": _dispatch_via(r, runs, verb)}, runs)
    return out


def _dispatch_via(r: Row, runs: list[Row], verb: str) -> str:
    """A dispatched call's via: how it bound, then what it may run
    (``verb``: overrides, implements)."""
    names = list(dict.fromkeys(str(d["qualname"]) for d in runs))  # a C++ method's two rows
    verb = verb if len(names) == 1 else verb.removesuffix("s")
    return f"{r.get('via') or 'bound'}; may run {' or '.join(names)}, which {verb} {r['targetQualname']}"


def overriders(
    shapes: structural.Structural,
    refs_of: Callable[[str], list[Row]],
    link_row: Callable[[Row], None],
    signature: Callable[[str, str], str],
    targets: set[At],
    defs: list[Row],
    prefetch: Callable[[list[str]], None] | None = None,
) -> dict[At, tuple[list[Row], str]]:
    """For each method in ``targets`` (what dispatching calls are bound
    to), the definitions of ``defs`` that override or implement it, and the
    verb that says which. ``refs_of(name)``: the view's references of a
    name; ``link_row``: links one in place; ``signature(path, key)``: the
    signature of a definition (by symbol id, or the first by qualname);
    ``shapes``: the answer's structural types and its linker."""
    linker = shapes.linker
    # (path, qualname) -> the definitions there (overloads, two branches)
    asked: dict[At, list[Row]] = {}
    for d in defs:
        if _may_override(d):
            asked.setdefault((str(d["path"]), str(d["qualname"])), []).append(d)
    out: dict[At, tuple[list[Row], str]] = {}
    if not asked:
        return out
    # only a method of an asked one's name can be overridden or implemented
    # by it: the others' subclasses are not looked for (a refs query links
    # every call of a returned value, `app()` of each class's __call__)
    names = {qual.rpartition(".")[2] for _path, qual in asked}
    owners: list[tuple[str, str, Row]] = []  # (path, method, its class)
    for path, qual in sorted(targets):
        owner, _, name = qual.rpartition(".")
        if name not in names:
            continue
        cls = linker.defs(path).get(owner) if owner else None
        if cls is None or cls["kind"] not in _CLASS_KINDS or cls["language"] in _C_FAMILY:
            continue
        if cls["language"] in _STATIC_LANGUAGES and _static(signature(path, qual), name):
            continue  # a static method is not dispatched on the receiver
        owners.append((path, qual, cls))
    if prefetch is not None:  # every class's subclasses are read by its name: at once
        prefetch([str(cls["name"]) for _path, _qual, cls in owners if cls["language"] != "go"])
    for path, qual, cls in owners:
        owner, _, name = qual.rpartition(".")
        found: list[Row] = []
        if cls["language"] != "go":
            for sub in subclasses(refs_of, link_row, [(path, owner)], prefetch=prefetch):
                found += asked.get((sub[0], f"{sub[1]}.{name}"), [])
        shaped = _satisfying(shapes, (path, qual), cls, [d for ds in asked.values() for d in ds])
        if cls["language"] in _STATIC_LANGUAGES:  # a static one of the same name overrides none
            found = [
                d for d in found if not _static(signature(str(d["path"]), str(d["symbolId"])), name)
            ]
        if found or shaped:
            # a protocol's or an interface's method is implemented
            verb = IMPLEMENTS if cls["kind"] == "interface" or shaped else OVERRIDES
            out[(path, qual)] = (found + [d for d in shaped if d not in found], verb)
    for d in (d for ds in asked.values() for d in ds):
        if d.get("language") == "cpp":
            for m in _cpp_overridden(linker, d):
                entry = out.setdefault((str(m["path"]), str(m["qualname"])), ([], OVERRIDES))
                entry[0].append(d)
    return out


def _static(signature: str, name: str) -> bool:
    """Whether a signature as the summaries table holds it declares a static
    method ``name`` (``public static Foo Make()``; ``[DllImport(...)]
    private static extern IntPtr f()``): the word before the name, past
    any attribute or annotation."""
    at = re.search(rf"\b{re.escape(name)}\s*[(<]", signature)
    head = signature[: at.start()] if at else signature.split("(", 1)[0]
    return "static" in _ATTRIBUTES.sub(" ", head).split()


def _may_override(d: Row) -> bool:
    """A method that can override another: not a constructor, not one of
    Python's class-private ``__names``."""
    owner, _, name = str(d.get("qualname") or "").rpartition(".")
    if not owner or name in _CONSTRUCTORS or name == owner.rpartition(".")[2]:
        return False
    return not (name.startswith("__") and not name.endswith("__"))


def _satisfying(shapes: structural.Structural, target: At, cls: Row, asked: Any) -> list[Row]:
    """The asked methods whose types satisfy ``target``'s structural type
    (a Go interface, a Python Protocol) without naming it."""
    linker = shapes.linker
    language = str(cls["language"])
    methods = shapes.methods_of(language, target)
    if methods is None:
        return []
    structural_type, _, name = target[1].rpartition(".")
    out = []
    for d in asked:
        owner, _, own = str(d["qualname"]).rpartition(".")
        if own != name or d.get("language") != language:
            continue
        if (str(d["path"]), owner) == (target[0], structural_type):
            continue  # the protocol's own method
        has = (
            structural.go_methods(linker, str(d["path"]), owner)
            if language == "go"
            else structural.python_methods(linker, str(d["path"]), owner)
        )
        if methods <= has:
            out.append(d)
    return out


def _cpp_overridden(linker: Linker, d: Row) -> list[Row]:
    """The methods C++ method ``d`` overrides: its name in each class its
    class derives from, as its file sees them through the include graph."""
    owner, _, name = str(d["qualname"]).rpartition(".")
    out: list[Row] = []
    for a in _c_ancestors(linker, str(d["path"]), owner):
        member = f"{a['qualname']}.{name}"
        # declared in the class, defined in a .cc file: every row of it
        out.extend(r for r in linker.c.named(member) if r["qualname"] == member)
    return out


def _c_ancestors(linker: Linker, path: str, owner: str) -> list[Row]:
    """The bases of C++ class ``owner`` as ``path`` sees it, breadth first."""
    cls = linker.c.class_of(path, owner)
    if cls is None:
        return []
    out: list[Row] = []
    seen = {cls["symbol_id"]}
    todo = [cls]
    while todo and len(out) < MAX_ANCESTORS:
        below = todo.pop(0)
        for base in linker.c.bases_of(str(below["path"]), below):
            if base["symbol_id"] not in seen:
                seen.add(base["symbol_id"])
                out.append(base)
                todo.append(base)
    return out


def through_instance(kind: str, claimed_via: str) -> bool:
    """Whether a call bound to an overridden method may dispatch: made on
    an instance or ``self``, not naming the base's method itself.
    ``claimed_via``: the row's via as its file claimed it, before linking."""
    return kind == "call" and not claimed_via.startswith(_EXPLICIT)
