"""Context packages on real history: do they hold the files a change also touched?

For each of the N most recent commits of a repository that changed a Python
function and at least one other source file: index the commit's parent
(an incremental update from the previous one), build the context of that
function at the parent at each budget, and measure the share of the
commit's *other* changed source files (Python files, and the configuration
files the indexer knows) that the package names, and the tokens it used.
Side by side in the same run, at the same commits and budgets:

- ``freshindex``: freshindex/query/context.py (target ``path:line``);
- ``aider``: aider's own ``RepoMap`` (PyPI aider-chat, run offline in its own
  virtualenv under ~/.cache/freshindex/aider-venv, tests/benchmarks/aider_map.py),
  with the target's file as the chat file and every other Python file of the
  tree as the rest; the files its map names;
- ``aider-style``: a name-ranked map computed here from freshindex's rows:
  files holding name-matched references to or from the target file's
  definitions, ranked by count, each costing its definitions' names.

Tokens are the 4-bytes estimate for all three (aider's token counter is
given the same estimate; no model is contacted). Nothing from the future
leaks in: the clone is checked out at the parent, whose history is all the
co-change ranking sees.

Usage: python tests/benchmarks/bench_context.py [--repo PATH ...] [--commits 20]
       [--budgets 2000 6000]   (a repository is a git folder or a bare mirror)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import pygit2  # noqa: E402

from freshindex.catalog.reader import IndexVersion  # noqa: E402
from freshindex.indexer.config import DEFAULT_REBUILD_PATTERNS, matches_any  # noqa: E402
from freshindex.indexer.extract import extract  # noqa: E402
from freshindex.query import context as context_pkg  # noqa: E402
from freshindex.query.evaluation import evaluate  # noqa: E402
from freshindex.query.tokens import DEFAULT_COUNTER  # noqa: E402
from freshindex.storage import open_store  # noqa: E402

BIN = Path(sys.executable).parent
AIDER_VENV = Path.home() / ".cache" / "freshindex" / "aider-venv"
AIDER_MAP = Path(__file__).with_name("aider_map.py")


def source_file(path: str) -> bool:
    return path.endswith(".py") or matches_any(path.rsplit("/", 1)[-1], DEFAULT_REBUILD_PATTERNS)


def changed_function(repo: pygit2.Repository, commit: pygit2.Commit) -> tuple[str, int, str] | None:
    """(path, line at the parent, qualname) of the function the commit changed
    most, in a Python file that existed at the parent."""
    parent = commit.parents[0]
    diff = repo.diff(parent, commit, context_lines=0)
    best: tuple[int, str, int, str] | None = None
    for patch in diff:
        path = patch.delta.old_file.path
        if not path.endswith(".py") or patch.delta.status_char() not in ("M",):
            continue
        try:
            data = repo[parent.tree[path].id].data
        except KeyError:
            continue
        rows = extract(path, "python", data)
        funcs = [r for r in rows.symbols if r[5] in ("function", "method")]
        for hunk in patch.hunks:
            lo, hi = hunk.old_start, hunk.old_start + max(hunk.old_lines, 1) - 1
            for f in funcs:
                overlap = min(hi, f[9]) - max(lo, f[7]) + 1
                if overlap > 0 and (best is None or overlap > best[0]):
                    best = (overlap, path, int(f[11]), str(f[4]))
    return None if best is None else (best[1], best[2], best[3])


def aider_python() -> Path:
    """aider-chat's interpreter, installed from PyPI once into the cache."""
    python = AIDER_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(AIDER_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "aider-chat"], check=True)
    return python


def aider(root: Path, target: str, budget: int) -> tuple[set[str], int]:
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    request = {"root": str(root), "target": target, "budget": budget, "files": files}
    out = subprocess.run(
        [str(aider_python()), str(AIDER_MAP)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "AIDER_ANALYTICS": "false"},
    )
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    return {target, *doc["files"]}, int(doc["tokens"])


def aider_style(answerer: Any, path: str, budget: int) -> tuple[set[str], int]:
    """Files ranked by name-matched references to and from the target file."""
    defined = {r["name"] for r in answerer.rows_now("symbols", path)}
    used = {e["target"] for e in answerer.rows_now("edges", path)}
    counts: Counter[str] = Counter()
    edges = answerer.version.read("edges", columns=["path", "target"]).to_pylist()
    for e in edges:
        if e["path"] != path and e["target"] in defined:
            counts[e["path"]] += 1
    symbols = answerer.version.read("symbols", columns=["path", "name", "start_line"]).to_pylist()
    by_file: dict[str, list[str]] = {}
    for s in symbols:
        by_file.setdefault(s["path"], []).append(s["name"])
        if s["path"] != path and s["name"] in used:
            counts[s["path"]] += 1
    used_tokens = 0
    chosen = {path}
    for other, _n in counts.most_common():
        cost = DEFAULT_COUNTER.count("\n".join(by_file.get(other, [])) + other)
        if used_tokens + cost > budget:
            continue
        used_tokens += cost
        chosen.add(other)
    return chosen, used_tokens


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", nargs="+", default=[str(ROOT)])
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--budgets", type=int, nargs="+", default=[2000, 6000])
    args = ap.parse_args()
    print(
        "| repository | commits | budget | package | mean recall of co-changed files "
        "| commits with any found | mean tokens used |"
    )
    print("|---|---|---|---|---|---|---|")
    for repo in args.repo:
        run(repo, args.commits, args.budgets)


def run(repo: str, n: int, budgets: list[int]) -> None:
    source = pygit2.Repository(repo)
    picked: list[tuple[pygit2.Commit, tuple[str, int, str], set[str]]] = []
    for commit in source.walk(source.head.target, pygit2.enums.SortMode.TIME):
        if len(commit.parents) != 1:
            continue
        diff = source.diff(commit.parents[0], commit)
        files = {p.delta.new_file.path for p in diff} | {p.delta.old_file.path for p in diff}
        target = changed_function(source, commit)
        if target is None:
            continue
        others = {f for f in files if source_file(f) and f != target[0]}
        if others:
            picked.append((commit, target, others))
        if len(picked) >= n:
            break
    picked.reverse()  # oldest first: each index is an update of the one before
    names = ("freshindex", "aider", "aider-style")
    results: dict[tuple[int, str], list[tuple[float, int]]] = {
        (b, name): [] for b in budgets for name in names
    }
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", repo, str(clone)], check=True)
        store = (Path(tmp) / "store").as_uri()
        for commit, (path, line, qualname), others in picked:
            parent = str(commit.parents[0].id)
            subprocess.run(["git", "checkout", "-q", "--detach", parent], cwd=clone, check=True)
            cmd = [str(BIN / "freshindex"), "--repo", str(clone), "--store", store]
            done = subprocess.run([*cmd, "update"], capture_output=True, text=True)
            if done.returncode != 0:
                subprocess.run(
                    [*cmd, "build", "--runner", "threads"], capture_output=True, check=True
                )
            answerer = evaluate(
                pygit2.Repository(str(clone)), IndexVersion.current(open_store(store))
            )
            row = []
            for budget in budgets:
                new = context_pkg.build(answerer, f"{path}:{line}", budget)
                packages = {
                    "freshindex": ({i["path"] for i in new["items"]}, new["usedTokens"]),
                    "aider": aider(clone, path, budget),
                    "aider-style": aider_style(answerer, path, budget),
                }
                for name, (paths, tokens) in packages.items():
                    recall = len(paths & others) / len(others)
                    results[(budget, name)].append((recall, tokens))
                    row.append(f"{name}@{budget} {recall:.2f}")
            print(
                f"{str(commit.id)[:10]} {qualname} ({len(others)} co-changed): " + ", ".join(row),
                file=sys.stderr,
            )
    label = Path(repo).name if Path(repo).name != "repo" else Path(repo).parent.name
    for budget in budgets:
        for name in names:
            rows = results[(budget, name)]
            recalls = [r for r, _t in rows]
            any_found = sum(1 for r in recalls if r > 0)
            tokens = statistics.mean(t for _r, t in rows) if rows else 0
            mean = statistics.mean(recalls) if recalls else 0
            print(
                f"| {label} | {len(rows)} | {budget} | {name} | {mean:.2f} | "
                f"{any_found}/{len(rows)} | {tokens:.0f} |"
            )


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("context"):
        main()
