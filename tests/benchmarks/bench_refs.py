"""Reference precision and recall against jedi, on real packages' code.

Copies Python packages installed from the package index (not this
repository's code) into one git repository, builds an index, and takes a
fixed-seed sample of definitions (functions, methods, classes). For each, the
referee is jedi's ``get_references`` at the definition's name (its
definitions, including the one asked about, left out), and freshindex answers
``refs --id`` in process:

- ``bound``: the references bound to that definition;
- ``bound+cand``: those plus the candidates (name-matched, not provable);
- ``bare``: what a bare-name query returns (bound to any definition of the
  name, plus the candidates), as a name-based tool would.

Beside them, Sourcegraph's precise indexer, scip-python (from npm, cached
outside the repository; tests/benchmarks/scip.py), indexes the same
repository, and its references of the same definitions are scored against
the same referee: its column ``scip``, and its index time beside the build's.

A site is (path, line, column of the name). Reports micro precision and
recall per kind and overall, the time per query of both tools, and the worst
misses and false positives, so the docs can explain them.

Usage: python tests/benchmarks/bench_refs.py [--packages rich click ...] [--sample 100]
       [--seed 7] [--no-scip] [--sizes] [--table refs] [--show 12]
       (--sizes: two repositories, 2 and 5 packages; --table: the table's file name)
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import jedi  # noqa: E402

from freshindex.catalog.reader import IndexVersion  # noqa: E402
from freshindex.core.gitrepo import open_repo  # noqa: E402
from freshindex.query import references  # noqa: E402
from freshindex.query.evaluation import evaluate  # noqa: E402
from freshindex.storage import open_store  # noqa: E402
from tests.benchmarks import scip  # noqa: E402
from tests.benchmarks.report import timed_build  # noqa: E402

DEFAULT_PACKAGES = ("rich", "click", "starlette", "jinja2", "httpx")
Site = tuple[str, int, int]


def make_repo(root: Path, packages: list[str]) -> Path:
    repo = root / "repo"
    repo.mkdir()
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"package {name} is not installed")
        src = Path(next(iter(spec.submodule_search_locations)))
        shutil.copytree(src, repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(
        ["git", "commit", "-qm", "packages"],
        cwd=repo,
        check=True,
        env={**env, "PATH": "/usr/bin:/bin"},
    )
    return repo


def sample(version: IndexVersion, n: int, seed: int) -> list[dict[str, Any]]:
    rows = version.read("symbols").to_pylist()
    pool = [
        r
        for r in rows
        if r["language"] == "python"
        and r["kind"] in ("function", "method", "class")
        and not r["name"].startswith("__")
        and "/tests/" not in r["path"]
    ]
    pool.sort(key=lambda r: (r["path"], r["start_line"], r["name"]))
    rng = random.Random(seed)
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in pool:
        by_kind[r["kind"]].append(r)
    picked: list[dict[str, Any]] = []
    for kind, share in (("function", 0.35), ("method", 0.4), ("class", 0.25)):
        group = by_kind[kind]
        picked += rng.sample(group, min(len(group), round(n * share)))
    return picked


def jedi_sites(project: jedi.Project, repo: Path, d: dict[str, Any]) -> set[Site] | None:
    path = repo / d["path"]
    script = jedi.Script(path=str(path), project=project)
    try:
        found = script.get_references(d["name_line"], d["name_col"], scope="project")
    except Exception:  # jedi's own failure: the definition is left out
        return None
    out: set[Site] = set()
    for r in found:
        if r.module_path is None or r.line is None or r.column is None:
            continue
        try:
            rel = Path(r.module_path).resolve().relative_to(repo.resolve())
        except ValueError:
            continue  # outside the repository (stubs, the standard library)
        site = (rel.as_posix(), r.line, r.column)
        text = _line(repo, site)
        if r.is_definition() and text.startswith(("def ", "async def ", "class ")):
            continue  # the definition itself, or an override: not a use
        out.add(_normal(repo, site))
    return out


def ours(answerer: Any, repo: Path, d: dict[str, Any]) -> tuple[set[Site], set[Site], set[Site]]:
    def sites(rows: list[dict[str, Any]]) -> set[Site]:
        return {_normal(repo, (r["path"], r["startLine"], r["startCol"])) for r in rows}

    doc = references.references(answerer, answerer.linker, None, d["symbol_id"])
    bound = sites(doc["bound"])
    bare_doc = references.references(answerer, answerer.linker, d["name"])
    return (
        bound,
        bound | sites(doc["candidates"]),
        sites(bare_doc["bound"] + bare_doc["candidates"]),
    )


def _normal(repo: Path, site: Site) -> Site:
    """`from m import x as x`: jedi points at the alias, freshindex at the
    imported name, so on an import line a site is the line, whichever column."""
    if _line(repo, site).startswith(("from ", "import ")):
        return (site[0], site[1], -1)
    return site


def pr(tp: int, got: int, want: int) -> tuple[float, float]:
    return (tp / got if got else 1.0), (tp / want if want else 1.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-scip", action="store_true", help="leave scip-python out")
    ap.add_argument("--table", default="refs", help="the docs/benchmarks/ file to write")
    ap.add_argument("--sizes", action="store_true", help="the small and the full package set")
    ap.add_argument(
        "--show", type=int, default=12, help="lines of misses and false positives to print"
    )
    args = ap.parse_args()
    sets = [list(SMALL_PACKAGES), list(DEFAULT_PACKAGES)] if args.sizes else [args.packages]
    for packages in sets:
        run(packages, args.sample, args.seed, not args.no_scip, args.show)
        print()


SMALL_PACKAGES = ("click", "httpx")


def run(packages: list[str], n: int, seed: int, with_scip: bool, shown: int = 12) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = make_repo(root, packages)
        files = sum(1 for _ in repo.rglob("*.py"))
        store = (root / "store").as_uri()
        build_s = timed_build(repo, store)
        peer = None
        scip_s = 0.0
        if with_scip:
            scip_s = scip.index(repo, root / "index.scip")
            peer = scip.Index(root / "index.scip")
        version = IndexVersion.current(open_store(store))
        answerer = evaluate(open_repo(repo), version)
        # the repository's copies, not the installed packages they came from:
        # the standard library and the repository only
        stdlib = [p for p in sys.path if "site-packages" not in p and p]
        project = jedi.Project(str(repo), sys_path=[str(repo), *stdlib], smart_sys_path=False)
        defs = sample(version, n, seed)
        # counts per kind and mode: [tp, got, want]
        totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        times = {"jedi": 0.0, "freshindex": 0.0}
        misses: Counter[str] = Counter()
        wrong: list[str] = []
        wrong_by_def: Counter[str] = Counter()
        missed: list[str] = []
        unbound: list[str] = []
        used = 0
        for d in defs:
            t = time.perf_counter()
            want = jedi_sites(project, repo, d)
            times["jedi"] += time.perf_counter() - t
            if want is None:
                continue
            t = time.perf_counter()
            bound, with_cands, bare = ours(answerer, repo, d)
            times["freshindex"] += time.perf_counter() - t
            used += 1
            theirs = peer.references(_site(d)) if peer is not None else None
            modes = [("bound", bound), ("bound+cand", with_cands), ("bare", bare)]
            if theirs is not None:
                modes.append(("scip", {_normal(repo, s) for s in theirs}))
            elif peer is not None:
                totals[(d["kind"], "scip-none")][0] += 1
            for mode, got in modes:
                for kind in (d["kind"], "all"):
                    c = totals[(kind, mode)]
                    c[0] += len(got & want)
                    c[1] += len(got)
                    c[2] += len(want)
            for site in sorted(want - with_cands):
                misses[_line_kind(repo, site)] += 1
                missed.append(f"{d['qualname']} <- {site[0]}:{site[1]}: {_line(repo, site)}")
            for site in sorted((want & with_cands) - bound):
                unbound.append(f"{d['qualname']} <- {site[0]}:{site[1]}: {_line(repo, site)}")
            extra = sorted(bound - want)
            if extra:
                wrong_by_def[d["qualname"]] += len(extra)
            for site in extra[:2]:
                wrong.append(f"{d['qualname']} <- {site[0]}:{site[1]}: {_line(repo, site)}")
        print(
            f"**{files} Python files of {', '.join(packages)}; {used} of {len(defs)} sampled "
            f"definitions (seed {seed}) answered by jedi {jedi.__version__}; "
            f"freshindex build {build_s:.1f} s"
            + (f", scip-python {scip.VERSION} index {scip_s:.1f} s" if with_scip else "")
            + "**\n"
        )
        columns = ["bound", "bound+cand", "bare", *(["scip"] if with_scip else [])]
        print("| kind | " + " | ".join(f"{m} P | {m} R" for m in columns) + " |")
        print("|---|" + "---|---|" * len(columns))
        for kind in ("function", "method", "class", "all"):
            cells = []
            for mode in columns:
                p, r = pr(*totals[(kind, mode)])
                cells += [f"{p:.2f}", f"{r:.2f}"]
            print(f"| {kind} | " + " | ".join(cells) + " |")
        if with_scip:
            none = sum(totals[(k, "scip-none")][0] for k in ("function", "method", "class"))
            print(
                f"\nscip-python had no definition at the name of {none} of them (left out of its column)"
            )
        print(
            f"\nper query: jedi {times['jedi'] / max(used, 1) * 1000:.0f} ms, "
            f"freshindex {times['freshindex'] / max(used, 1) * 1000:.0f} ms (refs --id and refs NAME)"
        )
        print("\nmissed by bound+cand, by the referee's line:", dict(misses.most_common(8)))
        by_definition = Counter(m.split(" <- ")[0] for m in missed)
        print("missed, by definition:", dict(by_definition.most_common(12)))
        for m in missed[:shown]:
            print("  ", m)
        print(f"the referee's, found only as candidates ({len(unbound)}; first {shown}):")
        for u in unbound[:shown]:
            print("  ", u)
        print("bound but not the referee's, by definition:", dict(wrong_by_def.most_common(8)))
        print(f"the first two of each ({len(wrong)}; first {shown}):")
        for w in wrong[:shown]:
            print("  ", w)


def _site(d: dict[str, Any]) -> Site:
    return (d["path"], d["name_line"], d["name_col"])


def _line(repo: Path, site: Site) -> str:
    lines = (repo / site[0]).read_text(errors="replace").splitlines()
    return lines[site[1] - 1].strip()[:100] if site[1] <= len(lines) else ""


def _line_kind(repo: Path, site: Site) -> str:
    text = _line(repo, site)
    if text.startswith(("import ", "from ")):
        return "import"
    if text.startswith("@"):
        return "decorator"
    if "isinstance" in text:
        return "isinstance"
    if text.startswith(("def ", "async def ")) or "->" in text:
        return "annotation"
    if text.startswith("class "):
        return "base class"
    return "other"


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    # `--table refs-unseen`: another set of packages, beside the usual table
    table = sys.argv[sys.argv.index("--table") + 1] if "--table" in sys.argv else "refs"
    with table_file(table):
        main()
