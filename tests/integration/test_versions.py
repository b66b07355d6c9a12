"""Signed publication records and rollback, on both backends."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from freshindex.catalog.layout import read_manifest, read_pointer, read_records, record_key
from freshindex.cli import main
from freshindex.core.exceptions import PublishConflict
from freshindex.ops.rollback import rollback
from freshindex.storage import open_store
from tests.repos import SAMPLE_FILES, commit_all, git, make_repo, write_files

pytestmark = pytest.mark.slow


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, str]:
    code, out, _ = run(capsys, "--json", "keygen", "--out", str(tmp_path / "keys"))
    assert code == 0
    doc = json.loads(out)
    assert (Path(doc["privateKey"]).stat().st_mode & 0o777) == 0o600
    monkeypatch.setenv("FRESHINDEX_SIGNING_KEY", doc["privateKey"])
    monkeypatch.setenv("FRESHINDEX_PUBLIC_KEY", doc["publicKey"])
    return doc  # type: ignore[no-any-return]


@pytest.fixture
def two_versions(
    prefect_api: str,
    keys: dict[str, str],
    tmp_path: Path,
    store_uri: str,
    capsys: pytest.CaptureFixture[str],
) -> tuple[Path, str, str, str]:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    build = (
        "--repo",
        str(repo),
        "--store",
        store_uri,
        "build",
        "--runner",
        "threads",
        "--shards",
        "4",
    )
    assert run(capsys, *build)[0] == 0
    v1 = read_pointer(open_store(store_uri)).pointer.version  # type: ignore[union-attr]
    write_files(repo, {"app/late.py": "def late():\n    pass\n"})
    commit_all(repo, "second")
    assert run(capsys, *build)[0] == 0
    v2 = read_pointer(open_store(store_uri)).pointer.version  # type: ignore[union-attr]
    return repo, store_uri, v1, v2


def snapshot(repo: Path) -> tuple[str, str, str]:
    return (
        git(repo, "show-ref"),
        git(repo, "status", "--porcelain", "--ignored"),
        git(repo, "rev-parse", "HEAD"),
    )


def test_records_are_signed_and_verified(two_versions, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, v1, v2 = two_versions
    records = read_records(open_store(store_uri))
    assert [r.version for r in records] == [v1, v2] and all(r.signature for r in records)
    _, out, _ = run(capsys, "--repo", str(repo), "--store", store_uri, "--json", "status")
    assert json.loads(out)["records"] == {
        "signed": True,
        "verified": True,
        "note": "signed by the pinned key",
    }


def test_rollback_switches_back_and_reports_the_lag(
    two_versions, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, v1, _v2 = two_versions
    before = snapshot(repo)
    generation = read_pointer(open_store(store_uri)).pointer.generation  # type: ignore[union-attr]
    code, out, err = run(capsys, "--repo", str(repo), "--store", store_uri, "--json", "rollback")
    assert code == 0, err
    assert json.loads(out)["current"] == v1
    ptr = read_pointer(open_store(store_uri)).pointer
    assert (
        ptr is not None
        and ptr.version == v1
        and ptr.reason == "rollback"
        and ptr.generation == generation + 1
    )
    assert run(capsys, "--repo", str(repo), "--store", store_uri, "verify")[0] == 0
    code, out, _ = run(capsys, "--repo", str(repo), "--store", store_uri, "--json", "status")
    doc = json.loads(out)
    assert doc["freshness"] == "stale" and doc["lagCommits"] == 1
    assert any("rolled back" in r for r in doc["reasons"])
    assert snapshot(repo) == before  # the source tree and refs are untouched
    # the next update honours the rebuild request and the index is fresh again
    code, out, _ = run(capsys, "--repo", str(repo), "--store", store_uri, "--json", "update")
    assert code == 0 and json.loads(out)["outcome"] == "published"
    assert not list(open_store(store_uri).list("requests/"))
    code, out, _ = run(capsys, "--repo", str(repo), "--store", store_uri, "--json", "status")
    assert json.loads(out)["freshness"] == "exact"


def test_rollback_refuses_unsigned_tampered_and_failed_versions(
    two_versions,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    repo, store_uri, v1, v2 = two_versions
    store = open_store(store_uri)
    # tampered: one byte of a table file changed
    m = read_manifest(store, v1)
    entry = next(t for t in m.tables if t.rows)
    original = store.get(entry.key).data
    store.put(entry.key, original[:-1] + bytes([original[-1] ^ 1]))
    code, _, err = run(capsys, "--repo", str(repo), "--store", store_uri, "rollback", "--to", v1)
    assert code == 1 and "sha256" in err
    store.put(entry.key, original)
    # unsigned: the record rewritten without its signature
    rec = next(r for r in read_records(store) if r.version == v1)
    store.put(record_key(rec.seq), rec.model_copy(update={"signature": None}).to_bytes())
    code, _, err = run(capsys, "--repo", str(repo), "--store", store_uri, "rollback", "--to", v1)
    assert code == 1 and ("unsigned" in err or "signature" in err)
    store.put(record_key(rec.seq), rec.to_bytes())
    # no public key pinned: nothing can prove last-good
    monkeypatch.delenv("FRESHINDEX_PUBLIC_KEY")
    code, _, err = run(capsys, "--repo", str(repo), "--store", store_uri, "rollback", "--to", v1)
    assert code == 1 and "no public key pinned" in err
    assert read_pointer(store).pointer.version == v2  # type: ignore[union-attr]


def test_rollback_to_a_failed_version_is_refused(
    two_versions, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    from freshindex.tasks.parse import index_shard
    from freshindex.tasks.plan import plan_build
    from freshindex.tasks.publish import finalize
    from freshindex.tasks.validate import ValidationReport

    repo, store_uri, _v1, _v2 = two_versions
    store = open_store(store_uri)
    plan = plan_build.fn(str(repo), store_uri, "HEAD", 1)
    tables = index_shard(plan.job, 0)
    finalize(store, plan, tables, ValidationReport(False, "forced failure", {}))
    code, _, err = run(
        capsys, "--repo", str(repo), "--store", store_uri, "rollback", "--to", plan.version
    )
    assert code == 1 and "failed" in err


def test_racing_rollbacks_have_one_winner(two_versions, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import freshindex.ops.rollback as rb

    _repo, store_uri, v1, _v2 = two_versions
    winners: list[str] = []
    losers: list[str] = []
    barrier = threading.Barrier(2)
    real_read = rb.read_pointer

    def read_then_wait(store):  # type: ignore[no-untyped-def]
        state = real_read(store)
        barrier.wait()  # both recovery jobs have read the same pointer before either swaps
        return state

    monkeypatch.setattr(rb, "read_pointer", read_then_wait)

    def go() -> None:
        store = open_store(store_uri)
        try:
            winners.append(rollback(store, v1).current)
        except PublishConflict as err:
            losers.append(str(err))

    threads = [threading.Thread(target=go) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # both read the same pointer; the compare-and-swap lets exactly one through
    assert len(winners) == 1 and len(losers) == 1 and "moved" in losers[0]
    assert read_pointer(open_store(store_uri)).pointer.version == v1  # type: ignore[union-attr]
