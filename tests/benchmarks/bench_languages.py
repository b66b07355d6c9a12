"""Per-language throughput and definitions recall against Universal Ctags, on real code.

Sources are real packages fetched from the registries this machine reaches
(none are committed; they are cached under ~/.cache/freshindex/bench-sources):

- PyPI sdists: zstandard (zstd's C), greenlet and pybind11 (C++), JPype1
  (Java), pythonnet (C#), pygments (its example files, a few of each);
- Debian packages: ruby-rack, ruby-activesupport (Ruby), php-monolog and
  php-symfony-console (PHP), golang-github-spf13-cobra-dev (Go),
  librust-serde-dev (Rust);
- npm: lodash (JavaScript), zod and rxjs (TypeScript), expo-modules-core
  (Kotlin, and more TypeScript);
- the installed rich and click (Python).

For each language: MB/s of tree-sitter's parse alone (the pure-parse limit)
and of freshindex's extraction (parse, tags query, binding, summaries), in
one process; then the definitions Universal Ctags finds in the same files
(its definition kinds: functions, methods, classes, structs, interfaces,
enums, traits, modules, types, constants, macros; not variables, fields,
parameters, imports or namespaces) and the share freshindex also finds, by
(path, name, line), and by (path, name).

Usage: python tests/benchmarks/bench_languages.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from freshindex.indexer.extract import extract, parse  # noqa: E402
from freshindex.indexer.languages import language_for  # noqa: E402
from freshindex.process.cache import cache_dir  # noqa: E402

PYPI = ["zstandard", "greenlet", "pybind11", "JPype1", "pythonnet", "pygments"]
DEBIAN = [
    "ruby-rack",
    "ruby-activesupport",
    "php-monolog",
    "php-symfony-console",
    "golang-github-spf13-cobra-dev",
    "librust-serde-dev",
]
NPM = ["lodash", "zod", "rxjs", "expo-modules-core"]
CTAGS_LANG = {
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "go": "Go",
    "rust": "Rust",
    "java": "Java",
    "c": "C",
    "cpp": "C++",
    "csharp": "C#",
    "ruby": "Ruby",
    "php": "PHP",
    "kotlin": "Kotlin",
}
DEFINITION_KINDS = {
    "function",
    "method",
    "class",
    "struct",
    "interface",
    "enum",
    "trait",
    "module",
    "type",
    "typedef",
    "union",
    "constant",
    "macro",
    "singletonMethod",
    "object",
    "implementation",
    "func",
    "methodSpec",
    "record",
    "constructor",
    "const",
}  # fmt: skip  (not "alias": PHP's and TypeScript's are imports under another name)
MAX_FILE = 500_000  # bytes: generated amalgamations are not what this measures


def fetch(root: Path) -> Path:
    """Download and unpack every source once; the folder of unpacked trees."""
    out = root / "unpacked"
    if out.exists():
        return out
    dl = root / "downloads"
    dl.mkdir(parents=True, exist_ok=True)
    pip = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        "-d",
        str(dl),
    ]
    for name in PYPI:
        subprocess.run([*pip, name], check=True, capture_output=True)
    for deb in DEBIAN:
        subprocess.run(["apt-get", "download", deb], cwd=dl, check=True, capture_output=True)
    for pkg in NPM:
        subprocess.run(["npm", "pack", pkg, "--silent"], cwd=dl, check=True, capture_output=True)
    tmp = root / "unpacking"
    tmp.mkdir(exist_ok=True)
    for f in sorted(dl.iterdir()):
        dest = tmp / f.name.split(".tar")[0].split(".zip")[0].split(".deb")[0].split(".tgz")[0]
        if f.suffix == ".deb":
            subprocess.run(["dpkg-deb", "-x", str(f), str(dest)], check=True)
        elif f.suffix == ".zip":
            with zipfile.ZipFile(f) as z:
                z.extractall(dest)
        else:
            with tarfile.open(f) as t:
                t.extractall(dest, filter="data")
    tmp.rename(out)
    return out


def files_by_language(roots: list[Path]) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = defaultdict(list)
    for r in roots:
        for p in sorted(r.rglob("*")):
            if not p.is_file() or p.is_symlink() or p.stat().st_size > MAX_FILE:
                continue
            lang = language_for(p.name)
            if lang is None or lang == "tsx":
                continue
            found[lang].append(p)
    return found


def throughput(files: list[Path], lang: str, repeat: int) -> tuple[float, float, float]:
    """(MB, pure-parse MB/s, extraction MB/s): the best of ``repeat`` passes."""
    datas = [f.read_bytes() for f in files]
    mb = sum(len(d) for d in datas) / 1e6
    best_parse = best_extract = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for d in datas:
            try:
                parse(lang, d)
            except Exception:
                continue
        best_parse = min(best_parse, time.perf_counter() - t)
        t = time.perf_counter()
        for f, d in zip(files, datas, strict=True):
            try:
                extract(str(f), lang, d)
            except Exception:
                continue
        best_extract = min(best_extract, time.perf_counter() - t)
    return mb, mb / best_parse, mb / best_extract


def ctags_definitions(files: list[Path], lang: str) -> set[tuple[str, str, int]]:
    out: set[tuple[str, str, int]] = set()
    with tempfile.NamedTemporaryFile("w", suffix=".list") as listing:
        listing.write("\n".join(str(f) for f in files))
        listing.flush()
        done = subprocess.run(
            ["ctags", "--output-format=json", "--fields=+nK", f"--languages={CTAGS_LANG[lang]}",
             f"--language-force={CTAGS_LANG[lang]}", "-L", listing.name, "-f", "-"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
    for line in done.stdout.splitlines():
        try:
            tag = json.loads(line)
        except json.JSONDecodeError:
            continue
        if tag.get("_type") != "tag" or tag.get("kind") not in DEFINITION_KINDS:
            continue
        out.add((tag["path"], tag["name"], int(tag.get("line", 0))))
    return out


def ours(files: list[Path], lang: str) -> set[tuple[str, str, int]]:
    out: set[tuple[str, str, int]] = set()
    for f in files:
        try:
            rows = extract(str(f), lang, f.read_bytes())
        except Exception:
            continue
        out.update((str(f), r[2], int(r[11])) for r in rows.symbols)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    unpacked = fetch(cache_dir("bench-sources"))
    roots = [unpacked]
    for name in ("rich", "click"):
        spec = importlib.util.find_spec(name)
        assert spec and spec.submodule_search_locations
        roots.append(Path(next(iter(spec.submodule_search_locations))))
    found = files_by_language(roots)
    version = subprocess.run(["ctags", "--version"], capture_output=True, text=True).stdout.split(
        ","
    )[0]
    print(f"# sources: {', '.join(PYPI)} (PyPI sdists), {', '.join(DEBIAN)} (Debian), "
          f"{', '.join(NPM)} (npm), rich and click (installed); {version}\n")  # fmt: skip
    print(
        "| language | files | MB | parse MB/s | extract MB/s | ctags defs | recall (name+line) | recall (name) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for lang in sorted(found):
        files = found[lang]
        mb, parse_rate, extract_rate = throughput(files, lang, args.repeat)
        theirs = ctags_definitions(files, lang)
        mine = ours(files, lang)
        by_line = len(theirs & mine) / len(theirs) if theirs else 1.0
        names_mine = {(p, n) for p, n, _l in mine}
        by_name = len({(p, n) for p, n, _l in theirs} & names_mine) / max(
            len({(p, n) for p, n, _l in theirs}), 1
        )
        print(
            f"| {lang} | {len(files)} | {mb:.2f} | {parse_rate:.1f} | {extract_rate:.1f} | "
            f"{len(theirs)} | {by_line:.2f} | {by_name:.2f} |"
        )


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("languages"):
        main()
