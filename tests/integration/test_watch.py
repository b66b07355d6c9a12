"""The watcher behind a service's worktree proof (query/watch.py), on a real
repository with real file-system events.

The invariant checked throughout: every answer's ``worktreeTree`` equals the
article's recipe (``read-tree HEAD; add -A; write-tree``) computed at that
moment, whether the answer reused the watcher's checkpoint or scanned.

Over 400 lines as one concept: one invariant, checked through every way the worktree moves.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from freshindex.core.exceptions import UnknownTarget
from freshindex.core.gitrepo import open_repo
from freshindex.indexer.document import classify
from freshindex.indexer.extract import extract
from freshindex.indexer.schema import SYMBOLS
from freshindex.query.watch import Watcher
from freshindex.query.worktree import scan
from freshindex.service.warm import QueryService
from freshindex.storage import open_store
from tests.repos import (
    GIT_ENV,
    SAMPLE_FILES,
    build_template,
    commit_all,
    copy_built,
    git,
    make_repo,
    recipe_tree,
    write_files,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, prefect_api: str) -> tuple[Path, Path]:
    return build_template(tmp_path_factory.mktemp("watch"), SAMPLE_FILES)


@pytest.fixture
def served(template: tuple[Path, Path], tmp_path: Path) -> Iterator[tuple[Path, QueryService]]:
    repo, store = copy_built(template, tmp_path)
    service = QueryService(open_repo(repo), open_store(store), watch=True)
    try:
        yield repo, service
    finally:
        service.close()


def proven(repo: Path, service: QueryService) -> dict[str, Any]:
    doc = service.status()
    assert doc["worktreeTree"] == recipe_tree(repo), doc
    return doc


def test_nothing_changed_reuses_the_checkpoint_and_any_change_is_seen(
    served: tuple[Path, QueryService],
) -> None:
    repo, service = served
    first = proven(repo, service)
    assert first["worktreeSource"] == "scan" and first["freshness"] == "exact"
    again = proven(repo, service)
    assert again["worktreeSource"] == "checkpoint"  # proven by a cookie, no rescan
    assert again["worktreeSeq"] is not None

    write_files(repo, {"app/models.py": "def persist(obj):\n    return None\n"})
    edited = proven(repo, service)  # no sleep: the cookie orders the edit before the answer
    assert edited["worktreeSource"] == "rehash" and edited["dirty"] is True  # that file only
    assert edited["worktreeSeq"] > again["worktreeSeq"]
    assert proven(repo, service)["worktreeSource"] == "checkpoint"

    commit_all(repo, "an edit committed")
    committed = proven(repo, service)
    assert committed["worktreeSource"] == "scan" and committed["dirty"] is False
    assert service.watcher is not None and service.watcher.recrawls["git"] >= 1


def test_over_http_the_cookie_is_begun_once_per_answer_as_the_request_arrives(
    served: tuple[Path, QueryService],
) -> None:
    """service/http.py begins the cookie before routing (QueryService.arrival):
    the answer waits for that one, a request that ends before any answer
    leaves no cookie behind, and an edit just before a request is in it."""
    import json
    import urllib.error
    import urllib.request

    from freshindex.query.watch import COOKIE_PREFIX
    from freshindex.service import serve

    repo, service = served
    watcher = service.watcher
    assert watcher is not None
    begun: list[object] = []
    begin = watcher.begin
    watcher.begin = lambda: begun.append(1) or begin()  # type: ignore[method-assign]
    server = serve(service, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    def get(path: str) -> tuple[int, dict[str, Any]]:
        try:
            with urllib.request.urlopen(base + path, timeout=30) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    try:
        for path in ("/status", "/defs?name=persist", "/refs?name=persist"):
            before = len(begun)
            code, doc = get(path)
            assert code == 200 and len(begun) == before + 1, (path, doc)
        assert get("/defs")[0] == 400  # no answer made: its cookie is removed all the same
        write_files(repo, {"app/models.py": "def persist(obj):\n    return 2\n"})
        code, doc = get("/status")  # no sleep: the cookie orders the edit before the answer
        assert code == 200 and doc["dirty"] is True and doc["worktreeTree"] == recipe_tree(repo)
    finally:
        server.shutdown()
    assert not list(Path(repo / ".git").glob(f"{COOKIE_PREFIX}*"))


def test_one_worktree_state_is_parsed_once_and_an_edit_parses_again(
    served: tuple[Path, QueryService],
) -> None:
    repo, service = served
    write_files(
        repo, {"app/models.py": "def persist(obj):\n    return 1\n\ndef first():\n    pass\n"}
    )
    names = lambda doc: sorted(r["name"] for r in doc["results"])  # noqa: E731
    first = service.query("defs", "first")
    assert first["freshness"] == "overlay" and names(first) == ["first"]
    built = service.overlays.get(
        (first["indexVersion"], first["headCommit"], first["worktreeTree"],
         service._evaluate().config.digest)
    )  # fmt: skip
    assert built is not None
    assert service._evaluate().overlay is built  # the same state: not parsed again
    write_files(
        repo, {"app/models.py": "def persist(obj):\n    return 1\n\ndef second():\n    pass\n"}
    )
    with pytest.raises(UnknownTarget):  # the edit, not the memo: nothing defines it now
        service.query("defs", "first")
    assert names(service.query("defs", "second")) == ["second"]


def test_lost_watcher_events_never_pass_for_a_verified_state(
    served: tuple[Path, QueryService],
) -> None:
    """The watcher is killed; then edits, a delete, a rename and a branch
    switch. No answer may reuse a checkpoint it can no longer prove."""
    repo, service = served
    proven(repo, service)
    assert proven(repo, service)["worktreeSource"] == "checkpoint"
    watcher = service.watcher
    assert watcher is not None
    watcher.stop()  # as good as a crashed or suspended watcher: no more events
    write_files(repo, {"app/new.py": "def new():\n    pass\n"})
    (repo / "web" / "dom.js").unlink()
    (repo / "app" / "service.py").rename(repo / "app" / "services.py")
    git(repo, "checkout", "-q", "-b", "elsewhere")
    doc = proven(repo, service)
    assert doc["worktreeSource"] == "scan" and doc["freshness"] in ("overlay", "partial")
    assert doc["dirty"] is True
    assert watcher.recrawls["stopped"] >= 1


def test_a_watch_that_does_not_answer_the_cookie_is_a_recrawl(
    served: tuple[Path, QueryService], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Events queued or dropped: the cookie does not come back in time."""
    repo, service = served
    proven(repo, service)
    watcher = service.watcher
    assert watcher is not None
    # every event lost from now on, the cookie's too. (A zero wait alone is
    # not enough: the cookie can come back while the answer chooses its base,
    # before the wait begins.)
    monkeypatch.setattr(watcher, "_record", lambda changes: None)
    monkeypatch.setattr(watcher, "SYNC_SECONDS", 0.2)
    write_files(repo, {"app/models.py": "def persist(obj):\n    return 2\n"})
    doc = proven(repo, service)
    assert doc["worktreeSource"] == "scan" and watcher.recrawls["sync-timeout"] >= 1


def test_random_edits_commits_and_checkouts_interleaved_with_answers(
    template: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, store = copy_built(template, tmp_path)
    git(repo, "branch", "other")
    service = QueryService(open_repo(repo), open_store(store), watch=True)
    rng = random.Random(20261204)
    reused = 0
    try:
        for step in range(150):
            files = sorted(
                p.relative_to(repo).as_posix()
                for p in repo.rglob("*")
                if p.is_file() and ".git" not in p.parts
            )
            op = rng.choice(
                ["edit", "edit", "add", "delete", "rename", "commit", "checkout", "none"]
            )
            if op == "edit" and files:
                write_files(repo, {rng.choice(files): f"x = {step}\n"})
            elif op == "add":
                write_files(
                    repo, {f"gen/d{rng.randrange(5)}/f{step}.py": f"def f{step}():\n    pass\n"}
                )
            elif op == "delete" and files:
                (repo / rng.choice(files)).unlink()
            elif op == "rename" and files:
                src = repo / rng.choice(files)
                dst = repo / "moved" / f"{step}-{src.name}"
                dst.parent.mkdir(exist_ok=True)
                src.rename(dst)
            elif op == "commit":
                commit_all(repo, f"step {step}")
            elif op == "checkout":
                branch = rng.choice(["main", "other"])
                commit_all(repo, f"before checkout {step}")
                git(repo, "checkout", "-q", branch)
            doc = proven(repo, service)
            reused += doc["worktreeSource"] == "checkpoint"
            if step % 10 == 0:
                overlay_matches_a_fresh_parse(repo, service)
            if op == "none" and doc["worktreeSource"] == "scan":
                assert proven(repo, service)["worktreeSource"] == "checkpoint"
        watcher = service.watcher
        assert watcher is not None
        # no cookie is remembered once its answer is done (a long-lived
        # service writes one per answer)
        assert not watcher._cookies_awaited and not watcher._cookies_seen
    finally:
        service.close()
    assert reused > 0


def overlay_matches_a_fresh_parse(repo: Path, service: QueryService) -> None:
    """Each changed file's symbols in the answer's overlay are those a parse
    of the file as it is now gives."""
    answerer = service._evaluate()
    if answerer.overlay is None:
        return
    config = answerer.config
    for path in sorted(answerer.overlay.shadowed):
        file = repo / path
        expected: list[tuple[str, int]] = []
        if file.is_file():
            data = file.read_bytes()
            language, reason = classify(path, 0o100644, len(data), data[:8192], config)
            if language is not None and reason is None:
                rows = extract(path, language, data, None, config.max_parse_work_factor)
                expected = sorted(
                    (s["qualname"], s["start_line"])
                    for s in (dict(zip(SYMBOLS.names, r, strict=True)) for r in rows.symbols)
                )
        got = sorted(
            (s["qualname"], s["start_line"]) for s in answerer.overlay.symbols if s["path"] == path
        )
        assert got == expected, path


def test_a_plain_call_without_a_watcher_scans(template: tuple[Path, Path], tmp_path: Path) -> None:
    repo, store = copy_built(template, tmp_path)
    service = QueryService(open_repo(repo), open_store(store))
    doc = service.status()
    assert service.watcher is None and doc["worktreeSource"] == "scan"
    assert doc["worktreeSeq"] is None and doc["worktreeTree"] == recipe_tree(repo)


def test_a_bare_repository_cannot_be_watched(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "bare.git"))
    with pytest.raises(ValueError, match="bare"):
        Watcher(open_repo(tmp_path / "bare.git"))
    shutil.rmtree(tmp_path / "bare.git")


def test_a_worktree_moved_under_the_service_is_unknown_and_unhealthy(
    served: tuple[Path, QueryService],
) -> None:
    repo, service = served
    assert proven(repo, service)["freshness"] == "exact"
    moved = repo.with_name("moved-away")
    repo.rename(moved)
    doc = service.status()  # an answer that proves nothing, not an error
    assert doc["relation"] == "unknown" and doc["freshness"] == "stale", doc
    assert "is gone" in doc["reasons"][0]
    health = service.healthz()
    assert not health["healthy"] and any("is gone" in p for p in health["problems"])
    from freshindex.core.exceptions import WorktreeGone

    with pytest.raises(WorktreeGone, match="is gone"):  # a query: one line over HTTP/MCP
        service.query("defs", "persist")
    moved.rename(repo)  # back: the service never went down
    assert proven(repo, service)["freshness"] == "exact"
    assert service.healthz()["healthy"]


# --- the watcher alone: re-hashing named paths against a full read ---------------------


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, Watcher]]:
    repo = make_repo(
        tmp_path / "repo",
        {
            ".gitignore": "*.log\nbuild/\n",
            "a/one.py": "x = 1\n",
            "a/deep/two.py": "y = 2\n",
            "b/three.py": "z = 3\n",
            "tool.sh": "echo hi\n",
        },
    )
    git(repo, "branch", "other")
    watcher = Watcher(open_repo(repo)).start()
    try:
        yield repo, watcher
    finally:
        watcher.stop()


def _random_fs_op(repo: Path, rng: random.Random, step: int) -> str:
    files = sorted(
        p.relative_to(repo).as_posix()
        for p in repo.rglob("*")
        if (p.is_file() or p.is_symlink()) and ".git" not in p.parts and p.name != ".gitignore"
    )  # .gitignore is rewritten by its own operation only
    dirs = sorted(
        p.relative_to(repo).as_posix()
        for p in repo.rglob("*")
        if p.is_dir() and not p.is_symlink() and ".git" not in p.parts
    )
    op = rng.choice(
        [
            "edit", "edit", "same-bytes", "add-deep", "delete", "rename", "rename-dir",
            "remove-dir", "file-to-dir", "symlink", "chmod", "ignored", "gitignore",
            "commit", "checkout", "none",
        ]
    )  # fmt: skip
    if op == "edit" and files:
        path = repo / rng.choice(files)
        if path.is_symlink():
            path.unlink()  # a link becomes a file (never written through)
        write_files(repo, {path.relative_to(repo).as_posix(): f"v = {step}\n"})
    elif op == "same-bytes" and files:  # a new stat, the same content
        path = repo / rng.choice(files)
        if path.is_file() and not path.is_symlink():
            path.write_bytes(path.read_bytes())
    elif op == "add-deep":  # folders made and filled at once, before any watch on them
        write_files(repo, {f"n{step}/p/q/r{step}.py": f"def r{step}():\n    pass\n"})
    elif op == "delete" and files:
        (repo / rng.choice(files)).unlink()
    elif op == "rename" and files:
        src = repo / rng.choice(files)
        (repo / "moved").mkdir(exist_ok=True)
        src.rename(repo / "moved" / f"{step}-{src.name}")
    elif op == "rename-dir" and dirs:  # one event names a whole folder
        src = repo / rng.choice(dirs)
        dst = repo / f"dir{step}"
        if not dst.exists():
            src.rename(dst)
    elif op == "remove-dir" and dirs:
        shutil.rmtree(repo / rng.choice(dirs))
    elif op == "file-to-dir" and files:
        path = repo / rng.choice(files)
        if path.is_file() and not path.is_symlink():
            path.unlink()
            write_files(repo, {f"{path.relative_to(repo).as_posix()}/inner.py": "k = 0\n"})
    elif op == "symlink" and files:
        link = repo / f"link{step}"
        link.symlink_to(rng.choice(files))
    elif op == "chmod" and files:
        path = repo / rng.choice(files)
        if path.is_file() and not path.is_symlink():
            path.chmod(path.stat().st_mode ^ 0o111)
    elif op == "ignored":  # ignored files never count
        write_files(repo, {f"build/out{step}.o": "obj", f"a/run{step}.log": "log"})
    elif op == "gitignore":  # rules change: which untracked files count changes
        write_files(repo, {".gitignore": rng.choice(["*.log\n", "*.log\nbuild/\n", "moved/\n"])})
    elif op == "commit":
        commit_all(repo, f"step {step}")
    elif op == "checkout":
        commit_all(repo, f"before checkout {step}")
        git(repo, "checkout", "-q", rng.choice(["main", "other"]))
    return op


def test_rehashing_named_paths_equals_a_full_read(watched: tuple[Path, Watcher]) -> None:
    """Random file-system operations, each followed by an answer's read: the
    watcher's state (reused, re-hashed from the named paths, or read whole)
    is the full read's and the recipe's, path for path."""
    repo, watcher = watched
    rng = random.Random(4122026)
    sources: Counter[str] = Counter()
    for step in range(200):
        op = _random_fs_op(repo, rng, step)
        seen = watcher.observe(open_repo(repo))
        full = scan(open_repo(repo))
        assert (seen.state.tree, seen.state.changed) == (full.tree, full.changed), (step, op)
        assert seen.state.tree == recipe_tree(repo), (step, op)
        sources[seen.source] += 1
    assert sources["rehash"] > 20 and sources["checkpoint"] > 0, sources


def test_many_changed_paths_are_one_full_read(watched: tuple[Path, Watcher]) -> None:
    repo, watcher = watched
    watcher.observe(open_repo(repo))
    write_files(repo, {f"bulk/f{i}.py": f"n = {i}\n" for i in range(Watcher.MAX_NAMED + 10)})
    seen = watcher.observe(open_repo(repo))
    assert seen.source == "scan" and seen.cause == "changed"
    assert seen.state.tree == recipe_tree(repo)
    assert watcher.observe(open_repo(repo)).source == "checkpoint"
    # one event names a folder moved in whole, holding more than a re-hash reads
    outside = repo.parent / "vendored"
    write_files(outside, {f"pkg/m{i}.py": f"m = {i}\n" for i in range(1100)})
    outside.rename(repo / "vendored")
    seen = watcher.observe(open_repo(repo))
    assert seen.source == "scan" and seen.cause == "changed"
    assert seen.state.tree == recipe_tree(repo) and len(seen.state.changed) > 1100


# --- git at work: index.lock and a HEAD that moves during a read ------------------------


def test_an_index_lock_released_soon_is_waited_for(watched: tuple[Path, Watcher]) -> None:
    """A git command holds index.lock, edits, and finishes within the wait:
    the answer comes after it, with the command's result and no note."""
    repo, watcher = watched
    watcher.observe(open_repo(repo))
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")

    def finish() -> None:
        time.sleep(0.1)
        write_files(repo, {"a/one.py": "x = 'after the command'\n"})
        lock.unlink()

    worker = threading.Thread(target=finish)
    worker.start()
    seen = watcher.observe(open_repo(repo))
    worker.join()
    assert seen.state.note is None
    assert seen.state.tree == recipe_tree(repo)  # the edit made under the lock is in


def test_an_index_lock_held_on_is_read_through_with_a_reason(
    served: tuple[Path, QueryService],
) -> None:
    """A lock that outlives the wait (a slow command) or a stale one left by
    a crashed command: not an error; the answer is read and says so."""
    repo, service = served
    proven(repo, service)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    write_files(repo, {"app/models.py": "def persist(obj):\n    return 3\n"})
    started = time.monotonic()
    doc = proven(repo, service)
    assert 0.4 < time.monotonic() - started < 5
    assert doc["freshness"] == "overlay"
    assert any("git operation is in progress" in r for r in doc["reasons"]), doc
    old = time.time() - 3600
    os.utime(lock, (old, old))  # a crashed command's lock: no wait at all
    started = time.monotonic()
    doc = proven(repo, service)
    assert time.monotonic() - started < 0.4
    assert any("did not finish" in r for r in doc["reasons"]), doc
    lock.unlink()
    assert not any("index.lock" in r for r in proven(repo, service)["reasons"])


def test_answers_during_real_git_commits_are_states_the_repository_was_in(
    watched: tuple[Path, Watcher],
) -> None:
    """`git commit` in a loop beside the answers (index.lock taken and
    released, the index renamed, refs moved, hundreds of times): no answer
    fails, and each is a state the repository was in: HEAD's tree, or HEAD's
    tree with the next commit's edit made. (A read that took HEAD before a
    commit and the status after it would also give HEAD's tree here, an
    earlier state; scan reads HEAD again after the walk for that case.)"""
    repo, watcher = watched
    stop = threading.Event()

    def committer() -> None:
        i = 0
        while not stop.is_set():
            # written whole (a rename), so no moment holds a half-written file
            tmp = repo / ".git" / "next-one.py"
            tmp.write_text(f"x = {i}\n")
            os.replace(tmp, repo / "a" / "one.py")
            subprocess.run(
                ["git", "-C", str(repo), "commit", "-q", "-am", f"c{i}"],
                check=True,
                capture_output=True,
                env={**os.environ, **GIT_ENV},
            )
            i += 1

    answers = []
    thread = threading.Thread(target=committer)
    thread.start()
    try:
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            seen = watcher.observe(open_repo(repo))
            answers.append((seen.state.head, seen.state.tree, seen.source))
    finally:
        stop.set()
        thread.join()
    log = git(repo, "log", "--format=%H %T %P").splitlines()
    tree_of = {c: t for c, t, *_ in (line.split() for line in log)}
    child_tree = {p[0]: t for c, t, *p in (line.split() for line in log) if p}
    assert len(tree_of) > 5 and len(answers) > 20
    for head, tree, source in answers:
        assert tree in (tree_of[head], child_tree.get(head)), (head, tree, source)


def test_a_file_name_watchfiles_cannot_decode_degrades_to_full_reads(
    watched: tuple[Path, Watcher], monkeypatch: pytest.MonkeyPatch
) -> None:
    """watchfiles 1.3 stops its watch at any event on a non-UTF-8 name. The
    answers go on correct (full reads, with a reason), the watcher is started
    again with a growing delay, and runs for good once the name is gone."""
    repo, watcher = watched
    monkeypatch.setattr(watcher, "REVIVE_SECONDS", 0.05)
    watcher.observe(open_repo(repo))
    bad = os.path.join(bytes(repo), b"bad\xff.py")
    with open(bad, "wb") as fh:
        fh.write(b"def bad():\n    pass\n")
    notes = []
    for _ in range(4):
        seen = watcher.observe(open_repo(repo))
        assert seen.source == "scan" and seen.state.tree == recipe_tree(repo)
        notes.append(seen.state.note or "")
        time.sleep(0.2)
    assert watcher.error is not None and "decode" in str(watcher.error)
    assert any("watcher stopped" in n for n in notes), notes  # said while it was down
    os.unlink(bad)
    deadline = time.monotonic() + 10
    while watcher.observe(open_repo(repo)).source != "checkpoint":  # an answer revives it
        assert time.monotonic() < deadline, "the watcher never ran again"
        time.sleep(0.1)
    assert watcher.revivals >= 1
    assert watcher.observe(open_repo(repo)).state.tree == recipe_tree(repo)
