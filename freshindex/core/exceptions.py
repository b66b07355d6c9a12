"""Every error freshindex raises on purpose, in one flat module (as pyiceberg does).

Each class carries the exit code the CLI turns it into (docs/contract.md):
0 success, 1 a check failed, 2 bad usage or bad input, 3 freshness not provable
under ``--require-fresh``. The CLI prints ``str(err)`` as one line; messages say
what was wrong and, where it helps, what to do.
"""

from __future__ import annotations


class FreshindexError(Exception):
    """Base class. ``exit_code`` is what the CLI exits with."""

    exit_code = 2


# --- bad input (exit 2) -----------------------------------------------------


class BadInput(FreshindexError):
    """The user's arguments or repository cannot be used as given."""


class NotAGitRepository(BadInput):
    pass


class UnknownRevision(BadInput):
    pass


class EmptyRepository(BadInput):
    pass


class ConfigError(BadInput):
    """freshindex.toml (or a flag) holds a value that cannot be used."""


class StoreUnavailable(BadInput):
    """The store cannot be reached or does not exist (endpoint down, no bucket)."""


class PathRefused(BadInput):
    """A path that may not be read for an answer: outside the repository
    (absolute, ``..``, a symlink out of it), inside ``.git``, or a secret."""


class UnknownTarget(BadInput):
    """A defs/refs/context target that names no definition the answer can see:
    an error, never an empty list that reads as "no callers"."""


class NoPublishedVersion(BadInput):
    """The store has no current version yet: run `freshindex build` first."""


class NotFound(FreshindexError):
    """An object the store was asked for does not exist."""

    exit_code = 2


# --- checks that failed (exit 1) ---------------------------------------------


class CheckFailed(FreshindexError):
    exit_code = 1


class WorktreeGone(CheckFailed):
    """The repository a running service answers for was deleted or moved."""


class WorktreeMoving(CheckFailed):
    """HEAD kept moving while the worktree was read (git commands in a loop):
    no state could be read whole. Asking again usually succeeds."""


class ValidationFailed(CheckFailed):
    """A built version failed validation; it was marked failed and not published."""


class VerificationFailed(CheckFailed):
    """A published version's digests or record do not match what it says."""


class PreconditionFailed(CheckFailed):
    """A conditional write lost: the object exists (put-if-absent) or changed (CAS).

    Retryable: refresh what you based the write on and try again.
    """


class PublishConflict(CheckFailed):
    """The current pointer moved since this build read it; this build did not publish.

    Raised after the compare-and-swap on ``current.json`` lost. The version's
    files and manifest stay in the store (immutable, complete) and can be made
    current later with ``rollback --to``.
    """


class CommitStateUnknown(CheckFailed):
    """A conditional write may or may not have landed and reading it back did not tell.

    Never delete staged files on this outcome (Iceberg's CommitStateUnknownException).
    """


# --- freshness (exit 3) ------------------------------------------------------


class NotFresh(FreshindexError):
    """--require-fresh was given and the answer's freshness is partial or stale.
    ``doc``: the answer that was not fresh enough (its envelope says why)."""

    exit_code = 3

    def __init__(self, message: str, doc: dict | None = None):  # type: ignore[type-arg]
        super().__init__(message)
        self.doc = doc or {}


# --- a service's updates -------------------------------------------------------


class UpdatesOff(FreshindexError):
    """An update was asked of a service started without ``--updates``."""


class UpdateRefused(FreshindexError):
    """An update ran and did not publish (a lock held, a failed validation);
    ``summary`` is its record."""

    exit_code = 1

    def __init__(self, message: str, summary: dict | None = None):  # type: ignore[type-arg]
        super().__init__(message)
        self.summary = summary or {}
