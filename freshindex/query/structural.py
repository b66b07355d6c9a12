"""Types a class satisfies by having their methods, with no base naming
them: Go's interfaces and Python's ``typing.Protocol`` classes.

``satisfied`` finds, for a method name and the set of method names a type
has, the methods of that name in every such type of the repository whose
whole method set the type has: ``refs Server.Run`` then lists the calls of
``Runner.Run`` as calls that may run it (query/dispatch.py). Methods are
matched by name, not by signature; a structural type with a member whose
methods are unseen here (a base or embedded interface outside the
repository, other than the few known below) is left out rather than
guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from freshindex.query.link import Linker

Row = dict[str, Any]

# the structural types followed for one method, at most; and how deep their
# embedded interfaces or protocol bases are read
MAX_TYPES = 32
MAX_DEPTH = 4
_TYPING = ("typing", "typing_extensions")

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


def satisfied(linker: Linker, language: str, name: str, has: set[str]) -> list[Row]:
    """The method ``name`` of each structural type of ``language`` in the
    repository (a Go interface, a Python Protocol) whose methods are all in
    ``has``."""
    out = []
    for m in linker.c.named(name):
        owner = str(m.get("container") or "")
        if m.get("language") != language or m["kind"] != "method" or not owner:
            continue
        methods = _method_set(linker, language, str(m["path"]), owner, 0)
        if methods is not None and name in methods and methods <= has:
            out.append(m)
            if len(out) >= MAX_TYPES:
                break
    return out


def go_methods(linker: Linker, path: str, owner: str) -> set[str]:
    """The methods of Go type ``owner``, in any file of its package."""
    return {
        qual.rpartition(".")[2]
        for f in [path, *linker.package_of(path)]
        for qual, row in linker.defs(f).items()
        if row["kind"] == "method" and qual.rpartition(".")[0] == owner
    }


def python_methods(linker: Linker, path: str, owner: str) -> set[str]:
    """The methods of Python class ``owner``, inherited ones included."""
    out: set[str] = set()
    for cls in linker.mro(path, owner, 0):
        prefix = f"{cls['qualname']}."
        out |= {
            q[len(prefix) :]
            for q, row in linker.defs(str(cls["path"])).items()
            if q.startswith(prefix) and "." not in q[len(prefix) :] and row["kind"] == "method"
        }
    return out


def _method_set(
    linker: Linker, language: str, path: str, owner: str, depth: int
) -> set[str] | None:
    """The methods of structural type ``owner`` of ``path`` with those of
    what it embeds or derives from; None when it is not structural or a
    part of it is unseen."""
    row = linker.defs(path).get(owner)
    if row is None or depth > MAX_DEPTH:
        return None
    if language == "go" and row["kind"] != "interface":
        return None
    prefix = f"{owner}."
    found = {
        q[len(prefix) :]
        for q, r in linker.defs(path).items()
        if q.startswith(prefix) and "." not in q[len(prefix) :] and r["kind"] == "method"
    }
    protocol = False
    for e in linker.edges(path):
        if e["kind"] != "inherit" or e.get("source") != owner:
            continue
        known = _known(language, e)
        if known is not None:
            protocol = protocol or e["target"] == "Protocol"
            found |= known
            continue
        if e.get("binding") != "bound" or not e.get("resolved_path"):
            return None
        inner = linker.find(str(e["resolved_path"]), str(e.get("target_qualname") or ""))
        more = (
            _method_set(linker, language, inner["path"], inner["qualname"], depth + 1)
            if inner is not None
            else None
        )
        if more is None:
            return None
        found |= more
    # a Python class is a protocol only when it names Protocol among its
    # bases; one that derives from a protocol alone is a class like others
    if language == "python" and not protocol:
        return None
    return found


def _known(language: str, e: Row) -> set[str] | None:
    """The methods an outside base contributes when they are known: Go's
    standard interfaces, and Python's ``Protocol``/``Generic`` (none)."""
    module = str(e.get("module") or "")
    if language == "python":
        if module in _TYPING and e["target"] in ("Protocol", "Generic"):
            return set()
        return None
    if e.get("binding") != "external" and e["target"] != "error":
        return None
    package = module.rsplit("/", 1)[-1]  # net/http -> http
    return _GO_STANDARD.get(f"{package}.{e['target']}" if package else e["target"])
