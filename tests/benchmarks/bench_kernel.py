"""C references at kernel scale: bound through the include graph, against `git grep`.

Fetches Debian's ``linux-source-6.1`` with the package client (``apt-get
download``), unpacks it once under ~/.cache/freshindex/kernel (never into
the repository), copies a part of the tree into a git repository (by default
``include/``, ``arch/x86/include/``, ``mm/`` and ``kernel/``: every header a
core ``.c`` file sees, and thousands of callers), builds it with freshindex,
and for a few kernel functions and macros counts:

- ``git grep``: the lines that look like a call (``\\bNAME\\s*\\(``), the
  name-based upper bound an agent would otherwise read, and of those the
  lines where the call is code (not in a comment or a string), and how many
  of those are in a ``#define``;
- freshindex's bound references (through the include graph:
  indexer/bind_c.py), the calls that see a prototype of a function the C
  sources never define (``external``: assembly, a library), and its
  candidates;
- the time of each ``refs`` in process, cold (first) and warm.

``--package`` measures another C code base shipped the same way, one the
binding was not tuned on (``glibc-source``: the whole tree by default).

Usage: python tests/benchmarks/bench_kernel.py [--parts include arch/x86/include mm kernel]
       [--names kmalloc mutex_lock ...] [--work DIR (keep the tree and the index)]
       [--package glibc-source --names malloc free ...]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from freshindex.catalog.reader import IndexVersion  # noqa: E402
from freshindex.core.gitrepo import open_repo  # noqa: E402
from freshindex.query import references  # noqa: E402
from freshindex.query.evaluation import evaluate  # noqa: E402
from freshindex.storage import open_store  # noqa: E402
from tests.benchmarks.report import timed_build  # noqa: E402

CACHE = Path.home() / ".cache" / "freshindex" / "kernel"
PACKAGE = "linux-source-6.1"
PARTS = ("include", "arch/x86/include", "mm", "kernel")
NAMES = ("kmalloc", "kfree", "mutex_lock", "spin_lock", "schedule", "printk", "copy_from_user")


def kernel_tree() -> Path:
    """The unpacked kernel source, fetched and unpacked once."""
    return source_tree(PACKAGE, CACHE)


def source_tree(package: str, cache: Path | None = None) -> Path:
    """A Debian package that ships a source tarball under /usr/src
    (``linux-source-6.1``, ``glibc-source``), fetched with the package client
    and unpacked once under ~/.cache/freshindex; the tarball's top folder."""
    cache = cache or CACHE.parent / "sources" / package
    done = cache / ".unpacked"
    if done.is_file():
        return cache / done.read_text().strip()
    if (cache / package).is_dir():  # unpacked before this marker existed
        return cache / package
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", package], cwd=cache, check=True, capture_output=True)
    deb = next(cache.glob(f"{package}_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), str(cache / "deb")], check=True)
    archive = next((cache / "deb" / "usr" / "src").rglob("*.tar.*"))
    with tarfile.open(archive) as tar:
        top = tar.next()
        tar.extractall(cache, filter="data")
    assert top is not None
    name = top.name.split("/", 1)[0]
    done.write_text(name)
    return cache / name


def make_repo(root: Path, tree: Path, parts: list[str]) -> Path:
    repo = root / "linux"
    for part in parts:
        shutil.copytree(tree / part, repo / part, symlinks=True, dirs_exist_ok=True)
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env |= {"GIT_COMMITTER_EMAIL": "b@b", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    # Debian's top-level .gitignore ignores every top-level entry ("/*"):
    # the whole tree is the package's, so everything in it is added
    force = ["-f"] if "." in parts else []
    subprocess.run(["git", "add", "-A", *force], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "kernel part"], cwd=repo, check=True, env=env)
    return repo


# a comment or a string or character literal, to blank before counting calls
_NOT_CODE = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


@dataclass
class CallLines:
    grep: int  # lines `git grep` finds
    code: set[tuple[str, int]]  # of those, with the call outside comments and strings
    in_macros: int  # of the code lines, inside a #define


def call_lines(repo: Path, name: str) -> CallLines:
    """The lines with a call of ``name``, as ``git grep`` finds them and as
    code: comments and literals blanked, lines kept."""
    pattern = rf"\b{name}\s*\("
    out = subprocess.run(
        ["git", "grep", "-c", "-P", pattern, "--", "*.c", "*.h"],
        cwd=repo,
        capture_output=True,
        text=True,
    ).stdout
    found = CallLines(0, set(), 0)
    call = re.compile(pattern.encode())
    for line in out.splitlines():
        path, count = line.rsplit(":", 1)
        found.grep += int(count)
        data = _NOT_CODE.sub(
            lambda m: re.sub(rb"[^\n]", b" ", m.group()), (repo / path).read_bytes()
        )
        in_macro = False
        for n, text in enumerate(data.split(b"\n"), 1):
            in_macro = in_macro or text.lstrip().startswith(b"#")
            if call.search(text):
                found.code.add((path, n))
                found.in_macros += in_macro
            in_macro = in_macro and text.rstrip().endswith(b"\\")
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--package", default=PACKAGE, help="another Debian source package (glibc-source)"
    )
    ap.add_argument("--parts", nargs="+", default=None, help="folders of the tree ('.': all)")
    ap.add_argument("--names", nargs="+", default=list(NAMES))
    ap.add_argument("--work", type=Path, help="keep the tree and the index here, and reuse them")
    args = ap.parse_args()
    kernel = args.package == PACKAGE
    tree = kernel_tree() if kernel else source_tree(args.package)
    parts = args.parts or (list(PARTS) if kernel else ["."])
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        measure(args.work, tree, args.package, parts, args.names)
        return
    with tempfile.TemporaryDirectory() as tmp:
        measure(Path(tmp), tree, args.package, parts, args.names)


def measure(root: Path, tree: Path, package: str, parts: list[str], names: list[str]) -> None:
    repo = root / "linux"
    if not repo.is_dir():
        make_repo(root, tree, parts)
    files = sum(1 for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)
    store = (root / "store").as_uri()
    build_s = timed_build(repo, store)
    version = IndexVersion.current(open_store(store))
    counts = version.manifest.counts
    print(
        f"**{package}: {', '.join(parts)} ({files} files; {counts.documents} documents, "
        f"{counts.symbols} symbols, {counts.edges} edges); build {build_s:.0f} s on this "
        "machine**\n"
    )
    print(
        "| name | `git grep` lines | call lines in code (in `#define`) | bound there | share "
        "| bound elsewhere | declared, defined outside | candidates | bound to | refs cold (s) "
        "| refs warm (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        answerer = evaluate(open_repo(repo), version)
        t = time.perf_counter()
        doc = references.references(answerer, answerer.linker, name)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        references.references(answerer, answerer.linker, name)
        warm = time.perf_counter() - t
        places = sorted({str(g["definition"]["path"]) for g in doc["groups"] if g["bound"]})
        lines = call_lines(repo, name)
        bound = {(str(r["path"]), int(r["startLine"])) for r in doc["bound"]}
        hit = len(lines.code & bound)
        share = hit / len(lines.code) if lines.code else 0.0
        more = f" +{len(places) - 2}" if len(places) > 2 else ""
        print(
            f"| {name} | {lines.grep} | {len(lines.code)} ({lines.in_macros}) | {hit} | "
            f"{share:.0%} | {len(bound - lines.code)} | {len(doc['external'])} | "
            f"{len(doc['candidates'])} | "
            f"{', '.join(places[:2]) or '-'}{more} | {cold:.2f} | {warm:.2f} |"
        )


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    package = sys.argv[sys.argv.index("--package") + 1] if "--package" in sys.argv else PACKAGE
    # the whole tree (`--parts .`) gets a table of its own beside the subset's
    whole = "--parts" in sys.argv and sys.argv[sys.argv.index("--parts") + 1] == "."
    name = "kernel" if package == PACKAGE else f"kernel-{package}"
    with table_file(f"{name}-whole" if whole and package == PACKAGE else name):
        main()
