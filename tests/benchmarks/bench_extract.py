"""What a change to the indexer costs in extraction speed: this tree against
an earlier revision, on the same files, side by side in one run, with
Universal Ctags (definitions only) on the same files beside them.

Corpora (``--corpus``):

- ``python``: the Python of installed packages from the package index (the
  same as the references benchmark: rich, click, starlette, jinja2, httpx);
- ``kernel-c``, ``kernel-h``: one in 20 of the ``.c`` (or ``.h``, parsed as
  C++) files under 2 MB of Debian's ``linux-source-6.1``, fetched and cached
  as bench_kernel.py does.

Each side extracts every file (parse, tags, binding, value flow, summaries)
in a fresh process, with the shard tasks' collector settings (process/collector.py), ``--repeat`` times
alternately. The median of each side is the figure (this machine's speed
swings by a third within minutes, so a best-of picks whichever side got a
lucky moment); the best is shown beside it. The earlier revision's
``freshindex`` package is taken with ``git archive`` into a temporary
folder, so the working tree is never touched.

Also counted: the edge rows each side writes and how many of them are
``bound`` claims, so the cost can be read against what it buys.

Usage: python tests/benchmarks/bench_extract.py [--corpus python|kernel-c|kernel-h]
       [--baseline REV] [--repeat 7]
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rich", "click", "starlette", "jinja2", "httpx")

# run in the child, with the side's package first on sys.path
CHILD = r"""
import gc, json, sys, time
from pathlib import Path
from freshindex.indexer.extract import extract
from freshindex.indexer.resolve import PathIndex
from freshindex.process.collector import settle
job = json.loads(sys.stdin.read())
files, language = job["files"], job["language"]
datas = {p: Path(f).read_bytes() for p, f in files.items()}
paths = PathIndex(list(datas))
settle()  # as a shard task's process: the heap of imports frozen
t0 = time.process_time()
edges = bound = 0
for p, data in datas.items():
    try:
        rows = extract(p, language, data, paths)
    except Exception:  # a file over its parse budget, as a shard skips it
        continue
    edges += len(rows.edges)
    bound += sum(1 for e in rows.edges if e[12] == "bound")
cpu = time.process_time() - t0
print(json.dumps({"cpu": cpu, "bytes": sum(map(len, datas.values())), "edges": edges, "bound": bound}))
"""


def corpus(kind: str) -> tuple[dict[str, str], str, str]:
    """(label -> file, the language to extract it as, what it is in words)."""
    if kind.startswith("kernel-"):
        from tests.benchmarks.bench_kernel import PACKAGE, kernel_tree

        tree = kernel_tree()
        suffix = "." + kind.split("-")[1]
        found = sorted(
            p for p in tree.rglob(f"*{suffix}") if p.is_file() and p.stat().st_size < 2_000_000
        )[::20]
        files = {p.relative_to(tree).as_posix(): str(p) for p in found}
        language = "c" if suffix == ".c" else "cpp"
        return files, language, f"one in 20 `{suffix}` files of {PACKAGE} as {language}"
    return python_corpus(), "python", ", ".join(PACKAGES)


def python_corpus() -> dict[str, str]:
    out = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"package {name} is not installed")
        src = Path(next(iter(spec.submodule_search_locations)))
        for f in sorted(src.rglob("*.py")):
            out[f"{name}/{f.relative_to(src).as_posix()}"] = str(f)
    return out


def side(root: Path, files: dict[str, str], language: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=json.dumps({"files": files, "language": language}),
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        cwd=root,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def ctags_cpu(files: dict[str, str], language: str) -> float:
    """CPU seconds of Universal Ctags over the same files (definitions only)."""
    names = {"python": "Python", "c": "C", "cpp": "C++"}
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "files.txt"
        listing.write_text("\n".join(files.values()))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        # a real tags file: ctags fails to truncate /dev/null once its output is large
        subprocess.run(
            [
                "ctags",
                "-L",
                str(listing),
                "-f",
                f"{tmp}/tags",
                f"--language-force={names[language]}",
            ],
            check=True,
            capture_output=True,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def export(rev: str, into: Path) -> Path:
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "freshindex"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default="6efd771", help="the revision to compare with")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--corpus", default="python", choices=("python", "kernel-c", "kernel-h"))
    args = ap.parse_args()
    files, language, what = corpus(args.corpus)
    has_ctags = shutil.which("ctags") is not None
    with tempfile.TemporaryDirectory() as tmp:
        before_root = export(args.baseline, Path(tmp))
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        ctags: list[float] = []
        for _ in range(args.repeat):
            for name, root in (("before", before_root), ("after", ROOT)):
                runs[name].append(side(root, files, language))
            if has_ctags:
                ctags.append(ctags_cpu(files, language))
    mb = runs["after"][0]["bytes"] / 1e6
    print(
        f"**{language} extraction, {len(files)} files ({mb:.1f} MB): {what}; "
        f"{args.repeat} runs of each side, alternating, one process each, CPU time**\n"
    )
    print("| side | median CPU s | MB/s per core (median) | best CPU s | edge rows | bound rows |")
    print("|---|---|---|---|---|---|")
    median: dict[str, float] = {}
    for name, label in (("before", f"before ({args.baseline})"), ("after", "this tree")):
        cpu = sorted(r["cpu"] for r in runs[name])
        median[name] = statistics.median(cpu)
        r = runs[name][0]
        print(
            f"| {label} | {median[name]:.2f} | {mb / median[name]:.2f} | {cpu[0]:.2f} | "
            f"{r['edges']:.0f} | {r['bound']:.0f} |"
        )
    if ctags:
        c = sorted(ctags)
        print(
            f"| Universal Ctags (definitions only) | {statistics.median(c):.2f} | "
            f"{mb / statistics.median(c):.2f} | {c[0]:.2f} | - | - |"
        )
    ratio = median["before"] / median["after"]
    print(f"\nthis tree runs at {ratio:.2f}x the speed of {args.baseline} (medians, same files)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from tests.benchmarks.report import table_file

    corpus_name = sys.argv[sys.argv.index("--corpus") + 1] if "--corpus" in sys.argv else "python"
    with table_file("extract" if corpus_name == "python" else f"extract-{corpus_name}"):
        main()
