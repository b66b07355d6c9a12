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

Constructors are not dispatched (a subclass's constructor runs only when the
subclass is made, query/instantiations.py), nor Python's private
``__names`` (mangled per class).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from freshindex.indexer import bind_c
from freshindex.query import structural

if TYPE_CHECKING:
    from freshindex.query.link import Linker

Row = dict[str, Any]

# the bases followed up from a class, at most
MAX_ANCESTORS = 32
OVERRIDES, IMPLEMENTS = "overrides", "implements"
_CLASS_KINDS = ("class", "struct", "interface", "trait", "object", "enum")
_C_FAMILY = ("c", "cpp")
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


def overridden(linker: Linker, d: Row) -> list[tuple[Row, str]]:
    """The definitions that method ``d`` (a result row: ``path``,
    ``qualname``, ``language``) overrides or implements: a member of its
    name in each class its class derives from, nearest first; each with the
    verb that says which."""
    owner, _, name = str(d.get("qualname") or "").rpartition(".")
    if not owner or name in _CONSTRUCTORS or name == owner.rpartition(".")[2]:
        return []
    if name.startswith("__") and not name.endswith("__"):
        return []
    path = str(d["path"])
    if d.get("language") == "go":  # no bases: the interfaces its methods satisfy
        has = structural.go_methods(linker, path, owner)
        return [(m, IMPLEMENTS) for m in structural.satisfied(linker, "go", name, has)]
    if d.get("language") in _C_FAMILY:
        ancestors = _c_ancestors(linker, path, owner)
    else:
        cls = linker.defs(path).get(owner)
        if cls is None or cls["kind"] not in _CLASS_KINDS:
            return []
        ancestors = linker.lineage(path, owner)
    out: list[tuple[Row, str]] = []
    for a in ancestors[:MAX_ANCESTORS]:
        member = f"{a['qualname']}.{name}"
        verb = IMPLEMENTS if a["kind"] == "interface" else OVERRIDES
        if d.get("language") in _C_FAMILY:
            # declared in the class, defined in a .cc file: every row of it
            out.extend((r, verb) for r in linker.c.named(member) if r["qualname"] == member)
        else:
            found = linker.defs(str(a["path"])).get(member)
            if found is not None:
                out.append((found, verb))
    if d.get("language") == "python":  # and the Protocols it satisfies without naming them
        named = {(str(r["path"]), str(r["qualname"])) for r, _verb in out}
        has = structural.python_methods(linker, path, owner)
        for m in structural.satisfied(linker, "python", name, has):
            if (str(m["path"]), str(m["qualname"])) not in named and m["container"] != owner:
                out.append((m, IMPLEMENTS))
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
