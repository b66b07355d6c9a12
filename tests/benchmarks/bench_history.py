"""Real histories replayed: is every incremental version the one a full build makes?

For each repository: a full build of the commit N first-parent steps before
its HEAD, then `freshindex update --rev` to each following commit in turn,
as a per-merge schedule would run it. At every commit a second store gets a
full build of the same commit, and the two stores' tables are compared row
for row (`freshindex dump --no-ids --no-overlay`, the proof envelope left
out: its version ids differ by design; tombstones too, an update's record
of what it deleted since its base). Real commits bring what generated
edits do not: renames, deletions, moved folders, new languages, vendored
trees, merge commits whose first parent jumps many files at once.

The table gives, per repository, how many commits were replayed, the files
they changed, how many commits had any table that differed, and the median
wall of an update (a new CLI process against one running Prefect API) beside
the median full build of the same commits (threads runner, the cheapest full
build for repositories of this size). The first differing commit's diff is
kept under the work folder and printed, so a mismatch is a bug report.

Usage: python tests/benchmarks/bench_history.py --repo PATH [PATH ...]
       [--commits 30]   (a repository is a git folder or a bare mirror)
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.servers import prefect_server  # noqa: E402
from tests.conftest import stop  # noqa: E402

BIN = Path(sys.executable).parent
# tombstones are left out: they record what an update deleted since its base,
# which a full build has no base to delete from
TABLES = ["documents", "symbols", "edges", "refs", "summaries"]


def cli(
    repo: Path, store: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    cmd = [str(BIN / "freshindex"), "--repo", str(repo), "--store", f"file://{store}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)


def timed(repo: Path, store: Path, env: dict[str, str], *args: str) -> float:
    t0 = time.perf_counter()
    cli(repo, store, env, *args)
    return time.perf_counter() - t0


def rows(repo: Path, store: Path, env: dict[str, str], table: str) -> list[str]:
    """The table's rows without the first line, the proof envelope."""
    out = cli(repo, store, env, "dump", "--table", table, "--no-ids", "--no-overlay").stdout
    return out.splitlines()[1:]


def differing(
    repo: Path, a: Path, b: Path, env: dict[str, str]
) -> dict[str, tuple[set[str], set[str]]]:
    """Per table that differs: rows only in ``a``, rows only in ``b``."""
    out = {}
    for table in TABLES:
        ra, rb = set(rows(repo, a, env, table)), set(rows(repo, b, env, table))
        if ra != rb:
            out[table] = (ra - rb, rb - ra)
    return out


def changed_files(repo: Path, old: str, new: str) -> int:
    diff = subprocess.run(
        ["git", "-C", str(repo), "diff", "--name-only", "--no-renames", old, new],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return len(diff.splitlines())


def replay(source: Path, commits: int, work: Path, env: dict[str, str]) -> str:
    name = source.parent.name if source.name in ("repo", ".git") else source.name
    repo = work / name / "clone"
    subprocess.run(["git", "clone", "-q", str(source), str(repo)], check=True)
    revs = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--first-parent", "-n", str(commits + 1), "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.split()[::-1]  # fmt: skip
    incremental = work / name / "incremental"
    cli(repo, incremental, env, "build", "--rev", revs[0], "--runner", "threads")
    updates, builds, changed, bad = [], [], [], []
    for old, new in itertools.pairwise(revs):
        changed.append(changed_files(repo, old, new))
        updates.append(timed(repo, incremental, env, "update", "--rev", new))
        full = work / name / f"full-{new[:12]}"
        builds.append(timed(repo, full, env, "build", "--rev", new, "--runner", "threads"))
        diff = differing(repo, incremental, full, env)
        if diff:
            bad.append(new)
            if len(bad) == 1:
                for table, (only_update, only_build) in diff.items():
                    print(f"  {name} {new[:12]} {table}: {len(only_update)} rows only in the update, "
                          f"{len(only_build)} only in the build", file=sys.stderr)  # fmt: skip
                    for row in sorted(only_update)[:3] + sorted(only_build)[:3]:
                        print(f"    {row[:300]}", file=sys.stderr)
                continue  # keep the first mismatch's store to look at
        subprocess.run(["rm", "-rf", str(full)], check=True)
    update, build = statistics.median(updates), statistics.median(builds)
    return (
        f"| {name} | {len(updates)} | {statistics.median(changed):g} / {max(changed)} "
        f"| {len(bad)} | {update:.1f} | {build:.1f} | {update / build:.2f} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path, nargs="+", required=True)
    ap.add_argument("--commits", type=int, default=30)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fi-history-"))
    env, server = prefect_server(work)
    print(
        "| repository | commits replayed | files changed per commit (median / max) "
        "| commits whose tables differ from a full build | update (s, median) "
        "| full build (s, median) | update / build |"
    )
    print("|---|---|---|---|---|---|---|")
    try:
        for source in args.repo:
            print(replay(source, args.commits, work, env), flush=True)
    finally:
        stop(server)
    print(f"\nwork folder (stores of any mismatch): {work}", file=sys.stderr)


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("history"):
        main()
