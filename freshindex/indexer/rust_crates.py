"""The Rust crates of a tree, by the name their code uses for them.

Inside a crate, ``crate::`` names its root; everywhere else (its
integration tests, benches and examples, and the other crates of a
workspace) the crate is named by its library name: ``use
tokio::runtime::Runtime`` in ``tokio/tests/rt.rs``. Without the crate's
name that path reads as another crate's, outside the repository. The name
is in the crate's ``Cargo.toml``: ``[lib] name``, else ``[package] name``
with dashes made underscores; its root folder is the folder of ``[lib]
path``, else ``src/`` beside the manifest.

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


def _crate(path: str, data: bytes) -> tuple[str, str] | None:
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None
    package, lib = doc.get("package"), doc.get("lib")
    package = package if isinstance(package, dict) else {}
    lib = lib if isinstance(lib, dict) else {}
    name = lib.get("name") or package.get("name")
    if not isinstance(name, str) or not name:
        return None
    folder = posixpath.dirname(path)
    root = lib.get("path")
    if isinstance(root, str) and root.endswith(".rs") and ".." not in root.split("/"):
        src = posixpath.normpath(posixpath.join(folder, posixpath.dirname(root)))
        src = "" if src == "." else src
    else:
        src = posixpath.join(folder, "src") if folder else "src"
    return name.replace("-", "_"), src
