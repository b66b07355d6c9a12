"""JavaScript and TypeScript imports that do not start with a dot: the
aliases of a ``tsconfig.json`` (or ``jsconfig.json``) and the packages of a
workspace, read from the tree's own configuration files.

- ``compilerOptions.paths`` (``"@/*": ["./src/*"]``) and ``baseUrl`` of the
  nearest ``tsconfig.json``/``jsconfig.json`` above the importing file, with
  the ``paths`` of a config it ``extends`` by a relative path: ``@/lib/db``
  is ``src/lib/db.ts``, as TypeScript's module resolution finds it;
- a ``package.json`` with a ``name`` anywhere in the tree (a monorepo's
  workspace package): ``@acme/utils`` is that folder's entry, ``source``,
  ``types``, ``module``, ``main`` or ``exports["."]`` when the file is in
  the tree (a ``.js`` entry as its ``.ts`` source), else ``src/index`` or
  ``index``; ``@acme/utils/fmt`` is ``fmt`` under the folder, or under its
  ``src/``.

Everything else (``react``, ``node:fs``) is a package from outside. These
files are rebuild patterns (indexer/config.py, indexer/manifests.py): a
change to the keys read here rebuilds rather than updates, so per-file rows
stay equal to a full build's. tsconfig files are JSON with comments and
trailing commas; one that cannot be read adds nothing.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

# the configuration files read, by name
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
PACKAGE_NAME = "package.json"
# a tree's configuration files read at most, the largest read, the bytes read
MAX_FILES = 5000
MAX_BYTES = 1_000_000
MAX_TOTAL_BYTES = 50_000_000
# the `paths` entries of one config tried for an import, at most
MAX_ALIASES = 256
BOUNDS: tuple[int, int, int] = (MAX_FILES, MAX_BYTES, MAX_TOTAL_BYTES)  # gitrepo.small_blobs's
_EXTENDS_DEPTH = 4
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


class Alias(NamedTuple):
    """One ``paths`` entry of a config in folder ``root``: ``pattern`` (one
    ``*`` at most) and the folders-relative targets, joined with its
    ``baseUrl``."""

    root: str
    pattern: str
    targets: tuple[str, ...]


class Package(NamedTuple):
    name: str
    folder: str
    entries: tuple[str, ...]  # as package.json writes them, relative to the folder
    # `exports` subpaths ("mini" for "./mini") and their files, as written
    subpaths: tuple[tuple[str, tuple[str, ...]], ...] = ()


def wanted(path: str) -> bool:
    """Whether a tree path is a file this module reads."""
    return posixpath.basename(path) in (*CONFIG_NAMES, PACKAGE_NAME) and (
        "node_modules/" not in f"/{path}"
    )


class JsModules:
    """The aliases and workspace packages of one tree. ``files``: the
    contents of its tsconfig.json, jsconfig.json and package.json files,
    by path."""

    def __init__(self, files: Mapping[str, bytes]):
        configs = {
            p: _jsonc(data) for p, data in files.items() if posixpath.basename(p) in CONFIG_NAMES
        }
        # folder -> (its aliases, its baseUrl folder or None)
        self.configs: dict[str, tuple[tuple[Alias, ...], str | None]] = {}
        for path in sorted(configs):
            options = _options(path, configs, 0)
            if options is not None:
                self.configs[posixpath.dirname(path)] = options
        packages = []
        for path, data in sorted(files.items()):
            if posixpath.basename(path) != PACKAGE_NAME:
                continue
            doc = _json(data)
            name = doc.get("name") if isinstance(doc, dict) else None
            if isinstance(name, str) and name:
                folder = posixpath.dirname(path)
                packages.append(Package(name, folder, _entries(doc), _subpaths(doc)))
        self.packages = tuple(sorted(packages, key=lambda p: (p.name, p.folder)))
        # two packages of one name (a monorepo's root and its package of the
        # root's name): by folder, the first whose entry is in the tree wins
        self._by_name: dict[str, list[Package]] = {}
        for p in self.packages:
            self._by_name.setdefault(p.name, []).append(p)
        self._by_folder = {p.folder: p for p in self.packages}

    def digest_parts(self) -> list[str]:
        """What resolutions depend on, for the path index's digest."""
        out = []
        for root, (aliases, base) in sorted(self.configs.items()):
            out.append(f"{root}\0baseUrl\0{base}")
            out += [f"{root}\0{a.pattern}\0{','.join(a.targets)}" for a in aliases]
        out += [f"{p.name}\0{p.folder}\0{p.entries}\0{p.subpaths}" for p in self.packages]
        return out

    def resolve(self, from_path: str, module: str, stem: Callable[[str], str | None]) -> str | None:
        """The file ``module`` names from ``from_path``, or None.
        ``stem(path)``: the file a path without extension names (``x`` ->
        ``x.ts``, ``x/index.ts``), as a relative import finds it."""
        config = self._nearest(from_path)
        if config is not None:
            aliases, base = self.configs[config]
            for alias in aliases[:MAX_ALIASES]:
                rest = _match(alias.pattern, module)
                if rest is None:
                    continue
                for target in alias.targets:
                    found = stem(posixpath.normpath(target.replace("*", rest, 1)))
                    if found:
                        return found
            if base is not None:  # baseUrl alone: `components/x` from the base folder
                found = stem(posixpath.normpath(posixpath.join(base, module)))
                if found:
                    return found
        # a package name is `name` or `@scope/name`: its first one or two parts
        parts = module.split("/", 2)
        for k in (2, 1) if module.startswith("@") else (1,):
            if len(parts) < k:
                continue
            sub = "/".join(parts[k:])
            for p in self._by_name.get("/".join(parts[:k]), ()):
                found = self._entry(p, stem) if not sub else self._subpath(p, sub, stem)
                if found:
                    return found
        return None

    def _subpath(self, p: Package, sub: str, stem: Callable[[str], str | None]) -> str | None:
        """``@acme/utils/fmt``'s file in package ``p`` (``sub``: ``fmt``)."""
        # "exports": {"./mini": {"import": "./mini/index.js"}}, then the
        # patterns ("./utils/*": "./src/utils/*.ts"), the longest head first
        for key, files in p.subpaths:
            rest = _match(key, sub)
            if rest is None:
                continue
            exported = tuple(f.replace("*", rest) for f in files)
            found = self._entry(p._replace(entries=exported), stem, fallback=False)
            if found:
                return found
        for folder in (p.folder, posixpath.join(p.folder, "src")):
            found = stem(posixpath.normpath(posixpath.join(folder, sub)))
            if found:
                return found
        return None

    def folder_entry(self, folder: str, stem: Callable[[str], str | None]) -> str | None:
        """The entry of the package whose package.json is in ``folder``, if
        one is and its entry is in the tree."""
        p = self._by_folder.get(folder)
        return self._entry(p, stem, fallback=False) if p is not None else None

    def _nearest(self, path: str) -> str | None:
        folder = posixpath.dirname(path)
        while True:
            if folder in self.configs:
                return folder
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def _entry(
        self, p: Package, stem: Callable[[str], str | None], fallback: bool = True
    ) -> str | None:
        """The file of ``p``'s entries that is in the tree (a ``.js`` one as
        its source; one in a build's output folder, ``dist/index.js``, as
        the same path under ``src/`` or ``lib/``), then, with ``fallback``,
        its ``src/index``, ``lib/index`` or ``index``."""
        fallbacks = ("src/index", "lib/index", "index") if fallback else ()
        for entry in (*p.entries, *fallbacks):
            path = posixpath.normpath(posixpath.join(p.folder, entry))
            if path.startswith(".."):
                continue
            base, ext = posixpath.splitext(path)
            if base.endswith(".d"):  # types.d.ts: the source beside it
                base = base[:-2]
            for candidate in (path, base, *_sources(p.folder, base)) if ext else (path,):
                found = stem(candidate)
                if found:
                    return found
        return None


# the folders a package's build writes, which its entries name while the
# tree holds the sources they are built from
_OUTPUT_FOLDERS = frozenset({"dist", "build", "out", "esm", "cjs", "lib"})


def _sources(folder: str, built: str) -> tuple[str, ...]:
    """Where the source of a built entry (``pkg/dist/index``, no
    extension) may be: the same path under ``pkg/src`` or ``pkg/lib``,
    with the output folders at its head dropped one by one
    (``dist/esm/client``: ``src/esm/client``, then ``src/client``)."""
    rest = built[len(folder) :].lstrip("/") if folder else built
    parts = rest.split("/")
    out: list[str] = []
    k = 0
    while k < len(parts) - 1 and parts[k] in _OUTPUT_FOLDERS:
        k += 1
        tail = "/".join(parts[k:])
        out += [posixpath.join(folder, s, tail) for s in ("src", "lib") if s != parts[0]]
    return tuple(out)


def _match(pattern: str, module: str) -> str | None:
    """What ``*`` stands for when ``module`` matches ``pattern`` ("" for an
    exact match); None when it does not."""
    if "*" not in pattern:
        return "" if module == pattern else None
    head, _, tail = pattern.partition("*")
    if module.startswith(head) and module.endswith(tail) and len(module) >= len(head) + len(tail):
        return module[len(head) : len(module) - len(tail)]
    return None


def _options(
    path: str, configs: Mapping[str, Any], depth: int
) -> tuple[tuple[Alias, ...], str | None] | None:
    """The aliases and baseUrl folder of config ``path``, with what a config
    it extends by a relative path gives where it says nothing itself."""
    doc = configs.get(path)
    if not isinstance(doc, dict) or depth > _EXTENDS_DEPTH:
        return None
    root = posixpath.dirname(path)
    inherited: tuple[tuple[Alias, ...], str | None] | None = None
    extends = doc.get("extends")
    if isinstance(extends, str) and extends.startswith("."):
        parent = posixpath.normpath(posixpath.join(root, extends))
        if not parent.endswith(".json"):
            parent += ".json"
        inherited = _options(parent, configs, depth + 1)
    options = doc.get("compilerOptions")
    options = options if isinstance(options, dict) else {}
    base_url = options.get("baseUrl")
    base = posixpath.normpath(posixpath.join(root, base_url)) if isinstance(base_url, str) else None
    if base == ".":
        base = ""
    paths = options.get("paths")
    if not isinstance(paths, dict):
        if inherited is not None:
            return inherited[0], base if base is not None else inherited[1]
        return ((), base) if base is not None else None
    anchor = base if base is not None else root  # paths without baseUrl: from the config
    aliases = tuple(
        Alias(
            root, pattern, tuple(posixpath.join(anchor, t) for t in targets if isinstance(t, str))
        )
        for pattern, targets in paths.items()
        if isinstance(pattern, str) and isinstance(targets, list)
    )
    return aliases, base


def _entries(doc: dict[str, Any]) -> tuple[str, ...]:
    """A package's entry files as package.json names them, most likely the
    source first."""
    out = [doc.get(k) for k in ("source", "types", "typings", "module", "main")]
    exports = doc.get("exports")
    if isinstance(exports, dict):
        exports = exports.get(".", exports)
    if isinstance(exports, dict):
        for k in ("source", "types", "import", "default", "require"):
            v = exports.get(k)
            out.append(v.get("default") if isinstance(v, dict) else v)
    elif isinstance(exports, str):
        out.append(exports)
    return tuple(dict.fromkeys(e for e in out if isinstance(e, str) and e))


def _subpaths(doc: dict[str, Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``exports`` subpaths, each with every file its conditions name
    (``{"@zod/source": "./src/mini/index.ts", "import": ...}``): the exact
    ones in the order written, then those with one ``*`` (``./utils/*``),
    the longest part before it first, as Node picks among them; a file of
    a pattern has a ``*`` too."""
    exports = doc.get("exports")
    if not isinstance(exports, dict):
        return ()
    exact: list[tuple[str, tuple[str, ...]]] = []
    patterns: list[tuple[str, tuple[str, ...]]] = []
    for key, value in exports.items():
        if not isinstance(key, str) or not key.startswith("./") or key == "./":
            continue
        stars = key.count("*")
        files = tuple(dict.fromkeys(f for f in _strings(value, 0) if f.count("*") == stars <= 1))
        if files and stars <= 1:
            (patterns if stars else exact).append((key[2:], files))
    patterns.sort(key=lambda kv: -len(kv[0].partition("*")[0]))
    return tuple(exact + patterns)


def _strings(value: Any, depth: int) -> list[str]:
    """Every string in a condition object, depth first, bounded."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict) and depth < 4:
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    return []


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):  # malformed, or nested past the parser's depth
        return None


def _jsonc(data: bytes) -> Any:
    """JSON with ``//`` and ``/* */`` comments and trailing commas."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    try:
        return json.loads(plain_json(text))
    except (ValueError, RecursionError):
        return None


def plain_json(text: str) -> str:
    """JSON with comments and trailing commas (tsconfig's) as plain JSON."""
    return _TRAILING_COMMA.sub(r"\1", _without_comments(text))


def _without_comments(text: str) -> str:
    """``text`` with its comments blanked and its strings kept, in one pass
    (a regular expression would rescan an unclosed ``/*`` from each one)."""
    out = []
    i, n, start = 0, len(text), 0
    while i < n:
        c = text[i]
        if c == '"':  # a string: to its closing quote, past escapes
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif text.startswith("//", i) or text.startswith("/*", i):
            out.append(text[start:i])
            end = text.find("\n" if text[i + 1] == "/" else "*/", i + 2)
            i = n if end < 0 else end + (0 if text[i + 1] == "/" else 2)
            start = i
        else:
            i += 1
    out.append(text[start:])
    return "".join(out)
