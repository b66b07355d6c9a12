"""Base selection (query/bases.py) with many published versions in the store.

A repository with N commits on main (default 1,000, each touching one of
4,000 files), one real build at the first commit, then one published version
per main commit: each a copy of the real manifest with its own version id,
commit and digests (its table files are the real build's, as an incremental
version's untouched shards are its parent's), a signed-format publication
record, and the pointer at main's tip. A branch forks 3 commits below the tip
and adds 2 commits. Measured side by side in one run:

- the selection alone, in process (Bases.select): with the record cache
  cold (every record read once), then warm (one LIST page, no record read);
- ``freshindex status --json`` end to end on the branch, cold and warm, and
  on main's tip (no selection: HEAD is the current version's commit);
- ``git merge-base`` as a process, the cheapest git answer to "where did
  this branch fork".

Usage: python tests/benchmarks/bench_bases.py [--versions 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import pygit2  # noqa: E402

from freshindex.catalog.layout import (  # noqa: E402
    CURRENT,
    manifest_key,
    new_version_id,
    now_iso,
    read_manifest,
    read_pointer,
    record_key,
)
from freshindex.catalog.manifest import Pointer, PublicationRecord  # noqa: E402
from freshindex.catalog.reader import IndexVersion  # noqa: E402
from freshindex.query.evaluation import Bases  # noqa: E402
from freshindex.storage import open_store  # noqa: E402
from tests.repos import GIT_ENV, commit_all, git  # noqa: E402

BIN = Path(sys.executable).parent


def make_history(repo: Path, versions: int, files: int) -> list[str]:
    """main: one commit of ``files`` files, then ``versions - 1`` commits of
    one changed file each (fast-import: seconds, not minutes)."""
    for i in range(files):
        d = repo / f"pkg{i % 100:03d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "generated")
    stream = []
    for n in range(1, versions):
        body = f"def f{n}(x):\n    return x - {n}\n".encode()
        message = f"change {n}\n".encode()
        stream.append(
            f"commit refs/heads/main\ncommitter b <b@x> {1700000000 + n} +0000\n".encode()
            + f"data {len(message)}\n".encode()
            + message
            + (b"from refs/heads/main^0\n" if n == 1 else b"")
            + f"M 100644 inline pkg{n % 100:03d}/m{n}.py\ndata {len(body)}\n".encode()
            + body
            + b"\n"
        )
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True,
        env={**os.environ, **GIT_ENV},
    )  # fmt: skip
    git(repo, "reset", "-q", "--hard", "main")
    out = git(repo, "rev-list", "--reverse", "main")
    return out.split()


def publish_copies(store_uri: str, commits: list[str], repo: Path) -> None:
    """One published version per commit, copies of the real build's manifest."""
    store = open_store(store_uri)
    real = read_manifest(store, read_pointer(store).pointer.version)  # type: ignore[union-attr]
    git_repo = pygit2.Repository(str(repo))
    last = None
    for seq, commit in enumerate(commits, start=1):
        version = real.versionId if seq == 1 else new_version_id(commit)
        tree = str(git_repo.get(commit).tree_id)  # type: ignore[union-attr]
        m = real.model_copy(
            update={"versionId": version, "sourceCommit": commit, "sourceTree": tree, "seq": seq}
        ).with_digests()
        if seq > 1:
            store.put_if_absent(manifest_key(version), m.to_bytes())
        record = PublicationRecord(
            version=version, seq=seq, sourceCommit=commit, manifestDigest=m.manifestDigest,
            parentVersion=None, buildKind=m.buildKind, publishedAt=now_iso(),
        )  # fmt: skip
        if seq > 1:
            store.put_if_absent(record_key(seq), record.to_bytes())
        last = m
    assert last is not None
    state = read_pointer(store)
    pointer = Pointer(
        version=last.versionId, manifestKey=manifest_key(last.versionId),
        manifestDigest=last.manifestDigest, seq=last.seq, generation=2, nonce="bench",
        writer="bench", updatedAt=now_iso(),
    )  # fmt: skip
    store.put_if_match(CURRENT, pointer.to_bytes(), state.etag)


def best(fn, repeat: int) -> tuple[float, list[float]]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--versions", type=int, default=1000)
    ap.add_argument("--files", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fi-bases-"))
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "cache")}
    os.environ["XDG_CACHE_HOME"] = env["XDG_CACHE_HOME"]
    repo = work / "repo"
    t0 = time.perf_counter()
    commits = make_history(repo, args.versions, args.files)
    store_uri = (work / "store").as_uri()
    git(repo, "checkout", "-q", commits[0])
    subprocess.run(
        [str(BIN / "freshindex"), "--repo", str(repo), "--store", store_uri, "build",
         "--runner", "threads", "--shards", "16"],
        env=env, check=True, capture_output=True,
    )  # fmt: skip
    publish_copies(store_uri, commits, repo)
    git(repo, "checkout", "-q", "-b", "feature", commits[-4])
    for i in range(2):
        (repo / f"feature{i}.py").write_text(f"def feature{i}():\n    pass\n")
        commit_all(repo, f"feature {i}")
    setup = time.perf_counter() - t0

    store = open_store(store_uri)
    current = IndexVersion.current(store)
    git_repo = pygit2.Repository(str(repo))
    cache = work / "cache" / "freshindex" / "published"

    def select_cold() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        Bases(store).select(git_repo, current)

    def select_warm() -> None:
        Bases(store).select(git_repo, current)

    chosen, base = Bases(store).select(git_repo, current)
    cold, cold_all = best(select_cold, args.repeat)
    warm, warm_all = best(select_warm, args.repeat)

    def status() -> dict:  # type: ignore[type-arg]
        out = subprocess.run(
            [str(BIN / "freshindex"), "--repo", str(repo), "--store", store_uri, "--json",
             "status"], env=env, capture_output=True, check=True,
        )  # fmt: skip
        return json.loads(out.stdout)  # type: ignore[no-any-return]

    doc = status()
    status_cold, _ = best(lambda: (shutil.rmtree(cache, ignore_errors=True), status()), args.repeat)
    status_warm, _ = best(status, args.repeat)
    git(repo, "checkout", "-q", "main")
    status_main, _ = best(status, args.repeat)
    git(repo, "checkout", "-q", "feature")
    merge_base, _ = best(
        lambda: subprocess.run(["git", "merge-base", "HEAD", "main"], cwd=repo, check=True,
                               capture_output=True), args.repeat,
    )  # fmt: skip

    def ms(x: float) -> str:
        return f"{x * 1000:.1f}"

    rows = [
        ("published versions (records)", f"{args.versions}"),
        ("files per commit", f"{args.files}"),
        ("chosen base", f"{'nearest ancestor' if chosen is not current else 'current'}"),
        ("baseReason", base.reason),
        ("status freshness on the branch", f"{doc['freshness']} ({doc['changedFiles']} files)"),
        ("select, record cache cold (ms)", f"{ms(cold)} ({' / '.join(ms(x) for x in cold_all)})"),
        ("select, record cache warm (ms)", f"{ms(warm)} ({' / '.join(ms(x) for x in warm_all)})"),
        ("`freshindex status` on the branch, cache cold (ms)", ms(status_cold)),
        ("`freshindex status` on the branch, cache warm (ms)", ms(status_warm)),
        ("`freshindex status` on main's tip, no selection (ms)", ms(status_main)),
        ("`git merge-base HEAD main` (ms)", ms(merge_base)),
        ("set-up (s)", f"{setup:.1f}"),
    ]
    print(f"best of {args.repeat}\n\n| measure | value |\n|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("bases"):
        main()
