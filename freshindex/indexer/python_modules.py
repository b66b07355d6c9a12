"""The file a Python import names, from the tree's paths alone.

A relative import (`from .models import User`) is a path beside the
importer. An absolute one (`import flask`) is found under some folder on
`sys.path`, which no file of the tree states: every file whose path ends in
the module's (`flask/__init__.py`, `flask.py`) is a candidate, and the folder
each implies is ranked the way Python would most likely see it. A folder the
importer is under and that is no package comes first, the nearest first (a
script's own folder; pytest's rootdir for a test, the first folder up without
an `__init__.py`; a package's folder is not on the path, so `from pycg import
utils` inside pycg/ is pycg/utils/, not pycg/pycg.py); then the shallowest (the repository root,
`src/`), so a `src/` layout's package wins over a same-named module deep in
test data (flask's tests/test_apps/cliapp/inner1/inner2/flask.py took every
`import flask` of the tree). In one folder, Python's own order: a package
before a module of its name, and `from pkg import mod` a submodule before a
symbol of the package. A module of the standard library's name (`json`,
`logging`) is the standard library's unless its file is in a folder of that
first kind: Python 3 looks in no package's folder, so flask/json/ is not
what `import json` in flask, or anywhere else, imports.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Mapping, Sequence


def resolve(
    real: Mapping[str, str],
    by_suffix: Mapping[str, Sequence[str]],
    from_path: str,
    module: str,
    name: str,
) -> str | None:
    """The file ``from <module> import <name>`` (or ``import <module>``, name
    empty) names; ``real`` maps every path of the tree (and its aliases
    through linked folders) to the real one, ``by_suffix`` a path's trailing
    segments to the real paths that end in them."""
    dots = len(module) - len(module.lstrip("."))
    rest = module[dots:]
    if dots:
        base = posixpath.dirname(from_path)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        stem = posixpath.join(base, rest.replace(".", "/")) if rest else base
        return next((real[c] for c in map(_unroot, _suffixes(stem, name)) if c in real), None)
    best: tuple[tuple[int, int, int, int], str] | None = None
    stdlib = rest.partition(".")[0] in sys.stdlib_module_names
    for rank, suffix in enumerate(_suffixes(rest.replace(".", "/"), name)):
        for hit in by_suffix.get(suffix, ()):
            key = (*_root_rank(real, hit, suffix, from_path), rank)
            if stdlib and (key[0] != 0 or hit == from_path):
                continue  # the standard library's, as Python 3 finds it first
            if best is None or key < best[0]:
                best = (key, hit)
    return best[1] if best is not None else None


def _suffixes(stem: str, name: str) -> tuple[str, ...]:
    module = (f"{stem}/__init__.py", f"{stem}.py")
    return (f"{stem}/{name}/__init__.py", f"{stem}/{name}.py", *module) if name else module


def _root_rank(
    real: Mapping[str, str], hit: str, suffix: str, importer: str
) -> tuple[int, int, int]:
    """Smaller first: how likely the folder ``hit`` is found in (its path
    before ``suffix``) is on the importer's ``sys.path``."""
    root = hit[: len(hit) - len(suffix)] if hit.endswith(suffix) else None
    if root is None or (root and not root.endswith("/")):
        return (2, 0, 0)  # reached through a linked folder
    depth = root.count("/")
    if importer.startswith(root) and f"{root}__init__.py" not in real:
        return (0, -depth, 0)
    return (1, depth, -len(posixpath.commonprefix([root, importer])))


def _unroot(path: str) -> str:
    return path.lstrip("/")
