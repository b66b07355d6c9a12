"""Published versions of a store, as (seq, version, commit), and the nearest
one on HEAD's history.

The publication records are read once per machine (``PublishedIndex`` keeps
what it has read in the cache folder and reads only records past it), so
base selection (query/bases.py), updates (tasks/update.py) and gc's branch
rule share one view of what was published.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pygit2

from freshindex.catalog.layout import (
    RECORDS,
    branch_pointers,
    read_manifest,
    read_many_records,
    record_seq,
)
from freshindex.catalog.manifest import PublicationRecord
from freshindex.core.exceptions import FreshindexError
from freshindex.process.cache import cache_dir
from freshindex.storage import Store

# how far back HEAD's history is searched for a published commit: a branch
# this far from any indexed commit is better served by a build
MAX_WALK = 10_000


@dataclass(frozen=True)
class Published:
    seq: int
    version: str
    commit: str


class PublishedIndex:
    """Every published version's (seq, version, commit): main's from the
    store's publication records, and the versions branch pointers name. Records are immutable, so each is read once per
    machine and kept in freshindex's cache, keyed by the store; a refresh
    lists only the records after those it holds (one LIST page per 1,000
    publications) and reads the new ones. A seq missing below the newest
    (a writer between its swap and its record, or one that crashed there) is
    listed again until it appears."""

    def __init__(self, store: Store, max_age: float = 0.0, cache: Path | None = None) -> None:
        self.store = store
        self.max_age = max_age  # a long-lived reader lists at most this often
        self._listed_at = float("-inf")
        key = hashlib.sha256(store.describe().encode()).hexdigest()[:24]
        self.path = cache or cache_dir("published", f"{key}.json")
        self._lock = threading.Lock()
        self._by_seq: dict[int, Published] = {}
        self._branches: list[Published] = []
        self._commits: dict[str, str] = {}  # branch version -> its commit
        self._loaded = False

    def _load(self) -> None:
        self._loaded = True
        try:
            rows = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return
        for seq, version, commit in rows if isinstance(rows, list) else []:
            self._by_seq[int(seq)] = Published(int(seq), str(version), str(commit))

    def _save(self) -> None:
        rows = [[p.seq, p.version, p.commit] for p in sorted(self._by_seq.values(), key=_seq)]
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(rows))
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)  # a read-only cache only costs the next call a re-read

    def refresh(self) -> list[Published]:
        with self._lock:
            if time.monotonic() - self._listed_at < self.max_age:
                return self._all()
            if not self._loaded:
                self._load()
            through = 0
            while through + 1 in self._by_seq:
                through += 1
            start = f"{RECORDS}{through:012d}.json" if through else None
            keys = [
                k
                for k in self.store.list(RECORDS, start_after=start)
                if (seq := record_seq(k)) is not None and seq not in self._by_seq
            ]
            if keys:
                for record in read_many_records(self.store, keys):
                    self._by_seq[record.seq] = _published(record)
                self._save()
            self._branches = self._branch_versions()
            self._listed_at = time.monotonic()
            return self._all()

    def _all(self) -> list[Published]:
        # branch versions first: of two versions of one commit, main's wins
        return self._branches + sorted(self._by_seq.values(), key=_seq)

    def _branch_versions(self) -> list[Published]:
        """The versions branch pointers name (`update --rev BRANCH`), seq 0:
        they are not in main's sequence. A manifest is read once per version."""
        out = []
        for pointer in branch_pointers(self.store).values():
            commit = self._commits.get(pointer.version)
            if commit is None:
                try:
                    commit = read_manifest(self.store, pointer.version).sourceCommit
                except FreshindexError:
                    continue  # gone or corrupt: not a base
                self._commits[pointer.version] = commit
            out.append(Published(0, pointer.version, commit))
        return out


def _seq(p: Published) -> int:
    return p.seq


def _published(record: PublicationRecord) -> Published:
    return Published(record.seq, record.version, record.sourceCommit)


def nearest_published_ancestor(
    repo: pygit2.Repository, head: str, published: list[Published]
) -> tuple[Published, int] | None:
    """The published version of the first of HEAD's ancestors (HEAD included)
    that has one, in topological order, and how many commits were walked to
    reach it. Of several versions of one commit, main's latest (``published``
    lists branch versions first, then main's by seq)."""
    by_commit: dict[str, Published] = {}
    for p in published:  # the last one listed wins
        by_commit[p.commit] = p
    if not by_commit:
        return None
    walker = repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    for walked, commit in enumerate(walker):
        if walked >= MAX_WALK:
            return None
        found = by_commit.get(str(commit.id))
        if found is not None:
            return found, walked
    return None


def branch_bases(repo: pygit2.Repository, published: list[Published]) -> dict[str, str]:
    """branch name -> the version a query on that local branch would start
    from: the nearest published ancestor of its tip (what gc keeps for it)."""
    out: dict[str, str] = {}
    for name in sorted(repo.branches.local):
        try:
            tip = str(repo.branches.local[name].peel(pygit2.Commit).id)
        except (pygit2.GitError, KeyError, ValueError):
            continue
        found = nearest_published_ancestor(repo, tip, published)
        if found is not None:
            out[name] = found[0].version
    return out
