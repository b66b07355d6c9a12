"""Whether a change to a build manifest or lockfile changes what the index reads.

A rebuild pattern (freshindex.toml's ``rebuild_patterns``; the defaults name
the common manifests and lockfiles) marks a file whose change could change
how other files resolve, so an overlay or an incremental update from before
the change would be unsound. Most edits of those files change nothing the
index reads: a version bump, a dependency pin, a lockfile. For the kinds
below, only the keys that name package roots, module paths or import aliases
count; anything that cannot be read (malformed, unknown kind) counts as
changed, so the answer errs towards a rebuild.

| file | keys that count |
|---|---|
| lockfiles (package-lock.json, yarn.lock, pnpm-lock.yaml, poetry.lock, uv.lock, Cargo.lock, go.sum) | none |
| pyproject.toml | project.name, project.scripts / gui-scripts / entry-points, build-system.build-backend, tool.setuptools (packages, package-dir, py-modules), tool.poetry (name, packages), tool.hatch.build, tool.pdm.build, tool.flit.module, tool.maturin (python-source, module-name) |
| setup.cfg | [options] packages, package_dir, py_modules; [options.packages.find] |
| package.json | name, source, main, module, types, typings, exports, imports, workspaces, browser |
| tsconfig.json, jsconfig.json | extends, files, include, references, compilerOptions (baseUrl, paths, rootDir, rootDirs, moduleResolution) |
| go.mod | module, replace |
| Cargo.toml | package.name, lib, bin, workspace (members, exclude) |
| anything else (pom.xml, build.gradle, freshindex.toml, a pattern you added) | the whole file |
"""

from __future__ import annotations

import configparser
import json
import posixpath
import tomllib
from typing import Any

from freshindex.indexer import js_modules

LOCKFILES = frozenset(
    {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "uv.lock",
     "Cargo.lock", "go.sum"}
)  # fmt: skip

_TOML_KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    "pyproject.toml": (
        ("project", "name"),
        ("project", "scripts"),
        ("project", "gui-scripts"),
        ("project", "entry-points"),
        ("build-system", "build-backend"),
        ("tool", "setuptools", "packages"),
        ("tool", "setuptools", "package-dir"),
        ("tool", "setuptools", "py-modules"),
        ("tool", "poetry", "name"),
        ("tool", "poetry", "packages"),
        ("tool", "hatch", "build"),
        ("tool", "pdm", "build"),
        ("tool", "flit", "module"),
        ("tool", "maturin", "python-source"),
        ("tool", "maturin", "module-name"),
    ),
    "Cargo.toml": (
        ("package", "name"),
        ("lib",),
        ("bin",),
        ("workspace", "members"),
        ("workspace", "exclude"),
    ),
}
_JSON_KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    "package.json": tuple(
        (k,)
        for k in (
            "name",
            "source",
            "main",
            "module",
            "types",
            "typings",
            "exports",
            "imports",
            "workspaces",
            "browser",
        )
    ),
    "tsconfig.json": (
        ("extends",),
        ("files",),
        ("include",),
        ("references",),
        ("compilerOptions", "baseUrl"),
        ("compilerOptions", "paths"),
        ("compilerOptions", "rootDir"),
        ("compilerOptions", "rootDirs"),
        ("compilerOptions", "moduleResolution"),
    ),
}
_JSON_KEYS["jsconfig.json"] = _JSON_KEYS["tsconfig.json"]


class _Unreadable(Exception):
    pass


def resolution_changed(path: str, old: bytes | None, new: bytes | None) -> bool:
    """Whether going from ``old`` to ``new`` (None: absent) changes what the
    index reads of the file at ``path``."""
    name = posixpath.basename(path)
    if name in LOCKFILES:
        return False
    if old is None or new is None:
        return old is not new  # added or deleted: a package root may have come or gone
    try:
        return _reading(name, old) != _reading(name, new)
    except _Unreadable:
        return old != new


def _reading(name: str, data: bytes) -> Any:
    """What the index could read from a manifest: its resolution keys."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _Unreadable from err
    if name in _TOML_KEYS:
        try:
            return _pick(tomllib.loads(text), _TOML_KEYS[name])
        except tomllib.TOMLDecodeError as err:
            raise _Unreadable from err
    if name in _JSON_KEYS:
        try:
            return _pick(json.loads(js_modules.plain_json(text)), _JSON_KEYS[name])
        except (ValueError, RecursionError) as err:
            raise _Unreadable from err
    if name == "go.mod":
        return [
            line.strip()
            for line in _go_mod_lines(text)
            if line.strip().startswith(("module ", "replace "))
        ]
    if name == "setup.cfg":
        cfg = configparser.ConfigParser(interpolation=None)
        try:
            cfg.read_string(text)
        except configparser.Error as err:
            raise _Unreadable from err
        options = dict(cfg["options"]) if cfg.has_section("options") else {}
        found = {k: options.get(k) for k in ("packages", "package_dir", "py_modules")}
        if cfg.has_section("options.packages.find"):
            found["find"] = dict(cfg["options.packages.find"])  # type: ignore[assignment]
        return found
    raise _Unreadable


def _pick(doc: Any, keys: tuple[tuple[str, ...], ...]) -> list[Any]:
    out = []
    for path in keys:
        value = doc
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        out.append(value)
    return out


def _go_mod_lines(text: str) -> list[str]:
    """go.mod's directives, a parenthesised block's lines each prefixed with
    its directive (``replace ( a => b )`` -> ``replace a => b``)."""
    out: list[str] = []
    block = None
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if block is not None:
            if line == ")":
                block = None
            else:
                out.append(f"{block} {line}")
            continue
        if line.endswith("("):
            block = line[:-1].strip()
            continue
        out.append(line)
    return out
