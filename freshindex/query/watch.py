"""A worktree watcher behind the freshness proof of a long-running service.

``serve`` and ``mcp`` answer many questions about a worktree that mostly does
not change between them. Without a watcher every answer reads it whole (the
article's recipe, query/worktree.py: a stat of every file, a hash of the
changed ones). With one, an answer starts from the last verified read (the
checkpoint) and reads again only what events say changed:

- every batch of file-system events (``watchfiles``, over the worktree and
  its git directory) gets a monotonic ``seq``, and each worktree path an
  event names is kept with the seq that last named it; the checkpoint
  records the seq its read started after;
- before using the checkpoint, the answer syncs with the watcher the way
  Watchman does: it creates a cookie file in the git directory and waits
  until the watcher has delivered that file's event. Events are delivered in
  order, so every change made before the answer started has then been seen;
- nothing named since the checkpoint: the checkpoint is the answer's state
  (``checkpoint``); a few paths named: only those are read again, a named
  folder standing for every file under it, on disk and in the tree before
  (``rehash``, worktree.rehash); many paths, or an ignore or attributes file
  among them: a full read (``scan``, cause ``changed``);
- any doubt is a full read (a *recrawl*), counted by cause: ``start`` (no
  checkpoint yet), ``stopped`` (the watcher was stopped, or died on an
  error: the answer that finds it dead starts it again and reads
  everything), ``sync-timeout`` (the cookie did not come back in time:
  events may be queued or lost), ``timer`` (the last full read is older than
  a safety interval), ``git`` (HEAD, refs, packed-refs, the index or the
  repository's config changed). This is Watchman's "fresh instance" rule.
  A kernel queue overflow is one doubt watchfiles does not report
  (samuelcolvin/watchfiles#348); see ``_record`` for what covers it.

Never is a state claimed that was not verified: an answer's ``worktreeTree``
is a read made for it, or the checkpoint with the paths named since read
again, proven complete by the cookie. A git command at work (an
``index.lock``) is waited for briefly (worktree.await_git_lock). A plain CLI
call has no watcher and reads everything, as before.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pygit2

from freshindex.query.worktree import (
    LOCK_WAIT_SECONDS,
    WorktreeState,
    await_git_lock,
    read_worktree,
    rehash,
)

COOKIE_PREFIX = "freshindex-cookie-"
# git-directory paths whose changes do not change the worktree's state
_GIT_NOISE = ("objects/", "logs/", COOKIE_PREFIX)
# worktree files that change how other paths are read (ignored or not,
# filtered how, submodules): a change to one is a full read
_RULE_FILES = frozenset({".gitignore", ".gitattributes", ".gitmodules"})


@dataclass(frozen=True)
class Checkpoint:
    state: WorktreeState
    seq: int  # the read began after every event up to this seq
    at: float  # monotonic time of the last full read (scan) it descends from


@dataclass(frozen=True)
class Observation:
    """An answer's worktree state and how it was obtained."""

    state: WorktreeState
    seq: int | None  # the watcher seq the state reflects (None: no watcher)
    source: str  # "checkpoint" (reused), "rehash" (named paths read again) or "scan"
    cause: str | None  # why not reused: start, stopped, sync-timeout, timer, git, changed


class Sync:
    """A cookie written at the start of an answer (Watcher.begin): once its
    event is back, every change made before it has been delivered. Written
    first, so the round trip overlaps the answer's other work."""

    def __init__(self, path: Path | None, forget: Callable[[str], None] = lambda name: None):
        self.path = path  # None: it could not be written
        self._forget = forget  # the watcher stops waiting for it

    @property
    def name(self) -> str | None:
        return self.path.name if self.path is not None else None

    def close(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self._forget(self.path.name)
            self.path = None


class Watcher:
    """Watches one worktree and its git directory on a thread of its own."""

    SYNC_SECONDS = 2.0
    SAFETY_SECONDS = 300.0
    # paths named since the checkpoint beyond which one full read is cheaper
    # than a status lookup each (~0.25 ms a path against ~100 ms a scan)
    MAX_NAMED = 256
    # a watch thread that died is started again after this long, twice as
    # long each time it dies young again (a file name watchfiles cannot
    # decode kills it at every event on that file), up to MAX_REVIVE_SECONDS
    REVIVE_SECONDS = 1.0
    MAX_REVIVE_SECONDS = 300.0

    def __init__(self, repo: pygit2.Repository) -> None:
        if repo.workdir is None:
            raise ValueError("a bare repository has no worktree to watch")
        self.repo_path = repo.path
        self.workdir = Path(repo.workdir).resolve()
        self.git_dir = Path(repo.path).resolve()
        self.seq = 0
        self.recrawls: Counter[str] = Counter()
        self.error: BaseException | None = None
        self._cond = threading.Condition()
        self._last_git_seq = 0  # seq of the newest event that changes git state
        self._last_rules_seq = 0  # seq of the newest event on a _RULE_FILES file
        self._flood_seq = 0  # seq at which more than MAX_NAMED paths were pending
        self._named: dict[str, int] = {}  # worktree path -> seq that last named it
        # cookies an answer waits for, and those of them whose event came
        # (only these: a cookie's deletion, or one that came too late, is
        # not kept for the life of the service)
        self._cookies_awaited: set[str] = set()
        self._cookies_seen: set[str] = set()
        self._cookie_ids = itertools.count()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._running = False
        self._checkpoint: Checkpoint | None = None
        self._scan_lock = threading.Lock()
        self._repo: pygit2.Repository | None = None
        self._thread = threading.Thread(target=self._run, name="worktree-watcher", daemon=True)
        self._spawned = 0.0
        self._died = 0.0
        self._revive_delay = self.REVIVE_SECONDS
        self._young_deaths = 0  # deaths in a row within a minute of a start
        self.revivals = 0

    def start(self) -> Watcher:
        self._spawn()
        return self

    def _spawn(self) -> None:
        self._ready.clear()
        self._thread = threading.Thread(target=self._run, name="worktree-watcher", daemon=True)
        self._running = True
        self._spawned = time.monotonic()
        self._thread.start()
        # the first batch (yield_on_timeout) tells that the watch is in
        # place; until then, answers recrawl
        self._ready.wait(timeout=self.SYNC_SECONDS)

    def _revive(self) -> bool:
        """Start a watch thread that died (an error, not ``stop``) again.
        Events between its death and now were never seen, so the checkpoint
        goes with it and the answer that revives it reads everything."""
        if self.running or self._stop.is_set():
            return False
        if time.monotonic() - self._died < self._revive_delay:
            return False
        self._checkpoint = None
        self.revivals += 1
        self._spawn()
        return self.running

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    @property
    def running(self) -> bool:
        return self._running and self._thread.is_alive()

    def _run(self) -> None:
        import watchfiles

        paths = [str(self.workdir)]
        if not self.git_dir.is_relative_to(self.workdir):
            paths.append(str(self.git_dir))  # a linked worktree or --separate-git-dir
        try:
            for changes in watchfiles.watch(
                *paths,
                watch_filter=None,  # every path counts: .git, .venv, node_modules alike
                debounce=50,
                step=1,
                stop_event=self._stop,
                rust_timeout=200,
                yield_on_timeout=True,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                self._ready.set()
                if changes:
                    self._record(changes)
        except BaseException as err:  # an OS error, or a name it cannot decode: answers recrawl
            self.error = err
        finally:
            self._running = False
            self._died = time.monotonic()
            self._young_deaths = self._young_deaths + 1 if self._died - self._spawned < 60 else 1
            self._revive_delay = min(
                self.REVIVE_SECONDS * 2 ** (self._young_deaths - 1), self.MAX_REVIVE_SECONDS
            )
            self._ready.set()
            with self._cond:
                self._cond.notify_all()

    def _record(self, changes: set[tuple[Any, str]]) -> None:
        with self._cond:
            self.seq += 1
            for _kind, raw in changes:
                path = Path(raw)
                if path.is_relative_to(self.git_dir):
                    rel = path.relative_to(self.git_dir).as_posix()
                    if rel.startswith(COOKIE_PREFIX):
                        if rel in self._cookies_awaited:
                            self._cookies_seen.add(rel)
                    elif not rel.startswith(_GIT_NOISE) and not rel.endswith(".lock"):
                        self._last_git_seq = self.seq
                elif path.is_relative_to(self.workdir) and path != self.workdir:
                    rel = path.relative_to(self.workdir).as_posix()
                    if path.name in _RULE_FILES:
                        self._last_rules_seq = self.seq
                    self._named[rel] = self.seq
                    if len(self._named) > self.MAX_NAMED:
                        # a full read covers them all. It also covers what a
                        # kernel queue overflow would lose: watchfiles drops
                        # that event (it has no path; samuelcolvin/watchfiles#348),
                        # and an overflow takes a burst of more events than
                        # the queue holds (16,384) before they are drained,
                        # which names more than MAX_NAMED paths here, or
                        # comes with git state changes (a recrawl), or
                        # with neither: the 5-minute timer's case.
                        self._flood_seq = self.seq
                        self._named.clear()
                elif path == self.workdir:
                    self._last_rules_seq = self.seq  # the root itself: read everything
            self._cond.notify_all()

    def begin(self) -> Sync:
        """Write a cookie now; ``observe`` waits for its event."""
        path = self.git_dir / f"{COOKIE_PREFIX}{os.getpid()}-{next(self._cookie_ids)}"
        with self._cond:
            self._cookies_awaited.add(path.name)  # before its event can come
        try:
            path.write_bytes(b"")
        except OSError:
            self._forget_cookie(path.name)
            return Sync(None)
        return Sync(path, self._forget_cookie)

    def _forget_cookie(self, name: str) -> None:
        with self._cond:
            self._cookies_awaited.discard(name)
            self._cookies_seen.discard(name)

    def _await(self, sync: Sync) -> bool:
        """Whether the cookie's event came back within SYNC_SECONDS."""
        name = sync.name
        if name is None:
            return False
        deadline = time.monotonic() + self.SYNC_SECONDS
        try:
            with self._cond:
                while name not in self._cookies_seen:
                    left = deadline - time.monotonic()
                    if left <= 0 or not self.running:
                        return False
                    self._cond.wait(left)
                return True
        finally:
            sync.close()

    def observe(self, repo: pygit2.Repository, sync: Sync | None = None) -> Observation:
        """The worktree's state for an answer that started when ``sync`` was
        written (now, without one). See the module's text."""
        locked, note = await_git_lock(repo, LOCK_WAIT_SECONDS)
        if locked or sync is None:
            if sync is not None:
                sync.close()  # a git command ran since: sync after it
            sync = self.begin()
        with self._scan_lock:  # one read at a time; later answers reuse it
            # reads go through the watcher's own Repository, used under this
            # lock only: it keeps the parsed index between answers (at 30,000
            # files a new one parses it again, 16 ms, for one status lookup)
            if self._repo is None or self._repo.path != repo.path:
                self._repo = pygit2.Repository(repo.path)
            repo = self._repo
            if self._revive():
                sync.close()
                cause: str | None = "stopped"
            else:
                cause = self._doubt(sync)
            checkpoint = self._checkpoint
            with self._cond:
                seq = self.seq
                named = (
                    [p for p, s in self._named.items() if s > checkpoint.seq]
                    if checkpoint is not None
                    else []
                )
            if cause is None and checkpoint is not None:
                if not named:
                    return self._observed(
                        checkpoint.state, checkpoint.seq, "checkpoint", None, note
                    )
                state = rehash(repo, checkpoint.state, named)
                if state is not None:
                    self._keep(Checkpoint(state, seq, checkpoint.at))
                    return self._observed(state, seq, "rehash", "changed", note)
                cause = "changed"
            state = read_worktree(repo, lock_wait=0)
            self._keep(Checkpoint(state, seq, time.monotonic()))
            assert cause is not None
            if cause != "changed":
                self.recrawls[cause] += 1
            if cause == "stopped" and self.error is not None and not self.running:
                note = note or (
                    f"the worktree watcher stopped ({self.error}); answers read the "
                    "whole worktree until it runs again"
                )
            return self._observed(state, seq, "scan", cause, note)

    @staticmethod
    def _observed(
        state: WorktreeState, seq: int, source: str, cause: str | None, note: str | None
    ) -> Observation:
        if note and state.note is None:
            state = replace(state, note=note)
        return Observation(state, seq, source, cause)

    def _keep(self, checkpoint: Checkpoint) -> None:
        """Make ``checkpoint`` the one answers start from, and forget the paths it covers."""
        if not self.running:
            return
        self._checkpoint = checkpoint
        with self._cond:
            for path in [p for p, s in self._named.items() if s <= checkpoint.seq]:
                del self._named[path]

    def _doubt(self, sync: Sync) -> str | None:
        """Why the checkpoint cannot be the start now (None: it can)."""
        if not self.running:
            sync.close()
            return "stopped"
        checkpoint = self._checkpoint
        if checkpoint is None:
            sync.close()
            return "start"
        if time.monotonic() - checkpoint.at > self.SAFETY_SECONDS:
            sync.close()
            return "timer"
        if not self._await(sync):
            return "stopped" if not self.running else "sync-timeout"
        with self._cond:
            if self._last_git_seq > checkpoint.seq:
                return "git"
            if self._flood_seq > checkpoint.seq or self._last_rules_seq > checkpoint.seq:
                return "changed"
        return None
