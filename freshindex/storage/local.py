"""The ``file://`` backend: the default store, under ``.git/freshindex``.

Conditional writes without a server: put-if-absent is ``os.link`` of a fully
written temporary file (atomic, fails if the name exists); compare-and-swap
holds an ``flock`` on a lock file while it compares and ``os.replace``s. This
is the only backend that renames (STYLE.md, practice 5).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from freshindex.core.exceptions import NotFound, PreconditionFailed, StoreUnavailable
from freshindex.storage.base import Blob, Store, sha256_hex


class LocalStore(Store):
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.uri = self.root.resolve().as_uri()

    def check_writable(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(prefix=".probe.", dir=self.root)
            os.close(fd)
            os.unlink(probe)
        except OSError as err:
            reason = err.strerror or type(err).__name__
            raise StoreUnavailable(f"store {self.root} is not a writable folder: {reason}") from err

    def _path(self, key: str) -> Path:
        if key.startswith("/") or ".." in key.split("/"):
            raise ValueError(f"bad store key {key!r}")
        return self.root / key

    def get(self, key: str) -> Blob:
        try:
            data = self._path(key).read_bytes()
        except FileNotFoundError as err:
            raise NotFound(f"{self.uri}/{key} does not exist") from err
        return Blob(data, sha256_hex(data))

    def exists(self, key: str) -> bool:
        return self._path(key).exists()

    def _write_temp(self, key: str, data: bytes) -> Path:
        final = self._path(key)
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreUnavailable(
                f"cannot create store folder {final.parent}: {err.strerror}"
            ) from err
        fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        return Path(tmp)

    def put(self, key: str, data: bytes) -> None:
        tmp = self._write_temp(key, data)
        os.replace(tmp, self._path(key))
        _fsync_dir(self._path(key).parent)

    def put_if_absent(self, key: str, data: bytes) -> str:
        tmp = self._write_temp(key, data)
        try:
            os.link(tmp, self._path(key))
        except FileExistsError as err:
            if self._path(key).read_bytes() == data:
                return sha256_hex(data)  # the same object: an earlier attempt landed
            raise PreconditionFailed(f"{key} already exists") from err
        finally:
            os.unlink(tmp)
        _fsync_dir(self._path(key).parent)
        return sha256_hex(data)

    def put_if_match(self, key: str, data: bytes, etag: str | None) -> str:
        final = self._path(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        lock_path = final.with_name(final.name + ".lock")
        with open(lock_path, "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                current = sha256_hex(final.read_bytes()) if final.exists() else None
                if current != etag:
                    raise PreconditionFailed(
                        f"{key} changed since it was read (expected {etag or 'absent'}, found {current or 'absent'})"
                    )
                tmp = self._write_temp(key, data)
                os.replace(tmp, final)
                _fsync_dir(final.parent)
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
        return sha256_hex(data)

    def _walk(self, prefix: str) -> Iterator[tuple[str, Path]]:
        """Objects whose key starts with ``prefix``, as S3 lists them: the
        folder part of the prefix is opened, and only its entries that start
        with the rest are looked into (``current@`` reads the root's names,
        not every version below it)."""
        folder, _, start = prefix.rpartition("/")
        base = self._path(folder) if folder else self.root
        try:
            entries = [e for e in os.scandir(base) if e.name.startswith(start)]
        except (FileNotFoundError, NotADirectoryError):
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                for dirpath, _dirs, files in os.walk(entry.path):
                    for name in files:
                        if self._object(name):
                            path = Path(dirpath, name)
                            yield path.relative_to(self.root).as_posix(), path
            elif self._object(entry.name):
                path = Path(entry.path)
                yield path.relative_to(self.root).as_posix(), path

    @staticmethod
    def _object(name: str) -> bool:
        return not (name.startswith(".") or name.endswith(".lock"))  # temporaries, locks

    def list(self, prefix: str, start_after: str | None = None) -> Iterator[str]:
        keys = [k for k, _ in self._walk(prefix) if start_after is None or k > start_after]
        return iter(sorted(keys))

    def sizes(self, prefix: str) -> dict[str, int]:
        out = {}
        for key, path in self._walk(prefix):
            with contextlib.suppress(FileNotFoundError):
                out[key] = path.stat().st_size
        return out

    def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()

    def local_path(self, key: str) -> str | None:
        return str(self._path(key))


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as err:  # pragma: no cover - filesystems without dir fsync
        if err.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)
