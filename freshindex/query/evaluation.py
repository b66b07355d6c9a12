"""Deciding how a query may be answered: freshness, the base version and the
overlay (query/answer.py then answers that way).

``evaluate`` relates HEAD and the worktree to the version being answered
from (a branch base, query/bases.py), builds or reuses the overlay of what
changed since, and says why an answer is partial or stale; ``Bases`` keeps
the published versions a service has loaded, ``Recent`` the overlays.
"""

from __future__ import annotations

import threading
import time
from typing import Generic, TypeVar

import pygit2
from cachetools import LRUCache

from freshindex.catalog.published import Published, PublishedIndex
from freshindex.catalog.reader import IndexVersion
from freshindex.core import gitrepo
from freshindex.core.exceptions import FreshindexError
from freshindex.indexer.config import CONFIG_FILE, IndexConfig, parse_config
from freshindex.indexer.languages import grammar_versions, indexer_digest
from freshindex.indexer.manifests import resolution_changed
from freshindex.query.answer import Answerer
from freshindex.query.bases import Base, choose_base
from freshindex.query.freshness import Freshness, Relation, basic_envelope
from freshindex.query.guard import WorktreeGuard
from freshindex.query.overlay import Overlay, build_overlay, change_set, worktree_index
from freshindex.query.view import worktree_bytes
from freshindex.query.worktree import WorktreeState, read_worktree
from freshindex.storage import Store

K = TypeVar("K")
V = TypeVar("V")


def worktree_config(repo: pygit2.Repository) -> IndexConfig:
    """freshindex.toml as it is in the worktree now (what a build of it would use)."""
    guard = WorktreeGuard.of(repo, IndexConfig())
    if guard.refusal(CONFIG_FILE) is not None:  # e.g. a symlink out of the repository
        return parse_config(None)
    path = guard.path(CONFIG_FILE)
    return parse_config(path.read_bytes() if path.is_file() else None)


def version_problems(version: IndexVersion) -> list[str]:
    """Reasons the running code would not produce this version's rows."""
    m = version.manifest
    problems = []
    if m.indexer.digest != indexer_digest():
        problems.append("indexer changed since this version was built")
    running = grammar_versions(sorted(m.grammars.keys() - {"tree-sitter"}))
    changed = sorted(k for k, v in m.grammars.items() if running.get(k) != v)
    if changed:
        problems.append(f"grammar version changed: {', '.join(changed)}")
    return problems


def head_commit(repo: pygit2.Repository) -> str | None:
    try:
        return str(repo.head.target)
    except (pygit2.GitError, KeyError):  # unborn HEAD
        return None


class Recent(Generic[K, V]):
    """The ``keep`` values last put or got, least recently used out
    (cachetools' LRU), behind a lock: answers run on several threads."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._values: LRUCache[K, V] = LRUCache(maxsize=keep)
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._values.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._values[key] = value

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._values)


class Bases:
    """Base selection (query/bases.py) for one store: which published version
    answers for this HEAD, with the versions it loaded kept for the next
    question (at most ``keep``, least recently used out; the service keeps
    them with their rows in memory)."""

    def __init__(
        self, store: Store, in_memory: bool = False, keep: int = 3, max_age: float = 0.0
    ) -> None:
        self.store = store
        self.in_memory = in_memory
        self.published = PublishedIndex(store, max_age)
        self._loaded: Recent[str, IndexVersion] = Recent(keep)

    def version(self, version_id: str) -> IndexVersion:
        found = self._loaded.get(version_id)
        if found is not None:
            return found
        loaded = IndexVersion.load(self.store, version_id)  # not under a lock: seconds at scale
        if self.in_memory:
            loaded = loaded.in_memory()
        self._loaded.put(version_id, loaded)
        return loaded

    def loaded(self) -> list[str]:
        return self._loaded.keys()

    def select(self, repo: pygit2.Repository, current: IndexVersion) -> tuple[IndexVersion, Base]:
        config = worktree_config(repo)
        current_id = current.manifest.versionId

        def problem_of(version_id: str) -> str | None:
            try:
                version = current if version_id == current_id else self.version(version_id)
            except FreshindexError as err:
                return str(err)
            problems = version_problems(version)
            if config.digest != version.manifest.configDigest:
                problems.append(f"configuration ({CONFIG_FILE}) differs")
            return "; ".join(problems) or None

        def candidates() -> list[Published]:
            published = self.published.refresh()
            pointer = current.pointer
            if pointer is not None and pointer.reason == "rollback":
                # what was published after the version rolled back to is suspect
                published = [p for p in published if p.seq <= pointer.seq]
            return published

        base = choose_base(repo, head_commit(repo), current.manifest, candidates, problem_of)
        chosen = current if base.version == current_id else self.version(base.version)
        return chosen, base


def overlays(keep: int = 4) -> Recent[tuple[str, ...], Overlay]:
    """The last overlays a service built, by what determines one: the base
    version, HEAD, the worktree's tree and the configuration. A watcher's
    checkpoint answers many questions about one worktree; each would parse
    (or read from the disk cache) the same changed files again: 7 ms for
    11 dirty files at 30,000."""
    return Recent(keep)


def evaluate(
    repo: pygit2.Repository,
    version: IndexVersion,
    use_overlay: bool = True,
    parse_now: bool = True,
    base: Base | None = None,
    current: str | None = None,
    wt: WorktreeState | None = None,
    overlays: Recent[tuple[str, ...], Overlay] | None = None,
) -> Answerer:
    """The envelope, and the overlay when answers need one.

    ``parse_now=False`` (status) decides freshness without parsing the changed
    files: within budget means ``overlay``, as queries will build it.

    Raises VerificationFailed when a table file of the version is missing or
    does not match its manifest: nothing is answered from it."""
    version.verified()
    wt = wt or read_worktree(repo)  # a watcher's proven checkpoint, else a read now
    config = worktree_config(repo)
    problems = version_problems(version)
    if config.digest != version.manifest.configDigest:
        problems.append(f"configuration ({CONFIG_FILE}) changed since this version was built")
    pointer = version.pointer
    if (
        pointer is not None
        and pointer.reason == "rollback"
        and version.manifest.sourceCommit != wt.head
    ):
        problems.append(
            "current version was rolled back and trails HEAD: diagnostics only until the requested rebuild"
        )
    env = basic_envelope(repo, version.manifest, wt, problems)
    env.currentVersion = current or (version.manifest.versionId if version.pointer else None)
    if base is not None:
        env.baseReason = base.reason
    # A diverged HEAD goes on like an ancestor: the overlay replaces every path
    # that differs between the indexed tree and the worktree, so index plus
    # overlay is the worktree's for any indexed commit the repository has.
    if problems or env.relation == Relation.UNKNOWN:
        env.freshness = Freshness.STALE
        return Answerer(repo, version, env, None, config, wt)
    if env.freshness == Freshness.EXACT:
        return Answerer(repo, version, env, None, config, wt)
    # ancestor and/or dirty: the reasons so far describe what changed
    changes = change_set(repo, version.manifest.sourceCommit, wt)
    n = len(changes.paths)
    if not use_overlay:
        env.freshness = Freshness.STALE
        env.reasons.append(
            "overlay disabled (--no-overlay): answers describe the indexed commit only"
        )
        return Answerer(repo, version, env, None, config, wt)
    forcing = sorted(
        p
        for p in changes.paths
        if config.forces_rebuild(p)
        and resolution_changed(
            p,
            gitrepo.blob_at(repo, version.manifest.sourceTree, p),
            worktree_bytes(repo, config, p),
        )
    )
    if forcing:
        env.freshness = Freshness.PARTIAL
        env.reasons.append(
            f"{forcing[0]} changed: the index must be rebuilt; reading source directly"
        )
        return Answerer(repo, version, env, None, config, wt)
    if n > config.overlay_budget_files:
        env.freshness = Freshness.PARTIAL
        env.reasons.append(
            f"{n} changed files exceed the overlay budget of {config.overlay_budget_files}; reading source directly"
        )
        return Answerer(repo, version, env, None, config, wt)
    if not parse_now:
        env.freshness = Freshness.OVERLAY
        return Answerer(repo, version, env, None, config, wt)
    started = time.perf_counter()
    key = (version.manifest.versionId, wt.head or "", wt.tree, config.digest)
    try:
        overlay = overlays.get(key) if overlays is not None else None
        if overlay is None:
            overlay = build_overlay(
                repo, changes, config, worktree_index(repo, wt, config.include_paths)[1]
            )
            if overlays is not None:
                overlays.put(key, overlay)
    except (OSError, pygit2.GitError, ValueError) as err:
        env.freshness = Freshness.PARTIAL
        env.reasons.append(f"overlay could not be built ({err}); reading source directly")
        return Answerer(repo, version, env, None, config, wt)
    env.freshness = Freshness.OVERLAY
    return Answerer(repo, version, env, overlay, config, wt, time.perf_counter() - started)
