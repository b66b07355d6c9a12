"""Whether the table files of a version are what its manifest says they are.

Two checks, used by every reader and by health (``verify`` hashes everything
every time, on purpose):

- presence: every file exists with its manifest's size, found with one
  listing per version folder (a deleted or truncated file is caught before a
  single row is read);
- content: a local file's sha256, hashed only when its stat stamp (size,
  mtime, ctime, inode) is not one it was verified with, in this process or,
  through a marker under the cache folder, in an earlier one, as git's index
  keeps a stat cache. A flipped byte changes mtime and ctime. A file whose
  mtime is under RACY_SECONDS old is hashed every time: a write within the
  same clock tick as the check would leave the stamp unchanged (git's "racy
  git" rule).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable

from freshindex.catalog.manifest import TableEntry
from freshindex.process.cache import cache_dir
from freshindex.storage.base import Store

RACY_SECONDS = 2.0

# local table file -> the stat stamp it had when this process verified it
_VERIFIED: dict[str, str] = {}


def missing_or_resized(store: Store, tables: Iterable[TableEntry]) -> list[str]:
    """One problem per table file that is absent or not its manifest's size."""
    folders: dict[str, list[TableEntry]] = {}
    for t in tables:
        folders.setdefault(t.key.split("/shards/", 1)[0] + "/", []).append(t)
    problems = []
    for folder, entries in folders.items():
        sizes = store.sizes(folder)
        for t in entries:
            size = sizes.get(t.key)
            if size is None:
                problems.append(f"table file {t.key} is missing")
            elif size != t.bytes:
                problems.append(f"table file {t.key} has {size} bytes, its manifest says {t.bytes}")
    return problems


def local_file_problem(entry: TableEntry, path: str) -> str | None:
    """Why the local file at ``path`` is not ``entry``'s table file, or None."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"table file {entry.key} is missing"
    stamp = f"{entry.sha256} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino}"
    settled = time.time() - max(st.st_mtime, st.st_ctime) >= RACY_SECONDS
    if settled and _VERIFIED.get(path) == stamp:
        return None
    marker = cache_dir("verified") / entry.sha256[:2] / entry.sha256
    if settled:
        with contextlib.suppress(OSError):
            if marker.read_text() == stamp:
                _VERIFIED[path] = stamp
                return None
    with open(path, "rb") as fh:
        mismatch = entry.mismatch(fh.read())
    if mismatch:
        _VERIFIED.pop(path, None)
        return mismatch
    if settled:
        _VERIFIED[path] = stamp
        with contextlib.suppress(OSError):  # a read-only cache only costs a hash next time
            marker.parent.mkdir(parents=True, exist_ok=True)
            tmp = marker.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(stamp)
            os.replace(tmp, marker)
    return None
