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
