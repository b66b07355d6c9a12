"""A git tree entry as every layer sees it: the unit a shard is made of."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TreeEntry:
    """One blob (or link, or submodule) of the commit's tree. ``size`` -1:
    not read yet (build_shard_tables asks ``size_of``)."""

    path: str
    oid: str
    mode: int
    size: int


def storable_path(path: str) -> str:
    """A git path as every table, answer and JSON document holds it: valid UTF-8.

    pygit2 hands over a name that is not UTF-8 surrogate-escaped, which Arrow
    cannot store. Such a path is written with each backslash as ``\\x5c`` and
    each byte that is not UTF-8 as ``\\xNN``, so every backslash of a stored
    path starts an escape and the bytes can be recovered exactly. A path with
    a backslash is ``invalid-path`` (indexer/document.py), so these are
    recorded, never parsed nor read."""
    if "\\" not in path:
        if path.isascii():
            return path
        try:
            path.encode("utf-8")
            return path
        except UnicodeEncodeError:
            pass
    raw = path.encode("utf-8", "surrogateescape").replace(b"\\", b"\\x5c")
    return raw.decode("utf-8", "backslashreplace")
