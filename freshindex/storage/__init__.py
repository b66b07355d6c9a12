"""Moving bytes to and from a store; every conditional write lives here."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from freshindex.core.exceptions import BadInput
from freshindex.storage.base import Blob, Store


def open_store(uri: str) -> Store:
    """A store from a ``file:///abs/path`` or ``s3://bucket/prefix`` URI."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        if parsed.netloc not in ("", "localhost"):
            raise BadInput(
                f"bad store URI {uri!r}: file URIs take an absolute path (file:///abs/path)"
            )
        path = unquote(parsed.path)
        if not path.startswith("/"):
            raise BadInput(
                f"bad store URI {uri!r}: file URIs take an absolute path (file:///abs/path)"
            )
        from freshindex.storage.local import LocalStore

        return LocalStore(Path(path))
    if parsed.scheme == "s3":
        from freshindex.storage.s3 import S3Store

        store = S3Store(uri)
        store.check()
        return store
    raise BadInput(f"bad store URI {uri!r}: expected file:///abs/path or s3://bucket/prefix")


__all__ = ["Blob", "Store", "open_store"]
