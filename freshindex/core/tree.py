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
    cannot store. Such a path is written with each byte that is not UTF-8 as
    ``\\xNN``, as Python's ``backslashreplace`` writes it; a name that is
    valid UTF-8 is kept as it is, backslashes included, so every tree entry's
    row carries the name git shows for it. A path with a backslash is
    ``invalid-path`` (indexer/document.py): recorded, never parsed nor read."""
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
