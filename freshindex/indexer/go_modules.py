"""The Go modules of a tree, by the path their code imports them by.

An import path names a package folder, but the module's own prefix
(`github.com/spf13/cobra`) is nowhere in the tree: resolve.py matches an
import path's trailing folders against the tree's. That cannot find a
module's root package (`import "github.com/spf13/cobra"` from `cobra/doc`
ends in no folder of the tree), and may pick the wrong one of two folders
of the same name. A `go.mod` says the prefix: `module github.com/spf13/cobra`
makes `github.com/spf13/cobra/doc` the folder `doc/` beside it.

A go.mod that names no module adds nothing; two of one module path: the
first by folder. go.mod is a rebuild pattern (indexer/config.py), so a
renamed module re-resolves the tree.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

MANIFEST = "go.mod"


def wanted(path: str) -> bool:
    """Whether a tree path is a file this module reads."""
    return posixpath.basename(path) == MANIFEST and "/vendor/" not in f"/{path}"


def modules(files: Mapping[str, bytes]) -> dict[str, str]:
    """Module path -> its folder in the tree (`github.com/spf13/cobra` -> "")."""
    out: dict[str, str] = {}
    for path in sorted(files):
        if not wanted(path):
            continue
        name = module_path(files[path])
        if name:
            out.setdefault(name, posixpath.dirname(path))
    return out


def module_path(data: bytes) -> str:
    """The path a go.mod's `module` directive names ("" if none)."""
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.split("//", 1)[0].strip()
        if line.startswith("module") and line[6:7] in (" ", "\t", '"'):
            name = line[6:].strip().strip('"`')
            return name if name and " " not in name else ""
    return ""
