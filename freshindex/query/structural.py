"""Types a class satisfies by having their methods, with no base naming
them: Go's interfaces and Python's ``typing.Protocol`` classes.

``Structural.methods_of`` gives a structural type's method set; a type
whose methods include it satisfies it: ``refs Server.Run`` then lists the
calls of ``Runner.Run`` as calls that may run it (query/dispatch.py). Methods are
matched by name, not by signature; a structural type with a member whose
methods are unseen here (a base or embedded interface outside the
repository, other than the few known below) is left out rather than
guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from freshindex.query.link import Linker

Row = dict[str, Any]

# the languages with structural types read here
LANGUAGES = ("go", "python")
# how deep embedded interfaces or protocol bases are read
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


class Structural:
    """The structural types one answer meets, each read once. ``refs_of(name)``:
    the references of a name in the answer's view (``RowView.refs``), to
    find the Python classes that name ``Protocol`` without reading every
    file that defines a method of the asked name."""

    def __init__(self, linker: Linker, refs_of: Callable[[str], list[Row]]):
        self.linker = linker
        self._refs_of = refs_of
        self._protocols: set[tuple[str, str]] | None = None
        self._sets: dict[tuple[str, str], set[str] | None] = {}

    def methods_of(self, language: str, method: tuple[str, str]) -> set[str] | None:
        """The method set of the structural type whose method ``method`` is
        ((path, qualname)); None when its type is not structural (no Go
        interface, no Python Protocol) or a part of it is unseen."""
        path, qual = method
        owner = qual.rpartition(".")[0]
        key = (path, owner)
        if language not in LANGUAGES:
            return None
        if key not in self._sets:
            if language == "python" and key not in self.protocols():
                self._sets[key] = None
            else:
                self._sets[key] = _method_set(self.linker, language, path, owner, 0)
        return self._sets[key]

    def protocols(self) -> set[tuple[str, str]]:
        """(path, class) of every Python class that names ``Protocol`` among
        its bases."""
        if self._protocols is None:
            self._protocols = {
                (str(r["path"]), str(r.get("caller") or ""))
                for r in self._refs_of("Protocol")
                if r["kind"] == "inherit" and r.get("module") in _TYPING
            }
        return self._protocols


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
