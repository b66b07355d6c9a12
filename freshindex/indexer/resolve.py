"""Resolving an import's module spec to the file that defines it, from the tree's paths alone.

Pure: built from the list of paths of the commit being indexed, so a resolved
path provably exists in that commit. No compiler, no build graph: a spec that
does not map to a file of the tree (a third-party package, a Go module outside
the repo) stays unresolved rather than guessed.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import posixpath
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from freshindex.indexer import (
    bind_c,
    go_modules,
    js_modules,
    kotlin_imports,
    python_modules,
    rust_crates,
)
from freshindex.indexer.js_modules import JsModules

# Resolves (language, importing path, module spec, imported name) to the path
# of the file that defines it, or None: a PathIndex, or any callable like it.
Resolver = Callable[[str, str, str, str], "str | None"]

_JS_EXTS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


class PathIndex:
    """All paths of one tree, with suffix lookups for the languages' module systems."""

    def __init__(
        self,
        paths: Iterable[str],
        links: Mapping[str, str] | None = None,
        include_roots: Iterable[str] = (),
        js: JsModules | None = None,
        crates: Mapping[str, str] | None = None,
        go_modules: Mapping[str, str] | None = None,
        rust_roots: Iterable[str] = (),
    ):
        """``links``: symlinks of the tree (path -> the link's text). A link to
        a folder of the repository makes its files importable under the link's
        path too (`freshindex/indexer -> ../indexer`), as Python, Node and the
        compilers would find them; a resolved path is always the real one.
        ``include_roots``: the folders a C or C++ include is looked up in, in
        order, before the roots found by suffix (indexer/bind_c.py reads them
        from the configuration and compile_commands.json; "" is the top).
        ``js``: the tree's tsconfig aliases and workspace packages, for
        imports that do not start with a dot (indexer/js_modules.py).
        ``crates``: the tree's Rust crates, library name -> root folder
        (indexer/rust_crates.py), for ``use tokio::...`` outside ``tokio/src``.
        ``go_modules``: the tree's Go modules, module path -> folder
        (indexer/go_modules.py), for import paths under a module's prefix.
        ``rust_roots``: the folders of the root files of the Rust targets
        the manifests name by path, what ``crate::`` names in a file under one."""
        self.paths = frozenset(paths)
        self.js = js
        self.crates = dict(sorted((crates or {}).items()))
        # the deepest first: a file's crate is the nearest root above it
        self.rust_roots = sorted({*rust_roots, *self.crates.values()}, key=lambda r: (-len(r), r))
        # longest module path first: a nested module wins over its parent
        self.go_modules = sorted((go_modules or {}).items(), key=lambda m: (-len(m[0]), m[0]))
        self.links = dict(sorted((links or {}).items()))
        self.include_roots = tuple(include_roots)
        # alias or real path -> real path
        self._real: dict[str, str] = {p: p for p in self.paths}
        self._real.update(_aliases(self.paths, self.links))
        # "b/c.py" -> ["a/b/c.py", "src/b/c.py"]: lets `import b.c` find a file
        # under a source root (src/, lib/) without knowing the build config.
        self._by_suffix: dict[str, list[str]] = defaultdict(list)
        self._dirs: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self._real):
            real = self._real[path]
            parts = path.split("/")
            for k in range(1, len(parts) + 1):
                found = self._by_suffix["/".join(parts[-k:])]
                if real not in found:
                    found.append(real)
            if path == real:
                self._dirs[posixpath.dirname(path)].append(path)
        self._dir_suffix: dict[str, list[str]] = defaultdict(list)
        for d in self._dirs:
            parts = d.split("/") if d else []
            for k in range(1, len(parts) + 1):
                self._dir_suffix["/".join(parts[-k:])].append(d)

    @classmethod
    def of_tree(
        cls,
        paths: list[str],
        links: Mapping[str, str],
        include_paths: Iterable[str],
        compile_db: bytes | None,
        manifests: Mapping[str, bytes] | None = None,
    ) -> PathIndex:
        """A tree's index with its C include roots: ``include_paths`` from
        the configuration, then those of its compile_commands.json; its
        JavaScript aliases and packages and its Rust crates from
        ``manifests`` (the contents of its tsconfig/jsconfig/package.json
        and Cargo.toml files: ``wanted``)."""
        roots = bind_c.include_roots(include_paths, compile_db, frozenset(paths))
        js = {p: data for p, data in (manifests or {}).items() if js_modules.wanted(p)}
        crates = rust_crates.crates(manifests) if manifests else None
        rust_roots = rust_crates.roots(manifests) if manifests else []
        modules = go_modules.modules(manifests) if manifests else None
        js_index = JsModules(js) if js else None
        return cls(paths, links, roots, js_index, crates, modules, rust_roots)

    @functools.cached_property
    def digest(self) -> str:
        """Of the path set: what every resolution depends on."""
        h = hashlib.blake2b(digest_size=16)
        for path in sorted(self.paths):
            h.update(path.encode("utf-8", "surrogateescape") + b"\0")
        for link, target in self.links.items():
            h.update(f"{link}\0{target}\1".encode("utf-8", "surrogateescape"))
        for root in self.include_roots:
            h.update(f"{root}\2".encode("utf-8", "surrogateescape"))
        for part in self.js.digest_parts() if self.js is not None else ():
            h.update(f"{part}\3".encode("utf-8", "surrogateescape"))
        for name, root in self.crates.items():
            h.update(f"{name}\0{root}\4".encode("utf-8", "surrogateescape"))
        for root in self.rust_roots:
            h.update(f"{root}\6".encode("utf-8", "surrogateescape"))
        for name, root in self.go_modules:
            h.update(f"{name}\0{root}\5".encode("utf-8", "surrogateescape"))
        return h.hexdigest()

    def at(self, path: str) -> str | None:
        """The real path a path (or a path through a linked folder) names."""
        return self._real.get(path)

    def __call__(self, language: str, from_path: str, module: str, name: str) -> str | None:
        return self.resolve(language, from_path, module, name)

    def resolve(self, language: str, from_path: str, module: str, name: str) -> str | None:
        if language == "python":
            return python_modules.resolve(self._real, self._by_suffix, from_path, module, name)
        if language in ("javascript", "typescript", "tsx"):
            return self._js(from_path, module)
        if language == "java":  # a Kotlin class of the package too: one JVM, one namespace
            stem = f"{module.replace('.', '/')}/{name}"
            return self._suffix(f"{stem}.java", from_path) or self._suffix(f"{stem}.kt", from_path)
        if language == "go":
            return self._go(from_path, module)
        if language == "rust":
            return self._rust(from_path, module, name)
        if language in ("c", "cpp"):
            return self._relative_or_suffix(from_path, module, ("",))
        if language == "ruby":
            return self._relative_or_suffix(from_path, module, (".rb", ""))
        if language == "php":
            return self._php(from_path, module)
        if language == "kotlin":
            return self._kotlin(from_path, module.split("."))
        if language == "csharp":
            return self._namespace_dir(from_path, module.split("."), ".cs")
        return None

    def _relative_or_suffix(self, from_path: str, spec: str, exts: tuple[str, ...]) -> str | None:
        """`#include "x/y.h"`, `require_relative "x/y"`: beside the including
        file first, then any file whose path ends with the spec (an include
        path or a load path we do not know)."""
        if spec.startswith("<"):
            return self._include_root(spec.strip("<> "), from_path)
        base = posixpath.dirname(from_path)
        for ext in exts:
            near = posixpath.normpath(posixpath.join(base, spec + ext))
            if near in self._real:
                return self._real[near]
        found = self._configured_root(spec)  # a quoted include searches -I too
        if found:
            return found
        for ext in exts:
            found = self._suffix(spec.lstrip("./") + ext, from_path)
            if found:
                return found
        return None

    def _include_root(self, spec: str, from_path: str) -> str | None:
        """`#include <linux/slab.h>`: a file under an include root of the
        tree (`include/linux/slab.h`, `arch/x86/include/linux/slab.h`, a
        top-level `linux/slab.h`); the root nearest the includer wins, then the
        shortest path. No such file: a system header, left unresolved."""
        if not spec or spec.startswith("/") or ".." in spec.split("/"):
            return None
        configured = self._configured_root(spec)
        if configured:
            return configured
        found = [
            p
            for p in self._by_suffix.get(spec, [])
            if p == spec or p[: -len(spec)].endswith("include/")
        ]
        if not found:
            return None
        return max(found, key=lambda p: (len(posixpath.commonprefix([p, from_path])), -len(p)))

    def _configured_root(self, spec: str) -> str | None:
        """The first of the configured include roots that has the file."""
        if not spec or spec.startswith("/") or ".." in spec.split("/"):
            return None
        for root in self.include_roots:
            found = self._real.get(posixpath.join(root, spec) if root else spec)
            if found:
                return found
        return None

    def _php(self, from_path: str, module: str) -> str | None:
        """`use App\\Models\\User` by PSR-4-like suffix (App/Models/User.php, then
        Models/User.php, …); a required path beside the file, then by suffix."""
        if "\\" in module or ("/" not in module and not module.endswith(".php")):
            return self._longest_suffix(module.strip("\\").split("\\"), (".php",), from_path)
        return self._relative_or_suffix(from_path, module.lstrip("/"), ("",))

    def _longest_suffix(
        self, parts: list[str], exts: tuple[str, ...], from_path: str
    ) -> str | None:
        for k in range(len(parts), 0, -1):
            for ext in exts:
                found = self._suffix("/".join(parts[-k:]) + ext, from_path)
                if found:
                    return found
        return None

    def _kotlin(self, from_path: str, parts: list[str]) -> str | None:
        exts = (".kt", ".kts", ".java")
        found = self._longest_suffix(parts, exts, from_path)
        return found or kotlin_imports.by_package(
            parts, from_path, self._suffix, self._dir_suffix, self._dirs
        )

    def _namespace_dir(self, from_path: str, parts: list[str], ext: str) -> str | None:
        """A C# namespace names a folder by convention: the longest trailing
        match, then its first file of the language."""
        for k in range(len(parts), 0, -1):
            dirs = self._dir_suffix.get("/".join(parts[-k:]))
            if dirs:
                best = max(dirs, key=lambda d: len(posixpath.commonprefix([d, from_path])))
                files = sorted(f for f in self._dirs[best] if f.endswith(ext))
                return files[0] if files else None
        return None

    def _suffix(self, suffix: str, from_path: str) -> str | None:
        if suffix in self._real:
            return self._real[suffix]
        found = self._by_suffix.get(suffix)
        if not found:
            return None
        if len(found) == 1:
            return found[0]
        # ambiguous: the candidate sharing the longest directory prefix with the importer
        return max(found, key=lambda p: (len(posixpath.commonprefix([p, from_path])), -len(p)))

    def _js(self, from_path: str, module: str) -> str | None:
        if not module.startswith("."):
            # a tsconfig alias or a workspace package; else a package from outside
            return self.js.resolve(from_path, module, self._js_stem) if self.js else None
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), module))
        folder = "" if stem == "." else stem
        # a folder (`require("..")`): its package.json's entry, as Node reads
        # it, else its index file
        entry = self.js.folder_entry(folder, self._js_stem) if self.js else None
        return entry or self._js_stem(folder or "index")

    def _js_stem(self, stem: str) -> str | None:
        """The file a JS/TS import path names: itself, its TS source, or
        with an extension or ``/index``."""
        if stem.startswith(".."):
            return None
        if stem in self._real:
            return self._real[stem]
        base, ext = posixpath.splitext(stem)
        if ext in (".js", ".mjs", ".cjs", ".jsx"):  # TS source imported by its emitted name
            for alt in (".ts", ".tsx", ".mts", ".cts"):
                if base + alt in self._real:
                    return self._real[base + alt]
        for candidate in (*(stem + e for e in _JS_EXTS), *(f"{stem}/index{e}" for e in _JS_EXTS)):
            if candidate in self._real:
                return self._real[candidate]
        return None

    def _go(self, from_path: str, module: str) -> str | None:
        # an import path names a package directory: under a go.mod's module
        # path, the folder beside it; else, the module prefix
        # (example.com/org/repo) not being in the tree, match trailing
        # segments, longest first; answer with the package's first non-test file
        for prefix, folder in self.go_modules:
            if module == prefix or module.startswith(prefix + "/"):
                rest = module[len(prefix) :].strip("/")
                found = self._go_file(posixpath.join(folder, rest) if rest else folder)
                if found is not None:
                    return found
        parts = module.split("/")
        for k in range(len(parts), 0, -1):
            dirs = self._dir_suffix.get("/".join(parts[-k:]))
            if dirs:
                best = max(dirs, key=lambda d: len(posixpath.commonprefix([d, from_path])))
                files = [
                    f for f in self._dirs[best] if f.endswith(".go") and not f.endswith("_test.go")
                ]
                return files[0] if files else None
        return None

    def _go_file(self, folder: str) -> str | None:
        files = self._dirs.get(folder, [])
        return next((f for f in files if f.endswith(".go") and not f.endswith("_test.go")), None)

    def _rust(self, from_path: str, module: str, name: str) -> str | None:
        parts = [p for p in module.split("::") if p]
        if not parts or parts[0] in ("std", "core", "alloc"):
            return None
        crate = next((r for r in self.rust_roots if _under(from_path, r)), None)
        if crate is None:
            crate = from_path.split("/src/")[0] + "/src" if "/src/" in from_path else "src"
        if parts[0] in ("crate", "self", "super"):
            head = parts.pop(0)
            root = crate
            if head != "crate":
                # the module the file is: its folder for mod.rs (lib.rs, main.rs),
                # else the folder of its name (a/b.rs is module a::b, whose
                # super is a: a.rs or a/mod.rs)
                here = posixpath.dirname(from_path)
                stem = posixpath.basename(from_path).removesuffix(".rs")
                root = here if stem in ("mod", "lib", "main") else posixpath.join(here, stem)
                if head == "super":
                    root = posixpath.dirname(root)
            roots = [root]
        else:
            # `use de::Visitor`: a module the current one declares (2018), or
            # one at the crate's root (2015 paths, and lib.rs's own modules),
            # in the crate the file is in; `use tokio::runtime` in tokio's
            # tests: the crate of that name in the tree; else another crate: None
            here = posixpath.dirname(from_path)
            stem = posixpath.basename(from_path).removesuffix(".rs")
            current = here if stem in ("mod", "lib", "main") else posixpath.join(here, stem)
            roots = list(dict.fromkeys([current, crate]))
            named = self.crates.get(parts[0])
            if named is not None and not any(self._rust_module(r, parts[0]) for r in roots):
                parts.pop(0)
                roots = [named]
        for root in roots:
            stem = posixpath.join(root, *parts) if parts else root
            # an item of the crate's root module (`use crate::open`): lib.rs or main.rs
            top = (
                (posixpath.join(root, "lib.rs"), posixpath.join(root, "main.rs"))
                if not parts
                else ()
            )
            for candidate in (
                f"{stem}/{name}.rs",
                f"{stem}/{name}/mod.rs",
                f"{stem}.rs",
                f"{stem}/mod.rs",
                *top,
            ):
                if candidate in self._real:
                    return self._real[candidate]
        return None

    def _rust_module(self, root: str, name: str) -> bool:
        stem = posixpath.join(root, name)
        return f"{stem}.rs" in self._real or f"{stem}/mod.rs" in self._real


def wanted(path: str) -> bool:
    """Whether a tree path is a manifest ``PathIndex.of_tree`` reads."""
    return js_modules.wanted(path) or rust_crates.wanted(path) or go_modules.wanted(path)


def _under(path: str, folder: str) -> bool:
    return not folder or path.startswith(f"{folder}/")


def _aliases(paths: frozenset[str], links: Mapping[str, str]) -> dict[str, str]:
    """alias -> real path for every file under a linked folder of the tree.
    A link out of the repository, to its root, or into itself is ignored."""
    out: dict[str, str] = {}
    ordered = sorted(paths) if links else []
    for link, text in links.items():
        if not text or text.startswith("/"):
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(link), text))
        if target in (".", "") or target.startswith("../") or target == "..":
            continue
        if link.startswith(target + "/") or target.startswith(link + "/"):
            continue  # a cycle
        prefix = target + "/"
        for p in ordered[bisect.bisect_left(ordered, prefix) :]:
            if not p.startswith(prefix):
                break
            out.setdefault(link + p[len(target) :], p)
    return out
