"""A worktree watcher behind the freshness proof of a long-running service.

``serve`` and ``mcp`` answer many questions about a worktree that mostly does
not change between them. Without a watcher every answer rescans it (the
article's recipe, query/worktree.py: a stat of every file, a hash of the
changed ones). With one, an answer reuses the last verified scan (the
checkpoint) when, provably, nothing happened since:

- every batch of file-system events (``watchfiles``, over the worktree and
  its git directory) gets a monotonic ``seq``; the checkpoint records the seq
  its scan started after;
- before reusing it, the answer syncs with the watcher the way Watchman does:
  it creates a cookie file in the git directory and waits until the watcher
  has delivered that file's event. Events are delivered in order, so every
  change made before the answer started has then been seen;
- any doubt is a rescan (a *recrawl*), counted by cause: ``start`` (no
  checkpoint yet), ``stopped`` (the watcher died, was stopped, or overflowed
  into an error), ``sync-timeout`` (the cookie did not come back in time:
  events may be queued or lost), ``timer`` (the checkpoint is older than a
  safety interval), ``git`` (HEAD, refs, packed-refs or the index changed);
- a worktree path named by an event since the checkpoint is a rescan too
  (``changed``): the scan stats every file but hashes only those whose stat
  changed, so re-hashing is already limited to what changed.

Never is a state claimed that was not verified: an answer's ``worktreeTree``
is either a scan made for it or the checkpoint of a scan with no event after
it, proven by the cookie. A plain CLI call has no watcher and scans, as
before.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2

from freshindex.query.worktree import WorktreeState, scan

COOKIE_PREFIX = "freshindex-cookie-"
# git-directory paths whose changes do not change the worktree's state
_GIT_NOISE = ("objects/", "logs/", COOKIE_PREFIX)


@dataclass(frozen=True)
class Checkpoint:
    state: WorktreeState
    seq: int  # the scan began after every event up to this seq
    at: float  # monotonic time of the scan


@dataclass(frozen=True)
class Observation:
    """An answer's worktree state and how it was obtained."""

    state: WorktreeState
    seq: int | None  # the watcher seq the state reflects (None: no watcher)
    source: str  # "checkpoint" (reused, proven by a cookie) or "scan"
    cause: str | None  # why it scanned: start, stopped, sync-timeout, timer, git, changed


class Watcher:
    """Watches one worktree and its git directory on a thread of its own."""

    SYNC_SECONDS = 2.0
    SAFETY_SECONDS = 300.0

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
        self._last_path_seq = 0  # seq of the newest event on a worktree path
        self._last_git_seq = 0  # seq of the newest event that changes git state
        self._cookies_seen: set[str] = set()
        self._cookie_ids = itertools.count()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._running = False
        self._checkpoint: Checkpoint | None = None
        self._scan_lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="worktree-watcher", daemon=True)

    def start(self) -> Watcher:
        self._running = True
        self._thread.start()
        # the first batch (yield_on_timeout) or the first cookie tells that
        # the watch is in place; until then, answers recrawl
        self._ready.wait(timeout=self.SYNC_SECONDS)
        return self

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
        except BaseException as err:  # an overflow or an OS error: answers recrawl
            self.error = err
        finally:
            self._running = False
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
                        self._cookies_seen.add(rel)
                    elif not rel.startswith(_GIT_NOISE) and not rel.endswith(".lock"):
                        self._last_git_seq = self.seq
                elif path.is_relative_to(self.workdir):
                    self._last_path_seq = self.seq
            self._cond.notify_all()

    def _sync(self) -> bool:
        """Whether every change made before this call has been delivered:
        a cookie file's own event came back within SYNC_SECONDS."""
        name = f"{COOKIE_PREFIX}{os.getpid()}-{next(self._cookie_ids)}"
        cookie = self.git_dir / name
        try:
            cookie.write_bytes(b"")
        except OSError:
            return False
        try:
            deadline = time.monotonic() + self.SYNC_SECONDS
            with self._cond:
                while name not in self._cookies_seen:
                    left = deadline - time.monotonic()
                    if left <= 0 or not self.running:
                        return False
                    self._cond.wait(left)
                self._cookies_seen.discard(name)
                return True
        finally:
            cookie.unlink(missing_ok=True)

    def observe(self, repo: pygit2.Repository) -> Observation:
        """The worktree's state for an answer starting now (see the module's text)."""
        with self._scan_lock:  # one scan at a time; later answers reuse it
            cause = self._doubt()
            checkpoint = self._checkpoint
            if cause is None and checkpoint is not None:
                return Observation(checkpoint.state, checkpoint.seq, "checkpoint", None)
            with self._cond:
                seq = self.seq
            state = scan(repo)
            if self.running:
                self._checkpoint = Checkpoint(state, seq, time.monotonic())
            assert cause is not None
            if cause != "changed":
                self.recrawls[cause] += 1
            return Observation(state, seq, "scan", cause)

    def _doubt(self) -> str | None:
        """Why the checkpoint cannot be reused now (None: it can)."""
        if not self.running:
            return "stopped"
        checkpoint = self._checkpoint
        if checkpoint is None:
            return "start"
        if time.monotonic() - checkpoint.at > self.SAFETY_SECONDS:
            return "timer"
        if not self._sync():
            return "stopped" if not self.running else "sync-timeout"
        with self._cond:
            if self._last_git_seq > checkpoint.seq:
                return "git"
            if self._last_path_seq > checkpoint.seq:
                return "changed"
        return None
