"""The one small interface every store backend implements.

Keys are ``/``-separated relative names under the store's root. Immutable
objects are written under names that are never reused (version, shard,
attempt), so plain ``put`` suffices for them; the only conditional writes are
``put_if_absent`` (manifests, publication records) and ``put_if_match`` (the
current pointer).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Blob:
    data: bytes
    etag: str  # opaque; only ever handed back to put_if_match


class Store(ABC):
    uri: str

    @abstractmethod
    def get(self, key: str) -> Blob:
        """The object's bytes and etag; raises NotFound."""

    @abstractmethod
    def exists(self, key: str) -> bool: ...

    @abstractmethod
    def put(self, key: str, data: bytes) -> None:
        """Unconditional write, for immutable objects under never-reused names."""

    @abstractmethod
    def put_if_absent(self, key: str, data: bytes) -> str:
        """Create the object only if no object has the key; returns its etag.

        Raises PreconditionFailed when it exists (with other bytes), and
        CommitStateUnknown when the outcome cannot be established."""

    @abstractmethod
    def put_if_match(self, key: str, data: bytes, etag: str | None) -> str:
        """Replace the object only if its etag is still ``etag`` (None: only if
        absent); returns the new etag. Raises PreconditionFailed when it changed.

        Callers must make every body unique (generation + nonce): an etag follows
        content, so restoring an earlier body byte for byte would let a stale
        etag match again (the A -> B -> A trap)."""

    @abstractmethod
    def list(self, prefix: str, start_after: str | None = None) -> Iterator[str]:
        """Keys under a prefix, sorted; with ``start_after`` (a whole key), only
        the keys after it, as S3's ``StartAfter``: a reader of an append-only
        prefix with sortable names lists only what is new to it."""

    def sizes(self, prefix: str) -> dict[str, int]:
        """Every object under a prefix with its size in bytes: what a reader
        checks against a manifest before it serves (one LIST on S3)."""
        return {key: len(self.get(key).data) for key in self.list(prefix)}

    @abstractmethod
    def delete(self, key: str) -> None: ...

    def local_path(self, key: str) -> str | None:
        """A filesystem path for the object when the backend has one (lets pyarrow
        read Parquet footers and row groups without copying the whole file)."""
        return None

    def describe(self) -> str:
        return self.uri

    def check_writable(self) -> None:
        """Fail fast, with one StoreUnavailable line, when a build could not
        write here: called before any flow, cluster or Prefect API starts.
        A backend that cannot tell more checks that the store answers."""
        self.exists("current.json")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
