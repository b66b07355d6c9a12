"""C references at kernel scale: bound through the include graph, against `git grep`.

Fetches Debian's ``linux-source-6.1`` with the package client (``apt-get
download``), unpacks it once under ~/.cache/freshindex/kernel (never into
the repository), copies a part of the tree into a git repository (by default
``include/``, ``arch/x86/include/``, ``mm/`` and ``kernel/``: every header a
core ``.c`` file sees, and thousands of callers), builds it with freshindex,
and for a few kernel functions and macros counts:

- ``git grep``: the lines that look like a call (``\\bNAME\\s*\\(``), the
  name-based upper bound an agent would otherwise read;
- freshindex's bound references (through the include graph:
  indexer/bind_c.py) and its candidates;
- the time of each ``refs`` in process, cold (first) and warm.

Usage: python tests/benchmarks/bench_kernel.py [--parts include arch/x86/include mm kernel]
       [--names kmalloc mutex_lock ...]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
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
    tree = CACHE / PACKAGE
    if tree.is_dir():
        return tree
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", PACKAGE], cwd=CACHE, check=True, capture_output=True)
    deb = next(CACHE.glob(f"{PACKAGE}_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), str(CACHE / "deb")], check=True)
    archive = next((CACHE / "deb" / "usr" / "src").glob(f"{PACKAGE}.tar.*"))
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return tree


def make_repo(root: Path, tree: Path, parts: list[str]) -> Path:
    repo = root / "linux"
    for part in parts:
        shutil.copytree(tree / part, repo / part, symlinks=True)
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env |= {"GIT_COMMITTER_EMAIL": "b@b", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "kernel part"], cwd=repo, check=True, env=env)
    return repo


def grep_calls(repo: Path, name: str) -> int:
    out = subprocess.run(
        ["git", "grep", "-c", "-P", rf"\b{name}\s*\(", "--", "*.c", "*.h"],
        cwd=repo,
        capture_output=True,
        text=True,
    ).stdout
    return sum(int(line.rsplit(":", 1)[1]) for line in out.splitlines() if ":" in line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", nargs="+", default=list(PARTS))
    ap.add_argument("--names", nargs="+", default=list(NAMES))
    args = ap.parse_args()
    tree = kernel_tree()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = make_repo(root, tree, args.parts)
        files = sum(1 for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)
        store = (root / "store").as_uri()
        build_s = timed_build(repo, store)
        version = IndexVersion.current(open_store(store))
        counts = version.manifest.counts
        print(
            f"**{PACKAGE}: {', '.join(args.parts)} ({files} files; {counts.documents} documents, "
            f"{counts.symbols} symbols, {counts.edges} edges); build {build_s:.0f} s on this "
            "machine**\n"
        )
        print(
            "| name | `git grep` call lines | bound | candidates | bound at | refs cold (s) "
            "| refs warm (s) |"
        )
        print("|---|---|---|---|---|---|---|")
        for name in args.names:
            answerer = evaluate(open_repo(repo), version)
            t = time.perf_counter()
            doc = references.references(answerer, name)
            cold = time.perf_counter() - t
            t = time.perf_counter()
            references.references(answerer, name)
            warm = time.perf_counter() - t
            places = sorted(
                {str(d["path"]) for g in doc["groups"] if g["bound"] for d in [g["definition"]]}
            )
            print(
                f"| {name} | {grep_calls(repo, name)} | {len(doc['bound'])} | "
                f"{len(doc['candidates'])} | {', '.join(places[:2]) or '-'} | {cold:.2f} | {warm:.2f} |"
            )


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("kernel"):
        main()
