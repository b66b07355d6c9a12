"""Kotlin imports the file name alone does not resolve.

A Kotlin file may be named after nothing it declares: okhttp's top-level
functions live in `-UtilJvm.kt`, `object TestUtil` in `TestUtilJvm.kt`, and
an import may name a member of a class or of its companion object
(`import okhttp3.HttpUrl.Companion.toHttpUrl`). indexer/resolve.py tries the
path as a file first; ``by_package`` then finds the class's file or a file
of the package's folder, whose other files the linker reads too
(query/link.py, folder-scoped as Go and C#). ``kotlin_member`` is what the
import brings, as the definitions are named (a companion's members are the
class's).

A package is the import's lower-case leading names, and its folder is
the one they spell right under a source root (`src/main/kotlin`, `java`,
`src`) or at the top: `kotlinx.coroutines.launch` is not a repository
folder named `coroutines`, and `okio.Buffer` not `okhttp3/okio`.
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Callable

_SOURCES = (".kt", ".kts")


def kotlin_package(parts: list[str]) -> list[str]:
    """The package of a Kotlin import path: its lower-case leading names
    before the last (which is what the import brings, of any case)."""
    return list(itertools.takewhile(lambda part: part[:1].islower(), parts[:-1]))


def kotlin_member(spec: str) -> str:
    """What a Kotlin import brings, as its file names it: the path after the
    package, a companion object's members as the class's
    (`okhttp3.HttpUrl.Companion.toHttpUrl` is `HttpUrl.toHttpUrl`)."""
    parts = spec.split(".")
    rest = parts[len(kotlin_package(parts)) :]
    return ".".join(part for part in rest if part != "Companion") or parts[-1]


def by_package(
    parts: list[str],
    from_path: str,
    suffix: Callable[[str, str], str | None],
    dir_suffix: dict[str, list[str]],
    dirs: dict[str, list[str]],
) -> str | None:
    """The file of the import's class (`okhttp3/HttpUrl.kt`), else, in the
    package's folders, a file named after the object or class it names
    (`TestUtilJvm.kt`), else the first Kotlin file of the package's main
    folder nearest the importer; None when no folder is the package's.
    ``suffix``, ``dir_suffix`` and ``dirs`` are the path index's."""
    package = kotlin_package(parts)
    rest = parts[len(package) :]
    if not package:
        return None
    if rest[0][:1].isupper():
        found = suffix("/".join([*package, rest[0]]) + ".kt", from_path)
        if found:
            return found
    spelled = "/".join(package)
    folders = [d for d in dir_suffix.get(spelled, ()) if _is_package_folder(d, spelled)]
    if not folders:
        return None
    if rest[0][:1].isupper():  # an object or class in a file named after it and more
        named = [
            f
            for d in folders
            for f in dirs[d]
            if posixpath.basename(f).startswith(rest[0]) and f.endswith(_SOURCES)
        ]
        if named:
            return max(named, key=lambda f: (len(posixpath.commonprefix([f, from_path])), f))
    # a top-level function, or a class in a file named otherwise (a sealed
    # class's subclasses): a package's main sources before its tests', then
    # the folder nearest the importer, whose other files the linker reads
    chosen = min(
        folders, key=lambda d: (_in_tests(d), -len(posixpath.commonprefix([d, from_path])))
    )
    files = sorted(f for f in dirs[chosen] if f.endswith(_SOURCES))
    return files[0] if files else None


# the folders a source root ends with (`src/main/kotlin`, `src/test/java`,
# a bare `src`): a package's folder sits right under one
_ROOTS = frozenset({"kotlin", "java", "src"})


def _is_package_folder(folder: str, package: str) -> bool:
    """Whether ``folder`` is ``package``'s, not a deeper package's that ends
    the same way (`okhttp3/okio` is not package `okio`)."""
    above = folder[: -len(package)].rstrip("/")
    return not above or posixpath.basename(above) in _ROOTS


def _in_tests(folder: str) -> bool:
    """A folder of a test source set (`src/test`, `src/jvmTest`, `androidTest`)."""
    return any("test" in part.lower() for part in folder.split("/"))
