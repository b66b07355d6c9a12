"""The Rust crates of a tree, by the name their code uses for them.

Inside a crate, ``crate::`` names its root; everywhere else (its
integration tests, benches and examples, and the other crates of a
workspace) the crate is named by its library name: ``use
tokio::runtime::Runtime`` in ``tokio/tests/rt.rs``. Without the crate's
name that path reads as another crate's, outside the repository. The name
is in the crate's ``Cargo.toml``: ``[lib] name``, else ``[package] name``
with dashes made underscores; its root folder is the folder of ``[lib]
path``, else ``src/`` beside the manifest.

``crate::`` inside a crate names the folder of its target's root file,
which a manifest may put anywhere: ripgrep's binary is ``[[bin]] path =
"crates/core/main.rs"``, so ``use crate::flags::parse`` in
crates/core/flags/defs.rs is crates/core/flags/parse.rs (``roots``: every
``[lib]``, ``[[bin]]``, ``[[test]]``, ``[[example]]`` and ``[[bench]]``
path's folder; a file outside them falls back to its ``src/`` folder).

A manifest that cannot be read, or names no package, adds nothing. Two
crates of one name: the first by folder. Cargo.toml is a rebuild pattern
(indexer/config.py), so a renamed crate re-resolves the tree.
"""

from __future__ import annotations

import posixpath
import tomllib
from collections.abc import Mapping

MANIFEST = "Cargo.toml"


def wanted(path: str) -> bool:
    """Whether a tree path is a file this module reads."""
    return posixpath.basename(path) == MANIFEST and "/vendor/" not in f"/{path}"


def crates(files: Mapping[str, bytes]) -> dict[str, str]:
    """Library name -> the folder of its root module (``tokio`` ->
    ``tokio/src``), from the contents of the tree's Cargo.toml files."""
    out: dict[str, str] = {}
    for path in sorted(files):
        if not wanted(path):
            continue
        found = _crate(path, files[path])
        if found is not None:
            out.setdefault(*found)
    return out


def roots(files: Mapping[str, bytes]) -> list[str]:
    """The folders of the root files of every target the tree's Cargo.toml
    files name by path, each once."""
    out: dict[str, None] = {}
    for path in sorted(files):
        doc = _manifest(files[path]) if wanted(path) else None
        if doc is None:
            continue
        lib = doc.get("lib")
        targets = [lib] if isinstance(lib, dict) else []
        for kind in ("bin", "test", "example", "bench"):
            listed = doc.get(kind)
            targets += (
                [t for t in listed if isinstance(t, dict)] if isinstance(listed, list) else []
            )
        for target in targets:
            root = _root_folder(posixpath.dirname(path), target.get("path"))
            if root is not None:
                out.setdefault(root)
    return list(out)


def _manifest(data: bytes) -> dict[str, object] | None:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None


def _root_folder(folder: str, root: object) -> str | None:
    """The folder of a target's ``path``, from the manifest's folder."""
    if not isinstance(root, str) or not root.endswith(".rs") or ".." in root.split("/"):
        return None
    if root.startswith("/"):  # outside the tree
        return None
    src = posixpath.normpath(posixpath.join(folder, posixpath.dirname(root)))
    return "" if src == "." else src


def _crate(path: str, data: bytes) -> tuple[str, str] | None:
    doc = _manifest(data)
    if doc is None:
        return None
    package, lib = doc.get("package"), doc.get("lib")
    package = package if isinstance(package, dict) else {}
    lib = lib if isinstance(lib, dict) else {}
    name = lib.get("name") or package.get("name")
    if not isinstance(name, str) or not name:
        return None
    folder = posixpath.dirname(path)
    src = _root_folder(folder, lib.get("path"))
    if src is None:
        src = posixpath.join(folder, "src") if folder else "src"
    return name.replace("-", "_"), src
