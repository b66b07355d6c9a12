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
repository the type satisfies (``r.Run()`` on a ``Runner``).

Constructors are not dispatched (a subclass's constructor runs only when the
subclass is made, query/instantiations.py), nor Python's private
``__names`` (mangled per class).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from freshindex.indexer import bind_c

if TYPE_CHECKING:
    from freshindex.query.link import Linker

Row = dict[str, Any]

# the bases followed up from a class, at most
MAX_ANCESTORS = 32
OVERRIDES, IMPLEMENTS = "overrides", "implements"
# the method sets of the Go standard library's interfaces that interfaces
# most often embed (`io.ReadCloser` in an interface): facts of the language's
# library, which no repository defines
_GO_STANDARD = {
    "error": {"Error"},
    "fmt.Stringer": {"String"},
    "io.Reader": {"Read"},
    "io.Writer": {"Write"},
    "io.Closer": {"Close"},
    "io.Seeker": {"Seek"},
    "io.ReaderAt": {"ReadAt"},
    "io.WriterAt": {"WriteAt"},
    "io.ReaderFrom": {"ReadFrom"},
    "io.WriterTo": {"WriteTo"},
    "io.StringWriter": {"WriteString"},
    "io.ByteReader": {"ReadByte"},
    "io.ByteWriter": {"WriteByte"},
    "io.ReadCloser": {"Read", "Close"},
    "io.WriteCloser": {"Write", "Close"},
    "io.ReadWriter": {"Read", "Write"},
    "io.ReadWriteCloser": {"Read", "Write", "Close"},
    "io.ReadSeeker": {"Read", "Seek"},
    "io.ReadSeekCloser": {"Read", "Seek", "Close"},
    "io.WriteSeeker": {"Write", "Seek"},
    "io.ReadWriteSeeker": {"Read", "Write", "Seek"},
    "sort.Interface": {"Len", "Less", "Swap"},
    "context.Context": {"Deadline", "Done", "Err", "Value"},
    "http.Handler": {"ServeHTTP"},
    "fs.File": {"Stat", "Read", "Close"},
    "fs.FileInfo": {"Name", "Size", "Mode", "ModTime", "IsDir", "Sys"},
    "os.FileInfo": {"Name", "Size", "Mode", "ModTime", "IsDir", "Sys"},
}
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
    if d.get("language") == "go":
        return _go_interfaces(linker, path, owner, name)
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


def _go_interfaces(linker: Linker, path: str, owner: str, name: str) -> list[tuple[Row, str]]:
    """Go has no bases: a type satisfies every interface whose methods it
    has. The method ``name`` of each interface of the repository that
    declares it and whose whole method set (embedded interfaces included,
    when the repository defines them) type ``owner`` has, in its package's
    files; by name only (pointer and value receivers are not told apart).
    An interface that embeds one from outside the repository is left out
    (its methods are unseen here), unless it is one of the standard
    library's in _GO_STANDARD (``io.Closer``)."""
    has = {
        qual.rpartition(".")[2]
        for f in [path, *linker.package_of(path)]
        for qual, row in linker.defs(f).items()
        if row["kind"] == "method" and qual.rpartition(".")[0] == owner
    }
    out = []
    for m in linker.c.named(name):
        iface = str(m.get("container") or "")
        if m.get("language") != "go" or m["kind"] != "method" or not iface:
            continue
        methods = _go_method_set(linker, str(m["path"]), iface, 0)
        if methods is not None and name in methods and methods <= has:
            out.append((m, IMPLEMENTS))
    return out[:MAX_ANCESTORS]


def _go_method_set(linker: Linker, path: str, iface: str, depth: int) -> set[str] | None:
    """The methods of Go interface ``iface`` of ``path``; None when it is no
    interface or embeds one the repository does not define."""
    row = linker.defs(path).get(iface)
    if row is None or row["kind"] != "interface" or depth > 4:
        return None
    found = {q.rpartition(".")[2] for q in linker.defs(path) if q.rpartition(".")[0] == iface}
    for e in linker.edges(path):
        if e["kind"] != "inherit" or e.get("source") != iface:
            continue
        package = str(e.get("module") or "").rsplit("/", 1)[-1]  # net/http -> http
        known = _GO_STANDARD.get(f"{package}.{e['target']}" if package else e["target"])
        if known is not None and (e.get("binding") == "external" or e["target"] == "error"):
            found |= known
            continue
        if e.get("binding") != "bound" or not e.get("resolved_path"):
            return None
        inner = linker.find(str(e["resolved_path"]), str(e.get("target_qualname") or ""))
        more = (
            _go_method_set(linker, inner["path"], inner["qualname"], depth + 1) if inner else None
        )
        if more is None:
            return None
        found |= more
    return found


def through_instance(kind: str, claimed_via: str) -> bool:
    """Whether a call bound to an overridden method may dispatch: made on
    an instance or ``self``, not naming the base's method itself.
    ``claimed_via``: the row's via as its file claimed it, before linking."""
    return kind == "call" and not claimed_via.startswith(_EXPLICIT)
