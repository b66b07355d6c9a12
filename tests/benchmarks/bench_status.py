"""worktreeTree / status cost against `git status --porcelain` and the article's recipe.

Generates repositories of N small Python files (default 3,000 and 50,000),
then for each, clean and with 10 dirty files, times (best of --repeat):

- ``git status --porcelain`` (git's own, with the index stat cache);
- the reference recipe: ``read-tree HEAD; add -A; write-tree`` on a temp index;
- ``scan()`` in process: freshindex's worktreeTree computation;
- ``freshindex status --json`` end to end (process start, imports, store read);
- ``freshindex defs`` with the 10-file dirty overlay (first and cached).

Usage: python tests/benchmarks/bench_status.py [--sizes 3000 50000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import pygit2  # noqa: E402

from freshindex.query.worktree import scan  # noqa: E402
from tests.repos import GIT_ENV, commit_all, git  # noqa: E402

BIN = Path(sys.executable).parent


def make(root: Path, n: int) -> Path:
    repo = root / f"repo-{n}"
    for i in range(n):
        d = repo / f"pkg{i % 200:03d}" / f"sub{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"mod{i}.py").write_text(
            f"def f{i}(x):\n    return g{i % 50}(x) + {i}\n\n\nclass C{i}:\n    pass\n"
        )
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "generated")
    return repo


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def recipe(repo: Path) -> str:
    tmp = Path(tempfile.mkdtemp()) / "index"
    env = {**os.environ, **GIT_ENV, "GIT_INDEX_FILE": str(tmp)}
    subprocess.run(["git", "-C", str(repo), "read-tree", "HEAD"], env=env, check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A", "--", "."], env=env, check=True)
    out = subprocess.run(
        ["git", "-C", str(repo), "write-tree"], env=env, check=True, capture_output=True, text=True
    )
    tmp.unlink()
    return out.stdout.strip()


def run(cmd: list[str], env: dict[str, str]) -> None:
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[3000, 50000])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fi-status-"))
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "cache"), "PREFECT_LOGGING_LEVEL": "WARNING"}
    print(
        "| files | worktree | git status (ms) | recipe (ms) | scan() (ms) | scan / git status | recipe / scan "
        "| `freshindex status` (ms) | `defs` with overlay, first / cached (ms) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        repo = make(work, n)
        fi = [str(BIN / "freshindex"), "--repo", str(repo)]
        run([*fi, "build", "--runner", "threads", "--shards", "16"], env)
        r = pygit2.Repository(str(repo))
        for state in ("clean", "10 dirty"):
            if state == "10 dirty":
                for i in range(10):
                    p = next((repo / f"pkg{i:03d}").rglob("*.py"))
                    p.write_text(p.read_text() + f"\n\ndef dirty{i}():\n    pass\n")
            # warm the stat cache the way a user's shell would have
            git(repo, "status", "--porcelain")
            gs = best(lambda: git(repo, "status", "--porcelain"), args.repeat)  # noqa: B023
            rc = best(lambda: recipe(repo), args.repeat)  # noqa: B023
            sc = best(lambda: scan(r), args.repeat)  # noqa: B023
            assert scan(r).tree == recipe(repo)
            st = best(lambda: run([*fi, "--json", "status"], env), args.repeat)  # noqa: B023
            defs = "-"
            if state == "10 dirty":
                first = best(lambda: run([*fi, "--json", "defs", "dirty3"], env), 1)  # noqa: B023
                cached = best(lambda: run([*fi, "--json", "defs", "dirty3"], env), args.repeat)  # noqa: B023
                defs = f"{first * 1e3:.0f} / {cached * 1e3:.0f}"
            print(
                f"| {n} | {state} | {gs * 1e3:.0f} | {rc * 1e3:.0f} | {sc * 1e3:.0f} | {sc / gs:.2f} "
                f"| {rc / sc:.1f} | {st * 1e3:.0f} | {defs} |",
                flush=True,
            )


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("status"):
        main()
