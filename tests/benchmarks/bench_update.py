"""Incremental update cost against a full build, on two repository sizes.

For each size (default 3,000 and 30,000 files): a full build (128 shards,
LocalCluster), then updates of 1, 10, 100 and 500 modified files, each its own
commit, all against one running Prefect server started with the settings the
README recommends. Each change size is timed twice, on two commits:
- cold: `freshindex update` end to end (a new process: Python, Prefect's
  import, the flow run; thread runner);
- warm: `POST /update` to a `freshindex serve --updates` started after the
  full build (the flow run in a process that imported Prefect once), timed
  from request to response, which comes after the new version is loaded;
- own API: `freshindex update` with no PREFECT_API_URL, so the command starts
  and stops its own Prefect API (a laptop with no server);
- deployment: the `on-merge-pool` deployment of prefect.yaml on a process
  work pool, with `prefect worker start` already running (polling every
  second: PREFECT_WORKER_QUERY_SECONDS=1); the flow run's own start to end
  as the API records it, and in parentheses submission to completion.

Corpora:
- ``stdlib`` (default): real code. CPython's standard library ``.py`` files
  (1,790 here, 17.6 kB on average), copied side by side under ``copyNN/`` as
  often as the size needs (2 copies for 3,000 files, 17 for 30,000). Copies are
  byte-identical, so git stores each blob once, but nothing in the indexer
  caches by blob: every copy is parsed.
- ``synthetic``: generated 6-line files (~80 bytes). Almost no parse work, so
  both the full build and the update are nearly all fixed cost: the ratio's
  worst case.
- ``kernel``: the whole of Debian's ``linux-source-6.1`` (one size; fetched
  and cached as bench_kernel.py does); the edits are to ``.c`` files.

Usage: python tests/benchmarks/bench_update.py [--corpus stdlib|synthetic|kernel]
       [--sizes 3000 30000] [--changes 1 10 100 500]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bench_status import make  # noqa: E402
from tests.benchmarks.servers import prefect_server  # noqa: E402
from tests.conftest import free_port, stop, wait_http  # noqa: E402
from tests.repos import commit_all, git  # noqa: E402

BIN = Path(sys.executable).parent
# names the warm service is asked about in the kernel
KERNEL_NAMES = ["kmalloc", "schedule", "mutex_lock", "printk", "copy_from_user"]


def defined(files: list[Path], n: int = 5) -> list[str]:
    """The first ``n`` function names the Python files define."""
    import re

    names: list[str] = []
    for p in files:
        for name in re.findall(r"^def (\w+)", p.read_text(errors="replace"), re.M):
            if name not in names:
                names.append(name)
            if len(names) == n:
                return names
    return names


def stdlib_corpus(root: Path, n: int) -> Path:
    """A repository of at least ``n`` real Python files: copies of the stdlib."""
    src = Path(sysconfig.get_paths()["stdlib"])
    files = [
        p for p in sorted(src.rglob("*.py")) if "site-packages" not in p.relative_to(src).parts
    ]
    repo = root / f"stdlib-{n}"
    for c in range(math.ceil(n / len(files))):
        for p in files:
            target = repo / f"copy{c:02d}" / p.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "stdlib copies")
    return repo


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, dict]:  # type: ignore[type-arg]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return time.perf_counter() - t0, json.loads(out)


def warm_service(port: int, pid: int, names: list[str], repeat: int = 50) -> str:
    """The warm service before any update: its RSS with the version loaded,
    and the p50 of ``defs`` and ``refs`` over ``names`` (after one warming
    round), in words for the line under the table."""
    import statistics

    import psutil

    def p50(kind: str) -> float:
        for name in names:  # warm
            urllib.request.urlopen(
                f"http://127.0.0.1:{port}/{kind}?name={name}", timeout=600
            ).read()
        took = []
        for i in range(repeat):
            name = names[i % len(names)]
            t0 = time.perf_counter()
            urllib.request.urlopen(
                f"http://127.0.0.1:{port}/{kind}?name={name}", timeout=600
            ).read()
            took.append(time.perf_counter() - t0)
        return statistics.median(took) * 1000

    defs, refs = p50("defs"), p50("refs")
    rss = psutil.Process(pid).memory_info().rss / 1e9
    return (
        f"warm `serve` with the version loaded: {rss:.2f} GB RSS; over HTTP, p50 of "
        f"`defs` {defs:.1f} ms and `refs` {refs:.1f} ms ({', '.join(names)})"
    )


def posted(url: str) -> tuple[float, dict]:  # type: ignore[type-arg]
    t0 = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=600) as r:
        doc = json.loads(r.read())
    return time.perf_counter() - t0, doc


def edit(repo: Path, files: list[Path], k: int, tag: str) -> None:
    """Append a function to the first ``k`` files and commit them."""
    time.sleep(2)  # the server records the previous run, not during the next one
    for i, p in enumerate(files[:k]):
        with p.open("a") as fh:
            if p.suffix == ".c":
                fh.write(f"\n\nint edit_{tag}_{i}(void)\n{{\n\treturn {i};\n}}\n")
            else:
                fh.write(f"\n\ndef edit_{tag}_{i}():\n    return {i}\n")
    commit_all(repo, f"{k} edits ({tag})")


def corpus(kind: str, work: Path, n: int) -> tuple[Path, list[Path]]:
    """The repository and the files the edits go to."""
    if kind == "kernel":
        from tests.benchmarks.bench_build import kernel_repo

        repo = work / "linux"
        if not repo.exists():
            kernel_repo(repo)
        # spread over the tree: one in 500 of its .c files
        return repo, sorted(p for p in repo.rglob("*.c") if ".git" not in p.parts)[::500]
    repo = stdlib_corpus(work, n) if kind == "stdlib" else make(work, n)
    return repo, sorted(p for p in repo.rglob("*.py") if ".git" not in p.parts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", choices=["stdlib", "synthetic", "kernel"], default="stdlib")
    ap.add_argument("--sizes", type=int, nargs="+", default=[3000, 30000])
    ap.add_argument("--changes", type=int, nargs="+", default=[1, 10, 100, 500])
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fi-update-"))
    env, server = prefect_server(work)
    print(
        "| corpus | files | MB | full build (s) | changed files | update cold (s) | cold / full "
        "| update warm (s) | warm / full | cold, own API (s) | on-merge deployment (s) "
        "| mode | shards rewritten |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    worker: subprocess.Popen[bytes] | None = None
    notes: list[str] = []
    try:
        own = {k: v for k, v in env.items() if k != "PREFECT_API_URL"}
        prefect = [str(BIN / "prefect"), "--no-prompt"]
        subprocess.run([*prefect, "work-pool", "create", "freshindex", "--type", "process"],
                       env=env, check=True, capture_output=True)  # fmt: skip
        subprocess.run([*prefect, "deploy", "--all"], cwd=ROOT, env=env, check=True,
                       capture_output=True)  # fmt: skip
        for n in args.sizes if args.corpus != "kernel" else [0]:
            repo, files = corpus(args.corpus, work, n)
            every = [p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts]
            mb = sum(p.stat().st_size for p in every) / 1e6
            fi = [str(BIN / "freshindex"), "--repo", str(repo), "--json"]
            full, _ = timed([*fi, "build"], env)
            if worker is not None:
                stop(worker)
            worker = subprocess.Popen(
                [*prefect, "worker", "start", "--pool", "freshindex"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env={**env, "FRESHINDEX_REPO": str(repo), "PREFECT_WORKER_QUERY_SECONDS": "1"},
            )  # fmt: skip
            port = free_port()
            service = subprocess.Popen(
                [*fi, "serve", "--updates", "--port", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
            )
            try:
                wait_http(f"http://127.0.0.1:{port}/healthz", service, 600, "freshindex serve")
                names = KERNEL_NAMES if args.corpus == "kernel" else defined(files)
                notes.append(
                    f"{args.corpus}, {len(every)} files: " + warm_service(port, service.pid, names)
                )
                for k in args.changes:
                    edit(repo, files, k, f"cold{k}")
                    cold, doc = timed([*fi, "update"], env)
                    edit(repo, files, k, f"warm{k}")
                    warm, wdoc = posted(f"http://127.0.0.1:{port}/update")
                    edit(repo, files, k, f"own{k}")
                    alone, odoc = timed([*fi, "update"], own)
                    edit(repo, files, k, f"deployed{k}")
                    sha = git(repo, "rev-parse", "HEAD")
                    ran, submitted = deployed(env, sha)
                    outcomes = {doc["outcome"], wdoc["outcome"], odoc["outcome"]}
                    assert outcomes == {"published"}, (doc, wdoc, odoc)
                    print(
                        f"| {args.corpus} | {len(every)} | {mb:.0f} | {full:.1f} | {k} "
                        f"| {cold:.1f} | {cold / full:.0%} | {warm:.1f} | {warm / full:.0%} "
                        f"| {alone:.1f} | {ran:.1f} ({submitted:.1f}) "
                        f"| {doc['mode']} | {doc['shardsRewritten']} |",
                        flush=True,
                    )
            finally:
                stop(service)
    finally:
        if worker is not None:
            stop(worker)
        stop(server)
    for note in notes:
        print(f"\n{note}")


def deployed(env: dict[str, str], sha: str) -> tuple[float, float]:
    """(the on-merge flow run's start to end, submission to completion)."""
    code = (
        "import json, sys, time\n"
        "from prefect.deployments import run_deployment\n"
        "t0 = time.perf_counter()\n"
        f"run = run_deployment('freshindex-update/on-merge-pool', parameters={{'rev': {sha!r}}},"
        " timeout=600, poll_interval=0.2)\n"
        "took = time.perf_counter() - t0\n"
        "assert run.state.is_completed(), run.state.message\n"
        "print(json.dumps([(run.end_time - run.start_time).total_seconds(), took]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    ran, took = json.loads(out.strip().splitlines()[-1])
    return float(ran), float(took)


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("update-kernel" if "kernel" in sys.argv else "update"):
        main()
